"""Edge lists from Python, the command line and TOML alike (issue 23, item 6).

Node names, comma/semicolon/tab/whitespace columns, '#' and '%' comments, a header line,
ignored extra columns; a directed file refused unless symmetrised; what was dropped, the
components and the ignored columns recorded in the run's JSON and printed once.
"""

from __future__ import annotations

import gzip
import json

import pytest

from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.harness import cli
from anonspread.spread.graphs import from_edgelist


def _write(tmp_path, text, name="g.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_names_commas_percent_comments_header_and_a_weight_column(tmp_path):
    p = _write(tmp_path, "% KONECT style\nsrc,dst,weight\nuser0,user1,3\nuser1 , user2,1\n"
                         "# another comment\nuser2,user0,2\n")
    g = from_edgelist(p, nodetype="str", header=True)
    assert g.labels == ["user0", "user1", "user2"]
    assert g.number_of_edges() == 3
    info = g.read_info
    assert (info["delimiter"], info["header"], info["ignored_columns"], info["lines_with_ignored_columns"]) \
        == ("comma", "src,dst,weight", 1, 3)
    assert info["directed"] is False and g.dropped == {"self_loops": 0, "duplicate_edges": 0}


@pytest.mark.parametrize(("text", "delimiter"), [
    ("0;1\n1;2\n", "semicolon"), ("0\t1\n1\t2\n", "tab"), ("0 1\n1    2\n", "whitespace"),
    ("0,1\n1,2\n", "comma"), ("0 1\n1 2\n", None), ("0,1\n1,2\n", ","),
])
def test_every_delimiter_reads_the_same_path(tmp_path, text, delimiter):
    g = from_edgelist(_write(tmp_path, text), delimiter=delimiter)
    assert g.labels == [0, 1, 2] and g.number_of_edges() == 2


def test_a_header_line_without_header_true_says_what_to_do(tmp_path):
    p = _write(tmp_path, "source target\n0 1\n")
    with pytest.raises(GraphError, match="if this line names the columns, pass header=True"):
        from_edgelist(p)
    assert from_edgelist(p, header=True).number_of_edges() == 1


def test_named_nodes_with_a_header_say_what_to_set_on_the_command_line(tmp_path):
    """The newcomer's file: a header, then names like user0 (a CSV exported elsewhere)."""
    p = _write(tmp_path, "source,target\nuser0,user1\nuser1,user2\n")
    with pytest.raises(GraphError, match=r"--set graph\.header=true"):
        from_edgelist(p)
    with pytest.raises(GraphError, match=r"line 2: node token 'user0'.*--set graph\.nodetype=str"):
        from_edgelist(p, header=True)
    assert from_edgelist(p, header=True, nodetype="str").labels == ["user0", "user1", "user2"]


def test_a_comma_file_read_as_whitespace_names_the_delimiter(tmp_path):
    p = _write(tmp_path, "0,1\n1,2\n")
    with pytest.raises(GraphError, match="pass delimiter='comma'"):
        from_edgelist(p, delimiter="whitespace")


def test_directed_files_are_refused_unless_symmetrised(tmp_path):
    arcs = "0 1\n1 0\n1 2\n2 3\n3 3\n"  # one reciprocal pair beside one-way arcs, a self-loop
    p = _write(tmp_path, arcs)
    with pytest.raises(GraphError, match=r"directed edge list \(1 node pairs appear in both orientations "
                                         r"and 2 in one only\).*symmetrize=True.*--set graph.symmetrize=true"):
        from_edgelist(p)
    g = from_edgelist(p, symmetrize=True)
    assert g.number_of_edges() == 3
    assert g.dropped == {"self_loops": 1, "duplicate_edges": 0, "reciprocal_arcs": 1}
    assert g.read_info["directed"] == "symmetrised"
    # SNAP's header says so even when no pair is reciprocal
    snap = _write(tmp_path, "# Directed graph (each unordered pair of nodes is saved once)\n0 1\n1 2\n", "d.txt")
    with pytest.raises(GraphError, match="a comment line says it is directed"):
        from_edgelist(snap)
    assert from_edgelist(snap, symmetrize=True).dropped["reciprocal_arcs"] == 0


def test_undirected_files_are_read_whether_edges_appear_once_or_both_ways(tmp_path):
    once = _write(tmp_path, "# Undirected graph: each edge once\n0 1\n1 2\n0 1\n", "once.txt")
    g = from_edgelist(once)
    assert g.number_of_edges() == 2 and g.dropped == {"self_loops": 0, "duplicate_edges": 1}
    both = _write(tmp_path, "0 1\n1 0\n1 2\n2 1\n", "both.txt")
    h = from_edgelist(both)
    assert h.number_of_edges() == 2 and h.dropped == {"self_loops": 0, "duplicate_edges": 2}
    assert h.read_info["directed"] is False


@pytest.mark.parametrize(("kw", "exc", "message"), [
    ({"delimiter": "pipe"}, InvalidParameterError, "delimiter must be one of 'auto', 'whitespace', 'comma'"),
    ({"nodetype": "float64"}, InvalidParameterError, "nodetype must be 'int', 'str' or a callable"),
    ({"nodetype": 3}, InvalidTypeError, "nodetype must be a callable"),
    ({"comments": "a"}, InvalidParameterError, "comments must be a string of comment characters"),
    ({"header": "yes"}, InvalidTypeError, "header must be True or False"),
    ({"symmetrize": 1}, InvalidTypeError, "symmetrize must be True or False"),
])
def test_bad_options_name_what_is_accepted(tmp_path, kw, exc, message):
    with pytest.raises(exc, match=message):
        from_edgelist(_write(tmp_path, "0 1\n"), **kw)


def test_gzip_and_no_comment_characters(tmp_path):
    p = tmp_path / "g.csv.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("a,b\nb,c\n")
    assert from_edgelist(p, nodetype=str).labels == ["a", "b", "c"]
    hashed = _write(tmp_path, "#x #y\n#y #z\n")
    assert from_edgelist(hashed, nodetype=str, comments="").labels == ["#x", "#y", "#z"]


def _directed_users(tmp_path):
    lines = ["% users who wrote to users", "from,to,messages"]
    lines += [f"user{i},user{(i + 1) % 12},{i}" for i in range(12)]  # a ring of arcs
    lines += ["user1,user0,5", "user3,user3,1", "loner,hermit,1"]  # reciprocal, loop, 2nd component
    return _write(tmp_path, "\n".join(lines) + "\n", "users.csv")


def test_cli_sweep_reads_names_refuses_directed_and_records_what_it_did(tmp_path, capsys):
    path = _directed_users(tmp_path)
    base = ["sweep", "detection", "--set", "graph=edgelist", "--set", f"graph.path={path}",
            "--set", "graph.nodetype=str", "--set", "graph.header=true", "--set", "protocol=flooding",
            "--set", "T=1", "--trials", "20", "--rng", "1", "--workers", "1", "--quiet", "--no-plot",
            "--out", str(tmp_path)]
    assert cli.main(base) == 2
    assert "looks like a directed edge list" in capsys.readouterr().err
    assert cli.main([*base, "--set", "graph.symmetrize=true"]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note: graph edgelist(users.csv)")]
    assert len(notes) == 1, out  # printed once
    for part in ("dropped 1 self-loops", "1 reciprocal arc pairs merged", "ignored 1 column(s)",
                 "2 connected components (largest: 12 of 14 nodes)"):
        assert part in notes[0]
    side = json.loads(next(tmp_path.glob("sweep-detection-*.json")).read_text())  # named by its grid
    (graph,) = side["components"]["graphs"]
    assert graph["dropped"] == {"self_loops": 1, "duplicate_edges": 0, "reciprocal_arcs": 1}
    assert graph["read"]["ignored_columns"] == 1 and graph["read"]["delimiter"] == "comma"
    assert graph["summary"]["components"] == 2 and graph["summary"]["largest_component"] == 12


def test_toml_sweep_takes_the_same_options(tmp_path, capsys):
    path = _directed_users(tmp_path)
    cfg = tmp_path / "sweep.toml"
    cfg.write_text(f'''template = "detection"
trials = 20
rng = 2
[product]
graph = "edgelist"
"graph.path" = "{path}"
"graph.nodetype" = "str"
"graph.header" = true
"graph.symmetrize" = true
protocol = "flooding"
T = [1, 2]
''')
    assert cli.main(["sweep", "--config", str(cfg), "--workers", "1", "--quiet", "--no-plot",
                     "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("note: graph edgelist(users.csv)") == 1
