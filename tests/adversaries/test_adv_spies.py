"""The spy adversary: observation, drawing spies, first-spy, ml-spies, snapshot + spies."""

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.spies import (
    SPY_ESTIMATORS,
    draw_spies,
    first_spy,
    get_spy_estimator,
    ml_snapshot_spies,
    ml_spies_diffusion,
    observe_spies,
)
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.events import simulate_messages


def test_first_spy_on_a_line_with_every_node_a_spy_finds_the_source():
    for seed in range(60):
        g = nx.path_graph(61)
        run = simulate_messages(g, spread.RandomDiffusion(0.5), 20, source=30, rng=seed)
        obs = observe_spies(run, list(g))
        sc = first_spy(obs)
        assert A.detection_probability(sc, 30) == 1.0
        assert A.pick(sc, rng=seed) == 30


def test_observation_records_first_receipt_and_sender():
    g = nx.path_graph(9)
    run = simulate_messages(g, spread.Flooding(), 3, source=4, rng=0)
    obs = observe_spies(run, [0, 2, 6, 8])
    assert obs.time.tolist() == [np.inf, 2.0, 2.0, np.inf]
    assert obs.sender == [None, 3, 5, None]
    assert obs.kind == [None, "infect", "infect", None]


def test_spy_estimators_refuse_without_spies():
    run = simulate_messages(spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 3, rng=1)
    obs = observe_spies(run, [])
    for name in SPY_ESTIMATORS:
        with pytest.raises(InvalidParameterError, match="spies must be a non-empty set of nodes"):
            spec = get_spy_estimator(name)
            if spec.observation == "snapshot+spies":
                spec.func(A.observe(run.spread), obs, 3)
            else:
                spec.func(obs, **spec.params(run.spread.protocol, run.spread.graph))
    with pytest.raises(InvalidTypeError, match="observation must be a SpyObservation"):
        first_spy(A.observe(run.spread))
    with pytest.raises(InvalidTypeError, match="run must be"):
        observe_spies(run.spread, [1])
    with pytest.raises(InvalidParameterError, match="by must be"):
        draw_spies(nx.path_graph(5), 0.2, by="pagerank")
    with pytest.raises(InvalidParameterError, match="estimator must be one of"):
        get_spy_estimator("nope")


def test_registry_declares_spy_observations():
    assert {s.observation for s in SPY_ESTIMATORS.values()} == {"spies", "snapshot+spies"}
    assert get_spy_estimator("ml-spies").protocols == frozenset({"random-diffusion"})
    assert get_spy_estimator("ml-spies").likelihood and get_spy_estimator("ml-spies").graphs == "tree"
    assert get_spy_estimator("first-spy").protocols is None
    run = simulate_messages(nx.cycle_graph(12), spread.RandomDiffusion(0.5), 3, rng=0)
    with pytest.raises(InvalidParameterError, match="needs a tree"):
        ml_spies_diffusion(observe_spies(run, [3, 6]), 0.5)
    run = simulate_messages(nx.path_graph(12), spread.Flooding(), 3, rng=0)
    with pytest.raises(InvalidParameterError, match="assumes a protocol"):
        ml_spies_diffusion(observe_spies(run, [3, 6]), 0.5)


def test_draw_spies_is_seeded_and_sized():
    G = nx.barabasi_albert_graph(500, 2, seed=1)
    a, b = draw_spies(G, 0.1, rng=3), draw_spies(G, 0.1, rng=3)
    assert np.array_equal(a, b) and a.shape == (50,) and np.unique(a).shape == (50,)
    deg = dict(G.degree)
    hubs = [np.mean([deg[v] for v in draw_spies(G, 0.1, by="degree", rng=s)]) for s in range(20)]
    unif = [np.mean([deg[v] for v in draw_spies(G, 0.1, rng=s)]) for s in range(20)]
    assert np.mean(hubs) > np.mean(unif)
    tree = spread.graphs.regular_tree(3)
    simulate_messages(tree, spread.Flooding(), 4)
    frac = np.mean([draw_spies(tree, 0.3, rng=s).shape[0] / tree.number_of_touched_nodes()
                    for s in range(50)])
    assert abs(frac - 0.3) < 0.03


def test_ml_spies_never_rules_out_the_source_and_beats_first_spy():
    rng = np.random.default_rng(0)
    first, ml = [], []
    for _ in range(300):
        g = spread.graphs.regular_tree(3)
        run = simulate_messages(g, spread.RandomDiffusion(0.5), 4, rng=rng)
        obs = observe_spies(run, draw_spies(g, 0.3, rng=rng))
        if obs.n_spies == 0:
            continue
        sc = ml_spies_diffusion(obs, 0.5)
        assert sc.is_likelihood and sc[run.spread.source] > -np.inf
        first.append(A.detection_probability(first_spy(obs), run.spread.source))
        ml.append(A.detection_probability(sc, run.spread.source))
    assert np.mean(ml) > np.mean(first) + 0.05


def test_ml_spies_likelihood_sums_to_one_over_observations_on_a_small_line():
    """On the path 0..6 with the source at 3 and spies {1, 5}, T = 3: the likelihoods of
    every possible observation (each spy: a time 1..3 or nothing) sum to one."""
    from anonspread.adversaries.spies import SpyObservation

    g = spread.graphs.from_networkx(nx.path_graph(7))
    p, T = 0.4, 3
    total = 0.0
    outcomes = [np.inf, 2.0, 3.0]  # spies at distance 2: times 2..3 or not by T
    for t1 in outcomes:
        for t5 in outcomes:
            obs = SpyObservation(graph=g, T=T, spies=np.array([1, 5]), spy_index=np.array([1, 5]),
                                 time=np.array([t1, t5]),
                                 sender=[None if np.isinf(t1) else 2, None if np.isinf(t5) else 4],
                                 kind=[None, None], protocol=spread.RandomDiffusion(p))
            total += np.exp(ml_spies_diffusion(obs, p)[3])
    assert total == pytest.approx(1.0, abs=1e-12)


def test_snapshot_plus_spies_for_adaptive_diffusion():
    rng = np.random.default_rng(1)
    snap_only, both = [], []
    for _ in range(300):
        g = spread.graphs.regular_tree(3)
        run = simulate_messages(g, spread.AdaptiveDiffusion(), 6, rng=rng)
        snap = A.observe(run.spread)
        obs = observe_spies(run, draw_spies(g, 0.2, rng=rng))
        if obs.n_spies == 0:
            continue
        sc = ml_snapshot_spies(snap, obs, 3)
        src = run.spread.source
        assert sc.is_likelihood and sc[src] > -np.inf and set(sc) == set(run.spread.infected.tolist())
        snap_only.append(A.detection_probability(A.ml_adaptive_diffusion(snap, 3), src))
        both.append(A.detection_probability(sc, src))
    assert np.mean(both) > np.mean(snap_only)
