"""What a snapshot adversary observes (thesis §2.1.2), and its array form.

The snapshot adversary knows the whole contact graph, the set of infected nodes at
time T and T itself, but not who infected whom nor when. For the experiment of
§2.4.2 (graphs with cycles) it is also given the undirected infection tree.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from anonspread.engine.graphs import induced_subgraph
from anonspread.errors import GraphError, InvalidTypeError
from anonspread.spread.graphs import ContactGraph, LazyTree, as_contact_graph
from anonspread.spread.result import Spread
from anonspread.validation import check_int

__all__ = ["Snapshot", "observe"]

_FOREST: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def graph_is_forest(g: ContactGraph | LazyTree) -> bool:
    """True when the contact graph has no cycle (lazily grown trees always)."""
    if isinstance(g, LazyTree):
        return True
    hit = _FOREST.get(g)
    if hit is None:
        n, m = g.number_of_nodes(), g.number_of_edges()
        # a forest has n - k <= n - 1 edges; otherwise the graph's own components (computed
        # once per graph without a copy of it, or read from its graph file)
        hit = n == 0 or (m < n and m == n - int(g.components()[1].shape[0]))
        _FOREST[g] = hit
    return hit


def _csr_from_edges(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (indptr int64, indices int32) of the undirected edges (a[i], b[i])."""
    src = np.concatenate([a, b]).astype(np.int64)
    dst = np.concatenate([b, a]).astype(np.int32)
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, np.ascontiguousarray(dst[order])


def _components(indptr: np.ndarray, indices: np.ndarray) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = indptr.shape[0] - 1
    if n == 0:
        return 0
    data = np.ones(indices.shape[0], np.int8)
    k, _ = connected_components(csr_matrix((data, indices, indptr), shape=(n, n)), directed=False)
    return int(k)


