"""Exact ML detection probabilities on d-regular trees (thesis Chapter 2), in closed form.

These are the values the snapshot adversary's maximum-likelihood estimator attains
against Protocol 2 (Proposition 2.2.2) and adaptive diffusion (Theorem 2.3.1) on the
infinite d-regular tree, ties broken uniformly. They are derived below, checked by
exact enumeration over all trajectories (:func:`adversaries.exact_likelihood`) and by
Monte Carlo in ``tests/adversaries/test_adv_closed_forms.py``, and overlaid on the
harness's figures.
"""

from __future__ import annotations

from fractions import Fraction

from anonspread.validation import check_int

__all__ = [
    "adaptive_diffusion_detection",
    "adaptive_diffusion_min_size",
    "ball_size",
    "tree_protocol_detection",
    "tree_protocol_size",
]


def _check(d, T, d_low: int, t_name: str = "T") -> tuple[int, int]:
    return check_int(d, "d", low=d_low), check_int(T, t_name, low=0)


def ball_size(d: int, r: int) -> int:
    """Number of nodes within ``r`` hops of a node of the d-regular tree.

    Parameters
    ----------
    d : int
        Degree of the tree, >= 2.
    r : int
        Radius, >= 0.

    Returns
    -------
    int

    Examples
    --------
    >>> [ball_size(3, r) for r in range(4)]
    [1, 4, 10, 22]
    """
    d, r = _check(d, r, 2, "r")
    if d == 2:
        return 2 * r + 1
    return 1 + d * ((d - 1) ** r - 1) // (d - 2)


def _edge_ball_size(d: int, r: int) -> int:
    """Number of nodes within ``r`` hops of an edge of the d-regular tree."""
    return 2 * sum((d - 1) ** j for j in range(r + 1))


