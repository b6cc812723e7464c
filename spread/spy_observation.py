"""What colluding spies saw of a run: the observation the spy simulators produce.

Message-level runs (:func:`spread.simulate_messages`, read by
:func:`adversaries.observe_spies`) and Dandelion's stem and fluff phases
(:meth:`spread.StemBatch.observation`) both produce a :class:`SpyObservation`; the spy
estimators of :mod:`adversaries.spies` read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.spread.result import _short

__all__ = ["SpyObservation"]


@dataclass(frozen=True)
class SpyObservation:
    """What the spies saw.

    Parameters
    ----------
    graph : ContactGraph or LazyTree
        The contact graph of the run.
    T : int or math.inf
        The observation horizon; ``math.inf`` for a run to completion (the
        observations of :class:`spread.StemBatch`, Dandelion's stem and fluff phases).
    spies : numpy.ndarray
        Spy nodes (labels).
    spy_index : numpy.ndarray of int64
        Their internal indices in ``graph``.
    time : numpy.ndarray of float64
        Time of each spy's first receipt (``inf`` if it received nothing by ``T``).
    sender : list
        Who sent that first message (``None`` if nothing was received).
    kind : list of str or None
        Its kind (``"infect"``, ``"token"``, ``"offer"``, ...).
    protocol : Protocol
        The protocol the run used (estimators that assume a model check it).

    Examples
    --------
    Four spies on a 4-regular graph watch random diffusion for four steps; spy 7 has
    received nothing yet, spy 19 first heard from spy 3:

    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> from anonspread.spread.events import simulate_messages
    >>> g = spread.graphs.from_networkx(nx.random_regular_graph(4, 30, seed=1))
    >>> run = simulate_messages(g, spread.RandomDiffusion(0.5), 4, rng=0)
    >>> obs = adversaries.observe_spies(run, [3, 7, 11, 19])
    >>> obs.time.tolist(), obs.sender, obs.kind
    ([1.0, inf, 4.0, 3.0], [25, None, 24, 3], ['infect', None, 'infect', 'infect'])
    >>> adversaries.pick(adversaries.first_spy(obs)), run.spread.source
    (25, 25)
    """

    graph: Any
    T: int | float
    spies: np.ndarray
    spy_index: np.ndarray
    time: np.ndarray
    sender: list
    kind: list
    protocol: Any

    @property
    def n_spies(self) -> int:
        """Number of spies."""
        return int(self.spies.shape[0])

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """Candidate sources: (labels, internal indices) of every node of the graph so far."""
        g = self.graph
        n = g.number_of_touched_nodes() if g.is_infinite else g.number_of_nodes()
        idx = np.arange(n, dtype=np.int64)
        return g.labels_of(idx), idx

    def __repr__(self) -> str:
        # one line: the sizes (the spies' arrays are the fields)
        heard = int(np.count_nonzero(np.isfinite(np.asarray(self.time, dtype=float))))
        return (f"SpyObservation(graph={_short(self.graph)}, protocol={_short(self.protocol)}, T={self.T}, "
                f"spies={len(self.spies)}, heard={heard})")
