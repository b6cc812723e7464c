"""Closed-form mechanisms of thesis Chapter 3: Eqs. (3.14)-(3.16), (3.21)-(3.23), (3.26)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy import bounds
from anonspread.privacy.mechanisms import (
    balanced_partition,
    binary_mechanism,
    binary_mechanism_mi,
    binary_or_randomized_response,
    geometric_mechanism,
    quaternary_mechanism,
    randomized_response,
)
from anonspread.privacy.utility import KL, MutualInformation, TotalVariation, chi_square


@st.composite
def distributions(draw, k=None, low=0.0):
    k = draw(st.integers(2, 8)) if k is None else k
    w = np.array(draw(st.lists(st.floats(low, 1.0), min_size=k, max_size=k)))
    if w.sum() <= 0:
        w = np.ones(k)
    return w / w.sum()


@st.composite
def pairs(draw):
    k = draw(st.integers(2, 8))
    return draw(distributions(k, low=0.01)), draw(distributions(k, low=0.01))


eps_values = st.floats(0.0, 12.0)


@settings(max_examples=60, deadline=None)
@given(pq=pairs(), eps=eps_values)
def test_cor_3_3_7_binary_tv_closed_form(pq, eps):
    P0, P1 = pq
    tv = TotalVariation(P0, P1).value(binary_mechanism(P0, P1, eps))
    expected = (np.exp(eps) - 1) / (np.exp(eps) + 1) * 0.5 * np.abs(P0 - P1).sum()
    assert tv == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert bounds.tv_binary(P0, P1, eps) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(P=distributions(), eps=eps_values)
def test_eq_3_23_binary_mi_closed_form(P, eps):
    mi = MutualInformation(P).value(binary_mechanism_mi(P, eps))
    assert mi == pytest.approx(bounds.mi_binary(P, eps), rel=1e-10, abs=1e-14)


@settings(max_examples=60, deadline=None)
@given(pq=pairs(), eps=eps_values)
def test_eq_3_17_binary_kl_closed_form(pq, eps):
    P0, P1 = pq
    kl = KL(P0, P1).value(binary_mechanism(P0, P1, eps))
    assert kl == pytest.approx(bounds.kl_binary(P0, P1, eps), rel=1e-10, abs=1e-14)


@settings(max_examples=80, deadline=None)
@given(pq=pairs(), eps=st.floats(0.0, 30.0), delta=st.floats(0.0, 1.0))
def test_every_constructed_mechanism_is_eps_ldp(pq, eps, delta):
    P0, P1 = pq
    k = P0.size
    slack = 1e-12 * max(1.0, eps)
    for Q in (
        binary_mechanism(P0, P1, eps),
        binary_mechanism_mi(P0, eps),
        randomized_response(k, eps),
        geometric_mechanism(k, eps),
        binary_or_randomized_response(KL(P0, P1), eps),
        binary_or_randomized_response(MutualInformation(P1), eps),
    ):
        assert Q.n_inputs == k
        assert Q.ldp_epsilon() <= eps + slack
    assert quaternary_mechanism(eps, delta).approx_dp_delta(eps) <= delta + 1e-12


def test_randomized_response_and_geometric_exact_entries():
    e = np.exp(1.5)
    Q = randomized_response(4, 1.5).matrix
    assert np.allclose(np.diag(Q), e / (3 + e), rtol=1e-15)
    assert np.allclose(Q[~np.eye(4, dtype=bool)], 1 / (3 + e), rtol=1e-15)
    G = geometric_mechanism(5, 2.0)
    a = np.exp(-2.0 / 4)
    assert G.matrix[2, 3] == pytest.approx((1 - a) / (1 + a) * a, rel=1e-14)
    assert G.matrix[1, 0] == pytest.approx(a / (1 + a), rel=1e-14)
    # Truncation at the ends makes the end columns reach the full ratio e^eps.
    assert G.ldp_epsilon() == pytest.approx(2.0, rel=1e-12)
    assert np.array_equal(randomized_response(3, np.inf).matrix, np.eye(3))
    assert np.array_equal(geometric_mechanism(3, np.inf).matrix, np.eye(3))


def test_quaternary_guarantee_is_exact():
    eps, delta = 0.7, 0.15
    Q = quaternary_mechanism(eps, delta)
    # Worst set over all 2^4 output sets, both input orders (Eq. 3.25): exactly delta.
    worst = max(
        Q.matrix[x, list(S)].sum() - np.exp(eps) * Q.matrix[1 - x, list(S)].sum()
        for x in (0, 1)
        for r in range(5)
        for S in itertools.combinations(range(4), r)
    )
    assert worst == pytest.approx(delta, abs=1e-15)
    assert Q.approx_dp_delta(eps) == pytest.approx(delta, abs=1e-15)
    # Any smaller eps needs a larger delta: the pair (eps, delta) is tight.
    assert Q.approx_dp_delta(eps - 1e-3) > delta + 1e-6
    assert Q.ldp_epsilon() == np.inf
    assert quaternary_mechanism(eps, 0.0).ldp_epsilon() == pytest.approx(eps, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(P=distributions())
def test_balanced_partition_is_exact_against_brute_force(P):
    k = P.size
    best = min(abs(P[list(A)].sum() - 0.5) for r in range(k + 1) for A in itertools.combinations(range(k), r))
    T = balanced_partition(P)
    assert T[0]
    assert abs(P[T].sum() - 0.5) == pytest.approx(best, abs=1e-14)


def test_balanced_partition_large_k_meet_in_the_middle_and_ldm():
    rng = np.random.default_rng(11)
    P = rng.dirichlet(np.ones(36))
    T = balanced_partition(P)  # exact (meet in the middle)
    assert abs(P[T].sum() - 0.5) < 1e-6
    P = rng.dirichlet(np.ones(200))
    T = balanced_partition(P)  # Karmarkar-Karp: near-exact
    assert abs(P[T].sum() - 0.5) < 1e-6


def test_mixed_strategy_picks_the_better_mechanism():
    rng = np.random.default_rng(5)
    P0, P1 = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    for U in (KL(P0, P1), chi_square(P0, P1), MutualInformation(P0)):
        for eps in (0.1, 1.0, 3.0, 10.0):
            binary = (
                binary_mechanism_mi(P0, eps)
                if isinstance(U, MutualInformation)
                else binary_mechanism(P0, P1, eps)
            )
            best = max(U.value(binary), U.value(randomized_response(6, eps)))
            assert U.value(binary_or_randomized_response(U, eps)) == best
    assert binary_or_randomized_response(KL(P0, P1), 0.1).shape == (6, 2)
    assert binary_or_randomized_response(KL(P0, P1), 10.0).shape == (6, 6)
    with pytest.raises(InvalidTypeError, match="utility must be"):
        binary_or_randomized_response(object(), 1.0)


@pytest.mark.parametrize("eps", [-1.0, float("nan"), "1"])
def test_bad_eps_is_rejected_with_its_name(eps):
    for make in (
        lambda e: binary_mechanism([0.5, 0.5], [0.2, 0.8], e),
        lambda e: binary_mechanism_mi([0.5, 0.5], e),
        lambda e: randomized_response(3, e),
        lambda e: geometric_mechanism(3, e),
        lambda e: quaternary_mechanism(e, 0.1),
    ):
        with pytest.raises((InvalidParameterError, InvalidTypeError), match="eps must be"):
            make(eps)


@pytest.mark.parametrize("delta", [-0.1, 1.1, float("nan")])
def test_bad_delta_is_rejected(delta):
    with pytest.raises(InvalidParameterError, match=r"delta must be a real number in \[0.0, 1.0\]"):
        quaternary_mechanism(1.0, delta)


def test_bad_distributions_and_sizes_are_rejected():
    with pytest.raises(InvalidParameterError, match="P0 and P1 must be over the same alphabet"):
        binary_mechanism([0.5, 0.5], [0.2, 0.3, 0.5], 1.0)
    with pytest.raises(InvalidParameterError, match="P must be a distribution summing to 1"):
        binary_mechanism_mi([0.5, 0.4], 1.0)
    with pytest.raises(InvalidParameterError, match="k must be an integer >= 1"):
        randomized_response(0, 1.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda eps: binary_mechanism([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], eps),
        lambda eps: binary_mechanism_mi([0.5, 0.3, 0.2], eps),
        lambda eps: randomized_response(3, eps),
        lambda eps: geometric_mechanism(3, eps),
        lambda eps: quaternary_mechanism(eps, 0.1),
    ],
)
def test_closed_forms_refuse_eps_whose_probabilities_underflow(make):
    """Issue 14, defect 9: at eps >= 740 the closed forms returned matrices with zeros
    (an infinite loss). A finite eps above 700 is refused; eps = 700 is exact; inf is the limit."""
    for eps in (740.0, 1e4):
        with pytest.raises(InvalidParameterError, match="eps must be at most 700 or inf"):
            make(eps)
    Q = make(700.0)
    assert np.all(Q.matrix[:, :2] > 0) or np.all(Q.matrix[:, 2:] > 0)
    if Q.shape != (2, 4):  # the quaternary mechanism's loss is infinite by design (delta part)
        assert Q.ldp_epsilon() == pytest.approx(700.0, rel=1e-12)
    make(float("inf"))


@pytest.mark.parametrize("make", [randomized_response, geometric_mechanism])
def test_k_by_k_mechanisms_refuse_sizes_that_cannot_fit(make):
    """Issue 14, defect 7: randomized_response(10**6, 1) ended in MemoryError."""
    with pytest.raises(InvalidParameterError, match=r"k=1000000.*7.45e\+03 GiB.*ANONSPREAD_MEMORY_LIMIT"):
        make(10**6, 1.0)
    assert make(2000, 1.0).shape == (2000, 2000)
