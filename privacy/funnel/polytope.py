"""Vertex and extreme-ray enumeration with cddlib (pycddlib-standalone 3.x), made robust.

Internal to :mod:`privacy.funnel`. cddlib's floating-point double description method
is fast but can report "numerical inconsistency" for some insertion orders; we try a
few orders before giving up, scale each inequality to unit max-norm (so no row
dominates the pivoting tolerances; for polytopes the caller builds rows that are
exactly consistent instead), check every generator returned against the
inequalities, and merge generators that coincide within a tolerance.
"""

from __future__ import annotations

import cdd
import numpy as np

from anonspread.errors import InfeasibleError

__all__ = ["cone_rays", "merge_duplicates", "polytope_vertices"]

# Insertion orders tried in turn: MIN_INDEX keeps the given order (we list the
# non-negativity rows first), which was the fastest and the most stable in our runs.
_ORDERS = (
    cdd.RowOrderType.MIN_INDEX,
    cdd.RowOrderType.LEX_MIN,
    cdd.RowOrderType.MAX_INDEX,
    cdd.RowOrderType.RANDOM_ROW,
)
_FEAS_TOL = 1e-7


def _normalise_rows(H: np.ndarray) -> np.ndarray:
    scale = np.abs(H).max(axis=1)
    scale[scale == 0] = 1.0
    return H / scale[:, None]


def _generators(H: np.ndarray, lin_set: tuple[int, ...]) -> np.ndarray:
    """All generators ``[t, g]`` of ``{z : H[:, 0] + H[:, 1:] @ z >= 0}`` (rows in lin_set: = 0)."""
    mat = cdd.matrix_from_array(H, lin_set=lin_set, rep_type=cdd.RepType.INEQUALITY)
    # Redundant inequalities (many, for large eps) only slow the double description down;
    # finding them is one small LP each.
    try:
        redundant = cdd.redundant_rows(mat)
    except RuntimeError:
        redundant = set()
    if redundant:
        keep = [i for i in range(H.shape[0]) if i not in redundant]
        lin_set = tuple(keep.index(i) for i in lin_set)
        H = H[keep]
        mat = cdd.matrix_from_array(H, lin_set=lin_set, rep_type=cdd.RepType.INEQUALITY)
    last_error: Exception | None = None
    for order in _ORDERS:
        try:
            poly = cdd.polyhedron_from_matrix(mat, row_order=order)
            gens = np.array(cdd.copy_generators(poly).array, dtype=float)
        except RuntimeError as exc:  # cddlib: numerical inconsistency for this order
            last_error = exc
            continue
        return gens.reshape(-1, H.shape[1])
    raise InfeasibleError(
        "vertex enumeration failed in floating point for every insertion order tried "
        f"({last_error})"
    ) from last_error


