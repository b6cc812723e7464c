"""API contract: observations, Scores as a Mapping, pick, metrics, registry, errors, batch determinism."""

import math
from collections.abc import Mapping

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError


def test_snapshot_from_any_graph_kind_and_observe():
    G = nx.path_graph(["a", "b", "c", "d"])
    s = A.Snapshot(G, ["b", "c"], 1)
    assert s.n == 2 and list(s.nodes) == ["b", "c"]
    sc = A.ml_adaptive_diffusion(s, 2)
    assert set(sc) == {"b", "c"} and sc["b"] == pytest.approx(-math.log(2))
    sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, rng=0)
    snap = A.observe(sp)
    assert snap.infection_edges is None
    snap_e = A.observe(sp, reveal_edges=True)
    assert sorted(map(sorted, snap_e.infection_edges)) == sorted(map(sorted, sp.infection_edges()))
    again = A.Snapshot(sp.graph, sp.infected, 4, infection_edges=sp.infection_edges())
    np.testing.assert_array_equal(A.ml_adaptive_diffusion(again, 3).array,
                                  A.ml_adaptive_diffusion(snap, 3).array)  # fmt: skip


def test_scores_behave_as_a_mapping_and_pick_breaks_ties_uniformly():
    sc = A.jordan_center(A.Snapshot(nx.path_graph(4), range(4), 3))
    assert isinstance(sc, Mapping)
    assert dict(sc) == {0: -3.0, 1: -2.0, 2: -2.0, 3: -3.0}
    assert list(sc.values()) == [-3.0, -2.0, -2.0, -3.0] and 7 not in sc and len(sc) == 4
    picks = [A.pick(sc, rng=s) for s in range(400)]
    assert set(picks) == {1, 2} and 150 < picks.count(1) < 250
    assert A.pick(sc, rng=5) == A.pick(sc, rng=5)
    # ties within a tiny relative tolerance count (log-likelihoods from different paths)
    assert {A.pick({0: -10.0, 1: -10.0 * (1 + 1e-13)}, rng=s) for s in range(50)} == {0, 1}
    assert {A.pick({0: -10.0, 1: -10.0 * (1 + 1e-6)}, rng=s) for s in range(50)} == {0}


def test_metrics():
    G = nx.path_graph(7)
    sc = {1: -1.0, 2: 0.0, 3: 0.0, 4: -2.0}
    assert A.detection_probability(sc, 2) == 0.5 and A.detection_probability(sc, 4) == 0.0
    assert A.source_rank(sc, 2) == 1.5 and A.source_rank(sc, 4) == 4.0
    assert A.hop_distance(G, 1, 5) == 4
    ev = A.evaluate(G, sc, 4, rng=1)
    assert ev.estimate in (2, 3) and not ev.detected and ev.hops in (1, 2)
    post = A.posterior(A.exact_likelihood(A.Snapshot(G, [2, 3, 4], 2), spread.LineProtocol()))
    assert sum(post.values()) == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="log-likelihoods"):
        A.posterior(A.jordan_center(A.Snapshot(G, [2, 3], 1)))
    tree = spread.graphs.regular_tree(3)
    tree.neighbors(0), tree.neighbors(1), tree.neighbors(4)
    assert A.hop_distance(tree, 4, 2) == 3 and A.hop_distance(tree, 4, 4) == 0


def test_registry_declarations_and_refusals():
    ad = spread.AdaptiveDiffusion()
    assert A.applicable_estimators(ad, spread.graphs.regular_tree(3)) == [
        "exact", "jordan", "learned", "lisn", "ml", "netsleuth", "rumor", "soft-margin"]
    assert A.applicable_estimators(spread.RandomDiffusion(0.5), nx.cycle_graph(5), batch=True) == [
        "jordan", "lisn", "netsleuth", "rumor"]
    spec = A.get_estimator("ml")
    assert spec.likelihood and spec.batch and spec.protocols == frozenset({"adaptive-diffusion"})
    assert spec.params(spread.AdaptiveDiffusion(4), nx.path_graph(3)) == {"d0": 4}
    assert not A.get_estimator("jordan").likelihood and A.get_estimator("exact").batch is False
    with pytest.raises(InvalidParameterError, match="assumes a protocol in"):
        A.check_applicable("ml", spread.RandomDiffusion(0.5), nx.path_graph(5))
    with pytest.raises(InvalidParameterError, match="reveal_edges=True"):
        A.check_applicable("ml", ad, nx.cycle_graph(5))
    assert A.check_applicable("ml", ad, nx.cycle_graph(5), reveal_edges=True).name == "ml"
    with pytest.raises(InvalidParameterError, match="relay='tree'"):
        A.check_applicable("ml", spread.AdaptiveDiffusion(2, relay="graph"), nx.cycle_graph(5), reveal_edges=True)
    with pytest.raises(InvalidParameterError, match="did you mean 'jordan'"):
        A.get_estimator("jordn")
    with pytest.raises(InvalidParameterError, match="assumes a protocol"):
        A.simulate_and_score(nx.path_graph(9), spread.LineProtocol(), 3, 5, estimators=("ml",))
    with pytest.raises(InvalidParameterError, match="compiled"):
        A.simulate_and_score(nx.path_graph(9), spread.LineProtocol(), 3, 5, estimators=("exact",))
    with pytest.raises(InvalidParameterError, match="already registered"):
        A.register_estimator("ml", protocols=None)(lambda s: s)


