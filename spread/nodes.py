"""Node behaviours of the message-level engine: what one node does with what it receives.

:func:`spread.events.simulate_messages` runs every node as a SimPy process built from a
:class:`Node` subclass: the node is given only its own id, its contacts, an inbox, a port
through which it sends messages to those contacts, its coin (the run's generator) and
the read-only ``params`` its protocol shares with every node. A protocol names the class
its nodes run, and those ``params``, in the :class:`MessageBehaviour` its
:meth:`~spread.protocols.Protocol.message_behaviour` returns; adding a protocol to the
message-level engine is writing that method (and, if no class here fits, a :class:`Node`
subclass beside the protocol). The engine never asks which protocol it runs.

The behaviours of the thesis's protocols are here too (``_FloodNode``, ``_DiffusionNode``,
``_PseudocodeTreeNode``, ``_AdaptiveNode``); continuous-time
diffusion's and Dandelion's live beside their protocols (:mod:`spread.continuous`,
:mod:`spread.dandelion`). See :mod:`spread.events` for the time model (ticks at
``t - 1/2``, rumour-carrying messages received at the end of the step) and the
offer/accept/decline handshake.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "HandshakeNode",
    "Message",
    "MessageBehaviour",
    "Node",
    "next_tick",
    "step_of_tick",
]


class Message(NamedTuple):
    """What a node finds in its inbox: who sent it, what kind, and the protocol's data.

    Parameters
    ----------
    sender : int
        The sending contact (internal index).
    kind : str
        ``"infect"``, ``"token"``, ``"relay"``, ``"offer"``, ``"accept"``, ``"decline"``,
        ``"stem"`` or ``"fluff"``.
    data : object
        What the protocol sends with it (None for most kinds).
    """

    sender: int
    kind: str
    data: Any


def next_tick(now: float) -> float:
    """Delay from ``now`` to the next tick ``k - 1/2`` strictly after ``now``.

    Parameters
    ----------
    now : float
        The current simulation time.

    Returns
    -------
    float

    Examples
    --------
    >>> next_tick(0.0), next_tick(0.5), next_tick(2.25)
    (0.5, 1.0, 0.25)
    """
    k = math.floor(now + 0.5) + 1
    return (k - 0.5) - now


def step_of_tick(now: float) -> int:
    """The step ``t`` whose tick ``t - 1/2`` is at (or nearest) ``now``.

    Parameters
    ----------
    now : float
        A simulation time (a tick, when a node acts).

    Returns
    -------
    int

    Examples
    --------
    >>> step_of_tick(0.5), step_of_tick(2.5)
    (1, 3)
    """
    return math.floor(now + 0.5)


class Node:
    """A node: its id, contacts, inbox, port and coin; it never sees another node's state.

    The engine builds one per node the first time a message reaches it, with
    ``Node(env, me, nbrs, inbox, port, rng, params)``, starts :meth:`run` as its process,
    and calls :meth:`start_as_source` on the source. A subclass overrides
    :meth:`on_infected` (what a node does once it has the rumour) and, for protocols with
    more than ``"infect"`` messages, :meth:`on_message`; it sends only through
    ``self.port.send(to, kind, data, payload=...)`` and waits with
    ``yield self.env.timeout(next_tick(self.env.now))`` inside processes it starts with
    ``self.env.process(...)``.

    Parameters
    ----------
    env : simpy.Environment
        The run's environment.
    me : int
        The node's internal index.
    nbrs : list of int
        Its contacts (what :attr:`MessageBehaviour.contacts` gives).
    inbox : simpy.Store
        Where its messages arrive.
    port : spread.events.Port
        Its only way to send.
    rng : numpy.random.Generator
        The run's generator (the node's coin).
    params : object
        The protocol's :attr:`MessageBehaviour.params`.

    Attributes
    ----------
    infected_at : float or None
        When the node got the rumour (its infection time); None while it has not.
    parent : int or None
        Who it got the rumour from (None for the source).
    known : set of int
        Contacts the node knows to have the rumour (heard from, or sent it to).
    children : list of int
        Contacts the node infected (kept by protocols that need their infection tree).
    """

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

    def run(self):
        """The node's process: hand every message of the inbox to :meth:`on_message`."""
        while True:
            msg = yield self.inbox.get()
            self.known.add(msg.sender)
            self.on_message(msg)

    def start_as_source(self) -> None:
        """Called once on the source at time 0 (default: infected, then :meth:`on_infected`)."""
        self.infected_at = 0.0
        self.on_infected(None)

    def on_message(self, msg: Message) -> None:
        """Default: the first ``"infect"`` message infects the node (its sender is the parent).

        Parameters
        ----------
        msg : Message
            The message taken from the inbox.
        """
        if msg.kind == "infect" and self.infected_at is None:
            self.infected_at = self.env.now
            self.parent = msg.sender
            self.on_infected(msg.data)

    def on_infected(self, data: Any) -> None:  # pragma: no cover - overridden
        """What the node does once infected.

        Parameters
        ----------
        data : object
            The infecting message's data (None on the source).
        """

    def unknown(self) -> list[int]:
        """The contacts not known to have the rumour, in contact order."""
        return [w for w in self.nbrs if w not in self.known]


