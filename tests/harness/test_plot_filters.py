"""Figures and filters (issue 34, item 5): ``plot --where`` keeps rows, near misses are refused
with a suggestion, skipped points take one title line per reason, each uniform-guess curve
has its own legend entry in its series' colour, graph-family parameters are named in words.

One small real detection sweep (two protocols, three estimators with ``strongest``, a graph
parameter as an axis) is run once; the figures are drawn and their texts read back.
"""

from __future__ import annotations

import dataclasses
import io
import warnings

import matplotlib.colors as mcolors
import pytest

from anonspread import harness
from anonspread.errors import InvalidParameterError
from anonspread.harness import cli
from anonspread.harness import plots as plots_mod
from anonspread.harness.plots import draw, param_words, skipped_words
from anonspread.harness.results import keep_rows, read_sidecar, read_table


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    exp = harness.compose("detection", product={
        "graph": ["watts-strogatz"], "graph.n": [40], "graph.p": [0.1, 0.3],
        "protocol": ["adaptive-diffusion", "random-diffusion"],
        "estimator": ["ml", "jordan", "strongest"], "T": [2, 3]}, name="filters")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # saturation on a 40-node graph: not what is tested here
        return harness.run(exp, trials=40, rng=1, out=tmp_path_factory.mktemp("filters"), workers=1,
                           progress=False)


def _drawn(fig):
    fig.canvas.draw()  # lays the text out, as savefig does
    return fig


def _legend(fig):
    return [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else []


# --------------------------------------------------------------------------- --where


def test_where_keeps_the_matching_rows_and_their_notes(run):
    t = keep_rows(run.table, {"estimator": "strongest"})
    assert {r["estimator"] for r in t.rows} == {"strongest"}
    assert {r["metric"] for r in t.rows} == {"detection"}  # a strongest attack reports detection
    assert len(t.rows) == 2 * 2 * 2  # protocols x T x graph.p
    assert t.derived and all(d["params"]["estimator"] == "strongest" for d in t.derived)
    assert not t.skipped  # ml's skipped points (random diffusion) are not strongest's
    both = keep_rows(run.table, {"protocol": ["adaptive-diffusion"], "T": "3", "graph.p": ["0.3"]})
    assert {(r["protocol"], r["T"], r["graph.p"]) for r in both.rows} == {("adaptive-diffusion", 3, 0.3)}
    assert run.table.rows and len(run.table.rows) > len(both.rows)  # the run's table is unchanged


@pytest.mark.parametrize(("where", "message"), [
    ({"estimater": "ml"}, "where: unknown parameter 'estimater'; the table's parameters are"),
    ({"estimater": "ml"}, "did you mean 'estimator'?"),
    ({"estimator": "ML"}, "where: no row has estimator='ML' (estimator takes 'ml', 'jordan', 'strongest'); "
                          "did you mean 'ml'?"),
    ({"T": 5}, "where: no row has T='5' (T takes 2, 3)"),
    ({"metric": "detection"}, "choose metrics with --metric"),
    ({"estimator": "ml", "protocol": "random-diffusion"},
     "where: no row has estimator=ml and protocol=random-diffusion together"),
])
def test_where_refuses_near_misses(run, where, message):
    with pytest.raises(InvalidParameterError) as err:
        keep_rows(run.table, where)
    assert message in str(err.value)


def test_cli_plot_where(run, tmp_path, capsys):
    csv = str(run.paths["csv"])
    out = tmp_path / "strongest.png"
    assert cli.main(["plot", csv, "--where", "estimator=strongest", "--output", str(out)]) == 0
    assert out.exists() and f"wrote {out}" in capsys.readouterr().out
    for args, message in [
        (["--where", "estimator=Strongest"], "did you mean 'strongest'?"),
        (["--where", "estimator"], "--where must be KEY=V[,V...]"),
        (["--where", "T=2", "--where", "T=3"], "--where T is given twice"),
        (["--where", "estimator=strongest", "--metric", "hops"],
         "where: the rows kept (estimator=strongest) have none of the figure's metrics ['hops']"),
        (["--metric", "detectoin"], "got 'detectoin'; did you mean 'detection'?"),
    ]:
        assert cli.main(["plot", csv, *args, "--output", str(tmp_path / "x.png")]) == 2, args
        assert message in capsys.readouterr().err, args


def test_where_in_python_draws_only_those_series(run):
    fig = _drawn(run.draw(where={"estimator": "strongest"}))
    legend = _legend(fig)
    series = [t for t in legend if not t.startswith("uniform guess")]
    assert len(series) == 4 and all("chosen:" in t for t in series), legend
    assert len(fig.axes) == 1  # detection only: the metrics the kept rows lack are left out
    assert "estimator strongest" in fig._suptitle.get_text().replace("\n", " ")


# --------------------------------------------------------------------------- legends and words


def test_one_uniform_guess_entry_per_curve_in_its_series_colour(run):
    fig = _drawn(run.draw(where={"estimator": "strongest"}))
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    guesses = [t for t in _legend(fig) if t.startswith("uniform guess 1/E[N_T]: ")]
    # one per (protocol, graph.p) series, each named after it: E[N_T] comes from the
    # protocol's other estimators, which scored the same spreads
    assert sorted(g.partition(": ")[2] for g in guesses) == sorted(
        f"{p} / {q}" for p in ("adaptive-diffusion", "random-diffusion") for q in (0.1, 0.3)), guesses
    handles = dict(zip(_legend(fig), fig.legends[0].legend_handles))
    for g in guesses:
        series = next(lab for lab in lines if lab.split("\n")[0] == g.partition(": ")[2])
        assert mcolors.same_color(handles[g].get_color(), lines[series].get_color()), g


def test_shared_uniform_guess_curves_say_what_they_belong_to(run):
    fig = _drawn(run.draw())
    guesses = [t for t in _legend(fig) if t.startswith("uniform guess 1/E[N_T]")]
    # every estimator of a protocol shares its 1/E[N_T]: one curve per (protocol, p), in grey
    assert sorted(guesses) == sorted(f"uniform guess 1/E[N_T]: {p}, p = {q}"
                                     for p in ("adaptive-diffusion", "random-diffusion") for q in (0.1, 0.3))
    refs = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("_reference")]
    assert len(refs) == 4
    series_colours = [ln.get_color() for ln in fig.axes[0].get_lines() if not ln.get_label().startswith("_")]
    assert not any(mcolors.same_color(r.get_color(), c) for r in refs for c in series_colours)


