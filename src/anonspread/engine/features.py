"""Compiled node features of the learned adversary (:mod:`adversaries.learned`).

Compiled ahead of time (:mod:`._features`). Graphs are CSR ``(indptr, indices)`` with
int64 ``indptr`` and int32 ``indices`` over local ids ``0..n-1`` (the infected subgraph
of a snapshot); outputs are written into the int64 arrays passed in.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _features
from anonspread.engine import _inputs as _check

__all__ = ["distance_sums", "multi_source_distance"]


def distance_sums(indptr: np.ndarray, indices: np.ndarray, total: np.ndarray,
                  ecc: np.ndarray) -> None:
    """``total[v]`` = sum of hop distances from v to every node, ``ecc[v]`` = the largest.

    The graph must be connected. O(n) on a tree (rerooting: ``total[c] = total[p] + n -
    2 size[c]``), one breadth-first search per node otherwise (O(n m)).
    """
    indptr, indices = _check.connected(indptr, indices)
    n = indptr.shape[0] - 1
    _features.distance_sums(indptr, indices, _check.out(total, np.int64, "total", min_len=n),
                            _check.out(ecc, np.int64, "ecc", min_len=n))


def multi_source_distance(indptr: np.ndarray, indices: np.ndarray, starts: np.ndarray,
                          dist: np.ndarray) -> None:
    """``dist[v]`` = hops from v to the nearest node of ``starts`` (-1: none reachable)."""
    indptr, indices = _check.csr(indptr, indices, indices_dtype=np.int32)
    n = indptr.shape[0] - 1
    _features.multi_source_distance(indptr, indices, _check.index_array(starts, n, "starts"),
                                    _check.out(dist, np.int64, "dist", min_len=n))