class Snapshot:
    """A snapshot observation: contact graph, infected set, time T (thesis §2.1.2).

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph (a networkx graph is converted once to CSR; a lazily grown
        tree must be the object the spread ran on, so that its nodes exist).
    infected : iterable of nodes
        The infected nodes (any order, no repeats); they must induce a connected
        subgraph, as every protocol of :mod:`spread.protocols` leaves them.
    T : int >= 0
        The time of the snapshot.
    infection_edges : iterable of (node, node) pairs, optional
        The undirected infection tree (§2.4.2's stronger adversary): ``n - 1`` edges
        of the contact graph joining the infected nodes into a tree.

    Attributes
    ----------
    graph : ContactGraph or LazyTree
    nodes : numpy.ndarray
        The infected nodes (labels), in the order given.
    T : int
    n : int
        Number of infected nodes.

    Raises
    ------
    GraphError
        Nodes not in the graph, repeated nodes, an empty or disconnected infected
        set, or infection edges that are not a spanning tree of it.

    Examples
    --------
    >>> import networkx as nx
    >>> s = Snapshot(nx.path_graph(5), [1, 2, 3], T=2)
    >>> s.n, s.T
    (3, 2)
    """

    def __init__(
        self,
        graph: Any,
        infected: Iterable,
        T: int,
        infection_edges: Iterable | None = None,
    ) -> None:
        g = as_contact_graph(graph)
        T = check_int(T, "T", low=0)
        if isinstance(infected, np.ndarray):
            labels = infected.tolist()
        else:
            try:
                labels = list(infected)
            except TypeError:
                raise InvalidTypeError(
                    f"infected must be an iterable of nodes of graph; got {infected!r}"
                ) from None
        if not labels:
            raise GraphError("infected must hold at least one node of graph; got an empty set")
        idx = np.array([g.node_index(v, "infected node") for v in labels], np.int64)
        if np.unique(idx).shape[0] != idx.shape[0]:
            raise GraphError(f"infected must list each node once; got repeats in {labels!r}"[:200])
        edges = None
        if infection_edges is not None:
            edges = self._edge_positions(g, idx, infection_edges)
        self._init(g, _label_array(labels), idx, T, edges)
        self._check_connected()

    # -- construction -------------------------------------------------------------
    def _init(self, g, labels, idx, T, edges) -> None:
        self.graph = g
        self.nodes = labels
        self.index = idx
        self.T = int(T)
        self.n = int(idx.shape[0])
        self._edges = edges  # (a, b) local positions of the infection tree, or None
        self._sub: tuple[np.ndarray, np.ndarray] | None = None
        self._tree: tuple[np.ndarray, np.ndarray] | None = None
        self._gdeg: np.ndarray | None = None
        self._pos: dict | None = None

    @classmethod
    def _from_spread(cls, sp: Spread, reveal_edges: bool) -> Snapshot:
        self = cls.__new__(cls)
        edges = None
        if reveal_edges:
            child = np.nonzero(sp.parent_position >= 0)[0]
            edges = (sp.parent_position[child].astype(np.int64), child.astype(np.int64))
        self._init(sp.graph, sp.infected, np.asarray(sp.index, np.int64), sp.T, edges)
        return self

    @staticmethod
    def _edge_positions(g, idx, infection_edges) -> tuple[np.ndarray, np.ndarray]:
        pos = {int(v): i for i, v in enumerate(idx.tolist())}
        a: list[int] = []
        b: list[int] = []
        for e in infection_edges:
            try:
                u, v = e
            except (TypeError, ValueError):
                raise GraphError(f"infection_edges must be (node, node) pairs; got {e!r}") from None
            iu = g.node_index(u, "infection edge end")
            iv = g.node_index(v, "infection edge end")
            if iu not in pos or iv not in pos:
                raise GraphError(f"infection_edges must join infected nodes; got {e!r}")
            if isinstance(g, LazyTree):
                adjacent = g.parent(iu) == iv or g.parent(iv) == iu
            else:
                adjacent = iv in set(g.neighbors(iu).tolist())
            if not adjacent:
                raise GraphError(f"infection_edges must be edges of graph; got {e!r}")
            a.append(pos[iu])
            b.append(pos[iv])
        n = len(pos)
        ea, eb = np.array(a, np.int64), np.array(b, np.int64)
        if ea.shape[0] != n - 1 or _components(*_csr_from_edges(n, ea, eb)) != 1:
            raise GraphError(
                f"infection_edges must be a spanning tree of the {n} infected nodes "
                f"({n - 1} edges, connected); got {ea.shape[0]} edges"
            )
        return ea, eb

    def _check_connected(self) -> None:
        k = _components(*self.subgraph())
        if k != 1:
            raise GraphError(
                "infected must induce a connected subgraph of graph (every protocol spreads "
                f"along contacts); got {k} connected components"
            )

    # -- array views used by the estimators ---------------------------------------
    def subgraph(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR ``(indptr, indices)`` of the infected subgraph over local ids ``0..n-1``."""
        if self._sub is None:
            g = self.graph
            idx = self.index
            n = self.n
            if isinstance(g, LazyTree):
                tpar = g.store.tpar
                cap = tpar.shape[0]
                loc = np.full(cap, -1, np.int64)
                loc[idx] = np.arange(n)
                par = tpar[idx].astype(np.int64)
                ok = par >= 0
                child = np.nonzero(ok)[0]
                lp = loc[par[ok]]
                keep = lp >= 0
                self._sub = _csr_from_edges(n, lp[keep], child[keep])
            else:
                # compiled: two passes over the infected rows, 4 bytes per node of the
                # graph (a numpy gather held several int64 arrays of the infected
                # nodes' summed degree: 13 s and ~4 GB at 2.35x10^6 infected of a
                # 10^8-edge graph); the same arrays, arc for arc
                self._sub = induced_subgraph(g.indptr, g.indices, idx)
        return self._sub

    def subgraph_is_tree(self) -> bool:
        """Whether the infected subgraph is a tree (``n - 1`` edges; it is connected)."""
        indptr, indices = self.subgraph()
        return indices.shape[0] == 2 * (self.n - 1)

    def infection_tree(self) -> tuple[np.ndarray, np.ndarray] | None:
        """CSR of the revealed infection tree (local ids), or None if not revealed."""
        if self._edges is None:
            return None
        if self._tree is None:
            self._tree = _csr_from_edges(self.n, *self._edges)
        return self._tree

    def contact_degrees(self) -> np.ndarray:
        """Degree in the contact graph of each infected node (local order), int64."""
        if self._gdeg is None:
            g = self.graph
            if isinstance(g, LazyTree):
                self._gdeg = g.store.deg[self.index].astype(np.int64)
            else:
                self._gdeg = (g.indptr[self.index + 1] - g.indptr[self.index]).astype(np.int64)
        return self._gdeg

    @property
    def infection_edges(self) -> list[tuple] | None:
        """The revealed infection tree as (node, node) pairs, or None."""
        if self._edges is None:
            return None
        labels = self.nodes.tolist()
        return [(labels[a], labels[b]) for a, b in zip(self._edges[0].tolist(), self._edges[1].tolist())]

    def position(self, node: Any) -> int:
        """Local id (row in :attr:`nodes`) of an infected node.

        Parameters
        ----------
        node : node label
            An infected node.

        Returns
        -------
        int

        Raises
        ------
        GraphError
            ``node`` is not an infected node of the snapshot.
        """
        if self._pos is None:
            nodes = self.nodes
            if (not getattr(self, "_pos_scanned", False) and nodes.dtype.kind in "iu"
                    and isinstance(node, (int, np.integer)) and not isinstance(node, (bool, np.bool_))
                    and -(2**63) <= node < 2**64):
                # the first look-up of integer labels scans (a few ms at 10^6 infected);
                # a dict of every label (~0.8 s and ~100 bytes a node at 2.35x10^6) is
                # built at the second
                self._pos_scanned = True
                hit = np.flatnonzero(nodes == node)
                if hit.size:
                    return int(hit[0])
                raise GraphError(f"node must be an infected node of the snapshot; got {node!r}")
            self._pos = {v: i for i, v in enumerate(nodes.tolist())}
        try:
            return self._pos[node]
        except (KeyError, TypeError):
            raise GraphError(f"node must be an infected node of the snapshot; got {node!r}") from None

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        extra = ", infection_edges=..." if self._edges is not None else ""
        return f"Snapshot(graph={self.graph!r}, n_infected={self.n}, T={self.T}{extra})"


def _label_array(labels: list) -> np.ndarray:
    if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in labels):
        return np.asarray(labels, np.int64)
    out = np.empty(len(labels), dtype=object)
    for i, x in enumerate(labels):
        out[i] = x
    return out


def relisted(snapshot: Snapshot, perm: np.ndarray) -> tuple[Snapshot, np.ndarray]:
    """The same observation with its infected nodes listed in the order ``perm`` (the old
    positions, in their new order), and where each old position went (``inv[old] = new``);
    a revealed infection tree's edges follow their nodes."""
    perm = np.asarray(perm, np.int64)
    inv = np.empty(snapshot.n, np.int64)
    inv[perm] = np.arange(snapshot.n)
    edges = None if snapshot._edges is None else (inv[snapshot._edges[0]], inv[snapshot._edges[1]])
    out = Snapshot.__new__(Snapshot)
    out._init(snapshot.graph, snapshot.nodes[perm], snapshot.index[perm], snapshot.T, edges)
    return out, inv


def observe(spread: Spread, *, reveal_edges: bool = False) -> Snapshot:
    """The snapshot adversary's view of a spread (thesis §2.1.2).

    Parameters
    ----------
    spread : Spread
        A result of :func:`spread.simulate`.
    reveal_edges : bool
        Also reveal the undirected infection tree (the adversary of §2.4.2, needed by
        the near-ML estimator on graphs with cycles).

    Returns
    -------
    Snapshot

    Examples
    --------
    >>> from anonspread import spread
    >>> sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, rng=1)
    >>> observe(sp).n
    10
    """
    if not isinstance(spread, Spread):
        raise InvalidTypeError(f"spread must be a spread.Spread (from spread.simulate); got {spread!r}")
    if not isinstance(reveal_edges, (bool, np.bool_)):
        raise InvalidTypeError(f"reveal_edges must be True or False; got {reveal_edges!r}")
    return Snapshot._from_spread(spread, bool(reveal_edges))
