"""The soft-margin estimator's simulation loop: n spreads from each candidate source, each
compared with the observed infected set (see :mod:`anonspread.engine.softmargin`). Built with
``-fopenmp`` where the compiler has OpenMP (candidates on threads); serial otherwise."""

from cython.parallel cimport prange, threadid
from libc.math cimport exp
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of
from anonspread.engine._spreading cimport N_KERNELS, run_protocol, work_free, work_init, work_t
from anonspread.engine._store cimport GraphStore, reset_run_state, splitmix64, store_t

cdef extern from *:
    """
    #ifdef _OPENMP
    #define ANONSPREAD_SM_OPENMP 1
    #else
    #define ANONSPREAD_SM_OPENMP 0
    #endif
    """
    int ANONSPREAD_SM_OPENMP

cdef extern from *:
    """
    #include <stdint.h>
    /* |a & b| summed over n words. On x86 compilers that target CPUs without the popcnt
       instruction by default (the wheels' baseline), __builtin_popcountll is a libgcc call
       per word: a second copy compiled for popcnt is chosen once, at import, when the CPU
       has it (never -march=native; the same integers either way). */
    static int64_t anonspread_sm_andpop_generic(const uint64_t* a, const uint64_t* b, int64_t n) {
        int64_t s = 0, i;
        for (i = 0; i < n; i++) {
            uint64_t x = a[i] & b[i];
    #if defined(__GNUC__) || defined(__clang__)
            s += __builtin_popcountll(x);
    #else
            while (x) { x &= x - 1; s++; }
    #endif
        }
        return s;
    }
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) \
        && !defined(__POPCNT__)
    __attribute__((target("popcnt")))
    static int64_t anonspread_sm_andpop_popcnt(const uint64_t* a, const uint64_t* b, int64_t n) {
        int64_t s = 0, i;
        for (i = 0; i < n; i++) s += __builtin_popcountll(a[i] & b[i]);
        return s;
    }
    static int64_t (*anonspread_sm_andpop)(const uint64_t*, const uint64_t*, int64_t) =
        anonspread_sm_andpop_generic;
    static int anonspread_sm_popcount_init(void) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("popcnt")) {
            anonspread_sm_andpop = anonspread_sm_andpop_popcnt;
            return 1;
        }
        return 0;
    }
    static int anonspread_sm_andpop_with(const uint64_t* a, const uint64_t* b, int64_t n,
                                         int hw, int64_t* out) {
        if (hw && !__builtin_cpu_supports("popcnt")) return -1;
        *out = hw ? anonspread_sm_andpop_popcnt(a, b, n) : anonspread_sm_andpop_generic(a, b, n);
        return 0;
    }
    #else
    #define anonspread_sm_andpop anonspread_sm_andpop_generic
    static int anonspread_sm_popcount_init(void) {
    #if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
        return 1;  /* the compiler's own popcount is the instruction */
    #else
        return 0;
    #endif
    }
    static int anonspread_sm_andpop_with(const uint64_t* a, const uint64_t* b, int64_t n,
                                         int hw, int64_t* out) {
        *out = anonspread_sm_andpop_generic(a, b, n);
        return 0;
    }
    #endif
    """
    int64_t anonspread_sm_andpop(const uint64_t* a, const uint64_t* b, int64_t n) nogil
    int anonspread_sm_popcount_init()
    int anonspread_sm_andpop_with(const uint64_t* a, const uint64_t* b, int64_t n, int hw,
                                  int64_t* out) nogil

cdef extern from *:
    """
    static inline int anonspread_sm_ctz64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzll(x);
    #else
        int c = 0; while (!(x & 1ULL)) { x >>= 1; c++; } return c;
    #endif
    }
    """
    int anonspread_sm_ctz64(unsigned long long x) nogil

#: Most bytes of snapshot bitsets :func:`accumulate_shared` allocates (beyond it, the
#: snapshot-membership counts are used whatever they cost).
BITSET_BYTES = 1 << 26

#: Whether this build runs candidates on OpenMP threads.
OPENMP = bool(ANONSPREAD_SM_OPENMP)

#: Whether the bitset scoring counts bits with the CPU's popcount instruction (chosen here,
#: at import; else a portable count, the same integers).
HARDWARE_POPCOUNT = bool(anonspread_sm_popcount_init())


def _and_popcount(const uint64_t[::1] a, const uint64_t[::1] b, bint hardware):
    """``|a & b|`` by the hardware (True) or portable (False) count, for the tests that
    compare them; hardware on a CPU without the instruction raises."""
    cdef int64_t out = 0
    if a.shape[0] != b.shape[0]:
        raise ValueError("a and b must have the same length")
    if a.shape[0] == 0:
        return 0
    if anonspread_sm_andpop_with(&a[0], &b[0], a.shape[0], hardware, &out) != 0:
        raise RuntimeError("this CPU has no popcount instruction")
    return out


