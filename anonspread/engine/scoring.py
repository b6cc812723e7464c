"""Compiled (numba) estimator kernels over a *local* view of the infected subgraph.

Every kernel works on the infected nodes renumbered ``0..n-1`` with a CSR adjacency
``(indptr, indices)`` (the infected subgraph, or the infection tree) and, where needed,
``gdeg[i]``, the degree of local node ``i`` in the contact graph. The same kernels serve
the per-snapshot functions of :mod:`adversaries.estimators` and the Monte Carlo loop of
:mod:`adversaries.batch`. All traversals are iterative (explicit queues), so a path of
10^6 nodes needs no recursion.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()  # cache entries stamped with the sources they contain

#: Scores within this relative tolerance of the maximum (in log space) are ties.
TIE_RTOL = 1e-9

__all__ = [
    "TIE_RTOL",
    "bfs",
    "bitparallel_eccentricity",
    "core_csr",
    "core_eval",
    "core_flat",
    "core_log_sizes",
    "core_log_sizes_dense",
    "core_workspace",
    "cut_rumor_bound",
    "graph_eccentricity",
    "graph_jordan_top",
    "graph_radius",
    "graph_rumor",
    "graph_rumor_top",
    "ml_ball",
    "ml_tree",
    "ml_workspace",
    "rumor_advance",
    "rumor_finish",
    "rumor_setup",
    "rumor_stop_level",
    "score_summary",
    "tree_eccentricity",
    "tree_passes",
    "tree_rumor",
    "two_core",
]

BIG = 1 << 30
NEG_INF = -np.inf


@nb.njit(cache=True, inline="always")
def _logaddexp(a, b):
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@nb.njit(cache=True)
def bfs(indptr, indices, root, order, parent, dist):
    """Breadth-first search from ``root``; returns the number of nodes reached.

    ``order[:k]`` lists the reached nodes (root first), ``parent`` their BFS parent
    (-1 for the root) and ``dist`` their hop count; ``dist`` must hold -1 for every
    node on entry (it is restored to -1 for unreached nodes only).
    """
    head = 0
    tail = 1
    order[0] = root
    parent[root] = -1
    dist[root] = 0
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


@nb.njit(cache=True)
def tree_passes(indptr, indices, order, parent, mark, down, up, bdown, bup):
    """The two passes of tree message passing (leaves -> root, root -> leaves).

    For a tree rooted at ``order[0]`` (``order``, ``parent`` from :func:`bfs`):
    ``down[v]`` is the height of v's subtree, ``up[v]`` the largest distance from v
    to a node outside its subtree (-1 for the root), ``bdown[v]``/``bup[v]`` the
    smallest distance from v to a marked node inside/outside its subtree (``BIG`` if
    none). Then ``ecc(v) = max(down[v], up[v])``.
    """
    n = order.shape[0]
    for k in range(n - 1, -1, -1):
        v = order[k]
        h = 0
        b = 0 if mark[v] else BIG
        for j in range(indptr[v], indptr[v + 1]):
            c = indices[j]
            if c == parent[v]:
                continue
            if down[c] + 1 > h:
                h = down[c] + 1
            if bdown[c] + 1 < b:
                b = bdown[c] + 1
        down[v] = h
        bdown[v] = b
    up[order[0]] = -1
    bup[order[0]] = BIG
    for k in range(n):
        p = order[k]
        # the two best children (heights) and the two nearest marked children
        h1 = -1
        h2 = -1
        c1 = -1
        b1 = BIG
        b2 = BIG
        cb = -1
        for j in range(indptr[p], indptr[p + 1]):
            c = indices[j]
            if c == parent[p]:
                continue
            hc = down[c] + 1
            if hc > h1:
                h2 = h1
                h1 = hc
                c1 = c
            elif hc > h2:
                h2 = hc
            bc = bdown[c] + 1
            if bc < b1:
                b2 = b1
                b1 = bc
                cb = c
            elif bc < b2:
                b2 = bc
        base_h = 0 if up[p] < 0 else up[p]
        base_b = 0 if mark[p] else BIG
        if bup[p] < base_b:
            base_b = bup[p]
        for j in range(indptr[p], indptr[p + 1]):
            c = indices[j]
            if c == parent[p]:
                continue
            other_h = h2 if c == c1 else h1
            oh = base_h if base_h > other_h else other_h
            up[c] = oh + 1
            other_b = b2 if c == cb else b1
            ob = base_b if base_b < other_b else other_b
            bup[c] = ob + 1 if ob < BIG else BIG


@nb.njit(cache=True)
def tree_eccentricity(indptr, indices, out):
    """Eccentricity of every node of a tree by :func:`tree_passes` (O(n))."""
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    bfs(indptr, indices, np.int64(0), order, parent, dist)
    mark = np.zeros(n, np.bool_)
    down = np.empty(n, np.int64)
    up = np.empty(n, np.int64)
    bdown = np.empty(n, np.int64)
    bup = np.empty(n, np.int64)
    tree_passes(indptr, indices, order, parent, mark, down, up, bdown, bup)
    for v in range(n):
        out[v] = down[v] if down[v] > up[v] else up[v]


@nb.njit(cache=True)
def graph_eccentricity(indptr, indices, out):
    """Eccentricity of every node of a connected graph, by eccentricity bounding.

    Takes & Kosters' bounding (the algorithm behind networkx's ``usebounds=True``):
    a BFS from u gives, for every w, ``max(d(u,w), ecc(u) - d(u,w)) <= ecc(w) <=
    ecc(u) + d(u,w)``; BFS sources alternate between the unresolved node with the
    largest upper and the smallest lower bound until every bound is tight, or until
    the last 8 BFS settled fewer nodes than a bit-parallel pass would per BFS, when
    :func:`bitparallel_eccentricity` finishes (64 sources per pass). Exact; at worst
    one BFS per node (O(n m)), 64 to a pass.
    """
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    lo = np.zeros(n, np.int64)
    hi = np.full(n, BIG, np.int64)
    todo = np.ones(n, np.bool_)
    left = n
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
    high = True
    nbfs = 0
    emax = 0
    window = 8
    gains = np.zeros(window, np.int64)
    while left > 0:
        if nbfs >= window and gains.sum() * (emax + 1) < 64 * window:
            # bounding stalls: the rest by bit-parallel BFS, 64 sources per pass
            bitparallel_eccentricity(indptr, indices, lo, hi, 0, BIG)
            for v in range(n):
                if todo[v]:
                    out[v] = lo[v]
            return
        before = left
        u = -1
        for v in range(n):
            if not todo[v]:
                continue
            if u < 0:
                u = v
            elif high:
                if hi[v] > hi[u] or (hi[v] == hi[u] and deg[v] > deg[u]):
                    u = v
            elif lo[v] < lo[u] or (lo[v] == lo[u] and deg[v] > deg[u]):
                u = v
        high = not high
        k = bfs(indptr, indices, u, order, parent, dist)
        e = dist[order[k - 1]]
        for v in range(n):
            if not todo[v]:
                continue
            d = dist[v]
            a = d if d > e - d else e - d
            if a > lo[v]:
                lo[v] = a
            if e + d < hi[v]:
                hi[v] = e + d
            if lo[v] == hi[v]:
                todo[v] = False
                out[v] = lo[v]
                left -= 1
        for i in range(k):
            dist[order[i]] = -1
        nbfs += 1
        if e > emax:
            emax = e
        gains[nbfs % window] = before - left


@nb.njit(cache=True)
def tree_rumor(indptr, indices, out):
    """Log rumour centrality of every node of a tree (Shah & Zaman 2011).

    ``R(v) = n! / prod_u T_u^v`` with ``T_u^v`` the size of u's subtree when the tree
    is rooted at v; ``log R`` at the root by one upward pass, then
    ``log R(c) = log R(p) + log T_c - log(n - T_c)`` downwards.
    """
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    bfs(indptr, indices, np.int64(0), order, parent, dist)
    size = np.ones(n, np.int64)
    total = 0.0
    for k in range(n - 1, 0, -1):
        v = order[k]
        size[parent[v]] += size[v]
    for v in range(n):
        total += math.log(size[v])
    out[order[0]] = math.lgamma(n + 1.0) - total
    for k in range(1, n):
        v = order[k]
        out[v] = out[parent[v]] + math.log(size[v]) - math.log(n - size[v])


@nb.njit(cache=True)
def rumor_at(indptr, indices, v, lg, order, parent, dist, size):
    """Log rumour centrality of v over the BFS tree of the graph rooted at v.

    ``lg`` is ``log n!``; ``dist`` must hold -1 and ``size`` 1 for every node on
    entry (both are restored). BFS children are discovered in CSR order, so the tree
    (and the score) is a deterministic function of the CSR arrays.
    """
    k = bfs(indptr, indices, v, order, parent, dist)
    for i in range(k - 1, 0, -1):
        x = order[i]
        size[parent[x]] += size[x]
    s = 0.0
    for i in range(k):
        x = order[i]
        s += math.log(size[x])
        size[x] = 1
        dist[x] = -1
    return lg - s


@nb.njit(cache=True)
def graph_rumor(indptr, indices, out):
    """Log rumour centrality on a graph, over the BFS tree rooted at each candidate."""
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    size = np.ones(n, np.int64)
    lg = math.lgamma(n + 1.0)
    for v in range(n):
        out[v] = rumor_at(indptr, indices, v, lg, order, parent, dist, size)


@nb.njit(cache=True)
def score_summary(sc, s, rtol, top):
    """Maximisers and the rank data of node ``s`` from every node's score.

    The rules of :func:`adversaries.scores.top_set` and
    :func:`adversaries.metrics.source_rank`: ``top[v]`` is True iff ``sc[v]`` is
    within ``rtol`` (relative) of the maximum (every node if all are ``-inf``);
    returns ``(greater, tied)``, the numbers of nodes above s and tied with s (s
    included).
    """
    n = sc.shape[0]
    best = sc[0]
    for k in range(n):
        if sc[k] > best:
            best = sc[k]
    thr = -np.inf if best == -np.inf else best - rtol * max(1.0, abs(best))
    for k in range(n):
        top[k] = sc[k] >= thr
    s0 = sc[s]
    greater = 0
    tied = 0
    if s0 == -np.inf:
        for k in range(n):
            if sc[k] == -np.inf:
                tied += 1
            else:
                greater += 1
    else:
        tol = rtol * max(1.0, abs(s0))
        for k in range(n):
            if sc[k] > s0 + tol:
                greater += 1
            elif abs(sc[k] - s0) <= tol:
                tied += 1
    return greater, tied


@nb.njit(cache=True)
def _tk_sweep(indptr, indices, u, order, parent, dist, lo, hi):
    """One BFS from u and Takes & Kosters' bounds for every node; returns ``(ecc(u), far)``.

    ``max(d(u,w), ecc(u) - d(u,w)) <= ecc(w) <= ecc(u) + d(u,w)``; ``far`` is a node at
    distance ``ecc(u)`` from u. ``dist`` must hold -1 on entry (restored).
    """
    n = indptr.shape[0] - 1
    k = bfs(indptr, indices, u, order, parent, dist)
    far = order[k - 1]
    e = dist[far]
    for v in range(n):
        d = dist[v]
        a = d if d > e - d else e - d
        if a > lo[v]:
            lo[v] = a
        if e + d < hi[v]:
            hi[v] = e + d
    for i in range(k):
        dist[order[i]] = -1
    return e, far


@nb.njit(cache=True)
def _bp_pass(indptr, indices, srcs, cnt, seen, cur, nxt, active, touched, lo, ecc):
    """Bit-parallel BFS from ``srcs[:cnt]`` (cnt <= 64): ``ecc[b]`` = eccentricity of source b.

    Bit b of ``seen[v]`` says source b has reached v; one sweep per level pushes only the
    frontier's new bits to the neighbours, so 64 BFS cost about (levels at which a node
    receives new bits) x edges word operations instead of 64 x edges. Source b's
    eccentricity is the last level at which its bit was new anywhere. As a by-product
    ``lo[w]`` is raised to the last level at which w received a new bit, ``max_b d(b, w)``,
    a lower bound on ``ecc(w)``. ``seen``, ``cur``, ``nxt`` must be zero on entry (restored).
    """
    n = indptr.shape[0] - 1
    one = np.uint64(1)
    zero = np.uint64(0)
    na = 0
    for b in range(cnt):
        v = srcs[b]
        if seen[v] == zero:
            active[na] = v
            na += 1
        bit = one << np.uint64(b)
        seen[v] |= bit
        cur[v] |= bit
        ecc[b] = 0
    level = 0
    while na > 0:
        level += 1
        nt = 0
        for i in range(na):
            v = active[i]
            f = cur[v]
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                add = f & ~seen[w]
                if add != zero:
                    if nxt[w] == zero:
                        touched[nt] = w
                        nt += 1
                    nxt[w] |= add
            cur[v] = zero
        newbits = zero
        for i in range(nt):
            w = touched[i]
            f = nxt[w]
            nxt[w] = zero
            seen[w] |= f
            cur[w] = f
            newbits |= f
            active[i] = w
            if level > lo[w]:
                lo[w] = level
        na = nt
        for b in range(cnt):
            if (newbits >> np.uint64(b)) & one:
                ecc[b] = level
    for v in range(n):
        seen[v] = zero


@nb.njit(cache=True)
def _offset_bfs(indptr, indices, srcs, off, cnt, order, dist):
    """``dist[w] = min_b off[b] + d(srcs[b], w)`` for every node (a BFS whose sources start late).

    Sources enter the queue when its level reaches their offset (offsets >= 0).
    ``dist`` must hold -1 on entry; ``order[:k]`` lists the nodes reached, k returned.
    """
    idx = np.argsort(off[:cnt])
    p = 0
    head = 0
    tail = 0
    while p < cnt or head < tail:
        lev = dist[order[head]] if head < tail else off[idx[p]]
        while p < cnt and off[idx[p]] <= lev:
            v = srcs[idx[p]]
            if dist[v] < 0:
                dist[v] = lev
                order[tail] = v
                tail += 1
            p += 1
        end = tail
        while head < end:  # the queue holds only level ``lev`` here
            v = order[head]
            head += 1
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                if dist[w] < 0:
                    dist[w] = lev + 1
                    order[tail] = w
                    tail += 1
    return tail


@nb.njit(cache=True)
def _bp_bounds(indptr, indices, srcs, cnt, ecc, lo, hi, order, dist, off):
    """Takes & Kosters' bounds of ``cnt`` sources of known eccentricity ``ecc[b]`` at once.

    ``hi[w] <= min_b ecc_b + d(b, w)`` and ``lo[w] >= max_b ecc_b - d(b, w)`` by two BFS
    with late-starting sources (:func:`_offset_bfs`): the bounds of cnt single BFS for the
    price of two (``max_b d(b, w)`` comes from :func:`_bp_pass`).
    """
    emax = 0
    for b in range(cnt):
        off[b] = ecc[b]
        if ecc[b] > emax:
            emax = ecc[b]
    k = _offset_bfs(indptr, indices, srcs, off, cnt, order, dist)
    for i in range(k):
        v = order[i]
        if dist[v] < hi[v]:
            hi[v] = dist[v]
        dist[v] = -1
    for b in range(cnt):
        off[b] = emax - ecc[b]
    k = _offset_bfs(indptr, indices, srcs, off, cnt, order, dist)
    for i in range(k):
        v = order[i]
        if emax - dist[v] > lo[v]:
            lo[v] = emax - dist[v]
        dist[v] = -1
    for b in range(cnt):
        lo[srcs[b]] = ecc[b]
        hi[srcs[b]] = ecc[b]


@nb.njit(cache=True)
def bitparallel_eccentricity(indptr, indices, lo, hi, t, ehi):
    """Exact eccentricity of every node unsettled in :func:`graph_jordan_top`, 64 at a time.

    The nodes with ``lo < hi`` that are not placed strictly below or above ``t`` and above
    ``ehi`` get ``lo = hi = ecc`` by :func:`_bp_pass` (every other ``lo`` may rise to a
    still valid lower bound); returns the number of passes times 64 (BFS equivalents).
    """
    n = indptr.shape[0] - 1
    srcs = np.empty(n, np.int64)
    m = 0
    for v in range(n):
        if _open(lo, hi, t, ehi, v):
            srcs[m] = v
            m += 1
    seen = np.zeros(n, np.uint64)
    cur = np.zeros(n, np.uint64)
    nxt = np.zeros(n, np.uint64)
    active = np.empty(n, np.int64)
    touched = np.empty(n, np.int64)
    ecc = np.empty(64, np.int64)
    passes = 0
    for start in range(0, m, 64):
        cnt = min(64, m - start)
        _bp_pass(indptr, indices, srcs[start:], cnt, seen, cur, nxt, active, touched, lo, ecc)
        for b in range(cnt):
            lo[srcs[start + b]] = ecc[b]
            hi[srcs[start + b]] = ecc[b]
        passes += 1
    return passes * 64


@nb.njit(cache=True, inline="always")
def _open(lo, hi, t, ehi, v):
    """Node v is not yet placed: not exact, and not both off ``t`` and above ``ehi``."""
    lv = lo[v]
    hv = hi[v]
    return not (lv == hv or ((hv < t or lv > t) and lv > ehi))


@nb.njit(cache=True)
def graph_jordan_top(indptr, indices, s, top):
    """Jordan centre and the rank data of node ``s`` without every eccentricity.

    Every node must be placed (a) strictly below, at or strictly above ``t = ecc(s)``
    and (b) out of the minimum (lower bound above the smallest upper bound) or exactly.
    Exact answers: ``top[v]`` is True iff ``ecc(v)`` is the minimum; returns ``(t, emin,
    less, tied, nbfs)`` with ``less = #{v: ecc(v) < t}``, ``tied = #{v: ecc(v) = t}`` (s
    included) and the number of BFS run (a bit-parallel pass counts 64).

    Phase 1, Takes & Kosters' bounding (:func:`_tk_sweep`) with three kinds of BFS
    source: the farthest node of the previous BFS (its BFS raises the lower bounds of
    the nodes on the far side, which no unplaced node's BFS does), the unplaced node
    with the largest upper bound and the one with the smallest lower bound. The next
    kind is the one whose last BFS placed most nodes; a kind unused for 6 BFS is tried
    again. Phase 2, once the last 8 BFS placed fewer nodes than a bit-parallel pass per
    BFS-equivalent (64 sources over about ``max ecc + 1`` levels): passes of
    :func:`_bp_pass` from the 64 unplaced nodes of smallest lower bound (central nodes
    first: their exact values bound their neighbourhoods from above), each followed by
    :func:`_bp_bounds` (the bounds of 64 single BFS for the price of two), until every
    node is placed. At worst one BFS per node (a graph whose eccentricities are nearly
    all equal, e.g. a whole random regular graph), 64 to a pass.
    """
    n = indptr.shape[0] - 1
    lo = np.zeros(n, np.int64)
    hi = np.full(n, BIG, np.int64)
    t, nbfs, _ = _jordan_place(indptr, indices, s, lo, hi, -1, np.zeros(1, np.int64))
    emin = BIG
    for v in range(n):
        if lo[v] == hi[v] and lo[v] < emin:
            emin = lo[v]
    less = 0
    tied = 0
    for v in range(n):
        top[v] = lo[v] == hi[v] and lo[v] == emin
        if hi[v] < t:
            less += 1
        elif lo[v] == t and hi[v] == t:
            tied += 1
    return t, emin, less, tied, nbfs


@nb.njit(cache=True)
def _jordan_place(indptr, indices, s, lo, hi, max_passes, trace):
    """The two phases of :func:`graph_jordan_top` on bounds ``lo``, ``hi`` (0 and BIG on entry).

    Stops when every node is placed or after ``max_passes`` bit-parallel passes (< 0: no
    limit); ``trace[i]`` (while i < len(trace)) receives the number of nodes still unplaced
    after the first i + 1 passes. Returns ``(ecc(s), BFS equivalents, unplaced nodes)``.
    """
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    t, far = _tk_sweep(indptr, indices, s, order, parent, dist, lo, hi)
    nbfs = 1
    emax = t
    window = 8
    gains = np.zeros(window, np.int64)
    kgain = np.full(3, n, np.int64)  # nodes placed by the last BFS of each kind
    kused = np.zeros(3, np.int64)
    prev = n
    kind = 0
    step = 0
    left = n
    while True:
        ehi = BIG
        for v in range(n):
            if hi[v] < ehi:
                ehi = hi[v]
        uhi = -1
        ulo = -1
        left = 0
        for v in range(n):
            if not _open(lo, hi, t, ehi, v):
                continue
            left += 1
            if uhi < 0:
                uhi = v
                ulo = v
                continue
            dv = indptr[v + 1] - indptr[v]
            if hi[v] > hi[uhi] or (hi[v] == hi[uhi] and dv > indptr[uhi + 1] - indptr[uhi]):
                uhi = v
            if lo[v] < lo[ulo] or (lo[v] == lo[ulo] and dv > indptr[ulo + 1] - indptr[ulo]):
                ulo = v
        if step > 0:
            gains[step % window] = prev - left
            kgain[kind] = prev - left
        prev = left
        if left == 0 or (step >= window and gains.sum() * (emax + 1) < 64 * window):
            break
        kind = 0
        for k in range(1, 3):
            if kgain[k] > kgain[kind]:
                kind = k
        for k in range(3):
            if step - kused[k] >= 6:
                kind = k
        kused[kind] = step
        u = far if kind == 0 else (uhi if kind == 1 else ulo)
        e, far = _tk_sweep(indptr, indices, u, order, parent, dist, lo, hi)
        if e > emax:
            emax = e
        nbfs += 1
        step += 1
    if left > 0:
        seen = np.zeros(n, np.uint64)
        cur = np.zeros(n, np.uint64)
        nxt = np.zeros(n, np.uint64)
        active = np.empty(n, np.int64)
        touched = np.empty(n, np.int64)
        srcs = np.empty(64, np.int64)
        ecc = np.empty(64, np.int64)
        off = np.empty(64, np.int64)
        nlo = np.zeros(emax + 2, np.int64)
        npass = 0
        while True:
            ehi = BIG
            for v in range(n):
                if hi[v] < ehi:
                    ehi = hi[v]
            # the 64 unplaced nodes of smallest lower bound (in index order within a bound)
            nlo[:] = 0
            left = 0
            for v in range(n):
                if _open(lo, hi, t, ehi, v):
                    nlo[min(lo[v], emax + 1)] += 1
                    left += 1
            if npass > 0 and npass - 1 < trace.shape[0]:
                trace[npass - 1] = left
            if left == 0 or npass == max_passes:
                break
            cap = 0
            below = 0
            while cap <= emax and below + nlo[cap] < 64:
                below += nlo[cap]
                cap += 1
            atcap = 64 - below  # how many nodes with lower bound ``cap`` to take
            cnt = np.int64(0)  # typed, not literal (see bfs calls below)
            for v in range(n):
                if cnt == 64:
                    break
                if _open(lo, hi, t, ehi, v):
                    lv = min(lo[v], emax + 1)
                    if lv < cap:
                        srcs[cnt] = v
                        cnt += 1
                    elif lv == cap and atcap > 0:
                        srcs[cnt] = v
                        cnt += 1
                        atcap -= 1
            _bp_pass(indptr, indices, srcs, cnt, seen, cur, nxt, active, touched, lo, ecc)
            _bp_bounds(indptr, indices, srcs, cnt, ecc, lo, hi, order, dist, off)
            nbfs += 64
            npass += 1
    return t, nbfs, left


@nb.njit(cache=True)
def graph_radius(indptr, indices):
    """The minimum eccentricity (Jordan radius) of a connected graph, by :func:`graph_jordan_top`."""
    top = np.empty(indptr.shape[0] - 1, np.bool_)
    return graph_jordan_top(indptr, indices, 0, top)[1]


@nb.njit(cache=True)
def cut_rumor_bound(indptr, indices, out):
    """Upper bound on the BFS-tree log rumour centrality of every node of a connected graph.

    In *any* spanning tree rooted at v, the subtree of a node u holds u and every
    component of ``G - u`` that does not contain v, so ``T_u^v >= 1 + sep_v(u)``
    and ``log R(v) <= log n! - log n - sum_{u != v} log(1 + sep_v(u))``. Only cut
    vertices contribute; the sums for all v come from one iterative DFS (Tarjan's
    low points) and a difference array over DFS pre-order intervals, O(n + m). On a
    tree the bound is the exact rumour centrality.
    """
    n = indptr.shape[0] - 1
    pre = np.full(n, -1, np.int64)
    low = np.empty(n, np.int64)
    sz = np.ones(n, np.int64)
    par = np.full(n, -1, np.int64)
    it = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    post = np.empty(n, np.int64)
    npost = 0
    cnt = 0
    top = 0
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
    diff = np.zeros(n + 1, np.float64)
    lgn = math.log(n)
    for i in range(npost):
        u = post[i]
        # the DFS children of u that a removal of u cuts off (low point not above u)
        sep = 0
        for j in range(indptr[u], indptr[u + 1]):
            c = indices[j]
            if par[c] == u and low[c] >= pre[u]:
                sep += sz[c]
                a = math.log(n - sz[c])
                diff[pre[c]] += a
                diff[pre[c] + sz[c]] -= a
        if sep == 0:
            continue
        rest = math.log(1.0 + sep)
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
    acc = np.empty(n, np.float64)
    run = 0.0
    for i in range(n):
        run += diff[i]
        acc[i] = run
    lg = math.lgamma(n + 1.0) - lgn
    for v in range(n):
        out[v] = lg - acc[pre[v]]


@nb.njit(cache=True)
def two_core(indptr, indices):
    """The 2-core of a connected graph and the trees hanging from it.

    Peels leaves repeatedly. Returns ``(core, att, psize, weight, const)``: ``core[v]``
    True for 2-core nodes; for the others ``att[v]`` is the core node their pendant
    tree hangs from and ``psize[v]`` the size of their subtree in it (rooted at the
    core); ``weight[a] = 1 +`` the number of pendant nodes hanging from core node a;
    ``const = sum over pendant nodes of log psize``. An empty core means a tree.
    """
    n = indptr.shape[0] - 1
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
    core = np.ones(n, np.bool_)
    up = np.full(n, -1, np.int64)
    peel = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    top = 0
    for v in range(n):
        if deg[v] <= 1:
            stack[top] = v
            top += 1
    npeel = 0
    while top > 0:
        top -= 1
        v = stack[top]
        if not core[v]:
            continue
        core[v] = False
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
    psize = np.ones(n, np.int64)
    const = 0.0
    for i in range(npeel):
        v = peel[i]
        const += math.log(psize[v])
        if up[v] >= 0:
            psize[up[v]] += psize[v]
    att = np.full(n, -1, np.int64)
    for i in range(npeel - 1, -1, -1):
        v = peel[i]
        u = up[v]
        if u >= 0:
            att[v] = u if core[u] else att[u]
    weight = np.zeros(n, np.int64)
    for v in range(n):
        if core[v]:
            weight[v] = psize[v]
    return core, att, psize, weight, const


@nb.njit(cache=True)
def core_csr(indptr, indices, core, weight, start):
    """The 2-core as its own CSR, renumbered in BFS order from core node ``start``.

    Each core node keeps its neighbours in the order of ``indices`` (so a BFS of the
    new CSR visits the same tree as a BFS of the core in the old numbering: the
    renumbering only packs nodes that are close in the graph close in memory).
    Returns ``(cid, cptr, cind, cw, cwe)``: ``cid[v]`` the new id of core node v (-1
    off the core), the CSR, the weight of each core node (1 + its pendant nodes) and
    ``cwe[j] = cw[cind[j]]`` (read along the edge scan instead of by node).
    """
    n = indptr.shape[0] - 1
    nc = 0
    for v in range(n):
        if core[v]:
            nc += 1
    cid = np.full(n, -1, np.int64)
    if nc == 0:  # a tree: no core
        return cid, np.zeros(1, np.int64), np.empty(0, np.int32), np.empty(0), np.empty(0)
    old = np.empty(nc, np.int64)
    cid[start] = 0
    old[0] = start
    head = 0
    tail = 1
    while head < tail:
        x = old[head]
        head += 1
        for j in range(indptr[x], indptr[x + 1]):
            w = indices[j]
            if core[w] and cid[w] < 0:
                cid[w] = tail
                old[tail] = w
                tail += 1
    cptr = np.zeros(nc + 1, np.int64)
    cw = np.empty(nc, np.float64)
    for i in range(nc):
        v = old[i]
        c = 0
        for j in range(indptr[v], indptr[v + 1]):
            if core[indices[j]]:
                c += 1
        cptr[i + 1] = cptr[i] + c
        cw[i] = weight[v]
    cind = np.empty(cptr[nc], np.int32)
    cwe = np.empty(cptr[nc], np.float64)
    k = 0
    for i in range(nc):
        v = old[i]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if core[w]:
                cind[k] = cid[w]
                cwe[k] = weight[w]
                k += 1
    return cid, cptr, cind, cw, cwe


@nb.njit(cache=True)
def core_flat(cptr, cind, cwe):
    """The core's CSR as :func:`core_log_sizes` reads it: ``(fptr, find, fwe)`` with unsigned
    indices (``uint64`` / ``uint32``: numba then indexes without the code that wraps
    negative indices around, measured 1.45x faster on the pipeline's cores), padded to
    the maximum degree D when that at most doubles the entries (every node then has D
    entries, the extra ones pointing to a dummy node ``nc`` that counts as visited, so
    the scan's trip count never varies: 1.3x faster again there). Same neighbours in
    the same order, so the same BFS trees.
    """
    nc = cptr.shape[0] - 1
    m = cptr[nc]
    maxd = 0
    for i in range(nc):
        if cptr[i + 1] - cptr[i] > maxd:
            maxd = cptr[i + 1] - cptr[i]
    if maxd * nc > 2 * m:
        return cptr.astype(np.uint64), cind.astype(np.uint32), cwe.copy()
    fptr = np.empty(nc + 1, np.uint64)
    find = np.full(nc * maxd, nc, np.uint32)
    fwe = np.zeros(nc * maxd, np.float64)
    for i in range(nc + 1):
        fptr[i] = i * maxd
    for i in range(nc):
        for k in range(cptr[i + 1] - cptr[i]):
            find[i * maxd + k] = cind[cptr[i] + k]
            fwe[i * maxd + k] = cwe[cptr[i] + k]
    return fptr, find, fwe


@nb.njit(cache=True)
def _log_subtree_sizes(qpk, spos, tail):
    """The reverse pass of :func:`core_log_sizes` / :func:`core_log_sizes_dense` over the
    ``tail`` queue slots: add each subtree weight to its parent's slot (``qpk[i] >> 32``)
    and return ``sum log spos`` as logs of running products flushed past 1e280."""
    one = np.uint64(1)
    sh = np.uint64(32)
    s = 0.0
    prod = 1.0
    i = tail - one
    while i > np.uint64(0):
        sx = spos[i]
        spos[qpk[i] >> sh] += sx
        prod *= sx
        if prod > 1e280:
            s += math.log(prod)
            prod = 1.0
        i -= one
    return s + math.log(prod * spos[0])


@nb.njit(cache=True)
def core_log_sizes(fptr, find, fwe, cw, root, stamp, seen, qpk, spos):
    """``sum over core nodes u of log T_u``, T_u the weighted subtree size of u in the BFS
    tree of the core rooted at ``root`` (neighbours in CSR order); for sparse cores.

    ``(fptr, find, fwe)`` is the core's CSR from :func:`core_flat` (unsigned, maybe
    padded with a dummy node ``nc = cw.shape[0]``; ``fwe[j]`` the weight of ``find[j]``).
    One BFS and one reverse pass over flat arrays indexed by queue position:
    ``qpk[i] = node | parent's position << 32`` (``uint64``) and ``spos[i]`` (subtree
    weight), both of length >= ``nc`` + the most entries of a node + 1: the scan has no
    data-dependent branch (it writes every neighbour at the queue's end and advances
    the end only if the neighbour is new), which is faster while the mean degree is
    below ~7. ``seen`` (length ``nc + 1``): ``seen[w] == stamp`` marks visited nodes (a
    new ``stamp`` per call: nothing to reset; the dummy is marked on entry). The logs
    are taken of running products (flushed past 1e280), one ``log`` per few hundred
    nodes. Every index is unsigned (no wrap-around code). Dense cores:
    :func:`core_log_sizes_dense`.
    """
    low = np.uint64(0xFFFFFFFF)
    one = np.uint64(1)
    sh = np.uint64(32)
    seen[cw.shape[0]] = stamp  # the padding's dummy node: never enqueued
    r = np.uint64(root)
    qpk[0] = r
    seen[r] = stamp
    spos[0] = cw[r]
    head = np.uint64(0)
    tail = np.uint64(1)
    while head < tail:
        x = qpk[head] & low
        hp = head << sh
        j = fptr[x]
        e = fptr[x + one]
        while j < e:
            w = find[j]
            new = seen[w] != stamp
            seen[w] = stamp
            qpk[tail] = hp | np.uint64(w)
            spos[tail] = fwe[j]
            tail += np.uint64(new)
            j += one
        head += one
    return _log_subtree_sizes(qpk, spos, tail)


@nb.njit(cache=True)
def core_log_sizes_dense(fptr, find, fwe, cw, root, stamp, seen, qpk, spos):
    """:func:`core_log_sizes` for dense cores (mean degree >= 7), same arrays and result:
    the scan tests each neighbour and enqueues only new ones (most neighbours of a dense
    core are already visited, so the branch predicts well and the writes are saved).
    Interleaved on the Slashdot 10^4 snapshot's 9,377-node core (mean degree 35): 2.67 s
    for every core node, against 3.36 s branchless and 3.75 s for the signed node-indexed
    loop used before.
    """
    low = np.uint64(0xFFFFFFFF)
    one = np.uint64(1)
    sh = np.uint64(32)
    seen[cw.shape[0]] = stamp  # the padding's dummy node, if any
    r = np.uint64(root)
    qpk[0] = r
    seen[r] = stamp
    spos[0] = cw[r]
    head = np.uint64(0)
    tail = np.uint64(1)
    while head < tail:
        x = qpk[head] & low
        hp = head << sh
        j = fptr[x]
        e = fptr[x + one]
        while j < e:
            w = find[j]
            if seen[w] != stamp:
                seen[w] = stamp
                qpk[tail] = hp | np.uint64(w)
                spos[tail] = fwe[j]
                tail += one
            j += one
        head += one
    return _log_subtree_sizes(qpk, spos, tail)


@nb.njit(cache=True)
def rumor_scan_state(n):
    """The scan's state for :func:`rumor_advance` over ``n`` nodes: exact scores (NaN: not
    computed), the maximiser candidates and their values, the scan's integer position and
    its float state (best score so far first, -inf)."""
    fst = np.zeros(3, np.float64)
    fst[0] = -np.inf
    return (np.full(n, np.nan), np.empty(n, np.int64), np.empty(n, np.float64),
            np.array([-1, 0], np.int64), fst)


@nb.njit(cache=True)
def rumor_setup(indptr, indices, s):
    """What :func:`graph_rumor_top` needs before its first exact score, in one tuple.

    ``(ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse)``: the
    cut-vertex bound of every node (:func:`cut_rumor_bound`), the 2-core and its
    pendant trees (:func:`two_core`), the core's CSR renumbered in BFS order from s's
    core node (:func:`core_csr`) and its :func:`core_flat` form, the nodes in decreasing
    order of their bound, and whether the core is sparse (mean degree below 7, evaluated
    by :func:`core_log_sizes`; dense ones by :func:`core_log_sizes_dense`). The exact
    scores then come from :func:`graph_rumor_top` (one core node at a time) or
    :func:`anonspread.engine.rumor_threads.rumor_scan_parallel` (several at once, on every
    thread; large cores only).
    """
    n = indptr.shape[0] - 1
    ub = np.empty(n, np.float64)
    cut_rumor_bound(indptr, indices, ub)
    core, att, psize, weight, const = two_core(indptr, indices)
    a0 = s if core[s] else att[s]
    if a0 < 0:  # no cycle at all (callers send trees to tree_rumor)
        a0 = s
    cid, cptr, cind, cw, cwe = core_csr(indptr, indices, core, weight, a0)
    nc = cw.shape[0]
    sparse = cind.shape[0] < 7 * nc  # mean core degree below 7
    fptr, find, fwe = core_flat(cptr, cind, cwe)
    byub = np.argsort(-ub)
    return ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse


@nb.njit(cache=True)
def core_workspace(fptr, rows):
    """Work arrays ``(seen, qpk, spos)`` of :func:`core_log_sizes` /
    :func:`core_log_sizes_dense` for ``rows`` concurrent evaluations (one row each)."""
    nc = fptr.shape[0] - 1
    maxd = 0
    for i in range(nc):
        d = np.int64(fptr[i + 1] - fptr[i])
        if d > maxd:
            maxd = d
    seen = np.zeros((rows, nc + 1), np.int32)
    qpk = np.empty((rows, nc + maxd + 1), np.uint64)
    spos = np.empty((rows, nc + maxd + 1), np.float64)
    return seen, qpk, spos


@nb.njit(cache=True)
def core_eval(fptr, find, fwe, cw, sparse, c, stamp, ws, row):
    """``sum log T_u`` over the weighted core BFS tree rooted at core node ``c``, with work
    row ``row`` of ``ws`` (:func:`core_workspace`); ``stamp`` new for that row's every call."""
    seen, qpk, spos = ws
    if sparse:
        return core_log_sizes(fptr, find, fwe, cw, c, stamp, seen[row], qpk[row], spos[row])
    return core_log_sizes_dense(fptr, find, fwe, cw, c, stamp, seen[row], qpk[row], spos[row])


