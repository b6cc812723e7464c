"""Sweeps over an edge list read once (issue 32, item 2).

Same CSV bytes with and without the graph file; the process pool's and Dask's workers
receive parameters, never the graph, and map the graph file the parent wrote (or the
copy sent once to a worker without the shared disk).
"""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness.cli import main
from anonspread.harness.executors import InProcessExecutor, ProcessPoolExecutor, ship_graph_files
from anonspread.harness.graphs import prepare_graph_files
from anonspread.spread import graphfile as gf
from anonspread.spread.graphs import from_edgelist


@pytest.fixture(autouse=True)
def _user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def _edgelist(tmp_path, m=3000, n=600, name="contacts.txt"):
    rng = np.random.default_rng(5)
    a = rng.integers(0, n, size=m)
    b = rng.integers(0, n, size=m)
    path = tmp_path / name
    np.savetxt(path, np.column_stack([np.minimum(a, b), np.maximum(a, b)]), fmt="%d")
    return path


def _exp(path, **extra):
    return harness.compose("detection", name="gc", product={
        "graph": "edgelist", "graph.path": str(path), **extra,
        "protocol": ["random-diffusion", "adaptive-diffusion"], "estimator": "jordan", "T": 3})


class Recording(ProcessPoolExecutor):
    """A process pool that records the pickled size of every task it sends, then asks its
    workers how they see the graph (:func:`_probe`)."""

    probe: str = ""

    def imap_unordered(self, fn, tasks):
        tasks = list(tasks)
        self.sizes = [len(pickle.dumps((fn, t))) for t in tasks]
        yield from super().imap_unordered(fn, tasks)
        self.seen = [f.result() for f in [self._pool.submit(_probe, self.probe) for _ in range(4)]]


def _probe(path: str) -> tuple:
    """Run in a worker: how the sweep's graph arrives there."""
    from anonspread.harness.components import component_info
    from anonspread.harness.graphs import graph_for

    g = graph_for(component_info("graph", "edgelist"), {"graph": "edgelist", "graph.path": path})
    return (g.graph_file is not None, type(g.labels).__name__, g.number_of_edges(), os.getpid())


def test_csv_byte_identical_with_and_without_the_graph_file(tmp_path):
    path = _edgelist(tmp_path)
    kw = dict(trials=40, batch_size=20, rng=3, plot=False, progress=False, executor=InProcessExecutor(1))
    first = harness.run(_exp(path), out=tmp_path / "a", **kw)  # parses, writes the graph file
    files = [f for f in os.listdir(tmp_path) if f.endswith(".asgraph")]
    assert len(files) == 1
    cached = harness.run(_exp(path), out=tmp_path / "b", **kw)  # maps it
    plain = harness.run(_exp(path, **{"graph.cache": False}), out=tmp_path / "c", **kw)
    assert first.paths["csv"].read_bytes() == cached.paths["csv"].read_bytes()
    drop = [r for r in plain.table.rows]
    assert [{k: v for k, v in r.items() if k != "graph.cache"} for r in drop] == list(first.table.rows)
    g_first, g_plain = (r.metadata["components"]["graphs"][0] for r in (first, plain))
    assert g_first["summary"] == g_plain["summary"] and g_first["read"] == g_plain["read"]


def test_pool_workers_get_parameters_and_map_the_parents_graph_file(tmp_path):
    path = _edgelist(tmp_path, m=20000, n=4000)
    graph_pickle = len(pickle.dumps(from_edgelist(path)))
    ex = Recording(2)
    ex.probe = str(path)
    res = harness.run(_exp(path), trials=20, batch_size=5, rng=3, out=tmp_path / "pool", plot=False,
                      progress=False, executor=ex)
    # what is shipped: each task is the function and parameters, never the graph
    assert max(ex.sizes) < 4000 < 100_000 < graph_pickle
    (ref_path,) = [tmp_path / f for f in os.listdir(tmp_path) if f.endswith(".asgraph")]
    written = os.stat(ref_path).st_mtime_ns
    ref = harness.run(_exp(path), trials=20, batch_size=5, rng=3, out=tmp_path / "inproc", plot=False,
                      progress=False, executor=InProcessExecutor(1))
    assert res.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()
    assert {s[:3] for s in ex.seen} == {(True, "IntLabels", from_edgelist(path).number_of_edges())}
    assert os.stat(ref_path).st_mtime_ns == written  # no worker wrote (or parsed) it again


def test_prepare_reads_each_edge_list_once_and_skips_generated_graphs(tmp_path):
    path = _edgelist(tmp_path)
    points = [{"graph": "edgelist", "graph.path": str(path), "T": t} for t in (1, 2, 3)]
    points += [{"graph": "erdos-renyi", "graph.n": 50}, {"graph": "no-such-graph"},
               {"graph": "edgelist", "graph.path": str(tmp_path / "missing.txt")}]
    files = prepare_graph_files(points)
    assert [(s, os.path.exists(r.path)) for s, r in files] == [(str(path), True)]


def test_dask_worker_without_the_shared_disk_gets_the_graph_file_once(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = _edgelist(tmp_path)
    files = prepare_graph_files([{"graph": "edgelist", "graph.path": str(path)}])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        assert ship_graph_files(client, files) == {}  # the worker sees the file: nothing sent
        sent = ship_graph_files(client, files, force=True)  # as if it did not
        assert list(sent) == [files[0][1].path] and len(next(iter(sent.values()))) == 1
        expected = from_edgelist(path).number_of_edges()
        os.unlink(files[0][1].path)
        os.unlink(path)  # neither the source nor the graph file is on this disk any more
        mapped, kind, m, _ = client.submit(_probe, str(path), pure=False).result()
        assert (mapped, kind, m) == (True, "IntLabels", expected)


def test_cli_graph_convert(tmp_path, capsys):
    path = tmp_path / "names.csv"
    path.write_text("src,dst\na,b\nb,c\n")
    assert main(["graph", "convert", str(path), "--nodetype", "str", "--header"]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and ".asgraph" in out and "3 nodes, 2 edges" in out
    assert main(["graph", "convert", str(path), "--nodetype", "str", "--header"]) == 0
    assert "up to date" in capsys.readouterr().out
    g = gf.read_edgelist(path, nodetype="str", header=True)
    assert g.graph_file is not None and g.labels == ["a", "b", "c"]
    assert main(["graph", "convert", str(tmp_path / "nope.txt")]) == 2
    assert "not found" in capsys.readouterr().err
