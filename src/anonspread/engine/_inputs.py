"""The checks every public engine entry point makes before a compiled kernel runs.

The kernels are compiled without bounds checks, so an out-of-range index or a too-short
output array would read or write outside memory. Each public wrapper checks its arrays
once per call with a few vectorised numpy reductions (never per element in Python): dtype
kind, shape, contiguity, writability, length, and the range of every index it passes in.
A CSR graph ``(indptr, indices)`` is checked whole in one compiled pass (:mod:`._checks`:
``indptr`` starts at 0, never decreases, ends within ``indices``; every neighbour is a node;
where a kernel needs it, the graph is symmetric and connected, or a tree); only a failing
graph goes through the slower numpy path that writes the message.
Errors are :class:`~anonspread.errors.InvalidParameterError` or
:class:`~anonspread.errors.InvalidTypeError` naming the argument, what it was and what is
accepted.
"""

from __future__ import annotations

import operator

import numpy as np

from anonspread.engine import _checks
from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["csr", "floats", "index", "index_array", "int64", "out", "tree"]

def _describe(a) -> str:
    if isinstance(a, np.ndarray):
        return f"a {a.dtype} array of shape {a.shape}"
    return f"{type(a).__name__} {a!r:.60}"


def _array(a, name: str, kinds: str, what: str) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        try:
            a = np.asarray(a)
        except (TypeError, ValueError) as e:
            raise InvalidTypeError(f"{name} must be {what}; got {_describe(a)}") from e
    # an empty list becomes a float array: accept it as an empty array of any kind
    if a.dtype.kind not in kinds and not (a.size == 0 and a.dtype.kind == "f"):
        raise InvalidTypeError(f"{name} must be {what}; got {_describe(a)}")
    return a


def integers(a, name: str, what: str) -> np.ndarray:
    """``a`` as a 1-d integer numpy array (no copy when it is one; values not checked)."""
    a = _array(a, name, "iu", what)
    if a.ndim != 1:
        raise InvalidParameterError(f"{name} must be 1-dimensional; got shape {a.shape}")
    return a


def index(v, n: int, name: str, *, low: int = 0) -> int:
    """``v`` as an int in ``low..n-1`` (a node index)."""
    try:
        if isinstance(v, (bool, np.bool_)):
            raise TypeError
        v = operator.index(v)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an integer; got {_describe(v)}") from None
    if not low <= v < n:
        raise InvalidParameterError(f"{name} must be a node index in {low}..{n - 1}; got {v}")
    return v