cdef inline void _lse_add2(double* m1, double* s1, double* m2, double* s2, double e) noexcept nogil:
    """Add ``exp(e)`` to the sum ``(m1, s1)`` and ``exp(2 e)`` to ``(m2, s2)``.

    ``m2 = 2 m1`` always (both start at -inf and take their maximum at the same terms, and
    doubling is exact), so the second term relative to its maximum is the square of the
    first: one ``exp`` for both sums (the square agrees with ``exp(2 (e - m1))`` to a few
    ulps). The sums are kept as (running max ``m``, scaled sum ``s``); ``s >= 1`` (the
    maximum term counts 1), so a term ``exp(e - m1) < e^-37 < 2^-53`` is below half an ulp
    of ``s1`` (its square, of ``s2``) and rounds away: skipping its ``exp`` leaves both
    sums bitwise unchanged (most runs of a narrow kernel)."""
    cdef double x
    if e > m1[0]:
        x = exp(m1[0] - e)
        s1[0] = s1[0] * x + 1.0
        s2[0] = s2[0] * (x * x) + 1.0
        m1[0] = e
        m2[0] = 2.0 * e
    elif e - m1[0] >= -37.0:
        x = exp(e - m1[0])
        s1[0] += x
        s2[0] += x * x


cdef inline void _score_pair(int64_t p, int64_t inter, int64_t n, int64_t no, const double* inv_a2,
                             int64_t nw, double* m1, double* s1, double* m2, double* s2,
                             double* jac, int64_t* hits, int64_t* runs,
                             int64_t* near) noexcept nogil:
    """Add a run of ``n`` infected nodes, ``inter`` of them in pair ``p``'s snapshot of
    ``no`` nodes, to the pair's sums: the Jaccard similarity and its square, an exact
    match, the run, and per width the kernel log-sums and the near misses (within one
    width: ``1 - phi <= a``)."""
    cdef double phi = <double> inter / <double> (n + no - inter), d2
    cdef int64_t j
    jac[2 * p] += phi
    jac[2 * p + 1] += phi * phi
    if inter == no and n == no:
        hits[p] += 1
    runs[p] += 1
    d2 = (phi - 1.0) * (phi - 1.0)
    for j in range(nw):
        _lse_add2(&m1[p * nw + j], &s1[p * nw + j], &m2[p * nw + j], &s2[p * nw + j],
                  -d2 * inv_a2[j])
        if d2 * inv_a2[j] <= 1.0:
            near[p * nw + j] += 1


cdef int _candidate(int code, store_t* s, work_t* w, int64_t src, int64_t n_sims, int64_t T,
                    const double* params, bitgen_t* bg, int32_t* vs_out, int64_t* sizes,
                    const uint8_t* mask, int64_t mlen, int64_t n_obs, const double* inv_a2,
                    int64_t nw, double* m1, double* s1, double* m2, double* s2, double* jac,
                    int64_t* hits) except -1 nogil:
    """``n_sims`` runs from ``src``: accumulate the Jaccard similarity of each run's infected
    set with the observed one, its square, the exact matches and, per width, the kernel
    ``exp(-(phi - 1)^2 / a^2)`` and its square as log-sums."""
    cdef int64_t i, k, n, inter, v, j
    cdef double phi, d2
    for i in range(n_sims):
        n = run_protocol(code, s, w, src, T, params, bg, vs_out, sizes)
        inter = 0
        for k in range(n):
            v = s.order[k]
            if v < mlen and mask[v]:
                inter += 1
        reset_run_state(s, n)
        phi = <double> inter / <double> (n + n_obs - inter)
        jac[0] += phi
        jac[1] += phi * phi
        if inter == n_obs and n == n_obs:
            hits[0] += 1
        d2 = (phi - 1.0) * (phi - 1.0)
        for j in range(nw):
            _lse_add2(&m1[j], &s1[j], &m2[j], &s2[j], -d2 * inv_a2[j])
    return 0


def accumulate(int code, list stores, const int32_t[::1] sources, list gens, int64_t n_sims,
               int64_t T, const double[::1] params, const uint8_t[::1] mask, int64_t n_obs,
               const double[::1] inv_a2, double[:, ::1] m1, double[:, ::1] s1,
               double[:, ::1] m2, double[:, ::1] s2, double[:, ::1] jac, int64_t[::1] hits):
    """``n_sims`` more runs from each of ``sources`` (see
    :func:`anonspread.engine.softmargin.accumulate`); ``len(stores)`` threads."""
    cdef Py_ssize_t nc = sources.shape[0], c
    cdef int nthr = len(stores), t
    cdef int64_t nw = inv_a2.shape[0], mlen = mask.shape[0], T1 = T + 1
    cdef bitgen_t** bgs
    cdef store_t** ss
    cdef work_t* ws
    cdef int32_t* vsb
    cdef int64_t* szb
    cdef int ninit = 0
    if not 0 <= code < N_KERNELS:
        raise ValueError(f"kernel code must be in 0..{N_KERNELS - 1}; got {code}")
    if nthr < 1 or len(gens) != nc:
        raise ValueError("accumulate needs at least one store and one generator per source")
    if not (m1.shape[0] == s1.shape[0] == m2.shape[0] == s2.shape[0] == nc
            and m1.shape[1] == s1.shape[1] == m2.shape[1] == s2.shape[1] == nw):
        raise ValueError("the log-sum arrays must have shape (sources, widths)")
    if jac.shape[0] != nc or jac.shape[1] != 2 or hits.shape[0] != nc:
        raise ValueError("jac must have shape (sources, 2) and hits one entry per source")
    for t in range(nthr):
        if not isinstance(stores[t], GraphStore):
            raise TypeError(f"stores[{t}] must be a GraphStore; got {stores[t]!r}")
    for c in range(nc):
        for t in range(nthr):
            if not 0 <= sources[c] < (<GraphStore> stores[t]).s.n_nodes:
                raise ValueError(f"sources[{c}] = {sources[c]} is not a node of store {t}")
    if nc == 0 or n_sims <= 0:
        return
    bgs = <bitgen_t**> malloc(nc * sizeof(bitgen_t*))
    ss = <store_t**> malloc(nthr * sizeof(store_t*))
    ws = <work_t*> malloc(nthr * sizeof(work_t))
    vsb = <int32_t*> malloc(nthr * T1 * sizeof(int32_t))
    szb = <int64_t*> malloc(nthr * T1 * sizeof(int64_t))
    try:
        if bgs == NULL or ss == NULL or ws == NULL or vsb == NULL or szb == NULL:
            raise MemoryError()
        for c in range(nc):
            bgs[c] = bitgen_of(gens[c])  # each candidate's own stream, private to this call
        for t in range(nthr):
            ss[t] = &(<GraphStore> stores[t]).s
            work_init(&ws[t], 256, ss[t].maxdeg)
            ninit += 1
        if nthr == 1:
            with nogil:
                for c in range(nc):
                    _candidate(code, ss[0], &ws[0], sources[c], n_sims, T, &params[0], bgs[c],
                               vsb, szb, &mask[0], mlen, n_obs, &inv_a2[0], nw, &m1[c, 0],
                               &s1[c, 0], &m2[c, 0], &s2[c, 0], &jac[c, 0], &hits[c])
        else:
            for c in prange(nc, nogil=True, num_threads=nthr, schedule="dynamic", chunksize=1):
                t = threadid()
                _candidate(code, ss[t], &ws[t], sources[c], n_sims, T, &params[0], bgs[c],
                           vsb + t * T1, szb + t * T1, &mask[0], mlen, n_obs, &inv_a2[0], nw,
                           &m1[c, 0], &s1[c, 0], &m2[c, 0], &s2[c, 0], &jac[c, 0], &hits[c])
    finally:
        for t in range(ninit):
            work_free(&ws[t])
        free(bgs)
        free(ss)
        free(ws)
        free(vsb)
        free(szb)


