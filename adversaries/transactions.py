"""The transaction model of Dandelion and Dandelion++: every honest node sends one transaction.

Venkatakrishnan, Fanti & Viswanath, *Dandelion: Redesigning the Bitcoin Network for
Anonymity* (SIGMETRICS 2017) and Fanti, Bojja Venkatakrishnan et al., *Dandelion++:
Lightweight Cryptocurrency Networking with Formal Anonymity Guarantees* (SIGMETRICS 2018,
arXiv:1805.11060) evaluate a spreading protocol by the **precision and recall** of an
adversary that maps transactions to honest nodes:

* ``n`` nodes, a fraction ``p`` of them spies (exactly ``floor(p n)``, uniformly at
  random, as in the authors' simulation scripts); each honest node ``v`` sends one
  transaction ``x_v``;
* the adversary outputs a mapping ``M`` from transactions to nodes;
  **recall** ``R = (1/h) sum_v 1{M(x_v) = v}`` (the fraction of transactions mapped to
  their source; its expectation is the probability that a given transaction is
  deanonymised) and **precision** ``D = (1/h) sum_v 1{M(x_v) = v} / |M^{-1}(v)|`` (a
  correct guess counts 1 divided by the number of transactions the adversary assigned
  to that node), ``h`` the number of honest nodes.

Protocols (:data:`PROTOCOLS`): *dandelion* -- the stem walks the anonymity graph, each
node forwarding to one successor (the line: every node has one successor), with fluff
probability ``q`` per hop; *diffusion* -- every node relays to every neighbour after
i.i.d. exponential delays. The anonymity graph is the authors' random directed
d-regular graph (union of ``d`` random Hamiltonian cycles): ``d = 1`` is Dandelion's
line, ``d = 2`` the 4-regular graph of Dandelion++; the routing rule (:data:`ROUTINGS`)
is how a node picks the successor (per transaction, per incoming edge, all-to-one,
one-to-one -- Dandelion++'s choice). Diffusion runs on the undirected version of the
same graph, as in the authors' scripts.

What the spies see (:class:`TransactionObservation`): for each transaction, the honest
node that handed it to the first spy in the stem (and that spy), or -- if an honest node
fluffed it first -- that node (the adversary is granted the fluff node's identity, the
papers' strong adversary); for diffusion, the node that delivered it to the first spy.
Timing is not used (the papers' estimators do not use it either).

Estimators (:data:`TRANSACTION_ESTIMATORS`) map the observation to a mapping:

* ``first-spy``: each transaction to the node the spies first got it from;
* ``max-recall``: each transaction to its most likely source (uniform prior over
  honest nodes; ties uniformly at random). Recall is a sum over transactions, so this
  maximises the expected recall given the likelihood;
* ``max-precision``: a maximum-weight matching of transactions to honest nodes with the
  per-transaction posteriors as weights (the authors' ``MaxWeightEstimator``). A matching
  maps one transaction per node, so its precision equals its recall, and among
  matchings it maximises the expected number of correct pairs when the transactions'
  sources are treated as a priori independent.

Both likelihood estimators use the exact probability, for a source ``v``, that the stem
of a per-transaction random walk (uniform successor at every hop, fluff probability
``q``) leaves through the observed edge or fluffs at the observed node: absorption
probabilities of a Markov chain over the honest nodes (``N = (I - Q)^{-1}``), which
the adversary computes from the anonymity graph and the spies' positions (the papers'
adversary knows the graph). For the deterministic routings (per-edge, all-to-one,
one-to-one) this is the likelihood of a stem whose routing tables are unknown: exact
until a stem revisits an arc, an approximation after. The authors' scripts weight by
the product of ``1/degree`` along the shortest spy-free path only, a cruder likelihood.

**One simulator, two configurations** (:mod:`anonspread.engine.dandelion`). This model and
the protocols of :mod:`spread.dandelion` (:func:`spread.simulate_stems`) run on the same
compiled Dandelion simulator: the anonymity graph, the forwarding tables and the stem walk
are written once, and each is a set of rules for them. This model's rules are the authors'
scripts': (1) the anonymity graph is a union of ``d`` random directed Hamiltonian cycles over
all nodes (``RegGraphGen``: in- and out-degree exactly ``d``, for d = 1, 2, 3; the first
cycle in label order, which the model does not depend on), where ``spread.dandelion`` draws
one shuffled cycle (Dandelion) or ``relays`` relays per node among its contacts or all nodes
(Dandelion++: in-degree ``relays`` only on average); (2) forwarding tables that may send a
stem back to the node it came from (the protocols never do when the node has another relay);
(3) the loop rules ``revisit="escape"`` (a stem back at a node it already left takes another
successor) or ``"follow"`` and the failsafe after ``cap`` hops, where ``spread.dandelion``
diffuses a stem at its first repeat; (4) no message delays and nothing after the first spy:
a stem stops there, where ``simulate_stems`` times every hop, runs through the spies and
then the fluff to the last node. Diffusion here is the jump chain of the exponential clocks
stopped at the first spy (who delivered it; no timestamps). Stopping early is what makes the
figures' many epochs cheap. Measured (one epoch: n = 100, 10 spies, Dandelion's line, 90
transactions; 200 epochs interleaved after a warm-up, CPU time, load ~10 on 2 shared cores,
2026-11-25): this configuration (:func:`anonymity_graph` + :func:`observe_transactions`)
0.11 ms per epoch at q = 0 and 0.10 ms at q = 0.1; ``draw_anonymity_graph`` +
``simulate_stems`` + :func:`transactions_from_stems` on a random 4-regular contact graph
1.21 ms and 1.11 ms, about 11 times slower. ``dandelion-graphs``, ``-routing`` and
``-protocols`` run on this configuration, ``dandelion-deployed`` on ``simulate_stems``.

Cross-checked in ``tests/adversaries/test_adv_transactions.py``:
``test_dandelion_engine_observation_equals_the_transaction_kernel_on_the_same_line``
(Dandelion at q = 0, five epochs: on the line ``spread.dandelion`` drew, both configurations
give every transaction the same kind, node and spy),
``test_both_configurations_follow_the_line_law_with_a_fluff_coin`` (one Dandelion line at
q = 0.2: both configurations' counts of stems that reach a spy lie within 4 sigma of
``sum_v (1 - q)^(j_v - 1)``, ``j_v`` the hops from ``v`` to its first spy, and of each other)
and ``test_estimators_run_on_dandelion_plus_plus_and_diffusion_epochs`` (first-spy on a
Dandelion++ epoch of ``simulate_stems`` equals ``StemBatch.first_spy``: a check of
:func:`transactions_from_stems`). Where the rules differ by design (d > 1, the deterministic
routings, diffusion) the configurations are not compared with each other: this model's
per-transaction stems with q > 0 on d = 2 are checked against an explicit path enumeration
(``test_stem_kernel_samples_the_likelihood``), d > 1, the routings and diffusion against
the authors' scripts (``docs/FIGURES.md``, "Dandelion and Dandelion++").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonspread.engine import dandelion as K
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread.limits import check_size
from anonspread.validation import check_int, check_probability, check_rng

__all__ = [
    "MAX_LIKELIHOOD_NODES",
    "PROTOCOLS",
    "ROUTINGS",
    "TRANSACTION_ESTIMATORS",
    "TransactionObservation",
    "anonymity_graph",
    "draw_spy_mask",
    "max_weight_matching",
    "observe_transactions",
    "precision_recall",
    "register_transaction_estimator",
    "stem_likelihoods",
    "transactions_from_stems",
]

PROTOCOLS = ("dandelion", "diffusion")
ROUTINGS = tuple(K.ROUTING_CODES)

#: The likelihood estimators factor an h x h matrix per observation; above this many
#: honest nodes they are refused (the dense LU would need > 1.6 GB and minutes).
MAX_LIKELIHOOD_NODES = 15_000


@dataclass(frozen=True)
class TransactionObservation:
    """What the spies learn when every honest node sends one transaction.

    :func:`observe_transactions` and :func:`transactions_from_stems` return one.

    Parameters
    ----------
    n : int
        Nodes (0..n-1).
    indptr, indices : numpy.ndarray
        The graph the adversary knows: out-neighbours of the anonymity graph (the
        spreading graph's neighbours for diffusion), CSR.
    spy : numpy.ndarray of bool
        Which nodes are spies.
    sources : numpy.ndarray of int64
        The honest nodes; transaction ``i`` is ``sources[i]``'s.
    kind : numpy.ndarray of int8
        0: ``node[i]`` handed it to spy ``spy_of[i]``; 1: honest ``node[i]`` fluffed it
        before any spy saw it in the stem; 2: no spy saw it.
    node : numpy.ndarray of int64
        The node that handed transaction ``i`` to a spy (kind 0) or fluffed it (kind 1).
    spy_of : numpy.ndarray of int64
        The spy that received it (kind 0).
    hops : numpy.ndarray of int64
        Stem hops until it was seen or fluffed (diffusion: infected honest nodes).
    protocol : {"dandelion", "diffusion"}
        The observation model.
    routing : {"per-tx", "per-edge", "all-to-one", "one-to-one"}, default "per-tx"
        How stems pick successors (:data:`ROUTINGS`).
    q : float, default 0.0
        The per-hop fluff probability.
    seen_from : numpy.ndarray of int64 or None
        The node the spies first got each transaction from (-1: none), when it differs
        from ``node``: for :func:`transactions_from_stems`, a transaction first seen in the
        fluff was sent to the first spy by some node of the diffusion, while ``node`` is the
        fluff node granted to the likelihood adversaries. ``None``: the same as ``node``.
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    spy: np.ndarray
    sources: np.ndarray
    kind: np.ndarray
    node: np.ndarray
    spy_of: np.ndarray
    hops: np.ndarray
    protocol: str
    routing: str = "per-tx"
    q: float = 0.0
    seen_from: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_honest(self) -> int:
        """The number of honest nodes (= transactions)."""
        return int(self.sources.shape[0])

    def __repr__(self) -> str:
        # one line: the sizes (the CSR arrays are the fields)
        return (f"TransactionObservation(protocol={self.protocol!r}, n={self.n}, "
                f"transactions={len(self.sources)}, spies={int(np.count_nonzero(self.spy))}, "
                f"routing={self.routing!r}, q={self.q:g})")


def anonymity_graph(n: int, d: int, *, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The authors' random directed d-regular anonymity graph: ``d`` random Hamiltonian cycles.

    ``d = 1`` is Dandelion's line (a random directed cycle), ``d = 2`` the 4-regular graph
    of Dandelion++.

    Parameters
    ----------
    n : int >= 2
        The number of nodes.
    d : int, 1 <= d <= max(1, n - 1)
        The number of cycles (every node's out-degree).
    rng : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    indptr, indices : numpy.ndarray of int64
        The out-neighbour CSR.

    Examples
    --------
    >>> indptr, indices = anonymity_graph(5, 1, rng=0)
    >>> sorted(indices.tolist()) == list(range(5))   # a cycle: every node one successor
    True
    """
    n = check_int(n, "n", low=2)
    d = check_int(d, "d", low=1, high=max(1, n - 1))
    # successor table and CSR (16 n d bytes), permutation, counts and indptr (24 n)
    check_size("n" if n >= d else "d", n if n >= d else d, nbytes=16.0 * n * d + 24.0 * n,
               work=float(n) * d, what=f"the anonymity graph (n={n}, d={d})")
    return K.regular_digraph(n, d, check_rng(rng))


def draw_spy_mask(n: int, fraction: float, *, rng: Any = None) -> np.ndarray:
    """Exactly ``floor(fraction * n)`` spies drawn uniformly (the authors' ``assign_spies``).

    Parameters
    ----------
    n : int >= 1
        The number of nodes.
    fraction : float in [0, 1]
        The fraction of spies.
    rng : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    numpy.ndarray of bool
        ``mask[v]``: node ``v`` is a spy.

    Examples
    --------
    >>> int(draw_spy_mask(10, 0.25, rng=0).sum())
    2
    """
    n = check_int(n, "n", low=1)
    fraction = check_probability(fraction, "fraction")
    k = math.floor(fraction * n + 1e-9)
    check_size("n", n, nbytes=n + 8.0 * k, what="the spy mask")
    mask = np.zeros(n, bool)
    mask[check_rng(rng).choice(n, size=k, replace=False)] = True
    return mask


def _csr(graph: Any) -> tuple[int, np.ndarray, np.ndarray]:
    try:
        raw = [np.asarray(a) for a in graph]
        if len(raw) != 2 or any(a.ndim != 1 or (a.dtype.kind not in "iu" and a.size) for a in raw):
            raise TypeError  # floats would be truncated: not a graph
        indptr, indices = (np.ascontiguousarray(a, np.int64) for a in raw)
    except (TypeError, ValueError):
        raise InvalidTypeError(
            f"graph must be a CSR pair (indptr, indices) of 1-D integer arrays; got {graph!r}"[:200]
        ) from None
    n = indptr.shape[0] - 1
    if n < 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != indices.shape[0]:
        raise InvalidParameterError("graph must be a CSR pair: indptr non-decreasing from 0 to len(indices)")
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise InvalidParameterError(f"graph indices must be nodes in [0, {n - 1}]")
    return n, indptr, indices


def observe_transactions(graph: Any, spy: Any, protocol: str = "dandelion", *,
                         routing: str = "per-tx", q: float = 0.0, cap: int | None = None,
                         revisit: str = "escape", rng: Any = None) -> TransactionObservation:
    """Every honest node sends one transaction; return what the spies see.

    Parameters
    ----------
    graph : (indptr, indices)
        Out-neighbour CSR of the anonymity graph (:func:`anonymity_graph`); for
        ``"diffusion"`` the neighbour CSR of an undirected spreading graph.
    spy : array of bool, length n
        Spy mask (:func:`draw_spy_mask`).
    protocol : {"dandelion", "diffusion"}
    routing : {"per-tx", "per-edge", "all-to-one", "one-to-one"}
        Stem forwarding rule (Dandelion only; tables drawn once per call: one epoch).
    q : float in [0, 1]
        Per-hop fluff probability (Dandelion; the papers' analysis and figures use
        ``q -> 0``: stems run until they meet a spy).
    cap : int or None
        Failsafe: a stem still unseen after ``cap`` hops is fluffed where it is, and the
        adversary learns that node (default ``n``, the authors' scripts, which then
        attribute the transaction to the node the stem has reached).
    revisit : {"escape", "follow"}
        Deterministic routings (per-edge, all-to-one, one-to-one) can close a loop of
        honest nodes: ``"escape"`` -- a stem back at a node it already left takes another
        successor than its table's (the authors' scripts); ``"follow"`` -- it follows
        the table (and the failsafe ends the loop).
    rng : None, int or numpy.random.Generator

    Examples
    --------
    Worked example: the directed 4-cycle 0 -> 1 -> 2 -> 3 -> 0 with spy 3. Every stem runs
    into 2 -> 3, so the spies see all three transactions come from node 2:

    >>> g = (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 0]))
    >>> obs = observe_transactions(g, np.array([False, False, False, True]), rng=0)
    >>> obs.node.tolist(), obs.spy_of.tolist(), obs.hops.tolist()
    ([2, 2, 2], [3, 3, 3], [3, 2, 1])
    """
    n, indptr, indices = _csr(graph)
    spy = np.asarray(spy)
    if spy.dtype != bool or spy.shape != (n,):
        raise InvalidParameterError(f"spy must be a boolean mask of length {n}; got {spy!r}"[:200])
    if protocol not in PROTOCOLS:
        raise InvalidParameterError(f"protocol must be one of {list(PROTOCOLS)}; got {protocol!r}")
    if routing not in ROUTINGS:
        raise InvalidParameterError(f"routing must be one of {list(ROUTINGS)}; got {routing!r}")
    q = check_probability(q, "q")
    cap = n if cap is None else check_int(cap, "cap", low=1)
    if revisit not in ("escape", "follow"):
        raise InvalidParameterError(f"revisit must be 'escape' or 'follow'; got {revisit!r}")
    gen = check_rng(rng)
    sources = np.nonzero(~spy)[0].astype(np.int64)
    h = sources.shape[0]
    if h == 0:
        raise InvalidParameterError(
            f"spy must leave at least one honest node (precision and recall average over the "
            f"honest nodes' transactions); got all {n} nodes spies")
    _check_observation_size(n, h, indices.shape[0], protocol, q, cap)
    kind = np.empty(h, np.int8)
    node = np.empty(h, np.int64)
    spy_of = np.empty(h, np.int64)
    hops = np.empty(h, np.int64)
    if protocol == "dandelion":
        K.stems(n, indptr, indices, spy, K.ROUTING_CODES[routing], q, cap, revisit == "escape",
                gen, kind, node, spy_of, hops)
    else:
        K.diffusion_first_spy(n, indptr, indices, spy, gen, kind, node, spy_of, hops)
    return TransactionObservation(n, indptr, indices, spy, sources, kind, node, spy_of, hops,
                                  protocol, routing, q)


def _check_observation_size(n: int, h: int, m: int, protocol: str, q: float, cap: int) -> None:
    """Refuse an observation whose runs would not finish (or fit): every honest node's
    stem (or diffusion) runs until a spy sees it, so its length depends on the spies."""
    f = (n - h) / n
    if protocol == "dandelion":
        stop = 1.0 - (1.0 - f) * (1.0 - q)  # per hop: a spy reached or a fluff
        per = min(float(cap), 1.0 / stop if stop > 0 else math.inf)
        nbytes = 25.0 * h + 48.0 * (n + m)  # observation arrays, routing tables
    else:
        per = min(float(n + m), (1.0 + m / n) / f if f > 0 else math.inf)
        nbytes = 25.0 * h + 16.0 * m + 8.0 * n  # observation arrays, edge stack, marks
    check_size("graph", f"a graph of {n} nodes", nbytes=nbytes, work=h * per,
               what=f"{h} honest nodes' transactions ({protocol}, {n - h} spies, about "
                    f"{per:.3g} steps each)")


_CH2_ROUTINGS = {"per-transaction": "per-tx", "per-incoming-edge": "per-edge",
                 "all-to-one": "all-to-one", "one-to-one": "one-to-one"}


def transactions_from_stems(batch: Any) -> TransactionObservation:
    """The spies' view of a :func:`spread.simulate_stems` run of one epoch, one transaction per
    honest node -- so the estimators here run on the protocols of :mod:`spread.dandelion`.

    ``batch`` must share one anonymity graph (``anonymity=``), give every trial the same
    spies and have exactly one trial per honest node as source. For each transaction the
    earliest spy receipt decides: a stem message -> ``kind 0`` (its sender, that spy); a
    fluff message -> ``kind 1`` with the node that started the fluff (the papers' strong
    adversary: the likelihood estimators are granted the fluff node; first-spy uses the
    receipt's sender, ``seen_from``); none -> ``kind 2``. For diffusion
    (``ContinuousDiffusion``) the first receipt's sender is ``kind 0``.

    The likelihood estimators then model a per-hop coin ``q`` and uniform relays over the
    anonymity arcs: exact for Dandelion and for Dandelion++ with ``routing="per-transaction",
    coin="hop"`` until a stem revisits a node (where ``spread.dandelion`` diffuses); for
    per-epoch diffusers (``coin="epoch"``) and deterministic routings an approximation.

    Parameters
    ----------
    batch : StemBatch
        The run (of :func:`spread.simulate_stems`), as described above.

    Returns
    -------
    TransactionObservation
        Its ``protocol`` is ``"dandelion"`` or ``"diffusion"``.
    """
    from anonspread.spread.dandelion import StemBatch

    if not isinstance(batch, StemBatch):
        raise InvalidTypeError(f"batch must be a spread.dandelion.StemBatch; got {batch!r}"[:200])
    g, proto = batch.graph, batch.protocol
    n = g.number_of_nodes()
    spies = np.asarray(batch.spies, np.int64)
    if spies.shape[0] and np.any(spies != spies[0]):
        raise InvalidParameterError("batch must give every trial the same spies (one epoch)")
    spy = np.zeros(n, bool)
    spy[spies[0] if spies.shape[0] else []] = True
    sources = np.nonzero(~spy)[0].astype(np.int64)
    order = np.argsort(batch.source, kind="stable")
    if not np.array_equal(batch.source[order], sources):
        raise InvalidParameterError(
            f"batch must have exactly one trial per honest node ({sources.shape[0]}) as source; "
            f"got {batch.trials} trials with {np.unique(batch.source).shape[0]} distinct sources"
        )
    h = sources.shape[0]
    kind = np.full(h, 2, np.int8)
    node = np.full(h, -1, np.int64)
    spy_of = np.full(h, -1, np.int64)
    if proto.anonymity_kind is None:  # plain diffusion (ContinuousDiffusion)
        protocol, routing, q = "diffusion", "per-tx", 0.0
        indptr, indices = g.indptr.astype(np.int64), g.indices.astype(np.int64)
    else:
        a = batch.anonymity
        if a is None:
            raise InvalidParameterError(
                "batch must share one anonymity graph (simulate_stems(..., anonymity=...)): "
                "precision needs every transaction of one epoch"
            )
        protocol, q = "dandelion", float(proto.q)
        # one relay per node on Dandelion's cycle: every routing rule is the same walk
        routing = "per-tx" if proto.anonymity_kind == K.CYCLE else _CH2_ROUTINGS[proto.routing]
        indptr = a.out_ptr.astype(np.int64)
        indices = a.out[: indptr[-1]].astype(np.int64)
    if spies.shape[1]:
        t = batch.spy_time[order]
        j = np.argmin(t, axis=1)
        rows = np.arange(h)
        seen = np.isfinite(t[rows, j])
        stem = seen & (batch.spy_kind[order][rows, j] == 0)
        first = batch.spy_sender[order][rows, j]
        if protocol == "diffusion":
            stem = seen
        kind[stem] = 0
        node[stem] = first[stem]
        spy_of[stem] = batch.spies[order][rows, j][stem]
        fluff = seen & ~stem
        kind[fluff] = 1
        node[fluff] = batch.fluff_node[order][fluff]
        seen_from = np.where(seen, first, -1).astype(np.int64)
    else:
        seen_from = np.full(h, -1, np.int64)
    return TransactionObservation(n, indptr, indices, spy, sources, kind, node, spy_of,
                                  batch.stem_length[order].astype(np.int64), protocol, routing, q,
                                  seen_from)


def precision_recall(obs: TransactionObservation, mapping: Any) -> tuple[float, float]:
    """``(precision, recall)`` of a mapping (transaction ``i`` -> node, -1 for none).

    Parameters
    ----------
    obs : TransactionObservation
        The observation the mapping was estimated from.
    mapping : array_like of int
        One node per transaction (``-1``: not mapped).

    Returns
    -------
    tuple of float
        ``(precision, recall)``.

    Examples
    --------
    Three transactions all mapped to node 2 (the worked example of
    :func:`observe_transactions`): one is right, and node 2 holds three, so
    precision = (1/3)/3 and recall = 1/3.

    >>> g = (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 0]))
    >>> obs = observe_transactions(g, np.array([False, False, False, True]), rng=0)
    >>> [round(x, 4) for x in precision_recall(obs, [2, 2, 2])]
    [0.1111, 0.3333]
    """
    _check_obs(obs)
    try:
        raw = np.asarray(mapping)
    except (TypeError, ValueError):
        raw = np.asarray(None)
    if raw.dtype.kind not in "iu" and not (raw.size == 0 and raw.dtype.kind == "f"):
        # a float mapping would be truncated towards 0 (2.7 -> node 2)
        raise InvalidTypeError(
            f"mapping must be integer node indices (-1 for none), one per transaction; got an "
            f"array of dtype {raw.dtype}"
        )
    m = raw.astype(np.int64)
    if m.shape != (obs.n_honest,):
        raise InvalidParameterError(
            f"mapping must give one node per transaction ({obs.n_honest}); got shape {m.shape}"
        )
    if np.any((m < -1) | (m >= obs.n)):
        raise InvalidParameterError(f"mapping values must be nodes in [0, {obs.n - 1}] or -1")
    return K.precision_recall(obs.n, obs.sources, m)


def _check_obs(obs: Any) -> TransactionObservation:
    if not isinstance(obs, TransactionObservation):
        raise InvalidTypeError(
            f"observation must be a TransactionObservation (from observe_transactions); got {obs!r}"[:200]
        )
    return obs


# ----------------------------------------------------------------- likelihoods


def stem_likelihoods(obs: TransactionObservation) -> np.ndarray:
    """``L[i, j] = P(observation of transaction i | its source is sources[j])``.

    The stem is a walk that moves to a uniform successor at each hop and, arriving at an
    honest node, fluffs there with probability ``q``; spies absorb it. With ``Q`` the
    honest-to-honest transition matrix (``(1 - q)/d_u`` per arc), ``N = (I - Q)^{-1}``
    counts the expected visits, and

    * leaving through arc ``u -> s`` (s a spy): ``N[v, u] m(u, s) / d_u``;
    * fluffed at honest ``w``: ``sum_u N[v, u] q m(u, w) / d_u``;

    (``m`` the number of arcs, ``d_u`` the out-degree). Unseen transactions (kind 2) get
    a flat likelihood. Only the columns of ``N`` the observation needs are solved for.
    Computed once per observation (the estimators share it); the array is read-only.

    Parameters
    ----------
    obs : TransactionObservation
        A Dandelion observation.

    Returns
    -------
    numpy.ndarray of float64
        ``(n_honest, n_honest)``, read-only.
    """
    _check_obs(obs)
    if "stem" in obs._cache:
        return obs._cache["stem"]
    if obs.protocol != "dandelion":
        raise InvalidParameterError(
            f"the stem likelihood needs a Dandelion observation; got protocol {obs.protocol!r} "
            "(for diffusion only first-spy applies)"
        )
    h = obs.n_honest
    if h > MAX_LIKELIHOOD_NODES:
        raise InvalidParameterError(
            f"the stem likelihood factors a dense {h} x {h} matrix; at most "
            f"{MAX_LIKELIHOOD_NODES} honest nodes are accepted; got {h}"
        )
    n, indptr, indices, spy, q = obs.n, obs.indptr, obs.indices, obs.spy, obs.q
    pos = np.full(n, -1, np.int64)
    pos[obs.sources] = np.arange(h)
    deg = np.diff(indptr).astype(np.float64)
    src = np.repeat(np.arange(n), np.diff(indptr))
    keep = ~spy[src] & ~spy[indices]
    A = np.eye(h)
    np.add.at(A, (pos[src[keep]], pos[indices[keep]]), -(1.0 - q) / deg[src[keep]])
    L = np.full((h, h), 1.0 / h)
    outcomes: dict[tuple[int, int, int], list[int]] = {}
    for i in range(h):
        if obs.kind[i] != 2:
            outcomes.setdefault((int(obs.kind[i]), int(obs.node[i]), int(obs.spy_of[i])), []).append(i)
    if not outcomes:
        L.flags.writeable = False
        obs._cache["stem"] = L
        return L
    rhs = np.zeros((h, len(outcomes)))
    for c, (k, u, s) in enumerate(outcomes):
        if k == 0:  # one step from u leaves through u -> s with probability m(u, s) / d_u
            arcs = np.count_nonzero(indices[indptr[u]:indptr[u + 1]] == s)
            rhs[pos[u], c] = arcs / deg[u]
        else:  # fluffed at w: sum over honest predecessors u of w
            w = u
            for x in np.nonzero(~spy[src] & (indices == w))[0]:
                rhs[pos[src[x]], c] += q / deg[src[x]]
    # P(outcome | start v) = sum_u N[v, u] r[u] = (N r)[v], N = A^{-1}
    probs = np.linalg.solve(A, rhs)
    for c, txs in enumerate(outcomes.values()):
        L[txs, :] = np.maximum(probs[:, c], 0.0)[None, :]
    L.flags.writeable = False
    obs._cache["stem"] = L
    return L


def max_weight_matching(weights: np.ndarray, *, rng: Any = None) -> np.ndarray:
    """A maximum-weight perfect matching of rows to columns (``col[i]`` for row ``i``).

    Rows and columns are shuffled before solving (scipy's Hungarian solver breaks ties
    by position), so equal-weight matchings are picked at random as in the authors'
    ``MaxWeightEstimator``.

    Parameters
    ----------
    weights : numpy.ndarray of float
        A finite square matrix.
    rng : None, int or numpy.random.Generator
        Seed or generator for the shuffle.

    Returns
    -------
    numpy.ndarray of int64
        The column matched to each row.

    Examples
    --------
    >>> max_weight_matching(np.array([[0.9, 0.1], [0.8, 0.7]])).tolist()
    [0, 1]
    """
    from scipy.optimize import linear_sum_assignment

    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or not np.all(np.isfinite(w)):
        raise InvalidParameterError(f"weights must be a finite square matrix; got shape {w.shape}")
    gen = check_rng(rng)
    r = gen.permutation(w.shape[0])
    c = gen.permutation(w.shape[1])
    rows, cols = linear_sum_assignment(w[np.ix_(r, c)], maximize=True)
    out = np.empty(w.shape[0], np.int64)
    out[r[rows]] = c[cols]
    return out


# ----------------------------------------------------------------- estimators

#: name -> ``function(observation, *, rng)`` -> mapping (node per transaction, -1 for none).
TRANSACTION_ESTIMATORS: Registry[Callable[..., np.ndarray]] = Registry(
    "transaction estimator", parameter="estimator")
#: name -> protocols it applies to.
TRANSACTION_ESTIMATOR_PROTOCOLS: Registry[tuple[str, ...]] = Registry(
    "transaction estimator", parameter="estimator")


def register_transaction_estimator(name: str, *, protocols: tuple[str, ...]):
    """Function decorator: declare an estimator of the transaction model under ``name``.

    Parameters
    ----------
    name : str
        The name in :data:`TRANSACTION_ESTIMATORS` (a second registration raises).
    protocols : tuple of str
        The observation protocols it applies to (:func:`estimate` refuses the others).

    Returns
    -------
    callable
        The decorator; it registers ``func(obs, *, rng) -> mapping`` and returns it.
    """
    def deco(func: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        if name in TRANSACTION_ESTIMATORS:
            raise InvalidParameterError(f"transaction estimator {name!r} is already registered")
        TRANSACTION_ESTIMATORS.add(name, func)
        TRANSACTION_ESTIMATOR_PROTOCOLS.add(name, tuple(protocols))
        return func
    return deco


def estimate(name: str, obs: TransactionObservation, *, rng: Any = None) -> np.ndarray:
    """Run the transaction estimator ``name`` (refused, saying why, where it does not apply)."""
    _check_obs(obs)
    func = TRANSACTION_ESTIMATORS.get(name)
    if obs.protocol not in TRANSACTION_ESTIMATOR_PROTOCOLS[name]:
        raise InvalidParameterError(
            f"estimator {name!r} applies to protocols {list(TRANSACTION_ESTIMATOR_PROTOCOLS[name])}; "
            f"got {obs.protocol!r}"
        )
    return func(obs, rng=rng)


@register_transaction_estimator("first-spy", protocols=PROTOCOLS)
def first_spy_mapping(obs: TransactionObservation, *, rng: Any = None) -> np.ndarray:
    """Each transaction to the node the spies first got it from (``seen_from``; without it,
    ``node``: the stem's sender, or the fluff node when no spy saw the stem)."""
    _check_obs(obs)
    return (obs.node if obs.seen_from is None else obs.seen_from).copy()


@register_transaction_estimator("max-recall", protocols=("dandelion",))
def max_recall_mapping(obs: TransactionObservation, *, rng: Any = None) -> np.ndarray:
    """Each transaction to a most likely source (uniform prior; ties uniformly at random)."""
    L = stem_likelihoods(obs)
    gen = check_rng(rng)
    top = L.max(axis=1, keepdims=True)
    ties = L >= top * (1 - 1e-9)
    # a uniform pick among each row's ties: the largest of i.i.d. uniforms on the tied entries
    pick = np.argmax(np.where(ties, gen.random(L.shape), -1.0), axis=1)
    out = obs.sources[pick]
    out[obs.kind == 2] = -1
    return out


@register_transaction_estimator("max-precision", protocols=("dandelion",))
def max_precision_mapping(obs: TransactionObservation, *, rng: Any = None) -> np.ndarray:
    """Maximum-weight matching of transactions to honest nodes, weights = posteriors."""
    L = stem_likelihoods(obs)
    post = L / np.maximum(L.sum(axis=1, keepdims=True), 1e-300)
    cols = max_weight_matching(post, rng=rng)
    return obs.sources[cols]
