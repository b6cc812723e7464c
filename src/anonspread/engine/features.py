"""Compiled node features of the learned adversary (:mod:`adversaries.learned`).

Compiled ahead of time (:mod:`._features`). Graphs are CSR ``(indptr, indices)`` with
int64 ``indptr`` and int32 ``indices`` over local ids ``0..n-1`` (the infected subgraph
of a snapshot); outputs are written into the int64 arrays passed in.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _features
from anonspread.engine import _inputs as _check
from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["TreeEnsemble", "bfs_rumor", "descending_ranks", "distance_sums", "merge_close",
           "multi_source_distance", "rows_sorted_by"]


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
              bitparallel: bool = True, max_words: int | None = None,
              total: np.ndarray | None = None, ecc: np.ndarray | None = None) -> None:
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

    With ``total`` and ``ecc`` (writeable int64 arrays of at least n entries, both or
    neither), they receive :func:`distance_sums`' arrays as well: from the same
    bit-parallel searches where the graph has cycles (a root's bit first reaching v at
    level L is L hops: no second search), else by :func:`distance_sums` itself.

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
    if (total is None) != (ecc is None):
        raise InvalidParameterError("total and ecc must be given together (or neither)")
    if total is not None:
        total = _check.out(total, np.int64, "total", min_len=n)
        ecc = _check.out(ecc, np.int64, "ecc", min_len=n)
    filled = _features.bfs_rumor(indptr, indices, _check.out(out, np.float64, "out", min_len=n),
                                 bitparallel, words, total, ecc)
    if total is not None and not filled:
        _features.distance_sums(indptr, indices, total, ecc, True)


class TreeEnsemble:
    """A fitted ensemble of binary decision trees, summed: ``baseline + sum_t leaf_t(x)``.

    The trees of a gradient-boosting model in flat arrays (one entry per node, the trees
    one after the other), scored by one compiled call per batch of rows instead of one
    call per tree (:meth:`predict`). The arrays are checked once, here: every internal
    node's children come after it in its own tree (so every path ends at a leaf), every
    feature index is a column the rows must have (``n_features``).

    Parameters
    ----------
    feature : array of int
        Column tested by each node (ignored at leaves).
    threshold : array of float
        An internal node sends a row left when its value is at most this.
    missing_left : array of bool
        Whether a missing (NaN) value goes left.
    is_leaf : array of bool
        Whether the node is a leaf.
    left, right : array of int
        Children (flat indices; ignored at leaves).
    value : array of float
        Leaf values.
    roots : array of int
        The first node of each tree, increasing; tree ``t`` holds the nodes from
        ``roots[t]`` to ``roots[t + 1] - 1`` (the last to the end).
    baseline : float
        Added to every row's sum first.
    n_features : int
        Columns the rows must have.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine.features import TreeEnsemble
    >>> # one stump: x0 <= 0.5 -> -1, else +2 (NaN goes right); baseline 0.25
    >>> ens = TreeEnsemble(feature=[0, 0, 0], threshold=[0.5, 0, 0],
    ...                    missing_left=[False, False, False], is_leaf=[False, True, True],
    ...                    left=[1, 0, 0], right=[2, 0, 0], value=[0.0, -1.0, 2.0], roots=[0],
    ...                    baseline=0.25, n_features=1)
    >>> ens.predict(np.array([[0.0], [1.0], [np.nan]])).tolist()
    [-0.75, 2.25, 2.25]
    """

    def __init__(self, feature, threshold, missing_left, is_leaf, left, right, value, roots,
                 baseline: float, n_features: int) -> None:
        def ints(a, name):
            return _check.integers(a, name, "an integer array").astype(np.int64).ravel()

        def flags(a, name):
            a = np.asarray(a)
            if a.dtype.kind not in "biu" or a.ndim != 1:
                raise InvalidParameterError(f"{name} must be a 1-d boolean array; got {a!r}"[:200])
            return a.astype(bool)

        feature, left, right, roots = (ints(feature, "feature"), ints(left, "left"),
                                       ints(right, "right"), ints(roots, "roots"))
        threshold = _check.floats(threshold, "threshold")
        value = _check.floats(value, "value")
        missing_left, is_leaf = flags(missing_left, "missing_left"), flags(is_leaf, "is_leaf")
        self.n_features = _check.integer(n_features, "n_features", low=1)
        m = feature.shape[0]
        if any(a.shape[0] != m for a in (threshold, missing_left, is_leaf, left, right, value)):
            raise InvalidParameterError(
                "feature, threshold, missing_left, is_leaf, left, right and value must have one "
                f"entry per node; got lengths {[a.shape[0] for a in (feature, threshold, missing_left, is_leaf, left, right, value)]}")
        if roots.shape[0] == 0 or roots[0] != 0 or np.any(np.diff(roots) <= 0) or roots[-1] >= m:
            raise InvalidParameterError(f"roots must start at 0 and increase within the {m} nodes; "
                                        f"got {roots.tolist()[:10]}")
        end = np.repeat(np.append(roots[1:], m), np.diff(np.append(roots, m)))  # each node's tree end
        node = np.arange(m)
        inner = ~is_leaf
        bad = inner & ((left <= node) | (left >= end) | (right <= node) | (right >= end)
                       | (feature < 0) | (feature >= self.n_features))
        if bad.any():
            k = int(np.nonzero(bad)[0][0])
            raise InvalidParameterError(
                f"node {k} must have children after it in its own tree and a feature in "
                f"[0, {self.n_features}); got left {left[k]}, right {right[k]}, feature {feature[k]}")
        self.baseline = float(baseline)
        self._arrays = (np.where(inner, feature, 0), np.where(inner, threshold, 0.0),
                        (is_leaf.astype(np.uint8) | (missing_left.astype(np.uint8) << 1)),
                        np.where(inner, left, 0), np.where(inner, right, 0), value, roots)
        for a in self._arrays:
            a.setflags(write=False)

    @property
    def n_trees(self) -> int:
        """The number of trees."""
        return int(self._arrays[-1].shape[0])

    def predict(self, X) -> np.ndarray:
        """``baseline + sum_t leaf_t(row)`` of every row of ``X`` (trees added in order).

        Parameters
        ----------
        X : array of float, shape (rows, n_features)
            NaN is a missing value.

        Returns
        -------
        numpy.ndarray of float64, shape (rows,)
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features or X.dtype.kind not in "fiub":
            raise InvalidParameterError(f"X must be a real array of shape (rows, {self.n_features}); "
                                        f"got {X.dtype} of shape {X.shape}")
        X = np.ascontiguousarray(X, np.float64)
        out = np.empty(X.shape[0], np.float64)
        _features.ensemble_sum(X, *self._arrays, self.baseline, out)
        return out


