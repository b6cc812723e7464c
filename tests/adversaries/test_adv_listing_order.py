"""No estimator reads the order in which a snapshot lists its infected nodes.

``observe`` lists them in infection order, source first: information the adversary does not
have. Every registered estimator that applies must give every node the same score whatever
the listing (checked here on a random permutation of each snapshot: graphs with cycles,
revealed infection trees, an infinite tree). Ties are broken at random by ``pick``, so equal
scores leak nothing."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.observation import Snapshot, relisted

GRAPH = spread.graphs.as_contact_graph(nx.connected_watts_strogatz_graph(40, 4, 0.2, seed=1))
CASES = {
    "adaptive-cycles-revealed": (GRAPH, spread.AdaptiveDiffusion(d0=float("inf"), max_infections_per_step=3), 4, True),
    "adaptive-cycles": (GRAPH, spread.AdaptiveDiffusion(d0=float("inf"), max_infections_per_step=3), 4, False),
    "random-diffusion": (GRAPH, spread.RandomDiffusion(0.5), 3, False),
    "adaptive-tree": (spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, True),
}
#: Smaller budgets for the simulation-based estimators (the property does not depend on them).
FAST = {"soft-margin": {"simulations": 200, "max_simulations": 400},
        "learned": {"spreads": 100, "held_out": 20}}


def _relisted(snap: Snapshot, rng: np.random.Generator) -> Snapshot:
    return relisted(snap, rng.permutation(snap.n))[0]


def _by_node(scores) -> dict:
    return {int(v): float(s) for v, s in zip(scores.nodes, scores.array)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scores_do_not_depend_on_the_listing(case):
    g, proto, T, reveal = CASES[case]
    names = A.applicable_estimators(proto, g, reveal_edges=reveal)
    assert len(names) >= 6, names
    rng = np.random.default_rng(4)
    snaps = [A.observe(spread.simulate(g, proto, T, rng=rng), reveal_edges=reveal) for _ in range(4)]
    for name in names:
        spec = A.get_estimator(name)
        kw = {**spec.params(proto, g), **FAST.get(name, {})}
        if spec.random:
            kw["rng"] = 3
        for snap in snaps:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = _by_node(spec.func(snap, **kw))
                b = _by_node(spec.func(_relisted(snap, rng), **kw))
            assert a.keys() == b.keys()
            for v in a:
                if np.isfinite(a[v]) or np.isfinite(b[v]):
                    assert a[v] == pytest.approx(b[v], rel=1e-9, abs=1e-9), (name, v)
