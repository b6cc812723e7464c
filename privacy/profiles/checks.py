"""Argument checks shared by the profile-privacy modules (one wording for every error).

Internal to :mod:`privacy.profiles`.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_distribution, check_probability, check_real


def _check_eps(eps: Any) -> float:
    """``eps >= 0``; ``inf`` is the no-privacy limit (no noise: flip probability 0, identity)."""
    return check_real(eps, "eps", low=0.0, allow_inf=True)


def _numeric(values: Any, name: str, what: str) -> None:
    """Refuse strings, booleans and other non-numbers that ``np.array(dtype=float)`` would coerce."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        return  # ragged: the float conversion names it
    if raw.dtype.kind not in "iuf":
        bad = next((v for v in raw.ravel() if isinstance(v, (str, bytes, bool, np.bool_))
                    or not isinstance(v, (numbers.Real, np.number))), None) if raw.size else None
        if isinstance(bad, np.generic):
            bad = bad.item()
        if bad is not None or raw.dtype.kind in "bUS":
            raise InvalidTypeError(f"{name} must be {what} (real numbers); got the entry {bad!r}"
                                   if bad is not None else f"{name} must be {what} (real numbers)")


def _check_profiles(P: Any, name: str = "P") -> np.ndarray:
    """Validate a (k, d) array whose rows are distributions; return a float copy."""
    _numeric(P, name, "a 2-D array of profile distributions")
    try:
        arr = np.array(P, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"{name} must be a 2-D array of profile distributions (profiles x categories); "
            f"got {type(P).__name__}"
        ) from exc
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise InvalidParameterError(
            f"{name} must be a 2-D array of profile distributions with at least 1 profile "
            f"and 2 categories; got shape {arr.shape}"
        )
    for i in range(arr.shape[0]):
        check_distribution(arr[i], f"{name}[{i}]")
    arr /= arr.sum(axis=1, keepdims=True)
    return arr


def _check_bernoulli(ps: Any, name: str = "ps") -> np.ndarray:
    """Validate Bernoulli parameters; return them as the (k, 2) profiles [1 - p, p]."""
    _numeric(ps, name, "a 1-D array of Bernoulli parameters")
    try:
        arr = np.array(ps, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"{name} must be a 1-D array of Bernoulli parameters; got {type(ps).__name__}"
        ) from exc
    if arr.ndim != 1 or arr.size < 1:
        raise InvalidParameterError(
            f"{name} must be a non-empty 1-D array of Bernoulli parameters; got shape {arr.shape}"
        )
    for i, p in enumerate(arr):
        check_probability(float(p), f"{name}[{i}]")
    return np.column_stack([1.0 - arr, arr])


def _endpoint(v: Any, k: int, index: dict[Hashable, int] | None) -> int:
    if index is not None:
        try:
            if v in index:
                return index[v]
        except TypeError:  # unhashable endpoint
            pass
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and 0 <= int(v) < k:
        return int(v)
    known = f"one of the profile names {list(index)}" if index is not None else ""
    accepted = f"profile indices in [0, {k - 1}]" + (f" or {known}" if known else "")
    raise InvalidParameterError(f"edges must name known profiles ({accepted}); got {v!r}")


def _check_edges(
    edges: Any, k: int, names: Sequence[Hashable] | None = None
) -> tuple[tuple[int, int], ...]:
    """Validate sensitive pairs; return sorted, de-duplicated ``(i, j)`` with ``i < j``."""
    if edges is None:
        return ()
    if hasattr(edges, "nodes") and callable(getattr(edges, "edges", None)):
        edges = list(edges.edges())  # a networkx graph
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise InvalidTypeError(
            f"edges must be an iterable of profile pairs (i, j); got {type(edges).__name__}"
        )
    index = {n: i for i, n in enumerate(names)} if names is not None else None
    out: set[tuple[int, int]] = set()
    for e in edges:
        if isinstance(e, (str, bytes)) or not isinstance(e, (Sequence, np.ndarray)) or len(e) != 2:
            raise InvalidParameterError(f"edges must hold pairs of profiles (i, j); got {e!r}")
        i, j = _endpoint(e[0], k, index), _endpoint(e[1], k, index)
        if i == j:
            raise InvalidParameterError(
                f"edges must join two distinct profiles; got the self-loop {tuple(e)!r}"
            )
        out.add((min(i, j), max(i, j)))
    return tuple(sorted(out))


def _check_matrices(matrices: Any, k: int, d: int) -> np.ndarray:
    """Validate k row-stochastic (d x m) matrices; return them as a (k, d, m) array."""
    if isinstance(matrices, np.ndarray) and matrices.ndim == 3:
        items: list[Any] = list(matrices)
    elif isinstance(matrices, (Sequence, np.ndarray)) and not isinstance(matrices, (str, bytes)):
        items = list(matrices)
    else:
        raise InvalidTypeError(
            f"matrices must be a sequence of {k} row-stochastic matrices (one per profile); "
            f"got {type(matrices).__name__}"
        )
    if len(items) != k:
        raise InvalidParameterError(
            f"matrices must hold one matrix per profile ({k}); got {len(items)}"
        )
    mats = [m.matrix if isinstance(m, Mechanism) else Mechanism(m).matrix for m in items]
    shapes = {m.shape for m in mats}
    if len(shapes) != 1 or next(iter(shapes))[0] != d:
        raise InvalidParameterError(
            f"matrices must all have shape ({d}, m) (one row per category); "
            f"got shapes {sorted(shapes)}"
        )
    return np.array(mats, dtype=float)


def _check_max_flip(max_flip: Any) -> float:
    return check_real(max_flip, "max_flip", low=0.0, high=0.5)
