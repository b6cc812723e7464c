"""The per-point budget of priced estimators (issue 31 item 6): soft-margin priced, never
run, by the pilot; a point above the budget skipped with its price and how to allow it."""

from __future__ import annotations

import json
import math

import pytest

from anonspread import harness
from anonspread.errors import InvalidParameterError
from anonspread.harness.budget import ESTIMATOR_BUDGET, check_budget

POINT = {"graph": "random-regular", "graph.n": 60, "graph.d": 4, "protocol": "random-diffusion",
         "protocol.p": 0.5, "T": [2, 3]}


def _sweep(estimators, name="budget"):
    return harness.compose("detection", name=name, product={**POINT, "estimator": estimators})


def test_budgets_parse_as_seconds_or_durations():
    assert check_budget("90") == 90.0 and check_budget("30m") == 1800.0
    assert check_budget("2h") == 7200.0 and check_budget(1.5) == 1.5
    assert math.isinf(check_budget("inf")) and ESTIMATOR_BUDGET == 600.0
    for bad in ("0", "-5", "ten", "3 weeks", float("nan")):
        with pytest.raises(InvalidParameterError, match="estimator_budget"):
            check_budget(bad)


def test_the_pilot_prices_soft_margin_without_running_it(monkeypatch):
    from anonspread.adversaries import softmargin

    def never(*args, **kwargs):
        raise AssertionError("the pilot ran soft-margin's trials")

    monkeypatch.setattr(softmargin, "soft_margin_many", never)
    est = harness.estimate_cost(_sweep(["jordan", "soft-margin"]), trials=40, executor="inprocess",
                                workers=1, estimator_budget="inf")
    priced = [r for r in est.rows if "priced" in r]
    timed = [r for r in est.rows if "priced" not in r]
    assert [r["params"]["T"] for r in priced] == [2, 3] and all(r["pilot_trials"] == 0 for r in priced)
    assert all(r["label"] == "jordan" and r["pilot_trials"] >= 1 for r in timed)
    assert all("distinct candidates of 40 snapshots x 2,000-16,000 runs" in r["priced"] for r in priced)
    assert all(r["cpu_per_trial"] > 0 for r in priced)
    assert any("soft-margin priced, not run" in n for n in est.notes)
    assert "priced:" in est.format_text()
    # the run's range: priced pairs from their lower bound (two rounds of 1,000 runs, 1/8
    # of the cap's 16,000) to their price, the timed pairs as timed
    assert all(r["least_per_trial"] == pytest.approx(r["cpu_per_trial"] / 8) for r in priced)
    spare = sum((r["cpu_per_trial"] - r["least_per_trial"]) * r["trials"] for r in priced)
    assert est.cpu_seconds_least == pytest.approx(est.cpu_seconds - spare)
    assert est.wall_seconds_least < est.wall_seconds
    line = est.summary()
    assert " CPU, ~" in line and "(priced estimators from every snapshot stopping at its soonest to the cap)" in line
    assert line.count("-") >= 2  # "~least-most CPU, ~least-most wall"
    plain = harness.estimate_cost(_sweep(["jordan"]), trials=40, executor="inprocess", workers=1)
    assert plain.cpu_seconds_least == plain.cpu_seconds and "priced estimators" not in plain.summary()


def test_a_point_above_the_budget_is_skipped_and_named(tmp_path):
    exp = _sweep(["jordan", "soft-margin"])
    res = harness.run(exp, trials=20, rng=1, out=tmp_path, workers=1, progress=False, plot=False,
                      estimator_budget=1e-6)
    assert {r["estimator"] for r in res.table.rows} == {"jordan"}
    skipped = [s for s in res.table.skipped if s["params"]["estimator"] == "soft-margin"]
    assert [s["params"]["T"] for s in skipped] == [2, 3]
    reason = skipped[0]["reason"]
    assert reason.startswith("soft-margin not run: priced at ~") and "--estimator-budget" in reason
    assert "estimator_budget=" in reason and "distinct candidates of 20 snapshots" in reason
    assert "an upper bound: snapshots that converge, settle or are uninformative stop early, ~" in reason and "if all of them do" in reason
    assert "soft-margin not run" in res.table.format_text()
    # the figure's title says it in one line for both points, without the per-point prices
    from anonspread.harness.plots import skipped_words

    words = skipped_words(res.table)
    assert words.count("skipped:") == 1 and "T = 2, 3" in words, words
    assert "soft-margin priced above the estimator budget of" in words and "~" not in words
    side = json.loads(res.paths["json"].read_text())
    assert sum(s["params"]["estimator"] == "soft-margin" for s in side["skipped"]) == 2
    # within the budget it runs, on the same spreads as jordan
    ok = harness.run(exp, trials=20, rng=1, out=tmp_path / "ok", workers=1, progress=False,
                     plot=False, estimator_budget="inf")
    assert {r["estimator"] for r in ok.table.rows} == {"jordan", "soft-margin"}
    assert not ok.table.skipped
    # a resumed run skips what the run it resumes skipped, whatever its own timing; a
    # different budget is a different run
    again = harness.run(exp, trials=20, rng=1, out=tmp_path, workers=1, progress=False, plot=False,
                        estimator_budget=1e-6, resume=True)
    assert again.computed == 0 and len(again.table.skipped) == 2
    with pytest.raises(InvalidParameterError, match="estimator_budget"):
        harness.run(exp, trials=20, rng=1, out=tmp_path, workers=1, progress=False, plot=False,
                    estimator_budget=2e-6, resume=True)


def test_a_budget_that_leaves_nothing_to_run_is_refused():
    with pytest.raises(InvalidParameterError, match="no point is left to run: soft-margin not run"):
        harness.estimate_cost(_sweep(["soft-margin"]), trials=20, executor="inprocess", workers=1,
                              estimator_budget=1e-6)
