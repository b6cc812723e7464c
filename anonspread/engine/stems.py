"""Compiled (numba) kernels of the stem-and-fluff protocols (:mod:`spread.dandelion`).

Flat arrays only. An anonymity graph (one epoch) is held in CSR form:

* ``out_ptr, out`` -- the relays of each node (its out-edges);
* ``own`` -- the relay a node uses for its own transactions (-1: drawn per transaction);
* ``in_ptr, in_src, in_to`` -- for each node ``v`` and each in-edge ``(in_src[j], v)``,
  the relay ``in_to[j]`` a stem arriving on it is forwarded to (-1: drawn per hop);
* ``diffuser`` -- the node's role for the epoch (1: diffuses every stem it receives),
  used only when the coin is per epoch.

The plain reading of the protocols is in the docstrings of :mod:`spread.dandelion`;
the kernels follow it. Random numbers come from the ``numpy.random.Generator`` passed in
(its stream advances), so the same generator gives the same runs.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()

__all__ = ["draw_anonymity", "run_stem_batch"]

#: Anonymity-graph kinds.
CYCLE, RELAYS = 0, 1
#: Routing codes.
ONE_TO_ONE, PER_EDGE, PER_TRANSACTION, ALL_TO_ONE = 0, 1, 2, 3
#: Receipt kinds (spy observations).
STEM, FLUFF = 0, 1


@nb.njit(cache=True)
def _shuffle(a, m, rng):
    """Fisher-Yates on ``a[:m]``."""
    for i in range(m - 1, 0, -1):
        j = rng.integers(0, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@nb.njit(cache=True)
def draw_anonymity(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rng,
                   out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work):
    """Draw one epoch's anonymity graph into the given arrays; returns the number of edges.

    ``out`` / ``in_src`` / ``in_to`` need room for ``n * relays`` entries (``n`` for the
    cycle), ``work`` for ``max(n, max degree) + 1`` int64.
    """
    m = 0
    out_ptr[0] = 0
    if kind == CYCLE:
        for i in range(n):
            work[i] = i
        _shuffle(work, n, rng)
        for i in range(n):
            v = work[i]
            own[v] = work[(i + 1) % n]
        for v in range(n):
            out[v] = own[v]
            out_ptr[v + 1] = v + 1
        m = n
    else:
        for v in range(n):
            if peers_all:
                k = min(relays, n - 1)
                c = 0
                while c < k:
                    w = rng.integers(0, n)
                    if w == v:
                        continue
                    dup = False
                    for j in range(m, m + c):
                        if out[j] == w:
                            dup = True
                            break
                    if not dup:
                        out[m + c] = w
                        c += 1
            else:
                d = indptr[v + 1] - indptr[v]
                k = min(relays, d)
                for j in range(d):
                    work[j] = indices[indptr[v] + j]
                # a uniform k-subset: the first k places of a partial Fisher-Yates
                for j in range(k):
                    r = j + rng.integers(0, d - j)
                    t = work[j]
                    work[j] = work[r]
                    work[r] = t
                    out[m + j] = work[j]
            m += k
            out_ptr[v + 1] = m
    # in-edges, grouped by head, in order of tail
    for v in range(n + 1):
        in_ptr[v] = 0
    for v in range(n):
        for j in range(out_ptr[v], out_ptr[v + 1]):
            in_ptr[out[j] + 1] += 1
    for v in range(n):
        in_ptr[v + 1] += in_ptr[v]
    for v in range(n):
        work[v] = in_ptr[v]
    for u in range(n):
        for j in range(out_ptr[u], out_ptr[u + 1]):
            w = out[j]
            in_src[work[w]] = u
            work[w] += 1
    # forwarding rules
    for v in range(n):
        lo, hi = out_ptr[v], out_ptr[v + 1]
        k = hi - lo
        if kind == CYCLE:
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = own[v]
            continue
        if routing == PER_TRANSACTION or k == 0:
            own[v] = -1
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = -1
            continue
        own[v] = out[lo + rng.integers(0, k)]
        if routing == PER_EDGE:
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, rng)
        elif routing == ALL_TO_ONE:  # everything on the own-transaction relay (never back)
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = own[v]
                if own[v] == in_src[j]:
                    in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, rng)
        else:
            _one_to_one(v, lo, k, in_ptr, in_src, in_to, out, work, rng)
    for v in range(n):
        diffuser[v] = 1 if (coin_epoch and rng.random() < q) else 0
    return m


@nb.njit(cache=True)
def _one_to_one(v, lo, k, in_ptr, in_src, in_to, out, work, rng):
    """Map ``v``'s in-edges to its ``k`` relays in rounds of ``k``: a uniform bijection per
    round among those that never send a stem back to its sender (when one exists)."""
    a, b = in_ptr[v], in_ptr[v + 1]
    for r0 in range(a, b, k):
        r1 = min(r0 + k, b)
        for _ in range(64):
            for i in range(k):
                work[i] = out[lo + i]
            _shuffle(work, k, rng)
            ok = True
            for j in range(r0, r1):
                if work[j - r0] == in_src[j]:
                    ok = False
                    break
            if ok:
                break
        for j in range(r0, r1):
            in_to[j] = work[j - r0]
            if in_to[j] == in_src[j]:  # no such bijection (e.g. one relay): avoid it alone
                in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, rng)


@nb.njit(cache=True)
def _uniform_relay_but(lo, k, u, out, rng):
    """A uniform relay among ``out[lo:lo+k]`` other than ``u`` (``u`` if it is the only one)."""
    c = 0
    for i in range(k):
        if out[lo + i] != u:
            c += 1
    if c == 0:
        return out[lo]
    r = rng.integers(0, c)
    for i in range(k):
        if out[lo + i] != u:
            if r == 0:
                return out[lo + i]
            r -= 1
    return -1


@nb.njit(cache=True, inline="always")
def _relay_of(v, prev, out_ptr, out, own, in_ptr, in_src, in_to, rng):
    """Where ``v`` forwards a stem that came from ``prev`` (-1: its own transaction)."""
    if prev < 0:
        r = own[v]
    else:
        r = -1
        for j in range(in_ptr[v], in_ptr[v + 1]):
            if in_src[j] == prev:
                r = in_to[j]
                break
    if r < 0:
        k = out_ptr[v + 1] - out_ptr[v]
        if prev < 0:
            r = out[out_ptr[v] + rng.integers(0, k)]
        else:
            r = _uniform_relay_but(out_ptr[v], k, prev, out, rng)
    return r


@nb.njit(cache=True)
def _heap_push(ht, hv, size, t, v):
    i = size
    ht[i] = t
    hv[i] = v
    while i > 0:
        p = (i - 1) >> 1
        if ht[p] <= ht[i]:
            break
        ht[p], ht[i] = ht[i], ht[p]
        hv[p], hv[i] = hv[i], hv[p]
        i = p
    return size + 1


@nb.njit(cache=True)
def _heap_pop(ht, hv, size):
    t, v = ht[0], hv[0]
    size -= 1
    ht[0] = ht[size]
    hv[0] = hv[size]
    i = 0
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        b = a + 1
        c = a if (b >= size or ht[a] <= ht[b]) else b
        if ht[i] <= ht[c]:
            break
        ht[c], ht[i] = ht[i], ht[c]
        hv[c], hv[i] = hv[i], hv[c]
        i = c
    return t, v, size


@nb.njit(cache=True)
def _one_run(src, n, indptr, indices, q, rate, coin_epoch, out_ptr, out, own, in_ptr, in_src,
             in_to, diffuser, stem_len, rng, path, path_t, ftime, fparent, done, ht, hv):
    """One transaction from ``src``: the stem, then diffusion to completion.

    Fills ``path[:L+1]`` / ``path_t`` (stem nodes and receipt times, ``path[0] = src``),
    ``ftime`` / ``fparent`` (first fluff receipt and its sender; the diffuser's parent is
    -1). ``stem_len == 0`` is diffusion from the source. Returns ``(L, fluff_node,
    repeat)``, ``repeat`` when the stem ended at a node that already had the transaction.
    """
    scale = 1.0 / rate
    path[0] = src
    path_t[0] = 0.0
    for v in range(n):
        done[v] = 0
    done[src] = 1  # 'done' marks stem membership here; reused below for Dijkstra
    cur, prev, t, L = src, -1, 0.0, 0
    repeat = False
    if stem_len != 0:
        while True:
            nxt = _relay_of(cur, prev, out_ptr, out, own, in_ptr, in_src, in_to, rng)
            t += rng.exponential(scale)
            L += 1
            path[L] = nxt
            path_t[L] = t
            if done[nxt] == 1:
                repeat = True  # a stem back at a node that has it: the fail-safe diffuses it
                break
            done[nxt] = 1
            if coin_epoch:
                if diffuser[nxt] == 1:
                    break
            elif rng.random() < q:
                break
            prev, cur = cur, nxt
    f = path[L]
    for v in range(n):
        ftime[v] = np.inf
        fparent[v] = -1
        done[v] = 0
    ftime[f] = t
    size = _heap_push(ht, hv, 0, t, f)
    while size > 0:
        tu, u, size = _heap_pop(ht, hv, size)
        if done[u] == 1:
            continue
        done[u] = 1
        par = fparent[u]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if w == par:
                continue
            # the delay is drawn for every message sent, as the message engine does
            tw = tu + rng.exponential(scale)
            if done[w] == 0 and tw < ftime[w]:
                ftime[w] = tw
                fparent[w] = u
                size = _heap_push(ht, hv, size, tw, w)
    return L, f, repeat


@nb.njit(cache=True)
def run_stem_batch(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rate,
                   stem_len, fixed, out_ptr, out, own, in_ptr, in_src, in_to, diffuser,
                   sources, spies, rng, o_len, o_fnode, o_ftime, o_repeat, o_reached, o_last,
                   o_time, o_sender, o_kind):
    """Many independent transactions; one row of outputs per trial.

    ``fixed``: reuse the given anonymity graph for every trial (one epoch), else draw a
    fresh one per trial into the same arrays. ``spies`` has shape (trials, k).
    """
    trials = sources.shape[0]
    k = spies.shape[1]
    maxdeg = 0
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    work = np.empty(max(n, maxdeg) + 1, np.int64)
    path = np.empty(n + 2, np.int64)
    path_t = np.empty(n + 2, np.float64)
    ftime = np.empty(n, np.float64)
    fparent = np.empty(n, np.int64)
    done = np.empty(n, np.int8)
    cap = indptr[n] + 2
    ht = np.empty(cap, np.float64)
    hv = np.empty(cap, np.int64)
    first = np.full(n, -1, np.int64)  # first stem position of a node, this trial
    for i in range(trials):
        if not fixed:
            draw_anonymity(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q,
                           rng, out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work)
        L, f, rep = _one_run(sources[i], n, indptr, indices, q, rate, coin_epoch, out_ptr, out, own,
                        in_ptr, in_src, in_to, diffuser, stem_len, rng, path, path_t, ftime,
                        fparent, done, ht, hv)
        o_len[i] = L
        o_fnode[i] = f
        o_ftime[i] = path_t[L]
        o_repeat[i] = rep
        reached = 0
        last = 0.0
        for v in range(n):
            if ftime[v] < np.inf:
                reached += 1
                last = max(last, ftime[v])
        o_reached[i] = reached
        o_last[i] = last
        for j in range(1, L + 1):
            if first[path[j]] < 0:
                first[path[j]] = j
        for j in range(k):
            s = spies[i, j]
            p = first[s]
            if p > 0:  # stem receipts come before any fluff receipt
                o_time[i, j] = path_t[p]
                o_sender[i, j] = path[p - 1]
                o_kind[i, j] = STEM
            elif ftime[s] < np.inf and fparent[s] >= 0:
                o_time[i, j] = ftime[s]
                o_sender[i, j] = fparent[s]
                o_kind[i, j] = FLUFF
            else:
                o_time[i, j] = np.inf
                o_sender[i, j] = -1
                o_kind[i, j] = -1
        for j in range(1, L + 1):
            first[path[j]] = -1
