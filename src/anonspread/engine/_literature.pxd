# cython: language_level=3
"""NETSLEUTH and LISN (see :mod:`anonspread.engine.literature`): the declarations the fused
scoring loop cimports. Graphs are CSR arrays (int64 ``indptr``, int32 ``indices``); node
arrays int64; scores and log tables float64. Each function allocates its scratch and
returns -1 with a Python exception set if that fails (or, for ``netsleuth_vector``, if
LAPACK reports an error)."""

from libc.stdint cimport int32_t, int64_t


cdef enum:
    # NETSLEUTH diagonalises the infected sub-Laplacian densely up to DENSE_MAX nodes; above,
    # inverse iteration, falling back to the dense solver up to DENSE_FALLBACK nodes
    DENSE_MAX = 16
    DENSE_FALLBACK = 3000


cdef double netsleuth_vector(const int64_t[::1] indptr, const int32_t[::1] indices,
                             const int64_t[::1] gdeg, int64_t dense_max,
                             double[::1] out) except? -1.0 nogil
cdef int binomial_tail_tables(int64_t T, double p, double[::1] log_p,
                              double[::1] log_q) except -1 nogil
cdef int lisn_graph(const int64_t[::1] indptr, const int32_t[::1] indices,
                    const int64_t[::1] cand, const int64_t[::1] loc, int64_t n_inf,
                    const double[::1] log_p, const double[::1] log_q, int64_t cap,
                    double[::1] out) except -1 nogil
cdef int lisn_regular_tree(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t d,
                           const double[::1] log_p, const double[::1] log_q,
                           double[::1] out) except -1 nogil
