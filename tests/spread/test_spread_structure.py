"""Invariants of the traces: infection trees, adaptive diffusion's balls, caps, determinism."""

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest

from anonspread import datasets, spread
from anonspread.spread.graphs import line, random_tree, regular_tree
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
)

ALL_PROTOCOLS = [
    Flooding(),
    RandomDiffusion(0.4),
    LineProtocol(),
    TreeProtocol(),
    AdaptiveDiffusion(d0=3),
]


def realised_tree(g):
    """The touched part of a lazy tree as a networkx graph."""
    G = nx.Graph()
    for v in range(g.number_of_touched_nodes()):
        p = g.parent(v)
        G.add_node(v)
        if p is not None:
            G.add_edge(p, v)
    return G


def check_trace(s, G):
    """Infection tree invariants common to every protocol."""
    inf = s.infected.tolist()
    assert len(set(inf)) == len(inf)
    assert inf[0] == s.source and s.parent[s.source] is None
    assert s.times[0] == 0 and np.all(np.diff(s.times) >= 0)
    assert s.times.max(initial=0) <= s.T
    for p, c in s.infection_edges():
        assert G.has_edge(p, c)
        assert s.infection_time[p] < s.infection_time[c]
    # sizes are the running counts
    assert s.sizes[-1] == len(inf)
    assert np.all(np.diff(s.sizes) >= 0)
    assert np.array_equal(s.sizes, [np.sum(s.times <= t) for t in range(s.T + 1)])


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS, ids=repr)
def test_traces_on_trees_and_graphs(protocol):
    g = random_tree({2: 0.2, 3: 0.5, 5: 0.3}, rng=1)
    s = spread.simulate(g, protocol, 7, rng=2)
    check_trace(s, realised_tree(g))
    G = nx.connected_watts_strogatz_graph(200, 6, 0.2, seed=1)
    s = spread.simulate(G, protocol if not isinstance(protocol, AdaptiveDiffusion)
                        else AdaptiveDiffusion(d0=6), 6, rng=3)
    check_trace(s, G)


@pytest.mark.parametrize("d", [2, 3, 4])
@pytest.mark.parametrize("T", [1, 3, 5, 7, 9])
def test_adaptive_diffusion_odd_T_shape(d, T):
    """Odd T: keep -> ball of radius (T+1)/2; pass -> old ball plus one level on the new side."""
    for seed in range(6):
        g = regular_tree(d)
        s = spread.simulate(g, AdaptiveDiffusion(), T, rng=seed)
        G = realised_tree(g)
        r = (T - 1) // 2
        v_prev = s.virtual_source_history[T - 1]
        v = s.virtual_source
        dist_prev = nx.single_source_shortest_path_length(G, v_prev)
        dist = nx.single_source_shortest_path_length(G, v)
        if T == 1:
            expect = {0, v}
        elif v == v_prev:
            expect = {w for w, k in dist.items() if k <= r + 1}
        else:
            side = {w for w, k in dist.items() if dist_prev.get(w, 0) == k + 1}
            expect = {w for w, k in dist_prev.items() if k <= r} | {
                w for w in side if dist[w] <= r
            }
        assert set(s.infected.tolist()) == expect


def test_virtual_source_history_is_a_non_backtracking_walk():
    g = random_tree({3: 0.5, 4: 0.5}, rng=7)
    s = spread.simulate(g, AdaptiveDiffusion(d0=3), 20, rng=8)
    hist = s.virtual_source_history.tolist()
    walk = [hist[0]] + [b for a, b in zip(hist, hist[1:]) if a != b]
    G = realised_tree(g)
    for a, b in zip(walk, walk[1:]):
        assert G.has_edge(a, b)
    assert len(set(walk)) == len(walk)  # never returns
    # moves happen only at odd steps (t = 1 and then t >= 3)
    assert all(t % 2 == 1 for t in range(1, 21) if hist[t] != hist[t - 1])


@pytest.fixture(scope="module")
def facebook():
    return datasets.load_graph("ego-facebook", min_degree=3)


