"""Earliest-infection-first and Pinto et al.: worked examples, brute-force and reference agreement,
the true source never ruled out, registry conformance."""

import math

import networkx as nx
import numpy as np
import pytest
from scipy.stats import multivariate_normal

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.sensors import earliest_infection_first, estimate_mu, graph_csr, pinto
from anonspread.adversaries.spies import (
    SpyObservation,
    draw_spies,
    first_spy,
    ml_spies_diffusion,
    observe_spies,
)
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.events import ContinuousDiffusion, simulate_messages


def _path_obs(times, senders, spies=(0, 4), n=5, p=0.5):
    g = spread.graphs.from_networkx(nx.path_graph(n))
    return SpyObservation(graph=g, T=int(max(t for t in times if np.isfinite(t))), spies=np.array(spies),
                          spy_index=np.array(spies), time=np.array(times, float), sender=list(senders),
                          kind=["infect"] * len(spies), protocol=spread.RandomDiffusion(p))


def _tree_runs(n_nodes, k, seed, fraction=0.35, T=8):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        G = nx.random_labeled_tree(n_nodes, seed=int(rng.integers(1 << 30)))
        run = simulate_messages(G, spread.RandomDiffusion(0.5), T, rng=rng)
        obs = observe_spies(run, draw_spies(G, fraction, rng=rng))
        if np.isfinite(obs.time).sum() >= 2:
            out.append((G, run, obs))
    return out


# ----------------------------------------------------------------- Pinto et al.


def test_pinto_worked_example_on_a_path():
    # observers 0 and 4 at times 2 and 3: d = 1, mu_s = mu (4 - 2 s), Lambda = 4 sigma2
    sc = pinto(_path_obs([2.0, 3.0], [1, 3]), 1.0, 0.5)
    const = -0.5 * math.log(2 * math.pi * 2.0)
    for s in (1, 2, 3):
        assert sc[s] == pytest.approx(const - (1 - (4 - 2 * s)) ** 2 / 4.0)
    assert sc[0] == sc[4] == -np.inf  # each spy heard from its neighbour towards the source
    assert A.pick(sc) in (1, 2)  # mu_s = 1 is half way: s = 1.5, tie between 1 and 2
    assert sc[1] == pytest.approx(sc[2])
    # one observer: no difference to compare, every consistent candidate scores 0
    one = pinto(_path_obs([2.0, np.inf], [1, None]), 1.0, 0.5)
    assert [one[v] for v in range(5)] == [-np.inf, 0.0, 0.0, 0.0, 0.0]


def _brute_pinto(G, s, nodes, times, mu, sigma2):
    paths = [nx.shortest_path(G, s, o) for o in nodes]
    sets = [{frozenset(e) for e in zip(p, p[1:])} for p in paths]
    edges = sorted(set().union(*sets), key=sorted)
    Amat = np.array([[1.0 if e in st else 0.0 for e in edges] for st in sets]).reshape(len(nodes), -1)
    D = Amat[1:] - Amat[0]
    return multivariate_normal(mu * D.sum(1), sigma2 * D @ D.T).logpdf(times[1:] - times[0])


def test_pinto_agrees_with_the_gaussian_density_of_edge_delay_sums_on_trees():
    for G, run, obs in _tree_runs(30, 6, 0):
        sc = pinto(obs, 2.0, 2.0)
        fin = np.isfinite(obs.time)
        order = np.argsort(obs.time[fin], kind="stable")
        nodes = obs.spy_index[fin][order].tolist()
        times = obs.time[fin][order]
        senders = dict(zip(obs.spy_index.tolist(), obs.sender))
        for s in G:
            # the senders' constraint, read from the paths
            ok = all(s != o and nx.shortest_path(G, s, o)[-2] == senders[o] for o in nodes)
            if not ok:
                assert sc[s] == -np.inf
                continue
            assert sc[s] == pytest.approx(_brute_pinto(G, s, nodes, times, 2.0, 2.0), rel=1e-9, abs=1e-9)
        assert sc[run.spread.source] > -np.inf


def test_pinto_on_graphs_with_cycles_and_the_reference_observer_does_not_matter():
    G = nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=2)
    run = simulate_messages(G, spread.RandomDiffusion(0.5), 6, source=5, rng=3)
    obs = observe_spies(run, draw_spies(G, 0.2, rng=4))
    sc = pinto(obs, 2.0, 2.0)
    assert np.isfinite(sc.array).all()  # no sender constraint off trees
    # reversing the spies' order can change the reference observer (ties in time keep the
    # spies' order), never the density
    rev = SpyObservation(graph=obs.graph, T=obs.T, spies=obs.spies[::-1], spy_index=obs.spy_index[::-1],
                         time=obs.time[::-1], sender=obs.sender[::-1], kind=obs.kind[::-1],
                         protocol=obs.protocol)
    np.testing.assert_allclose(pinto(rev, 2.0, 2.0).array, sc.array, rtol=1e-9, atol=1e-9)


