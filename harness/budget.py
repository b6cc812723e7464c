"""The per-point budget of priced estimators: a sweep point that would run for hours is
skipped before anything runs, with its price and how to allow it.

Most estimators cost milliseconds a trial, and the pilot (:mod:`harness.pilot`) times a
few trials of each. A simulation-based estimator (soft-margin) costs, at a point, the
simulations of each distinct candidate of the point's trials, up to its ``max_simulations``
runs each: minutes to hours on a graph of a few hundred nodes where no run reproduces
the snapshots (random diffusion covering the graph), and one trial of it is no pilot.
Such an estimator is *priced* instead (:attr:`Experiment.price`; the detection sweep
prices the estimators registered with a ``price``, :func:`adversaries.soft_margin_cost`):
from a sample of the point's spreads (drawn from a stream seeded by the point), its
distinct candidates x its runs at the cap x the CPU time of one run scored against its
snapshots, timed on a few candidates. :func:`harness.run` skips a point priced above
``estimator_budget`` CPU seconds (``--estimator-budget``; default :data:`ESTIMATOR_BUDGET`),
naming its price and how to allow it, under the table, in the JSON's skipped points and
under the figure, as a point that does not apply is. A budget of ``inf`` runs every point
(and prices none). The points skipped are recorded in the run's journal, so that a
resumed run skips the same ones whatever its own timing would say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.harness.progress import format_seconds

__all__ = ["ESTIMATOR_BUDGET", "check_budget", "over_budget"]

#: Default most CPU seconds (priced at :data:`harness.pilot.VISITS_PER_SECOND`) a priced
#: estimator may take at one sweep point: 10 minutes.
ESTIMATOR_BUDGET = 600.0

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def check_budget(value: Any, name: str = "estimator_budget") -> float:
    """A budget in CPU seconds: a positive number, ``inf``, or a string ``"90"``,
    ``"30m"``, ``"2h"``, ``"1d"``, ``"inf"``.

    Parameters
    ----------
    value : float, int or str
    name : str
        The parameter named in an error.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        Not positive, NaN, or an unknown unit.

    Examples
    --------
    >>> check_budget("30m"), check_budget(90), check_budget("inf")
    (1800.0, 90.0, inf)
    """
    if isinstance(value, bool):
        raise InvalidTypeError(f"{name} must be a number of CPU seconds or a duration such as '30m'; got {value!r}")
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("inf", "infinity", "none"):
            return math.inf
        match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-z]*)", text)
        if match is None or match.group(2) not in _UNITS:
            raise InvalidParameterError(
                f"{name} must be CPU seconds or a duration ('90', '30m', '2h', '1d', 'inf'); got {value!r}")
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    elif isinstance(value, (int, float)):
        seconds = float(value)
    else:
        raise InvalidTypeError(f"{name} must be a number of CPU seconds or a duration such as '30m'; got {value!r}")
    if not seconds > 0:
        raise InvalidParameterError(f"{name} must be positive (CPU seconds, or 'inf' for no budget); got {value!r}")
    return seconds


def over_budget(price: Any, points: Sequence[Mapping[str, Any]], trials: Sequence[int],
                batch_size: int, budget: float) -> tuple[list[int], list[dict[str, Any]]]:
    """The points to run and those a priced estimator's budget skips.

    Parameters
    ----------
    price : callable
        :attr:`Experiment.price` (``price(point, trials, batch_size, timed)``), called
        with ``timed=True``.
    points : sequence of dict
        The points (those that apply).
    trials : sequence of int
        Trials of each point.
    batch_size : int
        Trials per batch.
    budget : float
        Most CPU seconds per point (``inf``: no point is skipped, none is priced).

    Returns
    -------
    (list of int, list of dict)
        The indices of the points kept, and ``{"params", "reason", "short"}`` of each skipped
        one (``short``: the reason without the point's price, for figures).

    Examples
    --------
    >>> def price(point, trials, batch_size, timed):
    ...     return {"estimator": "sim", "cpu_s": 0.5 * point["T"] * trials, "text": "runs"}
    >>> kept, skipped = over_budget(price, [{"T": 1}, {"T": 100}], [10, 10], 10, 60.0)
    >>> kept, skipped[0]["reason"].split(":")[0]
    ([0], 'sim not run')
    """
    if math.isinf(budget):
        return list(range(len(points))), []
    kept, skipped = [], []
    for i, point in enumerate(points):
        got = price(dict(point), int(trials[i]), batch_size, True)
        seconds = None if got is None else got["cpu_s"]
        if seconds is None or seconds <= budget:
            kept.append(i)
            continue
        ask = math.ceil(2 * seconds)  # a timed price: room for the machine's load
        low = got.get("cpu_min_s")
        low = f", ~{format_seconds(low)} if all of them do" if low is not None and low < seconds else ""
        skipped.append({"params": dict(point), "reason": (
            f"{got['estimator']} not run: priced at ~{format_seconds(seconds)} of CPU for its "
            f"{trials[i]} trials ({got['text']}; {got.get('caveat', 'an estimate')}{low}), above the "
            f"budget of {format_seconds(budget)} per point; to run it, raise "
            f"the budget, e.g. --estimator-budget {ask} (estimator_budget={ask} in Python)"),
            # what a figure's title says: the same for every point the budget skips
            "short": (f"{got['estimator']} priced above the estimator budget of "
                      f"{format_seconds(budget)} of CPU per point; its price per point is in the "
                      "run's output and JSON")})
    return kept, skipped
