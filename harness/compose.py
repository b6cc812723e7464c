"""Sweeps composed from registered components (``anonspread sweep``).

A :class:`SweepTemplate` is a recipe such as "detection probability of an
estimator against a protocol on a graph after T steps" or "utility of a
mechanism at privacy level eps on an alphabet of size k".  It names which of its
parameters select a component of which kind (see :mod:`harness.components`),
the defaults of the others, its metrics and one compute function taking the
resolved component factories::

    trial(params, rng, *, components)        trials(params, n, rng, *, components)
    evaluate(params, *, components)

where ``components[param][name]`` is the factory of every component the sweep
uses.  :func:`compose` turns a template plus axes into an ordinary
:class:`~harness.experiment.Experiment`, which then runs like any other.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.harness.components import component_info
from anonspread.harness.experiment import Experiment, Metric, PlotSpec, check_experiment
from anonspread.harness.grid import Grid, Scalar, check_grid
from anonspread.harness.params import REQUIRED, Param, infer_param
from anonspread.registry import Registry, suggest

__all__ = [
    "SweepTemplate",
    "compose",
    "default_name",
    "get_template",
    "list_templates",
    "load_sweep_file",
    "register_template",
]


@dataclass(frozen=True)
class SweepTemplate:
    """A recipe for sweeps over registered components.

    Parameters
    ----------
    name : str
        Registry key (``anonspread sweep NAME``).
    description : str
        What it computes.
    components : mapping
        Parameter name -> component kind (e.g. ``{"mechanism": "mechanism"}``).
    defaults : mapping
        Every parameter's default value (components included, by name); a
        parameter without a default must be given by the user. A list or tuple
        default is an axis of several values (e.g. the protocol/adversary pairs a
        comparison crosses by default); ``--set`` replaces it.
    metrics : tuple of Metric
        What it reports.
    trial, trials, evaluate : callable
        Exactly one, with the extra keyword ``components`` (see module docstring).
    default_trials : int
        Trials per point when the user gives none.
    plot : PlotSpec or None
        ``None`` derives one from the grid (see :func:`compose`).
    required : tuple of str
        Parameters without default that the user must give.
    types : mapping of str to Param
        Declared types of the non-component parameters; undeclared ones take the
        type of their default (an int default declares an integer axis).
    metadata : callable or None
        ``metadata(points, seed, components) -> dict`` recorded in the result JSON
        under ``"components"`` (the detection sweep records each graph's seed and
        summary there).
    paired : str or None
        A component axis whose values are computed together on the same trials
        (:attr:`harness.Experiment.paired`): the ``detection`` sweep scores all its
        estimators on the same simulated spreads.
    skip : callable or None
        ``skip(params, components) -> str | None``: why a point does not apply
        (:attr:`harness.Experiment.skip`); such points are skipped and named, never a
        refusal of the whole sweep.
    cost : callable or None
        ``cost(params, components=...) -> float``: node visits of one trial at a point
        (see :attr:`Experiment.cost`).
    derived, derive : callable or None
        Points derived from the others (:attr:`Experiment.derived`, called with the point)
        and how (``derive(table, points, level, components)``; :attr:`Experiment.derive`):
        the strongest attack of each protocol (:mod:`harness.selection`).
    prepare : callable or None
        ``prepare(points, pilot, components) -> Preparation | None``: one-off work done
        once per run before its batches (:attr:`Experiment.prepare`).
    pilot : bool
        Estimate the cost from a timed pilot first (:attr:`Experiment.pilot`).
    warm : callable or None
        ``warm(point, components=...)``: builds and keeps what a point's trials share (its
        graph) before the pilot times them (:attr:`Experiment.warm`).
    price : callable or None
        ``price(point, trials, batch_size, timed, components=...)``: the cost of a point
        priced rather than timed (:attr:`Experiment.price`).
    derived_cost : callable or None
        ``derived_cost(point)``: the stand-in point whose trials cost what a derived
        point costs (:attr:`Experiment.derived_cost`).

    Examples
    --------
    A template with no component: the share of heads of a coin of bias ``p``
    (:func:`register_template` registers and runs it).

    >>> from anonspread import harness
    >>> def coin(params, rng, *, components):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> tpl = harness.SweepTemplate(
    ...     name="doc-coin", description="a biased coin", components={},
    ...     defaults={"p": 0.5}, metrics=(harness.Metric("heads", "mean"),), trial=coin)
    >>> tpl.parameters, tpl.default_trials
    (('p',), 1000)
    """

    name: str
    description: str
    components: Mapping[str, str]
    defaults: Mapping[str, Scalar]
    metrics: tuple[Metric, ...]
    trial: Callable[..., Any] | None = None
    trials: Callable[..., Any] | None = None
    evaluate: Callable[..., Any] | None = None
    default_trials: int = 1000
    plot: PlotSpec | None = field(default=None)
    required: tuple[str, ...] = ()
    types: Mapping[str, Param] = field(default_factory=dict)
    metadata: Callable[..., Mapping[str, Any]] | None = None
    paired: str | None = None
    skip: Callable[..., str | None] | None = None
    cost: Callable[..., float] | None = None
    derived: Callable[..., bool] | None = None
    derive: Callable[..., Any] | None = None
    prepare: Callable[..., Any] | None = None
    pilot: bool = False
    warm: Callable[..., Any] | None = None
    price: Callable[..., Any] | None = None
    derived_cost: Callable[..., Any] | None = None

    @property
    def parameters(self) -> tuple[str, ...]:
        """All parameter names (components first)."""
        return tuple(dict.fromkeys((*self.components, *self.required, *self.defaults)))

    def param(self, name: str) -> Param:
        """The declared (or default-inferred) type of a non-dotted parameter.

        Parameters
        ----------
        name : str
            A parameter of the template (a component's own parameters are dotted,
            ``graph.n``, and typed by the component).

        Returns
        -------
        Param
            A component parameter is a ``str`` naming a component of its kind; an
            undeclared one without default accepts anything.
        """
        if name in self.components:
            return Param("str", self.defaults.get(name, REQUIRED), kind=self.components[name])
        if name in self.types:
            return self.types[name]
        if name in self.defaults:
            return infer_param(_as_list(name, self.defaults[name]))
        return Param("any")


_TEMPLATES: Registry[SweepTemplate] = Registry("sweep template")


def register_template(template: SweepTemplate, *, replace: bool = False) -> SweepTemplate:
    """Register a sweep template (``anonspread sweep --list`` shows it).

    Parameters
    ----------
    template : SweepTemplate
        The template; its name must be new unless ``replace``.
    replace : bool
        Replace a template of the same name.

    Returns
    -------
    SweepTemplate
        ``template``.

    Examples
    --------
    Register the coin of :class:`SweepTemplate`, sweep its bias and run it (in this
    process; the CSV and JSON go to the current folder):

    >>> from anonspread import harness
    >>> def coin(params, rng, *, components):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> _ = harness.register_template(harness.SweepTemplate(
    ...     name="doc-coin", description="a biased coin", components={},
    ...     defaults={"p": 0.5}, metrics=(harness.Metric("heads", "mean"),), trial=coin),
    ...     replace=True)
    >>> exp = harness.compose("doc-coin", product={"p": [0.1, 0.9]})
    >>> result = harness.run(exp, trials=200, rng=1, workers=1, plot=False,
    ...                      progress=False)
    >>> print(result.table.format_text())
    p    trials  heads
    ---  ------  --------------------
    0.1  200     0.08 [0.0423, 0.118]
    0.9  200     0.925 [0.888, 0.962]
    """
    if not isinstance(template, SweepTemplate):
        raise InvalidTypeError(f"template must be a SweepTemplate; got {type(template).__name__}")
    given = [m for m in ("trial", "trials", "evaluate") if getattr(template, m) is not None]
    if len(given) != 1:
        raise InvalidParameterError(
            f"sweep template {template.name!r} must give exactly one of trial, trials, evaluate"
        )
    return _TEMPLATES.add(template.name, template, replace=replace)


def get_template(name: str) -> SweepTemplate:
    """The registered template ``name`` (unknown names suggest close ones).

    Parameters
    ----------
    name : str
        As ``anonspread sweep --list`` shows it.

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.get_template("detection").name
    'detection'
    """
    return _TEMPLATES.get(name)


def list_templates() -> list[SweepTemplate]:
    """All registered sweep templates, sorted by name.

    Examples
    --------
    >>> from anonspread import harness
    >>> names = [t.name for t in harness.list_templates()]
    >>> names == sorted(names), {"detection", "ldp-utility", "protocol-attack"} <= set(names)
    (True, True)
    """
    return [_TEMPLATES.get(n) for n in _TEMPLATES.names()]


def _bound(fn: Callable[..., Any], components: Mapping[str, Mapping[str, Any]], *args: Any) -> Any:
    return fn(*args, components=components)


def _metadata(fn: Callable[..., Any], components: Mapping[str, Mapping[str, Any]], points: Any,
              seed: int) -> Mapping[str, Any]:
    return fn(points, seed, components)


def _skip(fn: Callable[..., Any], components: Mapping[str, Mapping[str, Any]], point: Any) -> Any:
    return fn(point, components)


def _derive(fn: Callable[..., Any], components: Mapping[str, Mapping[str, Any]], table: Any,
            points: Any, level: float) -> Any:
    return fn(table, points, level, components)


def _prepare(fn: Callable[..., Any], components: Mapping[str, Mapping[str, Any]], points: Any,
             pilot: bool, *, executor: Any = None) -> Any:
    from anonspread.harness.experiment import prepare_takes_executor

    if executor is not None and prepare_takes_executor(fn):
        return fn(points, pilot, components, executor=executor)
    return fn(points, pilot, components)


def _typed_axes(tpl: SweepTemplate, axes: Mapping[str, list[Any]]) -> tuple[dict[str, list[Any]], dict[str, Param]]:
    """Check (and parse CLI text of) every axis; component parameters by each component's type.

    Returns the typed axes and the declared type of each (for the experiment's ``axes``).
    """
    from anonspread.harness.components import component_info

    typed: dict[str, list[Any]] = {}
    types: dict[str, Param] = {}
    for key, values in axes.items():
        if "." not in key:
            types[key] = tpl.param(key)
            typed[key] = types[key].check_all(key, values)
    for key, values in axes.items():
        if "." not in key:
            continue
        axis, _, pname = key.partition(".")
        if axis not in tpl.components:
            raise InvalidParameterError(
                f"sweep {tpl.name!r} has no component axis {axis!r} for {key!r}; its component "
                f"axes are: {', '.join(tpl.components) or '(none)'}"
            )
        kind = tpl.components[axis]
        checked: list[Any] | None = None
        for cname in typed[axis]:
            comp = component_info(kind, cname)
            spec = comp.params.get(pname)
            if spec is None:
                have = ", ".join(comp.params) or "no parameters"
                raise InvalidParameterError(
                    f"{key!r} is not a parameter of {kind} {cname!r}{suggest(pname, comp.params)} "
                    f"(it has {have}); a {axis}.* axis applies to every {axis} of the sweep"
                )
            checked = spec.check_all(key, values)
            earlier = types.get(key)
            if earlier is not None and earlier.doc and spec.doc and spec.doc not in earlier.doc.split(" or "):
                # graph.p of two families: both meanings, for the axis label and the docs
                spec = dataclasses.replace(spec, doc=f"{earlier.doc} or {spec.doc}")
            types[key] = spec
        typed[key] = checked if checked is not None else list(values)
    for axis, kind in tpl.components.items():
        for cname in typed.get(axis, ()):
            for pname, spec in component_info(kind, cname).params.items():
                if spec.default is REQUIRED and f"{axis}.{pname}" not in typed:
                    raise InvalidParameterError(
                        f"{kind} {cname!r} needs a value for '{axis}.{pname}' ({spec.describe()}), "
                        f"e.g. --set {axis}.{pname}=..."
                    )
    return typed, types


def _as_list(name: str, values: Any) -> list[Scalar]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        return [values]
    return list(values)


def compose(
    template: str | SweepTemplate,
    *,
    product: Mapping[str, Any] | None = None,
    zip: Mapping[str, Any] | None = None,
    name: str | None = None,
    title: str | None = None,
    plot: Mapping[str, Any] | PlotSpec | None = None,
    default_trials: int | None = None,
) -> Experiment:
    """Build an :class:`Experiment` from a template and the axes to vary.

    Parameters not in ``product`` or ``zip`` keep their template default.  Component
    names are checked against the registry (with "did you mean").  The default plot
    puts the first varying non-component parameter on x and the first varying
    component on the series.

    Parameters
    ----------
    template : str or SweepTemplate
        The sweep template (``"detection"``, ``"ldp-utility"``, ``"protocol-attack"``;
        :func:`list_templates`).
    product : mapping, optional
        Axis -> value or list of values; the grid is their Cartesian product.
        Component parameters are written ``COMPONENT.PARAMETER`` (``"graph.n"``).
    zip : mapping, optional
        Axes varied together (lists of equal length), crossed with ``product``.
    name, title : str, optional
        The experiment's name (its output files' stem) and title; default: derived
        from the template.
    plot : mapping or PlotSpec, optional
        The figure (fields of :class:`PlotSpec`); default as above.
    default_trials : int, optional
        Trials per point when :func:`run` is not given ``trials``.

    Returns
    -------
    Experiment

    Raises
    ------
    InvalidParameterError
        Unknown parameters or component names, a required parameter left out,
        unequal zipped axes.

    Examples
    --------
    >>> from anonspread import harness
    >>> exp = harness.compose("detection", product={
    ...     "graph": "regular-3", "protocol": "adaptive-diffusion", "estimator": "ml", "T": [2, 4]})
    >>> exp.name, len(harness.expand(exp.grid))
    ('sweep-detection-a7de1593', 2)
    """
    tpl = get_template(template) if isinstance(template, str) else template
    product = {k: _as_list(k, v) for k, v in (product or {}).items()}
    zipped = {k: _as_list(k, v) for k, v in (zip or {}).items()}
    for key in (*product, *zipped):
        if key not in tpl.parameters and key.partition(".")[0] not in tpl.components:
            raise InvalidParameterError(
                f"sweep {tpl.name!r} has no parameter {key!r}{suggest(key, tpl.parameters)}; "
                f"it has: {', '.join(tpl.parameters)} and COMPONENT.PARAMETER for the "
                f"component axes ({', '.join(tpl.components)})"
            )
    axes: dict[str, list[Scalar]] = {}
    for key in tpl.parameters:
        if key in product:
            axes[key] = product[key]
        elif key not in zipped:
            if key not in tpl.defaults:
                kind = tpl.components.get(key)
                choices = ""
                if kind is not None:
                    from anonspread.harness.components import list_components

                    choices = f" (registered {kind}s: {', '.join(list_components(kind)[kind])})"
                raise InvalidParameterError(f"sweep {tpl.name!r} needs a value for {key!r}{choices}")
            axes[key] = _as_list(key, tpl.defaults[key])
    for key in product:
        if key not in axes:
            axes[key] = product[key]
    typed, types = _typed_axes(tpl, {**axes, **zipped})
    axes = {k: typed[k] for k in axes}
    zipped = {k: typed[k] for k in zipped}
    grid = check_grid(Grid(product=axes, zip=zipped))
    resolved: dict[str, dict[str, Any]] = {}
    for key, kind in tpl.components.items():
        values = axes.get(key) or zipped.get(key, [])
        resolved[key] = {str(v): component_info(kind, str(v)) for v in values}
    mode = next(m for m in ("trial", "trials", "evaluate") if getattr(tpl, m) is not None)
    fn = functools.partial(_bound, getattr(tpl, mode), resolved)
    meta = functools.partial(_metadata, tpl.metadata, resolved) if tpl.metadata is not None else None
    skip = functools.partial(_skip, tpl.skip, resolved) if tpl.skip is not None else None
    paired = tpl.paired if tpl.paired in grid.names and mode == "trials" else None
    spec = _plot_spec(tpl, grid, plot)
    exp = Experiment(
        name=name or default_name(tpl.name, grid),
        title=title or f"{tpl.name} sweep",
        description=tpl.description,
        grid=grid,
        metrics=tpl.metrics,
        default_trials=tpl.default_trials if default_trials is None else default_trials,
        plot=spec,
        axes=types,
        metadata=meta,
        paired=paired,
        skip=skip,
        cost=functools.partial(_bound, tpl.cost, resolved) if tpl.cost is not None else None,
        derived=tpl.derived,
        derive=functools.partial(_derive, tpl.derive, resolved) if tpl.derive is not None else None,
        prepare=functools.partial(_prepare, tpl.prepare, resolved) if tpl.prepare is not None else None,
        pilot=tpl.pilot,
        warm=functools.partial(_bound, tpl.warm, resolved) if tpl.warm is not None else None,
        price=functools.partial(_bound, tpl.price, resolved) if tpl.price is not None else None,
        derived_cost=tpl.derived_cost,
        template=tpl.name,
        **{mode: fn},
    )
    return check_experiment(exp)


def default_name(template: str, grid: Grid) -> str:
    """The output name of a sweep not given ``--name``: ``sweep-TEMPLATE-HASH``, HASH the
    first 8 hex digits of the SHA-256 of its grid (axes and values, canonical JSON).

    Two sweeps over different grids never share a name, so they never write over each
    other's files; the same grid gives the same name (rerun it with ``--resume``, or
    ``--overwrite`` to replace it).

    Parameters
    ----------
    template : str
        The template's name.
    grid : Grid
        The sweep's grid.

    Returns
    -------
    str

    Examples
    --------
    >>> from anonspread.harness import Grid
    >>> a = default_name("detection", Grid(product={"T": [2, 4]}))
    >>> a.startswith("sweep-detection-"), a == default_name("detection", Grid(product={"T": [2, 4]}))
    (True, True)
    >>> a == default_name("detection", Grid(product={"T": [2, 6]}))
    False
    """
    import hashlib
    import json

    text = json.dumps(grid.to_dict(), sort_keys=True, default=repr, separators=(",", ":"))
    return f"sweep-{template}-{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def _plot_spec(tpl: SweepTemplate, grid: Grid, plot: Mapping[str, Any] | PlotSpec | None) -> PlotSpec:
    if isinstance(plot, PlotSpec):
        return plot
    plot = dict(plot or {})
    base = tpl.plot
    varying = [k for k in grid.names if len({*grid.product.get(k, []), *grid.zip.get(k, [])}) > 1]
    numeric = [k for k in varying if k not in tpl.components and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool)
        for v in (*grid.product.get(k, []), *grid.zip.get(k, [])))]
    x = plot.get("x") or (base.x if base and base.x in varying else None) or (numeric or varying or list(grid.names))[0]
    series_default = next((k for k in varying if k != x and k in tpl.components), None)
    if base and base.series in varying and base.series != x:
        series_default = base.series
    return PlotSpec(
        x=x,
        y=tuple(plot.get("y", base.y if base else ())),
        series=plot.get("series", series_default),
        logx=bool(plot.get("logx", base.logx if base else False)),
        logy=_tristate(plot.get("logy", base.logy if base else None)),
        theory=base.theory if base else (),
        # the template's axis label, while x is still the template's axis
        xlabel=str(plot.get("xlabel", base.xlabel if base and base.x == x else "")),
    )


def _tristate(value: Any) -> bool | None:
    return None if value is None else bool(value)


_SWEEP_KEYS = {"template", "name", "title", "product", "zip", "plot", "trials", "rng", "batch_size"}


#: Largest sweep file read (a grid is a few lines; anything larger is not a sweep).
MAX_SWEEP_FILE_BYTES = 64 * 2**20

_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def _decode_toml(path: str, raw: bytes) -> str:
    """The text of a TOML file, which the TOML standard requires to be UTF-8."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise InvalidParameterError(
                f"sweep file {path} must be UTF-8 text (TOML is always UTF-8); it is {name} "
                "(it starts with a byte-order mark): save it as UTF-8")
    if b"\x00" in raw[:4096]:  # valid UTF-8, but never in TOML: UTF-16/32 without a mark
        raise InvalidParameterError(
            f"sweep file {path} must be UTF-8 text (TOML is always UTF-8); it holds NUL bytes "
            f"(byte {raw.index(bytes(1))}: UTF-16 or UTF-32 without a byte-order mark?): save it as UTF-8")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(
            f"sweep file {path} must be UTF-8 text (TOML is always UTF-8); byte {exc.start} is not "
            "UTF-8: save it as UTF-8") from None
    return text.removeprefix("\ufeff")  # a UTF-8 byte-order mark is harmless


