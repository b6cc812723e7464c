"""Compiled (numba) kernels: one run of each protocol on a flat-array store.

Every run kernel has the same signature::

    run(store, source, T, params, rng, vs_out, sizes_out) -> (store, n_infected)

``params`` is the protocol's float64 parameter vector (see ``spread.protocols``),
``rng`` a ``numpy.random.Generator`` (its stream advances), ``vs_out[t]`` receives the
virtual source after step ``t`` (-1 for protocols without one) and ``sizes_out[t]`` the
number of infected nodes after step ``t``. The infected nodes are ``store[9][:n]`` in
infection order, their infection times and parents in ``store[8]``.

The plain-Python reading of each protocol is in the docstrings of ``spread.protocols``;
these kernels follow them step by step. Nodes infected during step ``t`` never act
before step ``t + 1``.

Layout: each run kernel loops over steps and, once per step, makes room in a lazily
grown store (``reserve``) and unpacks its arrays; the work of the step is a separate
function over plain arrays (``A`` below stands for ``start, deg, nbr, tpar, key, meta,
dvals, dcdf, ns, order``). Keeping array rebinding out of the inner loops keeps numba
from adding reference-count updates to every iteration (a 3-4x slow-down measured).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import errors, types
from numba.extending import overload

from anonspread.engine._numba_cache import install as _install_numba_cache
from anonspread.engine.store import (
    _GOLDEN,
    AUX,
    CHILD,
    FLAG,
    PARENT,
    SIB,
    TIME,
    _draw_degree,
    _splitmix64,
    expand,
    expand_into,
    max_degree,
    reserve,
    reset_lazy,
    reset_run_state,
    touch,
)

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = [
    "run_adaptive_diffusion",
    "run_adaptive_diffusion_relay",
    "run_adaptive_diffusion_tree",
    "run_batch",
    "run_batch_for",
    "run_flooding",
    "run_line_protocol",
    "run_protocol",
    "run_random_diffusion",
    "run_summary",
    "run_tree_protocol",
]


@nb.njit(cache=True)
def _infect(ns, order, w, t, parent, n_inf):
    ns[w, TIME] = t
    ns[w, PARENT] = parent
    order[n_inf] = w
    return n_inf + 1


@nb.njit(cache=True)
def _link_child(ns, parent, child):
    ns[child, SIB] = ns[parent, CHILD]
    ns[parent, CHILD] = child


@nb.njit(cache=True)
def _start(store, source, vs_out, sizes_out):
    for t in range(vs_out.shape[0]):
        vs_out[t] = -1
        sizes_out[t] = 0
    n_inf = _infect(store[8], store[9], source, np.int64(0), np.int32(-1), np.int64(0))
    sizes_out[0] = 1
    return n_inf


# ---------------------------------------------------------------- flooding


@nb.njit(cache=True)
def _flood_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order, lo, hi, t, n_inf):
    for i in range(lo, hi):
        v = order[i]
        if start[v] < 0:  # inlined only where it acts (see _store._draw_degree)
            touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
        s = start[v]
        for j in range(deg[v]):
            w = nbr[s + j]
            if ns[w, TIME] < 0:
                n_inf = _infect(ns, order, w, t, v, n_inf)
    return n_inf


@nb.njit(cache=True)
def run_flooding(store, source, T, params, rng, vs_out, sizes_out):
    n_inf = _start(store, source, vs_out, sizes_out)
    lo = np.int64(0)  # typed, not literal: numba compiles a callee once per literal argument
    for t in range(1, T + 1):
        hi = n_inf
        store = reserve(store, hi - lo)
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
        n_inf = _flood_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order, lo, hi, t, n_inf)
        lo = hi
        sizes_out[t] = n_inf
    return store, n_inf


# ---------------------------------------------------------------- diffusions


@nb.njit(cache=True)
def _diffuse_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                  first, n_prev, t, p, distance_rate, rng, n_inf):
    advancing = True
    new_first = first
    for i in range(first, n_prev):
        v = order[i]
        if ns[v, FLAG] == 1:
            if advancing:
                new_first = i + 1
            continue
        if start[v] < 0:  # inlined only where it acts (see _store._draw_degree)
            touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
        if distance_rate:
            q = (ns[v, AUX] + 1.0) / (t + 1.0)
        else:
            q = p
        s = start[v]
        remaining = 0
        for j in range(deg[v]):
            w = nbr[s + j]
            if ns[w, TIME] < 0:
                if rng.random() < q:
                    n_inf = _infect(ns, order, w, t, v, n_inf)
                    ns[w, AUX] = ns[v, AUX] + 1
                else:
                    remaining += 1
        if remaining == 0:
            ns[v, FLAG] = 1
            if advancing:
                new_first = i + 1
        else:
            advancing = False
    return new_first, n_inf


@nb.njit(cache=True)
def _diffuse(store, source, T, p, distance_rate, rng, vs_out, sizes_out):
    """Random diffusion (``distance_rate`` False) or Protocol 1 (True).

    Each boundary node v, acting at step t, infects each of its uninfected neighbours
    independently with probability p (random diffusion) or (dist(v) + 1) / (t + 1)
    (Protocol 1), dist(v) being v's hop count from the source along the infection path.
    Nodes before ``first`` in infection order are all saturated (FLAG = 1) and skipped.
    """
    n_inf = _start(store, source, vs_out, sizes_out)
    first = np.int64(0)  # typed, not literal: numba compiles a callee once per literal argument
    for t in range(1, T + 1):
        n_prev = n_inf
        store = reserve(store, n_prev - first)
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
        first, n_inf = _diffuse_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                                     first, n_prev, t, p, distance_rate, rng, n_inf)
        sizes_out[t] = n_inf
    return store, n_inf


@nb.njit(cache=True)
def run_random_diffusion(store, source, T, params, rng, vs_out, sizes_out):
    return _diffuse(store, source, T, params[0], False, rng, vs_out, sizes_out)


@nb.njit(cache=True)
def run_line_protocol(store, source, T, params, rng, vs_out, sizes_out):
    return _diffuse(store, source, T, 0.0, True, rng, vs_out, sizes_out)


# ---------------------------------------------------------------- Protocol 2, printed pseudo-code
# (spread.protocols.TreeProtocolPseudocode; Protocol 2 itself runs the Protocol 3 kernels)


@nb.njit(cache=True)
def _tree_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order, n_prev, t, rng, buf, n_inf):
    for i in range(1, n_prev):
        v = order[i]
        if ns[v, AUX] <= 0:
            continue
        if start[v] < 0:  # inlined only where it acts (see _store._draw_degree)
            touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
        s = start[v]
        if ns[v, FLAG] == 1:
            k = 0
            for j in range(deg[v]):
                w = nbr[s + j]
                if ns[w, TIME] < 0:
                    buf[k] = w
                    k += 1
            if k > 0:
                w = buf[rng.integers(0, k)]
                n_inf = _infect(ns, order, w, t, v, n_inf)
                ns[w, FLAG] = 1
                ns[w, AUX] = ns[v, AUX] + 1
            ns[v, FLAG] = 0
        else:
            for j in range(deg[v]):
                w = nbr[s + j]
                if ns[w, TIME] < 0:
                    n_inf = _infect(ns, order, w, t, v, n_inf)
                    ns[w, FLAG] = 0
                    ns[w, AUX] = ns[v, AUX] - 1
            ns[v, AUX] = 0
    return n_inf


@nb.njit(cache=True)
def run_tree_protocol(store, source, T, params, rng, vs_out, sizes_out):
    """The printed pseudo-code of Protocol 2 (thesis §2.2.2), read literally; s1 lives in
    FLAG and s2 in AUX. Not Protocol 2 itself (see ``spread.protocols.TreeProtocolPseudocode``)."""
    n_inf = _start(store, source, vs_out, sizes_out)
    if T == 0:
        return store, n_inf
    store = expand(store, source)
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    if deg[source] == 0:
        for t in range(1, T + 1):
            sizes_out[t] = n_inf
        return store, n_inf
    u = nbr[start[source] + rng.integers(0, deg[source])]
    n_inf = _infect(ns, order, u, np.int64(1), source, n_inf)
    ns[u, FLAG] = 1
    ns[u, AUX] = 1
    sizes_out[1] = n_inf
    buf = np.empty(max(max_degree(store), 1), np.int32)
    for t in range(2, T + 1):
        n_prev = n_inf
        store = reserve(store, n_prev)
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
        n_inf = _tree_step(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                           n_prev, t, rng, buf, n_inf)
        sizes_out[t] = n_inf
    return store, n_inf


# ---------------------------------------------------------------- Protocol 3


@nb.njit(cache=True)
def _ad_closed_form(lazy_tree, params):
    """Does adaptive diffusion take the closed-form tree path: a lazily grown (infinite)
    tree, no cap on infections, every infected node infects?"""
    return lazy_tree == 1 and params[0] < 0 and (int(params[2]) & 2) == 0


@nb.njit(cache=True)
def run_adaptive_diffusion(store, source, T, params, rng, vs_out, sizes_out):
    """Protocol 3: the closed-form tree path on infinite trees without a cap, else the
    message-passing path (both consume ``rng`` identically and give the same infected
    set, times, parents and virtual sources on trees)."""
    if _ad_closed_form(store[5][2], params):
        return run_adaptive_diffusion_tree(store, source, T, params, rng, vs_out, sizes_out)
    return run_adaptive_diffusion_relay(store, source, T, params, rng, vs_out, sizes_out)


@nb.njit(cache=True)
def _relay_collect(start, deg, nbr, ns, x0, exclude, t, graph_relay, stack, visit):
    """The nodes an Infection Message sent by ``x0`` away from ``exclude`` reaches.

    Tree relay: along infection-tree edges, never back where it came from (FLAG holds
    where each node was reached from). Graph relay: forwarded once to every infected
    contact infected before step ``t``, never entering ``exclude`` (FLAG holds a stamp).
    """
    top = 0
    nvis = 0
    stack[top] = x0
    top += 1
    if graph_relay:
        stamp = -(t + 2)
        if exclude >= 0:
            ns[exclude, FLAG] = stamp
        ns[x0, FLAG] = stamp
        while top > 0:
            top -= 1
            x = stack[top]
            visit[nvis] = x
            nvis += 1
            s = start[x]
            for j in range(deg[x]):
                w = nbr[s + j]
                if ns[w, TIME] >= 0 and ns[w, TIME] < t and ns[w, FLAG] != stamp:
                    ns[w, FLAG] = stamp
                    stack[top] = w
                    top += 1
    else:
        ns[x0, FLAG] = exclude
        while top > 0:
            top -= 1
            x = stack[top]
            visit[nvis] = x
            nvis += 1
            came = ns[x, FLAG]
            p = ns[x, PARENT]
            if p >= 0 and p != came:
                ns[p, FLAG] = x
                stack[top] = p
                top += 1
            c = ns[x, CHILD]
            while c >= 0:
                if c != came:
                    ns[c, FLAG] = x
                    stack[top] = c
                    top += 1
                c = ns[c, SIB]
    return nvis


@nb.njit(cache=True)
def _relay_infect(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                  visit, nvis, t, cap, leaves_only, rng, buf, n_inf):
    """Every reached node infects its uninfected contacts (a uniform ``cap``-subset); with
    ``leaves_only`` only the reached nodes without infection-tree children do."""
    for i in range(nvis):
        x = visit[i]
        if leaves_only and ns[x, CHILD] >= 0:
            continue
        if start[x] < 0:
            touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, x)
        s = start[x]
        k = 0
        for j in range(deg[x]):
            w = nbr[s + j]
            if ns[w, TIME] < 0:
                buf[k] = w
                k += 1
        if cap >= 0 and k > cap:
            for j in range(cap):  # partial Fisher-Yates
                r = j + rng.integers(0, k - j)
                tmp = buf[j]
                buf[j] = buf[r]
                buf[r] = tmp
            k = cap
        for j in range(k):
            w = buf[j]
            n_inf = _infect(ns, order, w, t, x, n_inf)
            _link_child(ns, x, w)
    return n_inf


@nb.njit(cache=True)
def _relay(store, x0, exclude, t, cap, graph_relay, rng, n_inf, stack, visit, buf, leaves_only):
    """Protocol 3's Infection Message procedure (thesis Protocol 3, lines 22-27)."""
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    nvis = _relay_collect(start, deg, nbr, ns, x0, exclude, t, graph_relay, stack, visit)
    store = reserve(store, nvis)
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    n_inf = _relay_infect(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                          visit, nvis, t, cap, leaves_only, rng, buf, n_inf)
    return store, n_inf


