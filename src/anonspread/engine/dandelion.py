"""The Dandelion simulator: one compiled kernel family, two configurations.

Compiled ahead of time (:mod:`._dandelion`); this module holds its codes, documentation
and thin wrappers. The anonymity graph, its forwarding tables and the stem walk are
written once; the two users configure them:

* the protocols of :mod:`spread.dandelion` (:func:`draw_anonymity`, :func:`run_stem_batch`):
  the anonymity graph is one random Hamiltonian cycle (Dandelion) or ``relays`` relays per
  node among its contacts or all nodes (Dandelion++); a stem is never sent back to the node
  it came from when the node has another relay; every hop takes an Exponential delay; a
  stem reaching a node that already has the transaction is diffused there (the fail-safe);
  the coin is fresh per hop or the node's role for the epoch; then the fluff runs to
  completion;
* the abstract transaction model of :mod:`adversaries.transactions`
  (:func:`regular_digraph`, :func:`routing_tables`, :func:`stems`): the anonymity graph is
  the authors' union of ``d`` random Hamiltonian cycles; the forwarding tables may send a
  stem back (the authors' scripts); no delays; a stem stops at the first spy; at a node it
  already left it takes another successor (``escape``) or follows its table; the cap
  fluffs it after ``cap`` hops. :func:`diffusion_first_spy` is that model's diffusion.

Flat arrays only. An anonymity graph (one epoch) is held in CSR form:

* ``out_ptr, out`` -- the relays of each node (its out-edges);
* ``own`` -- the relay a node uses for its own transactions (-1: drawn per transaction);
* ``in_ptr, in_src, in_to`` -- for each node ``v`` and each in-edge ``(in_src[j], v)``,
  the relay ``in_to[j]`` a stem arriving on it is forwarded to (-1: drawn per hop);
* ``diffuser`` -- the node's role for the epoch (1: diffuses every stem it receives),
  used only when the coin is per epoch.

Random numbers come from the ``numpy.random.Generator`` passed in (its stream advances,
draw for draw as its own ``integers``, ``random`` and ``exponential`` methods would), so the
same generator gives the same runs. A coin of probability ``q = 0`` is not tossed.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _dandelion as _k
from anonspread.engine import _inputs as _check
from anonspread.errors import InvalidParameterError

__all__ = [
    "ROUTING_CODES",
    "diffusion_first_spy",
    "draw_anonymity",
    "precision_recall",
    "regular_digraph",
    "routing_tables",
    "run_stem_batch",
    "stems",
]

#: Anonymity-graph kinds: ``relays`` random Hamiltonian cycles, or relays picked per node.
CYCLE, RELAYS = 0, 1
#: Routing codes (Dandelion++ §4.2, the authors' ``edgebased`` codes 0-3).
PER_TRANSACTION, PER_EDGE, ALL_TO_ONE, ONE_TO_ONE = 0, 1, 2, 3
#: The transaction model's names of the routing codes.
ROUTING_CODES = {"per-tx": PER_TRANSACTION, "per-edge": PER_EDGE, "all-to-one": ALL_TO_ONE,
                 "one-to-one": ONE_TO_ONE}
#: Receipt kinds (spy observations).
STEM, FLUFF = 0, 1


def _mask(a, n: int, name: str = "spy") -> np.ndarray:
    a = _check.floats(a, name, min_len=n)
    if a.shape[0] != n:
        raise InvalidParameterError(f"{name} must be a mask of length {n}; got {a.shape[0]}")
    return (a != 0).view(np.uint8)


def _nodes(n) -> int:
    return _check.integer(n, "n", low=1, high=2**31 - 2)


def _digraph(n: int, indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    indptr, indices = _check.csr(indptr, indices, indices_dtype=np.int64)
    if indptr.shape[0] != n + 1:
        raise InvalidParameterError(f"indptr must have n + 1 = {n + 1} entries; got "
                                    f"{indptr.shape[0]}")
    return indptr, indices


def _anonymity(n: int, relays: int, arrs: tuple, check_content: bool) -> tuple:
    """The arrays of an anonymity graph (out_ptr, out, own, in_ptr, in_src, in_to,
    diffuser), checked for room and, when they are read (a fixed graph), for content."""
    m = n * relays
    names = ("out_ptr", "out", "own", "in_ptr", "in_src", "in_to", "diffuser")
    sizes = (n + 1, m, n, n + 1, m, m, n)
    dtypes = (np.int64,) * 6 + (np.int8,)
    arrs = tuple(_check.out(a, dt, nm, min_len=k) for a, dt, nm, k in zip(arrs, dtypes, names, sizes))
    if check_content:
        out_ptr, out, own, in_ptr, in_src, in_to, _ = arrs
        _check.csr(out_ptr[: n + 1], out, "anonymity graph (out_ptr, out)")
        _check.csr(in_ptr[: n + 1], in_src, "anonymity graph (in_ptr, in_src)")
        _check.index_array(own[:n], n, "own", low=-1)
        _check.index_array(in_to[: in_ptr[n]], n, "in_to", low=-1)
    return arrs


def _check_kind(kind, n: int, relays, peers_all, indptr, routing, q) -> tuple:
    kind = _check.integer(kind, "kind", low=CYCLE, high=RELAYS)
    # a node with fewer candidates than relays takes them all (the kernel clips per node);
    # the arrays' room for n * relays entries is checked with them
    relays = _check.integer(relays, "relays", low=1)
    if n < 2:
        raise InvalidParameterError(f"an anonymity graph needs n >= 2 nodes; got {n}")
    routing = _check.integer(routing, "routing", low=PER_TRANSACTION, high=ONE_TO_ONE)
    if not 0.0 <= float(q) <= 1.0:
        raise InvalidParameterError(f"q must be a probability in [0, 1]; got {q}")
    return kind, relays, routing


# ----------------------------------------------------------------- the protocols


def draw_anonymity(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rng,
                   out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work) -> int:
    """Draw one epoch's anonymity graph of the protocols into the given arrays; returns the
    number of edges.

    ``kind``: ``CYCLE`` (``relays`` uniform Hamiltonian cycles; Dandelion: 1) or ``RELAYS``
    (``relays`` distinct relays per node among all other nodes, ``peers_all``, or among its
    contacts ``indptr, indices``). The forwarding tables never send a stem back to its
    sender when the node has another relay; ``one-to-one`` deals each round of ``relays``
    in-edges a uniform bijection among those that respect this. ``diffuser`` gets the epoch
    roles (``coin_epoch``: each node a diffuser with probability ``q``).

    ``out`` / ``in_src`` / ``in_to`` need room for ``n * relays`` entries, ``work`` for
    ``max(n, max degree) + 1`` int64; ``diffuser`` is int8, the other arrays int64.
    """
    n = _nodes(n)
    indptr, indices = _check.csr(indptr, indices)
    if indptr.shape[0] != n + 1:
        raise InvalidParameterError(f"indptr must have n + 1 = {n + 1} entries; got "
                                    f"{indptr.shape[0]}")
    kind, relays, routing = _check_kind(kind, n, relays, peers_all, indptr, routing, q)
    arrs = _anonymity(n, relays, (out_ptr, out, own, in_ptr, in_src, in_to, diffuser), False)
    work = _check.out(work, np.int64, "work",
                      min_len=max(n, int(np.diff(indptr).max(initial=0))) + 1)
    return _k.draw_anonymity(kind, n, indptr, indices, relays, bool(peers_all), routing,
                             bool(coin_epoch), float(q), rng, *arrs, work)


def run_stem_batch(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rate,
                   stem_len, fixed, out_ptr, out, own, in_ptr, in_src, in_to, diffuser,
                   sources, spies, rng, o_len, o_fnode, o_ftime, o_repeat, o_reached, o_last,
                   o_time, o_sender, o_kind) -> None:
    """Many independent transactions of the protocols; one row of outputs per trial.

    ``fixed``: reuse the given anonymity graph for every trial (one epoch), else draw a
    fresh one per trial (:func:`draw_anonymity`) into the same arrays. ``spies`` has shape
    (trials, k). Each trial runs the stem from ``sources[i]`` (its relays by the routing
    rule, never back when another relay exists, a receipt after an exponential delay of
    mean ``1 / rate`` per hop, fluffed by the coin ``q`` per hop or per epoch, or by the
    fail-safe when the stem comes back to a node that has the transaction), then diffusion
    from the fluff node to completion (Dijkstra over per-message exponential delays);
    ``stem_len = 0`` is diffusion from the source. The outputs are the stem length, fluff
    node and time, the fail-safe flag (bool), the nodes reached, the completion time, and
    per spy the first receipt's time, sender and kind (``STEM``, ``FLUFF``, -1: none).
    """
    n = _nodes(n)
    indptr, indices = _check.csr(indptr, indices)
    if indptr.shape[0] != n + 1:
        raise InvalidParameterError(f"indptr must have n + 1 = {n + 1} entries; got "
                                    f"{indptr.shape[0]}")
    kind, relays, routing = _check_kind(kind, n, relays, peers_all, indptr, routing, q)
    arrs = _anonymity(n, relays, (out_ptr, out, own, in_ptr, in_src, in_to, diffuser),
                      bool(fixed))
    sources = _check.index_array(sources, n, "sources")
    trials = sources.shape[0]
    spies = _check.index_array(spies, n, "spies", ndim=2)
    if spies.shape[0] != trials:
        raise InvalidParameterError(f"spies must have one row per trial ({trials}); got shape "
                                    f"{spies.shape}")
    k = spies.shape[1]
    outs = [_check.out(a, dt, nm, min_len=trials) for a, dt, nm in (
        (o_len, np.int64, "o_len"), (o_fnode, np.int64, "o_fnode"), (o_ftime, np.float64, "o_ftime"),
        (o_repeat, np.bool_, "o_repeat"), (o_reached, np.int64, "o_reached"),
        (o_last, np.float64, "o_last"))]
    outs += [_check.out(a, dt, nm, shape=(trials, k)) for a, dt, nm in (
        (o_time, np.float64, "o_time"), (o_sender, np.int64, "o_sender"),
        (o_kind, np.int8, "o_kind"))]
    _k.run_stem_batch(kind, n, indptr, indices, relays, bool(peers_all), routing,
                      bool(coin_epoch), float(q), float(rate),
                      _check.integer(stem_len, "stem_len", low=0), bool(fixed), *arrs, sources,
                      spies, rng, *outs)


# ----------------------------------------------------------------- the transaction model


def regular_digraph(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Union of ``d`` uniformly random directed Hamiltonian cycles on ``n`` nodes (CSR).

    The authors' ``RegGraphGen``: out- and in-degree ``d`` (an arc drawn twice is kept
    once, as in their ``networkx.DiGraph``, so a few nodes may have out-degree < d). The
    first cycle is ``0 -> 1 -> ... -> n-1 -> 0`` (the model does not depend on labels), each
    further one a uniform reshuffle. The kernel of :func:`draw_anonymity`'s ``CYCLE``.
    """
    n = _nodes(n)
    d = _check.integer(d, "d", low=1, high=max(n - 1, 1))
    return _k.regular_digraph(n, d, rng)


