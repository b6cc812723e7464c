"""K-randomization (Zhilyaev & Zeber 2016): randomization, count pmf, privacy ratio."""

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import binom

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy import krandom as kr


def convolved(n, m, q):
    return np.convolve(binom.pmf(np.arange(m + 1), m, 1 - q), binom.pmf(np.arange(n - m + 1), n - m, q))


def naive_recursion(n, m, q):
    """(4.1) for each original 1 and (4.2) for each original 0, step by step."""
    p = 1 - q
    P = np.array([1.0])
    for bit in [1] * m + [0] * (n - m):
        up, stay = (p, q) if bit else (q, p)
        new = np.zeros(P.size + 1)
        new[1:] += up * P
        new[:-1] += stay * P
        P = new
    return P


@pytest.mark.parametrize("q", [0.05, 0.25, 0.45])
def test_count_pmf_equals_convolution_of_binomials(q):
    for n in [0, 1, 2, 7, 40, 150]:
        for m in range(n + 1):
            got = kr.count_pmf(n, m, q)
            ref = convolved(n, m, q)
            assert got.shape == (n + 1,)
            assert np.allclose(got, ref, rtol=1e-12, atol=1e-300)
            if n <= 40:
                assert np.allclose(got, naive_recursion(n, m, q), rtol=1e-12, atol=1e-300)
    for m in [0, 333, 2000]:
        got, ref = kr.count_pmf(2000, m, q), convolved(2000, m, q)
        big = ref > 1e-250
        assert np.max(np.abs(got[big] / ref[big] - 1)) < 1e-10


def test_count_pmf_stable_at_n_1e5():
    n, q = 100_000, 0.25
    p = 1 - q
    for m in [0, 1, 31_337, 100_000]:
        P = kr.count_pmf(n, m, q)
        assert P.shape == (n + 1,)
        assert not np.isnan(P).any() and P.min() >= 0.0
        assert abs(P.sum() - 1.0) < 1e-12
        s = np.arange(n + 1)
        mean = s @ P
        assert mean == pytest.approx(n * q + m * (p - q), rel=1e-10)  # Section 4.8
        assert ((s - mean) ** 2) @ P == pytest.approx(n * p * q, rel=1e-8)
    lp = kr.log_count_pmf(n, 31_337, q)
    assert np.isfinite(lp).all()
    assert np.abs(np.exp(lp) - kr.count_pmf(n, 31_337, q)).max() < 1e-12


def exact_pmf(n, m, q):
    p = 1 - q
    P = [Fraction(1)]
    for bit in [1] * m + [0] * (n - m):
        up, stay = (p, q) if bit else (q, p)
        new = [Fraction(0)] * (len(P) + 1)
        for s, v in enumerate(P):
            new[s + 1] += up * v
            new[s] += stay * v
        P = new
    return P


def test_privacy_ratio_exact_in_the_tails():
    """Against rational arithmetic (n = 60, tails down to 1e-36) and a log-space sum (n = 1500)."""
    q = Fraction(1, 4)
    n = 60
    for m in [0, 7, 30, 59]:
        a, b = exact_pmf(n, m, q), exact_pmf(n, m + 1, q)
        ref = np.array([float(x / y) for x, y in zip(a, b)])
        got = kr.privacy_ratio(n, m, 0.25)
        assert np.max(np.abs(got / ref - 1)) < 1e-12
    n, qf = 1500, 0.25
    s = np.arange(n + 1)
    for m in [0, 700, 1499]:
        def logpmf(mm):
            k = np.arange(mm + 1)[:, None]
            return logsumexp(binom.logpmf(k, mm, 1 - qf) + binom.logpmf(s[None, :] - k, n - mm, qf), axis=0)

        ref = np.exp(logpmf(m) - logpmf(m + 1))  # includes outcomes of probability < 1e-300
        got = kr.privacy_ratio(n, m, qf)
        assert np.max(np.abs(got / ref - 1)) < 1e-9


def test_privacy_ratio_monotone_section_4_5():
    """pi decreases in s and increases in m; p/q at s = 0, q/p at s = n."""
    for q in [0.05, 0.2, 0.35, 0.49]:
        p = 1 - q
        for n in [1, 2, 5, 20, 100, 400]:
            if n <= 100:
                R = np.array([kr.privacy_ratio(n, m, q) for m in range(n)])
            else:  # the same computation, batched over m
                R = kr._privacy_ratios(n, np.arange(n), q)
            assert np.allclose(R[:, 0], p / q, rtol=1e-13) and np.allclose(R[:, -1], q / p, rtol=1e-13)
            assert np.all(np.diff(R, axis=1) <= 1e-12 * R[:, :-1])  # decreasing in s
            assert np.all(np.diff(R, axis=0) >= -1e-12 * R[:-1])  # increasing in m
            # net decreasing when both increase: pi(s; m) >= pi(s + 1; m + 1)
            assert np.all(R[:-1, :-1] >= R[1:, 1:] * (1 - 1e-12))


