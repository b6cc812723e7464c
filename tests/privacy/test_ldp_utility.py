"""Sublinear utilities of thesis §3.2.1 (Definition 3.2.1, Eqs. 3.12 and 3.19)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanisms import randomized_response
from anonspread.privacy.utility import (
    KL,
    FDivergence,
    MutualInformation,
    TotalVariation,
    chi_square,
    squared_hellinger,
)


def _instance(seed, k):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)), rng


def _utilities(P0, P1):
    return [
        KL(P0, P1),
        TotalVariation(P0, P1),
        chi_square(P0, P1),
        squared_hellinger(P0, P1),
        FDivergence(lambda t: t * np.log(t) - t + 1, P0, P1, name="kl-shifted"),
        MutualInformation(P0),
    ]


def test_values_match_the_marginal_formulas():
    P0, P1, rng = _instance(3, 5)
    Q = rng.random((5, 4))
    Q /= Q.sum(axis=1, keepdims=True)
    M0, M1 = P0 @ Q, P1 @ Q
    assert KL(P0, P1).value(Q) == pytest.approx(np.sum(M0 * np.log(M0 / M1)), rel=1e-12)
    assert TotalVariation(P0, P1).value(Q) == pytest.approx(0.5 * np.abs(M0 - M1).sum(), rel=1e-12)
    assert chi_square(P0, P1).value(Q) == pytest.approx(np.sum((M0 - M1) ** 2 / M1), rel=1e-12)
    assert squared_hellinger(P0, P1).value(Q) == pytest.approx(
        np.sum((np.sqrt(M0) - np.sqrt(M1)) ** 2), rel=1e-12
    )
    joint = P0[:, None] * Q
    mi = np.sum(joint * np.log(joint / (P0[:, None] * M0[None, :])))
    assert MutualInformation(P0).value(Q) == pytest.approx(mi, rel=1e-12)


def test_extreme_mechanisms():
    P0, P1, _ = _instance(4, 6)
    H = -np.sum(P0 * np.log(P0))
    assert MutualInformation(P0).value(np.eye(6)) == pytest.approx(H, rel=1e-14)
    assert KL(P0, P1).value(np.eye(6)) == pytest.approx(np.sum(P0 * np.log(P0 / P1)), rel=1e-14)
    constant = np.full((6, 1), 1.0)
    for U in _utilities(P0, P1):
        assert U.value(constant) == pytest.approx(0.0, abs=1e-14)


def test_generic_f_divergence_agrees_with_kl():
    P0, P1, _ = _instance(5, 4)
    generic = FDivergence(lambda t: np.where(t > 0, t * np.log(np.where(t > 0, t, 1)), 0.0), P0, P1)
    Q = randomized_response(4, 1.2)
    assert generic.value(Q) == pytest.approx(KL(P0, P1).value(Q), rel=1e-13)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(2, 6), g=st.floats(0.0, 50.0))
def test_mu_is_sublinear_and_vectorised(seed, k, g):
    P0, P1, rng = _instance(seed, k)
    Z = rng.random((k, 7)) * rng.integers(1, 4, size=7)
    z1, z2 = Z[:, 0], Z[:, 1]
    for U in _utilities(P0, P1):
        cols = U.mu(Z)
        assert cols.shape == (7,)
        assert np.allclose(cols, [U.mu(Z[:, j]) for j in range(7)], rtol=1e-12, atol=1e-15)
        assert U.mu(g * z1) == pytest.approx(g * U.mu(z1), rel=1e-10, abs=1e-13)
        assert U.mu(z1 + z2) <= U.mu(z1) + U.mu(z2) + 1e-12


@pytest.mark.parametrize(
    "P0, P1, match",
    [
        ([0.5, 0.6], [0.5, 0.5], "P0 must be a distribution summing to 1"),
        ([0.5, 0.5], [1.2, -0.2], "P1 must be a distribution with non-negative entries"),
        ([0.5, 0.5], [1.0, 0.0], "P1 must be a distribution with strictly positive entries"),
        ([0.5, 0.5], [0.2, 0.3, 0.5], "P0 and P1 must be over the same alphabet"),
        ([0.5, float("nan")], [0.5, 0.5], "P0 must be a distribution with finite entries"),
    ],
)
def test_divergences_reject_bad_distributions(P0, P1, match):
    for make in (KL, chi_square, TotalVariation):
        with pytest.raises(InvalidParameterError, match=match):
            make(P0, P1)


def test_sum_tolerance_is_1e_9():
    KL([0.5, 0.5 + 5e-10], [0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="P0 must be a distribution summing to 1"):
        KL([0.5, 0.5 + 5e-9], [0.5, 0.5])


def test_f_must_be_convex_with_f_of_one_zero():
    with pytest.raises(InvalidParameterError, match=r"f must satisfy f\(1\) = 0"):
        FDivergence(lambda t: t**2, [0.5, 0.5], [0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="f must be convex"):
        FDivergence(lambda t: np.sin(3 * (t - 1)), [0.5, 0.5], [0.5, 0.5])
    with pytest.raises(InvalidTypeError, match="f must be a callable"):
        FDivergence(1.0, [0.5, 0.5], [0.5, 0.5])


def test_value_and_mu_reject_mismatched_sizes():
    U = MutualInformation([0.2, 0.3, 0.5])
    with pytest.raises(InvalidParameterError, match="Q must have 3 rows"):
        U.value(np.eye(2))
    with pytest.raises(InvalidParameterError, match=r"columns must have shape \(3,\)"):
        U.mu(np.ones(4))
    with pytest.raises(InvalidParameterError, match="non-negative"):
        U.mu(-np.ones(3))
    with pytest.raises(InvalidParameterError, match="rows must sum to 1"):
        U.value(np.ones((3, 2)))
