"""Tidy results: one row per (parameter point, metric), written as CSV plus a JSON sidecar.

Rows hold the parameters, then ``metric, n, mean, stderr, ci_low, ci_high``.
Unit moments are merged in (point, batch) order and floats are written with
``repr`` (the shortest string that reads back to the same double), so the CSV
is byte-identical whatever executor produced it.  Everything that may differ
between two runs of the same computation (timing, executor, host, versions)
goes to the sidecar, never to the CSV.  Files are written atomically: a
temporary file in the same directory, fsync'ed, then :func:`os.replace`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import stat
import tempfile
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anonspread.errors import InvalidParameterError
from anonspread.harness.errors import OutputError
from anonspread.harness.grid import Scalar
from anonspread.harness.stats import Moments, summarize
from anonspread.harness.work import UnitResult

__all__ = [
    "STAT_COLUMNS",
    "Table",
    "aggregate",
    "atomic_write",
    "check_replaceable",
    "dumps_sidecar",
    "format_skipped",
    "format_value",
    "keep_rows",
    "read_sidecar",
    "read_table",
]

STAT_COLUMNS = ("metric", "n", "mean", "stderr", "ci_low", "ci_high")

_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}


def format_value(value: Scalar) -> str:
    """The CSV text of a cell (floats via ``repr``: exact and deterministic).

    Parameters
    ----------
    value : str, int, float or bool
        A cell.

    Returns
    -------
    str

    Examples
    --------
    >>> format_value(0.1 + 0.2), format_value(True)
    ('0.30000000000000004', 'True')
    """
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _parse(text: str, kind: str) -> Scalar:
    if not isinstance(text, str):  # a short row: csv gives None for the missing cells
        raise ValueError(f"missing cell {text!r}")
    if kind == "bool":
        if text not in ("True", "False"):
            raise ValueError(f"not a bool: {text!r}")
        return text == "True"
    if kind in ("int", "float", "str"):
        return _TYPES[kind](text)
    raise InvalidParameterError(f"parameter type must be one of {sorted(_TYPES)}; got {kind!r}")


@dataclass(frozen=True, repr=False)
class Table:
    """A tidy result table.

    Parameters
    ----------
    params : tuple of str
        Parameter columns, in grid order.
    param_types : dict
        ``name -> "int" | "float" | "str" | "bool"`` (to read the CSV back).
    rows : list of dict
        Each row maps parameters and :data:`STAT_COLUMNS` to values.
    skipped : tuple of dict
        Grid points left out (not applicable: ``Experiment.skip``; or priced above the
        estimator budget), each
        ``{"params": {...}, "reason": "..."}``; they have no rows (the CSV holds only
        computed points) and are recorded in the JSON sidecar under ``"skipped"``.
    derived : tuple of dict
        Points whose rows were derived from other points' rather than computed (the
        strongest attack chosen on half of the trials, :mod:`harness.selection`), each
        ``{"params": {...}, "chosen": ..., "text": "..."}`` and details; printed under the
        table and recorded in the JSON under ``"derived"``.

    Examples
    --------
    :func:`harness.run` returns one (``RunResult.table``) and :func:`read_table` reads
    one back; the rows are tidy, one per (point, metric):

    >>> from anonspread.harness import Table
    >>> rows = [{"T": T, "metric": "detection", "n": 500, "mean": m, "stderr": se,
    ...          "ci_low": m - 1.96 * se, "ci_high": m + 1.96 * se}
    ...         for T, m, se in [(2, 0.31, 0.0207), (4, 0.22, 0.0185)]]
    >>> table = Table(params=("T",), param_types={"T": "int"}, rows=rows)
    >>> print(table.format_text())
    T  trials  detection
    -  ------  -------------------
    2  500     0.31 [0.269, 0.351]
    4  500     0.22 [0.184, 0.256]
    >>> [row["mean"] for row in table.where(T=4)]
    [0.22]
    >>> print(table.to_csv().splitlines()[0])
    T,metric,n,mean,stderr,ci_low,ci_high
    """

    params: tuple[str, ...]
    param_types: Mapping[str, str]
    rows: list[dict[str, Any]]
    skipped: tuple[Mapping[str, Any], ...] = ()
    derived: tuple[Mapping[str, Any], ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The CSV's columns: the parameters, then :data:`STAT_COLUMNS`."""
        return (*self.params, *STAT_COLUMNS)

    def __repr__(self) -> str:
        """One line: its size, metrics and parameters, shortened to 200 characters
        (``print(table)`` shows the table, ``rows`` holds everything)."""
        points = len({tuple(r[p] for p in self.params) for r in self.rows})
        metrics = list(dict.fromkeys(r["metric"] for r in self.rows))
        head = f"<Table: {points} points x {len(metrics)} metrics ("
        tail = f"); parameters {', '.join(self.params)}>"
        if len(tail) > 80:
            tail = f"); {len(self.params)} parameters>"
        names = ", ".join(metrics)
        room = 200 - len(head) - len(tail)
        if len(names) > room:
            names = names[:max(0, room - 5)].rsplit(", ", 1)[0] + ", ..."
        return head + names + tail

    def __str__(self) -> str:
        """The first points as a text table as wide as the terminal (:meth:`format_text`)."""
        return self.format_text(max_points=12)

    def _repr_html_(self) -> str:
        """Notebook display: one row per point, ``mean [95% CI]`` per metric, the trials."""
        from anonspread.harness.html_view import table_html

        return table_html(self)

    def to_csv(self) -> str:
        """The deterministic CSV text."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.columns)
        for row in self.rows:
            writer.writerow([format_value(row[c]) for c in self.columns])
        return buf.getvalue()

    def format_text(self, *, max_points: int = 40, width: int | None = None) -> str:
        """A readable table: one line per parameter point, one column per metric, as wide
        as ``width``.

        Each cell is ``mean [ci_low, ci_high]`` (just the mean when the interval is
        degenerate, as for exact evaluations). Only the parameters that vary are shown,
        then the trials of each point (random experiments); tables longer than
        ``max_points`` points are cut with a note. Skipped points (which do not apply)
        are named below the table with their reasons.

        The table fits ``width`` by one rule: every metric on one line when that fits,
        else the metrics split over blocks of columns printed one below the other, each
        block repeating the parameter columns, as many metrics per block as fit (at least
        one: parameter columns wider than ``width`` are never cut); a block leaves out the
        points that have none of its metrics (the ``strongest`` rows carry detection only).
        The notes under the table are wrapped at ``width``. Nothing is abbreviated or
        rounded further: names and figures are those of the one-line table.

        Parameters
        ----------
        max_points : int
            Most points shown.
        width : int, optional
            Columns available (default: the terminal's width, or 100 when the output is not
            a terminal: :func:`shutil.get_terminal_size` with fallback 100).

        Returns
        -------
        str
        """
        if width is None:
            width = shutil.get_terminal_size((100, 24)).columns
        width = max(int(width), 40)
        points: dict[tuple, dict[str, Mapping[str, Any]]] = {}
        metrics: list[str] = []
        trials: dict[tuple, int] = {}
        for row in self.rows:
            key = tuple(row[p] for p in self.params)
            m = row["metric"]
            trials[key] = max(trials.get(key, 0), int(row["n"]))
            if m not in metrics:
                metrics.append(m)
            points.setdefault(key, {})[m] = row
        keys = list(points)
        moving = [i for i, p in enumerate(self.params) if len({k[i] for k in keys}) > 1]
        varying = moving or list(range(len(self.params)))
        show_trials = any(n > 1 for n in trials.values())
        shown = keys[:max_points]
        left_head = [self.params[i] for i in varying] + (["trials"] if show_trials else [])
        left = [[str(k[i]) for i in varying] + ([str(trials[k])] if show_trials else []) for k in shown]
        out: list[str] = []
        cells = [[_cell_text(points[k].get(m)) for m in metrics] for k in shown]
        for b, block in enumerate(_column_blocks(left_head, left, metrics, cells, width)):
            if b:
                out.append("")
            out += block
        if len(keys) > max_points:
            out.append(f"... {len(keys) - max_points} more points in the CSV")
        notes = format_skipped(self.skipped, self.params, vary=[self.params[i] for i in moving])
        chosen = [d for d in self.derived if d.get("kind") != "ceiling"]
        ceilings = [d for d in self.derived if d.get("kind") == "ceiling"]
        if chosen:
            notes.append("strongest attack, chosen on the even-numbered trials of each batch and "
                         "reported on the others:")
            notes += [f"  {d.get('text', d)}" for d in chosen]
        if ceilings:
            notes.append("Bayes ceiling (no adversary of the snapshot detects more often):")
            notes += [f"  {d.get('text', d)}" for d in ceilings]
        for note in notes:
            indent = " " * (len(note) - len(note.lstrip(" ")))
            out += textwrap.wrap(note, width=width, initial_indent="", subsequent_indent=indent + "    ",
                                 break_on_hyphens=False, break_long_words=False) or [""]
        return "\n".join(line.rstrip() for line in out)

    def to_pandas(self) -> Any:
        """The table as a :class:`pandas.DataFrame`, one row per (point, metric).

        pandas is not a dependency of anonspread; without it this raises
        :class:`ModuleNotFoundError` saying so (``rows`` holds the same data as dicts).
        """
        try:
            import pandas as pd
        except ModuleNotFoundError:
            raise ModuleNotFoundError(
                "Table.to_pandas needs pandas, which anonspread does not install: "
                "pip install pandas (or use table.rows, a list of dicts)"
            ) from None
        return pd.DataFrame([[row[c] for c in self.columns] for row in self.rows],
                            columns=list(self.columns))

    def where(self, **params: Scalar) -> list[dict[str, Any]]:
        """Rows whose parameters (and ``metric``) equal the given values.

        Parameters
        ----------
        **params
            Column name -> the value it must equal (``T=4, metric="detection"``).

        Returns
        -------
        list of dict
        """
        return [r for r in self.rows if all(r[k] == v for k, v in params.items())]


def _matches(value: Any, wanted: Any) -> bool:
    """``value`` (a table's) equals ``wanted`` (typed, or text from the command line)."""
    if value == wanted and type(value) is not bool and type(wanted) is not bool:
        return True
    if isinstance(value, bool) or isinstance(wanted, bool):
        return str(value).lower() == str(wanted).strip().lower()
    if str(value) == str(wanted).strip():
        return True
    if isinstance(value, int | float):
        try:
            return float(value) == float(str(wanted))
        except ValueError:
            return False
    return False


def keep_rows(table: Table, where: Mapping[str, Any]) -> Table:
    """The table with only the rows whose parameters take the given values.

    ``where`` maps a parameter to a value or a list of values (``{"estimator":
    "strongest"}``, ``{"T": [2, 4]}``); a row is kept when each parameter takes one of its
    values. Values may be text (``"0.3"`` keeps ``graph.p = 0.3``); names compare exactly,
    case included: an unknown name or value is refused with the close ones suggested
    (``estimator=ML``: did you mean 'ml'?), never folded silently. The skipped and derived
    points (:attr:`Table.skipped`, :attr:`Table.derived`) are kept when they match too.

    Parameters
    ----------
    table : Table
        The results.
    where : mapping of str to value or list of values
        Parameter -> the values to keep.

    Returns
    -------
    Table
        A new table (``table`` is unchanged).

    Raises
    ------
    InvalidParameterError
        An unknown parameter or value, or values that no row has together.

    Examples
    --------
    >>> from anonspread.harness import Table
    >>> rows = [{"est": e, "T": T, "metric": "detection", "n": 10, "mean": 0.5, "stderr": 0.1,
    ...          "ci_low": 0.3, "ci_high": 0.7} for e in ("ml", "strongest") for T in (2, 4)]
    >>> t = Table(params=("est", "T"), param_types={"est": "str", "T": "int"}, rows=rows)
    >>> [(r["est"], r["T"]) for r in keep_rows(t, {"est": "strongest", "T": ["4"]}).rows]
    [('strongest', 4)]
    >>> keep_rows(t, {"est": "ML"})
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: where: no row has est='ML' (est takes 'ml', 'strongest'); did you mean 'ml'?
    """
    from anonspread.registry import suggest

    if not isinstance(where, Mapping):
        raise InvalidParameterError(f"where must be a mapping of parameter to value(s); got {where!r:.80}")
    chosen: dict[str, list[Any]] = {}
    for key, wanted in where.items():
        if key not in table.params:
            extra = " (choose metrics with --metric, or plot's y)" if key == "metric" else ""
            raise InvalidParameterError(
                f"where: unknown parameter {key!r}; the table's parameters are {list(table.params)}"
                f"{extra}{suggest(str(key), table.params)}")
        values = list(wanted) if isinstance(wanted, list | tuple | set | frozenset) else [wanted]
        if not values:
            raise InvalidParameterError(f"where: {key} needs at least one value")
        present = list(dict.fromkeys(r[key] for r in table.rows))
        keep: list[Any] = []
        for v in values:
            hits = [p for p in present if _matches(p, v)]
            if not hits:
                shown = ", ".join(repr(p) for p in present[:12]) + (", ..." if len(present) > 12 else "")
                raise InvalidParameterError(
                    f"where: no row has {key}={str(v)!r} ({key} takes {shown})"
                    f"{suggest(str(v), [str(p) for p in present])}")
            keep += [h for h in hits if h not in keep]
        chosen[key] = keep

    def kept(point: Mapping[str, Any]) -> bool:
        return all(k not in point or point[k] in vs for k, vs in chosen.items())

    rows = [r for r in table.rows if kept(r)]
    if not rows:
        said = " and ".join(f"{k}={','.join(map(str, vs))}" for k, vs in chosen.items())
        raise InvalidParameterError(f"where: no row has {said} together")

    def kept_items(items: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
        return tuple(i for i in items if not isinstance(i, Mapping)
                     or not isinstance(i.get("params"), Mapping) or kept(i["params"]))

    return Table(params=table.params, param_types=table.param_types, rows=rows,
                 skipped=kept_items(table.skipped), derived=kept_items(table.derived))


def _cell_text(row: Mapping[str, Any] | None) -> str:
    """``mean [ci_low, ci_high]``, or the mean alone when the interval is degenerate."""
    if row is None:
        return ""
    mean, lo, hi = row["mean"], row["ci_low"], row["ci_high"]
    cell = f"{mean:.4g}"
    if isinstance(lo, float) and isinstance(hi, float) and hi > lo:
        cell += f" [{lo:.3g}, {hi:.3g}]"
    return cell


def _column_blocks(left_head: list[str], left: list[list[str]], metrics: list[str],
                   cells: list[list[str]], width: int) -> list[list[str]]:
    """The table's lines, in as few blocks of metric columns as fit ``width`` (each block
    repeats the ``left`` columns); one block when everything fits."""
    def col_width(head: str, column: list[str]) -> int:
        return max([len(head), *(len(c) for c in column)])

    left_w = [col_width(h, [r[j] for r in left]) for j, h in enumerate(left_head)]
    metric_w = [col_width(m, [r[j] for r in cells]) for j, m in enumerate(metrics)]
    base = sum(left_w) + 2 * len(left_w)
    groups: list[list[int]] = [[]]
    used = base
    for j, w in enumerate(metric_w):
        if groups[-1] and used + w > width:
            groups.append([])
            used = base
        groups[-1].append(j)
        used += w + 2
    blocks = []
    for b, group in enumerate(groups):
        header = left_head + [metrics[j] for j in group]
        widths = left_w + [metric_w[j] for j in group]
        lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(lrow + [crow[j] for j in group], widths))
                  for lrow, crow in zip(left, cells)
                  if len(groups) == 1 or any(crow[j] for j in group) or (b == 0 and not any(crow))]
        blocks.append(lines)
    return blocks


