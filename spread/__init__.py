"""Spreading protocols on contact graphs, and the simulators that run them.

``spread.simulate(graph, protocol, T)`` returns one run's full trace;
``spread.simulate_many(graph, protocol, T, trials)`` is the compiled Monte Carlo path.
Graphs live in :mod:`spread.graphs`, protocols in :mod:`spread.protocols`.
"""

from spread import graphs, protocols
from spread.events import simulate_messages as simulate_messages
from spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
)
from spread.result import Spread, SpreadBatch
from spread.simulate import simulate, simulate_many

__all__ = [
    "AdaptiveDiffusion",
    "Flooding",
    "LineProtocol",
    "RandomDiffusion",
    "Spread",
    "SpreadBatch",
    "TreeProtocol",
    "graphs",
    "protocols",
    "simulate",
    "simulate_many",
]
