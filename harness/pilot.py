"""What a run will cost, before it runs: a small timed pilot.

Estimators differ by orders of magnitude (milliseconds for the message-passing ones,
seconds per snapshot for simulation-based ones, a training of seconds to minutes for a
learned one), and the node-visit estimate of :mod:`spread.limits` sees only the spreads.
An experiment with :attr:`~harness.Experiment.pilot` set (the ``detection`` sweep) is
therefore piloted before it starts:

* every (point, estimator) -- for a paired experiment, every value of the paired axis
  at every group of points; else every point -- runs a few trials in this process,
  timed: 1, then 2, 4, ... more while the pilot of that pair has taken less than
  :data:`PILOT_SECONDS` (so at least one trial, at most :data:`PILOT_TRIALS`, and never
  more than the point will run). The pilot draws from its own streams; its results are
  thrown away and the run's are the same with or without it;
* an estimator priced rather than timed (:attr:`~harness.Experiment.price`: soft-margin,
  whose one trial can take minutes) is never run: its row is the price of the point's
  trials (its distinct candidates x its runs at the cap x a timed round of a few
  candidates, :func:`adversaries.soft_margin_cost`), ``"pilot_trials"`` 0 and
  ``"priced"`` saying what the price rests on (:mod:`harness.budget` skips the points
  priced above the run's budget before the pilot);
* one-off work (:attr:`~harness.Experiment.prepare`: the learned adversary's training)
  is estimated by its own scaled-down pilot (``prepare(points, pilot=True)``);
* what a point's trials share and a process keeps (:attr:`~harness.Experiment.warm`: the
  contact graph, read or generated once per process) is built before any trial is
  timed and counted once per worker, not in the seconds per trial;
* the run's CPU time is the sum over points of trials x the seconds per trial of each
  of its estimators, plus the one-off work; its wall time on ``workers`` workers is the
  one-off work (done once: in the run's own process, or as tasks shared by the workers
  of a process pool when the experiment's ``prepare`` takes the executor) plus the
  trials' CPU time over the workers (at least the longest batch).

An estimator is piloted on its own, simulating its own spreads, while a run's estimators
share the spreads of a point: where simulation dominates, the estimate counts the spreads
once per estimator. Derived points (``strongest``, ``ceiling``) run no trials and are not
piloted.

:func:`pilot_estimate` returns a :class:`CostEstimate`; :func:`harness.run` prints its
:meth:`~CostEstimate.summary` as the first line and refuses a run whose CPU estimate,
counted at :data:`VISITS_PER_SECOND`, is above the work limit of :mod:`spread.limits`
(``ANONSPREAD_MAX_WORK``); :func:`harness.estimate_cost` and ``--dry-run`` stop there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonspread.harness.progress import format_seconds
from anonspread.spread.limits import check_size

__all__ = [
    "PILOT_SECONDS",
    "PILOT_TRIALS",
    "VISITS_PER_SECOND",
    "CostEstimate",
    "check_estimate",
    "pilot_estimate",
]

#: A (point, estimator) pair's pilot stops adding trials once it has taken this long.
PILOT_SECONDS = 0.05
#: Most pilot trials of one (point, estimator) pair.
PILOT_TRIALS = 16
#: How a pilot's CPU seconds are compared with the work limit (node visits) of
#: :mod:`spread.limits`: the slow end of the compiled kernels' pace that limit is sized by,
#: so the default limit (1e12) allows about 28 CPU-hours.
VISITS_PER_SECOND = 1e7
#: Entropy of the pilot's streams (independent of the run's seed: the pilot's draws are
#: thrown away).
_PILOT_ENTROPY = 0x5EED_C057


@dataclass(frozen=True)
class CostEstimate:
    """A run's cost as a pilot measured it.

    Parameters
    ----------
    experiment : str
        The run's name.
    rows : list of dict
        One per (point, estimator) pair: ``"params"`` (the point, the estimator's
        value on the paired axis), ``"label"`` (the estimator's, or the point's, name),
        ``"trials"`` (that the run does), ``"pilot_trials"``, ``"seconds_per_trial"``
        (elapsed) and ``"cpu_per_trial"`` (CPU time of this process); a priced pair
        (:attr:`~harness.Experiment.price`) has ``"pilot_trials"`` 0, ``"priced"``,
        what its price rests on, and ``"least_per_trial"``, its lower bound.
    one_off : mapping of str to list of float
        Estimated elapsed seconds of the run's one-off work by label, one per item.
    cpu_seconds : float
        CPU time of the trials and the one-off work (from the pilot's CPU times).
    wall_seconds : float
        Elapsed time on ``workers`` workers: the one-off work, then the trials' elapsed
        time shared by the workers (at least the longest batch); the workers' start is
        not counted. Measured on this machine as loaded as it is during the pilot.
    workers : int
        The executor's workers.
    executor : str
        Its description.
    pilot_seconds : float
        What the pilot took.
    batch_size : int
        Trials per batch of the run.
    notes : sequence of str
        What the estimate does not see (printed by :meth:`format_text`).
    cpu_seconds_least, wall_seconds_least : float or None
        The same with every priced pair at its lower bound (soft-margin: every snapshot
        stopping after the two rounds it needs at the soonest, ``"least_per_trial"`` of its
        rows) instead of its price at the cap; None: as ``cpu_seconds`` and
        ``wall_seconds``. :meth:`summary` gives the range where they differ.
    unpriced : sequence of str
        Work of the run that no pilot can price, not in the CPU and wall time (the
        detection sweep's ``ceiling`` points, computed after the trials:
        :attr:`~harness.Experiment.derived_cost`); :meth:`summary` says it is not counted.

    Examples
    --------
    >>> est = CostEstimate("demo", [{"params": {"T": 2}, "label": "ml", "trials": 100,
    ...     "pilot_trials": 8, "seconds_per_trial": 0.002, "cpu_per_trial": 0.002}], {}, 0.2, 0.1, 2,
    ...     "processes(workers=2)", 0.02, 100)
    >>> print(est.summary())
    demo: pilot estimate (1 (point, estimator) pairs x 8 trials each, 0.0 s): per trial ml 2 ms; run ~200 ms CPU, ~100 ms wall on processes(workers=2)
    """

    experiment: str
    rows: Sequence[Mapping[str, Any]]
    one_off: Mapping[str, Sequence[float]]
    cpu_seconds: float
    wall_seconds: float
    workers: int
    executor: str
    pilot_seconds: float
    batch_size: int
    notes: Sequence[str] = field(default_factory=tuple)
    cpu_seconds_least: float | None = None
    wall_seconds_least: float | None = None
    unpriced: Sequence[str] = field(default_factory=tuple)

    def per_label(self) -> dict[str, tuple[float, float, float]]:
        """Per estimator: (least, largest elapsed seconds per trial over its points, CPU
        seconds of its trials in the run)."""
        out: dict[str, list[float]] = {}
        for r in self.rows:
            lo_hi = out.setdefault(r["label"], [float("inf"), 0.0, 0.0])
            lo_hi[0] = min(lo_hi[0], r["seconds_per_trial"])
            lo_hi[1] = max(lo_hi[1], r["seconds_per_trial"])
            lo_hi[2] += r["cpu_per_trial"] * r["trials"]
        return {k: (v[0], v[1], v[2]) for k, v in out.items()}

    def summary(self) -> str:
        """One line: the pilot's size, seconds per trial of each estimator (range over the
        points), the one-off work, and the run's CPU and wall time."""
        sizes = [r["pilot_trials"] for r in self.rows if "priced" not in r] or [0]
        size = (f"{min(sizes)}" if min(sizes, default=0) == max(sizes, default=0)
                else f"{min(sizes, default=0)}-{max(sizes, default=0)}")
        parts = []
        for label, (lo, hi, _) in self.per_label().items():
            parts.append(f"{label} {format_seconds(lo)}" + (f"-{format_seconds(hi)}" if format_seconds(hi) != format_seconds(lo) else ""))
        once = "; ".join(f"{label} {len(v)} x ~{format_seconds(min(v))}" + (f"-{format_seconds(max(v))}" if len(v) > 1 else "")
                         + f" ({format_seconds(sum(v))}, once, before the trials)"
                         for label, v in self.one_off.items() if v)
        return (f"{self.experiment}: pilot estimate ({len(self.rows)} (point, estimator) pairs x {size} "
                f"trials each, {self.pilot_seconds:.1f} s): per trial {', '.join(parts) or 'nothing to run'}"
                + (f"; {once}" if once else "")
                + f"; run ~{self._range(self.cpu_seconds_least, self.cpu_seconds)} CPU, "
                f"~{self._range(self.wall_seconds_least, self.wall_seconds)} wall on {self.executor}"
                + (" (priced estimators from every snapshot stopping at its soonest to the cap)"
                   if self._ranged() else "")
                + (f"; not counted, after the trials: {'; '.join(self.unpriced)}" if self.unpriced else ""))

    def _ranged(self) -> bool:
        return any(least is not None and format_seconds(least) != format_seconds(most)
                   for least, most in ((self.cpu_seconds_least, self.cpu_seconds),
                                       (self.wall_seconds_least, self.wall_seconds)))

    @staticmethod
    def _range(least: float | None, most: float) -> str:
        if least is None or format_seconds(least) == format_seconds(most):
            return format_seconds(most)
        return f"{format_seconds(least)}-{format_seconds(most)}"

    def format_text(self) -> str:
        """The summary, then one line per (point, estimator) pair (``--dry-run``), naming
        the parameters that vary."""
        lines = [self.summary()]
        keys = list(dict.fromkeys(k for r in self.rows for k in r["params"]))
        varying = [k for k in keys if len({repr(r["params"].get(k)) for r in self.rows}) > 1] or keys
        for r in self.rows:
            point = ", ".join(f"{k}={r['params'].get(k)}" for k in varying)
            how = (f"priced: {r['priced']}" if "priced" in r
                   else f"after the trials, in this process, as {r['stand_in']}'s trials; "
                   f"pilot: {r['pilot_trials']} trials" if r.get("after")
                   else f"pilot: {r['pilot_trials']} trials")
            lines.append(f"  {point}: {format_seconds(r['seconds_per_trial'])} per trial x {r['trials']} trials "
                         f"= {format_seconds(r['cpu_per_trial'] * r['trials'])} CPU ({how})")
        for label, v in self.one_off.items():
            lines.append(f"  {label}: {len(v)} x, estimated {format_seconds(sum(v))} in all")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __repr__(self) -> str:
        # one line: what :meth:`summary` leads with (the per-point rows are a field)
        return (f"CostEstimate(experiment={self.experiment!r}, rows={len(self.rows)}, "
                f"cpu_seconds={self.cpu_seconds:.3g}, wall_seconds={self.wall_seconds:.3g}, "
                f"executor={self.executor!r}, notes={len(self.notes)})")


