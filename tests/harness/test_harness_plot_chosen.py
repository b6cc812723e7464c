"""The strongest attack's choices are named in the legend, never on the data (issue 23).

Written beside each point, the names of several strongest series collided at the top left
and where curves meet, and the last one ran past the axes frame; in the series' legend
entry they cannot.
"""

from __future__ import annotations

import warnings

import networkx as nx
import pytest

from anonspread import harness
from anonspread.harness.experiment import PlotSpec
from anonspread.harness.plots import _chosen_words, draw
from anonspread.harness.results import Table


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


def _texts_clear(fig):
    """The title, axis labels, panel texts and legend entries all inside the figure, and
    no panel text on another or on the legend."""
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox
    legend = fig.legends[0]
    texts = [fig._suptitle, legend.get_title(), *legend.get_texts()]
    for ax in fig.axes:
        texts += [ax.xaxis.label, ax.yaxis.label, ax.title, *ax.texts]
    for t in texts:
        if t is None or not t.get_text().strip():
            continue
        box = t.get_window_extent(renderer)
        assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1, f"{t.get_text()!r} cut off"
        assert frame.y0 - 1 <= box.y0 and box.y1 <= frame.y1 + 1, f"{t.get_text()!r} cut off"
    inner = [t.get_window_extent(renderer) for ax in fig.axes for t in ax.texts]
    legend_box = legend.get_window_extent(renderer)
    for i, box in enumerate(inner):
        assert not box.overlaps(legend_box)
        assert not any(box.overlaps(other) for other in inner[i + 1:])


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    # the report's set-up, smaller: three protocols, each with a strongest series, on a
    # Watts-Strogatz contact list with string names
    out = tmp_path_factory.mktemp("chosen")
    graph = nx.connected_watts_strogatz_graph(80, 6, 0.1, seed=1)
    path = out / "contacts.csv"
    path.write_text("src,dst\n" + "".join(f"n{u},n{v}\n" for u, v in graph.edges()))
    exp = harness.compose("detection", product={
        "graph": ["edgelist"], "graph.path": [str(path)], "graph.header": [True],
        "graph.nodetype": ["str"], "protocol": ["adaptive-diffusion", "random-diffusion", "flooding"],
        "T": [2, 4, 6]})
    with warnings.catch_warnings():  # flooding covers the graph at T = 6: the run says so
        warnings.simplefilter("ignore", RuntimeWarning)
        return harness.run(exp, trials=40, rng=3, out=out, workers=1, progress=False)


def test_chosen_attacks_are_in_the_legend_not_beside_the_points(sweep):
    derived = sweep.table.derived
    assert len(derived) == 9  # a strongest point per protocol and T
    fig = _drawn(sweep.draw())
    assert all(not ax.texts for ax in fig.axes), [t.get_text() for ax in fig.axes for t in ax.texts]
    entries = [t.get_text() for t in fig.legends[0].get_texts()]
    named = [e for e in entries if "\nchosen: " in e]
    assert len(named) == 3, entries
    for protocol in ("adaptive-diffusion", "random-diffusion", "flooding"):
        (entry,) = [e for e in named if e.startswith(f"strongest / {protocol}\n")]
        picks = {d["params"]["T"]: d["chosen"].rpartition("/")[2] for d in derived
                 if d["params"]["protocol"] == protocol}
        if len(set(picks.values())) == 1:
            assert entry.endswith(f"chosen: {picks[2]} at every T")
        else:
            for name in set(picks.values()):
                ts = ", ".join(str(t) for t in sorted(picks) if picks[t] == name)
                assert f"{name} (T = {ts})" in entry, entry
    assert "named in the legend" in fig._suptitle.get_text().replace("\n", " ")
    _texts_clear(fig)
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0].get_window_extent(renderer)
    assert not any(legend.overlaps(ax.get_window_extent(renderer)) for ax in fig.axes)


def test_chosen_words():
    pts = [{"T": t} for t in (2, 4, 6)]
    assert _chosen_words(list(zip(pts, ["ml", "ml", "jordan"])), "T", 3) == "chosen: ml (T = 2, 4), jordan (T = 6)"
    assert _chosen_words(list(zip(pts, ["ml"] * 3)), "T", 3) == "chosen: ml at every T"
    rounds = [{"rounds": r} for r in (1, 2, 3)]
    assert _chosen_words(list(zip(rounds, ["ml"] * 3)), "rounds", 3) == "chosen: ml at all rounds"
    assert _chosen_words(list(zip(pts[:2], ["ml"] * 2)), "T", 3) == "chosen: ml (T = 2, 4)"
    fpts = [{"p": 0.02, "g": "er"}, {"p": 0.1, "g": "er"}, {"p": 0.02, "g": "ws"}]
    assert (_chosen_words(list(zip(fpts, ["first-spy"] * 3)), "p", 3, "g")
            == "chosen: first-spy (g er: p = 0.02, 0.1; g ws: p = 0.02)")


def test_a_faceted_figure_names_the_choices_once_per_series():
    rows, derived = [], []
    for g in ("er", "ws"):
        for t in (1, 2):
            for who in ("plain", "strongest"):
                rows.append({"g": g, "T": t, "who": who, "metric": "detection", "n": 50,
                             "mean": 0.2 * t, "stderr": 0.01, "ci_low": 0.1 * t, "ci_high": 0.3 * t})
            derived.append({"params": {"g": g, "T": t, "who": "strongest"},
                            "chosen": "x/ml" if t == 1 else "x/jordan"})
    table = Table(("g", "T", "who"), {"g": "str", "T": "int", "who": "str"}, rows, derived=tuple(derived))
    fig = _drawn(draw(table, PlotSpec(x="T", series="who", facet="g", y=("detection",))))
    assert all(not ax.texts for ax in fig.axes)
    entries = [t.get_text() for t in fig.legends[0].get_texts()]
    assert entries == ["plain", "strongest\nchosen: ml (g er: T = 1; g ws: T = 1), jordan (g er: T = 2; g ws: T = 2)"]
    _texts_clear(fig)
