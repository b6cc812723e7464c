"""The fused Monte Carlo loop: simulate a chunk of trials, then score every snapshot.

Trials run in chunks of two phases: :func:`anonspread.engine.spreading.simulate_chunk`
(compiled ahead of time) runs trials and copies each snapshot into flat buffers, then
:func:`_score_chunk` (compiled once per estimator family, whatever the protocol: ML,
Jordan and rumour; NETSLEUTH and LISN only when asked for) scores them. Scoring draws
nothing from the random stream, so chunking leaves every result unchanged.
:func:`anonspread.adversaries.simulate_and_score` is the Python layer above it.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
from numba.core import errors, types
from numba.extending import overload

from anonspread.engine import _literature_numba as LK
from anonspread.engine import scoring as K
from anonspread.engine._numba_cache import install as _install_numba_cache
from anonspread.engine.scoring import TIE_RTOL

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = ["CHUNK_NODES", "FAMILIES", "SCORE_ENTRIES"]


#: Infected nodes per chunk of trials: the simulation phase fills snapshot buffers of
#: about this many nodes (a single larger trial still fits: the buffers grow), then the
#: scoring phase reads them. About 20 bytes per node: 2^16 nodes keep the buffers (reused
#: by every chunk) in the caches; 2^20 made the ML path a third slower on the random
#: {3,4} tree at T = 16 (165 vs 111 us per trial), from writing and re-reading 20 MB.
CHUNK_NODES = 1 << 16


@nb.njit(cache=True)
def _local_tree(par, n, cnt, fill, indices):
    """Infection tree over local ids (CSR) from the parents (a parent precedes its children).

    Written into the caller's buffers (``cnt`` of n + 1 entries, ``fill`` of n,
    ``indices`` of 2n at least); returns the CSR as views of them.
    """
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
            indices[fill[i]] = q
            fill[i] += 1
            indices[fill[q]] = i
            fill[q] += 1
    return cnt[: n + 1], indices[: cnt[n]]


@nb.njit(cache=True)
def _local_subgraph(gptr, gind, order, n, loc):
    """Induced subgraph of the infected nodes over local ids (CSR), finite graphs."""
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        v = order[i]
        c = 0
        for j in range(gptr[v], gptr[v + 1]):
            if loc[gind[j]] >= 0:
                c += 1
        indptr[i + 1] = indptr[i] + c
    indices = np.empty(indptr[n], np.int32)
    k = 0
    for i in range(n):
        v = order[i]
        for j in range(gptr[v], gptr[v + 1]):
            w = loc[gind[j]]
            if w >= 0:
                indices[k] = w
                k += 1
    return indptr, indices


@nb.njit(cache=True)
def _graph_hops(gptr, gind, a, b, seen, queue, dist, stamp):
    """Hop distance from node a to node b in a finite contact graph (BFS, early exit)."""
    if a == b:
        return 0
    seen[a] = stamp
    dist[a] = 0
    queue[0] = a
    head, tail = 0, 1
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


#: Estimator codes scored by each compiled scoring entry (a family is compiled only when
#: one of its estimators is asked for: the literature ones are superlinear and optional).
FAMILIES = ((0, 1, 2), (3, 4))


@nb.njit(cache=True)
def _estimate_main(code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph,
                   r_node, alive, dead, r_edge, move, sc, ecc, topm, ws):
    """ML (code 0), Jordan (1) or rumour (2): the maximisers and the rank data of node 0."""
    src = np.int64(0)  # typed, not literal: numba compiles a callee once per literal argument
    if code == 0:
        for k in range(n):
            sc[k] = -np.inf
        if n == 1:
            if T == 0 or gdeg[0] == 0:
                sc[0] = 0.0
        elif T > 0:
            K.ml_tree(tptr, tind, gdeg, tree_graph, r_node, alive, dead, r_edge, move, sc, ws)
        return K.score_summary(sc, src, TIE_RTOL, topm)
    if code == 1:
        if sub_tree:
            K.tree_eccentricity(sptr, sind, ecc)
            for k in range(n):
                sc[k] = -float(ecc[k])
            return K.score_summary(sc, src, TIE_RTOL, topm)
        _, _, greater, tied, _ = K.graph_jordan_top(sptr, sind, src, topm)
        return greater, tied
    if sub_tree:
        K.tree_rumor(sptr, sind, sc)
        return K.score_summary(sc, src, TIE_RTOL, topm)
    _, _, greater, tied, _ = K.graph_rumor_top(sptr, sind, src, TIE_RTOL, topm)
    return greater, tied


@nb.njit(cache=True)
def _estimate_literature(code, n, T, sptr, sind, sub_tree, gdeg, lazy, gptr, gind, order, loc,
                         lisn_rate, sc, ecc, topm):
    """NETSLEUTH (code 3) or LISN (4): the maximisers and the rank data of node 0."""
    if code == 3:
        LK.netsleuth_vector(sptr, sind, gdeg, LK.DENSE_MAX, sc)
    else:
        _lisn_trial(sptr, sind, sub_tree, lazy, gptr, gind, order, loc, n, gdeg, T, lisn_rate, ecc, sc)
    return K.score_summary(sc, np.int64(0), TIE_RTOL, topm)


def _estimate(family, code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph, lazy, gptr,
              gind, order, loc, r_node, alive, dead, r_edge, move, lisn_rate, sc, ecc, topm, ws):
    """Score one trial with estimator ``code`` of ``family`` (compiled code only)."""
    raise NotImplementedError("compiled use only")


@overload(_estimate, inline="always")
def _estimate_compiled(family, code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph,
                       lazy, gptr, gind, order, loc, r_node, alive, dead, r_edge, move, lisn_rate,
                       sc, ecc, topm, ws):
    if not isinstance(family, types.IntegerLiteral):
        raise errors.TypingError("_estimate needs a compile-time constant family")
    if family.literal_value == 0:
        def impl(family, code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph, lazy,
                 gptr, gind, order, loc, r_node, alive, dead, r_edge, move, lisn_rate, sc, ecc,
                 topm, ws):
            return _estimate_main(code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph,
                                  r_node, alive, dead, r_edge, move, sc, ecc, topm, ws)
    else:
        def impl(family, code, n, T, tptr, tind, sptr, sind, sub_tree, gdeg, tree_graph, lazy,
                 gptr, gind, order, loc, r_node, alive, dead, r_edge, move, lisn_rate, sc, ecc,
                 topm, ws):
            return _estimate_literature(code, n, T, sptr, sind, sub_tree, gdeg, lazy, gptr, gind,
                                        order, loc, lisn_rate, sc, ecc, topm)
    return impl


@nb.njit(cache=True, inline="always")
def _score_chunk(
    family, i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, lazy, tree_graph, centre_known, gptr,
    gind, T, codes, tie_u, r_node, alive, dead, r_edge, move, lisn_rate, seen, detected, pdet,
    hops, tree_hops, rank,
):  # fmt: skip
    """Score trials ``[i0, i1)`` from the snapshots ``spreading.simulate_chunk`` buffered, with
    the estimators of ``codes`` that belong to ``family`` (a constant: see FAMILIES).

    Protocol-independent: compiled once per family for every protocol. ``seen`` is the
    BFS stamp array of :func:`_graph_hops` (finite graphs), kept across chunks. With
    ``centre_known`` (see :func:`_centre_known`) ML scores from the buffered virtual
    source ``b_vs[i]``, and the infection tree's CSR is built only if another estimator
    needs it.
    """
    ng = 0 if lazy else gptr.shape[0] - 1
    loc = np.full(ng, -1, np.int64)
    queue = np.empty(ng, np.int32)
    gdist = np.empty(ng, np.int32)
    # per-trial buffers for the chunk's largest trial: nothing is allocated per trial
    cap = np.int64(1)  # typed, not literal: numba compiles a callee once per literal argument
    for i in range(i0, i1):
        cap = max(cap, n_out[i])
    cnt_b = np.empty(cap + 1, np.int64)
    fill_b = np.empty(cap, np.int64)
    tind_b = np.empty(2 * cap, np.int32)
    ecc_b = np.empty(cap, np.int64)
    sc_b = np.empty(cap, np.float64)
    topm_b = np.empty(cap, np.bool_)
    ws = K.ml_workspace(cap)
    ml_acc = np.empty(cap, np.float64)
    ml_dist = np.empty(cap, np.int64)
    src = np.int64(0)  # typed, not literal: numba compiles a callee once per literal argument
    lo, hi = (0, 2) if family == 0 else (3, 4)
    need_csr = False
    for e in range(codes.shape[0]):
        if lo <= codes[e] <= hi and (codes[e] != 0 or not centre_known):
            need_csr = True
    logk = np.empty(1)  # logk[k] = log k for the degrees of the chunk (ml_ball)
    if centre_known:
        dmax = 1
        for k in range(noff[i1]):
            dmax = max(dmax, b_gdeg[k])
        logk = np.empty(dmax + 1)
        logk[0] = -np.inf
        for k in range(1, dmax + 1):
            logk[k] = math.log(k)
    for i in range(i0, i1):
        n = n_out[i]
        off = noff[i]
        order = b_order[off : off + n]
        par = b_par[off : off + n]
        gdeg = b_gdeg[off : off + n]
        if not lazy:
            for k in range(n):
                loc[order[k]] = k
        if need_csr:
            tptr, tind = _local_tree(par, n, cnt_b, fill_b, tind_b)
        else:
            tptr, tind = cnt_b[:1], tind_b[:0]
        centre = b_vs[i] if centre_known else -1
        if tree_graph:
            sptr, sind = tptr, tind
        else:
            sptr, sind = _local_subgraph(gptr, gind, order, n, loc)
        sub_tree = sind.shape[0] == 2 * (n - 1)
        sc = sc_b[:n]
        ecc = ecc_b[:n]
        topm = topm_b[:n]
        for e in range(codes.shape[0]):
            code = codes[e]
            if code < lo or code > hi:
                continue
            # the maximisers (topm) and the source's rank data; the source is local node 0
            if code == 0 and centre >= 0 and n > 1:
                # here rather than in _estimate_main: a call with its ~30 array arguments
                # costs more than the whole scoring of a small ball
                K.ml_ball(par, gdeg, centre, alive, logk, sc, ml_acc, ml_dist)
                greater, tied = K.score_summary(sc, src, TIE_RTOL, topm)
            else:
                greater, tied = _estimate(family, code, n, T, tptr, tind, sptr, sind, sub_tree,
                                          gdeg, tree_graph, lazy, gptr, gind,
                                          order, loc, r_node, alive, dead, r_edge, move, lisn_rate,
                                          sc, ecc, topm, ws)
            nt = 0
            for k in range(n):
                if topm[k]:
                    nt += 1
            pdet[e, i] = 1.0 / nt if topm[0] else 0.0
            target = int(tie_u[e, i] * nt)
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
            if tree_graph:
                hops[e, i] = depth
            else:
                hops[e, i] = _graph_hops(gptr, gind, order[0], order[est], seen, queue, gdist,
                                         i * codes.shape[0] + e + 1)
            rank[e, i] = 1.0 + greater + (tied - 1) / 2.0
        if not lazy:
            for k in range(n):
                loc[order[k]] = -1


def _score_entry(family):
    # One compiled scoring entry per estimator family (a constant here: numba compiles the
    # entry for it); the arguments are spelt out, as numba loses the constant through *args.
    @nb.njit(cache=True)
    def entry(
        i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, lazy, tree_graph, centre_known, gptr,
        gind, T, codes, tie_u, r_node, alive, dead, r_edge, move, lisn_rate, seen, detected, pdet,
        hops, tree_hops, rank,
    ):  # fmt: skip
        _score_chunk(
            family, i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, lazy, tree_graph,
            centre_known, gptr, gind, T, codes, tie_u, r_node, alive, dead, r_edge, move,
            lisn_rate, seen, detected, pdet, hops, tree_hops, rank,
        )  # fmt: skip

    return entry


#: The scoring phase compiled per estimator family.
SCORE_ENTRIES = tuple(_score_entry(f) for f in range(len(FAMILIES)))


@nb.njit(cache=True)
def _lisn_trial(sptr, sind, sub_tree, lazy, gptr, gind, order, loc, n, gdeg, T, rate, ecc, sc):
    """LISN (geometric delays) on one trial; ``rate`` NaN: the plug-in Jordan radius / T."""
    if rate != rate:
        if T == 0:
            rate = 0.0
        else:
            if sub_tree:
                K.tree_eccentricity(sptr, sind, ecc)
                rate = min(1.0, ecc[:n].min() / T)
            else:
                rate = min(1.0, K.graph_radius(sptr, sind) / T)
    log_p = np.empty(T + 2)
    log_q = np.empty(T + 2)
    LK.binomial_tail_tables(T, rate, log_p, log_q)
    if lazy:
        LK.lisn_regular_tree(sptr, sind, gdeg[0], log_p, log_q, sc)
    else:
        cand = order[:n].astype(np.int64)
        LK.lisn_graph(gptr, gind, cand, loc, n, log_p, log_q, T + 2, sc)
