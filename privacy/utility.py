"""Utilities that are sums of sublinear functions of a mechanism's columns (thesis §3.2.1).

A utility ``U(Q) = sum_y mu(Q_y)`` is defined by a *sublinear* ``mu`` (Definition 3.2.1):
positively homogeneous, ``mu(g z) = g mu(z)`` for ``g >= 0``, and subadditive. For such
utilities the optimal eps-LDP mechanism is a staircase mechanism (Theorem 3.2.2) found by
the linear program of Theorem 3.2.4 (see :mod:`privacy.staircase`).

Provided here:

* :class:`FDivergence` -- ``D_f(M0 || M1) = sum_y M1(y) f(M0(y) / M1(y))`` of the induced
  marginals ``M_nu = P_nu^T Q`` (Eq. 3.12), with ``mu(z) = (P1.z) f((P0.z) / (P1.z))``;
* :class:`KL` (``f(t) = t log t``), :class:`TotalVariation` (``f(t) = |t - 1| / 2``),
  and the factories :func:`chi_square` (``f(t) = (t - 1)^2``) and :func:`squared_hellinger`
  (``f(t) = (sqrt(t) - 1)^2``);
* :class:`MutualInformation` -- ``I(X; Y)`` for ``X ~ P`` (Eq. 3.19), with
  ``mu(z) = sum_x P_x z_x log(z_x / (P.z))``.

Every utility has ``.value(Q)`` (``Q`` a :class:`~privacy.mechanism.Mechanism` or a
row-stochastic matrix) and ``.mu(columns)``, vectorised over the columns of a ``(k, n)``
array. Natural logarithms throughout (nats).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_distribution

__all__ = [
    "KL",
    "FDivergence",
    "MutualInformation",
    "SublinearUtility",
    "TotalVariation",
    "chi_square",
    "squared_hellinger",
]


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x * log(y)`` with the convention ``0 log 0 = 0`` (as in scipy.special.xlogy)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y)))


class SublinearUtility:
    """Base class: ``U(Q) = sum_y mu(Q_y)`` for a sublinear ``mu`` on ``R^k`` (Def. 3.2.1).

    Subclasses implement :meth:`_mu` on a validated ``(k, n)`` array of non-negative
    columns. Anything implementing ``n_inputs`` and ``mu`` this way can be passed to
    :func:`privacy.staircase.optimal_staircase`.
    """

    #: Size ``k`` of the input alphabet.
    n_inputs: int

    def _mu(self, Z: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def mu(self, columns: Any) -> float | np.ndarray:
        """Apply ``mu`` to one column (shape ``(k,)``) or to each column of a ``(k, n)`` array.

        Parameters
        ----------
        columns : array_like, shape (k,) or (k, n)
            Non-negative columns ``Q(y | .)`` (any scale: ``mu`` is homogeneous).

        Returns
        -------
        float or numpy.ndarray of shape (n,)
        """
        try:
            Z = np.asarray(columns, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(
                f"columns must be a numeric array of shape (k,) or (k, n); got {type(columns).__name__}"
            ) from exc
        single = Z.ndim == 1
        if single:
            Z = Z[:, None]
        if Z.ndim != 2 or Z.shape[0] != self.n_inputs:
            raise InvalidParameterError(
                f"columns must have shape ({self.n_inputs},) or ({self.n_inputs}, n); got {Z.shape}"
            )
        if not np.all(np.isfinite(Z)) or np.any(Z < 0):
            raise InvalidParameterError("columns must have finite, non-negative entries")
        out = self._mu(Z)
        return float(out[0]) if single else out

    def value(self, Q: Any) -> float:
        """The utility ``U(Q) = sum_y mu(Q_y)`` of a mechanism (Eq. 3.8).

        Parameters
        ----------
        Q : Mechanism or array_like, shape (k, m)
            A row-stochastic matrix ``Q[x, y] = P(Y = y | X = x)`` with ``k = n_inputs``.
        """
        mech = Q if isinstance(Q, Mechanism) else Mechanism(Q)
        if mech.n_inputs != self.n_inputs:
            raise InvalidParameterError(
                f"Q must have {self.n_inputs} rows (one per input of this utility); "
                f"got {mech.n_inputs}"
            )
        return float(np.sum(self._mu(mech.matrix)))


class FDivergence(SublinearUtility):
    """Csiszár f-divergence of the induced marginals, ``D_f(M0 || M1)`` (Eq. 3.12).

    ``M_nu(y) = sum_x P_nu(x) Q(y | x)`` and ``D_f(M0 || M1) = sum_y M1(y) f(M0(y) / M1(y))``,
    so ``mu(z) = (P1.z) f((P0.z) / (P1.z))`` (§3.3.1); ``mu`` is sublinear for convex ``f``.

    Parameters
    ----------
    f : callable
        Convex function on ``[0, inf)`` with ``f(1) = 0``, vectorised over numpy arrays.
        Convexity and ``f(1) = 0`` are spot-checked on a grid.
    P0, P1 : array_like, shape (k,)
        The two hypotheses. ``P1`` must be strictly positive (``f`` is evaluated at
        ``M0 / M1``).
    name : str, optional
        Label used in ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> D = FDivergence(lambda t: (t - 1) ** 2, [0.5, 0.5], [0.25, 0.75])
    >>> round(D.value(np.eye(2)), 6)  # chi-square divergence of P0 from P1
    0.333333
    """

    _kind: int | None = None

    def __init__(
        self, f: Callable[[np.ndarray], np.ndarray], P0: Any, P1: Any, *, name: str = "f"
    ) -> None:
        if not callable(f):
            raise InvalidTypeError(f"f must be a callable convex function; got {f!r}")
        P0 = check_distribution(P0, "P0")
        P1 = check_distribution(P1, "P1", positive=True)
        if P0.shape != P1.shape:
            raise InvalidParameterError(
                f"P0 and P1 must be over the same alphabet; got sizes {P0.size} and {P1.size}"
            )
        self._check_f(f)
        self.f = f
        self.P0 = P0
        self.P1 = P1
        self.n_inputs = P0.size
        self.name = name

    @staticmethod
    def _check_f(f: Callable) -> None:
        one = float(np.asarray(f(np.array([1.0])), dtype=float).reshape(-1)[0])
        if not np.isfinite(one) or abs(one) > 1e-12:
            raise InvalidParameterError(f"f must satisfy f(1) = 0; got f(1) = {one!r}")
        t = np.concatenate([np.linspace(0.0, 4.0, 41), np.geomspace(5.0, 1e4, 20)])
        with np.errstate(divide="ignore", invalid="ignore"):  # f(0) may be a limit only
            ft = np.asarray(f(t), dtype=float)
        if ft.shape != t.shape or not np.all(np.isfinite(ft[1:])):
            raise InvalidParameterError(
                "f must be vectorised over numpy arrays and finite on (0, inf)"
            )
        # Midpoint convexity on neighbouring triples of the grid (non-uniform grid: use slopes).
        slopes = np.diff(ft[1:]) / np.diff(t[1:])
        if np.any(np.diff(slopes) < -1e-9 * (1.0 + np.abs(slopes[1:]))):
            raise InvalidParameterError("f must be convex on [0, inf)")

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        a = self.P0 @ Z
        b = self.P1 @ Z
        out = np.zeros(Z.shape[1])
        pos = b > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            out[pos] = b[pos] * np.asarray(self.f(a[pos] / b[pos]), dtype=float)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, k={self.n_inputs})"


class KL(FDivergence):
    """Kullback-Leibler divergence ``D_kl(M0 || M1)`` of the induced marginals (§3.3).

    The f-divergence with ``f(t) = t log t``: ``mu(z) = (P0.z) log((P0.z) / (P1.z))``.

    Parameters
    ----------
    P0, P1 : array_like, shape (k,)
        ``P1`` must be strictly positive.

    Examples
    --------
    >>> import numpy as np
    >>> D = KL([0.5, 0.5], [0.25, 0.75])
    >>> round(D.value(np.eye(2)), 6)  # D(P0 || P1) itself
    0.143841
    """

    _kind = 0

    def __init__(self, P0: Any, P1: Any) -> None:
        super().__init__(lambda t: _xlogy(t, t), P0, P1, name="kl")

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        a = self.P0 @ Z
        b = self.P1 @ Z
        with np.errstate(divide="ignore", invalid="ignore"):
            return _xlogy(a, np.where(b > 0, a / np.where(b > 0, b, 1.0), 1.0))


class TotalVariation(FDivergence):
    """Total variation ``||M0 - M1||_TV = sum_y |M0(y) - M1(y)| / 2`` (§3.3).

    The f-divergence with ``f(t) = |t - 1| / 2``: ``mu(z) = |P0.z - P1.z| / 2``.

    Parameters
    ----------
    P0, P1 : array_like
        The two distributions of ``X`` (hypotheses), over the same alphabet.

    Examples
    --------
    >>> import numpy as np
    >>> round(TotalVariation([0.5, 0.5], [0.25, 0.75]).value(np.eye(2)), 6)
    0.25
    """

    _kind = 1

    def __init__(self, P0: Any, P1: Any) -> None:
        super().__init__(lambda t: 0.5 * np.abs(t - 1.0), P0, P1, name="tv")

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        return 0.5 * np.abs((self.P0 - self.P1) @ Z)


class _ChiSquare(FDivergence):
    _kind = 2

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        a = self.P0 @ Z
        b = self.P1 @ Z
        out = np.zeros(Z.shape[1])
        pos = b > 0
        out[pos] = (a[pos] - b[pos]) ** 2 / b[pos]
        return out


class _SquaredHellinger(FDivergence):
    _kind = 3

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        return (np.sqrt(self.P0 @ Z) - np.sqrt(self.P1 @ Z)) ** 2


def chi_square(P0: Any, P1: Any) -> FDivergence:
    """Pearson chi-square divergence ``sum_y (M0 - M1)^2 / M1``: ``f(t) = (t - 1)^2`` (§3.2.1).

    Parameters
    ----------
    P0, P1 : array_like
        The two distributions of ``X`` (hypotheses), over the same alphabet.

    Returns
    -------
    FDivergence

    Examples
    --------
    >>> import numpy as np
    >>> round(chi_square([0.5, 0.5], [0.25, 0.75]).value(np.eye(2)), 6)
    0.333333
    """
    return _ChiSquare(lambda t: (t - 1.0) ** 2, P0, P1, name="chi_square")


def squared_hellinger(P0: Any, P1: Any) -> FDivergence:
    """Squared Hellinger distance ``sum_y (sqrt(M0) - sqrt(M1))^2``: ``f(t) = (sqrt(t) - 1)^2``.

    Parameters
    ----------
    P0, P1 : array_like
        The two distributions of ``X`` (hypotheses), over the same alphabet.

    Returns
    -------
    FDivergence

    Examples
    --------
    >>> import numpy as np
    >>> round(squared_hellinger([0.5, 0.5], [0.5, 0.5]).value(np.eye(2)), 6)
    0.0
    """
    return _SquaredHellinger(
        lambda t: (np.sqrt(t) - 1.0) ** 2, P0, P1, name="squared_hellinger"
    )


class MutualInformation(SublinearUtility):
    """Mutual information ``I(X; Y)`` between ``X ~ P`` and its privatised view (Eq. 3.19).

    ``mu(z) = sum_x P_x z_x log(z_x / (P.z))`` (§3.4.1), sublinear by the log-sum inequality.

    Parameters
    ----------
    P : array_like, shape (k,)
        Distribution of the input. Zero entries are allowed (such inputs never occur).

    Examples
    --------
    >>> import numpy as np
    >>> round(MutualInformation([0.5, 0.5]).value(np.eye(2)), 6)  # H(X) = log 2
    0.693147
    """

    _kind = 4

    def __init__(self, P: Any) -> None:
        self.P = check_distribution(P, "P")
        self.n_inputs = self.P.size

    def _mu(self, Z: np.ndarray) -> np.ndarray:
        m = self.P @ Z
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(m > 0, Z / np.where(m > 0, m, 1.0), 1.0)
        return np.sum(self.P[:, None] * _xlogy(Z, ratio), axis=0)

    def __repr__(self) -> str:
        return f"MutualInformation(k={self.n_inputs})"
