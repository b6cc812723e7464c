"""Property test (issue 14, acceptance): every public entry point and CLI subcommand, bad values.

Hypothesis draws an entry point, one of its parameters and a value that the parameter
does not accept (a wrong type, NaN, a value out of range, junk), substitutes it into an
otherwise valid call and requires a project error (:class:`anonspread.AnonspreadError`)
whose message names the parameter: never a raw numpy / gzip / OS error, never a value
silently coerced (the call succeeding), never a hang (``pytest-timeout`` bounds each
test; the size guards refuse what would not finish). CLI subcommands must exit with
status 2 (1 for unusable files) and one line on stderr naming the option.

To cover a new public function, add a :class:`Case` to :data:`CASES` with valid
defaults and the kinds of its parameters (:data:`BAD` holds the bad values per kind).
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonspread import AnonspreadError, adversaries, harness, privacy, spread
from anonspread.harness.cli import main
from anonspread.privacy import funnel, krandom, profiles
from anonspread.privacy.utility import KL, MutualInformation, TotalVariation
from anonspread.spread.graphs import from_edgelist, line, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion, RandomDiffusion, alpha

EXAMPLES = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# ----------------------------------------------------------------- bad values by kind

_junk = st.one_of(
    st.none(),
    st.text(max_size=4),
    st.lists(st.integers(-3, 3), max_size=2),
    st.complex_numbers(max_magnitude=5, allow_nan=False),
    st.just(object()),
)
_nonfinite = st.sampled_from([math.nan, math.inf, -math.inf])
_floats = st.floats(allow_nan=True, allow_infinity=True)


def _ints_below(low: int) -> st.SearchStrategy:
    return st.integers(max_value=low - 1, min_value=-(10**30))


def _int_kind(low: int) -> st.SearchStrategy:
    """Not an integer >= low: smaller ints, any float (2.0 included: never coerced), bools, junk."""
    return st.one_of(_ints_below(low), _floats, st.booleans(), st.just(np.float64(3.0)), _junk)


BAD: dict[str, st.SearchStrategy] = {
    "int>=1|None": _int_kind(1).filter(lambda v: v is not None),
    "eps|None": st.one_of(st.floats(max_value=0.0, exclude_max=True, allow_infinity=True), st.just(math.nan),
                          st.booleans(), _junk.filter(lambda v: v is not None)),
    "int>=0": _int_kind(0),
    "int>=1": _int_kind(1),
    "int>=2": _int_kind(2),
    "even>=2": st.one_of(_int_kind(2), st.integers(1, 10**6).map(lambda k: 2 * k + 1)),
    "prob": st.one_of(
        st.floats(min_value=1.0, exclude_min=True, allow_infinity=True),
        st.floats(max_value=0.0, exclude_max=True, allow_infinity=True),
        st.just(math.nan), st.booleans(), _junk,
    ),
    "open-prob": st.one_of(st.sampled_from([0.0, 1.0, math.nan, 1.5, -0.1]), st.booleans(), _junk),
    "eps": st.one_of(st.floats(max_value=0.0, exclude_max=True, allow_infinity=True), st.just(math.nan),
                     st.booleans(), _junk),
    "d0": st.one_of(st.floats(max_value=2.0, exclude_max=True, allow_infinity=True), st.just(math.nan),
                    st.booleans(), st.integers(max_value=1), st.just(10**400),
                    _junk.filter(lambda v: v is not None)),
    "rng": st.one_of(_ints_below(0), _floats, st.booleans(), st.text(max_size=3),
                     st.lists(st.integers(), max_size=2), st.just(object())),
    "bool": st.one_of(st.integers(), _floats, _junk),
    "dist": st.one_of(
        st.lists(st.floats(0.0, 1.0), min_size=2, max_size=4).filter(lambda p: abs(sum(p) - 1) > 1e-6),
        st.just([1.5, -0.5]),
        st.just([math.nan, 1.0]), st.just([]), st.just([[0.5, 0.5]]), st.just(["a", "b"]),
        st.just([0.5 + 0j, 0.5]), st.none(), st.text(max_size=3),
    ),
    "joint": st.one_of(
        st.just([[0.5, 0.5]]).map(lambda p: np.array(p) * 2), st.just(np.array([0.25, 0.25, 0.5])),
        st.just(np.array([[0.5, -0.25], [0.5, 0.25]])), st.just(np.array([[math.nan, 0.5], [0.25, 0.25]])),
        st.just([["a", "b"], ["c", "d"]]), st.none(),
    ),
    "matrix": st.one_of(
        st.just([[0.5, 0.6], [0.5, 0.5]]), st.just([[1.2, -0.2], [0.5, 0.5]]), st.just([[math.nan, 1.0]]),
        st.just([0.5, 0.5]), st.just([["a", "b"]]), st.just([[0.5 + 0j, 0.5]]), st.just([]), st.none(),
        st.just([[True, False], [False, True]]),
    ),
    "graph": st.one_of(_junk, st.integers(), st.just(np.zeros((2, 2)))),
    "protocol": st.one_of(_junk, st.integers(), st.just(AdaptiveDiffusion)),
    "relay": st.one_of(st.text(max_size=5).filter(lambda s: s not in ("tree", "graph")),
                       st.just(["tree"]), st.none(), st.integers()),
    # a string parameter with a few accepted names (none of them this short)
    "choice": st.one_of(st.text(max_size=3), st.just(["uniform"]), st.none(), st.integers()),
    "scores": st.one_of(_junk.filter(lambda v: not isinstance(v, str)), st.just({}),
                        st.just({0: math.nan, 1: 0.0}), st.just({0: -math.inf, 1: -math.inf}),
                        st.just({0: "a"})),
    "degrees": st.one_of(_junk, st.just({}), st.just({3: -1.0, 4: 2.0}), st.just({3: math.nan}),
                         st.just({"a": 1.0}), st.just({1.5: 1.0}), st.just({0: 1.0}), st.just({3: 0.5})),
    "path": st.one_of(st.none(), st.integers(), st.just(["a"]), st.just("/nonexistent/edges.txt"),
                      st.just("/"), st.just(object())),
    "callable": st.one_of(st.integers(), st.text(max_size=3), st.none()),
    "out": st.sampled_from(["", "   ", None, 3, "/proc/1/nonexistent-dir/x"]),
    "level": st.one_of(st.sampled_from([0.0, 1.0, 1.5, -0.5, math.nan]), st.booleans(), _junk),
    "experiment": st.one_of(st.sampled_from(["no-such-experiment", ""]), st.integers(), st.none()),
}


# ----------------------------------------------------------------- entry points


@dataclass(frozen=True)
class Case:
    """A public callable, valid default arguments, and the kind of each parameter to spoil."""

    name: str
    fn: Callable[..., Any]
    defaults: Mapping[str, Any]
    params: Mapping[str, str]
    positional: tuple[str, ...] = field(default=())

    def call(self, **kw: Any) -> Any:
        args = {**self.defaults, **kw}
        pos = [args.pop(p) for p in self.positional]
        return self.fn(*pos, **args)


def _spread():
    return spread.simulate(regular_tree(3), AdaptiveDiffusion(), 4, rng=0)


def _snapshot():
    return adversaries.observe(_spread())


_P = np.array([0.2, 0.3, 0.5])
_Q = np.array([0.5, 0.3, 0.2])
_PSX = np.array([[0.2, 0.1, 0.2], [0.1, 0.3, 0.1]])


def _coin(params, n, rng):
    return {"heads": (rng.random(n) < params["p"]).astype(float)}


COIN = harness.Experiment(
    name="bad-inputs-coin", title="coin", description="a Bernoulli coin",
    grid=harness.Grid(product={"p": [0.5]}), metrics=(harness.Metric("heads", "proportion"),),
    trials=_coin, default_trials=20, batch_size=10,
)

harness.register_experiment(COIN, replace=True)

CASES = [
    Case("spread.simulate", spread.simulate,
         {"graph": regular_tree(3), "protocol": AdaptiveDiffusion(), "T": 4, "rng": 0},
         {"graph": "graph", "protocol": "protocol", "T": "int>=0", "rng": "rng"},
         positional=("graph", "protocol", "T")),
    Case("spread.simulate_many", spread.simulate_many,
         {"graph": line(), "protocol": RandomDiffusion(0.5), "T": 4, "trials": 3, "rng": 0},
         {"graph": "graph", "protocol": "protocol", "T": "int>=0", "trials": "int>=1", "rng": "rng"},
         positional=("graph", "protocol", "T", "trials")),
    Case("spread.graphs.regular_tree", regular_tree, {"d": 3}, {"d": "int>=2"}, positional=("d",)),
    Case("spread.graphs.random_tree", random_tree, {"degrees": {3: 0.5, 4: 0.5}, "rng": 0},
         {"degrees": "degrees", "rng": "rng"}, positional=("degrees",)),
    Case("spread.graphs.from_edgelist", from_edgelist, {"path": None, "nodetype": int},
         {"path": "path", "nodetype": "callable"}, positional=("path",)),
    Case("AdaptiveDiffusion", AdaptiveDiffusion,
         {"d0": None, "max_infections_per_step": None, "relay": "tree"},
         {"d0": "d0", "max_infections_per_step": "int>=1|None", "relay": "relay"}),
    Case("RandomDiffusion", RandomDiffusion, {"p": 0.5}, {"p": "prob"}),
    Case("spread.protocols.alpha", alpha, {"d": 3, "t": 4, "h": 1},
         {"d": "d0", "t": "even>=2", "h": "int>=1"}, positional=("d", "t", "h")),
    Case("adversaries.observe", adversaries.observe, {"spread": None, "reveal_edges": False},
         {"spread": "graph", "reveal_edges": "bool"}, positional=("spread",)),
    Case("adversaries.Snapshot", adversaries.Snapshot,
         {"graph": regular_tree(3), "infected": [0], "T": 0},
         {"graph": "graph", "T": "int>=0"}),
    Case("adversaries.ml_adaptive_diffusion", adversaries.ml_adaptive_diffusion,
         {"snapshot": None, "d0": 3}, {"d0": "d0", "snapshot": "graph"}, positional=("snapshot",)),
    Case("adversaries.jordan_center", adversaries.jordan_center, {"snapshot": None},
         {"snapshot": "graph"}, positional=("snapshot",)),
    Case("adversaries.rumor_centrality", adversaries.rumor_centrality, {"snapshot": None},
         {"snapshot": "graph"}, positional=("snapshot",)),
    Case("adversaries.exact_likelihood", adversaries.exact_likelihood,
         {"snapshot": None, "protocol": AdaptiveDiffusion()}, {"protocol": "protocol", "snapshot": "graph"},
         positional=("snapshot", "protocol")),
    Case("adversaries.pick", adversaries.pick, {"scores": {0: 0.0, 1: 1.0}, "rng": 0},
         {"scores": "scores", "rng": "rng"}, positional=("scores",)),
    Case("adversaries.posterior", adversaries.posterior, {"scores": {0: 0.0}}, {"scores": "scores"},
         positional=("scores",)),
    Case("adversaries.simulate_and_score", adversaries.simulate_and_score,
         {"graph": regular_tree(3), "protocol": AdaptiveDiffusion(), "T": 4, "trials": 3, "rng": 0},
         {"graph": "graph", "protocol": "protocol", "T": "int>=0", "trials": "int>=1", "rng": "rng"},
         positional=("graph", "protocol", "T", "trials")),
    Case("privacy.Mechanism", privacy.Mechanism, {"matrix": [[1.0, 0.0], [0.0, 1.0]]},
         {"matrix": "matrix"}, positional=("matrix",)),
    Case("privacy.randomized_response", privacy.randomized_response, {"k": 3, "eps": 1.0},
         {"k": "int>=1", "eps": "eps"}, positional=("k", "eps")),
    Case("privacy.geometric_mechanism", privacy.geometric_mechanism, {"k": 3, "eps": 1.0},
         {"k": "int>=2", "eps": "eps"}, positional=("k", "eps")),
    Case("privacy.binary_mechanism", privacy.binary_mechanism, {"P0": _P, "P1": _Q, "eps": 1.0},
         {"P0": "dist", "P1": "dist", "eps": "eps"}, positional=("P0", "P1", "eps")),
    Case("privacy.binary_mechanism_mi", privacy.binary_mechanism_mi, {"P": _P, "eps": 1.0},
         {"P": "dist", "eps": "eps"}, positional=("P", "eps")),
    Case("privacy.quaternary_mechanism", privacy.quaternary_mechanism, {"eps": 1.0, "delta": 0.1},
         {"eps": "eps", "delta": "prob"}, positional=("eps", "delta")),
    Case("privacy.utility.KL", KL, {"P0": _P, "P1": _Q}, {"P0": "dist", "P1": "dist"},
         positional=("P0", "P1")),
    Case("privacy.utility.TotalVariation", TotalVariation, {"P0": _P, "P1": _Q},
         {"P0": "dist", "P1": "dist"}, positional=("P0", "P1")),
    Case("privacy.utility.MutualInformation", MutualInformation, {"P": _P}, {"P": "dist"},
         positional=("P",)),
    Case("privacy.optimal_staircase", privacy.optimal_staircase, {"utility": KL(_P, _Q), "eps": 1.0},
         {"utility": "graph", "eps": "eps"}, positional=("utility", "eps")),
    Case("privacy.funnel.optimal_lip", funnel.optimal_lip, {"p_sx": _PSX, "eps": 1.0},
         {"p_sx": "joint", "eps": "eps"}, positional=("p_sx", "eps")),
    Case("privacy.funnel.optimal_ldp", funnel.optimal_ldp, {"p_sx": _PSX, "eps": 1.0},
         {"p_sx": "joint", "eps": "eps"}, positional=("p_sx", "eps")),
    Case("privacy.funnel.grr", funnel.grr, {"p_sx": _PSX, "eps": 1.0},
         {"p_sx": "joint", "eps": "eps"}, positional=("p_sx", "eps")),
    Case("privacy.profiles.one_bit_two_profile", profiles.one_bit_two_profile,
         {"p_i": 0.2, "p_j": 0.6, "eps": 1.0}, {"p_i": "prob", "p_j": "prob", "eps": "eps"},
         positional=("p_i", "p_j", "eps")),
    Case("privacy.krandom.count_pmf", krandom.count_pmf, {"n": 5, "m": 1, "q": 0.25},
         {"n": "int>=1", "m": "int>=0", "q": "open-prob"}, positional=("n", "m", "q")),
    Case("privacy.krandom.privacy_ratio", krandom.privacy_ratio, {"n": 5, "m": 1, "q": 0.25},
         {"n": "int>=1", "m": "int>=0", "q": "open-prob"}, positional=("n", "m", "q")),
    Case("privacy.krandom.epsilon", krandom.epsilon, {"n": 5, "q": 0.25, "L": 1, "delta": 0.0},
         {"n": "int>=1", "q": "open-prob", "L": "int>=1", "delta": "prob"}, positional=("n", "q")),
    Case("harness.run", harness.run,
         {"experiment": COIN, "trials": 20, "rng": 0, "out": None, "workers": 1, "batch_size": 10,
          "level": 0.95, "plot": False, "progress": False},
         {"experiment": "experiment", "trials": "int>=1|None", "rng": "rng", "workers": "int>=1|None",
          "batch_size": "int>=1|None", "level": "level", "out": "out"}, positional=("experiment",)),
]

@functools.lru_cache(maxsize=1)
def _spy_observation():
    from anonspread.spread.events import simulate_messages

    g = regular_tree(3)
    run = simulate_messages(g, RandomDiffusion(0.5), 4, rng=0)
    return adversaries.observe_spies(run, adversaries.draw_spies(g, 0.5, rng=0))


CASES += [
    Case("adversaries.lisn", adversaries.lisn, {"snapshot": None, "rate": None, "delays": "geometric"},
         {"rate": "eps|None", "delays": "choice"}, positional=("snapshot",)),
    Case("adversaries.ml_spies_diffusion", adversaries.ml_spies_diffusion, {"obs": None, "p": 0.5},
         {"p": "prob"}, positional=("obs",)),
    Case("adversaries.earliest_infection_first", adversaries.earliest_infection_first,
         {"obs": None, "mu": None}, {"mu": "eps|None"}, positional=("obs",)),
    Case("adversaries.pinto", adversaries.pinto, {"obs": None, "mu": 1.0, "sigma2": 1.0},
         {"mu": "eps", "sigma2": "eps"}, positional=("obs",)),
    Case("adversaries.draw_spies", adversaries.draw_spies,
         {"graph": regular_tree(3), "fraction": 0.3, "by": "uniform", "rng": 0},
         {"fraction": "prob", "by": "choice", "rng": "rng", "graph": "graph"}, positional=("graph", "fraction")),
]

# ----------------------------------------------------------------- sizes, stems, transactions (issue 24)

_huge = st.one_of(st.integers(min_value=10**10, max_value=10**40), st.sampled_from([2**31, 2**63, 10**100]))
BAD.update({
    # a size no machine holds: refused up front (naming the parameter), never allocated
    "huge": _huge,
    "huge-float": st.one_of(_huge.map(float), st.floats(min_value=1e10, max_value=1e300)),
    "int>=1|huge": st.one_of(_int_kind(1), _huge),
    "int>=2|huge": st.one_of(_int_kind(2), _huge),
    "csr": st.one_of(_junk, st.just((np.array([0, 2]), np.array([0]))),
                     st.just((np.array([0, 1, 0]), np.array([1]))), st.just((np.array([0, 1]), np.array([5]))),
                     st.just((np.array([0.0, 1.0]), np.array([0.9])))),
    "mask": st.one_of(_junk, st.just(np.zeros(3, bool)), st.just(np.zeros(6, int)), st.just(np.ones(6, bool)),
                      st.just(np.zeros((2, 3), bool))),
    "mapping": st.one_of(_junk.filter(lambda v: v is not None and not isinstance(v, list)),
                         st.just([0.0, 1.0, 2.0, 3.0, 4.0]), st.just([2.7] * 5), st.just(["0"] * 5),
                         st.just([0] * 4), st.just([9] * 5), st.just([-2] * 5)),
})


def _generator_cases() -> list[Case]:
    """The harness's finite graph families, called with sizes that cannot be built."""
    from anonspread.harness.experiments import graphs as G

    return [
        Case("graph erdos-renyi", G.erdos_renyi, {"n": 50, "mean_degree": 3.0},
             {"n": "huge", "mean_degree": "huge-float"}),
        Case("graph random-regular", G.random_regular, {"n": 50, "d": 4}, {"n": "huge", "d": "huge"}),
        Case("graph barabasi-albert", G.barabasi_albert, {"n": 50, "m": 3}, {"n": "huge", "m": "huge"}),
        Case("graph watts-strogatz", G.watts_strogatz, {"n": 50, "k": 4, "p": 0.1}, {"n": "huge", "k": "huge"}),
        Case("graph powerlaw-cluster", G.powerlaw_cluster, {"n": 50, "m": 3, "p": 0.5},
             {"n": "huge", "m": "huge"}),
        Case("graph stochastic-block", G.stochastic_block, {"n": 50, "blocks": 2, "p_in": 0.2, "p_out": 0.05},
             {"n": "huge", "blocks": "huge"}),
    ]


