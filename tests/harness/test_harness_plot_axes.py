"""Line figures: axis labels, readable log ticks, coinciding series kept visible."""

from __future__ import annotations

from anonspread import harness
from anonspread.harness.experiment import PlotSpec
from anonspread.harness.plots import draw

FEW = [0.02, 0.05, 0.1, 0.2, 0.3]
MANY = [0.02, 0.04, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.45, 0.5]


def _exp(fractions, spec):
    # two families that coincide exactly ("a" and "b") and one above them
    def evaluate(p):
        f = p["fraction"]
        return {"y": f * f if p["who"] in ("a", "b") else f}

    return harness.Experiment(
        name="test-plot-axes", title="axes", description="log axes",
        grid=harness.Grid(product={"who": ["a", "b", "c"], "fraction": fractions}),
        metrics=(harness.Metric("y", "mean", "expected precision"),),
        evaluate=evaluate, plot=spec)


def _labels_in_view(ax, which):
    ax.figure.canvas.draw()
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    ticks = ax.get_xticklabels() if which == "x" else ax.get_yticklabels()
    pos = 0 if which == "x" else 1
    return [t.get_text() for t in ticks if lo <= t.get_position()[pos] <= hi and t.get_text()]


def _draw(tmp_path, fractions, **kw):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    spec = PlotSpec(x="fraction", series="who", logx=True, logy=True, **kw)
    res = harness.run(_exp(fractions, spec), out=tmp_path, plot=False, workers=1)
    fig = draw(res.table, res.experiment.plot_spec(), labels={"y": "expected precision"})
    FigureCanvasAgg(fig)
    return fig.axes[0]


def test_xlabel_and_few_grid_values_label_the_log_axis(tmp_path):
    ax = _draw(tmp_path, FEW, xlabel="spy fraction p")
    assert ax.get_xlabel() == "spy fraction p"
    assert _labels_in_view(ax, "x") == ["0.02", "0.05", "0.1", "0.2", "0.3"]
    # y spans 4e-4 .. 0.3 (about 3 decades): plain numbers, at least one per decade
    ys = _labels_in_view(ax, "y")
    assert len(ys) >= 3 and all("e" not in t and "$" not in t for t in ys), ys
    assert {"0.001", "0.01", "0.1"} <= set(ys)


def test_many_grid_values_get_1_2_5_ticks_and_the_axis_name_by_default(tmp_path):
    ax = _draw(tmp_path, MANY)
    assert ax.get_xlabel() == "fraction"
    assert _labels_in_view(ax, "x") == ["0.02", "0.05", "0.1", "0.2", "0.5"]


def test_coinciding_series_stay_visible(tmp_path):
    ax = _draw(tmp_path, FEW)
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    a, b = lines["a"], lines["b"]  # the legend's title names the parameter: who
    assert list(a.get_ydata()) == list(b.get_ydata())  # they coincide exactly
    # drawn first: hollow and larger, with another shape and line style than the later one
    assert a.get_marker() != b.get_marker() and a.get_linestyle() != b.get_linestyle()
    assert a.get_markerfacecolor() == "none" and a.get_markersize() > b.get_markersize()


def test_xlabel_survives_the_result_json():
    spec = PlotSpec(x="fraction", xlabel="spy fraction p", logx=True)
    assert PlotSpec.from_dict(spec.to_dict()).xlabel == "spy fraction p"
    assert PlotSpec.from_dict({"x": "fraction"}).xlabel == ""
