"""Loader of the bundled real contact graphs (SNAP edge lists) as networkx graphs."""

from __future__ import annotations

import networkx as nx

from anonspread.datasets import _registry
from anonspread.datasets._edgelist import read_simple_edges
from anonspread.errors import InvalidTypeError
from anonspread.validation import check_int

__all__ = ["load_graph"]


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be True or False; got {value!r}")
    return value


def load_graph(
    name: str,
    *,
    min_degree: int = 0,
    iterative: bool = False,
    largest_component: bool = False,
) -> nx.Graph:
    """Load a bundled real graph as an undirected simple :class:`networkx.Graph`.

    The file is checked against its SHA-256 first (once per process). Every line is
    read as an unordered pair of integer node ids: directed files (email-eu-core,
    soc-slashdot) become undirected, self-loops are dropped and duplicate pairs
    merged. Node ids that occur only in self-loops are kept as isolated nodes, so
    the node counts are SNAP's. Nodes are Python ints, added in increasing
    order; ``G.graph["name"]`` is the dataset's name.

    ========================  =======  ========  ===================================
    name                      nodes    edges     notes
    ========================  =======  ========  ===================================
    ``"ego-facebook"``        4,039    88,234    connected
    ``"email-eu-core"``       1,005    16,064    19 isolated nodes (self-loops only)
    ``"ca-grqc"``             5,242    14,484    355 components (1 isolated node),
                                                 largest 4,158 nodes, 13,422 edges
    ``"soc-slashdot"``        82,168   504,230   connected; about 2 s to load
    ========================  =======  ========  ===================================

    Degree filtering follows the thesis's preparation of the Facebook graph
    (§2.4.2: "eliminated all nodes with fewer than three friends"), which is a
    single pass: with ``min_degree=k`` the nodes whose degree *in the full graph*
    is below ``k`` are removed once; survivors may end up with a smaller degree.
    With ``iterative=True`` the removal is repeated until every remaining node has
    degree at least ``k`` (the ``k``-core, :func:`networkx.k_core`). On
    ego-facebook (measured on the bundled file; the thesis's own graph, Facebook
    New Orleans from WOSN 2009, could not be bundled, see ``datasets/README.md``):

    - ``min_degree=3``: 3,866 nodes and 87,971 edges (the 173 nodes of degree 1
      or 2 removed: 75 of degree 1, 98 of degree 2), still connected, minimum
      degree 1;
    - ``min_degree=3, iterative=True`` (the 3-core): 3,856 nodes, 87,952 edges.

    The other graphs with ``min_degree=3`` (one pass / iterative): email-eu-core
    855 nodes, 15,897 edges / 854, 15,895; ca-grqc 2,929, 11,731 / 2,613, 11,292;
    soc-slashdot 41,054, 452,294 / 38,810, 448,269.

    Parameters
    ----------
    name : str
        One of ``datasets.list_datasets("graph")`` (case-insensitive).
    min_degree : int, default 0
        Remove the nodes of degree less than this (0 and 1 keep every node with
        an edge; 0 keeps isolated nodes too).
    iterative : bool, default False
        Repeat the removal until no node of degree below ``min_degree`` is left
        (the ``min_degree``-core) instead of one pass over the original degrees.
    largest_component : bool, default False
        Keep only the largest connected component, after the degree filter (ties
        broken by the smallest node id).

    Returns
    -------
    networkx.Graph
        A new graph; the caller may modify it.

    Raises
    ------
    InvalidParameterError
        If ``name`` is unknown or not a graph (the message lists the graph
        names), or ``min_degree`` is negative.
    InvalidTypeError
        If ``min_degree`` is not an integer or a flag is not a bool.
    DatasetError
        If the file is missing or corrupt (reinstall the package).

    Examples
    --------
    >>> from anonspread import datasets
    >>> G = datasets.load_graph("ego-facebook")
    >>> G.number_of_nodes(), G.number_of_edges()
    (4039, 88234)
    >>> H = datasets.load_graph("ego-facebook", min_degree=3)
    >>> H.number_of_nodes(), H.number_of_edges()
    (3866, 87971)
    """
    entry = _registry.info(name, kind="graph")
    min_degree = check_int(min_degree, "min_degree", low=0)
    iterative = _check_bool(iterative, "iterative")
    largest_component = _check_bool(largest_component, "largest_component")

    file = _registry.path(entry.name)
    nodes, edges = read_simple_edges(file, dataset=entry.name)
    graph = nx.Graph(name=entry.name)
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
    graph.graph["name"] = entry.name
    return graph
