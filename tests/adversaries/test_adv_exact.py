"""The brute-force likelihood follows the spread kernels: checked against simulation frequencies."""

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import GraphError

CASES = [
    # (name, graph, protocol, T, source)
    ("adaptive", nx.Graph([(0, 1), (1, 2), (1, 3), (3, 4), (0, 5), (5, 6), (2, 7), (3, 8)]),
     spread.AdaptiveDiffusion(2.5), 5, 1),
    ("tree-protocol", nx.balanced_tree(2, 3), spread.TreeProtocol(), 4, 0),
    ("line-protocol", nx.path_graph(9), spread.LineProtocol(), 3, 4),
    ("line-protocol-tree", nx.balanced_tree(2, 2), spread.LineProtocol(), 2, 0),
    ("random-diffusion-cycles", nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (3, 4), (4, 5)]),
     spread.RandomDiffusion(0.4), 3, 0),
]  # fmt: skip


@pytest.mark.parametrize("name, G, proto, T, src", CASES, ids=[c[0] for c in CASES])
def test_exact_likelihood_matches_simulation_frequencies(name, G, proto, T, src):
    M = 3000
    gen = np.random.default_rng(11)
    counts = Counter(
        frozenset(spread.simulate(G, proto, T, source=src, rng=gen).infected.tolist())
        for _ in range(M)
    )
    total = 0.0
    for S, c in counts.items():
        sc = A.exact_likelihood(A.Snapshot(G, sorted(S), T), proto)
        p = math.exp(sc[src])
        total += p
        assert abs(c / M - p) <= 4 * math.sqrt(p * (1 - p) / M) + 2e-3, (S, c / M, p)
    # the observed outcomes carry (almost) all of the probability, never more than 1
    assert 0.98 <= total <= 1 + 1e-9


def test_exact_likelihood_flooding_is_the_centre():
    G = nx.path_graph(7)
    sc = A.exact_likelihood(A.Snapshot(G, range(1, 6), 2), spread.Flooding())
    assert [sc[v] for v in range(1, 6)] == [-math.inf, -math.inf, 0.0, -math.inf, -math.inf]


def test_exact_likelihood_refuses_what_it_cannot_do():
    G = nx.cycle_graph(4)
    snap = A.Snapshot(G, range(4), 2)
    with pytest.raises(GraphError, match="tree"):
        A.exact_likelihood(snap, spread.LineProtocol())
    with pytest.raises(ValueError, match="max_infections_per_step"):
        A.exact_likelihood(A.Snapshot(nx.path_graph(4), [1, 2], 1), spread.AdaptiveDiffusion(2, max_infections_per_step=1))
    big = A.Snapshot(nx.path_graph(80), range(80), 40)
    with pytest.raises(ValueError, match="at most 62"):
        A.exact_likelihood(big, spread.RandomDiffusion(0.5))
    with pytest.raises(ValueError, match="max_states"):
        A.exact_likelihood(A.Snapshot(nx.path_graph(30), range(30), 20), spread.RandomDiffusion(0.5), max_states=5)
    with pytest.raises(TypeError, match="protocol"):
        A.exact_likelihood(snap, "adaptive")