@nb.njit(cache=True)
def _ad_member(t, j, a, hidx):
    """Is the node at hop offset ``a`` from virtual-source path index ``j`` infected at t?

    On a tree the infected set at even t is the ball of radius t/2 around the virtual
    source path[hidx[t]]; an odd t adds one level, everywhere (the token stayed) or only
    beyond the new virtual source (it passed: hidx[t] > hidx[t - 1]). ``a + |i - j|`` is
    the distance to path[i].
    """
    if t == 0:
        return j == 0 and a == 0
    if t == 1:
        return j <= 1 and a == 0
    k = hidx[t]
    if t % 2 == 0:
        return a + abs(k - j) <= t // 2
    if k == hidx[t - 1]:
        return a + abs(k - j) <= (t + 1) // 2
    if a + abs(k - 1 - j) <= (t - 1) // 2:
        return True
    return j >= k and a + (j - k) <= (t - 1) // 2


@nb.njit(cache=True)
def _ad_first_time(t, j, a, hidx, T):
    """The first step >= t at which the node at (j, a) is infected (membership is monotone
    in t; a child is infected after its parent, so callers start at the parent's step + 1)."""
    while t < T and not _ad_member(t, j, a, hidx):
        t += 1
    return t


@nb.njit(cache=True)
def _ad_tree_bfs(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                 head, tail, H, path, hidx, T, dm):
    """Visit the infected set breadth-first from the queue ``order[head:tail]``.

    Returns the queue bounds: ``head == tail`` when done, else the next level might not
    fit in the store (the caller grows it and calls again). A queued node's path index
    j and hop offset a live in its AUX and FLAG columns. A node is expanded (its children
    created) only when one of them is infected by time T, so the tree beyond the final
    boundary is never materialised.
    """
    while head < tail:
        m = (tail - head) * dm
        if meta[0] + m > start.shape[0] or meta[1] + m > nbr.shape[0]:
            return head, tail
        end = tail
        for q in range(head, tail):
            x = order[q]
            jx = ns[x, AUX]
            ax = ns[x, FLAG]
            on_path = ax == 0 and jx < H
            if not on_path and not _ad_member(T, jx, ax + 1, hidx):
                continue  # a leaf of the infected set: no child is ever infected
            if start[x] < 0:
                expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, x)
            px = ns[x, PARENT]
            tx = ns[x, TIME]
            s = start[x]
            for jj in range(deg[x]):
                w = nbr[s + jj]
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
                ns[w, TIME] = _ad_first_time(tx + 1, jw, aw, hidx, T)
                ns[w, PARENT] = x
                ns[w, AUX] = jw
                ns[w, FLAG] = aw
                _link_child(ns, x, w)
                order[end] = w
                end += 1
        head = tail
        tail = end
    return head, tail


