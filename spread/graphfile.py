"""A contact graph read once: a binary, memory-mapped form of an edge list.

Parsing a text edge list costs time in proportion to its lines (seconds to minutes at
10^7 edges); a sweep needs the graph in the parent and in every worker. The *graph file*
written here holds what :func:`spread.graphs.from_edgelist` made of the text -- the CSR
arrays, the labels, the connected components, the counts of what was dropped and the read
notes -- in a form that
:func:`load_graph` maps into memory without parsing (well under a second at 10^7 edges:
the pages are read from disk as the simulators touch them, and shared by every process
of the machine that maps the same file).

:func:`read_edgelist` is :func:`~spread.graphs.from_edgelist` with that cache: the first
read writes the graph file, later reads of the *unchanged* source map it. The source is
identified by its size, its modification time (ns) and the SHA-256 of its bytes (hashed
at every read: about 0.1 s per 150 MB), and the options of the read (node type,
delimiter, comment characters, header, symmetrise) are part of the key; any change to
any of them reads the text again. A graph file that is truncated or damaged (its header
records its size and a CRC-32 of the header and of every array, all checked on load) is
never trusted: it is rebuilt, with a :class:`GraphFileWarning` saying so. Graph files are
written to a temporary file in the same folder and renamed into place, so a reader (or a
second writer) never sees half a file, and an interrupted write leaves the old state.

Where the graph file of ``FILE`` goes (:func:`graph_file_path`):

* beside the source, ``FILE.<key>.asgraph``, when the source's folder is writable;
* else in the user's cache folder: ``$XDG_CACHE_HOME/anonspread/graphs/`` (by default
  ``~/.cache/anonspread/graphs/``), named after a hash of the source's absolute path;
* or in ``cache_dir`` when one is given (then only there).

A graph loaded from a graph file pickles to a reference (the graph file's path and a
token of its content, a few hundred bytes), which the receiving process maps again:
worker processes of a sweep never receive the arrays.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import pickle
import struct
import tempfile
import warnings
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.edgelist import _check_path, _edgelist_options
from anonspread.spread.graphs import ContactGraph, from_edgelist

__all__ = [
    "GRAPH_FILE_SUFFIX",
    "GraphFileRef",
    "GraphFileWarning",
    "IntLabels",
    "SourceCheck",
    "StrLabels",
    "convert_edgelist",
    "graph_file_path",
    "has_graph_file",
    "install_graph_file",
    "installed_sources",
    "load_graph",
    "open_graph_file",
    "read_edgelist",
    "save_graph",
    "source_check",
    "source_key",
    "trusting",
    "user_cache_dir",
]

#: Name ending of graph files.
GRAPH_FILE_SUFFIX = ".asgraph"
_MAGIC = b"ASGRAPH\x00"
_FORMAT = 1
# Bumped by hand when the reader's result for the same file and options changes
# (graph, dropped counts or read notes): graph files of an older reader are then rebuilt.
_READER = 3  # 3: the connected components and the labels' sorted order are stored
_ALIGN = 64
_PREAMBLE = struct.Struct("<8sQI")  # magic, header length, CRC-32 of the header
_HASH_CHUNK = 1 << 22


class GraphFileWarning(UserWarning):
    """A graph file was found damaged or could not be written; the text was read instead.

    Examples
    --------
    >>> issubclass(GraphFileWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class GraphFileRef:
    """Where a mapped graph comes from: its graph file and a token of that file's content.

    Parameters
    ----------
    path : str
        The graph file.
    token : str
        Hex digest identifying the file's content (from its header); a file of the same
        path with another token is another graph.

    Examples
    --------
    >>> GraphFileRef("/data/g.txt.0123.asgraph", "ab12").token
    'ab12'
    """

    path: str
    token: str

    def pickle_recipe(self) -> tuple:
        """How a graph mapped from this file pickles: reopen it by path and token.

        Returns
        -------
        tuple
            ``(open_graph_file, (path, token))``, as ``__reduce__`` returns.
        """
        return (open_graph_file, (self.path, self.token))


@dataclass(frozen=True)
class SourceCheck:
    """An edge list verified in full by one process (size, modification time, SHA-256 of
    its bytes) and the graph file found to hold it, as other processes of the run trust it.

    A sweep's parent reads each edge list with the full check; its workers then receive
    these records with their tasks (:func:`trusting`) and map the graph file after a
    cheap check: the source's size and modification time still those the parent saw, and
    the graph file's header still that of the file the parent verified (its token).

    Parameters
    ----------
    source : str
        The edge list's absolute path.
    options : str
        Digest of the read's options (part of the graph file's name).
    size, mtime_ns : int
        The source's size and modification time (ns) when its SHA-256 was checked.
    graph_file : GraphFileRef
        The graph file holding the graph of that source and options.

    Examples
    --------
    >>> c = SourceCheck("/data/g.txt", "0123abcd", 4, 0, GraphFileRef("/data/g.asgraph", "ab"))
    >>> c.graph_file.token
    'ab'
    """

    source: str
    options: str
    size: int
    mtime_ns: int
    graph_file: GraphFileRef


# ---------------------------------------------------------------- lazy labels

class IntLabels(Sequence):
    """Integer node labels over an int64 array (one Python int made per label asked for).

    Parameters
    ----------
    array : numpy.ndarray of int64
        The labels by node index.

    Examples
    --------
    >>> import numpy as np
    >>> lab = IntLabels(np.array([7, 3, 11]))
    >>> len(lab), lab[1], lab == [7, 3, 11], list(lab)
    (3, 3, True, [7, 3, 11])
    """

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __len__(self) -> int:
        return int(self.array.shape[0])

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self.array[i].tolist()
        return int(self.array[i])

    def __iter__(self) -> Iterator[int]:
        step = 1 << 16
        for start in range(0, len(self), step):
            yield from self.array[start:start + step].tolist()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IntLabels):
            return bool(np.array_equal(self.array, other.array))
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"IntLabels(n={len(self)})"

    def __reduce__(self) -> tuple:
        return (list, (self.array.tolist(),))


