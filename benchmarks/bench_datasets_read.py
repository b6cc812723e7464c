"""Benchmark: the bundled graphs, file to contact graph, previous reader vs today's (issue 32; not a test).

Run::

    python benchmarks/bench_datasets_read.py --rounds 5

For each bundled graph (or ``--names``), in one interleaved run after a warm-up, the CPU
seconds (``time.process_time``) of:

* ``previous``: the loader as it was before issue 32's dataset change -- ``np.loadtxt`` of the
  gzip text, ``np.unique`` of the nodes and of the edge rows, a networkx graph, then
  ``spread.graphs.from_networkx`` (the harness's contact graph);
* ``load_graph``: today's ``datasets.load_graph`` (the engine's tokenizer, sort + mask, the
  networkx graph built from the arrays);
* ``harness``: today's graph component of a sweep (the contact graph built from
  ``datasets.load_edges``'s arrays, no networkx graph).

The reader's per-process cache is cleared before every call; the file's SHA-256 check is
done once per process (before the timings) in every variant. Medians over ``--rounds``.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import time

import networkx as nx
import numpy as np

from anonspread import datasets
from anonspread.datasets import _edgelist, _registry
from anonspread.harness import component_info
from anonspread.spread.graphs import from_networkx


def previous(name: str, min_degree: int) -> object:
    with gzip.open(_registry.path(name), "rt", encoding="ascii") as handle:
        pairs = np.loadtxt(handle, dtype=np.int64, comments=("#", "%"), usecols=(0, 1), ndmin=2)
    nodes = np.unique(pairs)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    edges = np.unique(np.sort(pairs, axis=1), axis=0)
    graph = nx.Graph(name=name)
    graph.add_nodes_from(nodes.tolist())
    graph.add_edges_from(map(tuple, edges.tolist()))
    if min_degree > 0:
        graph.remove_nodes_from([v for v, d in graph.degree() if d < min_degree])
    return from_networkx(graph)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--names", nargs="+", default=datasets.list_datasets("graph"))
    a = ap.parse_args()
    variants = {
        "previous": lambda n, k: previous(n, k),
        "load_graph": lambda n, k: from_networkx(datasets.load_graph(n, min_degree=k)),
        "harness": lambda n, k: component_info("graph", n).build(min_degree=k),
    }
    print("| graph (min_degree) | nodes, edges | previous: CPU s | load_graph + from_networkx: CPU s | "
          "harness (arrays): CPU s | previous / harness |")
    print("|---|---|---|---|---|---|")
    for name in a.names:
        k = 3 if name == "ego-facebook" else 0
        _registry.path(name)  # the SHA-256 check, once per process
        times: dict[str, list[float]] = {v: [] for v in variants}
        graphs = {}
        for r in range(a.rounds + 1):  # round 0: warm-up
            for v, fn in variants.items():
                _edgelist._read_cached.cache_clear()
                t = time.process_time()
                graphs[v] = fn(name, k)
                dt = time.process_time() - t
                if r:
                    times[v].append(dt)
        g = [graphs[v] for v in variants]
        same = all(x.labels == g[0].labels and np.array_equal(x.indices, g[0].indices) for x in g)
        med = {v: statistics.median(t) for v, t in times.items()}
        print(f"| {name} ({k}) | {len(g[0].labels):,}, {g[0].number_of_edges():,} | {med['previous']:.3f} | "
              f"{med['load_graph']:.3f} | {med['harness']:.3f} | {med['previous'] / med['harness']:.1f}x"
              f"{'' if same else ' (GRAPHS DIFFER)'} |", flush=True)


if __name__ == "__main__":
    main()
