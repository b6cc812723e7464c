"""spread.simulate.infected_sets: the infected sets of simulate's runs, drawn exactly as
simulate draws them, without their traces."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import spread
from anonspread.errors import InvalidParameterError
from anonspread.spread.protocols import AdaptiveDiffusion, Flooding, RandomDiffusion
from anonspread.spread.simulate import infected_sets, simulate

GRAPH = spread.graphs.as_contact_graph(nx.connected_watts_strogatz_graph(60, 4, 0.2, seed=3))


@pytest.mark.parametrize("protocol", [
    RandomDiffusion(0.4), Flooding(), AdaptiveDiffusion(d0=float("inf"), max_infections_per_step=3),
])
@pytest.mark.parametrize("T", [0, 1, 4])
def test_the_sets_and_the_stream_are_simulates(protocol, T):
    a, b = np.random.default_rng(11), np.random.default_rng(11)
    want = [np.sort(simulate(GRAPH, protocol, T, rng=a).index) for _ in range(40)]
    got = list(infected_sets(GRAPH, protocol, T, 40, rng=b))
    assert len(got) == 40
    for x, y in zip(want, got):
        np.testing.assert_array_equal(x, y)
    assert a.integers(2**62) == b.integers(2**62)  # the generator advanced alike
    # the graph's run state was left clean: simulate after it gives what it gave before
    assert np.array_equal(simulate(GRAPH, protocol, T, rng=5).index,
                          simulate(GRAPH, protocol, T, rng=5).index)


def test_bad_input_is_named():
    with pytest.raises(InvalidParameterError, match="graph must be finite for infected_sets"):
        next(infected_sets(spread.graphs.regular_tree(3), Flooding(), 2, 1))
    with pytest.raises(InvalidParameterError, match="count"):
        next(infected_sets(GRAPH, Flooding(), 2, -1))
    assert list(infected_sets(GRAPH, Flooding(), 2, 0)) == []
