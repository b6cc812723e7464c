"""The graph-kind checks of the public engine entry points, compiled (see
:mod:`anonspread.engine._inputs`): O(n + m), a few microseconds on a snapshot."""

import numpy as np

from libc.stdint cimport int32_t, int64_t

ctypedef fused index_t:
    int32_t
    int64_t


def symmetric_connected(const int64_t[::1] indptr, const index_t[::1] indices):
    """``(symmetric, connected)`` of a CSR graph whose entries were already checked to be
    in range: symmetric when every row's multiset of neighbours equals its column's;
    connected from node 0 by a BFS (a graph without nodes is neither)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, m, v, j, w, head = 0, tail = 0, seen_n = 0
    if n <= 0:
        return False, False
    m = indptr[n]
    bal_arr = np.zeros(n, np.int64)
    tptr_arr = np.zeros(n + 1, np.int64)
    queue_arr = np.empty(n, np.int64)
    seen_arr = np.zeros(n, np.uint8)
    cdef int64_t[::1] bal = bal_arr, tptr = tptr_arr, queue = queue_arr
    cdef unsigned char[::1] seen = seen_arr
    cdef bint sym = True
    tind_arr = np.empty(m, np.int64)
    fill_arr = np.empty(n, np.int64)
    cdef int64_t[::1] tind = tind_arr, fill = fill_arr
    with nogil:
        # symmetric: the column of v (the rows u holding v, by a counting sort) must be the
        # same multiset as row v: count row v's entries up, the column's down, all back to 0
        for j in range(m):
            tptr[indices[j] + 1] += 1
        for v in range(n):
            tptr[v + 1] += tptr[v]
            fill[v] = tptr[v]
        for v in range(n):
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                tind[fill[w]] = v
                fill[w] += 1
        for v in range(n):
            if indptr[v + 1] - indptr[v] != tptr[v + 1] - tptr[v]:
                sym = False
                break
            for j in range(indptr[v], indptr[v + 1]):
                bal[indices[j]] += 1
            for j in range(tptr[v], tptr[v + 1]):
                bal[tind[j]] -= 1
            for j in range(indptr[v], indptr[v + 1]):
                if bal[indices[j]] != 0:
                    sym = False
                bal[indices[j]] = 0
            for j in range(tptr[v], tptr[v + 1]):
                bal[tind[j]] = 0
            if not sym:
                break
        seen[0] = 1
        queue[tail] = 0
        tail += 1
        while head < tail:
            v = queue[head]
            head += 1
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                if not seen[w]:
                    seen[w] = 1
                    queue[tail] = w
                    tail += 1
    return sym, tail == n


def csr_status(const int64_t[::1] indptr, const index_t[::1] indices, int kind):
    """0 if ``(indptr, indices)`` is a well-formed CSR graph (offsets from 0, never
    decreasing, within ``indices``; every entry a node) and, for ``kind`` 1, symmetric and
    connected, for ``kind`` 2 a tree (also ``2 (n - 1)`` entries); else a positive code
    (1: offsets, 2: an entry out of range, 3: not symmetric and connected, 4: not a tree).
    One pass in C: the wrappers' fast path (the message comes from the slow one)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, j, v
    cdef int64_t e
    cdef int code = 0
    if n < 0 or indptr[0] != 0 or indptr[n] > indices.shape[0]:
        return 1
    with nogil:
        for v in range(n):
            if indptr[v + 1] < indptr[v]:
                code = 1
                break
        if code == 0:
            for j in range(indptr[n]):
                e = indices[j]
                if e < 0 or e >= n:
                    code = 2
                    break
    if code:
        return code
    if kind == 0:
        return 0
    if kind == 2 and (n == 0 or indptr[n] != 2 * (n - 1)):
        return 4
    sym, conn = symmetric_connected(indptr, indices)
    if not (sym and conn):
        return 3 if kind == 1 else 4
    return 0
