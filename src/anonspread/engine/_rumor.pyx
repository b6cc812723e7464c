"""Rumour centrality kernels, compiled (see :mod:`anonspread.engine.rumor`).

A port of the numba kernels with the same loops, tie rules and floating-point order of
operations (checked bit for bit by ``benchmarks/check_rumor_port.py``). Graphs are CSR
arrays with int64 ``indptr`` and int32 ``indices``. The exact scan of graph_rumor_top runs
on raw arrays carved from one allocation (:c:type:`RumorSetup`), without the GIL; the
``def`` functions at the end are the Python entries of every piece (tests, benchmarks).
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, NAN, fabs, lgamma, log
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset
from posix.time cimport CLOCK_PROCESS_CPUTIME_ID, clock_gettime, timespec

from anonspread.engine._bfs cimport bfs

cnp.import_array()

cdef extern from *:
    """
    #define ANONSPREAD_ISNAN(x) ((x) != (x))
    """
    bint ANONSPREAD_ISNAN(double x) noexcept nogil


# ----------------------------------------------------------------- trees and all scores


cdef int tree_rumor(const int64_t[::1] indptr, const int32_t[::1] indices,
                    double[::1] out) except -1 nogil:
    """Log rumour centrality of every node of a tree (Shah & Zaman 2011).

    ``R(v) = n! / prod_u T_u^v`` with ``T_u^v`` the size of u's subtree when the tree is
    rooted at v; ``log R`` at the root by one upward pass, then
    ``log R(c) = log R(p) + log T_c - log(n - T_c)`` downwards.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef int32_t[::1] work
    cdef int64_t[::1] size
    with gil:
        work = np.empty(3 * n, np.int32)
        size = np.ones(n, np.int64)
    cdef int32_t[::1] order = work[:n]
    cdef int32_t[::1] parent = work[n:2 * n]
    cdef int32_t[::1] dist = work[2 * n:]
    cdef Py_ssize_t k
    cdef int32_t v
    cdef double total = 0.0
    dist[:] = -1
    bfs(indptr, indices, 0, order, parent, dist)
    for k in range(n - 1, 0, -1):
        v = order[k]
        size[parent[v]] += size[v]
    for k in range(n):
        total += log(<double> size[k])
    out[order[0]] = lgamma(n + 1.0) - total
    for k in range(1, n):
        v = order[k]
        out[v] = out[parent[v]] + log(<double> size[v]) - log(<double> (n - size[v]))
    return 0


cdef double _rumor_at(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t v,
                      double lg, int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist,
                      int64_t[::1] size) noexcept nogil:
    cdef int64_t k = bfs(indptr, indices, v, order, parent, dist), i
    cdef int32_t x
    cdef double s = 0.0
    for i in range(k - 1, 0, -1):
        x = order[i]
        size[parent[x]] += size[x]
    for i in range(k):
        x = order[i]
        s += log(<double> size[x])
        size[x] = 1
        dist[x] = -1
    return lg - s


# ----------------------------------------------------------------- the cut-vertex bound


cdef void _cut_rumor_bound(const int64_t *indptr, const int32_t *indices, int64_t n,
                           double *out, int64_t *work, double *fwork) noexcept nogil:
    """See :func:`cut_rumor_bound`; ``work`` holds 7 n int64, ``fwork`` 2 n + 1 float64."""
    cdef int64_t *pre = work
    cdef int64_t *low = work + n
    cdef int64_t *sz = work + 2 * n
    cdef int64_t *par = work + 3 * n
    cdef int64_t *it = work + 4 * n
    cdef int64_t *stack = work + 5 * n
    cdef int64_t *post = work + 6 * n
    cdef double *diff = fwork
    cdef double *acc = fwork + n + 1
    cdef int64_t i, j, v, w, p, u, c, sep, npost = 0, cnt, top = 0
    cdef double a, rest, lgn, lg, run
    for i in range(n):
        pre[i] = -1
        sz[i] = 1
        par[i] = -1
    stack[0] = 0
    pre[0] = 0
    low[0] = 0
    it[0] = indptr[0]
    cnt = 1
    while top >= 0:
        v = stack[top]
        if it[v] < indptr[v + 1]:
            w = indices[it[v]]
            it[v] += 1
            if pre[w] < 0:
                pre[w] = cnt
                low[w] = cnt
                cnt += 1
                par[w] = v
                it[w] = indptr[w]
                top += 1
                stack[top] = w
            elif w != par[v] and pre[w] < low[v]:
                low[v] = pre[w]
        else:
            top -= 1
            post[npost] = v
            npost += 1
            p = par[v]
            if p >= 0:
                sz[p] += sz[v]
                if low[v] < low[p]:
                    low[p] = low[v]
    for i in range(n + 1):
        diff[i] = 0.0
    lgn = log(<double> n)
    for i in range(npost):
        u = post[i]
        # the DFS children of u that a removal of u cuts off (low point not above u)
        sep = 0
        for j in range(indptr[u], indptr[u + 1]):
            c = indices[j]
            if par[c] == u and low[c] >= pre[u]:
                sep += sz[c]
                a = log(<double> (n - sz[c]))
                diff[pre[c]] += a
                diff[pre[c] + sz[c]] -= a
        if sep == 0:
            continue
        rest = log(1.0 + sep)
        # every other node (u's side of the cut) gets log(1 + sep); undo it on the
        # separated subtrees and on u itself
        diff[0] += rest
        diff[n] -= rest
        for j in range(indptr[u], indptr[u + 1]):
            c = indices[j]
            if par[c] == u and low[c] >= pre[u]:
                diff[pre[c]] -= rest
                diff[pre[c] + sz[c]] += rest
        diff[pre[u]] -= rest
        diff[pre[u] + 1] += rest
    run = 0.0
    for i in range(n):
        run += diff[i]
        acc[i] = run
    lg = lgamma(n + 1.0) - lgn
    for v in range(n):
        out[v] = lg - acc[pre[v]]


# ----------------------------------------------------------------- 2-core and its CSR


cdef double _two_core(const int64_t *indptr, const int32_t *indices, int64_t n, uint8_t *core,
                      int64_t *att, int64_t *psize, int64_t *weight,
                      int64_t *work) noexcept nogil:
    """See :func:`two_core`; returns ``const``; ``work`` holds 4 n int64."""
    cdef int64_t *deg = work
    cdef int64_t *up = work + n
    cdef int64_t *peel = work + 2 * n
    cdef int64_t *stack = work + 3 * n
    cdef int64_t v, j, w, u, i, top = 0, npeel = 0
    cdef double cst = 0.0
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
        core[v] = 1
        up[v] = -1
    for v in range(n):
        if deg[v] <= 1:
            stack[top] = v
            top += 1
    while top > 0:
        top -= 1
        v = stack[top]
        if not core[v]:
            continue
        core[v] = 0
        peel[npeel] = v
        npeel += 1
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if core[w]:
                up[v] = w
                deg[w] -= 1
                if deg[w] == 1:
                    stack[top] = w
                    top += 1
    for v in range(n):
        psize[v] = 1
        att[v] = -1
    for i in range(npeel):
        v = peel[i]
        cst += log(<double> psize[v])
        if up[v] >= 0:
            psize[up[v]] += psize[v]
    for i in range(npeel - 1, -1, -1):
        v = peel[i]
        u = up[v]
        if u >= 0:
            att[v] = u if core[u] else att[u]
    for v in range(n):
        weight[v] = psize[v] if core[v] else 0
    return cst


