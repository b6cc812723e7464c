"""Message-level simulation on SimPy: every node is a process that knows only its contacts.

The compiled kernels of :mod:`anonspread.engine.spreading` look at the whole infected set at once.
This module runs the same protocols the way a deployment would: every node is a SimPy
process that is given only its own id, the list of its contacts, an inbox, a
:class:`Port` through which it sends messages to those contacts, and a private coin
(the run's generator). The :class:`MessageChannel` between them delivers every message
after the delay of a pluggable :class:`DelayModel` and records it in a
:class:`MessageLog`; nothing else connects two nodes.

Time
----
Step ``t`` of the thesis's synchronous model (§2.1.3) is the interval ``(t - 1, t]``.
Nodes act at its middle, ``t - 1/2`` (the *tick* of step ``t``); a message that carries
the rumour (kind ``"infect"``, or ``"token"`` when it reaches a node that does not have
the rumour yet) is received at the end of the step, ``t``, under :class:`OneStep`, and
that is the receiver's infection time; it acts from step ``t + 1`` on. Control messages
along edges the rumour has already crossed -- the virtual-source token, Protocol 3's
relayed Infection Messages, and the offer/accept/decline handshake below -- take no
time ("we assume this happens instantaneously", thesis §2.3). :class:`GeometricDelay`
and :class:`ExponentialDelay` add a random approval delay to every rumour-carrying
message (thesis §2.1: "random delays associated with when the user happens to encounter
the message and whether or not she decides to like it"). Each directed edge is FIFO: a
message never overtakes one sent earlier on the same edge.

What a node can know
--------------------
A node knows which contacts have the rumour only when it has heard from them or sent it
to them. Where a protocol needs the *uninfected* contacts exactly -- the one uniform
uninfected neighbour of Protocol 2's printed pseudo-code and Protocol 3's cap on
infections per step on graphs with cycles -- the node asks: it offers the rumour to
contacts in uniformly random order (``"offer"``); a contact that neither has it nor has
promised it to someone else answers ``"accept"`` (and promises itself to that sender),
otherwise ``"decline"``; the node stops after the required number of acceptances and
then sends the rumour. This draws a uniform subset of the uninfected contacts, as the
fast engine does. Elsewhere the rumour is sent directly; on graphs with cycles it may
reach a node that already has it (a duplicate, which the node ignores; under adaptive
diffusion it answers ``"decline"`` so that the sender does not count it as its child in
the infection tree).

Under :class:`OneStep` every run has the distribution of :func:`spread.simulate` (the
tests compare them); ``AdaptiveDiffusion(relay="graph")`` needs a view of every
infected contact and is not offered here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np
import simpy

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread._params import Parametrized
from anonspread.spread.continuous import ContinuousDiffusion
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    Protocol,
    RandomDiffusion,
    TreeProtocol,
    TreeProtocolPseudocode,
    alpha_table,
)
from anonspread.spread.result import Spread
from anonspread.spread.simulate import _check_protocol, _source_index, make_spread
from anonspread.validation import check_int, check_real, check_rng

__all__ = [
    "ContinuousDiffusion",
    "DelayModel",
    "ExponentialDelay",
    "GeometricDelay",
    "Message",
    "MessageChannel",
    "MessageCounts",
    "MessageLog",
    "MessageRun",
    "OneStep",
    "Port",
    "simulate_messages",
]

#: Message kinds, in the order used by :attr:`MessageLog.kind` codes.
KINDS = ("infect", "token", "relay", "offer", "accept", "decline", "stem", "fluff")
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}


# ----------------------------------------------------------------- delay models


class DelayModel(Parametrized):
    """When a rumour-carrying message sent at time ``now`` is received.

    Subclasses implement :meth:`arrival`. Control messages never use it (they take no
    time); see the module docstring.
    """

    #: True if arrivals fall on integer times (infection times are then steps).
    discrete: ClassVar[bool] = True

    def arrival(self, now: float, rng: np.random.Generator) -> float:  # pragma: no cover
        """The time at which a message sent at ``now`` is received (``>= now``)."""
        raise NotImplementedError


class OneStep(DelayModel):
    """The synchronous model of the thesis: received at the end of the sending step.

    A message sent at the tick ``t - 1/2`` of step ``t`` arrives at ``t``.

    Examples
    --------
    >>> OneStep().arrival(2.5, None)
    3.0
    """

    def arrival(self, now: float, rng: np.random.Generator) -> float:
        return float(math.floor(now) + 1)


class GeometricDelay(DelayModel):
    """One step plus a geometric approval delay: ``G`` extra steps, ``P(G = k) = (1 - q)^k q``.

    The receiver approves the rumour in each step with probability ``q`` (``q = 1`` is
    :class:`OneStep`).

    Parameters
    ----------
    q : float in (0, 1]
    """

    def __init__(self, q: float) -> None:
        self.q = check_real(q, "q", low=0.0, high=1.0, low_open=True)

    def _params(self):
        return {"q": self.q}

    def arrival(self, now: float, rng: np.random.Generator) -> float:
        extra = 0 if self.q >= 1.0 else int(rng.geometric(self.q)) - 1
        return float(math.floor(now) + 1 + extra)


class ExponentialDelay(DelayModel):
    """One step plus an exponential approval delay of rate ``rate`` (continuous time).

    Parameters
    ----------
    rate : float > 0
        Mean extra delay ``1 / rate`` steps.
    """

    discrete = False

    def __init__(self, rate: float) -> None:
        self.rate = check_real(rate, "rate", low=0.0, low_open=True)

    def _params(self):
        return {"rate": self.rate}

    def arrival(self, now: float, rng: np.random.Generator) -> float:
        return float(math.floor(now) + 1) + float(rng.exponential(1.0 / self.rate))


def _check_delay(delay: Any) -> DelayModel:
    if not isinstance(delay, DelayModel):
        raise InvalidTypeError(
            "delay must be a spread.events.DelayModel such as OneStep(), GeometricDelay(q) or "
            f"ExponentialDelay(rate); got {delay!r}"
        )
    return delay


# ----------------------------------------------------------------- messages and the channel


class Message(NamedTuple):
    """What a node finds in its inbox: who sent it, what kind, and the protocol's data."""

    sender: int
    kind: str
    data: Any


