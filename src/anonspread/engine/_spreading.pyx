"""The spreading kernels, compiled (see :mod:`anonspread.engine.spreading`).

Every kernel runs one protocol for ``T`` steps on the store from ``source`` (its arguments
those of :func:`run_protocol` that it needs) and returns the number of infected nodes
(``s.order[:n]`` in infection order, their times and parents in ``s.ns``); ``vs_out[t]``
receives the virtual source after step ``t`` (-1 for protocols without one)
and ``sizes_out[t]`` the number of infected nodes after step ``t``. Randomness through the
caller's bit generator (:mod:`._bitgen`: ``uniform`` is ``Generator.random()``, ``randint``
``Generator.integers(0, n)``), draw for draw as the plain reading of each protocol in
``spread.protocols``. Nodes infected during step ``t`` never act before step ``t + 1``.

Kernels need no GIL (the batch drivers release it; a single run holds it); growing a lazy
tree's arrays takes it briefly (``reserve``, ``expand`` in :mod:`._store`), and a kernel
reloads its local pointers after those calls.
"""

import numpy as np

from libc.math cimport INFINITY, exp, expm1, log
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of, randint, uniform
from anonspread.engine._store cimport (
    AUX, CHILD, FLAG, NCOL, PARENT, SIB, TIME, GraphStore, child_key, draw_degree, expand,
    expand_into, reserve, reset_lazy, reset_run_state, store_t, touch,
)


# ---------------------------------------------------------------- scratch


cdef int _grow_i32(int32_t** a, int64_t n) except -1 nogil:
    cdef void* p = realloc(a[0], n * sizeof(int32_t))
    if p == NULL:
        with gil:
            raise MemoryError()
    a[0] = <int32_t*> p
    return 0


cdef int _work_grow(work_t* w, int64_t cap, int64_t buf_cap) except -1 nogil:
    if cap > w.cap:
        _grow_i32(&w.stack, cap)
        _grow_i32(&w.visit, cap)
        w.cap = cap
    if buf_cap > w.buf_cap:
        _grow_i32(&w.buf, buf_cap)
        w.buf_cap = buf_cap
    return 0


cdef int work_init(work_t* w, int64_t cap, int64_t buf_cap) except -1:
    w.stack = NULL
    w.visit = NULL
    w.buf = NULL
    w.cap = 0
    w.buf_cap = 0
    return _work_grow(w, max(cap, 1), max(buf_cap, 1))


cdef void work_free(work_t* w) noexcept nogil:
    free(w.stack)
    free(w.visit)
    free(w.buf)
    w.stack = NULL
    w.visit = NULL
    w.buf = NULL
    w.cap = 0
    w.buf_cap = 0


# ---------------------------------------------------------------- shared steps


cdef inline int64_t _infect(int32_t* ns, int32_t* order, int64_t w, int64_t t, int64_t parent,
                            int64_t n_inf) noexcept nogil:
    ns[w * NCOL + TIME] = <int32_t> t
    ns[w * NCOL + PARENT] = <int32_t> parent
    order[n_inf] = <int32_t> w
    return n_inf + 1


cdef inline void _link_child(int32_t* ns, int64_t parent, int64_t child) noexcept nogil:
    ns[child * NCOL + SIB] = ns[parent * NCOL + CHILD]
    ns[parent * NCOL + CHILD] = <int32_t> child


cdef inline int64_t _start(store_t* s, int64_t source, int64_t T, int32_t* vs_out,
                           int64_t* sizes_out) noexcept nogil:
    cdef int64_t t
    for t in range(T + 1):
        vs_out[t] = -1
        sizes_out[t] = 0
    sizes_out[0] = 1
    return _infect(s.ns, s.order, source, 0, -1, 0)


cdef inline bint _reached(int64_t n_inf, int64_t stop, int64_t t, int64_t T, int32_t* vs_out,
                          int64_t* sizes_out) noexcept nogil:
    """The stopping rule by reach: ``stop > 0`` infected nodes after step ``t`` end the run.

    The snapshot is the state after the first step whose count reaches ``stop`` (every
    node that step infected is kept, so the count can exceed ``stop``); ``vs_out`` and
    ``sizes_out`` keep that state for ``t + 1 .. T`` (nothing spreads after the stop), so
    ``vs_out[T]`` and ``sizes_out[T]`` describe the snapshot.
    """
    cdef int64_t u
    if stop <= 0 or n_inf < stop:
        return False
    for u in range(t + 1, T + 1):
        vs_out[u] = vs_out[t]
        sizes_out[u] = sizes_out[t]
    return True


cdef int64_t vs_hops(const int32_t* ns, int64_t vs) noexcept nogil:
    """Hop count from the source to ``vs`` along infection-tree parents (-1 for none)."""
    cdef int64_t h = 0, x = vs
    if vs < 0:
        return -1
    while ns[x * NCOL + PARENT] >= 0:
        x = ns[x * NCOL + PARENT]
        h += 1
    return h


# ---------------------------------------------------------------- flooding


cdef int64_t _flood_step(store_t* s, int64_t lo, int64_t hi, int64_t t,
                         int64_t n_inf) except -1 nogil:
    cdef int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef int32_t* ns = s.ns
    cdef int32_t* order = s.order
    cdef const int32_t* nbr
    cdef int64_t i, v, j, w
    for i in range(lo, hi):
        v = order[i]
        if start[v] < 0:
            touch(s, v)
        nbr = s.nbr + start[v]
        for j in range(deg[v]):
            w = nbr[j]
            if ns[w * NCOL + TIME] < 0:
                n_inf = _infect(ns, order, w, t, v, n_inf)
    return n_inf


cdef int64_t run_flooding(store_t* s, int64_t source, int64_t T, const double* params,
                          bitgen_t* bg, int32_t* vs_out, int64_t* sizes_out,
                          int64_t stop) except -1 nogil:
    cdef int64_t n_inf = _start(s, source, T, vs_out, sizes_out), lo = 0, hi, t
    if _reached(n_inf, stop, 0, T, vs_out, sizes_out):
        return n_inf
    for t in range(1, T + 1):
        hi = n_inf
        reserve(s, hi - lo)
        n_inf = _flood_step(s, lo, hi, t, n_inf)
        lo = hi
        sizes_out[t] = n_inf
        if _reached(n_inf, stop, t, T, vs_out, sizes_out):
            break
    return n_inf


# ---------------------------------------------------------------- diffusions


cdef int64_t _diffuse_step(store_t* s, int64_t* first, int64_t n_prev, int64_t t, double p,
                           bint distance_rate, bitgen_t* bg, int64_t n_inf) except -1 nogil:
    cdef int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef int32_t* ns = s.ns
    cdef int32_t* order = s.order
    cdef const int32_t* nbr
    cdef bint advancing = True
    cdef int64_t new_first = first[0], i, v, j, w, remaining
    cdef double q
    for i in range(first[0], n_prev):
        v = order[i]
        if ns[v * NCOL + FLAG] == 1:
            if advancing:
                new_first = i + 1
            continue
        if start[v] < 0:
            touch(s, v)
        if distance_rate:
            q = (ns[v * NCOL + AUX] + 1.0) / (t + 1.0)
        else:
            q = p
        nbr = s.nbr + start[v]
        remaining = 0
        for j in range(deg[v]):
            w = nbr[j]
            if ns[w * NCOL + TIME] < 0:
                if uniform(bg) < q:
                    n_inf = _infect(ns, order, w, t, v, n_inf)
                    ns[w * NCOL + AUX] = ns[v * NCOL + AUX] + 1
                else:
                    remaining += 1
        if remaining == 0:
            ns[v * NCOL + FLAG] = 1
            if advancing:
                new_first = i + 1
        else:
            advancing = False
    first[0] = new_first
    return n_inf


