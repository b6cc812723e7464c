"""Continuous-time random diffusion (the SI model): an event-driven protocol.

It runs message by message in :func:`spread.simulate_messages` and as the plain-diffusion
baseline of :func:`spread.simulate_stems`; it has no discrete-time kernel.
"""

from __future__ import annotations

from typing import ClassVar

from anonspread.spread.nodes import MessageBehaviour, Node
from anonspread.spread.protocols import Protocol
from anonspread.validation import check_real

__all__ = ["ContinuousDiffusion"]


class _ContinuousNode(Node):
    """Once infected, send the rumour to every unknown contact, each after an
    Exponential(rate) delay (``params = rate``)."""

    def on_infected(self, data):
        rate = self.params
        for w in self.unknown():
            self.known.add(w)
            self.port.send(w, "infect", delay=float(self.rng.exponential(1.0 / rate)))


class ContinuousDiffusion(Protocol):
    """Continuous-time random diffusion: the SI model of Shah & Zaman (2011).

    A node infected at time ``tau`` sends the rumour to each contact it has not heard
    from, each message arriving after an independent ``Exponential(rate)`` delay; a
    node's infection time is its first arrival. This is the model rumour centrality is
    the ML estimator for (on regular trees, in the limit of large spreads). Event-driven
    only: it runs in :func:`simulate_messages` (with ``delay=None``), not in the compiled
    engine, and is not in :data:`spread.protocols.PROTOCOLS`.

    Parameters
    ----------
    rate : float > 0
        Transmission rate per edge (mean delay ``1 / rate``).

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread import spread
    >>> run = spread.simulate_messages(spread.graphs.regular_tree(3), ContinuousDiffusion(1.0), 3,
    ...                                rng=0)
    >>> bool(run.spread.times.dtype == np.float64)
    True
    """

    name: ClassVar[str] = "continuous-diffusion"
    own_message_delays = True
    #: No anonymity graph: in :func:`spread.simulate_stems` the fluff starts at the source.
    anonymity_kind: ClassVar[int | None] = None

    def __init__(self, rate: float = 1.0) -> None:
        self.rate = check_real(rate, "rate", low=0.0, low_open=True)

    def message_behaviour(self, graph, T, *, rng):
        # every node sends the rumour once along every edge, after an Exponential(rate) delay
        return MessageBehaviour(_ContinuousNode, self.rate)

    def _params(self):
        return {"rate": self.rate}