def _stem_cases() -> list[Case]:
    import networkx as nx

    from anonspread.adversaries import transactions as tx
    from anonspread.spread.dandelion import DandelionPlusPlus, simulate_stems
    ring = (np.array([0, 1, 2, 3, 4, 5, 6]), np.array([1, 2, 3, 4, 5, 0]))
    spy = np.array([False, False, False, True, False, False])
    return [
        Case("spread.dandelion.simulate_stems", simulate_stems,
             {"graph": nx.random_regular_graph(4, 20, seed=0), "protocol": DandelionPlusPlus(0.2), "trials": 3,
              "rng": 0},
             {"graph": "graph", "protocol": "protocol", "trials": "int>=1|huge", "rng": "rng"},
             positional=("graph", "protocol", "trials")),
        Case("adversaries.transactions.anonymity_graph", tx.anonymity_graph, {"n": 6, "d": 2, "rng": 0},
             {"n": "int>=2|huge", "d": "int>=1", "rng": "rng"}, positional=("n", "d")),
        Case("adversaries.transactions.observe_transactions", tx.observe_transactions,
             {"graph": ring, "spy": spy, "protocol": "dandelion", "routing": "per-tx", "q": 0.0, "cap": None,
              "revisit": "escape", "rng": 0},
             {"graph": "csr", "spy": "mask", "protocol": "choice", "routing": "choice", "q": "prob",
              "cap": "int>=1|None", "revisit": "choice", "rng": "rng"}, positional=("graph", "spy")),
        Case("adversaries.transactions.precision_recall", tx.precision_recall,
             {"obs": tx.observe_transactions(ring, spy, rng=0), "mapping": [0, 1, 2, 4, 5]},
             {"mapping": "mapping"}, positional=("obs", "mapping")),
    ]


