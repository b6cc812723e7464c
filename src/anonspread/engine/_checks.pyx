"""The CSR checks of the public engine entry points, compiled (see
:mod:`anonspread.engine._inputs`): one O(n + m) pass, about a microsecond on a snapshot.

Two entry points, one per index type (a fused-type ``def`` dispatches at a cost of several
microseconds a call); both run the same C functions over raw pointers.
"""

import numpy as np

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free


cdef int _structure(const int64_t* ptr, const void* ind, bint wide, int64_t n,
                    int64_t len_ind) noexcept nogil:
    """1: offsets not from 0, decreasing or past ``indices``; 2: an entry not a node."""
    cdef int64_t v, j, e
    if ptr[0] != 0 or ptr[n] > len_ind:
        return 1
    for v in range(n):
        if ptr[v + 1] < ptr[v]:
            return 1
    for j in range(ptr[n]):
        e = (<const int64_t*> ind)[j] if wide else (<const int32_t*> ind)[j]
        if e < 0 or e >= n:
            return 2
    return 0


cdef inline int64_t _at(const void* ind, bint wide, int64_t j) noexcept nogil:
    return (<const int64_t*> ind)[j] if wide else (<const int32_t*> ind)[j]


cdef int _symmetric_connected(const int64_t* ptr, const void* ind, bint wide,
                              int64_t n) noexcept nogil:
    """0 if symmetric (each row the same multiset as its column) and connected from node
    0; 3 otherwise; -1 out of memory. Entries already checked to be nodes."""
    cdef int64_t m = ptr[n], v, j, w, head = 0, tail = 1
    cdef int64_t* tptr = <int64_t*> calloc(n + 1, sizeof(int64_t))
    cdef int64_t* fill = <int64_t*> calloc(n + 1, sizeof(int64_t))
    cdef int64_t* tind = <int64_t*> calloc(m + 1, sizeof(int64_t))
    cdef int64_t* bal = <int64_t*> calloc(n + 1, sizeof(int64_t))
    cdef int code = 0
    if tptr == NULL or fill == NULL or tind == NULL or bal == NULL:
        code = -1
    else:
        # the column of v (rows u holding v), by a counting sort
        for j in range(m):
            tptr[_at(ind, wide, j) + 1] += 1
        for v in range(n):
            tptr[v + 1] += tptr[v]
            fill[v] = tptr[v]
        for v in range(n):
            for j in range(ptr[v], ptr[v + 1]):
                w = _at(ind, wide, j)
                tind[fill[w]] = v
                fill[w] += 1
        for v in range(n):
            if ptr[v + 1] - ptr[v] != tptr[v + 1] - tptr[v]:
                code = 3
                break
            for j in range(ptr[v], ptr[v + 1]):
                bal[_at(ind, wide, j)] += 1
            for j in range(tptr[v], tptr[v + 1]):
                bal[tind[j]] -= 1
            for j in range(ptr[v], ptr[v + 1]):
                if bal[_at(ind, wide, j)] != 0:
                    code = 3
            if code:
                break
            # (the balances are all zero again here)
        if code == 0:
            # BFS from node 0, reusing fill as the queue and bal as the marks
            for v in range(n):
                bal[v] = 0
            bal[0] = 1
            fill[0] = 0
            while head < tail:
                v = fill[head]
                head += 1
                for j in range(ptr[v], ptr[v + 1]):
                    w = _at(ind, wide, j)
                    if not bal[w]:
                        bal[w] = 1
                        fill[tail] = w
                        tail += 1
            if tail != n:
                code = 3
    free(tptr)
    free(fill)
    free(tind)
    free(bal)
    return code


cdef object _status(const int64_t* ptr, const void* ind, bint wide, int64_t n, int64_t len_ind,
                    int kind):
    cdef int code
    if n < 0:
        return 1
    with nogil:
        code = _structure(ptr, ind, wide, n, len_ind)
        if code == 0 and kind == 2 and (n == 0 or ptr[n] != 2 * (n - 1)):
            code = 4
        if code == 0 and kind != 0:
            code = 3 if n == 0 else _symmetric_connected(ptr, ind, wide, n)
    if code == -1:
        raise MemoryError()
    if code == 3 and kind == 2:
        code = 4
    return code


def csr_status32(const int64_t[::1] indptr, const int32_t[::1] indices, int kind):
    """0 if ``(indptr, indices)`` is a well-formed CSR graph (offsets from 0, never
    decreasing, within ``indices``; every entry a node) and, for ``kind`` 1, symmetric and
    connected, for ``kind`` 2 a tree (also ``2 (n - 1)`` entries); else a positive code
    (1: offsets, 2: an entry out of range, 3: not symmetric and connected, 4: not a tree)."""
    cdef int32_t dummy = 0
    return _status(&indptr[0], <const void*> (&indices[0] if indices.shape[0] else &dummy),
                   False, indptr.shape[0] - 1, indices.shape[0], kind)


def csr_status64(const int64_t[::1] indptr, const int64_t[::1] indices, int kind):
    """:func:`csr_status32` for int64 ``indices``."""
    cdef int64_t dummy = 0
    return _status(&indptr[0], <const void*> (&indices[0] if indices.shape[0] else &dummy),
                   True, indptr.shape[0] - 1, indices.shape[0], kind)


def chunk_status(int64_t i0, int64_t i1, const int64_t[::1] noff, const int64_t[::1] n_out,
                 const int64_t[::1] b_vs, const int32_t[::1] b_order, const int64_t[::1] b_par,
                 const int64_t[::1] b_gdeg, int64_t ng):
    """0 if trials ``[i0, i1)`` of the fused loop's snapshot buffers can be read safely:
    ``noff`` from ``noff[i0] >= 0`` stepping by ``n_out >= 1``, within the buffers; ``b_vs`` -1 or a local
    id; nodes in ``0..ng-1``; parents -1 for each trial's first node, else an earlier local
    id; contact degrees at least the infection-tree degrees. Else a positive code naming the
    first rule broken (1 offsets, 2 virtual source, 3 node, 4 parent, 5 degree)."""
    cdef int64_t i, k, off, n, p, tot
    cdef int code = 0
    if i1 <= i0:
        return 0
    if (noff.shape[0] < i1 + 1 or n_out.shape[0] < i1 or b_vs.shape[0] < i1
            or noff[i0] < 0):
        return 1
    tot = 0
    for i in range(i0, i1):
        if n_out[i] < 1 or noff[i + 1] != noff[i] + n_out[i]:
            return 1
    tot = noff[i1]
    if b_order.shape[0] < tot or b_par.shape[0] < tot or b_gdeg.shape[0] < tot:
        return 1
    deg_arr = np.zeros(tot + 1, np.int64)
    cdef int64_t[::1] deg = deg_arr
    with nogil:
        for i in range(i0, i1):
            off = noff[i]
            n = n_out[i]
            if b_vs[i] < -1 or b_vs[i] >= n:
                code = 2
                break
            for k in range(n):
                if b_order[off + k] < 0 or b_order[off + k] >= ng:
                    code = 3
                    break
                p = b_par[off + k]
                if (k == 0 and p != -1) or (k > 0 and (p < 0 or p >= k)):
                    code = 4
                    break
                if k > 0:
                    deg[off + k] += 1
                    deg[off + p] += 1
            if code:
                break
        if code == 0:
            for k in range(tot):
                if b_gdeg[k] < deg[k]:
                    code = 5
                    break
    return code