cdef int64_t _diffuse(store_t* s, int64_t source, int64_t T, double p, bint distance_rate,
                      bitgen_t* bg, int32_t* vs_out, int64_t* sizes_out,
                      int64_t stop) except -1 nogil:
    """Random diffusion (``distance_rate`` False) or Protocol 1 (True).

    Each boundary node v, acting at step t, infects each of its uninfected neighbours
    independently with probability p (random diffusion) or (dist(v) + 1) / (t + 1)
    (Protocol 1), dist(v) being v's hop count from the source along the infection path.
    Nodes before ``first`` in infection order are all saturated (FLAG = 1) and skipped.
    """
    cdef int64_t n_inf = _start(s, source, T, vs_out, sizes_out), first = 0, n_prev, t
    if _reached(n_inf, stop, 0, T, vs_out, sizes_out):
        return n_inf
    for t in range(1, T + 1):
        n_prev = n_inf
        reserve(s, n_prev - first)
        n_inf = _diffuse_step(s, &first, n_prev, t, p, distance_rate, bg, n_inf)
        sizes_out[t] = n_inf
        if _reached(n_inf, stop, t, T, vs_out, sizes_out):
            break
    return n_inf


# ---------------------------------------------------------------- Protocol 2, printed pseudo-code
# (spread.protocols.TreeProtocolPseudocode; Protocol 2 itself runs the Protocol 3 kernels)


cdef int64_t _tree_step(store_t* s, int64_t n_prev, int64_t t, bitgen_t* bg, int32_t* buf,
                        int64_t n_inf) except -1 nogil:
    cdef int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef int32_t* ns = s.ns
    cdef int32_t* order = s.order
    cdef const int32_t* nbr
    cdef int64_t i, v, j, w, k
    for i in range(1, n_prev):
        v = order[i]
        if ns[v * NCOL + AUX] <= 0:
            continue
        if start[v] < 0:
            touch(s, v)
        nbr = s.nbr + start[v]
        if ns[v * NCOL + FLAG] == 1:
            k = 0
            for j in range(deg[v]):
                w = nbr[j]
                if ns[w * NCOL + TIME] < 0:
                    buf[k] = <int32_t> w
                    k += 1
            if k > 0:
                w = buf[randint(bg, k)]
                n_inf = _infect(ns, order, w, t, v, n_inf)
                ns[w * NCOL + FLAG] = 1
                ns[w * NCOL + AUX] = ns[v * NCOL + AUX] + 1
            ns[v * NCOL + FLAG] = 0
        else:
            for j in range(deg[v]):
                w = nbr[j]
                if ns[w * NCOL + TIME] < 0:
                    n_inf = _infect(ns, order, w, t, v, n_inf)
                    ns[w * NCOL + FLAG] = 0
                    ns[w * NCOL + AUX] = ns[v * NCOL + AUX] - 1
            ns[v * NCOL + AUX] = 0
    return n_inf


cdef int64_t run_tree_protocol(store_t* s, work_t* wk, int64_t source, int64_t T,
                               bitgen_t* bg, int32_t* vs_out, int64_t* sizes_out,
                               int64_t stop) except -1 nogil:
    """The printed pseudo-code of Protocol 2 (thesis §2.2.2), read literally; s1 lives in
    FLAG and s2 in AUX. Not Protocol 2 itself (see ``spread.protocols.TreeProtocolPseudocode``)."""
    cdef int64_t n_inf = _start(s, source, T, vs_out, sizes_out), t, u, n_prev
    if T == 0 or _reached(n_inf, stop, 0, T, vs_out, sizes_out):
        return n_inf
    expand(s, source)
    if s.deg[source] == 0:
        for t in range(1, T + 1):
            sizes_out[t] = n_inf
        return n_inf
    u = s.nbr[s.start[source] + randint(bg, s.deg[source])]
    n_inf = _infect(s.ns, s.order, u, 1, source, n_inf)
    s.ns[u * NCOL + FLAG] = 1
    s.ns[u * NCOL + AUX] = 1
    sizes_out[1] = n_inf
    if _reached(n_inf, stop, 1, T, vs_out, sizes_out):
        return n_inf
    _work_grow(wk, 0, max(s.maxdeg, 1))
    for t in range(2, T + 1):
        n_prev = n_inf
        reserve(s, n_prev)
        n_inf = _tree_step(s, n_prev, t, bg, wk.buf, n_inf)
        sizes_out[t] = n_inf
        if _reached(n_inf, stop, t, T, vs_out, sizes_out):
            break
    return n_inf


# ---------------------------------------------------------------- Protocol 3: relay path


cdef inline double alpha_value(double d, int64_t t, int64_t h) noexcept nogil:
    """``alpha_d(t, h)`` of Eq. 2.13 (see ``spread.protocols.alpha``): no power overflows."""
    cdef double lb
    cdef int64_t a, c
    if d == INFINITY:
        return 0.0
    if d == 2.0:
        return <double> (t - 2 * h + 2) / <double> (t + 2)
    lb = log(d - 1.0)
    a = t // 2 - h + 1
    c = t // 2 + 1
    return exp(<double> (-h) * lb) * expm1(<double> (-a) * lb) / expm1(<double> (-c) * lb)


cdef inline int64_t _choose(int32_t* buf, int64_t k, int64_t cap, bitgen_t* bg) noexcept nogil:
    """A uniform ``cap``-subset of ``buf[:k]`` (``k > cap``) moved to its front by a partial
    Fisher-Yates shuffle; returns ``cap``."""
    cdef int64_t j, r
    cdef int32_t tmp
    for j in range(cap):
        r = j + randint(bg, k - j)
        tmp = buf[j]
        buf[j] = buf[r]
        buf[r] = tmp
    return cap


cdef inline int32_t _graph_relay_stamp(int32_t* ns, int64_t x0, int64_t exclude,
                                       int64_t t) noexcept nogil:
    """The graph relay's FLAG stamp of step ``t``, set on ``x0`` and on ``exclude`` (when a
    node) so that the message never enters either again."""
    cdef int32_t stamp = <int32_t> (-(t + 2))
    if exclude >= 0:
        ns[exclude * NCOL + FLAG] = stamp
    ns[x0 * NCOL + FLAG] = stamp
    return stamp


cdef inline int64_t _push_tree_neighbours(int32_t* ns, int64_t x, int32_t* stack,
                                          int64_t top) noexcept nogil:
    """Push the infection-tree neighbours of ``x`` but the one the message came from (its
    FLAG), each marked as reached from ``x``; the stack's new top."""
    cdef int64_t came = ns[x * NCOL + FLAG], p = ns[x * NCOL + PARENT], c
    if p >= 0 and p != came:
        ns[p * NCOL + FLAG] = <int32_t> x
        stack[top] = <int32_t> p
        top += 1
    c = ns[x * NCOL + CHILD]
    while c >= 0:
        if c != came:
            ns[c * NCOL + FLAG] = <int32_t> x
            stack[top] = <int32_t> c
            top += 1
        c = ns[c * NCOL + SIB]
    return top


cdef int64_t _relay_collect(store_t* s, int64_t x0, int64_t exclude, int64_t t,
                            bint graph_relay, int32_t* stack, int32_t* visit) noexcept nogil:
    """The nodes an Infection Message sent by ``x0`` away from ``exclude`` reaches.

    Tree relay: along infection-tree edges, never back where it came from (FLAG holds
    where each node was reached from). Graph relay: forwarded once to every infected
    contact infected before step ``t``, never entering ``exclude`` (FLAG holds a stamp).
    """
    cdef const int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef const int32_t* nbr = s.nbr
    cdef int32_t* ns = s.ns
    cdef int64_t top = 0, nvis = 0, x, j, w, st
    cdef int32_t stamp
    stack[top] = <int32_t> x0
    top += 1
    if graph_relay:
        stamp = _graph_relay_stamp(ns, x0, exclude, t)
        while top > 0:
            top -= 1
            x = stack[top]
            visit[nvis] = <int32_t> x
            nvis += 1
            st = start[x]
            for j in range(deg[x]):
                w = nbr[st + j]
                if (ns[w * NCOL + TIME] >= 0 and ns[w * NCOL + TIME] < t
                        and ns[w * NCOL + FLAG] != stamp):
                    ns[w * NCOL + FLAG] = stamp
                    stack[top] = <int32_t> w
                    top += 1
    else:
        ns[x0 * NCOL + FLAG] = <int32_t> exclude
        while top > 0:
            top -= 1
            x = stack[top]
            visit[nvis] = <int32_t> x
            nvis += 1
            top = _push_tree_neighbours(ns, x, stack, top)
    return nvis


