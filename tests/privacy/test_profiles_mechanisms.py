"""Profile-based privacy (Geumlek & Chaudhuri 2019): mechanisms, guarantees, Figures 2-3."""

import math

import numpy as np
import pytest

from anonspread.privacy import profiles as pr
from anonspread.privacy.profiles.lp import _repair

EPS_GRID = [0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 5.0]
P_GRID = np.linspace(0.0, 1.0, 11)


def level(P, edges, mats):
    """Definition 2 computed directly (independent of privacy.profiles)."""
    P = np.asarray(P, float)
    worst = 0.0
    for i, j in edges:
        u = P[i] @ np.asarray(mats[i])
        v = P[j] @ np.asarray(mats[j])
        for a, b in zip(u, v):
            if a == 0 and b == 0:
                continue
            if a == 0 or b == 0:
                return math.inf
            worst = max(worst, abs(math.log(a / b)))
    return worst


def exact_alpha(p_i, p_j, eps):
    """Minimum of LP (4) in closed form: the roots of the constraints violated at alpha = 0."""
    if p_i > p_j:
        p_i, p_j = p_j, p_i
    E = math.exp(eps)
    cands = [0.0]
    n1 = p_j - E * p_i  # (37) violated at 0
    if n1 > 0:
        cands.append(n1 / (2 * n1 + E - 1))
    n2 = p_i - E * p_j + E - 1  # (38) violated at 0
    if n2 < 0:
        cands.append(n2 / (2 * (p_i - E * p_j) + E - 1))
    return max(cands)


# ---------------------------------------------------------------- LP (4), Algorithm 1


@pytest.mark.parametrize("eps", EPS_GRID)
def test_two_profile_is_randomized_response_for_0_and_1(eps):
    rr = 1.0 / (1.0 + math.exp(eps))
    assert pr.one_bit_two_profile(0.0, 1.0, eps) == pytest.approx(rr, abs=1e-9)
    assert pr.one_bit_two_profile(1.0, 0.0, eps) == pytest.approx(rr, abs=1e-9)
    assert pr.ldp_flip_probability(eps) == pytest.approx(rr, abs=1e-15)


def test_two_profile_grid_bounds_optimality_and_privacy():
    """alpha <= LDP flip prob, <= Observation 10's bound, = the closed-form optimum, private."""
    n_below_ldp = 0
    for eps in EPS_GRID:
        rr = pr.ldp_flip_probability(eps)
        for p_i in P_GRID:
            for p_j in P_GRID:
                a = pr.one_bit_two_profile(p_i, p_j, eps)
                assert 0.0 <= a <= 0.5
                assert a <= rr + 1e-9
                assert a <= pr.observation10_bound(p_i, p_j, eps) + 1e-9
                assert a == pytest.approx(exact_alpha(p_i, p_j, eps), abs=1e-8)
                mats = pr.flip_matrices([a, a])
                P = [[1 - p_i, p_i], [1 - p_j, p_j]]
                assert level(P, [(0, 1)], mats) <= eps + 1e-9
                n_below_ldp += a < rr - 1e-6
    assert n_below_ldp > 300  # strictly better than LDP on most of the grid


def test_observation10_bound_is_tight_when_its_roots_are_the_binding_ones():
    # p_i <= p_j <= e^eps p_i and 1 - p_i > e^eps (1 - p_j) ... here: one binding root
    for eps in [0.1, 0.5, 1.0]:
        a = pr.one_bit_two_profile(0.1, 0.6, eps)
        assert a == pytest.approx(pr.observation10_bound(0.1, 0.6, eps), abs=1e-9)


# ---------------------------------------------------------------- Algorithms 2-3 on the chains


@pytest.mark.parametrize("n", [6, 21])
def test_bernoulli_chain_figure3_claims(n):
    """Figure 3: Smooth One Bit is private and adds less noise than Warner's RR at every eps > 0."""
    g = pr.bernoulli_chain(n)
    p = g.bernoulli_parameters
    for eps in [0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0]:
        rr = pr.ldp_flip_probability(eps)
        alphas = pr.smooth_one_bit(p, g.edges, eps)
        cluster = pr.one_bit_cluster(p, g.edges, eps)
        mats = pr.flip_matrices(alphas)
        assert level(g.profiles, g.edges, mats) <= eps + 1e-9
        assert level(g.profiles, g.edges, pr.flip_matrices([cluster] * n)) <= eps + 1e-9
        # LP (5)'s optimum is at most the cluster's single alpha, which is at most RR's
        assert alphas.max() <= cluster + 1e-9
        assert cluster <= rr + 1e-9
        # P(output = 1) per profile: spread over [0, 1] (higher is better)
        ours = p + (1 - 2 * p) * alphas
        base = p + (1 - 2 * p) * rr
        if eps > 0:
            assert alphas.max() < rr - 1e-3
            assert np.ptp(ours) > np.ptp(base) + 1e-3
        else:
            assert np.allclose(ours, 0.5, atol=1e-9)  # eps = 0: no information


