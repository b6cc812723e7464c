"""Kernels of the stem-and-fluff protocols, compiled (see :mod:`anonspread.engine.stems`).

Every function that draws takes the caller's ``numpy.random.Generator``; it holds the
Generator's lock and draws through its bit generator without the GIL (:mod:`._bitgen`).
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport int8_t, int32_t, int64_t
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of, exponential, randint, uniform
from anonspread.engine._csr cimport in_neighbours

ctypedef fused index_t:
    int32_t
    int64_t

# Anonymity-graph kinds, routing codes and receipt kinds (the values of stems.py).
cdef enum:
    CYCLE = 0
cdef enum:
    ONE_TO_ONE = 0
    PER_EDGE = 1
    PER_TRANSACTION = 2
    ALL_TO_ONE = 3
cdef enum:
    STEM = 0
    FLUFF = 1


cdef inline void _shuffle(int64_t[::1] a, int64_t m, bitgen_t* bg) noexcept nogil:
    """Fisher-Yates on ``a[:m]``."""
    cdef int64_t i, j, t
    for i in range(m - 1, 0, -1):
        j = randint(bg, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


cdef int64_t _uniform_relay_but(int64_t lo, int64_t k, int64_t u, const int64_t[::1] out,
                                bitgen_t* bg) noexcept nogil:
    """A uniform relay among ``out[lo:lo+k]`` other than ``u`` (``u`` if it is the only one)."""
    cdef int64_t c = 0, i, r
    for i in range(k):
        if out[lo + i] != u:
            c += 1
    if c == 0:
        return out[lo]
    r = randint(bg, c)
    for i in range(k):
        if out[lo + i] != u:
            if r == 0:
                return out[lo + i]
            r -= 1
    return -1


cdef void _one_to_one(int64_t v, int64_t lo, int64_t k, const int64_t[::1] in_ptr,
                      const int64_t[::1] in_src, int64_t[::1] in_to, const int64_t[::1] out,
                      int64_t[::1] work, bitgen_t* bg) noexcept nogil:
    """Map ``v``'s in-edges to its ``k`` relays in rounds of ``k``: a uniform bijection per
    round among those that never send a stem back to its sender (when one exists)."""
    cdef int64_t a = in_ptr[v], b = in_ptr[v + 1], r0, r1, i, j, attempt
    cdef bint ok
    r0 = a
    while r0 < b:
        r1 = min(r0 + k, b)
        for attempt in range(64):
            for i in range(k):
                work[i] = out[lo + i]
            _shuffle(work, k, bg)
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
                in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
        r0 += k


cdef int64_t _draw(int kind, int64_t n, const int64_t[::1] indptr, const index_t[::1] indices,
                   int64_t relays, bint peers_all, int routing, bint coin_epoch, double q,
                   bitgen_t* bg, int64_t[::1] out_ptr, int64_t[::1] out, int64_t[::1] own,
                   int64_t[::1] in_ptr, int64_t[::1] in_src, int64_t[::1] in_to,
                   int8_t[::1] diffuser, int64_t[::1] work) noexcept nogil:
    cdef int64_t m = 0, i, v, k, c, w, j, d, r, t, u, lo, hi
    cdef bint dup
    out_ptr[0] = 0
    if kind == CYCLE:
        for i in range(n):
            work[i] = i
        _shuffle(work, n, bg)
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
                    w = randint(bg, n)
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
                    r = j + randint(bg, d - j)
                    t = work[j]
                    work[j] = work[r]
                    work[r] = t
                    out[m + j] = work[j]
            m += k
            out_ptr[v + 1] = m
    # in-edges, grouped by head, in order of tail
    in_neighbours(n, out_ptr, out, in_ptr, in_src, work)
    # forwarding rules
    for v in range(n):
        lo = out_ptr[v]
        hi = out_ptr[v + 1]
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
        own[v] = out[lo + randint(bg, k)]
        if routing == PER_EDGE:
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
        elif routing == ALL_TO_ONE:  # everything on the own-transaction relay (never back)
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = own[v]
                if own[v] == in_src[j]:
                    in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
        else:
            _one_to_one(v, lo, k, in_ptr, in_src, in_to, out, work, bg)
    for v in range(n):
        diffuser[v] = 1 if (coin_epoch and uniform(bg) < q) else 0
    return m


def draw_anonymity(int kind, int64_t n, const int64_t[::1] indptr, const index_t[::1] indices,
                   int64_t relays, bint peers_all, int routing, bint coin_epoch, double q,
                   object rng, int64_t[::1] out_ptr, int64_t[::1] out, int64_t[::1] own,
                   int64_t[::1] in_ptr, int64_t[::1] in_src, int64_t[::1] in_to,
                   int8_t[::1] diffuser, int64_t[::1] work):
    """Draw one epoch's anonymity graph into the given arrays; returns the number of edges."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef int64_t m
    with rng.bit_generator.lock, nogil:
        m = _draw(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, bg,
                  out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work)
    return m