CASES += _generator_cases() + _stem_cases()

# Parameters whose valid default needs a fresh object per call.
_FRESH = {"snapshot": _snapshot, "spread": _spread, "obs": _spy_observation}
_KEEP = {"adversaries.transactions.precision_recall"}  # its obs is a transaction observation


def assert_project_error_naming(case: Case, param: str, value: Any, tmp: str) -> None:
    kw: dict[str, Any] = {p: make() for p, make in _FRESH.items() if p in case.defaults
                          and case.name not in _KEEP}
    if case.name == "spread.graphs.from_edgelist" and param != "path":
        kw["path"] = _EDGES
    if case.name == "harness.run" and param != "out":
        kw["out"] = tmp
    kw[param] = value
    try:
        case.call(**kw)
    except AnonspreadError as exc:
        assert param in str(exc), f"{case.name}({param}={value!r}): the error does not name {param!r}: {exc}"
    except Exception as exc:  # a raw numpy / OS / Python error: the defect this test exists for
        raise AssertionError(
            f"{case.name}({param}={value!r}) raised a raw {type(exc).__name__}: {exc}"
        ) from exc
    else:
        raise AssertionError(f"{case.name}({param}={value!r}) accepted a bad value")


_EDGES = ""


@pytest.fixture(scope="module", autouse=True)
def _edge_file(tmp_path_factory):
    global _EDGES
    path = tmp_path_factory.mktemp("edges") / "g.txt"
    path.write_text("0 1\n1 2\n")
    _EDGES = str(path)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@EXAMPLES
