"""K-randomization (Zhilyaev & Zeber 2016): the relaxed privacy level and privacy ratio of anonymized counts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Theory
from anonspread.harness.grid import Grid
from anonspread.harness.registry import register_experiment
from anonspread.privacy.krandom import count_pmf, epsilon, privacy_ratio

__all__: list[str] = []


def relaxed_epsilon(params: Mapping[str, Any]) -> dict[str, float]:
    """Exact eps_delta(n) for L = 1 and its fraction of the worst case log(p/q)."""
    n, q, delta = int(params["records"]), float(params["q"]), float(params["delta"])
    eps = epsilon(n, q, L=1, delta=delta)
    return {"epsilon": eps, "fraction_of_worst": eps / math.log((1 - q) / q)}


def worst_case(params: Mapping[str, Any]) -> float:
    """Proposition 1.1's level log(p/q) (delta = 0), whatever n."""
    q = float(params["q"])
    return math.log((1 - q) / q)


register_experiment(Experiment(
    name="krandom-epsilon",
    title="Relaxed eps of anonymized 1-bit counts vs n (Zhilyaev & Zeber, Sec. 3-4; our reading)",
    description="""
    Exact: the smallest eps such that, for every pair of neighbouring collections of n
    one-bit records ('records' = n) randomized with lie probability q and released only as the count of
    ones, the privacy ratio exceeds e^eps on outcomes of probability at most delta
    (privacy.krandom.epsilon, L = 1). The dashed curve is the delta = 0 level log(p/q),
    attained whatever n; the relaxed level falls with n because the anonymized count hides
    each record among the others. The paper has no table or figure of this: its Sec. 3.1
    relaxed definition is cut off mid-sentence in the text, and the delta-relaxation
    computed here (a delta-mass of outcomes under A(x) may exceed e^eps) is our reading
    of it. We sweep n on a log axis for two lie probabilities.""",
    grid=Grid(product={"records": [2, 5, 10, 20, 50, 100, 200, 500, 1000], "q": [0.1, 0.25],
                       "delta": [0.01]}),
    metrics=(Metric("epsilon", "mean", "eps_delta"),
             Metric("fraction_of_worst", "mean", "eps_delta / log(p/q)")),
    evaluate=relaxed_epsilon,
    plot=PlotSpec(x="records", series="q", logx=True, y=("epsilon",),
                  theory=(Theory("epsilon", worst_case, "log(p/q), delta = 0"),)),
))


@lru_cache(maxsize=64)
def _ratio_and_pmf(n: int, m: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    return privacy_ratio(n, m, q), count_pmf(n, m, q)


def ratio_at(params: Mapping[str, Any]) -> dict[str, float]:
    """pi_n(s; m) = P[A_n(m) = s] / P[A_n(m+1) = s] and P[A_n(m) = s] at one outcome s."""
    n, m, q, s = int(params["records"]), int(params["m"]), float(params["q"]), int(params["s"])
    if not 0 <= s <= n or not 0 <= m < n:
        return {"ratio": math.nan, "pmf": math.nan}
    ratio, pmf = _ratio_and_pmf(n, m, q)
    return {"ratio": float(ratio[s]), "pmf": float(pmf[s])}


def ratio_upper(params: Mapping[str, Any]) -> float:
    """p/q = e^eps of the bit randomization (Prop. 1.1): the largest privacy ratio, at s = 0."""
    q = float(params["q"])
    return (1 - q) / q


def ratio_lower(params: Mapping[str, Any]) -> float:
    """q/p: the smallest privacy ratio, at s = n."""
    q = float(params["q"])
    return q / (1 - q)


register_experiment(Experiment(
    name="krandom-ratio",
    title="Privacy ratio P[A_n(m)=s]/P[A_n(m+1)=s] vs s for several m (Zhilyaev & Zeber, Sec. 4.5)",
    description="""
    Exact: the privacy ratio pi_n(s; m) = P[A_n(m) = s] / P[A_n(m+1) = s] of the
    anonymized count of n = 'records' one-bit records (m of them ones, randomized with
    lie probability q) against the reported count s, for several m
    (privacy.krandom.privacy_ratio), and the pmf P[A_n(m) = s] in a second panel. The
    dashed lines are p/q and q/p, the bounds of Proposition 1.1 (the delta = 0
    privacy level log(p/q)), reached only at s = 0 and s = n. The paper (Section 4.5)
    states that pi decreases in s, increases in m, and decreases when s and m grow
    together; it draws no figure of it, so this one is ours. Where the pmf has its mass
    (s near m p + (n - m) q) the ratio is far inside the bounds, which is what the
    relaxed epsilon (krandom-epsilon) exploits.""",
    grid=Grid(product={"s": list(range(0, 51)), "m": [0, 10, 25, 40, 49], "records": [50],
                       "q": [0.25]}),
    metrics=(Metric("ratio", "mean", "pi_n(s; m)"), Metric("pmf", "mean", "P[A_n(m) = s]")),
    evaluate=ratio_at,
    plot=PlotSpec(x="s", series="m", logy=True, y=("ratio", "pmf"),
                  theory=(Theory("ratio", ratio_upper, "p/q"), Theory("ratio", ratio_lower, "q/p"))),
))