@nb.njit(cache=True)
def _ad_tree_counts(start, deg, nbr, key, meta, dvals, dcdf, T, H, path, hidx, dm):
    """Infected nodes per infection step, counted without materialising the ball.

    ``start[meta[0] + t]`` (t <= T) receives the number of nodes infected at step t. The virtual
    source path must start at the tree's root and every path node must be expanded, so
    that the other neighbours of path[j] are its children: the off-path branches, each
    a subtree cut at the depth ``amax(j)`` given by ``_ad_member``. On a regular tree a
    branch has ``(d - 1)**(a - 1)`` nodes at depth a; otherwise the branch is walked
    depth-first over position keys, drawing the degree of each node with a child in the
    ball (the same keys and draws as ``expand_into``: the same realisation). Scratch
    space: the unused tail of ``start`` (those counts, per-depth counts, stack depths)
    and of ``key`` (the stack).
    Returns False, doing nothing, when that tail is too short (the caller grows the
    store and calls again).
    """
    m0 = meta[0]
    nd = dvals.shape[0]
    if m0 + T * dm + 2 * T + 4 > start.shape[0]:
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
        s = start[v]
        nbranch = 0
        for i in range(deg[v]):
            w = nbr[s + i]
            if w == prev or w == nxt:
                continue
            nbranch += 1
            if nd > 1 and amax >= 2:
                sp = 0
                key[stk] = key[w]
                start[sdep] = 1
                sp = 1
                while sp > 0:
                    sp -= 1
                    kn = key[stk + sp]
                    a = start[sdep + sp]
                    m = _draw_degree(kn, dvals, dcdf) - 1
                    if m <= 0:
                        continue
                    start[lev + a + 1] += m
                    if a + 1 < amax:
                        for c in range(m):
                            key[stk + sp] = _splitmix64(kn + np.uint64(c + 1) * _GOLDEN)
                            start[sdep + sp] = a + 1
                            sp += 1
        start[lev + 1] += nbranch
        if nd == 1:
            width = nbranch
            for a in range(2, amax + 1):
                width *= dvals[0] - 1
                start[lev + a] += width
        ta = tj
        for a in range(1, amax + 1):
            ta = _ad_first_time(ta + 1, j, a, hidx, T)
            start[hist + ta] += start[lev + a]
    return True


