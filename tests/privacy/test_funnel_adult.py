"""The Adult experiments of Figure 5 (§VIII-C) on the bundled UCI Adult records."""

import numpy as np
import pytest

from anonspread import datasets
from anonspread.privacy.funnel import (
    ADULT_DATA,
    ADULT_SECRETS,
    adult_joint,
    conditional_reporting,
    grr,
    lip_epsilon,
    mutual_information,
    optimal_ldp,
    optimal_lip,
    oue,
)


@pytest.fixture(scope="module")
def records():
    return datasets.load_adult("train")


def test_adult_joint_shapes_and_counts(records):
    sizes = {"marital-status": 7, "occupation": 15, "education": 16, "relationship": 6, "sex": 2}
    for s in ADULT_SECRETS:
        for x in ADULT_DATA:
            j = adult_joint(records, s, x)
            assert j.p_sx.shape == (sizes[s], sizes[x])
            assert j.n_records == 32561
            assert j.p_sx.sum() == pytest.approx(1.0)
    dropped = adult_joint(records, "occupation", "sex", missing="drop")
    assert "?" not in dropped.secrets and dropped.p_sx.shape == (14, 2)
    assert dropped.n_records == 32561 - 1843  # rows with occupation "?"


def test_adult_joint_from_a_mapping():
    j = adult_joint({"sex": ["Male", "Female", "Male"], "income": ["a", "b", "b"]}, "income", "sex")
    assert j.p_sx.tolist() == [[0.0, 1 / 3], [1 / 3, 1 / 3]]


@pytest.mark.parametrize("eps", [0.5, 1.5])
def test_figure_5_marital_status_relationship(records, eps):
    """S = marital-status, X = relationship: Opt-LIP above GRR, CR and OUE at the same LIP."""
    p = adult_joint(records, "marital-status", "relationship").p_sx
    p_x = p.sum(axis=0)
    opt = optimal_lip(p, eps)
    assert lip_epsilon(opt, p) <= eps + 1e-9
    best = mutual_information(opt, p_x)
    for Q in (grr(p, eps), oue(p, eps), conditional_reporting(p, eps)):
        assert lip_epsilon(Q, p) == pytest.approx(eps, abs=1e-6)
        assert mutual_information(Q, p) <= best + 1e-9
    assert mutual_information(optimal_ldp(p, eps), p_x) <= best + 1e-9
    entropy = -np.sum(p_x * np.log(p_x))
    assert 0 < best < entropy


def test_binary_data_closed_form_and_cr_is_not_dominated(records):
    """S = marital-status, X = sex (a = 2): Delta is an interval [t_lo, t_hi] of P(X = 0 | y).

    Opt-LIP splits p_X between the two endpoints, a closed form that checks Theorem 3
    independently. Conditional Reporting reads S as well as X, so Theorem 3 does not
    bound it: here, at eps = 0.25, it beats Opt-LIP.
    """
    p = adult_joint(records, "marital-status", "sex").p_sx
    eps = 0.25
    p_x = p.sum(axis=0)
    w = (p / p_x) / p.sum(axis=1, keepdims=True)  # P(s | x) / P(s)
    # e^-eps <= w1 + (w0 - w1) t <= e^eps for every s
    lo, hi = 0.0, 1.0
    for w0, w1 in w:
        ends = sorted(((np.exp(-eps) - w1) / (w0 - w1), (np.exp(eps) - w1) / (w0 - w1)))
        lo, hi = max(lo, ends[0]), min(hi, ends[1])

    def h(t):
        return -(t * np.log(t) + (1 - t) * np.log(1 - t))

    weight = (hi - p_x[0]) / (hi - lo)
    closed_form = h(p_x[0]) - (weight * h(lo) + (1 - weight) * h(hi))
    opt = mutual_information(optimal_lip(p, eps), p_x)
    assert opt == pytest.approx(closed_form, abs=1e-12)
    cr = conditional_reporting(p, eps)
    assert lip_epsilon(cr, p) == pytest.approx(eps, abs=1e-9)
    assert mutual_information(cr, p) > opt + 0.01