cdef int _candidate_shared(int code, store_t* s, work_t* w, int64_t src, int64_t n_sims,
                           int64_t T, const double* params, bitgen_t* bg, int32_t* vs_out,
                           int64_t* sizes, const int64_t* snap_ptr, const int32_t* snap_ids,
                           int64_t mlen, const int64_t* n_obs, int64_t* cnt, int64_t p0,
                           int64_t p1, const int32_t* pair_snap, const uint8_t* active,
                           const double* inv_a2, int64_t nw, double* m1, double* s1,
                           double* m2, double* s2, double* jac, int64_t* hits,
                           int64_t* runs, int64_t* near, const int32_t* compact,
                           const uint64_t* sbits, int64_t W, uint64_t* rbits) except -1 nogil:
    """``n_sims`` runs from ``src``, each scored against every snapshot ``pair_snap[p]`` of
    the active pairs ``p0 <= p < p1`` of this candidate.

    Two ways to count ``|run & snapshot|``, the same integers: with ``sbits`` NULL, one
    counter per snapshot (``cnt``, zeroed, left zeroed) incremented for every snapshot
    holding each run node (cost: the run's nodes x the snapshots holding them); else the
    run as a bitset ``rbits`` (``W`` zeroed words, left zeroed) over the nodes of any
    snapshot (``compact[v]``: node ``v``'s bit, -1 if in none) and-ed with each active
    pair's snapshot bitset (``sbits``: ``W`` words per snapshot) and counted by popcount
    (cost: ``W`` words per active pair)."""
    cdef int64_t i, k, n, inter, v, e, p, b, ci
    for i in range(n_sims):
        n = run_protocol(code, s, w, src, T, params, bg, vs_out, sizes)
        if sbits == NULL:
            for k in range(n):
                v = s.order[k]
                if v < mlen:
                    for e in range(snap_ptr[v], snap_ptr[v + 1]):
                        cnt[snap_ids[e]] += 1
        else:
            for k in range(n):
                v = s.order[k]
                if v < mlen:
                    ci = compact[v]
                    if ci >= 0:
                        rbits[ci >> 6] |= (<uint64_t> 1) << (ci & 63)
        for p in range(p0, p1):
            if not active[p]:
                continue
            b = pair_snap[p]
            if sbits == NULL:
                inter = cnt[b]
            else:
                inter = anonspread_sm_andpop(rbits, sbits + b * W, W)
            _score_pair(p, inter, n, n_obs[b], inv_a2, nw, m1, s1, m2, s2, jac, hits, runs, near)
        if sbits == NULL:
            for k in range(n):
                v = s.order[k]
                if v < mlen:
                    for e in range(snap_ptr[v], snap_ptr[v + 1]):
                        cnt[snap_ids[e]] = 0
        elif W <= n:
            memset(rbits, 0, W * sizeof(uint64_t))
        else:
            for k in range(n):
                v = s.order[k]
                if v < mlen and compact[v] >= 0:
                    rbits[compact[v] >> 6] = 0
        reset_run_state(s, n)
    return 0


