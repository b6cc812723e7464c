"""Compiled support counting of local-hashing reports (used by :mod:`privacy.frequency`).

A local-hashing report (Wang et al., USENIX Security 2017, §4.4) is ``(a, b, y)``: the
user's hash ``h(x) = ((a x + b) mod P) mod g`` with ``P = 2^31 - 1`` (:data:`HASH_PRIME`),
``1 <= a < P``, ``0 <= b < P``, and the randomised hash value ``y`` in ``range(g)``. The
server's aggregate is, for every value ``i`` in ``range(k)``, the number of reports that
*support* ``i`` (``h(i) == y``): ``n k`` hash evaluations, which :func:`olh_support` runs in
a compiled loop (additions and a multiply-shift remainder per hash, no Python per report).
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _frequency
from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["HASH_PRIME", "olh_support"]

#: The prime modulus of the hash family, ``2^31 - 1``.
HASH_PRIME = int(_frequency.HASH_PRIME)


def _u32(v, name: str) -> np.ndarray:
    if not isinstance(v, np.ndarray) or v.ndim != 1:
        raise InvalidTypeError(f"{name} must be a 1-D numpy array of uint32; got "
                               f"{type(v).__name__}{getattr(v, 'shape', '')}")
    if v.dtype != np.uint32:
        raise InvalidTypeError(f"{name} must be a 1-D numpy array of uint32; got dtype {v.dtype}")
    return np.ascontiguousarray(v)


def olh_support(a: np.ndarray, b: np.ndarray, y: np.ndarray, k: int, g: int,
                out: np.ndarray | None = None) -> np.ndarray:
    """Count, for each value ``i < k``, the reports ``(a, b, y)`` whose hash of ``i`` is ``y``.

    Parameters
    ----------
    a, b, y : numpy.ndarray of uint32, shape (n,)
        The reports: ``1 <= a < P``, ``0 <= b < P``, ``0 <= y < g``.
    k : int
        Domain size, ``1 <= k <= 2^31 - 1``.
    g : int
        Hash range, ``2 <= g <= 2^31 - 1``.
    out : numpy.ndarray of int64, shape (k,), optional
        Counts to add to (a new zero array if omitted).

    Returns
    -------
    numpy.ndarray of int64, shape (k,)
        ``out[i] += #{j : ((a[j] i + b[j]) mod P) mod g == y[j]}``.

    Examples
    --------
    >>> import numpy as np
    >>> u = lambda *v: np.array(v, dtype=np.uint32)
    >>> olh_support(u(1, 3), u(0, 5), u(0, 1), 4, 2).tolist()   # hashes i mod 2 and (3i + 5) mod 2
    [2, 0, 2, 0]
    """
    a, b, y = _u32(a, "a"), _u32(b, "b"), _u32(y, "y")
    if not a.shape == b.shape == y.shape:
        raise InvalidParameterError(f"a, b and y must have the same length; got {a.shape[0]}, "
                                    f"{b.shape[0]} and {y.shape[0]}")
    for name, v in (("k", k), ("g", g)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InvalidTypeError(f"{name} must be an integer; got {v!r}")
    k, g = int(k), int(g)
    if not 1 <= k <= HASH_PRIME:
        raise InvalidParameterError(f"k must be an integer in [1, {HASH_PRIME}]; got {k}")
    if not 2 <= g <= HASH_PRIME:
        raise InvalidParameterError(f"g must be an integer in [2, {HASH_PRIME}]; got {g}")
    if a.size:
        if int(a.min()) < 1 or int(a.max()) >= HASH_PRIME:
            raise InvalidParameterError(f"a must hold integers in [1, {HASH_PRIME - 1}]; got "
                                        f"values in [{int(a.min())}, {int(a.max())}]")
        if int(b.max()) >= HASH_PRIME:
            raise InvalidParameterError(f"b must hold integers in [0, {HASH_PRIME - 1}]; got "
                                        f"max {int(b.max())}")
        if int(y.max()) >= g:
            raise InvalidParameterError(f"y must hold integers in [0, {g - 1}]; got max {int(y.max())}")
    if out is None:
        out = np.zeros(k, dtype=np.int64)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (k,)
          or not out.flags.c_contiguous or not out.flags.writeable):
        raise InvalidTypeError(f"out must be a writable contiguous int64 array of shape ({k},); "
                               f"got {type(out).__name__} {getattr(out, 'dtype', '')} "
                               f"{getattr(out, 'shape', '')}")
    _frequency.olh_support(a, b, y, k, g, out)
    return out
