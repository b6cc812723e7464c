"""The numbers behind Figures 3.3-3.8 of the thesis (§3.3.2, §3.3.3, §3.4.2, §3.4.3).

The thesis draws "100 instances of randomly chosen" distributions without saying how; we
draw each uniformly from the simplex (Dirichlet(1, ..., 1)) at a fixed seed, and use an eps
grid from 0.1 to 10 (the regimes its figures discuss).
"""

import numpy as np
import pytest

from anonspread.privacy import bounds
from anonspread.privacy.mechanisms import (
    binary_mechanism,
    binary_mechanism_mi,
    binary_or_randomized_response,
    geometric_mechanism,
    randomized_response,
)
from anonspread.privacy.staircase import solve_staircase_lp
from anonspread.privacy.utility import KL, MutualInformation

EPS = np.array([0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0])
N_INSTANCES = 100
MECHS = ("optimal", "binary", "rr", "geometric", "mixed")


def _instances(k, seed=2015):
    rng = np.random.default_rng(seed + k)
    return [(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))) for _ in range(N_INSTANCES)]


def _table(k, which):
    """values[instance, eps, mechanism] for utility ``which`` in {"kl", "mi"}."""
    out = np.empty((N_INSTANCES, EPS.size, len(MECHS)))
    for i, (P0, P1) in enumerate(_instances(k)):
        U = KL(P0, P1) if which == "kl" else MutualInformation(P0)
        for j, eps in enumerate(EPS):
            binary = binary_mechanism(P0, P1, eps) if which == "kl" else binary_mechanism_mi(P0, eps)
            out[i, j] = [
                solve_staircase_lp(U, eps).value,
                U.value(binary),
                U.value(randomized_response(k, eps)),
                U.value(geometric_mechanism(k, eps)),
                U.value(binary_or_randomized_response(U, eps)),
            ]
    return out


@pytest.fixture(scope="module")
def kl6():
    return _table(6, "kl")


@pytest.fixture(scope="module")
def mi6():
    return _table(6, "mi")


def _ratio(table, name):
    return table[:, :, MECHS.index(name)] / table[:, :, 0]


def test_fig_3_3_kl_regimes(kl6):
    binary, rr, geo = _ratio(kl6, "binary"), _ratio(kl6, "rr"), _ratio(kl6, "geometric")
    assert np.all(kl6[:, :, 1:] <= kl6[:, :, :1] * (1 + 1e-9))  # nothing beats the LP
    # Left: binary optimal at eps = 0.1, randomized response at eps = 10 (on average and
    # per instance up to 1e-3); both far above the geometric mechanism.
    assert binary[:, 0].min() > 1 - 1e-9
    assert rr[:, -1].min() > 0.999
    assert np.all(geo.mean(axis=0) < np.maximum(binary, rr).mean(axis=0))
    P = _instances(6)
    normalised_opt = kl6[:, -1, 0] / [np.sum(P0 * np.log(P0 / P1)) for P0, P1 in P]
    assert normalised_opt.mean() > 0.99  # D(M0||M1) / D(P0||P1) -> 1 for large eps
    # Right: mismatched regimes are bad (thesis: RR down to ~10% at small eps, binary down
    # to ~25% at large eps).
    assert 0.05 < rr[:, 0].min() < 0.2
    assert 0.15 < binary[:, -1].min() < 0.35


@pytest.mark.parametrize("k", [pytest.param(k, marks=pytest.mark.slow) for k in (3, 4, 5)] + [6])
def test_fig_3_4_and_3_7_mixed_strategy_fractions(k, kl6, mi6):
    kl = kl6 if k == 6 else _table(k, "kl")
    mi = mi6 if k == 6 else _table(k, "mi")
    assert _ratio(kl, "mixed").min() >= 0.60  # Fig. 3.4
    assert _ratio(mi, "mixed").min() >= 0.75  # Fig. 3.7


def test_fig_3_5_kl_scaling_laws(kl6):
    P = _instances(6)
    i_small, i_large = 0, EPS.size - 1
    eps = EPS[i_small]
    tv = np.array([0.5 * np.abs(P0 - P1).sum() for P0, P1 in P])
    leading = np.expm1(eps) ** 2 / (np.exp(eps) + 1) * tv**2  # Eq. (3.17)
    binary = kl6[:, i_small, 1]
    assert np.allclose(binary, kl6[:, i_small, 0], rtol=1e-9)  # binary optimal
    assert np.all(np.abs(binary / leading - 1) < 0.25)
    # Cor. 3.3.5 (delta = 0 already holds at eps = 0.1): symmetrised KL of the optimum.
    for (P0, P1), Q in zip(P, (binary_mechanism(P0, P1, eps) for P0, P1 in P)):
        sym = KL(P0, P1).value(Q) + KL(P1, P0).value(Q)
        assert 0.9 < sym / bounds.kl_high_privacy_bound(P0, P1, eps) <= 1.0
    eps = EPS[i_large]
    rr = kl6[:, i_large, 2]
    eq_3_18 = np.array([bounds.kl_low_privacy_bound(P0, P1, eps) for P0, P1 in P])
    D = np.array([np.sum(P0 * np.log(P0 / P1)) for P0, P1 in P])
    # RR = D - G e^-eps + O(e^-2eps): the error is well below the first-order term (its
    # constant grows like 1/min P1^2, hence one loose instance).
    rel = np.abs(rr - eq_3_18) / np.abs(D - eq_3_18)
    assert np.median(rel) < 0.02 and rel.max() < 0.5
    assert np.all(rr / kl6[:, i_large, 0] > 0.999)


def test_fig_3_6_mi_regimes(mi6):
    binary, rr, geo = _ratio(mi6, "binary"), _ratio(mi6, "rr"), _ratio(mi6, "geometric")
    assert np.all(mi6[:, :, 1:] <= mi6[:, :, :1] * (1 + 1e-9))
    assert binary[:, 0].min() > 0.995
    assert rr[:, -1].min() > 1 - 1e-9
    assert np.all(geo.mean(axis=0) < np.maximum(binary, rr).mean(axis=0))
    H = np.array([-np.sum(P0 * np.log(P0)) for P0, _ in _instances(6)])
    assert (mi6[:, -1, 0] / H).mean() > 0.99  # I(X;Y) / H(X) -> 1 for large eps
    # Thesis: RR down to ~35% of optimal at small eps, binary down to ~40% at large eps.
    assert 0.25 < rr[:, 0].min() < 0.45
    assert 0.3 < binary[:, -1].min() < 0.5


def test_fig_3_8_mi_scaling_laws(mi6):
    P = [P0 for P0, _ in _instances(6)]
    eps = EPS[0]
    binary = mi6[:, 0, 1]
    closed = np.array([bounds.mi_binary(p, eps) for p in P])
    assert np.allclose(binary, closed, rtol=1e-10)  # Eq. (3.23)
    leading = np.array([bounds.mi_high_privacy_bound(p, eps) for p in P])  # P(T)P(T^c)eps^2/2
    assert np.all(np.abs(binary / leading - 1) < 0.1)
    eps = EPS[-1]
    rr = mi6[:, -1, 2]
    H = np.array([-np.sum(p * np.log(p)) for p in P])
    eq_3_24 = np.array([bounds.mi_low_privacy_bound(p, eps) for p in P])
    correction = H - eq_3_24  # (k - 1) eps e^-eps
    assert np.all(rr <= H)
    assert np.all(np.abs(rr - eq_3_24) < 0.2 * correction)
