"""Node features of the learned adversary, compiled (see :mod:`anonspread.engine.features`)."""

import numpy as np

from libc.math cimport fabs, isfinite, lgamma, log
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc, realloc

from anonspread.engine._bfs cimport bfs, bfs_from
from anonspread.engine._bits cimport anonspread_ctz64, anonspread_popcount64


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


cdef void _tree_all_rumor(const int64_t[::1] indptr, const int32_t[::1] indices,
                          double[::1] out, int32_t[::1] order, int32_t[::1] parent,
                          int32_t[::1] dist, int64_t[::1] size) noexcept nogil:
    """Exact log rumour centrality of every node of a tree by rerooting, O(n)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k
    cdef int32_t v
    cdef double acc = 0.0
    bfs(indptr, indices, 0, order, parent, dist)
    for k in range(n - 1, 0, -1):
        v = order[k]
        size[parent[v]] += size[v]
    for k in range(n):
        acc += log(<double> size[k])
    out[order[0]] = lgamma(n + 1.0) - acc
    for k in range(1, n):
        v = order[k]
        out[v] = out[parent[v]] + log(<double> size[v]) - log(<double> (n - size[v]))


cdef int _bitparallel_rumor(const int64_t[::1] indptr, const int32_t[::1] indices,
                            double[::1] out, const double[::1] logtab, uint64_t[::1] seen,
                            uint64_t[::1] cur, uint64_t[::1] nxt, int32_t[::1] par,
                            int32_t[::1] size, int64_t *total, int64_t *ecc) except -1 nogil:
    """:func:`bfs_rumor` by breadth-first searches from 64 roots at once.

    Per batch of roots (bit ``j`` of a word for root ``b0 + j``): a level's new bits of a
    node ``v`` come from its neighbours' frontier words, as in :func:`_bitparallel_sums`;
    its parent for root ``j`` is the first neighbour in ``v``'s CSR row whose frontier word
    holds bit ``j`` (a neighbour one level closer to that root). The (node, new bits)
    entries are kept in level order; walked backwards they add each node's subtree size to
    its parent's, one root per bit. ``par`` and ``size`` hold 64 entries per node. With
    ``total`` and ``ecc`` (else NULL), also :func:`_bitparallel_sums`' distance sums and
    eccentricities, from the same searches (a bit new at ``v`` at level L: L hops).
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, v, b0, j, k, t
    cdef int64_t e, ne, cap = 2 * n + 64, level
    cdef int32_t x
    cdef uint64_t acc, new, fresh, rem, got, bits
    cdef int32_t sz
    cdef double lg = lgamma(n + 1.0)
    cdef double tot[64]
    cdef int32_t *ent_v = <int32_t *> malloc(cap * sizeof(int32_t))
    cdef uint64_t *ent_b = <uint64_t *> malloc(cap * sizeof(uint64_t))
    cdef void *grown
    if ent_v == NULL or ent_b == NULL:
        free(ent_v)
        free(ent_b)
        with gil:
            raise MemoryError("bfs_rumor: out of memory for its level lists")
    b0 = 0
    while b0 < n:
        k = n - b0 if n - b0 < 64 else 64
        for v in range(n):
            seen[v] = 0
            cur[v] = 0
        for t in range(64 * n):
            size[t] = 1
        for j in range(k):
            seen[b0 + j] = (<uint64_t> 1) << j
            cur[b0 + j] = seen[b0 + j]
        ne = 0
        level = 0
        while True:
            fresh = 0
            level += 1
            for v in range(n):
                acc = 0
                for e in range(indptr[v], indptr[v + 1]):
                    acc |= cur[indices[e]]
                new = acc & ~seen[v]
                nxt[v] = new
                if not new:
                    continue
                seen[v] |= new
                fresh |= new
                if total != NULL:
                    total[v] += level * anonspread_popcount64(new)
                    if level > ecc[v]:  # the farthest root of every batch
                        ecc[v] = level
                rem = new
                for e in range(indptr[v], indptr[v + 1]):
                    x = indices[e]
                    got = rem & cur[x]
                    if got:
                        rem &= ~got
                        while got:
                            par[64 * v + anonspread_ctz64(got)] = x
                            got &= got - 1
                        if not rem:
                            break
                if ne == cap:
                    cap *= 2
                    grown = realloc(ent_v, cap * sizeof(int32_t))
                    if grown == NULL:
                        free(ent_v)
                        free(ent_b)
                        with gil:
                            raise MemoryError("bfs_rumor: out of memory for its level lists")
                    ent_v = <int32_t *> grown
                    grown = realloc(ent_b, cap * sizeof(uint64_t))
                    if grown == NULL:
                        free(ent_v)
                        free(ent_b)
                        with gil:
                            raise MemoryError("bfs_rumor: out of memory for its level lists")
                    ent_b = <uint64_t *> grown
                ent_v[ne] = <int32_t> v
                ent_b[ne] = new
                ne += 1
            if not fresh:
                break
            for v in range(n):
                cur[v] = nxt[v]
        # deepest levels first: a node's subtree is complete when its entry is reached, so
        # its log size is added to its root's sum there and its size to its parent's
        for j in range(k):
            tot[j] = logtab[n]  # the root's subtree: every node (the graph is connected)
        for t in range(ne - 1, -1, -1):
            v = ent_v[t]
            bits = ent_b[t]
            while bits:
                j = anonspread_ctz64(bits)
                sz = size[64 * v + j]
                tot[j] += logtab[sz]
                size[64 * par[64 * v + j] + j] += sz
                bits &= bits - 1
        for j in range(k):
            out[b0 + j] = lg - tot[j]
        b0 += k
    free(ent_v)
    free(ent_b)
    return 0


