"""Reading edge lists at the speed of the disk (the machinery of :func:`spread.graphs.from_edgelist`).

The file is read in large binary blocks and handed to the compiled tokenizer
(:class:`anonspread.engine.edgelist.Tokenizer`), which turns edge lines into two int32
arrays of node ids and a table of distinct names; the arcs then become CSR by a counting
sort by row and a small sort per row (:func:`anonspread.engine.edgelist.simple_csr_counts`).
Python sees only the lines it must: the header, a comment that may say "directed" in non-ASCII text,
and a line in error, which it re-reads with the same code as before to word the error.

Why not a CSV library: the semantics of this reader are those of Python text --
``str.strip`` and ``str.split`` on UTF-8 decoded with universal newlines: runs of any
Unicode whitespace separate columns (not one character), several comment characters
start a comment only at the start of a stripped line (not anywhere in it), every error
names its line as Python counts lines (``\\r`` alone ends one), a line longer than
:data:`MAX_LINE_CHARS` is refused, and names are kept without a Python object per token.
pyarrow's CSV reader takes one single-character delimiter and has no whitespace runs nor
comments; pandas' C engine takes one comment character that starts a comment anywhere,
and builds a Python ``str`` per name token. Neither is a dependency today. The tokenizer
is about 500 lines of Cython and is tested against the previous pure-Python reader (kept in
the tests as the oracle) on random files.

Errors whose words depend on Python's text layer (a byte that is not UTF-8, a broken gzip
stream, an OS error) are worded by replaying the previous reader's line loop up to the
failure (:func:`_replay`): the same exception, message and line, at readline speed.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import io
import os
import re
import stat
import time
import zlib
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np

from anonspread.engine import edgelist as _kernels
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.limits import TEXT_PER_EDGE, check_idle_text, check_size, memory_budget

__all__ = [
    "BYTES_PER_EDGE_READ",
    "EDGELIST_DELIMITERS",
    "MAX_LINE_CHARS",
    "parse_edgelist",
]

#: Longest line (characters) an edge list may hold: two node ids and a few columns.
MAX_LINE_CHARS = 1 << 16
#: Bytes of reader state per edge line read, the bound the memory limit uses: two int32 node
#: ids, then each arc end (8 bytes, twice) in its block of rows beside them, then the rows.
BYTES_PER_EDGE_READ = 32
#: Accepted ``delimiter`` names of :func:`parse_edgelist` and the character each splits on
#: (``None``: runs of spaces and tabs). ``"auto"`` picks comma, semicolon or whitespace from
#: the first edge line.
EDGELIST_DELIMITERS = {"whitespace": None, "comma": ",", "tab": "\t", "semicolon": ";"}
_DELIMITER_ALIASES = {None: "whitespace", ",": "comma", "\t": "tab", ";": "semicolon"}
_DELIMITER_CODES = {"auto": 0, "whitespace": 1, "comma": 2, "tab": 3, "semicolon": 4}
_DELIMITER_NAMES = {v: k for k, v in _DELIMITER_CODES.items()}
_NODETYPES = {"int": int, "str": str}
_INT_TOKEN = re.compile(r"-?[0-9]+", re.ASCII)
# SNAP and similar files say "# Directed graph ..." in their header ("Undirected" does not match)
_DIRECTED_NOTE = re.compile(r"(?<![a-z])directed\b", re.IGNORECASE)
#: Bytes read per block.
_BLOCK = 1 << 22
#: After an error at a line, bytes past it checked for a fault the previous reader's 8 KiB
#: read-ahead would have met first (then the error is worded by a replay).
_WINDOW = 1 << 16


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


def _lines(path: str) -> Iterator[str]:
    """The text lines of an edge list; unreadable, non-text or broken gzip files raise GraphError.

    The previous reader's line source, kept to word the errors of Python's text layer
    exactly as before (:func:`_replay`). A line longer than :data:`MAX_LINE_CHARS` is
    refused as soon as that many characters are read.
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


def _line_error(text: str, lineno: int, line: str, delim: str, nodetype: Any, *,
                first_edge: bool, header: bool) -> GraphError | None:
    """The error of the previous reader for the stripped edge line ``line`` (None: no error)."""
    sep = EDGELIST_DELIMITERS[delim]
    parts = [t.strip() for t in line.split(sep)]
    if len(parts) < 2 or not parts[0] or not parts[1]:
        hint = ""
        others = [n for n, c in EDGELIST_DELIMITERS.items() if c is not None and c in line and n != delim]
        if others:
            hint = f"; the line holds '{EDGELIST_DELIMITERS[others[0]]}': pass delimiter={others[0]!r}"
        return GraphError(
            f"path {text!r} line {lineno} must hold two node tokens separated by "
            f"{delim} (delimiter={delim!r}); got {line!r}{hint}")
    for tok in parts[:2]:
        try:
            _node_label(nodetype, tok, f"path {text!r} line {lineno}")
        except GraphError as exc:
            if first_edge and not header:
                return GraphError(f"{exc}; if this line names the columns, pass header=True "
                                  "(command line: --set graph.header=true)")
            return exc
    return None


