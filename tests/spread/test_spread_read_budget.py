"""The readers' time budget (issue 33, item 2): text that cannot add an edge is bounded.

A file of one repeated line, of self-loops, of comments or of blank lines, plain or as a
small gzip that expands to it, stops once more than ``ANONSPREAD_MAX_IDLE_TEXT`` bytes of
such text are read, with an error naming what was read, the limit and how to raise it;
an edge list whose lines name new edges never meets the limit. Small limits and small
blocks keep the files small (the 1 GiB measurements are in benchmarks/README.md).
"""

from __future__ import annotations

import gzip
import re

import pytest

from anonspread.errors import InvalidParameterError
from anonspread.spread import edgelist as reader
from anonspread.spread import limits
from anonspread.spread.graphs import from_edgelist

BLOCK = 4096
LIMIT = 64 * 1024


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(reader, "_BLOCK", BLOCK)
    monkeypatch.setenv(limits.IDLE_TEXT_ENV, "64K")


def _write(tmp_path, name, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return str(path)


IDLE = {
    "one repeated line": b"1 2\n" * 100_000,
    "self-loops": b"7 7\n" * 100_000,
    "comments": b"# nothing here\n" * 30_000,
    "blank lines": b"\n" * 400_000,
    "a few edges then repeats": b"".join(b"%d %d\n" % (i, i + 1) for i in range(10)) + b"5 6\n" * 100_000,
}


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("case", sorted(IDLE))
def test_idle_text_stops_the_read_early(tmp_path, small, case, gz):
    data = IDLE[case]
    path = _write(tmp_path, "g.txt.gz" if gz else "g.txt", data)
    with pytest.raises(InvalidParameterError) as info:
        reader.parse_edgelist(path)
    msg = str(info.value)
    assert msg.startswith(f"path must be an edge list whose lines add edges; got path={path!r}: its first ")
    assert "more than the 64 KiB allowed" in msg
    assert "raise the limit with ANONSPREAD_MAX_IDLE_TEXT, e.g. ANONSPREAD_MAX_IDLE_TEXT=" in msg
    lines = int(re.search(r"its first ([0-9,]+) lines", msg).group(1).replace(",", ""))
    # stopped within a block or two of the limit, not at the end of the file
    assert lines < data.count(b"\n")
    nodes = int(re.search(r"text\) name ([0-9,]+) nodes", msg).group(1))
    read = lines * len(data.splitlines(keepends=True)[-1])
    assert read <= LIMIT + limits.TEXT_PER_EDGE * nodes**2 + 2 * BLOCK
    # the whole file's size (estimated from the gzip ratio so far) and the time it would take
    whole = re.search(r"the whole file holds about ([0-9.]+) KiB of text, about [0-9.e+-]+ s to read", msg)
    assert whole, msg
    assert 0.5 * len(data) <= float(whole.group(1)) * 1024 <= 2 * len(data)
    # the same error through the public graph readers
    with pytest.raises(InvalidParameterError, match="lines add edges"):
        from_edgelist(path)


def test_edges_that_add_edges_never_meet_the_limit(tmp_path, small):
    # 200 KB of distinct edges (and a few repeats and comments) with a 64 KiB limit
    data = b"# a graph\n" + b"".join(b"%d %d 0.5 17\n" % (i, i + 1) for i in range(20_000)) + b"3 4\n" * 50
    labels, _, _, dropped, info = reader.parse_edgelist(_write(tmp_path, "g.txt", data))
    assert len(labels) == 20_001 and info["edge_lines"] == 20_050
    assert dropped["duplicate_edges"] == 50


def test_raised_limit_admits_the_file(tmp_path, small):
    path = _write(tmp_path, "g.txt.gz", IDLE["one repeated line"])
    with limits.raised_limits(idle_text="1M"):
        assert limits.idle_text_budget() == 2**20
        labels, _, _, dropped, _ = reader.parse_edgelist(path)
    assert labels == [1, 2] and dropped["duplicate_edges"] == 100_000 - 1
    assert limits.idle_text_budget() == LIMIT  # restored


def test_a_file_just_within_the_limit_is_read_whole(tmp_path, small):
    # 4 nodes, at most 16 distinct edges: 16 x 256 bytes + 64 KiB of text are allowed
    data = b"1 2\n2 3\n3 4\n" + b"1 2\n" * ((LIMIT + 16 * limits.TEXT_PER_EDGE) // 4 - 4)
    reader.parse_edgelist(_write(tmp_path, "g.txt", data))
    with pytest.raises(InvalidParameterError, match="lines add edges"):
        reader.parse_edgelist(_write(tmp_path, "h.txt", data + b"1 2\n" * 16))


@pytest.mark.parametrize("value", ["", "0", "-1", "lots", "inf"])
def test_bad_limit_values_are_refused(tmp_path, monkeypatch, value):
    monkeypatch.setenv(limits.IDLE_TEXT_ENV, value)
    if value == "":
        assert limits.idle_text_budget() == limits.MAX_IDLE_TEXT
        return
    with pytest.raises(InvalidParameterError, match="ANONSPREAD_MAX_IDLE_TEXT must give bytes"):
        limits.idle_text_budget()