@dataclass(frozen=True)
class MessageLog:
    """Every message sent in a run, in sending order.

    Attributes
    ----------
    sent, received : numpy.ndarray of float64
        Sending and arrival times (an arrival after ``T`` means still in flight at ``T``).
    sender, receiver : numpy.ndarray
        Node labels.
    kind : numpy.ndarray of str
        One of ``"infect"``, ``"token"``, ``"relay"``, ``"offer"``, ``"accept"``, ``"decline"``.
    delivered : numpy.ndarray of bool
        ``received <= T``.
    """

    sent: np.ndarray
    received: np.ndarray
    sender: np.ndarray
    receiver: np.ndarray
    kind: np.ndarray
    delivered: np.ndarray

    def __len__(self) -> int:
        return int(self.sent.shape[0])

    def records(self) -> list[tuple]:
        """``(received, sender, receiver, kind)`` tuples of the delivered messages."""
        d = self.delivered
        return list(zip(self.received[d].tolist(), self.sender[d].tolist(),
                        self.receiver[d].tolist(), self.kind[d].tolist()))


@dataclass(frozen=True)
class MessageCounts:
    """How many messages were sent: in total, by kind, and by sending node (labels)."""

    total: int
    by_kind: dict
    per_node: dict


@dataclass(frozen=True)
class MessageRun:
    """The result of :func:`simulate_messages`.

    Attributes
    ----------
    spread : Spread
        The same fields as :func:`spread.simulate` returns (``times`` are float64 under a
        continuous delay model).
    log : MessageLog
    counts : MessageCounts
    delay : DelayModel or None
    anonymity : spread.dandelion.AnonymityGraph or None
        The anonymity graph of the run (Dandelion, Dandelion++), else None.
    """

    spread: Spread
    log: MessageLog
    counts: MessageCounts
    delay: DelayModel | None = field(default=None)
    anonymity: Any = field(default=None)


class Port:
    """A node's only way to talk: sends from ``me`` to one of ``me``'s contacts."""

    __slots__ = ("_channel", "me")

    def __init__(self, channel: MessageChannel, me: int) -> None:
        self._channel = channel
        self.me = me

    def send(self, to: int, kind: str, data: Any = None, *, payload: bool = False,
             delay: float | None = None) -> None:
        """Send a message; ``payload`` messages carry the rumour and take the delay model's time."""
        self._channel.send(self.me, to, kind, data, payload=payload, delay=delay)


