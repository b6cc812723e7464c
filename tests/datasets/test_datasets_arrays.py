"""The bundled graphs read by the compiled tokenizer and filtered on arrays (issue 32):
the same networkx graph as the previous reader (np.loadtxt, networkx filters), node,
edge and adjacency order included, and the harness's contact graph built from the
arrays equal to ``from_networkx`` of it."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest

from anonspread import datasets
from anonspread.datasets import _registry
from anonspread.harness import component_info
from anonspread.spread.graphs import as_contact_graph, from_networkx


def _dataset(name, **kw):
    """The sweep's graph component of a bundled graph (built from the arrays)."""
    return component_info("graph", name).build(**kw)


def _previous(name, min_degree=0, iterative=False, largest_component=False):
    """The loader as it was: np.loadtxt, then networkx for every filter."""
    with gzip.open(_registry.path(name), "rt", encoding="ascii") as handle:
        pairs = np.loadtxt(handle, dtype=np.int64, comments=("#", "%"), usecols=(0, 1), ndmin=2)
    nodes = np.unique(pairs)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    edges = np.unique(np.sort(pairs, axis=1), axis=0)
    graph = nx.Graph(name=name)
    graph.add_nodes_from(nodes.tolist())
    graph.add_edges_from(map(tuple, edges.tolist()))
    if min_degree > 0:
        if iterative:
            graph = nx.k_core(graph, min_degree).copy()
        else:
            graph.remove_nodes_from([v for v, d in graph.degree() if d < min_degree])
    if largest_component and graph.number_of_nodes() > 0:
        keep = max(nx.connected_components(graph), key=lambda c: (len(c), -min(c)))
        graph = graph.subgraph(sorted(keep)).copy()
    return graph


def _same(new, old):
    assert list(new.nodes) == list(old.nodes)
    assert list(new.edges) == list(old.edges)
    assert all(list(new.adj[v]) == list(old.adj[v]) for v in old.nodes)
    assert new.graph["name"] == old.graph["name"]


CASES = [{}, {"min_degree": 3}, {"largest_component": True},
         {"min_degree": 2, "largest_component": True}]
CORE = [{"min_degree": 3, "iterative": True}, {"min_degree": 2, "iterative": True, "largest_component": True}]


@pytest.mark.parametrize(("name", "kw"), [(n, kw) for n in ("ego-facebook", "email-eu-core", "ca-grqc")
                                          for kw in CASES] + [("ca-grqc", kw) for kw in CORE])
def test_same_graph_as_the_previous_reader(name, kw):
    new = datasets.load_graph(name, **kw)
    _same(new, _previous(name, **kw))
    g, h = as_contact_graph(_dataset(name, **kw)), from_networkx(new)
    assert g.labels == h.labels and g.dropped == h.dropped
    assert g.indptr.dtype == h.indptr.dtype and np.array_equal(g.indptr, h.indptr)
    assert g.indices.dtype == h.indices.dtype and np.array_equal(g.indices, h.indices)


@pytest.mark.slow
def test_the_largest_dataset_too():
    new = datasets.load_graph("soc-slashdot")
    _same(new, _previous("soc-slashdot"))
    g, h = _dataset("soc-slashdot"), from_networkx(new)
    assert g.labels == h.labels and np.array_equal(g.indices, h.indices)
    nodes, edges = datasets.load_edges("soc-slashdot", min_degree=3)
    assert (nodes.shape[0], edges.shape[0]) == (41054, 452294)  # the loader's documented counts
