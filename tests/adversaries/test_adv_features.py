"""The learned adversary's compiled node features: distance sums and eccentricities.

The bit-parallel breadth-first searches (64 sources a word, the default) give the same
arrays as one search per node and as networkx, on random connected graphs with cycles, on
trees (the rerooting path) and on the smallest cases.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread.engine.features import distance_sums
from anonspread.errors import InvalidTypeError


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
