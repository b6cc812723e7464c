"""Optimal staircase mechanisms: the LP of Theorem 3.2.4 and its column-generation solver."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanisms import (
    binary_mechanism,
    binary_mechanism_mi,
    geometric_mechanism,
    randomized_response,
)
from anonspread.privacy.staircase import optimal_staircase, pattern_matrix, solve_staircase_lp
from anonspread.privacy.utility import (
    KL,
    FDivergence,
    MutualInformation,
    SublinearUtility,
    TotalVariation,
    chi_square,
    squared_hellinger,
)

EPS_GRID = [0.05, 0.3, 1.0, 2.5, 6.0]


def _instance(seed, k):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))


def _named_utilities(P0, P1):
    return {
        "kl": KL(P0, P1),
        "tv": TotalVariation(P0, P1),
        "chi2": chi_square(P0, P1),
        "mi": MutualInformation(P0),
    }


def _all_patterns(k, eps):
    """S^(k) built independently of the library, row 0 = most significant bit."""
    cols = [np.where(np.array(b) == 1, np.exp(eps), 1.0) for b in itertools.product((0, 1), repeat=k)]
    return np.array(cols).T


def _brute_force_lp(U, eps):
    """Eq. (3.11) over all 2^k explicitly enumerated patterns, through scipy's linprog."""
    S = _all_patterns(U.n_inputs, eps)
    mu = U.mu(S)
    # Scale the objective to O(1): HiGHS's reduced-cost tolerance is absolute.
    scale = np.max(np.abs(mu)) or 1.0
    res = linprog(
        -mu / scale,
        A_eq=S,
        b_eq=np.ones(U.n_inputs),
        bounds=(0, None),
        method="highs",
        options={"dual_feasibility_tolerance": 1e-10, "primal_feasibility_tolerance": 1e-10},
    )
    assert res.status == 0
    return -res.fun * scale


def _vertex_enumeration(U, eps):
    """Best basic feasible solution of Eq. (3.11): every k-subset of patterns (no LP solver)."""
    k = U.n_inputs
    S = _all_patterns(k, eps)
    mu = U.mu(S)
    best = -np.inf
    for cols in itertools.combinations(range(S.shape[1]), k):
        B = S[:, cols]
        if abs(np.linalg.det(B)) < 1e-12:
            continue
        theta = np.linalg.solve(B, np.ones(k))
        if np.all(theta >= -1e-12):
            best = max(best, float(mu[list(cols)] @ theta))
    return best


def test_pattern_matrix_matches_definition_3_2_3():
    e = np.exp(0.8)
    expected = np.array(
        [
            [1, 1, 1, 1, e, e, e, e],
            [1, 1, e, e, 1, 1, e, e],
            [1, e, 1, e, 1, e, 1, e],
        ]
    )
    assert np.allclose(pattern_matrix(3, 0.8), expected, rtol=1e-15)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_lp_optimum_equals_vertex_enumeration(k):
    P0, P1 = _instance(100 + k, k)
    for name, U in _named_utilities(P0, P1).items():
        for eps in (0.3, 2.5):
            assert solve_staircase_lp(U, eps).value == pytest.approx(
                _vertex_enumeration(U, eps), rel=1e-9
            ), (name, eps)


@pytest.mark.parametrize("k", [2, 3, 5, 7, 10])
def test_column_generation_equals_brute_force_enumeration(k):
    for seed in range(3):
        P0, P1 = _instance(1000 * k + seed, k)
        for name, U in _named_utilities(P0, P1).items():
            for eps in EPS_GRID:
                ref = _brute_force_lp(U, eps)
                cg = solve_staircase_lp(U, eps)
                full = solve_staircase_lp(U, eps, method="full")
                assert cg.value == pytest.approx(ref, rel=1e-8, abs=1e-14), (name, eps, seed)
                assert full.value == pytest.approx(ref, rel=1e-8, abs=1e-14), (name, eps, seed)
                assert cg.upper_bound >= cg.value
                assert cg.upper_bound == pytest.approx(cg.value, rel=1e-8, abs=1e-14)


@pytest.mark.parametrize("k", [12, 14])
def test_column_generation_equals_full_lp_beyond_the_thesis(k):
    P0, P1 = _instance(77 + k, k)
    for U in (KL(P0, P1), MutualInformation(P1)):
        for eps in (0.5, 2.0):
            cg = solve_staircase_lp(U, eps)
            assert cg.n_columns < 2**k
            assert cg.value == pytest.approx(
                solve_staircase_lp(U, eps, method="full").value, rel=1e-9
            )