cdef inline int64_t _relay_of(int64_t v, int64_t prev, const int64_t[::1] out_ptr,
                              const int64_t[::1] out, const int64_t[::1] own,
                              const int64_t[::1] in_ptr, const int64_t[::1] in_src,
                              const int64_t[::1] in_to, bitgen_t* bg) noexcept nogil:
    """Where ``v`` forwards a stem that came from ``prev`` (-1: its own transaction)."""
    cdef int64_t r, j, k
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
            r = out[out_ptr[v] + randint(bg, k)]
        else:
            r = _uniform_relay_but(out_ptr[v], k, prev, out, bg)
    return r


cdef inline int64_t _heap_push(double[::1] ht, int64_t[::1] hv, int64_t size, double t,
                               int64_t v) noexcept nogil:
    cdef int64_t i = size, p
    while i > 0:
        p = (i - 1) >> 1
        if ht[p] <= t:
            break
        ht[i] = ht[p]
        hv[i] = hv[p]
        i = p
    ht[i] = t
    hv[i] = v
    return size + 1


cdef inline int64_t _heap_pop(double[::1] ht, int64_t[::1] hv, int64_t size) noexcept nogil:
    """Remove the root (read it first from ``ht[0], hv[0]``); returns the new size."""
    cdef int64_t i = 0, a, b, c
    size -= 1
    cdef double t = ht[size]
    cdef int64_t v = hv[size]
    while True:
        a = 2 * i + 1
        if a >= size:
            break
        b = a + 1
        c = a if (b >= size or ht[a] <= ht[b]) else b
        if t <= ht[c]:
            break
        ht[i] = ht[c]
        hv[i] = hv[c]
        i = c
    ht[i] = t
    hv[i] = v
    return size


cdef int64_t _one_run(int64_t src, int64_t n, const int64_t[::1] indptr,
                      const index_t[::1] indices, double q, double rate, bint coin_epoch,
                      const int64_t[::1] out_ptr, const int64_t[::1] out,
                      const int64_t[::1] own, const int64_t[::1] in_ptr,
                      const int64_t[::1] in_src, const int64_t[::1] in_to,
                      const int8_t[::1] diffuser, int64_t stem_len, bitgen_t* bg,
                      int64_t[::1] path, double[::1] path_t, double[::1] ftime,
                      int64_t[::1] fparent, int8_t[::1] done, double[::1] ht, int64_t[::1] hv,
                      int64_t* f_out, bint* repeat_out) noexcept nogil:
    """One transaction from ``src``: the stem, then diffusion to completion.

    Fills ``path[:L+1]`` / ``path_t`` (stem nodes and receipt times, ``path[0] = src``),
    ``ftime`` / ``fparent`` (first fluff receipt and its sender; the diffuser's parent is
    -1). ``stem_len == 0`` is diffusion from the source. Returns ``L``; the fluff node
    and ``repeat`` (the stem ended at a node that already had the transaction) go to
    ``f_out`` and ``repeat_out``.
    """
    cdef double scale = 1.0 / rate, t = 0.0, tu, tw
    cdef int64_t v, cur = src, prev = -1, L = 0, nxt, f, size, u, par, j, w
    cdef bint repeat = False
    path[0] = src
    path_t[0] = 0.0
    for v in range(n):
        done[v] = 0
    done[src] = 1  # 'done' marks stem membership here; reused below for Dijkstra
    if stem_len != 0:
        while True:
            nxt = _relay_of(cur, prev, out_ptr, out, own, in_ptr, in_src, in_to, bg)
            t += exponential(bg, scale)
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
            elif uniform(bg) < q:
                break
            prev = cur
            cur = nxt
    f = path[L]
    for v in range(n):
        ftime[v] = INFINITY
        fparent[v] = -1
        done[v] = 0
    ftime[f] = t
    size = _heap_push(ht, hv, 0, t, f)
    while size > 0:
        tu = ht[0]
        u = hv[0]
        size = _heap_pop(ht, hv, size)
        if done[u] == 1:
            continue
        done[u] = 1
        par = fparent[u]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if w == par:
                continue
            # the delay is drawn for every message sent, as the message engine does
            tw = tu + exponential(bg, scale)
            if done[w] == 0 and tw < ftime[w]:
                ftime[w] = tw
                fparent[w] = u
                size = _heap_push(ht, hv, size, tw, w)
    f_out[0] = f
    repeat_out[0] = repeat
    return L


