"""The Monte Carlo path: simulate + estimate + score in compiled loops.

:func:`simulate_and_score` draws sources and tree seeds exactly as
:func:`spread.simulate_many` does, runs the protocol's kernel on the flat store, then
runs the estimator kernels of :mod:`adversaries._kernels` on the infected nodes in
infection order, their infection-tree parents and contact degrees, so no Python object
is created per node or per trial. The same ``rng`` gives the same spreads as
``spread.simulate_many``; ties are broken with a child stream spawned from it (which
does not advance its state).

Trials run in chunks of two compiled phases: :func:`_simulate_chunk` (compiled per
protocol, it links only that protocol's kernel) runs trials and copies each snapshot
into flat buffers, then :func:`_score_chunk` (compiled once per estimator family,
whatever the protocol: ML, Jordan and rumour; NETSLEUTH and LISN only when asked for)
scores them. The estimators' code is therefore compiled once, not once per protocol,
and the phases can be compiled by different processes (the harness does, see
``harness.runner.warm_up``). Scoring draws nothing from ``rng``, so chunking leaves
every result unchanged.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np
from numba.core import errors, types
from numba.extending import overload

from adversaries import _kernels as K
from adversaries import _lit_kernels as LK
from adversaries._regular_ml import regular_ml_trials
from adversaries._tables import ad_tables
from adversaries.observation import graph_is_forest
from adversaries.registry import check_applicable
from adversaries.scores import TIE_RTOL
from anonspread._numba_cache import install as _install_numba_cache
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.validation import check_int, check_rng
from spread._kernels import ADAPTIVE_DIFFUSION, KERNELS, run_batch_for, run_protocol
from spread._store import PARENT, reset_lazy, reset_run_state
from spread.graphs import LazyTree, as_contact_graph
from spread.limits import check_run_size
from spread.protocols import Protocol
from spread.simulate import batch_setup

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = ["BatchScores", "CompilePhaseDone", "EstimatorTrials", "compile_phase", "simulate_and_score"]

#: Batch codes of the estimators with a compiled kernel.
CODES = {"ml": 0, "ml-tree": 0, "jordan": 1, "rumor": 2, "netsleuth": 3, "lisn": 4}


#: Score ML from the virtual source the simulation hands over where that is exact
#: (:func:`_centre_known`); False runs :func:`adversaries._kernels.ml_tree` everywhere (the
#: tests compare both).
KNOWN_CENTRE = True

#: With only ML estimators asked for on the d-regular tree (and :func:`_centre_known`),
#: count the ball instead of creating it and score by symmetry (``adversaries._regular_ml``:
#: the same N_T, rank and detection probability per trial; ``detected`` and ``hops`` drawn
#: with the same law from another function of the tie-breaking stream). False creates the
#: ball there too.
REGULAR_SYMMETRY = True

#: The compile-only phase of this process (see :func:`compile_phase`): None, "score" or
#: "simulate".
_PHASE: list[str | None] = [None]


class CompilePhaseDone(Exception):
    """Raised by :func:`simulate_and_score` inside :func:`compile_phase` once the compiled
    entries of its phase are ready (nothing was simulated or scored for the caller)."""


@contextlib.contextmanager
def compile_phase(phase: str | None):
    """Make :func:`simulate_and_score` only compile (or load) one phase's entries, then
    raise :class:`CompilePhaseDone`.

    ``"score"``: the scoring entries the call needs, on zero trials (no simulation, so
    they can be compiled before any simulation entry exists); ``"simulate"``: the
    protocol's simulation entry, on the call's first chunk of trials (then discarded).
    ``None``: run normally. The harness's warm-up uses it to give the scoring entries
    to one pool worker while the others compile the simulation entries, instead of every
    worker compiling a simulation entry first and then waiting for the one scoring entry
    (the cross-process compile locks of :mod:`anonspread._numba_cache` serialise that).
    Results of calls outside the phase are unchanged.
    """
    if phase not in (None, "score", "simulate"):
        raise InvalidParameterError(f"phase must be None, 'score' or 'simulate'; got {phase!r}")
    before = _PHASE[0]
    _PHASE[0] = phase
    try:
        yield
    finally:
        _PHASE[0] = before


def _centre_known(g, protocol: Protocol, params: np.ndarray, T: int) -> bool:
    """True if every snapshot is the complete ball of radius T/2 around the final virtual
    source, and the only configuration consistent with it.

    Adaptive diffusion (or Protocol 2, which runs its kernels) at even ``T >= 2`` on an
    infinite tree whose degree law gives every node at least two neighbours, without a
    cap on infections and with every infected node infecting (``params`` as
    ``AdaptiveDiffusion.kernel_params``): the token never meets a dead end, the infected
    set is the ball around it (thesis §2.3), and no other centre fits (see
    :func:`adversaries._kernels.ml_ball`).
    """
    if not isinstance(g, LazyTree) or T < 2 or T % 2 == 1:
        return False
    if protocol.kernel_code != ADAPTIVE_DIFFUSION or params[0] >= 0 or int(params[2]) & 2:
        return False
    return min(d for d, p in g.degrees.items() if p > 0) >= 2


#: Infected nodes per chunk of trials: the simulation phase fills snapshot buffers of
#: about this many nodes (a single larger trial still fits: the buffers grow), then the
#: scoring phase reads them. About 20 bytes per node: 2^16 nodes keep the buffers (reused
#: by every chunk) in the caches; 2^20 made the ML path a third slower on the random
#: {3,4} tree at T = 16 (165 vs 111 us per trial), from writing and re-reading 20 MB.
CHUNK_NODES = 1 << 16


@nb.njit(cache=True)
def _snapshot(ns, order, deg, n, loc, off, b_order, b_par, b_gdeg, vs):
    """Copy the current run into the chunk buffers at ``off``: the infected nodes in
    infection order, their infection-tree parents as local ids (-1 for the source) and
    their contact degrees. ``loc`` is -1 everywhere on entry and on exit. Returns the
    local id of node ``vs`` (the final virtual source; -1 if none or not infected).
    ``ns``, ``order``, ``deg``: the store's arrays (the tuple is not passed: handing it to a
    call costs reference-count updates of its ten arrays)."""
    for k in range(n):
        loc[order[k]] = k
    for k in range(n):
        v = order[k]
        b_order[off + k] = v
        b_gdeg[off + k] = deg[v]
        p = ns[v, PARENT]
        b_par[off + k] = loc[p] if p >= 0 else -1
    c = loc[vs] if vs >= 0 else -1
    for k in range(n):
        loc[order[k]] = -1
    return c


@nb.njit(cache=True)
def _grow(a, need):
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[: a.shape[0]] = a
    return b


@nb.njit(cache=True, inline="always")
def _simulate_chunk(kernel_code, store, lazy, sources, seeds, i0, T, params, rng, cap,
                    noff, n_out, b_vs, b_order, b_par, b_gdeg):
    """Run trials ``i0, i0 + 1, ...`` until about ``cap`` infected nodes are buffered.

    Trial ``i`` of the chunk occupies ``[noff[i], noff[i + 1])`` of the buffers (offsets
    relative to the chunk, ``noff[i0] = 0``); ``b_vs[i]`` receives the local id of its
    final virtual source (-1 if none). At least one trial runs; a trial larger
    than the buffers grows them. Returns (store, end trial, buffers); the store's run
    state is clean again.
    """
    trials = sources.shape[0]
    vs_out = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    loc = np.full(store[0].shape[0], -1, np.int64)
    noff[i0] = 0
    n_inf = np.int64(0)  # typed, not literal (reset_run_state)
    i = i0
    while i < trials and (i == i0 or noff[i] < cap):
        if lazy:
            reset_lazy(store, seeds[i])
        else:
            reset_run_state(store, n_inf)
        store, n_inf = run_protocol(kernel_code, store, sources[i], T, params, rng, vs_out, sizes)
        n_out[i] = n_inf
        end = noff[i] + n_inf
        if end > b_order.shape[0]:
            b_order = _grow(b_order, end)
            b_par = _grow(b_par, end)
            b_gdeg = _grow(b_gdeg, end)
        if loc.shape[0] < store[0].shape[0]:
            loc = np.full(store[0].shape[0], -1, np.int64)
        b_vs[i] = _snapshot(store[8], store[9], store[1], n_inf, loc, noff[i], b_order, b_par,
                            b_gdeg, vs_out[T])
        noff[i + 1] = end
        i += 1
    if not lazy:
        reset_run_state(store, n_inf)
    return store, i, b_order, b_par, b_gdeg


def _simulate_entry(kernel_code):
    # The kernel code is a constant here, so the entry is compiled for, and links, only
    # that protocol's kernel (see spread._kernels.run_batch_for): the only compiled code
    # of this module that depends on the protocol. The arguments are spelt out: numba
    # loses the constant through *args.
    @nb.njit(cache=True)
    def entry(store, lazy, sources, seeds, i0, T, params, rng, cap, noff, n_out, b_vs, b_order,
              b_par, b_gdeg):
        return _simulate_chunk(kernel_code, store, lazy, sources, seeds, i0, T, params, rng, cap,
                               noff, n_out, b_vs, b_order, b_par, b_gdeg)

    return entry


#: The simulation phase compiled per protocol kernel code.
_SIMULATE_ENTRIES = {code: _simulate_entry(code) for code in KERNELS}


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
    """Score trials ``[i0, i1)`` from the snapshots :func:`_simulate_chunk` buffered, with
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
    # One compiled scoring entry per estimator family (a constant here, see
    # _simulate_entry); the arguments are spelt out for the same reason.
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
_SCORE_ENTRIES = tuple(_score_entry(f) for f in range(len(FAMILIES)))


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


