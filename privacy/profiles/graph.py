"""The profile graph ``G = (P, E)`` of Definition 2 and the profile families of Section 6.1."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.privacy.profiles.checks import _check_edges, _check_profiles
from anonspread.validation import check_int, check_probability

__all__ = ["ProfileGraph", "bernoulli_chain", "bernoulli_couplet", "categorical_chain_3"]


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
        """The profiles' names (their indices unless given), in the order of :attr:`profiles`."""
        return self._names

    @property
    def n_profiles(self) -> int:
        """Number of profiles ``k``."""
        return self._P.shape[0]

    @property
    def n_categories(self) -> int:
        """Size ``d`` of the input alphabet."""
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
        return f"ProfileGraph(k={self.n_profiles}, d={self.n_categories}, edges={len(self._edges)})"


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
# the profile families of Section 6.1
# --------------------------------------------------------------------------------------


def bernoulli_couplet(p_a: float, p_b: float) -> ProfileGraph:
    """Bernoulli-Couplet (Section 6.1): two Bernoulli profiles ``a``, ``b`` joined by one edge.

    Figure 2(a) plots :func:`smooth_one_bit` (equivalently :func:`one_bit_two_profile`)
    against ``|p_a - p_b|``.

    Parameters
    ----------
    p_a, p_b : float
        ``P(X = 1)`` under each profile, in [0, 1].

    Returns
    -------
    ProfileGraph

    Examples
    --------
    >>> g = bernoulli_couplet(0.2, 0.7)
    >>> g, g.bernoulli_parameters.tolist()
    (ProfileGraph(k=2, d=2, edges=1), [0.2, 0.7])
    """
    p_a = check_probability(p_a, "p_a")
    p_b = check_probability(p_b, "p_b")
    return ProfileGraph([[1 - p_a, p_a], [1 - p_b, p_b]], [("a", "b")], names=("a", "b"))


def bernoulli_chain(n: int) -> ProfileGraph:
    """Bernoulli-Chain-n (Section 6.1): ``n`` Bernoulli profiles, ``p`` uniformly spaced on [0, 1].

    Successive profiles are joined by an edge. ``bernoulli_chain(6)`` and
    ``bernoulli_chain(21)`` are the settings of Figure 3.

    Parameters
    ----------
    n : int
        Profiles, >= 2.

    Returns
    -------
    ProfileGraph

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