def test_randomize_flips_with_probability_q():
    x = np.tile([0, 1], 50_000)
    y = kr.randomize(x, 0.2, rng=5)
    assert np.array_equal(y, kr.randomize(x, 0.2, rng=5))
    flips = (x != y).mean()
    assert abs(flips - 0.2) < 5 * np.sqrt(0.2 * 0.8 / x.size)
    vec = kr.randomize(np.ones((4, 3), dtype=int), 0.3, rng=0)
    assert vec.shape == (4, 3) and set(np.unique(vec)) <= {0, 1}


def test_anonymized_counts_and_patterns():
    assert kr.patterns(1).tolist() == [[1], [0]]
    assert kr.patterns(3)[0].tolist() == [1, 1, 1] and kr.patterns(3)[-1].tolist() == [0, 0, 0]
    x = np.random.default_rng(1).integers(0, 2, size=(500, 3))
    c = kr.anonymized_counts(x, 0.1, rng=9)
    assert c.shape == (8,) and c.sum() == 500
    assert np.array_equal(c, kr.anonymized_counts(x, 0.1, rng=9))
    # L = 1: (#ones, #zeros), and #ones ~ A_n(m) -- compare the mean over repetitions
    bits = np.array([1] * 30 + [0] * 70)
    ones = [kr.anonymized_counts(bits, 0.25, rng=r)[0] for r in range(400)]
    mean, sd = 100 * 0.25 + 30 * 0.5, np.sqrt(100 * 0.25 * 0.75)
    assert abs(np.mean(ones) - mean) < 5 * sd / np.sqrt(400)


@pytest.mark.parametrize("q", [0.0, 0.5, -0.1, 0.7, float("nan")])
def test_bad_q(q):
    with pytest.raises(InvalidParameterError, match=r"q must be a real number in \(0.0, 0.5\)"):
        kr.count_pmf(5, 2, q)
    with pytest.raises(InvalidParameterError, match="q must be"):
        kr.randomize([0, 1], q)
    with pytest.raises(InvalidParameterError, match="q must be"):
        kr.epsilon(5, q)


def test_bad_counts_arguments():
    with pytest.raises(InvalidParameterError, match=r"m must be an integer in \[0, 5\]"):
        kr.count_pmf(5, 6, 0.2)
    with pytest.raises(InvalidParameterError, match=r"m must be an integer in \[0, 4\]"):
        kr.privacy_ratio(5, 5, 0.2)
    with pytest.raises(InvalidParameterError, match="n must be an integer >= 1"):
        kr.privacy_ratio(0, 0, 0.2)
    with pytest.raises(InvalidParameterError, match="x must hold bits"):
        kr.randomize([0, 2], 0.2)
    with pytest.raises(InvalidTypeError, match="x must hold bits"):
        kr.anonymized_counts([0.5, 1.0], 0.2)


@pytest.mark.timeout(10)
def test_sizes_that_cannot_fit_are_refused_up_front():
    """Issue 14, defect 7: count_pmf(10**12, 1, .25) hung / ended in MemoryError."""
    with pytest.raises(InvalidParameterError, match=r"n=1000000000000.*7.45e\+03 GiB.*ANONSPREAD_MEMORY_LIMIT"):
        kr.count_pmf(10**12, 1, 0.25)
    with pytest.raises(InvalidParameterError, match="to fit in memory"):
        kr.log_count_pmf(10**12, 1, 0.25)
    with pytest.raises(InvalidParameterError, match="to fit in memory"):
        kr.privacy_ratio(10**12, 1, 0.25)


def test_the_privacy_size_limit_is_the_projects_raisable_memory_budget():
    """Issue 24, class 1: the privacy functions' limit is the one a user can set."""
    from anonspread.spread.limits import raised_limits

    assert kr.count_pmf(10**5, 1, 0.25).shape == (10**5 + 1,)  # 0.8 MB: within the default
    with raised_limits(memory="256K"), pytest.raises(InvalidParameterError, match=r"0\.000745 GiB"):
        kr.count_pmf(10**5, 1, 0.25)


@pytest.mark.parametrize("x", [[[1, 0], [1]], [[1, 0], [1, 1, 0]], [[1], 0]])
def test_ragged_collections_are_refused(x):
    """Issue 14, defect 8: ragged input to anonymized_counts gave a raw numpy traceback."""
    with pytest.raises(InvalidParameterError, match="rectangular array of bits"):
        kr.anonymized_counts(x, 0.25, rng=0)
