"""Per-graph statistics computed once per graph (compiled ahead of time, :mod:`._graphs`)."""

from __future__ import annotations

import numpy as np

from anonspread.engine import _graphs
from anonspread.engine import _inputs as _check

__all__ = ["connected_components", "triangles"]


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


def connected_components(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Connected components of the CSR graph ``(indptr, indices)``, each arc read as an
    undirected edge (as ``scipy.sparse.csgraph.connected_components(..., directed=False)``).

    Union-find with path halving over the arcs, each root the smallest node of its tree:
    O(m log n) time at worst, 12 bytes per node of memory and no copy of the arrays
    (scipy's builds a CSR matrix of its own, about 26 bytes per arc).

    Parameters
    ----------
    indptr : numpy.ndarray of int64, shape (n + 1,)
        CSR row offsets.
    indices : numpy.ndarray of int32 or int64
        CSR neighbours.

    Returns
    -------
    labels : numpy.ndarray of int32, shape (n,)
        Each node's component, numbered 0, 1, ... in the order of the components'
        smallest nodes.
    sizes : numpy.ndarray of int64
        The number of nodes of each component.

    Examples
    --------
    >>> import numpy as np
    >>> indptr = np.array([0, 1, 2, 2, 3, 4]); indices = np.array([1, 0, 4, 3])
    >>> labels, sizes = connected_components(indptr, indices)
    >>> labels.tolist(), sizes.tolist()
    ([0, 0, 1, 2, 2], [2, 1, 2])
    """
    indptr, indices = _check.csr(indptr, indices)
    return _graphs.components(indptr, indices)