cdef int64_t _count_core(const uint8_t *core, int64_t n) noexcept nogil:
    cdef int64_t v, nc = 0
    for v in range(n):
        if core[v]:
            nc += 1
    return nc


cdef int64_t _core_degrees(const int64_t *indptr, const int32_t *indices, int64_t n,
                           const uint8_t *core, int64_t *cid, int64_t *old, int64_t nc,
                           int64_t start, int64_t *cptr) noexcept nogil:
    """The renumbering of :func:`core_csr` (``cid``, ``old``) and ``cptr``; returns its
    number of entries."""
    cdef int64_t v, i, j, w, c, x, head = 0, tail = 1
    for v in range(n):
        cid[v] = -1
    cptr[0] = 0
    if nc == 0:
        return 0
    cid[start] = 0
    old[0] = start
    while head < tail:
        x = old[head]
        head += 1
        for j in range(indptr[x], indptr[x + 1]):
            w = indices[j]
            if core[w] and cid[w] < 0:
                cid[w] = tail
                old[tail] = w
                tail += 1
    for i in range(nc):
        v = old[i]
        c = 0
        for j in range(indptr[v], indptr[v + 1]):
            if core[indices[j]]:
                c += 1
        cptr[i + 1] = cptr[i] + c
    return cptr[nc]


cdef void _core_fill(const int64_t *indptr, const int32_t *indices, const uint8_t *core,
                     const int64_t *weight, const int64_t *cid, const int64_t *old, int64_t nc,
                     double *cw, int32_t *cind, double *cwe) noexcept nogil:
    cdef int64_t i, v, j, w, k = 0
    for i in range(nc):
        cw[i] = <double> weight[old[i]]
    for i in range(nc):
        v = old[i]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if core[w]:
                cind[k] = <int32_t> cid[w]
                cwe[k] = <double> weight[w]
                k += 1


cdef int64_t _flat_width(const int64_t *cptr, int64_t nc) noexcept nogil:
    """The padded width D of :func:`core_flat`, or -1 when the core stays unpadded."""
    cdef int64_t i, maxd = 0, m = cptr[nc]
    for i in range(nc):
        if cptr[i + 1] - cptr[i] > maxd:
            maxd = cptr[i + 1] - cptr[i]
    if maxd * nc > 2 * m:
        return -1
    return maxd


cdef void _core_flat(const int64_t *cptr, const int32_t *cind, const double *cwe, int64_t nc,
                     int64_t width, uint64_t *fptr, uint32_t *find,
                     double *fwe) noexcept nogil:
    cdef int64_t i, k, m = cptr[nc]
    if width < 0:
        for i in range(nc + 1):
            fptr[i] = <uint64_t> cptr[i]
        for i in range(m):
            find[i] = <uint32_t> cind[i]
            fwe[i] = cwe[i]
        return
    for i in range(nc * width):
        find[i] = <uint32_t> nc
        fwe[i] = 0.0
    for i in range(nc + 1):
        fptr[i] = <uint64_t> (i * width)
    for i in range(nc):
        for k in range(cptr[i + 1] - cptr[i]):
            find[i * width + k] = <uint32_t> cind[cptr[i] + k]
            fwe[i * width + k] = cwe[cptr[i] + k]


cdef int64_t _blocked_entries(const int64_t *cptr, int64_t nc) noexcept nogil:
    """The entries of the core CSR with every row padded to a multiple of RUMOR_BLOCK."""
    cdef int64_t i, fm = 0
    for i in range(nc):
        fm += (cptr[i + 1] - cptr[i] + RUMOR_BLOCK - 1) // RUMOR_BLOCK * RUMOR_BLOCK
    return fm


cdef void _core_blocked(const int64_t *cptr, const int32_t *cind, const double *cwe,
                        int64_t nc, uint64_t *fptr, uint32_t *find,
                        double *fwe) noexcept nogil:
    """:func:`_core_flat`'s unpadded form with each row padded to a multiple of RUMOR_BLOCK
    entries by dummy entries (weight 0) to the dummy nodes ``nc``, ``nc + 1``, ... (the
    k-th dummy of a row to ``nc + k``: consecutive dummies then mark different ``seen``
    slots, not one slot in a chain of stores and loads), as the padded layout pads to D:
    same neighbours in the same order, so the same BFS trees."""
    cdef int64_t i, k, d, r, f = 0
    for i in range(nc):
        fptr[i] = <uint64_t> f
        d = cptr[i + 1] - cptr[i]
        r = (d + RUMOR_BLOCK - 1) // RUMOR_BLOCK * RUMOR_BLOCK
        for k in range(d):
            find[f + k] = <uint32_t> cind[cptr[i] + k]
            fwe[f + k] = cwe[cptr[i] + k]
        for k in range(d, r):
            find[f + k] = <uint32_t> (nc + k - d)
            fwe[f + k] = 0.0
        f += r
    fptr[nc] = <uint64_t> f


cdef int64_t _max_row(const uint64_t *fptr, int64_t nc) noexcept nogil:
    cdef int64_t i, d, maxd = 0
    for i in range(nc):
        d = <int64_t> (fptr[i + 1] - fptr[i])
        if d > maxd:
            maxd = d
    return maxd


# ----------------------------------------------------------------- one exact evaluation


cdef double _log_subtree_sizes(const uint64_t *qpk, double *spos, uint64_t tail) noexcept nogil:
    """The reverse pass of the core scans over the ``tail`` queue slots: add each subtree
    weight to its parent's slot (``qpk[i] >> 32``) and return ``sum log spos`` as logs of
    running products flushed past 1e280."""
    cdef double s = 0.0, prod = 1.0, sx
    cdef uint64_t i = tail - 1
    while i > 0:
        sx = spos[i]
        spos[qpk[i] >> 32] += sx
        prod *= sx
        if prod > 1e280:
            s += log(prod)
            prod = 1.0
        i -= 1
    return s + log(prod * spos[0])


cdef double _core_log_sizes(const uint64_t *fptr, const uint32_t *find, const double *cw,
                            int64_t nc, uint64_t root, int32_t stamp, int32_t *seen,
                            uint64_t *qpk, double *spos) noexcept nogil:
    """``sum over core nodes u of log T_u`` over the weighted BFS tree of the core rooted at
    ``root``, for sparse cores: the branchless scan (every neighbour is written at the
    queue's end, the end advances only if it is new). A node's weight goes to its queue
    slot when it is dequeued (``spos[head] = cw[x]``), not with every neighbour written:
    the scan's inner loop then reads and writes two arrays fewer per adjacency entry
    (``fwe`` is not read; same weights in the same slots, so the same sums)."""
    cdef uint64_t low = 0xFFFFFFFF, head = 0, tail = 1, x, hp, j, e
    cdef uint32_t w
    cdef bint new
    seen[nc] = stamp  # the padding's dummy node: never enqueued
    qpk[0] = root
    seen[root] = stamp
    while head < tail:
        x = qpk[head] & low
        spos[head] = cw[x]
        hp = head << 32
        j = fptr[x]
        e = fptr[x + 1]
        while j < e:
            w = find[j]
            new = seen[w] != stamp
            seen[w] = stamp
            qpk[tail] = hp | <uint64_t> w
            tail += <uint64_t> new
            j += 1
        head += 1
    return _log_subtree_sizes(qpk, spos, tail)