def test_pinto_never_rules_out_the_source_and_is_below_the_exact_ml():
    # ml-spies is the exact likelihood of the same observation (Bayes-optimal for a uniform
    # prior), so the Gaussian approximation cannot beat it beyond Monte Carlo noise
    rng = np.random.default_rng(0)
    ml, pt, uniform = [], [], []
    for _ in range(150):
        g = spread.graphs.regular_tree(3)
        run = simulate_messages(g, spread.RandomDiffusion(0.5), 5, rng=rng)
        obs = observe_spies(run, draw_spies(g, 0.3, rng=rng))
        if obs.n_spies == 0:
            continue
        src = run.spread.source
        sc = pinto(obs, 2.0, 2.0)
        assert sc[src] > -np.inf
        pt.append(A.detection_probability(sc, src))
        ml.append(A.detection_probability(ml_spies_diffusion(obs, 0.5), src))
        uniform.append(1.0 / g.number_of_touched_nodes())
    se = np.std(np.subtract(ml, pt), ddof=1) / math.sqrt(len(pt))
    assert np.mean(pt) <= np.mean(ml) + 4 * se
    assert np.mean(pt) > 5 * np.mean(uniform)


# ----------------------------------------------------------------- earliest-infection-first


def test_eif_worked_example_on_a_path():
    sc = earliest_infection_first(_path_obs([2.0, 2.0], [1, 3]), 1.0)
    np.testing.assert_allclose([sc[v] for v in range(5)], [-4.0, -4 / 3, -1.0, -4 / 3, -4.0])
    # the paper's mu: |2 - 2| / d(0, 4) = 0
    ip, ix = graph_csr(spread.graphs.from_networkx(nx.path_graph(5)))
    assert estimate_mu(ip, ix, np.array([0, 4]), np.array([2.0, 5.0])) == 0.75
    # a spy that heard nothing sits between the two timestamped ends: every root but that
    # spy has a timestamped node it cannot reach; from it both two-hop paths cost 1/2
    cut = earliest_infection_first(_path_obs([1.0, 3.0, np.inf], [1, 3, None], spies=(0, 4, 2)), 1.0)
    assert [cut[v] for v in range(5)] == [-np.inf, -np.inf, -1.0, -np.inf, -np.inf]


def _ref_eif(G, r, alpha, blocked, mu):
    """Plain networkx EIF tree cost (the docstring's construction, written independently)."""
    times = dict(alpha)
    ts = {r: times[r] if r in times else alpha[0][1] - mu}
    tree = [r]
    cost = 0.0
    for a, ta in alpha:
        if a == r:
            continue
        best = None
        for m in tree:
            keep = [v for v in G if v in (a, m) or (v not in ts and v not in blocked)]
            H = G.subgraph(keep)
            if not nx.has_path(H, a, m):
                continue
            path = nx.shortest_path(H, m, a)
            L = len(path) - 1
            c = L * ((ta - ts[m]) / L - mu) ** 2
            if best is None or c < best[0]:
                best = (c, path)
        if best is None:
            return math.inf
        c, path = best
        cost += c
        L = len(path) - 1
        for i, v in enumerate(path[1:], start=1):
            ts[v] = ts[path[0]] + i * (ta - ts[path[0]]) / L
            if v not in tree:
                tree.append(v)
    return cost


def test_eif_agrees_with_a_plain_networkx_reference_on_trees():
    for G, run, obs in _tree_runs(25, 5, 1):
        fin = np.isfinite(obs.time)
        order = np.argsort(obs.time[fin], kind="stable")
        alpha = list(zip(obs.spy_index[fin][order].tolist(), obs.time[fin][order].tolist()))
        blocked = set(obs.spy_index.tolist())
        for mu in (2.0, None):
            sc = earliest_infection_first(obs, mu)
            m = mu if mu is not None else _ref_mu(G, alpha)
            for r in G:
                ref = _ref_eif(G, r, alpha, blocked, m)
                assert -sc[r] == pytest.approx(ref, rel=1e-12) if math.isfinite(ref) else sc[r] == -np.inf
        assert sc[run.spread.source] > -np.inf


