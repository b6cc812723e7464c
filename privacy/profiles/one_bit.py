"""One-bit mechanisms: Algorithms 1-3 (LPs (4), (5)) and Observation 10 (Section 5.1)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonspread.errors import InfeasibleError, InvalidParameterError
from anonspread.privacy.profiles.checks import (
    _check_bernoulli,
    _check_edges,
    _check_eps,
    _check_max_flip,
)
from anonspread.privacy.profiles.epsilon import profile_epsilon  # noqa: F401  (used by the examples)
from anonspread.privacy.profiles.graph import _components
from anonspread.privacy.profiles.lp import _PHASE2_SLACK, _finish, _solve_lp
from anonspread.spread.limits import check_size
from anonspread.validation import check_int, check_probability

__all__ = [
    "flip_matrices",
    "ldp_baseline",
    "ldp_flip_probability",
    "observation10_bound",
    "one_bit_cluster",
    "one_bit_two_profile",
    "smooth_one_bit",
]


def flip_matrices(alphas: Any) -> np.ndarray:
    """The ``(k, 2, 2)`` bit-flip matrices ``[[1 - a, a], [a, 1 - a]]`` for flip probabilities ``a``.

    Parameters
    ----------
    alphas : array_like, shape (k,)
        Flip probabilities in [0, 1].

    Returns
    -------
    numpy.ndarray, shape (k, 2, 2)

    Examples
    --------
    >>> flip_matrices([0.25])[0].tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    if a.ndim != 1 or np.any(~np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
        raise InvalidParameterError(
            f"alphas must be a 1-D array of flip probabilities in [0, 1]; got {alphas!r}"
        )
    out = np.empty((a.size, 2, 2))
    out[:, 0, 0] = out[:, 1, 1] = 1.0 - a
    out[:, 0, 1] = out[:, 1, 0] = a
    return out


def ldp_flip_probability(eps: float) -> float:
    """Warner's randomized-response flip probability ``1 / (1 + e^eps)``, the eps-LDP baseline.

    Parameters
    ----------
    eps : float
        Privacy level, >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> round(ldp_flip_probability(math.log(3)), 12)
    0.25
    """
    eps = _check_eps(eps)
    return 1.0 / (1.0 + math.exp(eps))


def ldp_baseline(d: int, eps: float) -> np.ndarray:
    """The ``d``-ary randomized response matrix, the LDP baseline of Section 6.1.

    ``A[x, x] = e^eps / (e^eps + d - 1)`` and ``A[x, y] = 1 / (e^eps + d - 1)``
    otherwise; eps-LDP, hence ``(G, eps)``-profile private for every ``G``
    (Theorem 9).

    Parameters
    ----------
    d : int
        Alphabet size, >= 2.
    eps : float
        Privacy level, >= 0.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Examples
    --------
    >>> ldp_baseline(3, 1.0).round(4)
    array([[0.5761, 0.2119, 0.2119],
           [0.2119, 0.5761, 0.2119],
           [0.2119, 0.2119, 0.5761]])
    """
    d = check_int(d, "d", low=2)
    check_size("d", d, nbytes=8.0 * d * d, what=f"the {d} x {d} matrix")
    eps = _check_eps(eps)
    if eps == math.inf:  # no privacy: report the truth
        return np.eye(d)
    E = math.exp(eps)
    A = np.full((d, d), 1.0 / (E + d - 1.0))
    np.fill_diagonal(A, E / (E + d - 1.0))
    return A


def _one_bit_rows(
    p: np.ndarray, edges: Sequence[tuple[int, int]], E: float, var: Sequence[int], n_vars: int
) -> tuple[np.ndarray, np.ndarray]:
    """Privacy constraints of LPs (4)/(5) as ``A_ub x <= b_ub`` over the flip probabilities.

    With flip probability ``a_i``, profile ``i`` outputs 1 w.p. ``p_i + (1 - 2 p_i) a_i``.
    """
    rows, rhs = [], []
    for i, j in edges:
        for a, b in ((i, j), (j, i)):
            ca, cb = 1.0 - 2.0 * p[a], 1.0 - 2.0 * p[b]
            r = np.zeros(n_vars)  # output 1: out1_a <= E out1_b
            r[var[a]] += ca
            r[var[b]] -= E * cb
            rows.append(r)
            rhs.append(E * p[b] - p[a])
            r = np.zeros(n_vars)  # output 0: out0_a <= E out0_b
            r[var[a]] -= ca
            r[var[b]] += E * cb
            rows.append(r)
            rhs.append(E * (1.0 - p[b]) - (1.0 - p[a]))
    return np.array(rows).reshape(-1, n_vars), np.array(rhs)


def one_bit_two_profile(p_i: float, p_j: float, eps: float, *, max_flip: float = 0.5) -> float:
    """Flip probability of the Single-bit Two-profile mechanism (Algorithm 1, LP (4)).

    Solves, with HiGHS, the linear program (4) of Geumlek & Chaudhuri:

        min alpha  s.t.  0 <= alpha <= max_flip and, for t in {0, 1},
        Pr(A(b_i, P_i) = t) / Pr(A(b_j, P_j) = t) in [e^-eps, e^eps],

    where the mechanism flips the bit with probability ``alpha`` and
    ``Pr(A(b_i, P_i) = 1) = p_i (1 - alpha) + (1 - p_i) alpha``; the ratio
    constraints are linear in ``alpha`` once multiplied out. With ``p_i = 0`` and
    ``p_j = 1`` this is randomized response, ``alpha = 1 / (1 + e^eps)``; closer
    profiles need less noise (Observation 10, :func:`observation10_bound`).

    Parameters
    ----------
    p_i, p_j : float
        The Bernoulli parameters of the two profiles, in [0, 1].
    eps : float
        Privacy level, ``eps >= 0``; ``inf`` (no privacy) gives no noise.
    max_flip : float
        Largest acceptable flip probability (the paper's mechanism: 1/2, always
        feasible). A smaller cap may make the LP infeasible.

    Returns
    -------
    float
        The flip probability ``alpha`` in ``[0, max_flip]``.

    Raises
    ------
    InfeasibleError
        If no ``alpha <= max_flip`` achieves ``eps``.

    Examples
    --------
    >>> round(one_bit_two_profile(0.0, 1.0, math.log(3)), 9)
    0.25
    >>> round(one_bit_two_profile(0.4, 0.6, math.log(3)), 9)
    0.0
    """
    p_i = check_probability(p_i, "p_i")
    p_j = check_probability(p_j, "p_j")
    eps = _check_eps(eps)
    max_flip = _check_max_flip(max_flip)
    if eps == math.inf:  # no ratio constraint: no flipping
        return 0.0
    p = np.array([p_i, p_j])
    A_ub, b_ub = _one_bit_rows(p, [(0, 1)], math.exp(eps), [0, 0], 1)
    (alpha,) = _solve_lp(np.ones(1), A_ub, b_ub, [(0.0, max_flip)], "one_bit_two_profile (LP (4))")
    return float(_finish_one_bit(p, [(0, 1)], np.array([alpha, alpha]), eps, max_flip)[0])


def _finish_one_bit(
    p: np.ndarray, edges: Sequence[tuple[int, int]], alphas: np.ndarray, eps: float, max_flip: float
) -> np.ndarray:
    P = np.column_stack([1.0 - p, p])
    A = _finish(P, edges, flip_matrices(np.clip(alphas, 0.0, 0.5)), eps)
    out = A[:, 0, 1].copy()
    if np.any(out > max_flip + 1e-9):
        raise InfeasibleError(  # pragma: no cover - only through solver tolerance
            f"the privacy level eps={eps!r} needs a flip probability above max_flip={max_flip!r}"
        )
    return out


def one_bit_cluster(
    ps: Any,
    edges: Any,
    eps: float,
    *,
    profile: int | None = None,
    max_flip: float = 0.5,
) -> float:
    """Flip probability of the One Bit Cluster mechanism (Algorithm 2).

    For every edge ``e`` of the connected component of ``profile`` (of the whole
    graph when ``profile`` is None), LP (4) gives a flip probability ``alpha_e``
    (:func:`one_bit_two_profile`); the mechanism flips with ``alpha = max_e alpha_e``,
    which is ``(G, eps)``-private because privacy only improves as ``alpha`` grows
    towards 1/2 (Theorem 1 / Theorem 6).

    Parameters
    ----------
    ps : array_like, shape (k,)
        Bernoulli parameters of the profiles.
    edges : iterable of pairs (i, j)
        Sensitive pairs (profile indices).
    eps : float
        Privacy level, ``eps >= 0``; ``inf`` (no privacy) gives no noise.
    profile : int, optional
        The input's profile: only its connected component matters. None takes
        every edge (the same value when the graph is connected).
    max_flip : float
        Cap on each ``alpha_e`` (see :func:`one_bit_two_profile`).

    Returns
    -------
    float
        ``alpha``; 0.0 when the component has no edge.

    Examples
    --------
    >>> round(one_bit_cluster([0.0, 0.5, 1.0], [(0, 1), (1, 2)], 1.0), 6)
    0.18394
    """
    P = _check_bernoulli(ps)
    k = P.shape[0]
    E = _check_edges(edges, k)
    eps = _check_eps(eps)
    max_flip = _check_max_flip(max_flip)
    if profile is not None:
        profile = check_int(profile, "profile", low=0, high=k - 1)
        comp = next(c for c in _components(k, E) if profile in c)
        E = tuple(e for e in E if e[0] in comp)
    alpha = 0.0
    for i, j in E:
        alpha = max(alpha, one_bit_two_profile(P[i, 1], P[j, 1], eps, max_flip=max_flip))
    return alpha


def smooth_one_bit(ps: Any, edges: Any, eps: float, *, max_flip: float = 0.5) -> np.ndarray:
    """Per-profile flip probabilities of the Smooth One Bit mechanism (Algorithm 3, LP (5)).

    Solves, with HiGHS, the linear program (5):

        min max(alpha_1, ..., alpha_k)  s.t.  0 <= alpha_i <= max_flip and, for each
        edge (i, j) and t in {0, 1},
        Pr(A(b_i, P_i) = t) / Pr(A(b_j, P_j) = t) in [e^-eps, e^eps],

    where profile ``i`` flips its bit with its own probability ``alpha_i``. The
    min-max objective leaves the profiles away from the costliest edge free; among
    the optimal solutions we return the one with the least total flipping (a second
    LP minimising ``sum_i alpha_i`` subject to ``alpha_i <= t* + 1e-9``, ``t*`` the
    optimum of (5)), so that profiles far from a costly edge get less noise, as the
    smooth mechanism intends (Section 5.1).

    Parameters
    ----------
    ps : array_like, shape (k,)
        Bernoulli parameters of the profiles.
    edges : iterable of pairs (i, j)
        Sensitive pairs (profile indices).
    eps : float
        Privacy level, ``eps >= 0``; ``inf`` (no privacy) gives no noise.
    max_flip : float
        Cap on every ``alpha_i`` (the paper: 1/2, always feasible).

    Returns
    -------
    numpy.ndarray, shape (k,)
        ``alpha_i`` for each profile; ``max(alpha)`` is the optimum of (5) up to 1e-9.

    Raises
    ------
    InfeasibleError
        If no flip probabilities within ``max_flip`` achieve ``eps``.

    Examples
    --------
    >>> a = smooth_one_bit([0.0, 0.2, 0.4], [(0, 1), (1, 2)], 1.0)
    >>> bool(a.max() < ldp_flip_probability(1.0))
    True
    """
    P = _check_bernoulli(ps)
    p = P[:, 1]
    k = p.size
    E = _check_edges(edges, k)
    eps = _check_eps(eps)
    max_flip = _check_max_flip(max_flip)
    if not E or eps == math.inf:
        return np.zeros(k)
    n = k + 1  # alpha_1..alpha_k, t
    A_priv, b_priv = _one_bit_rows(p, E, math.exp(eps), list(range(k)), n)
    A_t = np.hstack([np.eye(k), -np.ones((k, 1))])  # alpha_i <= t
    A_ub = np.vstack([A_priv, A_t])
    b_ub = np.concatenate([b_priv, np.zeros(k)])
    c = np.zeros(n)
    c[-1] = 1.0
    x = _solve_lp(c, A_ub, b_ub, [(0.0, max_flip)] * n, "smooth_one_bit (LP (5))")
    cap = min(max_flip, x[-1] + _PHASE2_SLACK)
    x2 = _solve_lp(
        np.ones(k), A_priv[:, :k], b_priv, [(0.0, cap)] * k, "smooth_one_bit (tie-break LP)"
    )
    return _finish_one_bit(p, E, x2, eps, max_flip)


def observation10_bound(p_i: float, p_j: float, eps: float) -> float:
    """Observation 10's closed-form upper bound on the flip probability of LP (4).

    For Bernoulli profiles with ``p_i <= p_j`` (the arguments are swapped
    otherwise, by symmetry), eq. (7):

        alpha <= max{0, (p_j - e^eps p_i) / (2 (p_j - e^eps p_i) - (1 - e^eps)),
                        (p_i - e^eps p_j + e^eps - 1) / (2 (p_i - e^eps p_j) + e^eps - 1)}.

    The two fractions are the roots of the binding constraints (37) and (38). A
    term whose denominator vanishes belongs to a constraint that holds for every
    ``alpha`` and is left out. (The paper's hypothesis, printed as
    ``p_i <= p_j <= e^eps p_j``, is vacuous beyond ``p_i <= p_j``; the bound is
    stated here for all ``p_i <= p_j``. The proof in Section 8 writes ``e^-eps``
    in the second term; solving (38) gives ``e^eps`` as in (7).)

    Parameters
    ----------
    p_i, p_j : float
        ``P(X = 1)`` under the two profiles, in [0, 1].
    eps : float
        Privacy level, >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> round(observation10_bound(0.0, 1.0, math.log(3)), 12)
    0.25
    """
    p_i = check_probability(p_i, "p_i")
    p_j = check_probability(p_j, "p_j")
    eps = _check_eps(eps)
    if eps == math.inf:  # LP (4) is then solved by alpha = 0
        return 0.0
    if p_i > p_j:
        p_i, p_j = p_j, p_i
    E = math.exp(eps)
    terms = [0.0]
    n1, d1 = p_j - E * p_i, 2.0 * (p_j - E * p_i) - (1.0 - E)
    n2, d2 = p_i - E * p_j + E - 1.0, 2.0 * (p_i - E * p_j) + E - 1.0
    if d1 != 0.0:
        terms.append(n1 / d1)
    if d2 != 0.0:
        terms.append(n2 / d2)
    return max(terms)
