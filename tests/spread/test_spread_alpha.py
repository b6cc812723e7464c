"""Eq. (2.13): the alpha table makes the hop-distance chain hit Eq. (2.12) exactly."""

from fractions import Fraction

import pytest

from spread.protocols import alpha, alpha_table


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