def load_sweep_file(path: str) -> dict[str, Any]:
    """Read a sweep description from TOML (keys: template, name, title, product, zip,
    plot, trials, rng, batch_size).

    Parameters
    ----------
    path : str
        A TOML file (UTF-8, as TOML requires) of at most 64 MiB.

    Returns
    -------
    dict
        The file's keys and values, checked (``anonspread sweep --file`` passes them on
        to :func:`compose`).

    Raises
    ------
    InvalidParameterError
        Malformed TOML or unknown keys; on Python < 3.11 (no :mod:`tomllib`) a clear
        message says so.
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        raise InvalidParameterError(
            "reading sweep files needs Python >= 3.11 (tomllib); give the axes with --set/--zip"
        ) from None
    import stat

    try:
        # non-blocking: opening a FIFO for reading would wait for a writer (issue 33)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise InvalidParameterError(
                    f"sweep file {path} must be a regular file (a device or pipe may never end)")
            raw = fh.read(MAX_SWEEP_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidParameterError(f"cannot read sweep file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SWEEP_FILE_BYTES:
        raise InvalidParameterError(
            f"sweep file {path} must be at most {MAX_SWEEP_FILE_BYTES // 2**20} MiB of TOML; it is larger")
    text = _decode_toml(path, raw)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(f"sweep file {path} is not valid TOML: {exc}") from None
    extra = set(data) - _SWEEP_KEYS
    if extra:
        raise InvalidParameterError(
            f"sweep file {path} has unknown keys {sorted(extra)}; accepted: {sorted(_SWEEP_KEYS)}"
        )
    return data
