"""The scoring phase of the fused Monte Carlo loop (see :mod:`anonspread.engine.fused`).

The simulation phase (``anonspread.engine.spreading.simulate_chunk``) runs a chunk of
trials and copies each snapshot into flat buffers; :func:`score_chunk` scores them with
every estimator asked for, calling the estimator kernels of ``_scoring``, ``_rumor`` and
``_literature`` as C. Scoring draws nothing from the random stream, so chunking leaves
every result unchanged.
"""

import math

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t

from anonspread.engine._literature cimport (
    DENSE_MAX,
    binomial_tail_tables,
    lisn_graph,
    lisn_regular_tree,
    netsleuth_vector,
)
from anonspread.engine._rumor cimport RumorTop, graph_rumor_top, tree_rumor
from anonspread.engine._scoring cimport (
    TIE_RTOL,
    JordanTop,
    Summary,
    graph_jordan_top,
    graph_radius,
    ml_ball,
    ml_tree,
    score_summary,
    tree_eccentricity_ws,
)

from anonspread.errors import InvalidParameterError, InvalidTypeError

#: Estimator codes of :func:`score_chunk`.
ML, JORDAN, RUMOR, NETSLEUTH, LISN = 0, 1, 2, 3, 4


cdef struct Options:
    # the scoring options of one simulate_and_score call (checked by _options)
    int64_t T             # steps of every trial
    bint lazy             # snapshots of a lazily grown infinite tree (no contact-graph CSR)
    bint tree_graph       # the contact graph is a forest: infected subgraph = infection tree
    bint centre_known     # ML from the buffered final virtual source (complete balls)
    int64_t r_node        # ML configuration radii (< 0: kind disabled)
    int64_t r_edge
    double lisn_rate      # LISN's per-step rate (NaN: the plug-in Jordan radius / T)


cdef void local_tree_c(const int64_t[::1] par, int64_t n, int64_t[::1] cnt, int64_t[::1] fill,
                       int32_t[::1] indices) noexcept nogil:
    """Infection tree over local ids (CSR) from the parents (a parent precedes its children),
    into ``cnt[:n + 1]`` (indptr) and ``indices[:cnt[n]]``; ``fill`` is scratch (n)."""
    cdef int64_t i, q
    for i in range(n + 1):
        cnt[i] = 0
    for i in range(n):
        if par[i] >= 0:
            cnt[i + 1] += 1
            cnt[par[i] + 1] += 1
    for i in range(n):
        cnt[i + 1] += cnt[i]
    for i in range(n):
        fill[i] = cnt[i]
    for i in range(n):
        q = par[i]
        if q >= 0:
            indices[fill[i]] = <int32_t> q
            fill[i] += 1
            indices[fill[q]] = <int32_t> i
            fill[q] += 1


cdef int64_t _local_subgraph(const int64_t[::1] gptr, const int32_t[::1] gind,
                             const int32_t[::1] order, int64_t n, const int64_t[::1] loc,
                             int64_t[::1] indptr, int32_t[::1] indices) noexcept nogil:
    """Induced subgraph of the infected nodes over local ids (CSR, finite graphs), into
    ``indptr[:n + 1]`` and ``indices``; returns its number of entries, or -(that number) - 1
    without writing ``indices`` if it does not fit."""
    cdef int64_t i, j, c, k = 0, w
    cdef int32_t v
    indptr[0] = 0
    for i in range(n):
        v = order[i]
        c = 0
        for j in range(gptr[v], gptr[v + 1]):
            if loc[gind[j]] >= 0:
                c += 1
        indptr[i + 1] = indptr[i] + c
    if indptr[n] > indices.shape[0]:
        return -indptr[n] - 1
    for i in range(n):
        v = order[i]
        for j in range(gptr[v], gptr[v + 1]):
            w = loc[gind[j]]
            if w >= 0:
                indices[k] = <int32_t> w
                k += 1
    return k


