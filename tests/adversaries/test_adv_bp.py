"""Belief propagation (adversaries.bp, engine.bp): exact on trees, near the Bayes ceiling on
small graphs with cycles, flags, errors, determinism."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, spread
from anonspread.engine import bp as ebp
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError


def _exact_post(snap, p):
    proto = spread.Flooding() if p == 1.0 and snap.subgraph_is_tree() else spread.RandomDiffusion(p)
    ll = adversaries.exact_likelihood(snap, proto, max_states=10**6).array
    e = np.exp(ll - ll.max())
    return ll, e / e.sum()


def _snapshots(g, proto, T, k, seed):
    rng = np.random.default_rng(seed)
    return [(adversaries.observe(s), s.source) for s in
            (spread.simulate(g, proto, T, rng=rng) for _ in range(k))]


TREES = {
    "binary": nx.balanced_tree(2, 4),
    "path": nx.path_graph(14),
    "random": nx.random_labeled_tree(25, seed=3),
    "star-ish": nx.balanced_tree(4, 2),
}


@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("p", [0.3, 0.5, 1.0])
def test_exact_on_trees(name, p):
    g = TREES[name]
    proto = spread.Flooding() if p == 1.0 else spread.RandomDiffusion(p)
    for T in (2, 3, 4, 5):
        for snap, _ in _snapshots(g, proto, T, 3, seed=T + int(10 * p)):
            res = adversaries.bp_posterior(snap, proto)
            ll, post = _exact_post(snap, p)
            assert res.exact and res.converged
            assert res.method == ("flooding" if p == 1.0 else "tree")
            np.testing.assert_allclose(res.posterior, post, rtol=0, atol=1e-10)
            fin = np.isfinite(ll)
            assert np.array_equal(np.isfinite(res.log_likelihood), fin)
            np.testing.assert_allclose(res.log_likelihood[fin], ll[fin], rtol=0, atol=1e-10)
            # the Bethe (clamped) path is exact on trees too: same absolute likelihoods
            ip, ix = snap.subgraph()
            extra = snap.contact_degrees() - np.diff(ip)
            lz, _, ch = ebp.clamped_log_likelihood(ip, ix, extra, T, p, np.arange(snap.n))
            if p < 1.0:
                np.testing.assert_allclose(lz[fin], ll[fin], rtol=0, atol=1e-10)
                assert not np.isfinite(lz[~fin]).any()


def test_exact_on_lazy_regular_tree():
    g = spread.graphs.regular_tree(3)
    for snap, _ in _snapshots(g, spread.RandomDiffusion(0.5), 3, 4, seed=7):
        res = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
        _, post = _exact_post(snap, 0.5)
        np.testing.assert_allclose(res.posterior, post, rtol=0, atol=1e-10)


LOOPY = [
    ("cycle10", nx.cycle_graph(10), 0.5, 4),
    ("3reg12", nx.random_regular_graph(3, 12, seed=1), 0.5, 3),
    ("3reg16", nx.random_regular_graph(3, 16, seed=2), 0.3, 4),
]


@pytest.mark.parametrize("name,g,p,T", LOOPY, ids=[x[0] for x in LOOPY])
def test_near_bayes_ceiling_on_small_loopy_graphs(name, g, p, T):
    """Paired on the same snapshots: the expected detection of BP's MAP under the exact
    posterior is at most the Bayes MAP's (by definition) and within 0.005 of it; the realised
    detections differ by less than 3 standard errors of the paired difference; BP's own
    predicted detection (mean max posterior) is within 0.01 of the exact one."""
    proto = spread.RandomDiffusion(p)
    gap, diff, pred_bp, pred_ex = [], [], [], []
    for snap, src in _snapshots(g, proto, T, 150, seed=11):
        res = adversaries.bp_posterior(snap, proto)
        assert res.converged
        _, post = _exact_post(snap, p)
        truth = snap.position(src)
        top_bp = np.flatnonzero(res.posterior >= res.posterior.max() - 1e-12)
        top_ex = np.flatnonzero(post >= post.max() - 1e-12)
        gap.append(post.max() - post[top_bp].mean())
        diff.append(np.isin(truth, top_bp) / top_bp.size - np.isin(truth, top_ex) / top_ex.size)
        pred_bp.append(res.predicted_detection)
        pred_ex.append(post.max())
    gap, diff = np.array(gap), np.array(diff)
    assert gap.min() >= -1e-9
    assert gap.mean() <= 0.005
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.std() > 0 else 0.0
    assert abs(diff.mean()) <= 3 * se + 1e-12
    assert abs(np.mean(pred_bp) - np.mean(pred_ex)) <= 0.01


def test_flooding_on_cycles_exact():
    g = nx.random_regular_graph(3, 14, seed=4)
    for snap, _ in _snapshots(g, spread.Flooding(), 2, 5, seed=3):
        res = adversaries.bp_posterior(snap, spread.Flooding())
        _, post = _exact_post(snap, 1.0)
        assert res.method == "flooding" and res.exact
        np.testing.assert_allclose(res.posterior, post, atol=1e-12)


def _loopy_snapshot():
    g = nx.random_regular_graph(3, 16, seed=2)
    for snap, _ in _snapshots(g, spread.RandomDiffusion(0.5), 4, 20, seed=5):
        if not snap.subgraph_is_tree() and snap.n > 8:
            return snap
    raise AssertionError("no loopy snapshot")


def test_non_convergence_is_flagged():
    snap = _loopy_snapshot()
    with pytest.warns(adversaries.BPConvergenceWarning):
        res = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), max_iter=1)
    assert res.method == "bethe" and not res.exact
    assert not res.converged and res.unconverged > 0 and res.max_change >= 1e-9
    # one sweep at each damping of the default schedule (0.3, then 0.6), none stalled
    assert res.iterations == 2 and res.damping == 0.6 and res.stalled == 0
    with pytest.warns(adversaries.BPConvergenceWarning, match=r"at damping 0.3 \(max_iter=1 "):
        one = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), max_iter=1, damping=0.3)
    assert one.iterations == 1 and one.damping == 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    assert ok.converged and ok.unconverged == 0 and ok.max_change < 1e-9


def test_deterministic_and_thread_independent():
    snap = _loopy_snapshot()
    a = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    b = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    c = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), threads=2)
    assert np.array_equal(a.log_likelihood, b.log_likelihood)
    assert np.array_equal(a.log_likelihood, c.log_likelihood)
    assert a.iterations == c.iterations


def test_unknown_T_mixture():
    g = nx.balanced_tree(2, 4)
    snap, _ = _snapshots(g, spread.RandomDiffusion(0.5), 3, 1, seed=2)[0]
    one = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), T_prior={snap.T: 1.0})
    known = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    np.testing.assert_allclose(one.posterior, known.posterior, atol=1e-14)
    prior = {2: 0.2, 3: 0.5, 4: 0.3}
    mix = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), T_prior=prior)
    want = np.zeros(snap.n)
    ev = []
    for T, w in prior.items():
        s = adversaries.Snapshot(g, snap.nodes, T)
        lik = np.exp(adversaries.exact_likelihood(s, spread.RandomDiffusion(0.5)).array)
        want += w * lik
        ev.append(w * lik.sum())
    np.testing.assert_allclose(mix.posterior, want / want.sum(), atol=1e-10)
    np.testing.assert_allclose(mix.T_posterior, np.array(ev) / sum(ev), atol=1e-10)
    uni = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), T_prior=[2, 3, 4])
    assert uni.T.tolist() == [2, 3, 4]


def test_independent_prior_run_tends_to_single_source_on_trees():
    g = nx.balanced_tree(2, 4)
    snap, _ = _snapshots(g, spread.RandomDiffusion(0.5), 4, 1, seed=9)[0]
    ip, ix = snap.subgraph()
    extra = snap.contact_degrees() - np.diff(ip)
    r = ebp.bp_run(ip, ix, extra, snap.T, 0.5, 1e-9, tol=1e-13, max_iter=1000)
    assert r.converged
    src = np.exp(r.log_source)
    _, post = _exact_post(snap, 0.5)
    np.testing.assert_allclose(src / src.sum(), post, atol=1e-6)
    np.testing.assert_allclose(r.marginals.sum(axis=1), 1.0, atol=1e-12)


def test_bad_input():
    snap = adversaries.Snapshot(nx.path_graph(5), [1, 2, 3], T=2)
    with pytest.raises(InvalidParameterError, match="protocol must be one BP models"):
        adversaries.bp_posterior(snap, spread.AdaptiveDiffusion())
    with pytest.raises(InvalidTypeError):
        adversaries.bp_posterior(snap, "random-diffusion")
    with pytest.raises(InvalidTypeError):
        adversaries.bp_posterior([1, 2], spread.RandomDiffusion(0.5))
    with pytest.raises(InvalidParameterError, match="damping"):
        adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), damping=1.0)
    with pytest.raises(InvalidParameterError, match="tol"):
        adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), tol=0.0)
    with pytest.raises(InvalidParameterError, match="T_prior"):
        adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), T_prior={})
    with pytest.raises(InvalidParameterError, match="T_prior"):
        adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), T_prior={2: 0.0})
    with pytest.raises(GraphError, match="possible"):
        adversaries.bp_posterior(snap, spread.RandomDiffusion(0.0))
    with pytest.raises(GraphError, match="possible"):
        adversaries.bp_posterior(adversaries.Snapshot(nx.path_graph(5), [1, 2, 3], T=2),
                                 spread.Flooding())
    loopy = _loopy_snapshot()
    with pytest.raises(InvalidParameterError, match="max_work"):
        adversaries.bp_posterior(loopy, spread.RandomDiffusion(0.5), max_work=10)
    # the engine's public entry points check their arrays
    ip, ix, ex = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32), np.zeros(3, np.int64)
    with pytest.raises(GraphError, match="symmetric"):
        ebp.tree_log_likelihood(np.array([0, 1, 2, 3]), np.array([1, 2, 0], np.int32), ex, 2, 0.5)
    with pytest.raises(InvalidParameterError, match="indices"):
        ebp.clamped_log_likelihood(ip, np.array([1, 0, 7, 1], np.int32), ex, 2, 0.5, np.arange(3))
    with pytest.raises(InvalidParameterError, match="indptr"):
        ebp.clamped_log_likelihood(np.array([0, 1, 3, 9]), ix, ex, 2, 0.5, np.arange(3))
    with pytest.raises(InvalidParameterError, match="candidates"):
        ebp.clamped_log_likelihood(ip, ix, ex, 2, 0.5, np.array([5]))
    with pytest.raises(InvalidParameterError, match="extra"):
        ebp.flood_log_likelihood(ip, ix, np.array([0, -1, 0]), 2)
    with pytest.raises(InvalidTypeError):
        ebp.tree_log_likelihood(ip.tolist(), ix, ex, 2, 0.5)
    with pytest.raises(InvalidParameterError, match="p must"):
        ebp.tree_log_likelihood(ip, ix, ex, 2, 1.5)
    with pytest.raises(GraphError, match="tree"):
        ebp.tree_log_likelihood(np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1], np.int32),
                                ex, 2, 0.5)
    with pytest.raises(InvalidParameterError, match="source_prior"):
        ebp.bp_run(ip, ix, ex, 2, 0.5, 0.0)


def test_registered_estimator():
    spec = adversaries.get_estimator("bp")
    assert spec.likelihood and not spec.random
    g = nx.cycle_graph(8)
    assert spec.why_not(spread.RandomDiffusion(0.4), g) is None
    assert spec.why_not(spread.Flooding(), g) is None
    assert "assumes a protocol" in spec.why_not(spread.AdaptiveDiffusion(), g)
    assert "bp" in adversaries.applicable_estimators(spread.RandomDiffusion(0.5), g)
    snap = adversaries.Snapshot(g, [0, 1, 2, 3], T=2)
    sc = spec.func(snap, **spec.params(spread.RandomDiffusion(0.5), g))
    assert sc.is_likelihood
    np.testing.assert_allclose(np.exp(sc.array).sum(), 1.0)
    tr = adversaries.top_and_rank(snap, "bp", 1, protocol=spread.RandomDiffusion(0.5))
    assert tr.rank >= 1


@pytest.mark.parametrize("g,p,T", [(nx.balanced_tree(2, 3), 0.5, 3),
                                   (nx.random_regular_graph(3, 12, seed=1), 0.5, 3)],
                         ids=["binary-tree", "3reg12"])
def test_predicted_detection_is_calibrated_against_the_exact_ceiling(g, p, T):
    """BP's predicted detection (mean max posterior) and its realised detection both match
    the exact Bayes ceiling within 3 standard errors (plus 0.01 for the Bethe posterior on
    the graph with cycles)."""
    proto = spread.RandomDiffusion(p)
    ceiling = adversaries.bayes_ceiling(g, proto, T, method="exact").value
    d = adversaries.bp_detection(g, proto, T, 400, rng=3)
    slack = 0.0 if d.exact == d.trials else 0.01
    assert d.unconverged == 0
    assert abs(d.predicted - ceiling) <= 3 * d.predicted_se + slack
    assert abs(d.realised - ceiling) <= 3 * d.realised_se + slack


def test_no_underflow_at_large_degree_and_T():
    """A star of 1,000 infected leaves (each with 5 uninfected contacts) at T = 50: every
    likelihood is far below the smallest double, yet the log-domain messages keep them; the
    two-pass tree method and the clamped Bethe runs (exact on trees) agree."""
    leaves = 1000
    n = leaves + 1
    indptr = np.concatenate([[0, leaves], leaves + np.arange(1, leaves + 1)]).astype(np.int64)
    indices = np.concatenate([np.arange(1, n), np.zeros(leaves)]).astype(np.int32)
    extra = np.full(n, 5, np.int64)
    extra[0] = 0
    T, p = 50, 0.1
    tree = ebp.tree_log_likelihood(indptr, indices, extra, T, p)
    assert np.all(np.isfinite(tree)) and tree.max() < -745  # exp() of it underflows
    cands = np.array([0, 1])
    lz, _, ch = ebp.clamped_log_likelihood(indptr, indices, extra, T, p, cands, damping=0.0)
    assert np.all(ch < 1e-9)
    np.testing.assert_allclose(lz, tree[cands], rtol=1e-12)
    # the centre: every leaf infected at some t <= T, then its 5 contacts escaped until T
    q = 1 - p
    t = np.arange(1, T + 1)
    leaf = np.sum(p * q ** (t - 1) * q ** (5 * (T - t)))
    assert tree[0] == pytest.approx(leaves * np.log(leaf), rel=1e-12)


def _loopy_snapshots(g, p, T, k, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < k:
        snap = adversaries.observe(spread.simulate(g, spread.RandomDiffusion(p), T, rng=rng))
        if not snap.subgraph_is_tree():
            out.append(snap)
    return out


@pytest.mark.parametrize("g,p,T", [(nx.random_regular_graph(3, 12, seed=1), 0.5, 3),
                                   (nx.random_regular_graph(3, 14, seed=5), 0.5, 3)],
                         ids=["3reg12", "3reg14"])
def test_prior_method_against_exact_and_bethe(g, p, T):
    """Paired on the same loopy snapshots: ``prior`` (one run) is a coarse approximation:
    mean TV to the exact posterior in a band well above bethe's, and the expected detection
    of its MAP within 0.08 of the exact ceiling (measured at seed 11: TV 0.10-0.18, loss
    0.015-0.03; bethe TV < 0.02, no loss)."""
    proto = spread.RandomDiffusion(p)
    tv_p, tv_b, d_p, d_b, d_x = [], [], [], [], []
    for snap in _loopy_snapshots(g, p, T, 25, seed=11):
        _, ex = _exact_post(snap, p)
        rp = adversaries.bp_posterior(snap, proto, method="prior", max_iter=2000)
        rb = adversaries.bp_posterior(snap, proto, method="bethe")
        assert rp.method == "prior" and not rp.exact and rp.converged
        assert rb.method == "bethe"
        for post, tv, d in ((rp.posterior, tv_p, d_p), (rb.posterior, tv_b, d_b)):
            tv.append(0.5 * np.abs(post - ex).sum())
            top = np.flatnonzero(post >= post.max() * (1 - 1e-9))
            d.append(ex[top].mean())
        d_x.append(ex.max())
    assert np.mean(tv_b) < 0.03
    assert 0.03 < np.mean(tv_p) < 0.3
    assert np.mean(d_x) - 0.08 < np.mean(d_p) <= np.mean(d_x) + 1e-12
    assert np.mean(d_b) >= np.mean(d_x) - 0.005


def test_prior_method_on_trees_tends_to_exact():
    """On trees the independent-prior posterior tends to the exact one as gamma -> 0."""
    proto = spread.RandomDiffusion(0.5)
    snaps = [s for s, _ in _snapshots(nx.balanced_tree(2, 4), proto, 3, 6, seed=4)]
    tv = {}
    for gm in (0.03, 1e-3, 1e-6):
        tv[gm] = max(0.5 * np.abs(adversaries.bp_posterior(s, proto, method="prior", gamma=gm,
                                                           max_iter=2000).posterior
                                  - _exact_post(s, 0.5)[1]).sum() for s in snaps)
    assert tv[1e-6] < 1e-4
    assert tv[1e-6] < tv[1e-3] < tv[0.03]


def test_auto_method_choice():
    proto = spread.RandomDiffusion(0.5)
    g = nx.random_regular_graph(3, 40, seed=3)
    snap = _loopy_snapshots(g, 0.5, 4, 1, seed=2)[0]
    assert adversaries.bp_posterior(snap, proto).method == "bethe"
    res = adversaries.bp_posterior(snap, proto, bethe_budget=0)
    assert res.method == "prior" and not res.exact
    np.testing.assert_allclose(res.posterior.sum(), 1.0)
    # the registered estimator is auto: the same scores as the prior method under that budget
    sc = adversaries.bp(snap, proto, bethe_budget=0)
    np.testing.assert_allclose(sc.array, res.scores.array)
    tree = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5], T=2)
    assert adversaries.bp_posterior(tree, proto).method == "tree"
    fl = adversaries.observe(spread.simulate(g, spread.Flooding(), 2, rng=1))
    assert adversaries.bp_posterior(fl, spread.Flooding()).method == "flooding"
    with pytest.raises(InvalidParameterError, match="method"):
        adversaries.bp_posterior(snap, proto, method="fast")
    with pytest.raises(InvalidParameterError, match="tree-shaped"):
        adversaries.bp_posterior(snap, proto, method="tree")
    with pytest.raises(InvalidParameterError, match="p = 1"):
        adversaries.bp_posterior(snap, proto, method="flooding")
    with pytest.raises(InvalidParameterError, match="p < 1"):
        adversaries.bp_posterior(fl, spread.Flooding(), method="prior")
    with pytest.raises(InvalidParameterError, match="gamma"):
        adversaries.bp_posterior(snap, proto, method="prior", gamma=0.0)


def _csr(g):
    n = g.number_of_nodes()
    nb = [sorted(g[v]) for v in range(n)]
    ip = np.concatenate([[0], np.cumsum([len(x) for x in nb])]).astype(np.int64)
    ix = np.array([u for x in nb for u in x], np.int32)
    return ip, ix


def _star(leaves, extra_leaf):
    g = nx.star_graph(leaves)
    ip, ix = _csr(g)
    extra = np.full(leaves + 1, extra_leaf, np.int64)
    extra[0] = 0
    return ip, ix, extra


@pytest.mark.parametrize("damping", [0.0, 0.3])
def test_linear_kernel_agrees_with_log_kernel(damping):
    """The linear-domain kernel (messages scaled to max 1) against the log-domain one it
    replaced, on fixed loopy and tree snapshots: the same sweeps, log Z to 1e-12 relative,
    marginals and source posteriors to 1e-12; the clamped Bethe log-likelihoods likewise,
    and exact on a tree (1e-10 against the two-pass tree likelihood)."""
    cases = []
    for g, T in ((nx.random_regular_graph(3, 60, seed=4), 6),
                 (nx.random_labeled_tree(40, seed=2), 5)):
        sp = spread.simulate(g, spread.RandomDiffusion(0.5), T, rng=7)
        snap = adversaries.observe(sp)
        ip, ix = snap.subgraph()
        ip = np.ascontiguousarray(ip, np.int64)
        cases.append((ip, np.ascontiguousarray(ix, np.int32), snap.contact_degrees() - np.diff(ip),
                      T, snap.subgraph_is_tree()))
    assert not cases[0][4] and cases[1][4]
    for ip, ix, ex, T, tree in cases:
        lin = ebp.bp_run(ip, ix, ex, T, 0.5, 0.03, damping=damping, tol=1e-12, max_iter=500)
        ref = ebp.bp_run(ip, ix, ex, T, 0.5, 0.03, damping=damping, tol=1e-12, max_iter=500,
                         kernel="log")
        assert (lin.kernel, ref.kernel) == ("linear", "log")
        assert lin.converged and ref.converged
        assert abs(lin.sweeps - ref.sweeps) <= 1
        assert lin.log_z == pytest.approx(ref.log_z, rel=1e-12)
        np.testing.assert_allclose(lin.marginals, ref.marginals, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.exp(lin.log_source), np.exp(ref.log_source), atol=1e-12)
        cands = np.arange(ip.shape[0] - 1)
        lz, it, ch = ebp.clamped_log_likelihood(ip, ix, ex, T, 0.5, cands, damping=damping,
                                                tol=1e-12, max_iter=500)
        lzr, _, _ = ebp.clamped_log_likelihood(ip, ix, ex, T, 0.5, cands, damping=damping,
                                               tol=1e-12, max_iter=500, kernel="log")
        assert np.all(ch < 1e-12)
        np.testing.assert_array_equal(np.isfinite(lz), np.isfinite(lzr))
        ok = np.isfinite(lz)
        np.testing.assert_allclose(lz[ok], lzr[ok], rtol=1e-12)
        if tree:
            exact = ebp.tree_log_likelihood(ip, ix, ex, T, 0.5)
            np.testing.assert_allclose(lz[ok], exact[ok], rtol=1e-10)
    with pytest.raises(InvalidParameterError, match="kernel"):
        ebp.bp_run(ip, ix, ex, T, 0.5, 0.03, kernel="linear")
    with pytest.raises(InvalidParameterError, match="kernel"):
        ebp.clamped_log_likelihood(ip, ix, ex, T, 0.5, cands, kernel=1)


@pytest.mark.parametrize("leaves,extra_leaf,T,p", [
    (1000, 5, 50, 0.1),      # degree 1000: the centre's likelihood ~ e^-1788
    (1000, 5, 50, 0.9),      # p near 1 and uninfected contacts: q^(5 (T - t)) ~ 10^-250
    (1000, 5, 50, 1e-6),     # p near 0
    (300, 0, 200, 0.999),    # p near 1, long T
    (30, 3, 2000, 0.01),     # long T
])
def test_linear_kernel_underflow(leaves, extra_leaf, T, p):
    """Where the scaled numbers would underflow (tiny masses at large degree, long T, p near 0
    or 1) the default kernel never returns NaN or garbage: it stays exact on the star (a
    tree: the clamped Bethe likelihood equals the two-pass tree likelihood to 1e-10), its
    independent-prior run agrees with the log-domain kernel, and a run whose normalisers
    underflowed says it was redone in the log domain."""
    ip, ix, ex = _star(leaves, extra_leaf)
    cands = np.array([0, 1])
    exact = ebp.tree_log_likelihood(ip, ix, ex, T, p)[cands]
    lz, _, ch = ebp.clamped_log_likelihood(ip, ix, ex, T, p, cands, damping=0.0)
    assert np.all(np.isfinite(lz)) and np.all(ch < 1e-9)
    np.testing.assert_allclose(lz, exact, rtol=1e-10, atol=1e-12)
    r = ebp.bp_run(ip, ix, ex, T, p, 1e-3, damping=0.0)
    ref = ebp.bp_run(ip, ix, ex, T, p, 1e-3, damping=0.0, kernel="log")
    assert r.kernel in ("linear", "log") and ref.kernel == "log"
    assert np.isfinite(r.log_z) and not np.isnan(r.marginals).any()
    assert not np.isnan(r.log_source).any()
    assert r.log_z == pytest.approx(ref.log_z, rel=1e-10)
    np.testing.assert_allclose(r.marginals, ref.marginals, atol=1e-9)
    if (leaves, extra_leaf, T, p) == (1000, 5, 50, 0.9):
        assert r.kernel == "log"  # the fallback was exercised
    if (leaves, extra_leaf, T, p) == (1000, 5, 50, 0.1):
        assert r.kernel == "linear"  # ... and is not taken where nothing underflows