cdef int64_t _relay_infect_reference(store_t* s, const int32_t* visit, int64_t nvis,
                                     int64_t t, int64_t cap, bint leaves_only, bitgen_t* bg,
                                     int32_t* buf, int64_t n_inf) except -1 nogil:
    """Every reached node infects its uninfected contacts (a uniform ``cap``-subset); with
    ``leaves_only`` only the reached nodes without infection-tree children do. Each reached
    node scans all its contacts: :func:`_infect_from` without its shortcuts, kept for the
    tests that compare the two (``AD_REFERENCE_RELAY``)."""
    cdef int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef int32_t* ns = s.ns
    cdef int32_t* order = s.order
    cdef const int32_t* nbr
    cdef int64_t i, x, j, w, k
    for i in range(nvis):
        x = visit[i]
        if leaves_only and ns[x * NCOL + CHILD] >= 0:
            continue
        if start[x] < 0:
            touch(s, x)
        nbr = s.nbr + start[x]
        k = 0
        for j in range(deg[x]):
            w = nbr[j]
            if ns[w * NCOL + TIME] < 0:
                buf[k] = <int32_t> w
                k += 1
        if cap >= 0 and k > cap:
            k = _choose(buf, k, cap, bg)
        for j in range(k):
            w = buf[j]
            n_inf = _infect(ns, order, w, t, x, n_inf)
            _link_child(ns, x, w)
    return n_inf


cdef inline int64_t _infect_from(store_t* s, int64_t x, int64_t t, int64_t cap,
                                 bint leaves_only, bitgen_t* bg, int32_t* buf, int64_t n_inf,
                                 int64_t* n_dead) except -1 nogil:
    """Reached node ``x`` infects its uninfected contacts (a uniform ``cap``-subset); with
    ``leaves_only`` only if it has no infection-tree child.

    The same infections, in the same order, with the same draws as one node of
    :func:`_relay_infect_reference`, skipping scans that cannot find anything: an infected
    node's AUX counts leading slots of its contact list known to hold infected nodes (a
    node never becomes uninfected again during a run), so a scan starts after them; AUX =
    its degree marks a node that can never infect again (no uninfected contact left, or,
    with ``leaves_only``, it has infected: it has a child for good), counted in
    ``n_dead[0]``. The contacts found are buffered as before (a multigraph's repeated
    contact is infected once per slot, as there), then drawn from.
    """
    cdef int32_t* ns = s.ns
    cdef const int32_t* nbr
    cdef int64_t j, w, k, lo, d, pre
    cdef uint32_t u
    if leaves_only and ns[x * NCOL + CHILD] >= 0:
        return n_inf
    if s.start[x] < 0:
        touch(s, x)
    lo = ns[x * NCOL + AUX]
    d = s.deg[x]
    if lo >= d:
        return n_inf
    nbr = s.nbr + s.start[x]
    k = 0
    pre = 0
    for j in range(lo, d):  # without a branch: buf has room for deg[x] entries
        w = nbr[j]
        u = (<uint32_t> ns[w * NCOL + TIME]) >> 31  # 1: uninfected
        buf[k] = <int32_t> w
        pre += (k == 0) & (u ^ 1)  # infected slots before the first uninfected one
        k += u
    lo += pre
    if cap >= 0 and k > cap:
        k = _choose(buf, k, cap, bg)
    else:
        lo = d  # every uninfected contact is infected now
    if leaves_only:
        lo = d  # it infects now (or has no one left): never again
    ns[x * NCOL + AUX] = <int32_t> lo
    if lo >= d:
        n_dead[0] += 1
    for j in range(k):
        w = buf[j]
        n_inf = _infect(ns, s.order, w, t, x, n_inf)
        _link_child(ns, x, w)
        ns[w * NCOL + AUX] = 0
    return n_inf


cdef int64_t _relay_walk(store_t* s, int64_t x0, int64_t exclude, int64_t t, bint graph_relay,
                         int32_t* stack, int64_t cap, bint leaves_only, bitgen_t* bg,
                         int32_t* buf, int64_t n_inf, int64_t* n_dead) except -1 nogil:
    """:func:`_relay_collect` then :func:`_infect_from` on every reached node in the
    order reached, in one pass on a finite graph: each node infects once the message has
    left it. The walk is the same as collecting first: the nodes infected meanwhile are
    never entered (infected at step ``t``, not before it, for the graph relay; for the tree
    relay, each is linked as a child of a node whose children were already pushed)."""
    cdef const int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef const int32_t* nbr = s.nbr
    cdef int32_t* ns = s.ns
    cdef int64_t top = 0, x, j, w, st, tw
    cdef int32_t stamp, fw, go
    stack[top] = <int32_t> x0
    top += 1
    if graph_relay:
        stamp = _graph_relay_stamp(ns, x0, exclude, t)
        while top > 0:
            top -= 1
            x = stack[top]
            st = start[x]
            for j in range(deg[x]):  # without a branch: the stack has room for one more
                w = nbr[st + j]
                tw = ns[w * NCOL + TIME]
                fw = ns[w * NCOL + FLAG]
                go = (tw >= 0) & (tw < t) & (fw != stamp)
                ns[w * NCOL + FLAG] = fw ^ ((fw ^ stamp) & (-go))  # stamp if go else fw
                stack[top] = <int32_t> w
                top += go
            n_inf = _infect_from(s, x, t, cap, leaves_only, bg, buf, n_inf, n_dead)
    else:
        ns[x0 * NCOL + FLAG] = <int32_t> exclude
        while top > 0:
            top -= 1
            x = stack[top]
            top = _push_tree_neighbours(ns, x, stack, top)
            n_inf = _infect_from(s, x, t, cap, leaves_only, bg, buf, n_inf, n_dead)
    return n_inf


cdef int64_t _relay(store_t* s, work_t* wk, int64_t x0, int64_t exclude, int64_t t,
                    int64_t cap, bint graph_relay, bint leaves_only, bitgen_t* bg,
                    int64_t n_inf, int64_t* n_dead) except -1 nogil:
    """Protocol 3's Infection Message procedure (thesis Protocol 3, lines 22-27).

    ``n_dead`` NULL: the reference path (collect the reached nodes, then each scans all
    its contacts). Else the count of infected nodes that can never infect again (see
    :func:`_infect_from`): when it is every infected node, the message changes nothing
    and draws nothing, and is not relayed (its only trace would be the FLAG scratch
    column); on a finite graph the message is relayed and acted on in one pass
    (:func:`_relay_walk`); on a lazily grown tree the reached nodes are collected first,
    to make room for expanding them.
    """
    cdef int64_t nvis, i
    if n_dead != NULL and n_dead[0] >= n_inf:
        return n_inf
    if wk.cap < n_inf + 1:
        _work_grow(wk, 2 * (n_inf + 1), 0)
    if n_dead != NULL and not s.lazy:
        return _relay_walk(s, x0, exclude, t, graph_relay, wk.stack, cap, leaves_only, bg,
                           wk.buf, n_inf, n_dead)
    nvis = _relay_collect(s, x0, exclude, t, graph_relay, wk.stack, wk.visit)
    reserve(s, nvis)
    if n_dead == NULL:
        return _relay_infect_reference(s, wk.visit, nvis, t, cap, leaves_only, bg, wk.buf,
                                       n_inf)
    for i in range(nvis):
        n_inf = _infect_from(s, wk.visit[i], t, cap, leaves_only, bg, wk.buf, n_inf, n_dead)
    return n_inf


