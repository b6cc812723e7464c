"""How much of the source's component a spread covered, and whether a reach was attained.

The detection experiments report per point ``component_fraction`` (the mean fraction of
the source's connected component infected at the snapshot), ``saturated`` (the share of
trials that covered all of it) and, with a stopping rule by reach (``stop=...``),
``reached`` (the share of trials that attained it by the cap ``T``). Detection where most
of a component is infected says more about having reached everyone than about hiding,
so the end of a run warns, and the figures mark those points:

* **high coverage**: mean ``component_fraction >= HIGH_COVERAGE`` (0.5: most of the
  component holds the message; at 50% a uniform guess among the infected is already at
  most twice as good as one over the whole component, so the protocol's hiding and the
  spread's size can no longer be told apart by the figure alone);
* **reach not attained**: ``reached < 1`` at a point with ``stop=...``: some trials' snapshots
  are at the cap ``T`` below the target (their share is in column ``reached``), so the
  point mixes two reaches; raise ``T``.
"""

from __future__ import annotations

import warnings
from typing import Any

from anonspread.errors import ReachWarning, SaturationWarning

__all__ = ["COVERAGE", "HIGH_COVERAGE", "REACHED", "covered_points", "unreached_points",
           "warn_coverage"]

#: The per-point metric: mean fraction of the source's connected component infected.
COVERAGE = "component_fraction"
#: Mean coverage from which a point is flagged (warning at the end of the run, a mark in
#: the figures): most of the source's component is infected.
HIGH_COVERAGE = 0.5
#: The per-point metric: share of trials that attained the ``stop=...`` reach by ``T``.
REACHED = "reached"


def _points(table: Any, metric: str, keep: Any) -> list[dict[str, Any]]:
    return [{"params": {p: row[p] for p in table.params}, "value": row["mean"]}
            for row in table.rows if row["metric"] == metric and keep(row["mean"])]


def covered_points(table: Any, threshold: float = HIGH_COVERAGE) -> list[dict[str, Any]]:
    """The points whose mean coverage of the source's component is ``>= threshold``.

    Parameters
    ----------
    table : Table
        Aggregated results.
    threshold : float, default :data:`HIGH_COVERAGE`
        The mean ``component_fraction`` from which a point is listed.

    Returns
    -------
    list of dict
        ``{"params": point, "value": mean coverage}`` each.

    Examples
    --------
    >>> from anonspread.harness.results import Table
    >>> t = Table(params=("T",), param_types={"T": "int"}, rows=[
    ...     {"T": 2, "metric": "component_fraction", "mean": 0.2},
    ...     {"T": 4, "metric": "component_fraction", "mean": 0.5}])
    >>> covered_points(t)
    [{'params': {'T': 4}, 'value': 0.5}]
    """
    return _points(table, COVERAGE, lambda v: v == v and v >= threshold)


def unreached_points(table: Any) -> list[dict[str, Any]]:
    """The points where some trials did not attain their ``stop=...`` reach by ``T``.

    Parameters
    ----------
    table : Table
        Aggregated results.

    Returns
    -------
    list of dict
        ``{"params": point, "value": share of trials that attained it}`` each.

    Examples
    --------
    >>> from anonspread.harness.results import Table
    >>> t = Table(params=("stop",), param_types={"stop": "str"}, rows=[
    ...     {"stop": "infected:10", "metric": "reached", "mean": 1.0},
    ...     {"stop": "infected:900", "metric": "reached", "mean": 0.25}])
    >>> unreached_points(t)
    [{'params': {'stop': 'infected:900'}, 'value': 0.25}]
    """
    return _points(table, REACHED, lambda v: v == v and v < 1.0)


def _describe(found: list[dict[str, Any]], table: Any, paired: str | None, what: str) -> str:
    varying = [p for p in table.params if len({repr(r[p]) for r in table.rows}) > 1 and p != paired]
    # the points of a paired group share their spreads: name each group once
    found = list({tuple((p, repr(f["params"][p])) for p in varying): f for f in found}.values())
    parts = [(", ".join(f"{p}={f['params'][p]}" for p in varying) or "the one point")
             + f" ({what} {f['value'] * 100:.3g}%)" for f in found[:3]]
    more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
    return f"{len(found)} point(s) ({'; '.join(parts)}{more})"


def warn_coverage(name: str, table: Any, paired: str | None = None) -> None:
    """Warn once per run about points of high coverage and points whose reach was not
    attained (see the module docstring).

    Parameters
    ----------
    name : str
        The experiment's name (starts the message).
    table : Table
        Aggregated results.
    paired : str, optional
        The paired axis (its points share their spreads: named once).

    Examples
    --------
    >>> import warnings
    >>> from anonspread.harness.results import Table
    >>> t = Table(params=("T",), param_types={"T": "int"}, rows=[{"T": 8, "metric": "component_fraction", "mean": 0.9}])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_coverage("demo", t)
    >>> str(caught[0].message)[:60]
    'demo: at 1 point(s) (the one point (mean coverage 90%)) spre'
    """
    found = covered_points(table)
    if found:
        warnings.warn(
            f"{name}: at {_describe(found, table, paired, 'mean coverage')} spreads infected "
            f"most (>= {HIGH_COVERAGE:.0%} on average) of the part of the graph connected to "
            "their source; "
            "there detection mixes hiding with having reached nearly everyone (column "
            f"'{COVERAGE}'; compare at equal reach with stop=infected:K or stop=coverage:F)",
            SaturationWarning,
            stacklevel=3,
        )
    found = unreached_points(table)
    if found:
        warnings.warn(
            f"{name}: at {_describe(found, table, paired, 'reached in')} not every trial "
            "attained the stop=... reach by the cap T; those trials' snapshots are at T, "
            f"below the target (column '{REACHED}'); raise T",
            ReachWarning,
            stacklevel=3,
        )
