"""A sweep's graph checked and summarised once (issue 32, items 1-2 of the 10^8 sweep).

Connected components by the engine's union-find (same as scipy's, without its copy of the
CSR), stored in the graph file so that no worker computes them; a sweep's workers map the
graph file trusting the parent's full check of the source (no SHA-256 of it per worker),
and fall back to the full check whenever the source or the graph file is not what the
parent verified, so that a stale graph is never served.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components as scipy_components

from anonspread.engine import graphs as engine_graphs
from anonspread.errors import AnonspreadError
from anonspread.harness import executors
from anonspread.harness.executors import DaskExecutor, ProcessPoolExecutor
from anonspread.harness.graphs import graph_summary, prepare_graph_files
from anonspread.spread import graphfile as gf
from anonspread.spread.graphs import from_edgelist, from_networkx
from anonspread.spread.reach import component_sizes


@pytest.fixture(autouse=True)
def _user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def _scipy(indptr, indices):
    n = indptr.shape[0] - 1
    k, labels = scipy_components(csr_matrix((np.ones(indices.shape[0], np.int8), indices, indptr),
                                            shape=(n, n)), directed=False)
    return k, labels


def _edgelist(tmp_path, m=3000, n=1500, name="contacts.txt"):
    rng = np.random.default_rng(9)
    a = rng.integers(0, n, size=m)
    b = rng.integers(0, n, size=m)
    path = tmp_path / name
    np.savetxt(path, np.column_stack([np.minimum(a, b), np.maximum(a, b)]), fmt="%d")
    return path


def test_engine_components_are_scipys():
    rng = np.random.default_rng(0)
    for trial in range(12):
        n = int(rng.integers(1, 400))
        m = int(rng.integers(0, 2 * n))
        a, b = rng.integers(0, n, m), rng.integers(0, n, m)
        if trial % 2:  # arcs one way only: components of the undirected reading
            order = np.argsort(a, kind="stable")
            indices = b[order].astype(np.int32 if trial % 4 == 1 else np.int64)
            indptr = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=n))])
        else:
            g = from_networkx(nx.gnm_random_graph(n, m // 2, seed=trial))
            indptr, indices = g.indptr, g.indices
        labels, sizes = engine_graphs.connected_components(indptr, indices)
        k, ref = _scipy(np.asarray(indptr), np.asarray(indices))
        assert labels.dtype == np.int32 and sizes.dtype == np.int64
        assert sizes.shape[0] == k and np.array_equal(labels, ref)
        assert np.array_equal(sizes, np.bincount(ref, minlength=k))
    labels, sizes = engine_graphs.connected_components(np.zeros(1, np.int64), np.zeros(0, np.int32))
    assert labels.shape == sizes.shape == (0,)
    with pytest.raises(AnonspreadError, match="indices"):
        engine_graphs.connected_components(np.array([0, 1, 2]), np.array([1, 5]))


@pytest.mark.parametrize("make", [
    lambda: nx.complete_graph(5),
    lambda: nx.disjoint_union_all([nx.path_graph(4), nx.cycle_graph(7), nx.empty_graph(3)]),
    lambda: nx.gnm_random_graph(3000, 2000, seed=1),
    lambda: nx.karate_club_graph(),
])
def test_graph_summary_components_as_before(make):
    g = from_networkx(make())
    k, ref = _scipy(g.indptr, g.indices)
    s = graph_summary(g)
    assert (s["components"], s["largest_component"]) == (k, int(np.bincount(ref).max()))
    assert np.array_equal(component_sizes(g), np.bincount(ref)[ref])
    idx = np.array([0, len(g) - 1])
    assert np.array_equal(component_sizes(g, idx), np.bincount(ref)[ref][idx])


def test_graph_file_holds_the_components_nobody_computes_them(tmp_path, monkeypatch):
    path = _edgelist(tmp_path)
    parsed = from_edgelist(path)
    first = gf.read_edgelist(path)  # parses, computes them once, writes the graph file
    summary = graph_summary(parsed)
    k, ref = _scipy(parsed.indptr, parsed.indices)
    monkeypatch.setattr(engine_graphs, "connected_components",
                        lambda *a: pytest.fail("components computed again"))
    for g in (gf.load_graph(first.graph_file.path), pickle.loads(pickle.dumps(first))):
        labels, sizes = g.components()
        assert np.array_equal(labels, ref) and sizes.shape[0] == k
        assert graph_summary(g) == summary


@dataclass
class _Task:
    params: list


def _probe(task: _Task) -> tuple:
    """Run in a worker: SHA-256 computed and components found stored when reading the graph."""
    path = task.params[0]["graph.path"]
    hashed = []
    original = gf._content_hash
    gf._content_hash = lambda p: hashed.append(p) or original(p)
    try:
        g = gf.read_edgelist(path)
    finally:
        gf._content_hash = original
    return len(hashed), g._components is not None, g.graph_file.token, g.number_of_edges()


def test_trusted_read_skips_the_hash_and_falls_back_on_any_change(tmp_path, monkeypatch):
    path = _edgelist(tmp_path)
    first = gf.read_edgelist(path)
    check = gf.source_check(first.graph_file)
    assert check is not None and check.source == os.path.abspath(path)
    hashed = []
    original = gf._content_hash
    monkeypatch.setattr(gf, "_content_hash", lambda p: hashed.append(p) or original(p))
    with gf.trusting([check]):
        assert gf.read_edgelist(path).graph_file == first.graph_file
    assert hashed == []
    assert gf.read_edgelist(path) is not None and len(hashed) == 1  # outside: full check
    # the graph file replaced (another token): the check does not hold, full read
    gf.save_graph(from_networkx(nx.path_graph(3)), first.graph_file.path,
                  source={"not": "this source"})
    with gf.trusting([check]):
        g = gf.read_edgelist(path)
    assert len(hashed) == 2 and g.number_of_edges() == from_edgelist(path).number_of_edges()
    check = gf.source_check(g.graph_file)
    # the source touched (new mtime): full read, the new graph; the old check no longer ships
    st = os.stat(path)
    with open(path, "a") as fh:
        fh.write("1498 1499\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert gf.source_check(g.graph_file) is None
    with gf.trusting([check]):
        h = gf.read_edgelist(path)
    assert len(hashed) == 3 and h.number_of_edges() == from_edgelist(path).number_of_edges()
    assert h.graph_file.token != check.graph_file.token
    with pytest.raises(AnonspreadError, match="SourceCheck"), gf.trusting(["not a check"]):
        pass


def test_pool_workers_map_without_hashing_and_read_the_stored_components(tmp_path):
    path = _edgelist(tmp_path)
    tasks = [_Task([{"graph": "edgelist", "graph.path": str(path)}]) for _ in range(4)]
    ((_, ref),) = prepare_graph_files(tasks[0].params)
    fn = executors._trusting_checks(_probe, [(str(path), ref)])
    assert len(pickle.dumps((fn, tasks[0]))) < 2000  # what a task carries: checks, no graph
    with ProcessPoolExecutor(2) as ex:
        seen = list(ex.imap_unordered(_probe, tasks))
    m = from_edgelist(path).number_of_edges()
    assert seen == [(0, True, ref.token, m)] * 4
    # without the parent's checks a worker hashes the source (the control)
    with ProcessPoolExecutor(1) as ex:
        ex._pool.submit(int).result()
        assert ex._pool.submit(_probe, tasks[0]).result() == (1, True, ref.token, m)


def test_dask_workers_map_without_hashing(tmp_path):
    pytest.importorskip("distributed")
    path = _edgelist(tmp_path)
    tasks = [_Task([{"graph": "edgelist", "graph.path": str(path)}]) for _ in range(2)]
    with DaskExecutor(1) as ex:
        seen = list(ex.imap_unordered(_probe, tasks))
    ref = gf.read_edgelist(path).graph_file
    assert seen == [(0, True, ref.token, from_edgelist(path).number_of_edges())] * 2


def test_node_indices_match_node_index_without_the_dict():
    rng = np.random.default_rng(4)
    labels = rng.choice(10**12, size=500, replace=False).tolist()
    g = from_networkx(nx.relabel_nodes(nx.gnm_random_graph(500, 900, seed=2), dict(enumerate(labels))))
    ask = [labels[i] for i in rng.integers(0, 500, 40)]
    got = g.node_indices(np.array(ask))
    assert g._index is None  # found by binary search, no label -> index dict built
    assert got.tolist() == [g.node_index(x) for x in ask]
    with pytest.raises(AnonspreadError, match="source must be a node of the graph; got 7"):
        g.node_indices([labels[0], 7])
    with pytest.raises(AnonspreadError, match="got 'x'"):
        g.node_indices([labels[0], "x"])
    s = from_networkx(nx.path_graph(["a", "b", "c"]))
    assert s.label_order() is None and s.node_indices(["c", "a"]).tolist() == [2, 0]


def test_a_trial_on_a_mapped_graph_builds_no_per_node_structures(tmp_path, monkeypatch):
    from anonspread.adversaries.observation import graph_is_forest
    from anonspread.harness.experiments.spreading import detection_sweep_trials

    path = _edgelist(tmp_path)
    gf.read_edgelist(path)  # the graph file, with components and the labels' order
    g = gf.load_graph(gf.read_edgelist(path).graph_file.path)
    monkeypatch.setattr(engine_graphs, "connected_components",
                        lambda *a: pytest.fail("components computed again"))
    order = g._label_order
    assert order is not None and g._components is not None  # read from the graph file
    from anonspread.harness import graphs as hg

    monkeypatch.setattr(hg, "graph_for", lambda *a, **k: g)
    import anonspread.harness.experiments.spreading as sp

    monkeypatch.setattr(sp, "make_graph", lambda *a, **k: g)
    params = {"graph": "edgelist", "graph.path": str(path), "protocol": "random-diffusion",
              "estimator": ("jordan",), "T": 50, "stop": "infected:20", "fresh_graph": False}
    out = detection_sweep_trials(params, 3, np.random.default_rng(1))
    assert out["jordan"]["component_fraction"].shape == (3,)
    assert g._index is None and g._label_order is order and not graph_is_forest(g)


@pytest.mark.parametrize("make", [
    lambda: nx.balanced_tree(2, 4), lambda: nx.disjoint_union(nx.path_graph(5), nx.star_graph(4)),
    lambda: nx.cycle_graph(5), lambda: nx.disjoint_union(nx.path_graph(5), nx.cycle_graph(3)),
    lambda: nx.empty_graph(4),
])
def test_graph_is_forest_as_networkx(make):
    from anonspread.adversaries.observation import graph_is_forest

    G = make()
    assert graph_is_forest(from_networkx(G)) == nx.is_forest(G)
