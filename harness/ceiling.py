"""The Bayes ceiling as a derived point of a sweep: the detection probability no adversary
of the point's observation can beat, drawn beside the estimators.

A sweep whose attack axis holds ``ceiling`` (the detection sweep) or ``PROTOCOL/ceiling``
(protocol-attack) runs no trials for that point; after the run, :func:`ceiling_rows`
computes it with :func:`adversaries.bayes_ceiling` (exact where the enumeration fits, else
Monte Carlo with its interval) and adds its ``detection`` row, or, where it cannot be
computed, records the point in :attr:`harness.Table.skipped` with the reason (printed
under the table and in the JSON: never a silent gap). Its record in
:attr:`harness.Table.derived` (``"kind": "ceiling"``) says how it was computed.

The Monte Carlo ceiling of a point draws as many snapshots as the point's estimators ran
trials, from a stream seeded by the point's parameters (the same in every run).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anonspread.harness.results import Table

__all__ = ["CEILING", "ceiling_rows", "exact_ceiling", "point_seed"]

#: The attack name of the Bayes ceiling on a sweep's attack axis.
CEILING = "ceiling"


def point_seed(point: Mapping[str, Any]) -> int:
    """A seed from a point's parameters (stable across runs and processes).

    Parameters
    ----------
    point : mapping
        Axis name -> value.

    Returns
    -------
    int

    Examples
    --------
    >>> point_seed({"T": 2, "graph": "line"}) == point_seed({"graph": "line", "T": 2})
    True
    """
    text = repr(sorted((str(k), repr(v)) for k, v in point.items()))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def ceiling_rows(
    table: Table,
    points: Sequence[Mapping[str, Any]],
    setting: Callable[[Mapping[str, Any]], Any],
    *,
    axis: str,
    level: float = 0.95,
    max_states: int | None = None,
) -> Table:
    """``table`` with the ``detection`` row of each ceiling point of ``points``.

    Parameters
    ----------
    table : Table
        The run's aggregated table.
    points : list of dict
        The ceiling points (no trials of their own).
    setting : callable
        ``setting(point)``: ``(graph, protocol, T)`` for :func:`adversaries.bayes_ceiling`,
        an :class:`adversaries.Ceiling` computed otherwise, or a ``str`` saying why the
        point has no ceiling.
    axis : str
        The attack axis (``"estimator"``, ``"attack"``).
    level : float
        Confidence level of a Monte Carlo interval.
    max_states : int, optional
        :func:`adversaries.bayes_ceiling`'s cap (default: its own).

    Returns
    -------
    Table
        Each ceiling row after its point's other rows; the points without one in
        ``skipped`` (with the reason), the others' records in ``derived``.
    """
    from anonspread.adversaries import Ceiling, bayes_ceiling
    from anonspread.errors import AnonspreadError

    others = [p for p in table.params if p != axis]

    def group(row: Mapping[str, Any]) -> tuple:
        return tuple(row[p] for p in others)

    last: dict[tuple, int] = {}
    trials: dict[tuple, int] = {}
    for i, r in enumerate(table.rows):
        last[group(r)] = i
        if r["metric"] == "detection":
            trials[group(r)] = max(trials.get(group(r), 0), int(r["n"]))
    varying = [p for p in table.params if p != axis and len({repr(r[p]) for r in table.rows}) > 1]
    insert: dict[int, list[dict[str, Any]]] = {}
    tail: list[dict[str, Any]] = []
    records, skipped = [], []
    for point in points:
        head = {p: point[p] for p in table.params}
        n = trials.get(group(head)) or max(trials.values(), default=1000)
        got = setting(point)
        if not isinstance(got, (str, Ceiling)):
            graph, protocol, T = got
            try:
                caps = {} if max_states is None else {"max_states": max_states}
                got = bayes_ceiling(graph, protocol, T, trials=n, rng=point_seed(head), level=level, **caps)
            except AnonspreadError as exc:
                got = str(exc)
        if isinstance(got, str):
            skipped.append({"params": head, "reason": f"Bayes ceiling not computed: {got}"})
            continue
        lo, hi = got.interval
        row = {**head, "metric": "detection", "n": n if got.method == "exact" else got.snapshots,
               "mean": got.value, "stderr": got.stderr, "ci_low": lo, "ci_high": hi}
        where = group(head)
        (insert.setdefault(last[where], []) if where in last else tail).append(row)
        at = ", ".join(f"{p}={point[p]}" for p in varying) or "the one point"
        records.append({
            "params": head, "kind": "ceiling", "method": got.method, "value": got.value,
            "interval": [lo, hi], "snapshots": got.snapshots, "distinct": got.distinct,
            "assumption": got.assumption, "note": got.note,
            "text": f"{point[axis]} at {at}: {got}" + (f"; {got.note}" if got.note else ""),
        })
    out: list[dict[str, Any]] = []
    for i, r in enumerate(table.rows):
        out.append(r)
        out.extend(insert.get(i, []))
    out.extend(tail)
    return dataclasses.replace(table, rows=out, derived=(*table.derived, *records),
                               skipped=(*table.skipped, *skipped))


def exact_ceiling(value: float, snapshots: int, sources: int, assumption: str) -> Any:
    """An exact :class:`adversaries.Ceiling` known in closed form (no enumeration).

    Parameters
    ----------
    value : float
        The ceiling.
    snapshots : int
        The distinct snapshots.
    sources : int
        The candidate sources.
    assumption : str
        What it assumes and why it holds.

    Returns
    -------
    adversaries.Ceiling

    Examples
    --------
    >>> exact_ceiling(0.25, 1, 4, "one snapshot, four equally likely sources").interval
    (0.25, 0.25)
    """
    from anonspread.adversaries import Ceiling

    return Ceiling(float(value), (float(value), float(value)), 1.0, "exact", snapshots, snapshots,
                   0.0, sources, assumption)
