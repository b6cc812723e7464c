"""Units of work: (point, batch) pairs, their random streams, and the task workers run.

The trials of each parameter point are cut into batches of ``batch_size``.  Each
(point, batch) *unit* draws from its own stream,
``SeedSequence(entropy, spawn_key=(point, batch))``, so its result depends only
on the seed, the grid and the batch size: never on which worker, which executor
or in which order it runs.  Units are grouped into *tasks* (chunks) only to keep
the per-task overhead of an executor small; grouping does not touch the
streams.
"""

from __future__ import annotations

import contextvars
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.harness.errors import TrialError
from anonspread.harness.grid import Scalar
from anonspread.harness.stats import Moments

__all__ = [
    "Preparation",
    "Task",
    "Unit",
    "UnitResult",
    "chunk",
    "plan_units",
    "reissue_warnings",
    "run_task",
    "task_threads",
    "unit_stream",
]


@dataclass(frozen=True)
class Unit:
    """Batch ``batch`` of parameter point ``point``: ``n`` trials (1 for exact ones).

    Parameters
    ----------
    point : int
        Index of the grid point (:func:`harness.expand` order).
    batch : int
        Index of the batch within the point; with ``point`` it keys the unit's
        random stream (:func:`unit_stream`).
    n : int
        Trials in the batch.
    """

    point: int
    batch: int
    n: int


