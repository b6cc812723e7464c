"""Flat-array graph store shared by every compiled spreading kernel.

A *store* is a tuple of numpy arrays that the numba kernels read and grow:

====  ==========  ===============================================================
idx   name        meaning
====  ==========  ===============================================================
0     start       int64[n]: offset of node v's neighbour block in ``nbr``; -1 while a
                  lazily grown node is not expanded yet
1     deg         int32[n]: degree of node v in the contact graph
2     nbr         int32[m]: neighbour blocks (CSR ``indices`` for finite graphs)
3     tpar        int32[n]: lazy trees only: the tree parent of v (-1 for the root)
4     key         uint64[n]: lazy trees only: a hash of v's position (its degree draw)
5     meta        int64[3]: (nodes in use, neighbour slots in use, lazy flag)
6     dvals       int32[k]: lazy trees: the degree values
7     dcdf        float64[k]: lazy trees: their cumulative probabilities
8     ns          int32[n, NCOL]: per-run node state (see the column constants)
9     order       int32[n]: infected nodes of the current run, in infection order
====  ==========  ===============================================================

Finite graphs are plain CSR and never grow. Infinite trees (``line``, ``regular_tree``,
``random_tree``) allocate a node's children the first time the node is expanded, so a
run touches only what it needs; when the arrays are full they are doubled inside the
kernel and the new tuple is returned (callers always rebind ``store``).

A lazily grown node's degree is drawn from a counter-based generator keyed on its
*position* in the tree (root seed, then child indices), not on allocation order: the
realisation of a random tree is a fixed function of its seed, whichever runs touch it
first.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = ["NCOL", "expand", "max_degree", "new_finite_store", "new_lazy_store", "reserve", "touch"]

# Columns of the per-run node state ``ns``.
TIME = 0  # step at which the node was infected, -1 if uninfected
PARENT = 1  # the node that infected it (-1 for the source)
CHILD = 2  # head of its list of infection-tree children (-1: none)
SIB = 3  # next sibling in its parent's child list
AUX = 4  # protocol scratch: distance to the source (Protocol 1) or s2 (Protocol 2)
FLAG = 5  # protocol scratch: s1 (Protocol 2) or "saturated" (diffusions)
NCOL = 6

_M_NODES = 0
_M_NBR = 1
_M_LAZY = 2

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@nb.njit(cache=True, inline="always")
def _splitmix64(x):
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# Small helpers that take arrays are plain functions, not ``inline="always"``: numba's IR
# inlining binds every array argument to a new variable with a reference-count update
# (atomic, ~4 ns each) that its pruning pass cannot remove when the helper has a branch
# or a loop; a plain call is inlined by LLVM instead, at no cost (measured: creating a
# 3-regular node's children 160 ns with the inlined helpers, 10 ns without).
@nb.njit(cache=True)
def _draw_degree(key, dvals, dcdf):
    n = dvals.shape[0]
    if n == 1:
        return dvals[0]
    u = float(_splitmix64(key ^ np.uint64(0xD1B54A32D192ED03)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    # a linear scan: degree distributions have a handful of values
    for j in range(n - 1):
        if u < dcdf[j]:
            return dvals[j]
    return dvals[n - 1]


@nb.njit(cache=True)
def _init_node_state(ns, v):
    ns[v, TIME] = -1
    ns[v, PARENT] = -1
    ns[v, CHILD] = -1
    ns[v, SIB] = -1
    ns[v, AUX] = 0
    ns[v, FLAG] = 0


@nb.njit(cache=True)
def _grow_nodes(store, need):
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    cap = start.shape[0]
    if need <= cap:
        return store
    new = max(need, 2 * cap)
    start2 = np.empty(new, np.int64)
    start2[:cap] = start
    deg2 = np.empty(new, np.int32)
    deg2[:cap] = deg
    tpar2 = np.empty(new, np.int32)
    tpar2[:cap] = tpar
    key2 = np.empty(new, np.uint64)
    key2[:cap] = key
    ns2 = np.empty((new, ns.shape[1]), np.int32)
    ns2[:cap] = ns
    order2 = np.empty(new, np.int32)
    order2[:cap] = order
    return (start2, deg2, nbr, tpar2, key2, meta, dvals, dcdf, ns2, order2)


@nb.njit(cache=True)
def _grow_nbr(store, need):
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    cap = nbr.shape[0]
    if need <= cap:
        return store
    new = max(need, 2 * cap)
    nbr2 = np.empty(new, np.int32)
    nbr2[:cap] = nbr
    return (start, deg, nbr2, tpar, key, meta, dvals, dcdf, ns, order)


@nb.njit(cache=True, inline="always")
def expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
    """Create the children of lazy node ``v`` in place.

    Returns False, doing nothing, when the arrays are too small: the caller then
    calls :func:`expand`, which grows them. Kernels hold the store's arrays in local
    variables and call this on the hot path, since taking arrays out of the store
    tuple costs reference-count updates.
    """
    has_parent = 1 if tpar[v] >= 0 else 0
    k = deg[v] - has_parent
    if meta[_M_NODES] + k > start.shape[0] or meta[_M_NBR] + k + has_parent > nbr.shape[0]:
        return False
    pos = meta[_M_NBR]
    start[v] = pos
    if has_parent:
        nbr[pos] = tpar[v]
        pos += 1
    kv = key[v]
    c = meta[_M_NODES]
    for j in range(k):
        kc = _splitmix64(kv + np.uint64(j + 1) * _GOLDEN)
        key[c] = kc
        deg[c] = _draw_degree(kc, dvals, dcdf)
        tpar[c] = v
        start[c] = -1
        _init_node_state(ns, c)
        nbr[pos] = c
        pos += 1
        c += 1
    meta[_M_NODES] = c
    meta[_M_NBR] = pos
    return True


@nb.njit(cache=True)
def reserve(store, m):
    """Make room to expand ``m`` more lazy nodes (a no-op on finite graphs).

    Kernels call this once per step, before their inner loop, so that the inner loop
    never has to grow (and so rebind) the store's arrays: a rebinding inside a numba
    loop costs reference-count traffic on every iteration.
    """
    meta = store[5]
    if meta[_M_LAZY] == 0 or m <= 0:
        return store
    dm = store[6].max()
    store = _grow_nodes(store, meta[_M_NODES] + m * dm)
    return _grow_nbr(store, meta[_M_NBR] + m * dm)


@nb.njit(cache=True, inline="always")
def touch(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
    """Expand ``v`` if needed, in room made by :func:`reserve`."""
    if start[v] < 0:
        if not expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v):
            raise RuntimeError("anonspread internal error: lazy store used without reserve()")


@nb.njit(cache=True)
def max_degree(store):
    """Largest degree a node of this store can have."""
    if store[5][_M_LAZY] == 1:
        return int(store[6].max())
    n = store[5][_M_NODES]
    return int(store[1][:n].max()) if n > 0 else 0


@nb.njit(cache=True)
def expand(store, v):
    """Make sure node ``v``'s neighbours exist; returns the (possibly regrown) store."""
    if store[0][v] >= 0:
        return store
    meta = store[5]
    has_parent = 1 if store[3][v] >= 0 else 0
    k = store[1][v] - has_parent
    store = _grow_nodes(store, meta[_M_NODES] + k)
    store = _grow_nbr(store, meta[_M_NBR] + k + has_parent)
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    expand_into(start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, v)
    return store


