"""The graph store shared by every spreading kernel (compiled: :mod:`._store`).

A :class:`GraphStore` names the flat arrays a kernel reads and grows:

==========  =====================================================================
field       meaning
==========  =====================================================================
start       int64[n]: offset of node v's neighbour block in ``nbr``; -1 while a
            lazily grown node is not expanded yet
deg         int32[n]: degree of node v in the contact graph
nbr         int32[m]: neighbour blocks (CSR ``indices`` for finite graphs)
tpar        int32[n]: lazy trees only: the tree parent of v (-1 for the root)
key         uint64[n]: lazy trees only: a hash of v's position (its degree draw)
dvals       int32[k]: lazy trees: the degree values
dcdf        float64[k]: lazy trees: their cumulative probabilities
ns          int32[n, NCOL]: per-run node state (see the column constants)
order       int32[n]: infected nodes of the current run, in infection order
==========  =====================================================================

and the counters ``n_nodes`` (nodes in use), ``n_nbr`` (neighbour slots in use) and
``lazy``. Finite graphs are plain CSR and never grow. Infinite trees (``line``,
``regular_tree``, ``random_tree``) allocate a node's children the first time the node is
expanded, so a run touches only what it needs; when the arrays are full they are doubled
(the fields then name the new arrays).

A lazily grown node's degree is drawn from a counter-based generator (splitmix64) keyed
on its *position* in the tree (root seed, then child indices), not on allocation order:
the realisation of a random tree is a fixed function of its seed, whichever runs touch it
first.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _store
from anonspread.engine._store import GraphStore
from anonspread.errors import InvalidParameterError

__all__ = ["AUX", "CHILD", "FLAG", "NCOL", "PARENT", "SIB", "TIME", "GraphStore",
           "new_finite_store", "new_lazy_store"]

# Columns of the per-run node state ``ns`` (one definition: the enum of _store.pxd):
# TIME, the step at which the node was infected (-1 if uninfected); PARENT, the node that
# infected it (-1 for the source); CHILD, the head of its list of infection-tree children
# (-1: none); SIB, the next sibling in its parent's child list; AUX, protocol scratch
# (distance to the source in Protocol 1, s2 in Protocol 2, the contact slots known to be
# infected in adaptive diffusion's relay); FLAG, protocol scratch (s1 in
# Protocol 2, "saturated" for the diffusions); NCOL, the number of columns.
TIME, PARENT, CHILD, SIB, AUX, FLAG, NCOL = (
    _store.COLUMNS[k] for k in ("TIME", "PARENT", "CHILD", "SIB", "AUX", "FLAG", "NCOL"))


def _clean_state(n: int) -> np.ndarray:
    ns = np.empty((n, NCOL), np.int32)
    ns[:, :AUX] = -1
    ns[:, AUX:] = 0
    return ns


def new_finite_store(indptr: np.ndarray, indices: np.ndarray) -> GraphStore:
    """A store over a finite CSR graph (never grows)."""
    indptr, indices = _check.csr(indptr, indices, indices_dtype=np.int32)
    n = indptr.shape[0] - 1
    return GraphStore(
        np.ascontiguousarray(indptr[:-1], dtype=np.int64),
        np.ascontiguousarray(np.diff(indptr), dtype=np.int32),
        np.ascontiguousarray(indices, dtype=np.int32),  # shared with the graph: never written
        np.full(n, -1, np.int32),
        np.zeros(n, np.uint64),
        np.ones(1, np.int32),
        np.ones(1, np.float64),
        _clean_state(n),
        np.empty(n, np.int32),
        n,
        indices.shape[0],
        False,
    )


def new_lazy_store(dvals: np.ndarray, dcdf: np.ndarray, seed: int, capacity: int = 1024) -> GraphStore:
    """An empty lazy tree (only its root, node 0, exists) with room for ``capacity`` nodes."""
    capacity = max(_check.integer(capacity, "capacity", low=0, high=2**31 - 2), 16)
    dvals = _check.index_array(dvals, 2**31 - 1, "dvals", dtype=np.int32, min_len=1)
    dcdf = _check.floats(dcdf, "dcdf", min_len=dvals.shape[0])
    if dcdf.shape != dvals.shape:
        raise InvalidParameterError(f"dcdf must have one entry per degree value "
                                    f"({dvals.shape[0]}); got {dcdf.shape[0]}")
    seed = _check.integer(seed, "seed")
    store = GraphStore(
        np.full(capacity, -1, np.int64),
        np.zeros(capacity, np.int32),
        np.empty(2 * capacity, np.int32),
        np.full(capacity, -1, np.int32),
        np.zeros(capacity, np.uint64),
        np.array(dvals, dtype=np.int32, order="C"),
        np.array(dcdf, dtype=np.float64, order="C"),
        _clean_state(capacity),
        np.empty(capacity, np.int32),
        1,
        0,
        True,
    )
    store.reset_lazy(int(seed) % 2**64)
    return store