cdef uint64_t* _snapshot_bits(const int64_t[::1] snap_ptr, const int32_t[::1] snap_ids,
                              int64_t nb, int32_t* compact, int64_t* W) except NULL:
    """Each node of some snapshot gets a bit (``compact[v]``, -1 for the others) and each
    snapshot a bitset over them, ``W[0]`` words (returned; the caller frees it)."""
    cdef int64_t mlen = snap_ptr.shape[0] - 1, U = 0, v, ci, e
    cdef uint64_t* sbits
    for v in range(mlen):
        if snap_ptr[v + 1] > snap_ptr[v]:
            compact[v] = <int32_t> U
            U += 1
        else:
            compact[v] = -1
    W[0] = (U + 63) // 64 if U > 0 else 1
    sbits = <uint64_t*> calloc((nb if nb > 0 else 1) * W[0], sizeof(uint64_t))
    if sbits == NULL:
        raise MemoryError()
    for v in range(mlen):
        ci = compact[v]
        for e in range(snap_ptr[v], snap_ptr[v + 1]):
            sbits[snap_ids[e] * W[0] + (ci >> 6)] |= (<uint64_t> 1) << (ci & 63)
    return sbits


cdef int _check_pairs(Py_ssize_t nc, const int64_t[::1] pair_ptr, const int32_t[::1] pair_snap,
                      const uint8_t[::1] active, const int64_t[::1] snap_ptr,
                      const int32_t[::1] snap_ids, int64_t nb, int64_t nw, double[:, ::1] m1,
                      double[:, ::1] s1, double[:, ::1] m2, double[:, ::1] s2,
                      double[:, ::1] jac, int64_t[::1] hits, int64_t[::1] runs,
                      int64_t[:, ::1] near) except -1:
    """The pair layout and sums of :func:`accumulate_shared` and
    :func:`accumulate_shared_lanes`, checked once per call."""
    cdef int64_t npairs = pair_snap.shape[0], mlen = snap_ptr.shape[0] - 1, p, e, c
    if pair_ptr.shape[0] != nc + 1 or pair_ptr[0] != 0 or pair_ptr[nc] != npairs:
        raise ValueError("pair_ptr must have one entry per source plus one, from 0 to the pairs")
    for c in range(nc):
        if pair_ptr[c + 1] < pair_ptr[c]:
            raise ValueError("pair_ptr must be non-decreasing")
    if active.shape[0] != npairs or hits.shape[0] != npairs or runs.shape[0] != npairs:
        raise ValueError("active, hits and runs must have one entry per pair")
    if not (m1.shape[0] == s1.shape[0] == m2.shape[0] == s2.shape[0] == npairs
            and m1.shape[1] == s1.shape[1] == m2.shape[1] == s2.shape[1] == nw):
        raise ValueError("the log-sum arrays must have shape (pairs, widths)")
    if jac.shape[0] != npairs or jac.shape[1] != 2:
        raise ValueError("jac must have shape (pairs, 2)")
    if near.shape[0] != npairs or near.shape[1] != nw:
        raise ValueError("near must have shape (pairs, widths)")
    for p in range(npairs):
        if not 0 <= pair_snap[p] < nb:
            raise ValueError(f"pair_snap[{p}] = {pair_snap[p]} is not a snapshot (0..{nb - 1})")
    if snap_ids.shape[0] == 0 and npairs > 0:
        raise ValueError("snap_ids must list the snapshots' nodes (empty)")
    if mlen < 0 or snap_ptr[0] != 0 or snap_ptr[mlen] != snap_ids.shape[0]:
        raise ValueError("snap_ptr must run from 0 to len(snap_ids)")
    for c in range(mlen):
        if snap_ptr[c + 1] < snap_ptr[c]:
            raise ValueError("snap_ptr must be non-decreasing")
    for e in range(snap_ids.shape[0]):
        if not 0 <= snap_ids[e] < nb:
            raise ValueError(f"snap_ids[{e}] = {snap_ids[e]} is not a snapshot (0..{nb - 1})")
    return 0