def _regular_tree_batch(g, protocol, T, sources, seeds, store, gen, log_b, tie_u):
    """The trials of :func:`simulate_and_score` with ML estimators only on the d-regular
    tree (``REGULAR_SYMMETRY``): ``spread.simulate_many``'s compiled loop counts each ball
    and reports the token's hop count H (the same random numbers, the same spreads), then
    ``adversaries._regular_ml`` scores every trial from (d, T, H). Returns N_T per trial
    and (detected, detection_probability, hops, rank) per estimator row of ``tie_u``."""
    trials = sources.shape[0]
    sizes = np.empty((trials, T + 1), np.int64)
    vs_hops = np.empty(trials, np.int32)
    vs_node = np.empty(trials, np.int32)
    params = protocol.summary_params(g, T)
    run_batch_for(protocol.kernel_code)(store, True, sources, seeds, T, params, gen, sizes,
                                        vs_hops, vs_node)
    d = g.regular_degree()
    return sizes[:, T].copy(), [regular_ml_trials(d, T, log_b, vs_hops, u) for u in tie_u]


@dataclass(frozen=True)
class EstimatorTrials:
    """Per-trial outcomes of one estimator.

    Attributes
    ----------
    detected : numpy.ndarray of int8
        1 if the estimate (arg-max, ties broken uniformly at random) is the source.
    detection_probability : numpy.ndarray of float64
        ``P(estimate = source | snapshot)``: 1/|ties| if the source is among the
        maximisers, else 0 (same mean as ``detected``, less variance).
    hops : numpy.ndarray of int64
        Hop distance from the estimate to the source in the contact graph.
    rank : numpy.ndarray of float64
        Rank of the source (1 = best; ties share their mean rank).
    tree_hops : numpy.ndarray of int64
        Hop distance from the estimate to the source over the infection tree (the
        thesis's Fig. 2.9 measure; equal to ``hops`` on trees, never smaller).
    """

    detected: np.ndarray
    detection_probability: np.ndarray
    hops: np.ndarray
    rank: np.ndarray
    tree_hops: np.ndarray | None = None

    def mean(self, name: str = "detected") -> tuple[float, float]:
        """Mean of a per-trial array and its standard error."""
        x = np.asarray(getattr(self, name), dtype=np.float64)
        se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
        return float(x.mean()), se