def integer(v, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``v`` as an int in ``[low, high]`` (either bound optional)."""
    try:
        if isinstance(v, (bool, np.bool_)):
            raise TypeError
        v = operator.index(v)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an integer; got {_describe(v)}") from None
    if (low is not None and v < low) or (high is not None and v > high):
        raise InvalidParameterError(
            f"{name} must be an integer in {'-inf' if low is None else low}.."
            f"{'inf' if high is None else high}; got {v}")
    return v


def index_array(a, n: int, name: str, *, low: int = 0, dtype=np.int64, ndim: int = 1,
                min_len: int = 0) -> np.ndarray:
    """``a`` as a contiguous integer array (``dtype``) whose entries lie in ``low..n-1``."""
    a = _array(a, name, "iu", f"an integer array of node indices in {low}..{n - 1}")
    if a.ndim != ndim:
        raise InvalidParameterError(f"{name} must be {ndim}-dimensional; got shape {a.shape}")
    if a.shape[0] < min_len:
        raise InvalidParameterError(f"{name} must hold at least {min_len} entries; got {a.shape[0]}")
    if a.size:
        lo, hi = int(a.min()), int(a.max())
        if lo < low or hi >= n:
            bad = lo if lo < low else hi
            raise InvalidParameterError(
                f"{name} must hold node indices in {low}..{n - 1}; got {bad}")
    return np.ascontiguousarray(a, dtype)


def floats(a, name: str, *, min_len: int = 0, ndim: int = 1) -> np.ndarray:
    """``a`` as a contiguous float64 array of at least ``min_len`` rows (an input)."""
    a = _array(a, name, "fiub", "a real array")
    if a.ndim != ndim:
        raise InvalidParameterError(f"{name} must be {ndim}-dimensional; got shape {a.shape}")
    if a.shape[0] < min_len:
        raise InvalidParameterError(f"{name} must hold at least {min_len} entries; got {a.shape[0]}")
    return np.ascontiguousarray(a, np.float64)


def out(a, dtype, name: str, *, shape: tuple | None = None, min_len: int = 0) -> np.ndarray:
    """The output array ``a`` itself, checked: a writeable C-contiguous numpy array of
    ``dtype`` (a boolean output is returned as its uint8 view) with the exact ``shape`` or
    at least ``min_len`` entries along its first axis."""
    want = np.dtype(dtype)
    ok = (isinstance(a, np.ndarray) and a.dtype == want and a.flags.c_contiguous
          and a.flags.writeable)
    if ok and shape is not None:
        ok = a.shape == shape
    elif ok:
        ok = a.ndim == 1 and a.shape[0] >= min_len
    if not ok:
        need = f"shape {shape}" if shape is not None else f"at least {min_len} entries"
        raise InvalidParameterError(
            f"{name} must be a writeable C-contiguous {want.name} array of {need}; got "
            f"{_describe(a)}" + ("" if not isinstance(a, np.ndarray) else
                                 f"{'' if a.flags.c_contiguous else ', not contiguous'}"
                                 f"{'' if a.flags.writeable else ', read-only'}"))
    return a.view(np.uint8) if want == np.bool_ else a


def _fast(indptr, indices, dt, kind: int) -> tuple | None:
    """The checked pair when both arrays already have the kernels' layout and pass the
    compiled check; None otherwise (then the numpy path checks, converts and explains)."""
    if (type(indptr) is np.ndarray and type(indices) is np.ndarray and indptr.dtype == np.int64
            and indices.dtype == dt and indptr.ndim == 1 and indices.ndim == 1
            and indptr.shape[0] >= 1 and indptr.flags.c_contiguous
            and indices.flags.c_contiguous):
        status = _checks.csr_status32 if dt == np.int32 else _checks.csr_status64
        if status(indptr, indices, kind) == 0:
            return indptr, indices
    return None


def csr(indptr, indices, name: str = "graph", *, indices_dtype=None, kind: int = 0
        ) -> tuple[np.ndarray, np.ndarray]:
    """A checked CSR graph: int64 ``indptr`` and ``indices`` as int32 (``indices_dtype``
    int32), int64, or kept int32 / made int64 (``None``: the kernels with a fused index
    type), both contiguous. ``kind`` 1: also symmetric and connected; 2: also a tree."""
    if indices_dtype is None:
        dt = np.dtype(np.int32) if getattr(indices, "dtype", None) == np.int32 else np.dtype(np.int64)
    else:
        dt = np.dtype(indices_dtype)
    hit = _fast(indptr, indices, dt, kind)
    if hit is not None:
        return hit
    p = _array(indptr, f"{name} indptr", "iu", "a 1-d integer array (CSR row offsets)")
    q = _array(indices, f"{name} indices", "iu", "a 1-d integer array (CSR neighbours)")
    if p.ndim != 1 or q.ndim != 1 or p.shape[0] < 1:
        raise InvalidParameterError(
            f"{name} must be a CSR pair of 1-d arrays with len(indptr) = nodes + 1 >= 1; got "
            f"indptr of shape {p.shape}, indices of shape {q.shape}")
    p64 = np.ascontiguousarray(p, np.int64)
    n = p64.shape[0] - 1
    if p64[0] != 0 or p64[-1] > q.shape[0] or (n > 0 and bool((p64[1:] < p64[:-1]).any())):
        raise InvalidParameterError(
            f"{name} indptr must start at 0, never decrease and end at most at len(indices) = "
            f"{q.shape[0]}; got indptr[0] = {p64[0]}, indptr[-1] = {p64[-1]}")
    used = q[: p64[-1]]
    if used.size:
        lo, hi = int(used.min()), int(used.max())
        if lo < 0 or hi >= n:
            raise InvalidParameterError(
                f"{name} indices must be node indices in 0..{n - 1}; got {lo if lo < 0 else hi}")
    if n >= 2**31 - 1 and dt == np.int32:
        raise InvalidParameterError(f"{name} has {n} nodes: more than int32 indices can name")
    q = np.ascontiguousarray(q, dt)
    if kind and _fast(p64, q, dt, kind) is None:
        m = int(p64[-1])
        if kind == 2:
            raise InvalidParameterError(
                f"{name} must be a tree: a connected symmetric CSR with 2 (n - 1) entries; got "
                f"{n} nodes and {m} entries")
        raise InvalidParameterError(
            f"{name} must be a connected undirected graph (symmetric CSR) with at least one "
            f"node; got {n} nodes and {m} entries")
    return p64, q


def tree(indptr, indices, name: str = "graph", *, indices_dtype=np.int32
         ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`csr`, and the graph must be a tree: connected with ``2 (n - 1)`` symmetric
    entries."""
    return csr(indptr, indices, name, indices_dtype=indices_dtype, kind=2)


def connected(indptr, indices, name: str = "graph", *, indices_dtype=np.int32
              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`csr`, and the graph must be connected and symmetric (at least one node)."""
    return csr(indptr, indices, name, indices_dtype=indices_dtype, kind=1)


def int64(a) -> np.ndarray:
    """``a`` as a contiguous int64 array (no copy when it already is one)."""
    return np.ascontiguousarray(a, np.int64)