cdef int _bitparallel_rumor_levels(const int64_t[::1] indptr, const int32_t[::1] indices,
                                   double[::1] out, const double[::1] logtab,
                                   uint64_t[::1] seen, int32_t[::1] size,
                                   int64_t max_words, int64_t *total, int64_t *ecc) except -1 nogil:
    """:func:`bfs_rumor` by breadth-first searches from 64 roots at once, every level's
    frontier words kept (``front[L][v]``: the roots for which v is at level L).

    Walking the levels from the deepest, a node's new bits at level L find their parents
    in one scan of its CSR row (bit ``j`` goes to the first neighbour whose level-(L - 1)
    word holds it), where its subtree size, complete by then, is added to the parent's and
    its log to the root's sum. Returns 1 when the frontiers would need more than
    ``max_words`` words (the caller then uses :func:`_bitparallel_rumor`), else 0. With
    ``total`` and ``ecc`` (else NULL), also the distance sums and eccentricities of
    :func:`_bitparallel_sums` from the same searches; filled only when it returns 0.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, v, b0, j, k, t
    cdef int64_t e, lev, levels, cap = 16
    cdef int32_t x, sz
    cdef uint64_t acc, new, fresh, rem, got
    cdef uint64_t *cur
    cdef uint64_t *nxt
    cdef uint64_t *prev
    cdef double lg = lgamma(n + 1.0)
    cdef double tot[64]
    cdef void *grown
    cdef uint64_t *front
    if cap * n > max_words:
        return 1
    front = <uint64_t *> malloc(cap * n * sizeof(uint64_t))
    if front == NULL:
        with gil:
            raise MemoryError("bfs_rumor: out of memory for its frontiers")
    b0 = 0
    while b0 < n:
        k = n - b0 if n - b0 < 64 else 64
        for v in range(n):
            seen[v] = 0
            front[v] = 0
        for j in range(k):
            seen[b0 + j] = (<uint64_t> 1) << j
            front[b0 + j] = seen[b0 + j]
        levels = 0
        while True:
            if (levels + 2) > cap:
                if 2 * cap * n > max_words:
                    free(front)
                    return 1
                cap *= 2
                grown = realloc(front, cap * n * sizeof(uint64_t))
                if grown == NULL:
                    free(front)
                    with gil:
                        raise MemoryError("bfs_rumor: out of memory for its frontiers")
                front = <uint64_t *> grown
            cur = front + levels * n
            nxt = front + (levels + 1) * n
            fresh = 0
            for v in range(n):
                acc = 0
                for e in range(indptr[v], indptr[v + 1]):
                    acc |= cur[indices[e]]
                new = acc & ~seen[v]
                nxt[v] = new
                seen[v] |= new
                fresh |= new
                if total != NULL and new:
                    total[v] += (levels + 1) * anonspread_popcount64(new)
                    if levels + 1 > ecc[v]:  # the farthest root of every batch
                        ecc[v] = levels + 1
            if not fresh:
                break
            levels += 1
        for t in range(64 * n):
            size[t] = 1
        for j in range(k):
            tot[j] = logtab[n]  # the root's subtree: every node (the graph is connected)
        for lev in range(levels, 0, -1):
            cur = front + lev * n
            prev = front + (lev - 1) * n
            for v in range(n):
                rem = cur[v]
                if not rem:
                    continue
                for e in range(indptr[v], indptr[v + 1]):
                    x = indices[e]
                    got = rem & prev[x]
                    if got:
                        rem &= ~got
                        while got:
                            j = anonspread_ctz64(got)
                            sz = size[64 * v + j]
                            tot[j] += logtab[sz]
                            size[64 * x + j] += sz
                            got &= got - 1
                        if not rem:
                            break
        for j in range(k):
            out[b0 + j] = lg - tot[j]
        b0 += k
    free(front)
    return 0


def bfs_rumor(const int64_t[::1] indptr, const int32_t[::1] indices, double[::1] out,
              bint bitparallel=True, int64_t max_words=-1, int64_t[::1] total=None,
              int64_t[::1] ecc=None):
    """Log rumour centrality of every node v on a BFS tree of the graph rooted at v.

    The tree rooted at v gives each other node w the parent that comes first in w's CSR
    row among its neighbours one hop closer to v. On a tree: the exact rumour centrality
    by rerooting, O(n). Otherwise ``bitparallel`` (the default): 64 roots at once,
    O(ceil(n / 64) x levels x (n + m)) word operations and O(n^2) for the subtree sizes,
    keeping every level's frontier words while they fit in ``max_words`` words (default
    max(64 n, 2^24)), else a parent per node and root (256 n bytes more); or one
    breadth-first search per node (O(n m), the reference). All give the same trees.
    With ``total`` and ``ecc`` (n entries each), the bit-parallel searches also give
    :func:`distance_sums`' arrays; returns True when it filled them (the bit-parallel
    paths), False otherwise (the caller then computes them).
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1, i, j, k
    cdef int64_t e
    cdef int32_t w, x
    cdef double acc
    cdef int r = 0
    cdef int32_t[::1] order = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] parent = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] dist = np.full(max(n, 1), -1, np.int32)
    cdef int64_t[::1] size = np.ones(max(n, 1), np.int64)
    cdef double[::1] logtab = np.log(np.maximum(np.arange(n + 1, dtype=np.float64), 1.0))
    cdef bint tree = indices.shape[0] == 2 * (n - 1)
    cdef bint bp = bitparallel and not tree and n > 0
    cdef uint64_t[::1] seen = np.empty(max(n, 1) if bp else 1, np.uint64)
    cdef uint64_t[::1] cur, nxt
    cdef int32_t[::1] par
    cdef int32_t[::1] size64 = np.empty(64 * n if bp else 1, np.int32)
    cdef int64_t *tp = NULL
    cdef int64_t *ep = NULL
    if n == 0:
        return False
    if max_words < 0:
        max_words = max(64 * n, 1 << 24)
    if bp:
        if total is not None and ecc is not None:
            tp = &total[0]
            ep = &ecc[0]
            for i in range(n):
                tp[i] = 0
                ep[i] = 0
        with nogil:
            r = _bitparallel_rumor_levels(indptr, indices, out, logtab, seen, size64, max_words,
                                          tp, ep)
        if r:
            cur = np.empty(n, np.uint64)
            nxt = np.empty(n, np.uint64)
            par = np.empty(64 * n, np.int32)
            if tp != NULL:
                for i in range(n):
                    tp[i] = 0
                    ep[i] = 0
            with nogil:
                _bitparallel_rumor(indptr, indices, out, logtab, seen, cur, nxt, par, size64,
                                   tp, ep)
        return tp != NULL
    with nogil:
        if tree:
            _tree_all_rumor(indptr, indices, out, order, parent, dist, size)
        else:
            for i in range(n):
                k = bfs(indptr, indices, i, order, parent, dist)
                # the parent rule of the bit-parallel scan: the first neighbour in the
                # row one hop closer to the root (not the BFS queue's parent)
                for j in range(1, k):
                    w = order[j]
                    for e in range(indptr[w], indptr[w + 1]):
                        x = indices[e]
                        if dist[x] == dist[w] - 1:
                            parent[w] = x
                            break
                for j in range(k - 1, 0, -1):
                    w = order[j]
                    size[parent[w]] += size[w]
                acc = 0.0
                for j in range(k):
                    w = order[j]
                    acc += logtab[size[w]]
                    size[w] = 1
                    dist[w] = -1
                out[i] = lgamma(n + 1.0) - acc
    return False


