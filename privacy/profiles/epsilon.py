"""The exact ``(G, eps)`` profile-based privacy level (Definition 2, eq. (2))."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from anonspread.privacy.profiles.checks import _check_edges, _check_matrices, _check_profiles

__all__ = ["EPS_ATOL", "profile_epsilon"]

#: Allowance on ``profile_epsilon(returned mechanism) <= eps`` for floating-point rounding.
EPS_ATOL = 1e-12


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
    orientations) and every output ``y``::

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
    >>> from anonspread.privacy.profiles import flip_matrices
    >>> P = [[1.0, 0.0], [0.0, 1.0]]              # p_i = 0, p_j = 1
    >>> rr = flip_matrices([0.25, 0.25])          # randomized response, flip 1/4
    >>> round(profile_epsilon(P, [(0, 1)], rr), 12) == round(math.log(3), 12)
    True
    """
    Parr = _check_profiles(P)
    E = _check_edges(edges, Parr.shape[0])
    A = _check_matrices(matrices, Parr.shape[0], Parr.shape[1])
    return _profile_epsilon(Parr, E, A)
