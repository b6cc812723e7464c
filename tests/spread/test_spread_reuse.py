"""Runs on a ContactGraph reuse one node store: results must not depend on earlier runs."""

import math
import pickle

import networkx as nx
import numpy as np

from anonspread import spread
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
)

PROTOCOLS = [AdaptiveDiffusion(math.inf, 3), AdaptiveDiffusion(math.inf, 2, relay="graph"),
             RandomDiffusion(0.5), Flooding(), LineProtocol(), TreeProtocol()]


def fresh_graph():
    return spread.graphs.from_networkx(nx.random_regular_graph(4, 300, seed=7))


def assert_clean(g):
    ns = g._stores[0].ns
    clean = g._new_store().ns
    assert np.array_equal(ns, clean)


def test_reused_store_gives_the_runs_of_a_fresh_graph_and_is_left_clean():
    g = fresh_graph()
    for k, proto in enumerate(PROTOCOLS):
        for seed in range(3):
            a = spread.simulate(g, proto, 5, rng=seed + 10 * k)
            assert_clean(g)
            b = spread.simulate(fresh_graph(), proto, 5, rng=seed + 10 * k)
            assert np.array_equal(a.infected, b.infected)
            assert np.array_equal(a.times, b.times)
            assert np.array_equal(a.parent_position, b.parent_position)
        m = spread.simulate_many(g, proto, 4, 20, rng=k)
        assert_clean(g)
        m2 = spread.simulate_many(fresh_graph(), proto, 4, 20, rng=k)
        assert np.array_equal(m.sizes, m2.sizes)


def test_pickled_graph_leaves_its_run_caches_behind():
    g = fresh_graph()
    spread.simulate(g, PROTOCOLS[0], 4, rng=1)
    assert len(g._stores) == 1
    h = pickle.loads(pickle.dumps(g))
    assert h._stores == []
    assert np.array_equal(spread.simulate(h, PROTOCOLS[0], 4, rng=2).infected,
                          spread.simulate(g, PROTOCOLS[0], 4, rng=2).infected)
