"""K-randomization (Zhilyaev & Zeber 2016): the relaxed privacy level of anonymized counts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from harness.experiment import Experiment, Metric, PlotSpec, Theory
from harness.grid import Grid
from harness.registry import register_experiment
from privacy.krandom import epsilon

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
    title="Relaxed privacy level of anonymized 1-bit counts vs n (Zhilyaev & Zeber, Sec. 3-4)",
    description="""
    Exact: the smallest eps such that, for every pair of neighbouring collections of n
    one-bit records ('records' = n) randomized with lie probability q and released only as the count of
    ones, the privacy ratio exceeds e^eps on outcomes of probability at most delta
    (privacy.krandom.epsilon, L = 1). The dashed curve is the delta = 0 level log(p/q),
    attained whatever n; the relaxed level falls with n because the anonymized count hides
    each record among the others. The paper tabulates this behaviour rather than plotting
    it; we sweep n on a log axis for two lie probabilities.""",
    grid=Grid(product={"records": [2, 5, 10, 20, 50, 100, 200, 500, 1000], "q": [0.1, 0.25],
                       "delta": [0.01]}),
    metrics=(Metric("epsilon", "mean", "eps_delta"),
             Metric("fraction_of_worst", "mean", "eps_delta / log(p/q)")),
    evaluate=relaxed_epsilon,
    plot=PlotSpec(x="records", series="q", logx=True, y=("epsilon",),
                  theory=(Theory("epsilon", worst_case, "log(p/q), delta = 0"),)),
))
