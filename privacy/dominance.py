"""Comparing mechanisms: Blackwell dominance and the error region of binary inputs (§3.5).

* :func:`dominates` -- does a stochastic ``W`` exist with ``Q2 = Q1 W`` (``Q1`` dominates
  ``Q2``: ``X - Y1 - Y2`` can be made a Markov chain, §3.5)? Decided by a linear program.
  :func:`garbling` returns such a ``W``.
* :func:`error_region` -- for a binary-input mechanism, the lower boundary of its region of
  (false alarm, missed detection) pairs over all tests of ``X = 0`` against ``X = 1``;
  :func:`dp_error_region` -- the region ``R_{eps, delta}`` of Theorem 3.5.2;
  :func:`is_approx_dp` -- ``R_Q`` inside ``R_{eps, delta}``, which by Theorem 3.5.2 is
  (eps, delta)-LDP.

Both regions are convex and symmetric about ``(1/2, 1/2)``, so their lower-left boundary
(a convex polyline from ``(0, 1)`` to ``(1, 0)``) describes them fully.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from anonspread.errors import InfeasibleError, InvalidParameterError
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_probability, check_real

__all__ = ["ErrorRegion", "dominates", "dp_error_region", "error_region", "garbling", "is_approx_dp"]


def _mech(Q: Any, name: str) -> Mechanism:
    if isinstance(Q, Mechanism):
        return Q
    try:
        return Mechanism(Q)
    except ValueError as exc:
        raise InvalidParameterError(f"{name}: {exc}") from exc


def _garbling_lp(Q1: Mechanism, Q2: Mechanism) -> tuple[float, np.ndarray]:
    """Minimise ``sum |Q1 W - Q2|`` over row-stochastic ``W``; return (residual, W)."""
    A, B = Q1.matrix, Q2.matrix
    k, m1 = A.shape
    m2 = B.shape[1]
    nw = m1 * m2  # W flattened row-major: W[i, j] -> i * m2 + j
    # (Q1 W)[x, j] = sum_i A[x, i] W[i, j]  ->  kron(A, I_m2) acting on vec(W).
    fit = sp.kron(sp.csr_matrix(A), sp.identity(m2, format="csr"), format="csr")
    slack = sp.identity(k * m2, format="csr")
    rows_eq = sp.hstack([fit, slack, -slack], format="csr")
    stoch = sp.hstack(
        [sp.kron(sp.identity(m1), np.ones((1, m2))), sp.csr_matrix((m1, 2 * k * m2))],
        format="csr",
    )
    A_eq = sp.vstack([rows_eq, stoch], format="csr")
    b_eq = np.concatenate([B.ravel(), np.ones(m1)])
    c = np.concatenate([np.zeros(nw), np.ones(2 * k * m2)])
    res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if res.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise InfeasibleError(f"the garbling LP failed: {res.message}")
    W = np.clip(res.x[:nw].reshape(m1, m2), 0.0, None)
    return float(res.fun), W


def _pair(Q1: Any, Q2: Any) -> tuple[Mechanism, Mechanism]:
    Q1, Q2 = _mech(Q1, "Q1"), _mech(Q2, "Q2")
    if Q1.n_inputs != Q2.n_inputs:
        raise InvalidParameterError(
            f"Q2 must have as many inputs (rows) as Q1 ({Q1.n_inputs}); got {Q2.n_inputs}"
        )
    return Q1, Q2


def dominates(Q1: Any, Q2: Any, *, atol: float = 1e-9) -> bool:
    """Whether ``Q1`` dominates ``Q2``: ``Q2 = Q1 W`` for some row-stochastic ``W`` (§3.5).

    By Blackwell's theorem (Theorem 3.5.3 for binary inputs) this holds exactly when every
    utility obeying the data processing inequality prefers ``Q1``. Decided by the LP
    ``min sum |Q1 W - Q2|`` over stochastic ``W`` (HiGHS); ``Q1`` dominates when the
    optimum is at most ``atol``.

    Parameters
    ----------
    Q1, Q2 : Mechanism or array_like
        Mechanisms on the same inputs (any output alphabets).
    atol : float
        Tolerance on the total absolute residual.

    Returns
    -------
    bool

    Examples
    --------
    >>> from anonspread.privacy.mechanisms import quaternary_mechanism
    >>> dominates(quaternary_mechanism(1.0, 0.1), quaternary_mechanism(1.0, 0.0))
    True
    >>> dominates(quaternary_mechanism(1.0, 0.0), quaternary_mechanism(1.0, 0.1))
    False
    """
    Q1, Q2 = _pair(Q1, Q2)
    atol = check_real(atol, "atol", low=0.0)
    return _garbling_lp(Q1, Q2)[0] <= atol


def garbling(Q1: Any, Q2: Any, *, atol: float = 1e-9) -> np.ndarray:
    """A row-stochastic ``W`` with ``Q2 = Q1 W`` (see :func:`dominates`).

    Parameters
    ----------
    Q1, Q2 : Mechanism or array_like
        Mechanisms on the same inputs (rows).
    atol : float
        Largest residual ``||Q1 W - Q2||`` accepted, >= 0.

    Returns
    -------
    numpy.ndarray
        ``W``, of shape (outputs of ``Q1``, outputs of ``Q2``).

    Raises
    ------
    InfeasibleError
        If ``Q1`` does not dominate ``Q2`` (the smallest residual exceeds ``atol``).

    Examples
    --------
    >>> import numpy as np
    >>> W = garbling(np.eye(2), [[0.75, 0.25], [0.25, 0.75]])
    >>> W.round(6)
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    Q1, Q2 = _pair(Q1, Q2)
    atol = check_real(atol, "atol", low=0.0)
    residual, W = _garbling_lp(Q1, Q2)
    if residual > atol:
        raise InfeasibleError(
            f"Q1 does not dominate Q2: the best stochastic W leaves a residual {residual:.3g} > atol"
        )
    return W / W.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class ErrorRegion:
    """Lower-left boundary of an error region: vertices ``(p_fa[i], p_md[i])``.

    The polyline runs from ``(0, 1)`` to ``(1, 0)`` with ``p_fa`` non-decreasing; the region
    is the convex set between it and its reflection through ``(1/2, 1/2)``.

    Parameters
    ----------
    p_fa : numpy.ndarray
        False-alarm probabilities of the vertices, non-decreasing from 0 to 1.
    p_md : numpy.ndarray
        Missed-detection probabilities of the vertices, from 1 to 0.

    Examples
    --------
    The boundary of randomized response at ``eps = log 3``, from :func:`error_region`:

    >>> from anonspread.privacy.mechanisms import randomized_response
    >>> r = error_region(randomized_response(2, float(np.log(3.0))))
    >>> r.p_fa.tolist(), r.p_md.tolist()
    ([0.0, 0.25, 1.0], [1.0, 0.25, 0.0])
    >>> r.lower_md([0.1, 0.25]).round(6)
    array([0.7 , 0.25])
    """

    p_fa: np.ndarray
    p_md: np.ndarray

    def lower_md(self, p_fa: Any) -> np.ndarray:
        """Smallest achievable missed-detection probability at each false-alarm level.

        Parameters
        ----------
        p_fa : float or array_like
            False-alarm levels in [0, 1].

        Returns
        -------
        numpy.ndarray
            Interpolated linearly between the vertices.
        """
        return np.interp(np.asarray(p_fa, dtype=float), self.p_fa, self.p_md)

    def __repr__(self) -> str:
        # one line: the number of vertices (the arrays are the fields)
        return f"ErrorRegion(vertices={len(self.p_fa)})"