cdef int64_t _stuck_pass_move(const int32_t* ns, int64_t vs, int64_t came, bitgen_t* bg,
                              int64_t* node) noexcept nogil:
    """The authors' move: a uniform infection-tree neighbour of ``vs`` other than ``came``.

    Returns 0 for a move to ``node[0]``; 1 when ``came`` is the only tree neighbour (stuck:
    the token goes back, ``node[0] = came``); -1 when ``vs`` has none.
    """
    cdef int64_t p = ns[vs * NCOL + PARENT], k = 0, c, r
    if p >= 0 and p != came:
        k += 1
    c = ns[vs * NCOL + CHILD]
    while c >= 0:
        if c != came:
            k += 1
        c = ns[c * NCOL + SIB]
    if k == 0:
        if came >= 0 and (p == came or ns[came * NCOL + PARENT] == vs):
            node[0] = came
            return 1
        node[0] = -1
        return -1
    r = randint(bg, k)
    if p >= 0 and p != came:
        if r == 0:
            node[0] = p
            return 0
        r -= 1
    c = ns[vs * NCOL + CHILD]
    while c >= 0:
        if c != came:
            if r == 0:
                node[0] = c
                return 0
            r -= 1
        c = ns[c * NCOL + SIB]
    node[0] = -1
    return -1


cdef int64_t run_adaptive_diffusion_relay(store_t* s, work_t* wk, int64_t source, int64_t T,
                                          const double* params, bitgen_t* bg, int32_t* vs_out,
                                          int64_t* sizes_out, int64_t stop=0) except -1 nogil:
    """Protocol 3 (thesis §2.3, §2.4.2) by relaying infection messages.

    ``params = [cap, maxdeg, flags, d0]``; the virtual source keeps the token at
    even time ``t`` when it is ``h`` hops from the source with probability
    ``alpha_value(d0, t, h)`` (Eq. 2.13); ``flags`` is ``graph_relay + 2 * leaves_only
    + 8 * stuck_pass`` (see ``AdaptiveDiffusion.relay``, ``.infectors`` and ``.stuck``),
    plus ``AD_REFERENCE_RELAY`` for the tests that compare the relay with its reference
    (:func:`_relay`). The AUX column of the infected nodes is the relay's scratch
    (:func:`_infect_from`).

    ``stuck_pass`` is the rule of the authors' code (``infect_nodes_adaptive_diff``): a
    moving token goes to a uniform infection-tree neighbour other than the node it came
    from; a virtual source whose only tree neighbour is that node sends two rounds of
    infection messages to it and passes the token back (the hop counter unchanged, as
    theirs). Without it, the token moves to a uniform child and a dead end keeps it.
    """
    cdef int64_t cap = <int64_t> params[0], maxdeg = <int64_t> params[1]
    cdef int64_t flags = <int64_t> params[2]
    cdef double d0 = params[3]
    # on lazily grown trees both relays are the same; the tree relay needs no expansion
    cdef bint graph_relay = (flags & AD_GRAPH_RELAY) != 0 and not s.lazy
    cdef bint leaves_only = (flags & AD_LEAVES_ONLY) != 0
    cdef bint stuck_pass = (flags & AD_STUCK_PASS) != 0
    cdef int64_t n_inf = _start(s, source, T, vs_out, sizes_out), t, u, vs, from_vs, h, k, r
    cdef int64_t c, kind, nxt, back, dt, q
    cdef bint keep
    # infected nodes that can never infect again (see _relay_infect; NULL: the reference)
    cdef int64_t dead = 0
    cdef int64_t* n_dead = NULL if (flags & AD_REFERENCE_RELAY) != 0 else &dead
    s.ns[source * NCOL + AUX] = 0
    vs_out[0] = <int32_t> source
    if T == 0 or _reached(n_inf, stop, 0, T, vs_out, sizes_out):
        return n_inf
    expand(s, source)
    if s.deg[source] == 0:
        for t in range(1, T + 1):
            vs_out[t] = <int32_t> source
            sizes_out[t] = n_inf
        return n_inf
    u = s.nbr[s.start[source] + randint(bg, s.deg[source])]
    n_inf = _infect(s.ns, s.order, u, 1, source, n_inf)
    _link_child(s.ns, source, u)
    s.ns[u * NCOL + AUX] = 0
    if leaves_only:  # the source has infected: it never infects again
        s.ns[source * NCOL + AUX] = s.deg[source]
        dead = 1
    vs = u
    from_vs = source
    h = 1
    vs_out[1] = <int32_t> vs
    sizes_out[1] = n_inf
    if _reached(n_inf, stop, 1, T, vs_out, sizes_out):
        return n_inf
    _work_grow(wk, 0, max(maxdeg, max(s.maxdeg, 1)))
    if T >= 2:
        n_inf = _relay(s, wk, vs, from_vs, 2, cap, graph_relay, leaves_only, bg, n_inf, n_dead)
        vs_out[2] = <int32_t> vs
        sizes_out[2] = n_inf
        if _reached(n_inf, stop, 2, T, vs_out, sizes_out):
            return n_inf
    t = 3
    while t <= T:
        keep = uniform(bg) < alpha_value(d0, t - 1, h)
        if not keep and stuck_pass:
            kind = _stuck_pass_move(s.ns, vs, from_vs, bg, &nxt)
            if kind == 1:  # stuck: two rounds towards the one tree neighbour, token follows
                back = nxt
                for dt in range(2):
                    if t + dt <= T:
                        n_inf = _relay(s, wk, back, vs, t + dt, cap, graph_relay, leaves_only,
                                       bg, n_inf, n_dead)
                        vs_out[t + dt] = <int32_t> back
                        sizes_out[t + dt] = n_inf
                        if _reached(n_inf, stop, t + dt, T, vs_out, sizes_out):
                            return n_inf
                from_vs = vs
                vs = back
                t += 2
                continue
            if kind == 0:
                from_vs = vs
                vs = nxt
                h += 1
            else:
                keep = True  # no tree neighbour at all: the token stays
        elif not keep:
            k = 0
            c = s.ns[vs * NCOL + CHILD]
            while c >= 0:
                k += 1
                c = s.ns[c * NCOL + SIB]
            if k == 0:
                keep = True  # a dead end (possible only on finite graphs): the token stays
            else:
                r = randint(bg, k)
                c = s.ns[vs * NCOL + CHILD]
                for q in range(r):
                    c = s.ns[c * NCOL + SIB]
                from_vs = vs
                vs = c
                h += 1
        if keep:
            n_inf = _relay(s, wk, vs, -1, t, cap, graph_relay, leaves_only, bg, n_inf, n_dead)
            vs_out[t] = <int32_t> vs
            sizes_out[t] = n_inf
            if _reached(n_inf, stop, t, T, vs_out, sizes_out):
                return n_inf
            if t + 1 <= T:
                vs_out[t + 1] = <int32_t> vs
                sizes_out[t + 1] = n_inf
        else:
            n_inf = _relay(s, wk, vs, from_vs, t, cap, graph_relay, leaves_only, bg, n_inf, n_dead)
            vs_out[t] = <int32_t> vs
            sizes_out[t] = n_inf
            if _reached(n_inf, stop, t, T, vs_out, sizes_out):
                return n_inf
            if t + 1 <= T:
                n_inf = _relay(s, wk, vs, from_vs, t + 1, cap, graph_relay, leaves_only, bg,
                               n_inf, n_dead)
                vs_out[t + 1] = <int32_t> vs
                sizes_out[t + 1] = n_inf
                if _reached(n_inf, stop, t + 1, T, vs_out, sizes_out):
                    return n_inf
        t += 2
    return n_inf


# ---------------------------------------------------------------- Protocol 3: closed-form tree path


cdef inline int64_t _iabs(int64_t x) noexcept nogil:
    return -x if x < 0 else x


