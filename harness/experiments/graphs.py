"""The built-in graph families (components of kind ``graph``).

Each family is registered with :func:`harness.register_component` exactly as a user's
module would register its own: the factory's typed keyword parameters are the sweep
axes ``graph.<parameter>``, and a factory taking ``rng`` is random (it gets a
``graph.seed`` axis, default 0; see :mod:`harness.graphs` for one graph per point or a
fresh graph per trial batch). Factories return a :class:`networkx.Graph`, a
:class:`spread.graphs.ContactGraph` or an infinite :class:`spread.graphs.LazyTree`.

=====================  ===============================================================
family                 parameters (defaults)
=====================  ===============================================================
``random-regular``     n (1000), d (4): uniform random d-regular graph
``erdos-renyi``        n (1000), mean_degree (5.0): G(n, p) with p = mean_degree/(n-1)
``barabasi-albert``    n (1000), m (3): preferential attachment
``watts-strogatz``     n (1000), k (4, even), p (0.1): ring lattice with rewiring
``powerlaw-cluster``   n (1000), m (3), p (0.5): Holme-Kim (BA + triangle closure)
``stochastic-block``   n (1000), blocks (2), p_in (0.05), p_out (0.005): planted partition
``edgelist``           path (required), nodetype, delimiter, comments, header, symmetrize,
                       cache (true): a user's edge list, plain or ``.gz``, read once into a
                       graph file (``spread.graphfile.read_edgelist``)
``ego-facebook``       min_degree (3), iterative, largest_component: bundled SNAP graph
``email-eu-core``,     min_degree (0), iterative, largest_component
``ca-grqc``,
``soc-slashdot``
``line``               (none): the infinite line
``regular-tree``       d (3): the infinite d-regular tree
``random-tree``        degrees ("3:0.5 4:0.5"): infinite tree, i.i.d. degrees
=====================  ===============================================================

Every generator estimates the memory of the graph from its parameters and refuses one
that does not fit before building it (:func:`check_graph_size`).

Named presets kept from the paper figures: ``regular-3``, ``regular-4``,
``regular-5``, ``random-tree-34``, ``random-tree-234``, ``random-tree-3-10``, and
``holme-kim-9502`` (the 9,502-node stand-in of Figs. 2.8, 2.9).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.harness.components import register_component
from anonspread.harness.params import Param
from anonspread.spread.limits import MAX_NODES, check_size

__all__ = ["BYTES_NETWORKX", "BYTES_NUMPY", "TREE_DEGREES", "check_graph_size", "parse_degree_law"]

#: Peak bytes per node and per edge of a generator that builds a networkx graph and
#: converts it (measured: 300-325 for random-regular, Barabasi-Albert, Watts-Strogatz).
BYTES_NETWORKX = 350
#: The same for the numpy generators (erdos-renyi; measured 160-195).
BYTES_NUMPY = 200


def check_graph_size(family: str, n: int, edges: float, *, per_item: int = BYTES_NETWORKX,
                     **params: Any) -> None:
    """Refuse a graph of ``n`` nodes and about ``edges`` edges that cannot be built.

    Node ids are int32 (at most :data:`spread.limits.MAX_NODES`); memory is estimated as
    ``per_item`` bytes per node and per edge and compared with
    :func:`spread.limits.memory_budget` (raise it with ``ANONSPREAD_MEMORY_LIMIT``).
    Called by each generator before it allocates anything.

    Parameters
    ----------
    family : str
        The graph component's name (for the message).
    n : int
        Nodes.
    edges : float
        Expected edges.
    per_item : int
        Bytes per node and per edge while building.
    **params
        The family's other parameters (for the message).

    Raises
    ------
    InvalidParameterError
        Naming ``graph.n``, the value and the limit.

    Examples
    --------
    >>> check_graph_size("erdos-renyi", 3_000_000_000, 1e9)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: graph.n must be at most 2147483647 (node ids are int32); got graph 'erdos-renyi' with n=3000000000
    """
    shown = ", ".join(f"{k}={v}" for k, v in {"n": n, **params}.items())
    if n > MAX_NODES:
        raise InvalidParameterError(
            f"graph.n must be at most {MAX_NODES} (node ids are int32); got graph {family!r} "
            f"with n={n}")
    check_size("graph.n", n, nbytes=per_item * (float(n) + float(edges)), work=float(n) + float(edges),
               what=f"graph {family!r} ({shown}: about {float(edges):.3g} edges)")

_N = Param("int", 1000, low=1, doc="number of nodes n")
_PROB = Param("float", 0.1, low=0.0, high=1.0, doc="rewiring probability p")


def _nx_error(family: str, exc: Exception) -> InvalidParameterError:
    return InvalidParameterError(f"graph {family!r}: {exc}")


@register_component("graph", "random-regular", params={"n": _N, "d": Param("int", 4, low=0, doc="degree d")})
def random_regular(n: int = 1000, d: int = 4, *, rng: int = 0) -> Any:
    """Uniform random d-regular graph on n nodes (networkx.random_regular_graph)."""
    import networkx as nx

    if (n * d) % 2 or d >= n:
        raise InvalidParameterError(
            f"graph 'random-regular' needs n * d even and d < n; got n={n}, d={d}")
    check_graph_size("random-regular", n, n * d / 2, d=d)
    return nx.random_regular_graph(d, n, seed=rng)


@register_component("graph", "erdos-renyi",
                    params={"n": _N, "mean_degree": Param("float", 5.0, low=0.0, doc="mean degree (n - 1) p")})
def erdos_renyi(n: int = 1000, mean_degree: float = 5.0, *, rng: int = 0) -> Any:
    """Erdos-Renyi G(n, p) with p = mean_degree / (n - 1) (drawn in O(n + m) with numpy).

    The number of edges is Binomial(n(n-1)/2, p) and, given it, the edge set is a
    uniform subset of the pairs (unordered pairs drawn uniformly until that many are
    distinct), which is G(n, p) exactly.
    """
    from anonspread.spread.graphs import ContactGraph, _csr_from_pairs

    if n > 1 and mean_degree > n - 1:
        raise InvalidParameterError(
            f"graph 'erdos-renyi' needs mean_degree <= n - 1; got n={n}, mean_degree={mean_degree}")
    check_graph_size("erdos-renyi", n, n * mean_degree / 2, per_item=BYTES_NUMPY, mean_degree=mean_degree)
    gen = np.random.default_rng(rng)
    pairs = n * (n - 1) // 2
    m = int(gen.binomial(pairs, mean_degree / (n - 1))) if n > 1 else 0
    codes = np.empty(0, np.int64)
    while codes.shape[0] < m:
        k = int((m - codes.shape[0]) * 1.1) + 16
        a = gen.integers(0, n, size=k)
        b = gen.integers(0, n, size=k)
        keep = a != b
        lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
        new = lo * n + hi
        # keep the first occurrence order so the subset is the first m distinct draws
        codes = np.concatenate([codes, new])
        _, first = np.unique(codes, return_index=True)
        codes = codes[np.sort(first)]
    codes = codes[:m]
    indptr, indices, _ = _csr_from_pairs(n, codes // n, codes % n)
    return ContactGraph(list(range(n)), indptr, indices)


@register_component("graph", "barabasi-albert", params={"n": _N, "m": Param("int", 3, low=1, doc="edges per new node m")})
def barabasi_albert(n: int = 1000, m: int = 3, *, rng: int = 0) -> Any:
    """Barabasi-Albert preferential attachment, m edges per new node."""
    import networkx as nx

    check_graph_size("barabasi-albert", n, float(n) * m, m=m)
    try:
        return nx.barabasi_albert_graph(n, m, seed=rng)
    except nx.NetworkXError as exc:
        raise _nx_error("barabasi-albert", exc) from None


@register_component("graph", "watts-strogatz",
                    params={"n": _N, "k": Param("int", 4, low=2, doc="ring-lattice degree k"), "p": _PROB})
def watts_strogatz(n: int = 1000, k: int = 4, p: float = 0.1, *, rng: int = 0) -> Any:
    """Watts-Strogatz small world: ring lattice of degree k, each edge rewired with probability p."""
    import networkx as nx

    if k >= n:
        raise InvalidParameterError(f"graph 'watts-strogatz' needs k < n; got n={n}, k={k}")
    if k % 2:
        # networkx joins each node to k // 2 neighbours on each side: an odd k would
        # silently give the graph of k - 1
        raise InvalidParameterError(
            f"graph.k must be even for graph 'watts-strogatz' (each node joins k/2 ring neighbours "
            f"on each side); got k={k}")
    check_graph_size("watts-strogatz", n, n * k / 2, k=k, p=p)
    return nx.watts_strogatz_graph(n, k, p, seed=rng)


@register_component("graph", "powerlaw-cluster",
                    params={"n": _N, "m": Param("int", 3, low=1, doc="edges per new node m"),
                            "p": Param("float", 0.5, low=0.0, high=1.0, doc="triangle-closing probability p")})
def powerlaw_cluster(n: int = 1000, m: int = 3, p: float = 0.5, *, rng: int = 0) -> Any:
    """Holme-Kim powerlaw-cluster graph: BA with a triangle-closing step of probability p."""
    import networkx as nx

    check_graph_size("powerlaw-cluster", n, float(n) * m, m=m, p=p)
    try:
        return nx.powerlaw_cluster_graph(n, m, p, seed=rng)
    except nx.NetworkXError as exc:
        raise _nx_error("powerlaw-cluster", exc) from None


@register_component("graph", "stochastic-block",
                    params={"n": _N, "blocks": Param("int", 2, low=1, doc="number of blocks"),
                            "p_in": Param("float", 0.05, low=0.0, high=1.0, doc="edge probability within a block p_in"),
                            "p_out": Param("float", 0.005, low=0.0, high=1.0,
                                            doc="edge probability across blocks p_out")})
def stochastic_block(n: int = 1000, blocks: int = 2, p_in: float = 0.05, p_out: float = 0.005,
                     *, rng: int = 0) -> Any:
    """Stochastic block model with equal blocks (sizes differ by at most 1), p_in within, p_out across."""
    import networkx as nx

    if blocks > n:
        raise InvalidParameterError(f"graph 'stochastic-block' needs blocks <= n; got {blocks} > {n}")
    within = blocks * (n / blocks) ** 2 / 2
    check_graph_size("stochastic-block", n, p_in * within + p_out * (n * n / 2 - within) + blocks,
                     blocks=blocks, p_in=p_in, p_out=p_out)
    sizes = [n // blocks + (i < n % blocks) for i in range(blocks)]
    probs = [[p_in if i == j else p_out for j in range(blocks)] for i in range(blocks)]
    return nx.stochastic_block_model(sizes, probs, seed=rng, sparse=True)


@register_component("graph", "edgelist", params={
    "path": Param("str", doc="edge-list file (.gz allowed)"),
    "nodetype": Param("str", "int", choices=("int", "str"), doc="node ids: integers, or names kept as text"),
    "delimiter": Param("str", "auto", choices=("auto", "whitespace", "comma", "tab", "semicolon"),
                       doc="column separator (auto: comma or semicolon if the first edge line has one)"),
    "comments": Param("str", "#%", doc="characters that start a comment line"),
    "header": Param("bool", False, doc="the first non-comment line names the columns"),
    "symmetrize": Param("bool", False, doc="read a directed file's arcs as undirected edges"),
    "cache": Param("bool", True, doc="keep the graph read in a memory-mapped graph file and reuse it "
                   "while the file is unchanged (spread.graphfile)"),
})
def edgelist(*, path: str, nodetype: str = "int", delimiter: str = "auto", comments: str = "#%",
             header: bool = False, symmetrize: bool = False, cache: bool = True) -> Any:
    """A user's edge-list file (two node columns, whitespace or comma, '#'/'%' comments, plain or .gz)."""
    from anonspread.spread.graphfile import read_edgelist

    return read_edgelist(path, cache=cache, nodetype=nodetype, delimiter=delimiter, comments=comments,
                         header=header, symmetrize=symmetrize)


