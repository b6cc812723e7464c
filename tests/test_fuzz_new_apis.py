"""Hypothesis strategies for the public APIs added since the last battery (issue 33):
the soft-margin estimator, the learned adversary, the Bayes ceiling, and the ``plot`` and
``report`` commands and functions.

Each strategy draws every argument of a call at once from a mix of good, edge and bad
values (wrong types, NaN, infinities, zero, negatives, absurd sizes, tiny widths, junk).
A call must succeed or raise an :class:`anonspread.AnonspreadError` subclass: never a raw
numpy / matplotlib / OS error, never a crash, never a hang (``pytest-timeout`` bounds each
test; absurd sizes must be refused up front by the size guards). Valid draws are kept tiny
(a 7-node graph, a few hundred simulations) so that the file runs in well under 40 s.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from anonspread import AnonspreadError, adversaries, harness, spread
from anonspread.harness import cli

FUZZ = settings(max_examples=30, deadline=None, derandomize=True, database=None, phases=(Phase.generate,),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

_junk = st.one_of(st.none(), st.text(max_size=3), st.lists(st.integers(-2, 2), max_size=2),
                  st.just(object()), st.complex_numbers(max_magnitude=2, allow_nan=False))
_odd_floats = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 1e-300, 5e-324,
                                         1e300, 2.0]), st.floats(allow_nan=True, allow_infinity=True))
_huge = st.sampled_from([10**9, 10**12, 10**18, 10**30, 2**63])


def _ints(low: int, high: int) -> st.SearchStrategy:
    """Small ints in [low - 3, high] (some below the valid range), absurd ones, floats, bools, junk."""
    return st.one_of(st.integers(low - 3, high), st.integers(low - 3, high), _huge, st.booleans(),
                     st.just(np.int64(3)), st.just(3.0), _odd_floats, _junk)


def _prob() -> st.SearchStrategy:
    return st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 0.5, 0.95]), _odd_floats, st.booleans(), _junk)


def _call(fn, *args, **kwargs):
    """The call's result, or None if it raised a project error; any other exception fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a numpy overflow warning is silent nonsense
        try:
            return fn(*args, **kwargs)
        except AnonspreadError as exc:
            assert str(exc), f"{type(exc).__name__} without a message"
            return None


_GRAPH = nx.path_graph(7)
_PROTO = spread.RandomDiffusion(0.5)
_SNAP = adversaries.observe(spread.simulate(_GRAPH, _PROTO, 2, source=3, rng=1))

# ----------------------------------------------------------------- soft margin

_widths = st.one_of(_odd_floats, st.lists(_odd_floats, max_size=4), st.tuples(st.floats(1e-3, 1.0)),
                    st.just(()), st.just([0.25, 0.125]), _junk)


def _kwargs(good: dict, bad: dict) -> st.SearchStrategy:
    """Valid small arguments (``good``: name -> strategy) with up to two of them replaced by
    draws from ``bad`` (edge and bad values): most calls go deep, every parameter is hit."""
    replaced = st.lists(st.sampled_from(sorted(bad)), max_size=2, unique=True).flatmap(
        lambda names: st.fixed_dictionaries({n: bad[n] for n in names}))
    return st.tuples(st.fixed_dictionaries(good), replaced).map(lambda gb: {**gb[0], **gb[1]})


_SM = _kwargs(
    {"simulations": st.integers(20, 200), "a": st.just((0.25, 0.125)), "tolerance": st.sampled_from([0.02, 0.2]),
     "max_simulations": st.integers(200, 800), "candidates": st.sampled_from([None, 3]), "risk": st.just(0.001),
     "chunks": st.sampled_from([None, 2]), "threads": st.just(1), "eliminate": st.booleans()},
    {"simulations": _ints(1, 300), "a": _widths, "tolerance": _prob(), "max_simulations": _ints(1, 1200),
     "candidates": st.one_of(st.none(), _ints(1, 8)), "risk": _prob(), "chunks": st.one_of(st.none(), _ints(1, 4)),
     "threads": _ints(1, 2), "eliminate": st.one_of(st.booleans(), _junk)})


@pytest.mark.timeout(60)
@FUZZ
@given(kwargs=_SM)
def test_soft_margin_estimate(kwargs):
    res = _call(adversaries.soft_margin_estimate, _SNAP, _PROTO, rng=0, **kwargs)
    if res is not None:  # accepted: the scores are numbers (never all NaN)
        scores = np.array(list(res.scores.values()), dtype=float)
        assert scores.size and not np.isnan(scores).all()
        _OK["soft"] += 1


_OK = {"soft": 0, "learned": 0, "ceiling": 0}


# ----------------------------------------------------------------- learned adversary

_LEARN = _kwargs(
    {"T": st.integers(1, 2), "spreads": st.integers(8, 20), "held_out": st.integers(4, 10),
     "train_seed": st.integers(0, 3), "negatives": st.integers(2, 4), "max_iter": st.integers(5, 20),
     "level": st.sampled_from([0.9, 0.95]), "reveal_edges": st.booleans()},
    {"T": _ints(1, 3), "spreads": _ints(1, 30), "held_out": _ints(1, 20), "train_seed": _ints(0, 5),
     "negatives": _ints(1, 6), "max_iter": _ints(1, 20), "level": _prob(), "reveal_edges": st.one_of(st.booleans(), _junk)})


@pytest.mark.timeout(60)
@settings(FUZZ, max_examples=25)
@given(kwargs=_LEARN)
def test_train_adversary(kwargs):
    T = kwargs.pop("T")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's convergence warnings at tiny max_iter
        adv = _call(adversaries.train_adversary, _GRAPH, _PROTO, T, **kwargs)
    if adv is not None:
        assert 0.0 <= adv.held_out.detection <= 1.0
        _OK["learned"] += 1