class MessageChannel:
    """Delivers messages between contacts after their delay and records them.

    The channel holds the contact lists only to refuse a message that does not travel
    along an edge, and spawns a node's process the first time a message reaches it.
    """

    def __init__(self, env: simpy.Environment, delay: DelayModel | None, horizon: float,
                 rng: np.random.Generator, contacts: Callable[[int], list[int]],
                 spawn: Callable[[int, list[int], simpy.Store, Port], None]) -> None:
        self.env = env
        self.delay = delay
        self.horizon = horizon
        self.rng = rng
        self._contacts = contacts
        self._spawn = spawn
        self._inbox: dict[int, simpy.Store] = {}
        self._nbrs: dict[int, frozenset] = {}
        self._last: dict[tuple[int, int], float] = {}
        self.rows: list[tuple[float, float, int, int, int]] = []

    def open(self, v: int) -> simpy.Store:
        """The inbox of node ``v``, starting its process on first use."""
        box = self._inbox.get(v)
        if box is None:
            nbrs = self._contacts(v)
            self._nbrs[v] = frozenset(nbrs)
            box = simpy.Store(self.env)
            self._inbox[v] = box
            self._spawn(v, nbrs, box, Port(self, v))
        return box

    def send(self, sender: int, receiver: int, kind: str, data: Any, *, payload: bool,
             delay: float | None) -> None:
        """Deliver a message from ``sender`` to its contact ``receiver`` (see :meth:`Port.send`)."""
        if receiver not in self._nbrs[sender]:
            raise InvalidParameterError(
                f"receiver must be a contact of the sender {sender}; got {receiver}"
            )
        now = self.env.now
        if delay is not None:
            at = now + delay
        elif payload:
            at = self.delay.arrival(now, self.rng)
        else:
            at = now
        edge = (sender, receiver)
        at = max(at, self._last.get(edge, at))
        self._last[edge] = at
        self.rows.append((now, at, sender, receiver, _KIND_CODE[kind]))
        if at <= self.horizon:
            msg = Message(sender, kind, data)
            ev = self.env.timeout(at - now)
            ev.callbacks.append(lambda _ev: self.open(receiver).put(msg))


# ----------------------------------------------------------------- node behaviours


def _next_tick(now: float) -> float:
    """Delay from ``now`` to the next tick ``k - 1/2`` strictly after ``now``."""
    k = math.floor(now + 0.5) + 1
    return (k - 0.5) - now


def _step_of_tick(now: float) -> int:
    return math.floor(now + 0.5)


class _Node:
    """A node: its id, contacts, inbox, port and coin; it never sees another node's state."""

    def __init__(self, env, me, nbrs, inbox, port, rng, params) -> None:
        self.env = env
        self.me = me
        self.nbrs = nbrs
        self.inbox = inbox
        self.port = port
        self.rng = rng
        self.params = params
        self.infected_at: float | None = None
        self.parent: int | None = None
        self.known: set[int] = set()
        self.children: list[int] = []

    # the process
    def run(self):
        while True:
            msg = yield self.inbox.get()
            self.known.add(msg.sender)
            self.on_message(msg)

    def start_as_source(self) -> None:
        self.infected_at = 0.0
        self.on_infected(None)

    def on_message(self, msg: Message) -> None:
        if msg.kind == "infect" and self.infected_at is None:
            self.infected_at = self.env.now
            self.parent = msg.sender
            self.on_infected(msg.data)

    def on_infected(self, data: Any) -> None:  # pragma: no cover - overridden
        pass

    def unknown(self) -> list[int]:
        return [w for w in self.nbrs if w not in self.known]


class _FloodNode(_Node):
    def on_infected(self, data):
        self.env.process(self._act())

    def _act(self):
        yield self.env.timeout(_next_tick(self.env.now))
        for w in self.unknown():
            self.known.add(w)
            self.port.send(w, "infect", payload=True)


class _DiffusionNode(_Node):
    """Random diffusion (``params = ("p", p)``) or Protocol 1 (``("line", None)``)."""

    def on_infected(self, data):
        self.dist = 0 if data is None else int(data)
        self.env.process(self._act())

    def _act(self):
        rule, p = self.params
        while True:
            yield self.env.timeout(_next_tick(self.env.now))
            cands = self.unknown()
            if not cands:
                return
            t = _step_of_tick(self.env.now)
            q = p if rule == "p" else (self.dist + 1.0) / (t + 1.0)
            for w in cands:
                if self.rng.random() < q:
                    self.known.add(w)
                    self.port.send(w, "infect", self.dist + 1, payload=True)


