"""Optimal LIP (Theorem 3) and LDP (cone-ray LP vs Theorem 2) mechanisms w.r.t. a secret."""

from itertools import combinations

import numpy as np
import pytest
from scipy.optimize import linprog

from anonspread.privacy.funnel import (
    conditional_reporting,
    grr,
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    optimal_ldp,
    optimal_lip,
    oue,
)
from anonspread.privacy.funnel.optimal import _optimal_ldp_vertex_enumeration


def random_joint(seed, c, a):
    """The paper's §VIII-A instances: p_{s,x} uniform on [0, 1], then normalised."""
    p = np.random.default_rng(seed).random((c, a))
    return p / p.sum()


def entropy(v):
    v = v[v > 0]
    return float(-np.sum(v * np.log(v)))


def brute_force_lip_optimum(p, eps):
    """Theorem 3 without cddlib: vertices of Delta by solving every tight subsystem."""
    c, a = p.shape
    p_s, p_x = p.sum(axis=1), p.sum(axis=0)
    w = (p / p_x) / p_s[:, None]
    # rows G v <= h: -v_x <= 0, w_s v <= e^eps, -w_s v <= -e^-eps
    G = np.vstack([-np.eye(a), w, -w])
    h = np.concatenate([np.zeros(a), np.full(c, np.exp(eps)), np.full(c, -np.exp(-eps))])
    vertices = []
    for tight in combinations(range(G.shape[0]), a - 1):
        M = np.vstack([G[list(tight)], np.ones(a)])
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        v = np.linalg.solve(M, np.concatenate([h[list(tight)], [1.0]]))
        if np.all(G @ v <= h + 1e-10):
            vertices.append(np.clip(v, 0, None))
    V = np.array(vertices)
    cost = np.array([entropy(v) for v in V])
    res = linprog(cost, A_eq=V.T, b_eq=p_x, bounds=(0, None), method="highs")
    assert res.status == 0
    return entropy(p_x) - res.fun, len(V)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_optimal_lip_equals_brute_force(seed, eps):
    p = random_joint(seed, 2, 5)
    Q = optimal_lip(p, eps)
    expected, n_vertices = brute_force_lip_optimum(p, eps)
    assert n_vertices > 5
    assert mutual_information(Q, p.sum(axis=0)) == pytest.approx(expected, abs=1e-9)
    assert lip_epsilon(Q, p) <= eps + 1e-9
    assert Q.n_outputs <= 5  # Theorem 3: b <= a


@pytest.mark.parametrize(
    ("seed", "c", "a", "eps"),
    [
        (0, 2, 3, 0.3),
        (0, 2, 3, 1.0),
        (1, 3, 3, 0.3),
        (1, 3, 3, 1.0),
        (2, 2, 4, 0.3),
        (2, 2, 4, 1.0),
        (3, 3, 4, 1.0),
    ],
)
def test_optimal_ldp_equals_vertex_enumeration(seed, c, a, eps):
    p = random_joint(seed, c, a)
    fast = optimal_ldp(p, eps)
    reference = _optimal_ldp_vertex_enumeration(p, eps)
    p_x = p.sum(axis=0)
    assert mutual_information(fast, p_x) == pytest.approx(
        mutual_information(reference, p_x), abs=1e-9
    )
    assert ldp_epsilon(reference, p) <= eps + 1e-9
    assert ldp_epsilon(fast, p) <= eps + 1e-9
    assert fast.n_outputs <= a


def test_optimal_ldp_equals_vertex_enumeration_a5():
    p = random_joint(4, 2, 5)
    p_x = p.sum(axis=0)
    fast = optimal_ldp(p, 1.5)
    reference = _optimal_ldp_vertex_enumeration(p, 1.5)
    assert mutual_information(fast, p_x) == pytest.approx(
        mutual_information(reference, p_x), abs=1e-9
    )


def test_optimal_ldp_reduces_to_staircase_lp_when_secret_is_data():
    """S = X: LDP w.r.t. S is LDP w.r.t. X, and the optimum is the thesis's LP (3.11)."""
    p_x = np.array([0.1, 0.2, 0.3, 0.4])
    k, eps = 4, 0.8
    patterns = np.array(
        [[np.exp(eps) if (j >> i) & 1 else 1.0 for j in range(2**k)] for i in range(k)]
    )
    tot = p_x @ patterns
    mu = np.sum(p_x[:, None] * patterns * np.log(patterns / tot), axis=0)
    res = linprog(-mu, A_eq=patterns, b_eq=np.ones(k), bounds=(0, None), method="highs")
    Q = optimal_ldp(np.diag(p_x), eps)
    assert mutual_information(Q, p_x) == pytest.approx(-res.fun, abs=1e-9)
    assert Q.ldp_epsilon() <= eps + 1e-9  # LDP w.r.t. X itself


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("eps", [0.25, 0.75, 2.0])
def test_utility_ordering(seed, eps):
    """Lemma 1 (LDP implies LIP) and optimality among the explicit protocols at the same LIP."""
    p = random_joint(seed, 3, 4)
    p_x = p.sum(axis=0)
    lip_opt = mutual_information(optimal_lip(p, eps), p_x)
    ldp_opt = mutual_information(optimal_ldp(p, eps), p_x)
    assert ldp_opt <= lip_opt + 1e-9
    # GRR and OUE act on X alone, so they are feasible for Theorem 3: a theorem.
    assert mutual_information(grr(p, eps), p_x) <= lip_opt + 1e-9
    assert mutual_information(oue(p, eps), p_x) <= lip_opt + 1e-9
    # CR also reads S, so this one is an observation on these instances (as in Figure 5).
    assert mutual_information(conditional_reporting(p, eps), p) <= lip_opt + 1e-9


def test_large_eps_releases_x():
    """Once the identity is eps-private, the optimum is full disclosure: I = H(X)."""
    p = random_joint(7, 2, 4)
    eps = ldp_epsilon(np.eye(4), p) + 0.1
    p_x = p.sum(axis=0)
    assert mutual_information(optimal_ldp(p, eps), p_x) == pytest.approx(entropy(p_x), abs=1e-9)
    assert mutual_information(optimal_lip(p, eps), p_x) == pytest.approx(entropy(p_x), abs=1e-9)
    for Q in (optimal_ldp(p, 1e6), optimal_lip(p, 1e6), grr(p, 1e6)):  # no overflow
        assert mutual_information(Q, p_x) == pytest.approx(entropy(p_x), abs=1e-9)


def test_eps_zero_gives_perfect_privacy():
    p = random_joint(8, 2, 4)
    for Q in (optimal_ldp(p, 0.0), optimal_lip(p, 0.0)):
        assert lip_epsilon(Q, p) <= 1e-9


def test_perfect_privacy_can_still_have_utility():
    """X = (S-part, independent part): at eps = 0 the independent part is released."""
    p = np.outer([0.3, 0.7], [0.5, 0.5]).reshape(2, 1, 2) * np.eye(2)[:, :, None]
    p = p.reshape(2, 4)  # x = 2 s + z, z a fair coin independent of s
    p_x = p.sum(axis=0)
    for Q in (optimal_ldp(p, 0.0), optimal_lip(p, 0.0)):
        assert mutual_information(Q, p_x) == pytest.approx(np.log(2), abs=1e-9)


def test_zero_probability_data_value_gets_a_valid_row():
    p = random_joint(9, 2, 3)
    p = np.hstack([p, np.zeros((2, 1))])
    for Q in (optimal_ldp(p, 0.5), optimal_lip(p, 0.5)):
        assert Q.n_inputs == 4
        assert lip_epsilon(Q, p) <= 0.5 + 1e-9
