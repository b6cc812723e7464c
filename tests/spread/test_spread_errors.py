"""Bad input gets a clear error naming the parameter (ValueError/TypeError subclasses)."""

import gzip
import math

import networkx as nx
import pytest

from anonspread import spread
from anonspread.errors import AnonspreadError, GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import from_edgelist, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion, Flooding, RandomDiffusion


def raises(exc, match):
    return pytest.raises(exc, match=match)


def test_graph_kinds():
    with raises(GraphError, "undirected"):
        spread.simulate(nx.DiGraph([(0, 1)]), Flooding(), 1)
    with raises(GraphError, "simple graph"):
        spread.simulate(nx.MultiGraph([(0, 1)]), Flooding(), 1)
    with raises(GraphError, "at least one node"):
        spread.simulate(nx.Graph(), Flooding(), 1)
    with raises(InvalidTypeError, "graph must be a networkx.Graph"):
        spread.simulate([(0, 1)], Flooding(), 1)
    assert issubclass(GraphError, ValueError) and issubclass(GraphError, AnonspreadError)


def test_source_and_T():
    G = nx.path_graph(4)
    with raises(GraphError, r"source must be a node of the graph; got 99"):
        spread.simulate(G, Flooding(), 1, source=99)
    with raises(GraphError, "source must be a node"):
        spread.simulate(regular_tree(3), Flooding(), 1, source=10_000)
    with raises(InvalidParameterError, r"T must be an integer >= 0; got -1"):
        spread.simulate(G, Flooding(), -1)
    with raises(InvalidParameterError, r"T must be an integer >= 0; got 2.5"):
        spread.simulate(G, Flooding(), 2.5)
    with raises(InvalidTypeError, "T must be"):
        spread.simulate(G, Flooding(), "3")
    with raises(InvalidParameterError, "trials must be an integer >= 1"):
        spread.simulate_many(G, Flooding(), 2, 0)
    with raises(InvalidTypeError, "protocol must be"):
        spread.simulate(G, "flooding", 2)
    with raises(InvalidTypeError, "rng must be"):
        spread.simulate(G, Flooding(), 2, rng="seed")


def test_protocol_parameters():
    for bad in (-0.1, 1.5, math.nan):
        with raises(InvalidParameterError, r"p must be a real number in \[0.0, 1.0\]"):
            RandomDiffusion(bad)
    with raises(InvalidParameterError, r"d0 must be a real number >= 2"):
        AdaptiveDiffusion(d0=1.5)
    with raises(InvalidTypeError, "d0 must be"):
        AdaptiveDiffusion(d0="3")
    with raises(InvalidParameterError, "max_infections_per_step must be an integer >= 1"):
        AdaptiveDiffusion(d0=3, max_infections_per_step=0)
    with raises(InvalidParameterError, "relay must be one of"):
        AdaptiveDiffusion(d0=3, relay="flood")
    with raises(GraphError, r"AdaptiveDiffusion\(d0=None\) needs a regular graph"):
        spread.simulate(nx.star_graph(4), AdaptiveDiffusion(), 2)
    with raises(GraphError, "needs a regular graph"):
        spread.simulate(random_tree({3: 0.5, 4: 0.5}), AdaptiveDiffusion(), 2)
    # a regular finite graph is fine
    assert spread.simulate(nx.cycle_graph(30), AdaptiveDiffusion(), 6, rng=1).n_infected == 7


def test_degree_mappings():
    with raises(InvalidParameterError, "must sum to 1"):
        random_tree({3: 0.5, 4: 0.4})
    with raises(InvalidParameterError, "degrees >= 1"):
        random_tree({0: 0.5, 3: 0.5})
    with raises(InvalidParameterError, "probabilities in"):
        random_tree({3: -0.5, 4: 1.5})
    with raises(InvalidTypeError, "non-empty mapping"):
        random_tree([3, 4])
    with raises(InvalidParameterError, r"d must be an integer >= 2; got 1"):
        regular_tree(1)


def test_from_edgelist(tmp_path):
    text = "# comment\r\n0 1\r\n1 0\r\n2 2\r\n\r\n1 2 7\r\n2 3\n"
    p = tmp_path / "g.txt.gz"
    with gzip.open(p, "wt", newline="") as fh:
        fh.write(text)
    # "0 1" and "1 0" beside one-way pairs: a directed file, read only when symmetrised
    with raises(GraphError, "looks like a directed edge list"):
        from_edgelist(p)
    g = from_edgelist(p, symmetrize=True)
    assert g.number_of_nodes() == 4 and g.number_of_edges() == 3
    assert g.dropped == {"self_loops": 1, "duplicate_edges": 0, "reciprocal_arcs": 1}
    assert sorted(g.to_networkx().edges) == [(0, 1), (1, 2), (2, 3)]
    plain = tmp_path / "g.txt"
    plain.write_text("a b\nb c\n")
    h = from_edgelist(plain, nodetype=str)
    assert h.labels == ["a", "b", "c"]
    s = spread.simulate(h, Flooding(), 2, source="a")
    assert s.infected.tolist() == ["a", "b", "c"]
    with raises(GraphError, "not found"):
        from_edgelist(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n2\n")
    with raises(GraphError, "line 2 must hold two node tokens"):
        from_edgelist(bad)
    bad.write_text("0 x\n")
    with raises(GraphError, "node token 'x' is not a valid int"):
        from_edgelist(bad)
