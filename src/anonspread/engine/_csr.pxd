# cython: language_level=3
"""Flat-array graph helpers shared by the engine's Cython kernels."""

from libc.stdint cimport int64_t


cdef inline void in_neighbours(int64_t n, const int64_t[::1] out_ptr, const int64_t[::1] out,
                               int64_t[::1] in_ptr, int64_t[::1] in_src,
                               int64_t[::1] cursor) noexcept nogil:
    """The in-neighbour CSR of a directed CSR (``out_ptr``, ``out``): ``in_ptr`` (length
    n + 1) and ``in_src`` (each head's tails, in increasing order of tail); ``cursor``
    (length >= n) is scratch."""
    cdef int64_t v, u, j, w
    for v in range(n + 1):
        in_ptr[v] = 0
    for j in range(out_ptr[n]):
        in_ptr[out[j] + 1] += 1
    for v in range(n):
        in_ptr[v + 1] += in_ptr[v]
    for v in range(n):
        cursor[v] = in_ptr[v]
    for u in range(n):
        for j in range(out_ptr[u], out_ptr[u + 1]):
            w = out[j]
            in_src[cursor[w]] = u
            cursor[w] += 1
