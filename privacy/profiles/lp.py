"""LP solving with HiGHS and the exactness repair shared by the profile mechanisms.

A simplex solution meets the privacy constraints only up to the solver's feasibility
tolerance; :func:`_finish` mixes each offending connected component with the uniform
output by the smallest weight that meets ``eps`` (see :mod:`privacy.profiles`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.optimize import linprog

from anonspread.errors import InfeasibleError
from anonspread.privacy.profiles.epsilon import EPS_ATOL, _profile_epsilon
from anonspread.privacy.profiles.graph import _components

# (module docstring) moves the LP optimum by ~1e-10 at most.
_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}
# Slack on the optimal value of the first (min-max) LP when it is imposed as a
# bound in the second (tie-breaking) LP, so that numerical noise cannot make it infeasible.
_PHASE2_SLACK = 1e-9


def _solve_lp(
    c: np.ndarray,
    A_ub: Any,
    b_ub: np.ndarray,
    bounds: Any,
    what: str,
    A_eq: Any = None,
    b_eq: np.ndarray | None = None,
) -> np.ndarray:
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=bounds,
        method="highs-ds",
        options=_HIGHS_OPTIONS,
    )
    if res.status == 2:
        raise InfeasibleError(f"{what}: the linear program is infeasible (HiGHS: {res.message})")
    if res.status != 0 or res.x is None:
        raise InfeasibleError(
            f"{what}: HiGHS found no optimal solution (status {res.status}: {res.message})"
        )
    return np.asarray(res.x, dtype=float)


def _mix_needed(
    P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float
) -> float:
    """Smallest uniform-mixing weight that brings every edge within ``eps`` (exact arithmetic)."""
    E = math.exp(eps)
    w = 1.0 / A.shape[2]
    out = np.einsum("kd,kdm->km", P, A)
    lam = 0.0
    for i, j in edges:
        for a, b in ((out[i], out[j]), (out[j], out[i])):
            excess = a - E * b
            if np.any(excess > 0):
                if E == 1.0:
                    return 1.0
                ex = excess[excess > 0]
                lam = max(lam, float(np.max(ex / (ex + w * (E - 1.0)))))
    return min(lam, 1.0)


def _repair(
    P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float
) -> np.ndarray:
    """Mix each offending component with the uniform output until it meets ``eps`` exactly."""
    A = np.clip(A, 0.0, None)
    A /= A.sum(axis=2, keepdims=True)
    k, _, m = A.shape
    for comp in _components(k, edges):
        members = set(comp)
        cedges = [e for e in edges if e[0] in members]
        if not cedges or _profile_epsilon(P, cedges, A) <= eps + EPS_ATOL:
            continue
        idx = np.asarray(comp)
        base = A[idx].copy()
        lam = _mix_needed(P, cedges, A, eps)
        for _ in range(60):
            A[idx] = (1.0 - lam) * base + lam / m
            if _profile_epsilon(P, cedges, A) <= eps + EPS_ATOL:
                break
            lam = min(1.0, lam + max(lam * 1e-9, 1e-15))
        else:  # pragma: no cover - the uniform mechanism (lam = 1) always passes
            raise InfeasibleError("could not certify the profile-privacy level of the LP solution")
    return A


def _finish(
    P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float
) -> np.ndarray:
    A = _repair(P, edges, A, eps)
    # Defensive: never hand out a mechanism that misses its guarantee.
    level = _profile_epsilon(P, edges, A)
    if level > eps + EPS_ATOL:  # pragma: no cover
        raise InfeasibleError(f"solution misses eps={eps!r} (level {level!r})")
    return A