@nb.njit(cache=True)
def rumor_stop_level(best, s0, tol0, rtol):
    """Below this score a node is no maximiser and neither ties with nor beats the source."""
    thr = best - rtol * max(1.0, abs(best))
    return thr if thr < s0 - tol0 else s0 - tol0


@nb.njit(cache=True)
def rumor_advance(s, rtol, lg, ub, core, att, byub, exact, cand, val, ist, fst):
    """Take the nodes of :func:`graph_rumor_top`'s order (s, then decreasing bound) whose
    exact score is known, until one needs a core node's evaluation (returned) or the
    bound stops the scan (returns -1).

    ``ist = [next position (-1 = s), number taken]``, ``fst = [best, s0, s0's tie
    tolerance]``; taken nodes and their scores go to ``cand``/``val``. ``exact[a]`` is
    the exact score of core node a (NaN until evaluated). The order and the stopping
    rule do not depend on how many evaluations were made ahead of the scan, so the
    serial and the parallel scans take the same nodes with the same scores.
    """
    n = ub.shape[0]
    while ist[0] < n:
        i = ist[0]
        v = s if i < 0 else byub[i]
        if i >= 0:
            if v == s:
                ist[0] += 1
                continue
            # the bound and the exact score are sums of up to n logs: allow their rounding
            if ub[v] + 1e-12 * (lg + 1.0) < rumor_stop_level(fst[0], fst[1], fst[2], rtol):
                return -1
        a = v if core[v] else att[v]
        if a < 0:  # no cycle at all: the bound is the score
            a = v
            exact[v] = ub[v]
        if exact[a] != exact[a]:
            return a
        x = exact[a] if a == v else ub[v] - (ub[a] - exact[a])
        cand[ist[1]] = v
        val[ist[1]] = x
        ist[1] += 1
        if i < 0:
            fst[1] = x
            fst[2] = rtol * max(1.0, abs(x))
            fst[0] = x
        elif x > fst[0]:
            fst[0] = x
        ist[0] = i + 1
    return -1