cdef double _core_log_sizes_padded(const uint32_t *find, const double *cw, int64_t nc,
                                   uint64_t width, uint64_t root, int32_t stamp,
                                   int32_t *seen, uint64_t *qpk, double *spos) noexcept nogil:
    """:func:`_core_log_sizes` on a padded core (every node has ``width`` entries, so node x's
    start is ``x * width``: no row pointers to load). Same scan, same result."""
    cdef uint64_t low = 0xFFFFFFFF, head = 0, tail = 1, x, hp, j, e
    cdef uint32_t w
    cdef bint new
    seen[nc] = stamp  # the padding's dummy node: never enqueued
    qpk[0] = root
    seen[root] = stamp
    while head < tail:
        x = qpk[head] & low
        spos[head] = cw[x]
        hp = head << 32
        j = x * width
        e = j + width
        while j < e:
            w = find[j]
            new = seen[w] != stamp
            seen[w] = stamp
            qpk[tail] = hp | <uint64_t> w
            tail += <uint64_t> new
            j += 1
        head += 1
    return _log_subtree_sizes(qpk, spos, tail)


cdef double _core_log_sizes_blocked(const uint64_t *fptr, const uint32_t *find,
                                    const double *cw, int64_t nc, uint64_t root, int32_t stamp,
                                    int32_t *seen, uint64_t *qpk, double *spos) noexcept nogil:
    """:func:`_core_log_sizes` on a blocked core (:func:`_core_blocked`: every row a multiple
    of RUMOR_BLOCK entries): the inner loop takes RUMOR_BLOCK entries a step with no
    remainder, so a node's scan ends after the same number of steps for every degree up to
    RUMOR_BLOCK (fewer mispredicted branches than a loop whose length is the degree). Same
    scan, same result."""
    cdef uint64_t low = 0xFFFFFFFF, head = 0, tail = 1, x, hp, j, e
    cdef uint32_t w
    cdef int k
    cdef bint new
    for k in range(RUMOR_BLOCK):  # the padding's dummy nodes: never enqueued
        seen[nc + k] = stamp
    qpk[0] = root
    seen[root] = stamp
    while head < tail:
        x = qpk[head] & low
        spos[head] = cw[x]
        hp = head << 32
        j = fptr[x]
        e = fptr[x + 1]
        while j < e:
            for k in range(RUMOR_BLOCK):
                w = find[j + k]
                new = seen[w] != stamp
                seen[w] = stamp
                qpk[tail] = hp | <uint64_t> w
                tail += <uint64_t> new
            j += RUMOR_BLOCK
        head += 1
    return _log_subtree_sizes(qpk, spos, tail)


cdef double _core_log_sizes_dense(const uint64_t *fptr, const uint32_t *find,
                                  const double *fwe, const double *cw, int64_t nc,
                                  uint64_t root, int32_t stamp, int32_t *seen, uint64_t *qpk,
                                  double *spos) noexcept nogil:
    """:func:`_core_log_sizes` for dense cores (mean degree >= 7): the scan tests each
    neighbour and enqueues only new ones."""
    cdef uint64_t low = 0xFFFFFFFF, head = 0, tail = 1, x, hp, j, e
    cdef uint32_t w
    seen[nc] = stamp  # the padding's dummy node, if any
    qpk[0] = root
    seen[root] = stamp
    spos[0] = cw[root]
    while head < tail:
        x = qpk[head] & low
        hp = head << 32
        j = fptr[x]
        e = fptr[x + 1]
        while j < e:
            w = find[j]
            if seen[w] != stamp:
                seen[w] = stamp
                qpk[tail] = hp | <uint64_t> w
                spos[tail] = fwe[j]
                tail += 1
            j += 1
        head += 1
    return _log_subtree_sizes(qpk, spos, tail)


cdef int64_t _twin_offsets(const uint64_t *fptr, const uint32_t *find, int64_t nc,
                          uint32_t *tw) noexcept nogil:
    """``tw[j]`` for every entry j of row x pointing to a core node y: the offset of x in y's
    row (the reverse entry minus ``fptr[y]``), in O(nc + entries): ``inc[x]`` lists the
    entries pointing to x by increasing source, ``own[x]`` x's own entries by increasing
    target (a transpose of ``inc``), so their i-th elements are reverse entries. Returns -1
    (``tw`` untouched) when there is no memory for the work arrays."""
    cdef uint64_t m = fptr[nc], j, k, a
    cdef int64_t x, y
    cdef uint32_t *inc = <uint32_t *> malloc(m * 4 + 4)
    cdef uint32_t *own = <uint32_t *> malloc(m * 4 + 4)
    cdef uint32_t *rowof = <uint32_t *> malloc(m * 4 + 4)
    cdef uint64_t *start = <uint64_t *> malloc((nc + 1) * 8)
    cdef uint64_t *cur = <uint64_t *> malloc((nc + 1) * 8)
    if inc == NULL or own == NULL or rowof == NULL or start == NULL or cur == NULL:
        free(inc); free(own); free(rowof); free(start); free(cur)
        return -1
    for x in range(nc + 1):
        start[x] = 0
    for x in range(nc):
        for j in range(fptr[x], fptr[x + 1]):
            rowof[j] = <uint32_t> x
            y = find[j]
            if y < nc:  # not the padding's dummy node
                start[y + 1] += 1
    for x in range(nc):
        start[x + 1] += start[x]
    for x in range(nc):
        cur[x] = start[x]
    for x in range(nc):  # sources in increasing order
        for j in range(fptr[x], fptr[x + 1]):
            y = find[j]
            if y < nc:
                inc[cur[y]] = <uint32_t> j
                cur[y] += 1
    for x in range(nc):
        cur[x] = start[x]
    for y in range(nc):  # targets in increasing order
        for k in range(start[y], start[y + 1]):
            j = inc[k]
            x = rowof[j]
            own[cur[x]] = <uint32_t> j
            cur[x] += 1
    for x in range(nc):
        for k in range(start[x], start[x + 1]):
            j = own[k]  # x -> y
            a = inc[k]  # y -> x
            y = find[j]
            tw[j] = <uint32_t> (a - fptr[y])
    free(inc); free(own); free(rowof); free(start); free(cur)
    return 0