def format_skipped(skipped: Sequence[Mapping[str, Any]], params: Sequence[str] = (),
                   vary: Sequence[str] = ()) -> list[str]:
    """Lines naming the skipped points, one per distinct reason: the values each shown axis
    takes among the points of that reason (``protocol=flooding, estimator=ml, T=2,4,6``;
    the JSON's ``"skipped"`` has every point).

    Parameters
    ----------
    skipped : sequence of dict
        ``{"params": {...}, "reason": "..."}`` per skipped point (:attr:`Table.skipped`).
    params : sequence of str
        The axes, in column order (default: as they come in ``skipped``).
    vary : sequence of str
        Axes that vary over the run's computed points (the table's columns): always
        shown, so that one skipped point still says which T (or graph...) it was.

    Returns
    -------
    list of str
        Empty when nothing was skipped.

    Examples
    --------
    >>> why = "ml assumes adaptive diffusion"
    >>> skipped = [{"params": {"T": T, "estimator": "ml"}, "reason": why} for T in (2, 4)]
    >>> for line in format_skipped(skipped):
    ...     print(line)
    skipped 2 point(s), not computed:
      T=2,4, estimator=ml: ml assumes adaptive diffusion
    >>> for line in format_skipped(skipped[1:], vary=["T"]):  # one point: still its T
    ...     print(line)
    skipped 1 point(s), not computed:
      T=4, estimator=ml: ml assumes adaptive diffusion
    """
    if not skipped:
        return []
    points = [dict(item.get("params", {})) for item in skipped]
    names = list(params) or list(dict.fromkeys(k for pt in points for k in pt))
    varying = [p for p in names if len({repr(pt.get(p)) for pt in points}) > 1]
    # the axes that decide applicability (protocol, estimator) are shown even when fixed
    shown_axes = [p for p in names if p in varying or p in vary
                  or p in ("protocol", "estimator", "attack")] or names
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for item, point in zip(skipped, points):
        by_reason.setdefault(str(item.get("reason", "")), []).append(point)
    out = [f"skipped {len(skipped)} point(s), not computed:"]  # the reason per group says why
    for reason, pts in by_reason.items():
        parts = []
        for p in shown_axes:
            values = list(dict.fromkeys(str(pt[p]) for pt in pts if p in pt))
            if values:
                parts.append(f"{p}={','.join(values)}")
        out.append(f"  {', '.join(parts)}: {reason}")
    return out