@nb.njit(cache=True)
def rumor_finish(s, rtol, core, att, cand, val, ist, fst, top):
    """``top`` and ``(best, s0, greater, tied, evaluations used)`` from the taken nodes."""
    best = fst[0]
    s0 = fst[1]
    tol0 = fst[2]
    thr = best - rtol * max(1.0, abs(best))
    n = top.shape[0]
    for v in range(n):
        top[v] = False
    greater = 0
    tied = 0
    used = 0
    ne = ist[1]
    for i in range(ne):
        x = val[i]
        if x >= thr:
            top[cand[i]] = True
        if x > s0 + tol0:
            greater += 1
        elif abs(x - s0) <= tol0:
            tied += 1
    # the core nodes whose evaluation a taken node used, each counted once
    mark = np.zeros(n, np.bool_)
    for i in range(ne):
        v = cand[i]
        a = v if core[v] else att[v]
        if a >= 0 and not mark[a]:
            mark[a] = True
            used += 1
    return best, s0, greater, tied, used


@nb.njit(cache=True)
def graph_rumor_top(indptr, indices, s, rtol, top):
    """Rumour-centrality maximisers and the rank data of node ``s``, exactly.

    Every node gets the sound upper bound of :func:`cut_rumor_bound`; exact scores
    are computed for ``s`` and then for the other nodes in decreasing order of their
    bound, until the next bound is below both the tie threshold of the best exact
    score and ``s``'s score minus its tie tolerance (``rtol`` relative, as
    :func:`adversaries.scores.top_set`): no node left can be a maximiser, tie with
    s, or beat s. An exact score costs one BFS over the 2-core only (the trees
    hanging from it weigh their core node: BFS never enters them before their core
    node, so the BFS tree of a core node is its core BFS tree plus the pendant
    trees; :func:`core_log_sizes` on sparse cores, :func:`core_log_sizes_dense` on
    dense ones); a pendant node v differs from its core node a by rerooting over
    bridges, where the bound is exact, so ``score(v) = ub(v) - (ub(a) - score(a))``. ``top[v]`` is True iff v is a
    maximiser; returns ``(best, s0, greater, tied, n_core_bfs)`` with ``greater``,
    ``tied`` as in :func:`adversaries.metrics.source_rank`. Serial; the same answer on
    every thread for large cores: :func:`anonspread.engine.rumor_threads.rumor_top`.
    """
    ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse = rumor_setup(
        indptr, indices, s)
    n = ub.shape[0]
    lg = math.lgamma(n + 1.0)
    ws = core_workspace(fptr, 1)
    exact, cand, val, ist, fst = rumor_scan_state(n)
    stamp = 0
    while True:
        a = rumor_advance(s, rtol, lg, ub, core, att, byub, exact, cand, val, ist, fst)
        if a < 0:
            break
        stamp += 1
        exact[a] = lg - const - core_eval(fptr, find, fwe, cw, sparse, cid[a], stamp, ws, 0)
    return rumor_finish(s, rtol, core, att, cand, val, ist, fst, top)


