"""GRR, OUE and Conditional Reporting calibrated to a target LIP w.r.t. S (§VII)."""

import numpy as np
import pytest

from anonspread.privacy.funnel import (
    conditional_reporting,
    cr_alpha,
    cr_lip,
    grr,
    grr_alpha,
    grr_lip,
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    oue,
    oue_alpha,
    oue_lip,
)


def dirichlet_joint(seed, c, a):
    """§VIII-D instances: Jeffreys prior (symmetric Dirichlet(1/2)) on S x X."""
    return np.random.default_rng(seed).dirichlet(np.full(c * a, 0.5)).reshape(c, a)


def entropy(v):
    v = v[v > 0]
    return float(-np.sum(v * np.log(v)))


SEEDS = [0, 1, 2, 3]
EPS = [0.05, 0.3, 1.0]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("eps", EPS)
def test_grr_and_cr_hit_target_lip(seed, eps):
    p = dirichlet_joint(seed, 3, 5)
    for make in (grr, conditional_reporting):
        Q = make(p, eps)
        identity_lip = lip_epsilon(np.eye(5), p)
        target = min(eps, identity_lip)
        assert lip_epsilon(Q, p) == pytest.approx(target, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS[:2])
@pytest.mark.parametrize("eps", EPS)
def test_oue_hits_target_lip(seed, eps):
    p = dirichlet_joint(seed, 2, 4)
    assert lip_epsilon(oue(p, eps), p) == pytest.approx(eps, abs=1e-6)


@pytest.mark.parametrize("alpha", [0.0, 0.4, 1.7, 6.0, np.inf])
def test_closed_forms_match_the_matrices(alpha):
    """Eqs. (29), (32), (33) against the exact LIP of the mechanisms they describe."""
    p = dirichlet_joint(4, 3, 4)
    a, c = 4, 3
    w = 0.0 if np.isinf(alpha) else np.exp(-alpha)
    G = (np.eye(a) + w * (1 - np.eye(a))) / (1 + (a - 1) * w)
    assert grr_lip(p, alpha) == pytest.approx(lip_epsilon(G, p), abs=1e-12)
    cond = p / p.sum(axis=1, keepdims=True)
    rows = []
    for s in range(c):
        for x in range(a):
            rows.append((np.eye(a)[x] + w * (cond.sum(axis=0) - cond[s])) / (1 + (c - 1) * w))
    assert cr_lip(p, alpha) == pytest.approx(lip_epsilon(np.array(rows), p), abs=1e-12)
    bits = (np.arange(2**a)[None, :] >> np.arange(a)[:, None]) & 1
    on = np.where(np.eye(a, dtype=bool)[:, :, None], 0.5, 1 / (1 + 1 / w) if w else 0.0)
    oue_matrix = np.prod(np.where(bits[None, :, :] == 1, on, 1 - on), axis=1)
    assert oue_lip(p, alpha) == pytest.approx(lip_epsilon(oue_matrix, p), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_proposition_2(seed):
    """L(alpha) <= alpha, and CR^alpha is alpha-LDP w.r.t. S."""
    p = dirichlet_joint(seed, 4, 5)
    for alpha in (0.01, 0.2, 1.0, 3.0, 10.0):
        assert cr_lip(p, alpha) <= alpha + 1e-12
        Q = conditional_reporting(p, cr_lip(p, alpha))
        assert ldp_epsilon(Q, p) <= alpha + 1e-9


def test_lip_is_increasing_in_alpha():
    p = dirichlet_joint(8, 3, 4)
    alphas = np.linspace(0, 8, 33)
    for f in (grr_lip, cr_lip, oue_lip):
        values = [f(p, al) for al in alphas]
        assert values[0] == 0.0
        assert np.all(np.diff(values) >= -1e-12)


def test_calibrated_alpha_solves_the_equation():
    p = dirichlet_joint(9, 2, 4)
    for f_alpha, f_lip in ((grr_alpha, grr_lip), (cr_alpha, cr_lip), (oue_alpha, oue_lip)):
        alpha = f_alpha(p, 0.2)
        assert 0 < alpha < np.inf
        assert f_lip(p, alpha) == pytest.approx(0.2, abs=1e-10)


def test_full_disclosure_when_x_is_already_private():
    p = np.array([[0.3, 0.2], [0.25, 0.25]])
    eps = lip_epsilon(np.eye(2), p) + 0.01
    assert grr_alpha(p, eps) == np.inf
    assert np.allclose(grr(p, eps).matrix, np.eye(2))
    assert np.allclose(conditional_reporting(p, eps).matrix, np.vstack([np.eye(2)] * 2))


def test_oue_utility_tends_to_half_the_entropy():
    """§VIII-C: OUE reports the true X with probability 1/2, so I(X; Y) -> H(X) / 2."""
    p = dirichlet_joint(10, 2, 4)
    p_x = p.sum(axis=0)
    limit = entropy(p_x) / 2
    values = [mutual_information(oue(p, eps), p_x) for eps in (0.1, 0.5, 2.0, 8.0)]
    assert np.all(np.diff(values) > 0)
    assert values[-1] <= limit + 1e-12
    assert values[-1] == pytest.approx(limit, abs=1e-3)


def test_conditional_reporting_matches_algorithm_1_by_simulation():
    """Algorithm 1 run literally on sampled (s, x): P(Y = y | S = s) within 4 sigma."""
    p = dirichlet_joint(11, 3, 4)
    c, a = p.shape
    eps = 0.4
    alpha = cr_alpha(p, eps)
    rng = np.random.default_rng(2024)
    n = 200_000
    pairs = rng.choice(c * a, size=n, p=p.ravel())
    s, x = np.divmod(pairs, a)
    cond = p / p.sum(axis=1, keepdims=True)
    keep = rng.random(n) < np.exp(alpha) / (np.exp(alpha) + c - 1)
    other = (s + rng.integers(1, c, size=n)) % c  # uniform over s' != s
    s_tilde = np.where(keep, s, other)
    cdf = np.cumsum(cond, axis=1)
    redraw = (rng.random(n)[:, None] > cdf[s_tilde]).sum(axis=1)
    y = np.where(keep, x, np.minimum(redraw, a - 1))
    Q = conditional_reporting(p, eps).matrix
    exact = np.einsum("sx,sxy->sy", cond, Q.reshape(c, a, a))
    for si in range(c):
        ys = y[s == si]
        freq = np.bincount(ys, minlength=a) / ys.size
        sigma = np.sqrt(exact[si] * (1 - exact[si]) / ys.size)
        assert np.all(np.abs(freq - exact[si]) <= 4 * sigma + 1e-12)


def test_conditional_reporting_privatizes_pairs():
    p = dirichlet_joint(12, 2, 3)
    Q = conditional_reporting(p, 0.5)
    y = Q.privatize(np.array([0, 3, 5]), rng=1)
    assert y.shape == (3,)
    assert np.array_equal(y, Q.privatize(np.array([0, 3, 5]), rng=1))
