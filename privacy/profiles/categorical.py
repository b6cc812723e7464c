"""The Smooth Categorical mechanism (Algorithm 4, LP (6)) and the category costs of eq. (8)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import sparse

from anonspread.errors import InvalidParameterError
from anonspread.privacy.profiles.checks import (
    _check_edges,
    _check_eps,
    _check_matrices,
    _check_profiles,
)
from anonspread.privacy.profiles.epsilon import EPS_ATOL, profile_epsilon  # noqa: F401  (examples)
from anonspread.privacy.profiles.graph import categorical_chain_3  # noqa: F401  (used by the examples)
from anonspread.privacy.profiles.lp import _PHASE2_SLACK, _finish, _solve_lp
from anonspread.validation import check_real

__all__ = ["category_costs", "smooth_categorical"]


def smooth_categorical(
    P: Any, edges: Any, eps: float, *, max_off_diagonal: float = 1.0
) -> list[np.ndarray]:
    """Transition matrices of the Smooth Categorical mechanism (Algorithm 4, LP (6)).

    Solves, with HiGHS, the linear program (6) over one ``d x d`` matrix ``A^i``
    per profile::

        min max(off-diagonal entries of A^1, ..., A^k)
        s.t. 0 <= A^i[x, y] <= 1,  sum_y A^i[x, y] = 1,
             P_i A^i <= e^eps P_j A^j  and  P_j A^j <= e^eps P_i A^i  for (P_i, P_j) in E.

    Among the optimal solutions it returns the one with the smallest sum of
    off-diagonal entries (a second LP with every off-diagonal entry capped at
    ``t* + 1e-9``, ``t*`` the optimum of (6)), so that categories and profiles
    that do not need noise keep their values (Section 5.2's fidelity goal).

    Parameters
    ----------
    P : array_like, shape (k, d)
        The profiles (rows are distributions over ``d`` categories).
    edges : iterable of pairs (i, j)
        Sensitive pairs (profile indices).
    eps : float
        Privacy level, ``eps >= 0``; ``inf`` (no privacy) gives no noise.
    max_off_diagonal : float
        Cap on every off-diagonal entry (the paper: 1, always feasible since the
        constant mechanisms are private). A smaller cap may make the LP infeasible.

    Returns
    -------
    list of numpy.ndarray
        ``[A^1, ..., A^k]``, each ``d x d`` and row-stochastic, with
        ``profile_epsilon(P, edges, result) <= eps + EPS_ATOL``.

    Raises
    ------
    InfeasibleError
        If the capped LP has no solution.

    Examples
    --------
    >>> g = categorical_chain_3()
    >>> A = smooth_categorical(g.profiles, g.edges, 1.0)
    >>> profile_epsilon(g.profiles, g.edges, A) <= 1.0 + EPS_ATOL
    True
    """
    Parr = _check_profiles(P)
    k, d = Parr.shape
    E = _check_edges(edges, k)
    eps = _check_eps(eps)
    max_off = check_real(max_off_diagonal, "max_off_diagonal", low=0.0, high=1.0)
    if not E or eps == math.inf:  # no constraint: every profile reports its category
        return [np.eye(d) for _ in range(k)]
    Eexp = math.exp(eps)
    nv = k * d * d  # A^i[x, y] at i*d*d + x*d + y; then t
    t_col = nv
    off_idx = np.array(
        [i * d * d + x * d + y for i in range(k) for x in range(d) for y in range(d) if x != y]
    )

    # equality: rows of each A^i sum to one
    eq_rows = np.repeat(np.arange(k * d), d)
    eq_cols = np.arange(nv)
    A_eq = sparse.csr_matrix((np.ones(nv), (eq_rows, eq_cols)), shape=(k * d, nv + 1))
    b_eq = np.ones(k * d)

    # privacy: for each edge, orientation and output y:  sum_x P_a(x) A^a[x,y] - E sum_x P_b(x) A^b[x,y] <= 0
    r, cidx, vals = [], [], []
    row = 0
    xs = np.arange(d)
    for i, j in E:
        for a, b in ((i, j), (j, i)):
            for y in range(d):
                r.extend([row] * (2 * d))
                cidx.extend((a * d * d + xs * d + y).tolist())
                cidx.extend((b * d * d + xs * d + y).tolist())
                vals.extend(Parr[a].tolist())
                vals.extend((-Eexp * Parr[b]).tolist())
                row += 1
    A_priv = sparse.csr_matrix((vals, (r, cidx)), shape=(row, nv + 1))
    b_priv = np.zeros(row)

    # min-max: off-diagonal A^i[x, y] - t <= 0
    n_off = off_idx.size
    A_t = sparse.csr_matrix(
        (
            np.concatenate([np.ones(n_off), -np.ones(n_off)]),
            (np.tile(np.arange(n_off), 2), np.concatenate([off_idx, np.full(n_off, t_col)])),
        ),
        shape=(n_off, nv + 1),
    )
    bounds = np.zeros((nv + 1, 2))
    bounds[:, 1] = 1.0
    bounds[off_idx, 1] = max_off
    bounds[t_col] = (0.0, max_off)
    c = np.zeros(nv + 1)
    c[t_col] = 1.0
    x = _solve_lp(
        c,
        sparse.vstack([A_priv, A_t]).tocsr(),
        np.concatenate([b_priv, np.zeros(n_off)]),
        bounds,
        "smooth_categorical (LP (6))",
        A_eq=A_eq,
        b_eq=b_eq,
    )
    # tie-break: least total off-diagonal mass among the optimal solutions
    cap = min(max_off, x[t_col] + _PHASE2_SLACK)
    bounds2 = bounds[:nv].copy()
    bounds2[off_idx, 1] = cap
    c2 = np.zeros(nv)
    c2[off_idx] = 1.0
    x2 = _solve_lp(
        c2,
        A_priv[:, :nv],
        b_priv,
        bounds2,
        "smooth_categorical (tie-break LP)",
        A_eq=A_eq[:, :nv],
        b_eq=b_eq,
    )
    A = _finish(Parr, E, x2.reshape(k, d, d), eps)
    return [A[i].copy() for i in range(k)]


def category_costs(P: Any, matrices: Any) -> np.ndarray:
    """Per-category cost of eq. (8): ``cost_j = max_i |P_i[j] - (P_i A^i)_j|``.

    The largest absolute change, over the profiles, of the probability of category
    ``j`` after privatization (lower is better); Figures 2(b)-(c).

    Parameters
    ----------
    P : array_like, shape (k, d)
    matrices : sequence of k square (d x d) matrices

    Returns
    -------
    numpy.ndarray, shape (d,)

    Examples
    --------
    >>> category_costs([[0.5, 0.5]], [np.eye(2)]).tolist()
    [0.0, 0.0]
    """
    Parr = _check_profiles(P)
    k, d = Parr.shape
    A = _check_matrices(matrices, k, d)
    if A.shape[2] != d:
        raise InvalidParameterError(
            f"matrices must be square ({d} x {d}) for eq. (8); got {A.shape[1:]}"
        )
    out = np.einsum("kd,kdm->km", Parr, A)
    return np.abs(Parr - out).max(axis=0)