def run_stem_batch(int kind, int64_t n, const int64_t[::1] indptr, const index_t[::1] indices,
                   int64_t relays, bint peers_all, int routing, bint coin_epoch, double q,
                   double rate, int64_t stem_len, bint fixed, int64_t[::1] out_ptr,
                   int64_t[::1] out, int64_t[::1] own, int64_t[::1] in_ptr,
                   int64_t[::1] in_src, int64_t[::1] in_to, int8_t[::1] diffuser,
                   const int64_t[::1] sources, const int64_t[:, ::1] spies, object rng,
                   int64_t[::1] o_len, int64_t[::1] o_fnode, double[::1] o_ftime,
                   unsigned char[::1] o_repeat, int64_t[::1] o_reached, double[::1] o_last,
                   double[:, ::1] o_time, int64_t[:, ::1] o_sender, int8_t[:, ::1] o_kind):
    """Many independent transactions; one row of outputs per trial."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef Py_ssize_t trials = sources.shape[0], k = spies.shape[1], i, j
    cdef int64_t maxdeg = 0, v, L, f, reached, s, p
    cdef bint rep
    cdef double last
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    cdef int64_t[::1] work = np.empty(max(n, maxdeg) + 1, np.int64)
    cdef int64_t[::1] path = np.empty(n + 2, np.int64)
    cdef double[::1] path_t = np.empty(n + 2, np.float64)
    cdef double[::1] ftime = np.empty(n, np.float64)
    cdef int64_t[::1] fparent = np.empty(n, np.int64)
    cdef int8_t[::1] done = np.empty(n, np.int8)
    cdef int64_t cap = indptr[n] + 2
    cdef double[::1] ht = np.empty(cap, np.float64)
    cdef int64_t[::1] hv = np.empty(cap, np.int64)
    cdef int64_t[::1] first = np.full(n, -1, np.int64)  # first stem position of a node, this trial
    with rng.bit_generator.lock, nogil:
        for i in range(trials):
            if not fixed:
                _draw(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, bg,
                      out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work)
            L = _one_run(sources[i], n, indptr, indices, q, rate, coin_epoch, out_ptr, out, own,
                         in_ptr, in_src, in_to, diffuser, stem_len, bg, path, path_t, ftime,
                         fparent, done, ht, hv, &f, &rep)
            o_len[i] = L
            o_fnode[i] = f
            o_ftime[i] = path_t[L]
            o_repeat[i] = rep
            reached = 0
            last = 0.0
            for v in range(n):
                if ftime[v] < INFINITY:
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
                elif ftime[s] < INFINITY and fparent[s] >= 0:
                    o_time[i, j] = ftime[s]
                    o_sender[i, j] = fparent[s]
                    o_kind[i, j] = FLUFF
                else:
                    o_time[i, j] = INFINITY
                    o_sender[i, j] = -1
                    o_kind[i, j] = -1
            for j in range(1, L + 1):
                first[path[j]] = -1
