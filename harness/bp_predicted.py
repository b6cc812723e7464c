"""BP's predicted detection as a derived point of the detection sweep (an estimate of the
Bayes ceiling where the exact or Monte Carlo ceiling is out of reach; never called the
ceiling).

A detection sweep whose estimator axis holds ``bp-predicted`` runs no trials for that
point; after the run, :func:`bp_predicted_rows` draws as many spreads as the point's
estimators ran trials (from a stream seeded by the point's parameters: the same in every
run), attacks each with :func:`adversaries.bp_posterior` and adds a ``detection`` row whose
mean is the mean over the spreads of ``max_s P(s | snapshot)`` (normal interval), beside
the ``bp`` series' realised detection. Its record in :attr:`harness.Table.derived`
(``"kind": "bp-predicted"``) gives the realised detection on the same spreads and how many
posteriors were exact or unconverged. Points whose protocol BP does not model are recorded
in :attr:`harness.Table.skipped` with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from statistics import NormalDist
from typing import Any

from anonspread.harness.ceiling import point_seed
from anonspread.harness.results import Table

__all__ = ["BP_PREDICTED", "bp_predicted_rows"]

#: The estimator name of BP's predicted detection on the detection sweep's estimator axis.
BP_PREDICTED = "bp-predicted"


def bp_predicted_rows(
    table: Table,
    points: Sequence[Mapping[str, Any]],
    setting: Callable[[Mapping[str, Any]], Any],
    *,
    axis: str,
    level: float = 0.95,
) -> Table:
    """``table`` with the ``detection`` row of each ``bp-predicted`` point of ``points``.

    Parameters
    ----------
    table : Table
        The run's aggregated table.
    points : list of dict
        The ``bp-predicted`` points (no trials of their own).
    setting : callable
        ``setting(point)``: ``(graph, protocol, T)``, or a ``str`` saying why there is none.
    axis : str
        The estimator axis.
    level : float
        Confidence level of the normal interval.

    Returns
    -------
    Table
        Each row after its point's other rows; points without one in ``skipped``.

    Examples
    --------
    >>> from anonspread.harness.results import Table
    >>> t = Table(("estimator",), {"estimator": "str"}, [])
    >>> bp_predicted_rows(t, [{"estimator": "bp-predicted"}], lambda p: "no graph",
    ...                   axis="estimator").skipped[0]["reason"]
    "BP's predicted detection not computed: no graph"
    """
    from anonspread.adversaries.bp import bp_detection
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
    z = NormalDist().inv_cdf(0.5 + level / 2)
    insert: dict[int, list[dict[str, Any]]] = {}
    tail: list[dict[str, Any]] = []
    records, skipped = [], []
    for point in points:
        head = {p: point[p] for p in table.params}
        n = max(trials.get(group(head)) or max(trials.values(), default=1000), 2)
        got = setting(point)
        if not isinstance(got, str):
            graph, protocol, T = got
            try:
                got = bp_detection(graph, protocol, T, n, rng=point_seed(head))
            except AnonspreadError as exc:
                got = str(exc)
        if isinstance(got, str):
            skipped.append({"params": head, "reason": f"BP's predicted detection not computed: {got}"})
            continue
        lo = max(0.0, got.predicted - z * got.predicted_se)
        hi = min(1.0, got.predicted + z * got.predicted_se)
        row = {**head, "metric": "detection", "n": got.trials, "mean": got.predicted,
               "stderr": got.predicted_se, "ci_low": lo, "ci_high": hi}
        where = group(head)
        (insert.setdefault(last[where], []) if where in last else tail).append(row)
        records.append({
            "params": head, "kind": "bp-predicted", "value": got.predicted, "interval": [lo, hi],
            "realised": got.realised, "realised_stderr": got.realised_se, "trials": got.trials,
            "exact": got.exact, "unconverged": got.unconverged,
            "text": (f"{point[axis]}: BP's predicted detection (mean max posterior, an estimate of "
                     f"the Bayes ceiling) {got.predicted:.4f} ± {got.predicted_se:.4f}; BP's "
                     f"realised detection (ties split) on the {got.trials} spreads of its own that "
                     f"the prediction averages over {got.realised:.4f} (the bp row's detection "
                     f"is on the sweep's spreads); "
                     f"{got.exact} exact posteriors, {got.unconverged} unconverged"),
        })
    out: list[dict[str, Any]] = []
    for i, r in enumerate(table.rows):
        out.append(r)
        out.extend(insert.get(i, []))
    out.extend(tail)
    return dataclasses.replace(table, rows=out, derived=(*table.derived, *records),
                               skipped=(*table.skipped, *skipped))