def _ref_mu(G, alpha):
    num = sum(abs(ta - tb) for a, ta in alpha for b, tb in alpha if a != b)
    den = sum(nx.shortest_path_length(G, a, b) for a, _ in alpha for b, _ in alpha if a != b)
    return num / den


def test_eif_never_rules_out_the_source_on_graphs_with_cycles():
    G = nx.barabasi_albert_graph(150, 2, seed=1)
    rng = np.random.default_rng(5)
    for _ in range(10):
        run = simulate_messages(G, spread.RandomDiffusion(0.5), 5, rng=rng)
        obs = observe_spies(run, draw_spies(G, 0.15, rng=rng))
        if np.isfinite(obs.time).sum() >= 2:
            assert earliest_infection_first(obs, 2.0)[run.spread.source] > -np.inf


def test_eif_beats_first_spy_on_the_regular_tree():
    rng = np.random.default_rng(0)
    eif, fs = [], []
    for _ in range(200):
        g = spread.graphs.regular_tree(3)
        run = simulate_messages(g, spread.RandomDiffusion(0.5), 6, rng=rng)
        obs = observe_spies(run, draw_spies(g, 0.3, rng=rng))
        if obs.n_spies == 0:
            continue
        eif.append(A.detection_probability(earliest_infection_first(obs, 2.0), run.spread.source))
        fs.append(A.detection_probability(first_spy(obs), run.spread.source))
    se = np.std(np.subtract(eif, fs), ddof=1) / math.sqrt(len(fs))
    assert np.mean(eif) > np.mean(fs) + 2 * se


# ----------------------------------------------------------------- registry conformance


RUNS = [
    (spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 5),
    (nx.connected_watts_strogatz_graph(50, 4, 0.2, seed=3), spread.RandomDiffusion(0.4), 5),
    (nx.random_labeled_tree(40, seed=2), ContinuousDiffusion(1.0), 4),
    (nx.random_labeled_tree(40, seed=4), spread.AdaptiveDiffusion(math.inf), 6),
]


@pytest.mark.parametrize("name", ["eif", "pinto"])
def test_spy_estimators_conform(name):
    spec = A.get_spy_estimator(name)
    assert spec.observation == "spies" and not spec.likelihood
    ran = 0
    for G, proto, T in RUNS:
        if spec.why_not(proto, G) is not None:
            continue
        run = simulate_messages(G, proto, T, source=0, rng=1)
        obs = observe_spies(run, draw_spies(run.spread.graph, 0.4, rng=2))
        sc = spec.func(obs, **spec.params(proto, run.spread.graph))
        again = spec.func(obs, **spec.params(proto, run.spread.graph))
        assert isinstance(sc, A.Scores) and set(sc) == set(obs.candidates()[0].tolist())
        assert not np.isnan(sc.array).any() and np.array_equal(sc.array, again.array)
        assert sc[0] > -np.inf
        with pytest.raises(InvalidTypeError, match="SpyObservation"):
            spec.func(A.observe(run.spread), **spec.params(proto, run.spread.graph))
        ran += 1
    assert ran >= 2
    assert name in A.applicable_estimators(spread.RandomDiffusion(0.5), spread.graphs.regular_tree(3),
                                           observation="spies")


def test_registry_refusals_and_parameter_checks():
    with pytest.raises(InvalidParameterError, match=r"pinto.*random per-edge delays"):
        A.check_applicable("pinto", spread.RandomDiffusion(1.0), nx.path_graph(5))
    with pytest.raises(InvalidParameterError, match="assumes a protocol"):
        A.check_applicable("pinto", spread.AdaptiveDiffusion(), spread.graphs.regular_tree(3))
    assert A.get_estimator("pinto").params(ContinuousDiffusion(2.0), None) == {"mu": 0.5, "sigma2": 0.25}
    obs = _path_obs([2.0, 3.0], [1, 3])
    with pytest.raises(InvalidParameterError, match="sigma2 must be a real number in"):
        pinto(obs, 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="mu must be a real number in"):
        earliest_infection_first(obs, -1.0)
    # two timestamped spies cut off from each other: the paper's mu is undefined
    g = spread.graphs.from_networkx(nx.Graph([(0, 1), (2, 3)]))
    cut = SpyObservation(graph=g, T=2, spies=np.array([0, 2]), spy_index=np.array([0, 2]),
                         time=np.array([1.0, 2.0]), sender=[1, 3], kind=["infect"] * 2,
                         protocol=spread.RandomDiffusion(0.5))
    with pytest.raises(InvalidParameterError, match="mu must be given"):
        earliest_infection_first(cut)
