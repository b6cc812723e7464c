"""The rumour scan of large 2-cores with its exact evaluations on OpenMP threads (see
:mod:`anonspread.engine.rumor_threads`). Built with ``-fopenmp`` where the compiler has
OpenMP; without it the module still builds and :data:`OPENMP` is False (serial scans)."""

from cython.parallel cimport prange
from libc.math cimport INFINITY, NAN, lgamma
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

from anonspread.engine._rumor cimport (
    RUMOR_BLOCK,
    RumorSetup,
    RumorTop,
    core_eval,
    rumor_advance,
    rumor_finish,
    rumor_scan,
    rumor_scan_start,
    rumor_setup,
    rumor_setup_free,
    rumor_stop_level,
)

cdef extern from *:
    """
    #ifdef _OPENMP
    #define ANONSPREAD_OPENMP 1
    #include <omp.h>
    #else
    #define ANONSPREAD_OPENMP 0
    #endif
    static int anonspread_omp_pause(void) {
    #if defined(_OPENMP) && (_OPENMP >= 201811 || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 9))
        return omp_pause_resource_all(omp_pause_hard);
    #else
        return 0;
    #endif
    }
    """
    int ANONSPREAD_OPENMP
    int anonspread_omp_pause() noexcept nogil

#: Whether this build runs the scan's evaluations on threads (compiled with OpenMP).
OPENMP = bool(ANONSPREAD_OPENMP)



def pause_threads():
    """Stop OpenMP's worker threads (``omp_pause_resource_all(omp_pause_hard)``; the next
    parallel scan starts new ones). Run before ``fork``: GNU libgomp's thread pool does not
    survive into a forked child, whose first parallel region would otherwise wait forever
    for the parent's threads."""
    return anonspread_omp_pause()


# The largest batch gives each thread about this many adjacency entries to scan (~50 ms):
# few joins, so threads seldom wait for each other; a scan that stops early wastes at most
# its last batch, no larger than the work before it.
cdef enum:
    BATCH_EDGES = 25000000


cdef int64_t _gather(int64_t s, double rtol, double lg, const RumorSetup *st,
                     const double *exact, const int64_t *ist, const double *fst, int64_t first,
                     int64_t *batch, int64_t size, int64_t *mark, int64_t rnd) noexcept nogil:
    """Fill ``batch`` (at most ``size``) with ``first`` (the evaluation the scan needs now)
    and the core nodes the scan will need next if no better score turns up: those of the
    nodes after the current one whose bound is not below the current stop level (all of
    them before the source's score is known), each once. Returns how many."""
    cdef int64_t n = st.n, nb = 1, i = ist[0], j, v, a
    cdef double stop
    batch[0] = first
    mark[first] = rnd
    stop = -INFINITY if i < 0 else rumor_stop_level(fst[0], fst[1], fst[2], rtol)
    for j in range(max(i + 1, 0), n):
        if nb == size:
            break
        v = st.byub[j]
        if v == s:
            continue
        if st.ub[v] + 1e-12 * (lg + 1.0) < stop:
            break
        a = v if st.core[v] else st.att[v]
        if a < 0 or exact[a] == exact[a] or mark[a] == rnd:
            continue
        mark[a] = rnd
        batch[nb] = a
        nb += 1
    return nb


