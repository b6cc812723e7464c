"""Eq. (2.13): the alpha table makes the hop-distance chain hit Eq. (2.12) exactly."""

import math
from fractions import Fraction

import numpy as np
import pytest

from anonspread import AnonspreadError
from anonspread.spread.protocols import alpha, alpha_table, log_alpha


def target(d, t):
    """Eq. (2.12): p_h^(t) for h = 1..t/2, as exact fractions."""
    if d == 2:
        return [Fraction(2, t)] * (t // 2)
    norm = Fraction(d - 2, (d - 1) ** (t // 2) - 1)
    return [norm * (d - 1) ** (h - 1) for h in range(1, t // 2 + 1)]


@pytest.mark.parametrize("d", [2, 3, 4, 5, 6])
def test_alpha_drives_chain_to_eq_2_12_exactly(d):
    # Start from p^(2) = [1] and apply the column-stochastic matrix of Eq. (2.11).
    p = [Fraction(1)]
    for t in range(2, 21, 2):
        assert p == target(d, t), (d, t)
        a = [alpha(d, t, h, exact=True) for h in range(1, t // 2 + 1)]
        assert all(0 <= x <= 1 for x in a)
        nxt = [Fraction(0)] * (t // 2 + 1)
        for i, (ph, ah) in enumerate(zip(p, a)):
            nxt[i] += ah * ph
            nxt[i + 1] += (1 - ah) * ph
        p = nxt


@pytest.mark.parametrize("d", [2, 3, 4, 5, 6])
def test_float_table_matches_exact_values(d):
    tab = alpha_table(d, 20)
    for t in range(2, 21, 2):
        for h in range(1, t // 2 + 1):
            assert tab[t, h] == pytest.approx(float(alpha(d, t, h, exact=True)), rel=1e-12)


def test_known_values_and_infinite_degree():
    assert alpha(3, 2, 1, exact=True) == Fraction(1, 3)  # 1/d at t = 2
    assert alpha(2, 2, 1, exact=True) == Fraction(1, 2)
    assert alpha(float("inf"), 10, 3) == 0.0
    # the large-d limit is (d - 1)^(-h)
    assert alpha(1e6 + 1, 8, 2) == pytest.approx(1e-12, rel=1e-5)
    # stable for large t (no overflow)
    assert 0 < alpha(3, 400, 1) < 1


# ----------------------------------------------------------------- issue 14, defect 6


@pytest.mark.parametrize(
    ("d", "t", "h", "exact"),
    [(3, 2050, 1, 0.5), (3, 2050, 2, 0.25), (10, 660, 1, 1 / 9), (3, 20000, 3, 0.125)],
)
def test_no_overflow_for_large_t(d, t, h, exact):
    # (d-1)^(t/2+1) overflows a double beyond t ~ 2046 (d = 3); the ratio must not
    assert alpha(d, t, h) == pytest.approx(exact, rel=1e-14)
    assert alpha(d, t, h) == pytest.approx(float(alpha(d, t, h, exact=True)), rel=1e-14)


def test_huge_design_degree_is_correct():
    # alpha = (d-1)^-h (1 - (d-1)^-a) / (1 - (d-1)^-c): 1e-300 at h = 1, below the
    # smallest double at h = 2 (0.0 is then the correctly rounded value)
    assert alpha(1e300 + 1, 10, 1) == pytest.approx(1e-300, rel=1e-12)
    assert alpha(1e300, 10, 2) == 0.0
    from anonspread import spread
    from anonspread.spread.protocols import AdaptiveDiffusion

    s = spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(d0=1e300), 8, rng=1)
    # alpha ~ 1e-300: the token always moves, as with d0 = inf, drawing the same numbers
    ref = spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(d0=math.inf), 8, rng=1)
    assert s.infected.tolist() == ref.infected.tolist()
    assert s.virtual_source == ref.virtual_source


def test_log_alpha_is_finite_where_alpha_is_positive():
    h = np.arange(1, 1026)
    keep, move = log_alpha(3, 2050, h)
    assert np.all(np.isfinite(keep)) and np.all(np.isfinite(move))
    # log alpha(3, 2050, 1025) = log(1 / (2^1026 - 1)); alpha rounds it to 0 in no case here
    assert keep[-1] == pytest.approx(-1026 * math.log(2), rel=1e-14)
    assert move[0] == pytest.approx(math.log(0.5), rel=1e-14)
    keep, move = log_alpha(1e300, 10, np.arange(1, 6))
    assert keep[4] == pytest.approx(-5 * math.log(1e300 - 1), rel=1e-14)  # alpha itself is 0.0


def test_ml_tables_match_eq_2_12_at_t_3000():
    # F[J, h] is the log of Eq. 2.12's hop law p_h = (d-2)(d-1)^(h-1) / ((d-1)^(t/2) - 1)
    from anonspread.adversaries._tables import ad_tables

    T = 3000
    h = np.arange(1, T // 2 + 1)
    for d in (3, 4.5, 1e300):
        lb = math.log(d - 1)
        ref = math.log(d - 2) + (h - 1) * lb - (T // 2 * lb + math.log(-math.expm1(-T // 2 * lb)))
        _, alive, dead, _, _ = ad_tables(d, T)
        np.testing.assert_allclose(alive[1 : T // 2 + 1], ref, rtol=1e-12)
        assert np.all(np.isfinite(dead[1 : T // 2 + 1]))
    _, alive, _, _, move = ad_tables(3, T + 1)
    assert np.all(np.isfinite(alive[1 : T // 2 + 1])) and np.all(np.isfinite(move[2 : T // 2 + 2]))


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [((1.5, 4, 1), {}, "d"), ((float("nan"), 4, 1), {}, "d"), (("3", 4, 1), {}, "d"),
     ((3, 3, 1), {}, "t"), ((3, 4, 0), {}, "h"), ((3, 4, 3), {}, "h"), ((3, 4.0, 1), {}, "t"),
     ((2.5, 4, 1), {"exact": True}, "d"), ((10**400, 4, 1), {}, "d")],
)
def test_bad_arguments_are_refused(args, kwargs, name):
    with pytest.raises(AnonspreadError, match=rf"^{name} must"):
        alpha(*args, **kwargs)


def test_alpha_table_refuses_a_table_that_does_not_fit():
    with pytest.raises(AnonspreadError, match=r"T must .* GiB"):
        alpha_table(3, 10**5)


def test_adaptive_diffusion_needs_no_table():
    # T = 10**5 on the line: the O(T^2) table would need 37 GiB; the kernel computes alpha
    from anonspread import spread
    from anonspread.spread.protocols import AdaptiveDiffusion

    s = spread.simulate(spread.graphs.line(), AdaptiveDiffusion(), 10**5, rng=0)
    assert s.n_infected == 10**5 + 1


def test_ml_tables_that_do_not_fit_are_refused():
    from anonspread import spread
    from anonspread.adversaries import simulate_and_score
    from anonspread.spread.protocols import AdaptiveDiffusion

    with pytest.raises(AnonspreadError, match=r"^T must be small enough .* likelihood tables .* GiB"):
        simulate_and_score(spread.graphs.line(), AdaptiveDiffusion(), 10**5, 2, estimators=["ml"], rng=0)
