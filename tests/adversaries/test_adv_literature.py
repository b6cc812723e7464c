"""NETSLEUTH and LISN: worked examples, agreement with brute force, the compiled Monte Carlo path."""

import math

import networkx as nx
import numpy as np
import pytest
from scipy.special import gammainc
from scipy.stats import binom

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.literature import estimate_rate, lisn, netsleuth
from anonspread.engine import literature as _lit_kernels
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError

GRAPHS = [
    nx.random_labeled_tree(60, seed=1),
    nx.barabasi_albert_graph(80, 2, seed=2),
    nx.connected_watts_strogatz_graph(70, 4, 0.2, seed=3),
]


def _spreads(G, proto, T, k, seed):
    rng = np.random.default_rng(seed)
    return [spread.simulate(G, proto, T, rng=rng) for _ in range(k)]


# ----------------------------------------------------------------- NETSLEUTH


def test_netsleuth_worked_example_path():
    # L_I = tridiag(-1, 2, -1) on {1, 2, 3} of the path 0..4: u_1 = (1, sqrt 2, 1) / 2
    sc = netsleuth(A.Snapshot(nx.path_graph(5), [1, 2, 3], T=2))
    np.testing.assert_allclose([sc[1], sc[2], sc[3]], [0.5, math.sqrt(2) / 2, 0.5], atol=1e-12)
    assert sc.kind == "netsleuth-eigenvector" and A.pick(sc) == 2


def test_netsleuth_worked_example_star():
    # star centre 0 with leaves 1..4, infected {0, 1, 2}: L_I = [[4, -1, -1], [-1, 1, 0], [-1, 0, 1]];
    # smallest eigenvalue (5 - sqrt 17) / 2 with eigenvector (1 - lambda, 1, 1) up to scale
    sc = netsleuth(A.Snapshot(nx.star_graph(4), [0, 1, 2], T=1))
    lam = (5 - math.sqrt(17)) / 2
    u = np.array([1 - lam, 1, 1])
    u /= np.linalg.norm(u)
    np.testing.assert_allclose([sc[0], sc[1], sc[2]], u, atol=1e-12)


@pytest.mark.parametrize("G", GRAPHS)
def test_netsleuth_agrees_with_a_dense_eigendecomposition_of_the_networkx_laplacian(G):
    Lfull = nx.laplacian_matrix(G, nodelist=list(G)).toarray().astype(float)
    for sp in _spreads(G, spread.RandomDiffusion(0.4), 4, 5, 0):
        nodes = sp.infected.tolist()
        w, V = np.linalg.eigh(Lfull[np.ix_(nodes, nodes)])
        u = V[:, 0] * np.sign(V[:, 0].sum())
        sc = netsleuth(A.observe(sp))
        np.testing.assert_allclose([sc[v] for v in nodes], u, atol=1e-10)


def test_netsleuth_inverse_iteration_agrees_with_the_dense_solver():
    G = nx.barabasi_albert_graph(600, 2, seed=5)
    sp = spread.simulate(G, spread.RandomDiffusion(0.5), 4, source=3, rng=1)
    snap = A.observe(sp)
    indptr, indices = snap.subgraph()
    dense, sparse = np.empty(snap.n), np.empty(snap.n)
    deg = snap.contact_degrees()
    l1 = _lit_kernels.netsleuth_vector(indptr, indices, deg, 10**9, dense)
    l2 = _lit_kernels.netsleuth_vector(indptr, indices, deg, 0, sparse)
    assert snap.n > 100 and l1 == pytest.approx(l2, rel=1e-9) and l1 > 0
    np.testing.assert_allclose(sparse, dense, atol=1e-8)
    # a whole component infected: lambda_1 = 0, the constant vector
    full = A.Snapshot(nx.cycle_graph(6), range(6), T=3)
    out = np.empty(6)
    ip, ix = full.subgraph()
    assert _lit_kernels.netsleuth_vector(ip, ix, full.contact_degrees(), 0, out) == 0.0
    np.testing.assert_allclose(out, 1 / math.sqrt(6))


