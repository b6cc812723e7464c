"""Explicit privacy-funnel protocols calibrated to a target LIP w.r.t. S (§VII).

GRR (Eq. 28), OUE (Eqs. 30-31) and Conditional Reporting (Algorithm 1) each depend on
a parameter ``alpha``; their LIP w.r.t. S has a closed form (Eqs. 29, 32, 33) that
increases with ``alpha`` from 0 (at ``alpha = 0``) to a limit ``L(inf)``. Calibration
solves ``LIP(alpha) = eps`` with Brent's method; when ``eps >= L(inf)`` the
``alpha = inf`` protocol (GRR and CR then report X itself) already satisfies
``eps``-LIP and is returned.

All closed forms are evaluated after dividing numerator and denominator by
``e^alpha``, i.e. in ``w = e^-alpha``, so that they stay exact for any ``alpha`` up to
``inf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import brentq

from anonspread.errors import InvalidParameterError
from anonspread.privacy.funnel.checks import check_eps, check_joint
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_real

__all__ = [
    "conditional_reporting",
    "cr_alpha",
    "cr_lip",
    "grr",
    "grr_alpha",
    "grr_lip",
    "oue",
    "oue_alpha",
    "oue_lip",
]

_MAX_OUE_INPUTS = 20


def _check_alpha(alpha: Any) -> float:
    return check_real(alpha, "alpha", low=0.0, allow_inf=True)


def _conditionals(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p_{X|s}`` for the secret values of positive probability, and ``p_X``."""
    p_s = p.sum(axis=1)
    return p[p_s > 0] / p_s[p_s > 0, None], p.sum(axis=0)


def _max_abs_log(num: np.ndarray, den: np.ndarray) -> float:
    """``max |ln(num / den)|`` where ``den > 0``; 0/0 entries (never output) are skipped."""
    mask = den > 0
    if not np.any(mask):
        return 0.0
    n, d = num[mask], den[mask]
    if np.any(n <= 0):
        return math.inf
    return float(max(0.0, np.max(np.abs(np.log(n) - np.log(d)))))


def _grr_lip_w(cond: np.ndarray, p_x: np.ndarray, w: float) -> float:
    # Eq. (29) divided by e^alpha: (w + (1 - w) p_{x|s}) / (w + (1 - w) p_x).
    return _max_abs_log(w + (1 - w) * cond, np.broadcast_to(w + (1 - w) * p_x, cond.shape))


def _cr_lip_w(cond: np.ndarray, p_x: np.ndarray, w: float) -> float:
    # Eq. (33) divided by e^alpha, with D_x = sum_s' p_{x|s'}.
    D = cond.sum(axis=0)
    den = np.broadcast_to((1 - w) * p_x + w * D, cond.shape)
    return _max_abs_log((1 - w) * cond + w * D, den)


def _subset_sums(v: np.ndarray) -> np.ndarray:
    """``sums[..., y] = sum_{x in y} v[..., x]`` for every subset ``y`` (bitmask) of X."""
    a = v.shape[-1]
    bits = (np.arange(2**a)[:, None] >> np.arange(a)[None, :]) & 1
    return v @ bits.T.astype(float)


def _oue_lip_w(cond: np.ndarray, p_x: np.ndarray, w: float) -> float:
    # Eq. (32) divided by e^alpha: (w + (1 - w) A_{y,s}) / (w + (1 - w) B_y).
    A = _subset_sums(cond)
    B = _subset_sums(p_x)
    return _max_abs_log(w + (1 - w) * A, np.broadcast_to(w + (1 - w) * B, A.shape))


def _w_of(alpha: float) -> float:
    return 0.0 if math.isinf(alpha) else math.exp(-alpha)


def _calibrate(lip_w: Callable[[float], float], eps: float) -> float:
    """Smallest ``alpha`` in ``[0, inf]`` with ``LIP(alpha) = eps`` (``inf`` if never reached)."""
    if lip_w(0.0) <= eps:
        return math.inf
    if eps == 0.0:
        return 0.0
    hi = 1.0
    while lip_w(math.exp(-hi)) < eps:
        hi *= 2.0
        if hi > 700.0:  # LIP(700) < eps < LIP(inf) only within rounding of LIP(inf)
            return math.inf
    lo = hi / 2.0 if hi > 1.0 else 0.0
    return float(
        brentq(lambda al: lip_w(math.exp(-al)) - eps, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500)
    )


def grr_lip(p_sx: Any, alpha: Any) -> float:
    r"""LIP w.r.t. S of Generalised Randomised Response with parameter ``alpha`` (Eq. 29).

    .. math::
        \mathrm{LIP}(\mathrm{GRR}^\alpha) = \max_{x,s}\left|\ln
            \frac{1 + (e^\alpha - 1) p_{x|s}}{1 + (e^\alpha - 1) p_x}\right|.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    alpha : float
        The protocol's parameter, >= 0 (``inf`` allowed).

    Returns
    -------
    float

    Examples
    --------
    >>> grr_lip([[0.25, 0.25], [0.25, 0.25]], 3.0)
    0.0
    """
    p = check_joint(p_sx)
    cond, p_x = _conditionals(p)
    return _grr_lip_w(cond, p_x, _w_of(_check_alpha(alpha)))


