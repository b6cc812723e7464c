"""Per-graph statistics computed once per graph (compiled ahead of time, :mod:`._graphs`)."""

from __future__ import annotations

import numpy as np

from anonspread.engine import _graphs
from anonspread.engine import _inputs as _check

__all__ = ["triangles"]


def triangles(indptr: np.ndarray, indices: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Triangles through each node of ``nodes`` of the CSR graph ``(indptr, indices)``.

    For each node, its neighbours are marked and every two-step walk from it that ends on a
    marked node counted; each triangle is walked twice. Returns an int64 array, one count
    per entry of ``nodes``.

    Examples
    --------
    >>> import numpy as np
    >>> indptr = np.array([0, 2, 4, 6]); indices = np.array([1, 2, 0, 2, 0, 1])
    >>> triangles(indptr, indices, np.arange(3)).tolist()
    [1, 1, 1]
    """
    indptr, indices = _check.csr(indptr, indices)
    return _graphs.triangles(indptr, indices,
                             _check.index_array(nodes, indptr.shape[0] - 1, "nodes"))