def ensemble_sum(const double[:, ::1] X, const int64_t[::1] feature, const double[::1] threshold,
                 const unsigned char[::1] flags, const int64_t[::1] left,
                 const int64_t[::1] right, const double[::1] value, const int64_t[::1] roots,
                 double baseline, double[::1] out):
    """``out[r] = baseline + sum over the trees, in order, of the leaf value row r reaches``.

    The nodes of every tree are flat arrays; ``flags`` bit 0 marks a leaf, bit 1 sends a
    missing (NaN) value to the left child; an internal node goes left when the row's
    feature value is at most its threshold. The sum starts from ``0.0 + baseline`` and adds
    the trees one after the other, as scikit-learn's ``_raw_predict`` does (the same bits).
    The caller guarantees (checked once in :class:`anonspread.engine.features.TreeEnsemble`)
    that every child index is larger than its node's and in range, and every feature index
    of an internal node is a column of ``X``.
    """
    cdef Py_ssize_t rows = X.shape[0], ntrees = roots.shape[0], r, t
    cdef int64_t k
    cdef double acc, v
    with nogil:
        for r in range(rows):
            acc = 0.0
            acc = acc + baseline
            for t in range(ntrees):
                k = roots[t]
                while not (flags[k] & 1):
                    v = X[r, feature[k]]
                    if v != v:
                        k = left[k] if (flags[k] & 2) else right[k]
                    elif v <= threshold[k]:
                        k = left[k]
                    else:
                        k = right[k]
                acc = acc + value[k]
            out[r] = acc