cdef double _core_log_sizes_hybrid(const uint64_t *fptr, const uint32_t *find,
                                   const uint32_t *tw, const double *cw, int64_t nc,
                                   uint64_t root, int32_t stamp, uint64_t *qpk, double *spos,
                                   uint32_t *bu) noexcept nogil:
    """:func:`_core_log_sizes_dense` level by level, each level found top-down (the
    frontier's rows) or bottom-up (the rows of the nodes not yet reached: chosen when they
    hold fewer than a quarter of the frontier's entries, since a bottom-up entry costs
    more. On the 10^4-infected Chung-Lu snapshot of ``benchmarks/bench_estimator_growth.py``,
    against the top-down scan in interleaved pairs at load 8-11, bottom-up when ``re < 2 fe``,
    ``re < fe``, ``2 re < fe``, ``4 re < fe``, ``8 re < fe`` (re: unreached rows' entries, fe:
    the frontier's) took 1.02-1.10x, 1.22x, 1.31x, 1.33x, 1.27x less CPU), as in Beamer,
    Asanovic and Patterson's direction-optimising BFS, building the same queue, so the same
    tree and the same sums.

    Why the same tree: the top-down scan gives a node x of depth k + 1 as parent the
    neighbour of depth k that left the queue first (the first to scan its row), and puts the
    nodes of depth k + 1 in the queue by (their parent's queue slot, their offset in the
    parent's row). Every reached neighbour of a node not reached after depth k has depth k
    (one of depth < k would have reached it), so a bottom-up level reads the whole row of
    every unreached node x and takes the reached neighbour of smallest queue slot, then
    orders the level's new nodes by that slot (a counting sort) and by x's offset in the
    parent's row (``tw``, :func:`_twin_offsets`: an insertion sort for a few children, a
    scatter over the parent's row for more). Both directions append the level in that
    order with the same weights.

    ``bu`` is a work row of ``st.bu_row`` uint32 (zeroed once when allocated): first
    ``mark``, nc + 1 words of 64 bits ``stamp << 32 | queue slot`` (a node is reached in
    this call iff its high half is ``stamp``; XOR with ``stamp << 32`` then leaves its slot,
    below 2^32, and anything else stays above: the bottom-up minimum is branch-free), then
    the level's work arrays. ``qpk`` and ``spos`` are the queue, as in the other scans."""
    cdef uint64_t low = 0xFFFFFFFF, hi = (<uint64_t> <uint32_t> stamp) << 32
    cdef uint64_t a = 0, b = 1, tail = 1, x, hp, j, e, h, fe, ne, re, key, best
    cdef uint32_t NONE = 0xFFFFFFFF, w, v, t
    cdef uint64_t *mark = <uint64_t *> bu
    cdef uint32_t *rest = bu + 2 * (nc + 1)
    cdef uint32_t *cp = rest + nc
    cdef uint32_t *co = cp + nc
    cdef uint32_t *cx = co + nc
    cdef uint32_t *cnt = cx + nc
    cdef uint32_t *order = cnt + (nc + 2)
    cdef uint32_t *tmp = order + nc
    cdef int64_t nrest = -1, keep, nch, i, r, q, c, width
    mark[nc] = hi | NONE  # the padding's dummy node, if any: reached, in no level
    qpk[0] = root
    mark[root] = hi
    spos[0] = cw[root]
    fe = fptr[root + 1] - fptr[root]
    re = fptr[nc] - fe
    while a < b:
        ne = 0
        if 4 * re < fe:
            # bottom-up: the unreached nodes' rows
            if nrest < 0:
                nrest = 0
                for i in range(nc):
                    if (mark[i] ^ hi) > low:
                        rest[nrest] = <uint32_t> i
                        nrest += 1
            else:
                keep = 0
                for i in range(nrest):
                    if (mark[rest[i]] ^ hi) > low:
                        rest[keep] = rest[i]
                        keep += 1
                nrest = keep
            nch = 0
            keep = 0
            for i in range(nrest):
                v = rest[i]
                best = NONE
                h = 0
                j = fptr[v]
                e = fptr[v + 1]
                while j < e:
                    key = mark[find[j]] ^ hi
                    if key < best:
                        best = key
                        h = j
                    j += 1
                if best < NONE:
                    cp[nch] = <uint32_t> (best - a)
                    co[nch] = tw[h]
                    cx[nch] = v
                    nch += 1
                else:
                    rest[keep] = v
                    keep += 1
            nrest = keep
            # the level's order: by parent slot (counting sort), then offset in its row
            for i in range(<int64_t> (b - a) + 1):
                cnt[i] = 0
            for i in range(nch):
                cnt[cp[i] + 1] += 1
            for i in range(<int64_t> (b - a)):
                cnt[i + 1] += cnt[i]
            for i in range(nch):
                order[cnt[cp[i]]] = <uint32_t> i
                cnt[cp[i]] += 1
            r = 0
            while r < nch:
                q = r + 1
                while q < nch and cp[order[q]] == cp[order[r]]:
                    q += 1
                c = q - r
                if 1 < c <= 16:
                    for i in range(r + 1, q):
                        t = order[i]
                        keep = i
                        while keep > r and co[order[keep - 1]] > co[t]:
                            order[keep] = order[keep - 1]
                            keep -= 1
                        order[keep] = t
                elif c > 16:
                    x = qpk[a + cp[order[r]]] & low
                    width = <int64_t> (fptr[x + 1] - fptr[x])
                    for i in range(width):
                        tmp[i] = NONE
                    for i in range(r, q):
                        tmp[co[order[i]]] = order[i]
                    keep = r
                    for i in range(width):
                        if tmp[i] != NONE:
                            order[keep] = tmp[i]
                            keep += 1
                r = q
            for i in range(nch):
                t = order[i]
                v = cx[t]
                mark[v] = hi | tail
                qpk[tail] = ((a + cp[t]) << 32) | <uint64_t> v
                spos[tail] = cw[v]
                ne += fptr[v + 1] - fptr[v]
                tail += 1
        else:
            # top-down: the frontier's rows
            for h in range(a, b):
                x = qpk[h] & low
                hp = h << 32
                j = fptr[x]
                e = fptr[x + 1]
                while j < e:
                    w = find[j]
                    if (mark[w] ^ hi) > low:
                        mark[w] = hi | tail
                        qpk[tail] = hp | <uint64_t> w
                        spos[tail] = cw[w]
                        ne += fptr[w + 1] - fptr[w]
                        tail += 1
                    j += 1
        re -= ne
        fe = ne
        a = b
        b = tail
    return _log_subtree_sizes(qpk, spos, tail)


cdef double core_eval(const RumorSetup *st, int64_t c, int32_t stamp, int32_t *seen,
                      uint64_t *qpk, double *spos, uint32_t *bu) noexcept nogil:
    """``sum log T_u`` over the weighted core BFS tree rooted at core id ``c``, with one work
    row (``seen``: nc + RUMOR_BLOCK int32; ``qpk``, ``spos``: nc + maxd + 1; ``bu``:
    ``st.bu_row`` uint32 zeroed once, used by dense cores); ``stamp`` new for the row's every
    call."""
    if st.twoff != NULL:
        return _core_log_sizes_hybrid(st.fptr, st.find, st.twoff, st.cw, st.nc, <uint64_t> c,
                                      stamp, qpk, spos, bu)
    if st.sparse:
        if st.width >= 0:
            return _core_log_sizes_padded(st.find, st.cw, st.nc, <uint64_t> st.width,
                                          <uint64_t> c, stamp, seen, qpk, spos)
        if st.blocked:
            return _core_log_sizes_blocked(st.fptr, st.find, st.cw, st.nc, <uint64_t> c, stamp,
                                           seen, qpk, spos)
        return _core_log_sizes(st.fptr, st.find, st.cw, st.nc, <uint64_t> c, stamp, seen, qpk,
                               spos)
    return _core_log_sizes_dense(st.fptr, st.find, st.fwe, st.cw, st.nc, <uint64_t> c, stamp,
                                 seen, qpk, spos)


