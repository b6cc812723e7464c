"""Profile-based local privacy (Geumlek & Chaudhuri, 2019).

A *profile graph* ``G = (P, E)`` lists data-generating distributions ("profiles")
``P_1, ..., P_k`` over ``d`` categories and the *sensitive* pairs ``E`` that must
be made indistinguishable. A mechanism ``A(x, P_i)`` may use the identity of the
profile; it is given here by one row-stochastic matrix ``A^i[x, y]`` per profile.
It is ``(G, eps)``-profile-based private (Definition 2, eq. (2)) when, for every
edge ``(P_i, P_j)`` and every output ``y``,

    (P_i A^i)_y <= e^eps (P_j A^j)_y   and   (P_j A^j)_y <= e^eps (P_i A^i)_y.

Every constraint is linear in the entries of the ``A^i``, so the paper's
mechanisms are linear programs, solved here with HiGHS (``scipy.optimize.linprog``,
dual simplex):

* :func:`one_bit_two_profile` -- LP (4), Algorithm 1 (Single-bit Two-profile);
* :func:`one_bit_cluster` -- Algorithm 2 (One Bit Cluster);
* :func:`smooth_one_bit` -- LP (5), Algorithm 3 (Smooth One Bit);
* :func:`smooth_categorical` -- LP (6), Algorithm 4 (Smooth Categorical).

Exactness. A simplex solution satisfies the constraints only up to the solver's
feasibility tolerance, which after division by a small output probability can
exceed the target ``eps``. Each returned mechanism is therefore checked with
:func:`profile_epsilon`; if it misses ``eps`` it is *repaired* by mixing the
matrices of the offending connected component with the uniform output
distribution by the smallest weight that meets ``eps`` (mixing moves every ratio
monotonically towards 1, so privacy only improves; for the one-bit mechanisms this
is raising the flip probability towards 1/2, cf. the monotonicity in the proof of
Theorem 1). The weight needed is of the order of the solver tolerance. Every
mechanism returned satisfies ``profile_epsilon(...) <= eps + 1e-12`` (the
allowance covers floating-point rounding of the check itself).

Bernoulli profiles with parameter ``p`` are the categorical profiles
``[1 - p, p]`` (category 1 is the bit 1).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from anonspread.errors import InfeasibleError, InvalidParameterError, InvalidTypeError
from anonspread.validation import (
    check_distribution,
    check_int,
    check_probability,
    check_real,
    check_rng,
)
from privacy.mechanism import Mechanism

__all__ = [
    "EPS_ATOL",
    "ProfileGraph",
    "ProfileMechanism",
    "bernoulli_chain",
    "bernoulli_couplet",
    "categorical_chain_3",
    "category_costs",
    "flip_matrices",
    "ldp_baseline",
    "ldp_flip_probability",
    "observation10_bound",
    "one_bit_cluster",
    "one_bit_two_profile",
    "profile_epsilon",
    "smooth_categorical",
    "smooth_one_bit",
]

#: Allowance on ``profile_epsilon(returned mechanism) <= eps`` for floating-point rounding.
EPS_ATOL = 1e-12

# HiGHS tolerances: tighter than the defaults (1e-7) so that the repair step
# (module docstring) moves the LP optimum by ~1e-10 at most.
_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}
# Slack on the optimal value of the first (min-max) LP when it is imposed as a
# bound in the second (tie-breaking) LP, so that numerical noise cannot make it infeasible.
_PHASE2_SLACK = 1e-9


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def _check_eps(eps: Any) -> float:
    return check_real(eps, "eps", low=0.0)


def _check_profiles(P: Any, name: str = "P") -> np.ndarray:
    """Validate a (k, d) array whose rows are distributions; return a float copy."""
    try:
        arr = np.array(P, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"{name} must be a 2-D array of profile distributions (profiles x categories); "
            f"got {type(P).__name__}"
        ) from exc
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise InvalidParameterError(
            f"{name} must be a 2-D array of profile distributions with at least 1 profile "
            f"and 2 categories; got shape {arr.shape}"
        )
    for i in range(arr.shape[0]):
        check_distribution(arr[i], f"{name}[{i}]")
    arr /= arr.sum(axis=1, keepdims=True)
    return arr


def _check_bernoulli(ps: Any, name: str = "ps") -> np.ndarray:
    """Validate Bernoulli parameters; return them as the (k, 2) profiles [1 - p, p]."""
    try:
        arr = np.array(ps, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"{name} must be a 1-D array of Bernoulli parameters; got {type(ps).__name__}"
        ) from exc
    if arr.ndim != 1 or arr.size < 1:
        raise InvalidParameterError(
            f"{name} must be a non-empty 1-D array of Bernoulli parameters; got shape {arr.shape}"
        )
    for i, p in enumerate(arr):
        check_probability(float(p), f"{name}[{i}]")
    return np.column_stack([1.0 - arr, arr])


def _endpoint(v: Any, k: int, index: dict[Hashable, int] | None) -> int:
    if index is not None:
        try:
            if v in index:
                return index[v]
        except TypeError:  # unhashable endpoint
            pass
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and 0 <= int(v) < k:
        return int(v)
    known = f"one of the profile names {list(index)}" if index is not None else ""
    accepted = f"profile indices in [0, {k - 1}]" + (f" or {known}" if known else "")
    raise InvalidParameterError(f"edges must name known profiles ({accepted}); got {v!r}")


def _check_edges(
    edges: Any, k: int, names: Sequence[Hashable] | None = None
) -> tuple[tuple[int, int], ...]:
    """Validate sensitive pairs; return sorted, de-duplicated ``(i, j)`` with ``i < j``."""
    if edges is None:
        return ()
    if hasattr(edges, "nodes") and callable(getattr(edges, "edges", None)):
        edges = list(edges.edges())  # a networkx graph
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Iterable):
        raise InvalidTypeError(
            f"edges must be an iterable of profile pairs (i, j); got {type(edges).__name__}"
        )
    index = {n: i for i, n in enumerate(names)} if names is not None else None
    out: set[tuple[int, int]] = set()
    for e in edges:
        if isinstance(e, (str, bytes)) or not isinstance(e, (Sequence, np.ndarray)) or len(e) != 2:
            raise InvalidParameterError(f"edges must hold pairs of profiles (i, j); got {e!r}")
        i, j = _endpoint(e[0], k, index), _endpoint(e[1], k, index)
        if i == j:
            raise InvalidParameterError(
                f"edges must join two distinct profiles; got the self-loop {tuple(e)!r}"
            )
        out.add((min(i, j), max(i, j)))
    return tuple(sorted(out))


def _check_matrices(matrices: Any, k: int, d: int) -> np.ndarray:
    """Validate k row-stochastic (d x m) matrices; return them as a (k, d, m) array."""
    if isinstance(matrices, np.ndarray) and matrices.ndim == 3:
        items: list[Any] = list(matrices)
    elif isinstance(matrices, (Sequence, np.ndarray)) and not isinstance(matrices, (str, bytes)):
        items = list(matrices)
    else:
        raise InvalidTypeError(
            f"matrices must be a sequence of {k} row-stochastic matrices (one per profile); "
            f"got {type(matrices).__name__}"
        )
    if len(items) != k:
        raise InvalidParameterError(
            f"matrices must hold one matrix per profile ({k}); got {len(items)}"
        )
    mats = [m.matrix if isinstance(m, Mechanism) else Mechanism(m).matrix for m in items]
    shapes = {m.shape for m in mats}
    if len(shapes) != 1 or next(iter(shapes))[0] != d:
        raise InvalidParameterError(
            f"matrices must all have shape ({d}, m) (one row per category); "
            f"got shapes {sorted(shapes)}"
        )
    return np.array(mats, dtype=float)


# --------------------------------------------------------------------------------------
# the profile graph
# --------------------------------------------------------------------------------------


class ProfileGraph:
    """A validated profile graph ``G = (P, E)`` (Definition 2).

    Parameters
    ----------
    profiles : array_like, shape (k, d)
        Row ``i`` is the distribution ``P_i`` over ``d >= 2`` categories.
    edges : iterable of pairs
        The sensitive pairs. Endpoints are profile indices in ``range(k)`` or, when
        ``names`` is given, profile names. Self-loops are rejected; duplicates and
        orientation are ignored. A ``networkx`` graph is accepted too.
    names : sequence of hashable, optional
        One distinct name per profile (default: ``0, ..., k - 1``).

    Examples
    --------
    >>> g = ProfileGraph([[0.9, 0.1], [0.5, 0.5]], [("a", "b")], names=["a", "b"])
    >>> g.edges
    ((0, 1),)
    >>> g.bernoulli_parameters.tolist()
    [0.1, 0.5]
    """

    __slots__ = ("_P", "_edges", "_names")

    def __init__(
        self, profiles: Any, edges: Any = (), *, names: Sequence[Hashable] | None = None
    ) -> None:
        P = _check_profiles(profiles, "profiles")
        k = P.shape[0]
        if names is not None:
            names = tuple(names)
            if len(names) != k or len(set(names)) != k:
                raise InvalidParameterError(
                    f"names must be {k} distinct profile names; got {names!r}"
                )
        self._edges = _check_edges(edges, k, names)
        P.setflags(write=False)
        self._P = P
        self._names = names if names is not None else tuple(range(k))

    @property
    def profiles(self) -> np.ndarray:
        """The (read-only) ``(k, d)`` array of profile distributions."""
        return self._P

    @property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """The sensitive pairs as sorted index pairs ``(i, j)``, ``i < j``."""
        return self._edges

    @property
    def names(self) -> tuple[Hashable, ...]:
        return self._names

    @property
    def n_profiles(self) -> int:
        return self._P.shape[0]

    @property
    def n_categories(self) -> int:
        return self._P.shape[1]

    @property
    def bernoulli_parameters(self) -> np.ndarray:
        """``P_i(1)`` for each profile (only for two-category, i.e. Bernoulli, profiles)."""
        if self.n_categories != 2:
            raise InvalidParameterError(
                "bernoulli_parameters needs Bernoulli profiles (2 categories); "
                f"got {self.n_categories} categories"
            )
        return self._P[:, 1].copy()

    def components(self) -> list[list[int]]:
        """Connected components of ``G`` (lists of profile indices, in index order)."""
        return _components(self.n_profiles, self._edges)

    def __repr__(self) -> str:
        return (
            f"ProfileGraph(k={self.n_profiles}, d={self.n_categories}, "
            f"edges={len(self._edges)})"
        )


def _components(k: int, edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(k))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for a in range(k):
        groups.setdefault(find(a), []).append(a)
    return sorted(groups.values())


# --------------------------------------------------------------------------------------
# the exact privacy level
# --------------------------------------------------------------------------------------


def _profile_epsilon(P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray) -> float:
    if not edges:
        return 0.0
    out = np.einsum("kd,kdm->km", P, A)
    e = np.asarray(edges)
    u, v = out[e[:, 0]], out[e[:, 1]]
    both_zero = (u == 0) & (v == 0)
    if np.any((u == 0) ^ (v == 0)):
        return math.inf
    with np.errstate(divide="ignore"):
        loss = np.abs(np.log(np.where(both_zero, 1.0, u)) - np.log(np.where(both_zero, 1.0, v)))
    return float(loss.max())


def profile_epsilon(P: Any, edges: Any, matrices: Any) -> float:
    """The exact ``(G, eps)`` profile-based privacy level of per-profile mechanisms.

    Definition 2, eq. (2): with ``X_i ~ P_i`` the output distribution of profile
    ``i`` is ``P_i A^i``, and the level is the smallest ``eps`` such that
    ``(P_i A^i)_y <= e^eps (P_j A^j)_y`` for every edge ``(i, j)`` (both
    orientations) and every output ``y``:

        eps = max_{(i, j) in E} max_y |log (P_i A^i)_y - log (P_j A^j)_y|.

    Outputs that neither profile of an edge can produce are ignored; an output
    that only one of them can produce makes the level infinite.

    Parameters
    ----------
    P : array_like, shape (k, d)
        The profiles (rows are distributions).
    edges : iterable of pairs (i, j)
        The sensitive pairs, as profile indices.
    matrices : sequence of k array_like or Mechanism, each of shape (d, m)
        ``matrices[i][x, y] = P(output y | input x, profile i)``. An LDP mechanism
        ``Q`` that ignores the profile is ``[Q] * k``.

    Returns
    -------
    float
        ``0.0`` when there are no edges; ``inf`` when some output separates an edge.

    Examples
    --------
    >>> P = [[1.0, 0.0], [0.0, 1.0]]              # p_i = 0, p_j = 1
    >>> rr = flip_matrices([0.25, 0.25])          # randomized response, flip 1/4
    >>> round(profile_epsilon(P, [(0, 1)], rr), 12) == round(math.log(3), 12)
    True
    """
    Parr = _check_profiles(P)
    E = _check_edges(edges, Parr.shape[0])
    A = _check_matrices(matrices, Parr.shape[0], Parr.shape[1])
    return _profile_epsilon(Parr, E, A)


# --------------------------------------------------------------------------------------
# LP solving and the exactness repair
# --------------------------------------------------------------------------------------


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


def _mix_needed(P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float) -> float:
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


def _repair(P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float) -> np.ndarray:
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


def _finish(P: np.ndarray, edges: Sequence[tuple[int, int]], A: np.ndarray, eps: float) -> np.ndarray:
    A = _repair(P, edges, A, eps)
    # Defensive: never hand out a mechanism that misses its guarantee.
    level = _profile_epsilon(P, edges, A)
    if level > eps + EPS_ATOL:  # pragma: no cover
        raise InfeasibleError(f"solution misses eps={eps!r} (level {level!r})")
    return A


# --------------------------------------------------------------------------------------
# one-bit mechanisms
# --------------------------------------------------------------------------------------


def flip_matrices(alphas: Any) -> np.ndarray:
    """The ``(k, 2, 2)`` bit-flip matrices ``[[1 - a, a], [a, 1 - a]]`` for flip probabilities ``a``.

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
    """
    d = check_int(d, "d", low=2)
    eps = _check_eps(eps)
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


def _check_max_flip(max_flip: Any) -> float:
    return check_real(max_flip, "max_flip", low=0.0, high=0.5)


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
        Privacy level, ``eps >= 0``.
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
    p = np.array([p_i, p_j])
    A_ub, b_ub = _one_bit_rows(p, [(0, 1)], math.exp(eps), [0, 0], 1)
    (alpha,) = _solve_lp(
        np.ones(1), A_ub, b_ub, [(0.0, max_flip)], "one_bit_two_profile (LP (4))"
    )
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
        Privacy level, ``eps >= 0``.
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
        Privacy level, ``eps >= 0``.
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
    if not E:
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

    Examples
    --------
    >>> round(observation10_bound(0.0, 1.0, math.log(3)), 12)
    0.25
    """
    p_i = check_probability(p_i, "p_i")
    p_j = check_probability(p_j, "p_j")
    eps = _check_eps(eps)
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