def error_region(Q: Any) -> ErrorRegion:
    """Error region ``R_Q`` of a binary-input mechanism (§3.5, Fig. 3.9b).

    A (randomised) test ``X_hat(Y)`` has false alarm ``P_FA = P(X_hat = 1 | X = 0)`` and
    missed detection ``P_MD = P(X_hat = 0 | X = 1)``. The lower boundary consists of the
    Neyman-Pearson tests: outputs sorted by decreasing likelihood ratio
    ``Q(y | 1) / Q(y | 0)`` are declared ``1`` one by one.

    Parameters
    ----------
    Q : Mechanism or array_like, shape (2, m)

    Returns
    -------
    ErrorRegion

    Examples
    --------
    >>> from anonspread.privacy.mechanisms import quaternary_mechanism
    >>> r = error_region(quaternary_mechanism(float(np.log(3.0)), 0.2))
    >>> np.round(np.c_[r.p_fa, r.p_md], 6)
    array([[0. , 1. ],
           [0. , 0.8],
           [0.2, 0.2],
           [0.8, 0. ],
           [1. , 0. ]])
    """
    Q = _mech(Q, "Q")
    if Q.n_inputs != 2:
        raise InvalidParameterError(
            f"Q must have 2 inputs (rows) for an error region; got {Q.n_inputs}"
        )
    q0, q1 = Q.matrix
    used = (q0 > 0) | (q1 > 0)
    q0, q1 = q0[used], q1[used]
    # Sort by decreasing q1/q0 without dividing: infinite ratios (q0 = 0) come first.
    ratio = np.where(q0 > 0, q1 / np.where(q0 > 0, q0, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    p_fa = np.concatenate([[0.0], np.cumsum(q0[order])])
    p_md = np.concatenate([[1.0], 1.0 - np.cumsum(q1[order])])
    p_fa[-1], p_md[-1] = 1.0, 0.0
    return ErrorRegion(np.clip(p_fa, 0.0, 1.0), np.clip(p_md, 0.0, 1.0))


def dp_error_region(eps: float, delta: float) -> ErrorRegion:
    """The region ``R_{eps, delta}`` of Theorem 3.5.2 (lower-left boundary).

    ``P_FA + e^eps P_MD >= 1 - delta`` and ``e^eps P_FA + P_MD >= 1 - delta``: vertices
    ``(0, 1)``, ``(0, 1 - delta)``, ``(c, c)`` with ``c = (1 - delta) / (1 + e^eps)``,
    ``(1 - delta, 0)`` and ``(1, 0)``.

    Parameters
    ----------
    eps : float
        Privacy level, ``eps >= 0``.
    delta : float
        In [0, 1].

    Examples
    --------
    >>> dp_error_region(0.0, 0.0).p_md.tolist()
    [1.0, 1.0, 0.5, 0.0, 0.0]
    """
    eps = check_real(eps, "eps", low=0.0, allow_inf=True)
    delta = check_probability(delta, "delta")
    c = (1.0 - delta) * (math.exp(-eps) / (1.0 + math.exp(-eps)))
    p_fa = np.array([0.0, 0.0, c, 1.0 - delta, 1.0])
    return ErrorRegion(p_fa, p_fa[::-1].copy())


def is_approx_dp(Q: Any, eps: float, delta: float, *, atol: float = 1e-12) -> bool:
    """Whether a binary-input ``Q`` is (eps, delta)-LDP, via ``R_Q ⊆ R_{eps, delta}`` (Thm 3.5.2).

    Both regions are convex and symmetric, so it suffices that every vertex of the lower
    boundary of ``R_Q`` meets the two linear constraints of ``R_{eps, delta}``.

    Parameters
    ----------
    Q : Mechanism or array_like, shape (2, m)
        A binary-input mechanism.
    eps : float
        Privacy level, >= 0 (``inf`` accepts every mechanism).
    delta : float
        Slack, in [0, 1].
    atol : float
        Tolerance of the check.

    Returns
    -------
    bool

    Examples
    --------
    >>> from anonspread.privacy.mechanisms import quaternary_mechanism
    >>> is_approx_dp(quaternary_mechanism(1.0, 0.1), 1.0, 0.1)
    True
    >>> is_approx_dp(quaternary_mechanism(1.0, 0.1), 1.0, 0.09)
    False
    """
    eps = check_real(eps, "eps", low=0.0, allow_inf=True)
    delta = check_probability(delta, "delta")
    r = error_region(Q)
    if math.isinf(eps):
        return True
    e = math.exp(eps)
    lhs = np.minimum(r.p_fa + e * r.p_md, e * r.p_fa + r.p_md)
    return bool(np.all(lhs >= 1.0 - delta - atol))
