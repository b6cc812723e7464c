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

Protocols own their behaviour
-----------------------------
The engine never asks which protocol it runs: it builds every node from the
:class:`~spread.nodes.MessageBehaviour` that the protocol's
:meth:`~spread.protocols.Protocol.message_behaviour` returns (the :class:`~spread.nodes.Node`
class its nodes run, the parameters they share, the contacts they may reach). A protocol
that draws its own message delays (continuous-time diffusion, Dandelion) says so with
``own_message_delays = True`` and then takes ``delay=None`` only.
"""

from __future__ import annotations

import gc
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import simpy

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread._params import Parametrized
from anonspread.spread.continuous import ContinuousDiffusion
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size
from anonspread.spread.nodes import Message, Node, step_of_tick
from anonspread.spread.protocols import Protocol
from anonspread.spread.result import Spread, _short
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
        """The time at which a message sent at ``now`` is received (``>= now``).

        Parameters
        ----------
        now : float
            The sending time.
        rng : numpy.random.Generator
            The run's generator (for random delays).

        Returns
        -------
        float
            The arrival time.
        """
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


@dataclass(frozen=True)
class MessageLog:
    """Every message sent in a run, in sending order.

    Parameters
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

    def __repr__(self) -> str:
        delivered = int(np.count_nonzero(self.delivered))
        last = f"{float(np.max(self.received)):.4g}" if len(self.received) else "nan"
        return f"MessageLog(messages={len(self.sent)}, delivered={delivered}, last received={last})"


@dataclass(frozen=True)
class MessageCounts:
    """How many messages were sent: in total, by kind, and by sending node (labels).

    Parameters
    ----------
    total : int
        All messages sent.
    by_kind : dict of str to int
        By kind (``"infect"``, ``"token"``...).
    per_node : dict
        By sending node (label -> count).
    """

    total: int
    by_kind: dict
    per_node: dict

    def __repr__(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in list(self.by_kind.items())[:4])
        more = f", +{len(self.by_kind) - 4} kinds" if len(self.by_kind) > 4 else ""
        return f"MessageCounts(total={self.total}, nodes={len(self.per_node)}, by kind: {kinds}{more})"


@dataclass(frozen=True)
class MessageRun:
    """The result of :func:`simulate_messages`.

    Parameters
    ----------
    spread : Spread
        The same fields as :func:`spread.simulate` returns (``times`` are float64 under a
        continuous delay model).
    log : MessageLog
        Every message sent.
    counts : MessageCounts
        Their counts.
    delay : DelayModel or None, optional
        The delay model of the run (None: the protocol drew its own delays).
    anonymity : spread.dandelion.AnonymityGraph or None, optional
        The anonymity graph of the run (Dandelion, Dandelion++), else None.
    """

    spread: Spread
    log: MessageLog
    counts: MessageCounts
    delay: DelayModel | None = field(default=None)
    anonymity: Any = field(default=None)

    def __repr__(self) -> str:
        delay = "" if self.delay is None else f", delay={_short(self.delay)}"
        return (f"MessageRun(T={self.spread.T}, n_infected={self.spread.n_infected}, "
                f"messages={self.counts.total}{delay})")


class Port:
    """A node's only way to talk: sends from ``me`` to one of ``me``'s contacts.

    Parameters
    ----------
    channel : MessageChannel
        The run's channel.
    me : int
        The node that sends.
    """

    __slots__ = ("_channel", "me")

    def __init__(self, channel: MessageChannel, me: int) -> None:
        self._channel = channel
        self.me = me

    def send(self, to: int, kind: str, data: Any = None, *, payload: bool = False,
             delay: float | None = None) -> None:
        """Send a message; ``payload`` messages carry the rumour and take the delay model's time.

        Parameters
        ----------
        to : int
            A contact of ``me``.
        kind : str
            One of :data:`KINDS` (``"infect"``, ``"token"``, ``"relay"``...).
        data : object, optional
            What the message carries.
        payload : bool, default False
            The message carries the rumour (it takes the delay model's time; else none).
        delay : float or None, optional
            An explicit delay, overriding the delay model.
        """
        self._channel.send(self.me, to, kind, data, payload=payload, delay=delay)


