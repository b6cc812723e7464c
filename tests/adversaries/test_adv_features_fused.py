"""``engine.features.bfs_rumor`` with ``total`` and ``ecc``: the distance sums and
eccentricities of ``distance_sums`` from the rumour columns' own bit-parallel searches
(issue 31 item 6: the learned adversary's features search each snapshot once, not twice)."""

import networkx as nx
import numpy as np
import pytest

from anonspread.engine.features import bfs_rumor, distance_sums
from anonspread.errors import InvalidParameterError


def _csr(g):
    a = nx.to_scipy_sparse_array(g, nodelist=range(g.number_of_nodes()), format="csr")
    return a.indptr.astype(np.int64), a.indices.astype(np.int32)


GRAPHS = [nx.connected_watts_strogatz_graph(150, 6, 0.3, seed=1),   # 3 batches of 64 roots
          nx.random_labeled_tree(70, seed=2),                       # a tree: rerooting
          nx.cycle_graph(5), nx.complete_graph(9), nx.path_graph(1),
          nx.connected_watts_strogatz_graph(64, 4, 0.1, seed=3)]


@pytest.mark.parametrize("g", GRAPHS, ids=lambda g: f"n{g.number_of_nodes()}m{g.number_of_edges()}")
@pytest.mark.parametrize("max_words", [None, 0])  # 0: the fallback that keeps no frontiers
def test_distances_from_the_rumour_searches_are_distance_sums(g, max_words):
    ip, ix = _csr(g)
    n = ip.shape[0] - 1
    want_t, want_e = np.empty(n, np.int64), np.empty(n, np.int64)
    distance_sums(ip, ix, want_t, want_e)
    out, ref = np.empty(n), np.empty(n)
    total, ecc = np.full(n, -7, np.int64), np.full(n, -7, np.int64)
    bfs_rumor(ip, ix, out, max_words=max_words, total=total, ecc=ecc)
    bfs_rumor(ip, ix, ref, max_words=max_words)
    assert np.array_equal(total, want_t) and np.array_equal(ecc, want_e)
    assert np.array_equal(out, ref)  # the rumour scores are untouched


def test_total_and_ecc_go_together():
    ip, ix = _csr(nx.cycle_graph(4))
    with pytest.raises(InvalidParameterError, match="together"):
        bfs_rumor(ip, ix, np.empty(4), total=np.empty(4, np.int64))
    with pytest.raises(InvalidParameterError, match="ecc"):
        bfs_rumor(ip, ix, np.empty(4), total=np.empty(4, np.int64), ecc=np.empty(2, np.int64))
