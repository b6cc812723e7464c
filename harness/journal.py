"""The run journal: finished units appended as JSON lines, flushed and fsync'ed.

The first line is a header describing the run (experiment, seed entropy, trials,
batch size, grid, metrics); each session adds a ``session`` line; each finished
(point, batch) unit adds a ``unit`` line with its moments.  A later run with
``resume=True`` reads the finished units back and computes only the others; a
header that does not match the new run is refused rather than mixed in.  A torn
last line (the process died while writing it) is dropped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

from harness.errors import JournalMismatchError, OutputError
from harness.work import UnitResult

__all__ = ["Journal", "JournalState"]

FORMAT = 1


class JournalState:
    """What a journal file holds: its header and the finished units by (point, batch)."""

    def __init__(
        self,
        header: dict[str, Any] | None,
        units: dict[tuple[int, int], UnitResult],
        sessions: int,
        good_bytes: int,
    ) -> None:
        self.header = header
        self.units = units
        self.sessions = sessions
        self.good_bytes = good_bytes


class Journal:
    """An append-only journal file.

    Parameters
    ----------
    path : path-like
        Usually ``OUT/NAME.journal.jsonl``.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fh: IO[str] | None = None
        self._session = 0

    def read(self) -> JournalState:
        """Parse the journal (an absent file is an empty journal)."""
        if not self.path.exists():
            return JournalState(None, {}, 0, 0)
        data = self.path.read_bytes()
        *complete, tail = data.split(b"\n")
        # Records are written whole and newline-terminated, so only the bytes after the
        # last newline can be torn; they are dropped and overwritten.
        good = len(data) - len(tail)
        header, units, sessions = None, {}, 0
        for i, raw in enumerate(complete, start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
                kind = rec.get("type")
                if kind == "header":
                    header = rec
                elif kind == "session":
                    sessions += 1
                elif kind == "unit":
                    res = UnitResult.from_json(rec)
                    units[(res.point, res.batch)] = res
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                raise JournalMismatchError(
                    f"journal {self.path} is corrupt at line {i}; rerun without --resume"
                ) from None
        return JournalState(header, units, sessions, good)

    def open(self, header: Mapping[str, Any], *, resume: bool) -> dict[tuple[int, int], UnitResult]:
        """Start a session and return the units already finished.

        Without ``resume`` the journal is started afresh.  With it, the header on
        disk must equal ``header``; the finished units are returned and new ones
        are appended after a torn tail (if any) is cut off.

        Raises
        ------
        JournalMismatchError
            The journal belongs to another run (a different seed, grid, trials...).
        OutputError
            The journal cannot be written.
        """
        header = {"type": "header", "format": FORMAT, **header}
        state = self.read() if resume else JournalState(None, {}, 0, 0)
        if state.header is not None:
            diff = [k for k in sorted(set(header) | set(state.header)) if header.get(k) != state.header.get(k)]
            if diff:
                raise JournalMismatchError(
                    f"journal {self.path} was written by a different run (differs in: "
                    f"{', '.join(diff)}); rerun without --resume to start afresh"
                )
        try:
            if state.header is None:
                self._fh = open(self.path, "w", encoding="utf-8")
                self._write([header])
                finished: dict[tuple[int, int], UnitResult] = {}
            else:
                self._fh = open(self.path, "r+", encoding="utf-8")
                self._fh.truncate(state.good_bytes)
                self._fh.seek(state.good_bytes)
                finished = state.units
            self._session = state.sessions + 1
            self._write([{"type": "session", "session": self._session, "pid": os.getpid(),
                          "started": time.time(), "resumed": bool(finished)}])
        except OSError as exc:
            raise OutputError(f"cannot write the journal {self.path}: {exc.strerror or exc}") from None
        return finished

    def append(self, results: Iterable[UnitResult]) -> None:
        """Record finished units durably (flush + fsync) before they are counted."""
        self._write([{"type": "unit", "session": self._session, **r.to_json()} for r in results])

    def _write(self, records: list[dict[str, Any]]) -> None:
        assert self._fh is not None, "Journal.open() first"
        self._fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close the file (the journal stays on disk for later resumes)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