def test_graph_family_parameters_in_words(run):
    side = read_sidecar(run.paths["csv"])
    assert param_words("graph.p", side, short=True) == "rewiring probability p"
    assert param_words("graph.p", side) == "rewiring probability p (graph.p)"
    fig = _drawn(run.draw())
    assert fig.legends[0].get_title().get_text().endswith("/ rewiring probability p")
    x_fig = _drawn(draw(run.table, dataclasses.replace(run.experiment.plot_spec(), x="graph.p"), info=side))
    assert x_fig.axes[0].get_xlabel() == "rewiring probability p (graph.p)"
    # an older run's JSON without the description: the registry's is used
    old = {k: v for k, v in side.items() if k != "parameter_docs"}
    assert param_words("graph.p", old, short=True) == "rewiring probability p"


def test_skipped_points_one_line_per_reason(run):
    table = read_table(run.paths["csv"])
    text = skipped_words(table, read_sidecar(run.paths["csv"]))
    assert text.count("\n") == 0 and text.startswith(
        "skipped: protocol random-diffusion with estimator ml at T = 2, 3 and rewiring probability p = 0.1, 0.3 ("), text
    many = [{"params": {"protocol": "flood", "estimator": "soft-margin", "T": t}, "reason": "too big"}
            for t in (6, 8)]
    many += [{"params": {"protocol": "flood", "estimator": "bp", "T": t, "graph.p": p}, "reason": "odd"}
             for t, p in ((2, 0.1), (3, 0.3))]
    lines = skipped_words(dataclasses.replace(table, skipped=tuple(many)), {}).splitlines()
    assert lines == ["skipped: protocol flood with estimator soft-margin at T = 6, 8 (too big)",
                     "skipped: protocol flood with estimator bp at (T = 2, graph.p = 0.1), (T = 3, graph.p = 0.3) (odd)"]


def test_long_skip_reasons_are_cut_grouped_and_never_cover_the_panels(run):
    # the issue-31 sweep's figure: the ceiling's reasons are paragraphs that differ per T
    # only in their details; its title used to run over the panels
    table = read_table(run.paths["csv"])
    long = ("Bayes ceiling not computed: bayes_ceiling cannot run for RandomDiffusion(p=0.5) "
            "at T={t} on ContactGraph(n=498, m=2299): exact enumeration does not fit: the exact "
            "enumeration from node 0 must stay under max_states; and the snapshots reach {n} "
            "infected nodes")
    many = [{"params": {"protocol": "random-diffusion", "estimator": "ceiling", "T": t},
             "reason": long.format(t=t, n=60 * t)} for t in (2, 3)]
    many += [{"params": {"protocol": "adaptive-diffusion", "estimator": "bp", "T": t},
              "reason": "estimator 'bp' assumes a protocol in ['flooding', 'random-diffusion']; got "
                        "AdaptiveDiffusion(d0=inf, max_infections_per_step=3)"} for t in (2, 3)]
    lines = skipped_words(dataclasses.replace(table, skipped=tuple(many)), {}).splitlines()
    assert lines == [
        "skipped: protocol random-diffusion with estimator ceiling at T = 2, 3 (Bayes ceiling not computed)",
        "skipped: protocol adaptive-diffusion with estimator bp at T = 2, 3 (estimator 'bp' assumes "
        "a protocol in ['flooding', 'random-diffusion'])",
        "(each reason in full: the run's output and its JSON's 'skipped')"]
    assert all(len(r) <= 100 for r in (plots_mod._short_reason(m["reason"]) for m in many))
    assert plots_mod._short_reason("short; as it is") == "short; as it is"
    # many reasons: the figure grows, the title stays above the panels and the legend below
    lots = many + [{"params": {"protocol": "random-diffusion", "estimator": "rumor", "T": t},
                    "reason": f"reason number {t} " + "word " * 30} for t in range(2, 12)]
    side = read_sidecar(run.paths["csv"])
    fig = draw(dataclasses.replace(table, skipped=tuple(lots)), run.experiment.plot_spec(), info=side)
    fig.savefig(io.BytesIO(), format="png")  # lays the figure out as a written one is
    title = fig._suptitle.get_window_extent()
    legend = fig.legends[0].get_window_extent()
    for ax in fig.axes:
        box = ax.get_tightbbox()
        assert title.y0 >= box.y1 - 1, "the title runs over a panel"
        assert legend.y1 <= box.y0 + 1, "the legend covers a panel"
    assert title.y1 <= fig.bbox.y1 + 1 and legend.y0 >= -1  # nothing cut off


def test_case_of_a_name_is_suggested_not_folded():
    with pytest.raises(harness.UnknownNameError, match="did you mean 'ml'"):
        harness.compose("detection", product={"graph": ["regular-3"], "protocol": ["adaptive-diffusion"],
                                              "estimator": ["ML"], "T": [2]})