# --------------------------------------------------------------------------------------
# the categorical mechanism
# --------------------------------------------------------------------------------------


def smooth_categorical(
    P: Any, edges: Any, eps: float, *, max_off_diagonal: float = 1.0
) -> list[np.ndarray]:
    """Transition matrices of the Smooth Categorical mechanism (Algorithm 4, LP (6)).

    Solves, with HiGHS, the linear program (6) over one ``d x d`` matrix ``A^i``
    per profile:

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
        Privacy level, ``eps >= 0``.
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
    if not E:
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


# --------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------


class ProfileMechanism:
    """Per-profile mechanisms ``A^1, ..., A^k`` that privatize (profile, value) pairs.

    Step 2 of Algorithms 1-4: an input ``x`` of profile ``i`` is released as
    ``y ~ A^i[x, :]``.

    Parameters
    ----------
    matrices : sequence of k array_like or Mechanism, all of shape (d, m)

    Examples
    --------
    >>> mech = ProfileMechanism.from_flip_probabilities([0.0, 0.5])
    >>> mech.privatize([0, 0, 1, 1], [1, 1, 0, 1], rng=7)[:2].tolist()
    [1, 1]
    """

    __slots__ = ("_A",)

    def __init__(self, matrices: Any) -> None:
        if isinstance(matrices, (str, bytes)) or not isinstance(matrices, (Sequence, np.ndarray)):
            raise InvalidTypeError(
                f"matrices must be a sequence of row-stochastic matrices; got {type(matrices).__name__}"
            )
        mats = list(matrices)
        if not mats:
            raise InvalidParameterError("matrices must hold at least one matrix; got 0")
        first = mats[0].matrix if isinstance(mats[0], Mechanism) else np.asarray(mats[0])
        if first.ndim != 2:
            raise InvalidParameterError(
                f"matrices must be 2-D (inputs x outputs); got shape {first.shape}"
            )
        A = _check_matrices(mats, len(mats), first.shape[0])
        A.setflags(write=False)
        self._A = A

    @classmethod
    def from_flip_probabilities(cls, alphas: Any) -> ProfileMechanism:
        """The one-bit mechanism flipping profile ``i``'s bit with probability ``alphas[i]``."""
        return cls(flip_matrices(alphas))

    @property
    def matrices(self) -> list[np.ndarray]:
        return [a for a in self._A]

    @property
    def n_profiles(self) -> int:
        return self._A.shape[0]

    def output_distributions(self, P: Any) -> np.ndarray:
        """``P_i A^i`` for each profile (shape ``(k, m)``): the law of the release."""
        Parr = _check_profiles(P)
        if Parr.shape != self._A.shape[:2]:
            raise InvalidParameterError(
                f"P must have shape {self._A.shape[:2]}; got {Parr.shape}"
            )
        return np.einsum("kd,kdm->km", Parr, self._A)

    def epsilon(self, P: Any, edges: Any) -> float:
        """The exact profile-privacy level, :func:`profile_epsilon`."""
        return profile_epsilon(P, edges, self._A)

    def privatize(self, profiles: Any, x: Any, *, rng: Any = None) -> np.ndarray:
        """Release ``y ~ A^{profiles[n]}[x[n], :]`` for each pair (broadcast together).

        Parameters
        ----------
        profiles : array_like of int
            Profile indices in ``range(k)``.
        x : array_like of int
            Inputs in ``range(d)``.
        rng : None, int or numpy.random.Generator

        Returns
        -------
        numpy.ndarray of int64, the broadcast shape of ``profiles`` and ``x``.
        """
        gen = check_rng(rng)
        prof = np.asarray(profiles)
        xs = np.asarray(x)
        for name, arr, hi in (("profiles", prof, self.n_profiles), ("x", xs, self._A.shape[1])):
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise InvalidTypeError(f"{name} must hold integers; got dtype {arr.dtype}")
            if arr.size and (arr.min() < 0 or arr.max() >= hi):
                raise InvalidParameterError(
                    f"{name} must hold values in [0, {hi - 1}]; got values in "
                    f"[{int(arr.min())}, {int(arr.max())}]"
                )
        prof, xs = np.broadcast_arrays(prof, xs)
        flat_p, flat_x = prof.reshape(-1), xs.reshape(-1)
        cdf = np.cumsum(self._A, axis=2)
        cdf[:, :, -1] = 1.0
        u = gen.random(flat_p.size)
        # one row of the CDF per pair: (number of CDF values <= u) is the sampled output
        out = (cdf[flat_p, flat_x] <= u[:, None]).sum(axis=1).astype(np.int64)
        np.minimum(out, self._A.shape[2] - 1, out=out)
        return out.reshape(prof.shape)

    def __repr__(self) -> str:
        k, d, m = self._A.shape
        return f"ProfileMechanism(k={k}, d={d}, m={m})"


