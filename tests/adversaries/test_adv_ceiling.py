"""The Bayes ceiling (adversaries.bayes_ceiling): worked examples, the thesis's closed forms,
the exact-ML cross-check, Monte Carlo against exact, estimators below it, refusals.

Closed forms used below (uniform source on N nodes, P* = (1/N) sum_S max_v P(S | v)):

* flooding: the snapshot from v is the T-ball around v, so P* = (distinct balls) / N. On
  the path 0..n-1 the sources v in [n-1-T, T] all give the whole path:
  P* = (n - c + [c > 0]) / n with c = #{v : n-1-T <= v <= T}. On the star with k leaves
  P* = 1 at T = 1 (k + 1 distinct snapshots) and 1/(k + 1) at T >= 2 (one snapshot).
* random diffusion with probability p on the star with k leaves at T = 1: the centre's run
  gives {c} u A with probability p^|A| (1-p)^(k-|A|); a leaf i's run gives {i} (1 - p) or
  {i, c} (p). Only {i, c} has two candidate sources (likelihoods p(1-p)^(k-1) and p), so
  P* = (k + 1 - k p (1-p)^(k-1)) / (k + 1).
* Protocol 1 on path_graph(3) at T = 1 (each neighbour of the source infected w.p. 1/2):
  snapshots {0}, {2}, {0,1}, {1,2} have best likelihood 1/2, {1} and {0,1,2} 1/4:
  P* = (4/2 + 2/4) / 3 = 5/6.
* On the infinite regular trees (by symmetry, source at node 0): adaptive diffusion and
  Protocol 2 give the exact ML detection of adversaries.theory (thesis Thm 2.3.1,
  Prop. 2.2.2), and Protocol 1 on the line gives (2T+1)/(T+1)^2, the bound of
  Prop. 2.2.1(b), attained (T = 1: 3/4 by hand: {0} and {-1,0,1} name the source, {-1,0}
  and {0,1} are a coin toss, each snapshot with probability 1/4).
"""

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.theory import adaptive_diffusion_detection, tree_protocol_detection
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
    TreeProtocolPseudocode,
)


def _exact(graph, protocol, T, **kw):
    c = A.bayes_ceiling(graph, protocol, T, method="exact", **kw)
    assert c.method == "exact" and c.interval == (c.value, c.value) and c.stderr == 0.0
    return c


# ----------------------------------------------------------------- worked examples


@pytest.mark.parametrize("n, T", [(5, 1), (5, 2), (5, 3), (5, 4), (5, 6), (6, 3), (1, 2)])
def test_flooding_on_a_path(n, T):
    c = sum(1 for v in range(n) if n - 1 - T <= v <= T)
    want = (n - c + (c > 0)) / n
    got = _exact(nx.path_graph(n), Flooding(), T)
    assert got.value == pytest.approx(want, abs=1e-15)
    assert got.sources == n


@pytest.mark.parametrize("seed, n, T", [(1, 12, 1), (2, 12, 2), (3, 16, 1), (4, 16, 2), (5, 9, 3)])
def test_flooding_on_graphs_with_cycles(seed, n, T):
    # deterministic: the snapshot from v is its ball of radius T, so the MAP class of v is
    # the nodes with the same ball and the ceiling is (distinct balls) / n
    G = nx.random_regular_graph(3, n, seed=seed) if n % 2 == 0 else nx.cycle_graph(n)
    balls = [frozenset(nx.ego_graph(G, v, radius=T)) for v in G]
    got = _exact(G, Flooding(), T)
    assert got.value == pytest.approx(len(set(balls)) / n, abs=1e-15)
    # and the exact likelihood of a ball: 1 at the nodes whose ball it is, 0 elsewhere
    snap = A.Snapshot(G, sorted(balls[0]), T)
    lik = A.exact_likelihood(snap, Flooding())
    for v in snap.nodes.tolist():
        assert lik[v] == (0.0 if balls[v] == balls[0] else -np.inf)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_flooding_on_a_star(k):
    assert _exact(nx.star_graph(k), Flooding(), 1).value == 1.0
    for T in (2, 3):
        c = _exact(nx.star_graph(k), Flooding(), T)
        assert c.value == pytest.approx(1 / (k + 1), abs=1e-15) and c.snapshots == 1