def test_result_is_a_merged_staircase_with_at_most_k_outputs():
    for seed in range(5):
        P0, P1 = _instance(seed, 8)
        for U in _named_utilities(P0, P1).values():
            for eps in EPS_GRID:
                res = solve_staircase_lp(U, eps)
                Q = res.mechanism.matrix
                assert Q.shape == (8, res.patterns.size)
                assert 1 <= Q.shape[1] <= 8
                assert len(set(res.patterns.tolist())) == res.patterns.size
                assert (2**8 - 1) not in res.patterns.tolist() or 0 not in res.patterns.tolist()
                assert np.all(res.theta > 0)
                # Theorem 3.2.2(b): every column has log-ratios in {0, eps}.
                ratios = Q / Q.min(axis=0)
                assert np.all(np.isclose(ratios, 1.0) | np.isclose(ratios, np.exp(eps)))
                assert res.mechanism.ldp_epsilon() <= eps + 1e-9
                assert U.value(res.mechanism) == pytest.approx(res.value, rel=1e-12)


def test_optimum_dominates_binary_rr_and_geometric():
    for seed in range(10):
        P0, P1 = _instance(50 + seed, 6)
        for eps in [*EPS_GRID, 10.0]:
            rr, geo = randomized_response(6, eps), geometric_mechanism(6, eps)
            for U, binary in (
                (KL(P0, P1), binary_mechanism(P0, P1, eps)),
                (chi_square(P0, P1), binary_mechanism(P0, P1, eps)),
                (MutualInformation(P0), binary_mechanism_mi(P0, eps)),
            ):
                opt = U.value(optimal_staircase(U, eps))
                for other in (binary, rr, geo):
                    assert opt >= U.value(other) * (1 - 1e-10)


def test_theorems_3_3_1_and_3_4_1_binary_optimal_for_small_eps():
    for seed in range(20):
        P0, P1 = _instance(300 + seed, 6)
        for eps in (0.01, 0.05):
            for U in (KL(P0, P1), chi_square(P0, P1), squared_hellinger(P0, P1)):
                assert solve_staircase_lp(U, eps).value == pytest.approx(
                    U.value(binary_mechanism(P0, P1, eps)), rel=1e-9
                )
            U = MutualInformation(P0)
            assert solve_staircase_lp(U, eps).value == pytest.approx(
                U.value(binary_mechanism_mi(P0, eps)), rel=1e-9
            )


def test_theorems_3_3_4_and_3_4_3_randomized_response_optimal_for_large_eps():
    for seed in range(20):
        P0, P1 = _instance(400 + seed, 6)
        rr20, rr10 = randomized_response(6, 20.0), randomized_response(6, 10.0)
        kl = KL(P0, P1)
        assert solve_staircase_lp(kl, 20.0).value == pytest.approx(kl.value(rr20), rel=1e-9)
        mi = MutualInformation(P0)
        assert solve_staircase_lp(mi, 10.0).value == pytest.approx(mi.value(rr10), rel=1e-9)
        assert optimal_staircase(mi, 10.0).shape == (6, 6)


def test_theorem_3_3_2_binary_optimal_for_tv_at_every_eps():
    for seed in range(10):
        P0, P1 = _instance(500 + seed, 7)
        U = TotalVariation(P0, P1)
        for eps in [0.01, 0.3, 1.0, 3.0, 8.0, 20.0]:
            closed = (np.exp(eps) - 1) / (np.exp(eps) + 1) * 0.5 * np.abs(P0 - P1).sum()
            assert solve_staircase_lp(U, eps).value == pytest.approx(closed, rel=1e-9)


class _PlainMI(SublinearUtility):
    """Mutual information re-implemented as a user utility (no compiled pricing kernel)."""

    def __init__(self, P):
        self.P = np.asarray(P, dtype=float)
        self.n_inputs = self.P.size

    def _mu(self, Z):
        m = self.P @ Z
        return np.sum(self.P[:, None] * Z * np.log(Z / m), axis=0)


