"""bp's sweep order and its reuse of equal snapshots (issue 31 item 6): the answer depends on
the infected set only, never on the order the snapshot lists it in (a spread's snapshot lists
it in infection order, source first), and a reused computation is the same, bit for bit,
flags and warning included."""

from __future__ import annotations

import importlib
import warnings

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, spread
from anonspread.errors import InvalidTypeError

abp = importlib.import_module("anonspread.adversaries.bp")  # the module (adversaries.bp is the estimator)
P = spread.RandomDiffusion(0.5)


def _loopy():
    return nx.random_regular_graph(4, 40, seed=3)


def _same(a, b) -> None:
    assert np.array_equal(a.posterior, b.posterior)
    assert np.array_equal(a.log_likelihood, b.log_likelihood)
    assert np.array_equal(a.T_posterior, b.T_posterior)
    for f in ("method", "exact", "converged", "iterations", "max_change", "unconverged",
              "candidates", "damping", "stalled"):
        assert getattr(a, f) == getattr(b, f), f


@pytest.mark.parametrize("method", ["bethe", "prior", "tree"])
def test_posterior_does_not_depend_on_the_listing_order(method):
    g = _loopy() if method != "tree" else nx.balanced_tree(3, 3)
    sp = spread.simulate(g, P, 3, rng=5)
    snap = adversaries.observe(sp)  # infection order, source first
    order = np.random.default_rng(1).permutation(snap.n)
    other = adversaries.Snapshot(g, snap.nodes[order], 3)
    if method == "tree":
        assert snap.subgraph_is_tree()
    else:
        assert not snap.subgraph_is_tree()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", adversaries.BPConvergenceWarning)
        a = adversaries.bp_posterior(snap, P, method=method, cache=False)
        b = adversaries.bp_posterior(other, P, method=method, cache=False)
    back = np.argsort(order)  # other's position of each of snap's nodes
    assert np.array_equal(a.posterior, b.posterior[back])
    assert np.array_equal(a.log_likelihood, b.log_likelihood[back])
    assert a.converged == b.converged and a.iterations == b.iterations
    assert a.max_change == b.max_change


def test_an_equal_snapshot_reuses_the_computation_exactly():
    g = _loopy()
    snap = adversaries.observe(spread.simulate(g, P, 3, rng=8))
    adversaries.bp_cache_clear()
    fresh = adversaries.bp_posterior(snap, P, method="prior", cache=False)
    assert adversaries.bp_cache_info()["size"] == 0
    first = adversaries.bp_posterior(snap, P, method="prior")
    # the same infected set, listed in another order: the same computation
    order = np.random.default_rng(2).permutation(snap.n)
    other = adversaries.Snapshot(g, snap.nodes[order], 3)
    again = adversaries.bp_posterior(other, P, method="prior")
    info = adversaries.bp_cache_info()
    assert (info["hits"], info["misses"], info["size"]) == (1, 1, 1)
    _same(fresh, first)
    back = np.argsort(order)
    assert np.array_equal(first.posterior, again.posterior[back])
    assert np.array_equal(first.log_likelihood, again.log_likelihood[back])
    # what a caller does to a result does not reach the kept computation
    again.posterior[:] = 0.0
    again.log_likelihood[:] = 0.0
    _same(fresh, adversaries.bp_posterior(snap, P, method="prior"))
    # other options, another computation
    adversaries.bp_posterior(snap, P, method="prior", gamma=0.1)
    adversaries.bp_posterior(snap, spread.RandomDiffusion(0.4), method="prior")
    assert adversaries.bp_cache_info()["misses"] == 3
    adversaries.bp_cache_clear()
    assert adversaries.bp_cache_info() == {"hits": 0, "misses": 0, "size": 0,
                                           "maxsize": abp.BP_CACHE_SIZE, "bytes": 0}


def test_a_reused_unconverged_result_warns_again():
    g = _loopy()
    snap = adversaries.observe(spread.simulate(g, P, 4, rng=9))
    adversaries.bp_cache_clear()
    with pytest.warns(adversaries.BPConvergenceWarning) as w1:
        a = adversaries.bp_posterior(snap, P, method="bethe", max_iter=1)
    with pytest.warns(adversaries.BPConvergenceWarning) as w2:
        b = adversaries.bp_posterior(snap, P, method="bethe", max_iter=1)
    assert adversaries.bp_cache_info()["hits"] == 1
    assert not a.converged and a.unconverged > 0
    _same(a, b)
    assert [str(x.message) for x in w1] == [str(x.message) for x in w2]
    adversaries.bp_cache_clear()


def test_cache_must_be_a_bool():
    snap = adversaries.Snapshot(nx.cycle_graph(6), [0, 1, 2], 2)
    with pytest.raises(InvalidTypeError, match="cache must be a bool"):
        adversaries.bp_posterior(snap, P, cache=1)