@nb.njit(cache=True)
def _accumulate(indptr, indices, tdeg, gdeg, x0, only, logB, out, stack, acc, came, depth):
    """Add the likelihood terms of one virtual-source configuration (Algorithm 4).

    Walks the tree away from ``x0`` (into neighbour ``only`` if ``only >= 0``); a node
    w at distance D gets ``-log gdeg(w) - sum_p log(tdeg(p) - 1) + logB[D]``, the sum
    over the interior nodes p of the path from w to ``x0`` (Eq. 2.17: A_w times B_w,
    the "Degree Message" of Algorithm 4). ``out`` is combined by log-sum-exp.
    """
    nb_ = logB.shape[0]
    top = 0
    for j in range(indptr[x0], indptr[x0 + 1]):
        c = indices[j]
        if only >= 0 and c != only:
            continue
        stack[top] = c
        top += 1
        acc[c] = 0.0
        came[c] = x0
        depth[c] = 1
    while top > 0:
        top -= 1
        w = stack[top]
        d = depth[w]
        if d < nb_ and logB[d] > NEG_INF:
            term = acc[w] - math.log(gdeg[w]) + logB[d]
            out[w] = _logaddexp(out[w], term)
        if d + 1 >= nb_:
            continue  # deeper nodes cannot be sources of this configuration
        k = tdeg[w] - 1
        if k <= 0:
            continue
        a = acc[w] - math.log(k)
        for j in range(indptr[w], indptr[w + 1]):
            c = indices[j]
            if c == came[w]:
                continue
            acc[c] = a
            came[c] = w
            depth[c] = d + 1
            stack[top] = c
            top += 1