class MessageChannel:
    """Delivers messages between contacts after their delay and records them.

    The channel holds the contact lists only to refuse a message that does not travel
    along an edge, and spawns a node's process the first time a message reaches it.

    Parameters
    ----------
    env : simpy.Environment
        The simulation environment.
    delay : DelayModel or None
        The delay of rumour-carrying messages (None: every send gives its ``delay``).
    horizon : float
        Messages arriving after it are recorded, not delivered.
    rng : numpy.random.Generator
        The run's generator.
    contacts : callable
        ``contacts(v) -> list`` of the contacts of node ``v``.
    spawn : callable
        ``spawn(v, contacts, inbox, port)`` starts node ``v``'s process.
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
        """The inbox of node ``v``, starting its process on first use.

        Parameters
        ----------
        v : int
            A node.

        Returns
        -------
        simpy.Store
            Its inbox.
        """
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
        """Deliver a message from ``sender`` to its contact ``receiver`` (see :meth:`Port.send`).

        Parameters
        ----------
        sender : int
            The sending node.
        receiver : int
            A contact of ``sender``.
        kind : str
            The message kind.
        data : object
            What it carries.
        payload : bool
            It carries the rumour (takes the delay model's time).
        delay : float or None
            An explicit delay, overriding the delay model.
        """
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


# ----------------------------------------------------------------- the engine

#: The base class of node behaviours (:class:`spread.nodes.Node`), under its former name.
_Node = Node


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
        Any protocol with a message-level behaviour (its
        :meth:`~spread.protocols.Protocol.message_behaviour`): ``AdaptiveDiffusion``
        (tree relay), ``LineProtocol``, ``TreeProtocol``, ``TreeProtocolPseudocode``,
        ``RandomDiffusion``, ``Flooding``, the event-driven :class:`ContinuousDiffusion`,
        ``Dandelion`` and ``DandelionPlusPlus``, or a protocol of your own.
    T : int >= 0
        Horizon: messages received after time ``T`` are still in flight.
    delay : DelayModel or None
        ``None`` means :class:`OneStep` (the thesis's synchronous model); protocols
        that draw their own message delays (``own_message_delays``: continuous-time
        diffusion, Dandelion) take ``None`` only.
    source : node, optional
        ``None`` draws a uniform node (node 0 on infinite trees).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    MessageRun
        ``.spread`` (a :class:`Spread`), ``.log`` and ``.counts``.

    Notes
    -----
    Python's cyclic garbage collector is paused while the messages run (and restored
    after, if it was on): its passes found almost nothing to free there and took 20-40% of
    the run's CPU time.

    Examples
    --------
    >>> from anonspread import spread
    >>> run = simulate_messages(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, rng=1)
    >>> run.spread.n_infected, run.counts.total
    (10, 12)
    """
    protocol = _check_protocol(protocol)
    T = check_int(T, "T", low=0)
    if protocol.own_message_delays:
        if delay is not None:
            raise InvalidParameterError(
                f"delay must be None for {type(protocol).__name__} (its message delays are "
                f"Exponential(rate)); got {delay!r}"
            )
    else:
        delay = OneStep() if delay is None else _check_delay(delay)
    gen = check_rng(rng)
    g = as_contact_graph(graph)
    check_run_size(g, protocol, T)
    src = _source_index(g, source, gen)
    behaviour = protocol.message_behaviour(g, T, rng=gen)
    cls, params = behaviour.node, behaviour.params
    contacts = behaviour.contacts if behaviour.contacts is not None else _contacts_of(g)
    env = simpy.Environment()
    nodes: dict[int, Node] = {}

    def spawn(v, nbrs, inbox, port):
        node = cls(env, v, nbrs, inbox, port, gen, params)
        nodes[v] = node
        env.process(node.run())

    channel = MessageChannel(env, delay, float(T), gen, contacts, spawn)
    # The run allocates several objects per message (events, messages, log rows) and frees
    # them as it goes; the cycles it holds (node processes) live until it ends. The cyclic
    # collector's passes during the run free almost nothing and took 20-40% of its CPU
    # time (ego-Facebook, T = 8; more with many live objects in the process), so it is
    # paused for the run and restored after (if it was on); the run's cycles are
    # collected by the interpreter's next pass.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        channel.open(src)
        nodes[src].start_as_source()
        env.run(until=T + 0.25)
    finally:
        if paused:
            gc.enable()
    return _assemble(g, protocol, T, src, nodes, channel, delay, behaviour.anonymity)


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
            t = step_of_tick(sent[i])
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
