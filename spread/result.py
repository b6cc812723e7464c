"""Result objects of the simulators: one run (:class:`Spread`) and many (:class:`SpreadBatch`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["Spread", "SpreadBatch"]


@dataclass(frozen=True, eq=False)
class Spread:
    """What one run of a protocol left behind.

    :func:`~anonspread.spread.simulate` returns one; the fields are its parameters.

    Parameters
    ----------
    source : node label
        The true source.
    T : int
        Number of steps run.
    infected : numpy.ndarray
        Infected nodes (labels) in infection order, source first.
    times : numpy.ndarray of int32
        ``times[i]`` is the step at which ``infected[i]`` was infected.
    parent_position : numpy.ndarray of int64
        ``infected[parent_position[i]]`` infected ``infected[i]`` (-1 for the source).
    virtual_source : node label or None
        The virtual source after step T (adaptive diffusion), else None.
    virtual_source_history : numpy.ndarray or None
        The virtual source after each step ``t = 0..T`` (adaptive diffusion).
    graph : ContactGraph or LazyTree
        The contact graph the run used (finite graphs in their CSR form).
    protocol : Protocol
        The protocol that ran.
    index : numpy.ndarray of int32
        Internal node indices of ``infected`` in ``graph`` (equal to the labels on
        infinite trees).
    sizes : numpy.ndarray of int64
        Number of infected nodes after each step ``t = 0..T``.
    stop : Reach or None
        The stopping rule by reach the run used (:mod:`spread.reach`), else None.
    reached : bool or None
        With a stopping rule: whether the run reached its target (``T`` is then the first
        step at which it did; else ``T`` is the cap); None without one.

    Examples
    --------
    Adaptive diffusion on the 3-regular tree for three steps: the virtual source moves
    away from the true source (node 0) while the infection stays balanced around it.

    >>> import anonspread as asp
    >>> tree = asp.spread.graphs.regular_tree(3)
    >>> s = asp.simulate(tree, asp.spread.AdaptiveDiffusion(), T=3, rng=1)
    >>> s.source, s.infected.tolist(), s.times.tolist()
    (0, [0, 2, 4, 5, 6, 7], [0, 1, 2, 2, 3, 3])
    >>> s.virtual_source_history.tolist(), s.sizes.tolist()
    ([0, 2, 2, 4], [1, 2, 4, 6])
    >>> s.infection_edges()
    [(0, 2), (2, 4), (2, 5), (4, 6), (4, 7)]
    """

    source: Any
    T: int
    infected: np.ndarray
    times: np.ndarray
    parent_position: np.ndarray
    virtual_source: Any
    virtual_source_history: np.ndarray | None
    graph: Any
    protocol: Any
    index: np.ndarray = field(repr=False)
    sizes: np.ndarray = field(repr=False)
    stop: Any = field(default=None, repr=False)
    reached: bool | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.infected.shape[0])

    @property
    def n_infected(self) -> int:
        """Number of infected nodes at T."""
        return int(self.infected.shape[0])

    @cached_property
    def infection_time(self) -> dict:
        """Mapping node -> step at which it was infected."""
        return dict(zip(self.infected.tolist(), self.times.tolist()))

    @cached_property
    def parent(self) -> dict:
        """Mapping node -> the node that infected it (the source maps to None)."""
        labels = self.infected.tolist()
        return {
            lab: (None if p < 0 else labels[p])
            for lab, p in zip(labels, self.parent_position.tolist())
        }

    def infection_edges(self) -> list[tuple]:
        """The (parent, child) pairs of the infection tree."""
        labels = self.infected.tolist()
        return [(labels[p], labels[i]) for i, p in enumerate(self.parent_position.tolist()) if p >= 0]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Spread):
            return NotImplemented
        same_vs = (self.virtual_source_history is None and other.virtual_source_history is None) or (
            self.virtual_source_history is not None
            and other.virtual_source_history is not None
            and np.array_equal(self.virtual_source_history, other.virtual_source_history)
        )
        return (
            self.source == other.source
            and self.T == other.T
            and self.protocol == other.protocol
            and np.array_equal(self.infected, other.infected)
            and np.array_equal(self.times, other.times)
            and np.array_equal(self.parent_position, other.parent_position)
            and same_vs
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # one line: what ran where, and the figures a reader looks at first (the arrays are fields)
        vs = "" if self.virtual_source is None else f", virtual_source={_short(self.virtual_source, 20)}"
        stop = "" if self.stop is None else f", stop={str(self.stop)!r}, reached={self.reached}"
        return (f"Spread(protocol={_short(self.protocol)}, graph={_short(self.graph)}, T={self.T}, "
                f"n_infected={self.n_infected}, source={_short(self.source, 20)}{vs}{stop})")


def _short(obj: Any, limit: int = 60) -> str:
    """``repr(obj)`` when it is one line of at most ``limit`` characters, else its type's name."""
    text = repr(obj)
    return text if len(text) <= limit and "\n" not in text else f"{type(obj).__name__}(...)"


