"""Blackwell dominance (§3.5, Thm 3.5.3), error regions (Thm 3.5.2) and converse bounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonspread.errors import InfeasibleError, InvalidParameterError
from anonspread.privacy import bounds
from anonspread.privacy.dominance import (
    dominates,
    dp_error_region,
    error_region,
    garbling,
    is_approx_dp,
)
from anonspread.privacy.mechanism import Mechanism
from anonspread.privacy.mechanisms import (
    binary_mechanism,
    quaternary_mechanism,
    randomized_response,
)
from anonspread.privacy.utility import KL, MutualInformation


def _random(rng, k, m):
    Q = rng.random((k, m)) + 0.01
    return Q / Q.sum(axis=1, keepdims=True)


def test_garbling_reproduces_a_degraded_mechanism():
    rng = np.random.default_rng(0)
    Q1 = _random(rng, 3, 4)
    W = _random(rng, 4, 5)
    Q2 = Q1 @ W
    assert dominates(Q1, Q2)
    W_found = garbling(Q1, Q2)
    assert np.allclose(Q1 @ W_found, Q2, atol=1e-9)
    assert np.allclose(W_found.sum(axis=1), 1.0)
    assert not dominates(Q2, np.eye(3))
    with pytest.raises(InfeasibleError, match="does not dominate"):
        garbling(Q2, np.eye(3))


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_rr_with_two_inputs_and_binary_mechanism_are_equivalent(eps):
    assert dominates(randomized_response(2, eps), binary_mechanism([0.7, 0.3], [0.2, 0.8], eps))
    # A larger eps dominates a smaller one, never the converse.
    assert dominates(randomized_response(4, eps + 0.5), randomized_response(4, eps))
    assert not dominates(randomized_response(4, eps), randomized_response(4, eps + 0.5))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(1, 5), eps=st.floats(0.0, 3.0), delta=st.floats(0.0, 0.5))
def test_theorem_3_5_1_quaternary_dominates_every_approx_dp_binary_input_mechanism(seed, m, eps, delta):
    rng = np.random.default_rng(seed)
    Q = Mechanism(_random(rng, 2, m))
    eps_q = Q.ldp_epsilon()
    # Q is (eps_q, 0)-LDP, hence (eps_q, delta)-LDP: the quaternary mechanism dominates it.
    assert dominates(quaternary_mechanism(eps_q, delta), Q, atol=1e-8)
    # Theorem 3.5.2: region containment agrees with the exact delta of Eq. (3.25).
    exact = Q.approx_dp_delta(eps) <= delta
    assert is_approx_dp(Q, eps, delta, atol=1e-12) == exact or abs(Q.approx_dp_delta(eps) - delta) < 1e-9


@pytest.mark.parametrize("eps, delta", [(0.0, 0.0), (0.5, 0.1), (2.0, 0.3), (1.0, 1.0)])
def test_quaternary_error_region_equals_r_eps_delta(eps, delta):
    r = error_region(quaternary_mechanism(eps, delta))
    ref = dp_error_region(eps, delta)
    grid = np.linspace(0, 1, 101)
    assert np.allclose(r.lower_md(grid), ref.lower_md(grid), atol=1e-12)


def test_error_region_rejects_non_binary_inputs():
    with pytest.raises(InvalidParameterError, match="Q must have 2 inputs"):
        error_region(np.eye(3))
    with pytest.raises(InvalidParameterError, match="Q2 must have as many inputs"):
        dominates(np.eye(2), np.eye(3))
    with pytest.raises(InvalidParameterError, match="delta must be"):
        dp_error_region(1.0, 1.5)


def test_converse_bounds_cor_3_3_7_and_expansions():
    rng = np.random.default_rng(3)
    P0, P1 = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    eps = np.array([0.1, 1.0, 5.0])
    tv = bounds.tv_binary(P0, P1, eps)
    assert tv.shape == (3,)
    assert np.allclose(tv, np.tanh(eps / 2) * 0.5 * np.abs(P0 - P1).sum())
    # Eq. (3.18): the first-order coefficient of RR is rr_kl_coefficient (not the printed G).
    D = np.sum(P0 * np.log(P0 / P1))
    for e in (14.0, 18.0):
        coeff = (D - KL(P0, P1).value(randomized_response(5, e))) / np.exp(-e)
        assert coeff == pytest.approx(bounds.rr_kl_coefficient(P0, P1), rel=1e-3)
    assert abs(bounds.thesis_G(P0, P1) - bounds.rr_kl_coefficient(P0, P1)) > 0.1
    # Eq. (3.24): I = H - (k - 1) eps e^-eps + O(e^-eps).
    H = -np.sum(P0 * np.log(P0))
    for e in (12.0, 16.0):
        mi = MutualInformation(P0).value(randomized_response(5, e))
        gap = mi - bounds.mi_low_privacy_bound(P0, e)
        assert abs(gap) < 0.2 * (H - bounds.mi_low_privacy_bound(P0, e))
    # Cor. 3.4.4 at small eps: binary's MI over P(T)P(T^c)eps^2/2 -> 1.
    assert bounds.mi_binary(P0, 1e-3) / bounds.mi_high_privacy_bound(P0, 1e-3) == pytest.approx(1, rel=1e-2)


@pytest.mark.parametrize("eps", [-1.0, np.nan, [0.1, -0.2], np.inf])
def test_bounds_reject_bad_eps(eps):
    with pytest.raises(InvalidParameterError, match="eps must be"):
        bounds.tv_binary([0.5, 0.5], [0.2, 0.8], eps)