def _type_name(values: Sequence[Scalar]) -> str:
    kinds = {type(v).__name__ for v in values}
    if kinds <= {"bool"}:
        return "bool"
    if kinds <= {"int"}:
        return "int"
    if kinds <= {"int", "float"}:
        return "float"
    return "str"


def aggregate(
    points: Sequence[Mapping[str, Scalar]],
    names: Sequence[str],
    metrics: Sequence[tuple[str, str]],
    results: Mapping[tuple[int, int], UnitResult],
    *,
    level: float = 0.95,
) -> Table:
    """Merge unit results into the tidy table.

    Parameters
    ----------
    points : list of dict
        The expanded grid (point index = position).
    names : list of str
        Parameter column order.
    metrics : list of (name, kind) or (name, kind, low)
        ``kind`` is ``"proportion"``, ``"mean"`` or ``"exact"``; ``low`` is the
        metric's smallest possible value (:attr:`harness.Metric.low`).
    results : dict
        ``(point, batch) -> UnitResult``; merged in batch order.
    level : float
        Confidence level of the intervals.
    """
    types = {n: _type_name([p[n] for p in points]) for n in names}
    by_point: dict[int, list[UnitResult]] = {}
    for key in sorted(results):
        by_point.setdefault(key[0], []).append(results[key])
    rows = []
    for i, point in enumerate(points):
        units = by_point.get(i, [])
        for metric, kind, *low in metrics:
            total = Moments(0, 0.0, 0.0)
            for u in units:
                total = total.merge(u.moments[metric])
            s = summarize(total, kind, level, *low)
            row: dict[str, Any] = {n: _coerce(point[n], types[n]) for n in names}
            row.update(metric=metric, n=s.n, mean=s.mean, stderr=s.stderr, ci_low=s.ci_low, ci_high=s.ci_high)
            rows.append(row)
    return Table(tuple(names), types, rows)