def test_bad_input_errors_read_name_must_be():
    G = nx.path_graph(6)
    with pytest.raises(GraphError, match="connected"):
        A.Snapshot(G, [0, 1, 3], 2)
    with pytest.raises(GraphError, match="infected node must be a node of the graph; got 17"):
        A.Snapshot(G, [0, 17], 2)
    with pytest.raises(InvalidParameterError, match="T must be an integer >= 0; got -1"):
        A.Snapshot(G, [0, 1], -1)
    with pytest.raises(GraphError, match="at least one node"):
        A.Snapshot(G, [], 1)
    with pytest.raises(GraphError, match="once"):
        A.Snapshot(G, [1, 1], 1)
    with pytest.raises(GraphError, match="tree"):
        A.Snapshot(nx.path_graph(4), [0, 1, 2], 2, infection_edges=[(0, 1)])
    with pytest.raises(GraphError, match="edges of graph"):
        A.Snapshot(nx.path_graph(4), [0, 1, 2], 2, infection_edges=[(0, 1), (0, 2)])
    snap = A.Snapshot(G, [1, 2, 3], 2)
    with pytest.raises(InvalidParameterError, match=r"d0 must be a real number in \[2.0, inf\]; got 1.5"):
        A.ml_adaptive_diffusion(snap, 1.5)
    with pytest.raises(InvalidParameterError, match="possible outcome"):
        A.ml_adaptive_diffusion(A.Snapshot(G, [1, 2, 3, 4], 2), 2)  # 4 nodes cannot be a ball
    with pytest.raises(InvalidTypeError, match="Snapshot"):
        A.jordan_center([1, 2])
    with pytest.raises(GraphError, match="node id"):
        A.Snapshot(spread.graphs.line(), ["x"], 1)
    with pytest.raises(InvalidParameterError, match="trials must be an integer >= 1; got 0"):
        A.simulate_and_score(G, spread.RandomDiffusion(0.5), 2, 0)


def test_batch_is_deterministic_and_runs_the_same_spreads_as_simulate_many():
    g = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=1)
    proto = spread.AdaptiveDiffusion(3.5)
    a = A.simulate_and_score(g, proto, 8, 50, rng=9)
    b = A.simulate_and_score(g, proto, 8, 50, rng=9)
    for name in ("ml", "jordan", "rumor"):
        for field in ("detected", "detection_probability", "hops", "rank"):
            np.testing.assert_array_equal(getattr(a[name], field), getattr(b[name], field))
    many = spread.simulate_many(g, proto, 8, 50, rng=9)
    np.testing.assert_array_equal(a.n_infected, many.n_infected)
    G = nx.barabasi_albert_graph(300, 2, seed=1)
    c = A.simulate_and_score(G, spread.RandomDiffusion(0.4), 4, 30, rng=4)
    many = spread.simulate_many(G, spread.RandomDiffusion(0.4), 4, 30, rng=4)
    np.testing.assert_array_equal(c.n_infected, many.n_infected)
    np.testing.assert_array_equal(c.sources, many.sources)


@pytest.mark.parametrize(
    "G, proto, T",
    [
        (nx.random_labeled_tree(300, seed=3), spread.AdaptiveDiffusion(3), 7),
        (nx.random_labeled_tree(300, seed=4), spread.AdaptiveDiffusion(2.5), 8),
        (nx.connected_watts_strogatz_graph(200, 6, 0.2, seed=1), spread.AdaptiveDiffusion(math.inf), 6),
        (nx.barabasi_albert_graph(200, 2, seed=2), spread.RandomDiffusion(0.3), 3),
    ],
)
def test_batch_kernels_agree_with_the_per_snapshot_estimators(G, proto, T):
    names = A.applicable_estimators(proto, G, reveal_edges=True, batch=True)
    for src in (0, 17, 101):
        b = A.simulate_and_score(G, proto, T, 1, estimators=tuple(names), source=src, rng=src)
        sp = spread.simulate(G, proto, T, source=src, rng=src)
        assert b.n_infected[0] == sp.n_infected
        snap = A.observe(sp, reveal_edges=True)
        for name in names:
            spec = A.get_estimator(name)
            sc = spec.func(snap, **spec.params(proto, G))
            assert b[name].detection_probability[0] == pytest.approx(A.detection_probability(sc, src))
            assert b[name].rank[0] == pytest.approx(A.source_rank(sc, src))
            if b[name].detected[0]:
                assert b[name].hops[0] == 0


def test_simulate_and_score_runs_only_default_estimators_unless_named():
    tree = spread.graphs.regular_tree(3)
    ad = spread.AdaptiveDiffusion(3)
    opt_in = {n for n in A.applicable_estimators(ad, tree, batch=True)
              if not A.get_estimator(n).is_default(tree)}
    assert {"netsleuth", "lisn"} <= opt_in
    b = A.simulate_and_score(tree, ad, 4, 3, rng=0)
    assert set(b.estimators) == set(A.applicable_estimators(ad, tree, batch=True, default_only=True))
    assert not opt_in & set(b.estimators)
    named = A.simulate_and_score(tree, ad, 4, 3, rng=0, estimators=("netsleuth",))
    assert set(named.estimators) == {"netsleuth"}
