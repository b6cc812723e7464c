"""A graph read once (issue 32, item 2): the graph file of an edge list.

Same graph, notes and labels as a parse; reused only while the source (size, mtime,
content) and the options are unchanged; a damaged graph file is rebuilt, never trusted;
writes are atomic; a mapped graph pickles to a reference.
"""

from __future__ import annotations

import gzip
import os
import pickle

import networkx as nx
import numpy as np
import pytest

from anonspread.errors import GraphError
from anonspread.spread import graphfile as gf
from anonspread.spread.graphs import from_edgelist, from_networkx


@pytest.fixture(autouse=True)
def _user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


@pytest.fixture
def parses(monkeypatch):
    """Count the text parses read_edgelist makes."""
    calls = []

    def counting(*args, **kwargs):
        calls.append(args[0])
        return from_edgelist(*args, **kwargs)

    monkeypatch.setattr(gf, "from_edgelist", counting)
    return calls


def _same(a, b):
    assert np.array_equal(a.indptr, b.indptr) and a.indptr.dtype == b.indptr.dtype
    assert np.array_equal(a.indices, b.indices) and a.indices.dtype == b.indices.dtype
    assert list(a.labels) == list(b.labels) and a.labels == b.labels and b.labels == a.labels
    assert [type(x) for x in a.labels] == [type(x) for x in b.labels]
    assert a.dropped == b.dropped and a.read_info == b.read_info


def _edges(tmp_path, name="g.txt", text="# c\n0 1\n1 2\n2 0\n2 3\n3 3\n0 1\n5 2\n"):
    p = tmp_path / name
    p.write_text(text)
    return p


CASES = [
    ("g.txt", "# c\n0 1\n1 2\n2 0\n2 3\n3 3\n0 1\n5 2\n", {}),
    ("names.csv", "% x\nsrc,dst,w\nuser0,user1,3\nuser1 , user2,1\nuser2,user0,2\nü,user0,1\n",
     {"nodetype": "str", "header": True}),
    ("arcs.txt", "# Directed graph\n0 1\n1 0\n1 2\n", {"symmetrize": True}),
    ("big.txt", f"{2**70} 1\n1 -4\n", {}),  # an int beyond int64: labels kept exactly
]


@pytest.mark.parametrize(("name", "text", "opts"), CASES)
def test_mapped_graph_equals_the_parse(tmp_path, parses, name, text, opts):
    p = _edges(tmp_path, name, text)
    parsed = from_edgelist(p, **opts)
    first = gf.read_edgelist(p, **opts)
    again = gf.read_edgelist(p, **opts)
    assert len(parses) == 1
    for g in (first, again):
        _same(parsed, g)
        assert g.graph_file is not None
    assert again.labels_of(np.array([0, 1])).tolist() == parsed.labels_of(np.array([0, 1])).tolist()
    assert again.to_networkx().edges == parsed.to_networkx().edges


def test_gzip_source_and_labels_are_lazy_arrays(tmp_path, parses):
    p = tmp_path / "g.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.writelines(f"{i} {i + 1}\n" for i in range(50))
    gf.read_edgelist(p)
    g = gf.read_edgelist(p)
    assert len(parses) == 1 and isinstance(g.labels, gf.IntLabels)
    assert g.label_array() is g.labels.array and g.node_index(7) == 7


def test_touch_rewrite_same_size_and_other_options_invalidate(tmp_path, parses):
    p = _edges(tmp_path)
    gf.read_edgelist(p)
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touch: same bytes, new mtime
    gf.read_edgelist(p)
    assert len(parses) == 2
    # same size, different content, mtime put back: only the content hash sees it
    st = os.stat(p)
    text = p.read_text().replace("2 3", "1 3")
    p.write_text(text)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(p).st_size == st.st_size and os.stat(p).st_mtime_ns == st.st_mtime_ns
    g = gf.read_edgelist(p)
    assert len(parses) == 3
    _same(g, from_edgelist(p))
    # other options: another graph file, both kept
    h = gf.read_edgelist(p, nodetype="str")
    assert len(parses) == 4 and h.labels[0] == "0" and h.graph_file.path != g.graph_file.path
    gf.read_edgelist(p)
    gf.read_edgelist(p, nodetype="str")
    assert len(parses) == 4
    # a longer file
    with open(p, "a") as fh:
        fh.write("7 8\n")
    assert gf.read_edgelist(p).number_of_edges() == g.number_of_edges() + 1
    assert len(parses) == 5


