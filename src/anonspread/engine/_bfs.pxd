# cython: language_level=3
"""The one breadth-first search of the engine's Cython kernels (CSR: int64 ``indptr``,
int32 ``indices``)."""

from libc.stdint cimport int32_t, int64_t


cdef inline int64_t bfs_from(const int64_t[::1] indptr, const int32_t[::1] indices,
                             int32_t[::1] order, int64_t tail, int32_t[::1] parent,
                             int32_t[::1] dist) noexcept nogil:
    """Breadth-first search from the ``tail`` nodes already queued in ``order[:tail]`` (their
    ``dist`` and ``parent`` set by the caller); returns the number of nodes reached.

    Every other node must hold ``dist`` -1 on entry (unreached nodes keep -1). Neighbours are
    discovered in CSR order, so the BFS tree is a deterministic function of the CSR arrays
    and the queued order.
    """
    cdef int64_t head = 0, j
    cdef int32_t x, w
    while head < tail:
        x = order[head]
        head += 1
        for j in range(indptr[x], indptr[x + 1]):
            w = indices[j]
            if dist[w] < 0:
                dist[w] = dist[x] + 1
                parent[w] = x
                order[tail] = w
                tail += 1
    return tail


cdef inline int64_t bfs(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t root,
                        int32_t[::1] order, int32_t[::1] parent,
                        int32_t[::1] dist) noexcept nogil:
    """Breadth-first search from ``root``; returns the number of nodes reached.

    ``order[:k]`` lists the reached nodes (root first), ``parent`` their BFS parent (-1 for
    the root) and ``dist`` their hop count; ``dist`` must hold -1 for every node on entry
    (unreached nodes keep -1). Neighbours are discovered in CSR order, so the BFS tree is a
    deterministic function of the CSR arrays.
    """
    order[0] = <int32_t> root
    parent[root] = -1
    dist[root] = 0
    return bfs_from(indptr, indices, order, 1, parent, dist)
