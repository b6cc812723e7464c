"""K-randomization: the relaxed epsilon (delta-mass of outcomes allowed above e^eps)."""

import math

import numpy as np
import pytest

from anonspread.errors import InvalidParameterError
from anonspread.privacy import krandom as kr


def brute_force_l1(n, q, delta):
    """Every pair (m, m + 1) in both directions, by sorting the ratios (no monotonicity used)."""
    best = 0.0
    pmfs = [kr.count_pmf(n, m, q) for m in range(n + 1)]
    for m in range(n):
        for a, b in ((pmfs[m], pmfs[m + 1]), (pmfs[m + 1], pmfs[m])):
            r = a / b
            order = np.argsort(-r)
            cum = np.cumsum(a[order])
            k = np.searchsorted(cum, delta, side="right")
            if k < r.size:
                best = max(best, math.log(r[order][k]))
    return best


@pytest.mark.parametrize("q", [0.05, 0.25, 0.4])
def test_delta_zero_is_log_p_over_q(q):
    for n in [1, 2, 10, 500, 20_000]:
        assert kr.epsilon(n, q) == pytest.approx(math.log((1 - q) / q), rel=1e-13)


def test_delta_zero_for_bit_vectors_is_L_log_p_over_q():
    for n, L in [(1, 2), (3, 2), (5, 2), (2, 3)]:
        assert kr.epsilon(n, 0.25, L=L) == pytest.approx(L * math.log(3), rel=1e-12)


def test_epsilon_matches_brute_force():
    for n in [1, 2, 3, 10, 40]:
        for q in [0.1, 0.3]:
            for delta in [0.0, 1e-4, 0.01, 0.2]:
                assert kr.epsilon(n, q, delta=delta) == pytest.approx(
                    brute_force_l1(n, q, delta), abs=1e-12
                )


def test_general_enumeration_agrees_with_l1():
    """The L > 1 exact algorithm, run with L = 1, reproduces the L = 1 path."""
    for n in [1, 2, 4, 7]:
        for delta in [0.0, 0.01, 0.1]:
            assert kr._epsilon_exact_general(n, 0.25, 1, delta) == pytest.approx(
                kr.epsilon(n, 0.25, delta=delta), abs=1e-12
            )


@pytest.mark.parametrize("delta", [1e-2, 1e-6])
def test_epsilon_decreases_with_n(delta):
    ns = [10, 30, 100, 300, 1000]
    eps = [kr.epsilon(n, 0.25, delta=delta) for n in ns]
    assert all(b <= a + 1e-12 for a, b in zip(eps, eps[1:]))
    assert eps[-1] < 0.5 * eps[0]
    assert eps[-1] < math.log(3) / 5


def test_monte_carlo_for_l1_brackets_the_exact_value():
    """For L = 1 the sampled family (m = 0 and m = n - 1) holds the worst pair."""
    exact = kr.epsilon(200, 0.25, delta=0.01)
    est = kr.epsilon_monte_carlo(200, 0.25, L=1, delta=0.01, n_samples=20_000, rng=3)
    assert est.lower - 1e-12 <= exact <= est.upper + 1e-12
    assert abs(est.estimate - exact) < 0.05


def test_monte_carlo_l2_is_a_lower_estimate():
    """Family value 1.6094 at n = 6, L = 2; the exact supremum (1.7452) is higher."""
    exact = kr.epsilon(6, 0.25, L=2, delta=0.05)
    assert exact == pytest.approx(1.7452394535931621, abs=1e-9)
    est = kr.epsilon_monte_carlo(6, 0.25, L=2, delta=0.05, n_samples=5_000, rng=2)
    again = kr.epsilon_monte_carlo(6, 0.25, L=2, delta=0.05, n_samples=5_000, rng=2)
    assert est == again
    assert est.n_pairs == 7
    assert est.lower <= math.log(5) <= est.upper + 1e-12
    assert est.estimate <= exact + 1e-12


def test_monte_carlo_larger_case_is_bounded():
    est = kr.epsilon_monte_carlo(1000, 0.25, L=3, delta=0.01, n_samples=4_000, rng=0)
    assert 0.0 < est.lower <= est.estimate <= est.upper < 3 * math.log(3)


def test_bad_epsilon_arguments():
    with pytest.raises(InvalidParameterError, match=r"delta must be a real number in \[0.0, 1.0\)"):
        kr.epsilon(10, 0.25, delta=-0.1)
    with pytest.raises(InvalidParameterError, match="delta must be"):
        kr.epsilon(10, 0.25, delta=1.0)
    with pytest.raises(InvalidParameterError, match="n must be an integer >= 1"):
        kr.epsilon(0, 0.25)
    with pytest.raises(InvalidParameterError, match="epsilon_monte_carlo"):
        kr.epsilon(100, 0.25, L=4, delta=0.01)
    with pytest.raises(InvalidParameterError, match="n_samples must be at least"):
        kr.epsilon_monte_carlo(10, 0.25, L=2, delta=1e-4, n_samples=1000)
    with pytest.raises(InvalidParameterError, match="delta must be"):
        kr.epsilon_monte_carlo(10, 0.25, L=2, delta=0.0)


@pytest.mark.timeout(10)
def test_epsilon_is_bounded_in_time_or_refused_for_huge_n():
    """Issue 14, defect 7: epsilon(10**12, .25) ended in MemoryError and
    epsilon(10**9, .25, delta=1e-3) hung. delta = 0 is O(1); delta > 0 is refused with the size."""
    assert kr.epsilon(10**12, 0.25) == pytest.approx(math.log(3), rel=1e-15)
    assert kr.epsilon(10**12, 0.25) == kr.epsilon(50, 0.25)
    with pytest.raises(InvalidParameterError, match=r"n=1000000000 is too large.*1\.0e\+18"):
        kr.epsilon(10**9, 0.25, delta=1e-3)
    with pytest.raises(InvalidParameterError, match="at most 20,000"):
        kr.epsilon(kr.EXACT_L1_MAX_N + 1, 0.25, delta=1e-3)
