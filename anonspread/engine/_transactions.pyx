"""Kernels of the transaction model, compiled (see :mod:`anonspread.engine.transactions`).

Every function that draws takes the caller's ``numpy.random.Generator``; it holds the
Generator's lock and draws through its bit generator without the GIL (:mod:`._bitgen`).
"""

import numpy as np

from libc.stdint cimport int8_t, int64_t
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of, randint, uniform
from anonspread.engine._csr cimport in_neighbours


def regular_digraph(int64_t n, int64_t d, object rng):
    """Union of ``d`` uniformly random directed Hamiltonian cycles on ``n`` nodes (CSR)."""
    cdef bitgen_t* bg = bitgen_of(rng)
    succ_arr = np.full((n, d), -1, np.int64)
    cdef int64_t[:, ::1] succ = succ_arr
    cdef int64_t[::1] cnt = np.zeros(n, np.int64)
    cdef int64_t[::1] perm = np.arange(n, dtype=np.int64)
    indptr_arr = np.zeros(n + 1, np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    cdef int64_t c, i, j, t, u, w, k
    cdef bint dup
    with rng.bit_generator.lock, nogil:
        for c in range(d):
            if c > 0:
                for i in range(n - 1, 0, -1):
                    j = randint(bg, i + 1)
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
        for u in range(n):
            indptr[u + 1] = indptr[u] + cnt[u]
    indices_arr = np.empty(indptr[n], np.int64)
    cdef int64_t[::1] indices = indices_arr
    with nogil:
        for u in range(n):
            for k in range(cnt[u]):
                indices[indptr[u] + k] = succ[u, k]
    return indptr_arr, indices_arr


cdef void _routing_tables(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices,
                          int code, bitgen_t* bg, int64_t[::1] cnt, int64_t[::1] iptr,
                          int64_t[::1] iind, int64_t[::1] table, int64_t[::1] own,
                          int64_t[::1] deck) noexcept nogil:
    cdef int64_t e, u, w, a, b, d, left, i, j, t
    in_neighbours(n, indptr, indices, iptr, iind, cnt)
    for u in range(n):
        a = indptr[u]
        b = indptr[u + 1]
        d = b - a
        if d == 0:
            continue
        own[u] = indices[a + randint(bg, d)]
        if code == 1:
            for e in range(iptr[u], iptr[u + 1]):
                table[e] = indices[a + randint(bg, d)]
        elif code == 2:
            for e in range(iptr[u], iptr[u + 1]):
                table[e] = own[u]
        elif code == 3:
            for i in range(d):
                deck[i] = indices[a + i]
            left = 0
            for e in range(iptr[u], iptr[u + 1]):
                if left == 0:
                    for i in range(d - 1, 0, -1):
                        j = randint(bg, i + 1)
                        t = deck[i]
                        deck[i] = deck[j]
                        deck[j] = t
                    left = d
                left -= 1
                table[e] = deck[left]


def _tables(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices):
    m = indices.shape[0]
    maxdeg = int(np.diff(indptr).max(initial=0))
    return (np.zeros(n, np.int64), np.zeros(n + 1, np.int64), np.empty(m, np.int64),
            np.full(m, -1, np.int64), np.full(n, -1, np.int64), np.empty(maxdeg + 1, np.int64))


def routing_tables(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices, int code,
                   object rng):
    """Per-epoch forwarding tables ``(iptr, iind, table, own)`` of the deterministic rules."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cnt_a, iptr_a, iind_a, table_a, own_a, deck_a = _tables(n, indptr, indices)
    cdef int64_t[::1] cnt = cnt_a, iptr = iptr_a, iind = iind_a, table = table_a, own = own_a
    cdef int64_t[::1] deck = deck_a
    with rng.bit_generator.lock, nogil:
        _routing_tables(n, indptr, indices, code, bg, cnt, iptr, iind, table, own, deck)
    return iptr_a, iind_a, table_a, own_a


def stems(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices,
          const unsigned char[::1] spy, int code, double q, int64_t cap, bint escape, object rng,
          int8_t[::1] kind, int64_t[::1] node, int64_t[::1] spy_of, int64_t[::1] hops):
    """Run every honest node's stem; fill the observation arrays (indexed by transaction)."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cnt_a, iptr_a, iind_a, table_a, own_a, deck_a = _tables(n, indptr, indices)
    cdef int64_t[::1] iptr = iptr_a, iind = iind_a, table = table_a, own = own_a
    cdef int64_t[::1] cnt = cnt_a, deck = deck_a
    cdef int64_t[::1] seen = np.full(n, -1, np.int64)
    cdef int64_t t = 0, v, cur, pred, h, a, b, w, e, j
    with rng.bit_generator.lock, nogil:
        _routing_tables(n, indptr, indices, code, bg, cnt, iptr, iind, table, own, deck)
        for v in range(n):
            if spy[v]:
                continue
            cur = v
            pred = -1
            h = 0
            while True:
                a = indptr[cur]
                b = indptr[cur + 1]
                if b == a:
                    kind[t] = 1
                    node[t] = cur
                    spy_of[t] = -1
                    break
                if code == 0:
                    w = indices[a + randint(bg, b - a)]
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
                        j = randint(bg, b - a - 1)
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
                if (q > 0.0 and uniform(bg) < q) or h >= cap:
                    kind[t] = 1
                    node[t] = w
                    spy_of[t] = -1
                    break
                pred = cur
                cur = w
            hops[t] = h
            t += 1


def diffusion_first_spy(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices,
                        const unsigned char[::1] spy, object rng, int8_t[::1] kind,
                        int64_t[::1] node, int64_t[::1] spy_of, int64_t[::1] hops):
    """Diffusion from every honest node until the first spy receives it."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef int64_t[::1] mark = np.full(n, -1, np.int64)
    cdef Py_ssize_t m = indices.shape[0]
    cdef int64_t[::1] eu = np.empty(m, np.int64), ew = np.empty(m, np.int64)
    cdef int64_t t = 0, v, top, e, infected, i, u, w, x
    with rng.bit_generator.lock, nogil:
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
                i = randint(bg, top)
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


def precision_recall(int64_t n, const int64_t[::1] sources, const int64_t[::1] mapping):
    """Precision and recall of a mapping (transaction i -> node ``mapping[i]``, -1: none)."""
    cdef Py_ssize_t h = sources.shape[0], i
    cdef int64_t[::1] count = np.zeros(n, np.int64)
    cdef double p = 0.0, r = 0.0
    with nogil:
        for i in range(h):
            if mapping[i] >= 0:
                count[mapping[i]] += 1
        for i in range(h):
            if mapping[i] == sources[i]:
                r += 1.0
                p += 1.0 / count[mapping[i]]
    if h == 0:
        return 0.0, 0.0
    return p / h, r / h
