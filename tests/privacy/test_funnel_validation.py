"""Bad input to privacy.funnel: clear errors naming the argument."""

import numpy as np
import pytest

from anonspread.errors import InfeasibleError, InvalidParameterError, InvalidTypeError
from anonspread.privacy import funnel
from anonspread.privacy.funnel.polytope import cone_rays, polytope_vertices

P = np.array([[0.3, 0.2], [0.1, 0.4]])
MAKERS = [
    funnel.optimal_ldp,
    funnel.optimal_lip,
    funnel.grr,
    funnel.oue,
    funnel.conditional_reporting,
]


@pytest.mark.parametrize("make", MAKERS)
def test_negative_entries(make):
    with pytest.raises(
        InvalidParameterError, match="p_sx must be a distribution with non-negative"
    ):
        make(np.array([[0.6, -0.1], [0.1, 0.4]]), 1.0)


@pytest.mark.parametrize("make", MAKERS)
def test_not_summing_to_one(make):
    with pytest.raises(InvalidParameterError, match="p_sx must be a distribution summing to 1"):
        make(P * 2, 1.0)


@pytest.mark.parametrize("make", MAKERS)
def test_negative_eps(make):
    with pytest.raises(InvalidParameterError, match=r"eps must be a real number in \[0.0, inf\)"):
        make(P, -0.1)


@pytest.mark.parametrize("make", MAKERS)
def test_wrong_shape_and_type(make):
    with pytest.raises(
        InvalidParameterError, match=r"p_sx must be a joint distribution of shape \(c, a\)"
    ):
        make(np.array([0.5, 0.5]), 1.0)
    with pytest.raises(InvalidTypeError, match="eps"):
        make(P, "1")


@pytest.mark.parametrize(
    "measure", [funnel.lip_epsilon, funnel.ldp_epsilon, funnel.mutual_information]
)
def test_mechanism_shape_must_match(measure):
    with pytest.raises(InvalidParameterError, match="Q must have 2 or 4 rows"):
        measure(np.eye(3), P)


def test_mechanism_rows_must_be_distributions():
    with pytest.raises(InvalidParameterError, match="Q: matrix rows must sum to 1"):
        funnel.lip_epsilon(np.array([[0.5, 0.6], [0.5, 0.5]]), P)


def test_srlip_shape():
    with pytest.raises(InvalidParameterError, match=r"Q must have 4 rows"):
        funnel.srlip_epsilon(np.eye(3), np.full((2, 2, 2), 1 / 8))


def test_conditional_reporting_needs_every_secret():
    with pytest.raises(InvalidParameterError, match="p_sx must give every secret value a positive"):
        funnel.conditional_reporting(np.array([[0.5, 0.5], [0.0, 0.0]]), 1.0)


def test_adult_joint_bad_column_and_option():
    with pytest.raises(InvalidParameterError, match="missing must be"):
        funnel.adult_joint({"a": [1]}, "a", "a", missing="maybe")
    with pytest.raises(InvalidParameterError, match="'b' must be a column"):
        funnel.adult_joint({"a": [1]}, "a", "b")


def test_infeasible_and_unbounded_are_reported():
    # x >= 0, x <= -1: empty polytope
    with pytest.raises(InfeasibleError, match="empty"):
        polytope_vertices(np.array([[1.0]]), np.array([-1.0]), np.zeros((0, 1)), np.zeros(0))
    # no upper bound: unbounded
    with pytest.raises(InfeasibleError, match="unbounded"):
        polytope_vertices(np.array([[-1.0, 0.0]]), np.array([0.0]), np.zeros((0, 2)), np.zeros(0))
    # q >= 0 and -q >= 0: only the origin, no ray
    with pytest.raises(InfeasibleError, match="no rays"):
        cone_rays(np.array([[-1.0, -1.0]]))


def test_lp_failure_is_reported(monkeypatch):
    """A solver failure surfaces as InfeasibleError, never as a silently wrong mechanism."""
    import anonspread.privacy.funnel.optimal as opt

    monkeypatch.setattr(
        opt, "_highs_eq_lp", lambda c, A, b: (False, np.zeros(A.shape[1]), "Infeasible")
    )
    with pytest.raises(InfeasibleError, match="optimal_lip"):
        funnel.optimal_lip(P, 0.1)
    with pytest.raises(InfeasibleError, match="optimal_ldp"):
        funnel.optimal_ldp(P, 0.1)
