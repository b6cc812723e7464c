"""The run journal: finished units appended as JSON lines, flushed and fsync'ed.

The first line is a header describing the run (experiment, seed entropy, trials,
batch size, grid, metrics); each session adds a ``session`` line; each finished
(point, batch) unit adds a ``unit`` line with its moments and a checksum of them.

What a resume trusts (``docs/harness.md``, *Interrupting and resuming*):

* the header must equal the new run's (else :class:`JournalMismatchError`); a
  non-empty journal whose header cannot be read is refused, never overwritten;
* a torn last line (the process died while writing it) is cut off;
* any other line that does not parse, and any unit that does not belong to the plan
  (a point or batch outside it, another trial count, other metrics, a checksum that
  does not match, non-finite or impossible moments) is *not trusted*: it is left in
  the file, reported in :attr:`JournalState.rejected`, and its unit is recomputed.

The journal is opened without following symlinks and held under an exclusive
``flock`` for the whole run (including the writing of the results), so a second run
into the same ``--out`` is refused at once instead of interleaving its lines; the
kernel releases the lock when the holder exits, however it dies.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import math
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonspread.harness.errors import JournalMismatchError, OutputError
from anonspread.harness.work import Unit, UnitResult

__all__ = ["Journal", "JournalState", "check_units"]

FORMAT = 2


def _checksum(record: Mapping[str, Any]) -> str:
    payload = {k: record[k] for k in ("point", "batch", "n", "moments")}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class JournalState:
    """What a journal file holds.

    Parameters
    ----------
    header : dict or None
        The header record (None if the file is empty or its header is unreadable).
    units : dict
        ``(point, batch) -> UnitResult`` of the unit lines that parse and whose
        checksum matches (checked against a plan by :func:`check_units`).
    sessions : int
        Session lines read.
    good_bytes : int
        Length of the file up to the last complete line (a torn tail is dropped).
    rejected : list of (line, reason)
        Lines not trusted.
    size : int
        Bytes in the file.
    """

    header: dict[str, Any] | None
    units: dict[tuple[int, int], UnitResult]
    sessions: int
    good_bytes: int
    rejected: list[tuple[int, str]]
    size: int = 0


def _unit(rec: Mapping[str, Any]) -> UnitResult:
    if rec.get("sum") != _checksum(rec):
        raise ValueError("checksum does not match its moments (edited by hand?)")
    moments = rec["moments"]
    if not isinstance(moments, Mapping):
        raise ValueError("moments is not a mapping")
    for v in moments.values():
        if not (isinstance(v, list) and len(v) == 3):
            raise ValueError("a moment is not [n, mean, m2]")
    return UnitResult.from_json(rec)


def parse(data: bytes, path: Path) -> JournalState:
    """Parse journal bytes (see the module docstring for what is trusted)."""
    *complete, tail = data.split(b"\n")
    # Records are written whole and newline-terminated, so only the bytes after the
    # last newline can be torn; they are dropped and overwritten.
    good = len(data) - len(tail)
    header, units, sessions, rejected = None, {}, 0, []
    for i, raw in enumerate(complete, start=1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
            kind = rec.get("type")
            if kind == "header" and i == 1:
                header = rec
            elif kind == "session":
                sessions += 1
            elif kind == "unit":
                res = _unit(rec)
                units.setdefault((res.point, res.batch), res)
            else:
                raise ValueError(f"unexpected record type {kind!r}")
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError) as exc:
            rejected.append((i, str(exc) or type(exc).__name__))
    return JournalState(header, units, sessions, good, rejected, len(data))


def check_units(
    units: Mapping[tuple[int, int], UnitResult],
    plan: Sequence[Unit],
    metrics: Sequence[str],
    proportions: Sequence[str] = (),
) -> tuple[dict[tuple[int, int], UnitResult], list[tuple[tuple[int, int], str]]]:
    """Split journaled units into those that fit the plan and those that must be recomputed.

    A unit is trusted if its (point, batch) is planned with the same trial count, it
    has exactly the declared metrics, each with ``n`` equal to the unit's, finite
    mean and non-negative finite ``m2`` (and a mean in [0, 1] for proportions).

    Parameters
    ----------
    units : mapping
        ``(point, batch) -> UnitResult`` read from the journal.
    plan : sequence of Unit
        The run's units (:func:`harness.work.plan_units`).
    metrics : sequence of str
        The experiment's metrics.
    proportions : sequence of str
        Those whose mean must lie in [0, 1].

    Returns
    -------
    trusted : dict
        ``(point, batch) -> UnitResult`` of the units kept.
    rejected : list of ((point, batch), reason)
        The units to recompute, each with why.

    Examples
    --------
    >>> from anonspread.harness.stats import Moments
    >>> from anonspread.harness.work import Unit, UnitResult
    >>> done = UnitResult(0, 0, 100, {"heads": Moments(100, 0.29, 20.59)})
    >>> trusted, rejected = check_units({(0, 0): done, (0, 1): done},
    ...                                 [Unit(0, 0, 100), Unit(0, 1, 50)], ["heads"])
    >>> list(trusted), rejected
    ([(0, 0)], [((0, 1), 'has 100 trials; the plan has 50')])
    """
    planned = {(u.point, u.batch): u.n for u in plan}
    want = set(metrics)
    trusted: dict[tuple[int, int], UnitResult] = {}
    rejected: list[tuple[tuple[int, int], str]] = []
    for key, res in units.items():
        reason = None
        if key not in planned:
            reason = "not part of this run's plan (point or batch out of range)"
        elif res.n != planned[key]:
            reason = f"has {res.n} trials; the plan has {planned[key]}"
        elif set(res.moments) != want:
            reason = f"has metrics {sorted(res.moments)}; expected {sorted(want)}"
        else:
            for name, m in res.moments.items():
                if m.n != res.n or not math.isfinite(m.mean) or not math.isfinite(m.m2) or m.m2 < 0:
                    reason = f"metric {name!r} has impossible moments {m}"
                elif name in proportions and not 0.0 <= m.mean <= 1.0:
                    reason = f"proportion {name!r} has mean {m.mean} outside [0, 1]"
        if reason is None:
            trusted[key] = res
        else:
            rejected.append((key, reason))
    return trusted, rejected


class Journal:
    """An append-only journal file, locked while a run uses it.

    Use as a context manager: entering opens the file (creating it, never following
    a symlink) and takes an exclusive lock; :meth:`open` then starts a session.

    Parameters
    ----------
    path : path-like
        Usually ``OUT/NAME.journal.jsonl``.

    Examples
    --------
    A first session journals one finished unit; a resumed one gets it back:

    >>> from anonspread.harness.stats import Moments
    >>> from anonspread.harness.work import UnitResult
    >>> done = UnitResult(0, 0, 100, {"heads": Moments(100, 0.29, 20.59)})
    >>> with Journal("coin.journal.jsonl") as journal:
    ...     journal.open({"experiment": "coin", "seed": 7}, resume=False)
    ...     journal.append([done])
    {}
    >>> with Journal("coin.journal.jsonl") as journal:
    ...     journal.open({"experiment": "coin", "seed": 7}, resume=True) == {(0, 0): done}
    True
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._session = 0
        self.state = JournalState(None, {}, 0, 0, [])

    # -------------------------------------------------------------- file access

    def _os_error(self, exc: OSError, doing: str) -> OutputError:
        if exc.errno == errno.ELOOP:
            return OutputError(
                f"the journal {self.path} is a symbolic link; a run never writes through a "
                "link (remove it or choose another --out)"
            )
        if exc.errno == errno.EISDIR:
            return OutputError(f"the journal path {self.path} is a directory, not a file")
        return OutputError(f"cannot {doing} the journal {self.path}: {exc.strerror or exc}")

    def acquire(self) -> Journal:
        """Open (create) the file without following symlinks and lock it exclusively.

        Raises
        ------
        OutputError
            Another run holds the lock, or the path is a symlink, a directory or
            not writable.
        """
        if self._fd is not None:
            return self
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as exc:
            raise self._os_error(exc, "open") from None
        try:  # a FIFO opens read-write without blocking (issue 33)
            self._check_regular(fd)
        except OutputError:
            os.close(fd)
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise OutputError(
                    f"another run is writing {self.path} (it holds the journal's lock); wait for "
                    "it to finish or choose another --out"
                ) from None
            raise self._os_error(exc, "lock") from None
        self._fd = fd
        return self

    def _check_regular(self, fd: int) -> None:
        """Refuse an open journal that is not a regular file, naming its kind."""
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode)
                    else "directory" if stat.S_ISDIR(mode)
                    else "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special file")
            raise OutputError(f"{self.path} is a {kind}, not a regular file: the journal must be a "
                              "regular file; remove it or choose another --out")

    def read(self) -> JournalState:
        """Parse the journal (an absent or empty file is an empty journal)."""
        try:
            if self._fd is not None:
                size = os.fstat(self._fd).st_size
                data = os.pread(self._fd, size, 0) if size else b""
            else:
                # non-blocking: opening a FIFO for reading would wait for a writer forever
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK
                             | getattr(os, "O_NOFOLLOW", 0))
                try:
                    self._check_regular(fd)
                    with os.fdopen(fd, "rb", closefd=False) as fh:
                        data = fh.read()
                finally:
                    os.close(fd)
        except FileNotFoundError:
            return JournalState(None, {}, 0, 0, [])
        except OSError as exc:
            raise self._os_error(exc, "read") from None
        return parse(data, self.path)

    def open(self, header: Mapping[str, Any], *, resume: bool) -> dict[tuple[int, int], UnitResult]:
        """Start a session and return the units already journaled (not yet checked).

        Without ``resume`` the journal is started afresh.  With it, the header on
        disk must equal ``header``; the units that parse are returned (check them
        against the plan with :func:`check_units`) and new records are appended
        after a torn tail (if any) is cut off.

        Parameters
        ----------
        header : mapping
            What identifies the run (experiment, seed entropy, trials, grid...).
        resume : bool
            Keep the journaled units (``--resume``).

        Returns
        -------
        dict
            ``(point, batch) -> UnitResult`` of the journaled units (empty unless
            ``resume``).

        Raises
        ------
        JournalMismatchError
            The journal belongs to another run, or is not empty but has no readable
            header (it is then left untouched).
        OutputError
            The journal cannot be written, or another run holds it.
        """
        self.acquire()
        assert self._fd is not None
        header = {"type": "header", "format": FORMAT, **header}
        state = self.read() if resume else JournalState(None, {}, 0, 0, [])
        self.state = state
        if resume and state.header is None and state.size > 0:
            raise JournalMismatchError(
                f"journal {self.path} has no readable header (line 1), so what it holds cannot "
                "be checked against this run; it was left untouched: move it away, or rerun "
                "without --resume to overwrite it"
            )
        if state.header is not None:
            diff = [k for k in sorted(set(header) | set(state.header)) if header.get(k) != state.header.get(k)]
            if diff:
                raise JournalMismatchError(
                    f"journal {self.path} was written by a different run (differs in: "
                    f"{', '.join(diff)}); rerun without --resume to start afresh"
                )
        try:
            if state.header is None:
                os.ftruncate(self._fd, 0)
                self._write([header], at=0)
                finished: dict[tuple[int, int], UnitResult] = {}
            else:
                os.ftruncate(self._fd, state.good_bytes)
                finished = dict(state.units)
            self._session = state.sessions + 1
            # the command (a report gives it back with --resume for an interrupted run)
            self._write([{"type": "session", "session": self._session, "pid": os.getpid(),
                          "started": time.time(), "resumed": bool(finished),
                          "command": [str(a) for a in sys.argv]}])
        except OSError as exc:
            raise self._os_error(exc, "write") from None
        return finished

    def append(self, results: Iterable[UnitResult]) -> None:
        """Record finished units durably (flush + fsync) before they are counted.

        Parameters
        ----------
        results : iterable of UnitResult
            The finished units.
        """
        records = []
        for r in results:
            rec = {"type": "unit", "session": self._session, **r.to_json()}
            rec["sum"] = _checksum(rec)
            # the batch's compute time: a resume's ETA and percentage price the work with
            # it; outside the checksum (not part of the results), read back only if sane
            rec["seconds"] = round(float(r.seconds), 6)
            records.append(rec)
        try:
            self._write(records)
        except OSError as exc:
            raise self._os_error(exc, "write") from None

    def _write(self, records: list[dict[str, Any]], at: int | None = None) -> None:
        assert self._fd is not None, "Journal.open() first"
        data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
        os.lseek(self._fd, at or 0, os.SEEK_END if at is None else os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def close(self) -> None:
        """Release the lock and close the file (the journal stays for later resumes)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> Journal:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.close()
