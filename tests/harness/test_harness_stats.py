"""Confidence intervals and mergeable moments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from anonspread.harness.stats import Moments, normal_interval, summarize, wilson_interval


def test_wilson_matches_hand_computation():
    # p = 1/2, n = 100, z = 1.959964: centre 0.5, half-width
    # z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4 n^2)) = 0.0961685
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038315, abs=1e-6)
    assert hi == pytest.approx(0.5961685, abs=1e-6)
    # 0 successes out of 10: the classical Wilson upper bound 0.2775 (the Wald one would be 0).
    lo, hi = wilson_interval(0.0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.27753, abs=1e-5)


def test_wilson_is_inside_unit_interval_and_contains_estimate():
    for p in (0.0, 0.01, 0.3, 0.99, 1.0):
        lo, hi = wilson_interval(p, 37)
        assert 0.0 <= lo <= p <= hi <= 1.0


def test_normal_interval_matches_scipy():
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=250)
    s = summarize(Moments.of(x), "mean")
    assert s.stderr == pytest.approx(stats.sem(x), rel=1e-12)
    lo, hi = stats.norm.interval(0.95, loc=x.mean(), scale=stats.sem(x))
    assert (s.ci_low, s.ci_high) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    lo99, hi99 = normal_interval(1.0, 0.5, level=0.99)
    assert (lo99, hi99) == (pytest.approx(1 - 0.5 * stats.norm.ppf(0.995)),
                            pytest.approx(1 + 0.5 * stats.norm.ppf(0.995)))


def test_merged_moments_equal_pooled_sample():
    rng = np.random.default_rng(1)
    parts = [rng.random(n) for n in (1, 7, 100, 3)]
    merged = Moments(0, 0.0, 0.0)
    for p in parts:
        merged = merged.merge(Moments.of(p))
    pooled = np.concatenate(parts)
    assert merged.n == pooled.size
    assert merged.mean == pytest.approx(pooled.mean(), rel=1e-13)
    assert merged.variance == pytest.approx(pooled.var(ddof=1), rel=1e-12)


def test_summaries_by_kind():
    prop = summarize(Moments.of([1.0, 0.0, 1.0, 1.0]), "proportion")
    assert prop.mean == 0.75 and prop.stderr == pytest.approx(math.sqrt(0.75 * 0.25 / 4))
    assert (prop.ci_low, prop.ci_high) == wilson_interval(0.75, 4)
    exact = summarize(Moments(1, 0.3, 0.0), "exact")
    assert (exact.stderr, exact.ci_low, exact.ci_high) == (0.0, 0.3, 0.3)
    one = summarize(Moments.of([2.0]), "mean")
    assert math.isnan(one.stderr)


def test_bad_interval_arguments():
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        wilson_interval(0.5, 0)
    with pytest.raises(ValueError, match="p_hat must be"):
        wilson_interval(1.5, 10)
    with pytest.raises(ValueError, match="level must be"):
        normal_interval(0.0, 1.0, level=1.0)


def test_mean_interval_is_cut_at_the_metric_low():
    # Ranks 1, 1, 1, 30: mean 8.25, normal interval reaches below 1; a rank's mean cannot.
    m = Moments.of([1.0, 1.0, 1.0, 30.0])
    plain = summarize(m, "mean")
    assert plain.ci_low < 1.0
    cut = summarize(m, "mean", low=1.0)
    assert cut.ci_low == 1.0
    assert (cut.mean, cut.stderr, cut.ci_high) == (plain.mean, plain.stderr, plain.ci_high)
    # Above the low the interval is untouched.
    assert summarize(m, "mean", low=-10.0).ci_low == plain.ci_low


def test_run_cuts_rank_interval_and_refuses_bad_low(tmp_path):
    import json

    from anonspread import harness
    from anonspread.errors import InvalidParameterError

    def ranks(params, rng):
        return {"rank": 1.0 if rng.random() < 0.8 else 40.0}

    def exp(low):
        return harness.Experiment(
            name="ranks", title="ranks", description="heavy-tailed ranks",
            grid=harness.Grid(product={"k": [1]}),
            metrics=(harness.Metric("rank", "mean", low=low),), trial=ranks)

    res = harness.run(exp(1.0), trials=20, rng=3, out=tmp_path, workers=1, plot=False)
    row = res.table.rows[0]
    plain = summarize(Moments(row["n"], row["mean"], row["stderr"] ** 2 * row["n"] * (row["n"] - 1)),
                      "mean")
    assert plain.ci_low < 1.0 and row["ci_low"] == 1.0
    meta = json.loads((tmp_path / "ranks.json").read_text())
    assert meta["metrics"][0]["low"] == 1.0
    for bad in (math.nan, math.inf, "1", True):
        with pytest.raises(InvalidParameterError, match="low must be a real number"):
            harness.run(exp(bad), trials=2, rng=3, out=tmp_path / "bad", workers=1, plot=False)