@nb.njit(cache=True)
def ml_workspace(n):
    """Scratch arrays of :func:`ml_tree` for trees of up to ``n`` nodes."""
    return (
        np.empty(n, np.int64),  # tdeg
        np.empty(n, np.bool_),  # mark
        np.empty(n, np.int32),  # order
        np.empty(n, np.int32),  # parent
        np.empty(n, np.int32),  # dist
        np.empty(n, np.int64),  # down
        np.empty(n, np.int64),  # up
        np.empty(n, np.int64),  # bdown
        np.empty(n, np.int64),  # bup
        np.empty(n, np.int32),  # stack
        np.empty(n, np.float64),  # acc
        np.empty(n, np.int32),  # came
        np.empty(n, np.int64),  # depth
    )


@nb.njit(cache=True)
def ml_tree(
    indptr, indices, gdeg, check_boundary, r_node, logB_alive, logB_dead, r_edge, logB_move, out, ws
):
    """Log-likelihood of adaptive diffusion for every node of an infected tree.

    Sums Eq. (2.17) over every final configuration consistent with the snapshot:
    a *node* configuration (the infected set is the ball of radius ``r_node`` around
    the final virtual source c: even T, or odd T after a keep) and an *edge*
    configuration (odd T after a pass: every node within ``r_edge`` of the edge
    {a, b} the token just crossed). ``r_node``/``r_edge`` < 0 disable a kind.
    ``logB_*[D]`` is the log of part B of Eq. (2.17) for a candidate at distance D
    from the configuration's root (``logB_dead``: the root has no child to pass the
    token to, so it keeps it with probability 1). With ``check_boundary`` a
    configuration also needs every infected node that has uninfected contacts
    (``gdeg > tdeg``) at distance >= r from the centre (the ball is complete);
    without it (near-ML on the infection tree of a graph with cycles) only the
    eccentricity condition is used. ``ws``: scratch arrays from :func:`ml_workspace` for
    at least n nodes (a Monte Carlo loop passes the same ones to every call).
    Returns the number of configurations found.
    """
    n = indptr.shape[0] - 1
    tdeg, mark, order, parent, dist, down, up, bdown, bup, stack, acc, came, depth = ws
    if tdeg.shape[0] < n:
        raise ValueError("anonspread internal error: ml_tree workspace smaller than the tree")
    for v in range(n):
        out[v] = NEG_INF
        tdeg[v] = indptr[v + 1] - indptr[v]
        mark[v] = check_boundary and gdeg[v] > tdeg[v]
        dist[v] = -1
    order = order[:n]  # tree_passes takes n from it
    bfs(indptr, indices, np.int64(0), order, parent, dist)
    tree_passes(indptr, indices, order, parent, mark, down, up, bdown, bup)
    found = 0
    if r_node >= 0:
        for c in range(n):
            ecc = down[c] if down[c] > up[c] else up[c]
            bd = bdown[c] if bdown[c] < bup[c] else bup[c]
            if ecc <= r_node and bd >= r_node:
                found += 1
                logB = logB_dead if tdeg[c] <= 1 else logB_alive
                _accumulate(indptr, indices, tdeg, gdeg, c, np.int64(-1), logB, out, stack, acc, came, depth)
    if r_edge >= 0:
        for c in range(n):
            p = parent[c]
            if p < 0:
                continue
            ecc = down[c] if down[c] > up[c] - 1 else up[c] - 1
            bd = bdown[c] if bdown[c] < bup[c] - 1 else bup[c] - 1
            if ecc <= r_edge and bd >= r_edge:
                found += 1
                _accumulate(indptr, indices, tdeg, gdeg, c, np.int64(p), logB_move, out, stack, acc, came, depth)
                _accumulate(indptr, indices, tdeg, gdeg, np.int64(p), c, logB_move, out, stack, acc, came, depth)
    return found


