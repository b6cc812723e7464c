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

__all__ = ["SpyObservation"]


@dataclass(frozen=True)
class SpyObservation:
    """What the spies saw.

    Attributes
    ----------
    graph : ContactGraph or LazyTree
    T : int or math.inf
        The observation horizon; ``math.inf`` for a run to completion (the
        observations of :class:`spread.StemBatch`, Dandelion's stem and fluff phases).
    spies : numpy.ndarray
        Spy nodes (labels, internal indices in :attr:`spy_index`).
    time : numpy.ndarray of float64
        Time of each spy's first receipt (``inf`` if it received nothing by ``T``).
    sender : list
        Who sent that first message (``None`` if nothing was received).
    kind : list of str or None
        Its kind (``"infect"``, ``"token"``, ``"offer"``, ...).
    protocol : Protocol
        The protocol the run used (estimators that assume a model check it).
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
        return int(self.spies.shape[0])

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """Candidate sources: (labels, internal indices) of every node of the graph so far."""
        g = self.graph
        n = g.number_of_touched_nodes() if g.is_infinite else g.number_of_nodes()
        idx = np.arange(n, dtype=np.int64)
        return g.labels_of(idx), idx
