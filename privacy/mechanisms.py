"""Closed-form local-DP mechanisms of thesis Chapter 3 (all return :class:`Mechanism`).

* :func:`binary_mechanism` -- Eqs. (3.14)-(3.15), optimal for f-divergences in the high
  privacy regime (Thm 3.3.1) and for total variation at every eps (Thm 3.3.2);
* :func:`binary_mechanism_mi` -- Eqs. (3.21)-(3.22), optimal for mutual information in the
  high privacy regime (Thm 3.4.1); its balanced partition is :func:`balanced_partition`;
* :func:`randomized_response` -- Eq. (3.16), optimal in the low privacy regime
  (Thms 3.3.4, 3.4.3);
* :func:`geometric_mechanism` -- the truncated geometric baseline of §3.3.2;
* :func:`quaternary_mechanism` -- Eq. (3.26), optimal under (eps, delta)-LDP for binary
  inputs (Thm 3.5.1);
* :func:`binary_or_randomized_response` -- the "better of the two" strategy of §3.3.2 and
  §3.4.2.

``eps = inf`` is accepted by the closed forms (the limit, a deterministic mechanism); a
finite eps above 700 is refused (``e^-eps`` would underflow, leaving zeros, i.e. an infinite
privacy loss, in the matrix). The ``k x k`` mechanisms are refused beyond the memory limit
(:func:`anonspread.spread.limits.memory_budget`).
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np
from scipy.special import expit

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy._limits import check_array_size, check_finite_eps
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_distribution, check_int, check_probability, check_real

__all__ = [
    "balanced_partition",
    "binary_mechanism",
    "binary_mechanism_mi",
    "binary_or_randomized_response",
    "geometric_mechanism",
    "quaternary_mechanism",
    "randomized_response",
]

#: Largest alphabet for which :func:`balanced_partition` is exact (meet in the middle).
EXACT_PARTITION_MAX_K = 40


def _eps(eps: Any) -> float:
    return check_finite_eps(check_real(eps, "eps", low=0.0, allow_inf=True))


def _two_level(in_T: np.ndarray, eps: float) -> Mechanism:
    """Binary staircase: output 0 w.p. e^eps/(1+e^eps) on ``T``, 1/(1+e^eps) off ``T``."""
    # Both levels from expit (not 1 - q): exact ratio e^eps even when one level is tiny.
    hi, lo = expit(eps), expit(-eps)
    return Mechanism(np.column_stack([np.where(in_T, hi, lo), np.where(in_T, lo, hi)]))


def binary_mechanism(P0: Any, P1: Any, eps: float) -> Mechanism:
    """The binary mechanism for hypothesis testing, Eqs. (3.14)-(3.15) (thesis §3.3.1).

    ``Q(0 | x) = e^eps / (1 + e^eps)`` if ``P0(x) >= P1(x)`` and ``1 / (1 + e^eps)``
    otherwise; ``Q(1 | x) = 1 - Q(0 | x)``. It maximises total variation for every eps
    (Thm 3.3.2, Cor. 3.3.7) and every f-divergence for small eps (Thm 3.3.1).

    Parameters
    ----------
    P0, P1 : array_like, shape (k,)
        The two hypotheses (distributions on the same alphabet).
    eps : float
        Privacy level, ``eps >= 0`` (``inf`` allowed).

    Returns
    -------
    Mechanism
        Shape ``(k, 2)``.

    Examples
    --------
    >>> Q = binary_mechanism([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 1.0)
    >>> Q.matrix.round(4)
    array([[0.7311, 0.2689],
           [0.7311, 0.2689],
           [0.2689, 0.7311]])
    """
    P0 = check_distribution(P0, "P0")
    P1 = check_distribution(P1, "P1")
    if P0.shape != P1.shape:
        raise InvalidParameterError(
            f"P0 and P1 must be over the same alphabet; got sizes {P0.size} and {P1.size}"
        )
    return _two_level(P0 >= P1, _eps(eps))


def _subset_sums(values: np.ndarray) -> np.ndarray:
    """All ``2^n`` subset sums; entry ``i`` sums ``values[j]`` over the set bits ``j`` of ``i``."""
    sums = np.zeros(1)
    for v in values:
        sums = np.concatenate([sums, sums + v])
    return sums


def _ldm_partition(P: np.ndarray) -> np.ndarray:
    """Karmarkar-Karp largest differencing method: a near-balanced 2-partition of ``P``."""
    heap = [(-float(p), i, [i], []) for i, p in enumerate(P)]
    heapq.heapify(heap)
    while len(heap) > 1:
        a, ia, a_in, a_out = heapq.heappop(heap)
        b, _, b_in, b_out = heapq.heappop(heap)
        # Put the two largest on opposite sides; their difference stays in play.
        heapq.heappush(heap, (a - b, ia, a_in + b_out, a_out + b_in))
    mask = np.zeros(P.size, dtype=bool)
    mask[heap[0][2]] = True
    return mask


def balanced_partition(P: Any) -> np.ndarray:
    """A set ``T`` minimising ``|P(T) - 1/2|`` (Eq. 3.21), as a boolean mask over the inputs.

    For ``k <= 40`` the minimum is exact: meet in the middle over the ``2^(k/2)`` subset sums
    of each half of the alphabet (sorted, then one binary search per sum), ``O(2^(k/2) k)``
    time. For larger ``k`` the partition problem is NP-hard and the Karmarkar-Karp largest
    differencing method is used (near-exact: its imbalance decays like ``k^(-c log k)`` for
    random inputs, Yakir 1996). Of ``T`` and its complement, the one holding input 0 is
    returned.

    Parameters
    ----------
    P : array_like, shape (k,)

    Returns
    -------
    numpy.ndarray of bool, shape (k,)

    Examples
    --------
    >>> balanced_partition([0.4, 0.3, 0.2, 0.1]).tolist()
    [True, False, False, True]
    """
    P = check_distribution(P, "P")
    k = P.size
    if k > EXACT_PARTITION_MAX_K:
        mask = _ldm_partition(P)
    else:
        h = k // 2
        left, right = _subset_sums(P[:h]), _subset_sums(P[h:])
        order = np.argsort(right, kind="stable")
        rs = right[order]
        target = 0.5 - left
        pos = np.searchsorted(rs, target)
        best_gap, best = math.inf, (0, 0)
        for cand in (np.clip(pos - 1, 0, rs.size - 1), np.clip(pos, 0, rs.size - 1)):
            gap = np.abs(rs[cand] - target)
            i = int(np.argmin(gap))
            if gap[i] < best_gap:
                best_gap, best = float(gap[i]), (i, int(order[cand[i]]))
        bits = np.arange(k)
        mask = np.concatenate(
            [(best[0] >> bits[:h]) & 1, (best[1] >> np.arange(k - h)) & 1]
        ).astype(bool)
    return mask if mask[0] else ~mask


def binary_mechanism_mi(P: Any, eps: float) -> Mechanism:
    """The binary mechanism for mutual information, Eqs. (3.21)-(3.22) (thesis §3.4.1).

    ``T`` minimises ``|P(T) - 1/2|`` (see :func:`balanced_partition`); then
    ``Q(0 | x) = e^eps / (1 + e^eps)`` on ``T`` and ``1 / (1 + e^eps)`` off ``T``. Its
    mutual information is Eq. (3.23); it is optimal for small eps (Thm 3.4.1).

    Parameters
    ----------
    P : array_like, shape (k,)
    eps : float
        ``eps >= 0`` (``inf`` allowed).

    Returns
    -------
    Mechanism
        Shape ``(k, 2)``.

    Examples
    --------
    >>> binary_mechanism_mi([0.4, 0.3, 0.2, 0.1], 0.0).matrix
    array([[0.5, 0.5],
           [0.5, 0.5],
           [0.5, 0.5],
           [0.5, 0.5]])
    """
    eps = _eps(eps)
    return _two_level(balanced_partition(P), eps)


def randomized_response(k: int, eps: float) -> Mechanism:
    """k-ary randomized response, Eq. (3.16) (thesis §3.3.1).

    ``Q(y | x) = e^eps / (k - 1 + e^eps)`` if ``y = x`` and ``1 / (k - 1 + e^eps)`` otherwise.

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 1``.
    eps : float
        ``eps >= 0`` (``inf`` gives the identity).

    Returns
    -------
    Mechanism
        Shape ``(k, k)``.

    Examples
    --------
    >>> randomized_response(3, 0.0).matrix.round(4)
    array([[0.3333, 0.3333, 0.3333],
           [0.3333, 0.3333, 0.3333],
           [0.3333, 0.3333, 0.3333]])
    """
    k = check_int(k, "k", low=1)
    check_array_size(k * k, "the k x k randomized response matrix", "k", k)
    eps = _eps(eps)
    tail = math.exp(-eps)  # 1 / (k - 1 + e^eps) written to stay finite for eps = inf
    off = tail / (1.0 + (k - 1) * tail)
    Q = np.full((k, k), off)
    np.fill_diagonal(Q, 1.0 - (k - 1) * off)
    return Mechanism(Q)


def geometric_mechanism(k: int, eps: float) -> Mechanism:
    """Truncated geometric mechanism on ``{0, ..., k-1}``, the baseline of §3.3.2.

    With ``a = e^(-eps / (k - 1))``, ``Q(y | x) = (1 - a) / (1 + a) a^|y - x|`` for interior
    outputs, and the mass of the two-sided geometric noise falling outside the range is put
    on the end points: ``Q(0 | x) = a^x / (1 + a)``, ``Q(k-1 | x) = a^(k-1-x) / (1 + a)``.
    Any two inputs are at most ``k - 1`` steps apart, so it is exactly eps-LDP. (The thesis
    writes the decay as ``eps^(1/(k-1))``; the rate ``e^(-eps/(k-1))`` is meant.)

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 1``.
    eps : float
        ``eps >= 0`` (``inf`` gives the identity).

    Returns
    -------
    Mechanism
        Shape ``(k, k)``.

    Examples
    --------
    >>> geometric_mechanism(3, 2.0).matrix.round(4)
    array([[0.7311, 0.17  , 0.0989],
           [0.2689, 0.4621, 0.2689],
           [0.0989, 0.17  , 0.7311]])
    """
    k = check_int(k, "k", low=1)
    check_array_size(k * k, "the k x k geometric mechanism matrix", "k", k)
    eps = _eps(eps)
    if k == 1:
        return Mechanism([[1.0]])
    a = math.exp(-eps / (k - 1))
    idx = np.arange(k)
    dist = np.abs(idx[:, None] - idx[None, :])
    Q = (1.0 - a) / (1.0 + a) * a ** dist.astype(float)
    Q[:, 0] = a ** idx.astype(float) / (1.0 + a)
    Q[:, -1] = a ** (k - 1 - idx).astype(float) / (1.0 + a)
    return Mechanism(Q)


def quaternary_mechanism(eps: float, delta: float) -> Mechanism:
    """The quaternary mechanism for binary inputs, Eq. (3.26) (thesis §3.5).

    With probability ``delta`` it releases ``X`` itself (outputs 0, 1); otherwise it applies
    the binary mechanism (outputs 2, 3). It is (eps, delta)-LDP with its error region equal
    to ``R_{eps, delta}`` and dominates every (eps, delta)-LDP mechanism (Thm 3.5.1).

    Parameters
    ----------
    eps : float
        ``eps >= 0`` (``inf`` allowed).
    delta : float
        In ``[0, 1]``.

    Returns
    -------
    Mechanism
        Shape ``(2, 4)``.

    Examples
    --------
    >>> quaternary_mechanism(0.0, 0.2).matrix
    array([[0.2, 0. , 0.4, 0.4],
           [0. , 0.2, 0.4, 0.4]])
    """
    eps = _eps(eps)
    delta = check_probability(delta, "delta")
    lo, hi = (1.0 - delta) * expit(-eps), (1.0 - delta) * expit(eps)
    return Mechanism([[delta, 0.0, lo, hi], [0.0, delta, hi, lo]])


def binary_or_randomized_response(utility: Any, eps: float) -> Mechanism:
    """The better of the binary mechanism and randomized response for ``utility`` (§3.3.2, §3.4.2).

    For an f-divergence (:class:`~privacy.utility.FDivergence`, including KL and total
    variation) the binary mechanism is Eq. (3.14); for
    :class:`~privacy.utility.MutualInformation` it is Eq. (3.22). Ties go to the binary
    mechanism. The thesis reports this achieves at least 60% of the optimal KL divergence
    (Fig. 3.4) and 75% of the optimal mutual information (Fig. 3.7) on random instances.

    Parameters
    ----------
    utility : FDivergence or MutualInformation
    eps : float
        ``eps >= 0``.

    Returns
    -------
    Mechanism

    Examples
    --------
    >>> from anonspread.privacy.utility import MutualInformation
    >>> binary_or_randomized_response(MutualInformation([0.5, 0.3, 0.2]), 10.0).shape
    (3, 3)
    """
    from anonspread.privacy.utility import FDivergence, MutualInformation

    eps = _eps(eps)
    if isinstance(utility, MutualInformation):
        binary = binary_mechanism_mi(utility.P, eps)
    elif isinstance(utility, FDivergence):
        binary = binary_mechanism(utility.P0, utility.P1, eps)
    else:
        raise InvalidTypeError(
            f"utility must be an FDivergence or a MutualInformation; got {type(utility).__name__}"
        )
    rr = randomized_response(utility.n_inputs, eps)
    return rr if utility.value(rr) > utility.value(binary) else binary