class _ContinuousNode(_Node):
    def on_infected(self, data):
        rate = self.params
        for w in self.unknown():
            self.known.add(w)
            self.port.send(w, "infect", delay=float(self.rng.exponential(1.0 / rate)))


class _StemNode(_Node):
    """Dandelion / Dandelion++ (:mod:`spread.dandelion`): the stem, then the fluff.

    ``params = (anonymity, protocol, indptr, indices)``; the node reads only its own row
    of the anonymity graph (its relays, forwarding rule and epoch role) and of the
    contact graph.
    """

    def __init__(self, *args) -> None:
        super().__init__(*args)
        anon, proto, indptr, indices = self.params
        self.contacts = indices[indptr[self.me] : indptr[self.me + 1]].tolist()
        self.fluffed = False

    def _delay(self) -> float:
        return float(self.rng.exponential(1.0 / self.params[1].rate))

    def start_as_source(self) -> None:
        self.infected_at = 0.0
        self._forward(-1)

    def _forward(self, prev: int) -> None:
        anon = self.params[0]
        r = anon.forward(self.me, prev)
        if r < 0:  # per-transaction routing: a uniform relay at every hop, never back
            lo, hi = int(anon.out_ptr[self.me]), int(anon.out_ptr[self.me + 1])
            rel = [w for w in anon.out[lo:hi].tolist() if w != prev] or anon.out[lo:hi].tolist()
            r = rel[int(self.rng.integers(0, len(rel)))]
        self.port.send(r, "stem", delay=self._delay())

    def on_message(self, msg: Message) -> None:
        if msg.kind == "stem":
            if self.infected_at is not None:
                if not self.fluffed:  # the stem came back: the fail-safe diffuses it
                    self._fluff(None)
                return
            self.infected_at = self.env.now
            self.parent = msg.sender
            anon, proto = self.params[0], self.params[1]
            if proto.coin == "epoch":
                diffuse = bool(anon.diffuser[self.me])
            else:
                diffuse = bool(self.rng.random() < proto.q)
            if diffuse:
                self._fluff(None)
            else:
                self._forward(msg.sender)
        elif msg.kind == "fluff" and not self.fluffed:
            if self.infected_at is None:
                self.infected_at = self.env.now
                self.parent = msg.sender
            self._fluff(msg.sender)

    def _fluff(self, sender: int | None) -> None:
        self.fluffed = True
        for w in self.contacts:
            if w != sender:
                self.port.send(w, "fluff", delay=self._delay())


class _Claims:
    """The offer/accept/decline handshake: claim ``k`` uninfected contacts, in random order."""

    def __init__(self, node, cands, k, then) -> None:
        self.node = node
        self.cands = list(cands)
        self.k = k
        self.then = then
        self.waiting: int | None = None
        self.got = 0

    def next(self) -> None:
        node = self.node
        while self.got < self.k and self.cands:
            w = self.cands.pop()
            if w in node.known:
                continue
            self.waiting = w
            node.port.send(w, "offer")
            return
        self.waiting = None
        node.claim = None

    def answer(self, msg: Message) -> None:
        if msg.kind == "accept":
            self.got += 1
            self.then(msg.sender)
        self.next()


