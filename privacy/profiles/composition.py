"""Post-processing and composition of profile mechanisms (Geumlek & Chaudhuri, Obs. 3-5, 11-15).

The paper states three properties without computing anything: post-processing keeps
the ``(G, eps)`` level (Observation 3 = 11), two releases of *independent* samples of
one profile compose to ``eps1 + eps2`` (Observation 4 = 12), and releases of
*independently selected* profiles keep ``max(eps1, eps2)`` (Observation 5 = 14). What a
user needs is the level actually reached, which can be smaller than these bounds; every
function here returns the exact level (or the composed mechanism, whose exact level is
:func:`~privacy.profiles.profile_epsilon`):

* :func:`post_process` -- ``A^i F`` for a (randomized) function ``F`` of the output;
* :func:`independent_samples_epsilon` -- Observation 4 exactly;
* :func:`independent_profiles_epsilon` -- Observation 5 exactly;
* :func:`same_input` -- the same ``X`` released twice, which Observation 13 leaves open
  (no bound in the paper): the pair of releases is itself a mechanism of ``X`` (row-wise
  Kronecker product of the two matrices), so its exact level is computable even though
  no composition theorem bounds it.

Out of scope: Observation 15 (profiles selected *dependently*) needs the joint law of
the profile selection, which the ``(G, eps)`` framework does not model; nothing is
provided for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.privacy.mechanism import Mechanism
from anonspread.privacy.profiles.checks import _check_edges, _check_matrices, _check_profiles

__all__ = [
    "independent_profiles_epsilon",
    "independent_samples_epsilon",
    "post_process",
    "same_input",
]


def _as_stack(matrices: Any) -> np.ndarray:
    mats = [m.matrix if isinstance(m, Mechanism) else Mechanism(m).matrix for m in matrices]
    return _check_matrices(mats, len(mats), mats[0].shape[0]) if mats else np.zeros((0, 0, 0))


def _edge_log_ratios(P: np.ndarray, edges: tuple[tuple[int, int], ...], A: np.ndarray):
    """Per edge, the extreme log ratios ``log (P_i A^i)_y - log (P_j A^j)_y`` over outputs ``y``.

    Returns a list of ``(lo, hi)`` (``-inf``/``inf`` when an output separates the edge);
    outputs that neither profile produces are ignored.
    """
    out = np.einsum("kd,kdm->km", P, A)
    res = []
    for i, j in edges:
        u, v = out[i], out[j]
        used = (u > 0) | (v > 0)
        with np.errstate(divide="ignore"):
            r = np.log(u[used]) - np.log(v[used])
        res.append((float(r.min()), float(r.max())))
    return res


def post_process(matrices: Any, F: Any) -> list[np.ndarray]:
    """Observation 3 (= 11): the mechanisms ``A^i F`` releasing ``F(A(X, P_i))``.

    ``F`` is a (possibly randomized) function of the output, given as a row-stochastic
    ``(m, m')`` matrix ``F[y, z] = P(F(y) = z)``; it does not see the profile. The level
    of the result, ``profile_epsilon(P, edges, post_process(A, F))``, is at most that of
    ``A`` (data processing) and can be smaller.

    Parameters
    ----------
    matrices : sequence of k array_like or Mechanism, each of shape (d, m)
        The mechanism, one matrix per profile.
    F : array_like, shape (m, m')
        The post-processing, row-stochastic.

    Returns
    -------
    list of numpy.ndarray
        One ``(d, m')`` matrix per profile.

    Examples
    --------
    >>> from anonspread.privacy.profiles import flip_matrices, profile_epsilon
    >>> A = flip_matrices([0.25, 0.25])
    >>> P = [[1.0, 0.0], [0.0, 1.0]]
    >>> round(profile_epsilon(P, [(0, 1)], post_process(A, flip_matrices([0.25])[0])), 6)
    0.510826
    """
    A = _as_stack(matrices)
    Fm = F.matrix if isinstance(F, Mechanism) else Mechanism(F).matrix
    if Fm.shape[0] != A.shape[2]:
        raise InvalidParameterError(
            f"F must have one row per output of the mechanisms ({A.shape[2]}); got shape {Fm.shape}"
        )
    return [a @ Fm for a in A]


def same_input(matrices1: Any, matrices2: Any) -> list[np.ndarray]:
    """The pair of releases ``(A1(X, P_i), A2(X, P_i))`` of one input ``X`` as one mechanism.

    Row ``x`` of profile ``i``'s matrix is the outer product of ``A1^i[x, :]`` and
    ``A2^i[x, :]`` (independent randomness, same ``X``), flattened: output
    ``(y1, y2)`` is column ``y1 * m2 + y2``. Observation 13 gives no bound for this
    case; its exact level is ``profile_epsilon(P, edges, same_input(A1, A2))``.

    Parameters
    ----------
    matrices1, matrices2 : sequence of k array_like or Mechanism
        The two mechanisms, one matrix per profile (as for :func:`profile_epsilon`).

    Returns
    -------
    list of numpy.ndarray
        One ``(d, m1 * m2)`` matrix per profile.

    Examples
    --------
    >>> import math
    >>> from anonspread.privacy.profiles import flip_matrices, profile_epsilon
    >>> A = flip_matrices([0.25, 0.25])
    >>> P = [[1.0, 0.0], [0.0, 1.0]]
    >>> round(profile_epsilon(P, [(0, 1)], same_input(A, A)) / math.log(3), 12)
    2.0
    """
    A1, A2 = _as_stack(matrices1), _as_stack(matrices2)
    if A1.shape[:2] != A2.shape[:2]:
        raise InvalidParameterError(
            "matrices1 and matrices2 must have the same profiles and inputs; got shapes "
            f"{A1.shape} and {A2.shape}"
        )
    k, d = A1.shape[:2]
    return [np.einsum("xa,xb->xab", A1[i], A2[i]).reshape(d, -1) for i in range(k)]


def independent_samples_epsilon(P: Any, edges: Any, matrices1: Any, matrices2: Any) -> float:
    """Exact level of ``(A1(X1, P_i), A2(X2, P_i))`` with ``X1, X2`` independent draws of ``P_i``.

    Observation 4 (= 12) bounds it by ``eps1 + eps2``. The release law is the product
    ``(P_i A1^i) x (P_i A2^i)``, so on an edge the log ratio of ``(y1, y2)`` is the sum of
    the two log ratios and the exact level is

        max_{(i, j) in E} max(hi1 + hi2, -(lo1 + lo2)),

    with ``lo, hi`` the extreme log ratios of each release on that edge; it reaches
    ``eps1 + eps2`` only when both releases attain their level on the same edge in the
    same direction.

    Parameters
    ----------
    P : array_like, shape (k, d)
        The profiles (rows are distributions).
    edges : iterable of pairs (i, j)
        The sensitive pairs, as profile indices.
    matrices1, matrices2 : sequence of k array_like or Mechanism
        The two mechanisms, one matrix per profile (as for :func:`profile_epsilon`).

    Returns
    -------
    float

    Examples
    --------
    >>> import math
    >>> from anonspread.privacy.profiles import flip_matrices
    >>> A = flip_matrices([0.25, 0.25])
    >>> P = [[0.9, 0.1], [0.1, 0.9]]
    >>> eps = independent_samples_epsilon(P, [(0, 1)], A, A)
    >>> bool(eps <= 2 * math.log(3))
    True
    """
    Parr = _check_profiles(P)
    E = _check_edges(edges, Parr.shape[0])
    A1 = _check_matrices(matrices1, Parr.shape[0], Parr.shape[1])
    A2 = _check_matrices(matrices2, Parr.shape[0], Parr.shape[1])
    level = 0.0
    for (lo1, hi1), (lo2, hi2) in zip(_edge_log_ratios(Parr, E, A1), _edge_log_ratios(Parr, E, A2)):
        level = max(level, hi1 + hi2, -(lo1 + lo2))
    return level


def independent_profiles_epsilon(P: Any, edges: Any, matrices1: Any, matrices2: Any) -> float:
    """Exact level of ``(A1(X_i, P_i), A2(X_j, P_j))`` for independently selected profiles.

    Observation 5 (= 14): changing one person's profile along an edge changes only that
    person's factor of the product law, so the level is the larger of the two levels,
    ``max(eps1, eps2)``, attained.

    Parameters
    ----------
    P : array_like, shape (k, d)
        The profiles (rows are distributions).
    edges : iterable of pairs (i, j)
        The sensitive pairs, as profile indices.
    matrices1, matrices2 : sequence of k array_like or Mechanism
        The two mechanisms, one matrix per profile (as for :func:`profile_epsilon`).

    Returns
    -------
    float

    Examples
    --------
    >>> from anonspread.privacy.profiles import flip_matrices
    >>> P = [[1.0, 0.0], [0.0, 1.0]]
    >>> a, b = flip_matrices([0.25, 0.25]), flip_matrices([0.4, 0.4])
    >>> round(independent_profiles_epsilon(P, [(0, 1)], a, b), 6)
    1.098612
    """
    from anonspread.privacy.profiles.epsilon import profile_epsilon

    return max(profile_epsilon(P, edges, matrices1), profile_epsilon(P, edges, matrices2))