class StrLabels(Sequence):
    """Text node labels stored as one UTF-8 blob and offsets, each decoded when asked for.

    Parameters
    ----------
    blob : numpy.ndarray of uint8
        The labels' UTF-8 bytes, one after the other.
    offsets : numpy.ndarray of int64, shape (n + 1,)
        Label ``i`` is ``blob[offsets[i]:offsets[i + 1]]``.

    Examples
    --------
    >>> import numpy as np
    >>> lab = StrLabels(np.frombuffer(b"user0user12", dtype=np.uint8), np.array([0, 5, 11]))
    >>> len(lab), lab[1], lab == ["user0", "user12"]
    (2, 'user12', True)
    """

    __slots__ = ("blob", "offsets")

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self.blob = blob
        self.offsets = offsets

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def _one(self, i: int) -> str:
        return self.blob[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8")

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._one(j) for j in range(len(self))[i]]
        n = len(self)
        j = int(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"label index {i} out of range for {n} nodes")
        return self._one(j)

    def __iter__(self) -> Iterator[str]:
        return (self._one(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StrLabels):
            return bool(np.array_equal(self.offsets, other.offsets) and np.array_equal(self.blob, other.blob))
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"StrLabels(n={len(self)})"

    def __reduce__(self) -> tuple:
        return (list, (list(self),))


# ---------------------------------------------------------------- the binary form

def _jsonable(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def _label_arrays(labels: Sequence) -> tuple[str, dict[str, np.ndarray]]:
    """The labels as arrays: ("int64", ...) when all are ints that fit, ("str", ...) when
    all are text, else ("pickle", ...)."""
    if isinstance(labels, IntLabels):
        return "int64", {"labels": np.ascontiguousarray(labels.array, dtype=np.int64)}
    if isinstance(labels, StrLabels):
        return "str", {"label_bytes": np.ascontiguousarray(labels.blob),
                       "label_offsets": np.ascontiguousarray(labels.offsets, dtype=np.int64)}
    items = list(labels)
    if all(type(x) is int for x in items):
        try:
            return "int64", {"labels": np.array(items, dtype=np.int64)}
        except OverflowError:
            pass
    if all(type(x) is str for x in items):
        encoded = [x.encode("utf-8") for x in items]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        return "str", {"label_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
                       "label_offsets": offsets}
    blob = pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL)
    return "pickle", {"label_pickle": np.frombuffer(blob, dtype=np.uint8)}


def save_graph(graph: ContactGraph, path: str | os.PathLike, *, source: dict | None = None) -> GraphFileRef:
    """Write ``graph`` to ``path`` in the binary form, atomically (temporary file + rename).

    Layout: an 8-byte magic, the header's length and CRC-32, a JSON header (node count,
    each array's dtype, shape, offset and CRC-32, the file's total size, ``dropped``,
    ``read_info`` and the ``source`` key), then the arrays (CSR, labels, the connected
    components of :meth:`~spread.graphs.ContactGraph.components` and, for int labels, their
    sorted order, :meth:`~spread.graphs.ContactGraph.label_order`), each aligned to 64 bytes.

    Parameters
    ----------
    graph : ContactGraph
        The graph.
    path : str or os.PathLike
        The graph file to write (replaced if it exists).
    source : dict, optional
        What the graph was read from (:func:`source_key`), checked by :func:`read_edgelist`.

    Returns
    -------
    GraphFileRef
        The file written and its token.

    Examples
    --------
    >>> import networkx as nx, tempfile, os
    >>> from anonspread.spread.graphs import from_networkx
    >>> p = os.path.join(tempfile.mkdtemp(), "path4.asgraph")
    >>> ref = save_graph(from_networkx(nx.path_graph(4)), p)
    >>> g = load_graph(p)
    >>> g.number_of_edges(), list(g.labels), g.neighbors(1).tolist()
    (3, [0, 1, 2, 3], [0, 2])
    """
    if not isinstance(graph, ContactGraph):
        raise InvalidTypeError(f"graph must be a ContactGraph; got {type(graph).__name__}")
    target = os.fspath(path)
    kind, arrays = _label_arrays(graph.labels)
    comp_labels, comp_sizes = graph.components()
    arrays = {"indptr": np.ascontiguousarray(graph.indptr),
              "indices": np.ascontiguousarray(graph.indices), **arrays,
              "component_labels": np.ascontiguousarray(comp_labels, dtype=np.int32),
              "component_sizes": np.ascontiguousarray(comp_sizes, dtype=np.int64)}
    if kind == "int64":
        arrays["label_order"] = np.ascontiguousarray(graph.label_order())
    table: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, arr in arrays.items():
        table[name] = {"dtype": arr.dtype.str, "shape": list(arr.shape), "offset": offset,
                       "nbytes": int(arr.nbytes), "crc32": zlib.crc32(memoryview(arr).cast("B"))}
        offset += -(-int(arr.nbytes) // _ALIGN) * _ALIGN
    header: dict[str, Any] = {
        "format": _FORMAT, "n": len(graph.labels), "labels": kind, "arrays": table,
        "dropped": dict(graph.dropped), "read_info": dict(graph.read_info), "source": source or {},
    }
    # the data start depends on the header's length, which holds the file's size: fix it
    # on a size estimate, then write the header padded to that length
    body = json.dumps(header, default=_jsonable, sort_keys=True).encode()
    head_len = -(-(len(body) + 64 + _PREAMBLE.size) // _ALIGN) * _ALIGN - _PREAMBLE.size
    header["data_start"] = _PREAMBLE.size + head_len
    header["file_size"] = header["data_start"] + offset
    body = json.dumps(header, default=_jsonable, sort_keys=True).encode()
    body = body + b" " * (head_len - len(body))
    token = hashlib.sha256(body).hexdigest()[:32]
    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=GRAPH_FILE_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_PREAMBLE.pack(_MAGIC, head_len, zlib.crc32(body)))
            fh.write(body)
            for arr in arrays.values():
                fh.write(memoryview(arr).cast("B"))
                fh.write(b"\0" * (-int(arr.nbytes) % _ALIGN))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return GraphFileRef(target, token)


class _Damaged(Exception):
    """A graph file that must not be trusted (the message says why)."""


def _read_header(path: str) -> tuple[dict[str, Any], str]:
    """The header of a graph file and its token; _Damaged if it is not a sound graph file."""
    with open(path, "rb") as fh:
        pre = fh.read(_PREAMBLE.size)
        if len(pre) < _PREAMBLE.size:
            raise _Damaged(f"{len(pre)} bytes long, shorter than a graph file's preamble")
        magic, head_len, crc = _PREAMBLE.unpack(pre)
        if magic != _MAGIC:
            raise _Damaged("not a graph file (wrong magic bytes)")
        if head_len > 1 << 30:
            raise _Damaged(f"header length {head_len} is impossible")
        body = fh.read(head_len)
        size = os.fstat(fh.fileno()).st_size
    if len(body) != head_len or zlib.crc32(body) != crc:
        raise _Damaged("its header is truncated or its checksum does not match")
    try:
        header = json.loads(body)
    except ValueError:
        raise _Damaged("its header is not valid JSON") from None
    if header.get("format") != _FORMAT:
        raise _Damaged(f"format {header.get('format')!r}, this version reads format {_FORMAT}")
    if header.get("file_size") != size:
        raise _Damaged(f"{size} bytes long, its header says {header.get('file_size')} (truncated?)")
    return header, hashlib.sha256(body).hexdigest()[:32]


def _map(path: str, header: dict[str, Any], token: str, verify: bool) -> ContactGraph:
    with open(path, "rb") as fh:
        # copy-on-write: the arrays are writable buffers for the compiled kernels, yet no
        # write ever reaches the file
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    arrays = {}
    start = header["data_start"]
    for name, spec in header["arrays"].items():
        dtype = np.dtype(spec["dtype"])
        count = int(np.prod(spec["shape"], dtype=np.int64))
        if start + spec["offset"] + count * dtype.itemsize > len(mm):
            raise _Damaged(f"array {name!r} runs past the end of the file")
        arr = np.frombuffer(mm, dtype=dtype, count=count, offset=start + spec["offset"]).reshape(spec["shape"])
        if verify and zlib.crc32(memoryview(arr).cast("B")) != spec["crc32"]:
            raise _Damaged(f"the checksum of array {name!r} does not match (damaged)")
        arrays[name] = arr
    n = int(header["n"])
    kind = header["labels"]
    g = ContactGraph((), arrays["indptr"], arrays["indices"], dropped=header["dropped"],
                     read_info=header["read_info"])
    if kind == "int64":
        labels: Sequence = IntLabels(arrays["labels"])
        g.labels = labels
        g._label_array = (labels, n, arrays["labels"])
    elif kind == "str":
        g.labels = StrLabels(arrays["label_bytes"], arrays["label_offsets"])
    elif kind == "pickle":
        g.labels = pickle.loads(arrays["label_pickle"].tobytes())
    else:
        raise _Damaged(f"unknown label kind {kind!r}")
    if len(g.labels) != n or arrays["indptr"].shape[0] != n + 1:
        raise _Damaged("its node count does not match its arrays")
    if "component_labels" in arrays:  # files written before they were stored: computed on use
        if arrays["component_labels"].shape[0] != n:
            raise _Damaged("its node count does not match its arrays")
        g._components = (arrays["component_labels"], arrays["component_sizes"])
    if "label_order" in arrays:
        if arrays["label_order"].shape[0] != n:
            raise _Damaged("its node count does not match its arrays")
        g._label_order = arrays["label_order"]
    g.graph_file = GraphFileRef(path, token)
    return g


def load_graph(path: str | os.PathLike, *, verify: bool = True) -> ContactGraph:
    """Map a graph file written by :func:`save_graph` (or :func:`read_edgelist`) into memory.

    The CSR arrays and the labels are views of the file (read from disk as they are
    touched); nothing is parsed. The file's size is always checked against its header;
    with ``verify`` (default) every array's CRC-32 too (about 0.05 s per 100 MB).

    Parameters
    ----------
    path : str or os.PathLike
        The graph file.
    verify : bool
        Check the arrays' checksums.

    Returns
    -------
    ContactGraph
        Its ``graph_file`` attribute names the file: the graph pickles to that reference.

    Raises
    ------
    GraphError
        If the file is not a sound graph file (truncated, damaged, another format).

    Examples
    --------
    >>> import networkx as nx, pickle, tempfile, os
    >>> from anonspread.spread.graphs import from_networkx
    >>> p = os.path.join(tempfile.mkdtemp(), "k5.asgraph")
    >>> _ = save_graph(from_networkx(nx.complete_graph(5)), p)
    >>> g = load_graph(p)
    >>> g.number_of_edges(), len(pickle.dumps(g)) < 500
    (10, True)
    """
    text = os.fspath(path)
    try:
        header, token = _read_header(text)
        return _map(text, header, token, verify)
    except _Damaged as exc:
        raise GraphError(f"path {text!r} must be a sound graph file; {exc}") from None
    except OSError as exc:
        raise GraphError(f"path {text!r} cannot be read: {exc.strerror or exc}") from None


_OPENED: OrderedDict[GraphFileRef, ContactGraph] = OrderedDict()
_OPENED_SIZE = 4


def open_graph_file(path: str, token: str) -> ContactGraph:
    """The graph of graph file ``path`` if its content is still ``token`` (how a mapped graph
    is unpickled; opened once per process and reused).

    Parameters
    ----------
    path : str
        The graph file (on a worker without the shared disk: the copy installed by
        :func:`install_graph_file` under the same path is used).
    token : str
        The token of the content the sender had.

    Returns
    -------
    ContactGraph

    Raises
    ------
    GraphError
        If the file is gone or holds another graph now.

    Examples
    --------
    >>> import networkx as nx, tempfile, os
    >>> from anonspread.spread.graphs import from_networkx
    >>> p = os.path.join(tempfile.mkdtemp(), "c4.asgraph")
    >>> ref = save_graph(from_networkx(nx.cycle_graph(4)), p)
    >>> open_graph_file(ref.path, ref.token) is open_graph_file(ref.path, ref.token)
    True
    """
    ref = GraphFileRef(path, token)
    g = _OPENED.get(ref)
    if g is not None:
        _OPENED.move_to_end(ref)
        return g
    local = _INSTALLED_FILES.get(ref, path)
    g = load_graph(local, verify=False)
    if g.graph_file.token != token:
        raise GraphError(f"graph file {path!r} changed since the graph was sent (its content "
                         "differs); run again so that every process reads the same graph")
    g.graph_file = ref
    _OPENED[ref] = g
    while len(_OPENED) > _OPENED_SIZE:
        _OPENED.popitem(last=False)
    return g


# ---------------------------------------------------------------- the cache of edge lists

def user_cache_dir() -> Path:
    """The folder of graph files whose source's folder is not writable:
    ``$XDG_CACHE_HOME/anonspread/graphs``, by default ``~/.cache/anonspread/graphs``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> user_cache_dir().parts[-2:]
    ('anonspread', 'graphs')
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "anonspread" / "graphs"


def _options(nodetype: Any, delimiter: Any, comments: Any, header: Any, symmetrize: Any) -> dict | None:
    """The read options as a JSON-ready key (None: a custom nodetype, not cacheable)."""
    if isinstance(nodetype, str) and nodetype in ("int", "str"):
        name = nodetype
    elif nodetype is int or nodetype is str:
        name = nodetype.__name__
    else:
        return None
    _, delim, comment_chars = _edgelist_options(nodetype, delimiter, comments, header, symmetrize)
    return {"nodetype": name, "delimiter": delim, "comments": comment_chars,
            "header": bool(header), "symmetrize": bool(symmetrize), "reader": _READER}


def _options_digest(options: dict) -> str:
    return hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:12]


def _content_hash(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def source_key(path: str | os.PathLike, *, nodetype: Any = int, delimiter: str | None = "auto",
               comments: str = "#%", header: bool = False, symmetrize: bool = False) -> dict | None:
    """What identifies a read of an edge list: the file's absolute path, size, modification
    time (ns) and SHA-256, and the read's options; None for a custom ``nodetype`` callable.

    Parameters
    ----------
    path : str or os.PathLike
        The edge list.
    nodetype, delimiter, comments, header, symmetrize
        As in :func:`~spread.graphs.from_edgelist`.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("0 1\\n")
    >>> k = source_key(p)
    >>> k["size"], k["sha256"][:8], k["options"]["nodetype"]
    (4, 'a7912299', 'int')
    """
    options = _options(nodetype, delimiter, comments, header, symmetrize)
    if options is None:
        return None
    text = _check_path(path)
    st = os.stat(text)
    return {"path": os.path.abspath(text), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "sha256": _content_hash(text), "options": options}


def _candidates(text: str, options: dict, cache_dir: str | os.PathLike | None) -> list[str]:
    digest = _options_digest(options)
    base = os.path.basename(text)
    if cache_dir is not None:
        return [os.path.join(os.fspath(cache_dir), f"{base}.{digest}{GRAPH_FILE_SUFFIX}")]
    where = hashlib.sha256(os.path.abspath(text).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return [os.path.join(os.path.dirname(os.path.abspath(text)), f"{base}.{digest}{GRAPH_FILE_SUFFIX}"),
            os.path.join(str(user_cache_dir()), f"{where}-{base}.{digest}{GRAPH_FILE_SUFFIX}")]


def graph_file_path(path: str | os.PathLike, *, cache_dir: str | os.PathLike | None = None,
                    nodetype: Any = int, delimiter: str | None = "auto", comments: str = "#%",
                    header: bool = False, symmetrize: bool = False) -> str | None:
    """Where the graph file of an edge list read with these options is written.

    Beside the source when its folder is writable, else in :func:`user_cache_dir`
    (``cache_dir``: there instead). The name ends in a digest of the options.

    Parameters
    ----------
    path : str or os.PathLike
        The edge list.
    cache_dir : str or os.PathLike, optional
        The folder of graph files.
    nodetype, delimiter, comments, header, symmetrize
        As in :func:`~spread.graphs.from_edgelist`.

    Returns
    -------
    str or None
        None for a custom ``nodetype`` callable (such reads are not cached).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "g.txt")
    >>> _ = open(p, "w").write("0 1\\n")
    >>> os.path.dirname(graph_file_path(p)) == d, graph_file_path(p).endswith(".asgraph")
    (True, True)
    """
    options = _options(nodetype, delimiter, comments, header, symmetrize)
    if options is None:
        return None
    text = _check_path(path)
    beside, *rest = _candidates(text, options, cache_dir)
    if cache_dir is not None or os.access(os.path.dirname(beside), os.W_OK):
        return beside
    return rest[0]


_INSTALLED: dict[tuple[str, str], GraphFileRef] = {}
_INSTALLED_FILES: dict[GraphFileRef, str] = {}


def install_graph_file(source: str, ref: GraphFileRef, data: bytes, folder: str | os.PathLike) -> str:
    """Put a copy of a graph file on this machine (a worker without the shared disk).

    The bytes are written (atomically) into ``folder``; from then on, in this process, a
    read of ``source`` (absent here) with the options recorded in the graph file maps that
    copy (the sender checked the source), as does unpickling a graph that refers to ``ref``.

    Parameters
    ----------
    source : str
        The edge list's path as the sweep names it.
    ref : GraphFileRef
        The sender's graph file and token.
    data : bytes
        The graph file's bytes.
    folder : str or os.PathLike
        Where to keep the copy.

    Returns
    -------
    str
        The local copy.

    Examples
    --------
    >>> import networkx as nx, tempfile, os
    >>> from anonspread.spread.graphs import from_networkx
    >>> p = os.path.join(tempfile.mkdtemp(), "k3.asgraph")
    >>> ref = save_graph(from_networkx(nx.complete_graph(3)), p)
    >>> local = install_graph_file("/elsewhere/k3.txt", ref, open(p, "rb").read(), tempfile.mkdtemp())
    >>> open_graph_file(ref.path, ref.token).number_of_edges()
    3
    """
    os.makedirs(folder, exist_ok=True)
    local = os.path.join(os.fspath(folder), f"{ref.token}{GRAPH_FILE_SUFFIX}")
    if not (os.path.exists(local) and _token_of(local) == ref.token):
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=GRAPH_FILE_SUFFIX)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, local)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    try:
        header, token = _read_header(local)
    except _Damaged:
        token = None
    if token != ref.token:
        raise GraphError(f"the copy of graph file {ref.path!r} received is damaged")
    options = header["source"].get("options")
    if options:
        _INSTALLED[(source, _options_digest(options))] = GraphFileRef(local, ref.token)
    _INSTALLED_FILES[ref] = local
    return local


def installed_sources() -> dict[str, tuple[str, ...]]:
    """The edge lists with a graph file installed in this process (:func:`install_graph_file`),
    each with the tokens of its copies (part of a worker's graph cache key).

    Returns
    -------
    dict of str to tuple of str

    Examples
    --------
    >>> isinstance(installed_sources(), dict)
    True
    """
    out: dict[str, list[str]] = {}
    for (source, _digest), ref in _INSTALLED.items():
        out.setdefault(source, []).append(ref.token)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _token_of(path: str) -> str | None:
    try:
        return _read_header(path)[1]
    except (_Damaged, OSError):
        return None


def has_graph_file(ref: GraphFileRef) -> bool:
    """Whether this process sees graph file ``ref`` (same path and content token, or a copy
    installed by :func:`install_graph_file`).

    Parameters
    ----------
    ref : GraphFileRef
        The graph file.

    Returns
    -------
    bool

    Examples
    --------
    >>> has_graph_file(GraphFileRef("/nonexistent/g.asgraph", "00"))
    False
    """
    return ref in _INSTALLED_FILES or _token_of(ref.path) == ref.token


def _try_cached(candidate: str, key: dict) -> tuple[ContactGraph | None, str | None]:
    """The graph of ``candidate`` if it holds the read ``key``; else (None, why not)."""
    try:
        header, token = _read_header(candidate)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    except _Damaged as exc:
        return None, f"is damaged ({exc})"
    if header.get("source") != key:
        return None, None  # another version of the source, or other options: stale
    try:
        return _map(candidate, header, token, verify=True), None
    except _Damaged as exc:
        return None, f"is damaged ({exc})"


_CHECKED: OrderedDict[GraphFileRef, SourceCheck] = OrderedDict()
_TRUSTED: dict[tuple[str, str], SourceCheck] = {}


def _record_check(key: dict, digest: str, ref: GraphFileRef) -> None:
    """Note that this process verified ``key``'s source in full and found it in ``ref``."""
    _CHECKED[ref] = SourceCheck(key["path"], digest, key["size"], key["mtime_ns"], ref)
    _CHECKED.move_to_end(ref)
    while len(_CHECKED) > 64:
        _CHECKED.popitem(last=False)


def _trusted_graph(text: str, check: SourceCheck) -> ContactGraph | None:
    """The graph of a source another process verified, if the source's size and mtime and
    the graph file's header are still those it verified; else None (read in full)."""
    try:
        st = os.stat(text)
    except OSError:
        return None
    if (st.st_size, st.st_mtime_ns) != (check.size, check.mtime_ns):
        return None
    ref = check.graph_file
    if _token_of(ref.path) != ref.token:
        return None
    try:
        return open_graph_file(ref.path, ref.token)
    except GraphError:
        return None


def source_check(ref: GraphFileRef) -> SourceCheck | None:
    """How this process last verified the source of graph file ``ref`` in full, if it did
    and the source's size and modification time are unchanged since (what a sweep's
    parent sends its workers, :func:`trusting`).

    Parameters
    ----------
    ref : GraphFileRef
        A graph file that :func:`read_edgelist` returned a graph of.

    Returns
    -------
    SourceCheck or None

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("0 1\\n1 2\\n")
    >>> check = source_check(read_edgelist(p).graph_file)
    >>> check.source == os.path.abspath(p), check.size
    (True, 8)
    """
    check = _CHECKED.get(ref)
    if check is None:
        return None
    try:
        st = os.stat(check.source)
    except OSError:
        return None
    if (st.st_size, st.st_mtime_ns) != (check.size, check.mtime_ns):
        return None
    return check


@contextlib.contextmanager
def trusting(checks: Sequence[SourceCheck]) -> Iterator[None]:
    """Within the block, :func:`read_edgelist` of a source in ``checks`` skips the SHA-256
    of its bytes (and the arrays' CRC-32) when the source's size and modification time and
    the graph file's header are those another process verified (a sweep's parent).

    A source whose size or modification time changed, or whose graph file was replaced,
    is read with the full check as always; a check names one graph file, so a read that
    would look elsewhere (another ``cache_dir``) also reads in full. The SHA-256 is what
    catches a rewrite that keeps both size and modification time: such a rewrite during
    the run is the one change a trusting read does not see (the parent hashed the source
    when the run started).

    Parameters
    ----------
    checks : sequence of SourceCheck
        From :func:`source_check` in the verifying process.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(p, "w").write("0 1\\n1 2\\n")
    >>> check = source_check(read_edgelist(p).graph_file)
    >>> with trusting([check]):
    ...     read_edgelist(p).number_of_edges()
    2
    """
    saved = dict(_TRUSTED)
    for check in checks:
        if not isinstance(check, SourceCheck):
            raise InvalidTypeError(f"checks must hold SourceCheck records; got {type(check).__name__}")
        _TRUSTED[(check.source, check.options)] = check
    try:
        yield
    finally:
        _TRUSTED.clear()
        _TRUSTED.update(saved)


def read_edgelist(path: str | os.PathLike, *, cache: bool = True, cache_dir: str | os.PathLike | None = None,
                  nodetype: Any = int, delimiter: str | None = "auto", comments: str = "#%",
                  header: bool = False, symmetrize: bool = False) -> ContactGraph:
    """:func:`~spread.graphs.from_edgelist`, read once: the graph is kept in a graph file
    and mapped from it while the source is unchanged.

    The source is identified by size, modification time and SHA-256 of its bytes, and the
    options are part of the key: any change reads the text again (and replaces the graph
    file). A damaged graph file is rebuilt (with a :class:`GraphFileWarning`); a folder
    where nothing can be written only costs the cache (a warning says so). A read with
    a custom ``nodetype`` callable is not cached. The graph, ``dropped`` and ``read_info``
    are those of :func:`~spread.graphs.from_edgelist`; labels are lazy sequences
    (:class:`IntLabels`, :class:`StrLabels`) equal to its lists.

    Parameters
    ----------
    path : str or os.PathLike
        The edge list (plain or ``.gz``).
    cache : bool
        Use and write the graph file (False: parse the text, write nothing).
    cache_dir : str or os.PathLike, optional
        Folder of graph files (default: beside the source if its folder is writable, else
        :func:`user_cache_dir`).
    nodetype, delimiter, comments, header, symmetrize
        As in :func:`~spread.graphs.from_edgelist`.

    Returns
    -------
    ContactGraph

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "g.txt")
    >>> _ = open(p, "w").write("0 1\\n1 2\\n2 0\\n2 3\\n")
    >>> first = read_edgelist(p)                 # parses, writes g.txt.<key>.asgraph
    >>> again = read_edgelist(p)                 # maps the graph file
    >>> again.number_of_edges(), list(again.labels), sorted(os.listdir(d))[0]
    (4, [0, 1, 2, 3], 'g.txt')
    >>> again.graph_file is not None
    True
    """
    if not isinstance(cache, bool | np.bool_):
        raise InvalidTypeError(f"cache must be True or False; got {cache!r}")
    opts = dict(nodetype=nodetype, delimiter=delimiter, comments=comments, header=header,
                symmetrize=symmetrize)
    options = _options(**opts) if cache else None
    if options is not None:
        installed = _INSTALLED.get((os.fspath(path), _options_digest(options)))
        if installed is not None and not os.path.exists(os.fspath(path)):
            return open_graph_file(installed.path, installed.token)
    if options is None:
        return from_edgelist(path, **opts)
    text = _check_path(path)
    digest = _options_digest(options)
    candidates = _candidates(text, options, cache_dir)
    trusted = _TRUSTED.get((os.path.abspath(text), digest))
    if trusted is not None and trusted.graph_file.path in candidates:
        graph = _trusted_graph(text, trusted)
        if graph is not None:
            return graph
    key = source_key(text, **opts)
    for candidate in candidates:
        graph, why = _try_cached(candidate, key)
        if graph is not None:
            _record_check(key, digest, graph.graph_file)
            return graph
        if why:
            warnings.warn(f"graph file {candidate!r} {why}; reading {text!r} again and rebuilding it",
                          GraphFileWarning, stacklevel=2)
    graph = from_edgelist(text, **opts)
    st = os.stat(text)
    if (st.st_size, st.st_mtime_ns) != (key["size"], key["mtime_ns"]):
        warnings.warn(f"{text!r} changed while it was read; no graph file written", GraphFileWarning,
                      stacklevel=2)
        return graph
    errors = []
    for candidate in candidates:
        try:
            os.makedirs(os.path.dirname(candidate), exist_ok=True)
            ref = save_graph(graph, candidate, source=key)
        except OSError as exc:
            errors.append(f"{os.path.dirname(candidate)!r}: {exc.strerror or exc}")
            continue
        mapped = load_graph(ref.path, verify=False)
        _record_check(key, digest, mapped.graph_file)
        return mapped
    warnings.warn(f"no graph file written for {text!r} (the next read parses it again): "
                  + "; ".join(errors), GraphFileWarning, stacklevel=2)
    return graph


def convert_edgelist(path: str | os.PathLike, *, cache_dir: str | os.PathLike | None = None,
                     nodetype: Any = int, delimiter: str | None = "auto", comments: str = "#%",
                     header: bool = False, symmetrize: bool = False) -> GraphFileRef:
    """Write (or find up to date) the graph file of an edge list: ``anonspread graph convert``.

    Parameters
    ----------
    path : str or os.PathLike
        The edge list.
    cache_dir : str or os.PathLike, optional
        As in :func:`read_edgelist`.
    nodetype, delimiter, comments, header, symmetrize
        As in :func:`~spread.graphs.from_edgelist` (a sweep finds the graph file when it
        reads the file with the same options).

    Returns
    -------
    GraphFileRef
        The graph file.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "g.csv")
    >>> _ = open(p, "w").write("a,b\\nb,c\\n")
    >>> ref = convert_edgelist(p, nodetype="str")
    >>> load_graph(ref.path).labels == ["a", "b", "c"]
    True
    """
    if _options(nodetype, delimiter, comments, header, symmetrize) is None:
        raise InvalidParameterError(
            f"nodetype must be 'int' or 'str' to write a graph file; got {nodetype!r}")
    g = read_edgelist(path, cache=True, cache_dir=cache_dir, nodetype=nodetype, delimiter=delimiter,
                      comments=comments, header=header, symmetrize=symmetrize)
    if getattr(g, "graph_file", None) is None:
        raise GraphError(f"no graph file could be written for {os.fspath(path)!r} (see the warning)")
    return g.graph_file
