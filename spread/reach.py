"""Stopping a spread by reach: compare protocols when the same number of people have the message.

A fixed number of steps ``T`` compares protocols at equal *time*; two protocols that grow
at different speeds then differ in how many nodes hold the message, and "which protocol
hides the source better" mixes hiding with having reached everyone. A stopping rule by
reach ends each run at the first step after which at least ``k`` nodes are infected:

* ``"infected:k"`` (``k >= 1``): ``k`` infected nodes;
* ``"coverage:f"`` (``0 < f <= 1``): ``ceil(f * C)`` infected nodes, ``C`` the size of the
  source's connected component (finite graphs only).

The rule, as the compiled kernels apply it (``anonspread.engine.spreading.run_protocol``):

* **Snapshot.** The snapshot is the state after the first step ``t`` whose infected count
  reaches the target; its ``T`` is ``t`` (per trial). Spreads advance a whole step at a
  time, so a step can overshoot: every node infected during step ``t`` is kept (random
  diffusion can pass from 600 to 1,400 infected in one step at ``k = 1000``). The count
  at the snapshot is recorded per trial (``n_infected``), so the overshoot is visible; it
  is never trimmed, as a trimmed set is not a state the protocol reaches, and the
  adversary's estimators assume protocol states at integer times.
* **Cap.** ``T`` (the simulators' positional argument) is the cap: a run that has not
  reached the target after ``T`` steps stops there, and is recorded as not reached
  (``reached`` False per trial) with its snapshot at ``T``; nothing mixes such runs in
  silently: the harness reports the fraction reached per point and warns at the end of
  the run (adaptive diffusion on graphs with cycles can stall below any target).

The same ``rng`` gives the same trials as a run without a stop up to each trial's stop:
stopping draws nothing.

The adversaries score a stopped snapshot with its step as a fixed ``T``; they do not use
the further fact that the count was below the target one step earlier (a likelihood at a
fixed ``T``, not that of the stopped process).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError

__all__ = ["REACH_KINDS", "Reach", "component_sizes", "parse_reach", "reach_targets",
           "size_check_steps", "steps_and_reached"]


@dataclass(frozen=True)
class Reach:
    """A stopping rule by reach: ``kind`` ("infected" or "coverage") and its ``value``.

    Build one with :func:`parse_reach` (which checks the value); ``str(reach)`` is the
    ``"kind:value"`` form the command line takes.

    Parameters
    ----------
    kind : str
        ``"infected"``: stop at ``value`` infected nodes; ``"coverage"``: stop at a
        fraction ``value`` of the source's connected component.
    value : int or float
        The target.

    Examples
    --------
    >>> from anonspread.spread.reach import parse_reach
    >>> parse_reach("infected:1000")
    Reach(kind='infected', value=1000)
    >>> str(parse_reach("coverage:0.5"))
    'coverage:0.5'
    """

    kind: str
    value: Any

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


def _infected(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        k = None
    if k is None or str(k) != text.strip().lstrip("+") or k < 1:
        raise InvalidParameterError(
            f"stop=infected:K needs an integer K >= 1 (the number of infected nodes); got {text!r}"
        )
    return k


def _coverage(text: str) -> float:
    try:
        f = float(text)
    except ValueError:
        f = math.nan
    if not 0.0 < f <= 1.0:  # NaN fails too
        raise InvalidParameterError(
            "stop=coverage:F needs a fraction 0 < F <= 1 of the source's connected component; "
            f"got {text!r}"
        )
    return f


#: The kinds of reach, by name: each parses its value (a registry, so a kind is one line).
REACH_KINDS: dict[str, Callable[[str], Any]] = {"infected": _infected, "coverage": _coverage}


def parse_reach(stop: Any) -> Reach | None:
    """The stopping rule ``stop`` as a :class:`Reach`, checked (None: no stop).

    Parameters
    ----------
    stop : None, str or Reach
        ``"infected:K"`` (integer ``K >= 1``), ``"coverage:F"`` (``0 < F <= 1``), a
        :class:`Reach`, or None / ``""`` / ``"none"`` for no stop (run all ``T`` steps).

    Returns
    -------
    Reach or None

    Raises
    ------
    InvalidParameterError
        An unknown kind or a value out of range, naming what is accepted.

    Examples
    --------
    >>> parse_reach("infected:50").value, parse_reach("none")
    (50, None)
    """
    if stop is None:
        return None
    if isinstance(stop, Reach):
        stop = str(stop)
    if not isinstance(stop, str):
        raise InvalidTypeError(
            f"stop must be a string 'infected:K' or 'coverage:F', a Reach or None; got {stop!r}"
        )
    text = stop.strip()
    if text.lower() in ("", "none"):
        return None
    kind, sep, value = text.partition(":")
    kind = kind.strip().lower()
    if not sep or kind not in REACH_KINDS:
        raise InvalidParameterError(
            f"stop must be 'infected:K' (K >= 1 infected nodes) or 'coverage:F' (0 < F <= 1 of "
            f"the source's connected component), or none (no stop); got {stop!r} (kinds: "
            f"{', '.join(sorted(REACH_KINDS))})"
        )
    return Reach(kind, REACH_KINDS[kind](value.strip()))


def component_sizes(g: Any, nodes: np.ndarray | None = None) -> np.ndarray:
    """The size of each node's connected component, by node index, or of the given nodes'
    components (from :meth:`~spread.graphs.ContactGraph.components`: computed once per
    graph, or read from its graph file).

    Parameters
    ----------
    g : ContactGraph
        A finite contact graph.
    nodes : numpy.ndarray of int, optional
        Node indices (default: every node; an array of n entries is then made).

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from anonspread.spread.graphs import from_networkx
    >>> g = from_networkx(nx.Graph([(0, 1), (1, 2), (3, 4)]))
    >>> component_sizes(g).tolist(), component_sizes(g, np.array([4, 0])).tolist()
    ([3, 3, 3, 2, 2], [2, 3])
    """
    labels, sizes = g.components()
    if nodes is None:
        return sizes[labels].astype(np.int64, copy=False)
    return sizes[labels[np.asarray(nodes, np.int64)]].astype(np.int64, copy=False)


def reach_targets(reach: Reach | None, g: Any, sources: np.ndarray) -> np.ndarray | None:
    """The infected count that stops each trial (int64, by trial), or None without a rule.

    Parameters
    ----------
    reach : Reach or None
        The rule (:func:`parse_reach`).
    g : ContactGraph or LazyTree
        The graph (``coverage`` needs a finite one).
    sources : numpy.ndarray of int
        Each trial's source, as internal node indices.

    Returns
    -------
    numpy.ndarray of int64 or None
        ``k`` for ``infected:k``; ``ceil(f * C)`` (at least 1) for ``coverage:f``, ``C``
        the size of the trial source's component.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from anonspread.spread.graphs import from_networkx
    >>> g = from_networkx(nx.path_graph(10))
    >>> reach_targets(parse_reach("coverage:0.25"), g, np.array([0, 5])).tolist()
    [3, 3]
    """
    if reach is None:
        return None
    sources = np.asarray(sources, np.int64)
    if reach.kind == "infected":
        return np.full(sources.shape[0], int(reach.value), np.int64)
    if g.is_infinite:
        raise GraphError(
            f"stop={reach} needs a finite graph (the fraction of the source's connected "
            "component); on an infinite tree use stop=infected:K"
        )
    total = component_sizes(g, sources)
    # the small tolerance keeps 0.5 * 10 at 5, not 6, whatever the rounding of f * C
    return np.maximum(np.ceil(reach.value * total - 1e-9), 1).astype(np.int64)


def steps_and_reached(sizes: np.ndarray, targets: np.ndarray | None,
                      T: int) -> tuple[np.ndarray, np.ndarray]:
    """Each trial's snapshot step and whether it reached its target, from its sizes.

    Parameters
    ----------
    sizes : numpy.ndarray of int64, shape (trials, T + 1)
        As a stopped batch leaves them (the snapshot's count kept after its step).
    targets : numpy.ndarray of int64 or None
        Each trial's target (:func:`reach_targets`); None: no rule.
    T : int
        The cap.

    Returns
    -------
    steps : numpy.ndarray of int64
        The first ``t`` with ``sizes[t] >= target``, else ``T``.
    reached : numpy.ndarray of bool
        Whether the target was attained (all True without targets).

    Examples
    --------
    >>> import numpy as np
    >>> sizes = np.array([[1, 3, 9, 9, 9], [1, 2, 4, 6, 8]])
    >>> steps, reached = steps_and_reached(sizes, np.array([5, 9]), 4)
    >>> steps.tolist(), reached.tolist()
    ([2, 4], [True, False])
    """
    trials = sizes.shape[0]
    if targets is None:
        return np.full(trials, T, np.int64), np.ones(trials, bool)
    hit = sizes >= targets[:, None]
    reached = hit[:, T]
    return np.where(reached, hit.argmax(axis=1), T).astype(np.int64), reached


def size_check_steps(reach: Reach | None, g: Any, protocol: Any, T: int) -> int:
    """The steps the size guard (:func:`spread.limits.check_run_size`) should assume.

    Without a rule, or stopping by coverage (bounded by the component), ``T``. Stopping at
    ``infected:k`` on an infinite tree, a run holds fewer than ``k`` nodes before its last
    step, so the guard assumes the first step at which the protocol's expected reach
    (:func:`spread.limits.expected_reach`) passes ``k``, plus one step of overshoot (at
    most ``T``).

    Parameters
    ----------
    reach : Reach or None
        The rule.
    g : ContactGraph or LazyTree
        The graph.
    protocol : Protocol
        The protocol.
    T : int
        The cap.

    Returns
    -------
    int

    Examples
    --------
    >>> from anonspread import spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> size_check_steps(parse_reach("infected:1000"), tree, spread.Flooding(), 10_000)
    10
    """
    if reach is None or reach.kind != "infected" or not getattr(g, "is_infinite", False):
        return T
    from anonspread.spread.limits import _mean_degree, expected_reach

    degree = _mean_degree(g)
    for t in range(T + 1):
        r = expected_reach(protocol, degree, max(degree - 1.0, 0.0), t)
        if r is None:
            return T
        if r >= reach.value:
            return min(T, t + 1)
    return T