def _coerce(value: Scalar, kind: str) -> Scalar:
    # A column mixing 1 and 0.5 is written as floats throughout, so it reads back the same.
    if kind == "float":
        return float(value)
    if kind == "str":
        return str(value)
    return value


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_KINDS = ((stat.S_ISLNK, "symbolic link"), (stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "FIFO"),
          (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
          (stat.S_ISSOCK, "socket"))


def check_replaceable(path: str | os.PathLike[str]) -> Path:
    """``path``, if writing a result there replaces a regular file or nothing.

    Every output of anonspread (a run's CSV, JSON, figures and journal, ``plot --output``,
    ``report``) is written beside its path and renamed over it. A rename replaces whatever
    the path names, so anything but a regular file -- a symbolic link, a directory, a FIFO,
    a device, a socket -- is refused before anything is written.

    Parameters
    ----------
    path : path-like
        Where an output is about to be written.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputError
        ``path`` names something other than a regular file.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_replaceable(d)
    Traceback (most recent call last):
    ...
    anonspread.harness.errors.OutputError: ... is a directory, not a regular file: ...
    """
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):
        return path
    kind = next((k for test, k in _KINDS if test(mode)), "special file")
    raise OutputError(f"{path} is a {kind}, not a regular file: anonspread replaces only "
                      f"regular files (or creates a new one); choose another path or remove "
                      f"the {kind} first")


