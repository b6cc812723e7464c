"""Comparing at equal reach in the harness (issue 32, item 4).

The ``stop`` axis of the detection sweep and compare-detection, the per-point snapshot
step and reached share, the same bytes whatever the executor, the warnings for high
coverage (>= 50% of the component, a threshold tested at its edge) and for an unreached
target, the figure's mark, and bad values refused before anything runs.
"""

from __future__ import annotations

import json
import warnings

import pytest

from anonspread import harness
from anonspread.errors import InvalidParameterError
from anonspread.harness.coverage import (
    HIGH_COVERAGE,
    covered_points,
    unreached_points,
    warn_coverage,
)
from anonspread.harness.executors import DaskExecutor, InProcessExecutor, ProcessPoolExecutor
from anonspread.harness.experiment import with_overrides
from anonspread.harness.results import Table


def _sweep(**product):
    base = {"graph": "barabasi-albert", "graph.n": 200, "graph.m": 2,
            "protocol": ["random-diffusion", "adaptive-diffusion"], "estimator": ["jordan"], "T": [40]}
    return harness.compose("detection", product={**base, **product})


def _rows(res):
    return {(r["protocol"], r["stop"], r["metric"]): r for r in res.table.rows}


def test_stop_axis_records_the_snapshot_step_and_reach(tmp_path):
    exp = _sweep(stop=["infected:50"])
    res = harness.run(exp, trials=30, rng=5, out=tmp_path, workers=1, plot=False, progress=False)
    rows = _rows(res)
    for proto in ("random-diffusion", "adaptive-diffusion"):
        assert rows[proto, "infected:50", "reached"]["mean"] == 1.0
        assert rows[proto, "infected:50", "n_infected"]["mean"] >= 50
        assert 0 < rows[proto, "infected:50", "T_snapshot"]["mean"] < 40  # the cap is not the step
    # random diffusion gets there in fewer steps than adaptive diffusion
    assert (rows["random-diffusion", "infected:50", "T_snapshot"]["mean"]
            < rows["adaptive-diffusion", "infected:50", "T_snapshot"]["mean"])
    side = json.loads(res.paths["json"].read_text())
    assert side["unreached"] == [] and "stop" in side["parameters"]


def test_same_bytes_in_process_in_a_process_pool_and_on_dask(tmp_path):
    exp = _sweep(stop=["coverage:0.2"])
    a = harness.run(exp, trials=24, rng=9, out=tmp_path / "a", executor=InProcessExecutor(1),
                    plot=False, progress=False, batch_size=6)
    b = harness.run(exp, trials=24, rng=9, out=tmp_path / "b", executor=ProcessPoolExecutor(2),
                    plot=False, progress=False, batch_size=6)
    assert a.paths["csv"].read_bytes() == b.paths["csv"].read_bytes()
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        c = harness.run(exp, trials=24, rng=9, out=tmp_path / "c", plot=False, progress=False,
                        batch_size=6, executor=DaskExecutor(2, scheduler=cluster.scheduler_address))
    assert c.paths["csv"].read_bytes() == a.paths["csv"].read_bytes()


def test_unreached_target_is_warned_and_listed(tmp_path):
    exp = _sweep(stop=["infected:150"], T=[2])
    with pytest.warns(RuntimeWarning, match="not every trial attained") as caught:
        res = harness.run(exp, trials=10, rng=1, out=tmp_path, workers=1, plot=False, progress=False)
    assert sum("attained" in str(w.message) for w in caught) == 1
    assert {u["params"]["protocol"] for u in res.metadata["unreached"]} == {"random-diffusion",
                                                                          "adaptive-diffusion"}
    assert _rows(res)["adaptive-diffusion", "infected:150", "T_snapshot"]["mean"] == 2.0


def _table(coverage):
    return Table(params=("T",), param_types={"T": "int"}, rows=[
        {"T": t, "metric": "component_fraction", "n": 10, "mean": c, "stderr": 0.0,
         "ci_low": c, "ci_high": c} for t, c in enumerate(coverage)])


def test_coverage_warning_fires_at_the_threshold():
    assert HIGH_COVERAGE == 0.5
    table = _table([0.49999, 0.5, 0.97])
    assert [f["params"]["T"] for f in covered_points(table)] == [1, 2]
    with pytest.warns(RuntimeWarning, match=r"at 2 point\(s\) \(T=1 \(mean coverage 50%\); "
                                            r"T=2 \(mean coverage 97%\)\)"):
        warn_coverage("x", table)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_coverage("x", _table([0.1, 0.49999]))  # below: silent
    assert unreached_points(table) == []


def test_high_coverage_is_warned_and_marked_in_the_figure(tmp_path):
    exp = harness.compose("detection", product={
        "graph": "barabasi-albert", "graph.n": 60, "graph.m": 2, "protocol": "flooding",
        "estimator": ["jordan"], "T": [1, 3]})
    with pytest.warns(RuntimeWarning, match="most") as caught:
        res = harness.run(exp, trials=12, rng=3, out=tmp_path, workers=1, progress=False)
    msg = next(str(w.message) for w in caught if "most" in str(w.message))
    assert "T=3" in msg and "T=1 " not in msg
    assert [c["params"]["T"] for c in res.metadata["high_coverage"]] == [3]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = res.draw()
    FigureCanvasAgg(fig).draw()
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any(t == "most of the component covered (mean >= 50%)" for t in texts)
    hexes = [c for ax in fig.axes for c in ax.collections
             if len(c.get_offsets()) and c.get_offsets()[:, 0].tolist() == [3.0]
             and len(c.get_edgecolor()) and c.get_edgecolor()[0][:3].tolist() == [0, 0, 0]]
    assert hexes  # the T = 3 point is marked, the T = 1 point is not


@pytest.mark.parametrize("bad, match", [("infected:0", "K >= 1"), ("coverage:1.5", "0 < F <= 1"),
                                        ("spread:3", "'infected:K'")])
def test_bad_stop_values_are_refused_before_anything_runs(bad, match):
    with pytest.raises(InvalidParameterError, match=f"axis 'stop'.*{match}"):
        _sweep(stop=[bad])
    with pytest.raises(InvalidParameterError, match=f"axis 'stop'.*{match}"):
        with_overrides(harness.get_experiment("compare-detection"), {"stop": bad})


def test_compare_detection_takes_a_stop():
    exp = with_overrides(harness.get_experiment("compare-detection"),
                                 {"stop": ["infected:300", "coverage:0.25"]})
    assert exp.grid.product["stop"] == ["infected:300", "coverage:0.25"]
