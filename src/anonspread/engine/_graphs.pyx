"""Per-graph statistics computed once per graph (compiled; see :mod:`anonspread.engine.graphs`)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t

ctypedef fused index_t:
    int32_t
    int64_t


def triangles(const int64_t[::1] indptr, const index_t[::1] indices, const int64_t[::1] nodes):
    """Triangles through each node of ``nodes`` (mark the neighbours, walk two steps)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k, v, u, j, i
    cdef int64_t t
    mark_arr = np.zeros(n, np.uint8)
    out_arr = np.zeros(nodes.shape[0], np.int64)
    cdef unsigned char[::1] mark = mark_arr
    cdef int64_t[::1] out = out_arr
    with nogil:
        for k in range(nodes.shape[0]):
            v = nodes[k]
            for j in range(indptr[v], indptr[v + 1]):
                mark[indices[j]] = 1
            t = 0
            for j in range(indptr[v], indptr[v + 1]):
                u = indices[j]
                for i in range(indptr[u], indptr[u + 1]):
                    t += mark[indices[i]]
            for j in range(indptr[v], indptr[v + 1]):
                mark[indices[j]] = 0
            out[k] = t // 2
    return out_arr