@pytest.mark.parametrize("k, p", [(1, 0.3), (3, 0.5), (4, 0.25), (6, 0.9)])
def test_random_diffusion_on_a_star_at_T1(k, p):
    want = (k + 1 - k * p * (1 - p) ** (k - 1)) / (k + 1)
    assert _exact(nx.star_graph(k), RandomDiffusion(p), 1).value == pytest.approx(want, abs=1e-14)


def test_line_protocol_on_a_short_path():
    assert _exact(nx.path_graph(3), LineProtocol(), 1).value == pytest.approx(5 / 6, abs=1e-15)


def test_T0_always_detects():
    for g, proto in [(nx.path_graph(4), Flooding()), (nx.cycle_graph(5), RandomDiffusion(0.5)),
                     (spread.graphs.regular_tree(3), AdaptiveDiffusion())]:
        assert _exact(g, proto, 0).value == 1.0


# ----------------------------------------------------------------- the thesis's closed forms


@pytest.mark.parametrize("d, Ts", [(2, range(1, 9)), (3, range(1, 8)), (4, range(1, 6))])
def test_adaptive_diffusion_on_regular_trees_is_the_exact_ML(d, Ts):
    tree = spread.graphs.regular_tree(d)
    for T in Ts:
        c = _exact(tree, AdaptiveDiffusion(), T)
        assert c.sources == 1 and "mass-transport" in c.assumption
        assert c.value == pytest.approx(adaptive_diffusion_detection(d, T), rel=1e-12), T


@pytest.mark.parametrize("d", [3, 4])
def test_tree_protocol_on_regular_trees(d):
    for T in range(1, 7):
        want = tree_protocol_detection(d, T)
        assert _exact(spread.graphs.regular_tree(d), TreeProtocol(), T).value == pytest.approx(want, rel=1e-12)


def test_line_protocol_on_the_line_attains_prop_2_2_1b():
    for T in range(1, 6):
        want = Fraction(2 * T + 1, (T + 1) ** 2)
        assert _exact(spread.graphs.line(), LineProtocol(), T).value == pytest.approx(float(want), rel=1e-12)


# ----------------------------------------------------------------- exact ML cross-check


def _whole_graph_final(g, protocol, T):
    """Each source's final-set distribution over the whole graph's view (the ceiling uses
    balls of radius T; this view is the other way to cut it)."""
    cg = spread.graphs.as_contact_graph(g)
    labels = list(cg.labels)
    loc = A.LocalView(A.Snapshot(cg, labels, T))
    final = A.TRAJECTORIES[protocol.name].final
    out = {}
    for v in range(loc.n):
        dist = final(protocol, loc, v, 10**6)
        assert math.fsum(dist.values()) == pytest.approx(1.0, abs=1e-12)
        out[labels[v]] = {frozenset(labels[i] for i in loc.bits(m)): p for m, p in dist.items()}
    return out


