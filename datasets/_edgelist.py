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

from anonspread.errors import DatasetError

__all__ = ["read_simple_edges"]


def read_simple_edges(file: Path, *, dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """Read an edge list as an undirected simple graph.

    Lines starting with ``#`` or ``%`` and blank lines are skipped; CRLF line endings
    are accepted (text mode); only the first two columns are read. Each line is an
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
        with gzip.open(file, "rt", encoding="ascii") as handle:
            pairs = np.loadtxt(handle, dtype=np.int64, comments=("#", "%"), usecols=(0, 1), ndmin=2)
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"dataset {dataset!r}: file {file} could not be read as a gzip edge list "
            f"({exc}); reinstall the anonspread package"
        ) from exc
    nodes = np.unique(pairs)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    edges = np.unique(np.sort(pairs, axis=1), axis=0)
    nodes.setflags(write=False)
    edges.setflags(write=False)
    return nodes, edges
