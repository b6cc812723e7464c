"""Spreading protocols on contact graphs, and the simulators that run them.

``spread.simulate(graph, protocol, T)`` returns one run's full trace;
``spread.simulate_many(graph, protocol, T, trials)`` is the compiled Monte Carlo path;
``spread.simulate_messages`` (:mod:`spread.events`) runs the same protocols message by
message on SimPy, every node a process that only talks to its neighbours.
Graphs live in :mod:`spread.graphs`, protocols in :mod:`spread.protocols`; Dandelion and
Dandelion++ (continuous time, their own compiled path ``spread.simulate_stems``) in
:mod:`spread.dandelion`.
"""

from anonspread.spread import dandelion, events, graphs, protocols
from anonspread.spread.dandelion import Dandelion, DandelionPlusPlus, simulate_stems
from anonspread.spread.events import simulate_messages
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
    TreeProtocolPseudocode,
)
from anonspread.spread.result import Spread, SpreadBatch
from anonspread.spread.simulate import simulate, simulate_many

__all__ = [
    "AdaptiveDiffusion",
    "Dandelion",
    "DandelionPlusPlus",
    "Flooding",
    "LineProtocol",
    "RandomDiffusion",
    "Spread",
    "SpreadBatch",
    "TreeProtocol",
    "TreeProtocolPseudocode",
    "dandelion",
    "events",
    "graphs",
    "protocols",
    "simulate",
    "simulate_many",
    "simulate_messages",
    "simulate_stems",
]