def accumulate_shared(int code, list stores, const int32_t[::1] sources, list gens,
                      int64_t n_sims, int64_t T, const double[::1] params,
                      const int64_t[::1] pair_ptr, const int32_t[::1] pair_snap,
                      const uint8_t[::1] active, const int64_t[::1] snap_ptr,
                      const int32_t[::1] snap_ids, const int64_t[::1] n_obs,
                      const double[::1] inv_a2, double[:, ::1] m1, double[:, ::1] s1,
                      double[:, ::1] m2, double[:, ::1] s2, double[:, ::1] jac,
                      int64_t[::1] hits, int64_t[::1] runs, int64_t[:, ::1] near,
                      int scoring=-1):
    """``n_sims`` more runs from each candidate of ``sources`` that has an active pair,
    each run scored against the snapshots of its active pairs (see
    :func:`anonspread.engine.softmargin.accumulate_shared`); ``len(stores)`` threads.

    ``scoring``: 0 counts per snapshot, 1 bitsets, -1 the cheaper by :func:`scoring_costs`
    (the same sums either way). Returns the way used (0 or 1)."""
    cdef Py_ssize_t nc = sources.shape[0], c
    cdef int nthr = len(stores), t
    cdef int64_t nw = inv_a2.shape[0], mlen = snap_ptr.shape[0] - 1, T1 = T + 1
    cdef int64_t npairs = pair_snap.shape[0], nb = n_obs.shape[0], p, e
    cdef bitgen_t** bgs
    cdef store_t** ss
    cdef work_t* ws
    cdef int32_t* vsb
    cdef int64_t* szb
    cdef int64_t* cnt
    cdef uint8_t* live
    cdef int32_t* compact = NULL
    cdef uint64_t* sbits = NULL
    cdef uint64_t* rbits = NULL
    cdef int64_t W = 0, U = 0, v, ci
    cdef int ninit = 0
    if not 0 <= code < N_KERNELS:
        raise ValueError(f"kernel code must be in 0..{N_KERNELS - 1}; got {code}")
    if scoring not in (-1, 0, 1):
        raise ValueError(f"scoring must be -1 (the cheaper), 0 (counts) or 1 (bitsets); got {scoring}")
    if nthr < 1 or len(gens) != nc:
        raise ValueError("accumulate_shared needs at least one store and one generator per source")
    _check_pairs(nc, pair_ptr, pair_snap, active, snap_ptr, snap_ids, nb, nw, m1, s1, m2, s2,
                 jac, hits, runs, near)
    for t in range(nthr):
        if not isinstance(stores[t], GraphStore):
            raise TypeError(f"stores[{t}] must be a GraphStore; got {stores[t]!r}")
    for c in range(nc):
        for t in range(nthr):
            if not 0 <= sources[c] < (<GraphStore> stores[t]).s.n_nodes:
                raise ValueError(f"sources[{c}] = {sources[c]} is not a node of store {t}")
    if nc == 0 or n_sims <= 0 or npairs == 0:
        return 0
    if scoring == -1:
        counts_cost, bits_cost, nbytes = scoring_costs(pair_ptr, active, snap_ptr, nb)
        scoring = 1 if bits_cost < counts_cost and nbytes <= BITSET_BYTES else 0
    bgs = <bitgen_t**> malloc(nc * sizeof(bitgen_t*))
    ss = <store_t**> malloc(nthr * sizeof(store_t*))
    ws = <work_t*> malloc(nthr * sizeof(work_t))
    vsb = <int32_t*> malloc(nthr * T1 * sizeof(int32_t))
    szb = <int64_t*> malloc(nthr * T1 * sizeof(int64_t))
    cnt = <int64_t*> calloc(nthr * (nb if nb > 0 else 1), sizeof(int64_t))
    live = <uint8_t*> calloc(nc, sizeof(uint8_t))
    try:
        if (bgs == NULL or ss == NULL or ws == NULL or vsb == NULL or szb == NULL or cnt == NULL
                or live == NULL):
            raise MemoryError()
        if scoring == 1:
            compact = <int32_t*> malloc((mlen if mlen > 0 else 1) * sizeof(int32_t))
            if compact == NULL:
                raise MemoryError()
            sbits = _snapshot_bits(snap_ptr, snap_ids, nb, compact, &W)
            rbits = <uint64_t*> calloc(nthr * W, sizeof(uint64_t))
            if rbits == NULL:
                raise MemoryError()
        for c in range(nc):
            for p in range(pair_ptr[c], pair_ptr[c + 1]):
                if active[p]:
                    live[c] = 1
            # only a candidate that runs takes its generator: the others are not touched
            bgs[c] = bitgen_of(gens[c]) if live[c] else NULL
        for t in range(nthr):
            ss[t] = &(<GraphStore> stores[t]).s
            work_init(&ws[t], 256, ss[t].maxdeg)
            ninit += 1
        if nthr == 1:
            with nogil:
                for c in range(nc):
                    if live[c]:
                        _candidate_shared(code, ss[0], &ws[0], sources[c], n_sims, T, &params[0],
                                          bgs[c], vsb, szb, &snap_ptr[0], &snap_ids[0], mlen,
                                          &n_obs[0], cnt, pair_ptr[c], pair_ptr[c + 1],
                                          &pair_snap[0], &active[0], &inv_a2[0], nw, &m1[0, 0],
                                          &s1[0, 0], &m2[0, 0], &s2[0, 0], &jac[0, 0], &hits[0],
                                          &runs[0], &near[0, 0], compact, sbits, W, rbits)
        else:
            for c in prange(nc, nogil=True, num_threads=nthr, schedule="dynamic", chunksize=1):
                t = threadid()
                if live[c]:
                    _candidate_shared(code, ss[t], &ws[t], sources[c], n_sims, T, &params[0],
                                      bgs[c], vsb + t * T1, szb + t * T1, &snap_ptr[0],
                                      &snap_ids[0], mlen, &n_obs[0], cnt + t * nb, pair_ptr[c],
                                      pair_ptr[c + 1], &pair_snap[0], &active[0], &inv_a2[0], nw,
                                      &m1[0, 0], &s1[0, 0], &m2[0, 0], &s2[0, 0], &jac[0, 0],
                                      &hits[0], &runs[0], &near[0, 0], compact, sbits, W,
                                      rbits + t * W if rbits != NULL else NULL)
    finally:
        for t in range(ninit):
            work_free(&ws[t])
        free(bgs)
        free(ss)
        free(ws)
        free(vsb)
        free(szb)
        free(cnt)
        free(live)
        free(compact)
        free(sbits)
        free(rbits)
    return scoring


