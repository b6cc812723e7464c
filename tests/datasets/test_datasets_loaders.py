"""Tests of the bundled datasets and their loaders.

Expected counts are the ones measured and published in ``datasets/README.md``
(which match SNAP's and UCI's own figures); the degree-filter sizes were measured
on the bundled files and cross-checked with plain ``networkx.read_edgelist``.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from anonspread import datasets
from anonspread.datasets import _edgelist, _integrity, _registry
from anonspread.errors import DatasetError, InvalidParameterError, InvalidTypeError

PACKAGE_DIR = Path(datasets.__file__).resolve().parent
GRAPHS = ["ego-facebook", "email-eu-core", "ca-grqc", "soc-slashdot"]


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """Point the loaders at an empty temporary directory (the documented test hook)."""
    monkeypatch.setattr(_registry, "_DATA_DIR", tmp_path)
    return tmp_path


def _copy(name: str, directory: Path) -> Path:
    source = PACKAGE_DIR / _registry.info(name).filename
    target = directory / source.name
    shutil.copyfile(source, target)
    return target


def _flip_byte(file: Path, offset: int = 1000) -> None:
    raw = bytearray(file.read_bytes())
    raw[offset] ^= 0xFF
    file.write_bytes(bytes(raw))


# --- registry -------------------------------------------------------------------------


def test_registry_lists_every_bundled_file_with_a_matching_checksum():
    names = datasets.list_datasets()
    assert names[:4] == GRAPHS
    assert datasets.list_datasets("graph") == GRAPHS
    assert set(datasets.list_datasets("table")) == {
        "adult-train",
        "adult-test",
        "adult-data-original",
        "adult-test-original",
    }
    shipped = {p.name for p in PACKAGE_DIR.glob("*.gz")}
    assert {datasets.info(n).filename for n in names} == shipped
    for name in names:
        entry = datasets.info(name)
        assert _integrity.sha256_of(PACKAGE_DIR / entry.filename) == entry.sha256
        assert entry.citation and entry.licence and entry.description and entry.source


def test_registry_checksums_match_the_package_readme():
    readme = (PACKAGE_DIR / "README.md").read_text(encoding="utf-8")
    for name in datasets.list_datasets():
        entry = datasets.info(name)
        row = re.search(
            rf"^\|\s*`?{re.escape(entry.filename)}`?\s*\|\s*([0-9a-f]{{64}})", readme, re.M
        )
        assert row is not None, entry.filename
        assert row.group(1) == entry.sha256


def test_path_is_verified_and_case_insensitive():
    file = datasets.path("Ego-Facebook")
    assert file == PACKAGE_DIR / "facebook_combined.txt.gz"
    assert file.is_file()


def test_unknown_name_lists_the_known_names():
    with pytest.raises(InvalidParameterError, match="name must be one of") as excinfo:
        datasets.path("facebok")
    message = str(excinfo.value)
    assert "'facebok'" in message
    for name in datasets.list_datasets():
        assert repr(name) in message
    with pytest.raises(InvalidParameterError, match=r"must be one of \['ego-facebook'"):
        datasets.load_graph("nope")
    with pytest.raises(InvalidTypeError, match="name must be a dataset name"):
        datasets.path(3)
    with pytest.raises(InvalidParameterError, match="kind must be None or one of"):
        datasets.list_datasets("graphs")


def test_load_graph_rejects_a_table_with_a_clear_message():
    with pytest.raises(InvalidParameterError, match="which is a table dataset"):
        datasets.load_graph("adult-train")


# --- graphs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "nodes", "edges", "isolated", "components", "largest"),
    [
        ("ego-facebook", 4039, 88234, 0, 1, 4039),
        # 19 ids occur only in self-loops: kept as isolated nodes (SNAP counts 1,005).
        ("email-eu-core", 1005, 16064, 19, 20, 986),
        # README: 354 components among non-isolated nodes, plus 1 loop-only id.
        ("ca-grqc", 5242, 14484, 1, 355, 4158),
    ],
)
def test_graph_counts_match_the_readme(name, nodes, edges, isolated, components, largest):
    graph = datasets.load_graph(name)
    assert type(graph) is nx.Graph
    assert graph.number_of_nodes() == nodes
    assert graph.number_of_edges() == edges
    assert nx.number_of_selfloops(graph) == 0
    assert sum(1 for _, d in graph.degree() if d == 0) == isolated
    assert nx.number_connected_components(graph) == components
    assert all(type(v) is int for v in graph)
    assert list(graph) == sorted(graph)
    assert graph.graph["name"] == name
    lcc = datasets.load_graph(name, largest_component=True)
    assert lcc.number_of_nodes() == largest
    assert nx.is_connected(lcc)


def test_triangle_counts_match_snap():
    assert sum(nx.triangles(datasets.load_graph("ego-facebook")).values()) // 3 == 1_612_010
    assert sum(nx.triangles(datasets.load_graph("email-eu-core")).values()) // 3 == 105_461


def test_soc_slashdot_counts_and_checksum():
    graph = datasets.load_graph("soc-slashdot")
    assert graph.number_of_nodes() == 82_168
    assert graph.number_of_edges() == 504_230
    assert nx.number_of_selfloops(graph) == 0


@pytest.mark.parametrize(
    ("name", "one_pass", "core"),
    [
        ("ego-facebook", (3866, 87971), (3856, 87952)),
        ("email-eu-core", (855, 15897), (854, 15895)),
        ("ca-grqc", (2929, 11731), (2613, 11292)),
    ],
)
def test_min_degree_three_sizes(name, one_pass, core):
    graph = datasets.load_graph(name, min_degree=3)
    assert (graph.number_of_nodes(), graph.number_of_edges()) == one_pass
    kcore = datasets.load_graph(name, min_degree=3, iterative=True)
    assert (kcore.number_of_nodes(), kcore.number_of_edges()) == core
    assert min(d for _, d in kcore.degree()) >= 3


def test_min_degree_is_one_pass_over_the_original_degrees():
    full = datasets.load_graph("ego-facebook")
    filtered = datasets.load_graph("ego-facebook", min_degree=3)
    assert set(filtered) == {v for v, d in full.degree() if d >= 3}
    assert set(filtered.edges()) == set(full.subgraph(filtered).edges())
    # One pass leaves survivors whose degree dropped below 3; the core does not.
    assert min(d for _, d in filtered.degree()) == 1
    assert nx.is_connected(filtered)


def test_min_degree_zero_and_one():
    assert datasets.load_graph("email-eu-core", min_degree=0).number_of_nodes() == 1005
    assert datasets.load_graph("email-eu-core", min_degree=1).number_of_nodes() == 986


@pytest.mark.slow
def test_soc_slashdot_min_degree_three_sizes():
    graph = datasets.load_graph("soc-slashdot", min_degree=3)
    assert (graph.number_of_nodes(), graph.number_of_edges()) == (41054, 452294)
    kcore = datasets.load_graph("soc-slashdot", min_degree=3, iterative=True)
    assert (kcore.number_of_nodes(), kcore.number_of_edges()) == (38810, 448269)


def test_each_load_returns_a_new_graph():
    first = datasets.load_graph("email-eu-core")
    first.remove_node(0)
    first.add_edge(-1, -2)
    second = datasets.load_graph("email-eu-core")
    assert second.number_of_nodes() == 1005
    assert second.number_of_edges() == 16064


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"min_degree": -1}, InvalidParameterError, "min_degree must be an integer >= 0; got -1"),
        ({"min_degree": 2.5}, InvalidParameterError, "min_degree must be an integer >= 0; got 2.5"),
        ({"min_degree": "3"}, InvalidTypeError, "min_degree must be an integer >= 0"),
        ({"iterative": 1}, InvalidTypeError, "iterative must be True or False; got 1"),
        ({"largest_component": "yes"}, InvalidTypeError, "largest_component must be True or False"),
    ],
)
def test_load_graph_bad_parameters(kwargs, error, pattern):
    with pytest.raises(error, match=re.escape(pattern)):
        datasets.load_graph("ego-facebook", **kwargs)


def test_edge_reader_handles_comments_crlf_loops_and_duplicates(tmp_path):
    file = tmp_path / "tiny.txt.gz"
    with gzip.open(file, "wb") as handle:
        handle.write(b"# header\r\n% other comment\r\n1\t2\r\n2 1\r\n\r\n3 3\r\n2 4 7\r\n")
    nodes, edges = _edgelist.read_simple_edges(file, dataset="tiny")
    assert nodes.tolist() == [1, 2, 3, 4]
    assert edges.tolist() == [[1, 2], [2, 4]]
    assert not edges.flags.writeable


# --- Adult ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("split", "rows", "complete_rows", "low", "high"),
    [("train", 32561, 30162, 24720, 7841), ("test", 16281, 15060, 12435, 3846)],
)
def test_adult_counts_match_the_readme(split, rows, complete_rows, low, high):
    records = datasets.load_adult(split)
    assert len(records) == rows
    assert records.columns == datasets.ADULT_COLUMNS
    assert len(records.columns) == 15
    income = records.column("income")
    assert np.unique(income).tolist() == ["<=50K", ">50K"]
    assert (int(np.sum(income == "<=50K")), int(np.sum(income == ">50K"))) == (low, high)
    complete = datasets.load_adult(split, complete=True)
    assert len(complete) == complete_rows
    for column in complete.columns:
        if complete.column(column).dtype.kind == "U":
            assert not np.any(complete.column(column) == "?")


def test_adult_distinct_values_and_types():
    records = datasets.load_adult()
    distinct = {c: len(np.unique(records.column(c))) for c in records.columns}
    assert distinct["education"] == 16
    assert distinct["marital-status"] == 7
    assert distinct["occupation"] == 15  # 14 values and "?"
    assert "?" in records.column("occupation")
    assert distinct["relationship"] == 6
    assert distinct["sex"] == 2
    for column in (
        "age",
        "fnlwgt",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    ):
        assert records.column(column).dtype == np.int64
    assert records.column("age")[0] == 39
    assert records.column("education")[0] == "Bachelors"
    assert list(records) == list(datasets.ADULT_COLUMNS)


@pytest.mark.parametrize(
    ("split", "original"), [("train", "adult-data-original"), ("test", "adult-test-original")]
)
def test_adult_csv_copies_match_the_original_files(split, original):
    with gzip.open(datasets.path(original), "rt", encoding="ascii", newline="") as handle:
        rows = [
            row
            for row in csv.reader(handle, skipinitialspace=True)
            if row and not row[0].startswith("|")
        ]
    records = datasets.load_adult(split)
    assert len(rows) == len(records)
    for j, column in enumerate(records.columns):
        raw = [row[j].rstrip(".") if column == "income" else row[j] for row in rows]
        assert records.column(column).astype(str).tolist() == raw, column


def test_adult_bad_parameters():
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("split must be one of ['train', 'test']; got 'validation'"),
    ):
        datasets.load_adult("validation")
    with pytest.raises(InvalidTypeError, match="complete must be True or False; got 1"):
        datasets.load_adult(complete=1)
    with pytest.raises(InvalidParameterError, match="name must be one of the columns"):
        datasets.load_adult("test").column("salary")


# --- integrity --------------------------------------------------------------------------


def test_missing_file_says_where_it_looked_and_what_to_do(data_dir):
    with pytest.raises(DatasetError) as excinfo:
        datasets.load_graph("ego-facebook")
    message = str(excinfo.value)
    assert "'ego-facebook'" in message
    assert "facebook_combined.txt.gz is missing" in message
    assert f"looked at {data_dir / 'facebook_combined.txt.gz'}" in message
    assert "reinstall" in message
    assert isinstance(excinfo.value, OSError)
    with pytest.raises(DatasetError, match=re.escape("adult_test.csv.gz is missing")):
        datasets.load_adult("test")


@pytest.mark.parametrize(
    ("name", "load"),
    [
        ("email-eu-core", lambda: datasets.load_graph("email-eu-core")),
        ("adult-test", lambda: datasets.load_adult("test")),
        ("adult-names", lambda: datasets.path("adult-names")),
    ],
)
def test_corrupted_copy_is_refused_with_both_checksums(data_dir, name, load):
    file = _copy(name, data_dir)
    _flip_byte(file)
    actual = _integrity.sha256_of(file)
    expected = datasets.info(name).sha256
    with pytest.raises(DatasetError) as excinfo:
        load()
    message = str(excinfo.value)
    assert f"{file} is corrupt" in message
    assert f"its SHA-256 is {actual}, expected {expected}" in message
    assert "reinstall" in message


def test_intact_copy_loads_through_the_hook(data_dir):
    _copy("email-eu-core", data_dir)
    graph = datasets.load_graph("email-eu-core")
    assert graph.number_of_edges() == 16064
    assert datasets.path("email-eu-core").parent == data_dir


def test_checksum_is_computed_once_per_file_and_again_after_a_change(data_dir, monkeypatch):
    file = _copy("email-eu-core", data_dir)
    calls = []
    real = _integrity.sha256_of

    def counting(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(_integrity, "sha256_of", counting)
    datasets.path("email-eu-core")
    datasets.load_graph("email-eu-core")
    assert len(calls) == 1
    stat = file.stat()
    _flip_byte(file)
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(DatasetError, match="is corrupt"):
        datasets.load_graph("email-eu-core")
    assert len(calls) == 2
