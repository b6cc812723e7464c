"""The Bayes ceiling as a derived point of the detection and protocol-attack sweeps
(harness.ceiling): its row, its record, and the reason where it is absent."""

from __future__ import annotations

import json

import pytest

from anonspread import harness
from anonspread.adversaries.theory import adaptive_diffusion_detection
from anonspread.errors import InvalidParameterError
from anonspread.harness.ceiling import point_seed


def test_detection_sweep_ceiling_is_exact_on_the_regular_tree_and_absent_where_it_cannot_be(tmp_path):
    exp = harness.compose("detection", product={
        "graph": ["regular-3", "random-tree-34"], "protocol": "adaptive-diffusion",
        "estimator": ["ml", "strongest", "ceiling"], "T": [2, 3]})
    res = harness.run(exp, trials=60, rng=2, out=tmp_path, workers=1, progress=False)
    for T in (2, 3):
        (row,) = res.table.where(graph="regular-3", estimator="ceiling", T=T)
        want = adaptive_diffusion_detection(3, T)
        assert row["metric"] == "detection" and row["mean"] == pytest.approx(want, rel=1e-12)
        assert row["ci_low"] == row["ci_high"] == row["mean"] and row["n"] == 60
    # the strongest attack is still chosen among the estimators only
    strongest = [d for d in res.table.derived if d.get("kind") != "ceiling"]
    assert len(strongest) == 4 and {d["chosen"] for d in strongest} == {"ml"}
    ceilings = [d for d in res.table.derived if d.get("kind") == "ceiling"]
    assert [d["method"] for d in ceilings] == ["exact", "exact"]
    assert all("mass-transport" in d["assumption"] for d in ceilings)
    # a random tree has no uniform source: the point says why, in the table and the JSON
    absent = [s for s in res.table.skipped if s["params"]["estimator"] == "ceiling"]
    assert [s["params"]["graph"] for s in absent] == ["random-tree-34"] * 2
    assert all("regular infinite tree" in s["reason"] for s in absent)
    text = " ".join(res.table.format_text().split())  # (lines wrap at the terminal's width)
    assert "graph=random-tree-34, protocol=adaptive-diffusion, estimator=ceiling, T=2,3: Bayes ceiling not computed" in text
    side = json.loads(res.paths["json"].read_text())
    assert sum(d.get("kind") == "ceiling" for d in side["derived"]) == 2
    fig = res.draw()  # the ceiling is a series of the figure; it chooses nothing
    entries = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert any(e.startswith("estimator=ceiling") and "chosen" not in e for e in entries), entries
    # drawn as what it is: black and dashed, named in the legend with how it was computed
    ceiling = [e for e in entries if e.startswith("estimator=ceiling")]
    assert ceiling and "Bayes-optimal detection" in ceiling[0] and "(exact)" in ceiling[0], entries
    lines = [ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == ceiling[0]]
    assert lines and all(ln.get_color() == "black" and ln.get_linestyle() != "-" for ln in lines)
    assert any(e.startswith("estimator=strongest") and "chosen: ml" in e for e in entries), entries
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_monte_carlo_ceiling_is_seeded_by_the_point_and_sized_by_its_trials(tmp_path):
    from anonspread.harness.ceiling import ceiling_rows
    from anonspread.harness.experiments.spreading import ceiling_setting

    exp = harness.compose("detection", product={
        "graph": "random-regular", "graph.n": 12, "graph.d": 3, "protocol": "random-diffusion",
        "estimator": ["jordan"], "T": [2]})
    res = harness.run(exp, trials=40, rng=1, out=tmp_path, workers=1, plot=False, progress=False)
    point = {**res.table.rows[0], "estimator": "ceiling"}
    point = {p: point[p] for p in res.table.params}
    # a budget too small for the exact enumeration: Monte Carlo, one snapshot per trial
    runs = [ceiling_rows(res.table, [point], ceiling_setting, axis="estimator", max_states=120)
            for _ in range(2)]
    rows = [t.where(estimator="ceiling")[0] for t in runs]
    assert rows[0] == rows[1] and rows[0]["n"] == 40
    assert rows[0]["ci_low"] < rows[0]["mean"] < rows[0]["ci_high"]
    (rec,) = [d for d in runs[0].derived if d.get("kind") == "ceiling"]
    assert rec["method"] == "monte-carlo" and rec["snapshots"] == 40
    assert "exact enumeration does not fit" in rec["note"]
    exact = ceiling_rows(res.table, [point], ceiling_setting, axis="estimator").where(estimator="ceiling")[0]
    assert rows[0]["ci_low"] <= exact["mean"] <= rows[0]["ci_high"]
    assert point_seed(point) == point_seed(dict(reversed(list(point.items()))))


def test_ceiling_alone_is_refused_and_has_no_trials():
    from anonspread.harness.experiments.spreading import detection_trials

    with pytest.raises(InvalidParameterError, match="no trials of its own"):
        detection_trials({"graph": "regular-3", "protocol": "flooding", "estimator": "ceiling", "T": 1},
                         5, __import__("numpy").random.default_rng(0))


def test_protocol_attack_ceiling_without_spies_only(tmp_path):
    attacks = ["dandelion/first-spy", "dandelion/ceiling", "adaptive-diffusion/jordan",
               "adaptive-diffusion/ceiling"]
    exp = harness.compose("protocol-attack", product={"graph.n": [60], "fraction": [0.0, 0.1],
                                                      "attack": attacks, "T": [3]})
    res = harness.run(exp, trials=20, rng=1, out=tmp_path, workers=1, plot=False, progress=False)
    (row,) = res.table.where(attack="dandelion/ceiling")
    assert row["fraction"] == 0.0 and row["mean"] == pytest.approx(1 / 60)  # connected: 1 component
    reasons = {(s["params"]["attack"], s["params"]["fraction"]): s["reason"] for s in res.table.skipped}
    assert "spies see more" in reasons[("dandelion/ceiling", 0.1)]
    assert "max_infections_per_step" in reasons[("adaptive-diffusion/ceiling", 0.0)]