cdef int64_t _graph_hops(const int64_t[::1] gptr, const int32_t[::1] gind, int64_t a, int64_t b,
                         int64_t[::1] seen, int32_t[::1] queue, int32_t[::1] dist,
                         int64_t stamp) noexcept nogil:
    """Hop distance from node a to node b in a finite contact graph (BFS, early exit)."""
    cdef int64_t head = 0, tail = 1, j
    cdef int32_t x, w
    if a == b:
        return 0
    seen[a] = stamp
    dist[a] = 0
    queue[0] = <int32_t> a
    while head < tail:
        x = queue[head]
        head += 1
        for j in range(gptr[x], gptr[x + 1]):
            w = gind[j]
            if seen[w] != stamp:
                seen[w] = stamp
                dist[w] = dist[x] + 1
                if w == b:
                    return dist[w]
                queue[tail] = w
                tail += 1
    return -1


cdef Options _options(T, lazy, tree_graph, centre_known, r_node, r_edge, lisn_rate) except *:
    cdef Options o
    for name, value in (("lazy", lazy), ("tree_graph", tree_graph),
                        ("centre_known", centre_known)):
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidTypeError(f"{name} must be True or False; got {value!r}")
    for name, value in (("T", T), ("r_node", r_node), ("r_edge", r_edge)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            raise InvalidTypeError(f"{name} must be an integer; got {value!r}")
    if T < 0:
        raise InvalidParameterError(f"T must be >= 0; got {T!r}")
    lisn_rate = float(lisn_rate)
    if lisn_rate == lisn_rate and not 0.0 <= lisn_rate:
        raise InvalidParameterError(f"lisn_rate must be >= 0 or NaN (plug-in); got {lisn_rate!r}")
    o.T = T
    o.lazy = lazy
    o.tree_graph = tree_graph
    o.centre_known = centre_known
    o.r_node = r_node
    o.r_edge = r_edge
    o.lisn_rate = lisn_rate
    return o


cdef int _check_rows(str name, Py_ssize_t rows, Py_ssize_t cols, int64_t ncodes,
                     int64_t i1) except -1:
    if rows != ncodes or cols < i1:
        raise InvalidParameterError(f"{name} must have shape (len(codes), trials) = ({ncodes}, "
                                    f">= {i1}); got ({rows}, {cols})")
    return 0


def local_tree(const int64_t[::1] par, int64_t n, int64_t[::1] cnt, int64_t[::1] fill,
               int32_t[::1] indices):
    """The infection tree's CSR over local ids from the parents ``par[:n]``, written into
    ``cnt`` (n + 1), ``fill`` (n, scratch) and ``indices`` (2n); returns views of them."""
    local_tree_c(par, n, cnt, fill, indices)
    return np.asarray(cnt[:n + 1]), np.asarray(indices[:cnt[n]])


def score_chunk(int64_t i0, int64_t i1, const int64_t[::1] noff, const int64_t[::1] n_out,
                const int64_t[::1] b_vs, const int32_t[::1] b_order, const int64_t[::1] b_par,
                const int64_t[::1] b_gdeg, const int64_t[::1] gptr, const int32_t[::1] gind,
                const int64_t[::1] codes, const double[:, ::1] tie_u, int64_t[::1] seen,
                int8_t[:, ::1] detected, double[:, ::1] pdet, int64_t[:, ::1] hops,
                int64_t[:, ::1] tree_hops, double[:, ::1] rank, *, T, lazy, tree_graph,
                centre_known, r_node=-1, alive=None, dead=None, r_edge=-1, move=None,
                lisn_rate=math.nan):
    """Score trials ``[i0, i1)`` from the snapshots the simulation phase buffered.

    Trial i's snapshot is ``[noff[i], noff[i + 1])`` of the buffers (``noff`` relative to
    the chunk, ``noff[i0] = 0``): ``b_order`` the infected nodes in infection order,
    ``b_par`` their infection-tree parents as local ids (-1 for the source), ``b_gdeg``
    their contact degrees; ``b_vs[i]`` the local id of the final virtual source (-1 if
    none). Row e of the outputs receives estimator ``codes[e]`` (ML 0, Jordan 1, rumour 2,
    NETSLEUTH 3, LISN 4): whether the estimate (ties broken by ``tie_u[e, i]``) is the
    source, the detection probability, the estimate's hops to the source in the contact
    graph and in the infection tree, and the source's rank. ``gptr``, ``gind``: the contact
    graph's CSR (finite graphs); ``seen``: the BFS stamps of the hop counts, kept across
    chunks.

    Options (keyword only, checked): ``T``, ``lazy``, ``tree_graph``, ``centre_known``;
    ML's tables ``r_node``, ``alive``, ``dead``, ``r_edge``, ``move``
    (:func:`adversaries._tables.ad_tables`); LISN's ``lisn_rate`` (NaN: plug-in).
    """
    cdef Options opt = _options(T, lazy, tree_graph, centre_known, r_node, r_edge, lisn_rate)
    cdef int64_t ncodes = codes.shape[0]
    cdef int64_t e, i, k, n, off, code, cap = 1, nt, target, est, c, depth, x, centre, m, ng
    cdef int64_t dmax
    cdef bint need_csr = False, need_ml = False, sub_tree
    cdef double rate
    cdef Summary sm
    cdef JordanTop jt
    cdef RumorTop rt
    cdef const double[::1] a_alive, a_dead, a_move
    for e in range(ncodes):
        if not 0 <= codes[e] <= 4:
            raise InvalidParameterError(
                f"codes must hold estimator codes 0..4 (ml, jordan, rumor, netsleuth, lisn); "
                f"got {codes[e]}")
        if codes[e] != ML or not opt.centre_known:
            need_csr = True
        if codes[e] == ML:
            need_ml = True
    if i0 < 0 or i1 < i0 or i1 > n_out.shape[0] or i1 > noff.shape[0] - 1 or i1 > b_vs.shape[0]:
        raise InvalidParameterError(f"trials [i0, i1) = [{i0}, {i1}) outside the buffers")
    _check_rows("detected", detected.shape[0], detected.shape[1], ncodes, i1)
    _check_rows("pdet", pdet.shape[0], pdet.shape[1], ncodes, i1)
    _check_rows("hops", hops.shape[0], hops.shape[1], ncodes, i1)
    _check_rows("tree_hops", tree_hops.shape[0], tree_hops.shape[1], ncodes, i1)
    _check_rows("rank", rank.shape[0], rank.shape[1], ncodes, i1)
    _check_rows("tie_u", tie_u.shape[0], tie_u.shape[1], ncodes, i1)
    if need_ml:
        if alive is None or dead is None or move is None:
            raise InvalidParameterError("ML (code 0) needs its tables alive, dead and move")
    a_alive = np.ascontiguousarray(alive if alive is not None else np.zeros(1), np.float64)
    a_dead = np.ascontiguousarray(dead if dead is not None else np.zeros(1), np.float64)
    a_move = np.ascontiguousarray(move if move is not None else np.zeros(1), np.float64)
    if i1 == i0:
        return
    ng = 0 if opt.lazy else gptr.shape[0] - 1
    if not opt.lazy and seen.shape[0] < ng:
        raise InvalidParameterError(f"seen must have one entry per graph node ({ng}); "
                                    f"got {seen.shape[0]}")
    cdef int64_t[::1] loc = np.full(ng, -1, np.int64)
    cdef int32_t[::1] queue = np.empty(ng, np.int32)
    cdef int32_t[::1] gdist = np.empty(ng, np.int32)
    # per-trial buffers for the chunk's largest trial: nothing is allocated per trial
    for i in range(i0, i1):
        if n_out[i] > cap:
            cap = n_out[i]
    # one block per dtype, cut into the per-trial buffers and ml_tree's scratch
    # (tree_eccentricity_ws uses part of it); untouched parts cost nothing
    cdef int64_t[::1] i64 = np.empty(12 * cap + 2, np.int64)
    cdef int32_t[::1] i32 = np.empty(7 * cap, np.int32)
    cdef double[::1] f64 = np.empty(3 * cap, np.float64)
    cdef uint8_t[::1] u8 = np.empty(2 * cap, np.uint8)
    cdef int64_t[::1] cnt_b = i64[:cap + 1]
    cdef int64_t[::1] sptr_b = i64[cap + 1:2 * cap + 2]
    cdef int64_t[::1] fill_b = i64[2 * cap + 2:3 * cap + 2]
    cdef int64_t[::1] ecc_b = i64[3 * cap + 2:4 * cap + 2]
    cdef int64_t[::1] cand_b = i64[4 * cap + 2:5 * cap + 2]
    cdef int64_t[::1] w_tdeg = i64[5 * cap + 2:6 * cap + 2]
    cdef int64_t[::1] w_down = i64[6 * cap + 2:7 * cap + 2]
    cdef int64_t[::1] w_up = i64[7 * cap + 2:8 * cap + 2]
    cdef int64_t[::1] w_bdown = i64[8 * cap + 2:9 * cap + 2]
    cdef int64_t[::1] w_bup = i64[9 * cap + 2:10 * cap + 2]
    cdef int64_t[::1] w_depth = i64[10 * cap + 2:11 * cap + 2]
    cdef int64_t[::1] ml_dist = i64[11 * cap + 2:]
    cdef int32_t[::1] tind_b = i32[:2 * cap]
    cdef int32_t[::1] w_order = i32[2 * cap:3 * cap]
    cdef int32_t[::1] w_parent = i32[3 * cap:4 * cap]
    cdef int32_t[::1] w_dist = i32[4 * cap:5 * cap]
    cdef int32_t[::1] w_stack = i32[5 * cap:6 * cap]
    cdef int32_t[::1] w_came = i32[6 * cap:]
    cdef double[::1] sc_b = f64[:cap]
    cdef double[::1] w_acc = f64[cap:2 * cap]
    cdef double[::1] ml_acc = f64[2 * cap:]
    cdef uint8_t[::1] topm_b = u8[:cap]
    cdef uint8_t[::1] w_mark = u8[cap:]
    cdef int32_t[::1] sind_b = np.empty(0 if opt.tree_graph else 4 * cap, np.int32)
    cdef double[::1] logk = np.empty(1)  # logk[k] = log k for the degrees of the chunk (ml_ball)
    cdef double[::1] log_p = np.empty(opt.T + 2)
    cdef double[::1] log_q = np.empty(opt.T + 2)
    cdef const int32_t[::1] order
    cdef const int64_t[::1] par, gdeg
    cdef const int64_t[::1] tptr, sptr
    cdef const int32_t[::1] tind, sind
    cdef double[::1] sc
    cdef int64_t[::1] ecc
    cdef uint8_t[::1] topm
    if opt.centre_known:
        dmax = 1
        for k in range(noff[i1]):
            if b_gdeg[k] > dmax:
                dmax = b_gdeg[k]
        logk = np.empty(dmax + 1)
        logk[0] = -INFINITY
        for k in range(1, dmax + 1):
            logk[k] = math.log(k)
    for i in range(i0, i1):
        n = n_out[i]
        off = noff[i]
        order = b_order[off:off + n]
        par = b_par[off:off + n]
        gdeg = b_gdeg[off:off + n]
        if not opt.lazy:
            for k in range(n):
                loc[order[k]] = k
        if need_csr:
            local_tree_c(par, n, cnt_b, fill_b, tind_b)
            tptr = cnt_b[:n + 1]
            tind = tind_b[:cnt_b[n]]
        else:
            tptr = cnt_b[:1]
            tind = tind_b[:0]
        centre = b_vs[i] if opt.centre_known else -1
        if opt.tree_graph:
            sptr = tptr
            sind = tind
        else:
            m = _local_subgraph(gptr, gind, order, n, loc, sptr_b, sind_b)
            if m < 0:
                sind_b = np.empty(max(-m - 1, 2 * sind_b.shape[0]), np.int32)
                m = _local_subgraph(gptr, gind, order, n, loc, sptr_b, sind_b)
            sptr = sptr_b[:n + 1]
            sind = sind_b[:m]
        sub_tree = sind.shape[0] == 2 * (n - 1)
        sc = sc_b[:n]
        ecc = ecc_b[:n]
        topm = topm_b[:n]
        for e in range(ncodes):
            code = codes[e]
            sm.ntop = -1  # unknown: count the maximisers below
            # the maximisers (topm) and the source's rank data; the source is local node 0
            if code == ML:
                if centre >= 0 and n > 1:
                    ml_ball(par, gdeg, centre, a_alive, logk, sc, ml_acc, ml_dist)
                else:
                    for k in range(n):
                        sc[k] = -INFINITY
                    if n == 1:
                        if opt.T == 0 or gdeg[0] == 0:
                            sc[0] = 0.0
                    elif opt.T > 0:
                        if ml_tree(tptr, tind, gdeg, opt.tree_graph, opt.r_node, a_alive, a_dead,
                                   opt.r_edge, a_move, sc, w_tdeg, w_mark, w_order, w_parent,
                                   w_dist, w_down, w_up, w_bdown, w_bup, w_stack, w_acc, w_came,
                                   w_depth) == -2:
                            raise MemoryError(f"the ML's message buffers for a snapshot of {n} "
                                              "infected nodes could not be allocated")
                sm = score_summary(sc, 0, TIE_RTOL, topm)
            elif code == JORDAN:
                if sub_tree:
                    tree_eccentricity_ws(sptr, sind, w_order, w_parent, w_dist, w_mark, w_down,
                                         w_up, w_bdown, w_bup, ecc)
                    for k in range(n):
                        sc[k] = -<double> ecc[k]
                    sm = score_summary(sc, 0, TIE_RTOL, topm)
                else:
                    jt = graph_jordan_top(sptr, sind, 0, topm)
                    sm.greater = jt.less
                    sm.tied = jt.tied
            elif code == RUMOR:
                if sub_tree:
                    tree_rumor(sptr, sind, sc)
                    sm = score_summary(sc, 0, TIE_RTOL, topm)
                else:
                    rt = graph_rumor_top(sptr, sind, 0, TIE_RTOL, topm)
                    sm.greater = rt.greater
                    sm.tied = rt.tied
            elif code == NETSLEUTH:
                netsleuth_vector(sptr, sind, gdeg, DENSE_MAX, sc)
                sm = score_summary(sc, 0, TIE_RTOL, topm)
            else:
                # LISN (geometric delays); rate NaN: the plug-in Jordan radius / T
                rate = opt.lisn_rate
                if rate != rate:
                    if opt.T == 0:
                        rate = 0.0
                    elif sub_tree:
                        tree_eccentricity_ws(sptr, sind, w_order, w_parent, w_dist, w_mark,
                                             w_down, w_up, w_bdown, w_bup, ecc)
                        x = ecc[0]
                        for k in range(1, n):
                            if ecc[k] < x:
                                x = ecc[k]
                        rate = min(1.0, x / <double> opt.T)
                    else:
                        rate = min(1.0, graph_radius(sptr, sind) / <double> opt.T)
                binomial_tail_tables(opt.T, rate, log_p, log_q)
                if opt.lazy:
                    lisn_regular_tree(sptr, sind, gdeg[0], log_p, log_q, sc)
                else:
                    for k in range(n):
                        cand_b[k] = order[k]
                    lisn_graph(gptr, gind, cand_b[:n], loc, n, log_p, log_q, opt.T + 2, sc)
                sm = score_summary(sc, 0, TIE_RTOL, topm)
            nt = sm.ntop
            if nt < 0:
                nt = 0
                for k in range(n):
                    nt += topm[k]
            pdet[e, i] = 1.0 / nt if topm[0] else 0.0
            target = <int64_t> (tie_u[e, i] * nt)
            if target >= nt:
                target = nt - 1
            est = 0
            c = 0
            for k in range(n):
                if topm[k]:
                    if c == target:
                        est = k
                        break
                    c += 1
            detected[e, i] = 1 if est == 0 else 0
            depth = 0  # of the estimate in the infection tree (parents lead to the source)
            x = est
            while par[x] >= 0:
                x = par[x]
                depth += 1
            tree_hops[e, i] = depth
            if opt.tree_graph:
                hops[e, i] = depth
            else:
                hops[e, i] = _graph_hops(gptr, gind, order[0], order[est], seen, queue, gdist,
                                         i * ncodes + e + 1)
            rank[e, i] = 1.0 + sm.greater + (sm.tied - 1) / 2.0
        if not opt.lazy:
            for k in range(n):
                loc[order[k]] = -1