@dataclass(frozen=True)
class MessageBehaviour:
    """What a protocol's nodes do in the message-level engine (see :func:`simulate_messages`).

    Returned by :meth:`Protocol.message_behaviour <spread.protocols.Protocol.message_behaviour>`.

    Parameters
    ----------
    node : type
        The :class:`Node` subclass every node runs.
    params : object
        Read-only data every node gets as ``self.params`` (the protocol's parameters in the
        form its nodes read them).
    contacts : callable or None
        ``contacts(v) -> list`` of the nodes ``v`` may send to (internal indices);
        ``None``: its neighbours in the contact graph. Dandelion adds its anonymity graph.
    anonymity : object
        Returned as :attr:`MessageRun.anonymity <spread.events.MessageRun>` (Dandelion's
        anonymity graph of the run), else None.
    """

    node: type[Node]
    params: Any = None
    contacts: Callable[[int], list[int]] | None = None
    anonymity: Any = None


class _FloodNode(Node):
    """Flooding: at the first tick after infection, send the rumour to every unknown contact."""

    def on_infected(self, data):
        self.env.process(self._act())

    def _act(self):
        yield self.env.timeout(next_tick(self.env.now))
        for w in self.unknown():
            self.known.add(w)
            self.port.send(w, "infect", payload=True)


class _DiffusionNode(Node):
    """Random diffusion (``params = ("p", p)``) or Protocol 1 (``("line", None)``)."""

    def on_infected(self, data):
        self.dist = 0 if data is None else int(data)
        self.env.process(self._act())

    def _act(self):
        rule, p = self.params
        while True:
            yield self.env.timeout(next_tick(self.env.now))
            cands = self.unknown()
            if not cands:
                return
            t = step_of_tick(self.env.now)
            q = p if rule == "p" else (self.dist + 1.0) / (t + 1.0)
            for w in cands:
                if self.rng.random() < q:
                    self.known.add(w)
                    self.port.send(w, "infect", self.dist + 1, payload=True)


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


class HandshakeNode(Node):
    """Shared offer/accept/decline handling (Protocols 2 and 3).

    :meth:`claim_uninfected` draws a uniform subset of the uninfected contacts through the
    handshake of :mod:`spread.events`; messages other than the handshake's go to
    :meth:`on_protocol`.

    Parameters
    ----------
    *args : object
        As for :class:`Node`.
    """

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
        """Claim up to ``k`` uniformly chosen uninfected contacts, calling ``then(w)`` for each.

        Parameters
        ----------
        k : int
            How many contacts to claim (fewer if fewer are uninfected).
        then : callable
            Called with each contact that accepted.
        """
        cands = self.unknown()
        self.rng.shuffle(cands)
        c = _Claims(self, cands, k, then)
        if self.claim is None:
            self.claim = c
            c.next()
        else:
            self.queue.append(c)

    def on_protocol(self, msg: Message) -> None:  # pragma: no cover - overridden
        """Handle a message that is not part of the handshake.

        Parameters
        ----------
        msg : Message
            The message taken from the inbox.
        """


class _PseudocodeTreeNode(HandshakeNode):
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
        yield self.env.timeout(next_tick(self.env.now))
        if self.nbrs:
            u = self.nbrs[int(self.rng.integers(0, len(self.nbrs)))]
            self.known.add(u)
            self.port.send(u, "infect", (1, 1), payload=True)

    def _act(self):
        while self.s2 > 0:
            yield self.env.timeout(next_tick(self.env.now))
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


class _AdaptiveNode(HandshakeNode):
    """Protocol 3: the token with its (t, h) state, relayed Infection Messages, the cap."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.relayed = 0  # the last step whose Infection Message this node handled

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
        yield self.env.timeout(next_tick(self.env.now))
        if not self.nbrs:
            return
        u = self.nbrs[int(self.rng.integers(0, len(self.nbrs)))]
        self.known.add(u)
        self.children.append(u)
        self.port.send(u, "token", (1, 1), payload=True)

    def _tree(self) -> list[int]:
        return ([] if self.parent is None else [self.parent]) + self.children

    def _infection_message(self, came_from: int | None, t: int) -> None:
        """Protocol 3 lines 22-27: forward along infection edges, then infect contacts.

        A node handles the Infection Message of step ``t`` once. Under :class:`OneStep` the
        edges it follows form a tree and each node receives it once anyway; under a random
        delay a node counts a contact as its child from the moment it sends the rumour, and
        while that message is in flight the contact may be infected by another node -- an
        edge that closes a cycle with the infection tree, around which zero-time relays would
        otherwise circulate forever (until the contact's ``"decline"`` arrives).
        """
        if t <= self.relayed:
            return
        self.relayed = t
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
        yield self.env.timeout(next_tick(self.env.now))
        t += 1
        self._infection_message(prev, t)
        while True:
            yield self.env.timeout(next_tick(self.env.now))
            t += 1
            a = alpha[t - 1, h] if t - 1 < alpha.shape[0] and h < width else 0.0
            keep = self.rng.random() < a
            if not keep and self.children:
                c = self.children[int(self.rng.integers(0, len(self.children)))]
                self.port.send(c, "token", (t, h + 1))
                return
            self._infection_message(None, t)
            yield self.env.timeout(next_tick(self.env.now))
            t += 1
