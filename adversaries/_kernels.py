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

__all__ = [
    "bfs",
    "graph_eccentricity",
    "graph_rumor",
    "ml_tree",
    "tree_eccentricity",
    "tree_passes",
    "tree_rumor",
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
    bfs(indptr, indices, 0, order, parent, dist)
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
    largest upper and the smallest lower bound until every bound is tight. Exact;
    at worst one BFS per node (O(n m)), on small-world infected graphs far fewer.
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
    while left > 0:
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
    bfs(indptr, indices, 0, order, parent, dist)
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
def graph_rumor(indptr, indices, out):
    """Log rumour centrality on a graph, over the BFS tree rooted at each candidate."""
    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    size = np.ones(n, np.int64)
    lg = math.lgamma(n + 1.0)
    for v in range(n):
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
        out[v] = lg - s


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
def ml_tree(
    indptr, indices, gdeg, check_boundary, r_node, logB_alive, logB_dead, r_edge, logB_move, out
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
    eccentricity condition is used. Returns the number of configurations found.
    """
    n = indptr.shape[0] - 1
    for v in range(n):
        out[v] = NEG_INF
    tdeg = np.empty(n, np.int64)
    mark = np.zeros(n, np.bool_)
    for v in range(n):
        tdeg[v] = indptr[v + 1] - indptr[v]
        mark[v] = check_boundary and gdeg[v] > tdeg[v]
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    bfs(indptr, indices, 0, order, parent, dist)
    down = np.empty(n, np.int64)
    up = np.empty(n, np.int64)
    bdown = np.empty(n, np.int64)
    bup = np.empty(n, np.int64)
    tree_passes(indptr, indices, order, parent, mark, down, up, bdown, bup)
    stack = np.empty(n, np.int32)
    acc = np.empty(n, np.float64)
    came = np.empty(n, np.int32)
    depth = np.empty(n, np.int64)
    found = 0
    if r_node >= 0:
        for c in range(n):
            ecc = down[c] if down[c] > up[c] else up[c]
            bd = bdown[c] if bdown[c] < bup[c] else bup[c]
            if ecc <= r_node and bd >= r_node:
                found += 1
                logB = logB_dead if tdeg[c] <= 1 else logB_alive
                _accumulate(indptr, indices, tdeg, gdeg, c, -1, logB, out, stack, acc, came, depth)
    if r_edge >= 0:
        for c in range(n):
            p = parent[c]
            if p < 0:
                continue
            ecc = down[c] if down[c] > up[c] - 1 else up[c] - 1
            bd = bdown[c] if bdown[c] < bup[c] - 1 else bup[c] - 1
            if ecc <= r_edge and bd >= r_edge:
                found += 1
                _accumulate(indptr, indices, tdeg, gdeg, c, p, logB_move, out, stack, acc, came, depth)
                _accumulate(indptr, indices, tdeg, gdeg, p, c, logB_move, out, stack, acc, came, depth)
    return found
