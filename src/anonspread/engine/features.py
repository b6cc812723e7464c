"""Compiled node features of the learned adversary (:mod:`adversaries.learned`).

Compiled ahead of time (:mod:`._features`). Graphs are CSR ``(indptr, indices)`` with
int64 ``indptr`` and int32 ``indices`` over local ids ``0..n-1`` (the infected subgraph
of a snapshot); outputs are written into the int64 arrays passed in.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _features
from anonspread.engine import _inputs as _check
from anonspread.errors import InvalidTypeError

__all__ = ["bfs_rumor", "distance_sums", "multi_source_distance"]


def distance_sums(indptr: np.ndarray, indices: np.ndarray, total: np.ndarray,
                  ecc: np.ndarray, *, bitparallel: bool = True) -> None:
    """``total[v]`` = sum of hop distances from v to every node, ``ecc[v]`` = the largest.

    The graph must be connected (and undirected). O(n) on a tree (rerooting:
    ``total[c] = total[p] + n - 2 size[c]``); otherwise breadth-first searches from 64
    nodes at once, one bit of a word per source (``bitparallel=True``, the default:
    O(ceil(n / 64) x levels x (n + m)) word operations; 10-20x faster than one search per
    node on the snapshots the learned adversary trains on), or one breadth-first search
    per node (``bitparallel=False``, O(n m), the reference). Both give the same arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine.features import distance_sums
    >>> indptr = np.array([0, 2, 4, 6, 8], np.int64)        # the 4-cycle 0-1-2-3-0
    >>> indices = np.array([1, 3, 0, 2, 1, 3, 0, 2], np.int32)
    >>> total, ecc = np.empty(4, np.int64), np.empty(4, np.int64)
    >>> distance_sums(indptr, indices, total, ecc)
    >>> total.tolist(), ecc.tolist()
    ([4, 4, 4, 4], [2, 2, 2, 2])
    """
    indptr, indices = _check.connected(indptr, indices)
    n = indptr.shape[0] - 1
    if not isinstance(bitparallel, bool):
        raise InvalidTypeError(f"bitparallel must be True or False; got {bitparallel!r}")
    _features.distance_sums(indptr, indices, _check.out(total, np.int64, "total", min_len=n),
                            _check.out(ecc, np.int64, "ecc", min_len=n), bitparallel)


def multi_source_distance(indptr: np.ndarray, indices: np.ndarray, starts: np.ndarray,
                          dist: np.ndarray) -> None:
    """``dist[v]`` = hops from v to the nearest node of ``starts`` (-1: none reachable)."""
    indptr, indices = _check.csr(indptr, indices, indices_dtype=np.int32)
    n = indptr.shape[0] - 1
    _features.multi_source_distance(indptr, indices, _check.index_array(starts, n, "starts"),
                                    _check.out(dist, np.int64, "dist", min_len=n))



def bfs_rumor(indptr: np.ndarray, indices: np.ndarray, out: np.ndarray, *,
              bitparallel: bool = True, max_words: int | None = None) -> None:
    """``out[v]`` = log rumour centrality of v on a breadth-first-search tree rooted at v.

    ``log R(v) = log n! - sum_u log T_u^v``, ``T_u^v`` the size of u's subtree in the tree
    (Shah & Zaman 2011), the tree rooted at v giving every other node w, as its parent,
    the first neighbour in w's CSR row that is one hop closer to v. The graph must be
    connected (and undirected).

    On a tree the tree is the graph itself: the exact rumour centrality of every node, by
    rerooting in O(n). On a graph with cycles this is the BFS heuristic of the ``rumor``
    estimator (:func:`anonspread.engine.rumor.graph_rumor`: a BFS tree rooted at each
    candidate), with another choice among the shortest-path parents: ``graph_rumor`` takes
    the neighbour its BFS queue reaches first, which depends on the whole search and cannot
    be shared between searches; the rule here depends only on the distances, so 64 searches
    run at once, one bit of a word per root (``bitparallel=True``, the default:
    O(ceil(n / 64) x (e + 1) x (n + m)) word operations, e the largest eccentricity, plus
    O(n^2) for the subtree sizes; 256 n bytes of sizes, and every level's frontier
    words, 8 n bytes a level, while they fit in ``max_words`` words (default
    ``max(64 n, 2^24)``; beyond, a parent per node and root, 256 n bytes more, and the
    same trees), instead of one per node (``bitparallel=False``, O(n m), the reference). Both give the same trees, hence the same scores up to the
    order of a floating-point sum. Where every node has a unique shortest-path parent
    towards every root, the scores are ``graph_rumor``'s.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine.features import bfs_rumor
    >>> indptr = np.array([0, 2, 4, 6, 8], np.int64)        # the 4-cycle 0-1-2-3-0
    >>> indices = np.array([1, 3, 0, 2, 1, 3, 0, 2], np.int32)
    >>> out = np.empty(4)
    >>> bfs_rumor(indptr, indices, out)   # every root: a path with the root second
    >>> np.round(np.exp(out), 6).tolist()
    [3.0, 3.0, 3.0, 3.0]
    """
    indptr, indices = _check.connected(indptr, indices)
    n = indptr.shape[0] - 1
    if not isinstance(bitparallel, bool):
        raise InvalidTypeError(f"bitparallel must be True or False; got {bitparallel!r}")
    words = -1 if max_words is None else _check.integer(max_words, "max_words", low=0)
    _features.bfs_rumor(indptr, indices, _check.out(out, np.float64, "out", min_len=n),
                        bitparallel, words)