def _dataset(name: str, *, min_degree: int = 0, iterative: bool = False,
             largest_component: bool = False) -> Any:
    """A bundled graph as a contact graph built from its arrays (:func:`datasets.load_edges`):
    the graph of ``from_networkx(datasets.load_graph(...))`` without a networkx graph (the
    k-core, ``iterative``, still through networkx: its node order is networkx's)."""
    import numpy as np

    from anonspread import datasets
    from anonspread.engine.edgelist import simple_csr
    from anonspread.spread.graphs import ContactGraph

    if iterative and min_degree > 0:
        return datasets.load_graph(name, min_degree=min_degree, iterative=True,
                                   largest_component=largest_component)
    nodes, edges = datasets.load_edges(name, min_degree=min_degree,
                                       largest_component=largest_component)
    if not nodes.shape[0]:  # the error of an empty graph, as from_networkx says it
        return datasets.load_graph(name, min_degree=min_degree, iterative=iterative,
                                   largest_component=largest_component)
    ends = np.searchsorted(nodes, edges)
    indptr, indices, dropped = simple_csr(nodes.shape[0], ends[:, 0], ends[:, 1])
    return ContactGraph(nodes.tolist(), indptr, indices, dropped=dropped)


def _register_datasets() -> None:
    from anonspread import datasets

    for name in datasets.list_datasets("graph"):
        # ego-facebook defaults to the thesis's preparation (§2.4.2: degree >= 3, one pass)
        default = 3 if name == "ego-facebook" else 0
        register_component(
            "graph", name, functools.partial(_dataset, name),
            description=f"bundled SNAP graph {name} (datasets.load_graph)",
            params={"min_degree": Param("int", default, low=0, doc="drop nodes of smaller degree"),
                    "iterative": Param("bool", False, doc="repeat until none is left (k-core)"),
                    "largest_component": Param("bool", False, doc="keep the largest connected component")})


