"""Privacy levels w.r.t. a secret (Definitions 1-3) and the utility I(X; Y)."""

from itertools import product

import numpy as np
import pytest

from anonspread.privacy import Mechanism
from anonspread.privacy.funnel import (
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    product_mechanism,
    srlip_epsilon,
)

P2 = np.array([[0.4, 0.1], [0.1, 0.4]])


def random_joint(rng, shape):
    p = rng.random(shape)
    return p / p.sum()


def test_identity_worked_example():
    # p_{X|s=0} = (0.8, 0.2), p_{X|s=1} = (0.2, 0.8), p_X = (0.5, 0.5)
    assert ldp_epsilon(np.eye(2), P2) == pytest.approx(np.log(4.0))
    assert lip_epsilon(np.eye(2), P2) == pytest.approx(np.log(2.5))  # |ln(0.2/0.5)|


def test_constant_mechanism_is_perfectly_private():
    Q = np.full((2, 3), 1 / 3)
    assert ldp_epsilon(Q, P2) == 0.0
    assert lip_epsilon(Q, P2) == 0.0


def test_matches_definition_by_loops():
    rng = np.random.default_rng(3)
    p = random_joint(rng, (3, 4))
    Q = rng.random((4, 5))
    Q /= Q.sum(axis=1, keepdims=True)
    p_s = p.sum(axis=1)
    cond = {
        (s, y): sum(p[s, x] * Q[x, y] for x in range(4)) / p_s[s]
        for s in range(3)
        for y in range(5)
    }
    p_y = {y: sum(p[s, x] * Q[x, y] for s in range(3) for x in range(4)) for y in range(5)}
    ldp = max(np.log(cond[s, y] / cond[t, y]) for s, t, y in product(range(3), range(3), range(5)))
    lip = max(abs(np.log(cond[s, y] / p_y[y])) for s, y in product(range(3), range(5)))
    assert ldp_epsilon(Q, p) == pytest.approx(ldp, rel=1e-12)
    assert lip_epsilon(Q, p) == pytest.approx(lip, rel=1e-12)
    # Lemma 1: eps-LDP implies eps-LIP; eps-LIP implies 2 eps-LDP.
    assert lip_epsilon(Q, p) <= ldp_epsilon(Q, p) + 1e-12
    assert ldp_epsilon(Q, p) <= 2 * lip_epsilon(Q, p) + 1e-12


def test_zero_output_probability_under_one_secret_is_infinite():
    p = np.array([[0.5, 0.0], [0.25, 0.25]])
    assert ldp_epsilon(np.eye(2), p) == np.inf
    assert lip_epsilon(np.eye(2), p) == np.inf


def test_zero_probability_secret_is_ignored():
    p = np.array([[0.4, 0.1], [0.1, 0.4], [0.0, 0.0]])
    assert lip_epsilon(np.eye(2), p) == pytest.approx(lip_epsilon(np.eye(2), p[:2]))


def test_mutual_information_closed_forms():
    p_x = np.array([0.2, 0.3, 0.5])
    entropy = -np.sum(p_x * np.log(p_x))
    assert mutual_information(np.eye(3), p_x) == pytest.approx(entropy)
    assert mutual_information(np.full((3, 2), 0.5), p_x) == pytest.approx(0.0, abs=1e-15)
    # binary symmetric channel on a uniform bit: ln 2 - h(0.1)
    bsc = np.array([[0.9, 0.1], [0.1, 0.9]])
    h = -(0.9 * np.log(0.9) + 0.1 * np.log(0.1))
    assert mutual_information(bsc, [0.5, 0.5]) == pytest.approx(np.log(2) - h)
    # a joint p_sx is reduced to its X marginal
    assert mutual_information(bsc, P2) == pytest.approx(np.log(2) - h)


def test_pair_input_mechanism_equals_its_effective_channel():
    # A mechanism on (s, x) that ignores s must give the same numbers as on x.
    rng = np.random.default_rng(5)
    p = random_joint(rng, (2, 3))
    Q = rng.random((3, 3))
    Q /= Q.sum(axis=1, keepdims=True)
    Q_pairs = np.vstack([Q, Q])
    assert lip_epsilon(Q_pairs, p) == pytest.approx(lip_epsilon(Q, p), rel=1e-12)
    assert ldp_epsilon(Q_pairs, p) == pytest.approx(ldp_epsilon(Q, p), rel=1e-12)
    assert mutual_information(Q_pairs, p) == pytest.approx(mutual_information(Q, p), rel=1e-12)


def _srlip_by_definition(Q, p):
    """Eq. (22) by loops over J, x^J, s, y."""
    c, *shape = p.shape
    m = len(shape)
    xs = list(product(*[range(n) for n in shape]))
    worst = 0.0
    for mask in product([False, True], repeat=m):
        J = [j for j in range(m) if mask[j]]
        for xJ in product(*[range(shape[j]) for j in J]):
            match = [x for x in xs if all(x[j] == v for j, v in zip(J, xJ))]
            p_xJ = sum(p[(s, *x)] for s in range(c) for x in match)
            if p_xJ == 0:
                continue
            for y in range(Q.shape[1]):
                q = {x: Q[np.ravel_multi_index(x, shape), y] for x in match}
                p_y = sum(p[(s, *x)] * q[x] for s in range(c) for x in match) / p_xJ
                for s in range(c):
                    p_sJ = sum(p[(s, *x)] for x in match)
                    if p_sJ == 0 or p_y == 0:
                        continue
                    p_ys = sum(p[(s, *x)] * q[x] for x in match) / p_sJ
                    worst = max(worst, abs(np.log(p_ys / p_y)))
    return worst


def test_srlip_matches_definition_and_lemma_2():
    rng = np.random.default_rng(11)
    p = random_joint(rng, (2, 2, 3))
    Q1 = rng.random((2, 2))
    Q2 = rng.random((3, 3))
    Q = product_mechanism([Q1 / Q1.sum(1, keepdims=True), Q2 / Q2.sum(1, keepdims=True)]).matrix
    value = srlip_epsilon(Q, p)
    assert value == pytest.approx(_srlip_by_definition(Q, p), rel=1e-12)
    assert value >= lip_epsilon(Q, p.reshape(2, -1)) - 1e-12  # Lemma 2


def test_srlip_side_channel_example():
    # S = X^1 xor X^2 with uniform bits: Y = X^1 alone is 0-LIP, but a side channel
    # revealing X^2 exposes S completely (the BMI example of Section VI).
    p = np.zeros((2, 2, 2))
    for x1, x2 in product(range(2), range(2)):
        p[x1 ^ x2, x1, x2] = 0.25
    reveal_first = product_mechanism([np.eye(2), np.full((2, 1), 1.0)])
    assert lip_epsilon(reveal_first, p.reshape(2, 4)) == pytest.approx(0.0, abs=1e-15)
    assert srlip_epsilon(reveal_first, p) == np.inf


def test_accepts_mechanism_objects():
    Q = Mechanism([[0.75, 0.25], [0.25, 0.75]])
    assert lip_epsilon(Q, P2) == pytest.approx(lip_epsilon(Q.matrix, P2))