@pytest.mark.parametrize("graph, protocol, T", [
    (nx.random_labeled_tree(9, seed=4), RandomDiffusion(0.4), 2),
    (nx.random_labeled_tree(9, seed=4), LineProtocol(), 3),
    (nx.random_labeled_tree(10, seed=1), AdaptiveDiffusion(3), 4),
    (nx.random_labeled_tree(10, seed=1), TreeProtocol(), 5),
    (nx.random_labeled_tree(8, seed=7), TreeProtocolPseudocode(), 3),
    (nx.random_labeled_tree(8, seed=7), Flooding(), 2),
    (nx.cycle_graph(6), RandomDiffusion(0.5), 2),
    (nx.complete_graph(4), RandomDiffusion(0.3), 2),
])
def test_exact_ceiling_is_the_ML_detection_averaged_exactly(graph, protocol, T):
    """P* = the ML estimator's detection probability (uniform prior: MAP = ML, ties broken
    uniformly), computed from exact_likelihood on every snapshot; also
    P* = E_S[max_v P(v | S)]."""
    finals = _whole_graph_final(graph, protocol, T)
    n = graph.number_of_nodes()
    snapshots = set().union(*finals.values())
    ml, expected_max_post = 0.0, 0.0
    for S in snapshots:
        sc = A.exact_likelihood(A.Snapshot(graph, sorted(S), T), protocol)
        lik = {v: math.exp(sc[v]) for v in S}
        for v in graph.nodes:  # the enumeration and exact_likelihood agree on P(S | v)
            assert finals[v].get(S, 0.0) == pytest.approx(lik.get(v, 0.0), rel=1e-12, abs=1e-300)
        top = max(lik.values())
        winners = [v for v in S if lik[v] == top]
        ml += sum(lik[v] / len(winners) for v in winners) / n
        p_S = sum(lik.values()) / n
        expected_max_post += p_S * top / sum(lik.values())
    c = _exact(graph, protocol, T)
    assert c.snapshots == len(snapshots)
    assert c.value == pytest.approx(ml, rel=1e-12)
    assert c.value == pytest.approx(expected_max_post, rel=1e-12)


# ----------------------------------------------------------------- Monte Carlo


@pytest.mark.parametrize("graph, protocol, T", [
    (nx.random_labeled_tree(12, seed=2), RandomDiffusion(0.5), 3),
    (nx.random_labeled_tree(12, seed=2), AdaptiveDiffusion(3), 3),
    (spread.graphs.regular_tree(3), AdaptiveDiffusion(), 5),
    (spread.graphs.line(), LineProtocol(), 4),
])
def test_monte_carlo_covers_the_exact_value(graph, protocol, T):
    exact = _exact(graph, protocol, T).value
    mc = A.bayes_ceiling(graph, protocol, T, method="monte-carlo", trials=600, rng=11)
    assert mc.method == "monte-carlo" and mc.snapshots == 600 and 1 <= mc.distinct <= 600
    lo, hi = mc.interval
    assert lo <= exact <= hi, (mc, exact)
    assert hi - lo == pytest.approx(2 * mc.stderr * 1.964, rel=0.01)


def test_monte_carlo_is_seeded():
    g = nx.random_labeled_tree(10, seed=3)
    a = A.bayes_ceiling(g, LineProtocol(), 3, method="monte-carlo", trials=200, rng=5)
    b = A.bayes_ceiling(g, LineProtocol(), 3, method="monte-carlo", trials=200, rng=5)
    c = A.bayes_ceiling(g, LineProtocol(), 3, method="monte-carlo", trials=200, rng=6)
    assert a == b and a.value != c.value
    one = A.bayes_ceiling(g, LineProtocol(), 3, method="monte-carlo", trials=1, rng=5)
    assert one.interval == (0.0, 1.0)


def test_auto_takes_exact_when_it_fits_else_monte_carlo():
    g = nx.random_labeled_tree(10, seed=3)
    assert A.bayes_ceiling(g, RandomDiffusion(0.5), 2).method == "exact"
    c = A.bayes_ceiling(g, RandomDiffusion(0.5), 2, max_states=40, trials=50, rng=0)
    assert c.method == "monte-carlo" and "exact enumeration does not fit" in c.note
    assert c.interval[0] <= _exact(g, RandomDiffusion(0.5), 2).value <= c.interval[1]


# ----------------------------------------------------------------- no estimator above it


@pytest.mark.slow
@pytest.mark.parametrize("T", [2, 3, 4, 5])
def test_registered_estimators_stay_below_the_ceiling_on_the_regular_tree(T):
    tree = spread.graphs.regular_tree(3)
    ceiling = _exact(tree, AdaptiveDiffusion(), T).value
    b = A.simulate_and_score(tree, AdaptiveDiffusion(), T, 4000, estimators=("ml", "jordan", "rumor"), rng=T)
    for name in ("ml", "jordan", "rumor"):
        mean, se = b[name].mean("detection_probability")
        assert mean <= ceiling + 4 * se + 1e-12, (name, mean, se, ceiling)
    mean, se = b["ml"].mean("detection_probability")  # ML = MAP attains it
    assert abs(mean - ceiling) <= 4 * se + 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("protocol, T", [(RandomDiffusion(0.5), 3), (LineProtocol(), 3), (AdaptiveDiffusion(3), 4)])
