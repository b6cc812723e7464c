"""Argument checks shared by every public function (one place, one wording).

Each check raises :class:`~anonspread.errors.InvalidParameterError` or
:class:`~anonspread.errors.InvalidTypeError` with a message of the form
``"<name> must be <what is accepted>; got <value>"``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = [
    "check_distribution",
    "check_int",
    "check_probability",
    "check_real",
    "check_rng",
]

RNGLike = "None | int | numpy.random.Generator"


def _fail(name: str, accepted: str, value: Any, *, kind: type = InvalidParameterError):
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    raise kind(f"{name} must be {accepted}; got {shown}")


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Normalise ``rng`` (None, an int seed, a SeedSequence or a Generator) to a Generator.

    A Generator passed in is returned as is (the caller's stream advances), as in
    SPEC 7; the global numpy random state is never touched.

    Parameters
    ----------
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` draws fresh entropy; an int is a seed (>= 0).
    name : str
        The argument's name, for the message.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> check_rng(7).integers(10, size=3)
    array([9, 6, 6])
    >>> check_rng(-1)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: rng must be a non-negative integer seed; got -1
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            _fail(name, "a non-negative integer seed", rng)
        return np.random.default_rng(int(rng))
    _fail(name, f"{RNGLike} (or a numpy.random.SeedSequence)", rng, kind=InvalidTypeError)
    raise AssertionError  # unreachable


def check_int(
    value: Any, name: str, *, low: int | None = None, high: int | None = None
) -> int:
    """Return ``value`` as an int, checking it is an integer in ``[low, high]``.

    Parameters
    ----------
    value : object
        The argument (a numpy integer is accepted; a bool is not).
    name : str
        The argument's name, for the message.
    low, high : int, optional
        Inclusive bounds.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> check_int(np.int64(3), "T", low=0)
    3
    >>> check_int(2.5, "T", low=0)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: T must be an integer >= 0; got 2.5
    """
    accepted = "an integer"
    if low is not None and high is not None:
        accepted = f"an integer in [{low}, {high}]"
    elif low is not None:
        accepted = f"an integer >= {low}"
    elif high is not None:
        accepted = f"an integer <= {high}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            _fail(name, accepted, value)
        _fail(name, accepted, value, kind=InvalidTypeError)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(name, accepted, value)
    return value


def check_real(
    value: Any,
    name: str,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float, checking it is a real number in the given interval.

    An infinite bound is printed open (``[0, inf)``) unless ``allow_inf`` admits it, so
    the accepted range shown is the range accepted.

    Parameters
    ----------
    value : object
        The argument (ints are accepted; bools and NaN are not).
    name : str
        The argument's name, for the message.
    low, high : float
        The interval's bounds.
    low_open, high_open : bool
        Exclude the bound.
    allow_inf : bool
        Accept an infinite value.

    Returns
    -------
    float

    Examples
    --------
    >>> check_real(1, "eps", low=0.0)
    1.0
    >>> check_real(0.0, "q", low=0.0, high=0.5, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: q must be a real number in (0.0, 0.5); got 0.0
    """
    lo = "(" if low_open or (low == -math.inf and not allow_inf) else "["
    hi = ")" if high_open or (high == math.inf and not allow_inf) else "]"
    accepted = f"a real number in {lo}{low}, {high}{hi}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        _fail(name, accepted, value, kind=InvalidTypeError)
    try:
        value = float(value)
    except OverflowError:  # an int beyond the doubles
        _fail(name, f"{accepted} (representable as a float)", value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        _fail(name, accepted, value)
    if value < low or value > high or (low_open and value == low) or (high_open and value == high):
        _fail(name, accepted, value)
    return value


def check_probability(value: Any, name: str) -> float:
    """Return ``value`` as a float in [0, 1].

    Parameters
    ----------
    value : object
        The argument.
    name : str
        The argument's name, for the message.

    Returns
    -------
    float
    """
    return check_real(value, name, low=0.0, high=1.0)


def check_distribution(
    p: Any, name: str, *, atol: float = 1e-9, positive: bool = False, ndim: int = 1
) -> np.ndarray:
    """Return ``p`` as a float array of non-negative entries summing to 1 (within ``atol``).

    Parameters
    ----------
    p : array_like
        The argument.
    name : str
        The argument's name, for the message.
    atol : float
        Tolerance on the sum.
    positive : bool
        Also reject zero entries (for utilities that divide by them).
    ndim : int
        Number of axes; ``2`` checks a joint distribution (all entries sum to 1).

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> check_distribution([[0.4, 0.1], [0.1, 0.4]], "p_sx", ndim=2).sum(axis=1)
    array([0.5, 0.5])
    >>> check_distribution([1.0, 0.0], "P1", positive=True)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: P1 must be a distribution with strictly positive entries (this utility divides by them); got [1.0, 0.0]
    >>> check_distribution([0.5, -0.5, 1.0], "P")
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: P must be a distribution with non-negative entries; got [0.5, -0.5, 1.0]
    """
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        _fail(name, f"an array of probabilities ({ndim}-D)", p, kind=InvalidTypeError)
    if arr.ndim != ndim or arr.size == 0:
        _fail(name, f"a non-empty {ndim}-D array of probabilities", p)
    if not np.all(np.isfinite(arr)):
        _fail(name, "a distribution with finite entries", p)
    if np.any(arr < 0):
        _fail(name, "a distribution with non-negative entries", p)
    if abs(arr.sum() - 1.0) > atol:
        _fail(name, f"a distribution summing to 1 (within {atol:g}); its sum is {float(arr.sum()):.12g}", p)
    if positive and np.any(arr == 0):
        _fail(name, "a distribution with strictly positive entries (this utility divides by them)", p)
    return arr
