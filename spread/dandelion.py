"""Dandelion and Dandelion++: a stem along an anonymity graph, then diffusion (the fluff).

Bojja Venkatakrishnan, Fanti & Viswanath, "Dandelion: Redesigning the Bitcoin Network for
Anonymity" (SIGMETRICS 2017), and Fanti et al., "Dandelion++: Lightweight Cryptocurrency
Networking with Formal Anonymity Guarantees" (SIGMETRICS 2018, arXiv:1805.11060). A
transaction first travels along a single path of an *anonymity graph* (the stem); at
every hop the receiving node may switch to the *fluff*: it diffuses the transaction on
the contact graph, Bitcoin-style. The protocols as implemented here (continuous time):

**Anonymity graph (one epoch).**
:class:`Dandelion`: a uniformly random directed Hamiltonian cycle over all nodes (the
"line" of the 2017 paper closed into a cycle so that every node has a successor; the
authors' simulations build it the same way). Its edges are overlay connections and need
not be contact edges. :class:`DandelionPlusPlus`: every node picks ``relays`` (2) distinct
relays uniformly at random -- among its contacts (``peers="contacts"``: the deployed
protocol, which picks among its outbound peers; the authors' Fig. 8 set-up) or among all
other nodes (``peers="all"``: the model of the paper's analysis, the "approximately
4-regular" graph of its Fig. 7). Out-degree ``relays``, in-degree ``relays`` on average.

**Stem.** The source always forwards its own transaction (it never flips the coin): under
Dandelion to its successor, under Dandelion++ to its *own-transaction relay*, one of its
relays fixed for the epoch. Every node that receives the stem then diffuses it with
probability ``q`` and otherwise forwards it. The coin is fresh per hop for Dandelion (and
for ``DandelionPlusPlus(coin="hop")``); under Dandelion++ (``coin="epoch"``, the paper's
rule) each node is a *diffuser* with probability ``q`` for the whole epoch. Dandelion++
forwards by ``routing``: ``"one-to-one"`` (default; each in-edge is mapped to a relay, in
rounds over the relays, so that with two in-edges and two relays the map is a bijection --
the routing Dandelion++ recommends as we read its §4, ``edgebased=3`` in the authors'
scripts), ``"per-incoming-edge"`` (each in-edge mapped to an independent uniform relay,
``edgebased=1``), ``"all-to-one"`` (every stem on the own-transaction relay,
``edgebased=2``) or ``"per-transaction"`` (a uniform relay at every hop, ``edgebased=0``;
the routing of the 2017 paper on d-regular anonymity graphs).

Under every rule a stem is never sent back on the link it arrived by when the node has
another relay. In the deployed protocol a stem arrives from an inbound peer and leaves to
an outbound one, which are different peers; on an undirected contact graph a node's relay
may be the very node the stem came from, and without this rule 40 % of the stems of
Dandelion++ on a random 6-regular graph (q = 0.2) bounced straight back (measured). A
one-to-one map is drawn uniformly among the bijections (per round of in-edges) that
respect the rule. On distinct nodes the number of stem hops ``L`` is therefore
Geometric(q) on ``{1, 2, ...}``: ``P(L = l) = (1 - q)^(l-1) q``,
mean ``1/q``. A node that receives the stem while it already has the transaction (the stem
came back to the source or looped; possible on finite graphs) diffuses it: our reading of
the papers' fail-safe, so every stem ends (the authors' scripts cut a stem after ``n``
hops). ``q = 0`` is allowed (the papers' figures use it): the stem then ends only at such a
repeat.

**Fluff.** The node that ends the stem (the *fluff node*) sends the transaction to every
contact; a node that receives it in the fluff for the first time sends it to every contact
but the sender. Every message (stem or fluff) arrives after an independent
Exponential(``rate``) delay, so first fluff receipt times are first-passage times from the
fluff node, and on a connected graph every node receives the transaction.

**Spies** are honest-but-curious: they follow the protocol and record, for every
transaction, when and from whom they first received it (stem or fluff). The spread does not
depend on who the spies are.

Engines
-------
* :func:`spread.events.simulate_messages` (``delay=None``) runs the protocols message by
  message on SimPy (kinds ``"stem"`` and ``"fluff"``); ``run.anonymity`` is the epoch's
  :class:`AnonymityGraph`; :func:`adversaries.observe_spies` reads the spies' view.
  ``T`` is a time horizon there (messages arriving after ``T`` are in flight).
* :func:`simulate_stems` is the compiled Monte Carlo path (Cython, built with the package): it runs each
  transaction to completion (no horizon) and returns what the spies saw, the stem length and
  the fluff node for every trial, in a :class:`StemBatch`. Its kernel
  (:mod:`anonspread.engine.dandelion`) is the one Dandelion simulator: the abstract
  transaction model of :mod:`adversaries.transactions` runs the same anonymity-graph,
  forwarding-table and stem-walk code with its own rules.

``spread.events.ContinuousDiffusion(rate)`` -- plain diffusion from the source -- is
registered beside them (stem length 0), so the three are comparable in one sweep.
The protocols are registered in :data:`STEM_PROTOCOLS`, not in
:data:`spread.protocols.PROTOCOLS` (whose protocols run in discrete steps on any graph,
including infinite trees, through :func:`spread.simulate`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from anonspread.engine import dandelion as K
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread.continuous import ContinuousDiffusion
from anonspread.spread.graphs import ContactGraph, LazyTree, as_contact_graph
from anonspread.spread.limits import check_size
from anonspread.spread.nodes import Message, MessageBehaviour, Node
from anonspread.spread.protocols import Protocol, _class_registrar
from anonspread.spread.result import _short
from anonspread.spread.spy_observation import SpyObservation
from anonspread.validation import check_int, check_probability, check_real, check_rng

__all__ = [
    "STEM_PROTOCOLS",
    "AnonymityGraph",
    "Dandelion",
    "DandelionPlusPlus",
    "StemBatch",
    "StemProtocol",
    "draw_anonymity_graph",
    "register_stem_protocol",
    "simulate_stems",
]

#: Stem-and-fluff protocols by name (``"dandelion"``, ``"dandelion++"``, ``"continuous-diffusion"``).
STEM_PROTOCOLS: Registry[type[Protocol]] = Registry("stem-and-fluff protocol", parameter="protocol")
STEM_PROTOCOLS.add("continuous-diffusion", ContinuousDiffusion)


def register_stem_protocol(name: str, *, replace: bool = False):
    """Class decorator: register a stem-and-fluff protocol under ``name`` (in :data:`STEM_PROTOCOLS`).

    Parameters
    ----------
    name : str
        The registry name.
    replace : bool, default False
        Replace a class already registered under ``name`` (else that raises).

    Returns
    -------
    callable
        The decorator; it registers the class and returns it unchanged.
    """
    return _class_registrar(STEM_PROTOCOLS, name, replace=replace)


class StemProtocol(Protocol):
    """Base class: a stem along an anonymity graph, then diffusion on the contact graph.

    Runs in :func:`spread.events.simulate_messages` and :func:`simulate_stems`, not in
    :func:`spread.simulate` (continuous time, finite connected graphs only).
    """

    #: Anonymity-graph kind code of the kernels (``None`` in the one stem-and-fluff
    #: protocol without a stem, :class:`ContinuousDiffusion`).
    anonymity_kind: ClassVar[int | None] = K.CYCLE
    q: float
    rate: float
    relays: int = 1
    peers: str = "all"
    routing: str = "one-to-one"
    coin: str = "hop"
    own_message_delays = True

    def check_graph(self, graph: ContactGraph) -> None:
        """Refuse a graph this protocol cannot run on (naming the graph and why).

        Parameters
        ----------
        graph : ContactGraph
            The contact graph: connected, at least 2 nodes (more than ``relays`` when
            every node may be a relay).

        Raises
        ------
        GraphError
            When it cannot run on ``graph``.
        """
        n = graph.number_of_nodes()
        if n < 2:
            raise GraphError(f"graph must have at least 2 nodes for {self!r}; got {n}")
        if self.peers == "all" and self.anonymity_kind == K.RELAYS and n - 1 < self.relays:
            raise GraphError(
                f"graph must have more than relays={self.relays} nodes for {self!r}; got {n}"
            )
        k = _components(graph)
        if k > 1:
            raise GraphError(
                f"graph must be connected for {self!r} (the fluff must reach every node); got "
                f"{graph!r} with {k} connected components"
            )
        if self.peers == "contacts" and self.anonymity_kind == K.RELAYS and n:
            deg = np.diff(graph.indptr)
            short = int(np.count_nonzero(deg < self.relays))
            if short == n:
                raise GraphError(
                    f"relays={self.relays} must not exceed the largest degree of the graph with "
                    f"peers='contacts' (relays are picked among a node's contacts); got {graph!r} "
                    f"of maximum degree {int(deg.max())}: use relays <= {int(deg.max())} or peers='all'"
                )
            if short:
                warnings.warn(
                    f"{short} of {n} nodes have fewer than relays={self.relays} contacts: they relay "
                    f"to all of their contacts ({self!r} on {graph!r})", stacklevel=3)

    def message_behaviour(self, graph, T, *, rng):
        # the epoch's anonymity graph, drawn from rng, and the stem-then-fluff nodes; every
        # node may reach its contacts and its anonymity-graph neighbours (an overlay)
        g = _finite_graph(graph, self)
        self.check_graph(g)
        anon = _draw(g, self, rng)
        return MessageBehaviour(_StemNode, (anon, self, g.indptr, g.indices),
                                contacts=_stem_contacts(g, anon), anonymity=anon)

    def _codes(self) -> tuple:
        return (self.anonymity_kind, int(self.relays), self.peers == "all",
                _ROUTINGS[self.routing], self.coin == "epoch", float(self.q))


_ROUTINGS = {"one-to-one": K.ONE_TO_ONE, "per-incoming-edge": K.PER_EDGE,
             "all-to-one": K.ALL_TO_ONE, "per-transaction": K.PER_TRANSACTION}
_PEERS = ("contacts", "all")
_COINS = ("epoch", "hop")


def _check_choice(value: Any, name: str, accepted) -> str:
    if not isinstance(value, str) or value not in accepted:
        raise InvalidParameterError(f"{name} must be one of {list(accepted)}; got {value!r}")
    return value


@register_stem_protocol("dandelion")
class Dandelion(StemProtocol):
    """Dandelion (Bojja Venkatakrishnan, Fanti & Viswanath, SIGMETRICS 2017).

    The anonymity graph is a uniformly random directed Hamiltonian cycle over all nodes,
    drawn per run (one epoch). The source forwards its transaction to its successor; each
    node receiving the stem diffuses it with probability ``q`` (a fresh coin per hop) and
    otherwise forwards it to its successor, so the stem has ``min(L, n)`` hops with ``L ~
    Geometric(q)`` on ``{1, 2, ...}`` (a stem back at the source is diffused there). See the
    module docstring for the fluff and the time model.

    Parameters
    ----------
    q : float in [0, 1]
        Probability that a node receiving the stem diffuses it.
    rate : float > 0
        Rate of the Exponential delay of every message (mean delay ``1 / rate``).

    Examples
    --------
    >>> import networkx as nx
    >>> b = simulate_stems(nx.random_regular_graph(4, 50, seed=1), Dandelion(0.25), 2000,
    ...                    spies=[], rng=1)
    >>> round(float(b.stem_length.mean()), 1)   # 1 / q
    4.0
    """

    anonymity_kind = K.CYCLE

    def __init__(self, q: float = 0.1, rate: float = 1.0) -> None:
        self.q = check_probability(q, "q")
        self.rate = check_real(rate, "rate", low=0.0, low_open=True)

    def _params(self):
        return {"q": self.q, "rate": self.rate}


@register_stem_protocol("dandelion++")
class DandelionPlusPlus(StemProtocol):
    """Dandelion++ (Fanti et al., SIGMETRICS 2018, arXiv:1805.11060, §4).

    Per epoch (per run of :func:`spread.events.simulate_messages`, per trial of
    :func:`simulate_stems` unless one anonymity graph is shared) every node picks
    ``relays`` distinct relays uniformly among its ``peers``, a forwarding rule
    (``routing``), an own-transaction relay, and -- under ``coin="epoch"`` -- whether it
    is a diffuser (probability ``q``). The source forwards its transaction to its
    own-transaction relay; a relayer forwards a stem by its forwarding rule; a diffuser
    (or, under ``coin="hop"``, a node whose fresh coin shows ``q``) diffuses it. See the
    module docstring for the readings chosen.

    Parameters
    ----------
    q : float in [0, 1]
    rate : float > 0
    routing : {"one-to-one", "per-incoming-edge", "all-to-one", "per-transaction"}
    relays : int >= 1
        Out-degree of the anonymity graph (2 in the paper). With ``peers="contacts"``
        at most the graph's largest degree (refused otherwise); a node with fewer
        contacts relays to all of them, and a warning says how many nodes do.
    peers : {"contacts", "all"}
        Where relays are picked: the node's contacts, or every other node (overlay).
    coin : {"epoch", "hop"}

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.random_regular_graph(8, 200, seed=0)
    >>> a = draw_anonymity_graph(g, DandelionPlusPlus(0.2), rng=0)
    >>> set(a.out_degree.tolist()), float(a.in_degree.mean())
    ({2}, 2.0)
    """

    anonymity_kind = K.RELAYS

    def __init__(self, q: float = 0.1, rate: float = 1.0, routing: str = "one-to-one",
                 relays: int = 2, peers: str = "contacts", coin: str = "epoch") -> None:
        self.q = check_probability(q, "q")
        self.rate = check_real(rate, "rate", low=0.0, low_open=True)
        self.routing = _check_choice(routing, "routing", _ROUTINGS)
        self.relays = check_int(relays, "relays", low=1)
        self.peers = _check_choice(peers, "peers", _PEERS)
        self.coin = _check_choice(coin, "coin", _COINS)

    def _params(self):
        return {"q": self.q, "rate": self.rate, "routing": self.routing, "relays": self.relays,
                "peers": self.peers, "coin": self.coin}


def _components(g: ContactGraph) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = g.number_of_nodes()
    data = np.ones(g.indices.shape[0], np.int8)
    k, _ = connected_components(csr_matrix((data, g.indices, g.indptr), shape=(n, n)),
                                directed=False)
    return int(k)


def _finite_graph(graph: Any, protocol: StemProtocol) -> ContactGraph:
    g = as_contact_graph(graph)
    if isinstance(g, LazyTree):
        raise GraphError(
            f"graph must be finite for {protocol!r} (its anonymity graph spans every node); "
            f"got the infinite {g!r}"
        )
    return g


def _check_stem_protocol(protocol: Any) -> StemProtocol:
    if isinstance(protocol, (StemProtocol, ContinuousDiffusion)):
        return protocol
    raise InvalidTypeError(
        "protocol must be a stem-and-fluff protocol: one of spread.dandelion.STEM_PROTOCOLS "
        f"({', '.join(sorted(STEM_PROTOCOLS))}); got {protocol!r}"
    )


# ----------------------------------------------------------------- message-level behaviour


class _StemNode(Node):
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



def _stem_contacts(g: Any, anon: Any) -> Callable[[int], list[int]]:
    """Contacts plus anonymity-graph neighbours (Dandelion's cycle is an overlay)."""
    indptr, indices = g.indptr, g.indices

    def contacts(v: int) -> list[int]:
        extra = anon.out[anon.out_ptr[v] : anon.out_ptr[v + 1]].tolist()
        extra += anon.in_src[anon.in_ptr[v] : anon.in_ptr[v + 1]].tolist()
        return list(dict.fromkeys(indices[indptr[v] : indptr[v + 1]].tolist() + extra))

    return contacts



# ----------------------------------------------------------------- anonymity graph


@dataclass(frozen=True, eq=False)
class AnonymityGraph:
    """One epoch's anonymity graph and forwarding rules (internal node indices of ``graph``).

    Parameters
    ----------
    graph : ContactGraph
        The contact graph whose nodes it connects.
    protocol : StemProtocol
        The protocol whose rules it holds.
    out_ptr, out : numpy.ndarray of int64
        Relays of node ``v``: ``out[out_ptr[v]:out_ptr[v + 1]]`` (its out-edges).
    own : numpy.ndarray of int64
        The relay of each node's own transactions (-1: drawn per transaction).
    in_ptr, in_src, in_to : numpy.ndarray of int64
        In-edges of ``v``: ``(in_src[j], v)`` for ``j`` in ``in_ptr[v]:in_ptr[v + 1]``; a
        stem arriving on it is forwarded to ``in_to[j]`` (-1: a uniform relay per hop).
    diffuser : numpy.ndarray of int8
        Per-epoch roles (1: diffuses every stem it receives; all 0 unless ``coin="epoch"``).
    """

    graph: ContactGraph
    protocol: Any
    out_ptr: np.ndarray = field(repr=False)
    out: np.ndarray = field(repr=False)
    own: np.ndarray = field(repr=False)
    in_ptr: np.ndarray = field(repr=False)
    in_src: np.ndarray = field(repr=False)
    in_to: np.ndarray = field(repr=False)
    diffuser: np.ndarray = field(repr=False)

    @property
    def out_degree(self) -> np.ndarray:
        """The number of relays of each node (int64, by internal index)."""
        return np.diff(self.out_ptr)

    @property
    def in_degree(self) -> np.ndarray:
        """The number of nodes relaying to each node (int64, by internal index)."""
        return np.diff(self.in_ptr)

    def relays(self, v: Any) -> list:
        """The relays (labels) of node ``v`` (a label).

        Parameters
        ----------
        v : hashable
            A node label of ``graph``.

        Returns
        -------
        list
            The labels of its relays.
        """
        i = self.graph.node_index(v, "v")
        return _labels(self.graph, self.out[self.out_ptr[i] : self.out_ptr[i + 1]])

    def edges(self) -> list[tuple]:
        """Directed anonymity edges ``(u, v)`` as labels: ``v`` is a relay of ``u``."""
        tails = np.repeat(np.arange(self.out_ptr.shape[0] - 1), np.diff(self.out_ptr))
        return list(zip(_labels(self.graph, tails), _labels(self.graph, self.out)))

    def forward(self, v: int, prev: int) -> int:
        """Index of the relay ``v`` forwards a stem from ``prev`` to (-1: per transaction/hop).

        ``prev = -1`` asks for ``v``'s own transactions. Internal indices.

        Parameters
        ----------
        v : int
            The internal index of the forwarding node.
        prev : int
            The internal index of the in-neighbour the stem came from (-1: ``v``'s own).

        Returns
        -------
        int
            The relay's internal index, or -1.
        """
        if prev < 0:
            return int(self.own[v])
        for j in range(int(self.in_ptr[v]), int(self.in_ptr[v + 1])):
            if self.in_src[j] == prev:
                return int(self.in_to[j])
        raise InvalidParameterError(f"prev must be an in-neighbour of node index {v}; got {prev}")

    def __repr__(self) -> str:
        # one line: the size (the CSR arrays are the fields)
        return (f"AnonymityGraph(protocol={_short(self.protocol)}, graph={_short(self.graph)}, "
                f"arcs={int(self.out.shape[0])}, diffusers={int(np.count_nonzero(self.diffuser))})")


def _labels(g: ContactGraph, idx: np.ndarray) -> list:
    """The labels of ``idx`` as a list of Python objects (ints stay ints)."""
    return g.labels_of(np.asarray(idx, np.int64)).tolist()


def _empty_anonymity(n: int, protocol: StemProtocol) -> tuple:
    m = n * max(int(protocol.relays), 1)
    return (np.zeros(n + 1, np.int64), np.zeros(m, np.int64), np.zeros(n, np.int64),
            np.zeros(n + 1, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64),
            np.zeros(n, np.int8))


def draw_anonymity_graph(graph: Any, protocol: StemProtocol, *, rng: Any = None) -> AnonymityGraph:
    """Draw one epoch's anonymity graph of ``protocol`` on ``graph``.

    Parameters
    ----------
    graph : networkx.Graph or ContactGraph
        Finite and connected.
    protocol : Dandelion or DandelionPlusPlus
    rng : None, int or numpy.random.Generator

    Returns
    -------
    AnonymityGraph

    Examples
    --------
    >>> import networkx as nx
    >>> a = draw_anonymity_graph(nx.cycle_graph(5), Dandelion(0.5), rng=0)
    >>> sorted(a.out_degree.tolist()), sorted(a.in_degree.tolist())
    ([1, 1, 1, 1, 1], [1, 1, 1, 1, 1])
    """
    if not isinstance(protocol, StemProtocol):
        raise InvalidTypeError(
            f"protocol must be Dandelion or DandelionPlusPlus (it has an anonymity graph); got "
            f"{protocol!r}"
        )
    gen = check_rng(rng)
    g = _finite_graph(graph, protocol)
    protocol.check_graph(g)
    return _draw(g, protocol, gen)


def _draw(g: ContactGraph, protocol: StemProtocol, gen: np.random.Generator) -> AnonymityGraph:
    n = g.number_of_nodes()
    arrs = _empty_anonymity(n, protocol)
    kind, relays, peers_all, routing, coin_epoch, q = protocol._codes()
    work = np.empty(max(n, int(np.diff(g.indptr).max(initial=0))) + 1, np.int64)
    m = K.draw_anonymity(kind, n, g.indptr, g.indices, relays, peers_all, routing, coin_epoch,
                         q, gen, *arrs, work)
    out_ptr, out, own, in_ptr, in_src, in_to, diffuser = arrs
    return AnonymityGraph(graph=g, protocol=protocol, out_ptr=out_ptr, out=out[:m], own=own,
                          in_ptr=in_ptr, in_src=in_src[:m], in_to=in_to[:m], diffuser=diffuser)


# ----------------------------------------------------------------- compiled engine


@dataclass(frozen=True, eq=False)
class StemBatch:
    """Many independent transactions of a stem-and-fluff protocol (from :func:`simulate_stems`).

    Node arrays hold internal indices of ``graph`` (labels: :meth:`labels`).

    Parameters
    ----------
    graph : ContactGraph
        The contact graph.
    protocol : Protocol
        The stem-and-fluff protocol that ran.
    source : numpy.ndarray of int64, shape (trials,)
        The source of each transaction.
    stem_length : numpy.ndarray of int64, shape (trials,)
        Number of stem messages (0 for plain diffusion).
    fluff_node : numpy.ndarray of int64, shape (trials,)
        The node that started the diffusion (the source for plain diffusion).
    fluff_time : numpy.ndarray of float64, shape (trials,)
        When it did (the end of the stem).
    failsafe : numpy.ndarray of bool, shape (trials,)
        The stem ended at a node that already had the transaction (the fail-safe), not by
        a coin or a diffuser.
    reached : numpy.ndarray of int64, shape (trials,)
        How many nodes received the transaction in the fluff (all, on a connected graph).
    completion_time : numpy.ndarray of float64, shape (trials,)
        When the last node received it in the fluff.
    spies : numpy.ndarray of int64, shape (trials, k)
        The spies of each trial.
    spy_time : numpy.ndarray of float64, shape (trials, k)
        Each spy's first receipt time (``inf``: none -- only a source that is a spy under
        plain diffusion hears nothing).
    spy_sender : numpy.ndarray of int64, shape (trials, k)
        Who sent it (-1: none).
    spy_kind : numpy.ndarray of int8, shape (trials, k)
        0: a stem message, 1: a fluff message, -1: none.
    anonymity : AnonymityGraph or None, optional
        The anonymity graph shared by every trial, if one was given.
    """

    graph: ContactGraph
    protocol: Any
    source: np.ndarray
    stem_length: np.ndarray
    fluff_node: np.ndarray
    fluff_time: np.ndarray
    failsafe: np.ndarray
    reached: np.ndarray
    completion_time: np.ndarray
    spies: np.ndarray
    spy_time: np.ndarray
    spy_sender: np.ndarray
    spy_kind: np.ndarray
    anonymity: AnonymityGraph | None = None

    def __len__(self) -> int:
        return int(self.source.shape[0])

    @property
    def trials(self) -> int:
        """The number of transactions (``len(batch)``)."""
        return int(self.source.shape[0])

    def labels(self, idx: np.ndarray) -> list:
        """Node labels of internal indices (``None`` for -1).

        Parameters
        ----------
        idx : array_like of int
            Internal node indices (any shape; read flat).

        Returns
        -------
        list
            Their labels, flat.
        """
        flat = np.asarray(idx, np.int64)
        lab = _labels(self.graph, np.where(flat < 0, 0, flat).ravel())
        return [None if i < 0 else x for i, x in zip(flat.ravel().tolist(), lab)]

    def first_spy(self) -> np.ndarray:
        """Index of the sender of the earliest receipt of any spy, per trial (-1: none).

        Ties (equal times, probability 0 in continuous time) go to the first spy listed.
        """
        if self.spies.shape[1] == 0:
            return np.full(self.trials, -1, np.int64)
        j = np.argmin(self.spy_time, axis=1)
        rows = np.arange(self.trials)
        out = self.spy_sender[rows, j].copy()
        out[~np.isfinite(self.spy_time[rows, j])] = -1
        return out

    def observation(self, i: int):
        """Trial ``i`` as a :class:`spread.SpyObservation` (``T = math.inf``: run to completion).

        ``kind`` is ``"stem"`` or ``"fluff"`` (``None`` when nothing was received).

        Parameters
        ----------
        i : int
            The trial, ``0 <= i < trials``.

        Returns
        -------
        SpyObservation
            What the spies of trial ``i`` saw.
        """
        i = check_int(i, "i", low=0, high=self.trials - 1)
        spies = np.asarray(self.spies[i], np.int64)
        senders = self.labels(self.spy_sender[i])
        kinds = [None if k < 0 else ("stem", "fluff")[k] for k in self.spy_kind[i].tolist()]
        return SpyObservation(graph=self.graph, T=math.inf, spies=np.array(self.labels(spies)),
                              spy_index=spies.copy(), time=self.spy_time[i].copy(),
                              sender=senders, kind=kinds, protocol=self.protocol)

    def __repr__(self) -> str:
        # one line: the size and the key figures (the per-transaction arrays are the fields)
        n = self.trials
        stem = f"{float(np.mean(self.stem_length)):.4g}" if n else "nan"
        return (f"StemBatch(protocol={_short(self.protocol)}, graph={_short(self.graph)}, trials={n}, "
                f"mean stem length={stem}, spies={len(self.spies)}, "
                f"failsafe={int(np.count_nonzero(self.failsafe))})")


def _spy_matrix(g: ContactGraph, spies: Any, trials: int) -> np.ndarray:
    try:
        arr = np.asarray(spies, dtype=object)
    except Exception:  # pragma: no cover - numpy accepts nearly anything as object
        raise InvalidTypeError(f"spies must be a list of nodes; got {spies!r}"[:200]) from None
    if arr.ndim == 1 and arr.shape[0] == 0:
        return np.zeros((trials, 0), np.int64)
    if arr.ndim == 1:
        idx = np.array([g.node_index(v, "spy") for v in arr.tolist()], np.int64)
        if np.unique(idx).shape[0] != idx.shape[0]:
            raise InvalidParameterError(f"spies must list each node once; got {spies!r}"[:200])
        return np.broadcast_to(idx, (trials, idx.shape[0])).copy()
    if arr.ndim == 2 and arr.shape[0] == trials:
        idx = np.array([[g.node_index(v, "spy") for v in row] for row in arr.tolist()],
                       np.int64).reshape(arr.shape)
        for row in idx:
            if np.unique(row).shape[0] != row.shape[0]:
                raise InvalidParameterError(
                    f"spies must list each node once per trial; got the row {row.tolist()!r}"[:200]
                )
        return idx
    raise InvalidParameterError(
        f"spies must be a 1-D list of nodes or a 2-D array with one row per trial ({trials}); "
        f"got an array of shape {arr.shape}"
    )


def simulate_stems(graph: Any, protocol: Any, trials: int, *, spies: Any = (),
                   sources: Any = None, anonymity: AnonymityGraph | None = None,
                   rng: Any = None) -> StemBatch:
    """Compiled Monte Carlo: ``trials`` independent transactions, each run to completion.

    Each trial draws a fresh anonymity graph (a new epoch) unless ``anonymity`` is given
    (then every trial uses it: one epoch, as in the papers' precision/recall set-up where
    every honest node sends one transaction), runs the stem and the diffusion to the last
    node (a binary-heap Dijkstra over Exponential message delays), and records what the
    spies saw. Same distribution as :func:`spread.events.simulate_messages` (tested).

    Parameters
    ----------
    graph : networkx.Graph or ContactGraph
        Finite and connected.
    protocol : Dandelion, DandelionPlusPlus or spread.events.ContinuousDiffusion
    trials : int >= 1
    spies : sequence of nodes, or array of shape (trials, k)
        The same spies for every trial, or one row per trial (may be empty).
    sources : None or sequence of ``trials`` nodes
        ``None`` draws a uniform source per trial.
    anonymity : AnonymityGraph, optional
        From :func:`draw_anonymity_graph` for this graph and protocol.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    StemBatch

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.random_regular_graph(8, 100, seed=0)
    >>> b = simulate_stems(g, DandelionPlusPlus(0.2), 500, spies=range(10), rng=0)
    >>> bool((b.reached == 100).all()), b.spy_time.shape
    (True, (500, 10))
    """
    protocol = _check_stem_protocol(protocol)
    trials = check_int(trials, "trials", low=1)
    gen = check_rng(rng)
    if protocol.anonymity_kind is None:  # plain diffusion from the source: no stem
        g = as_contact_graph(graph)
        if isinstance(g, LazyTree):
            raise GraphError(f"graph must be finite for simulate_stems; got the infinite {g!r}")
        if g.number_of_nodes() < 2:
            raise GraphError(f"graph must have at least 2 nodes; got {g.number_of_nodes()}")
        k = _components(g)
        if k > 1:
            raise GraphError(f"graph must be connected (the diffusion must reach every node); "
                             f"got {g!r} with {k} connected components")
        codes = (K.CYCLE, 1, True, K.ONE_TO_ONE, False, 0.0)
        stem = 0
    else:
        g = _finite_graph(graph, protocol)
        protocol.check_graph(g)
        codes = protocol._codes()
        stem = 1
    n = g.number_of_nodes()
    shape = np.shape(np.asarray(spies, dtype=object))
    k = shape[-1] if len(shape) else 0
    # the output tables (spy rows included); every trial runs a heap Dijkstra to the last node
    check_size("trials", trials, nbytes=trials * (41.0 + 25.0 * k),
               work=trials * (n + float(g.indices.shape[0])) * max(1.0, math.log2(n)),
               what=f"{trials} stem-and-fluff runs on {g!r} with {k} spies")
    spy = _spy_matrix(g, spies, trials)
    if sources is None:
        src = gen.integers(0, n, size=trials).astype(np.int64)
    else:
        try:
            labels = list(sources.tolist() if isinstance(sources, np.ndarray) else sources)
        except TypeError:
            raise InvalidTypeError(f"sources must be a sequence of nodes; got {sources!r}") from None
        if len(labels) != trials:
            raise InvalidParameterError(
                f"sources must list one node per trial ({trials}); got {len(labels)} nodes"
            )
        src = np.array([g.node_index(v, "source") for v in labels], np.int64)
    if anonymity is not None:
        if not isinstance(anonymity, AnonymityGraph):
            raise InvalidTypeError(
                f"anonymity must be an AnonymityGraph from draw_anonymity_graph; got {anonymity!r}"
            )
        if not _same_graph(anonymity.graph, g) or anonymity.protocol != protocol:
            raise InvalidParameterError(
                "anonymity must be drawn for this graph and protocol; got one for "
                f"{anonymity.protocol!r} on {anonymity.graph!r}"
            )
        a = anonymity
        arrs = (a.out_ptr, _pad(a.out, n, protocol), a.own, a.in_ptr, _pad(a.in_src, n, protocol),
                _pad(a.in_to, n, protocol), a.diffuser)
        fixed = True
    else:
        arrs = _empty_anonymity(n, protocol if stem else Dandelion())
        fixed = not stem
    kind, relays, peers_all, routing, coin_epoch, q = codes
    rate = float(protocol.rate)
    k = spy.shape[1]
    o_len = np.empty(trials, np.int64)
    o_fnode = np.empty(trials, np.int64)
    o_ftime = np.empty(trials, np.float64)
    o_repeat = np.empty(trials, np.bool_)
    o_reached = np.empty(trials, np.int64)
    o_last = np.empty(trials, np.float64)
    o_time = np.empty((trials, k), np.float64)
    o_sender = np.empty((trials, k), np.int64)
    o_kind = np.empty((trials, k), np.int8)
    K.run_stem_batch(kind, n, g.indptr, g.indices, relays, peers_all, routing, coin_epoch, q, rate,
                     stem, fixed, *arrs, src, spy, gen, o_len, o_fnode, o_ftime, o_repeat, o_reached, o_last,
                     o_time, o_sender, o_kind)
    return StemBatch(graph=g, protocol=protocol, source=src, stem_length=o_len,
                     fluff_node=o_fnode, fluff_time=o_ftime, failsafe=o_repeat, reached=o_reached,
                     completion_time=o_last, spies=spy, spy_time=o_time, spy_sender=o_sender,
                     spy_kind=o_kind, anonymity=anonymity)


def _same_graph(a: ContactGraph, b: ContactGraph) -> bool:
    return a is b or (a.labels == b.labels and np.array_equal(a.indptr, b.indptr)
                      and np.array_equal(a.indices, b.indices))


def _pad(a: np.ndarray, n: int, protocol) -> np.ndarray:
    out = np.zeros(max(n * max(int(protocol.relays), 1), a.shape[0]), np.int64)
    out[: a.shape[0]] = a
    return out
