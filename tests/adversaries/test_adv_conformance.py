"""Every registered estimator: runs on an applicable snapshot, scores exactly the infected nodes,
is deterministic, validates its input, and its registry declaration matches what it accepts."""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import InvalidParameterError, InvalidTypeError

POINTS = [
    (nx.random_labeled_tree(40, seed=1), spread.AdaptiveDiffusion(3), 5),
    (nx.path_graph(30), spread.LineProtocol(), 4),
    (nx.random_labeled_tree(30, seed=2), spread.TreeProtocol(), 4),
    (nx.random_labeled_tree(30, seed=2), spread.TreeProtocolPseudocode(), 4),
    (nx.connected_watts_strogatz_graph(80, 4, 0.2, seed=4), spread.TreeProtocol(), 4),
    (nx.connected_watts_strogatz_graph(80, 6, 0.2, seed=5),
     spread.AdaptiveDiffusion(math.inf, 3, infectors="leaves"), 6),
    (nx.connected_watts_strogatz_graph(40, 4, 0.2, seed=3), spread.RandomDiffusion(0.3), 2),
    (nx.connected_watts_strogatz_graph(80, 4, 0.2, seed=4), spread.AdaptiveDiffusion(math.inf), 4),
]


def test_snapshot_estimators_are_all_listed_here():
    # spy estimators have their own conformance test (tests/adversaries/test_adv_spies.py)
    A.get_estimator("ml")
    snap = sorted(n for n, s in A.ESTIMATORS.items() if s.observation == "snapshot")
    assert snap == ["bp", "exact", "jordan", "learned", "lisn", "ml", "ml-tree", "netsleuth", "rumor",
                    "soft-margin"]


@pytest.mark.parametrize("name", ["ml", "ml-tree", "jordan", "rumor", "exact", "netsleuth", "lisn",
                                  "learned", "soft-margin", "bp"])
def test_every_registered_estimator_conforms(name):
    spec = A.get_estimator(name)
    ran = 0
    for G, proto, T in POINTS:
        if spec.why_not(proto, G, reveal_edges=True) is not None:
            continue
        sp = spread.simulate(G, proto, T, source=0, rng=5)
        snap = A.observe(sp, reveal_edges=True)
        if name == "exact" and snap.n > 14:
            continue
        # the learned adversary trains on a small budget here (tests/adversaries/test_adv_learned.py)
        kw = {**spec.params(proto, G), **({"spreads": 60, "held_out": 20} if name == "learned" else {}),
              **({"rng": 3} if spec.random else {})}
        sc = spec.func(snap, **kw)
        again = spec.func(snap, **kw)
        assert isinstance(sc, A.Scores) and set(sc) == set(sp.infected.tolist())
        assert not np.any(np.isnan(sc.array)) and np.array_equal(sc.array, again.array)
        assert sc.is_likelihood == spec.likelihood
        if spec.likelihood:
            assert sc[sp.source] > -math.inf  # the true source is never ruled out
        assert A.pick(sc, rng=1) == A.pick(sc, rng=1)
        with pytest.raises(InvalidTypeError):
            spec.func("not a snapshot", **kw)
        ran += 1
    assert ran >= 1
    # the registry refuses what the declaration excludes, with the reason
    if spec.protocols is not None and name != "learned":  # learned: every compiled protocol
        excluded = (spread.Flooding() if "flooding" not in spec.protocols else
                    spread.RandomDiffusion(0.2) if "random-diffusion" not in spec.protocols
                    else spread.AdaptiveDiffusion(max_infections_per_step=1))  # fmt: skip
        if spec.why_not(excluded, nx.path_graph(4)) is None:  # it simulates every compiled protocol
            excluded = spread.Dandelion()
        with pytest.raises(InvalidParameterError, match=name):
            A.check_applicable(name, excluded, nx.path_graph(4))


ORDER_POINTS = [
    *POINTS,
    # more infected nodes than soft-margin's candidates below: its pruning breaks ties
    (nx.stochastic_block_model([25, 25, 25], [[0.3, 0.03, 0.03], [0.03, 0.3, 0.03], [0.03, 0.03, 0.3]],
                               seed=7), spread.RandomDiffusion(0.5), 3),
]


@pytest.mark.parametrize("name", ["ml", "ml-tree", "jordan", "rumor", "exact", "netsleuth", "lisn",
                                  "learned", "soft-margin", "bp"])
def test_every_registered_estimator_ignores_the_order_of_the_infected_nodes(name):
    # observe() lists the infected nodes in infection order, the source first: a score that
    # depends on that order (a tie broken by position, a pruning, a traversal's root) would
    # tell the estimator the answer. The same snapshot in another order must score alike.
    spec = A.get_estimator(name)
    ran = 0
    for G, proto, T in ORDER_POINTS:
        if spec.why_not(proto, G, reveal_edges=True) is not None:
            continue
        snap = A.observe(spread.simulate(G, proto, T, source=0, rng=5), reveal_edges=True)
        if name == "exact" and snap.n > 14:
            continue
        kw = {**spec.params(proto, G), **({"spreads": 60, "held_out": 20} if name == "learned" else {}),
              **({"rng": 3} if spec.random else {}),
              **({"candidates": 5, "max_simulations": 2000} if name == "soft-margin" else {})}
        for seed in (1, 2):
            perm = np.random.default_rng(seed).permutation(snap.n)
            other = A.Snapshot(snap.graph, snap.nodes[perm], T=snap.T,
                               infection_edges=snap.infection_edges)
            a, b = spec.func(snap, **kw), spec.func(other, **kw)
            va = a.array
            vb = np.array([b[v] for v in snap.nodes.tolist()])
            assert np.array_equal(np.isfinite(va), np.isfinite(vb)), (name, proto)
            fin = np.isfinite(va)
            np.testing.assert_allclose(vb[fin], va[fin], rtol=1e-9, atol=1e-9, err_msg=f"{name} {proto}")
            assert set(snap.nodes[A.scores.top_set(va)].tolist()) == set(
                snap.nodes[A.scores.top_set(vb)].tolist())
        ran += 1
    assert ran >= 1


def test_one_registry_filters_by_observation():
    ad, tree = spread.AdaptiveDiffusion(), spread.graphs.regular_tree(3)
    both = A.applicable_estimators(ad, tree, observation="snapshot+spies")
    spies_only = A.applicable_estimators(spread.RandomDiffusion(0.5), tree, observation="spies")
    assert {"ml", "jordan", "rumor"} <= set(both) and "first-spy" in both
    assert "first-spy" in spies_only and "jordan" not in spies_only
    assert set(A.SPY_ESTIMATORS) <= set(A.ESTIMATORS)
    with pytest.raises(InvalidParameterError, match="observation must be one of"):
        A.applicable_estimators(ad, tree, observation="telepathy")
