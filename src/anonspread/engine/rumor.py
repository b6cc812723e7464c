"""Rumour centrality (Shah & Zaman 2011): every score on a tree, the exact maximisers and
rank data on a graph with cycles, and the pieces of that scan.

Compiled ahead of time (:mod:`._rumor`, declarations in ``_rumor.pxd`` for other kernels).
Every function works on the infected nodes renumbered ``0..n-1`` with a CSR adjacency
``(indptr, indices)`` (int64 / int32; other integer dtypes are converted); outputs are
written into the arrays passed in. The threaded scan of large 2-cores is
:func:`anonspread.engine.rumor_threads.rumor_top`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _rumor
from anonspread.errors import InvalidParameterError

__all__ = [
    "RumorPlan",
    "cut_rumor_bound",
    "graph_rumor",
    "graph_rumor_top",
    "rumor_at",
    "rumor_plan",
    "tree_rumor",
    "two_core",
]


def _csr(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # the scan's pieces (private by name) take what the checked entry points pass on
    return np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(indices, np.int32)


def _connected(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    return _check.connected(indptr, indices)


def _bool_out(top: np.ndarray, n: int, name: str) -> np.ndarray:
    return _check.out(top, np.bool_, name, shape=(n,))


def _f64_out(out, indptr: np.ndarray, name: str = "out") -> np.ndarray:
    return _check.out(out, np.float64, name, min_len=indptr.shape[0] - 1)


def tree_rumor(indptr, indices, out: np.ndarray) -> None:
    """Log rumour centrality of every node of a tree, into ``out``.

    ``R(v) = n! / prod_u T_u^v`` with ``T_u^v`` the size of u's subtree when the tree is
    rooted at v (Shah & Zaman 2011, Eq. 20); ``log R`` at the root by one upward pass,
    then ``log R(c) = log R(p) + log T_c - log(n - T_c)`` downwards.
    """
    indptr, indices = _check.tree(indptr, indices)
    _rumor.py_tree_rumor(indptr, indices, _f64_out(out, indptr))


def rumor_at(indptr, indices, v: int, lg: float, order, parent, dist, size) -> float:
    """Log rumour centrality of v over the BFS tree of the graph rooted at v.

    ``lg`` is ``log n!``; ``order``, ``parent``, ``dist`` are int32 and ``size`` int64
    scratch of length n; ``dist`` must hold -1 and ``size`` 1 for every node on entry
    (both are restored). BFS children are discovered in CSR order.
    """
    indptr, indices = _connected(indptr, indices)
    n = indptr.shape[0] - 1
    v = _check.index(v, n, "v")
    order = _check.out(order, np.int32, "order", min_len=n)
    parent = _check.out(parent, np.int32, "parent", min_len=n)
    dist = _check.out(dist, np.int32, "dist", min_len=n)
    size = _check.out(size, np.int64, "size", min_len=n)
    if (dist[:n] != -1).any() or (size[:n] != 1).any():
        raise InvalidParameterError("dist must hold -1 and size 1 for every node on entry")
    return _rumor.py_rumor_at(indptr, indices, v, float(lg), order, parent, dist, size)


def graph_rumor(indptr, indices, out: np.ndarray) -> None:
    """Log rumour centrality on a graph, over the BFS tree rooted at each candidate."""
    indptr, indices = _connected(indptr, indices)
    _rumor.py_graph_rumor(indptr, indices, _f64_out(out, indptr))


def cut_rumor_bound(indptr, indices, out: np.ndarray) -> None:
    """Upper bound on the BFS-tree log rumour centrality of every node of a connected graph.

    In any spanning tree rooted at v, the subtree of a node u holds u and every component
    of ``G - u`` that does not contain v, so ``T_u^v >= 1 + sep_v(u)`` and
    ``log R(v) <= log n! - log n - sum_{u != v} log(1 + sep_v(u))``; only cut vertices
    contribute (one iterative DFS with Tarjan's low points and a difference array over
    DFS pre-order intervals, O(n + m)). On a tree the bound is the exact score.
    """
    indptr, indices = _connected(indptr, indices)
    _rumor.py_cut_rumor_bound(indptr, indices, _f64_out(out, indptr))


def two_core(indptr, indices):
    """The 2-core of a connected graph and the trees hanging from it.

    Returns ``(core, att, psize, weight, const)``: ``core[v]`` True for 2-core nodes; for
    the others ``att[v]`` is the core node their pendant tree hangs from and ``psize[v]``
    the size of their subtree in it; ``weight[a] = 1 +`` the number of pendant nodes
    hanging from core node a; ``const = sum over pendant nodes of log psize``. An empty
    core means a tree.
    """
    return _rumor.py_two_core(*_connected(indptr, indices))


def _core_csr(indptr, indices, core, weight, start: int):
    """The 2-core as its own CSR, renumbered in BFS order from core node ``start``.

    Returns ``(cid, cptr, cind, cw, cwe)``: the new id of each node (-1 off the core),
    the CSR (neighbours in the order of ``indices``), each core node's weight and
    ``cwe[j] = cw[cind[j]]``.
    """
    return _rumor.py_core_csr(*_csr(indptr, indices), core,
                              np.ascontiguousarray(weight, np.int64), start)


def _core_flat(cptr, cind, cwe):
    """The core CSR as the evaluation reads it: ``(fptr, find, fwe)``, unsigned (uint64 /
    uint32), padded to the maximum degree D with a dummy node ``nc`` when that at most
    doubles the entries. Same neighbours in the same order, so the same BFS trees."""
    return _rumor.py_core_flat(np.ascontiguousarray(cptr, np.int64),
                               np.ascontiguousarray(cind, np.int32),
                               np.ascontiguousarray(cwe, np.float64))


def _core_log_sizes(fptr, find, fwe, cw, root: int, stamp: int, seen, qpk, spos) -> float:
    """``sum over core nodes u of log T_u`` (weighted subtree sizes of the BFS tree of the
    core rooted at ``root``) by the branchless scan, for sparse cores. ``seen`` (int32,
    ``nc + 1``), ``qpk`` (uint64) and ``spos`` (float64) of length ``nc + D + 1`` are work
    arrays; ``stamp`` must be new for ``seen`` on every call. This scan takes each node's
    weight from ``cw`` when it leaves the queue and does not read ``fwe`` (the dense scan
    does). :func:`graph_rumor_top` scans an unpadded sparse core in a third layout, each
    row padded to a multiple of 4 entries (same trees, same sums)."""
    return _rumor.py_core_log_sizes(fptr, find, fwe, cw, root, stamp, seen, qpk, spos, False)


def _core_log_sizes_dense(fptr, find, fwe, cw, root: int, stamp: int, seen, qpk, spos) -> float:
    """:func:`_core_log_sizes` for dense cores (mean degree >= 7): enqueues only new nodes."""
    return _rumor.py_core_log_sizes(fptr, find, fwe, cw, root, stamp, seen, qpk, spos, True)


def _rumor_scan_state(n: int):
    """The scan's state for :func:`_rumor_advance` over ``n`` nodes: ``(exact, cand, val,
    ist, fst)``."""
    fst = np.zeros(3, np.float64)
    fst[0] = -np.inf
    return (np.full(n, np.nan), np.empty(n, np.int64), np.empty(n, np.float64),
            np.array([-1, 0], np.int64), fst)


def _rumor_setup(indptr, indices, s: int):
    """What :func:`graph_rumor_top` needs before its first exact score.

    ``(ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse)``: the
    cut-vertex bound, the 2-core and its pendant trees, the core's CSR renumbered in BFS
    order from s's core node and its flat form, the nodes in decreasing order of their
    bound (ties in the order of numba's quicksort, as before the port) and whether the
    core is sparse (mean degree below 7).
    """
    indptr, indices = _csr(indptr, indices)
    n = indptr.shape[0] - 1
    ub = np.empty(n, np.float64)
    _rumor.py_cut_rumor_bound(indptr, indices, ub)
    core, att, psize, weight, const = _rumor.py_two_core(indptr, indices)
    a0 = s if core[s] else att[s]
    if a0 < 0:
        a0 = s
    cid, cptr, cind, cw, cwe = _rumor.py_core_csr(indptr, indices, core, weight, a0)
    nc = cw.shape[0]
    sparse = cind.shape[0] < 7 * nc
    fptr, find, fwe = _rumor.py_core_flat(cptr, cind, cwe)
    byub = _rumor.py_argsort(-ub)
    return ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse


def _core_workspace(fptr, rows: int):
    """Work arrays ``(seen, qpk, spos)`` for ``rows`` concurrent core evaluations."""
    nc = fptr.shape[0] - 1
    maxd = int(np.max(np.diff(fptr.astype(np.int64)))) if nc else 0
    return (np.zeros((rows, nc + 1), np.int32), np.empty((rows, nc + maxd + 1), np.uint64),
            np.empty((rows, nc + maxd + 1), np.float64))


def _core_eval(fptr, find, fwe, cw, sparse: bool, c: int, stamp: int, ws, row: int) -> float:
    """``sum log T_u`` over the weighted core BFS tree rooted at core node ``c``, with work
    row ``row`` of ``ws`` (:func:`_core_workspace`)."""
    seen, qpk, spos = ws
    return _rumor.py_core_log_sizes(fptr, find, fwe, cw, c, stamp, seen[row], qpk[row],
                                    spos[row], not sparse)


def _rumor_stop_level(best: float, s0: float, tol0: float, rtol: float) -> float:
    """Below this score a node is no maximiser and neither ties with nor beats the source."""
    return _rumor.py_rumor_stop_level(best, s0, tol0, rtol)


def _rumor_advance(s, rtol, lg, ub, core, att, byub, exact, cand, val, ist, fst) -> int:
    """Take the nodes of the scan's order (s, then decreasing bound) whose exact score is
    known, until one needs a core node's evaluation (returned) or the bound stops the
    scan (-1); the state is :func:`_rumor_scan_state`'s."""
    return _rumor.py_rumor_advance(s, rtol, lg, ub, core, att, byub, exact, cand, val, ist, fst)


def _rumor_finish(s, rtol, core, att, cand, val, ist, fst, top):
    """``top`` and ``(best, s0, greater, tied, evaluations used)`` from the taken nodes."""
    return _rumor.py_rumor_finish(s, rtol, core, att, cand, val, ist, fst, top)


def _graph_rumor_top_down(indptr, indices, s: int, rtol: float, top: np.ndarray):
    """:func:`graph_rumor_top` with every level of every core BFS found top-down (the scan
    of before issue 32; tests and ``benchmarks/bench_estimator_growth.py``)."""
    indptr, indices = _connected(indptr, indices)
    n = indptr.shape[0] - 1
    s = _check.index(s, n, "s")
    return _rumor.py_graph_rumor_top(indptr, indices, s, float(rtol),
                                     _bool_out(top, n, "top"), False)


def graph_rumor_top(indptr, indices, s: int, rtol: float, top: np.ndarray):
    """Rumour-centrality maximisers and the rank data of node ``s``, exactly.

    Every node gets the sound upper bound of :func:`cut_rumor_bound`; exact scores are
    computed for ``s`` and then for the other nodes in decreasing order of their bound,
    until the next bound is below both the tie threshold of the best exact score and
    ``s``'s score minus its tie tolerance (``rtol`` relative): no node left can be a
    maximiser, tie with s or beat s. An exact score costs one BFS of the 2-core (the
    pendant trees weigh their core node); a pendant node v differs from its core node a
    by rerooting over bridges, so ``score(v) = ub(v) - (ub(a) - score(a))``.

    Cost. Worst case one BFS of the 2-core per core node, O(n_c (n_c + m_c)): inside a
    2-connected core every node has the same cut-vertex bound, so nothing is excluded (on
    the dense random-diffusion snapshots of ``benchmarks/bench_estimator_growth.py`` every
    core node is evaluated: 8,326 of 8,326 at 10^4 infected). Dense cores (mean degree 7
    or more) are scanned by a direction-optimising BFS that builds the same queue as the
    top-down scan (bit-identical scores; 1.1-1.5x less CPU there), still O(n_c + m_c) per
    evaluation. Bounds that would prune, examined for issue 32 and not built, because
    measured they exclude nothing on those snapshots: in the BFS tree rooted at v,
    ``sum_u T_u = n + D(v)`` (D the distance sum; each node counts once per ancestor), and
    ``log T`` is concave with ``T_v = n`` and ``1 <= T_u <= n - 1``, so the sum of
    ``log T_u`` is at least its value at a vertex of that set (q sizes at n - 1, one
    remainder, the rest 1): ``log R(v) <= log n! - log n - q log(n - 1) - log(1 + rem)``
    with ``q = floor((D - n + 1) / (n - 2))``, decreasing in D; Jensen gives
    ``log R(v) >= log n! - log n - (n - 1) log(D / (n - 1))``. At 10^4 infected D(v) is
    2.1-4.9x10^4, so q <= 3: the upper bound lies 1,583-1,832 above the exact scores and
    the lower one 5,920-14,197 below, while the scores lie 0-270 (median 89) below the
    best, the source 12 below it): the sum of ``log T_u`` (about 1,700) is spread over
    thousands of internal nodes, and the distance sum fixes only the total size, not how
    it is spread. An evaluation abandoned once a partial BFS proves the node below the
    stop level (partial subtree sizes plus the cheapest path for the unreached rest) would
    stop only after 81-99.9% of the adjacency entries (40 roots). So the scan stays
    quadratic on dense snapshots (``docs/adversaries.md``).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR adjacency of a connected graph on ``n`` nodes.
    s : int
        The node whose rank data is returned (usually the true source).
    rtol : float
        Relative tie tolerance (``TIE_RTOL`` of :mod:`anonspread.adversaries.scores`).
    top : numpy.ndarray
        Boolean array of length n; ``top[v]`` is set True iff v is a maximiser.

    Returns
    -------
    tuple
        ``(best, s0, greater, tied, n_core_bfs)``: the best score, s's score, the numbers
        of nodes above and tied with s (s included), the exact core evaluations used.

    Examples
    --------
    >>> import numpy as np
    >>> indptr = np.array([0, 2, 4, 6]); indices = np.array([1, 2, 0, 2, 0, 1])
    >>> top = np.zeros(3, bool)
    >>> best, s0, greater, tied, used = graph_rumor_top(indptr, indices, 0, 1e-9, top)
    >>> top.tolist(), greater, tied, round(float(np.exp(s0)), 9)
    ([True, True, True], 0, 3, 2.0)
    """
    indptr, indices = _connected(indptr, indices)
    n = indptr.shape[0] - 1
    s = _check.index(s, n, "s")
    return _rumor.py_graph_rumor_top(indptr, indices, s, float(rtol),
                                     _bool_out(top, n, "top"))


class RumorPlan(NamedTuple):
    """What :func:`graph_rumor_top` from one node will do, known before it runs
    (:func:`rumor_plan`)."""

    #: Exact evaluations of core nodes the scan will compute, each one BFS of the 2-core:
    #: its ``n_core_bfs``, exactly.
    evaluations: int
    #: Nodes of the 2-core (0: a tree).
    core_nodes: int
    #: Arcs (twice the edges) between 2-core nodes.
    core_arcs: int
    #: The node's exact log rumour centrality.
    source_score: float
    #: CPU seconds of one evaluation (the mean of a few timed); 0.0 when none was timed.
    seconds_per_evaluation: float
    #: CPU seconds of the plan's setup (the scan's own: bounds, 2-core, its layout) and of
    #: the source's evaluation: what the scan spends besides its evaluations.
    setup_seconds: float = 0.0

    @property
    def work(self) -> float:
        """Node visits of the scan's evaluations: ``evaluations x (core_nodes + core_arcs)``
        (each BFS of the core reads every core node and arc once)."""
        return float(self.evaluations) * (self.core_nodes + self.core_arcs)

    @property
    def cpu_seconds(self) -> float:
        """``setup_seconds + evaluations x seconds_per_evaluation``: the scan's CPU time
        (0.0 where no evaluation was timed)."""
        if self.evaluations and not self.seconds_per_evaluation:
            return 0.0
        return self.setup_seconds + self.evaluations * self.seconds_per_evaluation


def rumor_plan(indptr, indices, s: int, rtol: float, *, timed: int = 8,
               min_seconds: float = 0.0) -> RumorPlan:
    """How many exact evaluations :func:`graph_rumor_top` from ``s`` will compute, and what
    one costs, from the scan's own setup and one evaluation (``s``'s), before the scan runs.

    The scan stops at the first node (in decreasing order of the cut-vertex bound) whose
    bound is below its stop level, and that level is ``s0 - rtol max(1, |s0|)`` from its
    first step on (the level is the smaller of that and the best score's own threshold,
    which is never below it since the best score is at least ``s0``). So the core nodes it
    evaluates are ``s``'s and those of the nodes whose bound reaches the level: the plan's
    ``evaluations`` equals the scan's ``n_core_bfs`` (tested), at the cost of the setup and
    one BFS of the core. ``seconds_per_evaluation`` is the mean CPU time of evaluations
    of core nodes the scan will evaluate, spread evenly over its order (the first
    evaluations, hubs near the source, are the cheapest: a BFS from a central root has the
    fewest levels): ``timed`` of them, more until they take ``min_seconds`` (at most
    1,000, and never more than the scan's).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR adjacency of a connected graph on ``n`` nodes.
    s : int
        The node whose rank data the scan will return.
    rtol : float
        Relative tie tolerance, as the scan's.
    timed : int >= 0
        Evaluations timed at least (0 times none unless ``min_seconds`` asks).
    min_seconds : float >= 0
        CPU seconds the timed evaluations should take together.

    Returns
    -------
    RumorPlan

    Examples
    --------
    >>> import numpy as np
    >>> indptr = np.array([0, 2, 4, 6]); indices = np.array([1, 2, 0, 2, 0, 1])
    >>> plan = rumor_plan(indptr, indices, 0, 1e-9)
    >>> plan.evaluations, plan.core_nodes, plan.core_arcs, round(float(np.exp(plan.source_score)), 9)
    (3, 3, 6, 2.0)
    """
    indptr, indices = _connected(indptr, indices)
    n = indptr.shape[0] - 1
    s = _check.index(s, n, "s")
    timed = _check.integer(timed, "timed", low=0)
    min_seconds = float(min_seconds)
    if not min_seconds >= 0.0 or min_seconds == float("inf"):
        raise InvalidParameterError(f"min_seconds must be a finite number >= 0; got {min_seconds!r}")
    nev, nc, arcs, s0, secs, _, setup = _rumor.py_rumor_plan(indptr, indices, s, float(rtol),
                                                             min_seconds, timed)
    return RumorPlan(int(nev), int(nc), int(arcs), float(s0), float(secs), float(setup))
