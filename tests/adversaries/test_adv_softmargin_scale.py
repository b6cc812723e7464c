"""Soft-margin at a sweep point's scale (issue 31 item 6): the bitset scoring of a run
against a batch of snapshots gives the sums the per-snapshot counts give, bitwise."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.softmargin import _layout, _prune
from anonspread.engine import softmargin as engine_sm
from anonspread.engine.store import new_finite_store
from anonspread.errors import InvalidParameterError


def _batch(n=150, trials=12, T=3, seed=5):
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, n, seed=seed))
    proto = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(seed)
    snaps = [A.observe(spread.simulate(g, proto, T, rng=rng)) for _ in range(trials)]
    return g, proto, snaps


def _scored(g, proto, snaps, scoring, *, threads=1, active=None, runs=60):
    lay = _layout(snaps, [_prune(s, 20) for s in snaps], g.number_of_nodes())
    npairs = lay.pair_snap.shape[0]
    act = np.ones(npairs, np.uint8) if active is None else active(npairs)
    sums = engine_sm.PairSums(npairs, 3)
    stores = [new_finite_store(g.indptr, g.indices) for _ in range(threads)]
    gens = [np.random.default_rng(int(v)) for v in lay.sources]
    used = engine_sm.accumulate_shared(proto.kernel_code, stores, lay.sources, gens, runs,
                                       snaps[0].T, proto.kernel_params(g, snaps[0].T),
                                       lay.pair_ptr, lay.pair_snap, act, lay.snap_ptr,
                                       lay.snap_ids, lay.n_obs, [0.25, 0.0625, 2.0**-6], sums,
                                       scoring=scoring)
    return sums, used


@pytest.mark.parametrize("threads", [1, 2])
def test_bitsets_give_the_counts_sums_bitwise(threads):
    g, proto, snaps = _batch()  # 150 nodes: bitsets of 3 words, snapshots overlapping

    def half(n):  # some pairs inactive
        return (np.arange(n) % 3 != 1).astype(np.uint8)

    for active in (None, half):
        a, used_a = _scored(g, proto, snaps, "counts", threads=threads, active=active)
        b, used_b = _scored(g, proto, snaps, "bitsets", threads=threads, active=active)
        assert (used_a, used_b) == ("counts", "bitsets")
        for f in engine_sm.PairSums._FIELDS:
            assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), f
        assert a.runs.sum() > 0 and a.hits.sum() >= 0 and np.isfinite(a.jac).all()


def test_auto_takes_the_cheaper_way():
    g, proto, snaps = _batch(trials=30, T=4)  # overlapping snapshots: bitsets
    lay = _layout(snaps, [_prune(s, 20) for s in snaps], g.number_of_nodes())
    counts, bits, nbytes = engine_sm.scoring_costs(lay.pair_ptr, np.ones(lay.pair_snap.shape[0], np.uint8),
                                                   lay.snap_ptr, len(snaps))
    assert bits < counts and 0 < nbytes < engine_sm.BITSET_BYTES
    assert _scored(g, proto, snaps, "auto")[1] == "bitsets"
    # one small snapshot on a large graph: counting its few nodes is cheaper
    big = spread.graphs.as_contact_graph(nx.random_regular_graph(3, 5000, seed=1))
    one = [A.observe(spread.simulate(big, proto, 2, rng=3))]
    assert _scored(big, proto, one, "auto", runs=5)[1] == "counts"
    with pytest.raises(InvalidParameterError, match="scoring"):
        _scored(g, proto, snaps, "popcount")


def test_soft_margin_many_is_unchanged_by_the_scoring():
    # the batch's results equal each snapshot's alone (alone: counts; the batch: bitsets)
    g, proto, snaps = _batch(trials=6, T=3)
    many = A.soft_margin_many(snaps, proto, rng=4, simulations=50, max_simulations=100)
    for snap, r in zip(snaps, many):
        alone = A.soft_margin_estimate(snap, proto, rng=4, simulations=50, max_simulations=100)
        assert np.array_equal(alone.log_likelihood, r.log_likelihood)
        assert np.array_equal(alone.exact_matches, r.exact_matches)
        assert alone.a == r.a and alone.converged == r.converged


# ----------------------------------------------------------------- pricing (soft_margin_cost)

def test_the_runs_at_the_cap_follow_the_doubling_schedule():
    from anonspread.adversaries.softmargin import runs_at_cap

    assert runs_at_cap(1000, 16000) == 16000 and runs_at_cap(1000, 10000) == 8000
    assert runs_at_cap(5, 5) == 5 and runs_at_cap(250, 2000) == 2000


def test_the_price_counts_each_distinct_candidate_once_for_the_batch():
    g, proto, snaps = _batch(n=60, trials=16, T=3, seed=2)
    cost = A.soft_margin_cost(snaps, proto, simulations=50, max_simulations=300, timed=False)
    distinct = np.unique(np.concatenate([s.index[_prune(s, 100)] for s in snaps]))
    assert cost.candidates == distinct.shape[0] < cost.pairs == sum(min(s.n, 100) for s in snaps)
    assert cost.runs == 200 and cost.cpu_seconds is None and cost.work > cost.candidates * cost.runs
    # the schedule priced is the one the estimator runs where nothing converges
    res = A.soft_margin_many(snaps, proto, rng=1, simulations=50, max_simulations=300)
    assert max(r.simulations for r in res) == cost.runs
    assert not any(r.converged for r in res)
    # the timed price: positive, from a round of a few candidates, not a run of the batch
    timed = A.soft_margin_cost(snaps, proto, simulations=50, max_simulations=300)
    assert timed.cpu_seconds == pytest.approx(timed.seconds_per_run * timed.candidates * timed.runs)
    assert timed.cpu_seconds > 0 and timed.timed_seconds < 5
    assert timed.scoring == "bitsets, 64 runs at a time"  # random diffusion on a finite graph
    assert "distinct candidates of 16 snapshots" in timed.describe()


def test_a_larger_batch_is_extrapolated_from_its_sample():
    g, proto, snaps = _batch(n=400, trials=40, T=2, seed=3)  # small, scattered snapshots
    whole = A.soft_margin_cost(snaps, proto, timed=False)
    part = A.soft_margin_cost(snaps[:10], proto, batch=40, timed=False)
    sample = A.soft_margin_cost(snaps[:10], proto, timed=False)
    assert part.sampled == 10 and part.snapshots == 40 and "from 10 sampled" in part.describe()
    # new candidates keep coming: more than the sample's, at most the graph's nodes
    assert sample.candidates < part.candidates <= 400
    assert part.pairs == pytest.approx(4 * sample.pairs)
    assert 0.5 * whole.candidates <= part.candidates <= 2 * whole.candidates
    with pytest.raises(InvalidParameterError, match="batch"):
        A.soft_margin_cost(snaps[:10], proto, batch=5)