@nb.njit(cache=True)
def ml_ball(par, gdeg, c, logB, logk, out, acc, dist):
    """:func:`ml_tree`'s scores when the snapshot is a complete ball around a known centre.

    For adaptive diffusion at even T on an infinite tree whose nodes all have degree
    >= 2, the infected set is the ball of radius T/2 around the final virtual source
    ``c``, and it is the only consistent configuration: a node c' != c is at distance
    T/2 + d(c, c') > T/2 from the nodes at depth T/2 of a branch of c away from c'
    (every node has a child, so such nodes exist). :func:`ml_tree` then finds c by a
    BFS and two message passes and makes one :func:`_accumulate` from it; this makes
    the same accumulation from ``c`` directly, over the infection-tree parents ``par``
    (local ids in infection order, -1 for the source) instead of an adjacency: a node's
    path to c leaves through its parent unless the node lies on the path from the source
    to c, the parent chain of c, whose nodes are done first. Inside the ball every
    node's contact degree is its tree degree, so the terms are those of
    :func:`_accumulate` (``logk[k] = math.log(k)``, k up to the largest degree), summed in
    the same order from c outwards: the same floating-point scores, bit for bit.

    ``out``, ``acc``, ``dist``: n floats, n floats, n integers (overwritten). ``c`` must
    not be the source (T >= 2).
    """
    n = par.shape[0]
    nb_ = logB.shape[0]
    for k in range(n):
        dist[k] = -1
    # the path from c to the source: c's neighbour on it starts at 0, then one factor per node
    dist[c] = 0
    acc[c] = 0.0
    x = c
    while par[x] >= 0:
        p = par[x]
        dist[p] = dist[x] + 1
        acc[p] = 0.0 if x == c else acc[x] - logk[gdeg[x] - 1]
        x = p
    for k in range(n):
        p = par[k]
        if dist[k] < 0:  # off the path: its way to c runs through its parent
            dist[k] = dist[p] + 1
            acc[k] = 0.0 if p == c else acc[p] - logk[gdeg[p] - 1]
        d = dist[k]
        if k != c and d < nb_ and logB[d] > NEG_INF:
            out[k] = acc[k] - logk[gdeg[k]] + logB[d]
        else:
            out[k] = NEG_INF