def scoring_costs(const int64_t[::1] pair_ptr, const uint8_t[::1] active,
                  const int64_t[::1] snap_ptr, int64_t nb):
    """Expected word operations per run of each way to score it in
    :func:`accumulate_shared`, and the bytes of the snapshots' bitsets.

    A run resembles a snapshot of the batch, so its nodes are held by as many snapshots
    as a snapshot's nodes are on average: ``sum_v h_v^2 / nb`` (``h_v``: snapshots holding
    node ``v``), each counted and reset (counts: twice that). Bitsets: the run's bits set
    and cleared (``2 sum_v h_v / nb``) and ``W = ceil(U / 64)`` words (``U``: nodes of
    any snapshot) per active pair of a running candidate. Returns ``(counts, bitsets,
    bytes)``."""
    cdef int64_t mlen = snap_ptr.shape[0] - 1, v, h, U = 0, W, c, p, live = 0, pairs = 0
    cdef int64_t nc = pair_ptr.shape[0] - 1
    cdef double sq = 0.0, members = 0.0
    cdef bint any_active
    for v in range(mlen):
        h = snap_ptr[v + 1] - snap_ptr[v]
        if h > 0:
            U += 1
            sq += <double> h * h
            members += h
    for c in range(nc):
        any_active = False
        for p in range(pair_ptr[c], pair_ptr[c + 1]):
            if active[p]:
                pairs += 1
                any_active = True
        live += any_active
    if nb <= 0 or live == 0:
        return 0.0, 0.0, 0
    W = (U + 63) // 64 if U > 0 else 1
    return (2.0 * sq / nb, 2.0 * members / nb + <double> W * pairs / live,
            int(nb * W * 8 + (mlen if mlen > 0 else 1) * 4))



# ---------------------------------------------------------------- 64 runs at once (SI family)
#
# Random diffusion and flooding on a finite graph: one word per node holds the node's state
# in 64 runs (bit l: infected in run l). A step is, for every node u infected in some run
# and every neighbour v, new[v] |= inf[u] & ~inf[v] & B(u, v, t), B a word of independent
# Bernoulli(p) bits, then inf |= new: in each run, exactly the synchronous rule of the
# serial kernel (each boundary node tries each uninfected neighbour once a step with
# probability p; nodes infected at step t act from t + 1). The bits B are drawn only for
# the runs where the attempt matters (``want``), by comparing p's binary expansion with
# uniform bits, most significant first, until every wanted run is decided: P(bit) = p
# exactly (p's double value), about log2(popcount(want)) + 2 words per attempt.


cdef struct xo_t:
    uint64_t s0
    uint64_t s1
    uint64_t s2
    uint64_t s3


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t _xo_next(xo_t* x) noexcept nogil:
    """xoshiro256** (Blackman and Vigna)."""
    cdef uint64_t r = _rotl(x.s1 * <uint64_t> 5, 7) * <uint64_t> 9
    cdef uint64_t t = x.s1 << 17
    x.s2 ^= x.s0
    x.s3 ^= x.s1
    x.s1 ^= x.s2
    x.s0 ^= x.s3
    x.s2 ^= t
    x.s3 = _rotl(x.s3, 45)
    return r


cdef inline void _xo_seed(xo_t* x, uint64_t key, uint64_t block) noexcept nogil:
    """The stream of 64-run block ``block`` of the candidate of key ``key``: xoshiro256**
    seeded by SplitMix64 from a mix of the two."""
    cdef uint64_t z = splitmix64(key ^ splitmix64(block))
    cdef uint64_t g = <uint64_t> 0x9E3779B97F4A7C15ULL
    x.s0 = splitmix64(z)
    x.s1 = splitmix64(z + g)
    x.s2 = splitmix64(z + 2 * g)
    x.s3 = splitmix64(z + 3 * g)


cdef inline uint64_t _bernoulli(xo_t* x, uint64_t want, const uint8_t* pbits,
                                int64_t npb) noexcept nogil:
    """Bits of ``want`` set independently with probability p = 0.b_1 b_2 ... b_npb
    (binary, ``pbits``): a run's bit is U < p for a uniform U whose bits are drawn a word
    at a time for all runs still undecided."""
    cdef uint64_t res = 0, und = want, r
    cdef int64_t i
    for i in range(npb):
        r = _xo_next(x)
        if pbits[i]:
            res |= und & ~r
            und &= r
        else:
            und &= ~r
        if und == 0:
            break
    return res


ctypedef struct lanes_t:
    uint64_t* inf    # [n] runs in which each node is infected
    uint64_t* newm   # [n] runs in which it was infected this step (zero between steps)
    uint8_t* st      # [n] 0 never infected, 1 acting, 2 saturated in every run it is in
    int32_t* act     # [n] nodes acting this step
    int32_t* nxt     # [n] nodes acting next step
    int32_t* newl    # [n] nodes infected in some run this step
    int32_t* infl    # [n] nodes infected in some run, in order of first infection
    uint64_t* rb     # [64 * W] each run's infected set over the snapshots' nodes
    int64_t nrun[64]  # each run's infected count


cdef int _lanes_init(lanes_t* L, int64_t n, int64_t W) except -1:
    L.inf = <uint64_t*> calloc(n, sizeof(uint64_t))
    L.newm = <uint64_t*> calloc(n, sizeof(uint64_t))
    L.st = <uint8_t*> calloc(n, sizeof(uint8_t))
    L.act = <int32_t*> malloc(n * sizeof(int32_t))
    L.nxt = <int32_t*> malloc(n * sizeof(int32_t))
    L.newl = <int32_t*> malloc(n * sizeof(int32_t))
    L.infl = <int32_t*> malloc(n * sizeof(int32_t))
    L.rb = <uint64_t*> calloc(64 * W, sizeof(uint64_t))
    if (L.inf == NULL or L.newm == NULL or L.st == NULL or L.act == NULL or L.nxt == NULL
            or L.newl == NULL or L.infl == NULL or L.rb == NULL):
        raise MemoryError()
    return 0


cdef void _lanes_free(lanes_t* L) noexcept:
    free(L.inf)
    free(L.newm)
    free(L.st)
    free(L.act)
    free(L.nxt)
    free(L.newl)
    free(L.infl)
    free(L.rb)