_register_datasets()


@register_component("graph", "line")
def line() -> Any:
    """The infinite line (2-regular tree)."""
    from anonspread.spread.graphs import line as make

    return make()


@register_component("graph", "regular-tree", params={"d": Param("int", 3, low=2, doc="degree d")})
def regular_tree(d: int = 3) -> Any:
    """The infinite d-regular tree."""
    from anonspread.spread.graphs import regular_tree as make

    return make(d)


def parse_degree_law(text: str) -> dict[int, float]:
    """``"3:0.5 4:0.5"`` -> ``{3: 0.5, 4: 0.5}``: DEGREE:PROBABILITY pairs summing to 1.

    Parameters
    ----------
    text : str
        Pairs separated by spaces or semicolons.

    Returns
    -------
    dict of int to float

    Examples
    --------
    >>> parse_degree_law("3:0.8 10:0.2")
    {3: 0.8, 10: 0.2}
    """
    law: dict[int, float] = {}
    for item in str(text).replace(";", " ").split():
        d, sep, p = item.partition(":")
        try:
            degree, prob = int(d), float(p)
        except ValueError:
            degree, prob = -1, math.nan
        if not sep or degree < 1 or not (0.0 <= prob <= 1.0) or degree in law:
            raise InvalidParameterError(
                "graph.degrees must be space-separated DEGREE:PROBABILITY pairs with distinct "
                f"degrees >= 1 and probabilities summing to 1, e.g. '3:0.5 4:0.5'; got {text!r}")
        law[degree] = prob
    if not law or abs(sum(law.values()) - 1.0) > 1e-9:
        raise InvalidParameterError(
            f"graph.degrees probabilities must sum to 1 (e.g. '3:0.5 4:0.5'); got {text!r}")
    return law


