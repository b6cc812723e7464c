"""The Adult experiments of Figure 5 (§VIII-C) on the bundled UCI Adult records."""

import numpy as np
import pytest

import datasets
from privacy.funnel import (
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