def test_smooth_one_bit_is_the_optimum_of_lp5():
    """No common flip probability below max(alpha) can be feasible for the costliest edge."""
    g = pr.bernoulli_chain(6)
    p = g.bernoulli_parameters
    eps = 0.5
    alphas = pr.smooth_one_bit(p, g.edges, eps)
    # Lower every alpha by 1e-4 (capped at 0): some edge must break.
    lowered = np.clip(alphas - 1e-4, 0, None)
    assert level(g.profiles, g.edges, pr.flip_matrices(lowered)) > eps


def test_cluster_restricted_to_a_component():
    ps = [0.0, 1.0, 0.4, 0.5]
    edges = [(0, 1), (2, 3)]
    eps = 1.0
    a01 = pr.one_bit_two_profile(0.0, 1.0, eps)
    a23 = pr.one_bit_two_profile(0.4, 0.5, eps)
    assert pr.one_bit_cluster(ps, edges, eps, profile=2) == pytest.approx(a23)
    assert pr.one_bit_cluster(ps, edges, eps, profile=0) == pytest.approx(a01)
    assert pr.one_bit_cluster(ps, edges, eps) == pytest.approx(max(a01, a23))
    assert pr.one_bit_cluster(ps, [], eps) == 0.0


def test_figure2a_couplet_noise_grows_with_the_gap():
    eps = 0.5
    prev = -1.0
    for gap in np.linspace(0.0, 1.0, 11):
        g = pr.bernoulli_couplet(0.5 - gap / 2, 0.5 + gap / 2)
        a = pr.smooth_one_bit(g.bernoulli_parameters, g.edges, eps)
        assert a.max() >= prev - 1e-9
        assert a.max() <= pr.ldp_flip_probability(eps) + 1e-9
        prev = a.max()
    assert prev == pytest.approx(pr.ldp_flip_probability(eps), abs=1e-9)


# ---------------------------------------------------------------- LP (6), Algorithm 4


def test_categorical_chain3_figure2_claims():
    """Figures 2(b)-(c): per-category cost (8) below K-RR's; the profile-free category is cheapest."""
    g = pr.categorical_chain_3()
    assert g.names == ("P1", "P2", "P3") and g.edges == ((0, 1), (1, 2))
    free = 3  # same probability 0.1 under every profile
    for eps in [0.0, 0.05, 0.1, 0.12, 0.2, 0.5, 1.0, 2.0]:
        A = pr.smooth_categorical(g.profiles, g.edges, eps)
        assert level(g.profiles, g.edges, A) <= eps + 1e-9
        for a in A:
            assert np.all(a >= 0) and np.allclose(a.sum(axis=1), 1.0, atol=1e-12)
        krr = pr.ldp_baseline(4, eps)
        ours = pr.category_costs(g.profiles, A)
        base = pr.category_costs(g.profiles, [krr] * 3)
        # total cost below K-RR's at every eps; every category's cost too from eps ~ 0.11
        # on (measured: below that, LP (6)'s min-max objective lets the most
        # profile-revealing category 2 cost up to 0.171 against K-RR's 0.15)
        assert ours.sum() < base.sum()
        if eps >= 0.11:
            assert np.all(ours <= base + 1e-9)
        # the category least associated with the profile has the lowest cost (ties
        # with category 1, whose probabilities 0.3/0.3/0.4 barely vary, at some eps)
        assert ours[free] <= ours.min() + 1e-9
        if ours.max() > 1e-6:
            assert ours[free] < min(ours[0], ours[2])
        # (6)'s optimum is at most K-RR's off-diagonal entry (K-RR is feasible)
        off = ~np.eye(4, dtype=bool)
        assert max(a[off].max() for a in A) <= krr[0, 1] + 1e-9


