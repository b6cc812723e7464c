"""The learned adversary's features with fewer passes, the same bits (issue 31 item 6):
``engine.features.bfs_rumor`` with ``total`` and ``ecc`` gives the distance sums and
eccentricities of ``distance_sums`` from the rumour columns' own bit-parallel searches (each
snapshot searched once, not twice), and the ranks and tie merging of the features are one
sort and one compiled pass each (``descending_ranks``, ``merge_close``)."""

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


def test_compiled_ranks_and_tie_merging_are_the_numpy_definitions_bit_for_bit():
    from anonspread.adversaries import learned

    rng = np.random.default_rng(0)
    for trial in range(600):
        n = int(rng.integers(1, 200))
        kind = trial % 5
        if kind == 0:
            v = rng.normal(size=n)
        elif kind == 1:  # ties (eccentricities)
            v = rng.integers(0, 6, n).astype(float)
        elif kind == 2:  # impossible sources of a likelihood column
            v = np.round(rng.normal(size=n), 2)
            v[rng.random(n) < 0.2] = -np.inf
        elif kind == 3:  # near-ties within TIE_RTOL, signed zeros, NaN and +inf
            v = rng.normal(size=n) * 1e-13 + rng.integers(0, 3, n)
            v[rng.random(n) < 0.1] = np.nan
            v[rng.random(n) < 0.05] = -0.0
            v[rng.random(n) < 0.05] = np.inf
        else:  # chains of gaps around the tolerance, at several scales
            v = np.cumsum(rng.exponential(size=n)) * learned.TIE_RTOL * rng.choice([0.5, 1.0, 1e3])
        assert np.array_equal(learned._ranks(v), learned._ranks_reference(v), equal_nan=True)
        assert np.array_equal(learned._merge_ties(v), learned._merge_ties_reference(v), equal_nan=True)


def test_rows_ordered_by_hash_without_a_global_sort_are_the_same_rows():
    from anonspread import adversaries as A
    from anonspread import spread
    from anonspread.adversaries import learned

    G = nx.connected_watts_strogatz_graph(300, 8, 0.3, seed=4)
    rng = np.random.default_rng(5)
    for _ in range(10):
        snap = A.observe(spread.simulate(G, spread.RandomDiffusion(0.5), 4, rng=rng))
        ip, ix = snap.subgraph()
        assert np.array_equal(learned._rows_by_hash(snap, ip, ix),
                              learned._rows_by_hash_reference(snap, ip, ix))
