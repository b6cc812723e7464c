"""Integrity checks of bundled files: SHA-256 against the registry, once per process.

A file is hashed the first time a loader asks for it; the result is remembered by
(path, size, modification time), so later loads cost one ``stat`` and a file
replaced on disk is hashed again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from anonspread.errors import DatasetError

__all__ = ["verify"]

_REINSTALL = (
    "The data files ship inside the anonspread distribution: reinstall it "
    "(`pip install --force-reinstall anonspread`, or `pip install -e .` from a checkout "
    "whose datasets/ directory is intact)."
)

_verified: set[tuple[str, int, int]] = set()


def sha256_of(file: Path) -> str:
    """Return the hex SHA-256 of ``file``, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(file, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify(file: Path, expected: str, *, dataset: str) -> None:
    """Raise :class:`DatasetError` unless ``file`` exists and has SHA-256 ``expected``.

    Parameters
    ----------
    file : pathlib.Path
        The file to check.
    expected : str
        Its hex SHA-256 from the registry.
    dataset : str
        The dataset's name, for the message.

    Raises
    ------
    DatasetError
        If the file is missing or unreadable (the message gives the path looked at)
        or its checksum differs (the message gives the expected and actual values).
    """
    try:
        stat = file.stat()
    except FileNotFoundError:
        raise DatasetError(
            f"dataset {dataset!r}: file {file.name} is missing; looked at {file}. {_REINSTALL}"
        ) from None
    except OSError as exc:
        raise DatasetError(
            f"dataset {dataset!r}: file {file} cannot be read ({exc}). {_REINSTALL}"
        ) from exc
    key = (str(file), stat.st_size, stat.st_mtime_ns)
    if key in _verified:
        return
    try:
        actual = sha256_of(file)
    except OSError as exc:
        raise DatasetError(
            f"dataset {dataset!r}: file {file} cannot be read ({exc}). {_REINSTALL}"
        ) from exc
    if actual != expected:
        raise DatasetError(
            f"dataset {dataset!r}: file {file} is corrupt: its SHA-256 is {actual}, "
            f"expected {expected}. {_REINSTALL}"
        )
    _verified.add(key)