cdef int _scan_parallel(const RumorSetup *st, int64_t s, double rtol, uint8_t *top, int nthr,
                        RumorTop *res, int64_t *computed) except -1 nogil:
    """The scan of :c:func:`rumor_scan` with the evaluations it needs next computed ahead, a
    batch at a time, on ``nthr`` threads (thread t: batch entries t, t + nthr, ... on its
    own work row). The scan takes the same nodes with the same scores as the serial one."""
    cdef int64_t n = st.n, nc = st.nc, row = st.nc + st.maxd + 1, a, k, j, c, t, i
    cdef int64_t rnd = 0, done = 0, size = nthr, cap
    cdef int64_t scan = <int64_t> st.fptr[nc]
    cdef double lg = lgamma(n + 1.0), cst = st.const_
    cdef int64_t ist[2]
    cdef double fst[3]
    if scan < 1:
        scan = 1
    cap = nthr * max(1, min(4096, BATCH_EDGES // scan))
    cdef int32_t *seen = <int32_t *> calloc(nthr * (nc + RUMOR_BLOCK), sizeof(int32_t))
    cdef uint64_t *qpk = <uint64_t *> malloc(nthr * row * sizeof(uint64_t))
    cdef double *spos = <double *> malloc(nthr * row * sizeof(double))
    cdef uint32_t *bu = <uint32_t *> calloc(nthr * st.bu_row, sizeof(uint32_t))
    cdef int64_t *batch = <int64_t *> malloc(cap * sizeof(int64_t))
    cdef int64_t *mark = <int64_t *> calloc(n, sizeof(int64_t))
    cdef double *exact = <double *> malloc(n * sizeof(double))
    cdef int64_t *cand = <int64_t *> malloc(n * sizeof(int64_t))
    cdef double *val = <double *> malloc(n * sizeof(double))
    cdef uint8_t *flag = <uint8_t *> malloc(n)
    if (seen == NULL or qpk == NULL or spos == NULL or batch == NULL or mark == NULL
            or exact == NULL or cand == NULL or val == NULL or flag == NULL or bu == NULL):
        free(seen); free(qpk); free(spos); free(batch); free(mark); free(bu)
        free(exact); free(cand); free(val); free(flag)
        with gil:
            raise MemoryError("rumour centrality: no memory for %d threads' work rows" % nthr)
    rumor_scan_start(exact, n, ist, fst)
    while True:
        a = rumor_advance(s, rtol, lg, st, exact, cand, val, ist, fst)
        if a < 0:
            break
        rnd += 1
        k = _gather(s, rtol, lg, st, exact, ist, fst, a, batch, size, mark, rnd)
        for t in prange(nthr, num_threads=nthr, schedule="static", chunksize=1):
            j = t
            while j < k:
                c = batch[j]
                # stamps: one per evaluation, never repeated on any row
                exact[c] = lg - cst - core_eval(st, st.cid[c], <int32_t> (done + j + 1),
                                                seen + t * (nc + RUMOR_BLOCK), qpk + t * row,
                                                spos + t * row, bu + t * st.bu_row)
                j = j + nthr
        done += k
        size = min(cap, 2 * size)
    res[0] = rumor_finish(s, rtol, st, cand, val, ist, fst, top, flag)
    computed[0] = done
    free(seen); free(qpk); free(spos); free(batch); free(mark); free(bu)
    free(exact); free(cand); free(val); free(flag)
    return 0


def rumor_top(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s, double rtol,
              uint8_t[::1] top, int threads, int64_t min_core):
    """``(best, s0, greater, tied, n_core_bfs, threads_used, evaluations_computed)``: the scan
    on ``threads`` threads when ``threads > 1``, OpenMP is built in, and the 2-core has at
    least ``min_core`` nodes; serially otherwise (``threads_used`` 1)."""
    cdef RumorSetup st
    cdef RumorTop r
    cdef int64_t n = indptr.shape[0] - 1, computed = 0
    cdef int used = 1
    with nogil:
        rumor_setup(&indptr[0], &indices[0] if indices.shape[0] > 0 else NULL, n, s, &st)
        try:
            if threads > 1 and ANONSPREAD_OPENMP and st.nc >= min_core:
                used = threads
                _scan_parallel(&st, s, rtol, &top[0], threads, &r, &computed)
            else:
                r = rumor_scan(&st, s, rtol, &top[0])
                computed = r.n_core_bfs
        finally:
            rumor_setup_free(&st)
    return r.best, r.s0, r.greater, r.tied, r.n_core_bfs, used, computed