@dataclass(frozen=True)
class BatchScores:
    """Result of :func:`simulate_and_score`.

    Attributes
    ----------
    T, trials : int
    sources : numpy.ndarray
        Source of each trial (labels; node 0 on infinite trees).
    n_infected : numpy.ndarray of int64
    estimators : dict str -> EstimatorTrials
    """

    T: int
    trials: int
    sources: np.ndarray
    n_infected: np.ndarray
    estimators: dict = field(default_factory=dict)
    protocol: Any = field(default=None, repr=False)
    graph: Any = field(default=None, repr=False)

    def __getitem__(self, name: str) -> EstimatorTrials:
        return self.estimators[name]


def simulate_and_score(
    graph: Any,
    protocol: Protocol,
    T: int,
    trials: int,
    *,
    estimators: tuple[str, ...] | None = None,
    source: Any = None,
    rng: Any = None,
) -> BatchScores:
    """Run ``trials`` spreads and score every estimator on each, in one compiled loop.

    A trial is :func:`spread.simulate` + the estimators + the metrics of
    :mod:`adversaries.metrics`, on flat arrays. Sources and infinite-tree
    realisations are drawn as in :func:`spread.simulate_many` (same ``rng``, same
    spreads). On a graph with cycles the adversary is the §2.4.2 one: ``"ml"`` is
    the near-ML over the infection tree; Jordan centre and rumour centrality use the
    infected subgraph only.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
    protocol : Protocol
    T : int >= 0
    trials : int >= 1
    estimators : tuple of str, optional
        Names among ``"ml"`` (adaptive diffusion), ``"ml-tree"`` (Protocol 2),
        ``"jordan"``, ``"rumor"``, ``"netsleuth"``, ``"lisn"``; default: every one that
        applies and is registered as a default (:func:`adversaries.applicable_estimators`
        with ``default_only=True``: NETSLEUTH and LISN, superlinear per snapshot, are
        run only when named). An inapplicable name raises
        :class:`InvalidParameterError` saying why.
    source : node, optional
        Fixed source on finite graphs (default: uniform per trial).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BatchScores

    Examples
    --------
    >>> import spread
    >>> b = simulate_and_score(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, 200,
    ...                        estimators=("ml",), rng=0)
    >>> float(b["ml"].detection_probability[0])  # 1 / (N_T - 1), N_T = 10
    0.1111111111111111
    """
    from adversaries.registry import applicable_estimators, get_estimator

    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    T = check_int(T, "T", low=0)
    trials = check_int(trials, "trials", low=1)
    gen = check_rng(rng)
    g = as_contact_graph(graph)
    check_run_size(g, protocol, T, trials, per_trial_steps=True)
    if estimators is None:
        names = tuple(
            applicable_estimators(protocol, g, reveal_edges=True, batch=True, default_only=True)
        )
    else:
        if isinstance(estimators, str):
            estimators = (estimators,)
        names = tuple(estimators)
        for name in names:
            spec = get_estimator(name)
            if not spec.batch:
                raise InvalidParameterError(
                    f"estimators must be among the compiled ones {sorted(CODES)}; got {name!r}"
                )
            check_applicable(name, protocol, g, reveal_edges=True)
    if not names:
        raise InvalidParameterError(f"estimators must name at least one estimator; got {estimators!r}")
    codes = np.array([CODES[nm] for nm in names], np.int64)
    params = protocol.kernel_params(g, T)
    lazy, sources, seeds, store = batch_setup(g, protocol, T, trials, source, gen)
    try:
        tie_gen = gen.spawn(1)[0]
    except (AttributeError, TypeError):  # a Generator without a SeedSequence
        tie_gen = np.random.default_rng(np.random.SeedSequence(entropy=int(seeds.sum() % 2**63) + 1))
    tie_u = tie_gen.random((codes.shape[0], trials))
    if "ml" in names or "ml-tree" in names:
        # Protocol 2's ML is adaptive diffusion's with alpha = 0 (its design degree is inf)
        d0 = protocol.design_degree(g)
        r_node, alive, dead, r_edge, move = ad_tables(float(d0), T)
    else:
        r_node, alive, dead, r_edge, move = -1, np.zeros(1), np.zeros(1), -1, np.zeros(1)
    lisn_rate = np.nan
    if "lisn" in names:
        lisn_rate = get_estimator("lisn").params(protocol, g)["rate"]
        lisn_rate = np.nan if lisn_rate is None else float(lisn_rate)
    centre_known = KNOWN_CENTRE and _centre_known(g, protocol, params, T)
    if centre_known and REGULAR_SYMMETRY and g.regular_degree() is not None and not codes.any():
        n_out, outcomes = _regular_tree_batch(g, protocol, T, sources, seeds, store, gen, alive, tie_u)
        return BatchScores(
            T=T,
            trials=trials,
            sources=sources.astype(np.int64),
            n_infected=n_out,
            estimators={
                nm: EstimatorTrials(det, pd, hp, rk, hp.copy())
                for nm, (det, pd, hp, rk) in zip(names, outcomes)
            },
            protocol=protocol,
            graph=g,
        )
    e = codes.shape[0]
    detected = np.zeros((e, trials), np.int8)
    pdet = np.zeros((e, trials), np.float64)
    hops = np.zeros((e, trials), np.int64)
    tree_hops = np.zeros((e, trials), np.int64)
    rank = np.zeros((e, trials), np.float64)
    n_out = np.zeros(trials, np.int64)
    tree_graph = lazy or graph_is_forest(g)
    if lazy:
        gptr, gind = np.zeros(2, np.int64), np.zeros(1, np.int32)
    else:  # writable contiguous copies only if needed: one compiled type for every graph
        gptr = np.require(g.indptr, np.int64, ("C", "W"))
        gind = np.require(g.indices, np.int32, ("C", "W"))
    seen = np.zeros(0 if lazy else g.number_of_nodes(), np.int64)
    simulate_chunk = _SIMULATE_ENTRIES[protocol.kernel_code]
    scorers = [_SCORE_ENTRIES[f] for f, fam in enumerate(FAMILIES) if set(fam) & set(codes.tolist())]
    noff = np.zeros(trials + 1, np.int64)
    b_vs = np.full(trials, -1, np.int64)
    first = min(CHUNK_NODES, 64 * trials)
    b_order = np.empty(first, np.int32)
    b_par = np.empty(first, np.int64)
    b_gdeg = np.empty(first, np.int64)
    phase = _PHASE[0]
    if phase is not None:
        try:
            if phase == "score":
                for score in scorers:  # zero trials: only compiles (or loads) the entry
                    score(
                        0, 0, noff, n_out, b_vs, b_order, b_par, b_gdeg, lazy, tree_graph,
                        centre_known, gptr, gind, T, codes, tie_u, r_node, alive, dead, r_edge,
                        move, lisn_rate, seen, detected, pdet, hops, tree_hops, rank,
                    )  # fmt: skip
            else:
                store = simulate_chunk(
                    store, lazy, sources, seeds, 0, T, params, gen, CHUNK_NODES, noff, n_out,
                    b_vs, b_order, b_par, b_gdeg,
                )[0]  # fmt: skip
        finally:
            if not lazy:
                g._give_store(store)  # clean: untouched, or reset by the chunk
        raise CompilePhaseDone(phase)
    i = 0
    while i < trials:
        store, end, b_order, b_par, b_gdeg = simulate_chunk(
            store, lazy, sources, seeds, i, T, params, gen, CHUNK_NODES, noff, n_out, b_vs,
            b_order, b_par, b_gdeg,
        )  # fmt: skip
        for score in scorers:
            score(
                i, end, noff, n_out, b_vs, b_order, b_par, b_gdeg, lazy, tree_graph, centre_known,
                gptr, gind, T, codes, tie_u, r_node, alive, dead, r_edge, move, lisn_rate, seen,
                detected, pdet, hops, tree_hops, rank,
            )  # fmt: skip
        i = end
    if not lazy:
        g._give_store(store)  # its run state is clean again
    if lazy:
        labels = sources.astype(np.int64)
    else:
        labels = np.asarray([g.labels[s] for s in sources.tolist()], dtype=object)
        if all(isinstance(x, (int, np.integer)) for x in labels[:64]):
            labels = labels.astype(np.int64)
    return BatchScores(
        T=T,
        trials=trials,
        sources=labels,
        n_infected=n_out,
        estimators={
            nm: EstimatorTrials(detected[k], pdet[k], hops[k], rank[k], tree_hops[k])
            for k, nm in enumerate(names)
        },
        protocol=protocol,
        graph=g,
    )
