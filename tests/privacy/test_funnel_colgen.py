"""Column generation (method="colgen") against full enumeration, incl. an Adult case with a = 16."""

import numpy as np
import pytest

from anonspread import datasets
from anonspread.privacy.funnel import (
    adult_joint,
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    optimal_ldp,
    optimal_lip,
)


def dirichlet_joint(seed, c, a):
    return np.random.default_rng(seed).dirichlet(np.full(c * a, 0.5)).reshape(c, a)


@pytest.mark.parametrize(("seed", "c", "a"), [(0, 2, 5), (1, 3, 6), (2, 4, 6)])
@pytest.mark.parametrize("eps", [0.2, 0.7, 1.5])
def test_colgen_equals_enumeration(seed, c, a, eps):
    p = dirichlet_joint(seed, c, a)
    p_x = p.sum(axis=0)
    for solve, measure in ((optimal_ldp, ldp_epsilon), (optimal_lip, lip_epsilon)):
        exact = mutual_information(solve(p, eps, method="enumerate"), p_x)
        Q = solve(p, eps, method="colgen")
        assert mutual_information(Q, p_x) == pytest.approx(exact, abs=1e-9)
        assert measure(Q, p) <= eps + 1e-9


def test_colgen_on_adult_marital_status_education():
    """a = 16, c = 7: 'auto' switches to column generation; enumeration agrees."""
    p = adult_joint(datasets.load_adult("train"), "marital-status", "education").p_sx
    p_x = p.sum(axis=0)
    for solve, measure in ((optimal_ldp, ldp_epsilon), (optimal_lip, lip_epsilon)):
        auto = solve(p, 1.0)
        exact = solve(p, 1.0, method="enumerate")
        assert mutual_information(auto, p_x) == pytest.approx(
            mutual_information(exact, p_x), abs=1e-9
        )
        assert measure(auto, p) <= 1.0 + 1e-9
    assert mutual_information(optimal_ldp(p, 1.0), p_x) <= mutual_information(
        optimal_lip(p, 1.0), p_x
    )


def test_bad_method():
    from anonspread.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="method must be one of"):
        optimal_ldp(np.full((2, 2), 0.25), 1.0, method="simplex")