class _HandshakeNode(_Node):
    """Shared offer/accept/decline handling (Protocols 2 and 3)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.promised = False
        self.claim: _Claims | None = None
        self.queue: list[_Claims] = []

    def on_message(self, msg: Message) -> None:
        kind = msg.kind
        if kind == "offer":
            if self.infected_at is None and not self.promised:
                self.promised = True
                self.port.send(msg.sender, "accept")
            else:
                self.port.send(msg.sender, "decline")
        elif kind in ("accept", "decline"):
            if kind == "decline" and msg.sender in self.children:
                self.children.remove(msg.sender)
            if self.claim is not None and self.claim.waiting == msg.sender:
                self.claim.answer(msg)
                if self.claim is None and self.queue:
                    self.claim = self.queue.pop(0)
                    self.claim.next()
        else:
            self.on_protocol(msg)

    def claim_uninfected(self, k: int, then: Callable[[int], None]) -> None:
        cands = self.unknown()
        self.rng.shuffle(cands)
        c = _Claims(self, cands, k, then)
        if self.claim is None:
            self.claim = c
            c.next()
        else:
            self.queue.append(c)

    def on_protocol(self, msg: Message) -> None:  # pragma: no cover - overridden
        pass


class _TreeNode(_HandshakeNode):
    """Protocol 2's printed pseudo-code (:class:`TreeProtocolPseudocode`): ``s1`` and ``s2``
    arrive with the rumour. Protocol 2 itself runs as :class:`_AdaptiveNode` with alpha = 0."""

    def on_protocol(self, msg):
        if msg.kind == "infect" and self.infected_at is None:
            self.infected_at = self.env.now
            self.parent = msg.sender
            self.s1, self.s2 = msg.data
            self.env.process(self._act())

    def start_as_source(self):
        self.infected_at = 0.0
        self.env.process(self._source())

    def _source(self):
        yield self.env.timeout(_next_tick(self.env.now))
        if self.nbrs:
            u = self.nbrs[int(self.rng.integers(0, len(self.nbrs)))]
            self.known.add(u)
            self.port.send(u, "infect", (1, 1), payload=True)

    def _act(self):
        while self.s2 > 0:
            yield self.env.timeout(_next_tick(self.env.now))
            if self.s1 == 1:
                self.claim_uninfected(1, lambda w, s2=self.s2: self._infect(w, (1, s2 + 1)))
                self.s1 = 0
            else:
                for w in self.unknown():
                    self._infect(w, (0, self.s2 - 1))
                self.s2 = 0

    def _infect(self, w, state):
        self.known.add(w)
        self.port.send(w, "infect", state, payload=True)


class _AdaptiveNode(_HandshakeNode):
    """Protocol 3: the token with its (t, h) state, relayed Infection Messages, the cap."""

    def on_protocol(self, msg):
        kind = msg.kind
        if kind in ("infect", "token") and self.infected_at is None:
            self.infected_at = self.env.now
            self.parent = msg.sender
            if kind == "token":  # t = 1: the rumour and the token travel together
                t, h = msg.data
                self.env.process(self._virtual_source(t, h, msg.sender, act_now=False))
        elif kind == "infect":
            self.port.send(msg.sender, "decline")  # a duplicate: not the sender's child
        elif kind == "token":
            t, h = msg.data
            self.env.process(self._virtual_source(t, h, msg.sender, act_now=True))
        elif kind == "relay":
            self._infection_message(msg.sender, msg.data)

    def start_as_source(self):
        self.infected_at = 0.0
        self.env.process(self._source())

    def _source(self):
        yield self.env.timeout(_next_tick(self.env.now))
        if not self.nbrs:
            return
        u = self.nbrs[int(self.rng.integers(0, len(self.nbrs)))]
        self.known.add(u)
        self.children.append(u)
        self.port.send(u, "token", (1, 1), payload=True)

    def _tree(self) -> list[int]:
        return ([] if self.parent is None else [self.parent]) + self.children

    def _infection_message(self, came_from: int | None, t: int) -> None:
        """Protocol 3 lines 22-27: forward along infection edges, then infect contacts."""
        for w in self._tree():
            if w != came_from:
                self.port.send(w, "relay", t)
        cap, _, leaves_only = self.params
        if leaves_only and self.children:  # AdaptiveDiffusion(infectors="leaves")
            return
        if cap is None:
            for w in self.unknown():
                self._infect(w)
        else:
            self.claim_uninfected(cap, self._infect)

    def _infect(self, w):
        self.known.add(w)
        self.children.append(w)
        self.port.send(w, "infect", payload=True)

    def _virtual_source(self, t, h, prev, act_now):
        """The token holder: ``t`` is the step the token was sent in, ``h`` its hop count."""
        alpha = self.params[1]
        width = alpha.shape[1]
        if act_now:
            self._infection_message(prev, t)
        yield self.env.timeout(_next_tick(self.env.now))
        t += 1
        self._infection_message(prev, t)
        while True:
            yield self.env.timeout(_next_tick(self.env.now))
            t += 1
            a = alpha[t - 1, h] if t - 1 < alpha.shape[0] and h < width else 0.0
            keep = self.rng.random() < a
            if not keep and self.children:
                c = self.children[int(self.rng.integers(0, len(self.children)))]
                self.port.send(c, "token", (t, h + 1))
                return
            self._infection_message(None, t)
            yield self.env.timeout(_next_tick(self.env.now))
            t += 1


# ----------------------------------------------------------------- the engine


def _behaviour(protocol: Protocol, g: Any, T: int) -> tuple[type[_Node], Any]:
    if isinstance(protocol, AdaptiveDiffusion):
        if getattr(protocol, "stuck", "keep") != "keep":
            raise InvalidParameterError(
                "protocol must use stuck='keep' in the message-level engine (the authors' "
                f"stuck-virtual-source rule runs in the compiled engine only); got {protocol!r}"
            )
        if protocol.relay != "tree":
            raise InvalidParameterError(
                "protocol must use relay='tree' in the message-level engine (the graph relay "
                f"needs a view of every infected contact); got {protocol!r}"
            )
        d = protocol.design_degree(g)
        return _AdaptiveNode, (protocol.max_infections_per_step, alpha_table(d, max(T, 2) + 2),
                               protocol.infectors == "leaves")
    if isinstance(protocol, RandomDiffusion):
        return _DiffusionNode, ("p", protocol.p)
    if isinstance(protocol, LineProtocol):
        return _DiffusionNode, ("line", None)
    if isinstance(protocol, Flooding):
        return _FloodNode, None
    if isinstance(protocol, TreeProtocol):  # Protocol 2: the token always moves
        return _AdaptiveNode, (None, alpha_table(math.inf, max(T, 2) + 2), False)
    if isinstance(protocol, TreeProtocolPseudocode):
        return _TreeNode, None
    if isinstance(protocol, ContinuousDiffusion):
        return _ContinuousNode, protocol.rate
    raise InvalidParameterError(
        "protocol must be one the message-level engine runs (AdaptiveDiffusion, LineProtocol, "
        f"TreeProtocol, TreeProtocolPseudocode, RandomDiffusion, Flooding, ContinuousDiffusion); got {protocol!r}"
    )


def _contacts_of(g: Any) -> Callable[[int], list[int]]:
    if isinstance(g, LazyTree):
        return lambda v: g.neighbors(v).tolist()
    indptr, indices = g.indptr, g.indices
    return lambda v: indices[indptr[v] : indptr[v + 1]].tolist()


def simulate_messages(
    graph: Any,
    protocol: Protocol,
    T: int,
    *,
    delay: DelayModel | None = None,
    source: Any = None,
    rng: Any = None,
) -> MessageRun:
    """Run ``protocol`` message by message on SimPy for ``T`` steps (time ``T``).

    Every node is a process with only its id, its contacts, its inbox and a
    :class:`Port`; see the module docstring for the time model and the handshake.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        As in :func:`spread.simulate`.
    protocol : Protocol
        ``AdaptiveDiffusion`` (tree relay), ``LineProtocol``, ``TreeProtocol``,
        ``RandomDiffusion``, ``Flooding``, or the event-driven :class:`ContinuousDiffusion`.
    T : int >= 0
        Horizon: messages received after time ``T`` are still in flight.
    delay : DelayModel or None
        ``None`` means :class:`OneStep` (the thesis's synchronous model);
        :class:`ContinuousDiffusion` draws its own exponential edge delays and takes
        ``None`` only.
    source : node, optional
        ``None`` draws a uniform node (node 0 on infinite trees).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    MessageRun
        ``.spread`` (a :class:`Spread`), ``.log`` and ``.counts``.

    Examples
    --------
    >>> from anonspread import spread
    >>> run = simulate_messages(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, rng=1)
    >>> run.spread.n_infected, run.counts.total
    (10, 12)
    """
    from anonspread.spread.dandelion import StemProtocol

    protocol = _check_protocol(protocol)
    T = check_int(T, "T", low=0)
    stem = isinstance(protocol, StemProtocol)
    if isinstance(protocol, ContinuousDiffusion) or stem:
        if delay is not None:
            raise InvalidParameterError(
                f"delay must be None for {type(protocol).__name__} (its message delays are "
                f"Exponential(rate)); got {delay!r}"
            )
    else:
        delay = OneStep() if delay is None else _check_delay(delay)
    gen = check_rng(rng)
    g = as_contact_graph(graph)
    anon = None
    if stem:
        from anonspread.spread.dandelion import _draw, _finite_graph

        g = _finite_graph(g, protocol)
        protocol.check_graph(g)
    check_run_size(g, protocol, T)
    src = _source_index(g, source, gen)
    if stem:
        anon = _draw(g, protocol, gen)
        cls, params = _StemNode, (anon, protocol, g.indptr, g.indices)
        contacts = _stem_contacts(g, anon)
    else:
        cls, params = _behaviour(protocol, g, T)
        contacts = _contacts_of(g)
    env = simpy.Environment()
    nodes: dict[int, _Node] = {}

    def spawn(v, nbrs, inbox, port):
        node = cls(env, v, nbrs, inbox, port, gen, params)
        nodes[v] = node
        env.process(node.run())

    channel = MessageChannel(env, delay, float(T), gen, contacts, spawn)
    channel.open(src)
    nodes[src].start_as_source()
    env.run(until=T + 0.25)
    return _assemble(g, protocol, T, src, nodes, channel, delay, anon)


def _stem_contacts(g: Any, anon: Any) -> Callable[[int], list[int]]:
    """Contacts plus anonymity-graph neighbours (Dandelion's cycle is an overlay)."""
    indptr, indices = g.indptr, g.indices

    def contacts(v: int) -> list[int]:
        extra = anon.out[anon.out_ptr[v] : anon.out_ptr[v + 1]].tolist()
        extra += anon.in_src[anon.in_ptr[v] : anon.in_ptr[v + 1]].tolist()
        return list(dict.fromkeys(indices[indptr[v] : indptr[v + 1]].tolist() + extra))

    return contacts


def _assemble(g, protocol, T, src, nodes, channel, delay, anon=None) -> MessageRun:
    rows = channel.rows
    n_msg = len(rows)
    arr = np.array(rows, dtype=np.float64).reshape(n_msg, 5)
    sent, recv = arr[:, 0].copy(), arr[:, 1].copy()
    s_idx, r_idx = arr[:, 2].astype(np.int64), arr[:, 3].astype(np.int64)
    kind = np.array(KINDS, dtype=object)[arr[:, 4].astype(np.int64)].astype(str)
    inf = [(v, nd.infected_at) for v, nd in nodes.items()
           if nd.infected_at is not None and nd.infected_at <= T]
    # ties in time keep the order the rumour reached them (first delivered first)
    first = {}
    for i in np.nonzero(recv <= T)[0].tolist():
        r = int(r_idx[i])
        if r not in first:
            first[r] = i
    inf.sort(key=lambda x: (x[1], -1 if x[0] == src else first.get(x[0], n_msg)))
    idx = np.array([v for v, _ in inf], dtype=np.int64)
    pos = {v: i for i, v in enumerate(idx.tolist())}
    parent_position = np.array(
        [-1 if nodes[v].parent is None else pos[nodes[v].parent] for v in idx.tolist()], np.int64
    )
    times_f = np.array([t for _, t in inf], dtype=np.float64)
    discrete = delay is not None and delay.discrete
    times = times_f.astype(np.int32) if discrete else times_f
    sizes = np.searchsorted(times_f, np.arange(T + 1), side="right").astype(np.int64)
    vs_idx = None
    if protocol.has_virtual_source:
        vs_idx = np.full(T + 1, src, np.int64)
        tok = np.nonzero((kind == "token") & (recv <= T))[0]
        for i in tok.tolist():
            # the token sent in step t marks the virtual source after step t
            t = _step_of_tick(sent[i])
            vs_idx[t:] = r_idx[i]
    index = idx.astype(np.int32) if not isinstance(g, LazyTree) else idx
    sp = make_spread(g, protocol, T, index, times, parent_position, vs_idx, sizes)
    all_idx = np.concatenate([s_idx, r_idx])
    lab = g.labels_of(all_idx) if n_msg else np.empty(0, np.int64)
    log = MessageLog(
        sent=sent, received=recv, sender=lab[:n_msg], receiver=lab[n_msg:], kind=kind,
        delivered=recv <= T,
    )
    per = Counter(s_idx.tolist())
    per_lab = g.labels_of(np.array(sorted(per), dtype=np.int64)) if per else []
    counts = MessageCounts(
        total=n_msg,
        by_kind={k: int(np.sum(kind == k)) for k in KINDS},
        per_node={(x.item() if hasattr(x, "item") else x): per[v]
                  for x, v in zip(per_lab, sorted(per))},
    )
    return MessageRun(spread=sp, log=log, counts=counts, delay=delay, anonymity=anon)