@nb.njit(cache=True)
def alpha_value(d, t, h):
    """``alpha_d(t, h)`` of Eq. 2.13 (see ``spread.protocols.alpha``): no power overflows."""
    if d == np.inf:
        return 0.0
    if d == 2.0:
        return (t - 2 * h + 2) / (t + 2)
    lb = np.log(d - 1.0)
    a = t // 2 - h + 1
    c = t // 2 + 1
    return np.exp(-h * lb) * np.expm1(-a * lb) / np.expm1(-c * lb)


@nb.njit(cache=True)
def _sort_by_time(ns, order, n, T, sizes_out):
    """Stable counting sort of ``order[:n]`` by infection time, in place.

    Each node's target position goes into its AUX column, then the permutation is
    applied by following its cycles; ``sizes_out[t]`` ends as the number of nodes
    infected by step t.
    """
    for t in range(T + 1):
        sizes_out[t] = 0
    for i in range(n):
        sizes_out[ns[order[i], TIME]] += 1
    acc = 0
    for t in range(T + 1):  # sizes_out[t] becomes the first position of time t
        c = sizes_out[t]
        sizes_out[t] = acc
        acc += c
    for i in range(n):
        x = order[i]
        t = ns[x, TIME]
        ns[x, AUX] = sizes_out[t]
        sizes_out[t] += 1  # ends as the first position after time t
    for i in range(n):
        x = order[i]
        target = ns[x, AUX]
        while target != i:
            y = order[target]
            order[target] = x
            x = y
            target = ns[x, AUX]
        order[i] = x