@pytest.mark.parametrize("relay", ["tree", "graph"])
def test_adaptive_diffusion_on_facebook(facebook, relay):
    G = facebook
    cap = 3
    reached = []
    for seed in range(5):
        s = spread.simulate(G, AdaptiveDiffusion(math.inf, cap, relay=relay), 10, rng=seed)
        check_trace(s, G)
        assert nx.is_connected(G.subgraph(s.infected.tolist()))
        per_step = Counter((s.parent[c], s.infection_time[c]) for c in s.infected[1:].tolist())
        assert max(per_step.values()) <= cap
        reached.append(s.n_infected / G.number_of_nodes())
    b = spread.simulate_many(G, AdaptiveDiffusion(math.inf, cap, relay=relay), 10, 300, rng=11)
    frac = b.sizes.mean(axis=0) / G.number_of_nodes()
    assert np.all(np.diff(frac) >= 0)
    print(f"relay={relay}: mean fraction of ego-Facebook reached by t = 0..10: {np.round(frac, 3)}")
    assert frac[-1] > 0.01


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS, ids=repr)
@pytest.mark.parametrize(
    "make_graph",
    [line, lambda: regular_tree(3), lambda: random_tree({3: 0.5, 4: 0.5}, rng=5),
     lambda: nx.connected_watts_strogatz_graph(300, 4, 0.1, seed=2)],
    ids=["line", "regular", "random", "watts-strogatz"],
)
def test_same_seed_same_spread(protocol, make_graph):
    g1, g2 = make_graph(), make_graph()
    if not isinstance(g1, nx.Graph) and isinstance(protocol, AdaptiveDiffusion):
        protocol = AdaptiveDiffusion(d0=3)
    if isinstance(g1, nx.Graph) and isinstance(protocol, AdaptiveDiffusion):
        protocol = AdaptiveDiffusion(d0=4, max_infections_per_step=2)
    a = spread.simulate(g1, protocol, 8, rng=42)
    b = spread.simulate(g2, protocol, 8, rng=42)
    assert a == b
    # the same object again: its realisation is reused, the result is the same
    assert spread.simulate(g1, protocol, 8, rng=42) == a
    m1 = spread.simulate_many(g1, protocol, 6, 50, rng=np.random.default_rng(9))
    m2 = spread.simulate_many(g2, protocol, 6, 50, rng=np.random.default_rng(9))
    assert np.array_equal(m1.sizes, m2.sizes) and np.array_equal(m1.vs_hops, m2.vs_hops)


def test_random_tree_realisation_depends_only_on_its_seed():
    """Degrees are keyed on position: two explorations in different orders agree."""
    a = random_tree({2: 0.3, 3: 0.3, 6: 0.4}, rng=123)
    b = random_tree({2: 0.3, 3: 0.3, 6: 0.4}, rng=123)
    spread.simulate(a, spread.Flooding(), 4)
    spread.simulate(b, spread.Flooding(), 2)
    deg_a = sorted(a.degree(v) for v in a.neighbors(0))
    deg_b = sorted(b.degree(v) for v in b.neighbors(0))
    assert deg_a == deg_b
    c = random_tree({2: 0.3, 3: 0.3, 6: 0.4}, rng=124)
    sizes = {tuple(spread.simulate(x, spread.Flooding(), 5).sizes) for x in (a, c)}
    assert len(sizes) == 2  # a different seed is a different tree (overwhelmingly likely)


def test_batch_matches_single_runs_in_distribution():
    g = regular_tree(3)
    b = spread.simulate_many(g, RandomDiffusion(0.5), 6, 3000, rng=1)
    singles = [spread.simulate(regular_tree(3), RandomDiffusion(0.5), 6, rng=s).n_infected
               for s in range(600)]
    se = math.hypot(b.n_infected.std() / math.sqrt(3000), np.std(singles) / math.sqrt(600))
    assert abs(b.n_infected.mean() - np.mean(singles)) < 4 * se
    # E[N_T] of random diffusion on a d-regular tree grows as the thesis says at T = 1
    b1 = spread.simulate_many(g, RandomDiffusion(0.5), 1, 4000, rng=2)
    assert abs(b1.n_infected.mean() - 2.5) < 4 * b1.n_infected.std() / math.sqrt(4000)


def test_labels_are_kept_for_networkx_graphs():
    G = nx.relabel_nodes(nx.cycle_graph(12), {i: f"n{i}" for i in range(12)})
    s = spread.simulate(G, Flooding(), 3, source="n0")
    assert s.source == "n0"
    assert set(s.infected.tolist()) == {"n0", "n1", "n2", "n3", "n9", "n10", "n11"}
    assert s.parent["n1"] == "n0"