@given(data=st.data())
def test_public_entry_points_refuse_bad_values(case, data, tmp_path):
    param = data.draw(st.sampled_from(sorted(case.params)), label="param")
    value = data.draw(BAD[case.params[param]], label="value")
    assert_project_error_naming(case, param, value, str(tmp_path))


def test_every_case_runs_with_its_defaults(tmp_path):
    # the cases are valid calls: a bad value is what makes them fail, nothing else
    refused = []
    for case in CASES:
        kw = {p: make() for p, make in _FRESH.items() if p in case.defaults and case.name not in _KEEP}
        if case.name == "spread.graphs.from_edgelist":
            kw["path"] = _EDGES
        if case.name == "harness.run":
            kw["out"] = str(tmp_path)
        try:
            case.call(**kw)
        except AnonspreadError as exc:
            refused.append(f"{case.name}: {exc}")
    assert refused == [], "valid default calls were refused:\n" + "\n".join(refused)


# ----------------------------------------------------------------- the CLI

_TEXT_BAD_INT1 = st.one_of(
    st.integers(max_value=0).map(str),
    st.sampled_from(["abc", "1.5", "2.0", "1e400", "", " ", "nan", "inf", "0x10", "1_0_", "--", "10**3",
                     "1000000000000000000000000"]),
)
_TEXT_BAD_RNG = st.one_of(st.integers(max_value=-1).map(str),
                          st.sampled_from(["abc", "1.5", "", "nan", "-0.5", "1e400"]))