@nb.njit(cache=True)
def reset_lazy(store, seed):
    """Forget a lazy tree's realisation and start a new one from root seed ``seed``."""
    start, deg, nbr, tpar, key, meta, dvals, dcdf, ns, order = store
    meta[_M_NODES] = 1
    meta[_M_NBR] = 0
    key[0] = seed
    deg[0] = _draw_degree(seed, dvals, dcdf)
    tpar[0] = -1
    start[0] = -1
    _init_node_state(ns, np.int64(0))


@nb.njit(cache=True)
def reset_run_state(store, n_inf):
    """Clear the per-run state of the ``n_inf`` nodes infected by the previous run."""
    ns = store[8]
    order = store[9]
    for i in range(n_inf):
        _init_node_state(ns, np.int64(order[i]))


def new_finite_store(indptr: np.ndarray, indices: np.ndarray):
    """A store over a finite CSR graph (never grows)."""
    n = indptr.shape[0] - 1
    start = np.ascontiguousarray(indptr[:-1], dtype=np.int64)
    deg = np.ascontiguousarray(np.diff(indptr), dtype=np.int32)
    ns = np.empty((n, NCOL), np.int32)
    ns[:, TIME] = -1
    ns[:, PARENT] = -1
    ns[:, CHILD] = -1
    ns[:, SIB] = -1
    ns[:, AUX] = 0
    ns[:, FLAG] = 0
    return (
        start,
        deg,
        np.ascontiguousarray(indices, dtype=np.int32),
        np.full(n, -1, np.int32),
        np.zeros(n, np.uint64),
        np.array([n, indices.shape[0], 0], np.int64),
        np.ones(1, np.int32),
        np.ones(1, np.float64),
        ns,
        np.empty(n, np.int32),
    )


def new_lazy_store(dvals: np.ndarray, dcdf: np.ndarray, seed: int, capacity: int = 1024):
    """An empty lazy tree (only its root, node 0, exists) with room for ``capacity`` nodes."""
    capacity = max(int(capacity), 16)
    store = (
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int32),
        np.empty(2 * capacity, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.uint64),
        np.array([1, 0, 1], np.int64),
        np.ascontiguousarray(dvals, dtype=np.int32),
        np.ascontiguousarray(dcdf, dtype=np.float64),
        np.empty((capacity, NCOL), np.int32),
        np.empty(capacity, np.int32),
    )
    reset_lazy(store, np.uint64(seed))
    return store
