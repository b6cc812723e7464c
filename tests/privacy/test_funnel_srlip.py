"""Side-channel-resistant LIP and the Theorem 4 product protocol (§VI)."""

import numpy as np
import pytest

from anonspread.errors import InvalidParameterError
from anonspread.privacy.funnel import (
    lip_epsilon,
    mutual_information,
    optimal_lip,
    product_mechanism,
    srlip_components,
    srlip_epsilon,
    srlip_product,
)


def random_joint(seed, shape):
    p = np.random.default_rng(seed).random(shape)
    return p / p.sum()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_product_protocol_is_srlip(seed, eps):
    """Theorem 4: components that are eps/m-LIP for every conditional prior give eps-SRLIP."""
    p = random_joint(seed, (2, 3, 3))
    Q = srlip_product(p, eps)
    assert Q.shape[0] == 9
    assert srlip_epsilon(Q, p) <= eps + 1e-9
    # Lemma 2 and Lemma 1-style ordering of the utilities.
    flat = p.reshape(2, -1)
    assert lip_epsilon(Q, flat) <= eps + 1e-9
    p_x = flat.sum(axis=0)
    assert mutual_information(Q, p_x) <= mutual_information(optimal_lip(flat, eps), p_x) + 1e-9


def test_components_are_optimal_for_their_constraints():
    """Each Q^j beats any mixture of itself with the constant mechanism (sanity of the LP)."""
    p = random_joint(3, (2, 2, 3))
    comps = srlip_components(p, 1.0)
    for j, Q in enumerate(comps):
        p_xj = p.sum(axis=tuple(k for k in range(p.ndim) if k != j + 1))
        value = mutual_information(Q, p_xj)
        for t in (0.25, 0.5, 0.75):
            mixed = t * Q.matrix + (1 - t) * Q.matrix.mean(axis=0, keepdims=True)
            assert mutual_information(mixed, p_xj) <= value + 1e-12


def test_split_budget():
    p = random_joint(4, (2, 2, 2))
    Q = srlip_product(p, 1.0, split=[0.8, 0.2])
    assert srlip_epsilon(Q, p) <= 1.0 + 1e-9
    with pytest.raises(InvalidParameterError, match="split"):
        srlip_product(p, 1.0, split=[0.5, 0.6])


def test_product_mechanism_layout():
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    B = np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
    Q = product_mechanism([A, B]).matrix
    for x1, x2, y1, y2 in np.ndindex(2, 2, 2, 3):
        assert Q[x1 * 2 + x2, y1 * 3 + y2] == pytest.approx(A[x1, y1] * B[x2, y2])