def _open_binary(text: str):
    if text.endswith(".gz"):
        return gzip.open(text, "rb")
    return open(text, "rb", buffering=0)


class _Stop(Exception):
    """The scan stopped: ``error()`` is the error of line ``lineno``; with ``replay``, a fault
    of the text layer (bad UTF-8, a broken gzip stream, an OS error) lies at or after it and
    the previous reader's line loop is replayed to see which it met first (``error`` None:
    the fault is the error)."""

    def __init__(self, lineno: int, error: Callable[[], BaseException] | None, replay: bool) -> None:
        super().__init__(lineno)
        self.lineno = lineno
        self.error = error
        self.replay = replay


def _replay(text: str, lineno: int, error: Callable[[], BaseException] | None) -> BaseException:
    """The error the previous reader raised first: one of its text layer's (a byte that is not
    UTF-8, a broken gzip stream, an OS error, a long line), or ``error()`` once line ``lineno``
    is reached. Reads lines at readline speed, parses none."""
    try:
        for k, _ in enumerate(_lines(text), start=1):
            if error is not None and k >= lineno:
                break
    except GraphError as exc:
        return exc
    if error is None:  # pragma: no cover - the tokenizer and Python's decoder disagree
        return RuntimeError(f"edge-list reader: {text!r} was found faulty but reads back clean")
    return error()


def _window_is_clean(fh, rest: bytes, eof: bool) -> bool:
    """Do the bytes after an error line (``rest``, then up to :data:`_WINDOW` more from ``fh``)
    read and decode cleanly?"""
    data = bytearray(rest)
    try:
        while not eof and len(data) < _WINDOW:
            chunk = fh.read(_WINDOW)
            if not chunk:
                eof = True
            data += chunk
        codecs.utf_8_decode(bytes(data), "strict", eof)
    except (UnicodeDecodeError, OSError, EOFError, zlib.error, gzip.BadGzipFile):
        return False
    return True


def _constant(err: BaseException) -> Callable[[], BaseException]:
    return lambda: err