cdef inline bint _ad_member(int64_t t, int64_t j, int64_t a, const int64_t* hidx) noexcept nogil:
    """Is the node at hop offset ``a`` from virtual-source path index ``j`` infected at t?

    On a tree the infected set at even t is the ball of radius t/2 around the virtual
    source path[hidx[t]]; an odd t adds one level, everywhere (the token stayed) or only
    beyond the new virtual source (it passed: hidx[t] > hidx[t - 1]). ``a + |i - j|`` is
    the distance to path[i].
    """
    cdef int64_t k
    if t == 0:
        return j == 0 and a == 0
    if t == 1:
        return j <= 1 and a == 0
    k = hidx[t]
    if t % 2 == 0:
        return a + _iabs(k - j) <= t // 2
    if k == hidx[t - 1]:
        return a + _iabs(k - j) <= (t + 1) // 2
    if a + _iabs(k - 1 - j) <= (t - 1) // 2:
        return True
    return j >= k and a + (j - k) <= (t - 1) // 2


cdef inline int64_t _ad_first_time(int64_t t, int64_t j, int64_t a, const int64_t* hidx,
                                   int64_t T) noexcept nogil:
    """The first step >= t at which the node at (j, a) is infected (membership is monotone
    in t; a child is infected after its parent, so callers start at the parent's step + 1)."""
    while t < T and not _ad_member(t, j, a, hidx):
        t += 1
    return t


cdef void _ad_tree_bfs(store_t* s, int64_t* head_io, int64_t* tail_io, int64_t H,
                       const int32_t* path, const int64_t* hidx, int64_t T,
                       int64_t dm) noexcept nogil:
    """Visit the infected set breadth-first from the queue ``order[head:tail]``.

    Leaves ``head == tail`` when done, else the next level might not fit in the store (the
    caller grows it and calls again). A queued node's path index j and hop offset a live
    in its AUX and FLAG columns. A node is expanded (its children created) only when one
    of them is infected by time T, so the tree beyond the final boundary is never
    materialised.
    """
    cdef int64_t* start = s.start
    cdef const int32_t* deg = s.deg
    cdef int32_t* ns = s.ns
    cdef int32_t* order = s.order
    cdef const int32_t* nbr
    cdef int64_t head = head_io[0], tail = tail_io[0], m, end, q, x, jx, ax, px, tx, jj, w
    cdef int64_t jw, aw
    cdef bint on_path
    while head < tail:
        m = (tail - head) * dm
        if s.n_nodes + m > s.cap_nodes or s.n_nbr + m > s.cap_nbr:
            break
        end = tail
        for q in range(head, tail):
            x = order[q]
            jx = ns[x * NCOL + AUX]
            ax = ns[x * NCOL + FLAG]
            on_path = ax == 0 and jx < H
            if not on_path and not _ad_member(T, jx, ax + 1, hidx):
                continue  # a leaf of the infected set: no child is ever infected
            if start[x] < 0:
                expand_into(s, x)
            px = ns[x * NCOL + PARENT]
            tx = ns[x * NCOL + TIME]
            nbr = s.nbr + start[x]
            for jj in range(deg[x]):
                w = nbr[jj]
                if w == px:
                    continue
                if on_path and w == path[jx + 1]:
                    jw = jx + 1
                    aw = 0
                else:
                    jw = jx
                    aw = ax + 1
                    if not _ad_member(T, jw, aw, hidx):
                        continue
                ns[w * NCOL + TIME] = <int32_t> _ad_first_time(tx + 1, jw, aw, hidx, T)
                ns[w * NCOL + PARENT] = <int32_t> x
                ns[w * NCOL + AUX] = <int32_t> jw
                ns[w * NCOL + FLAG] = <int32_t> aw
                _link_child(ns, x, w)
                order[end] = <int32_t> w
                end += 1
        head = tail
        tail = end
    head_io[0] = head
    tail_io[0] = tail


cdef bint _ad_tree_counts(store_t* s, int64_t T, int64_t H, const int32_t* path,
                          const int64_t* hidx, int64_t dm) noexcept nogil:
    """Infected nodes per infection step, counted without materialising the ball.

    ``start[n_nodes + t]`` (t <= T) receives the number of nodes infected at step t. The
    virtual source path must start at the tree's root and every path node must be
    expanded, so that the other neighbours of path[j] are its children: the off-path
    branches, each a subtree cut at the depth ``amax(j)`` given by ``_ad_member``. On a
    regular tree a branch has ``(d - 1)**(a - 1)`` nodes at depth a; otherwise the branch
    is walked depth-first over position keys, drawing the degree of each node with a child
    in the ball (the same keys and draws as ``expand_into``: the same realisation). Scratch
    space: the unused tail of ``start`` (those counts, per-depth counts, stack depths) and
    of ``key`` (the stack). Returns False, doing nothing, when that tail is too short.
    """
    cdef int64_t* start = s.start
    cdef uint64_t* key = s.key
    cdef int64_t m0 = s.n_nodes, nd = s.ndv
    cdef int64_t hist, lev, sdep, stk, t, tj, j, amax, a, v, prev, nxt, st, i, w, nbranch, sp
    cdef int64_t m, c, width, ta
    cdef uint64_t kn
    if m0 + T * dm + 2 * T + 4 > s.cap_nodes:
        return False
    hist = m0  # start[hist + t]: nodes infected at step t
    lev = m0 + T + 1  # start[lev + a]: nodes at depth a below path[j], a = 1..amax
    sdep = m0 + 2 * T + 2  # start[sdep + i]: depth of the stack's i-th node
    stk = m0  # key[stk + i]: the stack's i-th node
    for t in range(T + 1):
        start[hist + t] = 0
    tj = 0
    for j in range(H + 1):
        if j > 0:
            tj = _ad_first_time(tj + 1, j, 0, hidx, T)
        start[hist + tj] += 1
        amax = 0
        while amax < T and _ad_member(T, j, amax + 1, hidx):
            amax += 1
        if amax == 0:
            continue
        for a in range(1, amax + 1):
            start[lev + a] = 0
        v = path[j]
        prev = path[j - 1] if j > 0 else -1
        nxt = path[j + 1] if j < H else -1
        st = start[v]
        nbranch = 0
        for i in range(s.deg[v]):
            w = s.nbr[st + i]
            if w == prev or w == nxt:
                continue
            nbranch += 1
            if nd > 1 and amax >= 2:
                key[stk] = key[w]
                start[sdep] = 1
                sp = 1
                while sp > 0:
                    sp -= 1
                    kn = key[stk + sp]
                    a = start[sdep + sp]
                    m = draw_degree(kn, s) - 1
                    if m <= 0:
                        continue
                    start[lev + a + 1] += m
                    if a + 1 < amax:
                        for c in range(m):
                            key[stk + sp] = child_key(kn, c)
                            start[sdep + sp] = a + 1
                            sp += 1
        start[lev + 1] += nbranch
        if nd == 1:
            width = nbranch
            for a in range(2, amax + 1):
                width *= s.dvals[0] - 1
                start[lev + a] += width
        ta = tj
        for a in range(1, amax + 1):
            ta = _ad_first_time(ta + 1, j, a, hidx, T)
            start[hist + ta] += start[lev + a]
    return True


cdef void _sort_by_time(int32_t* ns, int32_t* order, int64_t n, int64_t T,
                        int64_t* sizes_out) noexcept nogil:
    """Stable counting sort of ``order[:n]`` by infection time, in place.

    Each node's target position goes into its AUX column, then the permutation is
    applied by following its cycles; ``sizes_out[t]`` ends as the number of nodes
    infected by step t.
    """
    cdef int64_t t, i, acc = 0, c, x, y, target
    for t in range(T + 1):
        sizes_out[t] = 0
    for i in range(n):
        sizes_out[ns[order[i] * NCOL + TIME]] += 1
    for t in range(T + 1):  # sizes_out[t] becomes the first position of time t
        c = sizes_out[t]
        sizes_out[t] = acc
        acc += c
    for i in range(n):
        x = order[i]
        t = ns[x * NCOL + TIME]
        ns[x * NCOL + AUX] = <int32_t> sizes_out[t]
        sizes_out[t] += 1  # ends as the first position after time t
    for i in range(n):
        x = order[i]
        target = ns[x * NCOL + AUX]
        while target != i:
            y = order[target]
            order[target] = <int32_t> x
            x = y
            target = ns[x * NCOL + AUX]
        order[i] = <int32_t> x


