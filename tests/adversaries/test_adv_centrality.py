"""Jordan centre and rumour centrality against networkx references and closed forms."""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread


def _nx_rumor(G, v):
    """Shah & Zaman's closed form on a tree: n! / prod of subtree sizes rooted at v."""
    T = nx.bfs_tree(G, v)
    size = {}
    for x in reversed(list(nx.topological_sort(T))):
        size[x] = 1 + sum(size[c] for c in T.successors(x))
    return math.lgamma(G.number_of_nodes() + 1) - sum(math.log(s) for s in size.values())


def _connected_subset(G, k, rng):
    start = int(rng.integers(G.number_of_nodes()))
    nodes = list(nx.bfs_tree(G, start))[:k]
    return nodes


@pytest.mark.parametrize("seed", range(6))
def test_jordan_matches_networkx_eccentricity(seed):
    rng = np.random.default_rng(seed)
    graphs = [
        nx.random_labeled_tree(40, seed=seed),
        nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=seed),
        nx.barabasi_albert_graph(80, 2, seed=seed),
    ]
    for G in graphs:
        S = _connected_subset(G, 30, rng)
        sc = A.jordan_center(A.Snapshot(G, S, T=5))
        ecc = nx.eccentricity(G.subgraph(S))
        assert {v: -float(e) for v, e in ecc.items()} == dict(sc)


@pytest.mark.parametrize("seed", range(4))
def test_rumor_matches_closed_form_on_trees(seed):
    rng = np.random.default_rng(seed)
    G = nx.random_labeled_tree(60, seed=seed)
    S = _connected_subset(G, 35, rng)
    sub = G.subgraph(S)
    sc = A.rumor_centrality(A.Snapshot(G, S, T=3))
    for v in S:
        assert sc[v] == pytest.approx(_nx_rumor(sub, v), rel=1e-12, abs=1e-12)


def test_rumor_on_graphs_with_cycles_uses_the_bfs_tree_of_each_candidate():
    G = nx.connected_watts_strogatz_graph(40, 4, 0.2, seed=5)
    S = list(G)
    sc = A.rumor_centrality(A.Snapshot(G, S, T=3))
    for v in S[:10]:
        # the BFS tree visiting neighbours in increasing label order, as the kernel does
        bfs, seen, queue = nx.Graph(), {v}, [v]
        for x in queue:
            for w in sorted(G[x]):
                if w not in seen:
                    seen.add(w)
                    bfs.add_edge(x, w)
                    queue.append(w)
        assert sc[v] == pytest.approx(_nx_rumor(bfs, v), rel=1e-12)


@pytest.mark.parametrize("n_half", [500, 50_000, 500_000])
def test_rumor_and_jordan_exact_on_long_paths(n_half):
    # flooding on the line infects a path of 2 T + 1 nodes: 10^3, 10^5, 10^6
    sp = spread.simulate(spread.graphs.line(), spread.Flooding(), n_half)
    n = sp.n_infected
    assert n == 2 * n_half + 1
    g = sp.graph
    pos = np.array([g.position(int(v)) for v in sp.infected[:50]])
    snap = A.observe(sp)
    sc = A.rumor_centrality(snap)
    assert np.all(np.isfinite(sc.array))
    k = pos + n_half  # offset from the left end
    # on a path rooted at offset k: R = C(n - 1, k)
    expect = np.array([math.lgamma(n) - math.lgamma(x + 1) - math.lgamma(n - x) for x in k])
    np.testing.assert_allclose(sc.array[:50], expect, rtol=1e-12)
    jc = A.jordan_center(snap)
    np.testing.assert_array_equal(jc.array[:50], -(n_half + np.abs(pos)).astype(float))
    assert A.pick(jc, rng=0) == sp.source


def test_rumor_on_a_big_star_and_random_tree():
    n = 100_000
    G = nx.star_graph(n - 1)
    sc = A.rumor_centrality(A.Snapshot(G, range(n), T=1))
    assert sc[0] == pytest.approx(math.lgamma(n), rel=1e-13)  # (n - 1)!
    assert sc[5] == pytest.approx(math.lgamma(n - 1), rel=1e-13)  # (n - 2)!
    # a 10^3-node random tree against the closed form, every node
    T = nx.random_labeled_tree(1000, seed=2)
    sc = A.rumor_centrality(A.Snapshot(T, range(1000), T=1))
    for v in range(0, 1000, 37):
        assert sc[v] == pytest.approx(_nx_rumor(T, v), rel=1e-12)
