"""Running an experiment: plan the units, skip journaled ones, execute, aggregate, write.

:func:`run` is the Python entry point behind ``anonspread run`` and
``anonspread sweep``::

    grid -> points -> units (point, batch) -> tasks (chunks) -> executor
         -> journal (each finished unit) -> tidy table -> CSV + JSON + PNG
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import numbers
import os
import platform
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError, SaturationWarning
from anonspread.harness.budget import ESTIMATOR_BUDGET, check_budget, over_budget
from anonspread.harness.coverage import covered_points, unreached_points, warn_coverage
from anonspread.harness.errors import OutputError, RunInterrupted
from anonspread.harness.executors import Executor, default_workers, make_executor
from anonspread.harness.experiment import (
    Experiment,
    axis_params,
    check_experiment,
    prepare_takes_executor,
    with_overrides,
)
from anonspread.harness.grid import Scalar, expand, grid_size
from anonspread.harness.journal import Journal, check_units
from anonspread.harness.pilot import CostEstimate, check_estimate, pilot_estimate
from anonspread.harness.progress import Progress, format_duration
from anonspread.harness.registry import get_experiment
from anonspread.harness.results import (
    Table,
    aggregate,
    atomic_write,
    check_replaceable,
    dumps_sidecar,
)
from anonspread.harness.work import (
    Task,
    Unit,
    UnitResult,
    chunk,
    plan_units,
    reissue_warnings,
    run_task,
)
from anonspread.spread.limits import check_size, work_budget
from anonspread.validation import check_int, check_real

__all__ = ["RunResult", "estimate_cost", "output_paths", "resolve_seed", "run"]


@dataclass(frozen=True, repr=False)
class RunResult:
    """What :func:`run` returns.

    Parameters
    ----------
    experiment : Experiment
        As run (with ``--set`` overrides applied to its grid).
    table : Table
        The tidy results.
    paths : dict
        ``"csv"``, ``"json"``, ``"journal"`` and, when plotted, ``"png"``/``"pdf"``.
    seed : int
        The root seed entropy (pass it as ``rng`` to reproduce the run).
    computed, reused : int
        Units computed in this call, and units taken from the journal.
    elapsed : float
        Wall-clock seconds.
    metadata : dict, optional
        The JSON sidecar's content (parameters and their types, seed, trials, graph
        seeds and summaries under ``"components"``, versions, timing...).

    Examples
    --------
    ``res.table.rows`` (list of dicts), ``res.to_pandas()`` (a DataFrame when pandas is
    installed), ``res.figure`` (the PNG's path) and ``res.draw()`` (a matplotlib
    Figure to restyle) are the ways to analyse a run in Python.
    """

    experiment: Experiment
    table: Table
    paths: Mapping[str, Path]
    seed: int
    computed: int
    reused: int
    elapsed: float
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def to_pandas(self) -> Any:
        """The tidy table as a :class:`pandas.DataFrame` (needs pandas, not a dependency)."""
        return self.table.to_pandas()

    @property
    def figure(self) -> Path | None:
        """Path of the PNG written by the run (None when run with ``plot=False``)."""
        return self.paths.get("png")

    def _head(self) -> str:
        t = self.table
        points = len({tuple(r[p] for p in t.params) for r in t.rows})
        metrics = list(dict.fromkeys(r["metric"] for r in t.rows))
        trials = self.metadata.get("trials") if self.metadata else None
        return (f"<RunResult {self.experiment.name!r}: {points} points x {len(metrics)} metrics, "
                f"{'exact' if trials is None else f'{trials:,} trials per point'}, seed {self.seed}, "
                f"{self.elapsed:.1f} s>")

    def __repr__(self) -> str:
        """One line: name, size, seed and time (``print(res)`` shows the table)."""
        return self._head()

    def __str__(self) -> str:
        """A screenful: the one line, the files, and the first points of the table, as wide
        as the terminal (:meth:`Table.format_text`)."""
        files = ", ".join(str(p) for k, p in self.paths.items() if k != "journal")
        return "\n".join([self._head(), f"files: {files}" if files else "files: none",
                          self.table.format_text(max_points=12)])

    def _repr_html_(self) -> str:
        """Notebook display: the run's table (intervals and trials) and its figure."""
        from anonspread.harness.plots import figure_png
        from anonspread.harness.report import run_html

        side = dict(self.metadata) or {"experiment": self.experiment.name, "title": self.experiment.title}
        return run_html(side, self.table, figure_png(self.draw()), out=self.paths["csv"].parent)

    def draw(self, *, where: Mapping[str, Any] | None = None) -> Any:
        """The run's figure as a new :class:`matplotlib.figure.Figure` (theory curves included).

        Parameters
        ----------
        where : mapping of str to value or list of values, optional
            Keep only the rows whose parameters take these values
            (``res.draw(where={"estimator": "strongest"})``; :func:`~harness.results.keep_rows`).
        """
        from anonspread.harness.plots import draw

        labels = {m.name: m.words for m in self.experiment.metrics}
        return draw(self.table, self.experiment.plot_spec(), labels=labels, info=self.metadata, where=where)


def resolve_seed(rng: Any) -> int:
    """Root seed entropy from ``rng`` (None: fresh OS entropy; int; SeedSequence; Generator).

    Parameters
    ----------
    rng : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        A non-negative int is its own entropy; a root SeedSequence gives its entropy; a
        Generator draws one.

    Returns
    -------
    int
        The entropy to pass as ``rng`` to reproduce the run.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.harness.runner import resolve_seed
    >>> resolve_seed(12345), resolve_seed(np.random.SeedSequence(7))
    (12345, 7)
    """
    if rng is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(rng, np.random.SeedSequence):
        if rng.spawn_key:
            raise InvalidParameterError("rng must be a root SeedSequence (no spawn_key)")
        return int(rng.entropy)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63))
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        return check_int(rng, "rng", low=0)
    raise InvalidTypeError(
        f"rng must be None, a non-negative int, a numpy SeedSequence or Generator; got {rng!r}"
    )


def output_paths(out: str | os.PathLike[str], name: str) -> dict[str, Path]:
    """Where a run of ``name`` writes its files in ``out``.

    Parameters
    ----------
    out : str or os.PathLike
        The output directory.
    name : str
        The run's name (the experiment's).

    Returns
    -------
    dict of str to pathlib.Path
        ``"csv"``, ``"json"``, ``"png"``, ``"pdf"``, ``"journal"`` and
        ``"pending_journal"``.

    Examples
    --------
    >>> from anonspread.harness.runner import output_paths
    >>> output_paths("results", "fig2")["journal"].as_posix()
    'results/fig2.journal.jsonl'
    """
    out = Path(out)
    return {
        "csv": out / f"{name}.csv",
        "json": out / f"{name}.json",
        "png": out / f"{name}.png",
        "pdf": out / f"{name}.pdf",
        "journal": out / f"{name}.journal.jsonl",
        "pending_journal": out / f"{name}.journal.pending.jsonl",
    }


