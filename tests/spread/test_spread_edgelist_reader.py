"""The compiled edge-list reader (issue 32, item 1) against the previous pure-Python reader.

The previous reader is kept verbatim as the oracle (``_edgelist_oracle.py``): on every
edge-list case of the test suite and on random files with random options (hypothesis),
the new reader gives the same labels (values and types), CSR arrays, ``dropped`` counts
and ``read_info`` notes, or the same error (class, message, line). Files are read in
blocks of a few bytes too, so that every line, character and ``\\r\\n`` straddles a block
boundary somewhere.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from _edgelist_oracle import old_from_edgelist
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonspread.engine import edgelist as kernels
from anonspread.spread import edgelist as reader
from anonspread.spread.edgelist import parse_edgelist
from anonspread.spread.graphs import _csr_from_pairs, from_edgelist


def outcome(fn, path, **kw):
    try:
        labels, indptr, indices, dropped, info = fn(path, **kw)
    except Exception as exc:  # the error itself is compared
        return ("error", type(exc).__name__, str(exc))
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    return ("ok", [(type(x).__name__, x) for x in labels], indptr.tolist(), indices.tolist(),
            list(dropped.items()), info)


def both(path, **kw):
    """The outcome of the new reader and of the previous one (the oracle) on ``path``."""
    return outcome(parse_edgelist, path, **kw), outcome(old_from_edgelist, path, **kw)


def same(path, **kw):
    new, old = both(path, **kw)
    assert new == old
    return new


def _file(tmp_path, data: bytes, name: str) -> str:
    p = tmp_path / name
    if name.endswith(".gz"):
        p.write_bytes(gzip.compress(data))
    else:
        p.write_bytes(data)
    return str(p)


# ----------------------------------------------------------------- the suite's cases

_SUITE = [  # (text, options) of every edge-list case in tests/ (grep from_edgelist)
    ("# a comment\n0 1\r\n0 1\n1 1\n1 2\n", {}),
    ("% users\nsrc,dst,weight\nuser0,user1,3\nuser1,user2,1\n", {"nodetype": str, "header": True}),
    ("% KONECT style\nsrc,dst,weight\nuser0,user1,3\nuser1 , user2,1\n# another comment\nuser2,user0,2\n",
     {"nodetype": "str", "header": True}),
    ("0;1\n1;2\n", {"delimiter": "semicolon"}), ("0\t1\n1\t2\n", {"delimiter": "tab"}),
    ("0 1\n1    2\n", {"delimiter": "whitespace"}), ("0,1\n1,2\n", {"delimiter": "comma"}),
    ("0 1\n1 2\n", {"delimiter": None}), ("0,1\n1,2\n", {"delimiter": ","}),
    ("source target\n0 1\n", {}), ("source target\n0 1\n", {"header": True}),
    ("source,target\nuser0,user1\nuser1,user2\n", {}),
    ("source,target\nuser0,user1\nuser1,user2\n", {"header": True}),
    ("source,target\nuser0,user1\nuser1,user2\n", {"header": True, "nodetype": "str"}),
    ("0,1\n1,2\n", {"delimiter": "whitespace"}),
    ("0 1\n1 0\n1 2\n2 3\n3 3\n", {}), ("0 1\n1 0\n1 2\n2 3\n3 3\n", {"symmetrize": True}),
    ("# Directed graph (each unordered pair of nodes is saved once)\n0 1\n1 2\n", {}),
    ("# Directed graph (each unordered pair of nodes is saved once)\n0 1\n1 2\n", {"symmetrize": True}),
    ("# Undirected graph: each edge once\n0 1\n1 2\n0 1\n", {}),
    ("0 1\n1 0\n1 2\n2 1\n", {}),
    ("a,b\nb,c\n", {"nodetype": str}), ("#x #y\n#y #z\n", {"nodetype": str, "comments": ""}),
    ("# comment\r\n0 1\r\n1 0\r\n2 2\r\n\r\n1 2 7\r\n2 3\n", {}),
    ("# comment\r\n0 1\r\n1 0\r\n2 2\r\n\r\n1 2 7\r\n2 3\n", {"symmetrize": True}),
    ("a b\nb c\n", {"nodetype": str}), ("0 1\n2\n", {}), ("0 x\n", {}),
    ("0 1\nnan nan\n", {"nodetype": float}), ("0 1\nnan nan\n", {"nodetype": str}),
    ("0 1000\n1000 -3\n", {}),
    *[(f"0 1\n1 {tok}\n", kw) for tok in ["1_000", "\u0661\u0662", "\uff11", "+5", "1.0", "0x10", "007",
                                          "1e3", "\u00b2", "-0", "nan"]
      for kw in ({}, {"nodetype": str})],
    ("0 1\n1  x\n", {}), ("0 1\n1  x\n", {"nodetype": str}),
    ("".join(f"{i} {i + 1}\n" for i in range(1000)), {}),
    ("% users who wrote to users\nfrom,to,messages\n"
     + "".join(f"user{i},user{(i + 1) % 12},{i}\n" for i in range(12))
     + "user1,user0,5\nuser3,user3,1\nloner,hermit,1\n", {"nodetype": "str", "header": True, "symmetrize": True}),
]


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize(("text", "kw"), _SUITE)
def test_the_suites_cases_read_as_before(tmp_path, text, kw, gz):
    new, old = both(_file(tmp_path, text.encode(), "g.txt.gz" if gz else "g.txt"), **kw)
    assert new == old


def test_the_suites_bad_files_fail_as_before(tmp_path):
    data = gzip.compress(b"0 1\n1 2\n" * 500)
    cases = {"bin.txt": bytes(range(256)) * 8, "cut.gz": data[: len(data) // 2]}
    for name, raw in cases.items():
        (tmp_path / name).write_bytes(raw)
    (tmp_path / "plain.gz").write_text("0 1\n1 2\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "long.txt").write_text("0 " * 40000 + "\n")
    for name in [*cases, "plain.gz", "adir", "long.txt", "missing.txt"]:
        assert same(str(tmp_path / name))[0] == "error"
    for bad in (None, 3, ["g.txt"]):
        assert outcome(parse_edgelist, bad) == outcome(old_from_edgelist, bad)


def test_block_boundaries_everywhere(tmp_path, monkeypatch):
    text = ("# Undirected\r\nsrc dst\r0 1 9\r\n1\u3000 2\n\n\u00e9 \u0130\r\n"
            "%x\n2 0\r\n\u00e9 0\r\n") * 3
    for gz in (False, True):
        path = _file(tmp_path, text.encode(), "b.txt.gz" if gz else "b.txt")
        for kw in ({"header": True, "nodetype": str}, {"header": True}):
            expected = outcome(old_from_edgelist, path, **kw)
            for block in (1, 2, 3, 5, 7, 64):
                monkeypatch.setattr(reader, "_BLOCK", block)
                assert outcome(parse_edgelist, path, **kw) == expected


def test_ids_beyond_int64_and_equal_spellings(tmp_path):
    big = str(2**70)
    cases = [(f"007 7\n-0 0\n{big} 1\n0{big} 2\n-{big} 3\n".encode(), "g.txt", {}),
             (f"9223372036854775807 -9223372036854775808\n{'9' * 5000} 1\n".encode(), "h.txt", {}),
             (b"1.0 1\n2.5 1\n", "f.txt", {"nodetype": float})]
    for data, name, kw in cases:
        new, old = both(_file(tmp_path, data, name), **kw)
        assert new == old


def test_faults_after_a_bad_line_are_met_in_the_same_order(tmp_path):
    """The previous reader decoded 8 KiB ahead: a bad byte soon after a bad line won;
    one far after it did not."""
    for gap in (0, 10, 5000, 9000, 100_000):
        data = b"0 1\nx y\n" + b"1 2\n" * (gap // 4) + b"\xff\n"
        for kw in ({}, {"nodetype": str}):
            new, old = both(_file(tmp_path, data, "g.txt"), **kw)
            assert new == old
        same(_file(tmp_path, data, "g.txt"), nodetype=float)
        z = gzip.compress(data)
        (tmp_path / "t.gz").write_bytes(z[:-9])  # truncated: the stream's end is missing
        same(str(tmp_path / "t.gz"))


def test_memory_limit_is_checked_while_reading(tmp_path, monkeypatch):
    from anonspread.spread import limits

    path = _file(tmp_path, "".join(f"{i} {i + 1}\n" for i in range(1000)).encode(), "g.txt")
    monkeypatch.setenv(limits.MEMORY_ENV, str(500 * reader.BYTES_PER_EDGE_READ))
    with pytest.raises(Exception, match=r"more than 500 edges"):
        parse_edgelist(path)


def test_csr_kernel_matches_the_previous_numpy_steps():
    rng = np.random.default_rng(5)
    for n, m in ((1, 3), (7, 40), (50, 400), (1000, 300)):
        a, b = rng.integers(0, n, m), rng.integers(0, n, m)
        new = _csr_from_pairs(n, a, b)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keep = lo != hi
        code = np.unique(lo[keep] * n + hi[keep])
        src = np.concatenate([code // n, code % n])
        dst = np.concatenate([code % n, code // n])
        order = np.lexsort((dst, src))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
        assert new[0].tolist() == indptr.tolist()
        assert new[1].tolist() == dst[order].tolist()
        assert new[2] == {"self_loops": int((~keep).sum()), "duplicate_edges": int(keep.sum() - code.size)}


def test_kernels_refuse_ids_out_of_range():
    with pytest.raises(ValueError, match="node ids must be in"):
        kernels.simple_csr(3, np.array([0, 3]), np.array([1, 1]))
    with pytest.raises(ValueError, match="node ids must be in"):
        kernels.simple_csr(3, np.array([-1]), np.array([1]))
    with pytest.raises(ValueError, match="node ids must be in"):
        kernels.simple_csr_counts(2, np.array([0], np.int32), np.array([2], np.int32))
    tok = kernels.Tokenizer(0, 1, [], False, 100, 10)
    with pytest.raises(ValueError, match="start <= stop"):
        tok.feed(bytearray(b"0 1\n"), 0, 9, True)
    assert tok.feed(bytearray(b"0 1\n"), 0, 4, True) == (kernels.EV_MORE, 4)
    a, b = tok.take_arcs()
    assert a.tolist() == [0] and b.tolist() == [1]
    with pytest.raises(ValueError, match="taken"):
        tok.take_arcs()
    with pytest.raises(ValueError, match="taken"):
        tok.feed(bytearray(b"0 1\n"), 0, 4, True)


def test_from_edgelist_builds_the_graph_of_the_tuple(tmp_path):
    g = from_edgelist(_file(tmp_path, b"5 6\n6 7\n", "g.txt"))
    assert g.labels == [5, 6, 7] and g.indptr.tolist() == [0, 1, 3, 4]
    assert g.read_info["edge_lines"] == 2 and g.dropped == {"self_loops": 0, "duplicate_edges": 0}


# ----------------------------------------------------------------- random files

_TOKENS = ["0", "1", "2", "3", "-1", "007", "7", "-0", "1_0", "a", "b", "\u00e9", "\u0130", "x,y",
           "1.0", "nan", "99999999999999999999", "\u0661", "#", "%1", "\ufeff1", "1\x00"]
_SEPS = [" ", "  ", "\t", ",", ";", " , ", "\u00a0", "\u3000", "\x1c", "\x0b", "\x85"]
_COMMENTS = ["# directed", "#x", "% Directed graph", "#undirected", "# \u0131directed x",
             "% e\u0301 directed\u00e9", "# directed_", "#Directed9", "#\u00e9directed"]
_ENDS = ["\n", "\r\n", "\r"]


@st.composite
def edge_files(draw):
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["edge", "edge", "edge", "comment", "blank", "junk"]))
        if kind == "edge":
            toks = draw(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=4))
            seps = draw(st.lists(st.sampled_from(_SEPS), min_size=len(toks) - 1, max_size=len(toks) - 1))
            line = toks[0] + "".join(s + t for s, t in zip(seps, toks[1:]))
            line = draw(st.sampled_from(["", " ", "\t", "\u2003"])) + line + draw(st.sampled_from(["", " ", ","]))
        elif kind == "comment":
            line = draw(st.sampled_from(["", "  "])) + draw(st.sampled_from(_COMMENTS))
        elif kind == "blank":
            line = draw(st.sampled_from(["", " ", "\t \u00a0"]))
        else:
            line = draw(st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=6))
        lines.append(line + draw(st.sampled_from(_ENDS)))
    text = "".join(lines)
    if text and draw(st.booleans()):
        text = text[: -len(lines[-1][-1:])]  # no line end on the last line
    data = text.encode("utf-8")
    fault = draw(st.sampled_from(["none", "none", "none", "byte", "cut"]))
    if fault == "byte":
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.sampled_from([b"\xff", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80"])) + data[i:]
    elif fault == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    return data


_OPTIONS = st.fixed_dictionaries({}, optional={
    "nodetype": st.sampled_from([int, str, "int", "str", float, str.lower]),
    "delimiter": st.sampled_from(["auto", "whitespace", "comma", "tab", "semicolon", None, ","]),
    "comments": st.sampled_from(["#%", "", "#", "%;", "-", "\u00e9"]),
    "header": st.booleans(),
    "symmetrize": st.booleans(),
})


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=edge_files(), kw=_OPTIONS, gz=st.sampled_from([False, False, True]),
       block=st.sampled_from([1 << 22, 3]))
def test_random_files_read_as_before(tmp_path, monkeypatch, data, kw, gz, block):
    monkeypatch.setattr(reader, "_BLOCK", block)
    new, old = both(_file(tmp_path, data, "r.txt.gz" if gz else "r.txt"), **kw)
    assert new == old
