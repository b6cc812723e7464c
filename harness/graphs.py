"""Graph instances of a sweep: built once per process, seeded, summarised in the result JSON.

A point of a sweep names a graph family (a registered ``graph`` component) and its
parameters (``graph.n``, ``graph.mean_degree``...). :func:`graph_for` builds that graph
and converts it once to the simulators' CSR form; what derives from the graph alone is
then reused by every batch that runs the point in this process. Two ways to draw a
random graph, chosen by the sweep's ``fresh_graph`` flag:

* ``fresh_graph = false`` (default): one graph per point, seeded by ``graph.seed``
  (default 0), so every protocol and estimator of the sweep meets the *same* graph;
* ``fresh_graph = true``: a fresh graph per trial batch, seeded by the first draw of
  the batch's own random stream (so the CSV still depends only on the run's seed).

:func:`graph_summary` gives n, m, the mean degree and the average clustering
coefficient (exact, or estimated on a uniform sample of nodes for big graphs, which the
summary says), recorded in the result JSON.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from anonspread.engine.graphs import triangles
from anonspread.errors import AnonspreadError
from anonspread.harness.components import Component, component_info

__all__ = ["CLUSTERING_EXACT_WORK", "draw_graph_seed", "graph_for", "graph_metadata", "graph_notes",
           "graph_summary", "prepare_graph_files"]

#: Above this many neighbour-of-neighbour steps (sum of squared degrees) the average
#: clustering is estimated on a sample of nodes instead of computed exactly.
CLUSTERING_EXACT_WORK = 20_000_000
_SAMPLE = 2000
_CACHE: OrderedDict[tuple, Any] = OrderedDict()
_CACHE_SIZE = 4


def draw_graph_seed(rng: np.random.Generator) -> int:
    """The seed of a fresh per-batch graph: the first draw of the batch's stream.

    Parameters
    ----------
    rng : numpy.random.Generator
        The batch's stream (:func:`harness.work.unit_stream`), before any other draw.

    Returns
    -------
    int
        In ``[0, 2**63)``.
    """
    return int(rng.integers(2**63))


def _key(comp: Component, values: Mapping[str, Any]) -> tuple:
    parts = []
    for k, v in sorted(values.items()):
        if isinstance(v, str) and os.path.isfile(v):
            st = os.stat(v)  # an edge-list file replaced on disk is read again
            v = (v, st.st_size, st.st_mtime_ns)
        elif isinstance(v, str) and v in _installed():
            # a worker without the shared disk: the graph file the parent sent last
            v = (v, _installed()[v])
        parts.append((k, v))
    return (comp.kind, comp.name, id(comp.factory), tuple(parts))


def _installed() -> dict[str, tuple[str, ...]]:
    from anonspread.spread.graphfile import installed_sources

    return installed_sources()


def graph_for(comp: Component, point: Mapping[str, Any], *, axis: str = "graph",
              rng: np.random.Generator | None = None, fresh: bool = False) -> Any:
    """The graph of a sweep point, in the simulators' form (CSR or lazy infinite tree).

    Parameters
    ----------
    comp : Component
        The graph family (kind ``graph``).
    point : mapping
        The grid point (``axis.param`` keys give the family's parameters).
    axis : str
        The grid axis that names the graph family (``"graph"``).
    rng : numpy.random.Generator, optional
        The batch's stream; with ``fresh`` the graph's seed is its first draw.
    fresh : bool
        A fresh graph per call (per trial batch) instead of the one seeded graph.
    """
    from anonspread.spread.graphs import as_contact_graph

    values = comp.values(point, axis)
    if fresh and comp.random:
        if rng is None:
            raise ValueError("a fresh graph needs the batch's rng")
        values["seed"] = draw_graph_seed(rng)
        return as_contact_graph(comp.build(**values))
    key = _key(comp, values)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    graph = as_contact_graph(comp.build(**values))
    if graph.is_infinite:
        return graph  # a lazy tree keeps its realisation: each caller gets its own
    _CACHE[key] = graph
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return graph


def prepare_graph_files(points: Iterable[Mapping[str, Any]], *, axis: str = "graph") -> list[tuple[str, Any]]:
    """Read here, once, every edge list the points name, so that workers map its graph file.

    Called by the process-pool and Dask executors before they send tasks: without it
    every worker would parse the text of a file that has no graph file yet. Points with
    a fresh graph per batch, random families and families without a ``path`` parameter
    are left alone, as is a point whose graph cannot be built here (its workers report
    the error as usual).

    Parameters
    ----------
    points : iterable of mapping
        The parameter points of the tasks.
    axis : str
        The grid axis naming the graph family.

    Returns
    -------
    list of (str, GraphFileRef)
        Each distinct edge list (its ``path`` as the points name it) and the graph file
        it is mapped from (:mod:`spread.graphfile`).

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("0 1\\n1 2\\n")
    >>> files = prepare_graph_files([{"graph": "edgelist", "graph.path": p}] * 3)
    >>> len(files), files[0][0] == p, files[0][1].path.endswith(".asgraph")
    (1, True, True)
    """
    out: list[tuple[str, Any]] = []
    seen: set[tuple] = set()
    looked: set[int] = set()  # the units of one point share its dict: look at it once
    for point in points:
        if id(point) in looked:
            continue
        looked.add(id(point))
        name = point.get(axis)
        if not isinstance(name, str) or point.get("fresh_graph"):
            continue
        try:
            comp = component_info("graph", name)
            values = comp.values(point, axis)
        except AnonspreadError:
            continue
        path = values.get("path")
        if comp.random or not isinstance(path, str):
            continue
        key = _key(comp, values)
        if key in seen:
            continue
        seen.add(key)
        try:
            graph = graph_for(comp, point, axis=axis)
        except AnonspreadError:
            continue
        ref = getattr(graph, "graph_file", None)
        if ref is not None:
            out.append((path, ref))
    return out




def _components(graph: Any) -> tuple[int, int]:
    """Number of connected components and the size of the largest (the graph's own,
    computed once per graph or read from its graph file: no copy of the arrays)."""
    if graph.number_of_nodes() == 0:
        return 0, 0
    _, sizes = graph.components()
    return int(sizes.shape[0]), int(sizes.max())


def graph_notes(entry: Mapping[str, Any]) -> str:
    """What a reader should know about a graph of the run, in one line ("" when nothing):
    dropped self-loops and duplicates, symmetrised arcs, ignored columns, components.

    Parameters
    ----------
    entry : mapping
        One entry of :func:`graph_metadata`'s ``"graphs"``.

    Returns
    -------
    str

    Examples
    --------
    >>> graph_notes({"dropped": {"self_loops": 3},
    ...              "summary": {"n": 100, "components": 2, "largest_component": 97}})
    "dropped 3 self-loops; 2 connected components (largest: 97 of 100 nodes); a spread stays in its source's component"
    """
    notes = []
    dropped = entry.get("dropped") or {}
    if dropped.get("self_loops"):
        notes.append(f"dropped {dropped['self_loops']:,} self-loops")
    if dropped.get("duplicate_edges"):
        notes.append(f"dropped {dropped['duplicate_edges']:,} duplicate edges")
    if dropped.get("reciprocal_arcs"):
        notes.append(f"symmetrised a directed file ({dropped['reciprocal_arcs']:,} reciprocal arc pairs merged)")
    read = entry.get("read") or {}
    if read.get("ignored_columns"):
        notes.append(f"ignored {read['ignored_columns']} column(s) after the first two "
                     f"on {read.get('lines_with_ignored_columns', 0):,} lines")
    summary = entry.get("summary") or {}
    if isinstance(summary.get("components"), int) and summary["components"] > 1:
        notes.append(f"{summary['components']:,} connected components (largest: "
                     f"{summary['largest_component']:,} of {summary['n']:,} nodes); a spread stays in "
                     "its source's component")
    return "; ".join(notes)


def graph_summary(graph: Any) -> dict[str, Any]:
    """n, m, mean degree, average clustering and connected components of a contact graph
    (JSON-ready).

    The clustering is networkx's ``average_clustering`` (nodes of degree < 2 count
    as 0): exact when the sum of squared degrees is at most
    :data:`CLUSTERING_EXACT_WORK`, else the mean local clustering of 2000 nodes drawn
    uniformly (seed 0) with its standard error, and ``clustering_method`` says which.
    Infinite trees report their degree law, mean degree and clustering 0.

    Parameters
    ----------
    graph : ContactGraph, networkx.Graph or LazyTree
        The graph.

    Returns
    -------
    dict

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread.spread.graphs import from_networkx
    >>> s = graph_summary(from_networkx(nx.complete_graph(4)))
    >>> s["n"], s["m"], s["mean_degree"], s["clustering"], s["clustering_method"], s["components"]
    (4, 6, 3.0, 1.0, 'exact', 1)
    """
    if graph.is_infinite:
        law = {int(d): float(p) for d, p in sorted(graph.degrees.items()) if p > 0}
        return {
            "n": "infinite",
            "degree_law": {str(d): p for d, p in law.items()},
            "mean_degree": sum(d * p for d, p in law.items()),
            "clustering": 0.0,
            "clustering_method": "exact (a tree has no triangles)",
            "realisation": "a fresh tree per trial" if len(law) > 1 else "deterministic",
        }
    deg = np.diff(graph.indptr)
    n = int(deg.shape[0])
    work = float(np.sum(deg.astype(np.float64) ** 2))
    if work <= CLUSTERING_EXACT_WORK or n <= _SAMPLE:
        nodes = np.arange(n, dtype=np.int64)
        method = "exact"
    else:
        nodes = np.random.default_rng(0).integers(0, n, size=_SAMPLE).astype(np.int64)
        method = f"sampled: {_SAMPLE} nodes drawn uniformly (seed 0)"
    tri = triangles(graph.indptr, graph.indices, nodes).astype(np.float64)
    d = deg[nodes].astype(np.float64)
    pairs = d * (d - 1) / 2
    local = np.divide(tri, pairs, out=np.zeros_like(tri), where=pairs > 0)
    n_comp, largest = _components(graph)
    out = {
        "n": n,
        "m": int(graph.number_of_edges()),
        "mean_degree": float(deg.mean()) if n else 0.0,
        "max_degree": int(deg.max()) if n else 0,
        "clustering": float(local.mean()) if n else 0.0,
        "clustering_method": method,
        "components": n_comp,
        "largest_component": largest,
    }
    if method != "exact":
        out["clustering_stderr"] = float(local.std(ddof=1) / math.sqrt(local.shape[0]))
    return out


def graph_metadata(points: Sequence[Mapping[str, Any]], seed: int, *, axis: str = "graph",
                   components: Mapping[str, Mapping[str, Component]] | None = None,
                   max_graphs: int = 24) -> dict[str, Any]:
    """What the result JSON records about the graphs of a run (seeds, draw, summaries).

    One entry per distinct graph (family + parameters) with one seeded graph per
    point, or per point with ``fresh_graph`` (then the summary is that of batch 0's
    graph and the seed is the first draw of its stream).

    Parameters
    ----------
    points : sequence of dict
        The run's grid points.
    seed : int
        The run's root seed entropy (it seeds the fresh per-batch graphs).
    axis : str
        The grid axis naming the graph component.
    components : mapping, optional
        ``{axis: {name: Component}}`` resolved by the sweep (default: the registry's).
    max_graphs : int
        Most graphs listed (a note says when more were left out).

    Returns
    -------
    dict
        ``{"graphs": [{"family", "parameters", "draw", "seed", "summary", ...}, ...]}``.

    Examples
    --------
    >>> meta = graph_metadata([{"graph": "erdos-renyi", "graph.n": 50}], seed=7)
    >>> g = meta["graphs"][0]
    >>> g["family"], g["draw"], g["summary"]["m"]
    ('erdos-renyi', 'one graph per point, seeded by graph.seed', 112)
    """
    from anonspread.harness.work import unit_stream

    entries: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for i, point in enumerate(points):
        if axis not in point:
            continue
        name = point[axis]
        comp = (components or {}).get(axis, {}).get(name) or component_info("graph", name)
        values = comp.values(point, axis)
        fresh = bool(point.get("fresh_graph", False)) and comp.random
        key = (name, tuple(sorted(values.items())), i if fresh else -1)
        if key in seen:
            continue
        seen.add(key)
        if len(entries) >= max_graphs:
            return {"graphs": entries, "graphs_omitted": "more distinct graphs than "
                    f"{max_graphs}; the first {max_graphs} are listed"}
        entry: dict[str, Any] = {"family": name, "parameters": dict(values)}
        if fresh:
            values["seed"] = draw_graph_seed(unit_stream(seed, i, 0))
            entry["draw"] = ("a fresh graph per trial batch, seeded by the first draw of the "
                             "batch's stream; summary and seed of batch 0's graph")
            entry["point"] = i
            entry["seed"] = values["seed"]
            graph = graph_for(comp, {f"{axis}.{k}": v for k, v in values.items()} | {axis: name},
                              axis=axis)
        else:
            entry["draw"] = ("one graph per point, seeded by graph.seed" if comp.random
                             else "deterministic (no randomness in the family)")
            if comp.random:
                entry["seed"] = values.get("seed", 0)
            graph = graph_for(comp, point, axis=axis)
        entry["summary"] = graph_summary(graph)
        if getattr(graph, "dropped", None):
            entry["dropped"] = dict(graph.dropped)
        if getattr(graph, "read_info", None):
            entry["read"] = dict(graph.read_info)
        note = graph_notes(entry)
        if note:
            entry["notes"] = note
        entries.append(entry)
    return {"graphs": entries}