def test_estimators_and_exact_ML_stay_below_the_ceiling_on_a_finite_tree(protocol, T):
    g = nx.random_labeled_tree(12, seed=2)
    ceiling = _exact(g, protocol, T).value
    names = ["jordan", "rumor"] + (["ml"] if isinstance(protocol, AdaptiveDiffusion) else [])
    b = A.simulate_and_score(g, protocol, T, 3000, estimators=tuple(names), rng=1)
    for name in names:
        mean, se = b[name].mean("detection_probability")
        assert mean <= ceiling + 4 * se + 1e-12, (name, mean, se, ceiling)
    # the exact ML (registered "exact"), trial by trial: it attains the ceiling
    rng = np.random.default_rng(2)
    hits = []
    for _ in range(600):
        s = spread.simulate(g, protocol, T, rng=rng)
        snap = A.observe(s)
        hits.append(A.evaluate(g, A.exact_likelihood(snap, protocol), s.source, rng=rng).detection_probability)
    mean, se = float(np.mean(hits)), float(np.std(hits, ddof=1) / math.sqrt(len(hits)))
    assert abs(mean - ceiling) <= 4 * se + 1e-12, (mean, se, ceiling)


# ----------------------------------------------------------------- refusals and bad input


def test_refuses_oversized_requests_with_the_size():
    tree = spread.graphs.regular_tree(3)
    with pytest.raises(InvalidParameterError, match="reach 94 infected nodes"):
        A.bayes_ceiling(tree, Flooding(), 5, method="monte-carlo", trials=3, rng=0)
    with pytest.raises(A.StateLimitError, match="max_states=5") as info:
        A.bayes_ceiling(nx.random_labeled_tree(20, seed=0), RandomDiffusion(0.5), 3, method="exact",
                        max_states=5)
    assert info.value.limit == 5 and info.value.states > 5
    with pytest.raises(InvalidParameterError, match=r"exact enumeration does not fit.*; and .*Monte Carlo"):
        A.bayes_ceiling(nx.random_labeled_tree(20, seed=0), RandomDiffusion(0.5), 3, max_states=5,
                        trials=5, rng=0)


@pytest.mark.parametrize("graph, protocol, err, match", [
    (nx.cycle_graph(5), LineProtocol(), GraphError, "without cycles only"),
    (spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=0), AdaptiveDiffusion(3), GraphError, "regular infinite tree"),
    (nx.path_graph(4), AdaptiveDiffusion(2, max_infections_per_step=3), InvalidParameterError,
     "max_infections_per_step"),
])
def test_refuses_what_it_cannot_compute(graph, protocol, err, match):
    assert A.ceiling_refusal(graph, protocol) is not None
    with pytest.raises(err, match=match):
        A.bayes_ceiling(graph, protocol, 2)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"method": "mc"}, InvalidParameterError, "method must be one of 'auto', 'exact', 'monte-carlo'; got 'mc'"),
    ({"trials": 0}, InvalidParameterError, "trials must be an integer >= 1; got 0"),
    ({"level": 1.0}, InvalidParameterError, "level must be"),
    ({"max_states": 2.5}, InvalidParameterError, "max_states must be an integer >= 1; got 2.5"),
    ({"T": -1}, InvalidParameterError, "T must be an integer >= 0; got -1"),
    ({"protocol": "flooding"}, InvalidTypeError, "protocol must be a spread.protocols.Protocol"),
    ({"graph": "path"}, InvalidTypeError, "graph must be a networkx.Graph"),
    ({"rng": -1}, InvalidParameterError, "rng must be a non-negative integer seed"),
])
def test_bad_input_is_named(kwargs, err, match):
    args = {"graph": nx.path_graph(4), "protocol": Flooding(), "T": 2, **kwargs}
    with pytest.raises(err, match=match):
        A.bayes_ceiling(args.pop("graph"), args.pop("protocol"), args.pop("T"), **args)
