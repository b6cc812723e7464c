"""Prop. 2.2.2 (Protocol 2) and the exact odd-T detection of adaptive diffusion (Thm 2.3.1b).

The exact values come from an enumeration written here independently of the package:
nodes of the infinite d-regular tree are reduced words over d colours (no colour twice
in a row; neighbours differ by appending or removing one colour), every trajectory of
the protocol from a source is enumerated with its exact probability (fractions), and
the likelihood ``P(G | v)`` of a snapshot ``G`` is the total probability of the
trajectories from ``v`` that end in ``G``. The ML estimate is the arg-max, ties broken
uniformly. Monte Carlo checks at larger T use the compiled path at fixed seeds with
4-sigma bands.
"""

import math
from collections import defaultdict
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.theory import (
    adaptive_diffusion_detection,
    adaptive_diffusion_min_size,
    tree_protocol_detection,
    tree_protocol_size,
)
from anonspread.spread.protocols import alpha

# ----------------------------------------------------------------- the enumeration


def _nbrs(w, d):
    return [w[:-1] if w and w[-1] == c else (*w, c) for c in range(d)]


def _ball(c, r, d):
    seen, front = {c}, [c]
    for _ in range(r):
        front = [y for x in front for y in _nbrs(x, d) if y not in seen and not seen.add(y)]
    return frozenset(seen)


def _dist(a, b):
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return len(a) + len(b) - 2 * k


def _virtual_source_protocol(s, T, d, keep, within=None):
    """Outcomes ``{G_T: P}`` of a protocol whose infected set is a ball around a virtual source.

    The thesis's prose for Protocol 2 (Fig. 2.4) and for adaptive diffusion (Fig. 2.5):
    ``G_1 = {s, v_1}`` (v_1 uniform), ``G_2k`` is the ball of radius k around the virtual
    source v; at step 2k + 1 v keeps the token with probability ``keep(2k, h)`` (the ball
    then grows to radius k + 1 by step 2k + 1, nothing happens at 2k + 2) or passes it to
    a uniform neighbour u other than the previous virtual source (``G_2k+1 = ball(v, k) |
    ball(u, k)``, ``G_2k+2 = ball(u, k + 1)``). Branches leaving ``within`` are pruned.
    """
    out = defaultdict(Fraction)
    ok = (lambda G: True) if within is None else (lambda G: G <= within)
    if T == 0:
        out[frozenset([s])] += 1
        return out

    def rec(v, prev, h, k, p):  # G_2k = ball(v, k)
        a = keep(2 * k, h)
        if a > 0:
            G = _ball(v, k + 1, d)
            if ok(G):
                if 2 * k + 2 >= T:
                    out[G] += p * a
                else:
                    rec(v, prev, h, k + 1, p * a)
        if a < 1:
            us = [u for u in _nbrs(v, d) if u != prev]
            for u in us:
                q = p * (1 - a) / len(us)
                if 2 * k + 1 == T:
                    G = _ball(v, k, d) | _ball(u, k, d)
                    if ok(G):
                        out[G] += q
                else:
                    G = _ball(u, k + 1, d)
                    if ok(G):
                        if 2 * k + 2 == T:
                            out[G] += q
                        else:
                            rec(u, v, h + 1, k + 1, q)

    for v in _nbrs(s, d):
        if T == 1:
            out[frozenset([s, v])] += Fraction(1, d)
        elif ok(_ball(v, 1, d)):
            if T == 2:
                out[_ball(v, 1, d)] += Fraction(1, d)
            else:
                rec(v, s, 1, 1, Fraction(1, d))
    return out


def _pseudocode(s, T, d, within=None):
    """Outcomes of the printed pseudo-code of Protocol 2, line by line."""
    out = defaultdict(Fraction)
    if T == 0:
        out[frozenset([s])] += 1
        return out

    def rec(t, order, st, p):
        if within is not None and not set(order) <= within:
            return
        if t > T:
            out[frozenset(order)] += p
            return
        branches = [(list(order), dict(st), p)]
        for v in list(order):  # every v in G_{t-1} with s2_v > 0
            if st.get(v, (0, 0))[1] <= 0:
                continue
            nxt = []
            for od, x, q in branches:
                s1, s2 = x[v]
                free = [w for w in _nbrs(v, d) if w not in set(od)]
                y = dict(x)
                if s1 == 1:
                    y[v] = (0, s2)
                    for w in free:
                        z = dict(y)
                        z[w] = (1, s2 + 1)
                        nxt.append(([*od, w], z, q / len(free)))
                else:
                    for w in free:
                        y[w] = (0, s2 - 1)
                    y[v] = (s1, 0)
                    nxt.append((od + free, y, q))
            branches = nxt
        for od, x, q in branches:
            rec(t + 1, od, x, q)

    for u in _nbrs(s, d):
        rec(2, [s, u], {s: (0, 0), u: (1, 1)}, Fraction(1, d))
    return out