@dataclass(frozen=True, eq=False)
class SpreadBatch:
    """Summaries of many independent runs of one protocol at one parameter point.

    :func:`~anonspread.spread.simulate_many` returns one.

    Parameters
    ----------
    T : int
        Steps of each run.
    trials : int
        Number of runs.
    sources : numpy.ndarray
        Source of each trial (labels).
    sizes : numpy.ndarray of int64, shape (trials, T + 1)
        Infected count after each step (with a stopping rule, a stopped trial's count is
        kept after its step).
    vs_hops : numpy.ndarray of int32
        Hops from the source to the final virtual source along the infection tree
        (the graph distance on trees); -1 for protocols without a virtual source.
    virtual_source : numpy.ndarray
        Final virtual source of each trial (internal index; -1 if none). On lazily
        grown trees each trial has its own realisation, so these ids are per trial.
    protocol : Protocol
        The protocol that ran.
    graph : ContactGraph or LazyTree
        The contact graph.
    stop : Reach or None
        The stopping rule by reach (:mod:`spread.reach`), else None (then ``T`` is the
        step of every snapshot).
    steps : numpy.ndarray of int64 or None
        With a stopping rule: each trial's snapshot step (the first step at which it
        reached its target, else the cap ``T``).
    reached : numpy.ndarray of bool or None
        With a stopping rule: whether each trial reached its target by ``T``.
    targets : numpy.ndarray of int64 or None
        With a stopping rule: each trial's target infected count.

    Examples
    --------
    Adaptive diffusion infects exactly 10 nodes of the 3-regular tree by ``T = 4`` (it
    controls the spread's shape); its virtual source ends one or two hops from the
    source. Random diffusion's size varies from run to run.

    >>> import numpy as np
    >>> from anonspread import spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> ad = spread.AdaptiveDiffusion()
    >>> b = spread.simulate_many(tree, ad, T=4, trials=1000, rng=1)
    >>> b.sizes[0].tolist(), float(b.n_infected.mean()), np.bincount(b.vs_hops).tolist()
    ([1, 2, 4, 6, 10], 10.0, [0, 337, 663])
    >>> b = spread.simulate_many(tree, spread.RandomDiffusion(), T=4, trials=1000, rng=1)
    >>> b.sizes[:2].tolist(), float(b.n_infected.mean())
    ([[1, 1, 3, 5, 9], [1, 2, 4, 8, 14]], 13.188)
    """

    T: int
    trials: int
    sources: np.ndarray
    sizes: np.ndarray
    vs_hops: np.ndarray
    virtual_source: np.ndarray
    protocol: Any = field(repr=False)
    graph: Any = field(repr=False)
    stop: Any = field(default=None, repr=False)
    steps: np.ndarray | None = field(default=None, repr=False)
    reached: np.ndarray | None = field(default=None, repr=False)
    targets: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_infected(self) -> np.ndarray:
        """Infected count of each trial's snapshot (at T, or at its stop)."""
        return self.sizes[:, self.T]

    def __repr__(self) -> str:
        # one line whatever the trials: the arrays are there to be read, not printed
        sizes = self.sizes[:, self.T] if self.sizes.ndim == 2 and self.sizes.shape[0] else None
        mean = f"{float(sizes.mean()):.6g}" if sizes is not None else "nan"
        stop = "" if self.stop is None or self.reached is None else (
            f", stop={str(self.stop)!r}, reached={int(np.count_nonzero(self.reached))}")
        return (f"SpreadBatch(protocol={_short(self.protocol)}, graph={_short(self.graph)}, T={self.T}, "
                f"trials={self.trials}, mean N_T={mean}{stop})")