cdef int64_t _ad_walk(store_t* s, int64_t source, int64_t T, double d0, bitgen_t* bg,
                      int32_t* path, int64_t* hidx) except -1 nogil:
    """The token's walk: ``path[:H + 1]`` and ``hidx[t]``, the path index of the virtual
    source after step t; returns H. The coin flips and moves are drawn exactly as in the
    relay path. Expands the path nodes it leaves (room made by the caller)."""
    cdef int64_t H = 0, t, v, k, r, st, j, w
    cdef bint keep
    path[0] = <int32_t> source
    hidx[0] = 0
    if T >= 1:
        if s.start[source] < 0:
            touch(s, source)
        if s.deg[source] > 0:
            H = 1
            path[1] = s.nbr[s.start[source] + randint(bg, s.deg[source])]
    for t in range(1, min(T, 2) + 1):
        hidx[t] = H
    t = 3
    while t <= T:
        keep = uniform(bg) < alpha_value(d0, t - 1, H)
        if not keep:
            v = path[H]
            if s.start[v] < 0:
                touch(s, v)
            k = s.deg[v] - 1
            if k > 0:
                # the relay path lists v's children newest first: the r-th is the
                # (k-1-r)-th neighbour other than the previous virtual source
                r = k - 1 - randint(bg, k)
                st = s.start[v]
                for j in range(s.deg[v]):
                    w = s.nbr[st + j]
                    if w == path[H - 1]:
                        continue
                    if r == 0:
                        path[H + 1] = <int32_t> w
                        break
                    r -= 1
                H += 1
        hidx[t] = H
        if t + 1 <= T:
            hidx[t + 1] = H
        t += 2
    return H


cdef inline int64_t _max_value(const store_t* s) noexcept nogil:
    return max(s.dmax, 1)