def _ml_exact(outcomes, T, d):
    """Exact (P(ML detects), E[hops to the ML estimate]) for the source () of ``outcomes``."""
    s = ()
    detect, hops = Fraction(0), Fraction(0)
    for G, p in outcomes(s, T, d).items():
        lik = {v: outcomes(v, T, d, within=G).get(G, Fraction(0)) for v in G}
        top = max(lik.values())
        arg = [v for v in G if lik[v] == top]
        detect += p * Fraction(int(s in arg), len(arg))
        hops += p * Fraction(sum(_dist(s, v) for v in arg), len(arg))
    return detect, hops


def _protocol2(s, T, d, within=None):
    return _virtual_source_protocol(s, T, d, lambda t, h: 0, within)


def _adaptive(s, T, d, within=None):
    return _virtual_source_protocol(s, T, d, lambda t, h: alpha(d, t, h, exact=True), within)


# ----------------------------------------------------------------- Proposition 2.2.2

# (d, T) pairs the enumeration covers in about a second each
SMALL = [(3, T) for T in range(1, 9)] + [(4, T) for T in range(1, 6)] + [(5, T) for T in range(1, 5)]


@pytest.mark.parametrize("d, T", SMALL)
def test_protocol2_prop_2_2_2_exact_by_enumeration(d, T):
    outcomes = _protocol2((), T, d)
    sizes = {len(G) for G in outcomes}
    assert sizes == {tree_protocol_size(d, T)}
    # (a) N_T >= (d-1)^((T+1)/2) / (d-2)
    assert tree_protocol_size(d, T) >= (d - 1) ** ((T + 1) / 2) / (d - 2)
    detect, hops = _ml_exact(_protocol2, T, d)
    # (b) P(ML detects) = (d-1) / (2 + (d-2) N_T), exactly
    assert detect == Fraction(d - 1, 2 + (d - 2) * tree_protocol_size(d, T))
    assert detect == tree_protocol_detection(d, T, exact=True)
    # (c) E[hops] >= T/2
    assert hops >= Fraction(T, 2)


def test_protocol2_worked_examples():
    # d = 3, T = 2, 4, 6, 8: 1/3, 1/6, 1/12, 1/24; d = 4: 1/4, 1/12 at T = 2, 4
    got = [_ml_exact(_protocol2, T, 3)[0] for T in (2, 4, 6, 8)]
    assert got == [Fraction(1, 3), Fraction(1, 6), Fraction(1, 12), Fraction(1, 24)]
    assert [_ml_exact(_protocol2, T, 4)[0] for T in (2, 3, 4)] == [
        Fraction(1, 4), Fraction(1, 6), Fraction(1, 12)]


@pytest.mark.slow
def test_printed_pseudocode_violates_prop_2_2_2():
    # the literal pseudo-code: 1/2, 1/2, 1/4, 1/8 at T = 2, 4, 6, 8 on the 3-regular tree
    got = [_ml_exact(_pseudocode, T, 3)[0] for T in (2, 4, 6, 8)]
    assert got == [Fraction(1, 2), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8)]
    sizes = [len(next(iter(_pseudocode((), T, 3)))) for T in (2, 4, 6, 8)]
    assert all(p > Fraction(2, 2 + n) for p, n in zip(got, sizes))  # above Eq. (2.8)


@pytest.mark.parametrize("T, p", [(4, 0.5), (5, 0.25)])
def test_pseudocode_kernel_and_exact_likelihood_match_the_enumeration(T, p):
    # the compiled TreeProtocolPseudocode scored by the package's brute-force likelihood
    # detects the source as often as the independent enumeration says
    G, _ = _ball_graph(3, T + 2)
    proto = spread.TreeProtocolPseudocode()
    gen = np.random.default_rng(T)
    trials = 400
    hits = [A.detection_probability(A.exact_likelihood(A.observe(
        spread.simulate(G, proto, T, source=0, rng=gen)), proto), 0) for _ in range(trials)]
    assert _ml_exact(_pseudocode, T, 3)[0] == Fraction(p)
    assert abs(np.mean(hits) - p) <= 4 * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize("d", [3, 4, 5])
