"""Edge lists at the speed of the disk (compiled ahead of time, :mod:`._edgelist`).

Two kernels beneath :func:`anonspread.spread.graphs.from_edgelist`:

* :class:`Tokenizer`, fed buffers of bytes, turns edge lines into two int32 arrays of node
  ids and a table of distinct node names (ints, or their text), never a Python object per
  line. It stops at every line its caller must see (the header, a comment that may say
  "directed", an error) and says why (``EV_*``);
* :func:`simple_csr`, the undirected simple graph of a list of arcs as CSR (self-loops and
  duplicates dropped, each row's neighbours in increasing order), with the counts that tell
  a directed list from an undirected one. One sort of one uint64 key per arc, then a
  linear pass: no hash-based ``np.unique``, no ``lexsort``.
"""

from __future__ import annotations

from typing import NamedTuple

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
    "ArcSummary",
    "Tokenizer",
    "arc_summary",
    "csr_from_summary",
    "simple_csr",
]

_MAX_NODES = 2**31 - 1


class ArcSummary(NamedTuple):
    """What the arcs ``(a[i], b[i])`` hold, from one sort of their keys.

    ``codes`` are the distinct unordered pairs ``(lo << B) | hi`` (``B`` the bits of
    ``n - 1``) in increasing order;
    ``arcs`` counts the distinct oriented non-loop arcs, ``pairs`` the distinct unordered
    ones, ``lines`` the non-loop arcs, ``self_loops`` the loops.
    """

    codes: np.ndarray
    self_loops: int
    lines: int
    arcs: int
    pairs: int


def _ids(name: str, x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a 1-d array of int node ids; got {x.dtype} of shape {x.shape}")
    return np.ascontiguousarray(x, dtype=np.int32) if x.size == 0 or (
        x.min() >= -(2**31) and x.max() < 2**31) else x


def arc_summary(n: int, a: np.ndarray, b: np.ndarray) -> ArcSummary:
    """Sort the arcs ``(a[i], b[i])`` of a graph on ``n`` nodes once and count them.

    Parameters
    ----------
    n : int
        Number of nodes, at most 2^31 - 1.
    a, b : numpy.ndarray of int
        Arc ends, node ids in ``[0, n)`` (int32 arrays are used without a copy).

    Returns
    -------
    ArcSummary

    Examples
    --------
    >>> import numpy as np
    >>> s = arc_summary(3, np.array([0, 1, 1, 2], np.int32), np.array([1, 0, 1, 0], np.int32))
    >>> s.self_loops, s.lines, s.arcs, s.pairs, s.codes.tolist()
    (1, 3, 3, 2, [1, 2])
    """
    n = int(n)
    if not 0 <= n <= _MAX_NODES:
        raise ValueError(f"n must be in [0, 2^31 - 1]; got {n}")
    a, b = _ids("a", a), _ids("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length; got {a.shape[0]} and {b.shape[0]}")
    if a.dtype != np.int32 or b.dtype != np.int32:
        raise ValueError(f"node ids must be in [0, {n}); got ids beyond int32")
    keys, loops = _edgelist.arc_keys(n, a, b)
    arcs, pairs = _edgelist.count_and_compact(keys)
    return ArcSummary(keys[:pairs], int(loops), int(keys.shape[0]), int(arcs), int(pairs))


def csr_from_summary(n: int, summary: ArcSummary) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(indptr int64, indices int32)`` of the pairs of :func:`arc_summary`.

    Parameters
    ----------
    n : int
        Number of nodes.
    summary : ArcSummary
        From :func:`arc_summary` on the same ``n``.

    Returns
    -------
    indptr, indices : numpy.ndarray
        Row ``u``'s neighbours ``indices[indptr[u]:indptr[u + 1]]``, increasing.
    """
    codes = np.ascontiguousarray(summary.codes, dtype=np.uint64)
    return _edgelist.csr_from_codes(int(n), codes)


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
    s = arc_summary(n, a, b)
    indptr, indices = csr_from_summary(n, s)
    return indptr, indices, {"self_loops": s.self_loops, "duplicate_edges": s.lines - s.pairs}