CLI_OPTIONS = {
    "--trials": ("trials", _TEXT_BAD_INT1),
    "--workers": ("workers", _TEXT_BAD_INT1),
    "--batch-size": ("batch", _TEXT_BAD_INT1.filter(lambda v: not v.isdigit())),
    "--rng": ("rng", _TEXT_BAD_RNG),
    "--out": ("out", st.sampled_from(["", "   ", "/proc/1/nonexistent-dir/x"])),
}


def _cli(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(argv)
    return rc, err.getvalue()


def assert_cli_error_naming(argv: list[str], name: str) -> None:
    rc, err = _cli(argv)
    lines = err.strip().splitlines()
    assert rc in (1, 2), f"{argv}: exit status {rc} (stderr {err!r})"
    assert len(lines) == 1 and "Traceback" not in err, f"{argv}: {err}"
    assert name in lines[0].lower(), f"{argv}: the error does not name {name!r}: {lines[0]}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", ["run", "sweep"])
@EXAMPLES
@given(data=st.data())
def test_cli_options_refuse_bad_values(command, data, tmp_path):
    option = data.draw(st.sampled_from(sorted(CLI_OPTIONS)), label="option")
    name, values = CLI_OPTIONS[option]
    value = data.draw(values, label="value")
    target = (["run", COIN.name] if command == "run"
              else ["sweep", "ldp-utility", "--set", "mechanism=binary", "--set", "utility=kl"])
    # small and in-process, so that a bad value wrongly accepted fails fast instead of running long
    safe = [f"{o}={v}" for o, v in (("--trials", "2"), ("--workers", "1")) if o != option]
    argv = [*target, "--out", str(tmp_path), "--no-plot", *safe, f"{option}={value}"]
    assert_cli_error_naming(argv, name)


