"""Frequency oracles (privacy.frequency): exact eps, closed forms of Wang et al. 2017, Ye-Barg,
Acharya-Sun-Zhang and Erlingsson et al., unbiasedness and variances by simulation (bands at
fixed seeds), refusals and size guards."""

import itertools
import math

import numpy as np
import pytest

from anonspread.engine.frequency import olh_support
from anonspread.errors import InvalidParameterError, InvalidTypeError, UnknownNameError
from anonspread.privacy import frequency as fq
from anonspread.privacy.mechanisms import binary_mechanism, randomized_response
from anonspread.spread.limits import raised_limits

# staircase-mi exists only where the MI-optimal mechanism has rank k: its own test below
NAMES = [n for n in fq.ORACLES if n != "staircase-mi"]


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("sue", "rappor")])
@pytest.mark.parametrize("eps", [20.0, 100.0, 700.0])
def test_exact_epsilon_at_large_eps(name, eps):
    """Every oracle that takes eps up to 700 (SUE and RAPPOR stop at 20) has exactly that level."""
    assert fq.make_oracle(name, 64, eps).epsilon() == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("k", [2, 3, 5, 8, 33, 300])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 8.0])
def test_exact_epsilon_of_every_oracle(name, k, eps):
    if name == "geometric" and k > 33:
        pytest.skip("the geometric mechanism's level is tested with the mechanisms; k = 300 costs an SVD")
    if name == "rappor" and eps > 2 * math.log(3):  # beyond the permanent response's level at f=1/2
        oracle = fq.make_oracle(name, k, eps, f=0.01)
    else:
        oracle = fq.make_oracle(name, k, eps)
    assert oracle.epsilon() == pytest.approx(eps, rel=1e-11, abs=1e-13)


@pytest.mark.parametrize("make", [
    lambda: fq.UnaryEncoding.symmetric(6, 1.3),
    lambda: fq.UnaryEncoding.optimized(7, 2.0),
    lambda: fq.RAPPOR(5, f=0.3, p=0.2, q=0.9),
    lambda: fq.SubsetSelection(9, 0.7, d=3),
    lambda: fq.GRR(6, 2.5),
    lambda: fq.HadamardResponse(5, 1.1),
    lambda: fq.LocalHashing(12, 1.7),
])
def test_lumped_pair_channel_has_the_level_of_the_whole_channel(make, monkeypatch):
    """The lumped channel used for large k gives exactly the level of the whole matrix."""
    oracle = make()
    whole = oracle.epsilon()
    monkeypatch.setattr(fq, "FULL_CHANNEL_ENTRIES", 0)
    lumped = oracle.epsilon()
    assert lumped == pytest.approx(whole, rel=1e-12)
    assert whole == pytest.approx(oracle.eps, rel=1e-12)


def test_whole_unary_channel_is_the_product_of_bits():
    ue = fq.UnaryEncoding(3, 0.7, 0.2)
    Q = ue.channel().matrix
    for x, s in itertools.product(range(3), range(8)):
        bits = [(s >> i) & 1 for i in range(3)]
        want = np.prod([(0.7 if i == x else 0.2) if b else (0.3 if i == x else 0.8) for i, b in enumerate(bits)])
        assert Q[x, s] == pytest.approx(want, rel=1e-12)


def test_wang_et_al_closed_forms_of_var_star():
    """Var* of Wang et al. 2017: DE (Eq. 4), SUE (Eq. 6), OUE (Eq. 7); OLH ~ OUE, BLH."""
    n = 10_000
    for eps in (0.5, 1.0, 2.0, 4.0):
        e = math.exp(eps)
        for k in (2, 16, 1024):
            assert fq.GRR(k, eps).var_star(n) == pytest.approx(n * (e + k - 2) / (e - 1) ** 2, rel=1e-12)
            half = math.exp(eps / 2)
            sue = fq.UnaryEncoding.symmetric(k, eps).var_star(n)
            assert sue == pytest.approx(n * half / (half - 1) ** 2, rel=1e-12)
            oue = fq.UnaryEncoding.optimized(k, eps).var_star(n)
            assert oue == pytest.approx(4 * n * e / (e - 1) ** 2, rel=1e-12)
            # local hashing with an ideal hash: q* = 1/g; ours differs by the family's
            # exact collision probability, within g / 2^31
            g = fq.LocalHashing(k, eps).g
            assert g == round(e) + 1
            ideal = n * (1 / g) * (1 - 1 / g) / (e / (e + g - 1) - 1 / g) ** 2
            assert fq.LocalHashing(k, eps).var_star(n) == pytest.approx(ideal, rel=1e-6)
            blh = fq.LocalHashing(k, eps, g=2).var_star(n)
            assert blh == pytest.approx(n * (e + 1) ** 2 / (e - 1) ** 2, rel=1e-6)
            # Hadamard response: q* = 1/2, p* = e/(e+1): Var* = n (e+1)^2/(e-1)^2
            assert fq.HadamardResponse(k, eps).var_star(n) == pytest.approx(n * (e + 1) ** 2 / (e - 1) ** 2, rel=1e-12)


