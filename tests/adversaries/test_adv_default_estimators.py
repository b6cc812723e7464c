"""Which estimators run when none is named (issue 32 item 3).

Rumour centrality is linear on trees (message passing) but costs one BFS of the snapshot's
2-core per candidate on a graph with cycles (growth exponent 2.5-2.6 in the infected count,
benchmarks/README.md). Per the registry's policy for estimators that grow faster than the
snapshot it is registered with ``default="tree"``: a default on tree contact graphs, opt-in
(run only when named) on graphs with cycles. Naming it keeps working everywhere.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import InvalidParameterError
from anonspread.harness.experiments.spreading import detection_trials, make_graph

RD = spread.RandomDiffusion(0.5)
TREES = [
    pytest.param(spread.graphs.regular_tree(3), id="regular-tree"),
    pytest.param(nx.random_labeled_tree(60, seed=2), id="finite-tree"),
    pytest.param(nx.disjoint_union(nx.path_graph(5), nx.star_graph(4)), id="forest"),
]
CYCLIC = [
    pytest.param(nx.cycle_graph(6), id="cycle"),
    pytest.param(nx.karate_club_graph(), id="karate"),
]


@pytest.mark.parametrize("graph", TREES)
def test_rumour_is_a_default_on_trees_and_forests(graph):
    assert A.get_estimator("rumor").is_default(graph)
    names = A.applicable_estimators(RD, graph, batch=True, default_only=True)
    assert "rumor" in names and "jordan" in names
    assert "netsleuth" not in names and "lisn" not in names


@pytest.mark.parametrize("graph", CYCLIC)
def test_rumour_is_opt_in_on_graphs_with_cycles(graph):
    assert not A.get_estimator("rumor").is_default(graph)
    assert A.get_estimator("jordan").is_default(graph)
    names = A.applicable_estimators(RD, graph, batch=True, default_only=True)
    assert "jordan" in names and "rumor" not in names
    # it still applies: only the default set changes
    assert "rumor" in A.applicable_estimators(RD, graph, batch=True)
    A.check_applicable("rumor", RD, graph)
    # the ML of adaptive diffusion over the revealed infection tree is still a default there
    ad = A.applicable_estimators(spread.AdaptiveDiffusion(), graph, reveal_edges=True, batch=True,
                                 default_only=True)
    assert ad == ["jordan", "ml"]


def test_simulate_and_score_default_set_follows_the_contact_graph():
    tree = nx.random_labeled_tree(60, seed=2)
    b = A.simulate_and_score(tree, RD, 3, 5, rng=0)
    assert set(b.estimators) == {"jordan", "rumor"}
    b = A.simulate_and_score(nx.karate_club_graph(), RD, 3, 5, rng=0)
    assert set(b.estimators) == {"jordan"}


def _fields(trials):
    return [getattr(trials, f) for f in ("detected", "detection_probability", "hops", "rank",
                                         "tree_hops")]


@pytest.mark.parametrize("graph", CYCLIC)
def test_rumour_named_on_a_graph_with_cycles_runs_as_before(graph):
    T, trials, seed = 5, 12, 7
    default = A.simulate_and_score(graph, RD, T, trials, rng=seed)
    named = A.simulate_and_score(graph, RD, T, trials, estimators=("jordan", "rumor"), rng=seed)
    alone = A.simulate_and_score(graph, RD, T, trials, estimators="rumor", rng=seed)
    assert "rumor" not in default.estimators
    assert set(named.estimators) == {"jordan", "rumor"} and set(alone.estimators) == {"rumor"}
    # the same spreads, and Jordan's results (its tie-breaking row comes first) unchanged by
    # rumour's absence from the default run
    np.testing.assert_array_equal(default.sources, named.sources)
    np.testing.assert_array_equal(default.n_infected, named.n_infected)
    for a, b in zip(_fields(default["jordan"]), _fields(named["jordan"])):
        np.testing.assert_array_equal(a, b)
    # rumour's per-trial numbers are those of top_and_rank on the same snapshots
    many = spread.simulate_many(graph, RD, T, trials, rng=seed)
    np.testing.assert_array_equal(many.sources, named.sources)
    cyclic_snapshots = 0
    for i in range(trials):
        src = int(named.sources[i])
        sp = spread.simulate(graph, RD, T, source=src, rng=100 + i)
        one = A.simulate_and_score(graph, RD, T, 1, estimators=("rumor",), source=src,
                                   rng=100 + i)
        assert one.n_infected[0] == sp.n_infected
        snap = A.observe(sp, reveal_edges=True)
        cyclic_snapshots += not snap.subgraph_is_tree()
        tr = A.top_and_rank(snap, "rumor", src)
        assert one["rumor"].detection_probability[0] == pytest.approx(tr.detection_probability)
        assert one["rumor"].rank[0] == pytest.approx(tr.rank)
    assert cyclic_snapshots  # the graph kernel of rumour centrality was exercised
    # and rumour alone gives the numbers it gives beside Jordan, but for its tie-breaking row
    for f in ("detection_probability", "rank", "n_infected"):
        src = alone["rumor"] if f != "n_infected" else alone
        dst = named["rumor"] if f != "n_infected" else named
        np.testing.assert_array_equal(getattr(src, f), getattr(dst, f))


def test_rumour_named_in_a_detection_sweep_on_a_graph_with_cycles():
    params = {"graph": "erdos-renyi", "graph.n": 80, "graph.mean_degree": 6.0,
              "protocol": "random-diffusion", "T": 3, "fresh_graph": False,
              "estimator": ("jordan", "rumor")}
    graph = make_graph(params)  # the point's graph (built once per process), with cycles
    assert "rumor" not in A.applicable_estimators(RD, graph, batch=True, default_only=True)
    out = detection_trials(params, 20, np.random.default_rng(3))
    assert set(out) == {"jordan", "rumor"}
    assert out["rumor"]["detection"].shape == (20,)
    np.testing.assert_array_equal(out["rumor"]["n_infected"], out["jordan"]["n_infected"])


@pytest.mark.parametrize("bad", ["sometimes", "Tree", "any", 1, 0, None])
def test_register_estimator_checks_default(bad):
    with pytest.raises(InvalidParameterError) as info:
        A.register_estimator("default-test", protocols=None, default=bad)
    msg = str(info.value)
    assert msg.startswith("default must be True, False or 'tree'")
    assert msg.endswith(f"got {bad!r}")
    assert "default-test" not in A.ESTIMATORS


@pytest.fixture
def tree_default_estimator():
    name = "default-tree-test"

    @A.register_estimator(name, protocols=None, default="tree")
    def infected_degree(snapshot):
        "Degree in the infected subgraph."
        indptr, _ = snapshot.subgraph()
        return A.Scores(snapshot.nodes, np.diff(indptr).astype(np.float64), "degree")

    try:
        yield name
    finally:
        A.ESTIMATORS.remove(name)


def test_a_registered_tree_default_follows_the_rule(tree_default_estimator):
    name = tree_default_estimator
    spec = A.get_estimator(name)
    assert spec.default == "tree"
    tree, forest = nx.random_labeled_tree(30, seed=1), nx.disjoint_union(nx.path_graph(3),
                                                                         nx.path_graph(4))
    for g in (tree, forest, spread.graphs.regular_tree(4), spread.graphs.line()):
        assert spec.is_default(g)
        assert name in A.applicable_estimators(RD, g, default_only=True)
    for g in (nx.cycle_graph(7), nx.karate_club_graph(), nx.complete_graph(4)):
        assert not spec.is_default(g)
        assert name not in A.applicable_estimators(RD, g, default_only=True)
        assert name in A.applicable_estimators(RD, g)  # it applies, and runs when named
        assert A.check_applicable(name, RD, g) is spec
    # True and False are unchanged: jordan everywhere, netsleuth nowhere
    for g in (tree, nx.cycle_graph(7)):
        assert A.get_estimator("jordan").is_default(g)
        assert not A.get_estimator("netsleuth").is_default(g)


def test_applicable_estimators_converts_a_networkx_graph_once(monkeypatch):
    from anonspread.spread import graphs

    calls = []
    real = graphs.from_networkx

    def counting(g, *args, **kwargs):
        calls.append(g)
        return real(g, *args, **kwargs)

    monkeypatch.setattr(graphs, "from_networkx", counting)
    names = A.applicable_estimators(RD, nx.karate_club_graph(), batch=True, default_only=True)
    assert names == ["jordan"]
    assert len(calls) == 1