def tree_protocol_size(d: int, T: int) -> int:
    """``N_T`` of Protocol 2 (:class:`spread.TreeProtocol`) on the d-regular tree.

    The ball of radius ``T/2`` at even T; every node within ``(T-1)/2`` hops of an edge
    at odd T (2 nodes at T = 1).

    Parameters
    ----------
    d : int
        Degree of the tree, >= 2.
    T : int
        Steps, >= 0.

    Returns
    -------
    int

    Examples
    --------
    >>> [tree_protocol_size(3, T) for T in range(1, 7)]
    [2, 4, 6, 10, 14, 22]
    """
    d, T = _check(d, T, 2)
    return ball_size(d, T // 2) if T % 2 == 0 else _edge_ball_size(d, (T - 1) // 2)


def tree_protocol_detection(d: int, T: int, *, exact: bool = False) -> float | Fraction:
    """ML detection probability of Protocol 2 on the d-regular tree (Eq. 2.8).

    ``P(v_ML = v*) = (d - 1) / (2 + (d - 2) N_T)``, which equals ``1 / #leaves``:
    ``1 / (d (d-1)^(k-1))`` at ``T = 2k`` and ``1 / (2 (d-1)^k)`` at ``T = 2k + 1``. Every
    leaf of the balanced infected tree is equally likely to be the source (the
    token's uniform hops give each the same probability) and no other node can be.

    Parameters
    ----------
    d : int
        Degree of the tree, >= 2.
    T : int
        Steps, >= 0.
    exact : bool
        Return a :class:`fractions.Fraction` instead of a float.

    Returns
    -------
    float or fractions.Fraction

    Examples
    --------
    >>> [str(tree_protocol_detection(3, T, exact=True)) for T in (2, 4, 6, 8)]
    ['1/3', '1/6', '1/12', '1/24']
    """
    d, T = _check(d, T, 2)
    if T == 0:
        p = Fraction(1)
    else:
        p = Fraction(d - 1, 2 + (d - 2) * tree_protocol_size(d, T))
    return p if exact else float(p)


def adaptive_diffusion_min_size(d: int, T: int) -> int:
    """The smallest ``N_T`` adaptive diffusion can reach on the d-regular tree (Eq. 2.14, corrected).

    At even T the infected set is always the ball of radius ``T/2``. At odd
    ``T = 2k + 1 >= 3`` it is the ball of radius ``k + 1`` (token kept at step T) or,
    smaller, every node within ``k`` hops of the edge the token just crossed:
    ``N_T >= (2 (d-1)^((T+1)/2) - d) / (d-2) + 1`` for ``d > 2`` (``T + 1`` for ``d = 2``).
    The printed Eq. (2.14) has the exponent ``(T+1)/2 - d``, a transcription error.

    Parameters
    ----------
    d : int
        Degree of the tree, >= 2.
    T : int
        Steps, >= 0.

    Returns
    -------
    int

    Examples
    --------
    >>> [adaptive_diffusion_min_size(3, T) for T in range(1, 7)]
    [2, 4, 6, 10, 14, 22]
    """
    d, T = _check(d, T, 2)
    if T == 1:
        return 2
    if T % 2 == 0:
        return ball_size(d, T // 2)
    return _edge_ball_size(d, (T - 1) // 2)


def adaptive_diffusion_detection(d: int, T: int, *, exact: bool = False) -> float | Fraction:
    """Exact ML detection probability of adaptive diffusion on the d-regular tree.

    With ``alpha = alpha_d`` of Eq. (2.13) (design degree = the tree's degree):

    * ``T = 0``: 1; ``T = 1``: 1/2;
    * even ``T``: ``1 / (N_T - 1)`` with ``N_T`` the ball of radius ``T/2`` (Thm 2.3.1);
    * odd ``T = 2k + 1 >= 3``:
      ``P = (d + 2)/(2d) * (d - 2) / ((d-1)^(k+1) - 1)`` for ``d > 2``, and
      ``2 / (T + 1)`` for ``d = 2`` (the limit ``d -> 2`` of the same expression).

    Proof of the odd case. At time ``2k`` the infected set is the ball of radius ``k``
    around the virtual source ``v``, whose hop count ``h`` from the source has the law
    ``p_h = (d-2)(d-1)^(h-1) / ((d-1)^k - 1)`` (Eq. 2.12); given ``h`` the source is uniform
    on the ``d(d-1)^(h-1)`` nodes ``h`` hops from ``v``. At step ``2k + 1`` the token is

    * kept with probability ``alpha(2k, h)``: the snapshot is the ball of radius
      ``k + 1`` around ``v``. A node ``h`` hops from ``v`` has likelihood
      ``p_h / (d(d-1)^(h-1)) * alpha(2k, h)``, where the first factor is the same for
      every ``h`` (that is how Eq. 2.12 was designed) and ``alpha(2k, h)`` strictly
      decreases in ``h``: the ML estimate is one of the ``d`` neighbours of ``v``, and
      it is the source with probability ``p_1 alpha(2k, 1) / d``;
    * passed with probability ``1 - alpha(2k, h)`` to one of the ``d - 1`` other
      neighbours ``u`` of ``v``: the snapshot is every node within ``k`` hops of the edge
      ``{v, u}``, whose two sides are isomorphic, so the adversary cannot tell ``v`` from
      ``u``. A node ``j`` hops from ``a`` on a's side (``a`` in ``{v, u}``) has likelihood
      ``p_j / (d(d-1)^(j-1)) * (1 - alpha(2k, j)) / (d - 1)``, strictly increasing in
      ``j``: the ML estimate is one of the ``2 (d-1)^k`` nodes ``k`` hops from the edge's
      near end, and it is the source with probability ``p_k (1 - alpha(2k, k)) / (2 (d-1)^k)``.

    The two snapshot shapes have different sizes, so the events do not mix. With
    ``p_1 alpha(2k, 1) = (d-2)/((d-1)^(k+1) - 1)`` and
    ``p_k (1 - alpha(2k, k)) = (d-2)(d-1)^k / ((d-1)^(k+1) - 1)`` (use
    ``(d-1)^(k+1) - (d-1) = (d-1)((d-1)^k - 1)``), the sum is
    ``(d-2)/((d-1)^(k+1) - 1) * (1/d + 1/2)``. For ``d = 2`` (``p_h = 1/k``,
    ``alpha = (2k - 2h + 2)/(2k + 2)``) each case contributes ``1/(2(k+1))``.

    This exceeds ``1/(N_min - 1)`` for the smallest odd-T infected tree
    (:func:`adaptive_diffusion_min_size`) by a factor tending to ``1 + 2/d``, and it
    exceeds the printed bound (2.15) for ``d = 2`` (``2/(T+1) > 1/T``); the literal
    Eq. (2.15) for ``d > 2`` is a misprint (it exceeds 1 for ``d = 4`` and ``T <= 7``).

    Parameters
    ----------
    d : int
        Degree of the tree, >= 2.
    T : int
        Steps, >= 0.
    exact : bool
        Return a :class:`fractions.Fraction` instead of a float.

    Returns
    -------
    float or fractions.Fraction

    Examples
    --------
    >>> [round(adaptive_diffusion_detection(d, T), 4) for d, T in [(3, 3), (3, 11), (4, 7)]]
    [0.2778, 0.0132, 0.0187]
    """
    d, T = _check(d, T, 2)
    if T == 0:
        p = Fraction(1)
    elif T == 1:
        p = Fraction(1, 2)
    elif T % 2 == 0:
        p = Fraction(1, ball_size(d, T // 2) - 1)
    elif d == 2:
        p = Fraction(2, T + 1)
    else:
        k = (T - 1) // 2
        p = Fraction(d + 2, 2 * d) * Fraction(d - 2, (d - 1) ** (k + 1) - 1)
    return p if exact else float(p)
