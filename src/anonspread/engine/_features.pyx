"""Node features of the learned adversary, compiled (see :mod:`anonspread.engine.features`)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint64_t

from anonspread.engine._bfs cimport bfs, bfs_from


cdef extern from *:
    """
    static inline int anonspread_popcount64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_popcountll(x);
    #else
        int c = 0; while (x) { x &= x - 1; c++; } return c;
    #endif
    }
    """
    int anonspread_popcount64(unsigned long long x) nogil


cdef void _bitparallel_sums(const int64_t[::1] indptr, const int32_t[::1] indices,
                            int64_t[::1] total, int64_t[::1] ecc, uint64_t[::1] seen,
                            uint64_t[::1] cur, uint64_t[::1] nxt) noexcept nogil:
    """Distance sums and eccentricities by breadth-first searches from 64 sources at once.

    Bit ``b`` of ``seen[v]`` says that source ``b`` of the batch has reached ``v``; one pass
    over the nodes per level ORs the neighbours' frontier words. The graph is undirected,
    so ``d(s, v) = d(v, s)``: a bit that reaches ``v`` at level ``L`` adds ``L`` to
    ``v``'s own sum, and the last level at which any bit reaches ``v`` is its eccentricity.
    O(ceil(n / 64) x levels x (n + m)) word operations instead of O(n m).
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, v, b0, j, k
    cdef int64_t level, e
    cdef uint64_t acc, new, fresh
    for v in range(n):
        total[v] = 0
        ecc[v] = 0
    b0 = 0
    while b0 < n:
        k = n - b0 if n - b0 < 64 else 64
        for v in range(n):
            seen[v] = 0
            cur[v] = 0
        for j in range(k):
            seen[b0 + j] = (<uint64_t> 1) << j
            cur[b0 + j] = seen[b0 + j]
        level = 0
        while True:
            level += 1
            fresh = 0
            for v in range(n):
                acc = 0
                for e in range(indptr[v], indptr[v + 1]):
                    acc |= cur[indices[e]]
                new = acc & ~seen[v]
                nxt[v] = new
                if new:
                    seen[v] |= new
                    total[v] += level * anonspread_popcount64(new)
                    if level > ecc[v]:
                        ecc[v] = level
                    fresh |= new
            if not fresh:
                break
            for v in range(n):
                cur[v] = nxt[v]
        b0 += k


def distance_sums(const int64_t[::1] indptr, const int32_t[::1] indices,
                  int64_t[::1] total, int64_t[::1] ecc, bint bitparallel=True):
    """Sum of hop distances and eccentricity of every node of a connected graph.

    On a tree (``indices.shape[0] == 2 (n - 1)``) by rerooting in O(n): subtree sizes
    ``s`` upwards, then ``total[c] = total[p] + n - 2 s[c]`` and the eccentricity from
    the two highest branches (heights down, then the best height through the parent);
    otherwise breadth-first searches from 64 nodes at once (``bitparallel``, the default:
    O(ceil(n / 64) x levels x (n + m)) word operations), or one per node (O(n m)).
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, i, k
    cdef int64_t j, x, w, p, h, acc, far
    cdef int32_t[::1] order = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] parent = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] dist = np.full(max(n, 1), -1, np.int32)
    cdef int64_t[::1] size = np.ones(max(n, 1), np.int64)
    cdef int64_t[::1] down1 = np.zeros(max(n, 1), np.int64)
    cdef int64_t[::1] down2 = np.zeros(max(n, 1), np.int64)
    cdef int64_t[::1] up = np.zeros(max(n, 1), np.int64)
    cdef uint64_t[::1] seen = np.empty(max(n, 1) if bitparallel else 1, np.uint64)
    cdef uint64_t[::1] cur = np.empty(max(n, 1) if bitparallel else 1, np.uint64)
    cdef uint64_t[::1] nxt = np.empty(max(n, 1) if bitparallel else 1, np.uint64)
    if n == 0:
        return
    with nogil:
        if indices.shape[0] == 2 * (n - 1):
            bfs(indptr, indices, 0, order, parent, dist)
            acc = 0
            for i in range(n):
                acc += dist[i]
            for k in range(n - 1, 0, -1):
                x = order[k]
                p = parent[x]
                size[p] += size[x]
                h = down1[x] + 1
                if h > down1[p]:
                    down2[p] = down1[p]
                    down1[p] = h
                elif h > down2[p]:
                    down2[p] = h
            total[order[0]] = acc
            up[order[0]] = 0
            for k in range(1, n):
                x = order[k]
                p = parent[x]
                total[x] = total[p] + n - 2 * size[x]
                # the longest path leaving p other than through x, plus the edge to p
                h = down2[p] if down1[x] + 1 == down1[p] else down1[p]
                up[x] = 1 + (up[p] if up[p] > h else h)
            for i in range(n):
                ecc[i] = up[i] if up[i] > down1[i] else down1[i]
        elif bitparallel:
            _bitparallel_sums(indptr, indices, total, ecc, seen, cur, nxt)
        else:
            for i in range(n):
                k = bfs(indptr, indices, i, order, parent, dist)
                acc = 0
                far = 0
                for j in range(k):
                    w = order[j]
                    acc += dist[w]
                    if dist[w] > far:
                        far = dist[w]
                    dist[w] = -1
                total[i] = acc
                ecc[i] = far


def multi_source_distance(const int64_t[::1] indptr, const int32_t[::1] indices,
                          const int64_t[::1] starts, int64_t[::1] dist):
    """Hop distance from every node to the nearest of ``starts`` (-1 if none is reachable)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, i
    cdef int64_t tail = 0, x
    cdef int32_t[::1] order = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] parent = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] d32 = np.full(max(n, 1), -1, np.int32)
    with nogil:
        for i in range(starts.shape[0]):
            x = starts[i]
            if d32[x] < 0:
                d32[x] = 0
                parent[x] = -1
                order[tail] = <int32_t> x
                tail += 1
        bfs_from(indptr, indices, order, tail, parent, d32)
        for i in range(n):
            dist[i] = d32[i]