# --------------------------------------------------------------------------------------
# the profile families of Section 6.1
# --------------------------------------------------------------------------------------


def bernoulli_couplet(p_a: float, p_b: float) -> ProfileGraph:
    """Bernoulli-Couplet (Section 6.1): two Bernoulli profiles ``a``, ``b`` joined by one edge.

    Figure 2(a) plots :func:`smooth_one_bit` (equivalently :func:`one_bit_two_profile`)
    against ``|p_a - p_b|``.
    """
    p_a = check_probability(p_a, "p_a")
    p_b = check_probability(p_b, "p_b")
    return ProfileGraph([[1 - p_a, p_a], [1 - p_b, p_b]], [("a", "b")], names=("a", "b"))


def bernoulli_chain(n: int) -> ProfileGraph:
    """Bernoulli-Chain-n (Section 6.1): ``n`` Bernoulli profiles, ``p`` uniformly spaced on [0, 1].

    Successive profiles are joined by an edge. ``bernoulli_chain(6)`` and
    ``bernoulli_chain(21)`` are the settings of Figure 3.

    Examples
    --------
    >>> bernoulli_chain(6).bernoulli_parameters.round(2).tolist()
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    n = check_int(n, "n", low=2)
    p = np.linspace(0.0, 1.0, n)
    return ProfileGraph(np.column_stack([1 - p, p]), [(i, i + 1) for i in range(n - 1)])


def categorical_chain_3() -> ProfileGraph:
    """Categorical-Chain-3 (Section 6.1, Table 1): profiles ``P1 - P2 - P3`` over 4 categories.

    ======  ====  ====  ====  ====
    P1      0.2   0.3   0.4   0.1
    P2      0.3   0.3   0.3   0.1
    P3      0.4   0.4   0.1   0.1
    ======  ====  ====  ====  ====

    The last category has the same probability under every profile, so it says
    nothing about the profile; Figures 2(b)-(c) plot :func:`category_costs`.
    """
    P = [[0.2, 0.3, 0.4, 0.1], [0.3, 0.3, 0.3, 0.1], [0.4, 0.4, 0.1, 0.1]]
    return ProfileGraph(P, [("P1", "P2"), ("P2", "P3")], names=("P1", "P2", "P3"))