def test_collision_probability_is_exact_on_a_small_prime(monkeypatch):
    """The family's collision probability, against enumeration of every (a, b) for P = 13."""
    monkeypatch.setattr(fq, "_HASH_PRIME", 13)
    for g in (2, 3, 5):
        hits = sum((a * 1 + b) % 13 % g == (a * 4 + b) % 13 % g for a in range(1, 13) for b in range(13))
        assert fq._collision_probability(g) == pytest.approx(hits / (12 * 13), rel=1e-12)


def test_subset_selection_and_rappor_closed_forms():
    ss = fq.SubsetSelection(10, 1.0, d=3)
    Q = ss.channel().matrix
    subsets = list(itertools.combinations(range(10), 3))
    inside = np.array([[x in s for s in subsets] for x in range(10)])
    assert Q[inside].sum() / 10 == pytest.approx(ss.p_star, rel=1e-12)
    assert (Q[0] * inside[1]).sum() == pytest.approx(ss.q_star, rel=1e-12)
    # Ye & Barg's choice d ~ k/(e^eps + 1)
    assert fq.SubsetSelection(1024, 1.0).d in (275, 276)
    # RAPPOR: the paper's q*, p*, eps_1 (h = 1) and eps_inf
    r = fq.RAPPOR(8, f=0.5, p=0.5, q=0.75)
    qs, ps = 0.5 * 0.5 * 1.25 + 0.5 * 0.75, 0.5 * 0.5 * 1.25 + 0.5 * 0.5
    assert (r.p_star, r.q_star) == pytest.approx((qs, ps))
    assert r.epsilon() == pytest.approx(math.log(qs * (1 - ps) / (ps * (1 - qs))), rel=1e-12)
    assert r.permanent_epsilon() == pytest.approx(2 * math.log(0.75 / 0.25), rel=1e-12)
    assert fq.RAPPOR.from_eps(8, 1.2, f=0.25).epsilon() == pytest.approx(1.2, rel=1e-12)


def test_mechanism_oracle_matches_grr_closed_form():
    """RR through its inverse is GRR: the same exact variance and the same estimate."""
    counts = np.array([500.0, 300.0, 150.0, 50.0, 0.0])
    grr, rr = fq.GRR(5, 1.3), fq.MechanismOracle(randomized_response(5, 1.3))
    np.testing.assert_allclose(rr.count_variance(counts), grr.count_variance(counts), rtol=1e-10)
    reports = grr.privatize(np.repeat(np.arange(5), [500, 300, 150, 50, 0]), rng=2)
    np.testing.assert_allclose(rr.estimate(reports).counts, grr.estimate(reports).counts, rtol=1e-9)
    assert rr.var_star(1000) == pytest.approx(grr.var_star(1000), rel=1e-10)


def _oracles_for_simulation():
    return [fq.make_oracle(name, 16, 1.2) for name in NAMES]


@pytest.mark.parametrize("oracle", _oracles_for_simulation(), ids=NAMES)
def test_unbiased_with_the_closed_form_variance(oracle):
    """Over 400 runs at a fixed seed: every mean within 4.5 standard errors of the true count
    (Bonferroni over 16 values), the sample variance within a chi-square band of the exact one."""
    rng = np.random.default_rng(35)
    f = rng.dirichlet(np.ones(16) * 0.5)
    n, runs = 1500, 400
    values = rng.choice(16, size=n, p=f)
    counts = np.bincount(values, minlength=16).astype(float)
    est = np.array([oracle.estimate(oracle.privatize(values, rng=rng)).counts for _ in range(runs)])
    var = oracle.count_variance(counts)
    z = (est.mean(axis=0) - counts) / np.sqrt(var / runs)
    assert np.abs(z).max() < 4.5
    ratio = est.var(axis=0, ddof=1) / var
    # each ratio ~ chi2(399)/399 (sd 0.071): pooled over 16 values, sd ~ 0.018 if independent
    assert 0.9 < ratio.mean() < 1.1
    assert ratio.min() > 0.7 and ratio.max() < 1.3


