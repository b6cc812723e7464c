"""Summary statistics and confidence intervals for Monte Carlo metrics.

Batches are summarised by :class:`Moments` (count, mean and the sum of squared
deviations ``m2``) and merged with Chan, Golub and LeVeque's pairwise update, in
batch order, so the result does not depend on which worker finished first.
Intervals are Wilson score intervals for proportions and normal intervals for
means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from anonspread.validation import check_int, check_real

__all__ = [
    "Moments",
    "Summary",
    "normal_interval",
    "summarize",
    "wilson_interval",
]


@dataclass(frozen=True)
class Moments:
    """Count, mean and sum of squared deviations of a sample (mergeable).

    Parameters
    ----------
    n : int
        Number of values.
    mean : float
        Their mean.
    m2 : float
        Sum of squared deviations from the mean.

    Examples
    --------
    >>> a = Moments.of([0.0, 1.0]); b = Moments.of([1.0, 1.0])
    >>> a.merge(b) == Moments.of([0.0, 1.0, 1.0, 1.0])
    True
    """

    n: int
    mean: float
    m2: float

    @classmethod
    def of(cls, values: np.ndarray | list[float]) -> Moments:
        """Moments of a 1-D sample.

        Parameters
        ----------
        values : array_like
            The sample (empty gives ``Moments(0, 0.0, 0.0)``).

        Returns
        -------
        Moments
        """
        arr = np.asarray(values, dtype=float)
        if arr.size == 0:
            return cls(0, 0.0, 0.0)
        mean = float(arr.mean())
        return cls(int(arr.size), mean, float(np.sum((arr - mean) ** 2)))

    def merge(self, other: Moments) -> Moments:
        """The moments of the concatenated samples (Chan et al. 1979).

        Parameters
        ----------
        other : Moments
            The moments of the other sample.

        Returns
        -------
        Moments
        """
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * other.n / n
        m2 = self.m2 + other.m2 + delta * delta * self.n * other.n / n
        return Moments(n, mean, m2)

    @property
    def variance(self) -> float:
        """Unbiased sample variance (NaN for fewer than two values)."""
        return self.m2 / (self.n - 1) if self.n > 1 else math.nan


def _z(level: float) -> float:
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    return NormalDist().inv_cdf(0.5 + level / 2)


def wilson_interval(p_hat: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    With ``z`` the two-sided normal quantile of ``level``,

    .. math:: \\frac{\\hat p + z^2/2n \\pm z\\sqrt{\\hat p(1-\\hat p)/n + z^2/4n^2}}{1 + z^2/n}.

    Unlike the normal (Wald) interval it stays inside [0, 1] and does not collapse
    when ``p_hat`` is 0 or 1.

    Parameters
    ----------
    p_hat : float
        The observed proportion, in [0, 1].
    n : int
        The number of trials.
    level : float
        Confidence level, in (0, 1).

    Examples
    --------
    >>> lo, hi = wilson_interval(0.5, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    """
    p_hat = check_real(p_hat, "p_hat", low=0.0, high=1.0)
    n = check_int(n, "n", low=1)
    z = _z(level)
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p_hat + z2 / (2 * n)) / denom
    half = z * math.sqrt(p_hat * (1 - p_hat) / n + z2 / (4 * n * n)) / denom
    # At p_hat = 0 (or 1) the bound is exactly 0 (or 1); say so rather than round.
    lo = 0.0 if p_hat == 0.0 else max(0.0, center - half)
    hi = 1.0 if p_hat == 1.0 else min(1.0, center + half)
    return lo, hi


def normal_interval(mean: float, stderr: float, level: float = 0.95) -> tuple[float, float]:
    """Normal-approximation interval ``mean ± z * stderr``.

    Parameters
    ----------
    mean, stderr : float
        The estimate and its standard error.
    level : float
        Confidence level, in (0, 1).

    Examples
    --------
    >>> from anonspread import harness
    >>> lo, hi = harness.normal_interval(0.5, 0.1)
    >>> round(lo, 4), round(hi, 4)
    (0.304, 0.696)
    """
    z = _z(level)
    return mean - z * stderr, mean + z * stderr


@dataclass(frozen=True)
class Summary:
    """One metric at one parameter point: what a row of the tidy table holds.

    Parameters
    ----------
    n : int
        Trials (1 for an exact value).
    mean : float
        The estimate.
    stderr : float
        Its standard error.
    ci_low, ci_high : float
        The confidence interval.
    """

    n: int
    mean: float
    stderr: float
    ci_low: float
    ci_high: float


def summarize(moments: Moments, kind: str, level: float = 0.95, low: float = -math.inf) -> Summary:
    """Turn merged moments into a :class:`Summary` for a metric of ``kind``.

    ``kind`` is ``"proportion"`` (Wilson interval, binomial standard error),
    ``"mean"`` (normal interval, sample standard error) or ``"exact"`` (a
    closed-form value: zero error, the interval is the value itself). ``low`` is the
    smallest value one trial can take: a ``"mean"`` interval is cut there, since the
    mean cannot lie below it (the cut interval covers it at least as often).

    Parameters
    ----------
    moments : Moments
        The merged moments of the trials.
    kind : {"proportion", "mean", "exact"}
        The metric's kind.
    level : float
        Confidence level, in (0, 1).
    low : float
        The smallest value one trial can take.

    Returns
    -------
    Summary

    Examples
    --------
    >>> s = summarize(Moments.of([1.0, 1.0, 1.0, 30.0]), "mean")
    >>> s.ci_low < 1.0
    True
    >>> summarize(Moments.of([1.0, 1.0, 1.0, 30.0]), "mean", low=1.0).ci_low
    1.0
    """
    n, mean = moments.n, moments.mean
    if kind == "exact":
        return Summary(n, mean, 0.0, mean, mean)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, math.nan)
    if kind == "proportion":
        p = min(1.0, max(0.0, mean))
        lo, hi = wilson_interval(p, n, level)
        return Summary(n, mean, math.sqrt(p * (1 - p) / n), lo, hi)
    stderr = math.sqrt(moments.variance / n) if n > 1 else math.nan
    lo, hi = normal_interval(mean, stderr, level)
    return Summary(n, mean, stderr, max(lo, low), hi)
