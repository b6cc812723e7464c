"""Per-graph statistics computed once per graph (compiled ahead of time, :mod:`._graphs`)."""

from __future__ import annotations

import numpy as np

from anonspread.engine import _graphs
from anonspread.engine import _inputs as _check
from anonspread.errors import InvalidParameterError

__all__ = ["connected_components", "induced_subgraph", "triangles"]


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


def induced_subgraph(indptr: np.ndarray, indices: np.ndarray,
                     nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The subgraph of the CSR graph ``(indptr, indices)`` induced by ``nodes``.

    Node ``nodes[i]`` becomes local node ``i``; an arc ``(v, u)`` of the graph is kept when
    both ends are in ``nodes``, in the order of ``v``'s row (self-loops and repeated arcs
    kept as they are). Two passes over the rows of ``nodes`` and one int32 array of the
    graph's size (4 bytes per node of the whole graph) beside the result: no array of the
    length of the rows read, unlike a vectorised numpy gather (several int64 arrays of the
    summed degree of ``nodes``).

    Parameters
    ----------
    indptr : numpy.ndarray of int64, shape (n + 1,)
        CSR row offsets.
    indices : numpy.ndarray of int32 or int64
        CSR neighbours.
    nodes : numpy.ndarray of int
        Distinct node indices in ``0..n-1``; fewer than 2^31.

    Returns
    -------
    indptr : numpy.ndarray of int64, shape (len(nodes) + 1,)
    indices : numpy.ndarray of int32
        The induced subgraph over local ids ``0..len(nodes)-1``.

    Raises
    ------
    InvalidParameterError
        When ``nodes`` is out of range, repeats a node, or has 2^31 entries or more.

    Examples
    --------
    >>> import numpy as np
    >>> indptr = np.array([0, 2, 4, 6]); indices = np.array([1, 2, 0, 2, 0, 1])  # a triangle
    >>> p, q = induced_subgraph(indptr, indices, np.array([2, 0]))
    >>> p.tolist(), q.tolist()
    ([0, 1, 2], [1, 0])
    """
    indptr = _check.integers(indptr, "indptr", "a 1-d integer array (CSR row offsets)")
    indices = _check.integers(indices, "indices", "a 1-d integer array (CSR neighbours)")
    nodes = _check.integers(nodes, "nodes", "a 1-d integer array of distinct node indices")
    if indptr.shape[0] < 1:
        raise InvalidParameterError("indptr must hold at least one entry (len = nodes + 1)")
    if nodes.shape[0] >= 2**31:
        raise InvalidParameterError(
            f"nodes must hold fewer than 2^31 entries (local ids are int32); got {nodes.shape[0]}")
    indptr = np.ascontiguousarray(indptr, np.int64)
    if indices.dtype != np.int32:
        indices = np.ascontiguousarray(indices, np.int64)
    nodes = np.ascontiguousarray(nodes, np.int64)
    code, p, q = _graphs.induced_subgraph(indptr, np.ascontiguousarray(indices), nodes)
    if code:
        n = indptr.shape[0] - 1
        raise InvalidParameterError({
            1: f"nodes must hold node indices in 0..{n - 1}; got {p}",
            2: f"nodes must be distinct; node {p} appears more than once",
            3: f"indptr must give node {p} a row within indices (0 <= indptr[v] <= indptr[v + 1] "
               f"<= len(indices) = {indices.shape[0]})",
            4: f"indices must be node indices in 0..{n - 1}; got {p}",
        }[code])
    return p, q
