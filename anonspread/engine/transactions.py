"""Compiled (numba) kernels of the transaction model (every honest node sends one transaction).

Shared by :mod:`adversaries.transactions`. Graphs are CSR arrays: ``(indptr, indices)``
for the out-neighbours of the anonymity graph (stems) and for the neighbours of the
undirected spreading graph (diffusion). Randomness comes from a
``numpy.random.Generator`` passed in (its stream advances), so a seed reproduces a run.

Observation codes per transaction (see :class:`adversaries.transactions.TransactionObservation`):
``kind = 0``: the stem reached a spy -- ``node`` handed it to spy ``spy``; ``kind = 1``:
an honest node ``node`` fluffed it (per-hop coin, or the failsafe after ``cap`` hops)
before any spy saw it in the stem; ``kind = 2``: no spy ever saw it (``node = -1``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()

__all__ = [
    "ROUTING_CODES",
    "diffusion_first_spy",
    "precision_recall",
    "regular_digraph",
    "routing_tables",
    "stems",
]

#: Stem forwarding rules (Dandelion++ §4.2, the authors' ``edgebased`` codes 0-3).
ROUTING_CODES = {"per-tx": 0, "per-edge": 1, "all-to-one": 2, "one-to-one": 3}


@nb.njit(cache=True)
def regular_digraph(n, d, rng):
    """Union of ``d`` uniformly random directed Hamiltonian cycles on ``n`` nodes (CSR).

    The authors' ``RegGraphGen``: out- and in-degree ``d`` (an arc drawn twice is kept
    once, as in their ``networkx.DiGraph``, so a few nodes may have out-degree < d).
    """
    succ = np.full((n, d), -1, np.int64)
    cnt = np.zeros(n, np.int64)
    perm = np.arange(n)
    for c in range(d):
        if c > 0:
            for i in range(n - 1, 0, -1):
                j = rng.integers(0, i + 1)
                t = perm[i]
                perm[i] = perm[j]
                perm[j] = t
        for i in range(n):
            u = perm[i]
            w = perm[(i + 1) % n]
            dup = False
            for k in range(cnt[u]):
                if succ[u, k] == w:
                    dup = True
            if not dup:
                succ[u, cnt[u]] = w
                cnt[u] += 1
    indptr = np.zeros(n + 1, np.int64)
    for u in range(n):
        indptr[u + 1] = indptr[u] + cnt[u]
    indices = np.empty(indptr[n], np.int64)
    for u in range(n):
        for k in range(cnt[u]):
            indices[indptr[u] + k] = succ[u, k]
    return indptr, indices


@nb.njit(cache=True)
def _in_csr(n, indptr, indices):
    cnt = np.zeros(n, np.int64)
    for e in range(indices.shape[0]):
        cnt[indices[e]] += 1
    iptr = np.zeros(n + 1, np.int64)
    for u in range(n):
        iptr[u + 1] = iptr[u] + cnt[u]
    pos = iptr[:n].copy()
    iind = np.empty(indices.shape[0], np.int64)
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            w = indices[e]
            iind[pos[w]] = u
            pos[w] += 1
    return iptr, iind


@nb.njit(cache=True)
def routing_tables(n, indptr, indices, code, rng):
    """Per-epoch forwarding tables of the deterministic rules (unused for per-tx).

    Returns ``(iptr, iind, table, own)``: the in-neighbour CSR, ``table[e]`` the
    successor a transaction arriving over in-arc ``e`` (position in ``iind``) is sent
    to, and ``own[u]`` the successor of ``u``'s own transaction (-1: no successor).
    per-edge: every in-arc independently uniform; all-to-one: one successor per node
    for everything; one-to-one: the in-arcs dealt over a shuffled list of successors,
    reshuffled when it runs out (a bijection when in- and out-degree agree).
    """
    iptr, iind = _in_csr(n, indptr, indices)
    table = np.full(iind.shape[0], -1, np.int64)
    own = np.full(n, -1, np.int64)
    for u in range(n):
        a, b = indptr[u], indptr[u + 1]
        d = b - a
        if d == 0:
            continue
        own[u] = indices[a + rng.integers(0, d)]
        if code == 1:
            for e in range(iptr[u], iptr[u + 1]):
                table[e] = indices[a + rng.integers(0, d)]
        elif code == 2:
            for e in range(iptr[u], iptr[u + 1]):
                table[e] = own[u]
        elif code == 3:
            deck = indices[a:b].copy()
            left = 0
            for e in range(iptr[u], iptr[u + 1]):
                if left == 0:
                    for i in range(d - 1, 0, -1):
                        j = rng.integers(0, i + 1)
                        t = deck[i]
                        deck[i] = deck[j]
                        deck[j] = t
                    left = d
                left -= 1
                table[e] = deck[left]
    return iptr, iind, table, own


@nb.njit(cache=True)
def stems(n, indptr, indices, spy, code, q, cap, escape, rng, kind, node, spy_of, hops):
    """Run every honest node's stem; fill the observation arrays (indexed by transaction).

    Transactions are the honest nodes in increasing order. A stem moves from node to
    successor by the routing rule; arriving at a spy it stops (``kind 0``, the sender is
    recorded); arriving at an honest node it is fluffed there with probability ``q``
    (``kind 1``; the source itself always sends its own transaction on); after ``cap`` hops
    the failsafe fluffs it where it is (``kind 1``). A node without successor fluffs at once.
    With ``escape`` (deterministic routings only), a stem back at a node it already left
    takes a uniformly random *other* successor than its table's, the authors' loop rule.
    """
    iptr, iind, table, own = routing_tables(n, indptr, indices, code, rng)
    seen = np.full(n, -1, np.int64)
    t = 0
    for v in range(n):
        if spy[v]:
            continue
        cur = v
        pred = -1
        h = 0
        while True:
            a, b = indptr[cur], indptr[cur + 1]
            if b == a:
                kind[t] = 1
                node[t] = cur
                spy_of[t] = -1
                break
            if code == 0:
                w = indices[a + rng.integers(0, b - a)]
            else:
                if pred < 0:
                    w = own[cur]
                else:
                    w = -1
                    for e in range(iptr[cur], iptr[cur + 1]):
                        if iind[e] == pred:
                            w = table[e]
                            break
                if escape and seen[cur] == v and b - a > 1:
                    # back at a node of this stem: leave by another successor (authors' rule)
                    j = rng.integers(0, b - a - 1)
                    for e in range(a, b):
                        if indices[e] != w:
                            if j == 0:
                                w = indices[e]
                                break
                            j -= 1
                seen[cur] = v
            h += 1
            if spy[w]:
                kind[t] = 0
                node[t] = cur
                spy_of[t] = w
                break
            if (q > 0.0 and rng.random() < q) or h >= cap:
                kind[t] = 1
                node[t] = w
                spy_of[t] = -1
                break
            pred = cur
            cur = w
        hops[t] = h
        t += 1


@nb.njit(cache=True)
def diffusion_first_spy(n, indptr, indices, spy, rng, kind, node, spy_of, hops):
    """Diffusion (each infected node relays to each neighbour after an i.i.d. exponential
    delay) from every honest node until the first spy receives it.

    By memorylessness the next delivery is a uniformly random edge from the infected set to
    an uninfected node; it is drawn by rejection over the edges pushed so far (edges into
    nodes infected meanwhile are rejected), which is exactly uniform over the live ones.
    Records who delivered it to the first spy (``kind 0``); ``kind 2`` if the honest
    component holds no spy. ``hops`` counts the infected honest nodes.
    """
    mark = np.full(n, -1, np.int64)
    m = indices.shape[0]
    eu = np.empty(m, np.int64)
    ew = np.empty(m, np.int64)
    t = 0
    for v in range(n):
        if spy[v]:
            continue
        mark[v] = v
        top = 0
        for e in range(indptr[v], indptr[v + 1]):
            eu[top] = v
            ew[top] = indices[e]
            top += 1
        kind[t] = 2
        node[t] = -1
        spy_of[t] = -1
        infected = 1
        while top > 0:
            i = rng.integers(0, top)
            u = eu[i]
            w = ew[i]
            if mark[w] == v:  # stale: drop it and draw again
                top -= 1
                eu[i] = eu[top]
                ew[i] = ew[top]
                continue
            if spy[w]:
                kind[t] = 0
                node[t] = u
                spy_of[t] = w
                break
            mark[w] = v
            infected += 1
            top -= 1
            eu[i] = eu[top]
            ew[i] = ew[top]
            for e in range(indptr[w], indptr[w + 1]):
                x = indices[e]
                if mark[x] != v:  # at most sum of degrees pushes in all: no overflow
                    eu[top] = w
                    ew[top] = x
                    top += 1
        hops[t] = infected
        t += 1


@nb.njit(cache=True)
def precision_recall(n, sources, mapping):
    """Precision and recall of a mapping (transaction i -> node ``mapping[i]``, -1: none).

    ``recall = (1/h) sum_i 1{M(x_i) = s_i}`` and
    ``precision = (1/h) sum_i 1{M(x_i) = s_i} / |M^{-1}(M(x_i))|`` over the ``h``
    transactions (one per honest node ``s_i``).
    """
    h = sources.shape[0]
    count = np.zeros(n, np.int64)
    for i in range(h):
        if mapping[i] >= 0:
            count[mapping[i]] += 1
    p = 0.0
    r = 0.0
    for i in range(h):
        if mapping[i] == sources[i]:
            r += 1.0
            p += 1.0 / count[mapping[i]]
    if h == 0:
        return 0.0, 0.0
    return p / h, r / h
