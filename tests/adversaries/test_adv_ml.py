"""Exact ML for adaptive diffusion: the thesis's worked example, brute force, regular trees."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.scores import top_set
from anonspread.errors import GraphError

D0S = [2, 2.5, 3, 4, math.inf]


def figure_2_6_tree():
    """The irregular tree of Fig. 2.6 rebuilt from the numbers in the text.

    Virtual source 3 with neighbours 2, 4 (degree 2) and 5 (degree 3) (Algorithm 4
    sets A_2 = A_4 = 1/2, A_5 = 1/3); 7 is a child of 5 of degree 2 (A_7 = A_5/2 * 3/2);
    the leaf degrees then follow from the Eq. (2.18) scores for d0 = 2: 1 - 2 and
    6 - 4 with degree 4, 8 - 5 with degree 4. Uninfected contacts pad the degrees.
    """
    G = nx.Graph([(3, 2), (3, 4), (3, 5), (2, 1), (4, 6), (5, 7), (5, 8)])
    pad = 100
    for v, extra in {1: 3, 6: 3, 7: 1, 8: 3}.items():
        for _ in range(extra):
            G.add_edge(v, pad)
            pad += 1
    return G


@pytest.mark.parametrize(
    "d0, expected",
    [
        (2, [1 / 2, 1, 0, 1, 2 / 3, 1 / 2, 1 / 2, 1 / 4]),
        (4, [3, 2, 0, 2, 4 / 3, 3, 3, 3 / 2]),
    ],
)
def test_figure_2_6_eq_2_18_scores(d0, expected):
    snap = A.Snapshot(figure_2_6_tree(), range(1, 9), T=4)
    sc = A.ml_adaptive_diffusion(snap, d0)
    lik = np.array([math.exp(sc[v]) for v in range(1, 9)])
    # Eq. (2.18) is the likelihood up to a constant: compare against node 2's
    np.testing.assert_allclose(lik / lik[1], np.array(expected) / expected[1], rtol=1e-12)
    assert sc[3] == -math.inf
    best = {sc.nodes[i] for i in top_set(sc.array)}
    assert best == ({2, 4} if d0 == 2 else {1, 6, 7})


def test_figure_2_6_absolute_likelihood_d0_3():
    snap = A.Snapshot(figure_2_6_tree(), range(1, 9), T=4)
    sc = A.ml_adaptive_diffusion(snap, 3)
    assert math.exp(sc[5]) == pytest.approx(1 / 9, rel=1e-12)  # P(G_4 | 5) = A_5 B_5
    ex = A.exact_likelihood(snap, spread.AdaptiveDiffusion(3))
    np.testing.assert_allclose(np.exp(ex.array), np.exp(sc.array), rtol=1e-12, atol=0)


@st.composite
def small_trees(draw):
    n = draw(st.integers(1, 14))
    parents = [draw(st.integers(0, i - 1)) for i in range(1, n)]
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((p, i) for i, p in enumerate(parents, start=1))
    return G


@settings(max_examples=80, deadline=None)
@given(
    G=small_trees(),
    T=st.integers(0, 8),
    d0=st.sampled_from(D0S),
    src=st.integers(0, 13),
    seed=st.integers(0, 2**32 - 1),
)
def test_ml_equals_brute_force_on_random_small_trees(G, T, d0, src, seed):
    sp = spread.simulate(G, spread.AdaptiveDiffusion(d0), T, source=src % G.number_of_nodes(), rng=seed)
    snap = A.observe(sp)
    ml = A.ml_adaptive_diffusion(snap, d0).array
    ex = A.exact_likelihood(snap, spread.AdaptiveDiffusion(d0)).array
    assert np.array_equal(np.isneginf(ml), np.isneginf(ex))
    fin = np.isfinite(ex)
    assert fin[0]  # the true source is always possible
    # equal up to a constant factor (in fact equal: both are P(G_T | v))
    np.testing.assert_allclose(ml[fin] - ml[fin].max(), ex[fin] - ex[fin].max(), atol=1e-9)
    np.testing.assert_allclose(ml[fin], ex[fin], atol=1e-9)


@pytest.mark.parametrize("degrees", [{2: 0.5, 3: 0.5}, {1: 0.3, 3: 0.7}])
@pytest.mark.parametrize("T", [1, 2, 3, 4, 5, 6, 7])
def test_ml_equals_brute_force_on_lazy_random_trees(degrees, T):
    # infinite irregular trees (leaves included): odd and even T, several d0
    checked = 0
    for seed in range(3):
        g = spread.graphs.random_tree(degrees, rng=seed)
        d0 = D0S[(seed + T) % len(D0S)]
        snap = A.observe(spread.simulate(g, spread.AdaptiveDiffusion(d0), T, rng=seed))
        if snap.n > 40:
            continue
        ml = A.ml_adaptive_diffusion(snap, d0).array
        ex = A.exact_likelihood(snap, spread.AdaptiveDiffusion(d0)).array
        assert np.array_equal(np.isneginf(ml), np.isneginf(ex))
        np.testing.assert_allclose(ml[np.isfinite(ml)], ex[np.isfinite(ex)], atol=1e-9)
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize("d, T", [(3, 10), (4, 6), (2, 30)])
def test_regular_tree_even_T_all_but_virtual_source_equal(d, T):
    sp = spread.simulate(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), T, rng=7)
    sc = A.ml_adaptive_diffusion(A.observe(sp), d)
    vs = sp.virtual_source
    assert sc[vs] == -math.inf
    rest = np.delete(sc.array, sc._index()[vs])
    # P(G_T | v) = 1 / (N_T - 1) for every v != v_T (Eq. 2.12 and the line below it)
    np.testing.assert_allclose(rest, -math.log(sp.n_infected - 1), rtol=1e-12)
    assert top_set(sc.array).shape[0] == sp.n_infected - 1


def test_odd_T_virtual_source_edge_or_node():
    # at odd T the snapshot is a ball (token kept at T) or an edge-ball (passed at T)
    kinds = set()
    for seed in range(12):
        sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 7, rng=seed)
        sc = A.ml_adaptive_diffusion(A.observe(sp), 3)
        n_inf = int(np.sum(np.isneginf(sc.array)))
        kinds.add(n_inf)
        assert sc[sp.virtual_source] == -math.inf
        assert sc[sp.source] > -math.inf
        # the leaves of a kept ball are impossible too: h <= (T - 1) / 2
        assert n_inf in (1 + 3 * 8, 2)
    assert kinds == {25, 2}


@pytest.mark.slow
def test_T40_regular_tree_no_underflow_no_lost_ties():
    sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 40, rng=1)
    assert sp.n_infected == 1 + 3 * (2**20 - 1)
    sc = A.ml_adaptive_diffusion(A.observe(sp), 3)
    fin = sc.array[np.isfinite(sc.array)]
    assert fin.shape[0] == sp.n_infected - 1
    np.testing.assert_allclose(fin, -math.log(sp.n_infected - 1), rtol=1e-12)
    assert top_set(sc.array).shape[0] == sp.n_infected - 1


def test_near_ml_on_graph_with_cycles_keeps_the_true_source_possible():
    G = nx.random_regular_graph(4, 300, seed=3)
    proto = spread.AdaptiveDiffusion(math.inf, max_infections_per_step=3)
    for seed in range(6):
        sp = spread.simulate(G, proto, 6, rng=seed)
        snap = A.observe(sp, reveal_edges=True)
        sc = A.ml_adaptive_diffusion(snap, math.inf)
        assert sc[sp.source] > -math.inf
        assert sc[sp.virtual_source] == -math.inf
        # d0 = inf: the token always moves, so only nodes T/2 tree hops away are possible
        post = A.posterior(sc)
        assert abs(sum(post.values()) - 1) < 1e-12
    with pytest.raises(GraphError, match="infection tree"):
        A.ml_adaptive_diffusion(A.observe(sp), math.inf)