def test_netsleuth_is_fooled_by_adaptive_diffusion_and_beats_the_largest_eigenvector():
    # even T on a regular tree: the infected set is a ball around the virtual source, whose
    # centre maximises u_1 -- and the virtual source is never the source (thesis Prop. 2.3.1)
    b = A.simulate_and_score(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6, 100,
                             estimators=("netsleuth",), rng=3)
    assert b["netsleuth"].detection_probability.max() == 0.0
    # under SI the paper's smallest eigenvector finds the source far more often than the
    # largest one (cosasi 0.0.4's reading)
    G = nx.barabasi_albert_graph(400, 2, seed=3)
    Lfull = nx.laplacian_matrix(G, nodelist=list(G)).toarray().astype(float)
    small, large = [], []
    for sp in _spreads(G, spread.RandomDiffusion(0.5), 4, 150, 5):
        nodes = sp.infected.tolist()
        w, V = np.linalg.eigh(Lfull[np.ix_(nodes, nodes)])
        large.append(nodes[int(np.argmax(np.abs(V[:, -1])))] == sp.source)
        small.append(A.detection_probability(netsleuth(A.observe(sp)), sp.source))
    assert np.mean(small) > np.mean(large) + 0.1


# ----------------------------------------------------------------- LISN


def test_lisn_worked_example_geometric_delays():
    # p = 1/2, T = 2: P_1 = P(Bin(2, 1/2) >= 1) = 3/4, P_2 = 1/4, P_3 = 0
    sc = lisn(A.Snapshot(nx.path_graph(5), [1, 2, 3], T=2), 0.5)
    assert sc[2] == pytest.approx(4 * math.log(0.75))  # 1, 3 infected at 1 hop; 0, 4 not, at 2
    assert sc[1] == pytest.approx(math.log(0.75) + 2 * math.log(0.25))  # 2 @1, 3 @2; not 0 @1
    assert sc[3] == pytest.approx(sc[1]) and A.pick(sc) == 2


def _brute_lisn(G, infected, T, rate, delays):
    dist = dict(nx.all_pairs_shortest_path_length(G))
    out = {}
    for v in infected:
        s = 0.0
        for u in G:
            if u == v:
                continue
            k = dist[v].get(u)
            if delays == "geometric":
                P = binom.sf(k - 1, T, rate)
            else:
                P = gammainc(k, rate * T)
            with np.errstate(divide="ignore"):
                s += np.log(P) if u in infected else np.log1p(-P)
        out[v] = s
    return out


@pytest.mark.parametrize("G", GRAPHS)
@pytest.mark.parametrize("delays, rate", [("geometric", 0.4), ("exponential", 0.7)])
def test_lisn_agrees_with_a_brute_force_sum_over_every_node(G, delays, rate):
    for sp in _spreads(G, spread.RandomDiffusion(0.4), 3, 3, 1):
        inf = set(sp.infected.tolist())
        ref = _brute_lisn(G, inf, 3, rate, delays)
        sc = lisn(A.observe(sp), rate, delays=delays)
        for v in inf:
            if np.isfinite(ref[v]):
                assert sc[v] == pytest.approx(ref[v], rel=1e-9, abs=1e-9)
            else:
                assert sc[v] == ref[v]