def _time_pair(call: Callable[[int, np.random.Generator], Any], most: int,
               rng: np.random.Generator) -> tuple[int, float, float]:
    """Run 1, 2, 4... trials while the pilot has taken under PILOT_SECONDS;
    (trials, elapsed seconds, CPU seconds)."""
    done, took, cpu, n = 0, 0.0, 0.0, 1
    while done < most:
        n = min(n, most - done)
        t0, c0 = time.perf_counter(), time.process_time()
        call(n, rng)
        took += time.perf_counter() - t0
        cpu += time.process_time() - c0
        done += n
        if took >= PILOT_SECONDS:
            break
        n *= 2
    return done, took, cpu


def _warm(exp: Any, points: Sequence[Mapping[str, Any]]) -> tuple[float, float]:
    """Build what the points' trials share (``exp.warm``: their graphs) before any trial is
    timed; (elapsed, CPU seconds) it took. Without it the first timed trial of a point
    would carry the reading of its graph, priced as the cost of every trial."""
    if getattr(exp, "warm", None) is None:
        return 0.0, 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    for point in points:
        exp.warm(dict(point))
    return time.perf_counter() - t0, time.process_time() - c0


def pilot_estimate(exp: Any, points: Sequence[Mapping[str, Any]], trials: Sequence[int], *,
                   groups: Mapping[int, Sequence[tuple[int, Any]]] | None, batch_size: int,
                   workers: int, executor: str, one_off_parallel: bool = False,
                   after: Sequence[tuple[Mapping[str, Any], Mapping[str, Any], int]] = ()
                   ) -> CostEstimate:
    """Time a few trials of every (point, estimator) pair and price the whole run.

    Parameters
    ----------
    exp : Experiment
        The experiment (``trials`` or ``trial`` mode).
    points : sequence of dict
        The points that run trials (derived and skipped ones left out).
    trials : sequence of int
        The run's trials of each point.
    groups : mapping or None
        For a paired experiment, the first point of each group -> its (point, value)
        pairs (the runner's grouping).
    batch_size : int
        Trials per batch of the run.
    workers : int
        The executor's workers.
    executor : str
        Its description.
    one_off_parallel : bool
        The one-off work's pieces run as tasks on the ``workers`` (its elapsed time is
        then at least the longest piece and the total over the workers), not one after
        the other in the run's process.
    after : sequence of (dict, dict, int)
        The derived points computed after the trials in the run's process
        (:attr:`~harness.Experiment.derived_cost`): ``(point, stand_in, trials)``, priced as
        ``trials`` trials of ``stand_in`` (timed here unless a row has timed it), added to
        the CPU and, one process doing them after the trials, to the wall time in full.

    Returns
    -------
    CostEstimate
    """
    started = time.perf_counter()
    fn = getattr(exp, exp.mode)
    prep = exp.prepare(points, True) if exp.prepare is not None else None
    payload = getattr(prep, "payload", None)
    one_off = {k: list(v) for k, v in (getattr(prep, "seconds", None) or {}).items()}
    once_cpu = prep.total_cpu if prep is not None else 0.0
    rows: list[dict[str, Any]] = []
    unit_costs: list[float] = []
    unit_least: list[float] = []  # the same with priced pairs at their lower bound

    price = getattr(exp, "price", None)

    def priced_row(params: Mapping[str, Any], point: Mapping[str, Any], n_trials: int) -> dict | None:
        """The pair's row from the experiment's price (:attr:`Experiment.price`), its
        trials never run; None when it is timed."""
        got = price(dict(params), n_trials, batch_size, True) if price is not None else None
        if got is None or got.get("cpu_s") is None:
            return None
        per = got["cpu_s"] / n_trials
        low = got.get("cpu_min_s")
        least = per if low is None else min(per, low / n_trials)
        return {"params": dict(point), "label": str(got["estimator"]), "trials": n_trials,
                "pilot_trials": 0, "seconds_per_trial": per, "cpu_per_trial": per,
                "least_per_trial": least, "priced": got["text"], "basis": got.get("basis", "")}

    def call_for(params: Mapping[str, Any]) -> Callable[[int, np.random.Generator], Any]:
        if exp.mode == "trials":
            return lambda n, rng: fn(dict(params), n, rng)
        return lambda n, rng: [fn(dict(params), rng) for _ in range(n)]

    warm_wall, warm_cpu = _warm(exp, [points[lead] for lead in groups] if groups is not None else points)
    if payload is not None:
        payload.install()
    try:
        if groups is not None:
            for lead, members in groups.items():
                group_cost = group_least = 0.0
                for j, (q, value) in enumerate(members):
                    params = {**points[lead], exp.paired: (value,)}
                    row = priced_row(params, points[q], trials[q])
                    if row is not None:
                        rows.append(row)
                        group_cost += row["seconds_per_trial"]
                        group_least += row["least_per_trial"]
                        continue
                    rng = np.random.default_rng(np.random.SeedSequence(_PILOT_ENTROPY, spawn_key=(lead, j)))
                    n, took, cpu = _time_pair(call_for(params), min(PILOT_TRIALS, trials[lead]), rng)
                    rows.append({"params": dict(points[q]), "label": str(value), "trials": trials[q],
                                 "pilot_trials": n, "seconds_per_trial": took / n,
                                 "cpu_per_trial": cpu / n})
                    group_cost += took / n
                    group_least += took / n
                unit_costs.append(group_cost * min(batch_size, trials[lead]))
                unit_least.append(group_least * min(batch_size, trials[lead]))
        else:
            for i, point in enumerate(points):
                row = priced_row(point, point, trials[i])
                if row is not None:
                    rows.append(row)
                    unit_costs.append(row["seconds_per_trial"] * min(batch_size, trials[i]))
                    unit_least.append(row["least_per_trial"] * min(batch_size, trials[i]))
                    continue
                rng = np.random.default_rng(np.random.SeedSequence(_PILOT_ENTROPY, spawn_key=(i,)))
                n, took, cpu = _time_pair(call_for(point), min(PILOT_TRIALS, trials[i]), rng)
                label = ", ".join(f"{k}={v}" for k, v in point.items())
                rows.append({"params": dict(point), "label": label, "trials": trials[i],
                             "pilot_trials": n, "seconds_per_trial": took / n,
                             "cpu_per_trial": cpu / n})
                unit_costs.append(took / n * min(batch_size, trials[i]))
                unit_least.append(took / n * min(batch_size, trials[i]))
        after_rows = _time_after(exp, rows, after, call_for, groups is not None)
    finally:
        if payload is not None:
            payload.uninstall()
    trial_wall = sum(r["seconds_per_trial"] * r["trials"] for r in rows)
    trial_cpu = sum(r["cpu_per_trial"] * r["trials"] for r in rows)
    # priced pairs between their lower bound (every snapshot stopping at its soonest) and
    # their price (the cap): the run's range
    spare = sum((r["cpu_per_trial"] - r.get("least_per_trial", r["cpu_per_trial"])) * r["trials"]
                for r in rows)
    trial_wall_least = trial_wall - spare
    after_wall = sum(r["seconds_per_trial"] * r["trials"] for r in after_rows)
    after_cpu = sum(r["cpu_per_trial"] * r["trials"] for r in after_rows)
    rows += after_rows
    once = sum(sum(v) for v in one_off.values())
    if one_off_parallel and workers > 1:  # the pieces run as tasks on the workers
        once = sum(max(sum(v) / workers, max(v, default=0.0)) for v in one_off.values())
    # each worker builds the points' graphs once (in parallel), as the pilot's process did
    wall = (once + warm_wall + max(trial_wall / max(workers, 1), max(unit_costs, default=0.0))
            + after_wall)
    wall_least = (once + warm_wall + max(trial_wall_least / max(workers, 1),
                                         max(unit_least, default=0.0)) + after_wall)
    notes = []
    if after_rows:
        labels = ", ".join(dict.fromkeys(r["label"] for r in after_rows))
        notes.append(f"{labels} computed after the trials, in the run's process: priced as the "
                     "trials of " + ", ".join(dict.fromkeys(r["stand_in"] for r in after_rows))
                     + " at the same points")
    bases: dict[str, list[str]] = {}  # what the priced estimators' prices rest on
    for r in rows:
        if "priced" in r:
            bases.setdefault(r["basis"], [])
            if r["label"] not in bases[r["basis"]]:
                bases[r["basis"]].append(r["label"])
    for basis, labels in bases.items():
        notes.append(f"{', '.join(labels)} priced, not run: {basis}")
    if warm_wall >= 0.1:
        notes.append(f"building the points' graphs took {format_seconds(warm_wall)} ({format_seconds(warm_cpu)} CPU) "
                     "before the timed trials; counted once per worker, not per trial")
    if groups is not None and any(len(m) > 1 for m in groups.values()):
        notes.append("each estimator was piloted on its own spreads; a run's estimators share "
                     "the spreads of a point, so where simulation dominates this over-estimates")
    cpu = trial_cpu + after_cpu + once_cpu + warm_cpu * max(workers, 1)
    return CostEstimate(exp.name, rows, one_off, cpu, wall, workers, executor,
                        time.perf_counter() - started, batch_size, tuple(notes),
                        cpu_seconds_least=cpu - spare, wall_seconds_least=wall_least)