class _Scan:
    """One pass of the tokenizer over the file: the arcs, the names, what the lines said."""

    def __init__(self, text: str, mode: int, delim: str, comment_chars: str, header: bool,
                 nodetype: Any) -> None:
        self.text = text
        self.mode = mode
        self.nodetype = nodetype
        self.header = header
        self.header_line: str | None = None
        self.tok = _kernels.Tokenizer(mode, _DELIMITER_CODES[delim], [ord(c) for c in comment_chars],
                                      header, MAX_LINE_CHARS, memory_budget() // BYTES_PER_EDGE_READ)

    @property
    def text_mode(self) -> bool:
        return self.mode != _kernels.MODE_INT

    def _event(self, ev: int, buf: bytearray, have: int, fh: Any, eof: bool, fault: bool) -> None:
        """Handle an event of the tokenizer; raises _Stop when reading ends in an error."""
        tok = self.tok
        if ev == _kernels.EV_HEADER:
            self.header_line = bytes(buf[tok.ev_start:tok.ev_end]).decode("utf-8").strip()
            return
        if ev == _kernels.EV_COMMENT:
            if _DIRECTED_NOTE.search(bytes(buf[tok.ev_start:tok.ev_end]).decode("utf-8")):
                tok.directed = True
            return
        lineno, edges, text = tok.ev_lineno, tok.edges, self.text
        if ev == _kernels.EV_UTF8:
            raise _Stop(lineno, None, True)
        if ev == _kernels.EV_LONG:
            err: BaseException = GraphError(
                f"path {text!r} line {lineno} must be an edge (two node ids); got a line "
                f"longer than {MAX_LINE_CHARS} characters (not an edge list?)")
        elif ev == _kernels.EV_LIMIT:
            try:
                check_size("path", text, nbytes=(edges + 1) * BYTES_PER_EDGE_READ,
                           what=f"the edge list (more than {edges:,} edges)")
            except InvalidParameterError as exc:
                err = exc
            else:  # pragma: no cover - the limit was raised while reading
                tok.max_edges = 2**62
                return
        elif ev == _kernels.EV_LINE:
            line = bytes(buf[tok.ev_start:tok.ev_end]).decode("utf-8").strip()
            found = _line_error(text, lineno, line, _DELIMITER_NAMES[tok.delimiter], self.nodetype,
                                first_edge=edges == 0, header=self.header)
            if found is None:  # pragma: no cover - the tokenizer and the line rules disagree
                raise RuntimeError(f"edge-list reader: line {lineno} of {text!r} was refused "
                                   f"by the tokenizer but not by the line rules: {line!r}")
            err = found
        else:  # pragma: no cover
            raise RuntimeError(f"edge-list reader: unknown tokenizer event {ev}")
        clean = not fault and _window_is_clean(fh, bytes(buf[tok.ev_end:have]), eof)
        raise _Stop(lineno, _constant(err), not clean)

    def _check_idle(self, fh: Any, read: int, started: float, eof: bool) -> None:
        """Stop (raise _Stop) once the idle text read exceeds the reader's budget
        (:func:`~anonspread.spread.limits.check_idle_text`): checked after every block."""
        tok = self.tok
        nodes = int(tok.n_nodes)
        idle = read - TEXT_PER_EDGE * min(int(tok.edges), nodes * nodes)
        if idle <= 0:
            return
        total: float | None = float(read)
        if not eof:
            total = None
            with contextlib.suppress(AttributeError, OSError, ValueError):
                raw = getattr(fh, "fileobj", None)
                size = os.fstat((raw or fh).fileno()).st_size
                if raw is None:
                    total = float(size)
                elif raw.tell() < size:  # a GzipFile: the compression ratio so far
                    total = read * size / max(raw.tell(), 1)
                else:  # all of it buffered: the size its trailer records (modulo 2^32)
                    with open(self.text, "rb") as f:
                        f.seek(-4, os.SEEK_END)
                        isize = int.from_bytes(f.read(4), "little")
                    total = float(isize) if isize > read else None
        try:
            check_idle_text("path", self.text, idle=idle, read=read, lines=int(tok.lineno),
                            edges=int(tok.edges), nodes=nodes, total=total,
                            seconds=time.perf_counter() - started)
        except InvalidParameterError as err:
            raise _Stop(int(tok.lineno), _constant(err), False) from None

    def run(self) -> str:
        """Read the whole file: 'done', or 'bigint' (a name beyond int64); raises _Stop."""
        tok = self.tok
        # a carried-over incomplete line holds at most 4 bytes per character
        buf = bytearray(_BLOCK + 4 * MAX_LINE_CHARS + 8)
        view = memoryview(buf)
        gz = self.text.endswith(".gz")
        have = 0
        eof = False
        read = 0
        started = time.perf_counter()
        try:
            fh = _open_binary(self.text)
        except OSError:
            raise _Stop(1, None, True) from None
        with fh:
            while True:
                target = have + _BLOCK
                fault = False
                try:
                    while have < target and not eof:
                        if gz:  # read1: every byte before a broken part of the stream arrives
                            chunk = fh.read1(min(target - have, 1 << 18))
                            got = len(chunk)
                            view[have:have + got] = chunk
                        else:
                            got = fh.readinto(view[have:target])
                        if not got:
                            eof = True
                        else:
                            have += got
                            read += got
                except (OSError, EOFError, zlib.error, gzip.BadGzipFile):
                    fault = True  # the lines read so far first: an error in them may come first
                pos = 0
                while True:
                    ev, pos = tok.feed(buf, pos, have, eof)
                    if ev == _kernels.EV_MORE:
                        break
                    if ev == _kernels.EV_BIGINT:
                        return "bigint"
                    self._event(ev, buf, have, fh, eof, fault)
                if not fault:
                    self._check_idle(fh, read, started, eof)
                if fault:
                    raise _Stop(tok.lineno + 1, None, True)
                if eof:
                    return "done"
                buf[: have - pos] = buf[pos:have]
                have -= pos


def _labels_and_remap(scan: _Scan) -> tuple[list, np.ndarray | None]:
    """Labels of a text-mode scan, converted by ``nodetype`` once per distinct name (merging
    names that give equal labels); raises _Stop (no replay) at the first name in error.
    Returns (labels, remap of name ids to node ids, or None when nothing merged)."""
    tok = scan.tok
    names = tok.text_labels()
    if scan.nodetype is str:
        return names, None
    lines = tok.first_lines()
    text = scan.text
    labels: list = []
    index: dict = {}
    remap = np.empty(len(names), np.int32)
    for i, name in enumerate(names):
        line = int(lines[i])
        try:
            lab = _node_label(scan.nodetype, name, f"path {text!r} line {line}")
        except GraphError as exc:
            if line == tok.first_edge_line and not scan.header:
                exc = GraphError(f"{exc}; if this line names the columns, pass header=True "
                                 "(command line: --set graph.header=true)")
            raise _Stop(line, _constant(exc), False) from None
        j = index.get(lab)
        if j is None:
            j = index[lab] = len(labels)
            labels.append(lab)
        remap[i] = j
    return labels, (None if len(labels) == len(names) else remap)


def _fail(text: str, scan: _Scan, stop: _Stop) -> BaseException:
    """The error to raise for a scan that stopped: the earliest in the file, as before."""
    if scan.text_mode:
        try:
            _labels_and_remap(scan)
        except _Stop as name_error:  # a name before (or on) the stopping line
            if name_error.lineno <= stop.lineno:
                stop = _Stop(name_error.lineno, name_error.error, stop.replay)
    if stop.replay:
        return _replay(text, stop.lineno, stop.error)
    assert stop.error is not None
    return stop.error()


def parse_edgelist(path: Any, *, nodetype: Any = int, delimiter: Any = "auto", comments: Any = "#%",
                  header: Any = False, symmetrize: Any = False):
    """Read an edge list: ``(labels, indptr, indices, dropped, read_info)``.

    The semantics, options and errors are those documented by
    :func:`spread.graphs.from_edgelist`, which builds the graph from this tuple.

    Parameters
    ----------
    path : str or os.PathLike
    nodetype : {int, str, "int", "str"} or callable
    delimiter : {"auto", "whitespace", "comma", "tab", "semicolon"}
    comments : str
    header : bool
    symmetrize : bool

    Returns
    -------
    tuple
        Labels (list, by node index), CSR ``indptr`` (int64) and ``indices`` (int32), the
        ``dropped`` counts and the ``read_info`` notes.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("7 8\\n8 9\\n")
    >>> labels, indptr, indices, dropped, info = parse_edgelist(p)
    >>> labels, indptr.tolist(), indices.tolist(), info["edge_lines"]
    ([7, 8, 9], [0, 1, 3, 4], [1, 0, 2, 1], 2)
    """
    text = _check_path(path)
    nodetype, delim, comment_chars = _edgelist_options(nodetype, delimiter, comments, header, symmetrize)
    mode = _kernels.MODE_INT if nodetype is int else _kernels.MODE_TEXT
    scan = _Scan(text, mode, delim, comment_chars, bool(header), nodetype)
    try:
        if scan.run() == "bigint":
            scan = _Scan(text, _kernels.MODE_INTTEXT, delim, comment_chars, bool(header), nodetype)
            scan.run()
    except _Stop as stop:
        raise _fail(text, scan, stop) from None
    tok = scan.tok
    remap = None
    if scan.text_mode:
        try:
            labels, remap = _labels_and_remap(scan)
        except _Stop as stop:
            raise _fail(text, scan, stop) from None
    else:
        labels = tok.int_labels().tolist()
    if not labels:
        raise GraphError(f"path {text!r} must hold at least one edge; got none")
    a, b = tok.take_arcs()
    if remap is not None:
        a, b = remap[a], remap[b]
    n = len(labels)
    g = _kernels.simple_csr_counts(n, a, b)
    del a, b
    reciprocal = g.arcs - g.pairs
    one_way = g.pairs - reciprocal
    said_directed = bool(tok.directed)
    directed = said_directed or (reciprocal > 0 and one_way > 0)
    if directed and not symmetrize:
        why = ("a comment line says it is directed" if said_directed else
               f"{reciprocal:,} node pairs appear in both orientations and "
               f"{one_way:,} in one only")
        raise GraphError(
            f"path {text!r} looks like a directed edge list ({why}); spreading follows contacts "
            "both ways: pass symmetrize=True (command line: --set graph.symmetrize=true) to read "
            f"each arc as an undirected edge ({reciprocal:,} reciprocal pairs would be merged)")
    indptr, indices = g.indptr, g.indices
    dropped = {"self_loops": g.self_loops, "duplicate_edges": g.lines - g.pairs}
    if directed:
        dropped["duplicate_edges"] = g.lines - g.arcs
        dropped["reciprocal_arcs"] = reciprocal
    delim_read = _DELIMITER_NAMES[tok.delimiter]
    info = {
        "path": text,
        "delimiter": delim_read if delim_read != "auto" else "whitespace",
        "comments": comment_chars,
        "header": scan.header_line,
        "nodetype": getattr(nodetype, "__name__", repr(nodetype)),
        "edge_lines": int(tok.edges),
        "ignored_columns": int(tok.extra_max),
        "lines_with_ignored_columns": int(tok.lines_extra),
        "directed": "symmetrised" if directed else False,
    }
    return labels, indptr, indices, dropped, info