def merge_duplicates(points: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Rows of ``points`` with near-duplicates (within ``tol`` in max-norm) merged.

    Parameters
    ----------
    points : numpy.ndarray, shape (M, n)
        The points, one per row.
    tol : float
        Grid of the comparison: rows equal after rounding to multiples of ``tol`` are one.

    Returns
    -------
    numpy.ndarray
        The first row of each group, in the original order.

    Examples
    --------
    >>> import numpy as np
    >>> merge_duplicates(np.array([[0.5, 0.5], [0.5, 0.5 + 1e-12], [1.0, 0.0]]))
    array([[0.5, 0.5],
           [1. , 0. ]])
    """
    if points.shape[0] <= 1:
        return points
    keys = np.round(points / tol).astype(np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    return points[np.sort(first)]


def cone_rays(A: np.ndarray) -> np.ndarray:
    """Extreme rays of the pointed cone ``{q >= 0 : A @ q >= 0}``, each scaled to sum 1.

    Returns an array of shape ``(K, a)``. Every ray is checked against the constraints
    (relative tolerance 1e-7) so a numerically wrong enumeration raises instead of
    silently returning a wrong optimum.

    Parameters
    ----------
    A : numpy.ndarray, shape (r, a)
        The cone's constraint rows.

    Returns
    -------
    numpy.ndarray, shape (K, a)

    Raises
    ------
    InfeasibleError
        The enumeration returned no ray or a ray outside the cone.

    Examples
    --------
    The cone ``{q >= 0 : q_0 >= q_1}`` has the rays ``(1, 0)`` and ``(1/2, 1/2)``:

    >>> import numpy as np
    >>> cone_rays(np.array([[1.0, -1.0]]))
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    a = A.shape[1]
    H = np.zeros((a + A.shape[0], a + 1))
    H[:a, 1:] = np.eye(a)
    H[a:, 1:] = _normalise_rows(A)
    gens = _generators(H, ())
    rays = gens[np.abs(gens[:, 0]) < 0.5, 1:]
    rays = np.where(np.abs(rays) < 1e-13 * np.abs(rays).max(axis=1, keepdims=True), 0.0, rays)
    if rays.size == 0 or np.any(rays < -_FEAS_TOL * np.abs(rays).max(axis=1, keepdims=True)):
        raise InfeasibleError("cone enumeration returned no rays or rays outside the cone")
    rays = np.clip(rays, 0.0, None)
    rays /= rays.sum(axis=1, keepdims=True)
    slack = rays @ _normalise_rows(A).T
    if np.any(slack < -_FEAS_TOL):
        raise InfeasibleError(
            f"cone enumeration returned a ray violating a constraint by {-slack.min():.3g}"
        )
    return merge_duplicates(rays)


def polytope_vertices(
    A_ub: np.ndarray, b_ub: np.ndarray, A_eq: np.ndarray, b_eq: np.ndarray
) -> np.ndarray:
    """Vertices of the bounded polytope ``{v >= 0 : A_ub v <= b_ub, A_eq v = b_eq}``.

    Every vertex is checked against the constraints (tolerance 1e-7) and
    near-duplicates are merged.

    Parameters
    ----------
    A_ub, b_ub : numpy.ndarray
        The inequality constraints ``A_ub v <= b_ub``.
    A_eq, b_eq : numpy.ndarray
        The equality constraints ``A_eq v = b_eq`` (zero rows for none).

    Returns
    -------
    numpy.ndarray, shape (M, n)

    Raises
    ------
    InfeasibleError
        The polytope is empty or unbounded, or a vertex violates a constraint.

    Examples
    --------
    The simplex corner ``{v >= 0 : v_0 + v_1 <= 1}``:

    >>> import numpy as np
    >>> A_ub, b_ub = np.array([[1.0, 1.0]]), np.array([1.0])
    >>> polytope_vertices(A_ub, b_ub, np.zeros((0, 2)), np.zeros(0))
    array([[0., 1.],
           [1., 0.],
           [0., 0.]])
    """
    n = A_ub.shape[1]
    H = np.zeros((n + A_ub.shape[0] + A_eq.shape[0], n + 1))
    H[:n, 1:] = np.eye(n)
    H[n : n + A_ub.shape[0], 0] = b_ub
    H[n : n + A_ub.shape[0], 1:] = -A_ub
    H[n + A_ub.shape[0] :, 0] = -b_eq
    H[n + A_ub.shape[0] :, 1:] = A_eq
    lin = tuple(range(n + A_ub.shape[0], H.shape[0]))
    gens = _generators(H, lin)
    if gens.shape[0] == 0:
        raise InfeasibleError("the polytope is empty")
    if np.any(np.abs(gens[:, 0]) < 0.5):
        raise InfeasibleError("the polytope is unbounded (an extreme ray was found)")
    verts = np.clip(gens[:, 1:] / gens[:, :1], 0.0, None)
    viol = np.concatenate([verts @ A_ub.T - b_ub, np.abs(verts @ A_eq.T - b_eq)], axis=1)
    scale = np.maximum(np.abs(np.concatenate([b_ub, b_eq])), 1.0)
    if np.any(viol > _FEAS_TOL * scale):
        raise InfeasibleError(
            f"vertex enumeration returned a point violating a constraint by {viol.max():.3g}"
        )
    return merge_duplicates(verts)