def routing_tables(n: int, indptr, indices, code: int, rng: np.random.Generator):
    """Per-epoch forwarding tables of the transaction model (the authors' rules).

    Returns ``(iptr, iind, table, own)``: the in-neighbour CSR, ``table[e]`` the successor
    a transaction arriving over in-arc ``e`` (position in ``iind``) is sent to, and
    ``own[u]`` the successor of ``u``'s own transaction (-1: no successor, or per-tx
    routing, code 0, which has no tables). per-edge: every in-arc independently uniform;
    all-to-one: one successor per node for everything; one-to-one: each round of ``d``
    in-arcs dealt a uniform bijection onto the ``d`` successors. A transaction may be sent
    back to the node it came from. The same kernel as :func:`draw_anonymity`'s tables,
    without the never-back rule.
    """
    n = _nodes(n)
    indptr, indices = _digraph(n, indptr, indices)
    code = _check.integer(code, "code", low=PER_TRANSACTION, high=ONE_TO_ONE)
    return _k.routing_tables(n, indptr, indices, code, rng)


def stems(n: int, indptr, indices, spy, code: int, q: float, cap: int, escape: bool,
          rng: np.random.Generator, kind: np.ndarray, node: np.ndarray, spy_of: np.ndarray,
          hops: np.ndarray) -> None:
    """Run every honest node's stem; fill the observation arrays (indexed by transaction).

    Transactions are the honest nodes in increasing order. A stem moves from node to
    successor by the routing rule (tables of :func:`routing_tables`, drawn once: one epoch);
    arriving at a spy it stops (``kind 0``, the sender is recorded); arriving at an honest
    node it is fluffed there with probability ``q`` (``kind 1``; the source itself always
    sends its own transaction on); after ``cap`` hops the failsafe fluffs it where it is
    (``kind 1``). A node without successor fluffs at once. With ``escape`` (deterministic
    routings only), a stem back at a node it already left takes a uniformly random *other*
    successor than its table's, the authors' loop rule. ``kind`` is int8, the other outputs
    int64, one entry per honest node. The stem walk of :func:`run_stem_batch`, configured.
    """
    n = _nodes(n)
    indptr, indices = _digraph(n, indptr, indices)
    spy = _mask(spy, n)
    code = _check.integer(code, "code", low=PER_TRANSACTION, high=ONE_TO_ONE)
    cap = _check.integer(cap, "cap", low=1)
    outs = _observation(n, spy, kind, node, spy_of, hops)
    _k.stems(n, indptr, indices, spy, code, float(q), cap, bool(escape), rng, *outs)