@pytest.mark.timeout(120)
@EXAMPLES
@given(name=st.text(min_size=1, max_size=12).filter(lambda s: not s.startswith("-")))
def test_cli_show_and_run_unknown_names(name):
    if name in harness.list_experiments():
        return
    for sub in ("show", "run"):
        assert_cli_error_naming([sub, name, "--out", "/nonexistent"] if sub == "run" else [sub, name],
                                "experiment")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["missing", "directory", "binary", "empty", "not-csv"])
def test_cli_plot_unusable_files(kind, tmp_path):
    path = tmp_path / "x.csv"
    if kind == "directory":
        path.mkdir()
    elif kind == "binary":
        path.write_bytes(bytes(range(256)))
        path.with_suffix(".json").write_bytes(bytes(range(256)))
    elif kind == "empty":
        path.write_text("")
        path.with_suffix(".json").write_text("{}")
    elif kind == "not-csv":
        path.write_text("a,b\n1,2\n")
        path.with_suffix(".json").write_text(
            '{"parameters": ["a"], "parameter_types": {"a": "int"}, "metrics": [], "plot": {"x": "a"}}')
    rc, err = _cli(["plot", str(path)])
    lines = err.strip().splitlines()
    assert rc in (1, 2) and len(lines) == 1 and "Traceback" not in err, err
    assert "x.csv" in lines[0] or "x.json" in lines[0] or "sidecar" in lines[0], lines[0]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("argv", [["list", "--bogus"], ["show"], ["plot"], ["sweep", "--set", "=1"],
                                  ["sweep", "no-such-template"], ["run"], ["frobnicate"]])
