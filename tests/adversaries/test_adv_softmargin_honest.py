"""Soft-margin's flags mean what they say (issue 31): never ``converged`` on a snapshot its
runs never reproduce; converged posteriors close to the exact posterior on small graphs;
a batch's shared simulations give each snapshot exactly its estimate alone; elimination
never stops the exact MAP."""

from __future__ import annotations

from concurrent.futures import Future

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.softmargin import MIN_EFFECTIVE_RUNS, _kl_bounds
from anonspread.engine import softmargin as engine_sm
from anonspread.errors import InvalidParameterError, InvalidTypeError


def _posterior(values):
    x = np.asarray(values, float)
    top = np.max(x[np.isfinite(x)])
    w = np.where(np.isfinite(x), np.exp(x - top), 0.0)
    return w / w.sum()


def _small_instances(k, seed):
    """``k`` snapshots of random diffusion on 12-node random 3-regular graphs."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        g = spread.graphs.as_contact_graph(nx.random_regular_graph(3, 12, seed=int(rng.integers(1 << 30))))
        proto = spread.RandomDiffusion(float(rng.choice([0.3, 0.5, 0.7])))
        out.append((A.observe(spread.simulate(g, proto, int(rng.choice([2, 3])), rng=rng)), proto))
    return out


def test_never_converged_on_a_snapshot_its_runs_never_reproduce():
    # one step of random diffusion reaches at most 3 nodes of a path: 5 are never reproduced
    snap = A.Snapshot(nx.path_graph(9), [0, 1, 2, 3, 4], T=1)
    res = A.soft_margin_estimate(snap, spread.RandomDiffusion(0.5), rng=1)
    assert res.exact_matches.sum() == 0 and res.mean_jaccard.max() <= 0.6
    assert not res.converged and not res.informative and res.support == 0
    # no run within even the widest width: no width can become informative by the cap, so
    # refinement settles after the two rounds stability needs, at the widest width
    assert res.settled and res.simulations == 2000 and res.a == res.widths[0]
    assert res.stop == "settled"
    full = A.soft_margin_estimate(snap, spread.RandomDiffusion(0.5), rng=1, settle=False,
                                  stop_uninformative=False)
    assert full.simulations == 16000 and not full.settled and not full.converged
    assert full.stop == "cap"
    # the same width and, within their reported errors, the same posterior (nodes 1, 2, 3
    # tie exactly: each reaches 3 of the 5 nodes at best, so the argmax is a coin flip)
    tv = 0.5 * np.abs(_posterior(full.scores.array) - _posterior(res.scores.array)).sum()
    assert full.a == res.a and tv <= 3 * (res.tv_error + full.tv_error)
    # flooding is deterministic: a set that is not a ball is reproduced by no run
    snap = A.Snapshot(nx.cycle_graph(10), [0, 1, 2, 3], T=1)
    res = A.soft_margin_estimate(snap, spread.Flooding(), rng=2, max_simulations=2000)
    assert res.exact_matches.sum() == 0 and not res.converged


def test_settling_stops_where_the_cap_would_report_the_same_width():
    # random diffusion (p = 0.5) over most of a 3-block graph: no run reproduces a 100-node
    # snapshot, but every width is informative and stable after 2 rounds; the cap's
    # answer (16,000 runs) is the settled one (2,000)
    g = spread.graphs.as_contact_graph(nx.stochastic_block_model(
        [40, 40, 40], [[0.2, 0.02, 0.02], [0.02, 0.2, 0.02], [0.02, 0.02, 0.2]], seed=3))
    proto = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(4)
    snaps = [A.observe(spread.simulate(g, proto, 4, rng=rng)) for _ in range(3)]
    settled = A.soft_margin_many(snaps, proto, rng=5, candidates=10)
    full = A.soft_margin_many(snaps, proto, rng=5, candidates=10, settle=False)
    for s, f in zip(settled, full):
        assert s.settled and not s.converged and not f.settled and not f.converged
        assert s.simulations < f.simulations == 16000
        assert s.a == f.a and A.pick(s.scores) == A.pick(f.scores)
        assert s.tv_error <= 0.02
        # the first runs are the same runs: the settled sums are a prefix of the cap's
        assert np.all(s.runs <= f.runs)


def test_uninformative_snapshots_stop_after_two_rounds_and_say_so():
    # the path snapshot of one step that no run comes near: with settling off, refinement
    # stops after the second round because no width can become informative by the cap
    snap = A.Snapshot(nx.path_graph(9), [0, 1, 2, 3, 4], T=1)
    rd = spread.RandomDiffusion(0.5)
    res = A.soft_margin_estimate(snap, rd, rng=1, settle=False)
    assert res.stop == "uninformative" and res.simulations == 2000
    assert not (res.informative or res.converged or res.settled) and res.support == 0
    assert res.a == res.widths[0]  # the widest width's similarity ranking
    full = A.soft_margin_estimate(snap, rd, rng=1, settle=False, stop_uninformative=False)
    assert full.stop == "cap" and full.simulations == 16000
    # the same first runs: the stopped estimate is the cap's prefix (the mean Jaccard of
    # its 2,000 runs differs from the cap's 16,000 by Monte Carlo noise only)
    assert np.all(res.runs < full.runs)
    assert np.allclose(res.mean_jaccard, full.mean_jaccard, atol=0.03)

    # adaptive diffusion on a graph with cycles (d0 = inf, 3 new infections per node and
    # step): at T = 6 the runs of most snapshots' candidates never come within the widest
    # width
    g = spread.graphs.as_contact_graph(nx.stochastic_block_model(
        [60, 60, 60], [[0.1, 0.005, 0.005], [0.005, 0.1, 0.005], [0.005, 0.005, 0.1]], seed=3))
    ad = spread.AdaptiveDiffusion(d0=float("inf"), max_infections_per_step=3)
    rng = np.random.default_rng(8)
    snaps = [A.observe(spread.simulate(g, ad, 6, rng=rng)) for _ in range(4)]
    kw = {"rng": 2, "candidates": 10, "simulations": 200, "max_simulations": 3200}
    stopped = A.soft_margin_many(snaps, ad, **kw)
    going = A.soft_margin_many(snaps, ad, stop_uninformative=False, **kw)
    for s, f in zip(stopped, going):
        if s.stop == "uninformative":
            assert not s.informative and s.simulations == 400 < f.simulations
            assert not f.converged
        else:  # the others refine as before
            assert s.stop == f.stop and np.array_equal(s.log_likelihood, f.log_likelihood)
    assert sum(s.stop == "uninformative" for s in stopped) >= 2


def test_stopping_uninformative_snapshots_leaves_the_others_alone():
    # snapshots whose runs come near are refined exactly as before, bit for bit
    line = A.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    g = spread.graphs.as_contact_graph(nx.stochastic_block_model(
        [40, 40, 40], [[0.2, 0.02, 0.02], [0.02, 0.2, 0.02], [0.02, 0.02, 0.2]], seed=3))
    rd = spread.RandomDiffusion(0.5)
    rd_snap = A.observe(spread.simulate(g, rd, 4, rng=np.random.default_rng(4)))
    for snap, proto, kw in ((line, spread.LineProtocol(), {}),
                            (line, spread.LineProtocol(), {"simulations": 10}),
                            (rd_snap, rd, {"candidates": 10})):
        on = A.soft_margin_estimate(snap, proto, rng=3, **kw)
        off = A.soft_margin_estimate(snap, proto, rng=3, stop_uninformative=False, **kw)
        assert on.informative and on.stop in ("converged", "settled")
        assert on.stop == off.stop and on.simulations == off.simulations
        assert np.array_equal(on.log_likelihood, off.log_likelihood)
    # 10 runs a round: after two rounds the centre has at most a few exact matches (not
    # informative yet), but scaled to the cap they would be many: refinement goes on
    # until it converges
    res = A.soft_margin_estimate(line, spread.LineProtocol(), rng=3, simulations=10)
    assert res.stop == "converged" and res.simulations > 20


@pytest.mark.parametrize("flag", ["stop_uninformative", "settle", "eliminate"])
def test_refinement_flags_must_be_booleans(flag):
    snap = A.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    with pytest.raises(InvalidTypeError, match=f"{flag} must be True or False; got 1"):
        A.soft_margin_estimate(snap, spread.LineProtocol(), rng=1, **{flag: 1})


def test_converged_posteriors_are_close_to_the_exact_posterior():
    # measured on 120 such instances (seed 2026): max TV 0.035 over 58 converged
    tv, conv = [], 0
    for snap, proto in _small_instances(30, 7):
        res = A.soft_margin_estimate(snap, proto, rng=3)
        post = _posterior(res.scores.array)
        exact = _posterior(A.exact_likelihood(snap, proto).array)
        # the bound behind `converged`: TV(kernel, exact-match posterior) <= 1 - exact_share
        hits = res.exact_matches / res.runs
        if hits.sum() > 0:
            hp = np.zeros(snap.n)
            hp[[snap.position(c) for c in res.candidates]] = hits / hits.sum()
            assert 0.5 * np.abs(post - hp).sum() <= 1 - res.exact_share + 1e-12
        if res.converged:
            conv += 1
            assert res.exact_share >= 1 - 0.02 and res.tv_error <= 0.02 and res.error <= 0.02
            assert res.exact_matches.max() >= MIN_EFFECTIVE_RUNS and res.informative
            tv.append(0.5 * np.abs(post - exact).sum())
    assert conv >= 8
    assert max(tv) <= 0.06


class _Inline:
    def submit(self, fn, *args):
        fut = Future()
        fut.set_result(fn(*args))
        return fut


@pytest.mark.parametrize("eliminate", [False, True])
def test_shared_simulations_give_each_snapshot_its_estimate_alone(eliminate):
    G = spread.graphs.as_contact_graph(nx.random_regular_graph(3, 30, seed=3))
    rd = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(4)
    snaps = [A.observe(spread.simulate(G, rd, 2, rng=rng)) for _ in range(10)]
    t = spread.graphs.regular_tree(3)
    ad = spread.AdaptiveDiffusion()
    tsnaps = [A.observe(spread.simulate(t, ad, 3, rng=rng)) for _ in range(6)]
    for batch, proto in ((snaps, rd), (tsnaps, ad)):
        kw = {"rng": 5, "simulations": 200, "max_simulations": 800, "eliminate": eliminate}
        shared = A.soft_margin_many(batch, proto, **kw)
        alone = [A.soft_margin_estimate(s, proto, **kw) for s in batch]
        threads = A.soft_margin_many(batch, proto, threads=2, **kw)
        chunked = A.soft_margin_many(batch, proto, executor=_Inline(), chunks=3, **kw)
        for a, b, c, d in zip(alone, shared, threads, chunked):
            for r in (b, c, d):
                assert np.array_equal(a.scores.array, r.scores.array)
                assert np.array_equal(a.log_likelihood, r.log_likelihood)
                assert np.array_equal(a.runs, r.runs) and np.array_equal(a.exact_matches, r.exact_matches)
                assert (a.converged, a.informative, a.a, a.error) == (r.converged, r.informative, r.a, r.error)
    # the streams are the candidates' own: another seed, other estimates
    other = A.soft_margin_many(snaps, rd, rng=6, simulations=200, max_simulations=200)
    assert not all(np.array_equal(a.log_likelihood, b.log_likelihood)
                   for a, b in zip(other, A.soft_margin_many(snaps, rd, rng=5, simulations=200,
                                                             max_simulations=200)))


def test_a_batch_needs_one_graph_and_T():
    g = spread.graphs.as_contact_graph(nx.path_graph(9))
    with pytest.raises(InvalidParameterError, match="share one contact graph and T"):
        A.soft_margin_many([A.Snapshot(g, [3, 4], T=1), A.Snapshot(g, [3, 4, 5], T=2)],
                           spread.LineProtocol())
    with pytest.raises(InvalidParameterError, match="at least one snapshot"):
        A.soft_margin_many([], spread.LineProtocol())


def test_elimination_never_stops_the_exact_map():
    stopped = 0
    instances = _small_instances(8, 11)
    t = spread.graphs.regular_tree(3)
    ad = spread.AdaptiveDiffusion()
    rng = np.random.default_rng(12)
    instances += [(A.observe(spread.simulate(t, ad, 5, rng=rng)), ad) for _ in range(4)]
    for snap, proto in instances:
        exact = A.exact_likelihood(snap, proto).array
        res = A.soft_margin_estimate(snap, proto, rng=8, eliminate=True, max_simulations=8000)
        best = [snap.position(c) for c in res.candidates]
        runs = np.zeros(snap.n, np.int64)
        runs[best] = res.runs
        top = np.isclose(exact, exact.max(), rtol=1e-9)
        assert np.all(runs[top] == res.runs.max())  # every exact MAP drew to the end
        stopped += int(np.sum(runs < res.runs.max()))
    assert stopped >= 10  # elimination did stop candidates


def test_chernoff_bounds_are_no_tighter_than_the_exact_binomial():
    from scipy.stats import beta

    hits = np.array([0, 1, 5, 50, 999, 1000])
    n = np.full(6, 1000)
    lo, hi = _kl_bounds(hits, n, np.log(100))  # each side fails with probability <= 1/100
    with np.errstate(invalid="ignore"):
        cp_lo = np.nan_to_num(beta.ppf(0.01, hits, n - hits + 1), nan=0.0)
        cp_hi = np.nan_to_num(beta.ppf(0.99, hits + 1, n - hits), nan=1.0)
    assert np.all(lo <= cp_lo + 1e-12) and np.all(hi >= cp_hi - 1e-12)
    assert np.all(lo <= hits / n) and np.all(hits / n <= hi)


def test_shared_engine_refuses_bad_layouts():
    cg = spread.graphs.as_contact_graph(nx.path_graph(5))
    store = cg.take_store()
    try:
        proto = spread.RandomDiffusion(0.5)
        params = proto.kernel_params(cg, 2)
        good = dict(sources=np.array([1, 2], np.int32), pair_ptr=np.array([0, 1, 2]),
                    pair_snap=np.array([0, 0], np.int32), active=np.ones(2, np.uint8),
                    snap_ptr=np.array([0, 0, 1, 2, 2, 2]), snap_ids=np.array([0, 0], np.int32),
                    n_obs=np.array([2]))

        def call(**kw):
            a = {**good, **kw}
            sums = engine_sm.PairSums(len(a["pair_snap"]), 2)
            engine_sm.accumulate_shared(proto.kernel_code, [store], a["sources"],
                                        [np.random.default_rng(0) for _ in a["sources"]], 10, 2,
                                        params, a["pair_ptr"], a["pair_snap"], a["active"],
                                        a["snap_ptr"], a["snap_ids"], a["n_obs"], [0.5, 0.1], sums)
            return sums

        sums = call()
        assert sums.runs.tolist() == [10, 10] and (sums.near[:, 0] <= 10).all()
        assert call(active=np.array([1, 0], np.uint8)).runs.tolist() == [10, 0]
        for kw in ({"pair_ptr": np.array([0, 3, 2])}, {"pair_snap": np.array([0, 1], np.int32)},
                   {"snap_ids": np.array([0, 5], np.int32)}, {"n_obs": np.array([3])},
                   {"snap_ptr": np.array([0, 0, 1, 2, 9, 2])},
                   {"sources": np.array([1, 99], np.int32)}):
            with pytest.raises(ValueError):
                call(**kw)
    finally:
        cg.give_store(store)


def test_a_detection_point_scores_its_trials_as_one_batch():
    from anonspread.harness.experiments.spreading import detection_trials

    point = {"graph": "random-regular", "graph.n": 40, "graph.d": 3, "protocol": "random-diffusion",
             "protocol.p": 0.5, "T": 2, "estimator": ("jordan", "soft-margin")}
    one = detection_trials(point, 12, np.random.default_rng(1))
    two = detection_trials(point, 12, np.random.default_rng(1))
    for name in ("jordan", "soft-margin"):
        for k, v in one[name].items():
            assert np.array_equal(v, two[name][k]), (name, k)
    assert 0 < one["soft-margin"]["detection"].mean() <= 1
