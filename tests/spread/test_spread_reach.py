"""Stopping by reach (issue 32, item 4): the snapshot is the first step with >= k infected.

Every compiled protocol is stopped in its kernel; the stopped run is the same run as one
of exactly that many steps (same seed), the step before had < k infected, the step is
recorded per trial, a run that never gets there is marked, and bad rules are refused.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, spread
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import from_networkx
from anonspread.spread.reach import Reach, parse_reach, reach_targets

GRAPH = from_networkx(nx.powerlaw_cluster_graph(400, 3, 0.3, seed=5))
PROTOCOLS = {
    "flooding": spread.Flooding(),
    "random-diffusion": spread.RandomDiffusion(0.3),
    "adaptive-diffusion": spread.AdaptiveDiffusion(math.inf, 3),
    "adaptive-diffusion-pass": spread.AdaptiveDiffusion(math.inf, 3, infectors="leaves", stuck="pass"),
    "tree-pseudocode": spread.TreeProtocolPseudocode(),
}


def _assert_exact(s, k, cap):
    assert s.reached is True and s.stop == Reach("infected", k)
    assert s.sizes[-1] == s.n_infected >= k
    assert s.T == 0 or s.sizes[-2] < k
    assert s.T <= cap and s.sizes.shape[0] == s.T + 1
    assert s.times.max() <= s.T


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_stop_is_the_first_step_with_k_infected_and_the_same_run(name):
    proto = PROTOCOLS[name]
    hits = 0
    for seed in range(12):
        k = 5 + 7 * seed
        s = spread.simulate(GRAPH, proto, 200, rng=seed, stop=f"infected:{k}")
        if not s.reached:  # adaptive diffusion can stall on a graph with cycles: marked
            assert s.T == 200 and s.n_infected < k
            continue
        _assert_exact(s, k, 200)
        hits += 1
        # the same seed run for exactly s.T steps is the same spread: stopping draws nothing
        ref = spread.simulate(GRAPH, proto, s.T, rng=seed)
        assert ref == s and np.array_equal(ref.sizes, s.sizes)
    assert hits >= 8


def test_stop_on_an_infinite_tree_relays_and_matches_the_closed_form():
    tree = spread.graphs.regular_tree(3)
    for seed in range(10):
        s = spread.simulate(tree, spread.AdaptiveDiffusion(), 40, rng=seed, stop="infected:30")
        _assert_exact(s, 30, 40)
        # the closed-form path names the nodes of its fresh tree in another order: compare
        # what does not depend on names (counts per step, infection times)
        ref = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), s.T, rng=seed)
        assert np.array_equal(ref.sizes, s.sizes)
        assert sorted(ref.times.tolist()) == sorted(s.times.tolist())


def test_overshoot_is_kept_and_recorded():
    # flooding a 4-regular tree from the root: 1, 5, 17, 53 -- k = 6 stops at 17
    s = spread.simulate(spread.graphs.regular_tree(4), spread.Flooding(), 10, stop="infected:6")
    assert (s.T, s.n_infected, s.sizes.tolist()) == (2, 17, [1, 5, 17])
    s = spread.simulate(spread.graphs.regular_tree(4), spread.Flooding(), 10, stop="infected:1")
    assert (s.T, s.n_infected) == (0, 1)


def test_never_reached_by_the_cap_is_marked_per_trial():
    path = from_networkx(nx.path_graph(30))
    s = spread.simulate(path, spread.Flooding(), 5, source=0, stop="infected:20")
    assert (s.reached, s.T, s.n_infected) == (False, 5, 6)
    b = spread.simulate_many(path, spread.Flooding(), 12, 50, rng=1, stop="infected:20")
    # from the middle 12 steps of flooding reach 20 nodes; from an end they cannot
    src = b.sources.astype(int)
    expect = np.minimum(src, 12) + np.minimum(29 - src, 12) + 1 >= 20
    assert np.array_equal(b.reached, expect) and 0 < b.reached.sum() < 50
    assert np.all(b.steps[~b.reached] == 12) and np.all(b.n_infected[~b.reached] < 20)


def test_coverage_is_a_fraction_of_the_sources_component():
    g = from_networkx(nx.disjoint_union(nx.cycle_graph(10), nx.path_graph(4)))
    assert reach_targets(parse_reach("coverage:0.5"), g, np.array([0, 12])).tolist() == [5, 2]
    b = spread.simulate_many(g, spread.Flooding(), 20, 40, rng=3, stop="coverage:1")
    comp = np.where(b.sources.astype(int) < 10, 10, 4)
    assert b.reached.all() and np.array_equal(b.n_infected, comp)
    assert np.array_equal(b.targets, comp)


def test_batch_records_each_trials_step_and_matches_the_fused_loop():
    proto = spread.RandomDiffusion(0.3)
    b = spread.simulate_many(GRAPH, proto, 60, 80, rng=7, stop="infected:60")
    rows = np.arange(80)
    assert b.reached.all()
    assert np.all(b.sizes[rows, b.steps] >= 60) and np.all(b.sizes[rows, b.steps - 1] < 60)
    assert np.array_equal(b.n_infected, b.sizes[rows, b.steps])
    assert len(set(b.steps.tolist())) > 1  # the steps differ per trial
    sc = adversaries.simulate_and_score(GRAPH, proto, 60, 80, estimators=("jordan", "rumor"), rng=7,
                                        stop="infected:60")
    assert np.array_equal(sc.steps, b.steps) and np.array_equal(sc.n_infected, b.n_infected)
    assert np.array_equal(sc.reached, b.reached)


def test_estimators_get_each_trials_step_as_T():
    # adaptive diffusion on the 3-regular tree: at even t the snapshot is a ball and the ML
    # detection probability is exactly 1 / (N_t - 1) (Thm 2.3.1), with t the trial's own step
    tree = spread.graphs.regular_tree(3)
    kw = dict(estimators=("ml", "jordan"), rng=4, stop="infected:40")
    sc = adversaries.simulate_and_score(tree, spread.AdaptiveDiffusion(), 30, 300, **kw)
    even = sc.steps % 2 == 0
    assert 0 < even.sum() < 300  # both parities occur: the groups are scored separately
    assert np.allclose(sc["ml"].detection_probability[even], 1.0 / (sc.n_infected[even] - 1))
    # chunking (one trial per chunk) and the general message passing change nothing
    for other in (dict(chunk_nodes=1), dict(known_centre=False)):
        alt = adversaries.simulate_and_score(tree, spread.AdaptiveDiffusion(), 30, 300, **kw, **other)
        for e in ("ml", "jordan"):
            for f in ("detected", "detection_probability", "hops", "rank"):
                assert np.array_equal(getattr(sc[e], f), getattr(alt[e], f)), (other, e, f)


@pytest.mark.parametrize("bad, match", [
    ("infected:0", "K >= 1"), ("infected:-3", "K >= 1"), ("infected:2.5", "integer K"),
    ("coverage:1.5", "0 < F <= 1"), ("coverage:0", "0 < F <= 1"), ("coverage:nan", "0 < F <= 1"),
    ("reach:10", "'infected:K'"), ("infected", "'infected:K'"), ("1000", "'infected:K'"),
])
def test_bad_rules_are_refused_naming_what_is_accepted(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        parse_reach(bad)
    with pytest.raises(InvalidParameterError, match=match):
        spread.simulate(GRAPH, spread.Flooding(), 3, rng=0, stop=bad)
    with pytest.raises(InvalidParameterError, match=match):
        adversaries.simulate_and_score(GRAPH, spread.Flooding(), 3, 2, estimators=("jordan",),
                                       rng=0, stop=bad)


def test_bad_kinds_and_coverage_on_an_infinite_tree():
    with pytest.raises(InvalidTypeError, match="stop must be a string"):
        parse_reach(1000)
    with pytest.raises(GraphError, match="finite graph"):
        spread.simulate_many(spread.graphs.regular_tree(3), spread.Flooding(), 3, 2, stop="coverage:0.5")
    assert parse_reach(None) is None and parse_reach("none") is None
    assert str(parse_reach(" Coverage:0.50 ")) == "coverage:0.5"


def test_engine_entry_points_check_the_stop_arrays():
    from anonspread.engine.spreading import run_batch, run_protocol

    store = GRAPH.take_store()
    try:
        vs, sizes = np.empty(4, np.int32), np.empty(4, np.int64)
        with pytest.raises(ValueError, match="stop must be >= 0"):
            run_protocol(0, store, 0, 3, [], np.random.default_rng(0), vs, sizes, -1)
        src = np.zeros(3, np.int32)
        with pytest.raises(ValueError, match="an entry per trial"):
            run_batch(0, store, False, src, np.zeros(3, np.uint64), 3, [], np.random.default_rng(0),
                      np.empty((3, 4), np.int64), np.empty(3, np.int32), np.empty(3, np.int32),
                      stops=np.array([5, 5]))
    finally:
        GRAPH.give_store(store)