def test_protocol2_monte_carlo_bands(d):
    trials = 3000
    g = spread.graphs.regular_tree(d)
    for T in (5, 8, 10) if d == 3 else (5, 7, 8):
        b = A.simulate_and_score(g, spread.TreeProtocol(), T, trials, estimators=("ml-tree",), rng=T)
        assert np.all(b.n_infected == tree_protocol_size(d, T))
        p = tree_protocol_detection(d, T)
        ml = b["ml-tree"]
        np.testing.assert_allclose(ml.detection_probability, np.where(ml.detection_probability > 0, p, 0))
        assert abs(ml.detected.mean() - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-12
        mean, se = ml.mean("hops")
        assert mean + 4 * se >= T / 2


def test_protocol2_detection_at_d3_T6_is_one_twelfth():
    trials = 20000
    b = A.simulate_and_score(spread.graphs.regular_tree(3), spread.TreeProtocol(), 6, trials,
                             estimators=("ml-tree",), rng=2026)  # fmt: skip
    p = 1 / 12
    assert abs(b["ml-tree"].detected.mean() - p) <= 4 * math.sqrt(p * (1 - p) / trials)


def _ball_graph(d, R):
    nodes = sorted(_ball((), R, d), key=lambda w: (len(w), w))
    idx = {w: i for i, w in enumerate(nodes)}
    return nx.Graph([(idx[w], idx[w[:-1]]) for w in nodes if w]), idx


@pytest.mark.parametrize("d, T", [(3, 3), (3, 4), (4, 3), (5, 2)])
def test_ml_tree_matches_exact_likelihood_and_closed_form(d, T):
    G, idx = _ball_graph(d, T + 2)
    for seed in range(3):
        sp = spread.simulate(G, spread.TreeProtocol(), T, source=0, rng=seed)
        snap = A.observe(sp)
        ml = A.ml_tree_protocol(snap)
        ex = A.exact_likelihood(snap, spread.TreeProtocol())
        np.testing.assert_allclose(np.exp(ml.array), np.exp(ex.array), atol=1e-12)
        finite = np.exp(ml.array[np.isfinite(ml.array)])
        # exactly the leaves are possible, all equally likely: ML detection = 1/#leaves;
        # a leaf's likelihood is 1/(d (d-1)^(k-1)) at T = 2k, 1/(d (d-1)^k) at T = 2k + 1
        assert finite.size == round(1 / tree_protocol_detection(d, T))
        np.testing.assert_allclose(finite, 1 / (d * (d - 1) ** ((T - 1) // 2)))


def test_ml_tree_on_an_irregular_finite_tree_matches_exact_likelihood():
    G = nx.random_labeled_tree(40, seed=4)
    for seed in range(4):
        sp = spread.simulate(G, spread.TreeProtocol(), 4, rng=seed)
        snap = A.observe(sp)
        np.testing.assert_allclose(np.exp(A.ml_tree_protocol(snap).array),
                                   np.exp(A.exact_likelihood(snap, spread.TreeProtocol()).array),
                                   atol=1e-12)


# ----------------------------------------------------------------- Theorem 2.3.1(b), odd T

ODD = [(2, 3), (2, 5), (3, 3), (3, 5), (3, 7), (4, 3), (4, 5), (5, 3), (5, 5)]


@pytest.mark.parametrize("d, T", ODD)
def test_adaptive_diffusion_odd_T_detection_exact_by_enumeration(d, T):
    detect, _ = _ml_exact(_adaptive, T, d)
    assert detect == adaptive_diffusion_detection(d, T, exact=True)
    sizes = {len(G) for G in _adaptive((), T, d)}
    assert min(sizes) == adaptive_diffusion_min_size(d, T)


@pytest.mark.parametrize("d, T", [(3, 4), (4, 4), (2, 6)])
def test_adaptive_diffusion_even_T_detection_exact_by_enumeration(d, T):
    assert _ml_exact(_adaptive, T, d)[0] == adaptive_diffusion_detection(d, T, exact=True)


def test_adaptive_diffusion_odd_T_worked_examples():
    assert round(adaptive_diffusion_detection(3, 3), 4) == 0.2778
    assert round(adaptive_diffusion_detection(3, 11), 4) == 0.0132
    assert round(adaptive_diffusion_detection(4, 7), 4) == 0.0187
    assert adaptive_diffusion_detection(3, 3, exact=True) == Fraction(5, 18)
    # the odd-T value exceeds 1/(N_min - 1) by a factor tending to 1 + 2/d
    for d in (3, 4, 5):
        r = adaptive_diffusion_detection(d, 41) * (adaptive_diffusion_min_size(d, 41) - 1)
        assert abs(r - (1 + 2 / d)) < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("d, T", [(2, 9), (3, 7), (3, 11), (4, 7), (5, 7)])
def test_adaptive_diffusion_odd_T_detection_monte_carlo(d, T):
    trials = 4000
    g = spread.graphs.line() if d == 2 else spread.graphs.regular_tree(d)
    b = A.simulate_and_score(g, spread.AdaptiveDiffusion(), T, trials, estimators=("ml",), rng=7 + T)
    p = adaptive_diffusion_detection(d, T)
    mean, se = b["ml"].mean("detection_probability")
    assert abs(mean - p) <= 4 * math.sqrt(p * (1 - p) / trials)
    assert b.n_infected.min() >= adaptive_diffusion_min_size(d, T)