def test_lisn_on_the_infinite_regular_tree_equals_lisn_on_a_large_enough_finite_piece():
    g = spread.graphs.regular_tree(3)
    T = 3
    for seed in range(4):
        sp = spread.simulate(g, spread.RandomDiffusion(0.6), T, rng=seed)
        # every node within 2T + 1 hops of the source, with its full degree
        depth = 2 * T + 1
        G = nx.Graph()
        frontier = [0]
        for _ in range(depth):
            nxt = []
            for v in frontier:
                for w in g.neighbors(v).tolist():
                    if not G.has_edge(v, w):
                        G.add_edge(v, w)
                        if g.depth(w) > g.depth(v):
                            nxt.append(w)
            frontier = nxt
        infinite = lisn(A.observe(sp), 0.6)
        finite = lisn(A.Snapshot(G, sp.infected, T), 0.6)
        np.testing.assert_allclose([infinite[v] for v in sp.infected.tolist()],
                                   [finite[v] for v in sp.infected.tolist()], rtol=1e-12)


def test_lisn_plug_in_rate_is_the_jordan_radius_over_T():
    sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6, rng=2)
    snap = A.observe(sp)
    radius = -max(A.jordan_center(snap).values())
    assert estimate_rate(snap) == radius / 6 == 0.5
    np.testing.assert_array_equal(lisn(snap).array, lisn(snap, 0.5).array)


def test_lisn_refuses_what_it_cannot_sum():
    sp = spread.simulate(spread.graphs.random_tree({2: 0.5, 3: 0.5}, rng=1), spread.RandomDiffusion(0.5),
                         3, rng=1)
    with pytest.raises(GraphError, match="regular"):
        lisn(A.observe(sp), 0.5)
    with pytest.raises(InvalidParameterError, match="lisn"):
        A.check_applicable("lisn", spread.RandomDiffusion(0.5), spread.graphs.random_tree({2: 0.5, 3: 0.5}))
    tree = spread.simulate(spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 3, rng=1)
    with pytest.raises(InvalidParameterError, match="delays must be 'geometric'"):
        lisn(A.observe(tree), 0.5, delays="exponential")
    snap = A.Snapshot(nx.path_graph(4), [1, 2], T=1)
    with pytest.raises(InvalidParameterError, match="delays must be one of"):
        lisn(snap, 0.5, delays="gamma")
    with pytest.raises(InvalidParameterError, match="rate must be a real number in"):
        lisn(snap, 1.5)
    with pytest.raises(InvalidTypeError, match=r"snapshot must be an adversaries\.Snapshot"):
        lisn({1: 0.0})


# ----------------------------------------------------------------- the Monte Carlo path


def test_batch_on_the_infinite_tree_agrees_with_the_per_snapshot_functions():
    # the compiled loop draws its own spreads: flooding is deterministic (same snapshot),
    # random diffusion is compared in distribution (4-sigma band on the difference)
    g = spread.graphs.regular_tree(3)
    names = ("netsleuth", "lisn")
    b = A.simulate_and_score(g, spread.Flooding(), 3, 3, estimators=names, rng=0)
    snap = A.observe(spread.simulate(g, spread.Flooding(), 3, rng=0))
    for name in names:
        spec = A.get_estimator(name)
        sc = spec.func(snap, **spec.params(spread.Flooding(), g))
        np.testing.assert_array_equal(b[name].detection_probability, A.detection_probability(sc, 0))
        np.testing.assert_array_equal(b[name].rank, A.source_rank(sc, 0))
    proto, T, trials = spread.RandomDiffusion(0.5), 5, 400
    b = A.simulate_and_score(g, proto, T, trials, estimators=names, rng=1)
    rng = np.random.default_rng(2)
    per = {name: [] for name in names}
    for _ in range(trials):
        sp = spread.simulate(g, proto, T, rng=rng)
        snap = A.observe(sp)
        for name in names:
            spec = A.get_estimator(name)
            per[name].append(A.detection_probability(spec.func(snap, **spec.params(proto, g)), 0))
    for name in names:
        m1, se1 = b[name].mean("detection_probability")
        m2, se2 = np.mean(per[name]), np.std(per[name], ddof=1) / math.sqrt(trials)
        assert 0.2 < m1 < 0.9 and abs(m1 - m2) <= 4 * math.hypot(se1, se2)
