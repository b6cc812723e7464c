"""Internal reader of the bundled gzip edge lists (SNAP format).

Kept private on purpose: the public reader of arbitrary edge lists is
``spread.graphs.from_edgelist``; this one only has to read the files the registry
vouches for, fast, and the same way every time.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

import numpy as np

from anonspread.engine.edgelist import EV_COMMENT, EV_MORE, MODE_INT, Tokenizer
from anonspread.errors import DatasetError

__all__ = ["read_simple_edges"]


def read_simple_edges(file: Path, *, dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Read an edge list as an undirected simple graph.

    Lines starting with ``#`` or ``%`` and blank lines are skipped; CRLF line endings
    are accepted; only the first two columns are read (by the engine's compiled
    tokenizer, :class:`anonspread.engine.edgelist.Tokenizer`). Each line is an
    unordered pair: self-loops are dropped and duplicate pairs merged. Node ids that
    occur only in self-loops are still returned as nodes (they become isolated).

    Parameters
    ----------
    file : pathlib.Path
        A gzip-compressed edge list of integer node ids (already verified).
    dataset : str
        The dataset's name, for error messages.

    Returns
    -------
    nodes : numpy.ndarray
        Sorted distinct node ids (int64, read-only).
    edges : numpy.ndarray
        Shape ``(m, 2)``, each row ``(u, v)`` with ``u < v``, rows sorted and
        distinct (int64, read-only).

    Raises
    ------
    DatasetError
        If the file cannot be decompressed or parsed.
    """
    stat = file.stat()
    return _read_cached(str(file), stat.st_size, stat.st_mtime_ns, dataset)


# The arrays are read-only, so handing the same ones to every caller is safe; the key
# includes size and mtime so a file replaced on disk is read again.
@functools.lru_cache(maxsize=8)
def _read_cached(
    file: str, size: int, mtime_ns: int, dataset: str
) -> tuple[np.ndarray, np.ndarray]:
    try:
        with gzip.open(file, "rb") as handle:
            data = handle.read()
    except (OSError, EOFError) as exc:
        raise DatasetError(
            f"dataset {dataset!r}: file {file} could not be read as a gzip edge list "
            f"({exc}); reinstall the anonspread package"
        ) from exc
    pairs = _parse(data, file, dataset)
    nodes = _sorted_unique(pairs.reshape(-1))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    edges = _unique_rows(np.sort(pairs, axis=1))
    nodes.setflags(write=False)
    edges.setflags(write=False)
    return nodes, edges


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """``np.unique(x)`` of a 1-d int array by a sort and a mask (numpy's ``unique`` may
    hash, several times slower on these sizes)."""
    x = np.sort(x)
    keep = np.ones(x.shape[0], bool)
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


def _unique_rows(pairs: np.ndarray) -> np.ndarray:
    """``np.unique(pairs, axis=0)`` by one sort of one int64 key per row (the rows in the
    same lexicographic order), when the ids' span allows it."""
    if not pairs.shape[0]:
        return pairs.reshape(0, 2)
    lo = int(pairs.min())
    span = int(pairs.max()) - lo + 1
    if span > 3_037_000_499:  # span**2 would overflow int64
        return np.unique(pairs, axis=0)
    key = _sorted_unique((pairs[:, 0] - lo) * span + (pairs[:, 1] - lo))
    return np.column_stack([key // span + lo, key % span + lo])


def _parse(data: bytes, file: str, dataset: str) -> np.ndarray:
    """The int64 pairs (first two columns) of the edge lines, by the engine's compiled
    tokenizer: comment lines (``#``, ``%``) and blank lines skipped, whitespace separated,
    CRLF accepted; any other line is an error."""
    tok = Tokenizer(MODE_INT, 1, [ord("#"), ord("%")], False, max(len(data), 1) + 1, 2**62)
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(1, np.uint8)
    pos, stop = 0, len(data)
    while True:
        ev, pos = tok.feed(buf, pos, stop, True)
        if ev == EV_MORE:
            break
        if ev != EV_COMMENT:
            raise DatasetError(
                f"dataset {dataset!r}: file {file} line {tok.ev_lineno} is not an edge line "
                "(two integer node ids); reinstall the anonspread package")
    a, b = tok.take_arcs()
    labels = tok.int_labels()
    return np.column_stack([labels[a], labels[b]])
