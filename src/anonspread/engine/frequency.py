"""Compiled support counting of local-hashing reports (used by :mod:`privacy.frequency`).

Also the users' side of unary encoding and subset selection, where a report is ``k`` bits
or ``d`` values: :func:`ue_sample` draws the bits exactly (64 Bernoulli lanes per pass over
the binary digits of the probability) and :func:`ue_sample` and :func:`ss_sample` (Floyd's
sampling, O(d) per user) add each report to the column counts as they go, so a caller that
only needs the aggregate never holds ``n k`` bits.

A local-hashing report (Wang et al., USENIX Security 2017, §4.4) is ``(a, b, y)``: the
user's hash ``h(x) = ((a x + b) mod P) mod g`` with ``P = 2^31 - 1`` (:data:`HASH_PRIME`),
``1 <= a < P``, ``0 <= b < P``, and the randomised hash value ``y`` in ``range(g)``. The
server's aggregate is, for every value ``i`` in ``range(k)``, the number of reports that
*support* ``i`` (``h(i) == y``): ``n k`` hash evaluations, which :func:`olh_support` runs in
a compiled loop (additions and a multiply-shift remainder per hash, no Python per report).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

# GNU libgomp's thread pool does not survive fork; rumor_threads registers the at-fork hook
# that stops it (for every OpenMP region of the process, this one included)
from anonspread.engine import _frequency, rumor_threads  # noqa: F401
from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["HASH_PRIME", "OPENMP", "olh_support", "ss_sample", "ue_sample"]

#: The prime modulus of the hash family, ``2^31 - 1``.
HASH_PRIME = int(_frequency.HASH_PRIME)
#: Whether this build can count on OpenMP threads (``setup.py`` compiles ``_frequency`` with
#: ``-fopenmp`` when the compiler accepts it).
OPENMP: bool = _frequency.OPENMP


def _u32(v, name: str) -> np.ndarray:
    if not isinstance(v, np.ndarray) or v.ndim != 1:
        raise InvalidTypeError(f"{name} must be a 1-D numpy array of uint32; got "
                               f"{type(v).__name__}{getattr(v, 'shape', '')}")
    if v.dtype != np.uint32:
        raise InvalidTypeError(f"{name} must be a 1-D numpy array of uint32; got dtype {v.dtype}")
    return np.ascontiguousarray(v)


def olh_support(a: np.ndarray, b: np.ndarray, y: np.ndarray, k: int, g: int,
                out: np.ndarray | None = None, *, threads: int = 1) -> np.ndarray:
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
    threads : int
        The caller's choice of threads (never read from the machine): more than one
        counts on OpenMP threads (when built with it, :data:`OPENMP`), each into its own
        ``k`` counts. The same counts either way.

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
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise InvalidParameterError(f"threads must be an integer >= 1; got {threads!r}")
    nthr = int(threads) if OPENMP and a.size > 4096 else 1
    partial = np.zeros((nthr, k) if nthr > 1 else (1, 1), dtype=np.int64)
    _frequency.olh_support(a, b, y, k, g, out, partial)
    return out


def _values(values, k: int) -> np.ndarray:
    v = np.ascontiguousarray(values)
    if v.ndim != 1 or (v.size and v.dtype.kind not in "iu"):
        raise InvalidTypeError(f"values must be a 1-D integer array; got {v.dtype} {v.shape}")
    v = v.astype(np.int64, copy=False)
    if v.size and (int(v.min()) < 0 or int(v.max()) >= k):
        raise InvalidParameterError(f"values must hold integers in [0, {k - 1}]; got values in "
                                    f"[{int(v.min())}, {int(v.max())}]")
    return v


def _k(k, low: int = 1) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidTypeError(f"k must be an integer; got {k!r}")
    if not low <= int(k) <= HASH_PRIME:
        raise InvalidParameterError(f"k must be an integer in [{low}, {HASH_PRIME}]; got {k}")
    return int(k)


def _digits(prob, name: str) -> np.ndarray:
    """The binary digits ``d_1 d_2 ... d_L`` of a double in ``[0, 1)`` (exact, ``L <= 1074``)."""
    if isinstance(prob, bool) or not isinstance(prob, (float, int, np.floating)) or not 0 <= prob < 1:
        raise InvalidParameterError(f"{name} must be a probability in [0, 1); got {prob!r}")
    f = Fraction(float(prob))
    L = f.denominator.bit_length() - 1
    return np.array([(f.numerator >> (L - j)) & 1 for j in range(1, L + 1)], dtype=np.uint8)


def _gen(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InvalidTypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    return rng


def ue_sample(values, k: int, p: float, q: float, rng: np.random.Generator, *,
              store: bool = True, packed: bool = False) -> tuple[np.ndarray | None, np.ndarray]:
    """Unary-encoding reports: bit ``values[j]`` of user ``j`` is 1 w.p. ``p``, every other w.p. ``q``.

    Each probability is used exactly (the double's binary expansion): a bit is 1 iff a
    uniform ``U`` is below it, decided digit by digit, 64 bits at a time.

    Parameters
    ----------
    values : numpy.ndarray of int, shape (n,)
        Values in ``range(k)``.
    k : int
        Number of bits per report.
    p, q : float
        In ``[0, 1)``.
    rng : numpy.random.Generator
        Its stream advances.
    store : bool
        Return the bits; else only the counts.
    packed : bool
        Return them packed, 8 to a byte (``numpy.packbits(bits, axis=1, bitorder="little")``,
        ``n x ceil(k/8)`` bytes) instead of one byte each.

    Returns
    -------
    bits : numpy.ndarray of bool, shape (n, k); of uint8, shape (n, ceil(k / 8)) if packed; or None
    counts : numpy.ndarray of int64, shape (k,)
        The number of reports with each bit set.

    Examples
    --------
    >>> import numpy as np
    >>> bits, counts = ue_sample(np.array([0, 2]), 4, 0.5, 0.0, np.random.default_rng(1))
    >>> bits.sum(axis=1) <= 1, int(counts[1] + counts[3])
    (array([ True,  True]), 0)
    """
    k = _k(k)
    v = _values(values, k)
    pd, qd = _digits(p, "p"), _digits(q, "q")
    pd = pd if pd.size else np.zeros(1, np.uint8)
    qd = qd if qd.size else np.zeros(1, np.uint8)
    gen = _gen(rng)
    counts = np.zeros(k, dtype=np.int64)
    mode = (2 if packed else 1) if store else 0
    width = (k + 7) // 8 if packed else k
    bits = (np.empty if packed else np.zeros)((v.size, width) if store else (1, 1), dtype=np.uint8)
    _frequency.ue_sample(v, k, pd, qd, gen, bits, counts, mode)
    if not store:
        return None, counts
    return (bits if packed else bits.view(bool)), counts


def ss_sample(values, k: int, d: int, p_in: float, rng: np.random.Generator, *,
              store: bool = True) -> tuple[np.ndarray | None, np.ndarray]:
    """Subset-selection reports: ``d`` distinct values per user, holding the user's own
    w.p. ``p_in`` (then ``d - 1`` uniform others), else ``d`` uniform others.

    Parameters
    ----------
    values : numpy.ndarray of int, shape (n,)
        Values in ``range(k)``.
    k : int
        Number of values, ``>= 2``.
    d : int
        Subset size, ``1 <= d <= k - 1``.
    p_in : float
        In ``[0, 1]``.
    rng : numpy.random.Generator
        Its stream advances.
    store : bool
        Return the reports (``n x d`` int32); else only the counts.

    Returns
    -------
    reports : numpy.ndarray of int32, shape (n, d), or None
    counts : numpy.ndarray of int64, shape (k,)
        How many reports hold each value.

    Examples
    --------
    >>> import numpy as np
    >>> reports, counts = ss_sample(np.array([3, 3]), 5, 2, 1.0, np.random.default_rng(0))
    >>> (reports[:, 0] == 3).all(), int(counts.sum())
    (np.True_, 4)
    """
    k = _k(k, low=2)
    v = _values(values, k)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= int(d) <= k - 1:
        raise InvalidParameterError(f"d must be an integer in [1, {k - 1}]; got {d!r}")
    if isinstance(p_in, bool) or not isinstance(p_in, (float, int, np.floating)) or not 0 <= p_in <= 1:
        raise InvalidParameterError(f"p_in must be a probability in [0, 1]; got {p_in!r}")
    gen = _gen(rng)
    d = int(d)
    counts = np.zeros(k, dtype=np.int64)
    out = np.empty((v.size, d) if store else (1, 1), dtype=np.int32)
    _frequency.ss_sample(v, k, d, float(p_in), gen, out, counts, np.zeros(k, np.uint8),
                         np.zeros(d, np.int64), bool(store))
    return (out if store else None), counts