# ----------------------------------------------------------------- numba's argsort


cdef inline bint _lt(double a, double b) noexcept nogil:
    # numba's order of floats: NaN last
    return a < b or (ANONSPREAD_ISNAN(b) and not ANONSPREAD_ISNAN(a))


cdef void _argsort(const double *A, int64_t n, int64_t *R) noexcept nogil:
    """``np.argsort(A)`` as numba compiles it (its quicksort: median of three, insertion
    sort below 16 items, the larger part pushed), so ties come out in the same order."""
    cdef int64_t stack_lo[100]
    cdef int64_t stack_hi[100]
    cdef int64_t i, j, k, low, high, mid, t, sp
    cdef double v, pivot
    for i in range(n):
        R[i] = i
    if n < 2:
        return
    stack_lo[0] = 0
    stack_hi[0] = n - 1
    sp = 1
    while sp > 0:
        sp -= 1
        low = stack_lo[sp]
        high = stack_hi[sp]
        while high - low >= 15:
            mid = (low + high) >> 1
            if _lt(A[R[mid]], A[R[low]]):
                t = R[low]; R[low] = R[mid]; R[mid] = t
            if _lt(A[R[high]], A[R[mid]]):
                t = R[high]; R[high] = R[mid]; R[mid] = t
            if _lt(A[R[mid]], A[R[low]]):
                t = R[low]; R[low] = R[mid]; R[mid] = t
            pivot = A[R[mid]]
            t = R[high]; R[high] = R[mid]; R[mid] = t
            i = low
            j = high - 1
            while True:
                while i < high and _lt(A[R[i]], pivot):
                    i += 1
                while j >= low and _lt(pivot, A[R[j]]):
                    j -= 1
                if i >= j:
                    break
                t = R[i]; R[i] = R[j]; R[j] = t
                i += 1
                j -= 1
            t = R[i]; R[i] = R[high]; R[high] = t
            if high - i > i - low:
                if high > i:
                    stack_lo[sp] = i + 1
                    stack_hi[sp] = high
                    sp += 1
                high = i - 1
            else:
                if i > low:
                    stack_lo[sp] = low
                    stack_hi[sp] = i - 1
                    sp += 1
                low = i + 1
        if high > low:
            for i in range(low + 1, high + 1):
                k = R[i]
                v = A[k]
                j = i
                while j > low and _lt(v, A[R[j - 1]]):
                    R[j] = R[j - 1]
                    j -= 1
                R[j] = k


# ----------------------------------------------------------------- the exact scan