cdef int64_t _lanes_block(const int64_t* start, const int32_t* deg, const int32_t* nbr,
                          int64_t src, int64_t T, bint certain, const uint8_t* pbits,
                          int64_t npb, xo_t* x, lanes_t* L) noexcept nogil:
    """64 runs of ``T`` steps from ``src`` (``certain``: every attempt succeeds, flooding).
    Returns the nodes infected in some run (``L.infl[:k]``, their runs in ``L.inf``)."""
    cdef int64_t ninf = 1, nact = 1, nnew, nn, t, i, j, u, v
    cdef uint64_t iu, want, got
    cdef int32_t* tmp
    cdef bint live
    L.inf[src] = ~(<uint64_t> 0)
    L.st[src] = 1
    L.act[0] = <int32_t> src
    L.infl[0] = <int32_t> src
    for t in range(T):
        nnew = 0
        nn = 0
        for i in range(nact):
            u = L.act[i]
            iu = L.inf[u]
            live = False
            for j in range(start[u], start[u] + deg[u]):
                v = nbr[j]
                want = iu & ~L.inf[v]
                if want == 0:
                    continue
                live = True
                want &= ~L.newm[v]
                if want == 0:
                    continue
                got = want if certain else _bernoulli(x, want, pbits, npb)
                if got != 0:
                    if L.newm[v] == 0:
                        L.newl[nnew] = <int32_t> v
                        nnew += 1
                    L.newm[v] |= got
            if live:
                L.nxt[nn] = <int32_t> u
                nn += 1
            else:
                L.st[u] = 2  # its neighbours are infected in every run it is: until it gains runs
        for i in range(nnew):
            v = L.newl[i]
            if L.st[v] == 0:
                L.infl[ninf] = <int32_t> v
                ninf += 1
            if L.st[v] != 1:
                L.nxt[nn] = <int32_t> v
                nn += 1
                L.st[v] = 1
            L.inf[v] |= L.newm[v]
            L.newm[v] = 0
        tmp = L.act
        L.act = L.nxt
        L.nxt = tmp
        nact = nn
        if nact == 0:
            break
    return ninf


cdef int _candidate_lanes(const int64_t* start, const int32_t* deg, const int32_t* nbr,
                          int64_t src, uint64_t key, int64_t first, int64_t n_sims, int64_t T,
                          bint certain, const uint8_t* pbits, int64_t npb, lanes_t* L,
                          int64_t mlen, const int32_t* compact, const uint64_t* sbits, int64_t W,
                          const int64_t* n_obs, int64_t p0, int64_t p1,
                          const int32_t* pair_snap, const uint8_t* active,
                          const double* inv_a2, int64_t nw, double* m1, double* s1,
                          double* m2, double* s2, double* jac, int64_t* hits, int64_t* runs,
                          int64_t* near) except -1 nogil:
    """Runs ``first .. first + n_sims - 1`` of the candidate (run r: lane r % 64 of block
    r // 64), each scored, in run order, against the snapshots of its active pairs."""
    cdef int64_t blk, b0 = first // 64, b1 = (first + n_sims + 63) // 64, lo, hi, l, k, v, ci
    cdef int64_t ninf, p, b, inter, n
    cdef uint64_t xw
    cdef const uint64_t* rl
    cdef xo_t x
    for blk in range(b0, b1):
        _xo_seed(&x, key, <uint64_t> blk)
        ninf = _lanes_block(start, deg, nbr, src, T, certain, pbits, npb, &x, L)
        memset(L.nrun, 0, 64 * sizeof(int64_t))
        for k in range(ninf):
            v = L.infl[k]
            xw = L.inf[v]
            ci = compact[v] if v < mlen else -1
            while xw != 0:
                l = anonspread_sm_ctz64(xw)
                xw &= xw - 1
                L.nrun[l] += 1
                if ci >= 0:
                    L.rb[l * W + (ci >> 6)] |= (<uint64_t> 1) << (ci & 63)
        lo = first - blk * 64 if first > blk * 64 else 0
        hi = first + n_sims - blk * 64 if first + n_sims < (blk + 1) * 64 else 64
        for l in range(lo, hi):
            n = L.nrun[l]
            rl = L.rb + l * W
            for p in range(p0, p1):
                if not active[p]:
                    continue
                b = pair_snap[p]
                inter = anonspread_sm_andpop(rl, sbits + b * W, W)
                _score_pair(p, inter, n, n_obs[b], inv_a2, nw, m1, s1, m2, s2, jac, hits, runs,
                            near)
        memset(L.rb, 0, 64 * W * sizeof(uint64_t))
        for k in range(ninf):
            v = L.infl[k]
            L.inf[v] = 0
            L.st[v] = 0
    return 0