def test_simulate_by_blocks_matches_privatize_in_distribution():
    oracle = fq.LocalHashing(32, 2.0)
    values = np.arange(32).repeat(50)
    a = oracle.simulate(values, rng=5, block=97)
    b = oracle.simulate(values, rng=5, block=97)
    np.testing.assert_array_equal(a.counts, b.counts)  # deterministic
    runs = np.array([oracle.simulate(values, rng=s, block=97).counts for s in range(60)])
    sd = np.sqrt(oracle.count_variance(np.full(32, 50.0)) / 60)
    assert np.abs((runs.mean(axis=0) - 50) / sd).max() < 4.5


def test_same_seed_same_reports():
    for name in NAMES:
        o = fq.make_oracle(name, 10, 1.0)
        v = np.arange(10).repeat(3)
        a, b = o.privatize(v, rng=9), o.privatize(v, rng=9)
        if isinstance(a, fq.HashReports):
            a, b = np.stack([a.a, a.b, a.y]), np.stack([b.a, b.b, b.y])
        np.testing.assert_array_equal(a, b)


def test_hadamard_support_is_the_brute_force_membership():
    hr = fq.HadamardResponse(11, 0.8)
    reports = hr.privatize(np.arange(11).repeat(20), rng=1)
    inside = hr.channel().matrix > 1.0 / hr.K  # the high entries 2 e^eps / (K (e^eps + 1)): y in C_x
    brute = inside[:, reports].sum(axis=1)
    np.testing.assert_array_equal(hr.support(reports), brute)


def test_olh_kernel_matches_numpy_and_refuses_bad_input():
    rng = np.random.default_rng(4)
    P = 2**31 - 1
    a = rng.integers(1, P, 300, dtype=np.uint32)
    b = rng.integers(0, P, 300, dtype=np.uint32)
    y = rng.integers(0, 7, 300, dtype=np.uint32)
    h = (a[:, None].astype(np.uint64) * np.arange(50, dtype=np.uint64) + b[:, None]) % P % 7
    np.testing.assert_array_equal(olh_support(a, b, y, 50, 7), (h == y[:, None]).sum(axis=0))
    big = np.tile(a, 20), np.tile(b, 20), np.tile(y, 20)  # above the threads' threshold
    np.testing.assert_array_equal(olh_support(*big, 50, 7, threads=2), olh_support(*big, 50, 7))
    with pytest.raises(InvalidParameterError, match="threads must be an integer >= 1"):
        olh_support(a, b, y, 50, 7, threads=0)
    with pytest.raises(InvalidParameterError, match=r"y must hold integers in \[0, 6\]"):
        olh_support(a, b, y + 7, 50, 7)
    with pytest.raises(InvalidTypeError, match="a must be a 1-D numpy array of uint32"):
        olh_support(a.astype(np.int64), b, y, 50, 7)
    with pytest.raises(InvalidParameterError, match="same length"):
        olh_support(a[:5], b, y, 50, 7)
    with pytest.raises(InvalidParameterError, match="g must be an integer in"):
        olh_support(a, b, y, 50, 1)
    with pytest.raises(InvalidParameterError, match=r"a must hold integers in \[1,"):
        olh_support(np.zeros(300, dtype=np.uint32), b, y, 50, 7)


