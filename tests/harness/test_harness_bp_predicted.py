"""BP's predicted detection as a derived point of the detection sweep (harness.bp_predicted):
its row beside bp's realised detection, its record, the reason where bp does not apply,
and its calibration against the exact ceiling on a small graph."""

from __future__ import annotations

import json

import pytest

from anonspread import harness
from anonspread.errors import InvalidParameterError


@pytest.mark.filterwarnings("ignore:.*whole connected component:RuntimeWarning")
def test_detection_sweep_bp_predicted_beside_bp_and_the_ceiling(tmp_path):
    exp = harness.compose("detection", product={
        "graph": "random-regular", "graph.n": 12, "graph.d": 3,
        "protocol": ["random-diffusion", "adaptive-diffusion"],
        "estimator": ["bp", "jordan", "strongest", "ceiling", "bp-predicted"], "T": [2, 3]})
    res = harness.run(exp, trials=200, rng=4, out=tmp_path, workers=1, plot=False, progress=False)
    for T in (2, 3):
        (pred,) = res.table.where(protocol="random-diffusion", estimator="bp-predicted", T=T)
        (ceil,) = res.table.where(protocol="random-diffusion", estimator="ceiling", T=T,
                                  metric="detection")
        (real,) = res.table.where(protocol="random-diffusion", estimator="bp", T=T,
                                  metric="detection")
        assert pred["metric"] == "detection" and pred["n"] == 200
        assert pred["ci_low"] < pred["mean"] < pred["ci_high"]
        # calibrated: the estimate agrees with the exact ceiling of this small graph
        assert abs(pred["mean"] - ceil["mean"]) <= 3 * pred["stderr"] + 0.01
        assert abs(real["mean"] - ceil["mean"]) <= 3 * real["stderr"] + 0.01
    recs = [d for d in res.table.derived if d.get("kind") == "bp-predicted"]
    assert len(recs) == 2 and all("an estimate of the Bayes ceiling" in d["text"] for d in recs)
    assert all(d["unconverged"] == 0 for d in recs)
    # bp is a candidate of the strongest attack on random diffusion; bp-predicted never is
    chosen = [d for d in res.table.derived if "chosen" in d]
    assert all(d["chosen"] != "bp-predicted" for d in chosen)
    rd = [d for d in chosen if d["params"]["protocol"] == "random-diffusion"]
    assert all("bp" in d["text"] for d in rd)
    absent = [s for s in res.table.skipped if s["params"]["estimator"] == "bp-predicted"]
    assert {s["params"]["protocol"] for s in absent} == {"adaptive-diffusion"}
    assert all("assumes a protocol" in s["reason"] for s in absent)
    side = json.loads(res.paths["json"].read_text())
    assert sum(d.get("kind") == "bp-predicted" for d in side["derived"]) == 2


def test_bp_predicted_has_no_trials_of_its_own():
    from anonspread.harness.experiments.spreading import detection_trials

    with pytest.raises(InvalidParameterError, match="bp-predicted"):
        detection_trials({"graph": "line", "protocol": "flooding", "estimator": "bp-predicted",
                          "T": 2}, 2, None)


@pytest.mark.parametrize("with_bp", [True, False])
def test_the_pilot_prices_bp_predicted_as_bps_trials(with_bp):
    # bp-predicted runs BP on as many spreads of its own after the trials, in the run's
    # process: the pilot prices it as bp's trials at its point (timed for it when bp is not
    # in the list) and adds it to the CPU and, in full, to the wall time
    ests = ["jordan", "bp-predicted"] + (["bp"] if with_bp else [])
    exp = harness.compose("detection", product={
        "graph": "random-regular", "graph.n": 30, "graph.d": 3, "protocol": "random-diffusion",
        "estimator": ests, "T": [2, 3]})
    est = harness.estimate_cost(exp, trials=150, workers=1)
    after = [r for r in est.rows if r.get("after")]
    assert [r["params"]["T"] for r in after] == [2, 3]
    assert all(r["label"] == "bp-predicted" and r["trials"] == 150 and r["stand_in"] == "bp"
               and r["cpu_per_trial"] > 0 for r in after)
    if with_bp:  # the same per-trial cost as bp's own row at the point
        for r in after:
            (bp,) = [q for q in est.rows if q["label"] == "bp" and q["params"]["T"] == r["params"]["T"]]
            assert r["cpu_per_trial"] == bp["cpu_per_trial"]
    trials_cpu = sum(r["cpu_per_trial"] * r["trials"] for r in est.rows)
    assert est.cpu_seconds >= trials_cpu
    assert est.wall_seconds >= sum(r["seconds_per_trial"] * r["trials"] for r in after)
    assert "bp-predicted computed after the trials" in est.format_text()
    assert "bp-predicted" in est.summary()


def test_the_pilot_skips_bp_predicted_where_bp_does_not_apply():
    # bp-predicted on adaptive diffusion is skipped with bp's reason; the pilot used to time
    # its stand-in (bp at that point) and stopped the whole run with bp's refusal
    exp = harness.compose("detection", product={
        "graph": "random-regular", "graph.n": 30, "graph.d": 3,
        "protocol": ["adaptive-diffusion", "random-diffusion"],
        "estimator": ["jordan", "bp", "bp-predicted"], "T": 2})
    est = harness.estimate_cost(exp, trials=40, workers=1)
    after = [r for r in est.rows if r.get("after")]
    assert [r["params"]["protocol"] for r in after] == ["random-diffusion"]


def test_the_derived_phase_announces_its_pilot_estimate(tmp_path, capsys):
    # the trials' ETA ends at the trials; the phase after them says what the pilot priced
    exp = harness.compose("detection", product={
        "graph": "random-regular", "graph.n": 20, "graph.d": 3, "protocol": "random-diffusion",
        "estimator": ["jordan", "bp-predicted"], "T": 2})
    harness.run(exp, trials=40, rng=1, out=tmp_path, workers=1, plot=False, progress=True)
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "derived point(s)" in x and "computed now" in x)
    assert "(bp-predicted) computed now, in this process (pilot estimate " in line
