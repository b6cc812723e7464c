"""Source-estimator kernels over a *local* view of the infected subgraph (Python entries).

Compiled ahead of time (:mod:`._scoring`; declarations in ``_scoring.pxd`` for the fused
loop). Every kernel works on the infected nodes renumbered ``0..n-1`` with a CSR
adjacency ``(indptr, indices)`` (the infected subgraph, or the infection tree; int64 /
int32, other integer dtypes are converted) and, where needed, ``gdeg[i]``, the degree of
local node ``i`` in the contact graph. Outputs are written into the arrays passed in.
The same kernels serve the per-snapshot functions of :mod:`adversaries.estimators` and
the Monte Carlo loop of :mod:`adversaries.batch`. All traversals are iterative (explicit
queues), so a path of 10^6 nodes needs no recursion. Rumour centrality is
:mod:`anonspread.engine.rumor`.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _scoring
from anonspread.errors import InvalidParameterError, InvalidTypeError

#: Scores within this relative tolerance of the maximum (in log space) are ties.
TIE_RTOL = 1e-9

#: "Unbounded" for distances and eccentricity bounds.
BIG = 1 << 30

#: :func:`ml_tree` walks the tree once per configuration when at most this many are consistent.
WALK_MAX_CONFIGS = _scoring.WALK_MAX_CONFIGS_PY

assert TIE_RTOL == _scoring.TIE_RTOL_PY and BIG == _scoring.BIG_PY

__all__ = [
    "BIG",
    "TIE_RTOL",
    "WALK_MAX_CONFIGS",
    "bfs",
    "bitparallel_eccentricity",
    "graph_eccentricity",
    "graph_jordan_top",
    "graph_radius",
    "ml_ball",
    "ml_tree",
    "ml_tree_walks",
    "ml_workspace",
    "score_summary",
    "tree_eccentricity",
    "tree_passes",
    "within_radius",
]


def _csr(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    return _check.csr(indptr, indices, indices_dtype=np.int32)


def _n(indptr) -> int:
    return indptr.shape[0] - 1


def _in(a, dtype) -> np.ndarray:
    return np.ascontiguousarray(a, dtype)


class _Out:
    """A kernel's output array of dtype ``dtype`` written into the caller's ``a``: ``a``
    itself when it already is one (a boolean array as its uint8 view), else a copy that
    :meth:`back` writes back."""

    __slots__ = ("a", "buf")

    def __init__(self, a, dtype, n: int = 0, name: str = "output"):
        if not isinstance(a, np.ndarray):
            raise InvalidTypeError(f"{name} must be a numpy array; got {type(a).__name__}")
        if a.ndim != 1 or a.shape[0] < n or not a.flags.writeable or a.dtype.kind not in "iufb":
            raise InvalidParameterError(
                f"{name} must be a writeable 1-d numeric array of at least {n} entries; got a "
                f"{a.dtype} array of shape {a.shape}{'' if a.flags.writeable else ' (read-only)'}")
        self.a = a
        ok = a.flags.c_contiguous and a.flags.writeable
        if ok and a.dtype == dtype:
            self.buf = a
        elif ok and dtype == np.uint8 and a.dtype == np.bool_:
            self.buf = a.view(np.uint8)
        else:
            self.buf = np.ascontiguousarray(a, dtype)

    def back(self) -> None:
        if self.buf is not self.a and self.buf.base is not self.a:
            self.a[...] = self.buf.astype(self.a.dtype, copy=False)


def bfs(indptr, indices, root: int, order, parent, dist) -> int:
    """Breadth-first search from ``root``; returns the number of nodes reached.

    ``order[:k]`` lists the reached nodes (root first), ``parent`` their BFS parent (-1 for
    the root) and ``dist`` their hop count (int32 arrays); ``dist`` must hold -1 for every
    node on entry (unreached nodes keep -1). Neighbours are discovered in CSR order.
    """
    indptr, indices = _csr(indptr, indices)
    n = _n(indptr)
    root = _check.index(root, n, "root")
    outs = [_Out(a, np.int32, n, nm) for a, nm in ((order, "order"), (parent, "parent"),
                                                  (dist, "dist"))]
    if (outs[2].buf[:n] != -1).any():
        raise InvalidParameterError("dist must hold -1 for every node on entry")
    k = _scoring.py_bfs(indptr, indices, root, *(o.buf for o in outs))
    for o in outs:
        o.back()
    return k


def tree_passes(indptr, indices, order, parent, mark, down, up, bdown, bup) -> None:
    """The two passes of tree message passing (leaves -> root, root -> leaves).

    For a tree rooted at ``order[0]`` (``order``, ``parent`` from :func:`bfs`; n is
    ``len(order)``): ``down[v]`` is the height of v's subtree, ``up[v]`` the largest
    distance from v to a node outside its subtree (-1 for the root), ``bdown[v]``/``bup[v]``
    the smallest distance from v to a marked node inside/outside its subtree (``BIG`` if
    none). Then ``ecc(v) = max(down[v], up[v])``.
    """
    indptr, indices = _check.tree(indptr, indices)
    n = _n(indptr)
    order = _check.index_array(order, n, "order", dtype=np.int32)
    parent = _check.index_array(parent, n, "parent", low=-1, dtype=np.int32)
    if order.shape[0] != n or parent.shape[0] != n:
        raise InvalidParameterError(f"order and parent must hold one entry per node ({n})")
    # a BFS order of the tree: every node once, each parent placed before its child
    pos = np.full(n, -1, np.int64)
    pos[order] = np.arange(n)
    if (pos < 0).any() or parent[order[0]] != -1 or (
            n > 1 and (pos[parent[order[1:]]] >= np.arange(1, n)).any()):
        raise InvalidParameterError("order and parent must be a BFS order and its parents "
                                    "(from bfs)")
    mark = _check.floats(mark, "mark", min_len=n)[:n] != 0
    outs = [_Out(a, np.int64, n, nm) for a, nm in ((down, "down"), (up, "up"), (bdown, "bdown"),
                                                  (bup, "bup"))]
    _scoring.py_tree_passes(indptr, indices, order, parent, mark.view(np.uint8),
                            *(o.buf for o in outs))
    for o in outs:
        o.back()


def tree_eccentricity(indptr, indices, out) -> None:
    """Eccentricity of every node of a tree by :func:`tree_passes` (O(n))."""
    indptr, indices = _check.tree(indptr, indices)
    o = _Out(out, np.int64, _n(indptr), "out")
    _scoring.py_tree_eccentricity(indptr, indices, o.buf)
    o.back()


def graph_eccentricity(indptr, indices, out) -> None:
    """Eccentricity of every node of a connected graph, by eccentricity bounding.

    Takes & Kosters' bounding (the algorithm behind networkx's ``usebounds=True``): a BFS
    from u gives, for every w, ``max(d(u,w), ecc(u) - d(u,w)) <= ecc(w) <= ecc(u) +
    d(u,w)``; BFS sources alternate between the unresolved node with the largest upper and
    the smallest lower bound until every bound is tight, or until the last 8 BFS settled
    fewer nodes than a bit-parallel pass would per BFS, when bit-parallel passes (64
    sources each) finish, sources chosen as in :func:`graph_jordan_top`'s phase 2 (the
    nodes farthest from the node of largest degree first, with the reference-node upper
    bound; issue 32). Exact; at worst one BFS per node (O(n m)), 64 to a pass.
    """
    indptr, indices = _check.connected(indptr, indices)
    o = _Out(out, np.int64, _n(indptr), "out")
    _scoring.py_graph_eccentricity(indptr, indices, o.buf)
    o.back()


def score_summary(sc, s: int, rtol: float, top) -> tuple[int, int]:
    """Maximisers and the rank data of node ``s`` from every node's score.

    The rules of :func:`adversaries.scores.top_set` and
    :func:`adversaries.metrics.source_rank`: ``top[v]`` is True iff ``sc[v]`` is within
    ``rtol`` (relative) of the maximum (every node if all are ``-inf``); returns
    ``(greater, tied)``, the numbers of nodes above s and tied with s (s included).
    """
    sc = _check.floats(sc, "sc")
    n = sc.shape[0]
    s = _check.index(s, n, "s")
    o = _Out(top, np.uint8, n, "top")
    r = _scoring.py_score_summary(sc, s, float(rtol), o.buf)
    o.back()
    return r


def bitparallel_eccentricity(indptr, indices, lo, hi, t: int, ehi: int) -> int:
    """Exact eccentricity of every node unsettled in :func:`graph_jordan_top`, 64 at a time.

    The nodes with ``lo < hi`` that are not placed strictly below or above ``t`` and above
    ``ehi`` get ``lo = hi = ecc`` by a bit-parallel BFS (every other ``lo`` may rise to a
    still valid lower bound); returns the number of passes times 64 (BFS equivalents).
    """
    indptr, indices = _check.connected(indptr, indices)
    n = _n(indptr)
    outs = [_Out(a, np.int64, n, nm) for a, nm in ((lo, "lo"), (hi, "hi"))]
    r = _scoring.py_bitparallel_eccentricity(indptr, indices, *(o.buf for o in outs),
                                             _check.integer(t, "t"), _check.integer(ehi, "ehi"))
    for o in outs:
        o.back()
    return r


def graph_jordan_top(indptr, indices, s: int, top) -> tuple[int, int, int, int, int]:
    """Jordan centre and the rank data of node ``s`` without every eccentricity.

    Every node must be placed (a) strictly below, at or strictly above ``t = ecc(s)``
    and (b) out of the minimum (lower bound above the smallest upper bound) or exactly.
    Exact answers: ``top[v]`` is True iff ``ecc(v)`` is the minimum; returns ``(t, emin,
    less, tied, nbfs)`` with ``less = #{v: ecc(v) < t}``, ``tied = #{v: ecc(v) = t}`` (s
    included) and the number of BFS run (a bit-parallel pass counts 64).

    Phase 1, Takes & Kosters' bounding with three kinds of BFS source: the farthest node
    of the previous BFS (its BFS raises the lower bounds of the nodes on the far side,
    which no unplaced node's BFS does), the unplaced node with the largest upper bound
    and the one with the smallest lower bound. The next kind is the one whose last BFS
    placed most nodes; a kind unused for 6 BFS is tried again. Phase 2, once the last 8
    BFS placed fewer nodes than a bit-parallel pass per BFS-equivalent (64 sources over
    about ``max ecc + 1`` levels), or after 16 BFS: bit-parallel passes of 64 sources, each
    followed by the bounds of its 64 sources from two BFS with late-starting sources, until
    every node is placed. The sources (issue 32): first the 64 nodes of largest degree, the
    *references* R, whose distances to every node are kept (64 bytes a node); then, with
    ``D_r`` the largest ``d(r, y)`` over the nodes y not yet a BFS source, every node gets
    the upper bound ``ecc(w) <= max(lo[w], min_{r in R} d(w, r) + D_r)`` (a source y is
    within ``lo[w]`` of w, since its BFS raised ``lo[w]`` to at least ``d(y, w)``; any other
    y is within ``d(w, r) + D_r``: Li, Qiao, Qin et al.'s reference-node bound with 64
    references at once). Each pass takes, of three choices, the one that places most open
    nodes per pass by a count made before it runs: the *periphery* (the 64 non-sources at
    distance ``D_r`` from the most references: making them sources lowers the ``D_r`` of
    many hubs at once), the outer level of one reference (over as many passes as it holds
    64s of nodes), or the 64 unplaced nodes of smallest lower bound (their exact
    eccentricities; at most 64 placed); when only the last would do and more than two of
    them are needed, new references: the 64 nodes with the most unplaced neighbours. A
    reference's eccentricity above 254 (a long path) hands phase 2 to the rule of one
    reference node, farthest first.

    Cost: each pass is a bit-parallel BFS (about ``max ecc`` sweeps of the frontier's arcs)
    plus O(64 n) byte operations for the bounds (64 bytes a node of memory); exact whatever
    the sources. On random-diffusion snapshots of Chung-Lu power-law graphs, 10 single BFS
    and 4-7 passes (300-476 BFS equivalents) from 3x10^4 to 2.35x10^6 infected; measured
    growth exponent 1.8-1.9 over 10^4..10^6 infected, not near-linear (benchmarks/README.md,
    issue 32). At worst one
    BFS per node, O(n m) (a graph whose eccentricities are nearly all equal, e.g. a whole
    random regular graph: every node tied with the source needs its own proof), 64 to a
    pass: certifying every node's eccentricity class has no known near-linear algorithm in
    the worst case.
    """
    indptr, indices = _check.connected(indptr, indices)
    n = _n(indptr)
    s = _check.index(s, n, "s")
    o = _Out(top, np.uint8, n, "top")
    r = _scoring.py_graph_jordan_top(indptr, indices, s, o.buf)
    o.back()
    return r


_JORDAN_RULES = {"lowest": 0, "far-first": 1, "references": 2}


def _jordan_place(indptr, indices, s: int, lo, hi, max_passes: int, trace, *,
                  rule: str = "references", phase1_max: int = 16,
                  hybrid: bool = True) -> tuple[int, int, int]:
    """The two phases of :func:`graph_jordan_top` on bounds ``lo``, ``hi`` (0 and BIG on
    entry), stopping after ``max_passes`` bit-parallel passes (< 0: no limit); ``trace[i]``
    receives the number of nodes unplaced after pass i + 1. Returns ``(ecc(s), BFS
    equivalents, unplaced nodes)`` (benchmarks/bench_cyclic.py). ``rule``: the phase-2
    sources, ``"references"`` (the default, 64 reference nodes), ``"far-first"`` (one
    reference node, the first rule of issue 32) or ``"lowest"`` (the unplaced nodes of
    smallest lower bound only, the rule before issue 32); the tests compare all three.
    ``phase1_max``: the first phase's cap on single BFS with the reference rule (16 in
    :func:`graph_jordan_top`; a benchmark hook, any value gives the same answer).
    ``hybrid``: every BFS direction-optimising (the default, as in :func:`graph_jordan_top`);
    False: every BFS top-down, the kernel of before (the same bounds, BFS count and answer;
    kept for the tests and benchmarks/bench_estimator_growth.py)."""
    if rule not in _JORDAN_RULES:
        raise ValueError(f"rule must be one of {sorted(_JORDAN_RULES)}; got {rule!r}")
    outs = [_Out(a, np.int64) for a in (lo, hi, trace)]
    r = _scoring.py_jordan_place(*_csr(indptr, indices), int(s), *(o.buf for o in outs[:2]),
                                 int(max_passes), outs[2].buf, _JORDAN_RULES[rule],
                                 max(1, int(phase1_max)), bool(hybrid))
    for o in outs:
        o.back()
    return r


def _offset_bfs(indptr, indices, srcs, off, cnt: int, order, dist, *, hybrid: bool = True) -> int:
    """``dist[w] = min_b off[b] + d(srcs[b], w)`` (a BFS whose sources start late; cnt <= 64);
    ``order[:k]`` lists the nodes reached, k returned. ``hybrid``: levels bottom-up where
    cheaper (the same distances and nodes; within a level ``order`` may differ)."""
    if not 0 <= cnt <= 64:
        raise ValueError(f"cnt must be in 0..64; got {cnt}")
    indptr, indices = _csr(indptr, indices)
    n = _n(indptr)
    outs = [_Out(a, np.int32, n, nm) for a, nm in ((order, "order"), (dist, "dist"))]
    rest = np.empty(n + 1, np.int32) if hybrid else None
    k = _scoring.py_offset_bfs(indptr, indices, _in(srcs, np.int64), _in(off, np.int64),
                               int(cnt), *(o.buf for o in outs), rest)
    for o in outs:
        o.back()
    return k


def _bp_pass(indptr, indices, srcs, cnt: int, seen, cur, nxt, active, touched, lo, ecc, *,
             dmat=None, hybrid: bool = True) -> None:
    """Bit-parallel BFS from ``srcs[:cnt]`` (cnt <= 64): ``ecc[b]`` = eccentricity of source b;
    ``lo[w]`` rises to ``max_b d(b, w)``. ``seen``, ``cur``, ``nxt`` zero on entry (restored).
    ``dmat`` (n * 64 uint8): ``dmat[w * 64 + b] = min(d(b, w), 255)``. ``hybrid``: levels
    bottom-up where cheaper (the same outputs)."""
    if not 0 <= cnt <= 64:
        raise ValueError(f"cnt must be in 0..64; got {cnt}")
    indptr, indices = _csr(indptr, indices)
    n = _n(indptr)
    outs = [_Out(a, np.uint64, n, nm) for a, nm in ((seen, "seen"), (cur, "cur"), (nxt, "nxt"))]
    outs += [_Out(a, np.int64, m, nm) for a, m, nm in ((active, n, "active"), (touched, n, "touched"),
                                                       (lo, n, "lo"), (ecc, cnt, "ecc"))]
    if dmat is not None:
        outs.append(_Out(dmat, np.uint8, 64 * n, "dmat"))
    rest = np.empty(n + 1, np.int64) if hybrid else None
    _scoring.py_bp_pass(indptr, indices, _in(srcs, np.int64), int(cnt),
                        *(o.buf for o in outs[:7]), outs[7].buf if dmat is not None else None,
                        rest)
    for o in outs:
        o.back()


def _bp_bounds(indptr, indices, srcs, cnt: int, ecc, lo, hi, order, dist, off) -> None:
    """Takes & Kosters' bounds of ``cnt`` (<= 64) sources of known eccentricity at once."""
    if not 0 <= cnt <= 64:
        raise ValueError(f"cnt must be in 0..64; got {cnt}")
    outs = [_Out(a, np.int64) for a in (lo, hi)] + [_Out(a, np.int32) for a in (order, dist)]
    o_off = _Out(off, np.int64)
    _scoring.py_bp_bounds(*_csr(indptr, indices), _in(srcs, np.int64), int(cnt),
                          _in(ecc, np.int64), *(o.buf for o in outs), o_off.buf)
    for o in [*outs, o_off]:
        o.back()


def within_radius(indptr, indices, T: int) -> np.ndarray:
    """Which nodes of a connected graph have every node within ``T`` hops (``ecc(v) <= T``).

    The Jordan certification's bounds (:func:`graph_jordan_top`: Takes & Kosters' single
    BFS, then bit-parallel passes with 64 reference nodes) with a fixed threshold in place of
    ``ecc(s)`` and the minimum: a node is settled once its upper bound is at most ``T`` or
    its lower bound above it, so the cost is that of the certification, ``O(B m)`` with
    ``B`` BFS-equivalents (issue 32), not a search from every node.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        A connected undirected graph (symmetric CSR), at least one node.
    T : int >= 0

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    A path of five nodes: its middle node is the only one within 2 hops of every node.

    >>> import networkx as nx
    >>> a = nx.to_scipy_sparse_array(nx.path_graph(5), format="csr")
    >>> [within_radius(a.indptr, a.indices, T).tolist() for T in (2, 3)]
    [[False, False, True, False, False], [False, True, True, True, False]]
    """
    indptr, indices = _check.connected(indptr, indices)
    T = _check.integer(T, "T", low=0)
    out = np.zeros(indptr.shape[0] - 1, np.uint8)
    _scoring.py_within_radius(indptr, indices, T, out)
    return out.view(bool)


def graph_radius(indptr, indices) -> int:
    """The minimum eccentricity (Jordan radius) of a connected graph, by :func:`graph_jordan_top`."""
    return _scoring.py_graph_radius(*_check.connected(indptr, indices))


def ml_workspace(n: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of :func:`ml_tree` for trees of up to ``n`` nodes."""
    n = _check.integer(n, "n", low=0)
    return (
        np.empty(n, np.int64),  # tdeg
        np.empty(n, np.uint8),  # mark
        np.empty(n, np.int32),  # order
        np.empty(n, np.int32),  # parent
        np.empty(n, np.int32),  # dist
        np.empty(n, np.int64),  # down
        np.empty(n, np.int64),  # up
        np.empty(n, np.int64),  # bdown
        np.empty(n, np.int64),  # bup
        np.empty(n, np.int32),  # stack
        np.empty(n, np.float64),  # acc
        np.empty(n, np.int32),  # came
        np.empty(n, np.int64),  # depth
    )


def _check_workspace(ws, n: int) -> tuple:
    want = ml_workspace(0)
    if not isinstance(ws, (tuple, list)) or len(ws) != len(want):
        raise InvalidParameterError(f"ws must be the {len(want)} arrays of ml_workspace(n)")
    return tuple(_check.out(a, b.dtype, f"ws[{i}]", min_len=n)
                 for i, (a, b) in enumerate(zip(ws, want)))


def ml_tree(indptr, indices, gdeg, check_boundary: bool, r_node: int, logB_alive, logB_dead,
            r_edge: int, logB_move, out, ws) -> int:
    """Log-likelihood of adaptive diffusion for every node of an infected tree.

    Sums Eq. (2.17) over every final configuration consistent with the snapshot:
    a *node* configuration (the infected set is the ball of radius ``r_node`` around
    the final virtual source c: even T, or odd T after a keep) and an *edge*
    configuration (odd T after a pass: every node within ``r_edge`` of the edge
    {a, b} the token just crossed). ``r_node``/``r_edge`` < 0 disable a kind.
    ``logB_*[D]`` is the log of part B of Eq. (2.17) for a candidate at distance D
    from the configuration's root (``logB_dead``: the root has no child to pass the
    token to, so it keeps it with probability 1). With ``check_boundary`` a
    configuration also needs every infected node that has uninfected contacts
    (``gdeg > tdeg``) at distance >= r from the centre (the ball is complete);
    without it (near-ML on the infection tree of a graph with cycles) only the
    eccentricity condition is used. ``ws``: scratch arrays from :func:`ml_workspace` for
    at least n nodes (a Monte Carlo loop passes the same ones to every call).
    Returns the number of configurations found.
    """
    return _ml_tree(_scoring.py_ml_tree, indptr, indices, gdeg, check_boundary, r_node, logB_alive,
                    logB_dead, r_edge, logB_move, out, ws)


def ml_tree_walks(indptr, indices, gdeg, check_boundary: bool, r_node: int, logB_alive,
                  logB_dead, r_edge: int, logB_move, out, ws) -> int:
    """:func:`ml_tree` by one walk of the tree per consistent configuration.

    The implementation before issue 32, kept as the reference the tests compare
    :func:`ml_tree` with: O(n) per configuration, O(n^2) once most infected nodes are
    consistent centres (a stalled spread on a graph with cycles at a large T). Same
    arguments, scores (to rounding; bit for bit with one configuration) and return value.
    """
    return _ml_tree(_scoring.py_ml_tree_walks, indptr, indices, gdeg, check_boundary, r_node,
                    logB_alive, logB_dead, r_edge, logB_move, out, ws)


def _ml_tree(kernel, indptr, indices, gdeg, check_boundary, r_node, logB_alive, logB_dead,
             r_edge, logB_move, out, ws) -> int:
    indptr, indices = _check.tree(indptr, indices)
    n = _n(indptr)
    ws = _check_workspace(ws, n)
    gdeg = _check.index_array(gdeg, 2**62, "gdeg", min_len=n)
    o = _Out(out, np.float64, n, "out")
    found = kernel(
        indptr, indices, gdeg, bool(check_boundary), _check.integer(r_node, "r_node"),
        _check.floats(logB_alive, "logB_alive"), _check.floats(logB_dead, "logB_dead"),
        _check.integer(r_edge, "r_edge"), _check.floats(logB_move, "logB_move"), o.buf, *ws,
    )
    if found == -2:
        raise MemoryError(f"the ML's message buffers for a tree of {indptr.shape[0] - 1} nodes "
                          "could not be allocated")
    o.back()
    return found


def ml_ball(par, gdeg, c: int, logB, logk, out, acc, dist) -> None:
    """:func:`ml_tree`'s scores when the snapshot is a complete ball around a known centre.

    For adaptive diffusion at even T on an infinite tree whose nodes all have degree
    >= 2, the infected set is the ball of radius T/2 around the final virtual source
    ``c``, and it is the only consistent configuration: a node c' != c is at distance
    T/2 + d(c, c') > T/2 from the nodes at depth T/2 of a branch of c away from c'
    (every node has a child, so such nodes exist). :func:`ml_tree` then finds c by a
    BFS and two message passes and makes one accumulation from it; this makes the same
    accumulation from ``c`` directly, over the infection-tree parents ``par`` (local ids
    in infection order, -1 for the source) instead of an adjacency: a node's path to c
    leaves through its parent unless the node lies on the path from the source to c, the
    parent chain of c, whose nodes are done first. Inside the ball every node's contact
    degree is its tree degree, so the terms are those of :func:`ml_tree`
    (``logk[k] = math.log(k)``, k up to the largest degree), summed in the same order
    from c outwards: the same floating-point scores, bit for bit.

    ``out``, ``acc``, ``dist``: n floats, n floats, n integers (overwritten). ``c`` must
    not be the source (T >= 2).
    """
    par = _check.index_array(par, 2**62, "par", low=-1)
    n = par.shape[0]
    # infection-tree parents: the source first (-1), every other node's parent before it
    if n == 0 or par[0] != -1 or (par[1:] >= np.arange(1, n)).any() or (par[1:] < 0).any():
        raise InvalidParameterError("par must hold infection-tree parents in infection order "
                                    "(-1 for the source, first; each parent before its child)")
    c = _check.index(c, n, "c", low=1)
    logk = _check.floats(logk, "logk")
    gdeg = _check.index_array(gdeg, logk.shape[0], "gdeg", low=1, min_len=n)
    outs = [_Out(out, np.float64, n, "out"), _Out(acc, np.float64, n, "acc"),
            _Out(dist, np.int64, n, "dist")]
    _scoring.py_ml_ball(par, gdeg, c, _check.floats(logB, "logB"), logk,
                        *(o.buf for o in outs))
    for o in outs:
        o.back()
