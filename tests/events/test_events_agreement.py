"""Under one-step delays the message-level engine has the fast engine's distribution.

Two-sample tests at fixed seeds, 2,000 runs per engine and case: infected-set size
(chi-square on the counts), hop distance from the source to the virtual source, and the
detection probability of every applicable snapshot estimator (Welch t-test on the
per-trial P(pick = source | snapshot)). Each test fails when p < 1e-3.
"""

import functools
import math

import numpy as np
import pytest
from scipy import stats

from anonspread import adversaries as A
from anonspread import spread
from anonspread.spread.events import simulate_messages

N = 2000
ALPHA = 1e-3


@functools.lru_cache(maxsize=1)
def facebook():
    from anonspread import datasets

    return spread.graphs.from_networkx(datasets.load_graph("ego-facebook", min_degree=3))


def vs_hops(sp):
    if sp.virtual_source is None:
        return -1
    par, x, h = sp.parent, sp.virtual_source, 0
    while par[x] is not None:
        x, h = par[x], h + 1
    return h


def same_counts(a, b):
    vals = np.union1d(a, b)
    table = np.array([[np.sum(a == v) for v in vals], [np.sum(b == v) for v in vals]])
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return 1.0
    return stats.chi2_contingency(table).pvalue


def same_mean(a, b):
    if np.all(a == a[0]) and np.all(b == b[0]):
        return 1.0 if a[0] == b[0] else 0.0
    return stats.ttest_ind(a, b, equal_var=False).pvalue


def assert_same_distribution(make_graph, proto, T, estimators, fresh_graph):
    rng = np.random.default_rng(2024)
    sizes, hops, det = [], [], {e: [] for e in estimators}
    g = make_graph(0)
    for i in range(N):
        if fresh_graph:
            g = make_graph(i + 1)
        sp = simulate_messages(g, proto, T, rng=rng).spread
        sizes.append(sp.n_infected)
        hops.append(vs_hops(sp))
        snap = A.observe(sp)
        for e in estimators:
            spec = A.get_estimator(e)
            sc = spec.func(snap, **spec.params(proto, sp.graph))
            det[e].append(A.detection_probability(sc, sp.source))
    fast = A.simulate_and_score(make_graph(0), proto, T, N, estimators=estimators, rng=7)
    assert same_counts(np.array(sizes), fast.n_infected) > ALPHA
    b = spread.simulate_many(make_graph(0), proto, T, N, rng=8)
    assert same_counts(np.array(hops), b.vs_hops) > ALPHA
    for e in estimators:
        assert same_mean(np.array(det[e]), fast[e].detection_probability) > ALPHA, e


@pytest.mark.slow
def test_regular_tree_adaptive_diffusion():
    assert_same_distribution(lambda i: spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 5,
            ("ml", "jordan", "rumor"), fresh_graph=False)


@pytest.mark.slow
def test_random_tree_adaptive_diffusion():
    # simulate_many draws a fresh realisation per trial; so does this side
    assert_same_distribution(lambda i: spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=i), spread.AdaptiveDiffusion(3),
            4, ("ml", "jordan", "rumor"), fresh_graph=True)


@pytest.mark.slow
def test_ego_facebook_adaptive_diffusion_with_cap():
    assert_same_distribution(lambda i: facebook(), spread.AdaptiveDiffusion(math.inf, 3), 4, ("jordan", "rumor"),
            fresh_graph=False)


@pytest.mark.slow
def test_ego_facebook_adaptive_diffusion_leaves_rule():
    # the authors' Facebook rule: only infection-tree leaves infect, up to 3 each
    assert_same_distribution(lambda i: facebook(), spread.AdaptiveDiffusion(math.inf, 3, infectors="leaves"),
                             6, ("jordan",), fresh_graph=False)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("proto", [spread.RandomDiffusion(0.5), spread.TreeProtocol(),
                                   spread.LineProtocol()], ids=repr)
def test_regular_tree_other_protocols(proto):
    assert_same_distribution(lambda i: spread.graphs.regular_tree(3), proto, 3, ("jordan", "rumor"), fresh_graph=False)
