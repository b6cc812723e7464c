"""Closed forms of thesis Chapter 2 checked by simulation (fixed seeds, 4-sigma bands)."""

import math

import numpy as np
import pytest
from scipy import stats

from anonspread import spread
from anonspread.spread.graphs import line, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion, LineProtocol, TreeProtocol


def ball_size(d, r):
    return 2 * r + 1 if d == 2 else 1 + d * ((d - 1) ** r - 1) // (d - 2)


@pytest.mark.parametrize("d", [2, 3, 4, 5])
@pytest.mark.parametrize("T", [0, 2, 4, 6, 8])
def test_adaptive_diffusion_even_T_is_a_ball(d, T):
    b = spread.simulate_many(regular_tree(d), AdaptiveDiffusion(), T, 300, rng=d * 100 + T)
    assert np.all(b.n_infected == ball_size(d, T // 2))
    # N_T >= the bound of Theorem 2.3.1(a) (which fails at T = 0: 1 < 1 + 2 (d-1)^(1/2-d)/(d-2))
    if d > 2 and T > 0:
        assert b.n_infected.min() >= 2 * (d - 1) ** ((T + 1) / 2 - d) / (d - 2) + 1


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3, 4, 5])
def test_hop_distance_to_virtual_source_follows_eq_2_12(d):
    T, trials = 10, 6000
    b = spread.simulate_many(regular_tree(d), AdaptiveDiffusion(), T, trials, rng=1000 + d)
    h = b.vs_hops
    assert h.min() >= 1 and h.max() <= T // 2
    counts = np.bincount(h, minlength=T // 2 + 1)[1:]
    if d == 2:
        p = np.full(T // 2, 2 / T)
    else:
        p = (d - 2) / ((d - 1) ** (T // 2) - 1) * (d - 1.0) ** np.arange(T // 2)
    expected = trials * p
    # per-cell 4-sigma bands and a chi-square test
    sd = np.sqrt(trials * p * (1 - p))
    assert np.all(np.abs(counts - expected) <= 4 * sd + 1e-9), (counts, expected)
    keep = expected >= 5
    chi2 = (((counts - expected) ** 2) / expected)[keep].sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4


def test_line_protocol_mean_size_is_T_plus_1():
    for T in (5, 20, 60):
        b = spread.simulate_many(line(), LineProtocol(), T, 4000, rng=T)
        n = b.n_infected
        se = n.std(ddof=1) / math.sqrt(n.size)
        assert abs(n.mean() - (T + 1)) <= 4 * se, (T, n.mean())
        # each end is uniform on {0..T}: the size is 1 + U1 + U2
        assert n.min() >= 1 and n.max() <= 2 * T + 1


def test_line_protocol_ends_are_uniform():
    T, trials = 12, 6000
    pos = []
    g = line()
    rng = np.random.default_rng(5)
    for _ in range(trials // 10):
        s = spread.simulate(g, LineProtocol(), T, rng=rng)
        pos.append(max(g.position(v) for v in s.infected))
    counts = np.bincount(pos, minlength=T + 1)
    assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("d", [3, 4, 5])
def test_tree_protocol_size_bound_and_unused_neighbours(d):
    g = regular_tree(d)
    for T in range(1, 11):
        b = spread.simulate_many(g, TreeProtocol(), T, 200, rng=T)
        assert b.n_infected.min() >= (d - 1) ** ((T + 1) / 2) / (d - 2)
    for seed in range(20):
        g = regular_tree(d)
        s = spread.simulate(g, TreeProtocol(), 9, rng=seed)
        first = s.infected[1]
        others = set(g.neighbors(0).tolist()) - {first}
        assert others.isdisjoint(s.infected.tolist())


def test_tree_protocol_size_is_deterministic_on_regular_trees():
    # Protocol 2 is random only in which neighbours it picks.
    sizes = {spread.simulate(regular_tree(3), TreeProtocol(), 8, rng=s).n_infected for s in range(15)}
    assert len(sizes) == 1


def test_random_tree_mean_degree_and_growth():
    g = random_tree({3: 0.5, 4: 0.5}, rng=3)
    b = spread.simulate_many(g, AdaptiveDiffusion(d0=3), 8, 2000, rng=4)
    # between the 3-regular and 4-regular balls of radius 4
    assert ball_size(3, 4) <= b.n_infected.min() and b.n_infected.max() <= ball_size(4, 4)
    s = spread.simulate(g, AdaptiveDiffusion(d0=3), 12, rng=1)
    degs = np.array([g.degree(v) for v in s.infected])
    p = (degs == 3).mean()
    assert abs(p - 0.5) < 4 * math.sqrt(0.25 / degs.size) + 0.02


def test_random_diffusion_mean_size_on_regular_trees_is_not_the_thesis_formula():
    # A node r hops from the source is infected by T when r independent Geometric(p)
    # crossing times sum to <= T: E[N_T] = 1 + sum_r d (d-1)^(r-1) P(Binomial(T, p) >= r).
    # The thesis's text gives 1 + p d ((d-1)^T - 1)/(d-2) (23.5 at d = 3, T = 4, p = 1/2).
    d, T, p, trials = 3, 4, 0.5, 40_000
    exact = 1 + sum(d * (d - 1) ** (r - 1) * stats.binom.sf(r - 1, T, p) for r in range(1, T + 1))
    assert abs(exact - 13.1875) < 1e-12
    b = spread.simulate_many(regular_tree(d), spread.RandomDiffusion(p), T, trials, rng=3)
    x = b.n_infected
    assert abs(x.mean() - exact) <= 4 * x.std() / np.sqrt(trials)
    assert 1 + p * d * ((d - 1) ** T - 1) / (d - 2) == 23.5


def test_bad_radius_and_distribution_messages_name_what_was_given():
    from anonspread.adversaries.theory import ball_size as theory_ball_size
    from anonspread.errors import InvalidParameterError
    from anonspread.validation import check_distribution

    with pytest.raises(InvalidParameterError, match=r"^r must be an integer >= 0; got -1$"):
        theory_ball_size(3, -1)
    with pytest.raises(InvalidParameterError, match=r"its sum is 1\.1; got \[0\.5, 0\.6\]$"):
        check_distribution([0.5, 0.6], "p")