cdef int rumor_setup(const int64_t *indptr, const int32_t *indices, int64_t n, int64_t s,
                     RumorSetup *st) except -1 nogil:
    """The cut-vertex bound of every node, the 2-core and its pendant trees, the core's CSR
    renumbered in BFS order from s's core node in its flat form, the nodes in decreasing
    order of their bound, and whether the core is sparse: everything in one allocation
    (free it with :c:func:`rumor_setup_free`)."""
    cdef int64_t m = indptr[n]
    cdef size_t tmp_bytes = (7 * n + 1) * 8 + (2 * n + 1) * 8
    cdef void *tmp = malloc(tmp_bytes)
    cdef int64_t *iw
    cdef int64_t *psize
    cdef int64_t *weight
    cdef int64_t *old
    cdef int64_t *cptr
    cdef int32_t *cind
    cdef double *cwe
    cdef double *neg
    cdef int64_t nc, mc, width, fm, a0, i
    cdef char *p
    cdef void *carena
    cdef void *cbuild
    st.arena = NULL
    st.core_arena = NULL
    st.tw_arena = NULL
    st.twoff = NULL
    st.bu_row = 2
    if tmp == NULL:
        with gil:
            raise MemoryError("rumour centrality: no memory for a graph of %d nodes" % n)
    iw = <int64_t *> tmp
    # the node arrays that outlive the setup: ub, core, att, cid, byub (+ cw, fptr, ... below)
    st.arena = malloc(n * (8 + 8 + 8 + 8) + n + 64)
    if st.arena == NULL:
        free(tmp)
        with gil:
            raise MemoryError("rumour centrality: no memory for a graph of %d nodes" % n)
    p = <char *> st.arena
    st.n = n
    st.ub = <double *> p
    st.att = <int64_t *> (p + 8 * n)
    st.cid = <int64_t *> (p + 16 * n)
    st.byub = <int64_t *> (p + 24 * n)
    st.core = <uint8_t *> (p + 32 * n)
    _cut_rumor_bound(indptr, indices, n, st.ub, iw, <double *> (iw + 7 * n + 1))
    psize = iw
    weight = iw + n
    st.const_ = _two_core(indptr, indices, n, st.core, st.att, psize, weight, iw + 2 * n)
    a0 = s if st.core[s] else st.att[s]
    if a0 < 0:  # no cycle at all (callers send trees to tree_rumor)
        a0 = s
    nc = _count_core(st.core, n)
    old = iw + 2 * n
    cptr = iw + 3 * n  # nc + 1 <= n + 1 entries: spills into the next (unused) block
    mc = _core_degrees(indptr, indices, n, st.core, st.cid, old, nc, a0, cptr)
    st.nc = nc
    st.sparse = mc < 7 * nc  # mean core degree below 7
    width = _flat_width(cptr, nc)
    st.width = width
    st.blocked = st.sparse and width < 0
    fm = mc if width >= 0 or not st.blocked else _blocked_entries(cptr, nc)
    if width >= 0:
        fm = nc * width
    # the core arrays: cw, fptr, find, fwe, plus cind and cwe while building
    carena = malloc((nc + 1) * 8 + (nc + 1) * 8 + fm * 4 + fm * 8 + 64)
    cbuild = malloc(mc * 4 + mc * 8 + 16)
    if carena == NULL or cbuild == NULL:
        free(carena)
        free(cbuild)
        free(tmp)
        free(st.arena)
        st.arena = NULL
        with gil:
            raise MemoryError("rumour centrality: no memory for a core of %d nodes" % nc)
    cind = <int32_t *> cbuild
    cwe = <double *> (<char *> cbuild + ((mc * 4 + 7) // 8) * 8)
    p = <char *> carena
    st.cw = <double *> p
    st.fptr = <uint64_t *> (p + (nc + 1) * 8)
    st.fwe = <double *> (p + 2 * (nc + 1) * 8)
    st.find = <uint32_t *> (p + 2 * (nc + 1) * 8 + fm * 8)
    _core_fill(indptr, indices, st.core, weight, st.cid, old, nc, st.cw, cind, cwe)
    if st.blocked:
        _core_blocked(cptr, cind, cwe, nc, st.fptr, st.find, st.fwe)
    else:
        _core_flat(cptr, cind, cwe, nc, width, st.fptr, st.find, st.fwe)
    free(cbuild)
    st.maxd = _max_row(st.fptr, nc)
    # dense cores: the direction-optimising scan and its reverse-entry offsets (if memory
    # allows; else the top-down scan, same answer)
    if not st.sparse and nc > 0 and st.fptr[nc] < <uint64_t> 0xFFFFFFF0:
        st.tw_arena = malloc(st.fptr[nc] * 4 + 4)
        if st.tw_arena != NULL:
            if _twin_offsets(st.fptr, st.find, nc, <uint32_t *> st.tw_arena) == 0:
                st.twoff = <uint32_t *> st.tw_arena
                st.bu_row = (2 * (nc + 1) + 7 * nc + st.maxd + 9) // 2 * 2  # even: 8-byte rows
            else:
                free(st.tw_arena)
                st.tw_arena = NULL
    # the order of the scan: np.argsort(-ub), as numba sorts
    neg = <double *> iw
    for i in range(n):
        neg[i] = -st.ub[i]
    _argsort(neg, n, st.byub)
    free(tmp)
    st.core_arena = carena
    return 0


cdef void rumor_setup_free(RumorSetup *st) noexcept nogil:
    free(st.core_arena)
    free(st.arena)
    free(st.tw_arena)
    st.tw_arena = NULL
    st.twoff = NULL
    st.core_arena = NULL
    st.arena = NULL


cdef double rumor_stop_level(double best, double s0, double tol0, double rtol) noexcept nogil:
    """Below this score a node is no maximiser and neither ties with nor beats the source."""
    cdef double thr = best - rtol * max(1.0, fabs(best))
    return thr if thr < s0 - tol0 else s0 - tol0


cdef void rumor_scan_start(double *exact, int64_t n, int64_t *ist, double *fst) noexcept nogil:
    """The scan's state before its first step: no exact score yet (NaN), no node taken,
    no best score."""
    cdef int64_t i
    for i in range(n):
        exact[i] = NAN
    ist[0] = -1
    ist[1] = 0
    fst[0] = -INFINITY
    fst[1] = 0.0
    fst[2] = 0.0


cdef int64_t rumor_advance(int64_t s, double rtol, double lg, const RumorSetup *st,
                           double *exact, int64_t *cand, double *val, int64_t *ist,
                           double *fst) noexcept nogil:
    """Take the nodes of the scan's order (s, then decreasing bound) whose exact score is
    known, until one needs a core node's evaluation (returned) or the bound stops the scan
    (returns -1). ``ist = [next position (-1 = s), number taken]``, ``fst = [best, s0, s0's
    tie tolerance]``; ``exact[a]`` NaN until core node a is evaluated."""
    cdef int64_t n = st.n, i, v, a
    cdef double x
    while ist[0] < n:
        i = ist[0]
        v = s if i < 0 else st.byub[i]
        if i >= 0:
            if v == s:
                ist[0] += 1
                continue
            # the bound and the exact score are sums of up to n logs: allow their rounding
            if st.ub[v] + 1e-12 * (lg + 1.0) < rumor_stop_level(fst[0], fst[1], fst[2], rtol):
                return -1
        a = v if st.core[v] else st.att[v]
        if a < 0:  # no cycle at all: the bound is the score
            a = v
            exact[v] = st.ub[v]
        if ANONSPREAD_ISNAN(exact[a]):
            return a
        x = exact[a] if a == v else st.ub[v] - (st.ub[a] - exact[a])
        cand[ist[1]] = v
        val[ist[1]] = x
        ist[1] += 1
        if i < 0:
            fst[1] = x
            fst[2] = rtol * max(1.0, fabs(x))
            fst[0] = x
        elif x > fst[0]:
            fst[0] = x
        ist[0] = i + 1
    return -1


cdef RumorTop rumor_finish(int64_t s, double rtol, const RumorSetup *st, const int64_t *cand,
                           const double *val, const int64_t *ist, const double *fst,
                           uint8_t *top, uint8_t *mark) noexcept nogil:
    """``top`` (n bytes) and the result from the taken nodes; ``mark`` is n bytes of
    scratch."""
    cdef RumorTop r
    cdef double best = fst[0], s0 = fst[1], tol0 = fst[2], thr, x
    cdef int64_t n = st.n, i, v, a, ne = ist[1]
    thr = best - rtol * max(1.0, fabs(best))
    memset(top, 0, n)
    r.best = best
    r.s0 = s0
    r.greater = 0
    r.tied = 0
    r.n_core_bfs = 0
    for i in range(ne):
        x = val[i]
        if x >= thr:
            top[cand[i]] = 1
        if x > s0 + tol0:
            r.greater += 1
        elif fabs(x - s0) <= tol0:
            r.tied += 1
    # the core nodes whose evaluation a taken node used, each counted once
    memset(mark, 0, n)
    for i in range(ne):
        v = cand[i]
        a = v if st.core[v] else st.att[v]
        if a >= 0 and not mark[a]:
            mark[a] = 1
            r.n_core_bfs += 1
    return r


cdef RumorTop rumor_scan(const RumorSetup *st, int64_t s, double rtol,
                         uint8_t *top) except * nogil:
    """The serial scan from a :c:func:`rumor_setup`: exact scores for s, then in decreasing
    order of the bound until the bound stops it; ``top`` is n bytes."""
    cdef RumorTop r
    cdef int64_t n = st.n, a, i, row = st.nc + st.maxd + 1
    cdef int32_t stamp = 0
    cdef double lg = lgamma(n + 1.0)
    cdef int64_t ist[2]
    cdef double fst[3]
    cdef char *w = <char *> malloc(n * 8 * 3 + n + (st.nc + RUMOR_BLOCK) * 4 + row * 16 + 64)
    cdef uint32_t *bu = <uint32_t *> calloc(st.bu_row, 4)
    if w == NULL or bu == NULL:
        free(w)
        free(bu)
        with gil:
            raise MemoryError("rumour centrality: no memory for a graph of %d nodes" % n)
    cdef double *exact = <double *> w
    cdef int64_t *cand = <int64_t *> (w + 8 * n)
    cdef double *val = <double *> (w + 16 * n)
    cdef uint64_t *qpk = <uint64_t *> (w + 24 * n)
    cdef double *spos = <double *> (w + 24 * n + 8 * row)
    cdef int32_t *seen = <int32_t *> (w + 24 * n + 16 * row)
    cdef uint8_t *mark = <uint8_t *> (w + 24 * n + 16 * row + 4 * (st.nc + RUMOR_BLOCK))
    rumor_scan_start(exact, n, ist, fst)
    memset(seen, 0, (st.nc + RUMOR_BLOCK) * 4)
    while True:
        a = rumor_advance(s, rtol, lg, st, exact, cand, val, ist, fst)
        if a < 0:
            break
        stamp += 1
        exact[a] = lg - st.const_ - core_eval(st, st.cid[a], stamp, seen, qpk, spos, bu)
    r = rumor_finish(s, rtol, st, cand, val, ist, fst, top, mark)
    free(w)
    free(bu)
    return r


cdef RumorTop graph_rumor_top(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                              double rtol, uint8_t[::1] top) except * nogil:
    """Rumour-centrality maximisers and the rank data of node ``s``, exactly (see
    :func:`anonspread.engine.rumor.graph_rumor_top`)."""
    cdef RumorSetup st
    cdef RumorTop r
    rumor_setup(&indptr[0], &indices[0] if indices.shape[0] > 0 else NULL,
                indptr.shape[0] - 1, s, &st)
    try:
        r = rumor_scan(&st, s, rtol, &top[0])
    finally:
        rumor_setup_free(&st)
    return r


# ----------------------------------------------------------------- Python entries


def py_tree_rumor(const int64_t[::1] indptr, const int32_t[::1] indices, double[::1] out):
    tree_rumor(indptr, indices, out)


def py_rumor_at(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t v, double lg,
                int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist, int64_t[::1] size):
    with nogil:
        lg = _rumor_at(indptr, indices, v, lg, order, parent, dist, size)
    return lg


def py_graph_rumor(const int64_t[::1] indptr, const int32_t[::1] indices, double[::1] out):
    cdef Py_ssize_t n = indptr.shape[0] - 1, v
    cdef int32_t[::1] order = np.empty(n, np.int32)
    cdef int32_t[::1] parent = np.empty(n, np.int32)
    cdef int32_t[::1] dist = np.full(n, -1, np.int32)
    cdef int64_t[::1] size = np.ones(n, np.int64)
    cdef double lg = lgamma(n + 1.0)
    with nogil:
        for v in range(n):
            out[v] = _rumor_at(indptr, indices, v, lg, order, parent, dist, size)


def py_cut_rumor_bound(const int64_t[::1] indptr, const int32_t[::1] indices, double[::1] out):
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t[::1] work = np.empty(7 * n + 1, np.int64)
    cdef double[::1] fwork = np.empty(2 * n + 1, np.float64)
    with nogil:
        _cut_rumor_bound(&indptr[0], &indices[0], n, &out[0], &work[0], &fwork[0])


def py_two_core(const int64_t[::1] indptr, const int32_t[::1] indices):
    cdef int64_t n = indptr.shape[0] - 1
    core = np.empty(n, np.bool_)
    att = np.empty(n, np.int64)
    psize = np.empty(n, np.int64)
    weight = np.empty(n, np.int64)
    cdef uint8_t[::1] c = core.view(np.uint8)
    cdef int64_t[::1] a = att, p = psize, w = weight
    cdef int64_t[::1] work = np.empty(4 * n + 1, np.int64)
    cdef double cst
    with nogil:
        cst = _two_core(&indptr[0], &indices[0] if indices.shape[0] else NULL, n, &c[0], &a[0],
                        &p[0], &w[0], &work[0])
    return core, att, psize, weight, cst


def py_core_csr(const int64_t[::1] indptr, const int32_t[::1] indices, core,
                const int64_t[::1] weight, int64_t start):
    cdef int64_t n = indptr.shape[0] - 1
    cdef const uint8_t[::1] c = np.ascontiguousarray(core, np.bool_).view(np.uint8)
    cdef int64_t nc = _count_core(&c[0], n), m
    cid = np.empty(n, np.int64)
    cdef int64_t[::1] cid_v = cid
    cdef int64_t[::1] old = np.empty(max(nc, 1), np.int64)
    cptr = np.zeros(nc + 1, np.int64)
    cdef int64_t[::1] cptr_v = cptr
    with nogil:
        m = _core_degrees(&indptr[0], &indices[0], n, &c[0], &cid_v[0], &old[0], nc, start,
                          &cptr_v[0])
    if nc == 0:  # a tree: no core
        return cid, cptr, np.empty(0, np.int32), np.empty(0), np.empty(0)
    cw = np.empty(nc, np.float64)
    cind = np.empty(m, np.int32)
    cwe = np.empty(m, np.float64)
    cdef double[::1] cw_v = cw, cwe_v = cwe
    cdef int32_t[::1] cind_v = cind
    with nogil:
        _core_fill(&indptr[0], &indices[0], &c[0], &weight[0], &cid_v[0], &old[0], nc,
                   &cw_v[0], &cind_v[0] if m else NULL, &cwe_v[0] if m else NULL)
    return cid, cptr, cind, cw, cwe


def py_core_flat(const int64_t[::1] cptr, const int32_t[::1] cind, const double[::1] cwe):
    cdef int64_t nc = cptr.shape[0] - 1, m = cptr[nc]
    cdef int64_t width = _flat_width(&cptr[0], nc)
    cdef int64_t fm = m if width < 0 else nc * width
    fptr = np.empty(nc + 1, np.uint64)
    find = np.empty(fm, np.uint32)
    fwe = np.empty(fm, np.float64)
    cdef uint64_t[::1] fp = fptr
    cdef uint32_t[::1] fi = find
    cdef double[::1] fw = fwe
    cdef const int32_t *ci = &cind[0] if cind.shape[0] else NULL
    cdef const double *cwp = &cwe[0] if cwe.shape[0] else NULL
    with nogil:
        _core_flat(&cptr[0], ci, cwp, nc, width, &fp[0], &fi[0] if fm else NULL,
                   &fw[0] if fm else NULL)
    return fptr, find, fwe


def py_log_subtree_sizes(const uint64_t[::1] qpk, double[::1] spos, uint64_t tail):
    return _log_subtree_sizes(&qpk[0], &spos[0], tail)


def py_core_log_sizes(const uint64_t[::1] fptr, const uint32_t[::1] find, const double[::1] fwe,
                      const double[::1] cw, int64_t root, int32_t stamp, int32_t[::1] seen,
                      uint64_t[::1] qpk, double[::1] spos, bint dense=False):
    cdef const uint32_t *fi = &find[0] if find.shape[0] else NULL
    cdef const double *fw = &fwe[0] if fwe.shape[0] else NULL
    cdef int64_t nc = cw.shape[0], width = <int64_t> fptr[1] if nc else -1, i
    cdef double r
    for i in range(nc + 1):  # every row as long (the padded layout)?
        if fptr[i] != <uint64_t> (i * width):
            width = -1
            break
    with nogil:
        if not dense and width >= 0:
            r = _core_log_sizes_padded(fi, &cw[0], nc, <uint64_t> width, <uint64_t> root,
                                       stamp, &seen[0], &qpk[0], &spos[0])
        elif dense:
            r = _core_log_sizes_dense(&fptr[0], fi, fw, &cw[0], cw.shape[0], <uint64_t> root,
                                      stamp, &seen[0], &qpk[0], &spos[0])
        else:
            r = _core_log_sizes(&fptr[0], fi, &cw[0], cw.shape[0], <uint64_t> root, stamp,
                                &seen[0], &qpk[0], &spos[0])
    return r


def py_argsort(const double[::1] a):
    """``np.argsort(a)`` in numba's quicksort order (int64)."""
    out = np.empty(a.shape[0], np.int64)
    cdef int64_t[::1] o = out
    if a.shape[0]:
        _argsort(&a[0], a.shape[0], &o[0])
    return out


cdef void _scan_view(const double[::1] ub, const uint8_t[::1] core, const int64_t[::1] att,
                     const int64_t[::1] byub, RumorSetup *st) noexcept:
    """A :c:type:`RumorSetup` with the fields the scan's order reads (no core arrays)."""
    memset(st, 0, sizeof(RumorSetup))
    st.width = -1
    st.n = core.shape[0]
    st.ub = <double *> &ub[0] if ub.shape[0] else NULL
    st.core = <uint8_t *> &core[0]
    st.att = <int64_t *> &att[0]
    st.byub = <int64_t *> &byub[0] if byub.shape[0] else NULL


def py_rumor_advance(int64_t s, double rtol, double lg, const double[::1] ub, core,
                     const int64_t[::1] att, const int64_t[::1] byub, double[::1] exact,
                     int64_t[::1] cand, double[::1] val, int64_t[::1] ist, double[::1] fst):
    cdef RumorSetup st
    _scan_view(ub, core.view(np.uint8), att, byub, &st)
    return rumor_advance(s, rtol, lg, &st, &exact[0], &cand[0], &val[0], &ist[0], &fst[0])


def py_rumor_finish(int64_t s, double rtol, core, const int64_t[::1] att,
                    const int64_t[::1] cand, const double[::1] val, const int64_t[::1] ist,
                    const double[::1] fst, top):
    cdef RumorSetup st
    _scan_view(att.astype(np.float64), core.view(np.uint8), att, att, &st)
    cdef uint8_t[::1] t = top.view(np.uint8)
    cdef uint8_t[::1] mark = np.empty(st.n, np.uint8)
    cdef RumorTop r = rumor_finish(s, rtol, &st, &cand[0], &val[0], &ist[0], &fst[0], &t[0],
                                   &mark[0])
    return r.best, r.s0, r.greater, r.tied, r.n_core_bfs


def py_rumor_stop_level(double best, double s0, double tol0, double rtol):
    return rumor_stop_level(best, s0, tol0, rtol)


def py_graph_rumor_top(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                       double rtol, uint8_t[::1] top, bint bottom_up=True):
    cdef RumorTop r
    cdef RumorSetup st
    if bottom_up:
        r = graph_rumor_top(indptr, indices, s, rtol, top)
        return r.best, r.s0, r.greater, r.tied, r.n_core_bfs
    # the scan of before issue 32 (every level top-down), for tests and benchmarks
    rumor_setup(&indptr[0], &indices[0] if indices.shape[0] > 0 else NULL,
                indptr.shape[0] - 1, s, &st)
    free(st.tw_arena)
    st.tw_arena = NULL
    st.twoff = NULL
    st.bu_row = 2
    try:
        r = rumor_scan(&st, s, rtol, &top[0])
    finally:
        rumor_setup_free(&st)
    return r.best, r.s0, r.greater, r.tied, r.n_core_bfs


# ----------------------------------------------------------------- the scan's size, before it runs


cdef double _cpu_now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


def py_rumor_plan(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                  double rtol, double min_seconds, int64_t timed):
    """What :c:func:`rumor_scan` from ``s`` will do, from its setup and s's evaluation:
    ``(evaluations, nc, core_arcs, s0, seconds, repeats, setup seconds)``. The scan's stop level is
    ``s0 - tol0`` throughout (``x - rtol max(1, |x|)`` increases in x and the best score
    is at least s0), so the core nodes it evaluates are s's and those of the nodes whose
    bound reaches that level: counted here without evaluating them. ``seconds`` is the
    mean CPU time of evaluations of core nodes the scan will evaluate, spread evenly over
    its order: at least ``timed`` of them (fewer if the scan has fewer), more until they
    take ``min_seconds`` (at most 1,000); a tree times nothing. The setup seconds are the CPU
    time of everything before the timed evaluations (the scan's setup, s's evaluation, the
    count)."""
    cdef RumorSetup st
    cdef int64_t n = indptr.shape[0] - 1, a, i, v, b, nev = 0, reps = 0, row, arcs = 0, j
    cdef int32_t stamp = 0
    cdef double lg = lgamma(n + 1.0), x, s0, tol0, level, t0, t1 = 0.0, secs = 0.0
    cdef double t_start = _cpu_now(), setup = 0.0
    cdef uint8_t[::1] mark = np.zeros(n, np.uint8)
    cdef int64_t[::1] order = np.empty(n, np.int64)
    cdef char *w = NULL
    cdef uint32_t *bu = NULL
    rumor_setup(&indptr[0], &indices[0] if indices.shape[0] > 0 else NULL, n, s, &st)
    try:
        with nogil:
            for v in range(n):
                if st.core[v]:
                    for j in range(indptr[v], indptr[v + 1]):
                        arcs += st.core[indices[j]]
            a = s if st.core[s] else st.att[s]
            if a < 0:  # a tree: the bound is every score, no evaluation
                s0 = st.ub[s]
            else:
                row = st.nc + st.maxd + 1
                w = <char *> malloc(row * 16 + (st.nc + RUMOR_BLOCK) * 4 + 64)
                bu = <uint32_t *> calloc(st.bu_row, 4)
                if w == NULL or bu == NULL:
                    with gil:
                        raise MemoryError("rumour centrality: no memory for a graph of %d nodes" % n)
                memset(w + row * 16, 0, (st.nc + RUMOR_BLOCK) * 4)
                stamp += 1
                x = lg - st.const_ - core_eval(&st, st.cid[a], stamp, <int32_t *> (w + row * 16),
                                               <uint64_t *> w, <double *> (w + row * 8), bu)
                s0 = x if a == s else st.ub[s] - (st.ub[a] - x)
                mark[a] = 1
                order[0] = a
                nev = 1
            # the scan's own rule with the best score at s0: its level from the first step on
            tol0 = rtol * max(1.0, fabs(s0))
            level = rumor_stop_level(s0, s0, tol0, rtol)
            if nev:
                for i in range(n):
                    v = st.byub[i]
                    if v == s:
                        continue
                    if st.ub[v] + 1e-12 * (lg + 1.0) < level:
                        break
                    b = v if st.core[v] else st.att[v]
                    if b >= 0 and not mark[b]:
                        mark[b] = 1
                        order[nev] = b
                        nev += 1
                # time evaluations spread evenly over the scan's order (roots differ in cost)
                t0 = _cpu_now()
                setup = t0 - t_start
                t1 = t0
                while reps < nev and reps < 1000 and (reps < timed or t1 - t0 < min_seconds):
                    # a golden-ratio sequence: evenly spread over the order for any count
                    b = order[<int64_t> ((reps * 0.6180339887498949) % 1.0 * nev)]
                    stamp += 1
                    core_eval(&st, st.cid[b], stamp, <int32_t *> (w + row * 16), <uint64_t *> w,
                              <double *> (w + row * 8), bu)
                    reps += 1
                    t1 = _cpu_now()
                secs = (t1 - t0) / reps if reps else 0.0
    finally:
        free(w)
        free(bu)
        rumor_setup_free(&st)
    if not nev:
        setup = _cpu_now() - t_start
    return nev, st.nc, arcs, s0, secs, reps, setup