def descending_ranks(values) -> np.ndarray:
    """Rank of each value in decreasing order (0: the largest), ties sharing the mean of
    their positions, over ``n - 1`` (in [0, 1]; a single value ranks 0).

    One stable sort, then one compiled pass over the runs of equal values (NaN, sorted
    last, is a run of its own).

    Examples
    --------
    >>> from anonspread.engine.features import descending_ranks
    >>> descending_ranks([3.0, 1.0, 3.0, 2.0]).tolist()
    [0.16666666666666666, 1.0, 0.16666666666666666, 0.6666666666666666]
    """
    values = _check.floats(values, "values")
    n = values.shape[0]
    if n <= 1:
        return np.zeros(n)
    out = np.empty(n)
    if _features.ranks_from_order(values, np.argsort(-values, kind="stable"), out) != 0:  # pragma: no cover
        raise InvalidParameterError("descending_ranks: the sort gave an index out of range")
    return out


def merge_close(values, rtol: float) -> np.ndarray:
    """``values`` with each run of close finite values replaced by the run's largest.

    The finite values sorted decreasingly (one stable sort), a run continues while the gap
    to the previous value is at most ``rtol * max(1, largest |finite value|)``; infinite
    and NaN values are kept as they are; with fewer than two finite values, a copy.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine.features import merge_close
    >>> merge_close([1.0, 0.9999999, 0.5, -np.inf, 2.0], 1e-7).tolist()
    [1.0, 1.0, 0.5, -inf, 2.0]
    """
    values = _check.floats(values, "values")
    rtol = float(rtol)
    if not rtol >= 0.0:
        raise InvalidParameterError(f"rtol must be a number >= 0; got {rtol!r}")
    out = np.empty(values.shape[0])
    if _features.merge_runs(values, np.argsort(-values, kind="stable"), rtol, out) != 0:  # pragma: no cover
        raise InvalidParameterError("merge_close: the sort gave an index out of range")
    return out


def rows_sorted_by(indptr: np.ndarray, indices: np.ndarray, key) -> np.ndarray:
    """A copy of the CSR ``indices`` with every row ordered by ``key`` of its entries
    (increasing; equal keys keep their order), in O(sum of squared degrees): what a stable
    ``argsort`` of ``(row, key)`` pairs gives, without sorting the whole array.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine.features import rows_sorted_by
    >>> indptr = np.array([0, 2, 4, 6, 8], np.int64)        # the 4-cycle 0-1-2-3-0
    >>> indices = np.array([1, 3, 0, 2, 1, 3, 0, 2], np.int32)
    >>> rows_sorted_by(indptr, indices, np.array([9, 5, 7, 1], np.uint64)).tolist()
    [3, 1, 2, 0, 3, 1, 2, 0]
    """
    indptr, indices = _check.csr(indptr, indices, indices_dtype=np.int32)
    n = indptr.shape[0] - 1
    key = _check.integers(key, "key", "an integer array (one key per node)")
    if key.shape[0] < n:
        raise InvalidParameterError(f"key must have one entry per node ({n}); got {key.shape[0]}")
    key = np.ascontiguousarray(key, np.uint64)
    out = np.empty(indices.shape[0], np.int32)
    _features.sort_rows_by_key(indptr, indices, key, out)
    return out
