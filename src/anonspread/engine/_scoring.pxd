# cython: language_level=3
"""Source-estimator kernels over a local view of the infected subgraph: the declarations
the fused scoring loop (``_fused.pyx``) cimports.

Graphs are CSR arrays (int64 ``indptr``, int32 ``indices``) over the infected nodes
renumbered ``0..n-1``; BFS orders/parents/distances int32 (``_bfs.pxd``); bounds and
degrees int64; scores float64; boolean arrays uint8. Functions that allocate their scratch
are ``except -1`` (a failed allocation raises); the others allocate nothing.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t


cdef enum:
    # "unbounded" for distances and eccentricity bounds
    BIG = 1 << 30


cdef extern from *:
    """
    /* Scores within this relative tolerance of the maximum (in log space) are ties. */
    #define ANONSPREAD_TIE_RTOL 1e-9
    """
    const double TIE_RTOL "ANONSPREAD_TIE_RTOL"


ctypedef struct Summary:
    # the rank data of a node s: the numbers of nodes above s and tied with s (s included);
    # and the number of maximisers
    int64_t greater
    int64_t tied
    int64_t ntop


ctypedef struct JordanTop:
    # graph_jordan_top: ecc(s), the minimum eccentricity, #{ecc < ecc(s)}, #{ecc = ecc(s)},
    # BFS run (a bit-parallel pass counts 64)
    int64_t t
    int64_t emin
    int64_t less
    int64_t tied
    int64_t nbfs


cdef void tree_passes(const int64_t[::1] indptr, const int32_t[::1] indices,
                      const int32_t[::1] order, int64_t n, const int32_t[::1] parent,
                      const uint8_t[::1] mark, int64_t[::1] down, int64_t[::1] up,
                      int64_t[::1] bdown, int64_t[::1] bup) noexcept nogil
cdef void tree_eccentricity_ws(const int64_t[::1] indptr, const int32_t[::1] indices,
                               int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist,
                               uint8_t[::1] mark, int64_t[::1] down, int64_t[::1] up,
                               int64_t[::1] bdown, int64_t[::1] bup,
                               int64_t[::1] out) noexcept nogil
cdef int tree_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                           int64_t[::1] out) except -1 nogil
cdef int graph_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                            int64_t[::1] out) except -1 nogil
cdef Summary score_summary(const double[::1] sc, int64_t s, double rtol,
                           uint8_t[::1] top) noexcept nogil
cdef int64_t bitparallel_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                                      int64_t[::1] lo, int64_t[::1] hi, int64_t t,
                                      int64_t ehi) except -1 nogil
cdef JordanTop graph_jordan_top(const int64_t[::1] indptr, const int32_t[::1] indices,
                                int64_t s, uint8_t[::1] top) except * nogil
cdef int64_t graph_radius(const int64_t[::1] indptr,
                          const int32_t[::1] indices) except -1 nogil
cdef int64_t ml_tree(const int64_t[::1] indptr, const int32_t[::1] indices,
                     const int64_t[::1] gdeg, bint check_boundary, int64_t r_node,
                     const double[::1] logB_alive, const double[::1] logB_dead, int64_t r_edge,
                     const double[::1] logB_move, double[::1] out, int64_t[::1] tdeg,
                     uint8_t[::1] mark, int32_t[::1] order, int32_t[::1] parent,
                     int32_t[::1] dist, int64_t[::1] down, int64_t[::1] up, int64_t[::1] bdown,
                     int64_t[::1] bup, int32_t[::1] stack, double[::1] acc, int32_t[::1] came,
                     int64_t[::1] depth) noexcept nogil
cdef void ml_ball(const int64_t[::1] par, const int64_t[::1] gdeg, int64_t c,
                  const double[::1] logB, const double[::1] logk, double[::1] out,
                  double[::1] acc, int64_t[::1] dist) noexcept nogil
