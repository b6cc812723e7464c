"""Adaptive diffusion under random message delays on graphs with cycles (issue: a storm of
zero-time relays that never ended).

Under a random delay a node counts a contact as its child when it sends it the rumour;
while that message is in flight the contact may be infected by another node, so the
edges the Infection Message follows close a cycle with the infection tree. Each node now
handles each step's Infection Message once, so the relays of a step are at most one per
directed edge.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest

from anonspread import spread
from anonspread.spread.events import ExponentialDelay, GeometricDelay, OneStep, simulate_messages


@pytest.mark.timeout(60)
@pytest.mark.parametrize("delay", [GeometricDelay(0.6), GeometricDelay(0.3), ExponentialDelay(1.0)], ids=repr)
def test_random_delays_on_a_graph_with_cycles_finish_with_relays_bounded_per_step(delay):
    G = nx.connected_watts_strogatz_graph(60, 6, 0.3, seed=2)
    directed_edges = 2 * G.number_of_edges()
    for seed in [2, *range(10)]:  # seed 2 is the reported one
        run = simulate_messages(G, spread.AdaptiveDiffusion(3), 6, delay=delay, rng=seed)
        log = run.log
        relays = Counter(t for t, k in zip(log.sent.tolist(), log.kind.tolist()) if k == "relay")
        assert max(relays.values(), default=0) <= directed_edges, (seed, relays.most_common(2))
        sp = run.spread
        # still a spread: infected in time order, every parent infected before its child
        assert sp.infected[0] == sp.source and sp.n_infected == sp.sizes[-1] >= 1
        t_inf = sp.infection_time
        assert all(p is None or t_inf[p] < t_inf[v] for v, p in sp.parent.items())


@pytest.mark.timeout(60)
def test_one_step_runs_are_unchanged_by_the_once_per_step_rule():
    # under OneStep every node receives each step's Infection Message once anyway: the
    # relays of a step are exactly the infection tree's edges minus the one it came from
    G = nx.connected_watts_strogatz_graph(60, 6, 0.3, seed=2)
    for seed in range(5):
        a = simulate_messages(G, spread.AdaptiveDiffusion(3), 6, rng=seed)
        b = simulate_messages(G, spread.AdaptiveDiffusion(3), 6, delay=OneStep(), rng=seed)
        assert a.spread == b.spread and a.counts.total == b.counts.total
    run = simulate_messages(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, rng=1)
    assert (run.spread.n_infected, run.counts.total) == (10, 12)  # the docstring's example
