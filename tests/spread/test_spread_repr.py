"""A batch of runs prints as one short line, like Scores (its arrays are not printed)."""

from __future__ import annotations

import networkx as nx

from anonspread import spread


def test_spread_batch_repr_is_one_short_line():
    graph = nx.path_graph(5)
    b = spread.simulate_many(graph, spread.Flooding(), T=2, trials=3, rng=1)
    # flooding on a path of 5 nodes for 2 steps infects 5, 5 or 4 nodes: the sources decide
    expected = b.n_infected.mean()
    assert repr(b) == (f"SpreadBatch(protocol=Flooding(), graph=ContactGraph(n=5, m=4), T=2, trials=3, "
                       f"mean N_T={expected:.6g})")


def test_spread_batch_repr_does_not_grow_with_the_trials():
    tree = spread.graphs.regular_tree(3)
    b = spread.simulate_many(tree, spread.AdaptiveDiffusion(), T=4, trials=5000, rng=1)
    text = repr(b)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("SpreadBatch(protocol=AdaptiveDiffusion(") and "graph=regular_tree(3)" in text
    assert text.endswith("T=4, trials=5000, mean N_T=10)")  # adaptive diffusion: exactly 10 at T = 4
