"""The soft-margin estimator (Antulov-Fantulin et al., PRL 114, 248701, 2015).

Worked examples against the exact likelihood, detection against the exact ML on regular
trees, determinism (seed, threads, chunking of the runs), pruning, refusals.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import softmargin as engine_sm
from anonspread.errors import InvalidParameterError, InvalidTypeError


def _one_round(snap, proto, n, rng, **kw):
    """Exactly ``n`` runs per candidate (no doubling)."""
    return A.soft_margin_estimate(snap, proto, rng=rng, simulations=n, max_simulations=n, **kw)


def _within_binomial(p_hat, p, n, z=4.0):
    return np.all(np.abs(p_hat - p) <= z * np.sqrt(np.maximum(p * (1 - p), 1.0 / n) / n))


@pytest.mark.parametrize("graph, proto, infected, T", [
    # Protocol 1 on a path: 4 of the 36 equally likely coin sequences fill [2, 4] from 3
    (nx.path_graph(9), spread.LineProtocol(), [3, 4, 5, 6], 3),
    # random diffusion on a graph with cycles (a 4-cycle with a tail)
    (nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 5)]), spread.RandomDiffusion(0.5),
     [0, 1, 2, 3, 4], 2),
    (nx.random_labeled_tree(25, seed=3), spread.TreeProtocolPseudocode(), None, 3),
])
def test_narrow_kernel_matches_the_exact_likelihood(graph, proto, infected, T):
    if infected is None:
        infected = spread.simulate(graph, proto, T, source=0, rng=4).infected.tolist()
    snap = A.Snapshot(graph, infected, T)
    n = 4000
    res = _one_round(snap, proto, n, 11, a=1e-4)
    exact = np.exp(A.exact_likelihood(snap, proto).array)
    # a -> 0: the kernel keeps exact matches only, so P̂ is their fraction
    np.testing.assert_allclose(np.exp(res.scores.array), res.exact_matches / n, rtol=1e-12)
    assert res.simulations == n and res.total_simulations == n * snap.n
    assert _within_binomial(res.exact_matches / n, exact, n)
    assert np.all(res.exact_matches[exact == 0] == 0)  # impossible sources never match


def test_adaptive_diffusion_on_an_infinite_tree_matches_the_exact_likelihood():
    g = spread.graphs.regular_tree(3)
    proto = spread.AdaptiveDiffusion()
    for T, seed in ((3, 1), (5, 2)):
        snap = A.observe(spread.simulate(g, proto, T, rng=seed))
        n = 3000
        res = _one_round(snap, proto, n, 5, a=1e-4)
        exact = np.exp(A.exact_likelihood(snap, proto).array)
        assert _within_binomial(res.exact_matches / n, exact, n)
        assert np.all(res.exact_matches[exact == 0] == 0)


def test_wide_kernel_credits_near_misses():
    snap = A.Snapshot(nx.path_graph(9), [3, 4, 5, 6], 3)
    res = _one_round(snap, spread.LineProtocol(), 500, 2, a=(0.5, 1e-4))
    wide, narrow = res.log_likelihood[:, 0], res.log_likelihood[:, 1]
    assert np.all(wide >= narrow) and np.all(np.isfinite(wide))
    assert np.all((res.mean_jaccard > 0) & (res.mean_jaccard <= 1))


@pytest.mark.slow
@pytest.mark.parametrize("T", [3, 4])
def test_detection_matches_the_exact_ml_on_regular_trees(T):
    # adaptive diffusion on the 3-regular tree: the exact ML is the Bayes-optimal MAP
    # (uniform prior over the infected nodes), so no estimator beats it on average
    g = spread.graphs.regular_tree(3)
    proto = spread.AdaptiveDiffusion()
    rng = np.random.default_rng(20 + T)
    trials = 300
    sm, ml = np.empty(trials), np.empty(trials)
    for i in range(trials):
        s = spread.simulate(g, proto, T, rng=rng)
        snap = A.observe(s)
        sm[i] = A.evaluate(g, A.soft_margin(snap, proto, rng=rng), s.source, rng=rng).detected
        ml[i] = A.evaluate(g, A.ml_adaptive_diffusion(snap, 3), s.source, rng=rng).detected
    d = sm - ml
    se = max(d.std(ddof=1), 0.05) / math.sqrt(trials)
    assert abs(d.mean()) <= 4 * se  # within Monte Carlo bands of the ML
    assert d.mean() <= 3 * se       # and never significantly above it
    theory = A.theory.adaptive_diffusion_detection(3, T)
    assert abs(sm.mean() - theory) <= 4 * math.sqrt(theory * (1 - theory) / trials)


def test_same_rng_same_scores_whatever_the_threads():
    G = nx.connected_watts_strogatz_graph(120, 6, 0.2, seed=2)
    proto = spread.RandomDiffusion(0.4)
    snap = A.observe(spread.simulate(G, proto, 2, source=0, rng=1))
    one = A.soft_margin_estimate(snap, proto, rng=7, simulations=300, max_simulations=1200)
    two = A.soft_margin_estimate(snap, proto, rng=7, simulations=300, max_simulations=1200,
                                 threads=2)
    assert np.array_equal(one.scores.array, two.scores.array)
    assert np.array_equal(one.log_likelihood, two.log_likelihood)
    assert one.simulations == two.simulations and one.error == two.error
    other = A.soft_margin_estimate(snap, proto, rng=8, simulations=300, max_simulations=1200)
    assert not np.array_equal(one.log_likelihood, other.log_likelihood)
    # lazily grown tree: each thread grows its own copy of the realisation
    g = spread.graphs.regular_tree(3)
    ad = spread.AdaptiveDiffusion()
    snap = A.observe(spread.simulate(g, ad, 6, rng=3))
    r1 = _one_round(snap, ad, 400, 9)
    r2 = _one_round(snap, ad, 400, 9, threads=2)
    assert np.array_equal(r1.log_likelihood, r2.log_likelihood)
    assert np.array_equal(r1.exact_matches, r2.exact_matches)


def test_a_candidate_stream_does_not_depend_on_pruning_or_on_chunking():
    G = nx.connected_watts_strogatz_graph(80, 4, 0.2, seed=4)
    proto = spread.RandomDiffusion(0.5)
    snap = A.observe(spread.simulate(G, proto, 2, source=0, rng=2))
    full = _one_round(snap, proto, 200, 3, candidates=None)
    pruned = _one_round(snap, proto, 200, 3, candidates=3)
    kept = np.isfinite(pruned.scores.array)
    assert kept.sum() == 3 and len(pruned.candidates) == 3
    np.testing.assert_array_equal(pruned.scores.array[kept], full.scores.array[kept])
    # the kept ones are the Jordan estimator's best (smallest eccentricity)
    jordan = A.jordan_center(snap).array
    assert jordan[kept].min() >= np.sort(jordan)[-3]
    # the engine: two calls of 100 runs give the sums of one call of 200
    cg = spread.graphs.as_contact_graph(G)
    store = cg.take_store()
    mask = np.zeros(80, np.uint8)
    mask[snap.index] = 1
    src = snap.index[:4].astype(np.int32)
    params = proto.kernel_params(cg, 2)
    sums = []
    for calls in ((200,), (100, 100)):
        gens = [np.random.default_rng(k) for k in range(4)]
        s = engine_sm.SoftMarginSums(4, 2)
        for n in calls:
            engine_sm.accumulate(proto.kernel_code, [store], src, gens, n, 2, params, mask,
                                 snap.n, [0.25, 0.01], s)
        sums.append(s)
    assert sums[0].runs == sums[1].runs == 200
    for name in ("m1", "s1", "m2", "s2", "jac", "hits"):
        np.testing.assert_array_equal(getattr(sums[0], name), getattr(sums[1], name))
    assert np.all(store.ns[:, 0] == -1)  # the store's run state is clean again


def test_refinement_doubles_until_stable_and_reports_its_error():
    snap = A.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], 2)
    res = A.soft_margin_estimate(snap, spread.LineProtocol(), rng=1, simulations=250,
                                 max_simulations=8000)
    assert res.converged and res.simulations in (500, 1000, 2000, 4000, 8000)
    assert res.error <= 0.02 and A.pick(res.scores) == 4
    capped = A.soft_margin_estimate(snap, spread.LineProtocol(), rng=1, simulations=100,
                                    max_simulations=100, tolerance=1e-6)
    # not converged: the narrowest width whose MAP rests on >= 10 runs of kernel mass
    assert capped.simulations == 100 and not capped.converged and capped.informative
    assert capped.a == capped.widths[-1] and capped.support >= A.softmargin.MIN_EFFECTIVE_RUNS


def test_bad_input_is_refused_by_name():
    snap = A.Snapshot(nx.path_graph(9), [3, 4, 5], 2)
    line = spread.LineProtocol()
    for kw, match in (({"a": -0.1}, "a must"), ({"a": (0.1, 0.2)}, "strictly decreasing"),
                      ({"a": ()}, "at least one"), ({"simulations": 0}, "simulations"),
                      ({"simulations": 100, "max_simulations": 50}, "max_simulations"),
                      ({"tolerance": 0.0}, "tolerance"), ({"threads": 0}, "threads"),
                      ({"candidates": 0}, "candidates")):
        with pytest.raises(InvalidParameterError, match=match):
            A.soft_margin(snap, line, rng=1, **kw)
    with pytest.raises(InvalidTypeError, match="a must"):
        A.soft_margin(snap, line, a="narrow")
    with pytest.raises(InvalidTypeError, match="protocol"):
        A.soft_margin(snap, "line")
    with pytest.raises(InvalidParameterError, match="compiled kernel"):
        A.soft_margin(snap, spread.Dandelion())
    with pytest.raises(InvalidParameterError, match="estimator 'soft-margin' assumes"):
        A.check_applicable("soft-margin", spread.Dandelion(), nx.path_graph(4))


def test_oversized_requests_are_refused_up_front_with_the_size():
    G = nx.random_regular_graph(4, 2000, seed=1)
    proto = spread.Flooding()
    snap = A.observe(spread.simulate(G, proto, 3, source=0, rng=1))
    with pytest.raises(InvalidParameterError, match=r"max_simulations.*node visits"):
        A.soft_margin(snap, proto, rng=1, max_simulations=10**9)


def test_registered_for_every_compiled_snapshot_protocol():
    spec = A.get_estimator("soft-margin")
    assert spec.random and spec.likelihood and not spec.batch
    assert set(spec.protocols) == {"adaptive-diffusion", "line", "tree", "tree-pseudocode",
                                   "random-diffusion", "flooding"}
    proto = spread.Flooding()
    assert spec.params(proto, nx.path_graph(3)) == {"protocol": proto}


def _child(snap, proto, expected, q):
    r = A.soft_margin_estimate(snap, proto, rng=7, simulations=100, max_simulations=100, threads=2)
    q.put(bool(np.array_equal(r.scores.array, expected)))


@pytest.mark.skipif(not engine_sm.OPENMP, reason="built without OpenMP")
def test_threads_work_in_a_forked_child_after_the_parent_used_them():
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    G = nx.connected_watts_strogatz_graph(60, 4, 0.2, seed=2)
    proto = spread.RandomDiffusion(0.4)
    snap = A.observe(spread.simulate(G, proto, 2, source=0, rng=1))
    r = A.soft_margin_estimate(snap, proto, rng=7, simulations=100, max_simulations=100, threads=2)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(snap, proto, r.scores.array, q))
    p.start()
    p.join(60)
    alive = p.is_alive()
    if alive:
        p.kill()
    assert not alive and p.exitcode == 0 and q.get(timeout=5)
