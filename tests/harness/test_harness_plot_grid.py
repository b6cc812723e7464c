"""Faceted figures with a categorical x: no lines join categories; theory and references drawn."""

from __future__ import annotations

import math

import matplotlib
import numpy as np

from anonspread import harness
from anonspread.harness.experiment import PlotSpec, Reference, Theory
from anonspread.harness.plots import draw


def _trials(params, n, rng):
    p = {"a": 0.2, "b": 0.6}[params["est"]] * (1 if params["g"] == "x" else 0.5)
    hits = (rng.random(n) < p).astype(float)
    return {"det": hits, "size": np.full(n, 4.0 if params["proto"] == "p1" else 8.0)}


def _exp(point_trials=None):
    return harness.Experiment(
        name="test-grid-plot", title="grid", description="categorical x, facets",
        grid=harness.Grid(product={"g": ["x", "y"], "proto": ["p1", "p2"], "est": ["a", "b"]}),
        metrics=(harness.Metric("det", "proportion"), harness.Metric("size", "mean")),
        trials=_trials, default_trials=200, batch_size=50, point_trials=point_trials,
        plot=PlotSpec(x="est", series="proto", facet="g", y=("det", "size"), logy=True,
                      theory=(Theory("det", lambda p: 0.2 if p["est"] == "a" and p["g"] == "x" else math.nan,
                                     "exact"),),
                      references=(Reference("det", lambda p, m: 1 / m["size"], "1/size"),)))


def test_categorical_facets_have_no_joining_lines(tmp_path):
    res = harness.run(_exp(), rng=1, out=tmp_path, workers=1)
    fig = draw(res.table, res.experiment.plot_spec(), title="t")
    axes = fig.axes
    assert len(axes) == 4  # 2 metrics x 2 facets
    for ax in axes:
        for line in ax.get_lines():
            xs = line.get_xdata()
            # errorbar data lines have no line style; only error-bar segments remain
            assert line.get_linestyle() in ("None", "none", "") or len(xs) <= 2, line
        assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    assert [ax.get_title() for ax in axes[:2]] == ["g = x", "g = y"]  # the facet parameter named
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["p1", "p2", "theory: exact", "1/size, x in each series' colour"]
    # theory bar and reference crosses are drawn where they apply
    det_x = axes[0]
    offsets = np.concatenate([c.get_offsets() for c in det_x.collections if len(c.get_offsets())])
    assert np.any(np.isclose(offsets[:, 1], 0.2)) and np.any(np.isclose(offsets[:, 1], 0.25))
    # each series' reference crosses are drawn in that series' colour (whose guess it is)
    series = {tuple(np.round(h.lines[0].get_color() if not isinstance(h.lines[0].get_color(), str)
                             else matplotlib.colors.to_rgba(h.lines[0].get_color()), 6))
              for h in det_x.containers}
    crosses = [c for c in det_x.collections if len(c.get_offsets()) and c.get_paths()
               and len(c.get_facecolor()) and c.get_linewidths()[0] == 1.2]
    assert crosses and {tuple(np.round(c.get_edgecolor()[0], 6)) for c in crosses} <= series
    assert res.figure.exists()


def test_point_trials_sets_trials_per_point(tmp_path):
    res = harness.run(_exp(lambda p, t: t // 4 if p["g"] == "y" else t), trials=200, rng=1,
                      out=tmp_path, workers=1, plot=False)
    n = {(r["g"], r["metric"]): r["n"] for r in res.table.rows}
    assert n[("x", "det")] == 200 and n[("y", "det")] == 50


def _zero_table():
    from anonspread.harness.results import Table

    rows = []
    for g in ("x", "y"):
        for est in ("a", "b"):
            for proto, m, lo, hi in (("p1", 0.0, 0.0, 0.019), ("p2", 0.4, 0.33, 0.47)):
                rows.append({"g": g, "est": est, "proto": proto, "metric": "det", "n": 200, "mean": m,
                             "stderr": 0.0, "ci_low": lo, "ci_high": hi})
    return Table(("g", "est", "proto"), {"g": "str", "est": "str", "proto": "str"}, rows)


def _bar_spans(ax):
    return sorted((round(s[0][1], 6), round(s[1][1], 6)) for c in ax.collections
                  if type(c).__name__ == "LineCollection" for s in c.get_segments())


def test_log_rows_draw_zero_estimates_as_their_upper_bound():
    # on a log row a bar from 0 to 0.019 fills the lower decades: only its upper end is
    # drawn (an arrow down from the bound); the estimate stays at 0
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    spec = PlotSpec(x="est", series="proto", facet="g", y=("det",), logy=True)
    fig = draw(_zero_table(), spec)
    FigureCanvasAgg(fig).draw()
    for ax in fig.axes:
        assert ax.get_yscale() == "symlog"
        assert _bar_spans(ax) == [(0.33, 0.47), (0.33, 0.47)]  # p2's bars only
        bounds = [ln for ln in ax.get_lines() if ln.get_label() == "_upper end of a 95% interval"]
        assert len(bounds) == 1 and np.allclose(bounds[0].get_ydata(), [0.019, 0.019])
        p1 = [ln for ln in ax.get_lines() if ln.get_label().startswith("_") and len(ln.get_ydata()) == 2
              and np.allclose(ln.get_ydata(), 0.0)]
        assert p1, "the estimates of 0 are drawn at 0"
    assert "upper end of a 95% interval reaching 0" in [t.get_text() for t in fig.legends[0].get_texts()]
    # a linear row keeps the whole bars
    lin = draw(_zero_table(), PlotSpec(x="est", series="proto", facet="g", y=("det",), logy=False))
    assert _bar_spans(lin.axes[0]) == [(0.0, 0.019), (0.0, 0.019), (0.33, 0.47), (0.33, 0.47)]
