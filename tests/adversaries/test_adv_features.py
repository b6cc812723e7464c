"""The learned adversary's compiled node features: distance sums and eccentricities, and the
rumour centrality of every node on a BFS tree rooted at it (``bfs_rumor``).

The bit-parallel breadth-first searches (64 sources a word, the default) give the same
arrays as one search per node and as networkx, on random connected graphs with cycles, on
trees (the rerooting path) and on the smallest cases.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from anonspread.engine.features import bfs_rumor, distance_sums
from anonspread.engine.rumor import graph_rumor, tree_rumor
from anonspread.errors import AnonspreadError, InvalidTypeError


def _csr(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    n = g.number_of_nodes()
    a = nx.to_scipy_sparse_array(g, nodelist=range(n), format="csr")
    return a.indptr.astype(np.int64), a.indices.astype(np.int32)


def _both(g: nx.Graph) -> tuple[np.ndarray, ...]:
    ip, ix = _csr(g)
    n = g.number_of_nodes()
    out = [np.full(n, -7, np.int64) for _ in range(4)]
    distance_sums(ip, ix, out[0], out[1])
    distance_sums(ip, ix, out[2], out[3], bitparallel=False)
    return tuple(out)


def _networkx(g: nx.Graph) -> tuple[list[int], list[int]]:
    d = dict(nx.all_pairs_shortest_path_length(g))
    n = g.number_of_nodes()
    return [sum(d[v].values()) for v in range(n)], [max(d[v].values()) for v in range(n)]


def test_bitparallel_equals_one_search_per_node_and_networkx():
    rng = np.random.default_rng(2026)
    checked = 0
    for _ in range(60):
        n = int(rng.integers(2, 300))  # across the 64-source word boundaries
        g = nx.gnp_random_graph(n, float(rng.uniform(0.01, 0.25)), seed=int(rng.integers(2**31)))
        g = nx.convert_node_labels_to_integers(g.subgraph(max(nx.connected_components(g), key=len)))
        if g.number_of_nodes() < 2 or nx.is_tree(g):
            continue
        tot, ecc, tot_ref, ecc_ref = _both(g)
        assert np.array_equal(tot, tot_ref) and np.array_equal(ecc, ecc_ref)
        want_tot, want_ecc = _networkx(g)
        assert tot.tolist() == want_tot and ecc.tolist() == want_ecc
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("g", [nx.cycle_graph(3), nx.cycle_graph(64), nx.cycle_graph(65),
                               nx.complete_graph(5), nx.path_graph(2), nx.balanced_tree(2, 5),
                               nx.convert_node_labels_to_integers(nx.grid_2d_graph(9, 8))],
                         ids=["C3", "C64", "C65", "K5", "P2", "tree", "grid"])
def test_small_and_boundary_cases(g):
    tot, ecc, tot_ref, ecc_ref = _both(g)
    want_tot, want_ecc = _networkx(g)
    assert tot.tolist() == want_tot == tot_ref.tolist()
    assert ecc.tolist() == want_ecc == ecc_ref.tolist()


def test_the_option_is_checked():
    ip, ix = _csr(nx.cycle_graph(4))
    with pytest.raises(InvalidTypeError, match="bitparallel"):
        distance_sums(ip, ix, np.empty(4, np.int64), np.empty(4, np.int64), bitparallel="yes")


# ------------------------------------------------------------ bfs_rumor (issue 31 item 6)


def _rumor_reference(g: nx.Graph) -> np.ndarray:
    """log n! - sum log subtree sizes on the BFS tree rooted at each node, each other node's
    parent the first neighbour in its CSR row one hop closer to the root (pure Python)."""
    ip, ix = _csr(g)
    n = g.number_of_nodes()
    out = np.empty(n)
    for r in range(n):
        dist = dict(nx.single_source_shortest_path_length(g, r))
        size = np.ones(n, np.int64)
        for w in sorted(range(n), key=lambda w: -dist[w]):
            if w != r:
                parent = next(int(x) for x in ix[ip[w]:ip[w + 1]] if dist[int(x)] == dist[w] - 1)
                size[parent] += size[w]
        out[r] = math.lgamma(n + 1) - float(np.log(size).sum())
    return out


def _rumor_both(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    ip, ix = _csr(g)
    n = g.number_of_nodes()
    a, b, c = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    bfs_rumor(ip, ix, a)
    bfs_rumor(ip, ix, b, bitparallel=False)
    bfs_rumor(ip, ix, c, max_words=0)  # no frontier kept: a parent per node and root
    assert np.allclose(a, c, rtol=0, atol=1e-9)
    return a, b


def test_bfs_rumor_is_exact_rumour_centrality_on_trees():
    # on a tree every node's BFS tree is the tree: Shah & Zaman's R(v) = n! / prod T_u^v,
    # here against the engine's tree kernel and against counting the infection orders
    for seed in range(6):
        t = nx.random_labeled_tree(int(np.random.default_rng(seed).integers(2, 400)), seed=seed)
        ip, ix = _csr(t)
        n = t.number_of_nodes()
        a, b = _rumor_both(t)
        want = np.empty(n)
        tree_rumor(ip, ix, want)
        assert np.allclose(a, want, rtol=0, atol=1e-9) and np.allclose(b, want, rtol=0, atol=1e-9)
    # a star of 5 leaves: n! / n orders start at the centre (120), (n-1)! / (n-1) = 24 / 1 ...
    star = nx.star_graph(5)
    a, _ = _rumor_both(star)
    assert np.round(np.exp(a)).tolist() == [120.0, 24.0, 24.0, 24.0, 24.0, 24.0]


def test_bfs_rumor_bitparallel_equals_one_search_per_node_and_the_reference():
    rng = np.random.default_rng(31)
    checked = 0
    for _ in range(16):
        n = int(rng.integers(3, 140))  # across the 64-root word boundaries
        g = nx.gnp_random_graph(n, float(rng.uniform(0.02, 0.3)), seed=int(rng.integers(2**31)))
        g = nx.convert_node_labels_to_integers(g.subgraph(max(nx.connected_components(g), key=len)))
        if g.number_of_nodes() < 3 or nx.is_tree(g):
            continue
        a, b = _rumor_both(g)
        ref = _rumor_reference(g)
        assert np.allclose(a, ref, rtol=0, atol=1e-9) and np.allclose(b, ref, rtol=0, atol=1e-9)
        checked += 1
    assert checked >= 10


def test_bfs_rumor_equals_the_rumor_estimators_heuristic_where_parents_are_unique():
    # odd cycles and trees with one extra long cycle: every node has one parent towards
    # every root, so the trees are the BFS queue's trees (engine.rumor.graph_rumor)
    for g in (nx.cycle_graph(9), nx.cycle_graph(65), nx.cycle_graph(131)):
        ip, ix = _csr(g)
        a, _ = _rumor_both(g)
        want = np.empty(g.number_of_nodes())
        graph_rumor(ip, ix, want)
        assert np.allclose(a, want, rtol=0, atol=1e-9)
        # many levels: the frontiers grow, and past max_words the scan falls back midway
        mid = np.empty(g.number_of_nodes())
        bfs_rumor(ip, ix, mid, max_words=20 * g.number_of_nodes())
        assert np.allclose(mid, want, rtol=0, atol=1e-9)
    # an even cycle has two parents at the far node: the rule here takes the first in its row
    a, _ = _rumor_both(nx.cycle_graph(4))
    assert np.round(np.exp(a), 9).tolist() == [3.0, 3.0, 3.0, 3.0]


def test_bfs_rumor_checks_its_inputs():
    ip, ix = _csr(nx.cycle_graph(4))
    with pytest.raises(InvalidTypeError, match="bitparallel"):
        bfs_rumor(ip, ix, np.empty(4), bitparallel=1)
    with pytest.raises(AnonspreadError):
        bfs_rumor(ip, ix, np.empty(3))
    with pytest.raises(AnonspreadError, match="max_words"):
        bfs_rumor(ip, ix, np.empty(4), max_words=-1)
    with pytest.raises(AnonspreadError):  # two components
        bfs_rumor(*_csr(nx.disjoint_union(nx.path_graph(2), nx.path_graph(2))), np.empty(4))