@nb.njit(cache=True)
def _ad_walk(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source, T, d0, rng, path, hidx):
    """The token's walk: ``path[:H + 1]`` and ``hidx[t]``, the path index of the virtual
    source after step t; returns H. The coin flips and moves are drawn exactly as in the
    message-passing path. Expands the path nodes it leaves (room made by the caller)."""
    path[0] = source
    hidx[0] = 0
    H = 0
    if T >= 1:
        if start[source] < 0:
            touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source)
        if deg[source] > 0:
            H = np.int64(1)  # typed, not literal (alpha_value)
            path[1] = nbr[start[source] + rng.integers(0, deg[source])]
    for t in range(1, min(T, 2) + 1):
        hidx[t] = H
    t = 3
    while t <= T:
        keep = rng.random() < alpha_value(d0, t - 1, H)
        if not keep:
            v = path[H]
            if start[v] < 0:
                touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
            k = deg[v] - 1
            if k > 0:
                # the relay path lists v's children newest first: the r-th is the
                # (k-1-r)-th neighbour other than the previous virtual source
                r = k - 1 - rng.integers(0, k)
                s = start[v]
                for j in range(deg[v]):
                    w = nbr[s + j]
                    if w == path[H - 1]:
                        continue
                    if r == 0:
                        path[H + 1] = w
                        break
                    r -= 1
                H += 1
        hidx[t] = H
        if t + 1 <= T:
            hidx[t + 1] = H
        t += 2
    return H


@nb.njit(cache=True)
def _max_value(a):
    m = 1
    for i in range(a.shape[0]):
        m = max(m, a[i])
    return m