@pytest.mark.parametrize("damage", ["truncate", "flip-array", "flip-header", "garbage", "empty"])
def test_damaged_graph_file_is_rebuilt_with_a_warning(tmp_path, parses, damage):
    p = _edges(tmp_path)
    ref = gf.read_edgelist(p).graph_file
    data = bytearray(open(ref.path, "rb").read())
    if damage == "truncate":
        data = data[:-40]
    elif damage == "flip-array":
        header, _ = gf._read_header(ref.path)
        data[header["data_start"] + header["arrays"]["indices"]["offset"] + 5] ^= 0x10
    elif damage == "flip-header":
        data[40] ^= 0x01
    elif damage == "garbage":
        data = bytearray(b"not a graph file at all" * 10)
    else:
        data = bytearray()
    open(ref.path, "wb").write(bytes(data))
    with pytest.warns(gf.GraphFileWarning, match="damaged"):
        g = gf.read_edgelist(p)
    assert len(parses) == 2
    _same(g, from_edgelist(p))
    with pytest.raises(GraphError, match="sound graph file"):
        gf.load_graph(p)  # the text is no graph file either
    gf.read_edgelist(p)  # the rebuilt file is sound: no warning, no parse
    assert len(parses) == 2


def test_write_is_atomic_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    p = _edges(tmp_path)
    ref = gf.read_edgelist(p).graph_file
    before = open(ref.path, "rb").read()

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(gf.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gf.save_graph(from_networkx(nx.path_graph(5)), ref.path)
    assert open(ref.path, "rb").read() == before
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")]
    monkeypatch.undo()
    # a reader holding the old mapping keeps a whole graph while the file is replaced
    old = gf.load_graph(ref.path)
    gf.save_graph(from_networkx(nx.path_graph(5)), ref.path)
    assert old.number_of_edges() == 5 and gf.load_graph(ref.path).number_of_edges() == 4


def test_read_only_folder_falls_back_to_the_user_cache(tmp_path, monkeypatch, parses):
    p = _edges(tmp_path)
    real = gf.save_graph

    def refuse_beside(graph, path, **kw):
        if os.path.dirname(os.fspath(path)) == str(tmp_path):
            raise PermissionError(13, "Permission denied")
        return real(graph, path, **kw)

    monkeypatch.setattr(gf, "save_graph", refuse_beside)
    g = gf.read_edgelist(p)
    assert g.graph_file.path.startswith(str(tmp_path / "user-cache" / "anonspread" / "graphs"))
    gf.read_edgelist(p)
    assert len(parses) == 1


def test_nothing_written_without_cache_or_with_a_custom_nodetype(tmp_path):
    p = _edges(tmp_path)
    g = gf.read_edgelist(p, cache=False)
    h = gf.read_edgelist(p, nodetype=lambda t: int(t) * 2)
    assert g.graph_file is None and h.graph_file is None and h.labels[:2] == [0, 2]
    assert os.listdir(tmp_path) == ["g.txt"]


def test_cache_dir_and_convert(tmp_path, parses):
    p = _edges(tmp_path)
    ref = gf.convert_edgelist(p, cache_dir=tmp_path / "graphs")
    assert os.path.dirname(ref.path) == str(tmp_path / "graphs")
    assert gf.convert_edgelist(p, cache_dir=tmp_path / "graphs") == ref and len(parses) == 1
    assert gf.graph_file_path(p, cache_dir=tmp_path / "graphs") == ref.path


def test_mapped_graph_pickles_to_a_reference(tmp_path):
    p = tmp_path / "big.txt"
    rng = np.random.default_rng(0)
    np.savetxt(p, np.sort(rng.integers(0, 3000, size=(20000, 2)), axis=1), fmt="%d")
    g = gf.read_edgelist(p)
    parsed = from_edgelist(p)
    shipped = pickle.dumps(g)
    assert len(shipped) < 400 < 100_000 < len(pickle.dumps(parsed))
    back = pickle.loads(shipped)
    _same(back, parsed)
    # the graph file replaced by another graph: the reference is refused, never served
    gf._OPENED.clear()
    gf.save_graph(from_networkx(nx.path_graph(3)), g.graph_file.path)
    with pytest.raises(GraphError, match="changed since"):
        pickle.loads(shipped)


def test_installed_copy_serves_a_worker_without_the_source(tmp_path):
    p = _edges(tmp_path, "src.txt")
    ref = gf.read_edgelist(p).graph_file
    data = open(ref.path, "rb").read()
    gone = str(tmp_path / "elsewhere" / "src.txt")  # the path as the sweep names it
    gf.install_graph_file(gone, ref, data, tmp_path / "worker")
    g = gf.read_edgelist(gone)
    _same(g, from_edgelist(p))
    assert gf.has_graph_file(ref) and gone in gf.installed_sources()
    with pytest.raises(GraphError, match="damaged"):
        gf.install_graph_file(gone, ref, data[:-10], tmp_path / "worker2")