def diffusion_first_spy(n: int, indptr, indices, spy, rng: np.random.Generator,
                        kind: np.ndarray, node: np.ndarray, spy_of: np.ndarray,
                        hops: np.ndarray) -> None:
    """Diffusion (each infected node relays to each neighbour after an i.i.d. exponential
    delay) from every honest node until the first spy receives it.

    By memorylessness the next delivery is a uniformly random edge from the infected set to
    an uninfected node; it is drawn by rejection over the edges pushed so far (edges into
    nodes infected meanwhile are rejected), which is exactly uniform over the live ones.
    Records who delivered it to the first spy (``kind 0``); ``kind 2`` if the honest
    component holds no spy. ``hops`` counts the infected honest nodes.
    """
    n = _nodes(n)
    indptr, indices = _digraph(n, indptr, indices)
    spy = _mask(spy, n)
    outs = _observation(n, spy, kind, node, spy_of, hops)
    _k.diffusion_first_spy(n, indptr, indices, spy, rng, *outs)


def precision_recall(n: int, sources, mapping) -> tuple[float, float]:
    """Precision and recall of a mapping (transaction i -> node ``mapping[i]``, -1: none).

    ``recall = (1/h) sum_i 1{M(x_i) = s_i}`` and
    ``precision = (1/h) sum_i 1{M(x_i) = s_i} / |M^{-1}(M(x_i))|`` over the ``h``
    transactions (one per honest node ``s_i``).
    """
    n = _nodes(n)
    sources = _check.index_array(sources, n, "sources")
    mapping = _check.index_array(mapping, n, "mapping", low=-1)
    if mapping.shape != sources.shape:
        raise InvalidParameterError(f"mapping must have one entry per transaction "
                                    f"({sources.shape[0]}); got {mapping.shape[0]}")
    return _k.precision_recall(n, sources, mapping)


def _observation(n: int, spy: np.ndarray, kind, node, spy_of, hops) -> list:
    h = n - int(spy.sum())
    return [_check.out(a, dt, nm, min_len=h) for a, dt, nm in (
        (kind, np.int8, "kind"), (node, np.int64, "node"), (spy_of, np.int64, "spy_of"),
        (hops, np.int64, "hops"))]
