"""Contact graphs: finite graphs in compact CSR form and infinite trees grown lazily.

Any undirected :class:`networkx.Graph` can be given to :func:`spread.simulate`; it is
converted once to a :class:`ContactGraph` (CSR adjacency with int32 node indices, the
original labels kept). The infinite graphs of the thesis (Chapter 2) are
:func:`line`, :func:`regular_tree` and :func:`random_tree`: they exist only as far as
a run has touched them.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from anonspread.engine import edgelist as _edgelist_kernels
from anonspread.engine import store as _store
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.edgelist import (
    BYTES_PER_EDGE_READ,
    EDGELIST_DELIMITERS,
    MAX_LINE_CHARS,
    parse_edgelist,
)
from anonspread.validation import check_int, check_rng

__all__ = [
    "BYTES_PER_EDGE_READ",
    "EDGELIST_DELIMITERS",
    "MAX_LINE_CHARS",
    "ContactGraph",
    "LazyTree",
    "as_contact_graph",
    "from_edgelist",
    "from_networkx",
    "line",
    "random_tree",
    "regular_tree",
]


class ContactGraph:
    """A finite, undirected, simple contact graph in CSR form.

    Build one with :func:`from_networkx` or :func:`from_edgelist`; node ``i`` (an int32
    index) has label ``labels[i]`` and neighbours ``indices[indptr[i]:indptr[i + 1]]``.
    The parameters are kept as attributes of the same names.

    Parameters
    ----------
    labels : iterable
        Original node labels, by index (kept as a list).
    indptr : numpy.ndarray of int64, shape (n + 1,)
        Row pointers of the CSR adjacency.
    indices : numpy.ndarray of int32, shape (2 m,)
        Neighbour indices, each edge listed from both ends.
    dropped : dict, optional
        What the conversion dropped: ``{"self_loops": k, "duplicate_edges": k}`` (and
        ``"reciprocal_arcs"``: pairs merged when a directed file was symmetrised).
    read_info : dict, optional
        How :func:`from_edgelist` read the file (path, delimiter, comment characters,
        header line, node type, ignored columns, ``directed``: False or "symmetrised");
        empty for other graphs.
    """

    is_infinite = False
    #: The graph file this graph is mapped from (:mod:`spread.graphfile`), else None.
    graph_file = None

    def __init__(self, labels, indptr, indices, *, dropped=None, read_info=None) -> None:
        self.labels = list(labels)
        self.indptr = indptr
        self.indices = indices
        self.dropped = dict(dropped or {})
        self.read_info = dict(read_info or {})
        self._index: dict | None = None
        # derived once per graph (per-trial work must not scale with the graph)
        self._degrees: np.ndarray | None = None
        self._summary: tuple[int, int | None] | None = None
        self._components: tuple[np.ndarray, np.ndarray] | None = None
        self._label_order: np.ndarray | None = None
        self._label_array: tuple | None = None
        self._stores: list = []

    # -- size and lookup
    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"ContactGraph(n={self.number_of_nodes()}, m={self.number_of_edges()})"

    def number_of_nodes(self) -> int:
        """The number of nodes."""
        return len(self.labels)

    def number_of_edges(self) -> int:
        """The number of undirected edges."""
        return int(self.indices.shape[0] // 2)

    @property
    def index(self) -> dict:
        """Mapping label -> int index."""
        if self._index is None:
            self._index = {lab: i for i, lab in enumerate(self.labels)}
        return self._index

    def node_index(self, label: Hashable, name: str = "source") -> int:
        """The int index of the node ``label``; a :class:`GraphError` naming ``name`` if absent.

        Parameters
        ----------
        label : hashable
            A node label.
        name : str, default "source"
            The argument named in the error.

        Returns
        -------
        int
            Its index.
        """
        try:
            return self.index[label]
        except (KeyError, TypeError):
            raise GraphError(f"{name} must be a node of the graph; got {label!r}") from None

    def degree(self, i: int) -> int:
        """Degree of the node with index ``i``.

        Parameters
        ----------
        i : int
            A node index.

        Returns
        -------
        int
            Its degree.
        """
        return int(self.indptr[i + 1] - self.indptr[i])

    def neighbors(self, i: int) -> np.ndarray:
        """Neighbour indices of the node with index ``i``.

        Parameters
        ----------
        i : int
            A node index.

        Returns
        -------
        numpy.ndarray of int32
            A view of ``indices``, in increasing order.
        """
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    @property
    def degrees(self) -> np.ndarray:
        """Node degrees by index (int32, computed once; read-only)."""
        if self._degrees is None:
            d = np.diff(self.indptr).astype(np.int32)
            d.flags.writeable = False
            self._degrees = d
        return self._degrees

    def labels_of(self, idx: np.ndarray) -> np.ndarray:
        """The labels of the nodes with indices ``idx``: int64 when every label is an int,
        else an object array.

        Parameters
        ----------
        idx : numpy.ndarray of int
            Node indices.

        Returns
        -------
        numpy.ndarray
            Their labels.
        """
        arr = self.label_array()
        if arr is not None:
            return arr[idx]
        labels = self.labels
        out = np.empty(len(idx), dtype=object)
        out[:] = [labels[i] for i in idx]
        return out

    def node_indices(self, labels: Sequence[Hashable], name: str = "source") -> np.ndarray:
        """The int indices of the nodes ``labels`` (int64); a :class:`GraphError` naming
        ``name`` for the first absent one.

        With int labels the nodes are found by a binary search in the labels' sorted
        order (:meth:`label_order`: 4 bytes per node, computed once per graph or read from
        its graph file) rather than in :attr:`index`, a dict of about 100 bytes per node
        built on first use (over 10^9 bytes at 10^7 nodes, in every process); any other
        label, or a graph whose dict exists already, goes through :meth:`node_index`.

        Parameters
        ----------
        labels : sequence of hashable
            Node labels.
        name : str, default "source"
            The argument named in the error.

        Returns
        -------
        numpy.ndarray of int64

        Examples
        --------
        >>> import networkx as nx
        >>> g = from_networkx(nx.relabel_nodes(nx.path_graph(4), {0: 30, 1: 10, 2: 20, 3: 0}))
        >>> g.node_indices([20, 30, 0]).tolist()
        [2, 0, 3]
        """
        q = list(labels)
        arr = self.label_array() if self._index is None else None
        if (arr is None or not arr.shape[0]
                or not all(type(x) is int or (isinstance(x, np.integer) and not isinstance(x, bool))
                           for x in q)):
            return np.fromiter((self.node_index(x, name) for x in q), np.int64, count=len(q))
        try:
            want = np.asarray(q, dtype=np.int64).reshape(-1)
        except OverflowError:  # beyond int64: no such label here, the dict path says which
            return np.fromiter((self.node_index(x, name) for x in q), np.int64, count=len(q))
        order = self.label_order()
        n = arr.shape[0]
        lo = np.zeros(want.shape[0], np.int64)
        hi = np.full(want.shape[0], n, np.int64)
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            below = arr[order[np.minimum(mid, n - 1)]] < want
            lo = np.where(active & below, mid + 1, lo)
            hi = np.where(active & ~below, mid, hi)
        idx = order[np.minimum(lo, n - 1)].astype(np.int64)
        missing = np.flatnonzero((lo >= n) | (arr[idx] != want))
        if missing.size:
            raise GraphError(f"{name} must be a node of the graph; got {q[int(missing[0])]!r}")
        return idx

    def label_order(self) -> np.ndarray | None:
        """The node indices in increasing order of their int labels (int32 below 2^31
        nodes; None unless every label is an int), computed once per graph or read from
        its graph file.

        Returns
        -------
        numpy.ndarray or None

        Examples
        --------
        >>> import networkx as nx
        >>> from_networkx(nx.relabel_nodes(nx.path_graph(3), {0: 5, 1: -1, 2: 3})).label_order().tolist()
        [1, 2, 0]
        """
        if self._label_order is None:
            arr = self.label_array()
            if arr is None:
                return None
            order = np.argsort(arr, kind="stable")
            if arr.shape[0] < 2**31:
                order = order.astype(np.int32)
            order.flags.writeable = False
            self._label_order = order
        return self._label_order

    def label_array(self) -> np.ndarray | None:
        """``labels`` as an int64 array when every label is an int, else None (cached)."""
        cached = self._label_array
        if cached is not None and cached[0] is self.labels and cached[1] == len(self.labels):
            return cached[2]
        labels = self.labels
        arr = None
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in labels):
            try:
                arr = np.asarray(labels, dtype=np.int64)
            except OverflowError:
                arr = None
        if arr is not None:
            arr.flags.writeable = False
        self._label_array = (labels, len(labels), arr)
        return arr

    def regular_degree(self) -> int | None:
        """The common degree if the graph is regular, else None."""
        return self._degree_summary()[1]

    def max_degree(self) -> int:
        """The largest degree."""
        return self._degree_summary()[0]

    def components(self) -> tuple[np.ndarray, np.ndarray]:
        """The connected components: each node's component and each component's size.

        Computed once per graph by the engine's union-find over the CSR arrays (no copy
        of them, :func:`anonspread.engine.graphs.connected_components`); a graph mapped
        from a graph file reads them from the file, where they were stored when it was
        written (:mod:`spread.graphfile`).

        Returns
        -------
        labels : numpy.ndarray of int32, shape (n,)
            Each node's component, numbered in the order of the components' smallest nodes.
        sizes : numpy.ndarray of int64
            The number of nodes of each component.

        Examples
        --------
        >>> import networkx as nx
        >>> labels, sizes = from_networkx(nx.Graph([(0, 1), (1, 2), (3, 4)])).components()
        >>> labels.tolist(), sizes.tolist()
        ([0, 0, 0, 1, 1], [3, 2])
        """
        if self._components is None:
            from anonspread.engine.graphs import connected_components

            self._components = connected_components(self.indptr, self.indices)
        return self._components

    def _degree_summary(self) -> tuple[int, int | None]:
        if self._summary is None:
            d = self.degrees
            top = int(d.max()) if d.size else 0
            regular = int(d[0]) if d.size and np.all(d == d[0]) else None
            self._summary = (top, regular)
        return self._summary

    def to_networkx(self) -> nx.Graph:
        """The graph as a :class:`networkx.Graph` with the original labels."""
        G = nx.Graph()
        G.add_nodes_from(self.labels)
        src = np.repeat(np.arange(len(self.labels)), np.diff(self.indptr))
        G.add_edges_from(
            (self.labels[a], self.labels[b]) for a, b in zip(src, self.indices) if a < b
        )
        return G

    def _new_store(self):
        return _store.new_finite_store(self.indptr, self.indices)

    def take_store(self):
        """A store with clean run state: a cached one if any is free, else a new one.

        Give it back with :meth:`give_store` once its run state is cleared again, so
        that a run costs time in proportion to the nodes it touches, not to the graph.
        (A store taken and not given back, e.g. by a run that failed half-way, is simply
        dropped: the next run builds a clean one.)
        """
        try:
            return self._stores.pop()
        except IndexError:
            return self._new_store()

    def give_store(self, store) -> None:
        """Return a store taken with :meth:`take_store`, its run state cleared.

        Parameters
        ----------
        store : GraphStore
            The store (kept for the next run if no other is cached).
        """
        if not self._stores:
            self._stores.append(store)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # a graph mapped from a graph file travels as a reference to it (path and content
        # token): the receiving process maps the file again, it never gets the arrays
        ref = self.__dict__.get("graph_file")
        if ref is not None:
            return ref.pickle_recipe()
        return super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict:
        # the run caches are rebuilt on use: do not ship a full-size node store along
        state = dict(self.__dict__)
        state["_stores"] = []
        state["_label_array"] = None
        return state


def _csr_from_pairs(n: int, a: np.ndarray, b: np.ndarray):
    """CSR (indptr, indices) of the undirected simple graph with edges (a[i], b[i]).

    Self-loops and duplicate edges are dropped; returns (indptr, indices, dropped). One
    sort of one key per edge (:func:`anonspread.engine.edgelist.simple_csr`).
    """
    return _edgelist_kernels.simple_csr(n, a, b)


def from_networkx(graph: nx.Graph) -> ContactGraph:
    """Convert an undirected, simple networkx graph to a :class:`ContactGraph`.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected, not a multigraph, at least one node; self-loops and duplicate edges
        are dropped (counted in ``dropped``).

    Returns
    -------
    ContactGraph
        Node ``i`` is the ``i``-th node of ``graph.nodes``.

    Raises
    ------
    GraphError
        For directed graphs, multigraphs and graphs without nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> g = from_networkx(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.neighbors(1).tolist()
    (['a', 'b', 'c'], [0, 2])
    """
    if not isinstance(graph, nx.Graph):
        raise InvalidTypeError(
            "graph must be a networkx.Graph or a graph from spread.graphs; "
            f"got {type(graph).__name__}"
        )
    if graph.is_directed():
        raise GraphError(
            "graph must be undirected (spreading follows contacts both ways); got a directed "
            f"{type(graph).__name__}: convert it with graph.to_undirected()"
        )
    if graph.is_multigraph():
        raise GraphError(
            f"graph must be a simple graph; got a {type(graph).__name__}: "
            "convert it with networkx.Graph(graph)"
        )
    if graph.number_of_nodes() == 0:
        raise GraphError("graph must have at least one node; got an empty graph")
    labels = list(graph.nodes)
    index = {lab: i for i, lab in enumerate(labels)}
    m = graph.number_of_edges()
    a = np.fromiter((index[u] for u, _ in graph.edges), dtype=np.int64, count=m)
    b = np.fromiter((index[v] for _, v in graph.edges), dtype=np.int64, count=m)
    indptr, indices, dropped = _csr_from_pairs(len(labels), a, b)
    return ContactGraph(labels, indptr, indices, dropped=dropped)


def from_edgelist(path: str | os.PathLike, *, nodetype: Any = int, delimiter: str | None = "auto",
                  comments: str = "#%", header: bool = False, symmetrize: bool = False) -> ContactGraph:
    """Read an edge list (plain or ``.gz``) into an undirected :class:`ContactGraph`.

    One edge per line: two node tokens, then any further columns (a weight, a time), which
    are ignored and counted. Lines starting with a comment character and blank lines are
    skipped; CRLF line ends are accepted. Self-loops and duplicate edges are dropped and
    counted in ``ContactGraph.dropped``; how the file was read (delimiter, header, ignored
    columns, symmetrised arcs) is in ``ContactGraph.read_info``.

    A directed file is refused unless ``symmetrize=True``: a file is taken as directed
    when a comment line says "directed" (as SNAP's "# Directed graph" headers do) or
    when some node pairs appear in both orientations and others in one only (a list of
    arcs; a file listing every edge both ways is an undirected graph written twice).
    With ``symmetrize=True`` every arc becomes an undirected edge and the pairs merged
    are counted (``dropped["reciprocal_arcs"]``).

    A file that is not UTF-8 text, a ``.gz`` that is not a complete gzip stream, a
    directory or anything but a regular file (``/dev/zero``, a pipe), a line longer than
    :data:`MAX_LINE_CHARS`, or a token that ``nodetype`` rejects (or turns into NaN) is a
    :class:`~anonspread.errors.GraphError` naming the file and line. With the default
    ``nodetype=int`` a node id is ASCII digits with an optional minus sign (``int`` alone would
    also read ``1_000`` and non-ASCII digits). An edge list too large for the memory limit
    (:mod:`spread.limits`) is refused while it is read, before it fills the memory.

    Parameters
    ----------
    path : str or os.PathLike
    nodetype : {int, str, "int", "str"} or callable
        Converts each node token (default ``int``; ``str`` keeps names such as ``user0``).
    delimiter : {"auto", "whitespace", "comma", "tab", "semicolon"}
        What separates the columns (also ``None``, ``","``, ``"\t"``, ``";"``); ``"auto"``
        (default) takes comma or semicolon when the first edge line holds one, else runs of
        spaces and tabs.
    comments : str
        Characters that start a comment line (default ``"#%"``; ``""``: none).
    header : bool
        The first line that is not a comment names the columns (skipped).
    symmetrize : bool
        Read a directed file as undirected (each arc an edge), instead of refusing it.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "g.txt")
    >>> _ = open(p, "w").write("# a comment\\n0 1\\r\\n0 1\\n1 1\\n1 2\\n")
    >>> g = from_edgelist(p)
    >>> g.number_of_edges(), g.dropped
    (2, {'self_loops': 1, 'duplicate_edges': 1})
    >>> _ = open(p, "w").write("% users\\nsrc,dst,weight\\nuser0,user1,3\\nuser1,user2,1\\n")
    >>> g = from_edgelist(p, nodetype=str, header=True)
    >>> g.labels, g.read_info["delimiter"], g.read_info["ignored_columns"]
    (['user0', 'user1', 'user2'], 'comma', 1)
    """
    labels, indptr, indices, dropped, info = parse_edgelist(
        path, nodetype=nodetype, delimiter=delimiter, comments=comments, header=header,
        symmetrize=symmetrize)
    return ContactGraph(labels, indptr, indices, dropped=dropped, read_info=info)


def as_contact_graph(graph: Any) -> ContactGraph | LazyTree:
    """Return ``graph`` as a spread-ready graph (converting a networkx graph once).

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        A graph; a ContactGraph or LazyTree is returned as is.

    Returns
    -------
    ContactGraph or LazyTree
        The graph (:func:`from_networkx` of a networkx graph).

    Examples
    --------
    >>> import networkx as nx
    >>> as_contact_graph(nx.cycle_graph(4))
    ContactGraph(n=4, m=4)
    """
    if isinstance(graph, (ContactGraph, LazyTree)):
        return graph
    return from_networkx(graph)


# ----------------------------------------------------------------- infinite trees


class LazyTree:
    """An infinite tree whose nodes are created the first time a run touches them.

    Do not build directly: use :func:`line`, :func:`regular_tree` or :func:`random_tree`.
    Nodes are int ids in creation order; node 0 is the root (the default source).
    Neighbours of a node are listed as (tree parent, then children in order). Node
    degrees of a random tree are drawn from ``degrees`` by a generator keyed on the
    node's position, so the realisation depends only on the tree's seed.

    Parameters
    ----------
    kind : {"line", "regular", "random"}
        Which constructor built it.
    degrees : mapping {degree: probability}
        The degree law (one degree with probability 1 for ``line`` and ``regular``).
    seed : int
        The realisation's seed.

    Examples
    --------
    >>> t = regular_tree(3)
    >>> t.neighbors(0).tolist(), t.neighbors(1).tolist(), t.parent(1), t.depth(4)
    ([1, 2, 3], [0, 4, 5], 0, 2)
    """

    is_infinite = True

    def __init__(self, kind: str, degrees: Mapping[int, float], seed: int) -> None:
        self.kind = kind
        self.degrees = dict(degrees)
        self.seed = seed
        self._store = None

    def __repr__(self) -> str:
        if self.kind == "random":
            return f"random_tree({self.degrees!r}, seed={self.seed})"
        if self.kind == "line":
            return "line()"
        return f"regular_tree({self.regular_degree()})"

    # -- description
    def _dist(self) -> tuple[np.ndarray, np.ndarray]:
        vals = np.array(sorted(self.degrees), dtype=np.int32)
        probs = np.array([self.degrees[v] for v in vals], dtype=np.float64)
        cdf = np.cumsum(probs)
        cdf[-1] = 1.0
        return vals, cdf

    def regular_degree(self) -> int | None:
        """The common degree when every node has the same degree, else None."""
        support = [d for d, p in self.degrees.items() if p > 0]
        return support[0] if len(support) == 1 else None

    def max_degree(self) -> int:
        """The largest degree of the degree law."""
        return max(d for d, p in self.degrees.items() if p > 0)

    def _new_store(self, seed: int | None = None, capacity: int = 1024):
        vals, cdf = self._dist()
        return _store.new_lazy_store(vals, cdf, self.seed if seed is None else seed, capacity)

    # -- the persistent realisation (used by simulate and by adversaries)
    @property
    def store(self):
        """The realisation so far, as the engine's node store (a ``GraphStore``: named arrays)."""
        if self._store is None:
            self._store = self._new_store()
        return self._store

    def number_of_touched_nodes(self) -> int:
        """How many nodes of the infinite tree exist so far."""
        return self.store.n_nodes

    def node_index(self, v: Any, name: str = "node") -> int:
        """``v`` as a node id; a :class:`GraphError` naming ``name`` unless the tree has it so far.

        Parameters
        ----------
        v : int
            A node id.
        name : str, default "node"
            The argument named in the error.

        Returns
        -------
        int
            ``v``.
        """
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise GraphError(f"{name} must be a node id (int) of this tree; got {v!r}")
        if not 0 <= int(v) < self.number_of_touched_nodes():
            raise GraphError(
                f"{name} must be a node of the tree created so far "
                f"(0..{self.number_of_touched_nodes() - 1}); got {v!r}"
            )
        return int(v)

    def labels_of(self, idx: np.ndarray) -> np.ndarray:
        """The labels of the nodes with ids ``idx`` (a tree's labels are its int64 ids).

        Parameters
        ----------
        idx : numpy.ndarray of int
            Node ids.

        Returns
        -------
        numpy.ndarray of int64
            The same ids.
        """
        return np.asarray(idx).astype(np.int64)

    def degree(self, v: int) -> int:
        """Degree of node ``v``.

        Parameters
        ----------
        v : int
            A node id created so far.

        Returns
        -------
        int
            Its degree.
        """
        v = self.node_index(v)
        return int(self.store.deg[v])

    def neighbors(self, v: int) -> np.ndarray:
        """Neighbour ids of node ``v`` (creating them if needed).

        Parameters
        ----------
        v : int
            A node id created so far.

        Returns
        -------
        numpy.ndarray
            Its tree parent (unless ``v`` is the root), then its children.
        """
        v = self.node_index(v)
        s = self.store
        s.expand(v)
        return s.nbr[s.start[v] : s.start[v] + s.deg[v]].copy()

    def parent(self, v: int) -> int | None:
        """The tree parent of ``v`` towards the root (None for the root).

        Parameters
        ----------
        v : int
            A node id created so far.

        Returns
        -------
        int or None
            The parent's id.
        """
        v = self.node_index(v)
        p = int(self.store.tpar[v])
        return None if p < 0 else p

    def depth(self, v: int) -> int:
        """Hop distance from node ``v`` to the root.

        Parameters
        ----------
        v : int
            A node id created so far.

        Returns
        -------
        int
            Its depth (0 for the root).
        """
        v = self.node_index(v)
        tpar = self.store.tpar
        d = 0
        while tpar[v] >= 0:
            v = int(tpar[v])
            d += 1
        return d

    def position(self, v: int) -> int:
        """On :func:`line`: the signed position of node ``v`` (root 0, its first child +1).

        Parameters
        ----------
        v : int
            A node id created so far.

        Returns
        -------
        int
            Its position: the depth, negative on the side of the root's second child.

        Examples
        --------
        >>> g = line()
        >>> g.neighbors(0).tolist(), g.position(1), g.position(2)
        ([1, 2], 1, -1)
        """
        if self.kind != "line":
            raise GraphError(f"position() is defined on line() only; this is {self!r}")
        v = self.node_index(v)
        tpar = self.store.tpar
        if v == 0:
            return 0
        d = self.depth(v)
        x = v
        while tpar[x] != 0:
            x = int(tpar[x])
        first_child = int(self.store.nbr[self.store.start[0]])
        return d if x == first_child else -d

    def nodes_touched(self) -> Iterator[int]:
        """The ids of the nodes created so far."""
        return iter(range(self.number_of_touched_nodes()))


def line() -> LazyTree:
    """The infinite line (the 2-regular tree), grown lazily.

    Examples
    --------
    >>> g = line()
    >>> g.neighbors(0).tolist(), g.neighbors(1).tolist()
    ([1, 2], [0, 3])
    """
    return LazyTree("line", {2: 1.0}, seed=0)


def regular_tree(d: int) -> LazyTree:
    """The infinite ``d``-regular tree (``d >= 2``), grown lazily.

    Parameters
    ----------
    d : int >= 2
        Every node's degree (2: :func:`line`).

    Returns
    -------
    LazyTree
        Rooted at node 0.

    Examples
    --------
    >>> regular_tree(3).neighbors(0).tolist()
    [1, 2, 3]
    """
    d = check_int(d, "d", low=2)
    if d == 2:
        return line()
    return LazyTree("regular", {d: 1.0}, seed=0)


def random_tree(degrees: Mapping[int, float], *, rng: Any = None) -> LazyTree:
    """An infinite random tree: each node's degree is drawn i.i.d. from ``degrees``.

    Parameters
    ----------
    degrees : mapping {degree: probability}
        Degrees must be integers >= 1 and probabilities non-negative, summing to 1
        (within 1e-9). A degree of 1 makes a leaf: the tree may then be finite.
    rng : None, int or numpy.random.Generator
        Seeds the realisation. Node degrees are a function of (seed, position), so the
        same seed gives the same tree however a run explores it.

    Examples
    --------
    >>> g = random_tree({3: 0.5, 4: 0.5}, rng=1)
    >>> sorted(set(g.degree(v) for v in g.neighbors(0))) <= [3, 4]
    True
    """
    if not isinstance(degrees, Mapping) or not degrees:
        raise InvalidTypeError(
            f"degrees must be a non-empty mapping {{degree: probability}}; got {degrees!r}"
        )
    clean: dict[int, float] = {}
    for d, p in degrees.items():
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1:
            raise InvalidParameterError(
                f"degrees must map integer degrees >= 1 to probabilities; got degree {d!r}"
            )
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (p >= 0) or math.isinf(p):
            raise InvalidParameterError(
                f"degrees must map degrees to probabilities in [0, 1]; got {d!r}: {p!r}"
            )
        clean[int(d)] = float(p)
    total = sum(clean.values())
    if abs(total - 1.0) > 1e-9:
        raise InvalidParameterError(
            f"degrees probabilities must sum to 1 (within 1e-9); got a sum of {total!r}"
        )
    seed = int(check_rng(rng).integers(0, 2**63 - 1))
    return LazyTree("random", clean, seed=seed)