# ----------------------------------------------------------------- Bayes ceiling

_CEIL = _kwargs(
    {"T": st.integers(0, 3), "method": st.sampled_from(["auto", "exact", "monte-carlo"]), "trials": st.integers(5, 200),
     "level": st.sampled_from([0.9, 0.95]), "max_states": st.sampled_from([200_000, 50])},
    {"T": _ints(0, 3), "method": st.one_of(st.sampled_from(["mc", "", "EXACT", "bogus"]), _junk),
     "trials": _ints(1, 200), "level": _prob(), "max_states": _ints(1, 5000)})


@pytest.mark.timeout(60)
@settings(FUZZ, max_examples=40)
@given(graph=st.sampled_from([nx.star_graph(3), nx.path_graph(6), nx.random_labeled_tree(8, seed=1),
                              nx.cycle_graph(5), nx.empty_graph(3), nx.Graph()]),
       protocol=st.sampled_from([spread.Flooding(), spread.RandomDiffusion(0.5), spread.LineProtocol(),
                                 spread.AdaptiveDiffusion()]),
       kwargs=_CEIL)
def test_bayes_ceiling(graph, protocol, kwargs):
    T = kwargs.pop("T")
    c = _call(adversaries.bayes_ceiling, graph, protocol, T, rng=0, **kwargs)
    if c is not None:
        assert 0.0 <= c.value <= 1.0
        _OK["ceiling"] += 1


def test_the_strategies_reach_past_the_checks():
    # runs after the three above (file order): enough draws were accepted and computed
    if sum(_OK.values()) == 0:
        pytest.skip("run it with the property tests above")
    assert all(v >= 3 for v in _OK.values()), _OK


# ----------------------------------------------------------------- plot and report


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("fuzzruns")
    exp = harness.Experiment(name="coin", title="coin", description="a coin",
                             grid=harness.Grid(product={"p": [0.25, 0.5]}),
                             metrics=(harness.Metric("hit", "proportion"),), default_trials=20,
                             trials=lambda params, n, rng: {"hit": (rng.random(n) < params["p"]).astype(float)})
    harness.run(exp, rng=1, out=out, workers=1, progress=False)
    return out


_titles = st.one_of(st.text(max_size=30), st.sampled_from(["$", "$\\frac$", "$x^$", "a\x00b", "\u202e", "%s%d",
                                                           "x" * 300, "<script>", "\\"]))


@pytest.mark.timeout(60)
@settings(FUZZ, max_examples=25)
@given(title=st.one_of(_titles, _junk), labels=st.one_of(st.none(), st.dictionaries(st.text(max_size=4), _titles,
                                                                                     max_size=2),
                                                          st.just({"hit": "$\\bad{"}), _junk),
       pdf=st.one_of(st.booleans(), _junk), name=st.sampled_from(["f.png", "f.PNG", "f.txt", "", ".", "sub/f.png",
                                                                   "f", "f.png/", "\x00.png"]))
def test_plot_table(runs, tmp_path_factory, title, labels, pdf, name):
    from anonspread.harness.experiment import PlotSpec
    from anonspread.harness.plots import plot_table
    from anonspread.harness.results import read_sidecar, read_table

    side = read_sidecar(runs / "coin.csv")
    where = tmp_path_factory.mktemp("plot")
    written = _call(plot_table, read_table(runs / "coin.csv", side), PlotSpec.from_dict(side["plot"]),
                    where / name, title=title, labels=labels, pdf=pdf, info=side)
    assert written is None or all(path.is_file() for path in written)


@pytest.mark.timeout(60)
@settings(FUZZ, max_examples=25)
@given(output=st.one_of(st.none(), st.sampled_from(["r.html", "", ".", "missing/r.html", "coin.csv", "r.html/",
                                                    "\x00"])),
       self_contained=st.one_of(st.none(), st.booleans(), _junk), which=st.sampled_from(["runs", "empty", "file",
                                                                                         "missing", "nul"]))
def test_report(runs, tmp_path_factory, output, self_contained, which):
    from anonspread.harness.report import report

    scratch = tmp_path_factory.mktemp("report")
    folder = {"runs": runs, "empty": scratch, "file": runs / "coin.csv", "missing": scratch / "nope",
              "nul": "a\x00b"}[which]
    target = None if output is None else scratch / output if output not in ("\x00",) else output
    page = _call(report, folder, target, self_contained=self_contained)
    assert page is None or page.is_file()


_cli_args = st.lists(st.one_of(st.sampled_from(["--output", "--pdf", "--title", "--self-contained",
                                                "--no-self-contained", "--x", "--y", "x.png", "y.txt", "", "-",
                                                "--", "$\\bad{", "\x7f"]), st.text(max_size=6)), max_size=4)


@pytest.mark.timeout(60)
@settings(FUZZ, max_examples=40)
@given(command=st.sampled_from(["plot", "report"]), target=st.sampled_from(["csv", "dir", "json", "missing", ""]),
       args=_cli_args)
def test_plot_and_report_commands(runs, tmp_path_factory, monkeypatch, command, target, args):
    monkeypatch.chdir(tmp_path_factory.mktemp("cli"))
    path = {"csv": str(runs / "coin.csv"), "dir": str(runs), "json": str(runs / "coin.json"),
            "missing": "nothing/here.csv", "": ""}[target]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main([command, path, *args])
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
    assert code in (0, 1, 2), code
    assert "rerun with --debug" not in err.getvalue(), err.getvalue()  # a raw exception's message