def ranks_from_order(const double[::1] values, const int64_t[::1] order, double[::1] out):
    """``out[order[k]]`` = the mean position, over (n - 1), of the run of equal values
    ``order[k]`` belongs to, ``order`` sorting ``values`` in decreasing order (any order
    among equal values gives the same result). Returns -1 (nothing written past the
    check) if an entry of ``order`` is outside ``[0, n)``, else 0."""
    cdef Py_ssize_t n = values.shape[0], i, j, k
    cdef double r
    for k in range(n):
        if order[k] < 0 or order[k] >= n:
            return -1
    with nogil:
        i = 0
        while i < n:
            j = i
            while j + 1 < n and values[order[j + 1]] == values[order[j]]:
                j += 1
            r = (<double> (i + j) / 2.0) / <double> (n - 1)
            for k in range(i, j + 1):
                out[order[k]] = r
            i = j + 1
    return 0


def merge_runs(const double[::1] values, const int64_t[::1] order, double rtol,
               double[::1] out):
    """``out`` = ``values`` with each run of close finite values replaced by the run's
    largest: the finite values sorted decreasingly by ``order`` (a stable sort of
    ``-values``: the finite ones are contiguous in it), a run continuing while the gap to
    the previous one is at most ``rtol * max(1, largest |finite value|)``; non-finite
    values copied; fewer than two finite values: a copy. Returns -1 if an entry of
    ``order`` is outside ``[0, n)``, else 0."""
    cdef Py_ssize_t n = values.shape[0], k, finite = 0
    cdef double lead = 0.0, big = 0.0, prev = 0.0, tol, x
    cdef bint first = True
    for k in range(n):
        if order[k] < 0 or order[k] >= n:
            return -1
    with nogil:
        for k in range(n):
            x = values[k]
            out[k] = x
            if isfinite(x):
                finite += 1
                if fabs(x) > big:
                    big = fabs(x)
        tol = rtol * (big if big > 1.0 else 1.0)
        for k in range(n):
            if finite < 2:
                break
            x = values[order[k]]
            if not isfinite(x):
                continue
            if first or (prev - x) > tol:
                lead = x
            first = False
            prev = x
            out[order[k]] = lead
    return 0


def sort_rows_by_key(const int64_t[::1] indptr, const int32_t[::1] indices,
                     const uint64_t[::1] key, int32_t[::1] out):
    """``out`` = ``indices`` with every CSR row ordered by ``key`` of its entries
    (increasing; equal keys keep their order: an insertion sort per row, stable). The
    caller guarantees (checked in :func:`anonspread.engine.features.rows_sorted_by`)
    that every entry is an index of ``key`` and ``out`` is as long as ``indices``."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, r, a, b, j, i
    cdef int32_t x
    cdef uint64_t kx
    with nogil:
        for i in range(indices.shape[0]):
            out[i] = indices[i]
        for r in range(n):
            a = indptr[r]
            b = indptr[r + 1]
            for i in range(a + 1, b):
                x = out[i]
                kx = key[x]
                j = i - 1
                while j >= a and key[out[j]] > kx:
                    out[j + 1] = out[j]
                    j -= 1
                out[j + 1] = x
