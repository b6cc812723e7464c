"""Closed forms and bounds of thesis Chapter 2, checked by simulation at fixed seeds (4-sigma bands)."""

import math
from functools import cache

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.scores import top_set


@pytest.mark.parametrize("d, T", [(2, 10), (3, 8), (4, 6)])
def test_adaptive_diffusion_even_T_detection_is_one_over_n_minus_one(d, T):
    trials = 3000
    b = A.simulate_and_score(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), T, trials,
                             estimators=("ml",), rng=2024)  # fmt: skip
    n = b.n_infected[0]
    assert np.all(b.n_infected == n)
    p = 1.0 / (n - 1)
    ml = b["ml"]
    np.testing.assert_allclose(ml.detection_probability, p, rtol=1e-12)
    assert abs(ml.detected.mean() - p) <= 4 * math.sqrt(p * (1 - p) / trials)
    # Theorem 2.3.1(c): E[d(v_ML, v*)] >= (d - 1)/d * T/2
    mean, se = ml.mean("hops")
    assert mean + 4 * se >= (d - 1) / d * T / 2


@pytest.mark.parametrize("T", [9, 11])
def test_adaptive_diffusion_odd_T_on_the_line_is_two_over_T_plus_one(T):
    # Exact ML at odd T on the line: the snapshot tells a kept token (ball of radius
    # (T+1)/2) from a passed one (edge-ball); each case has two maximisers, which
    # gives P_D = 2/(T + 1) -- above the 1/T of Theorem 2.3.1(b) for d = 2 (see docs).
    trials = 4000
    b = A.simulate_and_score(spread.graphs.line(), spread.AdaptiveDiffusion(), T, trials,
                             estimators=("ml",), rng=5)  # fmt: skip
    p = 2 / (T + 1)
    assert abs(b["ml"].detected.mean() - p) <= 4 * math.sqrt(p * (1 - p) / trials)
    assert abs(b["ml"].detection_probability.mean() - p) <= 4 * b["ml"].mean("detection_probability")[1]


@cache
def _line_ml(T, a, b):
    """Exact Protocol 1 likelihood of the interval [-a, b] around the source (at 0)."""
    G = nx.path_graph(range(-T - 1, T + 2))
    return A.exact_likelihood(A.Snapshot(G, range(-a, b + 1), T), spread.LineProtocol())


def test_protocol_1_on_the_line_proposition_2_2_1():
    T, trials = 8, 600
    G = nx.path_graph(range(-T - 1, T + 2))
    gen = np.random.default_rng(3)
    pd, hops = [], []
    for _ in range(trials):
        inf = spread.simulate(G, spread.LineProtocol(), T, source=0, rng=gen).infected
        sc = _line_ml(T, -int(inf.min()), int(inf.max()))
        top = sc.nodes[top_set(sc.array)]
        pd.append((0 in set(top.tolist())) / top.size)
        hops.append(np.abs(top).mean())  # E[hops | snapshot] under uniform tie-breaking
    pd, hops = np.array(pd), np.array(hops)
    bound = (2 * T + 1) / (T + 1) ** 2  # Eq. (2.4)
    assert pd.mean() <= bound + 4 * pd.std() / math.sqrt(trials)
    assert hops.mean() + 4 * hops.std() / math.sqrt(trials) >= T**3 / (9 * (T + 1) ** 2)  # (2.5)


def test_figure_2_2_posterior_protocol_1_flat_random_diffusion_peaked():
    G = nx.cycle_graph(60)
    snap = A.Snapshot(G, range(10, 31), T=20)  # |V_T| = 21 on a ring
    n = snap.n
    p1 = A.posterior(A.exact_likelihood(snap, spread.LineProtocol())).array
    rd = A.posterior(A.exact_likelihood(snap, spread.RandomDiffusion(0.5))).array
    assert np.max(np.abs(p1 - 1 / n)) <= 1 / n**2  # Eq. (2.6)
    assert rd.max() >= 4 / n and rd.max() / rd.min() > 1e3
    assert np.argmax(rd) == n // 2  # random diffusion hides only near the centre


def test_figure_2_3_jordan_catches_protocol_1_on_regular_trees():
    dets, sizes = [], []
    for T in (4, 8, 12):
        b = A.simulate_and_score(spread.graphs.regular_tree(3), spread.LineProtocol(), T, 400,
                                 estimators=("jordan",), rng=T)  # fmt: skip
        mean, se = b["jordan"].mean("detection_probability")
        dets.append((mean, se))
        sizes.append(b.n_infected.mean())
    assert sizes[-1] > 50 * sizes[0]
    for mean, se in dets:
        assert mean - 4 * se > 0.3  # a positive probability ...
    assert dets[-1][0] + 4 * dets[-1][1] >= dets[0][0] - 4 * dets[0][1]  # ... that does not vanish


def test_figure_2_3_on_the_line_jordan_centre_is_an_ml_estimate():
    T = 6
    for a in range(T + 1):
        for b in range(T + 1):
            ml = _line_ml(T, a, b)
            snap = A.Snapshot(nx.path_graph(range(-T - 1, T + 2)), range(-a, b + 1), T)
            jc = A.jordan_center(snap)
            jordan = set(jc.nodes[top_set(jc.array)].tolist())
            best = set(ml.nodes[top_set(ml.array)].tolist())
            assert jordan <= best