@pytest.mark.parametrize("call, exc, message", [
    (lambda: fq.GRR(1, 1.0), InvalidParameterError, r"k must be an integer in \[2, "),
    (lambda: fq.GRR(4, 0.0), InvalidParameterError, r"eps must be a real number in \(0.0, 700.0\]; got 0.0"),
    (lambda: fq.OLH if False else fq.LocalHashing(4, float("nan")), InvalidParameterError, "eps must be"),
    (lambda: fq.HadamardResponse(4, -1), InvalidParameterError, "eps must be"),
    (lambda: fq.UnaryEncoding.optimized(4.5, 1.0), InvalidParameterError, "k must be an integer"),
    (lambda: fq.SubsetSelection(5, 1.0, d=5), InvalidParameterError, r"d must be an integer in \[1, 4\]"),
    (lambda: fq.RAPPOR.from_eps(5, 3.0, f=0.5), InvalidParameterError, "permanent response's level"),
    (lambda: fq.UnaryEncoding.symmetric(5, 21.0), InvalidParameterError, "eps must be at most 20 for symmetric"),
    (lambda: fq.RAPPOR.from_eps(5, 21.0, f=1e-12), InvalidParameterError, "eps must be at most 20 for RAPPOR"),
    (lambda: fq.make_oracle("olhh", 5, 1.0), UnknownNameError, "did you mean 'olh'"),
    (lambda: fq.MechanismOracle(binary_mechanism([0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 1.0)),
     InvalidParameterError, "must have rank k = 3"),
    (lambda: fq.GRR(4, 1.0).privatize([0, 4]), InvalidParameterError, r"values must hold values in \[0, 3\]; got values in \[0, 4\]"),
    (lambda: fq.GRR(4, 1.0).privatize([0.5]), InvalidTypeError, "values must hold integers"),
    (lambda: fq.GRR(4, 1.0).privatize([[0, 1]]), InvalidParameterError, "1-D array"),
    (lambda: fq.GRR(4, 1.0).estimate([0, 7]), InvalidParameterError, r"outputs in \[0, 3\]"),
    (lambda: fq.UnaryEncoding.optimized(4, 1.0).estimate(np.zeros((3, 5), bool)), InvalidParameterError, r"\(n, 4\)"),
    (lambda: fq.UnaryEncoding.optimized(4, 1.0).estimate(np.full((3, 4), 2)), InvalidParameterError, "bits 0 or 1"),
    (lambda: fq.SubsetSelection(6, 1.0, d=2).estimate([[1, 1]]), InvalidParameterError, "distinct"),
    (lambda: fq.LocalHashing(6, 1.0).estimate([1, 2]), InvalidTypeError, "HashReports"),
    (lambda: fq.GRR(4, 1.0).variance([0.5, 0.5], 10), InvalidParameterError, "k = 4 entries"),
    (lambda: fq.GRR(4, 1.0).variance([0.25] * 4, 0), InvalidParameterError, "n must be an integer >= 1"),
])
def test_refusals_name_parameter_value_and_what_is_accepted(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_size_guards_refuse_what_cannot_fit():
    ue = fq.UnaryEncoding.optimized(1024, 1.0)
    with raised_limits(memory="1 MiB"):
        with pytest.raises(InvalidParameterError, match="values must be small enough for the unary reports"):
            ue.privatize(np.zeros(10_000, dtype=int))
        # the block-wise path stays within the limit
        assert ue.simulate(np.zeros(2000, dtype=int), rng=0, block=500).n == 2000
    with pytest.raises(InvalidParameterError, match="the k x 2\\^k unary channel"):
        fq.UnaryEncoding.optimized(60, 1.0).channel()


@pytest.mark.slow
def test_expected_errors_match_simulation_at_scale():
    """E||f_hat - f||_2^2 (exact) and the normal-approximation L1 against 150 runs, n = 50,000."""
    rng = np.random.default_rng(17)
    k, n = 128, 50_000
    f = rng.zipf(1.3, size=n) % k
    values = f.astype(np.int64)
    freqs = np.bincount(values, minlength=k) / n
    for name in ("grr", "oue", "olh", "hr", "ss"):
        o = fq.make_oracle(name, k, 1.0)
        err = np.array([o.simulate(values, rng=rng).frequencies - freqs for _ in range(150)])
        l2 = (err ** 2).sum(axis=1)
        assert abs(l2.mean() - o.expected_squared_l2(freqs, n)) < 4 * l2.std(ddof=1) / np.sqrt(150)
        l1 = np.abs(err).sum(axis=1)
        assert l1.mean() == pytest.approx(o.approx_expected_l1(freqs, n), rel=0.03)


def test_ue_kernel_draws_each_bit_with_its_exact_probability():
    from fractions import Fraction

    from anonspread.engine.frequency import _digits, ue_sample

    for q in (0.3, 1 / 3, 2.0**-40 * 3, 0.999):
        digits = _digits(q, "q")
        assert sum(Fraction(int(b), 2 ** (j + 1)) for j, b in enumerate(digits)) == Fraction(q)
    rng = np.random.default_rng(8)
    n, k, p, q = 40_000, 70, 0.8, 0.3
    values = rng.integers(0, k, n)
    bits, counts = ue_sample(values, k, p, q, rng)
    np.testing.assert_array_equal(bits.sum(axis=0), counts)
    own = bits[np.arange(n), values]
    assert abs(own.mean() - p) < 4.5 * math.sqrt(p * (1 - p) / n)
    others = (bits.sum() - own.sum()) / (n * (k - 1))
    assert abs(others - q) < 4.5 * math.sqrt(q * (1 - q) / (n * (k - 1)))
    # lanes are independent: the pair (bit 0, bit 1) of users holding value 5
    b0, b1 = bits[values == 5, 0], bits[values == 5, 1]
    assert abs(np.mean(b0 & b1) - q * q) < 4.5 * math.sqrt(q * q / b0.size)
    with pytest.raises(InvalidParameterError, match=r"q must be a probability in \[0, 1\)"):
        ue_sample(values, k, p, 1.0, rng)
    with pytest.raises(InvalidParameterError, match=r"values must hold integers in \[0, 69\]"):
        ue_sample(values + 1, k, p, q, rng)
    with pytest.raises(InvalidTypeError, match=r"rng must be a numpy\.random\.Generator"):
        ue_sample(values, k, p, q, 3)


def test_ss_kernel_reports_distinct_values_with_the_inclusion_probability():
    from anonspread.engine.frequency import ss_sample

    rng = np.random.default_rng(9)
    n, k, d, p_in = 30_000, 12, 4, 0.6
    values = rng.integers(0, k, n)
    out, counts = ss_sample(values, k, d, p_in, rng)
    assert (np.diff(np.sort(out, axis=1), axis=1) > 0).all()
    np.testing.assert_array_equal(np.bincount(out.ravel(), minlength=k), counts)
    held = (out == values[:, None]).any(axis=1)
    assert abs(held.mean() - p_in) < 4.5 * math.sqrt(p_in * (1 - p_in) / n)
    # the others are uniform: value (x + 1) mod k appears w.p. (d - held) / (k - 1)
    nxt = (out == ((values + 1) % k)[:, None]).any(axis=1)
    want = p_in * (d - 1) / (k - 1) + (1 - p_in) * d / (k - 1)
    assert abs(nxt.mean() - want) < 4.5 * math.sqrt(want * (1 - want) / n)
    with pytest.raises(InvalidParameterError, match=r"d must be an integer in \[1, 11\]"):
        ss_sample(values, k, 12, p_in, rng)


@pytest.mark.parametrize("name", ["oue", "sue", "rappor", "ss"])
def test_counting_simulate_has_the_closed_form_law(name):
    """simulate() counts reports as they are drawn (never held): unbiased, exact variance."""
    o = fq.make_oracle(name, 16, 1.0)
    values = np.repeat(np.arange(16), np.arange(16) * 10)
    counts = np.bincount(values, minlength=16).astype(float)
    rng = np.random.default_rng(3)
    est = np.array([o.simulate(values, rng=rng).counts for _ in range(300)])
    var = o.count_variance(counts)
    assert np.abs((est.mean(axis=0) - counts) / np.sqrt(var / 300)).max() < 4.5
    assert 0.9 < (est.var(axis=0, ddof=1) / var).mean() < 1.1


@pytest.mark.parametrize("k", [5, 64, 70, 130])
def test_packed_unary_reports_are_numpys_packbits_of_the_bits(k):
    from anonspread.engine.frequency import ue_sample

    values = np.arange(300) % k
    bits, c1 = ue_sample(values, k, 0.7, 0.4, np.random.default_rng(1))
    packed, c2 = ue_sample(values, k, 0.7, 0.4, np.random.default_rng(1), packed=True)
    np.testing.assert_array_equal(packed, np.packbits(bits, axis=1, bitorder="little"))
    np.testing.assert_array_equal(c1, c2)
    oue = fq.UnaryEncoding.optimized(k, 1.0)
    np.testing.assert_array_equal(oue.support(packed), oue.support(bits))


def test_the_thesis_mi_optimal_mechanism_as_a_frequency_oracle():
    """The optimal staircase for the mutual information (uniform prior) is randomized
    response where it has rank k: the same variance as GRR, exactly; below that eps it has
    fewer outputs than values and is refused as a frequency oracle, saying why."""
    from anonspread.privacy.frequency import make_oracle

    for k, eps in ((4, 1.0), (4, 4.0), (8, 4.0), (12, 4.0)):
        sm, grr = make_oracle("staircase-mi", k, eps), make_oracle("grr", k, eps)
        assert sm.var_star(1) == pytest.approx(grr.var_star(1), rel=1e-9)
        assert sm.epsilon() == pytest.approx(eps, rel=1e-9)
    for k, eps in ((4, 0.5), (8, 1.0), (12, 2.0)):
        with pytest.raises(InvalidParameterError, match=f"must have rank k = {k}"):
            make_oracle("staircase-mi", k, eps)
