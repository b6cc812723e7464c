"""Post-processing and composition of profile mechanisms (Geumlek & Chaudhuri, Obs. 3-5, 11-15)."""

import itertools
import math

import numpy as np
import pytest

from anonspread.errors import InvalidParameterError
from anonspread.privacy import profiles as pr


def _random_setting(seed, k=3, d=3, m=3):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d), size=k)
    A = [rng.dirichlet(np.ones(m), size=d) for _ in range(k)]
    edges = [(i, i + 1) for i in range(k - 1)]
    return rng, P, edges, A


def _level_of_laws(laws, edges):
    """Definition 2 on explicit release laws (one vector per profile)."""
    return max(float(np.max(np.abs(np.log(laws[i]) - np.log(laws[j])))) for i, j in edges)


@pytest.mark.parametrize("seed", range(5))
def test_post_processing_never_increases_the_level(seed):
    """Observation 3 (= 11), with the exact level after post-processing."""
    rng, P, edges, A = _random_setting(seed)
    eps = pr.profile_epsilon(P, edges, A)
    for _ in range(5):
        F = rng.dirichlet(np.ones(2), size=3)
        B = pr.post_process(A, F)
        laws = [P[i] @ A[i] @ F for i in range(len(A))]
        assert pr.profile_epsilon(P, edges, B) == pytest.approx(_level_of_laws(laws, edges), rel=1e-12)
        assert pr.profile_epsilon(P, edges, B) <= eps + 1e-12
    constant = np.ones((3, 1))
    assert pr.profile_epsilon(P, edges, pr.post_process(A, constant)) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_independent_samples_compose_to_the_exact_product_level(seed):
    """Observation 4 (= 12): the exact level of the product law, at most eps1 + eps2."""
    _, P, edges, A1 = _random_setting(seed)
    _, _, _, A2 = _random_setting(seed + 100)
    got = pr.independent_samples_epsilon(P, edges, A1, A2)
    laws = [np.outer(P[i] @ A1[i], P[i] @ A2[i]).ravel() for i in range(len(A1))]
    assert got == pytest.approx(_level_of_laws(laws, edges), rel=1e-12)
    assert got <= pr.profile_epsilon(P, edges, A1) + pr.profile_epsilon(P, edges, A2) + 1e-12


def test_independent_samples_reach_the_sum_when_both_are_tight_together():
    P = [[1.0, 0.0], [0.0, 1.0]]
    rr = pr.flip_matrices([0.25, 0.25])
    assert pr.independent_samples_epsilon(P, [(0, 1)], rr, rr) == pytest.approx(2 * math.log(3))


@pytest.mark.parametrize("seed", range(3))
def test_independent_profiles_keep_the_larger_level(seed):
    """Observation 5 (= 14): changing one person's profile changes one factor only."""
    _, P, edges, A1 = _random_setting(seed)
    _, _, _, A2 = _random_setting(seed + 7)
    e1, e2 = pr.profile_epsilon(P, edges, A1), pr.profile_epsilon(P, edges, A2)
    assert pr.independent_profiles_epsilon(P, edges, A1, A2) == max(e1, e2)
    # brute force over the pairs of profiles: one coordinate moves along an edge
    k = len(A1)
    laws1 = [P[i] @ A1[i] for i in range(k)]
    laws2 = [P[i] @ A2[i] for i in range(k)]
    worst = 0.0
    for (i, j), other in itertools.product(edges, range(k)):
        a = np.outer(laws1[i], laws2[other]).ravel()
        b = np.outer(laws1[j], laws2[other]).ravel()
        c = np.outer(laws1[other], laws2[i]).ravel()
        e = np.outer(laws1[other], laws2[j]).ravel()
        worst = max(worst, np.max(np.abs(np.log(a / b))), np.max(np.abs(np.log(c / e))))
    assert worst == pytest.approx(max(e1, e2), rel=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_same_input_released_twice_is_a_mechanism_of_x(seed):
    """Observation 13's open case: one X, two releases; exact law by enumeration."""
    _, P, edges, A1 = _random_setting(seed)
    _, _, _, A2 = _random_setting(seed + 3)
    B = pr.same_input(A1, A2)
    for i in range(len(A1)):
        law = np.zeros((3, 3))
        for x in range(3):
            law += P[i][x] * np.outer(A1[i][x], A2[i][x])
        assert np.allclose(P[i] @ B[i], law.ravel(), rtol=0, atol=1e-15)
    # with point-mass profiles the same X twice is the same as two independent samples
    Pd = np.eye(3)
    assert pr.profile_epsilon(Pd, edges, pr.same_input(A1, A2)) == pytest.approx(
        pr.independent_samples_epsilon(Pd, edges, A1, A2), rel=1e-12
    )


def test_bad_shapes_are_refused():
    rr = pr.flip_matrices([0.25, 0.25])
    with pytest.raises(InvalidParameterError, match="F must have one row per output"):
        pr.post_process(rr, np.eye(3))
    with pytest.raises(InvalidParameterError, match="same profiles and inputs"):
        pr.same_input(rr, pr.flip_matrices([0.1, 0.2, 0.3]))