def test_cli_usage_errors(argv):
    rc, err = _cli(argv)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)


# ----------------------------------------------------------------- sweep axes and components


def _bad_texts(spec: Any) -> list[str]:
    """Command-line texts that the typed parameter ``spec`` (a harness Param) must refuse."""
    if spec.type == "int":
        out = ["2.5", "abc", "true", "1e400", "nan", "0x1"]
    elif spec.type == "float":
        out = ["abc", "nan", "true", "1e400", "--1"]
    elif spec.type == "bool":
        out = ["2", "abc", "1.5"]
    elif spec.choices:
        out = ["nope", "x" + str(spec.choices[0])]
    else:
        return []  # free strings (paths, degree laws) are checked when the component is built
    if spec.low is not None and spec.type in ("int", "float"):
        out.append(str(math.floor(spec.low) - 1))
    if spec.high is not None and spec.type in ("int", "float"):
        out.append(str(math.ceil(spec.high) + 1))
    return out


def _component_axes() -> list[tuple[str, str, str, list[str]]]:
    from anonspread.harness.components import component_info, list_components

    axes = []
    for kind in ("graph", "protocol", "estimator"):
        for name in list_components(kind)[kind]:
            for param, spec in component_info(kind, name).params.items():
                texts = _bad_texts(spec)
                if texts:
                    axes.append((kind, name, param, texts))
    return axes


COMPONENT_AXES = _component_axes()
BASE = {"graph": "regular-3", "protocol": "adaptive-diffusion", "estimator": "jordan"}