def oue_lip(p_sx: Any, alpha: Any) -> float:
    r"""LIP w.r.t. S of Optimised Unary Encoding with parameter ``alpha`` (Eq. 32).

    .. math::
        \mathrm{LIP}(\mathrm{OUE}^\alpha) = \max_{y \subseteq \mathcal X, s}\left|\ln
            \frac{1 + (e^\alpha - 1)\sum_{x \in y} p_{x|s}}{1 + (e^\alpha - 1)\sum_{x\in y} p_x}
            \right|.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    alpha : float
        The protocol's parameter, >= 0 (``inf`` allowed).

    Returns
    -------
    float

    Examples
    --------
    >>> oue_lip([[0.25, 0.25], [0.25, 0.25]], 3.0)
    0.0
    """
    p = check_joint(p_sx)
    _check_oue_size(p.shape[1])
    cond, p_x = _conditionals(p)
    return _oue_lip_w(cond, p_x, _w_of(_check_alpha(alpha)))


def cr_lip(p_sx: Any, alpha: Any) -> float:
    r"""LIP w.r.t. S of Conditional Reporting with parameter ``alpha``: ``L(alpha)`` of Eq. (33).

    .. math::
        L(\alpha) = \max_{x,s}\left|\ln\frac{(e^\alpha - 1)p_{x|s} + \sum_{s'} p_{x|s'}}
            {(e^\alpha - 1)p_x + \sum_{s'} p_{x|s'}}\right| \le \alpha
            \quad\text{(Propositions 1 and 2)}.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    alpha : float
        The protocol's parameter, >= 0 (``inf`` allowed).

    Returns
    -------
    float

    Examples
    --------
    >>> bool(cr_lip([[0.4, 0.1], [0.1, 0.4]], 1.0) <= 1.0)
    True
    """
    p = check_joint(p_sx)
    _check_cr_secrets(p)
    cond, p_x = _conditionals(p)
    return _cr_lip_w(cond, p_x, _w_of(_check_alpha(alpha)))


def _check_oue_size(a: int) -> None:
    if a > _MAX_OUE_INPUTS:
        raise InvalidParameterError(
            f"p_sx must have at most {_MAX_OUE_INPUTS} data values for OUE (its output "
            f"alphabet has 2**a elements); got a = {a}"
        )


def _check_cr_secrets(p: np.ndarray) -> None:
    if np.any(p.sum(axis=1) <= 0):
        raise InvalidParameterError(
            "p_sx must give every secret value a positive probability for Conditional "
            "Reporting (Algorithm 1 samples X from p_{X|s'} for every s'); got row sums "
            f"{p.sum(axis=1)!r}"
        )


def grr_alpha(p_sx: Any, eps: Any) -> float:
    """The ``alpha`` with ``LIP(GRR^alpha) = eps`` (Eq. 29), ``inf`` if X itself is eps-LIP.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    eps : float
        The target leakage, >= 0.

    Returns
    -------
    float
        In ``[0, inf]``.

    Examples
    --------
    >>> p = [[0.4, 0.1], [0.1, 0.4]]
    >>> round(grr_lip(p, grr_alpha(p, 0.2)), 9)
    0.2
    """
    p = check_joint(p_sx)
    eps = check_eps(eps)
    cond, p_x = _conditionals(p)
    return _calibrate(lambda w: _grr_lip_w(cond, p_x, w), eps)


def oue_alpha(p_sx: Any, eps: Any) -> float:
    """The ``alpha`` with ``LIP(OUE^alpha) = eps`` (Eq. 32), ``inf`` if never reached.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    eps : float
        The target leakage, >= 0.

    Returns
    -------
    float
        In ``[0, inf]``.

    Examples
    --------
    >>> p = [[0.4, 0.1], [0.1, 0.4]]
    >>> round(oue_lip(p, oue_alpha(p, 0.2)), 9)
    0.2
    """
    p = check_joint(p_sx)
    eps = check_eps(eps)
    _check_oue_size(p.shape[1])
    cond, p_x = _conditionals(p)
    return _calibrate(lambda w: _oue_lip_w(cond, p_x, w), eps)


def cr_alpha(p_sx: Any, eps: Any) -> float:
    """The ``alpha`` with ``L(alpha) = eps`` (Eq. 33), ``inf`` if X itself is eps-LIP.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret ``S`` (rows) and the data ``X`` (columns).
    eps : float
        The target leakage, >= 0.

    Returns
    -------
    float
        In ``[0, inf]``.

    Examples
    --------
    >>> p = [[0.4, 0.1], [0.1, 0.4]]
    >>> round(cr_lip(p, cr_alpha(p, 0.2)), 9)
    0.2
    """
    p = check_joint(p_sx)
    eps = check_eps(eps)
    _check_cr_secrets(p)
    cond, p_x = _conditionals(p)
    return _calibrate(lambda w: _cr_lip_w(cond, p_x, w), eps)