@register_component("graph", "random-tree",
                    params={"degrees": Param("str", "3:0.5 4:0.5", doc="degree law, DEGREE:PROB pairs")})
def random_tree(degrees: str = "3:0.5 4:0.5") -> Any:
    """Infinite random tree, i.i.d. degrees (the simulators draw a fresh tree per trial)."""
    from anonspread.spread.graphs import random_tree as make

    return make(parse_degree_law(degrees), rng=0)


#: Degree laws of the irregular random trees of Fig. 2.7 (the thesis does not list its
#: three, so these span a narrow, a mixed and a heavy-tailed case).
TREE_DEGREES = {
    "random-tree-34": "3:0.5 4:0.5",
    "random-tree-234": "2:0.25 3:0.5 4:0.25",
    "random-tree-3-10": "3:0.8 10:0.2",
}

@register_component("graph", "holme-kim-9502")
def holme_kim_9502() -> Any:
    """Stand-in for the thesis's 9,502-user Facebook graph (Figs. 2.8, 2.9): Holme-Kim, m = 12.

    The thesis's 2009 New Orleans graph is not redistributable and the thesis gives no
    degree statistics: ``networkx.powerlaw_cluster_graph(9502, 12, 0.5, seed=1)`` has
    9,502 nodes, mean degree 23.9 (min 11, max 1,016), average clustering 0.09, connected.
    """
    return powerlaw_cluster(9502, 12, 0.5, rng=1)


for _d in (3, 4, 5):
    register_component("graph", f"regular-{_d}", functools.partial(regular_tree, _d),
                       description=f"the infinite {_d}-regular tree (regular-tree with d={_d})")
for _name, _law in TREE_DEGREES.items():
    register_component("graph", _name, functools.partial(random_tree, _law),
                       description=f"random-tree with degrees '{_law}'")
