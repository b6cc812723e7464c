# cython: language_level=3
"""Rumour centrality (Shah & Zaman 2011) on trees and graphs with cycles: the declarations
other kernels cimport (the fused scoring loop, the threaded scan of ``_rumor_threads``).

Graphs are CSR arrays: int64 ``indptr``, int32 ``indices``; scores float64; boolean arrays
uint8. The scan's internals work on a :c:type:`RumorSetup` of raw arrays held in one
allocation (``rumor_setup`` / ``rumor_setup_free``), so evaluations run without the GIL.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef enum:
    # the rows of an unpadded sparse core are padded to a multiple of this many entries
    # for the blocked scan (the dummy entries point to the dummy nodes nc .. nc + 3); a work
    # row's ``seen`` holds nc + RUMOR_BLOCK entries
    RUMOR_BLOCK = 4


cdef struct RumorTop:
    # the result of graph_rumor_top: best score, the source's score, the numbers of nodes
    # above and tied with it (source included), exact core evaluations used
    double best
    double s0
    int64_t greater
    int64_t tied
    int64_t n_core_bfs


cdef struct RumorSetup:
    # what graph_rumor_top needs before its first exact score (see rumor_setup in _rumor.pyx)
    int64_t n            # nodes of the graph
    int64_t nc           # nodes of its 2-core
    int64_t maxd         # largest core degree (the work rows' padding)
    int64_t width        # every core node's entries in the padded layout (-1: unpadded)
    bint blocked         # unpadded sparse core: rows padded to a multiple of RUMOR_BLOCK
    double const_        # sum over pendant nodes of log(pendant subtree size)
    bint sparse          # mean core degree below 7: the branchless core scan
    double *ub           # cut-vertex bound of every node
    uint8_t *core        # 1 for 2-core nodes
    int64_t *att         # pendant node -> the core node its tree hangs from (-1: none)
    int64_t *cid         # core node -> its id in the core CSR (-1 off the core)
    double *cw           # core id -> weight (1 + its pendant nodes)
    uint64_t *fptr       # the core CSR as core_flat lays it out (maybe padded or blocked)
    uint32_t *find
    double *fwe
    int64_t *byub        # nodes in decreasing order of ub (numba's argsort order)
    uint32_t *twoff      # dense cores: entry x -> y gives x's offset in y's row (else NULL)
    int64_t bu_row       # uint32 entries of a work row of the direction-optimising scan
    void *arena          # the allocations holding the node arrays and the core arrays
    void *core_arena
    void *tw_arena


cdef int tree_rumor(const int64_t[::1] indptr, const int32_t[::1] indices,
                    double[::1] out) except -1 nogil
cdef RumorTop graph_rumor_top(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                              double rtol, uint8_t[::1] top) except * nogil

# the scan's pieces (graph_rumor_top is rumor_setup, then rumor_scan: rumor_advance /
# core_eval until the bound stops it, then rumor_finish; rumor_setup_free)
cdef int rumor_setup(const int64_t *indptr, const int32_t *indices, int64_t n, int64_t s,
                     RumorSetup *st) except -1 nogil
cdef void rumor_setup_free(RumorSetup *st) noexcept nogil
cdef double rumor_stop_level(double best, double s0, double tol0, double rtol) noexcept nogil
cdef void rumor_scan_start(double *exact, int64_t n, int64_t *ist, double *fst) noexcept nogil
cdef int64_t rumor_advance(int64_t s, double rtol, double lg, const RumorSetup *st,
                           double *exact, int64_t *cand, double *val, int64_t *ist,
                           double *fst) noexcept nogil
cdef double core_eval(const RumorSetup *st, int64_t c, int32_t stamp, int32_t *seen,
                      uint64_t *qpk, double *spos, uint32_t *bu) noexcept nogil
cdef RumorTop rumor_scan(const RumorSetup *st, int64_t s, double rtol,
                         uint8_t *top) except * nogil
cdef RumorTop rumor_finish(int64_t s, double rtol, const RumorSetup *st, const int64_t *cand,
                           const double *val, const int64_t *ist, const double *fst,
                           uint8_t *top, uint8_t *mark) noexcept nogil
