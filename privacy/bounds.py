"""Closed forms and converse bounds of thesis §3.3.3 and §3.4.3, vectorised over eps.

Every function takes the distributions and an ``eps`` that may be a scalar or an array
(returning a float or an array of the same shape), so plots can overlay them on utilities
computed for a grid of eps.

Hypothesis testing (``P0``, ``P1``):

* :func:`tv_binary` -- ``(e^eps - 1)/(e^eps + 1) ||P0 - P1||_TV``: the total variation of
  the binary mechanism and, by Cor. 3.3.7, an upper bound for every eps-LDP mechanism;
* :func:`kl_binary` -- ``D_kl(M0 || M1)`` of the binary mechanism, Eq. (3.17) first line;
* :func:`kl_high_privacy_bound` -- Cor. 3.3.5, ``2 (1 + delta) (e^eps - 1)^2 / (e^eps + 1)
  ||P0 - P1||_TV^2`` on the symmetrised KL for ``eps <= eps*``;
* :func:`kl_low_privacy_bound` -- Cor. 3.3.6 / Eq. (3.18), ``D_kl(P0 || P1) - (1 - delta)
  G e^-eps``, with ``G`` the exact first-order coefficient of randomized response
  (:func:`rr_kl_coefficient`; see its note on the thesis's ``G``).

Information preservation (``P``):

* :func:`mi_binary` -- ``I(X; Y)`` of the binary mechanism, Eq. (3.23);
* :func:`mi_high_privacy_bound` -- Cor. 3.4.4, ``(1 + delta) P(T) P(T^c) eps^2 / 2``;
* :func:`mi_low_privacy_bound` -- Cor. 3.4.5, ``H(X) - (1 - delta) (k - 1) eps e^-eps``.

The corollaries hold for ``eps`` below (resp. above) an instance-dependent threshold only;
the functions evaluate the formulas at any eps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.privacy.mechanisms import balanced_partition
from anonspread.validation import check_distribution, check_real

__all__ = [
    "kl_binary",
    "kl_high_privacy_bound",
    "kl_low_privacy_bound",
    "mi_binary",
    "mi_high_privacy_bound",
    "mi_low_privacy_bound",
    "rr_kl_coefficient",
    "thesis_G",
    "tv_binary",
]


def _eps_array(eps: Any) -> np.ndarray:
    arr = np.asarray(eps, dtype=float)
    if arr.size == 0 or np.any(np.isnan(arr)) or np.any(arr < 0) or np.any(np.isinf(arr)):
        shown = arr.tolist() if arr.size <= 5 else f"array of shape {arr.shape}"
        raise InvalidParameterError(
            f"eps must be a finite real number >= 0 (or an array of them); got {shown!r}"
        )
    return arr


def _out(arr: np.ndarray) -> float | np.ndarray:
    return float(arr) if arr.ndim == 0 else arr


def _pair(P0: Any, P1: Any, *, positive: bool = False) -> tuple[np.ndarray, np.ndarray]:
    P0 = check_distribution(P0, "P0", positive=positive)
    P1 = check_distribution(P1, "P1", positive=positive)
    if P0.shape != P1.shape:
        raise InvalidParameterError(
            f"P0 and P1 must be over the same alphabet; got sizes {P0.size} and {P1.size}"
        )
    return P0, P1


def _delta(delta: Any) -> float:
    return check_real(delta, "delta", low=0.0)


def tv_binary(P0: Any, P1: Any, eps: Any) -> float | np.ndarray:
    """``||M0 - M1||_TV`` of the binary mechanism, ``(e^eps-1)/(e^eps+1) ||P0 - P1||_TV``.

    By Corollary 3.3.7 it is also the largest total variation of any eps-LDP mechanism.

    Parameters
    ----------
    P0, P1 : array_like
        Two distributions over the same alphabet of ``k`` symbols.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(tv_binary([0.5, 0.5], [0.25, 0.75], np.log(3.0)), 6)
    0.125
    """
    P0, P1 = _pair(P0, P1)
    e = _eps_array(eps)
    return _out(np.tanh(e / 2.0) * 0.5 * np.abs(P0 - P1).sum())


def kl_binary(P0: Any, P1: Any, eps: Any) -> float | np.ndarray:
    """``D_kl(M0 || M1)`` of the binary mechanism, the exact first line of Eq. (3.17).

    With ``T = {x : P0(x) >= P1(x)}`` and ``E = e^eps - 1``, the two outputs have
    ``M_nu = ((E P_nu(T) + 1), (E P_nu(T^c) + 1)) / (e^eps + 1)``.

    Parameters
    ----------
    P0, P1 : array_like
        Two distributions over the same alphabet; ``P1`` positive wherever ``P0`` is.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(kl_binary([0.5, 0.5], [0.25, 0.75], 50.0), 6)  # -> D(P0 || P1) as eps grows
    0.143841
    """
    P0, P1 = _pair(P0, P1, positive=False)
    if np.any((P1 == 0) & (P0 > 0)):
        raise InvalidParameterError("P1 must be positive wherever P0 is (KL would be infinite)")
    e = _eps_array(eps)
    T = P0 >= P1
    E = np.expm1(e)[..., None]
    a = np.array([P0[T].sum(), P0[~T].sum()])
    b = np.array([P1[T].sum(), P1[~T].sum()])
    u, v = 1.0 + E * a, 1.0 + E * b
    return _out(np.sum(u * np.log(u / v), axis=-1) / (np.exp(e) + 1.0))


def kl_high_privacy_bound(P0: Any, P1: Any, eps: Any, delta: float = 0.0) -> float | np.ndarray:
    """Corollary 3.3.5: ``D(M0||M1) + D(M1||M0) <= 2 (1+delta) (e^eps-1)^2/(e^eps+1) TV^2``.

    Holds for every eps-LDP mechanism when ``eps <= eps*(P0, P1, delta)``. With
    ``delta = 0`` and the factor 2 dropped it is the leading term of Eq. (3.17),
    ``(e^eps-1)^2/(e^eps+1) ||P0-P1||_TV^2`` (use ``kl_high_privacy_bound(...) / 2``).

    Parameters
    ----------
    P0, P1 : array_like
        Two distributions over the same alphabet of ``k`` symbols.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.
    delta : float
        Approximation slack of the corollary, >= 0 (0: the bound as stated).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(kl_high_privacy_bound([0.5, 0.5], [0.25, 0.75], 0.1), 8)
    0.00065677
    """
    P0, P1 = _pair(P0, P1)
    e = _eps_array(eps)
    tv = 0.5 * np.abs(P0 - P1).sum()
    return _out(2.0 * (1.0 + _delta(delta)) * np.expm1(e) ** 2 / (np.exp(e) + 1.0) * tv**2)


def thesis_G(P0: Any, P1: Any) -> float:
    """``G(P0, P1) = sum_x (1 - P0(x)) log(P1(x) / P0(x))`` exactly as printed in Cor. 3.3.6.

    Note: this is *not* the first-order coefficient of randomized response's KL
    divergence (Eq. 3.18); :func:`rr_kl_coefficient` is, and the tests check it against
    the mechanism. Kept to reproduce the thesis's formula.

    Parameters
    ----------
    P0, P1 : array_like
        Two positive distributions over the same alphabet of ``k`` symbols.

    Returns
    -------
    float

    Examples
    --------
    >>> round(thesis_G([0.5, 0.5], [0.25, 0.75]), 6)
    -0.143841
    """
    P0, P1 = _pair(P0, P1, positive=True)
    return float(np.sum((1.0 - P0) * np.log(P1 / P0)))


def rr_kl_coefficient(P0: Any, P1: Any) -> float:
    """``G`` with ``D_kl(M0||M1) = D_kl(P0||P1) - G e^-eps + O(e^-2eps)`` under randomized response.

    Expanding Eq. (3.16) in ``e^-eps``:
    ``G = sum_x (k P0(x) - 1) log(P0(x)/P1(x)) + sum_x P0(x)/P1(x) - k``
    (``= thesis_G + (k - 1) D(P0||P1) + sum P0/P1 - k``).

    Parameters
    ----------
    P0, P1 : array_like
        Two positive distributions over the same alphabet of ``k`` symbols.

    Returns
    -------
    float

    Examples
    --------
    >>> rr_kl_coefficient([0.5, 0.5], [0.5, 0.5])
    0.0
    """
    P0, P1 = _pair(P0, P1, positive=True)
    k = P0.size
    return float(np.sum((k * P0 - 1.0) * np.log(P0 / P1)) + np.sum(P0 / P1) - k)


def kl_low_privacy_bound(P0: Any, P1: Any, eps: Any, delta: float = 0.0) -> float | np.ndarray:
    """Corollary 3.3.6 / Eq. (3.18): ``D_kl(M0 || M1) <= D_kl(P0||P1) - (1 - delta) G e^-eps``.

    Holds for every eps-LDP mechanism when ``eps >= eps*(P0, P1, delta)``, where randomized
    response is optimal (Thm 3.3.4). ``G`` is :func:`rr_kl_coefficient` (the thesis prints
    a different ``G``, see :func:`thesis_G`, and a symmetrised KL on the left; the form
    here is the one Eq. (3.18) and Fig. 3.5 use).

    Parameters
    ----------
    P0, P1 : array_like
        Two positive distributions over the same alphabet of ``k`` symbols.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.
    delta : float
        Approximation slack of the corollary, >= 0 (0: the bound as stated).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(kl_low_privacy_bound([0.5, 0.5], [0.25, 0.75], 30.0), 6)
    0.143841
    """
    P0, P1 = _pair(P0, P1, positive=True)
    e = _eps_array(eps)
    D = float(np.sum(P0 * np.log(P0 / P1)))
    return _out(D - (1.0 - _delta(delta)) * rr_kl_coefficient(P0, P1) * np.exp(-e))


def mi_binary(P: Any, eps: Any) -> float | np.ndarray:
    """``I(X; Y)`` of the binary mechanism for mutual information, Eq. (3.23).

    With ``t = P(T)`` for the balanced ``T`` of Eq. (3.21) and ``e = e^eps``::

        (1/(e+1)) [t e log(e/((1-t) + e t)) + (1-t) log(1/((1-t) + e t))]
      + (1/(e+1)) [(1-t) e log(e/(t + e (1-t))) + t log(1/(t + e (1-t)))]

    Parameters
    ----------
    P : array_like
        The distribution of ``X``.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(mi_binary([0.5, 0.5], 0.0), 12)
    0.0
    """
    P = check_distribution(P, "P")
    eps_arr = _eps_array(eps)
    t = float(P[balanced_partition(P)].sum())
    e = np.exp(eps_arr)
    a = (1.0 - t) + e * t
    b = t + e * (1.0 - t)
    first = t * e * (eps_arr - np.log(a)) - (1.0 - t) * np.log(a)
    second = (1.0 - t) * e * (eps_arr - np.log(b)) - t * np.log(b)
    return _out((first + second) / (e + 1.0))


def mi_high_privacy_bound(P: Any, eps: Any, delta: float = 0.0) -> float | np.ndarray:
    """Corollary 3.4.4: ``I(X; Y) <= (1 + delta) P(T) P(T^c) eps^2 / 2`` for ``eps <= eps*``.

    Parameters
    ----------
    P : array_like
        The distribution of ``X``.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.
    delta : float
        Approximation slack of the corollary, >= 0 (0: the bound as stated).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> mi_high_privacy_bound([0.5, 0.5], 0.2)
    0.005000000000000001
    """
    P = check_distribution(P, "P")
    e = _eps_array(eps)
    t = float(P[balanced_partition(P)].sum())
    return _out((1.0 + _delta(delta)) * 0.5 * t * (1.0 - t) * e**2)


def mi_low_privacy_bound(P: Any, eps: Any, delta: float = 0.0) -> float | np.ndarray:
    """Corollary 3.4.5: ``I(X; Y) <= H(X) - (1 - delta) (k - 1) eps e^-eps`` for ``eps >= eps*``.

    Eq. (3.24) gives randomized response's ``I(X; Y) = H(X) - (k - 1) eps e^-eps`` plus a
    remainder; the remainder is ``O(e^-eps)`` (not ``O(e^-2eps)`` as printed), still of
    lower order than the ``eps e^-eps`` term.

    Parameters
    ----------
    P : array_like
        The distribution of ``X``.
    eps : float or array_like
        Privacy level(s), finite and >= 0; an array gives an array.
    delta : float
        Approximation slack of the corollary, >= 0 (0: the bound as stated).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(mi_low_privacy_bound([0.5, 0.5], 40.0), 6)
    0.693147
    """
    P = check_distribution(P, "P")
    e = _eps_array(eps)
    nz = P[P > 0]
    H = float(-np.sum(nz * np.log(nz)))
    return _out(H - (1.0 - _delta(delta)) * (P.size - 1) * e * np.exp(-e))