def _check_readable(path: str | os.PathLike[str], what: str) -> None:
    """Refuse to read a result file that is not a regular file (followed through symlinks):
    opening a FIFO blocks until a writer comes, and a device may never end (issue 33)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the open words it (missing, no permission)
    if stat.S_ISREG(mode):
        return
    kind = next((k for test, k in _KINDS if test(mode)), "special file")
    raise OutputError(f"{path} is a {kind}, not a regular file: {what} must be a regular file "
                      "(a pipe or a device may never end)")


def atomic_write(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same directory + replace).

    A reader sees either the previous complete file or the new complete file,
    never a partial one. The file gets the mode the process's umask gives new files
    (0644 under umask 022). Only a regular file is replaced: a symbolic link, directory,
    FIFO, device or socket at ``path`` is refused (:func:`check_replaceable`).

    Parameters
    ----------
    path : path-like
        The file to write.
    data : str or bytes
        Its new content (text is written as UTF-8).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputError
        The directory is missing or not writable, or ``path`` is not a regular file.
    """
    path = check_replaceable(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        # mkstemp makes the file 0600; a result file gets the mode open() would give it
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _json_default(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {obj!r}")


def dumps_sidecar(data: Mapping[str, Any]) -> str:
    """The sidecar JSON text (sorted keys, 2-space indent).

    Parameters
    ----------
    data : mapping
        JSON-ready values; non-finite floats are written as the strings ``"inf"``,
        ``"-inf"``, ``"nan"``.

    Returns
    -------
    str
        Ends with a newline.
    """
    return json.dumps(data, indent=2, sort_keys=True, default=_json_default) + "\n"


def read_sidecar(csv_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read the JSON sidecar next to a result CSV (``x.csv`` -> ``x.json``).

    Parameters
    ----------
    csv_path : path-like
        The result CSV.

    Returns
    -------
    dict
        The sidecar's content (experiment, seed, grid, metrics, timing, versions...).

    Raises
    ------
    OutputError
        The sidecar is missing or not valid JSON.
    """
    if Path(csv_path).is_dir():
        runs = sorted(p.name for p in Path(csv_path).glob("*.csv"))[:3]
        raise OutputError(f"{csv_path} is a directory; give one result CSV of it"
                          + (f" (e.g. {', '.join(runs)})" if runs else "")
                          + ", or use 'anonspread report DIR' for the whole folder")
    side = Path(csv_path).with_suffix(".json")
    _check_readable(side, "a result's JSON sidecar")
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"no sidecar {side} next to {csv_path} (it is written by 'anonspread run')") from None
    except (OSError, ValueError) as exc:
        raise OutputError(f"cannot read the sidecar {side}: {exc}") from None
    _check_sidecar(data, side)
    return data


# What reading a table back and redrawing it need from the sidecar, with their JSON types.
_SIDECAR_KEYS = {"parameters": list, "parameter_types": dict, "metrics": list, "plot": dict}


def _check_sidecar(data: Any, side: Path) -> None:
    if not isinstance(data, dict):
        raise OutputError(f"the sidecar {side} must hold a JSON object; got {type(data).__name__}")
    for key, kind in _SIDECAR_KEYS.items():
        if not isinstance(data.get(key), kind):
            found = "missing" if key not in data else f"a {type(data[key]).__name__}"
            raise OutputError(f"the sidecar {side} must have {key!r} as a JSON {kind.__name__}; it is {found}")
    params = data["parameters"]
    types = data["parameter_types"]
    for p in params:
        if not isinstance(p, str) or types.get(p) not in _TYPES:
            raise OutputError(
                f"the sidecar {side}: parameter {p!r} needs a type among {sorted(_TYPES)} in "
                f"'parameter_types'; got {types.get(p) if isinstance(p, str) else p!r}"
            )
    for m in data["metrics"]:
        if not isinstance(m, dict) or not isinstance(m.get("name"), str):
            raise OutputError(f"the sidecar {side}: each of 'metrics' must be an object with a 'name'; got {m!r}")
    if not isinstance(data["plot"].get("x"), str):
        raise OutputError(f"the sidecar {side}: 'plot' must name its x axis; got {data['plot']!r}")


def read_table(csv_path: str | os.PathLike[str], sidecar: Mapping[str, Any] | None = None) -> Table:
    """Read a result CSV back (parameter types come from the sidecar).

    Parameters
    ----------
    csv_path : str or os.PathLike
        A ``NAME.csv`` written by :func:`run`.
    sidecar : mapping, optional
        Its JSON sidecar as a dict; default: read ``NAME.json`` beside the CSV.

    Returns
    -------
    Table

    Examples
    --------
    >>> from anonspread import harness
    >>> exp = harness.compose("detection", product={
    ...     "graph": "regular-3", "protocol": "random-diffusion", "estimator": "jordan", "T": 3})
    >>> res = harness.run(exp, trials=40, rng=1, out=".", workers=1, progress=False)
    >>> row = harness.read_table(res.paths["csv"]).where(metric="detection")[0]
    >>> row["n"], row["mean"]
    (40, 0.55)
    """
    sidecar = read_sidecar(csv_path) if sidecar is None else sidecar
    types = dict(sidecar["parameter_types"])
    params = tuple(sidecar["parameters"])
    _check_readable(csv_path, "a result CSV")
    try:
        with open(csv_path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = set(params) | set(STAT_COLUMNS)
            missing -= set(reader.fieldnames or ())
            if missing:
                raise OutputError(f"{csv_path} is not a result table (missing columns {sorted(missing)})")
            rows = []
            for line, rec in enumerate(reader, start=2):
                if None in rec:  # DictReader's key for the fields beyond the header's
                    raise OutputError(
                        f"{csv_path} line {line}: {len(rec[None])} more field(s) than the header's "
                        f"{len(reader.fieldnames or ())} columns: {rec[None]!r:.80}")
                column = ""
                try:
                    row: dict[str, Any] = {}
                    for column in params:
                        row[column] = _parse(rec[column], types[column])
                    column = "metric"
                    row["metric"] = rec["metric"]
                    column = "n"
                    row["n"] = int(rec["n"])
                    for column in STAT_COLUMNS[2:]:
                        row[column] = float(rec[column])
                except (TypeError, ValueError):
                    raise OutputError(
                        f"{csv_path} line {line}: column {column!r} must hold a "
                        f"{types.get(column, 'int' if column == 'n' else 'float')}; got {rec.get(column)!r}"
                    ) from None
                rows.append(row)
    except OSError as exc:
        raise OutputError(f"cannot read {csv_path}: {exc.strerror or exc}") from None
    skipped = sidecar.get("skipped") or ()
    derived = sidecar.get("derived") or ()
    return Table(params, types, rows, tuple(s for s in skipped if isinstance(s, dict)),
                 tuple(d for d in derived if isinstance(d, dict)))
