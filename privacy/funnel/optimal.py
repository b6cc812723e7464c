"""Optimal privacy-funnel mechanisms under LDP and LIP w.r.t. a secret (§IV-V).

Internal to :mod:`privacy.funnel`, which documents and re-exports the public names.
"""

from __future__ import annotations

from typing import Any

import highspy
import numpy as np

from anonspread.errors import InfeasibleError, InvalidParameterError
from anonspread.privacy._highs import quiet_highs
from anonspread.privacy.funnel.checks import check_eps, check_joint
from anonspread.privacy.funnel.colgen import colgen_optimum
from anonspread.privacy.funnel.measures import ldp_epsilon, lip_epsilon
from anonspread.privacy.funnel.polytope import cone_rays, polytope_vertices
from anonspread.privacy.mechanism import Mechanism

__all__ = [
    "_optimal_ldp_vertex_enumeration",
    "column_utility",
    "ldp_cone_constraints",
    "lip_cone_constraints",
    "optimal_from_rays",
    "optimal_ldp",
    "optimal_lip",
]

_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _restrict(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop secret values and data values of probability zero (they constrain nothing)."""
    s_keep = p.sum(axis=1) > 0
    x_keep = p.sum(axis=0) > 0
    return p[s_keep][:, x_keep], s_keep, x_keep


def _embed(Q_kept: np.ndarray, x_keep: np.ndarray) -> Mechanism:
    """Mechanism on all ``a`` inputs: data values of probability zero get uniform rows.

    Those rows never influence ``P(Y | S)`` or ``I(X; Y)``, so any row is optimal.
    """
    b = Q_kept.shape[1]
    Q = np.full((x_keep.size, b), 1.0 / b)
    Q[x_keep] = Q_kept / Q_kept.sum(axis=1, keepdims=True)
    return Mechanism(Q)


def column_utility(cols: np.ndarray, p_x: np.ndarray) -> np.ndarray:
    r"""``mu(q) = sum_x p_x q_x ln(q_x / (p_x^T q))`` for each row ``q`` of ``cols``.

    ``I(X; Y) = sum_y mu(Q[:, y])``; ``mu`` is positively homogeneous and convex, hence
    sublinear (thesis Definition 3.2.1).

    Parameters
    ----------
    cols : numpy.ndarray, shape (K, a)
        Columns of mechanisms, one per row, non-negative.
    p_x : numpy.ndarray, shape (a,)
        The distribution of ``X``.

    Returns
    -------
    numpy.ndarray, shape (K,)

    Examples
    --------
    A constant column tells nothing; a column that sees one symbol of a fair bit
    carries half of ``ln 2`` per unit mass:

    >>> import numpy as np
    >>> column_utility(np.array([[1.0, 1.0], [2.0, 0.0]]), np.array([0.5, 0.5]))
    array([0.        , 0.69314718])
    """
    tot = cols @ p_x
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(cols > 0, np.log(np.where(cols > 0, cols, 1.0)) - np.log(tot)[:, None], 0.0)
    return (cols * logs) @ p_x


def _highs_eq_lp(
    cost: np.ndarray, A_eq: np.ndarray, b_eq: np.ndarray
) -> tuple[bool, np.ndarray, str]:
    """``min cost . w`` s.t. ``A_eq w = b_eq``, ``w >= 0`` with highspy directly.

    scipy's ``linprog`` wrapper costs ~2 ms per call in option checking alone, more
    than the whole small-case solve; this calls HiGHS itself.
    """
    m, n = A_eq.shape
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = m
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.full(n, highspy.kHighsInf)
    lp.row_lower_ = np.asarray(b_eq, dtype=float)
    lp.row_upper_ = np.asarray(b_eq, dtype=float)
    nz = np.nonzero(A_eq.T)  # column-wise
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(np.count_nonzero(A_eq, axis=0))])
    lp.a_matrix_.index_ = nz[1].astype(np.int32)
    lp.a_matrix_.value_ = A_eq.T[nz]
    h = quiet_highs()
    h.setOptionValue("output_flag", False)
    for key, value in _LP_OPTIONS.items():
        h.setOptionValue(key, value)
    if n <= 1000:  # presolve costs more than it saves on these small LPs
        h.setOptionValue("presolve", "off")
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    ok = status == highspy.HighsModelStatus.kOptimal
    x = np.asarray(h.getSolution().col_value) if ok else np.zeros(n)
    return ok, x, h.modelStatusToString(status)


def _solve_lp(cost: np.ndarray, A_eq: np.ndarray, b_eq: np.ndarray, what: str) -> np.ndarray:
    """Minimise ``cost . w`` over ``w >= 0, A_eq w = b_eq`` (HiGHS); refine on the support."""
    ok, x, message = _highs_eq_lp(cost, A_eq, b_eq)
    if not ok:
        raise InfeasibleError(f"the linear program of {what} has no solution: {message}")
    w = np.clip(x, 0.0, None)
    supp = np.flatnonzero(w > 1e-12 * max(w.max(), 1e-300))
    # The optimum is a basic solution: re-solve its square system for full accuracy.
    sol, *_ = np.linalg.lstsq(A_eq[:, supp], b_eq, rcond=None)
    if np.all(sol >= 0) and np.allclose(A_eq[:, supp] @ sol, b_eq, rtol=0, atol=1e-12):
        w = np.zeros_like(w)
        w[supp] = sol
    return w


def optimal_from_rays(rays: np.ndarray, p_x: np.ndarray, what: str) -> np.ndarray:
    """Solve the ray LP ``max sum_k theta_k mu(r_k)`` s.t. ``sum_k theta_k r_k = 1``, ``theta >= 0``.

    Parameters
    ----------
    rays : numpy.ndarray, shape (K, a)
        Extreme rays of the cone of admissible columns (:func:`~anonspread.privacy.funnel.polytope.cone_rays`).
    p_x : numpy.ndarray, shape (a,)
        The distribution of ``X``.
    what : str
        What is being solved, for the error message of a failed LP.

    Returns
    -------
    numpy.ndarray, shape (a, outputs)
        The optimal mechanism matrix (inputs x outputs), one output per ray used.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.privacy.funnel.polytope import cone_rays
    >>> p_x_given_s = np.array([[0.8, 0.2], [0.2, 0.8]])
    >>> rays = cone_rays(ldp_cone_constraints(p_x_given_s, np.log(2.0)))
    >>> optimal_from_rays(rays, np.array([0.5, 0.5]), "a log 2-LDP mechanism").round(4)
    array([[0.2222, 0.7778],
           [0.7778, 0.2222]])
    """
    mu = column_utility(rays, p_x)
    theta = _solve_lp(-mu, rays.T, np.ones(rays.shape[1]), what)
    used = np.flatnonzero(theta > 0)
    return rays[used].T * theta[used]


def ldp_cone_constraints(p_x_given_s: np.ndarray, eps: float) -> np.ndarray:
    """Rows ``e^eps p_{X|t} - p_{X|s}`` (``s != t``): ``A q >= 0`` is Eq. (7) for one column.

    Parameters
    ----------
    p_x_given_s : numpy.ndarray, shape (c, a)
        The conditional distributions of ``X`` given each secret value (rows).
    eps : float
        The privacy level.

    Returns
    -------
    numpy.ndarray, shape (r, a)
        The distinct rows (none for one secret value).

    Examples
    --------
    >>> import numpy as np
    >>> ldp_cone_constraints(np.array([[0.8, 0.2], [0.2, 0.8]]), np.log(2.0))
    array([[-0.4,  1.4],
           [ 1.4, -0.4]])
    """
    c = p_x_given_s.shape[0]
    e = np.exp(eps)
    rows = [e * p_x_given_s[t] - p_x_given_s[s] for s in range(c) for t in range(c) if s != t]
    if not rows:
        return np.zeros((0, p_x_given_s.shape[1]))
    return np.unique(np.array(rows), axis=0)


def lip_cone_constraints(pk: np.ndarray, eps: float) -> np.ndarray:
    """Rows of ``A q >= 0``: Eq. (3) for one column ``q``, ``e^-eps <= q.p_{X|s} / q.p_X <= e^eps``.

    Parameters
    ----------
    pk : numpy.ndarray, shape (c, a)
        The joint distribution of (S, X), without zero margins.
    eps : float
        The leakage level.

    Returns
    -------
    numpy.ndarray, shape (r, a)
        The distinct rows.
    """
    p_x = pk.sum(axis=0)
    cond = pk / pk.sum(axis=1, keepdims=True)
    e = np.exp(eps)
    return np.unique(np.vstack([e * p_x - cond, cond - p_x / e]), axis=0)


_METHODS = ("auto", "enumerate", "colgen")
# "auto" enumerates when the cone is small (fast and exact) and switches to column
# generation above this many data values, where the number of extreme rays explodes.
_AUTO_ENUMERATE_MAX_A = 8


def _prepare(p_sx: Any, eps: Any, method: Any, level: Any):
    """Checks and reductions shared by the optimisers.

    Returns ``(eps, method, pk, p_x, x_keep, trivial)``: ``pk`` is ``p_sx`` restricted to
    the data values of positive probability, and ``trivial`` is the optimum when no
    optimisation is needed (a single data value, or X itself already within ``eps``
    under ``level``, so that I(X; Y) = H(X)), else None.
    """
    p = check_joint(p_sx)
    eps = check_eps(eps)
    method = _check_method(method)
    pk, _, x_keep = _restrict(p)
    p_x = pk.sum(axis=0)
    trivial = None
    if pk.shape[1] == 1:
        trivial = _embed(np.ones((1, 1)), x_keep)
    elif level(np.eye(pk.shape[1]), pk) <= eps:
        trivial = _embed(np.eye(pk.shape[1]), x_keep)
    return eps, method, pk, p_x, x_keep, trivial


def _check_method(method: Any) -> str:
    if method not in _METHODS:
        raise InvalidParameterError(f"method must be one of {list(_METHODS)}; got {method!r}")
    return method


def _use_colgen(method: str, a: int) -> bool:
    return method == "colgen" or (method == "auto" and a > _AUTO_ENUMERATE_MAX_A)


def optimal_ldp(p_sx: Any, eps: Any, *, method: str = "auto") -> Mechanism:
    r"""The mechanism maximising ``I(X; Y)`` under ``eps``-LDP w.r.t. S (Problem 2, §IV).

    Instead of enumerating the vertices of the ``a(a-1)``-dimensional polytope
    :math:`\Gamma` of Theorem 2, this solves a linear program over the extreme rays of
    an ``a``-dimensional cone, as in the thesis's Theorem 3.2.4 (staircase LP).

    **The cone.** Write a mechanism as its columns :math:`q_y = Q_{y|\cdot} \in
    \mathbb R^a_{\ge 0}`. Constraint (7) reads :math:`q_y \cdot p_{X|s} \le e^\varepsilon
    q_y \cdot p_{X|s'}` for all :math:`s, s'`: it is homogeneous and involves one
    column at a time. So :math:`Q` is :math:`\varepsilon`-LDP iff every column lies in
    the pointed polyhedral cone

    .. math::
        C_\varepsilon = \{q \in \mathbb R^a_{\ge 0} : q \cdot p_{X|s} \le
            e^\varepsilon\, q \cdot p_{X|s'} \ \forall s, s'\},

    and :math:`\sum_y q_y = \mathbf 1` (Eq. 5). Let :math:`r_1, \dots, r_K` be its
    extreme rays (finitely many, Minkowski-Weyl).

    **The utility.** :math:`I(X;Y) = \sum_y \mu(q_y)` with :math:`\mu(q) = \sum_x p_x
    q_x \ln(q_x / p_X\!\cdot q)`, which is positively homogeneous and convex, i.e.
    sublinear (thesis Definition 3.2.1).

    **Theorem.** The optimum of Problem 2 under LDP equals that of the LP

    .. math::
        \max_{\theta \ge 0} \sum_k \mu(r_k)\,\theta_k
        \quad\text{s.t.}\quad \sum_k \theta_k r_k = \mathbf 1,

    and an optimal mechanism has columns :math:`\theta_k r_k` for :math:`\theta_k > 0`.

    *Proof.* (LP <= Problem 2) A feasible :math:`\theta` gives the mechanism with columns
    :math:`\theta_k r_k`: each lies in :math:`C_\varepsilon`, they sum to
    :math:`\mathbf 1`, and by homogeneity its utility is :math:`\sum_k \theta_k
    \mu(r_k)`. (Problem 2 <= LP) Take any feasible :math:`Q`. Each column is a
    non-negative combination :math:`q_y = \sum_k \lambda_{yk} r_k` of extreme rays, and by
    sublinearity :math:`\mu(q_y) \le \sum_k \lambda_{yk} \mu(r_k)`. Then
    :math:`\theta_k = \sum_y \lambda_{yk}` is LP-feasible (:math:`\sum_k \theta_k r_k =
    \sum_y q_y = \mathbf 1`) with value at least :math:`I(X;Y)` of :math:`Q`. A basic
    optimal solution has at most ``a`` non-zeros, so ``b <= a`` outputs suffice
    (Theorem 2(1)). :math:`\square` For S = X the cone's extreme rays are the
    non-constant staircase patterns (entries in :math:`\{1, e^\varepsilon\}`; the
    constant pattern is a combination of them) and the LP is the thesis's (3.11).

    The LP is always feasible (:math:`\mathbf 1 \in C_\varepsilon`), so a solver failure
    is reported as :class:`~anonspread.errors.InfeasibleError`.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret S (rows) and the data X (columns).
    eps : float
        Privacy level, ``>= 0``.
    method : {"auto", "enumerate", "colgen"}
        ``"enumerate"`` lists all extreme rays with cddlib and solves the LP once
        (exact; the number of rays grows quickly with ``a`` and ``c``). ``"colgen"``
        grows the LP column by column and certifies the final dual by branch and bound
        (exact to 1e-10 nats, see ``privacy.funnel.colgen``); it handles the Adult
        cases with ``a = 16, c = 15`` whose ray count is out of reach. ``"auto"``
        enumerates for ``a <= 8`` and uses column generation above.

    Returns
    -------
    Mechanism
        ``a`` inputs, at most ``a`` outputs (one per ray used). Data values of
        probability zero get a uniform row (it affects neither privacy nor utility).

    Raises
    ------
    InvalidParameterError
        If ``p_sx`` is not a joint distribution or ``eps < 0``.
    InfeasibleError
        If the enumeration or the LP fails numerically.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> from anonspread.privacy.funnel import ldp_epsilon, optimal_ldp
    >>> Q = optimal_ldp(p_sx, 0.5)
    >>> bool(ldp_epsilon(Q, p_sx) <= 0.5 + 1e-9)
    True
    """
    eps, method, pk, p_x, x_keep, trivial = _prepare(p_sx, eps, method, ldp_epsilon)
    if trivial is not None:
        return trivial
    A = ldp_cone_constraints(pk / pk.sum(axis=1, keepdims=True), eps)
    if _use_colgen(method, pk.shape[1]):
        return _embed(colgen_optimum(A, p_x), x_keep)
    rays = cone_rays(A)
    return _embed(optimal_from_rays(rays, p_x, "optimal_ldp"), x_keep)


def lip_polytope_vertices(pk: np.ndarray, eps: float) -> np.ndarray:
    """Vertices of the polytope Delta of Eq. (15) for a joint with no zero margins."""
    p_s = pk.sum(axis=1)
    p_x = pk.sum(axis=0)
    # Exactly consistent rows: the columns of p_{S|X} sum to 1, one float for e^eps.
    p_s_given_x = pk / p_x
    p_s_given_x /= p_s_given_x.sum(axis=0)
    w = p_s_given_x / p_s[:, None]
    e = np.exp(eps)
    A_ub = np.vstack([w, -w])
    b_ub = np.concatenate([np.full(w.shape[0], e), np.full(w.shape[0], -1.0 / e)])
    V = polytope_vertices(A_ub, b_ub, np.ones((1, pk.shape[1])), np.ones(1))
    return V / V.sum(axis=1, keepdims=True)


def _entropy_rows(V: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(V > 0, V * np.log(np.where(V > 0, V, 1.0)), 0.0), axis=1)


def optimal_lip(p_sx: Any, eps: Any, *, method: str = "auto") -> Mechanism:
    r"""The mechanism maximising ``I(X; Y)`` under ``eps``-LIP w.r.t. S (Theorem 3, §V).

    Enumerates the vertices :math:`v_1, \dots, v_M` of the ``(a-1)``-dimensional polytope

    .. math::
        \Delta = \{v \in \mathbb R^a_{\ge 0} : \textstyle\sum_x v_x = 1,\
            e^{-\varepsilon} \le p_{s|X} v / p_s \le e^{\varepsilon}\ \forall s\}
            \quad \text{(Eq. 15)}

    with cddlib, then solves the LP (17),
    :math:`\min_{\alpha \ge 0} \sum_i H(v_i)\alpha_i` s.t. :math:`\sum_i \alpha_i v_i =
    p_X`, with HiGHS. Output ``i`` has :math:`\mathbb P(Y = i) = \hat\alpha_i` and
    :math:`\mathbb P(X = x \mid Y = i) = v_{i,x}` (Eqs. 18-20), i.e.
    :math:`Q_{i|x} = \hat\alpha_i v_{i,x} / p_x`. The rows of Eq. (15) are built exactly
    consistent (columns of :math:`p_{S|X}` renormalised, one float for
    :math:`e^\varepsilon`) and vertices closer than 1e-9 are merged, so degenerate
    vertices are not duplicated. The LP is feasible because :math:`p_X \in \Delta`.

    Parameters
    ----------
    p_sx : array_like, shape (c, a)
        Joint distribution of S (rows) and X (columns).
    eps : float
        Privacy level, ``>= 0``.
    method : {"auto", "enumerate", "colgen"}
        ``"enumerate"`` is Theorem 3 as above. ``"colgen"`` solves the same problem as
        the cone-ray LP of :func:`optimal_ldp` for the LIP cone :math:`\{q \ge 0 :
        e^{-\varepsilon} q \cdot p_X \le q \cdot p_{X|s} \le e^{\varepsilon} q \cdot
        p_X\}` (Eq. 3 is homogeneous in each column too; ``v = p_X \odot q / p_X
        \cdot q`` maps its rays onto the vertices of Delta), by column generation.
        ``"auto"`` enumerates for ``a <= 8``.

    Returns
    -------
    Mechanism
        ``a`` inputs, at most ``a`` outputs.

    Raises
    ------
    InvalidParameterError
        If ``p_sx`` is not a joint distribution or ``eps < 0``.
    InfeasibleError
        If the enumeration or the LP fails numerically.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.3, 0.1, 0.1], [0.1, 0.1, 0.3]])
    >>> from anonspread.privacy.funnel import lip_epsilon, optimal_lip
    >>> Q = optimal_lip(p_sx, 0.5)
    >>> bool(lip_epsilon(Q, p_sx) <= 0.5 + 1e-9)
    True
    """
    eps, method, pk, p_x, x_keep, trivial = _prepare(p_sx, eps, method, lip_epsilon)
    if trivial is not None:
        return trivial
    if _use_colgen(method, pk.shape[1]):
        return _embed(colgen_optimum(lip_cone_constraints(pk, eps), p_x), x_keep)
    V = lip_polytope_vertices(pk, eps)
    alpha = _solve_lp(_entropy_rows(V), V.T, p_x, "optimal_lip (Eq. 17)")
    used = np.flatnonzero(alpha > 0)
    Q = (V[used] * alpha[used, None]).T / p_x[:, None]
    return _embed(Q, x_keep)


def _optimal_ldp_vertex_enumeration(p_sx: Any, eps: Any) -> Mechanism:
    """Reference: Theorem 2 by brute force over the vertices of the polytope Gamma.

    Gamma is the set of ``a x a`` matrices satisfying Eqs. (5)-(7), an
    ``a(a-1)``-dimensional polytope; ``I(X; Y)`` is convex, so its maximum over Gamma is
    attained at a vertex. This is the paper's method (slow: minutes for ``a = 5``);
    :func:`optimal_ldp` is tested against it.
    """
    p = check_joint(p_sx)
    eps = check_eps(eps)
    pk, _, x_keep = _restrict(p)
    a = pk.shape[1]
    if a == 1:
        return _embed(np.ones((1, 1)), x_keep)
    p_x = pk.sum(axis=0)
    A = ldp_cone_constraints(pk / pk.sum(axis=1, keepdims=True), eps)
    n = a * a  # variable Q[x, y] at index x * a + y
    # Eq. (7) for each output column y: -sum_x A[k, x] Q[x, y] <= 0.
    A_ub = np.zeros((a * A.shape[0], n))
    for y in range(a):
        A_ub[y * A.shape[0] : (y + 1) * A.shape[0], np.arange(a) * a + y] = -A
    A_eq = np.kron(np.eye(a), np.ones((1, a)))  # Eq. (5): rows sum to 1
    V = polytope_vertices(A_ub, np.zeros(A_ub.shape[0]), A_eq, np.ones(a))
    best = None
    best_val = -np.inf
    for v in V:
        Q = v.reshape(a, a)
        val = column_utility(Q.T, p_x).sum()
        if val > best_val:
            best_val, best = val, Q
    assert best is not None
    used = best.sum(axis=0) > 1e-12
    return _embed(best[:, used], x_keep)