@dataclass(frozen=True)
class UnitResult:
    """What a finished unit reports: per-metric :class:`~harness.stats.Moments`.

    Parameters
    ----------
    point, batch, n : int
        As in :class:`Unit`.
    moments : mapping of str to Moments
        One entry per metric.
    seconds : float
        Compute time of the batch (progress estimates only; journaled beside the results,
        outside their checksum, and never compared).
    warnings : tuple
        The warnings the task issued, ``(category, message, filename, lineno)`` each,
        issued again in the run's process (:func:`reissue_warnings`); never journaled.

    Examples
    --------
    The journal line of a unit reads back to the same unit:

    >>> from anonspread.harness.stats import Moments
    >>> r = UnitResult(0, 1, 100, {"heads": Moments(100, 0.29, 20.59)})
    >>> r.to_json()
    {'point': 0, 'batch': 1, 'n': 100, 'moments': {'heads': [100, 0.29, 20.59]}}
    >>> UnitResult.from_json(r.to_json()) == r
    True
    """

    point: int
    batch: int
    n: int
    moments: Mapping[str, Moments]
    #: Compute time of the batch (progress estimates only; journaled, never compared).
    seconds: float = field(default=0.0, compare=False)
    #: Warnings the task issued while it ran, ``(category, message, filename, lineno)``
    #: each, carried to the run's own process and issued there (:func:`reissue_warnings`):
    #: a worker's warnings are formatted and filtered like the parent's. Not journaled.
    warnings: tuple = field(default=(), compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (floats survive a round trip exactly)."""
        return {
            "point": self.point,
            "batch": self.batch,
            "n": self.n,
            "moments": {k: [m.n, m.mean, m.m2] for k, m in self.moments.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UnitResult:
        """Inverse of :meth:`to_json`.

        Parameters
        ----------
        data : mapping
            A record written by :meth:`to_json`.

        Returns
        -------
        UnitResult
        """
        return cls(
            point=int(data["point"]),
            batch=int(data["batch"]),
            n=int(data["n"]),
            moments={k: Moments(int(v[0]), float(v[1]), float(v[2])) for k, v in data["moments"].items()},
            seconds=_seconds(data.get("seconds")),
        )

    def __repr__(self) -> str:
        return (f"UnitResult(point={self.point}, batch={self.batch}, n={self.n}, "
                f"metrics={len(self.moments)}, seconds={self.seconds:.3g})")


def _seconds(value: Any) -> float:
    """A journaled compute time, or 0.0 (unknown) when absent or not a finite non-negative number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    v = float(value)
    return v if math.isfinite(v) and v >= 0 else 0.0


@dataclass(frozen=True)
class Task:
    """A chunk of units shipped to one worker (picklable when ``fn`` is importable).

    Parameters
    ----------
    experiment : str
        The experiment's name (for error messages).
    mode : {"trial", "trials", "evaluate"}
        How ``fn`` is called.
    fn : callable
        The experiment's compute function.
    metrics : tuple of str
        The metrics ``fn`` must return.
    proportions : tuple of str
        Those whose values must lie in [0, 1].
    entropy : int
        The run's root seed entropy.
    units : tuple of Unit
        The units to run.
    params : tuple of dict
        The parameter point of each unit.
    paired : str or None
        For a paired experiment (:attr:`harness.Experiment.paired`), the paired axis.
    members : tuple
        For a paired experiment, per unit the (point, value) pairs of its group; the
        unit is the group's first point.
    preload : object or None
        What the worker installs (``install()``) before running the units: the run's
        :class:`Preparation` payload, for an executor that cannot install it once per
        worker (:meth:`harness.Executor.preload`).
    threads : int
        Threads the task's OpenMP kernels may use (``harness.run(threads=)``):
        :func:`task_threads` while the task runs.

    Examples
    --------
    >>> def heads(params, rng):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> task = Task(experiment="coin", mode="trial", fn=heads, metrics=("heads",),
    ...             proportions=("heads",), entropy=7, units=(Unit(0, 0, 100),),
    ...             params=({"p": 0.3},))
    >>> [r.moments["heads"].mean for r in run_task(task)]
    [0.29]
    """

    experiment: str
    mode: str
    fn: Callable[..., Mapping[str, Any]]
    metrics: tuple[str, ...]
    proportions: tuple[str, ...]
    entropy: int
    units: tuple[Unit, ...]
    params: tuple[Mapping[str, Scalar], ...]
    #: For a paired experiment (:attr:`harness.Experiment.paired`): the paired axis, and
    #: per unit the (point, value) pairs of its group; the unit is the group's first point.
    paired: str | None = None
    members: tuple[tuple[tuple[int, Scalar], ...], ...] = ()
    #: What the worker installs before running the units (:class:`Preparation`'s payload),
    #: only for executors that cannot install it once per worker (then it travels with
    #: every task; installing is idempotent).
    preload: Any = None
    #: Threads the task's OpenMP kernels may use (``harness.run(threads=)``, ``--threads``):
    #: :func:`task_threads` while the task runs.
    threads: int = 1


@dataclass(frozen=True)
class Preparation:
    """What an experiment's one-off work (:attr:`harness.Experiment.prepare`) hands the run.

    Parameters
    ----------
    payload : object or None
        Picklable, with ``install()`` (and ``uninstall()``): what every worker installs
        once, before its first task (the learned adversary's trained models,
        :class:`adversaries.learned.TrainedModels`); None: nothing to install.
    seconds : mapping of str to list of float
        The seconds of the work by label, one entry per item (per trained model, say):
        measured, or, from a pilot (``prepare(points, pilot=True)``), the estimate of the
        full work.
    estimated : bool
        Whether ``seconds`` are a pilot's estimates.
    cpu : mapping of str to list of float
        The CPU seconds of the same items (default: ``seconds``).

    Examples
    --------
    >>> prep = Preparation(None, {"learned training": [2.0, 3.5]})
    >>> prep.total
    5.5
    """

    payload: Any = None
    seconds: Mapping[str, Sequence[float]] = field(default_factory=dict)
    estimated: bool = False
    cpu: Mapping[str, Sequence[float]] | None = None

    @property
    def total(self) -> float:
        """Seconds of all the work (it runs in the run's own process, one item at a time)."""
        return float(sum(sum(v) for v in self.seconds.values()))

    @property
    def total_cpu(self) -> float:
        """CPU seconds of all the work (``seconds`` when ``cpu`` is not given)."""
        return float(sum(sum(v) for v in (self.seconds if self.cpu is None else self.cpu).values()))


#: Most batches one run may plan (each is a task entry and a journal line).
MAX_UNITS = 1_000_000
#: Most trials one run may ask for (over all points).
MAX_TRIALS = 10**11


def plan_units(n_points: int, trials: int | Sequence[int], batch_size: int, *, exact: bool) -> list[Unit]:
    """All units of a run in canonical (point, batch) order.

    ``trials`` is the number of trials of every point, or a sequence with one number per
    point (:attr:`harness.Experiment.point_trials`).

    Parameters
    ----------
    n_points : int
        Points of the grid.
    trials : int or sequence of int
        Trials per point.
    batch_size : int
        Most trials per unit.
    exact : bool
        One unit of one evaluation per point (``trials`` and ``batch_size`` unused).

    Returns
    -------
    list of Unit

    Raises
    ------
    InvalidParameterError
        The run would need more than :data:`MAX_UNITS` batches or :data:`MAX_TRIALS`
        trials (refused before anything is allocated).

    Examples
    --------
    >>> [(u.point, u.batch, u.n) for u in plan_units(2, 450, 200, exact=False)]
    [(0, 0, 200), (0, 1, 200), (0, 2, 50), (1, 0, 200), (1, 1, 200), (1, 2, 50)]
    """
    counts = [trials] * n_points if isinstance(trials, int) else [int(t) for t in trials]
    if not isinstance(trials, int):
        trials = max(counts, default=0)
    if not exact:
        count = sum(-(-c // batch_size) for c in counts)
        if count > MAX_UNITS:
            raise InvalidParameterError(
                f"trials must make at most {MAX_UNITS} batches; got trials={trials} in batches of "
                f"{batch_size} over {n_points} points: {count} batches (raise --batch-size or "
                "lower --trials)"
            )
        if sum(counts) > MAX_TRIALS:
            raise InvalidParameterError(
                f"trials must total at most {MAX_TRIALS:.0e} over the grid; got trials={trials} "
                f"over {n_points} points: {sum(counts):.3g} trials"
            )
    if exact:
        return [Unit(p, 0, 1) for p in range(n_points)]
    units = []
    for p in range(n_points):
        done, b = 0, 0
        while done < counts[p]:
            n = min(batch_size, counts[p] - done)
            units.append(Unit(p, b, n))
            done, b = done + n, b + 1
    return units


def chunk(units: Sequence[Unit], workers: int, *, max_units: int = 64) -> list[list[Unit]]:
    """Deal units into chunks: about 8 per worker, at most ``max_units`` each.

    Small chunks keep the journal and progress bar fresh and bound what an
    interruption loses; not too many keeps the per-task overhead small. Units are dealt
    round-robin rather than cut into contiguous runs, because neighbouring grid points
    tend to cost alike (the largest T of a sweep, say): contiguous chunks put all the
    expensive units on one worker. Results do not depend on the chunking.

    Parameters
    ----------
    units : sequence of Unit
        The units to deal.
    workers : int
        The executor's workers.
    max_units : int
        Most units in one chunk.

    Returns
    -------
    list of list of Unit
    """
    if not units:
        return []
    n_chunks = max(8 * max(1, workers), math.ceil(len(units) / max_units))
    n_chunks = min(len(units), n_chunks)
    return [list(units[i::n_chunks]) for i in range(n_chunks)]


def unit_stream(entropy: int, point: int, batch: int) -> np.random.Generator:
    """The independent random stream of unit (point, batch).

    Parameters
    ----------
    entropy : int
        The run's root seed entropy.
    point, batch : int
        The unit.

    Returns
    -------
    numpy.random.Generator
        Seeded by ``SeedSequence(entropy, spawn_key=(point, batch))``: the same for a
        unit whatever the executor, the chunking or the other units.
    """
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(point, batch)))


def _where(task: Task, params: Mapping[str, Scalar]) -> str:
    return f"experiment {task.experiment!r} at {dict(params)}"


def _collect(task: Task, params: Mapping[str, Scalar], out: Any, n: int | None) -> dict[str, np.ndarray]:
    """Check a trial's output has exactly the declared metrics, as arrays of length n."""
    if not isinstance(out, Mapping):
        raise TrialError(f"{_where(task, params)}: {task.mode} must return a dict; got {type(out).__name__}")
    keys = set(out)
    if keys != set(task.metrics):
        raise TrialError(
            f"{_where(task, params)}: {task.mode} returned metrics {sorted(keys)}; "
            f"declared {sorted(task.metrics)}"
        )
    arrays = {}
    for name in task.metrics:
        arr = np.asarray(out[name], dtype=float).reshape(-1)
        if n is not None and arr.shape[0] != n:
            raise TrialError(
                f"{_where(task, params)}: metric {name!r} has {arr.shape[0]} values; expected {n}"
            )
        arrays[name] = arr
    return arrays


def _check_values(task: Task, params: Mapping[str, Scalar], arrays: Mapping[str, np.ndarray]) -> None:
    for name, arr in arrays.items():
        if not np.all(np.isfinite(arr)):
            raise TrialError(f"{_where(task, params)}: metric {name!r} has non-finite values")
        if name in task.proportions and (arr.min() < 0 or arr.max() > 1):
            raise TrialError(
                f"{_where(task, params)}: proportion metric {name!r} has values outside [0, 1]"
            )


def _run_group(task: Task, unit: Unit, params: Mapping[str, Scalar],
               members: Sequence[tuple[int, Scalar]]) -> list[UnitResult]:
    """One batch of a paired group: one call, one :class:`UnitResult` per member point."""
    rng = unit_stream(task.entropy, unit.point, unit.batch)
    values = tuple(v for _, v in members)
    out = task.fn({**params, task.paired: values}, unit.n, rng)
    if not isinstance(out, Mapping) or set(out) != set(values):
        got = sorted(map(str, out)) if isinstance(out, Mapping) else type(out).__name__
        raise TrialError(
            f"{_where(task, params)}: a paired trials must return one dict of metrics per "
            f"{task.paired} value {list(values)}; got {got}"
        )
    results = []
    for point, value in members:
        where = {**params, task.paired: value}
        arrays = _collect(task, where, out[value], unit.n)
        _check_values(task, where, arrays)
        results.append(UnitResult(point, unit.batch, unit.n, {k: Moments.of(v) for k, v in arrays.items()}))
    return results


def _run_unit(task: Task, unit: Unit, params: Mapping[str, Scalar]) -> UnitResult:
    if task.mode == "evaluate":
        arrays = _collect(task, params, task.fn(dict(params)), 1)
        moments = {k: Moments(1, float(v[0]), 0.0) for k, v in arrays.items()}
        return UnitResult(unit.point, unit.batch, 1, moments)
    rng = unit_stream(task.entropy, unit.point, unit.batch)
    if task.mode == "trials":
        arrays = _collect(task, params, task.fn(dict(params), unit.n, rng), unit.n)
    else:
        rows = [_collect(task, params, task.fn(dict(params), rng), 1) for _ in range(unit.n)]
        arrays = {k: np.concatenate([r[k] for r in rows]) for k in task.metrics}
    _check_values(task, params, arrays)
    return UnitResult(unit.point, unit.batch, unit.n, {k: Moments.of(v) for k, v in arrays.items()})


def run_task(task: Task) -> list[UnitResult]:
    """Run every unit of a task (this is what executors ship to workers).

    Parameters
    ----------
    task : Task
        The units and how to compute them.

    Returns
    -------
    list of UnitResult
        One per unit (per member point, for a paired experiment).
    """
    out: list[UnitResult] = []
    if task.preload is not None:
        task.preload.install()
    token = _THREADS.set(task.threads)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # every one recorded; the parent's filters decide
            if task.paired is not None:
                for u, p, m in zip(task.units, task.params, task.members):
                    t0 = time.perf_counter()
                    group = _run_group(task, u, p, m)
                    share = (time.perf_counter() - t0) / max(len(group), 1)
                    out += [replace(r, seconds=share) for r in group]
            else:
                for u, p in zip(task.units, task.params):
                    t0 = time.perf_counter()
                    r = _run_unit(task, u, p)
                    out.append(replace(r, seconds=time.perf_counter() - t0))
        if caught and out:
            out[-1] = replace(out[-1], warnings=tuple(
                (w.category, str(w.message), w.filename, w.lineno) for w in caught))
        return out
    finally:
        _THREADS.reset(token)


def reissue_warnings(results: Sequence[UnitResult]) -> None:
    """Issue in this process the warnings that :func:`run_task` recorded with ``results``
    (in a pool or Dask worker, or in process): shown and filtered as this process's are.

    Parameters
    ----------
    results : sequence of UnitResult

    Examples
    --------
    >>> import warnings
    >>> r = UnitResult(0, 0, 1, {}, warnings=((UserWarning, "spread too wide", "x.py", 3),))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     reissue_warnings([r])
    >>> [str(w.message) for w in caught]
    ['spread too wide']
    """
    for r in results:
        for category, message, filename, lineno in r.warnings:
            warnings.warn_explicit(message, category, filename, lineno)


#: The running task's threads for OpenMP kernels (set by :func:`run_task` for the task's
#: duration only: the run's option travels with the task, never as process-wide state).
_THREADS: contextvars.ContextVar[int] = contextvars.ContextVar("anonspread_task_threads", default=1)


def task_threads() -> int:
    """Threads the OpenMP kernels of the task running now may use (``harness.run(threads=)``,
    ``anonspread run --threads``); 1 outside a task.

    Returns
    -------
    int

    Examples
    --------
    >>> def probe(params, rng):
    ...     return {"threads": float(task_threads())}
    >>> task = Task(experiment="probe", mode="trial", fn=probe, metrics=("threads",),
    ...             proportions=(), entropy=7, units=(Unit(0, 0, 2),), params=({},), threads=3)
    >>> [r.moments["threads"].mean for r in run_task(task)], task_threads()
    ([3.0], 1)
    """
    return _THREADS.get()