def test_generic_utilities_are_priced_without_a_kernel():
    P0, P1 = _instance(9, 11)
    for eps in (0.4, 3.0):
        assert solve_staircase_lp(_PlainMI(P0), eps).value == pytest.approx(
            solve_staircase_lp(MutualInformation(P0), eps).value, rel=1e-9
        )
        custom_kl = FDivergence(lambda t: t * np.log(t), P0, P1)
        assert solve_staircase_lp(custom_kl, eps).value == pytest.approx(
            solve_staircase_lp(KL(P0, P1), eps).value, rel=1e-9
        )


def test_trivial_cases():
    U = KL([0.2, 0.8], [0.6, 0.4])
    Q = optimal_staircase(U, 0.0)
    assert Q.shape == (2, 1) and U.value(Q) == 0.0
    assert optimal_staircase(MutualInformation([1.0]), 2.0).shape == (1, 1)


@pytest.mark.parametrize("eps", [-0.5, float("nan"), float("inf"), 31.0])
def test_bad_eps_is_rejected(eps):
    with pytest.raises(InvalidParameterError, match="eps must be"):
        optimal_staircase(KL([0.5, 0.5], [0.2, 0.8]), eps)


def test_bad_utility_and_method_are_rejected():
    with pytest.raises(InvalidTypeError, match="utility must be"):
        optimal_staircase(lambda Q: 0.0, 1.0)
    with pytest.raises(InvalidParameterError, match="method must be one of"):
        solve_staircase_lp(KL([0.5, 0.5], [0.2, 0.8]), 1.0, method="simplex")
    with pytest.raises(InvalidParameterError, match="n_inputs must be at most 22"):
        solve_staircase_lp(MutualInformation(np.full(23, 1 / 23)), 1.0, method="full")


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    k=st.integers(2, 9),
    # Below eps ~ 1e-2 the patterns 1 and e^eps differ by less than the LP's precision can
    # resolve (known limitation, see optimal_staircase's Notes); eps = 0 is exact.
    eps=st.one_of(st.just(0.0), st.floats(0.01, 15.0)),
    which=st.sampled_from(["kl", "tv", "chi2", "mi"]),
)
def test_optimal_staircase_is_eps_ldp_and_beats_the_closed_forms(seed, k, eps, which):
    P0, P1 = _instance(seed, k)
    U = _named_utilities(P0, P1)[which]
    Q = optimal_staircase(U, eps)
    assert Q.n_inputs == k and Q.n_outputs <= k
    assert Q.ldp_epsilon() <= eps + 1e-9
    binary = binary_mechanism_mi(P0, eps) if which == "mi" else binary_mechanism(P0, P1, eps)
    best_closed = max(U.value(binary), U.value(randomized_response(k, eps)))
    assert U.value(Q) >= best_closed * (1 - 1e-9) - 1e-15


@pytest.mark.parametrize("k", [6, 10, 16])
def test_certified_upper_bound_holds_and_is_tight_at_every_eps(k):
    """Issue 14, defect 2: at eps >= 15 the bound was 4.25 for a value of 0.94 (k = 6, KL,
    eps = 30) and the loop stopped after one round; at eps = 1e-4 it fell below the binary
    mechanism's value. The bound must hold at every eps and be tight where precision allows."""
    P0, P1 = _instance(4200 + k, k)
    for name, U in _named_utilities(P0, P1).items():
        for eps in (1e-4, 1e-3, 0.1, 1.0, 15.0, 20.0, 25.0, 30.0):
            res = solve_staircase_lp(U, eps)
            binary = binary_mechanism_mi(P0, eps) if name == "mi" else binary_mechanism(P0, P1, eps)
            feasible = max(U.value(binary), U.value(randomized_response(k, eps)), res.value)
            assert res.upper_bound >= feasible, (name, eps)
            if eps >= 0.1:
                assert res.upper_bound <= res.value * (1 + 1e-6), (name, eps)
                assert res.value >= feasible * (1 - 1e-9), (name, eps)
            assert res.mechanism.ldp_epsilon() <= eps + 1e-9


def test_large_eps_needs_more_than_one_round_when_the_start_is_not_optimal():
    """k = 6, KL, eps = 30 (the defect's case): the value is checked against the full LP."""
    P0, P1 = _instance(4206, 6)
    U = KL(P0, P1)
    cg = solve_staircase_lp(U, 30.0)
    full = solve_staircase_lp(U, 30.0, method="full")
    assert cg.value == pytest.approx(full.value, rel=1e-9)
    assert cg.value <= cg.upper_bound <= cg.value * (1 + 1e-9)
