"""The strongest attack, chosen by the data without winner's bias: select on one half of
the trials, report on the other.

Reporting the best of several estimators' detection estimates, each measured on the same
trials, is biased upwards (the maximum of noisy estimates overshoots the best true value:
the winner's curse), and a declared order ("a likelihood of the protocol's own model
first") can simply be wrong -- with spies, first-spy beats the snapshot near-ML on adaptive
diffusion by a factor of hundreds. So the strongest attack of a protocol at a parameter
point is chosen by **sample splitting**:

1. every trial of a candidate attack is put in the *selection* half (even-numbered trials
   of each batch: 0, 2, 4, ...) or the *report* half (odd-numbered), the same split for
   every candidate, so when the candidates are paired (scored on the same spreads) they
   are compared on the same trials;
2. the candidate with the most detections in the selection half is chosen (ties: the
   first in the sweep's axis order);
3. its detection is reported on the report half only, with its Wilson interval.

The report half is independent of the selection half, so given the choice the reported
estimate is unbiased for the chosen attack's detection probability and its interval has
its nominal coverage; the price is half the trials (the interval is about 1.4 times wider
than one from all of them). The trials run as usual: each candidate's trial function also
returns :data:`SELECTION_METRICS` (:func:`selection_arrays`), from which the halves are
recovered after the run (:func:`strongest_rows`); the derived rows replace nothing and
name their choice (:attr:`harness.Table.derived`, the JSON's ``"derived"``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from anonspread.harness.experiment import Metric
from anonspread.harness.results import Table
from anonspread.harness.stats import wilson_interval

__all__ = ["SELECTION_METRICS", "selection_arrays", "strongest_rows"]

#: The two helper metrics every candidate reports (dropped from the written table).
SELECTION_METRICS = (
    Metric("selection_hits", "proportion", "detections in the selection half",
           description="1 when the trial is in the selection half (even-numbered in its batch) "
           "and the source was found, else 0 (helper of the strongest attack; not written)"),
    Metric("selection_trials", "proportion", "trials in the selection half",
           description="1 when the trial is in the selection half (even-numbered in its batch), "
           "else 0 (helper of the strongest attack; not written)"),
)
_HELPERS = tuple(m.name for m in SELECTION_METRICS)


def selection_arrays(detection: np.ndarray) -> dict[str, np.ndarray]:
    """The helper metrics of a batch of trials whose per-trial detections are ``detection``.

    Parameters
    ----------
    detection : numpy.ndarray
        Per-trial detections of one candidate attack, in trial order (0/1, or the
        probability of a tie-broken pick).

    Returns
    -------
    dict of str to numpy.ndarray
        ``selection_hits`` (the detection on even-numbered trials, 0 on the others) and
        ``selection_trials`` (1 on even-numbered trials, 0 on the others).

    Examples
    --------
    >>> out = selection_arrays(np.array([1.0, 1.0, 0.0, 1.0, 1.0]))
    >>> out["selection_hits"].tolist(), out["selection_trials"].tolist()
    ([1.0, 0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0, 1.0])
    """
    detection = np.asarray(detection, dtype=np.float64)
    half = (np.arange(detection.shape[0]) % 2 == 0).astype(np.float64)
    return {"selection_hits": detection * half, "selection_trials": half}


def _counts(rows: Mapping[str, Mapping[str, Any]]) -> tuple[float, int, float, int]:
    """(selection hits, selection trials, report hits, report trials) of one point.

    Hits are sums of per-trial detections: whole numbers for 0/1 detections, fractional
    where a trial's detection is the probability of a tie-broken pick."""
    n = int(rows["detection"]["n"])
    total = rows["detection"]["mean"] * n
    s_hits = rows["selection_hits"]["mean"] * n
    s_n = round(rows["selection_trials"]["mean"] * n)
    return s_hits, s_n, max(total - s_hits, 0.0), n - s_n


def strongest_rows(
    table: Table,
    derived: Sequence[Mapping[str, Any]],
    candidates: Callable[[Mapping[str, Any]], Sequence[Mapping[str, Any]]],
    *,
    axis: str,
    level: float = 0.95,
) -> Table:
    """``table`` with the rows of each point of ``derived`` (a strongest attack) added and
    the helper metrics removed.

    Parameters
    ----------
    table : Table
        The run's aggregated table (every candidate with :data:`SELECTION_METRICS`).
    derived : list of dict
        The points whose ``axis`` value is a strongest attack (no trials of their own).
    candidates : callable
        ``candidates(point) -> points``: the computed points it chooses among, in axis order.
    axis : str
        The axis naming the attack (``"estimator"``, ``"attack"``).
    level : float
        Confidence level of the reported interval.

    Returns
    -------
    Table
        Rows in the original order, each derived point's rows after its candidates'; its
        ``derived`` records say what was chosen, on what, and what is reported.
    """
    def key(row: Mapping[str, Any]) -> tuple:
        return tuple(row[p] for p in table.params)

    by_point: dict[tuple, dict[str, dict[str, Any]]] = {}
    last: dict[tuple, int] = {}
    for i, r in enumerate(table.rows):
        by_point.setdefault(key(r), {})[r["metric"]] = r
        last[key(r)] = i
    insert: dict[int, list[dict[str, Any]]] = {}
    records = []
    varying = [p for p in table.params if p != axis and len({repr(r[p]) for r in table.rows}) > 1]
    for point in derived:
        pool = []
        for c in candidates(point):
            rows = by_point.get(key(c))
            if rows is not None and all(m in rows for m in ("detection", *_HELPERS)):
                pool.append((c, rows))
        if not pool:
            continue
        counts = [_counts(rows) for _, rows in pool]
        # the most selection-half detections (as a rate), the first in axis order on ties
        best = max(range(len(pool)), key=lambda i: (counts[i][0] / max(counts[i][1], 1), -i))
        chosen = pool[best][0]
        _, _, k, n = counts[best]
        mean = min(max(k / n, 0.0), 1.0) if n else float("nan")
        lo, hi = wilson_interval(mean, n, level) if n else (float("nan"), float("nan"))
        stderr = float(np.sqrt(mean * (1 - mean) / n)) if n else float("nan")
        head = {p: point[p] for p in table.params}
        # detection only: its trials are the report half (the spread's own metrics are the
        # candidates', in their rows)
        new = [{**head, "metric": "detection", "n": n, "mean": mean, "stderr": stderr,
                "ci_low": lo, "ci_high": hi}]
        insert.setdefault(max(last[key(c)] for c, _ in pool), []).extend(new)
        where = ", ".join(f"{p}={point[p]}" for p in varying) or "the one point"
        tried = ", ".join(f"{c[axis]} {cnt[0]:.4g}/{cnt[1]}" for (c, _), cnt in zip(pool, counts))
        records.append({
            "params": head,
            "chosen": chosen[axis],
            "selection": {str(c[axis]): [round(cnt[0], 6), cnt[1]] for (c, _), cnt in zip(pool, counts)},
            "report": {"hits": round(k, 6), "trials": n, "detection": mean, "ci_low": lo, "ci_high": hi},
            "text": (f"{point[axis]} at {where}: {chosen[axis]} (selection half: {tried}); "
                     f"detection on the other {n} trials {mean:.4g} [{lo:.3g}, {hi:.3g}]"),
        })
    out: list[dict[str, Any]] = []
    for i, r in enumerate(table.rows):
        if r["metric"] not in _HELPERS:
            out.append(r)
        out.extend(insert.get(i, []))
    return dataclasses.replace(table, rows=out, derived=tuple(records))