def grr(p_sx: Any, eps: Any) -> Mechanism:
    r"""Generalised Randomised Response calibrated to ``eps``-LIP w.r.t. S (Eqs. 28-29).

    :math:`\mathrm{GRR}^\alpha_{y|x} = e^\alpha / (e^\alpha + a - 1)` if ``y = x`` and
    :math:`1 / (e^\alpha + a - 1)` otherwise, with ``alpha = grr_alpha(p_sx, eps)``.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of S (rows) and X (columns).
    eps : float
        Target LIP level, ``>= 0``.

    Returns
    -------
    Mechanism
        ``a x a``; its LIP w.r.t. S equals ``eps`` unless the identity (``alpha = inf``)
        is already ``eps``-LIP, in which case the identity is returned.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> from anonspread.privacy.funnel import lip_epsilon, grr
    >>> Q = grr(p_sx, 0.3)
    >>> round(lip_epsilon(Q, p_sx), 9)
    0.3
    """
    p = check_joint(p_sx)
    a = p.shape[1]
    w = _w_of(grr_alpha(p, eps))
    Q = (np.eye(a) + w * (np.ones((a, a)) - np.eye(a))) / (1.0 + (a - 1) * w)
    return Mechanism(Q)


def oue(p_sx: Any, eps: Any) -> Mechanism:
    r"""Optimised Unary Encoding calibrated to ``eps``-LIP w.r.t. S (Eqs. 30-32).

    The output is a subset ``y`` of X, encoded as the bitmask ``sum_{x in y} 2**x``;
    bit ``x'`` is 1 with probability 1/2 if ``x' = x`` and :math:`1/(e^\alpha + 1)`
    otherwise, independently (Eq. 30), with ``alpha = oue_alpha(p_sx, eps)``. For large
    ``eps`` the utility tends to ``H(X) / 2`` (§VIII-C).

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of S and X; ``a <= 20`` (the output alphabet has ``2**a``
        elements).
    eps : float
        Target LIP level, ``>= 0``.

    Returns
    -------
    Mechanism
        ``a x 2**a``.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> from anonspread.privacy.funnel import lip_epsilon, oue
    >>> Q = oue(p_sx, 0.3)
    >>> Q.shape, round(lip_epsilon(Q, p_sx), 9)
    ((3, 8), 0.3)
    """
    p = check_joint(p_sx)
    a = p.shape[1]
    w = _w_of(oue_alpha(p, eps))
    bits = (np.arange(2**a)[None, :] >> np.arange(a)[:, None]) & 1  # bits[x', y]
    size = bits.sum(axis=0)  # #y
    own = bits.astype(float)  # [x in y] for row x
    # Eq. (31) with e^alpha divided out: other bits set cost w / (1 + w), unset 1 / (1 + w).
    others_set = size[None, :] - own
    others_unset = (a - 1) - others_set
    Q = 0.5 * (w / (1.0 + w)) ** others_set * (1.0 / (1.0 + w)) ** others_unset
    return Mechanism(Q)


def conditional_reporting(p_sx: Any, eps: Any) -> Mechanism:
    r"""Conditional Reporting (Algorithm 1) calibrated to ``eps``-LIP w.r.t. S (Eq. 33).

    CR takes the pair (s, x) as input: it draws :math:`\tilde s` by randomised
    response on S with parameter ``alpha``; if :math:`\tilde s = s` it outputs ``x``,
    else a fresh draw from :math:`p_{X|\tilde s}`. Hence (Eq. 46)

    .. math::
        Q_{y|(s,x)} = \frac{e^\alpha\,\delta_{x=y} + \sum_{s' \ne s} p_{y|s'}}{e^\alpha + c - 1},

    with ``alpha = cr_alpha(p_sx, eps)``. Proposition 1 gives its LIP as ``L(alpha)``.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of S and X; every secret value must have positive probability.
    eps : float
        Target LIP level, ``>= 0``.

    Returns
    -------
    Mechanism
        ``(c * a) x a``: row ``s * a + x`` is the output distribution for input
        ``(s, x)``. :func:`lip_epsilon`, :func:`ldp_epsilon` and
        :func:`mutual_information` (given ``p_sx``) accept it.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> from anonspread.privacy.funnel import lip_epsilon, conditional_reporting
    >>> Q = conditional_reporting(p_sx, 0.3)
    >>> Q.shape, round(lip_epsilon(Q, p_sx), 9)
    ((6, 3), 0.3)
    """
    p = check_joint(p_sx)
    _check_cr_secrets(p)
    c, a = p.shape
    w = _w_of(cr_alpha(p, eps))
    cond = p / p.sum(axis=1, keepdims=True)
    others = cond.sum(axis=0)[None, :] - cond  # sum_{s' != s} p_{y|s'}, shape (c, a)
    Q = np.eye(a)[None, :, :] + w * others[:, None, :]  # [s, x, y]
    Q /= 1.0 + (c - 1) * w
    return Mechanism(Q.reshape(c * a, a))