@pytest.mark.timeout(300)
@EXAMPLES
@given(data=st.data())
def test_sweep_component_parameters_refuse_bad_values(data, tmp_path):
    # every parameter of every registered graph family, protocol and estimator
    kind, name, param, texts = data.draw(st.sampled_from(COMPONENT_AXES), label="axis")
    value = data.draw(st.sampled_from(texts), label="value")
    chosen = {**BASE, kind: name}
    argv = ["sweep", "detection", *(f"--set={k}={v}" for k, v in chosen.items()), "--set=T=2",
            f"--set={kind}.{param}={value}", "--trials=2", "--workers=1", "--no-plot", "--out", str(tmp_path)]
    assert_cli_error_naming(argv, f"{kind}.{param}")


@pytest.mark.timeout(300)
@EXAMPLES
@given(axis=st.sampled_from(["T", "graph", "protocol", "estimator", "fresh_graph"]), data=st.data())
def test_sweep_axes_refuse_bad_values(axis, data, tmp_path):
    if axis == "T":
        value = data.draw(st.sampled_from(["2.5", "abc", "true", "1e400", "-1", "nan"]))
    elif axis == "fresh_graph":
        value = data.draw(st.sampled_from(["2", "abc", "1.5"]))
    else:
        value = data.draw(st.text(alphabet="abcxyz-_0123", min_size=1, max_size=8))
        if value in harness.list_components(axis)[axis]:
            return
    chosen = {**BASE, "T": "2", axis: value}
    argv = ["sweep", "detection", *(f"--set={k}={v}" for k, v in chosen.items()),
            "--trials=2", "--workers=1", "--no-plot", "--out", str(tmp_path)]
    assert_cli_error_naming(argv, axis.lower())


_VALID = {"d0": 3, "protocol": AdaptiveDiffusion(), "p": 0.5, "mu": 1.0, "sigma2": 1.0, "obs": None,
          "snapshot": None}


def _estimator_cases() -> list[Case]:
    """Every registered estimator (snapshot and spy kinds), fed something that is not its observation."""
    import inspect

    cases = []
    for name, spec in {**adversaries.ESTIMATORS, **adversaries.SPY_ESTIMATORS}.items():
        sig = inspect.signature(spec.func).parameters
        first = next(iter(sig))
        rest = {p: _VALID[p] for p, v in sig.items() if p != first and v.default is inspect.Parameter.empty}
        cases.append(Case(f"estimator {name}", spec.func, {first: None, **rest}, {first: "graph"},
                          positional=(first,)))
    return cases


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", _estimator_cases(), ids=lambda c: c.name)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=st.data())
def test_estimators_refuse_what_is_not_an_observation(case, data):
    param = next(iter(case.params))
    value = data.draw(BAD["graph"], label="value")
    assert_project_error_naming(case, param, value, "")


# ----------------------------------------------------------------- edge-list tokens (issue 24)

_ASCII_INT = re.compile(r"-?[0-9]+", re.ASCII)


@pytest.mark.timeout(120)
@EXAMPLES
@given(tok=st.one_of(
    st.text(min_size=1, max_size=6),
    st.from_regex(r"-?[0-9]{1,6}", fullmatch=True),
    st.sampled_from(["1_000", "\u0661\u0662", "\uff11", "+5", "007", "1e3", "0x10", "\u00b2", "-0", "nan"]),
).filter(lambda t: not any(c.isspace() for c in t) and not t.startswith("#")
         and t.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == t))
def test_edge_list_tokens_parse_as_ascii_ints_or_are_refused(tok, tmp_path_factory):
    """A node token reads as an int only when it is ASCII digits (optionally signed '-');
    anything else is a GraphError naming the file, the line and the token."""
    path = tmp_path_factory.mktemp("tok") / "g.txt"
    path.write_text(f"0 1\n{tok} 1\n", encoding="utf-8")
    if _ASCII_INT.fullmatch(tok):
        g = from_edgelist(path)
        assert int(tok) in g.labels
    else:
        with pytest.raises(AnonspreadError) as info:
            from_edgelist(path)
        assert "line 2" in str(info.value) and repr(tok) in str(info.value)
