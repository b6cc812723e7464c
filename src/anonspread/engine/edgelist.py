"""Edge lists at the speed of the disk (compiled ahead of time, :mod:`._edgelist`).

Two kernels beneath :func:`anonspread.spread.graphs.from_edgelist`:

* :class:`Tokenizer`, fed buffers of bytes, turns edge lines into two int32 arrays of node
  ids and a table of distinct node names (ints, or their text), never a Python object per
  line. It stops at every line its caller must see (the header, a comment that may say
  "directed", an error) and says why (``EV_*``);
* :func:`simple_csr_counts`, the undirected simple graph of a list of arcs as CSR
  (self-loops and duplicates dropped, each row's neighbours in increasing order), with the
  counts that tell a directed list from an undirected one: a counting sort of the arcs by
  row, then a small sort per row; no hash-based ``np.unique``, no ``lexsort``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from anonspread.engine import _edgelist
from anonspread.engine._edgelist import (
    EV_BIGINT,
    EV_COMMENT,
    EV_HEADER,
    EV_LIMIT,
    EV_LINE,
    EV_LONG,
    EV_MORE,
    EV_UTF8,
    MODE_INT,
    MODE_INTTEXT,
    MODE_TEXT,
    Tokenizer,
)

__all__ = [
    "EV_BIGINT",
    "EV_COMMENT",
    "EV_HEADER",
    "EV_LIMIT",
    "EV_LINE",
    "EV_LONG",
    "EV_MORE",
    "EV_UTF8",
    "MODE_INT",
    "MODE_INTTEXT",
    "MODE_TEXT",
    "SimpleCSR",
    "Tokenizer",
    "simple_csr",
    "simple_csr_counts",
]

_MAX_NODES = 2**31 - 1


def _ids(name: str, x: Any, n: int) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a 1-d array of int node ids; got {x.dtype} of shape {x.shape}")
    if x.dtype != np.int32:
        if x.size and (x.min() < 0 or x.max() >= n):
            raise ValueError(f"node ids must be in [0, {n}); got {name} from {x.min()} to {x.max()}")
        x = x.astype(np.int32)
    return np.ascontiguousarray(x)


class SimpleCSR(NamedTuple):
    """The undirected simple graph of a list of arcs, and what the arcs held.

    ``indptr`` (int64) and ``indices`` (int32): row ``u``'s neighbours
    ``indices[indptr[u]:indptr[u + 1]]`` in increasing order. ``self_loops`` counts the
    loops, ``lines`` the other arcs, ``arcs`` the distinct oriented ones among them and
    ``pairs`` the distinct unordered ones (the graph's edges).
    """

    indptr: np.ndarray
    indices: np.ndarray
    self_loops: int
    lines: int
    arcs: int
    pairs: int


def simple_csr_counts(n: int, a: np.ndarray, b: np.ndarray) -> SimpleCSR:
    """CSR of the undirected simple graph with edges ``(a[i], b[i])`` on ``n`` nodes, with
    the counts that tell a directed list from an undirected one.

    Each arc is written into the rows of both its ends (a counting sort by row), then each
    row is sorted (insertion sort when short, radix sort when long) and its duplicates
    dropped in place: linear in the arcs, no global sort, no hash-based ``np.unique``.

    Parameters
    ----------
    n : int
        Number of nodes, at most 2^31 - 1.
    a, b : numpy.ndarray of int
        Arc ends, node ids in ``[0, n)`` (int32 arrays are used without a copy).

    Returns
    -------
    SimpleCSR

    Examples
    --------
    >>> import numpy as np
    >>> g = simple_csr_counts(3, np.array([0, 1, 1, 2]), np.array([1, 0, 1, 0]))
    >>> g.indptr.tolist(), g.indices.tolist(), g.self_loops, g.lines, g.arcs, g.pairs
    ([0, 2, 3, 4], [1, 2, 0, 0], 1, 3, 3, 2)
    """
    n = int(n)
    if not 0 <= n <= _MAX_NODES:
        raise ValueError(f"n must be in [0, 2^31 - 1]; got {n}")
    a, b = _ids("a", a, n), _ids("b", b, n)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length; got {a.shape[0]} and {b.shape[0]}")
    indptr, indices, loops, arcs, pairs = _edgelist.csr_by_rows(n, a, b)
    return SimpleCSR(indptr, indices, int(loops), int(a.shape[0] - loops), int(arcs), int(pairs))


def simple_csr(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """CSR of the undirected simple graph with edges ``(a[i], b[i])`` on ``n`` nodes.

    Parameters
    ----------
    n : int
        Number of nodes.
    a, b : numpy.ndarray of int
        Edge ends in ``[0, n)``.

    Returns
    -------
    indptr : numpy.ndarray of int64
    indices : numpy.ndarray of int32
        Each row's neighbours in increasing order.
    dropped : dict
        ``{"self_loops": k, "duplicate_edges": k}``.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, dropped = simple_csr(3, np.array([0, 1, 2, 2]), np.array([1, 0, 2, 1]))
    >>> indptr.tolist(), indices.tolist(), dropped
    ([0, 1, 3, 4], [1, 0, 2, 1], {'self_loops': 1, 'duplicate_edges': 1})
    """
    g = simple_csr_counts(n, a, b)
    return g.indptr, g.indices, {"self_loops": g.self_loops, "duplicate_edges": g.lines - g.pairs}
