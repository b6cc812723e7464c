"""What an experiment declares: its grid, its metrics, how one trial runs, how to plot it.

An :class:`Experiment` only stores what it is given; :func:`check_experiment`
(called when it is registered or run) is the one place its fields are validated.
Exactly one of three ways to compute is given:

``trial(params, rng) -> dict[str, float]``
    one random trial, run ``trials`` times per parameter point;
``trials(params, n, rng) -> dict[str, numpy.ndarray]``
    ``n`` random trials at once (for vectorised simulators such as
    ``spread.simulate_many``), each array of length ``n``;
``evaluate(params) -> dict[str, float]``
    an exact, closed-form quantity (e.g. the privacy loss of a mechanism).

With ``paired="axis"`` (``trials`` only), points that differ only in that axis are
computed together on the same trials (a paired comparison, e.g. several estimators
scoring the same simulated spreads): ``trials`` is called once per group and batch
with ``params[axis]`` the tuple of the group's values and returns
``{value: {metric: array}}``; the CSV still has one row per point.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.harness.grid import Grid, Scalar, check_grid
from anonspread.harness.params import Param, infer_param
from anonspread.validation import check_int

__all__ = [
    "METRIC_KINDS",
    "Experiment",
    "Metric",
    "PlotSpec",
    "Reference",
    "Theory",
    "axis_params",
    "check_experiment",
    "prepare_takes_executor",
    "with_overrides",
]

METRIC_KINDS = ("proportion", "mean")
"""``proportion``: per-trial values in [0, 1], Wilson interval; ``mean``: normal interval."""

_COLUMNS = ("metric", "n", "mean", "stderr", "ci_low", "ci_high")

#: The longest experiment name: its outputs' names (``.NAME.journal.jsonl.XXXXXXXX.tmp``)
#: must fit the 255 bytes most file systems allow.
MAX_NAME = 200

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")

Params = Mapping[str, Scalar]


@dataclass(frozen=True)
class Metric:
    """A reported quantity.

    Parameters
    ----------
    name : str
        Key in the dicts returned by ``trial``/``trials``/``evaluate``.
    kind : {"proportion", "mean"}
        Decides the confidence interval (Wilson or normal).
    label : str
        Axis label in plots, in words (defaults to ``name``): what a reader of the figure
        needs, e.g. ``"P(detect source)"`` rather than ``detection``.
    low : float
        The smallest value one trial can report (e.g. 1 for a rank, 0 for a distance).
        The mean cannot lie below it, so a normal interval that reaches below ``low``
        is cut there (``ci_low = max(ci_low, low)``: the cut interval covers the mean
        at least as often); ``-inf`` (the default) leaves the interval as it is.
    description : str
        One sentence on what the metric measures (shown by ``anonspread show``, in the
        result JSON and in the HTML report); defaults to the label.

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.Metric("detection", "proportion", label="P(detect source)").words
    'P(detect source)'
    >>> harness.Metric("rank", low=1).words
    'rank'
    """

    name: str
    kind: str = "mean"
    label: str = ""
    low: float = -math.inf
    description: str = ""

    @property
    def words(self) -> str:
        """The axis label: ``label``, else ``description``, else ``name``."""
        return self.label or self.description or self.name


@dataclass(frozen=True)
class Theory:
    """A theory curve overlaid on a plot: ``fn(params) -> float`` at every grid point.

    ``fn`` receives the full parameter point (x included) and returns the
    closed-form value or bound of ``metric`` there (NaN where it does not apply).

    Parameters
    ----------
    metric : str
        The metric the curve is drawn over.
    fn : callable
        ``fn(params) -> float``.
    label : str
        The curve's legend entry.

    Examples
    --------
    The share of heads of a coin of bias ``p`` is ``p``:

    >>> from anonspread import harness
    >>> exact = harness.Theory("heads", lambda params: params["p"], label="p")
    >>> exact.fn({"p": 0.9})
    0.9
    >>> harness.PlotSpec(x="p", theory=(exact,)).to_dict()["theory"]
    [{'metric': 'heads', 'label': 'p'}]
    """

    metric: str
    fn: Callable[[Params], float]
    label: str = "theory"


@dataclass(frozen=True)
class Reference:
    """A reference drawn from the run's own estimates: ``fn(params, means) -> float``.

    ``means`` maps each metric to its estimate at the point (e.g. ``1/E[N_T]``, the
    detection probability of a uniform guess among the infected nodes:
    ``Reference("detection", lambda p, m: 1 / m["n_infected"], "1/E[N_T]")``); NaN
    where it does not apply.

    Parameters
    ----------
    metric : str
        The metric whose panel shows the reference.
    fn : callable
        ``fn(params, means) -> float``.
    label : str
        Its legend entry.

    Examples
    --------
    >>> from anonspread import harness
    >>> guess = harness.Reference("detection", lambda p, m: 1 / m["n_infected"],
    ...                           "1/E[N_T]")
    >>> guess.fn({"T": 4}, {"detection": 0.31, "n_infected": 8.0})
    0.125
    """

    metric: str
    fn: Callable[[Params, Mapping[str, float]], float]
    label: str = "reference"


@dataclass(frozen=True)
class PlotSpec:
    """How the tidy results are drawn: one panel per y metric, one line per series.

    Parameters
    ----------
    x : str
        Grid parameter on the horizontal axis.
    y : tuple of str
        Metrics to draw (one panel each); empty means all metrics.
    series : str or None
        Grid parameter distinguishing lines; other varying parameters are folded
        into the series label.
    logx : bool
        Logarithmic x axis (a grid value 0 is kept: the axis is linear from 0 to the
        smallest positive value, and the figure says so).
    logy : bool or None
        Logarithmic y axes; ``None`` (the default) chooses per panel: log when the values
        are >= 0 and the positive ones span a factor of 100 or more. Values of 0 are
        drawn at 0 (linear from 0 to the smallest positive value), never dropped.
    theory : tuple of Theory
        Closed-form curves drawn dashed over the estimates.
    panels : tuple of (ylabel, metrics) pairs
        Metrics overlaid on one shared axis per panel, labelled by their metric label
        (for curves the figure exists to compare); when given it replaces ``y``.
    facet : str or None
        Grid parameter with one column of panels per value (rows: the metrics; panels
        of a row share their y axis).
    references : tuple of Reference
        Values derived from the estimates (such as 1/E[N_T]) drawn as grey crosses.
    annotate : tuple of str
        Parameters whose values in each facet (in series order) are written under its
        title (e.g. the T of each protocol).
    xlabel : str
        Label of the horizontal axis (defaults to ``x``, the axis name), e.g.
        ``"spy fraction p"`` for the axis ``fraction``.

    Notes
    -----
    A categorical ``x`` (string values) is drawn as markers with error bars, the series
    side by side within each category, never joined by lines.

    Examples
    --------
    The sidecar JSON records the spec (:meth:`to_dict`); ``anonspread plot`` reads it back:

    >>> from anonspread import harness
    >>> spec = harness.PlotSpec(x="T", y=("detection",), series="estimator", logy=False)
    >>> spec.to_dict()["series"], harness.PlotSpec.from_dict(spec.to_dict()) == spec
    ('estimator', True)
    """

    x: str
    y: tuple[str, ...] = ()
    series: str | None = None
    logx: bool = False
    logy: bool | None = None
    theory: tuple[Theory, ...] = ()
    panels: tuple[tuple[str, tuple[str, ...]], ...] = ()
    facet: str | None = None
    references: tuple[Reference, ...] = ()
    annotate: tuple[str, ...] = ()
    xlabel: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (theory callables are recorded by label only)."""
        return {
            "x": self.x,
            "y": list(self.y),
            "series": self.series,
            "logx": self.logx,
            "logy": self.logy,
            "theory": [{"metric": t.metric, "label": t.label} for t in self.theory],
            "panels": [[ylabel, list(ms)] for ylabel, ms in self.panels],
            "facet": self.facet,
            "annotate": list(self.annotate),
            "references": [{"metric": r.metric, "label": r.label} for r in self.references],
            "xlabel": self.xlabel,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlotSpec:
        """Rebuild a spec from :meth:`to_dict` output (without theory curves).

        Parameters
        ----------
        data : mapping
            What :meth:`to_dict` returned (read back from a result's JSON).

        Returns
        -------
        PlotSpec
        """
        return cls(
            x=data["x"],
            y=tuple(data.get("y", ())),
            series=data.get("series"),
            logx=bool(data.get("logx", False)),
            logy=None if data.get("logy") is None else bool(data["logy"]),
            panels=tuple((str(p[0]), tuple(p[1])) for p in data.get("panels", ())),
            facet=data.get("facet"),
            annotate=tuple(data.get("annotate", ())),
            xlabel=str(data.get("xlabel", "")),
        )


@dataclass(frozen=True, repr=False)
class Experiment:
    """A named, registered computation over a parameter grid.

    Parameters
    ----------
    name : str
        Registry key and output file stem (letters, digits, ``_ . -``).
    title : str
        One line, shown by ``anonspread list``.
    description : str
        What it computes, which paper figure it reproduces, where it differs.
    grid : Grid
        The parameter points.
    metrics : tuple of Metric
        What each trial (or evaluation) reports.
    trial, trials, evaluate : callable, optional
        Exactly one of them; see the module docstring.
    default_trials : int
        Trials per point when the caller gives none (ignored by ``evaluate``).
    batch_size : int or None
        Trials per independent random stream; ``None`` picks 200 for ``trial``
        and 5000 for ``trials``.  Results depend on it (it fixes the streams),
        never on the executor or number of workers.
    plot : PlotSpec or None
        ``None`` plots every metric against the first grid parameter.
    axes : dict of str to Param
        Declared types of grid axes (a component kind for axes naming a registered
        graph, protocol...); an axis not declared takes the type of its values
        (:func:`harness.params.infer_param`). ``--set`` values are checked against it.
    metadata : callable or None
        ``metadata(points, seed) -> dict`` recorded under ``"components"`` in the result
        JSON (e.g. the seed and summary of every graph the run used).
    point_trials : callable or None
        ``point_trials(params, trials) -> int``: the trials of one point when the run asks
        for ``trials`` per point (e.g. fewer on an expensive graph); default: ``trials``.
    paired : str or None
        A grid axis computed together (``trials`` only; see the module docstring): the
        points of a group share their trials and random streams (those of the group's
        first point), so they must get the same number of trials.
    skip : callable or None
        ``skip(params) -> str | None``: why a grid point does not apply (e.g. an
        estimator whose model assumes another protocol), or None. Points with a reason
        are left out of the run -- never a refusal of the whole grid -- and listed with
        their reasons in the printed table, ``Table.skipped`` and the JSON's ``"skipped"``.
    cost : callable or None
        ``cost(params) -> float``: estimated node visits of one trial at a point. The
        run sums ``trials x cost`` over the grid and refuses a sweep above the work limit
        (:mod:`spread.limits`) before it starts; default: 1 per trial.
    derived : callable or None
        ``derived(params) -> bool``: the points that run no trials of their own, their
        rows being derived from the other points' by ``derive`` (e.g. a protocol's
        strongest attack, chosen among the attacks of the sweep, :mod:`harness.selection`).
    derive : callable or None
        ``derive(table, points, level) -> Table``: the aggregated table of the computed
        points, with the rows of the ``derived`` points (and any records in
        :attr:`Table.derived`); called before the outputs are written.
    prepare : callable or None
        ``prepare(points, pilot) -> Preparation | None``: one-off work of a run, done once
        in the run's own process before any batch is dispatched (the detection sweep
        trains the learned adversary once per graph, protocol and T there), for the
        ``points`` that have batches to run. It returns a
        :class:`~harness.work.Preparation` whose ``payload`` (picklable, with
        ``install()``) every worker installs once, before its first task. With
        ``pilot=True`` it does a scaled-down version for the cost estimate and returns the
        estimated seconds of the full one (:mod:`harness.pilot`). A ``prepare`` that takes
        a keyword ``executor`` (see :func:`prepare_takes_executor`) is given the run's
        executor and may run independent pieces as its tasks (the detection sweep trains
        its distinct learned models on a process pool's workers, one per worker at a time).
    pilot : bool
        Estimate the run's cost from a small timed pilot before it starts, print it as
        the first line, and refuse a run whose estimate is above the work limit
        (:mod:`harness.pilot`; the detection sweep does).
    warm : callable or None
        ``warm(point)``: builds what every trial of a point shares and the process keeps
        (the detection experiments' contact graph: a bundled dataset or a user's file is
        read once per process). The pilot calls it for each point before timing the
        point's trials and counts its time apart, as per-process work, so that a first
        trial's reading of a graph is not priced as the cost of every trial.
    price : callable or None
        ``price(point, trials, batch_size, timed) -> dict | None``: the cost of a point
        whose estimator is priced rather than timed (soft-margin in the detection sweep):
        ``{"estimator", "work" (node visits, deterministic), "cpu_s" (timed CPU seconds,
        or None when ``timed`` is false), "text"}``, or None (the pilot times the point's
        trials). :func:`harness.run` skips a point whose ``work``, counted at
        :data:`harness.pilot.VISITS_PER_SECOND`, is above its ``estimator_budget``, and the
        pilot reports the timed price instead of running the point's trials.
    derived_cost : callable or None
        ``derived_cost(point) -> dict | None``: for a derived point computed after the
        trials in the run's process (the detection sweep's ``bp-predicted``), the point
        whose trials cost what it costs (its stand-in: ``bp``'s trials at the same graph,
        protocol and ``T``), ``{"unpriced": what it does}`` when no pilot can tell its
        cost (``ceiling``: the first line then says it is not counted), or None when it
        costs nothing to speak of (``strongest``). The pilot times the stand-in and adds
        the derived point to the run's price, after the trials and on one process.
    template : str or None
        The sweep template the experiment was composed from (:func:`harness.compose` sets
        it); recorded in the JSON, so that the line that reproduces a run made from Python
        composes it again.

    Examples
    --------
    The share of heads of a coin of bias ``p``, 200 trials per point, run in this
    process (the CSV and JSON go to the current folder):

    >>> from anonspread import harness
    >>> exp = harness.Experiment(
    ...     name="doc-coin", title="A biased coin", description="share of heads",
    ...     grid=harness.Grid(product={"p": [0.1, 0.9]}),
    ...     metrics=(harness.Metric("heads", "proportion"),),
    ...     trial=lambda params, rng: {"heads": float(rng.random() < params["p"])})
    >>> exp.mode, exp.effective_batch_size()
    ('trial', 200)
    >>> result = harness.run(exp, trials=200, rng=1, workers=1, plot=False,
    ...                      progress=False)
    >>> print(result.table.format_text())
    p    trials  heads
    ---  ------  --------------------
    0.1  200     0.08 [0.0498, 0.126]
    0.9  200     0.925 [0.88, 0.954]
    """

    name: str
    title: str
    description: str
    grid: Grid
    metrics: tuple[Metric, ...]
    trial: Callable[[Params, np.random.Generator], Mapping[str, float]] | None = None
    trials: Callable[[Params, int, np.random.Generator], Mapping[str, Any]] | None = None
    evaluate: Callable[[Params], Mapping[str, float]] | None = None
    default_trials: int = 1000
    batch_size: int | None = None
    plot: PlotSpec | None = field(default=None)
    axes: Mapping[str, Param] = field(default_factory=dict)
    metadata: Callable[..., Mapping[str, Any]] | None = None
    point_trials: Callable[[Params, int], int] | None = None
    paired: str | None = None
    skip: Callable[[Params], str | None] | None = None
    cost: Callable[[Params], float] | None = None
    derived: Callable[[Params], bool] | None = None
    derive: Callable[..., Any] | None = None
    prepare: Callable[..., Any] | None = None
    pilot: bool = False
    warm: Callable[[Params], Any] | None = None
    price: Callable[..., Mapping[str, Any] | None] | None = None
    derived_cost: Callable[[Params], Mapping[str, Any] | None] | None = None
    template: str | None = None

    def __repr__(self) -> str:
        """A few lines: name, title, grid axes, metrics, how it computes."""
        axes = []
        for part in (self.grid.product, self.grid.zip):
            for k, v in part.items():
                vals = list(dict.fromkeys(v))  # a zipped axis repeats its values
                shown = ", ".join(map(str, vals[:6])) + (", ..." if len(vals) > 6 else "")
                if len(vals) > 6 or len(vals) < len(v):
                    shown += f" ({len(vals)} distinct of {len(v)})"
                axes.append(f"  {k}: {shown}")
        try:
            how = self.mode + ("" if self.mode == "evaluate" else f", {self.default_trials:,} trials per point by default")
        except InvalidParameterError:
            how = "no compute function"
        return "\n".join([f"<Experiment {self.name!r}: {self.title}>", f"computes: {how}",
                          "grid" + (" (zip)" if self.grid.zip else "") + ":", *axes,
                          f"metrics: {', '.join(m.name for m in self.metrics)}"])

    @property
    def mode(self) -> str:
        """``"trial"``, ``"trials"`` or ``"evaluate"``."""
        for mode in ("trial", "trials", "evaluate"):
            if getattr(self, mode) is not None:
                return mode
        raise InvalidParameterError(
            f"experiment {self.name!r} must give one of trial, trials or evaluate"
        )

    @property
    def is_exact(self) -> bool:
        """True for closed-form experiments (one evaluation per point, no randomness)."""
        return self.mode == "evaluate"

    def effective_batch_size(self) -> int:
        """Trials per random stream (see ``batch_size``)."""
        if self.batch_size is not None:
            return self.batch_size
        return {"trial": 200, "trials": 5000, "evaluate": 1}[self.mode]

    def plot_spec(self) -> PlotSpec:
        """The declared plot spec, or the default one."""
        if self.plot is not None:
            return self.plot
        names = self.grid.names
        return PlotSpec(x=names[0] if names else "", y=tuple(m.name for m in self.metrics))


def axis_params(exp: Experiment) -> dict[str, Param]:
    """The type of every grid axis: declared in ``exp.axes``, else inferred from its values.

    Parameters
    ----------
    exp : Experiment
        The experiment.

    Returns
    -------
    dict of str to Param
        One entry per axis of ``exp.grid`` (product and zip).
    """
    out = {}
    for part in (exp.grid.product, exp.grid.zip):
        for name, values in part.items():
            out[name] = exp.axes.get(name) or infer_param(list(values))
    return out


def with_overrides(exp: Experiment, overrides: Mapping[str, Any]) -> Experiment:
    """``exp`` with some grid axes replaced, each value checked against the axis's type.

    Command-line text (:class:`~harness.params.CliText`) is parsed by the axis's type;
    other values must already have it (``T = 2.5`` on an integer axis is refused).

    Parameters
    ----------
    exp : Experiment
        The experiment.
    overrides : mapping of str to value or list of values
        New values of some axes of the grid (a scalar is one value).

    Returns
    -------
    Experiment
        A checked copy of ``exp`` (``exp`` itself is unchanged).

    Raises
    ------
    InvalidParameterError, InvalidTypeError
        Naming the axis, the value and the accepted type; unknown axes list the grid's.
    """
    import dataclasses

    types = axis_params(exp)
    typed = {}
    for key, values in overrides.items():
        if isinstance(values, str | bytes) or not isinstance(values, list | tuple):
            values = [values]
        typed[key] = types[key].check_all(key, values) if key in types else list(values)
    grid = check_grid(exp.grid.with_values(typed))
    return check_experiment(dataclasses.replace(exp, grid=grid))


def check_experiment(exp: Any) -> Experiment:
    """Validate every field of an experiment (the one place they are checked).

    Parameters
    ----------
    exp : object
        Should be an :class:`Experiment`.

    Returns
    -------
    Experiment
        ``exp``, checked.

    Raises
    ------
    InvalidTypeError, InvalidParameterError
        With a message naming the experiment and the offending field.
    """
    if not isinstance(exp, Experiment):
        raise InvalidTypeError(f"experiment must be a harness.Experiment; got {type(exp).__name__}")
    if not isinstance(exp.name, str) or not _NAME.match(exp.name):
        raise InvalidParameterError(
            f"experiment name must start with a letter and use letters, digits, '_', '.', '-'; "
            f"got {exp.name!r}"
        )
    if len(exp.name) > MAX_NAME:
        raise InvalidParameterError(
            f"experiment name must have at most {MAX_NAME} characters (its output files, e.g. "
            f"NAME.journal.jsonl and their temporary copies, must fit a file system's 255-byte "
            f"names); got {len(exp.name)} characters: {exp.name[:40]!r}...")
    where = f"experiment {exp.name!r}"
    given = [m for m in ("trial", "trials", "evaluate") if getattr(exp, m) is not None]
    if len(given) != 1:
        raise InvalidParameterError(
            f"{where} must give exactly one of trial, trials, evaluate; got {given or 'none'}"
        )
    if not callable(getattr(exp, given[0])):
        raise InvalidTypeError(f"{where}: {given[0]} must be callable")
    check_grid(exp.grid)
    clash = set(exp.grid.names) & set(_COLUMNS)
    if clash:
        raise InvalidParameterError(
            f"{where}: grid parameter names {sorted(clash)} clash with result columns {_COLUMNS}"
        )
    if not exp.metrics:
        raise InvalidParameterError(f"{where} must declare at least one metric")
    names = [m.name for m in exp.metrics]
    if len(set(names)) != len(names):
        raise InvalidParameterError(f"{where} declares a metric twice: {names}")
    for m in exp.metrics:
        if not isinstance(m, Metric):
            raise InvalidTypeError(f"{where}: metrics must be harness.Metric; got {m!r}")
        if m.kind not in METRIC_KINDS:
            raise InvalidParameterError(
                f"{where}: metric {m.name!r} kind must be one of {METRIC_KINDS}; got {m.kind!r}"
            )
        if m.name in exp.grid.names or m.name in _COLUMNS:
            raise InvalidParameterError(f"{where}: metric name {m.name!r} clashes with a column")
        if isinstance(m.low, bool) or not isinstance(m.low, (int, float)) or math.isnan(m.low) \
                or m.low == math.inf:
            raise InvalidParameterError(
                f"{where}: metric {m.name!r} low must be a real number or -inf; got {m.low!r}"
            )
    if not isinstance(exp.axes, Mapping):
        raise InvalidTypeError(f"{where}: axes must be a mapping axis -> harness.Param")
    for key, spec in exp.axes.items():
        if not isinstance(spec, Param):
            raise InvalidTypeError(f"{where}: axes[{key!r}] must be a harness.Param; got {spec!r}")
        if key in exp.grid.names:
            values = [*exp.grid.product.get(key, ()), *exp.grid.zip.get(key, ())]
            spec.check_all(key, values)
    if (exp.derived is None) != (exp.derive is None):
        raise InvalidParameterError(f"{where}: derived and derive go together; got only one of them")
    if not isinstance(exp.pilot, bool):
        raise InvalidTypeError(f"{where}: pilot must be True or False; got {exp.pilot!r}")
    for hook in ("metadata", "point_trials", "skip", "derived", "derive", "prepare", "warm", "price",
                 "derived_cost"):
        if getattr(exp, hook) is not None and not callable(getattr(exp, hook)):
            raise InvalidTypeError(f"{where}: {hook} must be callable or None")
    check_int(exp.default_trials, f"{where}: default_trials", low=1)
    if exp.paired is not None:
        if exp.paired not in exp.grid.names:
            raise InvalidParameterError(
                f"{where}: paired must name a grid parameter {list(exp.grid.names)}; got {exp.paired!r}"
            )
        if exp.mode != "trials":
            raise InvalidParameterError(f"{where}: paired needs trials(params, n, rng); got {exp.mode}")
    if exp.batch_size is not None:
        check_int(exp.batch_size, f"{where}: batch_size", low=1)
    spec = exp.plot_spec()
    params = exp.grid.names
    if spec.x not in params:
        raise InvalidParameterError(
            f"{where}: plot x must be a grid parameter {list(params)}; got {spec.x!r}"
        )
    if not isinstance(spec.xlabel, str):
        raise InvalidTypeError(f"{where}: plot xlabel must be a string; got {spec.xlabel!r}")
    for p in spec.annotate:
        if p not in params:
            raise InvalidParameterError(f"{where}: plot annotate must name grid parameters; got {p!r}")
    for role in ("series", "facet"):
        value = getattr(spec, role)
        if value is not None and value not in params:
            raise InvalidParameterError(
                f"{where}: plot {role} must be a grid parameter {list(params)}; got {value!r}"
            )
    for y in (*spec.y, *(t.metric for t in spec.theory), *(r.metric for r in spec.references)):
        if y not in names:
            raise InvalidParameterError(f"{where}: plot metric {y!r} is not one of {names}")
    return exp


def prepare_takes_executor(prepare: Callable[..., Any] | None) -> bool:
    """Whether an :attr:`Experiment.prepare` takes the run's executor (a keyword
    ``executor``, or ``**kwargs``): the runner then passes it.

    Parameters
    ----------
    prepare : callable or None

    Returns
    -------
    bool

    Examples
    --------
    >>> from anonspread.harness.experiment import prepare_takes_executor
    >>> prepare_takes_executor(lambda points, pilot: None)
    False
    >>> prepare_takes_executor(lambda points, pilot, *, executor=None: None)
    True
    """
    import inspect

    if prepare is None:
        return False
    try:
        params = inspect.signature(prepare).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "executor" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
