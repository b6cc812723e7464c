"""The Dandelion simulator, compiled (see :mod:`anonspread.engine.dandelion`).

One kernel family for both configurations: the anonymity graph (:func:`_cycles`,
:func:`_relays`), its forwarding tables (:func:`_forwarding`) and epoch roles, and the stem
walk (:func:`_walk`) are written once; :func:`run_stem_batch` (the protocols of
``spread.dandelion``: timed, never back, fail-safe at a repeat, then the fluff) and
:func:`stems` (the abstract transaction model: untimed, stopped at the first spy, the
authors' loop rules) are two sets of :c:type:`Rules` for it.

Every function that draws takes the caller's ``numpy.random.Generator``; it holds the
Generator's lock and draws through its bit generator without the GIL (:mod:`._bitgen`).
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport INT64_MAX, int8_t, int32_t, int64_t
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of, exponential, randint, uniform
from anonspread.engine._csr cimport in_neighbours

ctypedef fused index_t:
    int32_t
    int64_t

# The values of dandelion.py.
cdef enum:  # anonymity-graph kinds
    CYCLES = 0
cdef enum:  # routing (the authors' ``edgebased`` codes)
    PER_TRANSACTION = 0
    PER_EDGE = 1
    ALL_TO_ONE = 2
    ONE_TO_ONE = 3
cdef enum:  # what a stem does at a node it already visited
    FAILSAFE = 0
    ESCAPE = 1
    FOLLOW = 2
cdef enum:  # how a stem ended
    END_SPY = 0
    END_FLUFF = 1
    END_REPEAT = 2
    END_STUCK = 3
cdef enum:  # receipt kinds
    STEM = 0
    FLUFF = 1


cdef struct Rules:
    # the stem rules of one configuration
    int routing
    bint no_return      # never forward a stem back to the node it came from (if another relay)
    int revisit         # FAILSAFE: fluff at a node that has it; ESCAPE / FOLLOW: the authors'
    bint coin_epoch     # the coin is the receiving node's epoch role, not a fresh one per hop
    double q
    double scale        # mean message delay (0: untimed, no delays drawn)
    int64_t cap         # fluff after this many hops
    bint stop_at_spy    # a stem that reaches a spy ends there (the transaction model)
    bint record         # keep the path and its receipt times


# ----------------------------------------------------------------- the anonymity graph


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


cdef int64_t _cycles(int64_t n, int64_t d, bint shuffle_first, bitgen_t* bg,
                     int64_t[::1] out_ptr, int64_t[::1] out, int64_t[::1] perm) noexcept nogil:
    """Union of ``d`` directed Hamiltonian cycles over ``n`` nodes into the CSR ``out_ptr,
    out`` (room for ``n * d``); returns the number of arcs.

    Each cycle follows a uniform random permutation, drawn by Fisher-Yates on the previous
    one; the first is the identity unless ``shuffle_first`` (the transaction model's graph
    does not depend on labels, the authors' ``RegGraphGen`` starts there). An arc drawn
    twice is kept once.
    """
    cdef int64_t c, i, u, w, k, m
    cdef bint dup
    for u in range(n + 1):
        out_ptr[u] = 0  # out_ptr[u + 1]: u's arcs so far, in row u * d of out
    for i in range(n):
        perm[i] = i
    for c in range(d):
        if c > 0 or shuffle_first:
            _shuffle(perm, n, bg)
        for i in range(n):
            u = perm[i]
            w = perm[(i + 1) % n]
            dup = False
            for k in range(out_ptr[u + 1]):
                if out[u * d + k] == w:
                    dup = True
                    break
            if not dup:
                out[u * d + out_ptr[u + 1]] = w
                out_ptr[u + 1] += 1
    if d == 1:  # one cycle: every node has its one arc in place
        for u in range(n):
            out_ptr[u + 1] = u + 1
        return n
    m = 0
    for u in range(n):  # rows to CSR, in place (row u only moves left)
        k = out_ptr[u + 1]
        for i in range(k):
            out[m + i] = out[u * d + i]
        m += k
        out_ptr[u + 1] = m
    return m


cdef int64_t _relays(int64_t n, const int64_t[::1] indptr, const index_t[::1] indices,
                     int64_t relays, bint peers_all, bitgen_t* bg, int64_t[::1] out_ptr,
                     int64_t[::1] out, int64_t[::1] work) noexcept nogil:
    """Every node picks ``relays`` distinct relays uniformly among all other nodes or among
    its contacts (all of them if it has fewer); returns the number of arcs."""
    cdef int64_t m = 0, v, k, c, w, j, d, r, t
    cdef bint dup
    out_ptr[0] = 0
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
    return m


cdef void _one_to_one(int64_t v, int64_t lo, int64_t k, bint no_return,
                      const int64_t[::1] in_ptr, const int64_t[::1] in_src, int64_t[::1] in_to,
                      const int64_t[::1] out, int64_t[::1] work, bitgen_t* bg) noexcept nogil:
    """Map ``v``'s in-edges to its ``k`` relays in rounds of ``k``: a uniform bijection per
    round (with ``no_return``, among those that never send a stem back to its sender, when
    one exists)."""
    cdef int64_t a = in_ptr[v], b = in_ptr[v + 1], r0, r1, i, j, attempt
    cdef bint ok
    r0 = a
    while r0 < b:
        r1 = min(r0 + k, b)
        for attempt in range(64):
            for i in range(k):
                work[i] = out[lo + i]
            _shuffle(work, k, bg)
            if not no_return:
                break
            ok = True
            for j in range(r0, r1):
                if work[j - r0] == in_src[j]:
                    ok = False
                    break
            if ok:
                break
        for j in range(r0, r1):
            in_to[j] = work[j - r0]
            if no_return and in_to[j] == in_src[j]:  # no such bijection: avoid it alone
                in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
        r0 += k


cdef void _forwarding(int64_t n, const int64_t[::1] out_ptr, const int64_t[::1] out,
                      int routing, bint no_return, bitgen_t* bg, int64_t[::1] own,
                      int64_t[::1] in_ptr, int64_t[::1] in_src, int64_t[::1] in_to,
                      int64_t[::1] work) noexcept nogil:
    """The epoch's forwarding tables: the in-neighbour CSR ``in_ptr, in_src``, the relay
    ``in_to[j]`` of a stem arriving over in-edge ``j`` and the relay ``own[v]`` of ``v``'s own
    transactions (-1: drawn per transaction, for per-transaction routing or no relay).
    ``work``: ``max(n, max out-degree) + 1``."""
    cdef int64_t v, lo, k, j
    in_neighbours(n, out_ptr, out, in_ptr, in_src, work)
    for v in range(n):
        lo = out_ptr[v]
        k = out_ptr[v + 1] - lo
        if routing == PER_TRANSACTION or k == 0:
            own[v] = -1
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = -1
            continue
        if k == 1:  # every rule maps everything to the one relay (and draws no bits)
            own[v] = out[lo]
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = out[lo]
            continue
        own[v] = out[lo + randint(bg, k)]
        if routing == PER_EDGE:
            for j in range(in_ptr[v], in_ptr[v + 1]):
                if no_return:
                    in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
                else:
                    in_to[j] = out[lo + randint(bg, k)]
        elif routing == ALL_TO_ONE:
            for j in range(in_ptr[v], in_ptr[v + 1]):
                in_to[j] = own[v]
                if no_return and own[v] == in_src[j]:
                    in_to[j] = _uniform_relay_but(lo, k, in_src[j], out, bg)
        else:
            _one_to_one(v, lo, k, no_return, in_ptr, in_src, in_to, out, work, bg)


cdef int64_t _draw(int kind, int64_t n, const int64_t[::1] indptr, const index_t[::1] indices,
                   int64_t relays, bint peers_all, int routing, bint coin_epoch, double q,
                   bitgen_t* bg, int64_t[::1] out_ptr, int64_t[::1] out, int64_t[::1] own,
                   int64_t[::1] in_ptr, int64_t[::1] in_src, int64_t[::1] in_to,
                   int8_t[::1] diffuser, int64_t[::1] work) noexcept nogil:
    """One epoch of the protocols: arcs, forwarding tables (never back), roles."""
    cdef int64_t m, v
    if kind == CYCLES:
        m = _cycles(n, relays, True, bg, out_ptr, out, work)
    else:
        m = _relays(n, indptr, indices, relays, peers_all, bg, out_ptr, out, work)
    _forwarding(n, out_ptr, out, routing, True, bg, own, in_ptr, in_src, in_to, work)
    for v in range(n):
        diffuser[v] = 1 if (coin_epoch and uniform(bg) < q) else 0
    return m


# ----------------------------------------------------------------- the stem walk


cdef int64_t _walk(int64_t src, const Rules* r, const int64_t[::1] out_ptr,
                   const int64_t[::1] out, const int64_t[::1] own, const int64_t[::1] in_ptr,
                   const int64_t[::1] in_src, const int64_t[::1] in_to,
                   const int8_t[::1] diffuser, const unsigned char[::1] spy, bitgen_t* bg,
                   int64_t[::1] mark, int64_t stamp, int64_t[::1] path, double[::1] path_t,
                   int64_t* ends) noexcept nogil:
    """One stem from ``src`` by the rules ``r``; returns its number of hops ``L``.

    Per hop: the relay (per-transaction: uniform, or uniform but the previous node with
    ``no_return``; else the epoch's table, or with ``ESCAPE`` at a node the stem already
    left another relay than the table's), its delay (timed rules), then the end tests in
    order: a spy (``stop_at_spy``), a node the stem already reached (``FAILSAFE``), the
    coin (the node's epoch role, or a fresh coin unless ``q = 0``), ``cap`` hops. ``mark``
    holds ``stamp`` at the nodes this stem reached. ``ends`` gets the end code, the last
    node (where it fluffs, the spy, or the stuck node) and the node before it.
    """
    cdef int64_t cur = src, prev = -1, L = 0, nxt = src, lo, k, j
    cdef bint again = False
    cdef int end
    cdef double t = 0.0
    if r.record:
        path[0] = src
        path_t[0] = 0.0
    mark[src] = stamp
    while True:
        lo = out_ptr[cur]
        k = out_ptr[cur + 1] - lo
        if k == 0:
            end = END_STUCK
            nxt = cur
            break
        if r.routing == PER_TRANSACTION:
            if prev < 0 or not r.no_return:
                nxt = out[lo + randint(bg, k)]
            else:
                nxt = _uniform_relay_but(lo, k, prev, out, bg)
        else:
            if prev < 0:
                nxt = own[cur]
            else:
                for j in range(in_ptr[cur], in_ptr[cur + 1]):
                    if in_src[j] == prev:
                        nxt = in_to[j]
                        break
            if again and r.revisit == ESCAPE and k > 1:
                nxt = _uniform_relay_but(lo, k, nxt, out, bg)
        if r.scale > 0.0:
            t += exponential(bg, r.scale)
        L += 1
        if r.record:
            path[L] = nxt
            path_t[L] = t
        if r.stop_at_spy and spy[nxt]:
            end = END_SPY
            break
        again = mark[nxt] == stamp
        mark[nxt] = stamp
        if again and r.revisit == FAILSAFE:
            end = END_REPEAT
            break
        if r.coin_epoch:
            if diffuser[nxt] == 1:
                end = END_FLUFF
                break
        elif r.q > 0.0 and uniform(bg) < r.q:
            end = END_FLUFF
            break
        if L >= r.cap:
            end = END_FLUFF
            break
        prev = cur
        cur = nxt
    ends[0] = end
    ends[1] = nxt
    ends[2] = cur
    return L


# ----------------------------------------------------------------- the protocols


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


# The fluff's heap: an indexed binary heap of times ``ht`` and nodes ``hv``; ``pos[v]`` is
# v's place in it, -1 before its first receipt, -2 once its first receipt is final.


cdef inline void _sift_up(double[::1] ht, int64_t[::1] hv, int64_t[::1] pos, int64_t i,
                          double t, int64_t v) noexcept nogil:
    """Place ``(t, v)`` at the hole ``i`` or above it."""
    cdef int64_t p
    while i > 0:
        p = (i - 1) >> 1
        if ht[p] <= t:
            break
        ht[i] = ht[p]
        hv[i] = hv[p]
        pos[hv[i]] = i
        i = p
    ht[i] = t
    hv[i] = v
    pos[v] = i


cdef inline int64_t _pop(double[::1] ht, int64_t[::1] hv, int64_t[::1] pos,
                         int64_t size) noexcept nogil:
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
        pos[hv[i]] = i
        i = c
    ht[i] = t
    hv[i] = v
    pos[v] = i
    return size


cdef int64_t _fluff(int64_t f, double t, int64_t n, const int64_t[::1] indptr,
                    const index_t[::1] indices, double scale, bitgen_t* bg, int64_t[::1] pos,
                    double[::1] ftime, int64_t[::1] fparent, double[::1] ht, int64_t[::1] hv,
                    double* last) noexcept nogil:
    """Diffusion from ``f`` (at time ``t``) to completion; returns the number of nodes reached
    and puts the time of the last first receipt in ``last``.

    Dijkstra over per-message Exponential delays of mean ``scale``, with an indexed heap
    (a node's entry moves up when a message would reach it sooner). The nodes reached have
    ``pos == -2``, and ``ftime`` / ``fparent`` hold their first fluff receipt and its
    sender (-1 at ``f``).
    """
    cdef int64_t v, size, u, par, j, w, p, reached = 0
    cdef double tu, tw
    for v in range(n):
        pos[v] = -1
    ftime[f] = t
    fparent[f] = -1
    last[0] = t
    ht[0] = t
    hv[0] = f
    pos[f] = 0
    size = 1
    while size > 0:
        tu = ht[0]
        u = hv[0]
        size = _pop(ht, hv, pos, size)
        pos[u] = -2
        reached += 1
        last[0] = tu  # first receipts leave the heap in time order
        par = fparent[u]
        for j in range(indptr[u], indptr[u + 1]):
            w = indices[j]
            if w == par:
                continue
            # the delay is drawn for every message sent, as the message engine does
            tw = tu + exponential(bg, scale)
            p = pos[w]
            if p == -1:
                ftime[w] = tw
                fparent[w] = u
                _sift_up(ht, hv, pos, size, tw, w)
                size += 1
            elif p >= 0 and tw < ftime[w]:
                ftime[w] = tw
                fparent[w] = u
                _sift_up(ht, hv, pos, p, tw, w)
    return reached


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
    cdef int64_t maxdeg = 0, v, L, f, s, p
    cdef int64_t ends[3]
    cdef double last
    cdef Rules r
    r.routing = routing
    r.no_return = True
    r.revisit = FAILSAFE
    r.coin_epoch = coin_epoch
    r.q = q
    r.scale = 1.0 / rate
    r.cap = INT64_MAX
    r.stop_at_spy = False
    r.record = True
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    cdef int64_t[::1] work = np.empty(max(n, maxdeg) + 1, np.int64)
    cdef int64_t[::1] path = np.empty(n + 2, np.int64)
    cdef double[::1] path_t = np.empty(n + 2, np.float64)
    cdef double[::1] ftime = np.empty(n, np.float64)
    cdef int64_t[::1] fparent = np.empty(n, np.int64)
    cdef int64_t[::1] pos = np.empty(n, np.int64)
    cdef int64_t[::1] mark = np.full(n, -1, np.int64)
    cdef unsigned char[::1] no_spy = np.zeros(1, np.uint8)
    cdef double[::1] ht = np.empty(n, np.float64)
    cdef int64_t[::1] hv = np.empty(n, np.int64)
    cdef int64_t[::1] first = np.full(n, -1, np.int64)  # first stem position of a node, this trial
    with rng.bit_generator.lock, nogil:
        for i in range(trials):
            if not fixed:
                _draw(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, bg,
                      out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work)
            if stem_len != 0:
                L = _walk(sources[i], &r, out_ptr, out, own, in_ptr, in_src, in_to, diffuser,
                          no_spy, bg, mark, i, path, path_t, ends)
                f = ends[1]
            else:  # plain diffusion from the source
                L = 0
                f = sources[i]
                path[0] = f
                path_t[0] = 0.0
                ends[0] = END_FLUFF
            o_reached[i] = _fluff(f, path_t[L], n, indptr, indices, r.scale, bg, pos, ftime,
                                  fparent, ht, hv, &last)
            o_last[i] = last
            o_len[i] = L
            o_fnode[i] = f
            o_ftime[i] = path_t[L]
            o_repeat[i] = ends[0] == END_REPEAT
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
                elif pos[s] == -2 and fparent[s] >= 0:
                    o_time[i, j] = ftime[s]
                    o_sender[i, j] = fparent[s]
                    o_kind[i, j] = FLUFF
                else:
                    o_time[i, j] = INFINITY
                    o_sender[i, j] = -1
                    o_kind[i, j] = -1
            for j in range(1, L + 1):
                first[path[j]] = -1


# ----------------------------------------------------------------- the transaction model


def regular_digraph(int64_t n, int64_t d, object rng):
    """Union of ``d`` uniformly random directed Hamiltonian cycles on ``n`` nodes (CSR)."""
    cdef bitgen_t* bg = bitgen_of(rng)
    indptr_arr = np.empty(n + 1, np.int64)
    out_arr = np.empty(n * d, np.int64)
    cdef int64_t[::1] indptr = indptr_arr, out = out_arr
    cdef int64_t[::1] perm = np.empty(n, np.int64)
    cdef int64_t m
    with rng.bit_generator.lock, nogil:
        m = _cycles(n, d, False, bg, indptr, out, perm)
    return indptr_arr, (out_arr if m == n * d else out_arr[:m].copy())


def _tables(int64_t n, const int64_t[::1] indptr):
    m = indptr[n]
    maxdeg = int(np.diff(indptr).max(initial=0))
    return (np.empty(n + 1, np.int64), np.empty(m, np.int64), np.empty(m, np.int64),
            np.empty(n, np.int64), np.empty(max(n, maxdeg) + 1, np.int64))


def routing_tables(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices, int code,
                   object rng):
    """Per-epoch forwarding tables ``(iptr, iind, table, own)`` of the transaction model."""
    cdef bitgen_t* bg = bitgen_of(rng)
    iptr_a, iind_a, table_a, own_a, work_a = _tables(n, indptr)
    cdef int64_t[::1] iptr = iptr_a, iind = iind_a, table = table_a, own = own_a, work = work_a
    with rng.bit_generator.lock, nogil:
        _forwarding(n, indptr, indices, code, False, bg, own, iptr, iind, table, work)
    return iptr_a, iind_a, table_a, own_a


def stems(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices,
          const unsigned char[::1] spy, int code, double q, int64_t cap, bint escape, object rng,
          int8_t[::1] kind, int64_t[::1] node, int64_t[::1] spy_of, int64_t[::1] hops):
    """Run every honest node's stem; fill the observation arrays (indexed by transaction)."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef bint tables = code != PER_TRANSACTION
    cdef int64_t t = 0, v, h, m = indptr[n], maxdeg = 0, w
    cdef int64_t ends[3]
    cdef int64_t[::1] buf, iptr, iind, table, own, work, mark
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    w = max(n, maxdeg) + 1
    # one buffer for the tables and the marks (per-transaction routing has no tables)
    buf = np.empty((2 * n + 1 + 2 * m if tables else 0) + w + n, np.int64)
    work = buf[:w]
    mark = buf[w : w + n]
    mark[:] = -1
    if tables:
        iptr = buf[w + n : w + 2 * n + 1]
        iind = buf[w + 2 * n + 1 : w + 2 * n + 1 + m]
        table = buf[w + 2 * n + 1 + m : w + 2 * n + 1 + 2 * m]
        own = buf[w + 2 * n + 1 + 2 * m :]
    else:
        iptr = iind = table = own = work
    cdef double[::1] no_time = _NO_TIME
    cdef int8_t[::1] no_roles = _NO_ROLES
    cdef Rules r
    r.routing = code
    r.no_return = False
    r.revisit = ESCAPE if escape else FOLLOW
    r.coin_epoch = False
    r.q = q
    r.scale = 0.0
    r.cap = cap
    r.stop_at_spy = True
    r.record = False
    with rng.bit_generator.lock, nogil:
        if tables:
            _forwarding(n, indptr, indices, code, False, bg, own, iptr, iind, table, work)
        for v in range(n):
            if spy[v]:
                continue
            h = _walk(v, &r, indptr, indices, own, iptr, iind, table, no_roles, spy, bg, mark, v,
                      work, no_time, ends)
            if ends[0] == END_SPY:
                kind[t] = 0
                node[t] = ends[2]
                spy_of[t] = ends[1]
            else:  # fluffed by the coin or the cap at the last node, or stuck there
                kind[t] = 1
                node[t] = ends[1]
                spy_of[t] = -1
            hops[t] = h
            t += 1


_NO_TIME = np.zeros(1, np.float64)  # placeholders of the arrays an untimed walk never reads
_NO_ROLES = np.zeros(1, np.int8)


def diffusion_first_spy(int64_t n, const int64_t[::1] indptr, const int64_t[::1] indices,
                        const unsigned char[::1] spy, object rng, int8_t[::1] kind,
                        int64_t[::1] node, int64_t[::1] spy_of, int64_t[::1] hops):
    """Diffusion from every honest node until the first spy receives it."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef Py_ssize_t m = indices.shape[0]
    cdef int64_t[::1] buf = np.empty(n + 2 * m, np.int64)  # marks, then the edge stack
    cdef int64_t[::1] mark = buf[:n], eu = buf[n : n + m], ew = buf[n + m :]
    cdef int64_t t = 0, v, top, e, infected, i, u, w, x
    mark[:] = -1
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
