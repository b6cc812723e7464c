"""Notebook-ready results (issue 23, item 5): short reprs, HTML display, quiet solvers and
clusters, a progress bar in Jupyter, and past runs loaded back."""

from __future__ import annotations

import socket
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness import progress
from anonspread.harness.executors import DaskExecutor

SCREEN_LINES, SCREEN_CHARS = 25, 2500


def _trials(params, n, rng):
    return {"hit": (rng.random(n) < params["p"]).astype(float), "size": np.full(n, 10.0 * params["p"])}


def _exp():
    return harness.Experiment(
        name="nb-demo", title="notebook demo", description="reprs",
        grid=harness.Grid(product={"p": [round(0.03 * k, 2) for k in range(1, 31)], "who": ["a", "b"]}),
        metrics=(harness.Metric("hit", "proportion", "P(hit)"), harness.Metric("size", "mean", "E[size]")),
        trials=_trials, default_trials=50)


@pytest.fixture(scope="module")
def res(tmp_path_factory):
    return harness.run(_exp(), rng=1, out=tmp_path_factory.mktemp("nb"), workers=1)


def _screenful(text):
    return len(text) <= SCREEN_CHARS and len(text.splitlines()) <= SCREEN_LINES


def test_reprs_fit_a_screen(res):
    for obj in (res, res.table, res.experiment):
        text = repr(obj)
        assert _screenful(text), (type(obj).__name__, len(text), len(text.splitlines()))
    assert repr(res).startswith("<RunResult 'nb-demo': 60 points x 2 metrics, 50 trials per point, seed 1")
    assert repr(res.table) == "<Table: 60 points x 2 metrics (hit, size); parameters p, who>"
    # print() shows the table (a screenful), repr the one line (issue 34)
    for obj in (res, res.table):
        assert _screenful(str(obj)) and "\n" not in repr(obj)
    assert str(res).startswith(repr(res) + "\nfiles: ")
    assert "... 48 more points in the CSV" in str(res.table)


def test_every_registered_experiment_has_a_short_repr():
    for exp in harness.list_experiments():
        assert _screenful(repr(exp)), exp.name


def test_html_display_shows_the_table_and_the_figure(res):
    page = res._repr_html_()
    assert "<table" in page and "data:image/png;base64," in page
    assert "<th>trials</th>" in page and "P(hit)" in page
    table = res.table._repr_html_()
    assert table.count("<tr>") == 1 + 60  # header + one row per point


def test_a_past_run_reads_back(res):
    from anonspread.harness.results import read_sidecar

    side = read_sidecar(res.paths["csv"])
    back = harness.read_table(res.paths["csv"])
    assert back.rows == res.table.rows and side["seed"] == 1


def test_the_highs_banner_is_not_printed():
    code = ("import numpy as np\nfrom anonspread import privacy\n"
            "u = privacy.utility.KL(np.array([.2, .3, .5]), np.array([.5, .3, .2]))\n"
            "privacy.optimal_staircase(u, 1.0)\nprint('done')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout == "done\n", out.stdout
    assert "HiGHS" not in out.stderr


def test_a_busy_dashboard_port_does_not_warn():
    pytest.importorskip("distributed")
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:  # someone else holds it already: the situation under test
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with DaskExecutor(1, processes=False) as ex:
                assert sorted(ex.imap_unordered(abs, [-1, -2])) == [1, 2]
        assert not [w for w in caught if "8787" in str(w.message)], [str(w.message) for w in caught]
    finally:
        held.close()


def test_the_progress_bar_shows_in_a_notebook(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert not progress.in_notebook()

    class ZMQInteractiveShell:  # what a Jupyter kernel's get_ipython() returns
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = ZMQInteractiveShell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert progress.in_notebook() and progress.progress_enabled()
    monkeypatch.setenv("CI", "1")
    assert not progress.progress_enabled()