def _journal_path(paths: Mapping[str, Path], resume: bool) -> Path:
    """Where this run journals: the usual path, or the pending one beside it.

    A run that would replace the results of an earlier run of the same name (a CSV, JSON,
    figure or journal of that name exists) journals to ``NAME.journal.pending.jsonl``,
    renamed over ``NAME.journal.jsonl`` together with the new CSV, JSON and figures: an
    overwrite interrupted before its results are written leaves the earlier run's outputs
    *and* its journal as they were. A ``--resume`` continues the pending journal when there
    is one (the run interrupted last), else the usual one.
    """
    pending = paths["pending_journal"]
    if resume:
        return pending if _nonempty(pending) else paths["journal"]
    if any(paths[k].exists() for k in ("csv", "json", "png", "pdf", "journal")) or pending.exists():
        return pending
    return paths["journal"]


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _prepare_out(out: str | os.PathLike[str]) -> Path:
    try:
        text = os.fspath(out)
    except TypeError:
        raise InvalidTypeError(f"out must be a directory path (str or os.PathLike); got {out!r}") from None
    if not isinstance(text, str) or not text.strip():
        raise InvalidParameterError(f"out must be a directory path (use '.' for this one); got {out!r}")
    path = Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output directory {path}: {exc.strerror or exc}") from None
    if not path.is_dir():
        raise OutputError(f"output path {path} is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"output directory {path} is not writable")
    return path


def _modules(exp: Experiment) -> list[str]:
    """The user modules an experiment's functions and components come from (what a
    reproducing Python line imports so that they are registered again)."""
    import functools
    import types

    found: list[str] = []

    def visit(obj: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(obj, functools.partial):
            for item in (obj.func, *obj.args, *obj.keywords.values()):
                visit(item, depth + 1)
        elif isinstance(obj, Mapping):
            for item in obj.values():
                visit(item, depth + 1)
        elif isinstance(obj, (types.FunctionType, type)):
            module = getattr(obj, "__module__", None)
            if module and module != "__main__" and module.split(".")[0] != "anonspread" \
                    and module not in found:
                found.append(module)
        elif hasattr(obj, "factory"):  # a resolved component
            visit(obj.factory, depth + 1)

    for fn in (exp.trial, exp.trials, exp.evaluate):
        visit(fn, 0)
    return found


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for pkg in ("anonspread", "numpy", "scipy", "networkx", "matplotlib", "dask", "distributed"):
        try:
            found[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return found


def _metric_kinds(exp: Experiment) -> list[tuple[str, str, float]]:
    return [(m.name, "exact" if exp.is_exact else m.kind, m.low) for m in exp.metrics]


def run(
    experiment: str | Experiment,
    *,
    trials: int | None = None,
    rng: Any = None,
    out: str | os.PathLike[str] = ".",
    workers: int | None = None,
    scheduler: str | None = None,
    executor: str | Executor | None = None,
    resume: bool = False,
    overrides: Mapping[str, Sequence[Scalar]] | None = None,
    batch_size: int | None = None,
    plot: bool = True,
    pdf: bool = False,
    level: float = 0.95,
    progress: bool | None = None,
    overwrite: bool = True,
    pilot: bool | None = None,
    threads: int = 1,
    estimator_budget: float | str | None = None,
) -> RunResult:
    """Run an experiment over its grid and write ``OUT/NAME.{csv,json,png}``.

    Parameters
    ----------
    experiment : str or Experiment
        A registered name or an :class:`Experiment` (validated here).
    trials : int, optional
        Trials per parameter point (default: the experiment's ``default_trials``;
        ignored by exact experiments).
    rng : None, int, SeedSequence or Generator
        Root seed.  ``None`` draws fresh entropy (recorded in the sidecar), or, with
        ``resume``, reuses the journal's.
    out : path-like
        Output directory (created if missing).
    workers, scheduler, executor
        See :func:`harness.executors.make_executor`; an :class:`Executor` instance
        is used as is.
    resume : bool
        Reuse the units finished in ``OUT/NAME.journal.jsonl``; the final table is
        the one an uninterrupted run gives.
    overrides : dict, optional
        Grid axes to replace (``--set``).
    batch_size : int, optional
        Trials per random stream (default: the experiment's).
    plot, pdf : bool
        Write the PNG (and a PDF).
    level : float
        Confidence level of the intervals.
    progress : bool or None
        Show progress (``None``: a bar on a terminal outside CI, else a line on stderr
        every 30 s; ``False``: nothing).
    overwrite : bool
        Replace the results of an earlier run of the same name in ``out``. With False
        (what ``anonspread sweep`` does unless ``--overwrite``) such results are refused
        before anything runs, unless ``resume`` continues that run.
    pilot : bool or None
        Estimate the run's cost from a small timed pilot first (:mod:`harness.pilot`),
        print it as the first line and refuse a run whose estimate is above the work
        limit. ``None``: when the experiment asks for it (:attr:`Experiment.pilot`, the
        detection sweep does) and progress is shown (``progress`` is not False).
    threads : int, default 1
        Threads per worker for the OpenMP kernels of the estimators that have them (``bp``,
        ``soft-margin``): each worker runs its estimator on this many threads
        (:func:`harness.work.task_threads`); results are the same for any number. With more
        than one and no ``workers``, ``executor`` or ``scheduler``, the local pool gets the
        CPUs available divided by ``threads`` workers, so workers x threads fits the machine.
    estimator_budget : float, str or None
        Most CPU seconds an estimator priced before the run (:attr:`Experiment.price`:
        soft-margin in the detection sweep) may take at one point, its price in node
        visits counted at :data:`harness.pilot.VISITS_PER_SECOND`; a point above it is
        skipped, its price and this parameter named among the skipped points
        (:mod:`harness.budget`). Seconds, a duration (``"30m"``, ``"2h"``) or ``"inf"``
        (no budget); None: :data:`harness.budget.ESTIMATOR_BUDGET` (10 minutes).

    Returns
    -------
    RunResult

    Examples
    --------
    >>> import tempfile
    >>> from anonspread import harness
    >>> def coin(params, rng):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> exp = harness.Experiment(name="coin", title="coin", description="p",
    ...     grid=harness.Grid(product={"p": [0.25]}),
    ...     metrics=(harness.Metric("heads", "proportion"),), trial=coin)
    >>> res = harness.run(exp, trials=400, rng=1, out=tempfile.mkdtemp(), workers=1, plot=False)
    >>> abs(res.table.rows[0]["mean"] - 0.25) < 0.07
    True
    """
    started = time.time()
    exp = get_experiment(experiment) if isinstance(experiment, str) else experiment
    check_experiment(exp)
    if overrides:
        exp = with_overrides(exp, overrides)
    if exp.is_exact:
        n_trials = 1
    else:
        n_trials = exp.default_trials if trials is None else check_int(trials, "trials", low=1)
    n_points = grid_size(exp.grid)
    # each point becomes a dict and at least one unit (and a journal line)
    check_size("grid", f"{n_points} points", nbytes=_POINT_BYTES * n_points,
               what=f"the sweep {exp.name!r} ({n_points} points)")
    bsize = exp.effective_batch_size() if batch_size is None else check_int(batch_size, "batch_size", low=1)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    threads = check_int(threads, "threads", low=1, high=1024)
    budget = check_budget(ESTIMATOR_BUDGET if estimator_budget is None else estimator_budget)
    if threads > 1 and workers is None and executor is None and scheduler is None:
        workers = max(1, default_workers() // threads)
    if not isinstance(executor, Executor):
        executor = make_executor(executor, workers=workers, scheduler=scheduler)
    out_dir = _prepare_out(out)
    paths = output_paths(out_dir, exp.name)
    if not overwrite and not resume:
        _refuse_existing(exp.name, paths)
    grid_points = expand(exp.grid)
    if exp.cost is not None:  # before the points are prepared: a sweep too big is refused at once
        _check_work(exp, grid_points, n_trials, skipped_known=False)
    per = "" if exp.is_exact else f" x {n_trials} trials"
    piloted = _wants_pilot(exp, pilot, progress)
    if not piloted and not resume:  # a piloted run's first line is its cost estimate; a resume's
        Progress(exp.name, 0, len(grid_points), enabled=progress).announce(
            f"{len(grid_points)} grid points{per}; preparing")
    points, skipped = _applicable(exp, grid_points)
    points, over = _within_budget(exp, points, n_trials, bsize, budget,
                                  recorded=_recorded_over(exp, paths, resume))
    skipped = [*skipped, *over]
    derived: list[dict[str, Scalar]] = []
    if exp.derived is not None:
        derived = [p for p in points if exp.derived(p)]
        points = [p for p in points if not exp.derived(p)]
        if not points:
            raise InvalidParameterError(
                f"experiment {exp.name!r}: every point of the grid is derived from others "
                f"({', '.join(str(_without(p, '')) for p in derived[:2])}); add the points it "
                "is derived from (e.g. the attacks the strongest one is chosen among)"
            )
    journal = Journal(_journal_path(paths, resume))
    # journaling beside the earlier run's journal: hold that one's lock too, so a run that
    # is still writing it (or resumes it) and this one never run into the same results
    guard = Journal(paths["journal"]) if journal.path != paths["journal"] else None
    per_point: int | list[int] = n_trials
    if exp.point_trials is not None and not exp.is_exact:
        per_point = [check_int(exp.point_trials(p, n_trials), f"point_trials at {p}", low=1) for p in points]
    if exp.paired is not None and not isinstance(per_point, int):
        for members in _groups(exp, points).values():
            counts = {per_point[q] for q, _ in members}
            if len(counts) > 1:
                raise InvalidParameterError(
                    f"experiment {exp.name!r}: the points paired on {exp.paired!r} at "
                    f"{_without(points[members[0][0]], exp.paired)} must get the same trials; "
                    f"point_trials gave {sorted(counts)}"
                )
    units = plan_units(len(points), per_point, bsize, exact=exp.is_exact)
    reusable = 0  # batches the journal holds for this run (a resume), as read before it starts
    if resume:
        line, reusable = _resume_line(exp, journal, units, n_trials, bsize)
        # at once on a terminal; in logs, the start line below says it (after LOG_INTERVAL)
        Progress(exp.name, 0, len(points), enabled=progress).announce(line)
    if exp.cost is None:
        _check_work(exp, points, n_trials, skipped_known=True)
    estimate: CostEstimate | None = None
    if piloted:
        estimate = _pilot(exp, points, per_point, bsize, executor, derived, n_trials)
        check_estimate(estimate, n_trials)
    proportions = [m.name for m in exp.metrics if m.kind == "proportion"]
    bar = Progress(exp.name, sum(u.n for u in units), len(points), enabled=progress,
                   units=[(u.point, u.n) for u in units], shapes={i: _shape(p) for i, p in enumerate(points)},
                   priors=_priors(estimate, points), relative=_relative(exp, points),
                   workers=executor.workers)
    if estimate is not None:
        bar.say(f"{estimate.summary()}{' (the whole run; finished batches of the journal not subtracted)' if resume else ''}")
    trials_text = "" if exp.is_exact else f", {sum(u.n for u in units)} trials in {len(units)} batches"
    if resume:
        trials_text += f" ({reusable} from the journal)"
    notes = [f"{len(skipped) - len(over)} skipped: they do not apply"] if len(skipped) > len(over) else []
    if over:
        notes.append(f"{len(over)} over the estimator budget of {format_duration(budget)} per point, "
                     "named under the table")
    skipped_text = f" ({'; '.join(notes)})" if notes else ""
    bar.announce(f"{len(points)} points{skipped_text}{trials_text}; starting {executor.describe()}")
    journal_started = False
    results: dict[tuple[int, int], UnitResult] = {}
    try:
        with _terminate_as_interrupt(), executor:
            # After the executor connected (an unreachable scheduler leaves no journal
            # behind); the lock is then held until the results are written.
            if guard is not None and paths["journal"].exists():
                guard.acquire()
            journal.acquire()
            if rng is None and resume:
                prior = journal.read().header or {}
                old = prior.get("seed") if prior.get("experiment") == exp.name else None
                # a seed that is not a non-negative int (edited by hand) is not reused; the
                # header check below then names the mismatch
                ok = isinstance(old, int) and not isinstance(old, bool) and old >= 0
                seed = old if ok else resolve_seed(None)
            else:
                seed = resolve_seed(rng)
            header = {
                "experiment": exp.name,
                "mode": exp.mode,
                "seed": seed,
                "trials": None if exp.is_exact else n_trials,
                "batch_size": bsize,
                "grid": exp.grid.to_dict(),
                "metrics": [m.name for m in exp.metrics],
            }
            if exp.paired is not None:
                header["paired"] = exp.paired
            if over:  # a resume skips the same points (_recorded_over)
                header["budget_skipped"] = [{"params": dict(o["params"]), "reason": o["reason"],
                                             "short": o.get("short", o["reason"])} for o in over]
                header["estimator_budget"] = budget
            finished = journal.open(header, resume=resume)
            journal_started = True
            trusted, rejected = check_units(finished, units, header["metrics"], proportions)
            results.update(trusted)
            _report_untrusted(journal, rejected)
            todo = [u for u in units if (u.point, u.batch) not in results]
            shipped, prepared = _prepare_once(exp, points, todo, executor, bar, estimate)
            try:
                computed = _execute(exp, points, seed, todo, units, results, journal, executor, bar,
                                    preload=shipped, threads=threads,
                                    costs=_dispatch_costs(estimate, points))
            finally:
                if shipped is not None:  # tasks an executor ran in this process installed it
                    shipped.uninstall()
        table = aggregate(points, exp.grid.names, _metric_kinds(exp), results, level=level)
        table = dataclasses.replace(table, skipped=tuple(skipped))
        if exp.derive is not None:
            t_derive = time.monotonic()
            if derived:  # the ceiling and bp-predicted compute here, after the trials
                bar.say(f"{exp.name}: {len(derived)} derived point(s) ({_derived_names(exp, derived)}) "
                        f"computed now, in this process{_after_estimate(estimate)}")
            table = exp.derive(table, derived, level)
            if derived and time.monotonic() - t_derive >= 1.0:
                bar.say(f"{exp.name}: derived points done in "
                        f"{format_duration(time.monotonic() - t_derive)}")
        _warn_saturated(exp, table)
        warn_coverage(exp.name, table, exp.paired)
        computed_at = time.time()
        written, sidecar = _write_outputs(exp, points, table, paths, journal=journal.path,
                                          seed=seed, trials=n_trials,
                                          batch_size=bsize, level=level, executor=executor,
                                          plot=plot, pdf=pdf, threads=threads,
                                 timing={"started": started,
                                         "compute_s": computed_at - started,
                                         "units_computed": computed,
                                         "units_reused": len(units) - computed,
                                         **_timing_extras(estimate, prepared)})
    except KeyboardInterrupt as exc:
        if isinstance(exc, RunInterrupted):
            raise
        # outside the batches' loop: workers starting, one-off work, or the results being
        # written; the batches the journal holds (a resume's included) are what is kept
        raise RunInterrupted(_interrupted_line(len(results) if journal_started else reusable,
                                               len(units), journal.path)) from None
    finally:
        journal.close()
        if guard is not None:
            guard.close()
    return RunResult(exp, table, written, seed, computed, len(units) - computed,
                     sidecar["timing"]["elapsed_s"], sidecar)


def _wants_pilot(exp: Experiment, pilot: bool | None, progress: bool | None) -> bool:
    if exp.is_exact:
        return False
    if pilot is None:
        return exp.pilot and progress is not False
    if not isinstance(pilot, bool):
        raise InvalidTypeError(f"pilot must be True, False or None; got {pilot!r}")
    return pilot


def _pilot(exp: Experiment, points: Sequence[Mapping[str, Scalar]], per_point: int | Sequence[int],
           bsize: int, executor: Executor, derived: Sequence[Mapping[str, Scalar]] = (),
           n_trials: int = 0) -> CostEstimate:
    counts = [per_point] * len(points) if isinstance(per_point, int) else list(per_point)
    groups = _groups(exp, points) if exp.paired is not None else None
    after = []  # the derived points computed after the trials, by their stand-ins
    unpriced: dict[str, list] = {}  # the derived points no pilot can price, by what they do
    if exp.derived_cost is not None:
        for p in derived:
            stand_in = exp.derived_cost(dict(p))
            if stand_in is not None and "unpriced" in stand_in:
                label = str(p.get(exp.paired)) if exp.paired is not None else exp.name
                unpriced.setdefault(f"{label} ({stand_in['unpriced']})", []).append(p)
                continue
            # a stand-in that does not apply at the point (bp on adaptive diffusion): the
            # derived point is skipped there, with its reason, and costs nothing
            if stand_in is not None and (exp.skip is None or exp.skip(dict(stand_in)) is None):
                n = exp.point_trials(p, n_trials) if exp.point_trials is not None else n_trials
                after.append((dict(p), dict(stand_in), int(n)))
    est = pilot_estimate(exp, points, counts, groups=groups, batch_size=bsize,
                         workers=executor.workers, executor=executor.describe(),
                         one_off_parallel=bool(getattr(executor, "shares_files", False))
                         and prepare_takes_executor(exp.prepare), after=after)
    if unpriced:
        est = dataclasses.replace(est, unpriced=tuple(
            f"{what} at {len(ps)} point{'s' if len(ps) != 1 else ''}" for what, ps in unpriced.items()))
    return est


def _per_point(estimate: CostEstimate | None, points: Sequence[Mapping[str, Scalar]],
               value: Callable[[Mapping[str, Any]], float]) -> dict[int, float]:
    """``value(row)`` of the pilot's row of each point, by the point's index."""
    if estimate is None:
        return {}
    index = {repr(sorted(p.items())): i for i, p in enumerate(points)}
    out: dict[int, float] = {}
    for r in estimate.rows:
        i = index.get(repr(sorted(r["params"].items())))
        if i is not None:
            out[i] = value(r)
    return out


def _priors(estimate: CostEstimate | None, points: Sequence[Mapping[str, Scalar]]) -> dict[int, float]:
    """Seconds per trial of each point by the pilot (the progress ETA's prior)."""
    return _per_point(estimate, points, lambda r: r["seconds_per_trial"])


def _dispatch_costs(estimate: CostEstimate | None,
                    points: Sequence[Mapping[str, Scalar]]) -> dict[int, float]:
    """Seconds per trial of each point by the pilot, for the order in which batches are
    dispatched (:func:`_longest_first`): a priced point at its lower bound (soft-margin:
    every snapshot stopping at its soonest; its price at the cap is an upper bound up to
    8x above it, which would put cheap points first)."""
    return _per_point(estimate, points, lambda r: float(r.get("least_per_trial", r["seconds_per_trial"])))


def _longest_first(units: Sequence[Unit], cost: Callable[[Unit], float]) -> list[Unit]:
    """``units`` in the order their batches are dispatched: the most expensive first by
    the pilot's estimate (ties, and a run without a pilot, in (point, batch) order), so
    that the longest batch does not start last and leave the other workers idle while it
    runs (the longest-processing-time rule: its makespan is within 4/3 of the best).
    Results do not depend on the order (each unit draws from its own stream)."""
    return sorted(units, key=lambda u: (-cost(u), u.point, u.batch))


def _prepare_once(exp: Experiment, points: Sequence[Mapping[str, Scalar]], todo: Sequence[Unit],
                  executor: Executor, bar: Progress, estimate: CostEstimate | None) -> tuple[Any, Any]:
    """The experiment's one-off work (:attr:`Experiment.prepare`), done here once for the
    points with batches to run, its payload installed in every worker once.

    Returns what every task must carry (an executor that cannot install once per worker)
    and the :class:`~harness.work.Preparation`."""
    if exp.prepare is None or not todo:
        return None, None
    wanted = sorted({u.point for u in todo})
    if exp.paired is not None:  # a group's batch runs every member point
        groups = _groups(exp, points)
        lead = {q: g for g, members in groups.items() for q, _ in members}
        wanted = sorted({q for p in wanted for q, _ in groups[lead[p]]})
    if estimate is not None and estimate.one_off:
        what = ", ".join(f"{k} x {len(v)}" for k, v in estimate.one_off.items())
        bar.say(f"one-off work first, once for the whole run ({what}; pilot estimate "
                f"{format_duration(sum(sum(v) for v in estimate.one_off.values()))})")
    t0 = time.perf_counter()
    kwargs = {"executor": executor} if prepare_takes_executor(exp.prepare) else {}
    prepared = exp.prepare([points[i] for i in wanted], False, **kwargs)
    if prepared is None:
        return None, None
    if prepared.seconds:
        guess = "" if estimate is None or not estimate.one_off else \
            f" (pilot estimate {format_duration(sum(sum(v) for v in estimate.one_off.values()))})"
        what = ", ".join(f"{k}: {len(v)}" for k, v in prepared.seconds.items())
        bar.say(f"one-off work done once for the whole run ({what}) in "
                f"{format_duration(time.perf_counter() - t0)}{guess}")
    if prepared.payload is None or executor.preload(prepared.payload):
        return None, prepared
    return prepared.payload, prepared


def _timing_extras(estimate: CostEstimate | None, prepared: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if estimate is not None:
        out["pilot"] = {"summary": estimate.summary(), "cpu_s": estimate.cpu_seconds,
                        "wall_s": estimate.wall_seconds, "pilot_s": estimate.pilot_seconds,
                        "cpu_least_s": estimate.cpu_seconds_least,
                        "wall_least_s": estimate.wall_seconds_least,
                        "one_off_s": {k: list(v) for k, v in estimate.one_off.items()}}
    if prepared is not None and prepared.seconds:
        out["one_off_s"] = {k: list(v) for k, v in prepared.seconds.items()}
        out["one_off_cpu_s"] = prepared.total_cpu
    return out


def estimate_cost(
    experiment: str | Experiment,
    *,
    trials: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: str | Executor | None = None,
    overrides: Mapping[str, Sequence[Scalar]] | None = None,
    batch_size: int | None = None,
    estimator_budget: float | str | None = None,
) -> CostEstimate:
    """What :func:`run` would cost, from its pilot, without running it (``--dry-run``).

    The same checks as :func:`run` (sizes, the work limit by nodes and by the pilot's
    estimate) refuse what it would refuse; nothing is written and no executor is
    started (a remote scheduler's workers are not counted: ``workers`` is assumed).

    Parameters
    ----------
    experiment, trials, workers, scheduler, executor, overrides, batch_size, estimator_budget
        As :func:`run` takes them (the points the budget skips are not piloted; the
        estimate's notes name them).

    Returns
    -------
    CostEstimate
        :meth:`~harness.pilot.CostEstimate.summary` is :func:`run`'s first line.

    Examples
    --------
    >>> from anonspread import harness
    >>> def coin(params, n, rng):
    ...     return {"heads": (rng.random(n) < params["p"]).astype(float)}
    >>> exp = harness.Experiment(name="coin", title="coin", description="p",
    ...     grid=harness.Grid(product={"p": [0.25, 0.5]}),
    ...     metrics=(harness.Metric("heads", "proportion"),), trials=coin)
    >>> est = harness.estimate_cost(exp, trials=1000, workers=1, executor="inprocess")
    >>> [r["pilot_trials"] for r in est.rows], est.cpu_seconds < 1.0
    ([16, 16], True)
    """
    exp = get_experiment(experiment) if isinstance(experiment, str) else experiment
    check_experiment(exp)
    if overrides:
        exp = with_overrides(exp, overrides)
    if exp.is_exact:
        raise InvalidParameterError(
            f"experiment {exp.name!r} is exact (one evaluation per point, no trials): it has no pilot")
    n_trials = exp.default_trials if trials is None else check_int(trials, "trials", low=1)
    n_points = grid_size(exp.grid)
    check_size("grid", f"{n_points} points", nbytes=_POINT_BYTES * n_points,
               what=f"the sweep {exp.name!r} ({n_points} points)")
    bsize = exp.effective_batch_size() if batch_size is None else check_int(batch_size, "batch_size", low=1)
    if not isinstance(executor, Executor):
        executor = make_executor(executor, workers=workers, scheduler=scheduler)
    grid_points = expand(exp.grid)
    if exp.cost is not None:
        _check_work(exp, grid_points, n_trials, skipped_known=False)
    points, _ = _applicable(exp, grid_points)
    budget = check_budget(ESTIMATOR_BUDGET if estimator_budget is None else estimator_budget)
    points, over = _within_budget(exp, points, n_trials, bsize, budget)
    derived: list = []
    if exp.derived is not None:
        derived = [p for p in points if exp.derived(p)]
        points = [p for p in points if not exp.derived(p)]
    per_point: int | list[int] = n_trials
    if exp.point_trials is not None:
        per_point = [check_int(exp.point_trials(p, n_trials), f"point_trials at {p}", low=1) for p in points]
    plan_units(len(points), per_point, bsize, exact=False)
    if exp.cost is None:
        _check_work(exp, points, n_trials, skipped_known=True)
    estimate = _pilot(exp, points, per_point, bsize, executor, derived, n_trials)
    check_estimate(estimate, n_trials)
    if over:
        notes = [f"skipped ({', '.join(f'{k}={v}' for k, v in o['params'].items() if k in ('protocol', 'T', 'estimator'))}): "
                 f"{o['reason']}" for o in over]
        estimate = dataclasses.replace(estimate, notes=(*estimate.notes, *notes))
    return estimate


#: A proportion metric of this name flags trials whose spread covered the source's
#: whole connected component (the detection experiments report it).
SATURATED = "saturated"


def saturated_points(table: Table) -> list[dict[str, Any]]:
    """The points where some trials saturated: ``{"params", "fraction"}`` each."""
    out = []
    for row in table.rows:
        if row["metric"] == SATURATED and row["mean"] > 0:
            out.append({"params": {p: row[p] for p in table.params}, "fraction": row["mean"]})
    return out


def _warn_saturated(exp: Experiment, table: Table) -> None:
    """One warning for the whole run when spreads covered their component."""
    found = saturated_points(table)
    if not found:
        return
    varying = [p for p in table.params if len({repr(r[p]) for r in table.rows}) > 1 and p != exp.paired]
    # the points of a paired group share their spreads: name each group once
    found = list({tuple((p, repr(f["params"][p])) for p in varying): f for f in found}.values())
    parts = [(", ".join(f"{p}={f['params'][p]}" for p in varying) or "the one point")
             + f" ({f['fraction'] * 100:.3g}% of trials)" for f in found[:3]]
    more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
    warnings.warn(
        f"{exp.name}: at {len(found)} point(s) spreads infected the whole connected component "
        f"of their source ({'; '.join(parts)}{more}); there detection says little about the "
        "protocol (column 'saturated'; 'component_fraction' is the fraction infected)",
        SaturationWarning,
        stacklevel=3,
    )


def _refuse_existing(name: str, paths: Mapping[str, Path]) -> None:
    """Refuse to replace the results of another run (``overwrite=False``)."""
    found = [paths[k] for k in ("csv", "json", "png") if paths[k].exists()]
    if found:
        raise InvalidParameterError(
            f"{found[0]} exists (results of an earlier run named {name!r}); a run never replaces "
            "another's results unless asked: pass --overwrite (overwrite=True) to replace them, "
            "--resume to continue that run, or choose another --name or --out"
        )


def _recorded_over(exp: Experiment, paths: Mapping[str, Path], resume: bool) -> list | None:
    """With ``resume``, the points the budget skipped in the run resumed (its journal's
    header), else None."""
    if not resume or exp.price is None:
        return None
    path = Path(_journal_path(paths, resume))
    if not path.exists():
        return None
    header = Journal(path).read().header or {}
    return header.get("budget_skipped") if header.get("experiment") == exp.name else None


def _within_budget(exp: Experiment, points: list[dict[str, Scalar]], n_trials: int, bsize: int,
                   budget: float, *, recorded: list | None = None
                   ) -> tuple[list[dict[str, Scalar]], list[dict[str, Any]]]:
    """The points whose priced estimator fits ``budget`` (:mod:`harness.budget`), and the
    skipped ones with their price; ``recorded`` (a resumed run's): those skipped then,
    not priced again (a timed price may fall on the other side of the budget).

    Raises
    ------
    InvalidParameterError
        When the budget leaves no point with trials (naming the first price).
    """
    if exp.price is None or exp.is_exact:
        return points, []
    derived = exp.derived or (lambda p: False)
    if recorded is not None:
        gone = {repr(sorted(o["params"].items())): o for o in recorded}
        over = [gone[repr(sorted(p.items()))] for p in points if repr(sorted(p.items())) in gone]
        return [p for p in points if repr(sorted(p.items())) not in gone], over
    trials = [n_trials if derived(p) or exp.point_trials is None else exp.point_trials(p, n_trials)
              for p in points]
    kept, over = over_budget(exp.price, points, trials, bsize, budget)
    left = [points[i] for i in kept]
    if over and not any(not derived(p) for p in left):
        raise InvalidParameterError(f"experiment {exp.name!r}: no point is left to run: {over[0]['reason']}")
    return left, over


def _applicable(exp: Experiment, points: list[dict[str, Scalar]]
                ) -> tuple[list[dict[str, Scalar]], list[dict[str, Any]]]:
    """The points that apply (``exp.skip`` gives no reason), and the skipped ones with why.

    Raises
    ------
    InvalidParameterError
        When no point of the grid applies (naming the reasons).
    """
    if exp.skip is None:
        return points, []
    kept, skipped = [], []
    for point in points:
        reason = exp.skip(point)
        if reason is None:
            kept.append(point)
        else:
            skipped.append({"params": dict(point), "reason": str(reason)})
    if not kept:
        reasons = sorted({s["reason"] for s in skipped})
        raise InvalidParameterError(
            f"experiment {exp.name!r}: no point of the grid applies ({'; '.join(reasons[:3])})"
        )
    return kept, skipped


#: Bytes per grid point of a run's bookkeeping (point dict, units, results, table rows).
_POINT_BYTES = 2048


def _check_work(exp: Experiment, points: Sequence[Mapping[str, Scalar]], n_trials: int, *,
                skipped_known: bool) -> None:
    """Refuse a run whose estimated work (sum over points of trials x cost) is above the limit.

    Without a ``cost`` a trial counts 1. Stops summing as soon as the limit is passed, so
    a huge grid is refused quickly. Unless ``skipped_known`` (``points`` are those that
    run), a point's ``skip`` is asked only when the sum passes the limit, and only for the
    points counted so far, so a sweep is not refused for points it would skip.
    """
    if exp.is_exact:
        return
    limit = work_budget()
    total, counted, verified = 0.0, 0, 0
    costs: list[float] = []
    for i, point in enumerate(points):
        t = n_trials
        if exp.point_trials is not None:
            with contextlib.suppress(Exception):  # checked with its own message later
                t = int(exp.point_trials(point, n_trials))
        costs.append(t * (float(exp.cost(point)) if exp.cost is not None else 1.0))
        total += costs[-1]
        counted = i + 1
        if total > limit and not skipped_known and exp.skip is not None:
            for j in range(verified, counted):
                if exp.skip(points[j]) is not None:
                    total -= costs[j]
            verified = counted
        if total > limit:
            break
    more = f", counted up to point {counted}" if counted < len(points) else ""
    check_size("trials", n_trials, work=total,
               what=f"the sweep {exp.name!r} ({len(points)} points x {n_trials} trials{more})")


def _after_estimate(estimate: CostEstimate | None) -> str:
    """`` (pilot estimate M:SS)`` for the derived points the pilot priced (those computed
    after the trials: ``bp-predicted``), else nothing."""
    rows = [r for r in (estimate.rows if estimate is not None else ()) if r.get("after")]
    if not rows:
        return ""
    return f" (pilot estimate {format_duration(sum(r['seconds_per_trial'] * r['trials'] for r in rows))})"


def _derived_names(exp: Any, derived: Sequence[Mapping[str, Any]]) -> str:
    """The derived points' values on the paired axis (``strongest, bp-predicted``), else
    their count."""
    if exp.paired is None:
        return f"{len(derived)}"
    return ", ".join(dict.fromkeys(str(p.get(exp.paired)) for p in derived))


def _report_untrusted(journal: Journal, units: Sequence[tuple[tuple[int, int], str]]) -> None:
    """Warn (once) about journal lines and units that a resume recomputes instead of trusting."""
    lines = journal.state.rejected
    if not lines and not units:
        return
    parts = [f"line {i}: {why}" for i, why in lines[:3]]
    parts += [f"unit (point {p}, batch {b}) {why}" for (p, b), why in units[:3]]
    more = len(lines) + len(units) - len(parts)
    warnings.warn(
        f"journal {journal.path}: {len(lines)} line(s) unreadable and {len(units)} unit(s) not "
        f"matching this run are not trusted and will be recomputed ({'; '.join(parts)}"
        f"{f'; and {more} more' if more else ''})",
        RuntimeWarning,
        stacklevel=3,
    )


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Treat SIGTERM like Ctrl-C while units run (journal, stop the workers, exit cleanly)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _shape(point: Mapping[str, Scalar]) -> tuple:
    """A point's non-numeric values: points of one shape cost alike per trial (the
    progress estimate's unit)."""
    return tuple(sorted(
        (k, v) for k, v in point.items()
        if isinstance(v, bool) or not isinstance(v, numbers.Number)
    ))


def _without(point: Mapping[str, Scalar], axis: str) -> dict[str, Scalar]:
    return {k: v for k, v in point.items() if k != axis}


def _groups(exp: Experiment, points: Sequence[Mapping[str, Scalar]]) -> dict[int, list[tuple[int, Scalar]]]:
    """Paired experiments: first point of each group -> the group's (point, value) pairs."""
    first: dict[tuple, int] = {}
    groups: dict[int, list[tuple[int, Scalar]]] = {}
    for i, point in enumerate(points):
        key = tuple(sorted((k, repr(v)) for k, v in _without(point, exp.paired).items()))
        lead = first.setdefault(key, i)
        groups.setdefault(lead, []).append((i, point[exp.paired]))
    return groups


def _group_params(exp: Experiment, points: Sequence[Mapping[str, Scalar]], lead: int,
                  members: Sequence[tuple[int, Scalar]]) -> dict[str, Any]:
    return {**points[lead], exp.paired: tuple(v for _, v in members)}


def _execute(
    exp: Experiment,
    points: Sequence[Mapping[str, Scalar]],
    seed: int,
    todo: Sequence[Unit],
    units: Sequence[Unit],
    results: dict[tuple[int, int], UnitResult],
    journal: Journal,
    executor: Executor,
    bar: Progress,
    *,
    preload: Any = None,
    threads: int = 1,
    costs: Mapping[int, float] | None = None,
) -> int:
    """Run the missing units, journaling each finished chunk; return how many ran.

    ``preload``: a payload every task carries (for an executor that cannot install it
    once per worker, :meth:`Executor.preload`). ``costs``: the pilot's seconds per trial
    by point (:func:`_dispatch_costs`), the most expensive batches dispatched first."""
    costs = costs or {}
    fn = getattr(exp, exp.mode)
    proportions = tuple(m.name for m in exp.metrics if m.kind == "proportion")
    remaining: dict[int, int] = {}
    for u in todo:
        remaining[u.point] = remaining.get(u.point, 0) + 1
    done_trials = sum(u.n for u in units if (u.point, u.batch) in results)
    computed = 0
    # before the bar starts: the journal's measured costs price the percentage's weights
    bar.update(done_trials, len(points) - len(remaining), reused=True,
               costs=[(u.point, u.n, results[(u.point, u.batch)].seconds) for u in units
                      if (u.point, u.batch) in results])
    try:
        with bar:
            metrics = tuple(m.name for m in exp.metrics)
            wanted = {(u.point, u.batch) for u in todo}
            if exp.paired is None:
                tasks = [
                    Task(exp.name, exp.mode, fn, metrics, proportions, seed, tuple(c),
                         tuple(points[u.point] for u in c), preload=preload, threads=threads)
                    for c in chunk(_longest_first(todo, lambda u: u.n * costs.get(u.point, 0.0)),
                                   executor.workers)
                ]
            else:
                # one unit per group and batch (a group's unfinished batch is recomputed whole;
                # its finished points get the same values again and are not journaled twice)
                groups = _groups(exp, points)
                lead = {q: g for g, members in groups.items() for q, _ in members}
                gunits = _longest_first(
                    {Unit(lead[u.point], u.batch, u.n) for u in todo},
                    lambda u: u.n * sum(costs.get(q, 0.0) for q, _ in groups[u.point]))
                tasks = [
                    Task(exp.name, exp.mode, fn, metrics, proportions, seed, tuple(c),
                         tuple(_group_params(exp, points, u.point, groups[u.point]) for u in c),
                         paired=exp.paired, members=tuple(tuple(groups[u.point]) for u in c),
                         preload=preload, threads=threads)
                    for c in chunk(gunits, executor.workers)
                ]
            for batch in executor.imap_unordered(run_task, tasks):
                reissue_warnings(batch)  # a worker's warnings, shown as this process's
                batch = [r for r in batch if (r.point, r.batch) in wanted]
                journal.append(batch)
                closed = 0
                for r in batch:
                    results[(r.point, r.batch)] = r
                    remaining[r.point] -= 1
                    closed += remaining[r.point] == 0
                computed += len(batch)
                bar.update(sum(r.n for r in batch), closed,
                           costs=[(r.point, r.n, r.seconds) for r in batch])
    except KeyboardInterrupt:
        raise RunInterrupted(_interrupted_line(len(results), len(units), journal.path)) from None
    return computed


def _interrupted_line(done: int, total: int, journal: Path) -> str:
    """What an interruption leaves: the batches finished and journaled, of how many."""
    if done >= total:
        return (f"interrupted while writing the results: all {total} batches are finished and journaled "
                f"in {journal} (nothing is lost); rerun with --resume to write them (nothing is recomputed)")
    if done:
        return (f"interrupted: {done} of {total} batches are finished and journaled in {journal} "
                "(nothing of them is lost); rerun with --resume to continue")
    return (f"interrupted before any batch finished: 0 of {total} batches are finished (journal "
            f"{journal}; nothing is lost); rerun with --resume to continue")


def _resume_line(exp: Experiment, journal: Journal, units: Sequence[Unit], n_trials: int,
                 bsize: int) -> tuple[str, int]:
    """A resume's first line, from a look at the journal before the run starts, and the
    number of batches it can reuse (checked again, under the journal's lock, once the run
    has started: a journal of another run is refused there with what differs)."""
    try:
        state = journal.read()
    except OutputError:
        return f"resuming from {journal.path}", 0
    head = state.header or {}
    here = {"experiment": exp.name, "trials": None if exp.is_exact else n_trials, "batch_size": bsize,
            "grid": exp.grid.to_dict(), "metrics": [m.name for m in exp.metrics]}
    if not state.units or head.get("experiment") != exp.name:
        return (f"resuming: no finished batch in {journal.path}; all {len(units)} "
                "batches to run"), 0
    if any(json.loads(json.dumps(v, default=str)) != head.get(k) for k, v in here.items()):
        return f"resuming from {journal.path} (its header differs from this run's)", 0
    proportions = [m.name for m in exp.metrics if m.kind == "proportion"]
    trusted, _ = check_units(state.units, units, here["metrics"], proportions)
    n = len(trusted)
    return (f"resuming: {n} of {len(units)} batches from the journal {journal.path}; "
            f"{len(units) - n} to run"), n


def _relative(exp: Experiment, points: Sequence[Mapping[str, Scalar]]) -> dict[int, float]:
    """The experiment's cost model per point (the percentage's weights without a pilot)."""
    if exp.cost is None:
        return {}
    out: dict[int, float] = {}
    for i, point in enumerate(points):
        with contextlib.suppress(Exception):  # a cost model that fails: equal weights
            out[i] = float(exp.cost(point))
    return out


def _write_outputs(
    exp: Experiment,
    points: Sequence[Mapping[str, Scalar]],
    table: Table,
    paths: Mapping[str, Path],
    *,
    journal: Path | None = None,
    **details: Any,
) -> tuple[dict[str, Path], dict[str, Any]]:
    """CSV, figures, journal and sidecar replaced together: each is written to a temporary
    file in a staging folder inside the output directory, then all are renamed into place
    (the sidecar last); a figure this run does not draw is removed, so a stale PNG or PDF
    of an earlier run of the same name never sits beside the new CSV, and a ``journal``
    kept at the pending path (:func:`_journal_path`) is renamed over the earlier run's. A
    failure before the renames (a plot that cannot be drawn, a full disk) leaves the
    previous files as they were. ``details`` are :func:`_stage_outputs`'s keyword
    arguments."""
    import shutil
    import tempfile

    out_dir = paths["csv"].parent
    for kind in ("csv", "png", "pdf", "json", "journal"):  # refused before anything is written
        if kind in paths:
            check_replaceable(paths[kind])
    stage = Path(tempfile.mkdtemp(prefix=f".{paths['csv'].stem}.", suffix=".staging", dir=out_dir))
    try:
        staged = _stage_outputs(exp, points, table, paths, stage, **details)
        written, sidecar, files = staged
        for kind in ("csv", "png", "pdf"):
            if kind in files:
                os.replace(files[kind], paths[kind])
            elif kind != "csv" and paths[kind].exists():
                paths[kind].unlink()
        if journal is not None and journal != paths["journal"]:
            os.replace(journal, paths["journal"])
        os.replace(files["json"], paths["json"])
    except OSError as exc:
        raise OutputError(f"cannot write the results in {out_dir}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return written, sidecar


def _stage_outputs(
    exp: Experiment,
    points: Sequence[Mapping[str, Scalar]],
    table: Table,
    paths: Mapping[str, Path],
    stage: Path,
    *,
    seed: int,
    trials: int,
    batch_size: int,
    level: float,
    executor: Executor,
    plot: bool,
    pdf: bool,
    timing: Mapping[str, Any],
    threads: int = 1,
) -> tuple[dict[str, Path], dict[str, Any], dict[str, Path]]:
    """Write the CSV, figures and sidecar into ``stage``; return the final paths, the
    sidecar and the staged files by kind."""
    files = {"csv": atomic_write(stage / paths["csv"].name, table.to_csv())}
    spec = exp.plot_spec()
    sidecar = {
        "experiment": exp.name,
        "title": exp.title,
        "description": exp.description,
        "mode": exp.mode,
        "parameters": list(table.params),
        "parameter_types": dict(table.param_types),
        "grid": exp.grid.to_dict(),
        "points": len(points),
        "skipped": list(table.skipped),
        "derived": list(table.derived),
        "saturated": saturated_points(table),
        "high_coverage": covered_points(table),
        "unreached": unreached_points(table),
        # the metrics the table holds (helpers a derive step drops, e.g. the strongest
        # attack's selection counts, are no results of the run)
        "metrics": [{"name": m.name, "kind": m.kind, "label": m.words,
                     "description": m.description or m.words,
                     "low": m.low if math.isfinite(m.low) else None} for m in exp.metrics
                    if m.name in {r["metric"] for r in table.rows}],
        "parameter_docs": {k: p.doc for k, p in axis_params(exp).items() if p.doc},
        "seed": seed,
        "trials": None if exp.is_exact else trials,
        "batch_size": batch_size,
        "confidence_level": level,
        "plot": spec.to_dict(),
        "executor": executor.describe(),
        "threads_per_worker": threads,
        "versions": _versions(),
        "command": sys.argv,
        "modules": _modules(exp),
        **({"template": exp.template} if exp.template is not None else {}),
        "timing": dict(timing),  # "finished" and "elapsed_s" once the figures are drawn
        "files": {"csv": paths["csv"].name},
        "complete": True,
    }
    if exp.metadata is not None:
        sidecar["components"] = dict(exp.metadata(points, seed))
    written = {"csv": paths["csv"], "journal": paths["journal"]}
    if plot:
        from anonspread.harness.plots import plot_table

        labels = {m.name: m.words for m in exp.metrics}
        for p in plot_table(table, spec, stage / paths["png"].name, labels=labels, pdf=pdf,
                            info=sidecar):
            kind = p.suffix[1:]
            files[kind] = p
            written[kind] = paths[kind]
            sidecar["files"][kind] = paths[kind].name
    # the run's duration: from the call to its outputs written (the CSV and figures; the
    # sidecar and the renames that follow take milliseconds); RunResult.elapsed is this figure
    finished = time.time()
    sidecar["timing"]["finished"] = finished
    sidecar["timing"]["elapsed_s"] = finished - sidecar["timing"]["started"]
    files["json"] = atomic_write(stage / paths["json"].name, dumps_sidecar(sidecar))
    written["json"] = paths["json"]
    return written, sidecar, files
