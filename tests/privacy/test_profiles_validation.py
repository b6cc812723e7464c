"""Profile-based privacy: bad input gets clear errors; infeasible LPs are reported."""

import numpy as np
import pytest
from scipy.optimize import OptimizeResult

from anonspread.errors import InfeasibleError, InvalidParameterError, InvalidTypeError
from anonspread.privacy import profiles as pr
from anonspread.privacy.profiles import lp as profiles_lp

P3 = [[0.2, 0.8], [0.5, 0.5], [0.9, 0.1]]


@pytest.mark.parametrize("eps", [-0.1, float("nan"), -float("inf")])  # +inf: no noise (issue 24)
def test_bad_eps(eps):
    with pytest.raises(InvalidParameterError, match="eps must be"):
        pr.one_bit_two_profile(0.1, 0.9, eps)
    with pytest.raises(InvalidParameterError, match="eps must be"):
        pr.smooth_categorical(P3, [(0, 1)], eps)
    with pytest.raises(InvalidParameterError, match="eps must be"):
        pr.smooth_one_bit([0.1, 0.2], [(0, 1)], eps)


def test_eps_type():
    with pytest.raises(InvalidTypeError, match="eps must be"):
        pr.one_bit_cluster([0.1, 0.2], [(0, 1)], "1")


@pytest.mark.parametrize(
    "edges, match",
    [
        ([(0, 3)], "edges must name known profiles"),
        ([(0, -1)], "edges must name known profiles"),
        ([("a", 1)], "edges must name known profiles"),
        ([(1, 1)], "two distinct profiles"),
        ([(0, 1, 2)], "pairs"),
        (["01"], "pairs"),
    ],
)
def test_bad_edges(edges, match):
    with pytest.raises(InvalidParameterError, match=match):
        pr.smooth_categorical(P3, edges, 1.0)
    with pytest.raises(InvalidParameterError, match=match):
        pr.profile_epsilon(P3, edges, [np.eye(2)] * 3)


def test_named_edges():
    with pytest.raises(InvalidParameterError, match=r"names \['x', 'y'\]"):
        pr.ProfileGraph([[0.5, 0.5], [0.1, 0.9]], [("x", "z")], names=["x", "y"])
    g = pr.ProfileGraph([[0.5, 0.5], [0.1, 0.9]], [("y", "x"), (0, 1)], names=["x", "y"])
    assert g.edges == ((0, 1),)
    with pytest.raises(InvalidParameterError, match="distinct profile names"):
        pr.ProfileGraph([[0.5, 0.5], [0.1, 0.9]], [], names=["x", "x"])
    with pytest.raises(InvalidTypeError, match="edges must be an iterable"):
        pr.ProfileGraph([[0.5, 0.5], [0.1, 0.9]], 3)


def test_networkx_graph_as_edges():
    nx = pytest.importorskip("networkx")
    g = pr.ProfileGraph(P3, nx.path_graph(3))
    assert g.edges == ((0, 1), (1, 2))
    assert g.components() == [[0, 1, 2]]


@pytest.mark.parametrize(
    "P, match",
    [
        ([[0.5, 0.6], [0.5, 0.5]], r"P\[0\] must be a distribution summing to 1"),
        ([[1.2, -0.2], [0.5, 0.5]], r"P\[0\] must be a distribution with non-negative"),
        ([[0.5, np.nan], [0.5, 0.5]], r"P\[0\] must be a distribution with finite"),
        ([0.5, 0.5], "2-D array of profile distributions"),
        ([[1.0], [1.0]], "2 categories"),
    ],
)
def test_bad_profiles(P, match):
    with pytest.raises(InvalidParameterError, match=match):
        pr.smooth_categorical(P, [(0, 1)], 1.0)


def test_bad_bernoulli_parameters():
    with pytest.raises(InvalidParameterError, match=r"ps\[1\] must be a real number in \[0.0, 1.0\]"):
        pr.smooth_one_bit([0.2, 1.5], [(0, 1)], 1.0)
    with pytest.raises(InvalidParameterError, match="p_j must be"):
        pr.one_bit_two_profile(0.2, -0.1, 1.0)
    with pytest.raises(InvalidParameterError, match="ps must be a non-empty 1-D"):
        pr.one_bit_cluster([[0.2, 0.3]], [], 1.0)


def test_bad_matrices():
    with pytest.raises(InvalidParameterError, match="one matrix per profile"):
        pr.profile_epsilon(P3, [(0, 1)], [np.eye(2)] * 2)
    with pytest.raises(InvalidParameterError, match="rows must sum to 1"):
        pr.profile_epsilon(P3, [(0, 1)], [np.eye(2), np.eye(2), [[0.5, 0.4], [0, 1]]])
    with pytest.raises(InvalidParameterError, match=r"shape \(2, m\)"):
        pr.profile_epsilon(P3, [(0, 1)], [np.eye(3)] * 3)
    with pytest.raises(InvalidParameterError, match="square"):
        pr.category_costs(P3, [np.full((2, 3), 1 / 3)] * 3)
    with pytest.raises(InvalidParameterError, match="profiles must hold values"):
        pr.ProfileMechanism([np.eye(2)]).privatize([1], [0])
    with pytest.raises(InvalidTypeError, match="x must hold integers"):
        pr.ProfileMechanism([np.eye(2)]).privatize([0], [0.5])


def test_bad_family_arguments():
    with pytest.raises(InvalidParameterError, match="n must be an integer >= 2"):
        pr.bernoulli_chain(1)
    with pytest.raises(InvalidParameterError, match="p_b must be"):
        pr.bernoulli_couplet(0.1, 2.0)
    with pytest.raises(InvalidParameterError, match="profile must be an integer in"):
        pr.one_bit_cluster([0.1, 0.2], [(0, 1)], 1.0, profile=5)


def test_infeasible_caps_raise():
    # randomized response needs alpha = 1/(1+e^0.1) ~ 0.475 > 0.3
    with pytest.raises(InfeasibleError, match="infeasible"):
        pr.one_bit_two_profile(0.0, 1.0, 0.1, max_flip=0.3)
    with pytest.raises(InfeasibleError, match="infeasible"):
        pr.smooth_one_bit([0.0, 1.0], [(0, 1)], 0.1, max_flip=0.3)
    with pytest.raises(InfeasibleError, match="infeasible"):
        pr.one_bit_cluster([0.0, 0.5, 1.0], [(0, 1), (1, 2)], 0.1, max_flip=0.3)
    with pytest.raises(InfeasibleError, match="infeasible"):
        pr.smooth_categorical(P3, [(0, 2)], 0.5, max_off_diagonal=0.05)
    # a cap that the optimum respects is fine
    assert pr.one_bit_two_profile(0.0, 1.0, 0.1, max_flip=0.49) <= 0.49


def test_solver_failure_is_reported(monkeypatch):
    def failing(*args, **kwargs):
        return OptimizeResult(status=4, x=None, message="numerical difficulties")

    monkeypatch.setattr(profiles_lp, "linprog", failing)
    with pytest.raises(InfeasibleError, match="numerical difficulties"):
        pr.smooth_categorical(P3, [(0, 1)], 1.0)
    with pytest.raises(InfeasibleError, match="HiGHS found no optimal solution"):
        pr.one_bit_two_profile(0.1, 0.9, 1.0)
