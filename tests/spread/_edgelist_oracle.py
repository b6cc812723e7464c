"""The edge-list reader as it was before issue 32 (pure Python, one object per token), kept
verbatim as the oracle the compiled reader is tested against (tests/spread/test_spread_edgelist_reader.py).

Only its return value changed: the tuple ``(labels, indptr, indices, dropped, read_info)``
that :func:`anonspread.spread.edgelist.read_edgelist` returns.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np

from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.limits import check_size, memory_budget


def _csr_from_pairs(n: int, a: np.ndarray, b: np.ndarray):
    """CSR (indptr, indices) of the undirected simple graph with edges (a[i], b[i]).

    Self-loops and duplicate edges are dropped; returns (indptr, indices, dropped).
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    loops = a == b
    n_loops = int(loops.sum())
    a, b = a[~loops], b[~loops]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    code = np.unique(lo * n + hi)
    n_dup = int(a.shape[0] - code.shape[0])
    lo, hi = code // n, code % n
    src = np.concatenate([lo, hi])
    dst = np.concatenate([hi, lo])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, src + 1, 1)
    np.cumsum(indptr, out=indptr)
    return indptr, dst.astype(np.int32), {"self_loops": n_loops, "duplicate_edges": n_dup}


def _check_path(path: Any) -> str:
    try:
        text = os.fspath(path)
    except TypeError:
        raise InvalidTypeError(f"path must be a str or os.PathLike naming an edge-list file; got {path!r}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not os.path.exists(text):
        raise GraphError(f"path must be an existing edge-list file; got {text!r} (not found)")
    if os.path.isdir(text):
        raise GraphError(f"path must be an edge-list file; got {text!r}, a directory")
    try:
        mode = os.stat(text).st_mode
    except OSError as exc:
        raise GraphError(f"path {text!r} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = ("a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
                else "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise GraphError(
            f"path must be a regular edge-list file (a device or pipe may never end); got {text!r}, {kind}")
    return text


#: Longest line (characters) an edge list may hold: two node ids and a few columns.
MAX_LINE_CHARS = 1 << 16
#: Bytes of reader state per edge read (two Python list entries and ints, the CSR arrays).
BYTES_PER_EDGE_READ = 160
_INT_TOKEN = re.compile(r"-?[0-9]+", re.ASCII)


def _lines(path: str) -> Iterator[str]:
    """The text lines of an edge list; unreadable, non-text or broken gzip files raise GraphError.

    A line longer than :data:`MAX_LINE_CHARS` is refused as soon as that many characters
    are read (an endless line never fills the memory).
    """
    try:
        if path.endswith(".gz"):
            fh = io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline=None)
        else:
            fh = open(path, encoding="utf-8", newline=None)
        with fh:
            lineno = 0
            while True:
                line = fh.readline(MAX_LINE_CHARS + 1)
                if not line:
                    return
                lineno += 1
                if len(line) > MAX_LINE_CHARS:
                    raise GraphError(
                        f"path {path!r} line {lineno} must be an edge (two node ids); got a line "
                        f"longer than {MAX_LINE_CHARS} characters (not an edge list?)")
                yield line
    except UnicodeDecodeError as exc:
        raise GraphError(
            f"path {path!r} must be a UTF-8 text edge list; byte {exc.start} is not text "
            "(a binary file?)"
        ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise GraphError(
            f"path {path!r} ends in .gz but is not a complete gzip file ({exc or type(exc).__name__})"
        ) from None
    except OSError as exc:
        raise GraphError(f"path {path!r} cannot be read: {exc.strerror or exc}") from None


def _node_label(nodetype: Any, tok: str, where: str) -> Hashable:
    name = getattr(nodetype, "__name__", repr(nodetype))
    if nodetype is int and not _INT_TOKEN.fullmatch(tok):
        # int() also takes '1_000' and non-ASCII digits: two spellings of one node
        raise GraphError(f"{where}: node token {tok!r} is not a valid int (ASCII digits, "
                         "with an optional minus sign); node names that are not numbers need "
                         "nodetype='str' (command line: --set graph.nodetype=str)")
    try:
        lab = nodetype(tok)
    except (TypeError, ValueError, ArithmeticError):
        raise GraphError(f"{where}: node token {tok!r} is not a valid {name}") from None
    # NaN != NaN: it would become a new node at every occurrence, and a self-edge never
    # recognised as one; an unhashable label cannot be a node at all
    try:
        hash(lab)
        self_equal = bool(lab == lab)
    except (TypeError, ValueError):
        raise GraphError(f"{where}: nodetype {name} turns {tok!r} into an unusable label {lab!r}") from None
    if not self_equal:
        raise GraphError(f"{where}: node token {tok!r} gives {lab!r}, which is not equal to itself")
    return lab


#: Accepted ``delimiter`` names of :func:`from_edgelist` and the character each splits on
#: (``None``: runs of spaces and tabs). ``"auto"`` picks comma, semicolon or whitespace from
#: the first edge line.
EDGELIST_DELIMITERS = {"whitespace": None, "comma": ",", "tab": "\t", "semicolon": ";"}
_DELIMITER_ALIASES = {None: "whitespace", ",": "comma", "\t": "tab", ";": "semicolon"}
_NODETYPES = {"int": int, "str": str}
# SNAP and similar files say "# Directed graph ..." in their header ("Undirected" does not match)
_DIRECTED_NOTE = re.compile(r"(?<![a-z])directed\b", re.IGNORECASE)


def _edgelist_options(nodetype: Any, delimiter: Any, comments: Any, header: Any,
                      symmetrize: Any) -> tuple[Any, str, str]:
    """Check the reader's options; returns (nodetype callable, delimiter name, comment chars)."""
    if isinstance(nodetype, str):
        if nodetype not in _NODETYPES:
            raise InvalidParameterError(f"nodetype must be 'int', 'str' or a callable such as int; got {nodetype!r}")
        nodetype = _NODETYPES[nodetype]
    if not callable(nodetype):
        raise InvalidTypeError(f"nodetype must be a callable such as int or str; got {nodetype!r}")
    name = _DELIMITER_ALIASES.get(delimiter, delimiter) if not isinstance(delimiter, bool) else delimiter
    if name != "auto" and name not in EDGELIST_DELIMITERS:
        accepted = ", ".join(repr(k) for k in ("auto", *EDGELIST_DELIMITERS))
        raise InvalidParameterError(
            f"delimiter must be one of {accepted} (or ',', '\\t', ';', None); got {delimiter!r}")
    if not isinstance(comments, str) or any(c.isspace() or c.isalnum() for c in comments):
        raise InvalidParameterError(
            f"comments must be a string of comment characters such as '#%' (no letters, digits "
            f"or spaces; '' for none); got {comments!r}")
    for flag, value in (("header", header), ("symmetrize", symmetrize)):
        if not isinstance(value, bool | np.bool_):
            raise InvalidTypeError(f"{flag} must be True or False; got {value!r}")
    return nodetype, name, comments


def _sniff_delimiter(line: str) -> str:
    for name in ("comma", "semicolon"):
        if EDGELIST_DELIMITERS[name] in line:
            return name
    return "whitespace"


def old_from_edgelist(path: str | os.PathLike, *, nodetype: Any = int, delimiter: str | None = "auto",
                  comments: str = "#%", header: bool = False, symmetrize: bool = False) -> tuple:
    """The pure-Python reader before issue 32 (returns the tuple of read_edgelist)."""
    text = _check_path(path)
    nodetype, delim, comment_chars = _edgelist_options(nodetype, delimiter, comments, header, symmetrize)
    index: dict = {}
    labels: list = []
    a: list[int] = []
    b: list[int] = []
    header_line: str | None = None
    said_directed = False
    extra_columns = 0
    lines_with_extra = 0
    fits = memory_budget() // BYTES_PER_EDGE_READ  # edges: checked while reading
    for lineno, raw in enumerate(_lines(text), start=1):
        line = raw.strip()
        if not line:
            continue
        if comment_chars and line[0] in comment_chars:
            said_directed = said_directed or bool(_DIRECTED_NOTE.search(line))
            continue
        if header and header_line is None:
            header_line = line
            continue
        if len(a) >= fits:
            check_size("path", text, nbytes=(len(a) + 1) * BYTES_PER_EDGE_READ,
                       what=f"the edge list (more than {len(a):,} edges)")
        if delim == "auto":
            delim = _sniff_delimiter(line)
        sep = EDGELIST_DELIMITERS[delim]
        parts = [t.strip() for t in line.split(sep)]
        if len(parts) < 2 or not parts[0] or not parts[1]:
            hint = ""
            others = [n for n, c in EDGELIST_DELIMITERS.items() if c is not None and c in line and n != delim]
            if others:
                hint = f"; the line holds '{EDGELIST_DELIMITERS[others[0]]}': pass delimiter={others[0]!r}"
            raise GraphError(
                f"path {text!r} line {lineno} must hold two node tokens separated by "
                f"{delim} (delimiter={delim!r}); got {line!r}{hint}")
        if len(parts) > 2:
            extra_columns = max(extra_columns, len(parts) - 2)
            lines_with_extra += 1
        ends = []
        for tok in parts[:2]:
            try:
                lab = _node_label(nodetype, tok, f"path {text!r} line {lineno}")
            except GraphError as exc:
                if not a and not header:
                    raise GraphError(f"{exc}; if this line names the columns, pass header=True "
                                     "(command line: --set graph.header=true)") from None
                raise
            i = index.get(lab)
            if i is None:
                i = index[lab] = len(labels)
                labels.append(lab)
            ends.append(i)
        a.append(ends[0])
        b.append(ends[1])
    if not labels:
        raise GraphError(f"path {text!r} must hold at least one edge; got none")
    aa, bb = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    arcs = _arc_counts(len(labels), aa, bb)
    directed = said_directed or (arcs["reciprocal"] > 0 and arcs["one_way"] > 0)
    if directed and not symmetrize:
        why = ("a comment line says it is directed" if said_directed else
               f"{arcs['reciprocal']:,} node pairs appear in both orientations and "
               f"{arcs['one_way']:,} in one only")
        raise GraphError(
            f"path {text!r} looks like a directed edge list ({why}); spreading follows contacts "
            "both ways: pass symmetrize=True (command line: --set graph.symmetrize=true) to read "
            f"each arc as an undirected edge ({arcs['reciprocal']:,} reciprocal pairs would be merged)")
    indptr, indices, dropped = _csr_from_pairs(len(labels), aa, bb)
    if directed:
        dropped["duplicate_edges"] = arcs["repeated"]
        dropped["reciprocal_arcs"] = arcs["reciprocal"]
    info = {
        "path": text,
        "delimiter": delim if delim != "auto" else "whitespace",
        "comments": comment_chars,
        "header": header_line,
        "nodetype": getattr(nodetype, "__name__", repr(nodetype)),
        "edge_lines": len(a),
        "ignored_columns": extra_columns,
        "lines_with_ignored_columns": lines_with_extra,
        "directed": "symmetrised" if directed else False,
    }
    return labels, indptr, indices, dropped, info


def _arc_counts(n: int, a: np.ndarray, b: np.ndarray) -> dict[str, int]:
    """Among the non-loop lines: repeated arcs (same orientation), unordered pairs listed in
    both orientations, and pairs listed in one orientation only."""
    keep = a != b
    a, b = a[keep], b[keep]
    arcs = np.unique(a * n + b)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pairs = np.unique(lo * n + hi)
    reciprocal = int(arcs.shape[0] - pairs.shape[0])
    return {"repeated": int(a.shape[0] - arcs.shape[0]), "reciprocal": reciprocal,
            "one_way": int(pairs.shape[0] - reciprocal)}