cdef inline bint _ad_summary_room(const store_t* s, int64_t T, int64_t dm) noexcept nogil:
    """Room for :func:`_ad_tree_summary`: the walk's expansions (T // 2 + 1) and path[H]'s,
    and the scratch space of ``_ad_tree_counts`` beyond them."""
    cdef int64_t m = (T // 2 + 2) * dm
    return s.n_nodes + m + T * dm + 2 * T + 4 <= s.cap_nodes and s.n_nbr + m <= s.cap_nbr


cdef int64_t _ad_tree_summary(store_t* s, int64_t source, int64_t T, double d0, bitgen_t* bg,
                              int32_t* vs_out, int64_t* sizes_out, int64_t dm) except -1 nogil:
    """Protocol 3 on a tree, counted, not created; returns N_T (see ``AD_SUMMARY_ONLY``).

    The walk of :func:`run_adaptive_diffusion_tree`, then ``_ad_tree_counts``: fills
    ``sizes_out`` and ``vs_out`` and links the path nodes to their parents (for
    ``vs_hops``); ``order`` does not list the infected nodes. Needs the source at the
    tree's root and the room checked by :func:`_ad_summary_room`.
    """
    cdef int32_t* path = vs_out
    cdef int64_t* hidx = sizes_out
    cdef int64_t H = _ad_walk(s, source, T, d0, bg, path, hidx), t, v, j, n
    s.ns[source * NCOL + TIME] = 0
    if T >= 1 and H == 0:  # an isolated source: nothing ever spreads
        for t in range(T + 1):
            vs_out[t] = <int32_t> source
            sizes_out[t] = 1
        return 1
    v = path[H]
    if s.start[v] < 0:
        touch(s, v)
    for j in range(1, H + 1):
        s.ns[path[j] * NCOL + PARENT] = path[j - 1]
    if not _ad_tree_counts(s, T, H, path, hidx, dm):
        with gil:
            raise RuntimeError("anonspread internal error: _ad_tree_summary without room")
    for t in range(T, -1, -1):
        vs_out[t] = path[hidx[t]]
    n = 0
    for t in range(T + 1):
        n += s.start[s.n_nodes + t]
        sizes_out[t] = n
    return n


cdef int64_t run_adaptive_diffusion_tree(store_t* s, int64_t source, int64_t T,
                                         const double* params, bitgen_t* bg, int32_t* vs_out,
                                         int64_t* sizes_out) except -1 nogil:
    """Protocol 3 on a tree without cap, in one pass over the final infected set.

    The coin flips and token moves are drawn exactly as in the relay path (``_ad_walk``);
    then every node's infection time follows from its distance to the virtual-source path
    (see ``_ad_member``) and its parent is its neighbour towards the source, so each
    infected node is visited once instead of once per relay, and only infected nodes with
    an infected child are expanded. (With the ``AD_SUMMARY_ONLY`` flag, the batch driver
    counts the ball instead, :func:`run_summary`, when the store has room; this path then
    makes that room for the next trials.)

    Allocates nothing: while the token walks, ``vs_out[:H + 1]`` holds the virtual-source
    path and ``sizes_out[t]`` the path index of the virtual source after step t; the
    breadth-first queue is ``order`` (see ``_ad_tree_bfs``).
    """
    cdef int32_t* path = vs_out
    cdef int64_t* hidx = sizes_out
    cdef int64_t dm = _max_value(s), walk = T // 2 + 1, H, t, head, tail
    if (<int64_t> params[2] & AD_SUMMARY_ONLY) != 0:
        walk += 1 + T + (2 * T + 4) // dm + 1  # room for the counting path's next trials
    if s.n_nodes + walk * dm > s.cap_nodes or s.n_nbr + walk * dm > s.cap_nbr:
        reserve(s, walk)
    H = _ad_walk(s, source, T, params[3], bg, path, hidx)
    s.ns[source * NCOL + TIME] = 0
    s.ns[source * NCOL + PARENT] = -1
    s.order[0] = <int32_t> source
    if T >= 1 and H == 0:  # an isolated source: nothing ever spreads
        for t in range(T + 1):
            vs_out[t] = <int32_t> source
            sizes_out[t] = 1
        return 1
    s.ns[source * NCOL + AUX] = 0
    s.ns[source * NCOL + FLAG] = 0
    head = 0
    tail = 1
    while True:
        _ad_tree_bfs(s, &head, &tail, H, path, hidx, T, dm)
        if head == tail:
            break
        reserve(s, tail - head)
    # the virtual source after step t is path[hidx[t]], hidx[t] <= t: fill from the end
    for t in range(T, -1, -1):
        vs_out[t] = path[hidx[t]]
    _sort_by_time(s.ns, s.order, tail, T, sizes_out)
    return tail


cdef inline bint _ad_closed_form(const store_t* s, const double* params) noexcept nogil:
    """Does adaptive diffusion take the closed-form tree path: a lazily grown (infinite)
    tree, no cap on infections, every infected node infects?"""
    return s.lazy and params[0] < 0 and (<int64_t> params[2] & AD_LEAVES_ONLY) == 0


# ---------------------------------------------------------------- dispatch and drivers


cdef int64_t run_protocol(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                          const double* params, bitgen_t* bg, int32_t* vs_out,
                          int64_t* sizes_out) except -1 nogil:
    """Run the kernel of protocol ``code`` (``Protocol.kernel_code``) once."""
    return run_protocol_until(code, s, w, source, T, params, bg, vs_out, sizes_out, 0)


cdef int64_t run_protocol_until(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                                const double* params, bitgen_t* bg, int32_t* vs_out,
                                int64_t* sizes_out, int64_t stop) except -1 nogil:
    """:func:`run_protocol` that also ends after the first step with ``stop`` or more
    infected nodes (``stop <= 0``: run all ``T`` steps; see ``_reached``)."""
    if code == ADAPTIVE_DIFFUSION:
        # the closed-form tree path on infinite trees without a cap, else the relay path
        # (both consume the stream identically and give the same infected set, times,
        # parents and virtual sources on trees); a run stopped by reach relays, step by step
        if stop <= 0 and _ad_closed_form(s, params):
            return run_adaptive_diffusion_tree(s, source, T, params, bg, vs_out, sizes_out)
        return run_adaptive_diffusion_relay(s, w, source, T, params, bg, vs_out, sizes_out,
                                            stop)
    if code == RANDOM_DIFFUSION:
        return _diffuse(s, source, T, params[0], False, bg, vs_out, sizes_out, stop)
    if code == FLOODING:
        return run_flooding(s, source, T, params, bg, vs_out, sizes_out, stop)
    if code == LINE_PROTOCOL:
        return _diffuse(s, source, T, 0.0, True, bg, vs_out, sizes_out, stop)
    if code == TREE_PROTOCOL:
        return run_tree_protocol(s, w, source, T, bg, vs_out, sizes_out, stop)
    with gil:
        raise ValueError(f"unknown kernel code {code}")


cdef inline int64_t _stop_step(const int64_t* sizes_out, int64_t T, int64_t stop) noexcept nogil:
    """The step of a run's snapshot: the first ``t`` with ``sizes_out[t] >= stop``, else
    ``T`` (no stop, or the reach not attained by ``T``)."""
    cdef int64_t t
    if stop <= 0:
        return T
    for t in range(T + 1):
        if sizes_out[t] >= stop:
            return t
    return T


cdef int64_t run_summary(int code, store_t* s, work_t* w, int64_t source, int64_t T,
                         const double* params, bitgen_t* bg, int32_t* vs_out,
                         int64_t* sizes_out, int64_t stop=0) except -1 nogil:
    """:func:`run_protocol` for a caller that keeps only ``sizes_out`` and ``vs_out`` (with
    ``Protocol.summary_params``): for adaptive diffusion on a tree with room in the store,
    the ball is counted (``_ad_tree_summary``) instead of created; ``order`` then does not
    list the infected nodes."""
    cdef int64_t dm
    if (stop <= 0 and code == ADAPTIVE_DIFFUSION and _ad_closed_form(s, params)
            and (<int64_t> params[2] & AD_SUMMARY_ONLY) != 0):
        dm = _max_value(s)
        if s.tpar[source] < 0 and _ad_summary_room(s, T, dm):
            return _ad_tree_summary(s, source, T, params[3], bg, vs_out, sizes_out, dm)
    return run_protocol_until(code, s, w, source, T, params, bg, vs_out, sizes_out, stop)


def _check_code(int code):
    if not 0 <= code < N_KERNELS:
        raise ValueError(f"kernel code must be in 0..{N_KERNELS - 1}; got {code}")


def _params_ok(int code, const double[::1] params):
    need = 4 if code == ADAPTIVE_DIFFUSION else (1 if code == RANDOM_DIFFUSION else 0)
    if params.shape[0] < need:
        raise ValueError(f"params of kernel code {code} must hold {need} values; got "
                         f"{params.shape[0]}")


def run_one(int code, GraphStore store, int64_t source, int64_t T, const double[::1] params,
            object rng, int32_t[::1] vs_out, int64_t[::1] sizes_out, int mode=0,
            int64_t stop=0):
    """One run of protocol ``code`` on ``store`` from ``source``; returns the number of
    infected nodes (``store.order[:n]``). ``mode`` 0: :func:`run_protocol`; 1:
    :func:`run_summary`; 2 and 3: adaptive diffusion's closed-form tree path or its relay
    path, whatever the store and parameters (for the tests that compare them). ``stop > 0``
    ends the run after the first step with ``stop`` or more infected nodes (modes 0, 1, 3;
    see ``_reached``)."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef work_t w
    cdef int64_t n
    cdef store_t* s = &store.s
    _check_code(code)
    _params_ok(code, params)
    if not 0 <= mode <= 3:
        raise ValueError(f"mode must be 0, 1, 2 or 3; got {mode}")
    if mode >= 2 and code != ADAPTIVE_DIFFUSION:
        raise ValueError(f"mode {mode} runs adaptive diffusion only; got kernel code {code}")
    if mode == 2 and not s.lazy:
        raise ValueError("the closed-form tree path (mode 2) needs a lazily grown tree")
    if mode == 2 and stop > 0:
        raise ValueError("the closed-form tree path (mode 2) cannot stop by reach")
    if not 0 <= source < s.n_nodes:
        raise ValueError(f"source must be a node of the store (0..{s.n_nodes - 1}); got {source}")
    if T < 0 or vs_out.shape[0] < T + 1 or sizes_out.shape[0] < T + 1:
        raise ValueError(f"T must be >= 0 and vs_out and sizes_out need T + 1 entries; got "
                         f"T = {T}, {vs_out.shape[0]} and {sizes_out.shape[0]}")
    work_init(&w, 256, s.maxdeg)
    try:
        # with the GIL: a lazy tree's store is the tree object's own (its realisation), which
        # another thread's run on the same object must not see half-written
        with rng.bit_generator.lock:
            if mode == 0:
                n = run_protocol_until(code, s, &w, source, T, &params[0], bg, &vs_out[0],
                                       &sizes_out[0], stop)
            elif mode == 1:
                n = run_summary(code, s, &w, source, T, &params[0], bg, &vs_out[0],
                                &sizes_out[0], stop)
            elif mode == 2:
                n = run_adaptive_diffusion_tree(s, source, T, &params[0], bg, &vs_out[0],
                                                &sizes_out[0])
            else:
                n = run_adaptive_diffusion_relay(s, &w, source, T, &params[0], bg, &vs_out[0],
                                                 &sizes_out[0], stop)
    finally:
        work_free(&w)
    return n


#: Flag bit of adaptive diffusion's ``params[2]``, for the tests only: the relay without its
#: shortcuts (collect the reached nodes, then each scans all its contacts), which gives
#: the same outputs and draws.
AD_REFERENCE_RELAY_BIT = AD_REFERENCE_RELAY


def _randint_draws(object rng, const int64_t[::1] n):
    """``randint(bg, n[i])`` for each ``i`` in turn from ``rng`` (for the tests that compare
    the engine's bounded draws with ``Generator.integers(0, n[i])``); every ``n[i] >= 1``."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef Py_ssize_t i
    out = np.empty(n.shape[0], np.int64)
    cdef int64_t[::1] o = out
    for i in range(n.shape[0]):
        if n[i] < 1:
            raise ValueError(f"n must be >= 1; got n[{i}] = {n[i]}")
    with rng.bit_generator.lock:
        for i in range(n.shape[0]):
            o[i] = randint(bg, n[i])
    return out


def vs_hops_of(GraphStore store, int64_t vs):
    """Hop count from the last run's source to node ``vs`` along infection-tree parents."""
    if vs >= store.s.n_nodes:
        raise ValueError(f"vs must be a node of the store or -1; got {vs}")
    return vs_hops(store.s.ns, vs)


def run_batch(int code, GraphStore store, bint lazy, const int32_t[::1] sources,
              const uint64_t[::1] seeds, int64_t T, const double[::1] params, object rng,
              int64_t[:, ::1] sizes, int32_t[::1] vs_hops_out, int32_t[::1] vs_node,
              const int64_t[::1] stops=None):
    """``sources.shape[0]`` independent trials of protocol ``code`` back to back (see
    :func:`anonspread.engine.spreading.run_batch`); ``stops[i] > 0`` stops trial ``i`` by
    reach."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef work_t w
    cdef store_t* s = &store.s
    cdef Py_ssize_t trials = sources.shape[0], i
    cdef int64_t n_inf = 0
    _check_code(code)
    _params_ok(code, params)
    if lazy != s.lazy:
        raise ValueError(f"lazy={lazy} does not match the store")
    if (seeds.shape[0] < trials or sizes.shape[0] < trials or sizes.shape[1] < T + 1
            or vs_hops_out.shape[0] < trials or vs_node.shape[0] < trials):
        raise ValueError("seeds, sizes (trials x T + 1), vs_hops and vs_node need an entry "
                         "per trial")
    if stops is not None and stops.shape[0] < trials:
        raise ValueError(f"stops needs an entry per trial ({trials}); got {stops.shape[0]}")
    cdef bint has_stops = stops is not None
    for i in range(trials):
        if not 0 <= sources[i] < (1 if lazy else s.n_nodes):
            raise ValueError(f"sources[{i}] = {sources[i]} is not a node of the store")
    if trials == 0:
        return
    vs_arr = np.empty(T + 1, np.int32)
    cdef int32_t[::1] vs_out = vs_arr
    work_init(&w, 256, s.maxdeg)
    try:
        with rng.bit_generator.lock, nogil:
            for i in range(trials):
                if lazy:
                    reset_lazy(s, seeds[i])
                else:
                    reset_run_state(s, n_inf)
                n_inf = run_summary(code, s, &w, sources[i], T, &params[0], bg, &vs_out[0],
                                    &sizes[i, 0], stops[i] if has_stops else 0)
                vs_node[i] = vs_out[T]
                vs_hops_out[i] = <int32_t> vs_hops(s.ns, vs_out[T])
            if not lazy:
                reset_run_state(s, n_inf)
    finally:
        work_free(&w)


# ---------------------------------------------------------------- the fused loop's simulation phase


cdef int64_t snapshot(const store_t* s, int64_t n, int64_t* loc, int64_t off, int32_t* b_order,
                       int64_t* b_par, int64_t* b_gdeg, int64_t vs) noexcept nogil:
    """Copy the current run into the chunk buffers at ``off``: the infected nodes in
    infection order, their infection-tree parents as local ids (-1 for the source) and
    their contact degrees. ``loc`` is -1 everywhere on entry and on exit. Returns the
    local id of node ``vs`` (the final virtual source; -1 if none or not infected)."""
    cdef const int32_t* order = s.order
    cdef int64_t k, v, p, c
    for k in range(n):
        loc[order[k]] = k
    for k in range(n):
        v = order[k]
        b_order[off + k] = <int32_t> v
        b_gdeg[off + k] = s.deg[v]
        p = s.ns[v * NCOL + PARENT]
        b_par[off + k] = loc[p] if p >= 0 else -1
    c = loc[vs] if vs >= 0 else -1
    for k in range(n):
        loc[order[k]] = -1
    return c


def _grow(a, int64_t need):
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    b[: a.shape[0]] = a
    return b


def simulate_chunk(int code, GraphStore store, bint lazy, const int32_t[::1] sources,
                   const uint64_t[::1] seeds, int64_t i0, int64_t T, const double[::1] params,
                   object rng, int64_t cap, int64_t[::1] noff, int64_t[::1] n_out,
                   int64_t[::1] b_vs, b_order, b_par, b_gdeg, const int64_t[::1] stops=None,
                   int64_t[::1] t_out=None):
    """Run trials ``i0, i0 + 1, ...`` until about ``cap`` infected nodes are buffered (see
    :func:`anonspread.engine.spreading.simulate_chunk`); returns ``(end, b_order, b_par,
    b_gdeg)``. ``stops[i] > 0`` stops trial ``i`` by reach; ``t_out[i]`` receives the step
    of its snapshot."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef work_t w
    cdef store_t* s = &store.s
    cdef Py_ssize_t trials = sources.shape[0]
    cdef int64_t n_inf = 0, i = i0, end, k, old
    cdef int64_t* loc
    cdef int64_t loc_cap
    cdef int32_t* po
    cdef int64_t* pp
    cdef int64_t* pg
    cdef int64_t bcap
    cdef void* tmp
    _check_code(code)
    _params_ok(code, params)
    if lazy != s.lazy:
        raise ValueError(f"lazy={lazy} does not match the store")
    if not 0 <= i0 < trials:
        raise ValueError(f"i0 must be in 0..{trials - 1}; got {i0}")
    if (seeds.shape[0] < trials or noff.shape[0] < trials + 1 or n_out.shape[0] < trials
            or b_vs.shape[0] < trials):
        raise ValueError("seeds, n_out, b_vs need an entry per trial and noff trials + 1")
    if (stops is not None and stops.shape[0] < trials) or (t_out is not None
                                                           and t_out.shape[0] < trials):
        raise ValueError(f"stops and t_out need an entry per trial ({trials})")
    cdef bint has_stops = stops is not None, has_t = t_out is not None
    cdef int64_t stop_i = 0
    for name, a, dtype in (("b_order", b_order, np.int32), ("b_par", b_par, np.int64),
                           ("b_gdeg", b_gdeg, np.int64)):
        if (not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != 1
                or not a.flags.c_contiguous or not a.flags.writeable):
            raise ValueError(f"{name} must be a writeable contiguous {np.dtype(dtype).name} array")
    if not (b_order.shape[0] == b_par.shape[0] == b_gdeg.shape[0]):
        raise ValueError("b_order, b_par and b_gdeg must have the same length")
    for k in range(i0, trials):
        if not 0 <= sources[k] < (1 if lazy else s.n_nodes):
            raise ValueError(f"sources[{k}] = {sources[k]} is not a node of the store")
    cdef int32_t[::1] vs_out = np.empty(T + 1, np.int32)
    cdef int64_t[::1] sizes = np.empty(T + 1, np.int64)
    cdef int32_t[::1] mo
    cdef int64_t[::1] mp, mg
    mo = b_order
    mp = b_par
    mg = b_gdeg
    po = &mo[0] if mo.shape[0] else NULL
    pp = &mp[0] if mp.shape[0] else NULL
    pg = &mg[0] if mg.shape[0] else NULL
    bcap = mo.shape[0]
    loc_cap = s.cap_nodes
    loc = <int64_t*> malloc(max(loc_cap, 1) * sizeof(int64_t))
    if loc == NULL:
        raise MemoryError()
    for k in range(loc_cap):
        loc[k] = -1
    work_init(&w, 256, s.maxdeg)
    try:
        with rng.bit_generator.lock, nogil:
            noff[i0] = 0
            while i < trials and (i == i0 or noff[i] < cap):
                if lazy:
                    reset_lazy(s, seeds[i])
                else:
                    reset_run_state(s, n_inf)
                stop_i = stops[i] if has_stops else 0
                n_inf = run_protocol_until(code, s, &w, sources[i], T, &params[0], bg,
                                           &vs_out[0], &sizes[0], stop_i)
                n_out[i] = n_inf
                if has_t:
                    t_out[i] = _stop_step(&sizes[0], T, stop_i)
                end = noff[i] + n_inf
                if end > bcap:
                    with gil:
                        b_order = _grow(b_order, end)
                        b_par = _grow(b_par, end)
                        b_gdeg = _grow(b_gdeg, end)
                        mo = b_order
                        mp = b_par
                        mg = b_gdeg
                        po = &mo[0]
                        pp = &mp[0]
                        pg = &mg[0]
                        bcap = mo.shape[0]
                if loc_cap < s.cap_nodes:
                    old = loc_cap
                    tmp = realloc(loc, s.cap_nodes * sizeof(int64_t))
                    if tmp == NULL:
                        with gil:
                            raise MemoryError()
                    loc = <int64_t*> tmp
                    loc_cap = s.cap_nodes
                    for k in range(old, loc_cap):
                        loc[k] = -1
                b_vs[i] = snapshot(s, n_inf, loc, noff[i], po, pp, pg, vs_out[T])
                noff[i + 1] = end
                i += 1
            if not lazy:
                reset_run_state(s, n_inf)
    finally:
        work_free(&w)
        free(loc)
    return i, b_order, b_par, b_gdeg