def test_smooth_categorical_random_profiles_are_private():
    rng = np.random.default_rng(20190618)
    for _ in range(8):
        k, d = rng.integers(2, 5), rng.integers(2, 5)
        P = rng.dirichlet(np.ones(d) * 0.7, size=k)
        P[0, 0] = 0.0  # a zero-probability category
        P[0] /= P[0].sum()
        edges = [(i, j) for i in range(k) for j in range(i + 1, k) if rng.random() < 0.7]
        for eps in [0.0, 0.3, 1.5]:
            A = pr.smooth_categorical(P, edges, eps)
            assert len(A) == k and all(a.shape == (d, d) for a in A)
            assert level(P, edges, A) <= eps + 1e-9
            assert pr.profile_epsilon(P, edges, A) <= eps + pr.EPS_ATOL


def test_smooth_categorical_two_bernoulli_matches_one_bit():
    """With d = 2, LP (6) (max off-diagonal) and LP (4) (flip probability) have the same optimum."""
    for p_i, p_j, eps in [(0.0, 1.0, 0.5), (0.2, 0.7, 1.0), (0.1, 0.3, 0.2)]:
        A = pr.smooth_categorical([[1 - p_i, p_i], [1 - p_j, p_j]], [(0, 1)], eps)
        t = max(A[0][0, 1], A[0][1, 0], A[1][0, 1], A[1][1, 0])
        assert t <= pr.one_bit_two_profile(p_i, p_j, eps) + 1e-8


def test_repair_restores_an_exact_guarantee():
    """A solution violating eps by solver noise is mixed towards uniform until it is exact."""
    P = np.array([[0.0, 1.0], [1.0, 0.0]])
    eps = 1.0
    a = pr.ldp_flip_probability(eps) - 1e-7  # slightly too little noise
    mats = pr.flip_matrices([a, a])
    assert level(P, [(0, 1)], mats) > eps
    fixed = _repair(P, [(0, 1)], mats.copy(), eps)
    assert level(P, [(0, 1)], fixed) <= eps + 1e-12
    assert fixed[0, 0, 1] == pytest.approx(pr.ldp_flip_probability(eps), abs=1e-12)


# ---------------------------------------------------------------- profile_epsilon, costs, sampler


def test_profile_epsilon_worked_values():
    P = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    rr = pr.flip_matrices([0.25] * 3)
    assert pr.profile_epsilon(P, [(0, 1)], rr) == pytest.approx(math.log(3))
    assert pr.profile_epsilon(P, [(0, 2)], rr) == pytest.approx(math.log(0.5 / 0.25))
    assert pr.profile_epsilon(P, [], rr) == 0.0
    ident = [np.eye(2)] * 3
    assert pr.profile_epsilon(P, [(0, 1)], ident) == math.inf
    # an LDP mechanism is profile-private at its LDP level for any graph (Theorem 9)
    Q = pr.ldp_baseline(2, 0.7)
    assert pr.profile_epsilon(P, [(0, 1), (1, 2), (0, 2)], [Q] * 3) <= 0.7 + 1e-12


def test_category_costs_eq8():
    P = [[0.2, 0.8], [0.6, 0.4]]
    assert pr.category_costs(P, [np.eye(2)] * 2).tolist() == [0.0, 0.0]
    half = np.full((2, 2), 0.5)
    assert pr.category_costs(P, [half] * 2) == pytest.approx([0.3, 0.3])


def test_profile_mechanism_sampling_matches_matrices():
    A = pr.smooth_categorical(pr.categorical_chain_3().profiles, [(0, 1), (1, 2)], 0.2)
    mech = pr.ProfileMechanism(A)
    n = 20_000
    prof = np.repeat([0, 1, 2], n)
    x = np.tile(np.repeat([0, 2], n // 2), 3)
    y1 = mech.privatize(prof, x, rng=11)
    y2 = mech.privatize(prof, x, rng=11)
    assert np.array_equal(y1, y2)
    assert y1.dtype == np.int64 and y1.shape == prof.shape
    for i in range(3):
        for v in (0, 2):
            sel = (prof == i) & (x == v)
            freq = np.bincount(y1[sel], minlength=4) / sel.sum()
            se = np.sqrt(A[i][v] * (1 - A[i][v]) / sel.sum())
            assert np.all(np.abs(freq - A[i][v]) <= 5 * se + 1e-12)


def test_profile_mechanism_broadcast_and_flip():
    mech = pr.ProfileMechanism.from_flip_probabilities([0.0, 1.0])
    out = mech.privatize([[0], [1]], [0, 1, 1], rng=3)
    assert out.tolist() == [[0, 1, 1], [1, 0, 0]]
    assert mech.epsilon([[0.5, 0.5], [0.5, 0.5]], [(0, 1)]) == 0.0
    assert mech.output_distributions([[1.0, 0.0], [1.0, 0.0]]).tolist() == [[1, 0], [0, 1]]
