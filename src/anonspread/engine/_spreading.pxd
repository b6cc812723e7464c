# cython: language_level=3
"""The spreading kernels at C level, for other compiled drivers (the fused loop)."""

from libc.stdint cimport int32_t, int64_t
from numpy.random cimport bitgen_t

from anonspread.engine._store cimport store_t

# Kernel codes (``Protocol.kernel_code``) and adaptive diffusion's flag bits (params[2]).
cdef enum:
    FLOODING = 0
    RANDOM_DIFFUSION = 1
    LINE_PROTOCOL = 2
    TREE_PROTOCOL = 3
    ADAPTIVE_DIFFUSION = 4
    N_KERNELS = 5
cdef enum:
    AD_GRAPH_RELAY = 1
    AD_LEAVES_ONLY = 2
    AD_SUMMARY_ONLY = 4
    AD_STUCK_PASS = 8
    AD_REFERENCE_RELAY = 16  # tests only: the relay without its shortcuts (same outputs)


ctypedef struct work_t:
    # scratch of the relay and of Protocol 2's pseudo-code, reused across trials
    int32_t* stack
    int32_t* visit
    int64_t cap       # entries of stack and visit
    int32_t* buf      # one node's uninfected contacts
    int64_t buf_cap


cdef int work_init(work_t* w, int64_t cap, int64_t buf_cap) except -1
cdef void work_free(work_t* w) noexcept nogil

cdef int64_t run_protocol(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                          const double* params, bitgen_t* bg, int32_t* vs_out,
                          int64_t* sizes_out) except -1 nogil
cdef int64_t run_protocol_until(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                                const double* params, bitgen_t* bg, int32_t* vs_out,
                                int64_t* sizes_out, int64_t stop) except -1 nogil
cdef int64_t run_summary(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                         const double* params, bitgen_t* bg, int32_t* vs_out,
                         int64_t* sizes_out, int64_t stop=*) except -1 nogil
cdef int64_t vs_hops(const int32_t* ns, int64_t vs) noexcept nogil
cdef int64_t snapshot(const store_t* s, int64_t n, int64_t* loc, int64_t off, int32_t* b_order,
                      int64_t* b_par, int64_t* b_gdeg, int64_t vs) noexcept nogil