def accumulate_shared_lanes(list stores, const int32_t[::1] sources, const uint64_t[::1] keys,
                            int64_t[::1] drawn, int64_t n_sims, int64_t T, bint certain,
                            const uint8_t[::1] pbits, const int64_t[::1] pair_ptr,
                            const int32_t[::1] pair_snap, const uint8_t[::1] active,
                            const int64_t[::1] snap_ptr, const int32_t[::1] snap_ids,
                            const int64_t[::1] n_obs, const double[::1] inv_a2,
                            double[:, ::1] m1, double[:, ::1] s1, double[:, ::1] m2,
                            double[:, ::1] s2, double[:, ::1] jac, int64_t[::1] hits,
                            int64_t[::1] runs, int64_t[:, ::1] near):
    """Runs ``drawn[c] .. drawn[c] + n_sims - 1`` of each candidate ``c`` of ``sources``
    that has an active pair (``drawn[c]`` then advanced by ``n_sims``), 64 at a time,
    scored by bitsets (see
    :func:`anonspread.engine.softmargin.accumulate_shared_lanes`); ``len(stores)`` threads
    over one finite graph's CSR (the stores' run state is not used)."""
    cdef Py_ssize_t nc = sources.shape[0], c
    cdef int nthr = len(stores), t
    cdef int64_t nw = inv_a2.shape[0], mlen = snap_ptr.shape[0] - 1, npb = pbits.shape[0]
    cdef int64_t npairs = pair_snap.shape[0], nb = n_obs.shape[0], p, e, v, ci, n_nodes
    cdef store_t* s0
    cdef lanes_t* Ls = NULL
    cdef uint8_t* live = NULL
    cdef int32_t* compact = NULL
    cdef uint64_t* sbits = NULL
    cdef int64_t W, U = 0
    cdef int ninit = 0
    if nthr < 1 or keys.shape[0] != nc or drawn.shape[0] != nc:
        raise ValueError("accumulate_shared_lanes needs at least one store, one key and one "
                         "run count per source")
    if n_sims < 0 or T < 0:
        raise ValueError(f"n_sims and T must be >= 0; got {n_sims}, {T}")
    for c in range(nc):
        if drawn[c] < 0 or drawn[c] > (1 << 56):
            raise ValueError(f"drawn[{c}] = {drawn[c]} must be in 0..2**56")
    for t in range(nthr):
        if not isinstance(stores[t], GraphStore):
            raise TypeError(f"stores[{t}] must be a GraphStore; got {stores[t]!r}")
        if (<GraphStore> stores[t]).s.lazy:
            raise ValueError("accumulate_shared_lanes runs on a finite graph, not a lazily grown tree")
    s0 = &(<GraphStore> stores[0]).s
    n_nodes = s0.n_nodes
    for c in range(nc):
        if not 0 <= sources[c] < n_nodes:
            raise ValueError(f"sources[{c}] = {sources[c]} is not a node of the graph")
    _check_pairs(nc, pair_ptr, pair_snap, active, snap_ptr, snap_ids, nb, nw, m1, s1, m2, s2,
                 jac, hits, runs, near)
    if nc == 0 or n_sims == 0 or npairs == 0:
        return
    live = <uint8_t*> calloc(nc, sizeof(uint8_t))
    compact = <int32_t*> malloc((mlen if mlen > 0 else 1) * sizeof(int32_t))
    try:
        if live == NULL or compact == NULL:
            raise MemoryError()
        sbits = _snapshot_bits(snap_ptr, snap_ids, nb, compact, &W)
        Ls = <lanes_t*> calloc(nthr, sizeof(lanes_t))
        if Ls == NULL:
            raise MemoryError()
        for c in range(nc):
            for p in range(pair_ptr[c], pair_ptr[c + 1]):
                if active[p]:
                    live[c] = 1
        for t in range(nthr):
            ninit += 1
            _lanes_init(&Ls[t], n_nodes, W)
        if nthr == 1:
            with nogil:
                for c in range(nc):
                    if live[c]:
                        _candidate_lanes(s0.start, s0.deg, s0.nbr, sources[c], keys[c], drawn[c],
                                         n_sims, T, certain, &pbits[0] if npb else NULL, npb,
                                         &Ls[0], mlen, compact, sbits, W, &n_obs[0], pair_ptr[c],
                                         pair_ptr[c + 1], &pair_snap[0], &active[0], &inv_a2[0],
                                         nw, &m1[0, 0], &s1[0, 0], &m2[0, 0], &s2[0, 0],
                                         &jac[0, 0], &hits[0], &runs[0], &near[0, 0])
        else:
            for c in prange(nc, nogil=True, num_threads=nthr, schedule="dynamic", chunksize=1):
                t = threadid()
                if live[c]:
                    _candidate_lanes(s0.start, s0.deg, s0.nbr, sources[c], keys[c], drawn[c],
                                     n_sims, T, certain, &pbits[0] if npb else NULL, npb,
                                     &Ls[t], mlen, compact, sbits, W, &n_obs[0], pair_ptr[c],
                                     pair_ptr[c + 1], &pair_snap[0], &active[0], &inv_a2[0],
                                     nw, &m1[0, 0], &s1[0, 0], &m2[0, 0], &s2[0, 0],
                                     &jac[0, 0], &hits[0], &runs[0], &near[0, 0])
        for c in range(nc):
            if live[c]:
                drawn[c] += n_sims
    finally:
        if Ls != NULL:
            for t in range(ninit):
                _lanes_free(&Ls[t])
        free(Ls)
        free(live)
        free(compact)
        free(sbits)


def lanes_bytes(int64_t n_nodes, int64_t n_snapshots, int64_t n_bits, int threads):
    """Bytes :func:`accumulate_shared_lanes` allocates: the snapshots' bitsets over
    ``n_bits`` nodes and, per thread, 25 bytes per graph node and 64 run bitsets."""
    cdef int64_t W = (n_bits + 63) // 64 if n_bits > 0 else 1
    return int(n_snapshots * W * 8 + threads * (n_nodes * 25 + 64 * W * 8))
