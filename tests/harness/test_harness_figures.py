"""Figures carry their set-up (issue 23, item 3): the drawn texts are read back.

The title names the run and what it holds fixed (graph with n and m, components, trials),
axis labels are words, the one legend sits clear of every panel's data, zeros are drawn
at 0 (never dropped, never at their bound), detection panels show 1/E[N_T], saturated
points are ringed, and ``anonspread plot`` redraws with other axes from the CSV.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness import cli
from anonspread.harness.experiment import PlotSpec
from anonspread.harness.plots import SATURATED, choose_scale, draw

# detection per (protocol, T): "hide" finds the source only at T = 0, never after (an
# estimate of exactly 0), "leak" always; saturation at T = 3 for "leak" (every trial) and for
# "hide" (one trial in 200: below the 5% share that rings a point)
_DETECT = {"hide": {0: 1.0, 1: 0.0, 2: 0.0, 3: 0.0}, "leak": {0: 1.0, 1: 0.9, 2: 0.5, 3: 0.2}}


def _trials(params, n, rng):
    p = _DETECT[params["protocol"]][params["T"]]
    size = float(2 ** (params["T"] + 1))
    return {
        "detection": (rng.random(n) < p).astype(float),
        "n_infected": np.full(n, size),
        SATURATED: _saturated(params, n),
    }


def _saturated(params, n):
    out = np.full(n, float(params["protocol"] == "leak" and params["T"] == 3))
    if params["protocol"] == "hide" and params["T"] == 3:
        out[0] = 1.0
    return out


def _meta(points, seed):
    return {"graphs": [{"family": "toy", "parameters": {"n": 64},
                        "summary": {"n": 64, "m": 126, "components": 1}}]}


def _exp(**plot):
    return harness.Experiment(
        name="fig-setup", title="Does hiding work?", description="figure test",
        grid=harness.Grid(product={"graph": ["toy"], "graph.n": [64], "protocol": ["hide", "leak"],
                                   "estimator": ["ml"], "T": [0, 1, 2, 3]}),
        metrics=(harness.Metric("detection", "proportion", "P(detect source)"),
                 harness.Metric("n_infected", "mean", "E[N_T]", low=1.0),
                 harness.Metric(SATURATED, "proportion", "P(covered component)")),
        trials=_trials, default_trials=200, metadata=_meta,
        axes={"T": harness.Param("int", low=0, doc="steps of the spread")},
        plot=PlotSpec(x="T", series="protocol", y=("detection", "n_infected"), **plot))


res_warnings: list = []


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = harness.run(_exp(), rng=3, out=tmp_path_factory.mktemp("fig"), workers=1)
    res_warnings.extend(caught)
    return out


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def test_title_names_the_run_and_what_is_held_fixed(res):
    fig = _drawn(res.draw())
    title = fig._suptitle.get_text().replace("\n", " ")
    assert title.startswith("fig-setup: Does hiding work?")
    for part in ("graph toy(n=64): n = 64, m = 126", "estimator ml", "200 trials per point"):
        assert part in title, (part, title)
    assert "protocol" not in title.split(";")[0]  # it varies: it is in the legend, not the title


def test_axis_labels_are_words(res):
    fig = _drawn(res.draw())
    det, size = fig.axes
    assert det.get_ylabel() == "P(detect source)" and size.get_ylabel() == "E[N_T]"
    assert det.get_xlabel() == "steps of the spread (T)"


def test_one_legend_clear_of_every_panels_data(res):
    fig = _drawn(res.draw())
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
    renderer = fig.canvas.get_renderer()
    box = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer)), "legend on a panel"
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert fig.legends[0].get_title().get_text() == "protocol"
    assert texts[:2] == ["hide", "leak"]
    # hide and leak infect alike (2^(T+1) nodes): one uniform-guess curve, said to be theirs (issue 34)
    assert [t for t in texts if "1/E[N_T]" in t] == ["uniform guess 1/E[N_T]: the same for every series"]
    assert any(t.startswith("saturated") for t in texts)


def test_zero_estimates_are_drawn_at_zero_with_their_interval(res):
    fig = _drawn(res.draw())
    det = fig.axes[0]
    hide = next(ln for ln in det.get_lines() if ln.get_label() == "hide")
    assert list(hide.get_xdata()) == [0, 1, 2, 3]  # no point dropped
    assert list(hide.get_ydata()) == [1.0, 0.0, 0.0, 0.0]  # at 0, not at the upper bound
    # detection spans 0 .. 1 with values near 0.2: positive values do not span two decades,
    # so the axis stays linear and the band reaches from 0 to the Wilson bound
    rows = res.table.where(protocol="hide", T=1, metric="detection")
    assert rows[0]["ci_high"] > 0.01
    bands = [c for c in det.collections if hasattr(c, "get_paths") and len(c.get_paths())]
    assert any(np.isclose(p.vertices[:, 1].max(), 1.0) for c in bands for p in c.get_paths())


def test_less_than_two_decades_stays_linear(res):
    fig = _drawn(res.draw())
    assert fig.axes[1].get_yscale() == "linear"  # E[N_T] from 2 to 16


def test_scale_choice():
    assert choose_scale([0.001, 0.5], None) == ("log", None)
    assert choose_scale([0.0, 0.001, 0.5], None) == ("symlog", 0.001)
    assert choose_scale([0.0, 0.0004, 0.5], True) == ("symlog", 0.0001)
    assert choose_scale([0.1, 0.5], None) == ("linear", None)
    assert choose_scale([0.001, 0.5], False) == ("linear", None)
    assert choose_scale([-1.0, 0.001, 0.5], None) == ("linear", None)


def test_uniform_guess_and_saturated_marks(res):
    fig = _drawn(res.draw())
    det = fig.axes[0]
    refs = [list(ln.get_ydata()) for ln in det.get_lines()
            if ln.get_label().startswith("_reference: 1/E[N_T]")]
    assert [1 / 2, 1 / 4, 1 / 8, 1 / 16] in refs  # 1/E[N_T] = 2^-(T+1)
    rings = [c for c in det.collections if len(c.get_offsets()) and len(c.get_edgecolor())
             and np.allclose(c.get_edgecolor()[:, :3], [1, 0, 0])]
    leak = res.table.where(protocol="leak", T=3, metric="detection")[0]["mean"]
    # "hide" at T = 3 saturated in 1 of 200 trials: listed in the JSON, not ringed (< 5%)
    assert res.table.where(protocol="hide", T=3, metric=SATURATED)[0]["mean"] == 1 / 200
    assert {tuple(s["params"].values())[2:5:2] for s in res.metadata["saturated"]} == {("hide", 3), ("leak", 3)}
    assert len(rings) == 1 and rings[0].get_offsets().tolist() == [[3.0, leak]]
    warned = [str(w.message) for w in res_warnings]
    assert any("protocol=hide, T=3 (0.5% of trials); protocol=leak, T=3 (100% of trials)" in w for w in warned)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any(t.startswith("saturated: in >= 5% of its trials") for t in texts), texts


def test_saturation_ring_threshold_is_a_share_of_trials():
    from anonspread.harness.plots import SATURATED_SHARE
    from anonspread.harness.results import Table

    def table(share):
        rows = []
        for m, v in (("detection", 0.5), (SATURATED, share)):
            rows.append({"T": 1, "metric": m, "n": 100, "mean": v, "stderr": 0.0, "ci_low": v, "ci_high": v})
        return Table(("T",), {"T": "int"}, rows)

    def rings(share):
        fig = _drawn(draw(table(share), PlotSpec(x="T", y=("detection",))))
        return [c for c in fig.axes[0].collections if len(c.get_offsets()) and len(c.get_edgecolor())
                and np.allclose(c.get_edgecolor()[:, :3], [1, 0, 0])]

    assert SATURATED_SHARE == 0.05
    assert rings(0.04) == [] and rings(0.0) == []
    assert len(rings(0.05)) == 1 and len(rings(1.0)) == 1


def test_log_x_keeps_the_zero_point_and_says_how(res):
    spec = PlotSpec(x="T", series="protocol", y=("detection",), logx=True, logy=True)
    fig = _drawn(draw(res.table, spec, info=res.metadata))
    ax = fig.axes[0]
    assert ax.get_xscale() == "symlog" and ax.get_yscale() == "symlog"
    hide = next(ln for ln in ax.get_lines() if ln.get_label() == "hide")
    assert list(hide.get_xdata()) == [0, 1, 2, 3] and 0.0 in list(hide.get_ydata())
    title = fig._suptitle.get_text().replace("\n", " ")
    assert "every 0 is drawn at 0, no point is dropped" in title


def test_cli_plot_redraws_with_other_axes(res, monkeypatch, capsys):
    from anonspread.harness import plots

    seen = {}
    real = plots.plot_table

    def spy(table, spec, path, **kw):
        seen.update(spec=spec, **kw)
        return real(table, spec, path, **kw)

    monkeypatch.setattr(plots, "plot_table", spy)
    out = res.paths["csv"].with_name("redrawn.png")
    rc = cli.main(["plot", str(res.paths["csv"]), "--x", "T", "--series", "protocol", "--metric",
                   "detection", "--logy", "--no-logx", "--title", "Hiding on a toy graph",
                   "--output", str(out)])
    assert rc == 0 and out.exists()
    spec = seen["spec"]
    assert (spec.x, spec.series, spec.y, spec.logy, spec.logx) == ("T", "protocol", ("detection",), True, False)
    assert seen["title"] == "Hiding on a toy graph"
    fig = _drawn(draw(res.table, spec, title=seen["title"], info=seen["info"]))
    assert fig._suptitle.get_text().startswith("Hiding on a toy graph\n")
    assert fig.axes[0].get_yscale() == "symlog"  # asked for log; zeros kept at 0


@pytest.mark.parametrize(("args", "message"), [
    (["--x", "nope"], "--x must be one of the table's parameters"),
    (["--metric", "hops"], "--metric must be among the table's metrics"),
    (["--series", "eps"], "--series must be one of the table's parameters"),
])
def test_cli_plot_refuses_unknown_axes(res, capsys, args, message):
    assert cli.main(["plot", str(res.paths["csv"]), *args]) == 2
    assert message in capsys.readouterr().err


def test_points_that_do_not_apply_are_named_in_the_title(res):
    info = {**res.metadata, "skipped": [
        {"params": {"protocol": "flood", "estimator": "ml", "T": t}, "reason": "ml assumes adaptive diffusion"}
        for t in (0, 1, 2, 3, 4, 5)]}
    fig = _drawn(draw(res.table, res.experiment.plot_spec(), info=info))
    title = fig._suptitle.get_text().replace("\n", " ")
    # one line for the reason, not one per point (issue 34)
    assert "skipped: protocol flood with estimator ml at T = 0, 1, 2, 3, 4, 5 (ml assumes adaptive diffusion)" in title
    assert title.count("skipped") == 1


def _bands(ax):
    return [p for c in ax.collections if type(c).__name__ in ("PolyCollection", "FillBetweenPolyCollection")
            for p in c.get_paths() if len(p.vertices)]


def test_zero_estimates_on_a_log_axis_show_their_upper_bound_not_a_band(res):
    # an interval [0, 0.019] drawn as a band on a log axis fills every decade below 0.019
    # and reads as data: there the upper end is drawn as an arrow down from it, named in
    # the legend, and no band reaches down to 0
    spec = PlotSpec(x="T", series="protocol", y=("detection",), logy=True)
    fig = _drawn(draw(res.table, spec, info=res.metadata))
    ax = fig.axes[0]
    assert ax.get_yscale() == "symlog"
    assert all(p.vertices[:, 1].min() > 0 for p in _bands(ax)), "a band reaches 0 on a log axis"
    hide = [r for r in res.table.where(protocol="hide", metric="detection") if r["mean"] == 0.0]
    assert [r["T"] for r in hide] == [1, 2, 3]
    bounds = [ln for ln in ax.get_lines() if ln.get_label() == "_upper end of a 95% interval"]
    assert len(bounds) == 1
    assert list(bounds[0].get_xdata()) == [1, 2, 3]
    assert np.allclose(bounds[0].get_ydata(), [r["ci_high"] for r in hide])
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "upper end of a 95% interval reaching 0" in texts
    # the same run on a linear axis keeps its bands from 0 and draws no bound
    lin = _drawn(draw(res.table, PlotSpec(x="T", series="protocol", y=("detection",), logy=False),
                      info=res.metadata)).axes[0]
    assert any(np.isclose(p.vertices[:, 1].min(), 0.0) for p in _bands(lin))
    assert not [ln for ln in lin.get_lines() if ln.get_label().startswith("_upper end")]


def test_a_log_axis_draws_intervals_reaching_decades_below_the_estimate_as_bars():
    from anonspread.harness.results import Table

    # a series at 1e-3 with intervals [1e-5, 1e-2] (reaching two decades below it) and one at
    # 0.3 +- 0.05
    rows = []
    for t in (1, 2, 3):
        rows.append({"T": t, "who": "rare", "metric": "y", "n": 100, "mean": 1e-3, "stderr": 0.0,
                     "ci_low": 1e-5, "ci_high": 1e-2})
        rows.append({"T": t, "who": "common", "metric": "y", "n": 100, "mean": 0.3, "stderr": 0.0,
                     "ci_low": 0.25, "ci_high": 0.35})
    table = Table(("T", "who"), {"T": "int", "who": "str"}, rows)
    ax = _drawn(draw(table, PlotSpec(x="T", series="who", y=("y",), logy=True))).axes[0]
    assert ax.get_yscale() == "log"
    bands = _bands(ax)
    assert bands and all(p.vertices[:, 1].min() >= 0.25 - 1e-12 for p in bands)  # only "common"
    bars = [c for c in ax.collections if type(c).__name__ == "LineCollection"]
    segs = [s for c in bars for s in c.get_segments()]
    assert np.allclose(sorted((s[0][0], s[0][1], s[1][1]) for s in segs), [(t, 1e-5, 1e-2) for t in (1, 2, 3)])
    # on a linear axis both are bands, as before
    lin = _drawn(draw(table, PlotSpec(x="T", series="who", y=("y",), logy=False))).axes[0]
    assert len(_bands(lin)) == 2 and not [c for c in lin.collections if type(c).__name__ == "LineCollection"]


def test_a_series_has_one_colour_and_style_in_every_panel():
    # 12 series drawn in the first panel, 10 of them in the second (like `strongest`, which
    # has no hops): the legend is shared, so each series must look the same in both panels
    # (the second panel used to restart the colours: the default cycle there, a colour map
    # in the first)
    from anonspread.harness.results import Table

    rows = []
    for k in range(12):
        for T in (1, 2):
            for m, v in (("detection", 0.05 * k + 0.01 * T), ("hops", 0.1 * k + T)):
                if m == "hops" and k in (3, 7):
                    continue
                rows.append({"protocol": f"p{k}", "T": T, "metric": m, "n": 100, "mean": v,
                             "stderr": 0.0, "ci_low": v, "ci_high": v})
    table = Table(("protocol", "T"), {"protocol": "str", "T": "int"}, rows)
    fig = _drawn(draw(table, PlotSpec(x="T", series="protocol", y=("detection", "hops"))))
    look = [{ln.get_label(): (tuple(ln.get_color()) if not isinstance(ln.get_color(), str)
                              else ln.get_color(), ln.get_marker(), ln.get_linestyle())
             for ln in ax.get_lines() if ln.get_label().startswith("p")} for ax in fig.axes[:2]]
    assert len(look[0]) == 12 and len(look[1]) == 10
    for label, style in look[1].items():
        assert look[0][label] == style, label
    assert len({v[0] for v in look[0].values()}) == 12  # and they stay distinct


def test_a_point_at_fewer_T_shares_its_protocols_uniform_guess():
    """A ceiling computed at T = 2 only (not at 3) takes E[N_T] from its protocol's
    estimators: its uniform guess lies on theirs, so it is one curve with one legend entry,
    not a one-point dotted curve (invisible) with an entry of its own."""
    from anonspread.harness.results import Table

    rows = []
    for est in ("jordan", "bp", "ceiling"):
        for T in (2, 3):
            if est == "ceiling" and T == 3:
                continue
            rows.append({"estimator": est, "T": T, "metric": "detection", "n": 200,
                         "mean": 0.1 * T, "stderr": 0.0, "ci_low": 0.1 * T, "ci_high": 0.1 * T})
            if est != "ceiling":
                rows.append({"estimator": est, "T": T, "metric": "n_infected", "n": 200,
                             "mean": 5.0 * T, "stderr": 0.0, "ci_low": 5.0 * T, "ci_high": 5.0 * T})
    table = Table(("estimator", "T"), {"estimator": "str", "T": "int"}, rows)
    fig = _drawn(draw(table, PlotSpec(x="T", series="estimator", y=("detection",))))
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert [t for t in texts if "1/E[N_T]" in t] == ["uniform guess 1/E[N_T]: the same for every series"]
    guess = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("_reference")]
    assert len(guess) == 1 and list(guess[0].get_xdata()) == [2, 3]
