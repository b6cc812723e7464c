"""Issue 32: the ML's sum over configurations by message passing (``ml_tree``) against the
walk per configuration it replaced (``ml_tree_walks``, the implementation before).

Same number of configurations; the same ``-inf`` pattern; bit for bit when at most four
configurations are consistent (``ml_tree`` then walks too); otherwise equal to rounding (relative 1e-12 on every finite score, measured
worst 2.3e-15 over 3,000 random cases) with the same maximisers and ranks. On random trees
(random contact degrees, both boundary rules, T = 1..40, several d0), on snapshots of lazy
trees (exact ML) and of graphs with cycles (near-ML on the revealed infection tree),
including stalled spreads at large T, where nearly every node is a consistent centre.
"""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries._tables import ad_tables
from anonspread.adversaries.estimators import ml_structure
from anonspread.adversaries.scores import TIE_RTOL, top_set
from anonspread.engine import scoring as K

RTOL = 1e-12


def _both(ip, ix, gdeg, check, d0, T):
    n = ip.shape[0] - 1
    r_node, alive, dead, r_edge, move = ad_tables(float(d0), T)
    new = np.full(n, np.nan)
    old = np.full(n, np.nan)
    f_new = K.ml_tree(ip, ix, gdeg, check, r_node, alive, dead, r_edge, move, new,
                      K.ml_workspace(n))
    f_old = K.ml_tree_walks(ip, ix, gdeg, check, r_node, alive, dead, r_edge, move, old,
                            K.ml_workspace(n))
    return f_new, f_old, new, old


def _assert_same(f_new, f_old, new, old, ctx):
    assert f_new == f_old, ctx
    assert np.array_equal(np.isneginf(new), np.isneginf(old)), ctx
    assert np.isfinite(new[~np.isneginf(new)]).all(), ctx
    if f_new <= K.WALK_MAX_CONFIGS:
        assert np.array_equal(new, old), ctx  # the same walks
    fin = np.isfinite(old)
    np.testing.assert_allclose(new[fin], old[fin], rtol=RTOL, atol=RTOL, err_msg=str(ctx))
    assert np.array_equal(top_set(new), top_set(old)), ctx
    for s in np.flatnonzero(fin)[:5]:
        assert np.array_equal(K.score_summary(new, int(s), TIE_RTOL, np.empty(new.size, bool)),
                              K.score_summary(old, int(s), TIE_RTOL, np.empty(old.size, bool)))


def test_random_trees_every_configuration_kind():
    rng = np.random.default_rng(32)
    multi = vectors = 0
    for it in range(600):
        n = int(rng.integers(1, 50))
        g = nx.random_labeled_tree(n, seed=int(rng.integers(2**31))) if n > 1 else nx.empty_graph(1)
        a = nx.to_scipy_sparse_array(g, format="csr")
        ip, ix = a.indptr.astype(np.int64), a.indices.astype(np.int32)
        gdeg = np.maximum(np.diff(ip) + rng.integers(0, 3, n) * (rng.random(n) < 0.4), 1)
        T = int(rng.integers(1, 41))
        d0 = float(rng.choice([2, 2.5, 3, 5, math.inf]))
        check = bool(rng.random() < 0.5)
        f_new, f_old, new, old = _both(ip, ix, gdeg, check, d0, T)
        _assert_same(f_new, f_old, new, old, (it, n, T, d0, check))
        multi += f_new > 1
        vectors += f_new > K.WALK_MAX_CONFIGS
    assert multi > 150  # most cases sum several configurations
    assert vectors > 100  # ... and many by the message passing (more than 4)


@pytest.mark.parametrize("degrees", [{3: 1.0}, {2: 0.5, 5: 0.5}, {2: 0.6, 3: 0.2, 12: 0.2}], ids=str)
def test_lazy_tree_snapshots_exact_ml(degrees):
    for proto in (spread.AdaptiveDiffusion(3), spread.AdaptiveDiffusion(2.5),
                  spread.AdaptiveDiffusion(math.inf)):
        for T in (1, 2, 3, 5, 6, 9):
            for seed in range(3):
                g = spread.graphs.random_tree(degrees, rng=seed) if len(degrees) > 1 else \
                    spread.graphs.regular_tree(3)
                sp = spread.simulate(g, proto, T, rng=seed)
                snap = A.observe(sp)
                ip, ix, exact = ml_structure(snap)
                assert exact
                _assert_same(*_both(ip, ix, snap.contact_degrees(), True, proto.d0, T),
                             (degrees, proto, T, seed))


def _cyclic_cases():
    yield "regular-300", nx.random_regular_graph(4, 300, seed=3), 4.0, (4, 7, 10, 30)
    yield "powerlaw-2000", nx.powerlaw_cluster_graph(2000, 2, 0.3, seed=5), 4.0, (5, 8, 11, 24)
    yield "barabasi-800", nx.barabasi_albert_graph(800, 3, seed=1), math.inf, (6, 9)
    # a small graph: the spread stalls, every node becomes a consistent centre as T grows
    yield "grid-12x12", nx.grid_2d_graph(12, 12), 3.0, (12, 20, 31, 44)


@pytest.mark.parametrize("name, G, d0, Ts", list(_cyclic_cases()), ids=lambda x: str(x)[:20])
def test_near_ml_on_graphs_with_cycles(name, G, d0, Ts):
    for T in Ts:
        for seed in range(3):
            for proto in (spread.AdaptiveDiffusion(d0),
                          spread.AdaptiveDiffusion(d0, max_infections_per_step=2)):
                sp = spread.simulate(G, proto, T, rng=seed)
                snap = A.observe(sp, reveal_edges=True)
                ip, ix, exact = ml_structure(snap)
                f_new, f_old, new, old = _both(ip, ix, snap.contact_degrees(), exact, d0, T)
                _assert_same(f_new, f_old, new, old, (name, T, seed, proto))
                sc = A.ml_adaptive_diffusion(snap, d0)  # the estimator runs ml_tree
                assert np.array_equal(sc.array, new)


def test_top_and_rank_equals_the_walks_ranking_on_cycles():
    G = nx.powerlaw_cluster_graph(600, 2, 0.3, seed=2)
    proto = spread.AdaptiveDiffusion(4.0)
    T = 13
    for seed in range(6):
        sp = spread.simulate(G, proto, T, rng=seed)
        snap = A.observe(sp, reveal_edges=True)
        tr = A.top_and_rank(snap, "ml", sp.source, d0=4.0)
        ip, ix, exact = ml_structure(snap)
        _, _, _, old = _both(ip, ix, snap.contact_degrees(), exact, 4.0, T)
        s = snap.position(sp.source)
        top = np.empty(old.size, bool)
        g_old, t_old = K.score_summary(old, s, TIE_RTOL, top)
        assert tr.rank == 1.0 + g_old + (t_old - 1) / 2.0
        assert np.array_equal(tr.maximisers, snap.nodes[top])
    # the Monte Carlo path runs the same kernel
    res = A.simulate_and_score(G, proto, T, 12, estimators=("ml",), rng=7)
    assert np.isfinite(res["ml"].rank).all()
