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
"""

from __future__ import annotations

import numba as nb
import numpy as np

from spread._store import (
    AUX,
    CHILD,
    FLAG,
    PARENT,
    SIB,
    TIME,
    expand,
    expand_into,
    reset_lazy,
    reset_run_state,
)

__all__ = [
    "run_adaptive_diffusion",
    "run_batch",
    "run_flooding",
    "run_line_protocol",
    "run_random_diffusion",
    "run_tree_protocol",
]


@nb.njit(cache=True, inline="always")
def _infect(ns, order, w, t, parent, n_inf):
    ns[w, TIME] = t
    ns[w, PARENT] = parent
    order[n_inf] = w
    return n_inf + 1


@nb.njit(cache=True, inline="always")
def _link_child(ns, parent, child):
    ns[child, SIB] = ns[parent, CHILD]
    ns[parent, CHILD] = child


@nb.njit(cache=True)
def _start(store, source, vs_out, sizes_out):
    for t in range(vs_out.shape[0]):
        vs_out[t] = -1
        sizes_out[t] = 0
    n_inf = _infect(store[8], store[9], source, 0, -1, 0)
    sizes_out[0] = 1
    return n_inf


# ---------------------------------------------------------------- baselines


@nb.njit(cache=True)
def run_flooding(store, source, T, params, rng, vs_out, sizes_out):
    n_inf = _start(store, source, vs_out, sizes_out)
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    lo = 0
    for t in range(1, T + 1):
        hi = n_inf
        for i in range(lo, hi):
            v = order[i]
            if start[v] < 0 and not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
                store = expand(store, v)
                start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
            s = start[v]
            for j in range(deg[v]):
                w = nbr[s + j]
                if ns[w, TIME] < 0:
                    n_inf = _infect(ns, order, w, t, v, n_inf)
        lo = hi
        sizes_out[t] = n_inf
    return store, n_inf


@nb.njit(cache=True)
def _diffuse(store, source, T, p, distance_rate, rng, vs_out, sizes_out):
    """Random diffusion (``distance_rate`` False) or Protocol 1 (True).

    Each boundary node v, acting at step t, infects each of its uninfected neighbours
    independently with probability p (random diffusion) or (dist(v) + 1) / (t + 1)
    (Protocol 1), dist(v) being v's hop count from the source along the infection path.
    """
    n_inf = _start(store, source, vs_out, sizes_out)
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    first = 0  # every node before ``first`` in infection order is saturated
    for t in range(1, T + 1):
        n_prev = n_inf
        advancing = True
        for i in range(first, n_prev):
            v = order[i]
            if ns[v, FLAG] == 1:
                if advancing:
                    first = i + 1
                continue
            if start[v] < 0 and not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
                store = expand(store, v)
                start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
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
                    first = i + 1
            else:
                advancing = False
        sizes_out[t] = n_inf
    return store, n_inf


@nb.njit(cache=True)
def run_random_diffusion(store, source, T, params, rng, vs_out, sizes_out):
    return _diffuse(store, source, T, params[0], False, rng, vs_out, sizes_out)


@nb.njit(cache=True)
def run_line_protocol(store, source, T, params, rng, vs_out, sizes_out):
    return _diffuse(store, source, T, 0.0, True, rng, vs_out, sizes_out)


# ---------------------------------------------------------------- Protocol 2


@nb.njit(cache=True)
def run_tree_protocol(store, source, T, params, rng, vs_out, sizes_out):
    """Protocol 2 (thesis §2.2.2); s1 lives in FLAG and s2 in AUX."""
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
    n_inf = _infect(ns, order, u, 1, source, n_inf)
    ns[u, FLAG] = 1
    ns[u, AUX] = 1
    sizes_out[1] = n_inf
    buf = np.empty(16, np.int32)
    for t in range(2, T + 1):
        n_prev = n_inf
        for i in range(1, n_prev):
            v = order[i]
            if ns[v, AUX] <= 0:
                continue
            if start[v] < 0 and not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
                store = expand(store, v)
                start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
            s = start[v]
            if ns[v, FLAG] == 1:
                if buf.shape[0] < deg[v]:
                    buf = np.empty(2 * deg[v], np.int32)
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
        sizes_out[t] = n_inf
    return store, n_inf


# ---------------------------------------------------------------- Protocol 3


@nb.njit(cache=True)
def _relay(store, x0, exclude, t, cap, graph_relay, rng, n_inf, stack, visit, buf):
    """Protocol 3's Infection Message, sent by ``x0`` away from ``exclude``.

    With ``graph_relay`` False the message travels along infection-tree edges (never
    back where it came from); with True it is forwarded once to every infected contact
    (a flood over the infected subgraph that never enters ``exclude``). Every node it
    reaches infects its uninfected contacts, at most ``cap`` of them (a uniform random
    subset) when ``cap >= 0``. On a tree without cap both are the thesis's procedure
    (only the leaves have uninfected contacts).
    """
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    # collect the nodes the message reaches before anyone is newly infected
    top = 0
    nvis = 0
    stack[top] = x0
    top += 1
    if graph_relay:
        stamp = -(t + 2)  # FLAG holds node ids in tree mode, stamps (< -1) here
        if exclude >= 0:
            ns[exclude, FLAG] = stamp
        ns[x0, FLAG] = stamp
        while top > 0:
            top -= 1
            x = stack[top]
            visit[nvis] = x
            nvis += 1
            if start[x] < 0 and not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, x):
                store = expand(store, x)
                start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
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
    for i in range(nvis):
        x = visit[i]
        if start[x] < 0 and not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, x):
            store = expand(store, x)
            start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
        s = start[x]
        k = 0
        for j in range(deg[x]):
            w = nbr[s + j]
            if ns[w, TIME] < 0:
                buf[k] = w
                k += 1
        if cap >= 0 and k > cap:
            for j in range(cap):  # partial Fisher-Yates: a uniform cap-subset
                r = j + rng.integers(0, k - j)
                tmp = buf[j]
                buf[j] = buf[r]
                buf[r] = tmp
            k = cap
        for j in range(k):
            w = buf[j]
            n_inf = _infect(ns, order, w, t, x, n_inf)
            _link_child(ns, x, w)
    return store, n_inf


@nb.njit(cache=True)
def run_adaptive_diffusion(store, source, T, params, rng, vs_out, sizes_out):
    """Protocol 3 (thesis §2.3, §2.4.2).

    ``params = [cap, maxdeg, graph_relay, alpha.ravel()...]`` where ``alpha[t, h]`` (shape
    ``(T + 1, T // 2 + 2)``) is the probability that the virtual source keeps the
    token at even time ``t`` when it is ``h`` hops from the source.
    """
    cap = int(params[0])
    maxdeg = int(params[1])
    graph_relay = params[2] > 0.5
    width = T // 2 + 2
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
    n_inf = _infect(ns, store[9], u, 1, source, n_inf)
    _link_child(ns, source, u)
    vs = u
    from_vs = source
    h = 1
    vs_out[1] = vs
    sizes_out[1] = n_inf
    n_cap = store[0].shape[0]
    stack = np.empty(n_cap, np.int32)
    visit = np.empty(n_cap, np.int32)
    buf = np.empty(max(maxdeg, 1), np.int32)
    if T >= 2:
        store, n_inf = _relay(store, vs, from_vs, 2, cap, graph_relay, rng, n_inf, stack, visit, buf)
        vs_out[2] = vs
        sizes_out[2] = n_inf
    t = 3
    while t <= T:
        if stack.shape[0] < n_inf + 1:
            stack = np.empty(2 * (n_inf + 1), np.int32)
            visit = np.empty(2 * (n_inf + 1), np.int32)
        ns = store[8]
        keep = rng.random() < params[3 + (t - 1) * width + h]
        if not keep:
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
            store, n_inf = _relay(store, vs, -1, t, cap, graph_relay, rng, n_inf, stack, visit, buf)
            vs_out[t] = vs
            sizes_out[t] = n_inf
            if t + 1 <= T:
                vs_out[t + 1] = vs
                sizes_out[t + 1] = n_inf
        else:
            store, n_inf = _relay(store, vs, from_vs, t, cap, graph_relay, rng, n_inf, stack, visit, buf)
            vs_out[t] = vs
            sizes_out[t] = n_inf
            if t + 1 <= T:
                if stack.shape[0] < n_inf + 1:
                    stack = np.empty(2 * (n_inf + 1), np.int32)
                    visit = np.empty(2 * (n_inf + 1), np.int32)
                store, n_inf = _relay(store, vs, from_vs, t + 1, cap, graph_relay, rng, n_inf, stack, visit, buf)
                vs_out[t + 1] = vs
                sizes_out[t + 1] = n_inf
        t += 2
    return store, n_inf


# ---------------------------------------------------------------- Monte Carlo driver


@nb.njit(cache=True)
def _vs_hops(store, vs, n_inf):
    """Hop count from the source (order[0]) to ``vs`` along infection-tree parents."""
    if vs < 0:
        return -1
    ns = store[8]
    h = 0
    x = vs
    while ns[x, PARENT] >= 0:
        x = ns[x, PARENT]
        h += 1
    return h


@nb.njit(cache=True)
def run_batch(run, store, lazy, sources, seeds, T, params, rng, sizes, vs_hops, vs_node):
    """Run ``sources.shape[0]`` independent trials of ``run`` back to back.

    Finite graphs reuse one store (only the infected nodes' state is cleared between
    trials); lazy trees start a fresh realisation from ``seeds[i]`` for each trial.
    Writes ``sizes[i, t]`` (infected after step t), ``vs_hops[i]`` (hops from the
    source to the final virtual source along the infection tree, -1 if none) and
    ``vs_node[i]``.
    """
    vs_out = np.empty(T + 1, np.int32)
    n_inf = 0
    for i in range(sources.shape[0]):
        if lazy:
            reset_lazy(store, seeds[i])
        else:
            reset_run_state(store, n_inf)
        store, n_inf = run(store, sources[i], T, params, rng, vs_out, sizes[i])
        vs_node[i] = vs_out[T]
        vs_hops[i] = _vs_hops(store, vs_out[T], n_inf)
    if not lazy:
        reset_run_state(store, n_inf)
    return store
