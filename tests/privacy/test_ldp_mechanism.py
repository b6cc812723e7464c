"""privacy.Mechanism: exact privacy levels and vectorised sampling (thesis §3.1, Eq. 3.25)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy import Mechanism
from anonspread.privacy.mechanisms import quaternary_mechanism, randomized_response


def _random_mechanism(rng, k, m):
    Q = rng.random((k, m)) + 0.05
    return Mechanism(Q / Q.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_privatize_frequencies_match_rows_for_a_million_inputs(seed):
    rng = np.random.default_rng(seed)
    Q = _random_mechanism(rng, 4, 5)
    x = rng.integers(0, 4, size=1_000_000)
    y = Q.privatize(x, rng=seed + 100)
    assert y.shape == x.shape and y.dtype == np.int64
    for row in range(4):
        ys = y[x == row]
        counts = np.bincount(ys, minlength=5)
        p = stats.chisquare(counts, ys.size * Q.matrix[row]).pvalue
        assert p > 1e-4, (row, counts, p)


def test_privatize_is_deterministic_and_keeps_shape():
    Q = randomized_response(3, 1.0)
    x = np.array([[0, 1, 2], [2, 2, 0]])
    a = Q.privatize(x, rng=7)
    assert a.shape == (2, 3)
    assert np.array_equal(a, Q.privatize(x, rng=7))
    assert np.array_equal(a, Q.privatize(x, rng=np.random.default_rng(7)))


def test_privatize_rejects_bad_inputs():
    Q = randomized_response(3, 1.0)
    with pytest.raises(InvalidParameterError, match="x must hold inputs in"):
        Q.privatize([0, 3])
    with pytest.raises(InvalidTypeError, match="x must hold integer"):
        Q.privatize([0.5])


def test_ldp_epsilon_exact_values():
    assert Mechanism([[0.75, 0.25], [0.25, 0.75]]).ldp_epsilon() == pytest.approx(np.log(3), abs=1e-15)
    assert randomized_response(5, 2.5).ldp_epsilon() == pytest.approx(2.5, abs=1e-12)
    assert quaternary_mechanism(1.0, 0.1).ldp_epsilon() == np.inf
    assert Mechanism(np.full((3, 2), 0.5)).ldp_epsilon() == 0.0


def _delta_brute_force(Q, eps):
    k, m = Q.shape
    best = 0.0
    for r in range(m + 1):
        for S in itertools.combinations(range(m), r):
            mass = Q[:, list(S)].sum(axis=1)
            best = max(best, float(np.max(mass[:, None] - np.exp(eps) * mass[None, :])))
    return best


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    k=st.integers(2, 4),
    m=st.integers(1, 5),
    eps=st.floats(0.0, 3.0),
)
def test_approx_dp_delta_equals_worst_set_of_eq_3_25(seed, k, m, eps):
    Q = _random_mechanism(np.random.default_rng(seed), k, m)
    assert Q.approx_dp_delta(eps) == pytest.approx(_delta_brute_force(Q.matrix, eps), abs=1e-12)


def test_approx_dp_delta_is_zero_at_the_ldp_level():
    Q = randomized_response(4, 1.3)
    assert Q.approx_dp_delta(1.3) == pytest.approx(0.0, abs=1e-15)
    assert Q.approx_dp_delta(1.0) > 0.0


@pytest.mark.parametrize("eps", [-0.1, float("nan")])
def test_approx_dp_delta_rejects_bad_eps(eps):
    with pytest.raises(InvalidParameterError, match="eps must be"):
        randomized_response(3, 1.0).approx_dp_delta(eps)


@pytest.mark.parametrize(
    "matrix, match",
    [([[0.5, 0.6]], "rows must sum to 1"), ([[1.5, -0.5]], "non-negative"), ([1.0], "2-D")],
)
def test_mechanism_rejects_non_stochastic_matrices(matrix, match):
    with pytest.raises(InvalidParameterError, match=match):
        Mechanism(matrix)


@pytest.mark.parametrize(
    "matrix",
    [
        [["0.5", "0.5"], ["0.5", "0.5"]],  # strings were converted silently
        [[0.5 + 0j, 0.5], [0.5, 0.5]],  # complex numbers were accepted (imaginary part dropped)
        np.eye(2, dtype=bool),
        np.array([[0.5, "0.5"], [0.5, 0.5]], dtype=object),
        [[0.5, 0.5], [1.0]],  # ragged
    ],
)
def test_non_real_matrices_are_refused_not_coerced(matrix):
    """Issue 14, defect 9 (and 8): Mechanism of strings or complex numbers was accepted."""
    with pytest.raises(InvalidTypeError, match="matrix must be a 2-D array of"):
        Mechanism(matrix)


def test_integer_and_object_float_matrices_are_accepted():
    assert Mechanism([[1, 0], [0, 1]]).matrix.dtype == float
    obj = np.array([[0.25, 0.75], [1, 0]], dtype=object)
    assert Mechanism(obj).matrix.tolist() == [[0.25, 0.75], [1.0, 0.0]]