def _time_after(exp: Any, rows: list, after: Sequence[tuple[Mapping[str, Any], Mapping[str, Any], int]],
                call_for: Callable[[Mapping[str, Any]], Callable[[int, np.random.Generator], Any]],
                paired: bool) -> list[dict[str, Any]]:
    """The rows of the derived points computed after the trials: each priced as its trials
    of its stand-in, from a row that timed the stand-in's point, else timed here."""
    out: list[dict[str, Any]] = []
    timed: dict[str, tuple[int, float, float]] = {}
    for r in rows:
        if "priced" not in r:
            timed[repr(sorted(r["params"].items()))] = (r["pilot_trials"], r["seconds_per_trial"],
                                                        r["cpu_per_trial"])
    for k, (point, stand_in, n_trials) in enumerate(after):
        key = repr(sorted(stand_in.items()))
        if key not in timed:
            params = dict(stand_in)
            if paired:  # a paired group's trials take the values as a tuple
                params[exp.paired] = (params[exp.paired],)
            rng = np.random.default_rng(np.random.SeedSequence(_PILOT_ENTROPY, spawn_key=(1 << 20, k)))
            n, took, cpu = _time_pair(call_for(params), min(PILOT_TRIALS, n_trials), rng)
            timed[key] = (n, took / n, cpu / n)
        n, per, cpu = timed[key]
        label = str(point.get(exp.paired)) if paired else ", ".join(f"{a}={b}" for a, b in point.items())
        out.append({"params": dict(point), "label": label, "trials": n_trials, "pilot_trials": n,
                    "seconds_per_trial": per, "cpu_per_trial": cpu, "after": True,
                    "stand_in": str(stand_in.get(exp.paired)) if paired else key})
    return out


def check_estimate(est: CostEstimate, trials: int) -> None:
    """Refuse a run whose pilot-estimated CPU time, at :data:`VISITS_PER_SECOND`, is above
    the work limit (:func:`spread.limits.work_budget`), naming the estimate.

    Parameters
    ----------
    est : CostEstimate
        The pilot's estimate.
    trials : int
        The run's trials per point (the parameter named in the refusal).

    Raises
    ------
    InvalidParameterError
        Naming ``trials``, the estimated CPU time and node visits, and the limit.
    """
    heavy = max(est.per_label().items(), key=lambda kv: kv[1][2], default=None)
    most = f"; most of it {heavy[0]}'s trials, {format_seconds(heavy[1][2])}" if heavy else ""
    check_size("trials", trials, work=est.cpu_seconds * VISITS_PER_SECOND,
               what=(f"the sweep {est.experiment!r} (pilot estimate {format_seconds(est.cpu_seconds)} "
                     f"of CPU{most}, counted at {VISITS_PER_SECOND:.0e} node visits a second)"))