@nb.njit(cache=True)
def _ad_summary_room(meta, start, nbr, T, dm):
    """Room for :func:`_ad_tree_summary`: the walk's expansions (T // 2 + 1) and path[H]'s,
    and the scratch space of ``_ad_tree_counts`` beyond them."""
    m = (T // 2 + 2) * dm
    return meta[0] + m + T * dm + 2 * T + 4 <= start.shape[0] and meta[1] + m <= nbr.shape[0]


@nb.njit(cache=True)
def _ad_tree_summary(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source, T, d0, rng,
                     vs_out, sizes_out, dm):
    """Protocol 3 on a tree, counted, not created; returns N_T (see ``AD_SUMMARY_ONLY``).

    The walk of :func:`run_adaptive_diffusion_tree`, then ``_ad_tree_counts``: fills
    ``sizes_out`` and ``vs_out`` and links the path nodes to their parents (for
    ``_vs_hops``); ``order`` does not list the infected nodes. Needs the source at the
    tree's root and the room checked by :func:`_ad_summary_room`.
    """
    path = vs_out
    hidx = sizes_out
    H = _ad_walk(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source, T, d0, rng, path, hidx)
    ns[source, TIME] = 0
    if T >= 1 and H == 0:  # an isolated source: nothing ever spreads
        for t in range(T + 1):
            vs_out[t] = source
            sizes_out[t] = 1
        return 1
    v = path[H]
    if start[v] < 0:
        touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
    for j in range(1, H + 1):
        ns[path[j], PARENT] = path[j - 1]
    if not _ad_tree_counts(start, deg, nbr, key, meta, dvals, dcdf, T, H, path, hidx, dm):
        raise RuntimeError("anonspread internal error: _ad_tree_summary without room")
    for t in range(T, -1, -1):
        vs_out[t] = path[hidx[t]]
    n = 0
    for t in range(T + 1):
        n += start[meta[0] + t]
        sizes_out[t] = n
    return n


@nb.njit(cache=True)
def run_adaptive_diffusion_tree(store, source, T, params, rng, vs_out, sizes_out):
    """Protocol 3 on a tree without cap, in one pass over the final infected set.

    The coin flips and token moves are drawn exactly as in the message-passing path
    (``_ad_walk``); then every node's infection time follows from its distance to the
    virtual-source path (see ``_ad_member``) and its parent is its neighbour towards the
    source, so each infected node is visited once instead of once per relay, and only
    infected nodes with an infected child are expanded. (With the ``AD_SUMMARY_ONLY``
    flag, the batch driver counts the ball instead, ``run_summary``, when the store has
    room; this path then makes that room for the next trials.)

    Allocates nothing: while the token walks, ``vs_out[:H + 1]`` holds the virtual-source
    path and ``sizes_out[t]`` the path index of the virtual source after step t; the
    breadth-first queue is ``order`` (see ``_ad_tree_bfs``).
    """
    path = vs_out
    hidx = sizes_out
    dm = _max_value(store[6])
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    walk = T // 2 + 1  # expansions by the walk
    if (int(params[2]) & AD_SUMMARY_ONLY) != 0:
        walk += 1 + T + (2 * T + 4) // dm + 1  # room for the counting path's next trials
    if meta[0] + walk * dm > start.shape[0] or meta[1] + walk * dm > nbr.shape[0]:
        store = reserve(store, walk)
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    H = _ad_walk(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source, T, params[3], rng,
                 path, hidx)
    ns[source, TIME] = 0
    ns[source, PARENT] = -1
    order[0] = source
    if T >= 1 and H == 0:  # an isolated source: nothing ever spreads
        for t in range(T + 1):
            vs_out[t] = source
            sizes_out[t] = 1
        return store, 1
    ns[source, AUX] = 0
    ns[source, FLAG] = 0
    head = np.int64(0)  # typed, not literal: see run_adaptive_diffusion_relay
    tail = np.int64(1)
    while True:
        head, tail = _ad_tree_bfs(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order,
                                  head, tail, H, path, hidx, T, dm)
        if head == tail:
            break
        store = reserve(store, tail - head)
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    # the virtual source after step t is path[hidx[t]], hidx[t] <= t: fill from the end
    for t in range(T, -1, -1):
        vs_out[t] = path[hidx[t]]
    _sort_by_time(ns, order, tail, T, sizes_out)
    return store, tail


@nb.njit(cache=True)
def run_adaptive_diffusion_relay(store, source, T, params, rng, vs_out, sizes_out):
    """Protocol 3 (thesis §2.3, §2.4.2) by relaying infection messages.

    ``params = [cap, maxdeg, flags, d0]``; the virtual source keeps the token at
    even time ``t`` when it is ``h`` hops from the source with probability
    ``alpha_value(d0, t, h)`` (Eq. 2.13); ``flags`` is ``graph_relay + 2 * leaves_only
    + 8 * stuck_pass`` (see ``AdaptiveDiffusion.relay``, ``.infectors`` and ``.stuck``).

    ``stuck_pass`` is the rule of the authors' code (``infect_nodes_adaptive_diff``): a
    moving token goes to a uniform infection-tree neighbour other than the node it came
    from; a virtual source whose only tree neighbour is that node sends two rounds of
    infection messages to it and passes the token back (the hop counter unchanged, as
    theirs). Without it, the token moves to a uniform child and a dead end keeps it.
    """
    cap = int(params[0])
    maxdeg = int(params[1])
    flags = int(params[2])
    # on lazily grown trees both relays are the same; the tree relay needs no expansion
    graph_relay = (flags & 1) == 1 and store[5][2] == 0
    leaves_only = (flags & 2) == 2
    stuck_pass = (flags & AD_STUCK_PASS) != 0
    n_inf = _start(store, source, vs_out, sizes_out)
    vs_out[0] = source
    if T == 0:
        return store, n_inf
    store = expand(store, source)
    start, deg, nbr, ns = store[0], store[1], store[2], store[8]
    if deg[source] == 0:
        for t in range(1, T + 1):
            vs_out[t] = source
            sizes_out[t] = n_inf
        return store, n_inf
    u = nbr[start[source] + rng.integers(0, deg[source])]
    n_inf = _infect(ns, store[9], u, np.int64(1), source, n_inf)
    _link_child(ns, source, u)
    vs = u
    from_vs = source
    h = np.int64(1)  # typed, not literal (alpha_value)
    vs_out[1] = vs
    sizes_out[1] = n_inf
    n_cap = store[0].shape[0]
    stack = np.empty(n_cap, np.int32)
    visit = np.empty(n_cap, np.int32)
    buf = np.empty(max(maxdeg, 1), np.int32)
    # typed values, not literals, as arguments: numba compiles a callee once per literal
    from_vs = np.int64(from_vs)
    none = np.int64(-1)
    if T >= 2:
        t = np.int64(2)
        store, n_inf = _relay(store, vs, from_vs, t, cap, graph_relay, rng, n_inf, stack, visit, buf, leaves_only)
        vs_out[2] = vs
        sizes_out[2] = n_inf
    t = np.int64(3)
    while t <= T:
        if stack.shape[0] < n_inf + 1:
            stack = np.empty(2 * (n_inf + 1), np.int32)
            visit = np.empty(2 * (n_inf + 1), np.int32)
        ns = store[8]
        keep = rng.random() < alpha_value(params[3], t - 1, h)
        if not keep and stuck_pass:
            kind, nxt = _stuck_pass_move(ns, vs, from_vs, rng)
            if kind == 1:  # stuck: two rounds towards the one tree neighbour, token follows
                back = np.int64(nxt)
                for dt in range(2):
                    if t + dt <= T:
                        if stack.shape[0] < n_inf + 1:
                            stack = np.empty(2 * (n_inf + 1), np.int32)
                            visit = np.empty(2 * (n_inf + 1), np.int32)
                        store, n_inf = _relay(store, back, vs, t + dt, cap, graph_relay, rng, n_inf,
                                              stack, visit, buf, leaves_only)
                        vs_out[t + dt] = back
                        sizes_out[t + dt] = n_inf
                from_vs = vs
                vs = back
                t += 2
                continue
            if kind == 0:
                from_vs = vs
                vs = np.int64(nxt)
                h += 1
            else:
                keep = True  # no tree neighbour at all: the token stays
        elif not keep:
            k = 0
            c = ns[vs, CHILD]
            while c >= 0:
                k += 1
                c = ns[c, SIB]
            if k == 0:
                keep = True  # a dead end (possible only on finite graphs): the token stays
            else:
                r = rng.integers(0, k)
                c = ns[vs, CHILD]
                for _ in range(r):
                    c = ns[c, SIB]
                from_vs = vs
                vs = c
                h += 1
        if keep:
            store, n_inf = _relay(store, vs, none, t, cap, graph_relay, rng, n_inf, stack, visit, buf, leaves_only)
            vs_out[t] = vs
            sizes_out[t] = n_inf
            if t + 1 <= T:
                vs_out[t + 1] = vs
                sizes_out[t + 1] = n_inf
        else:
            store, n_inf = _relay(store, vs, from_vs, t, cap, graph_relay, rng, n_inf, stack, visit, buf, leaves_only)
            vs_out[t] = vs
            sizes_out[t] = n_inf
            if t + 1 <= T:
                if stack.shape[0] < n_inf + 1:
                    stack = np.empty(2 * (n_inf + 1), np.int32)
                    visit = np.empty(2 * (n_inf + 1), np.int32)
                store, n_inf = _relay(store, vs, from_vs, t + 1, cap, graph_relay, rng, n_inf, stack, visit, buf, leaves_only)
                vs_out[t + 1] = vs
                sizes_out[t + 1] = n_inf
        t += 2
    return store, n_inf


# ---------------------------------------------------------------- Monte Carlo driver


@nb.njit(cache=True)
def _stuck_pass_move(ns, vs, came, rng):
    """The authors' move: a uniform infection-tree neighbour of ``vs`` other than ``came``.

    Returns ``(0, node)`` for a move to ``node``; ``(1, came)`` when ``came`` is the only
    tree neighbour (stuck: the token goes back); ``(-1, -1)`` when ``vs`` has none.
    """
    p = ns[vs, PARENT]
    k = 0
    if p >= 0 and p != came:
        k += 1
    c = ns[vs, CHILD]
    while c >= 0:
        if c != came:
            k += 1
        c = ns[c, SIB]
    if k == 0:
        if came >= 0 and (p == came or ns[came, PARENT] == vs):
            return 1, came
        return -1, -1
    r = rng.integers(0, k)
    if p >= 0 and p != came:
        if r == 0:
            return 0, p
        r -= 1
    c = ns[vs, CHILD]
    while c >= 0:
        if c != came:
            if r == 0:
                return 0, c
            r -= 1
        c = ns[c, SIB]
    return -1, -1


@nb.njit(cache=True)
def _vs_hops(ns, vs):
    """Hop count from the source to ``vs`` along infection-tree parents (``ns[:, PARENT]``)."""
    if vs < 0:
        return -1
    h = 0
    x = vs
    while ns[x, PARENT] >= 0:
        x = ns[x, PARENT]
        h += 1
    return h


#: Flag bit of adaptive diffusion's ``params[2]`` (``AdaptiveDiffusion.summary_params``):
#: the caller keeps only the counts and virtual sources (see run_adaptive_diffusion_tree).
AD_SUMMARY_ONLY = 4
#: Flag bit of ``params[2]``: the authors' stuck-virtual-source rule
#: (``AdaptiveDiffusion(stuck="pass")``; see run_adaptive_diffusion_relay).
AD_STUCK_PASS = 8

#: Kernel codes for :func:`run_protocol` (see ``Protocol.kernel_code``).
FLOODING, RANDOM_DIFFUSION, LINE_PROTOCOL, TREE_PROTOCOL, ADAPTIVE_DIFFUSION = 0, 1, 2, 3, 4

#: The run kernel of each code.
KERNELS = {
    FLOODING: run_flooding,
    RANDOM_DIFFUSION: run_random_diffusion,
    LINE_PROTOCOL: run_line_protocol,
    TREE_PROTOCOL: run_tree_protocol,
    ADAPTIVE_DIFFUSION: run_adaptive_diffusion,
}


def run_protocol(code, store, source, T, params, rng, vs_out, sizes_out):
    """Run the kernel with the given code.

    Compiled drivers dispatch on an integer rather than taking the kernel as a
    function argument (numba's on-disk cache cannot always re-save an entry whose
    signature holds a function type: "underlying object has vanished"). In compiled
    code the code must be a compile-time constant (drivers are compiled per protocol by
    closures over it, see :func:`run_batch_for`): a driver then compiles and links only
    the protocol it runs, so a run that uses one protocol never compiles the other four.
    """
    return KERNELS[code](store, source, T, params, rng, vs_out, sizes_out)


@overload(run_protocol, inline="always")
def _run_protocol_compiled(code, store, source, T, params, rng, vs_out, sizes_out):
    if not isinstance(code, types.IntegerLiteral):
        raise errors.TypingError(
            "run_protocol needs a compile-time constant kernel code: compile the driver per "
            "protocol (see anonspread.engine.spreading.run_batch_for)"
        )
    if code.literal_value == ADAPTIVE_DIFFUSION:
        # run_adaptive_diffusion's choice, inlined: one call that takes and returns the
        # store tuple less (~0.35 us per trial of reference counting, measured)
        def impl_ad(code, store, source, T, params, rng, vs_out, sizes_out):
            if _ad_closed_form(store[5][2], params):
                return run_adaptive_diffusion_tree(store, source, T, params, rng, vs_out, sizes_out)
            return run_adaptive_diffusion_relay(store, source, T, params, rng, vs_out, sizes_out)

        return impl_ad
    kernel = KERNELS[code.literal_value]

    def impl(code, store, source, T, params, rng, vs_out, sizes_out):
        return kernel(store, source, T, params, rng, vs_out, sizes_out)

    return impl


def run_summary(code, store, source, T, params, rng, vs_out, sizes_out):
    """:func:`run_protocol` for a caller that keeps only ``sizes_out`` and ``vs_out`` (the
    drivers of ``simulate_many``, with ``Protocol.summary_params``): for adaptive
    diffusion on a tree with room in the store, the ball is counted on the unpacked
    arrays (``_ad_tree_summary``) instead of created; ``store[9]`` then does not list the
    infected nodes. Compiled code only (a compile-time constant code, like run_protocol).
    """
    raise NotImplementedError("run_summary is for compiled drivers; call run_protocol")


@overload(run_summary, inline="always")
def _run_summary_compiled(code, store, source, T, params, rng, vs_out, sizes_out):
    if not isinstance(code, types.IntegerLiteral):
        raise errors.TypingError("run_summary needs a compile-time constant kernel code")
    if code.literal_value != ADAPTIVE_DIFFUSION:
        def impl(code, store, source, T, params, rng, vs_out, sizes_out):
            return run_protocol(code, store, source, T, params, rng, vs_out, sizes_out)

        return impl

    def impl_ad(code, store, source, T, params, rng, vs_out, sizes_out):
        # inlined into the trial loop on the unpacked arrays, returning a count: handing
        # the store tuple to a function and back costs ~0.25 us of reference counting
        start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
        if _ad_closed_form(meta[2], params) and (int(params[2]) & AD_SUMMARY_ONLY) != 0:
            dm = _max_value(dvals)
            if tpar[source] < 0 and _ad_summary_room(meta, start, nbr, T, dm):
                n = _ad_tree_summary(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, source, T,
                                     params[3], rng, vs_out, sizes_out, dm)
                return store, n
        return run_protocol(code, store, source, T, params, rng, vs_out, sizes_out)

    return impl_ad


@nb.njit(cache=True, inline="always")
def run_batch(code, store, lazy, sources, seeds, T, params, rng, sizes, vs_hops, vs_node):
    """Run ``sources.shape[0]`` independent trials of protocol ``code`` back to back.

    Finite graphs reuse one store (only the infected nodes' state is cleared between
    trials); lazy trees start a fresh realisation from ``seeds[i]`` for each trial.
    Writes ``sizes[i, t]`` (infected after step t), ``vs_hops[i]`` (hops from the
    source to the final virtual source along the infection tree, -1 if none) and
    ``vs_node[i]``. ``code`` must be a compile-time constant: call the entry point
    ``run_batch_for(code)`` (one compiled specialisation per protocol).
    """
    vs_out = np.empty(T + 1, np.int32)
    n_inf = np.int64(0)  # typed, not literal (reset_run_state)
    for i in range(sources.shape[0]):
        if lazy:
            reset_lazy(store, seeds[i])
        else:
            reset_run_state(store, n_inf)
        store, n_inf = run_summary(code, store, sources[i], T, params, rng, vs_out, sizes[i])
        vs_node[i] = vs_out[T]
        vs_hops[i] = _vs_hops(store[8], vs_out[T])
    if not lazy:
        reset_run_state(store, n_inf)
    return store


def _batch_entry(code):
    @nb.njit(cache=True)
    def entry(store, lazy, sources, seeds, T, params, rng, sizes, vs_hops, vs_node):
        return run_batch(code, store, lazy, sources, seeds, T, params, rng, sizes, vs_hops, vs_node)

    return entry


_BATCH_ENTRIES = {code: _batch_entry(code) for code in KERNELS}


def run_batch_for(code):
    """:func:`run_batch` compiled for protocol ``code``: the entry point to call from Python.

    Numba re-optimises the code of every compiled callee inside each caller, so compile
    time grows with the depth of the call chain; the drivers and the dispatch are
    therefore inlined into this one entry point.
    """
    return _BATCH_ENTRIES[code]
