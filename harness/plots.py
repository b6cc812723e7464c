"""Figures from tidy results: estimates with confidence bands, log axes, theory overlays.

matplotlib is imported lazily and used through its object API
(:class:`matplotlib.figure.Figure` with the Agg canvas), so plotting neither
needs a display nor leaves figures registered in ``pyplot``.

Every figure carries its set-up: the title names the run and what it holds fixed (graph
with n and m, protocol, estimator, utility, trials per point, from the run's JSON), axis
labels are the metrics' and parameters' words, one legend sits outside the panels, a
detection panel shows what a uniform guess among the infected nodes achieves (1/E[N_T]),
and points where a material share of trials covered their whole component (a ``saturated``
estimate of at least :data:`SATURATED_SHARE`, 5%) are ringed, and points where most of it was
covered on average (mean ``component_fraction`` of at least
:data:`~anonspread.harness.coverage.HIGH_COVERAGE`, 50%) are drawn inside a black hexagon. Log axes (asked for, or
chosen when a panel's values span two decades or more) never drop a point: when a value is
0 (an estimate of 0, a grid value 0, an interval reaching 0) the axis is logarithmic above
its smallest positive value and linear from 0 up to it, so a 0 is drawn at 0, and the
title says so. There an interval reaching 0 is drawn as its upper end only (an arrow
pointing down from the 95% bound, named in the legend): a band or bar from 0 would fill
the lower decades and read as data. A strongest attack's choices are named in its legend
entry.
"""

from __future__ import annotations

import io
import math
import os
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from anonspread.errors import AnonspreadError, InvalidParameterError
from anonspread.harness.coverage import HIGH_COVERAGE, covered_points
from anonspread.harness.errors import OutputError
from anonspread.harness.experiment import PlotSpec, Reference
from anonspread.harness.results import Table, atomic_write, check_replaceable, keep_rows

__all__ = ["SATURATED_SHARE", "draw", "figure_title", "param_words", "plot_table"]

#: Marker shapes of the lines sharing a panel (all can be drawn hollow).
_MARKERS = "osD^v<>p"
#: Line styles of the lines sharing a panel; plain dashes ("--") are left to theory curves.
_LINESTYLES = ("-", (0, (1, 1.2)), "-.", (0, (5, 1, 1, 1, 1, 1)))


def _line_style(k: int, n: int) -> dict[str, Any]:
    """Marker and line of the ``k``-th of ``n`` line families drawn on one panel.

    Families get distinct marker shapes and line styles; every family but the last is
    drawn hollow, and earlier families get larger markers, so where curves coincide
    (e.g. several adversaries all at 0) the ones drawn first stay visible as rings around
    the later ones instead of being hidden by the last one drawn.
    """
    if n <= 1:
        return {"marker": "o", "ms": 3}
    style: dict[str, Any] = {
        "marker": _MARKERS[k % len(_MARKERS)],
        "ms": 3.5 + 3.5 * (n - 1 - k) / (n - 1),
        "ls": _LINESTYLES[k % len(_LINESTYLES)],
        "mew": 1.1,
    }
    if k < n - 1:
        style["mfc"] = "none"
    return style


def _plain(value: float, _pos: Any = None) -> str:
    """A tick label as a plain number (0.02, 0.5, 20, 1e-05 only beyond %g's range)."""
    return f"{value:g}"


def _readable_log(ax: Any, which: str, values: Sequence[float] = ()) -> None:
    """Label a log axis at plain numbers: at ``values`` (the grid's x values) when they
    are few (at most 8) and far enough apart to be read, else at 1, 2, 5 x 10^k (or
    1, 3 x 10^k, or 10^k).

    The steps are the finest that the axis's span (in decades, taken from its current
    limits, so call it once the data are drawn) allows without crowding, and never fewer
    than two labels in view when a finer step provides them; minor ticks stay unlabelled.
    """
    import math

    import numpy as np
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    if not (lo > 0 and math.isfinite(hi) and hi > lo):
        return
    decades = math.log10(hi / lo)
    grid = sorted({float(v) for v in values if v > 0})
    gaps = [math.log10(b / a) for a, b in zip(grid, grid[1:])]
    if 2 <= len(grid) <= 8 and min(gaps) >= decades / 14:
        axis.set_major_locator(FixedLocator(grid))
        axis.set_major_formatter(FuncFormatter(_plain))
        axis.set_minor_formatter(NullFormatter())
        return
    choices = [(1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), tuple(np.arange(1.0, 10.0))]
    start = 0 if decades > 4.5 else 1 if decades > 2.6 else 2 if decades > 0.7 else 3
    subs = choices[start]
    for subs in choices[start:]:
        ticks = LogLocator(subs=subs, numticks=99).tick_values(lo, hi)
        if sum(lo <= t <= hi for t in ticks) >= 2:
            break
    axis.set_major_locator(LogLocator(subs=subs, numticks=12 if start == 0 else 99))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


#: Metric whose panel gets the uniform-guess reference, and the metric it is computed from.
_GUESS = ("detection", "n_infected")
_GUESS_LABEL = "1/E[N_T]: uniform guess among the infected"
#: Its legend entry when each series (or protocol) has its own curve.
_GUESS_SHORT = "uniform guess 1/E[N_T]"
#: The per-point metric flagging spreads that covered their whole connected component.
SATURATED = "saturated"
#: Share of a point's trials that must have covered their component for the point to be ringed:
#: a rare saturated trial (common on sparse random graphs, whose small components a spread
#: covers) does not change what the point says about the protocol; 1 trial in 20 may.
SATURATED_SHARE = 0.05
_SATURATED_LABEL = (f"saturated: in >= {SATURATED_SHARE:.0%} of its trials the spread covered "
                    "the source's whole component")
_SYMLOG_NOTE = ("log axes are linear from 0 to their lowest positive tick: every 0 is drawn at 0, "
                "no point is dropped")
#: Positive values spanning at least this ratio get a log axis when none is asked for.
_AUTO_LOG_SPAN = 100.0


def _inverse_size(params: Mapping[str, Any], means: Mapping[str, float]) -> float:
    size = means.get(_GUESS[1], math.nan)
    return 1.0 / size if size and size == size and size > 0 else math.nan


def _references(table: Table, spec: PlotSpec) -> tuple[Reference, ...]:
    """The spec's references, plus 1/E[N_T] on a detection panel when the table has E[N_T]."""
    refs = tuple(spec.references)
    metrics = {r["metric"] for r in table.rows}
    if set(_GUESS) <= metrics and not any(r.metric == _GUESS[0] for r in refs):
        refs += (Reference(_GUESS[0], _inverse_size, _GUESS_LABEL),)
    return refs


#: Colours of reference curves shared by several series (never a series' colour).
_SHARED_GREYS = ("0.1", "0.45", "0.65")


def _point_means(table: Table) -> Any:
    """``point -> {metric: mean}``; a point without E[N_T] (a strongest attack's, which has
    detection only) takes it from the points that differ from it by the estimator alone,
    when they agree (they score the same spreads)."""
    means = _means(table)
    others = [p for p in table.params if p not in ("estimator", "attack")]
    sizes: dict[tuple, set[float]] = {}
    for r in table.rows:
        if r["metric"] == _GUESS[1]:
            sizes.setdefault(tuple(r[p] for p in others), set()).add(round(float(r["mean"]), 9))

    def lookup(pp: Mapping[str, Any]) -> Mapping[str, float]:
        found = means.get(tuple(pp[p] for p in table.params), {})
        if _GUESS[1] not in found and len(others) < len(table.params):
            shared = sizes.get(tuple(pp[p] for p in others), set())
            if len(shared) == 1:
                return {**found, _GUESS[1]: next(iter(shared))}
        return found

    return lookup


def _means(table: Table) -> dict[tuple, dict[str, float]]:
    out: dict[tuple, dict[str, float]] = {}
    for r in table.rows:
        out.setdefault(tuple(r[p] for p in table.params), {})[r["metric"]] = r["mean"]
    return out


# --------------------------------------------------------------------------- scales


def _finite(values: Iterable[Any]) -> list[float]:
    return [float(v) for v in values
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]


def choose_scale(values: Iterable[Any], log: bool | None) -> tuple[str, float | None]:
    """``("linear", None)``, ``("log", None)`` or ``("symlog", linthresh)`` for an axis.

    ``log`` True asks for a log axis, False for a linear one, None decides: a log axis
    when the values are >= 0 and the positive ones span a factor of 100 or more. A log
    axis over values that include 0 (or below) is a symlog axis: logarithmic above
    ``linthresh`` (the power of ten at or below the smallest positive value), linear from
    0 to it, so no point is dropped.
    """
    vals = _finite(values)
    pos = [v for v in vals if v > 0]
    if log is False or not pos:
        return "linear", None
    if log is None and (min(vals) < 0 or max(pos) / min(pos) < _AUTO_LOG_SPAN):
        return "linear", None
    if min(vals) > 0:
        return "log", None
    return "symlog", 10.0 ** math.floor(math.log10(min(pos)))


def _apply_scale(ax: Any, which: str, scale: tuple[str, float | None], values: Sequence[Any] = ()) -> str:
    """Set an axis's scale (with readable ticks) for ``values`` (the axis's data: grid
    values on x, estimates and bounds on y); returns the note a symlog axis needs."""
    kind, linthresh = scale
    setter = ax.set_xscale if which == "x" else ax.set_yscale
    if kind == "linear":
        return ""
    grid = sorted(set(_finite(values))) if which == "x" else []
    if kind == "log":
        setter("log")
        _readable_log(ax, which, grid)
        return ""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    assert linthresh is not None
    vals = _finite(values)
    lo, hi = (min(vals), max(vals)) if vals else (0.0, linthresh)
    setter("symlog", linthresh=linthresh, linscale=0.4)
    top = max(hi, linthresh)
    decades = max(1, math.ceil(math.log10(top / linthresh) - 1e-9))
    step = 1 if decades <= 6 else 2
    ticks = [0.0] + [linthresh * 10.0 ** k for k in range(0, decades + 1, step)]
    if 2 <= len(grid) <= 8:
        ticks = grid
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())
    # margins by hand: a little below 0 (or the lowest value), a fifth of a decade above the top
    low = min(lo, 0.0)
    limits = (low - 0.25 * linthresh if low >= 0 else low * 1.3, top * 10 ** 0.2 if top > 0 else top)
    (ax.set_xlim if which == "x" else ax.set_ylim)(*limits)
    return _SYMLOG_NOTE


# --------------------------------------------------------------------------- words


def _thousands(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)


def _graph_words(name: Any, params: Mapping[str, Any], info: Mapping[str, Any]) -> str:
    """``erdos-renyi(n=1000, mean_degree=5.0): 1,000 nodes, 2,512 edges`` from the run's JSON."""
    if isinstance(params.get("path"), str):  # a user's file: its name says it all
        text = f"{name}({os.path.basename(params['path'])})"
    else:
        text = str(name) + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")
    graphs = (info.get("components") or {}).get("graphs") or []
    for g in graphs:
        if not isinstance(g, Mapping) or g.get("family") != name:
            continue
        given = g.get("parameters") or {}
        if any(k in given and given[k] != v for k, v in params.items()):
            continue
        summary = g.get("summary") or {}
        if summary.get("n") == "infinite":
            return f"{text}: infinite tree"
        if "n" in summary and "m" in summary:
            parts = [f"n = {_thousands(summary['n'])}", f"m = {_thousands(summary['m'])}"]
            comps = summary.get("components")
            if isinstance(comps, int) and comps > 1:
                parts.append(f"{comps} components")
            return f"{text}: {', '.join(parts)}"
    return text


def held_fixed(table: Table, info: Mapping[str, Any] | None = None) -> list[str]:
    """What the run holds fixed, in words: one entry per component (with its parameters) or
    parameter that has one value in the whole table (a False flag is left out)."""
    info = info or {}
    values = {p: list(dict.fromkeys(r[p] for r in table.rows)) for p in table.params}
    fixed = {p: v[0] for p, v in values.items() if len(v) == 1}
    parts = []
    used: set[str] = set()
    for p in table.params:
        if p not in fixed or "." in p:
            continue
        sub = {k.partition(".")[2]: fixed[k] for k in table.params if k.startswith(p + ".") and k in fixed}
        if any(k.startswith(p + ".") for k in table.params):  # a component with its parameters
            used.update(f"{p}.{k}" for k in sub)
            if p == "graph":
                parts.append(f"graph {_graph_words(fixed[p], sub, info)}")
            else:
                args = f"({', '.join(f'{k}={v}' for k, v in sub.items())})" if sub else ""
                parts.append(f"{p} {fixed[p]}{args}")
        elif fixed[p] is False:
            continue
        elif p == "graph":
            parts.append(f"graph {_graph_words(fixed[p], {}, info)}")
        elif isinstance(fixed[p], str) and p in _COMPONENT_WORDS:
            parts.append(f"{p} {fixed[p]}")
        else:
            parts.append(f"{p} = {fixed[p]}")
    parts += [f"{_named(k, info)} = {fixed[k]}" for k in table.params if k in fixed and "." in k and k not in used]
    return parts


#: Parameters whose value names a component, written "protocol flooding" rather than "=".
_COMPONENT_WORDS = ("graph", "protocol", "estimator", "mechanism", "utility", "attack")


def trials_words(table: Table, info: Mapping[str, Any] | None = None) -> str:
    """``2,000 trials per point`` (a range when points differ; ``exact values`` for exact runs)."""
    if (info or {}).get("mode") == "evaluate":
        return "exact values (no sampling)"
    ns = sorted({int(r["n"]) for r in table.rows if isinstance(r.get("n"), int | float)})
    if not ns:
        return ""
    if len(ns) == 1:
        return f"{ns[0]:,} trials per point"
    return f"{ns[0]:,} to {ns[-1]:,} trials per point"


def skipped_words(table: Table, info: Mapping[str, Any] | None = None, *, most: int = 3) -> str:
    """The grid points a run left out, not applicable or over the budget (``Table.skipped`` or the
    JSON's ``skipped``: ``{"params": {...}, "reason": ...}`` each), one line per reason:
    ``skipped: protocol random-diffusion with estimator ml at T = 2, 4 (ml assumes ...)``.

    The components named (protocol, estimator, attack) and the other parameters that vary
    among the run's points are listed by their values; when the points of a reason are not
    every combination of those values, the points are listed one by one (``most`` of them,
    then how many more).
    """
    items = list(getattr(table, "skipped", ()) or (info or {}).get("skipped") or ())
    items = [i for i in items if isinstance(i, Mapping) and isinstance(i.get("params"), Mapping)]
    if not items:
        return ""
    varying = {p for p in table.params if len({repr(r[p]) for r in table.rows}) > 1}
    by_reason: dict[str, list[Mapping[str, Any]]] = {}
    cut = False
    for item in items:
        # a budget skip's short form leaves out the price, which differs per point
        if item.get("short"):
            reason = str(item["short"]).strip()
        else:
            full = str(item.get("reason", "")).strip() or "does not apply"
            reason = _short_reason(full)
            cut = cut or reason != full
        by_reason.setdefault(reason, []).append(item["params"])
    clauses = []
    for reason, points in by_reason.items():
        # in the table's order, whatever order the JSON kept the points' keys in
        keys = [k for k in table.params if any(k in pt for pt in points)]
        keys += [k for pt in points for k in pt if k not in keys and k not in table.params]
        differ = [k for k in keys if len({repr(pt.get(k)) for pt in points}) > 1]
        who = [k for k in keys if k in _COMPONENT_WORDS[1:] and k not in differ]
        where = [k for k in keys if k not in who and (k in varying or k in differ)]
        values = {k: list(dict.fromkeys(pt.get(k) for pt in points)) for k in who + where}
        head = " with ".join(f"{k} {values[k][0]}" for k in who)
        n_combos = math.prod(len(values[k]) for k in where) if where else 1
        distinct = {tuple(repr(pt.get(k)) for k in where) for pt in points}
        if not where:
            at = ""
        elif n_combos == len(distinct):
            at = " and ".join(f"{_named(k, info)} = {', '.join(_value_words(v) for v in values[k])}"
                              for k in where)
        else:
            listed = ["(" + ", ".join(f"{_symbol(k, info)} = {_value_words(pt.get(k))}" for k in where) + ")"
                      for pt in points[:most]]
            more = f" and {len(points) - most} more" if len(points) > most else ""
            at = ", ".join(listed) + more
        said = " at ".join(t for t in (head, at) if t) or f"{len(points)} point(s)"
        clauses.append(f"skipped: {said} ({reason})")
    if cut:
        clauses.append("(each reason in full: the run's output and its JSON's 'skipped')")
    return "\n".join(clauses)


#: Height of a line of the figure's title (``fontsize="medium"``), in inches.
TITLE_LINE_INCHES = 0.2

#: Most characters of a skip's reason in a figure (the run's output and JSON keep it whole).
REASON_CHARS = 100


def _short_reason(reason: str) -> str:
    """A skip's reason as a figure says it: whole when at most :data:`REASON_CHARS` long,
    else its first clause (up to a ``;``), that clause's
    head (up to a ``:``) when longer than :data:`REASON_CHARS`, cut at a word with
    ``...`` when still longer. Points whose reasons differ only in their details (the
    snapshot sizes of a ceiling out of reach) are then listed together."""
    if len(reason) <= REASON_CHARS:
        return reason
    first = reason.split(";")[0].strip()
    if len(first) > REASON_CHARS and ":" in first:
        first = first.split(":")[0].strip()
    if len(first) > REASON_CHARS:
        first = textwrap.shorten(first, REASON_CHARS, placeholder=" ...")
    return first


def _value_words(v: Any) -> str:
    return _plain(v) if isinstance(v, float) else str(v)


def figure_title(table: Table, info: Mapping[str, Any] | None = None, title: str = "") -> str:
    """The figure's title: ``title`` (else the run's title or name), then what is held fixed
    and the trials per point (from the table and the run's JSON ``info``), then the points
    left out (not applicable or over the estimator budget).

    Parameters
    ----------
    table : Table
        The results.
    info : mapping, optional
        The run's JSON sidecar.
    title : str
        A title that replaces the run's.

    Returns
    -------
    str
        One to three lines.
    """
    info = info or {}
    head = title or str(info.get("title") or info.get("experiment") or "")
    name = str(info.get("experiment") or "")
    if name and head and name not in head and not title:
        head = f"{name}: {head}"
    setup = [*held_fixed(table, info), trials_words(table, info)]
    setup_text = "; ".join(s for s in setup if s)
    return "\n".join(t for t in (head, setup_text, skipped_words(table, info)) if t)


def _component_doc(param: str, info: Mapping[str, Any], families: Sequence[Any] | None = None) -> str:
    """The registry's description of a component parameter (``graph.p`` of watts-strogatz:
    ``rewiring probability p``) for ``families`` (default: the components the run's grid
    names); several differing descriptions are joined with " or "."""
    axis, _, name = param.partition(".")
    if families is None:
        grid = info.get("grid") if isinstance(info.get("grid"), Mapping) else {}
        families = [f for part in ("product", "zip") for f in ((grid.get(part) or {}).get(axis) or ())]
    if not name or not families:
        return ""
    from anonspread.harness.components import component_info, list_components

    if axis not in list_components():
        return ""
    docs: list[str] = []
    for family in dict.fromkeys(families):
        try:
            spec = component_info(axis, str(family)).params.get(name)
        except (AnonspreadError, LookupError):
            continue
        if spec is not None and spec.doc and spec.doc not in docs:
            docs.append(spec.doc)
    return " or ".join(docs)


def _drawn_docs(table: Table, info: Mapping[str, Any]) -> dict[str, str]:
    """The run's parameter descriptions, those of component parameters narrowed to the
    components the drawn rows use (``--where graph=powerlaw-cluster``: graph.p is its
    triangle-closing probability only)."""
    docs = dict(info.get("parameter_docs") or {})
    for param in table.params:
        axis = param.partition(".")[0]
        if "." in param and axis in table.params:
            doc = _component_doc(param, info, list(dict.fromkeys(r[axis] for r in table.rows)))
            if doc:
                docs[param] = doc
    return docs


def param_words(param: str, info: Mapping[str, Any] | None = None, *, short: bool = False) -> str:
    """A parameter in words: its documented meaning (the run's ``parameter_docs``, else the
    component registry's description: ``graph.p`` -> ``rewiring probability p``), else its key.

    Parameters
    ----------
    param : str
        The column (``T``, ``graph.p``).
    info : mapping, optional
        The run's JSON sidecar.
    short : bool
        Only the words (legends); else the words and the key (axes: ``steps of the spread (T)``).

    Returns
    -------
    str
    """
    info = info or {}
    doc = (info.get("parameter_docs") or {}).get(param, "") or _component_doc(param, info)
    if short or not doc or doc == param or doc.split()[-1] == param:  # "privacy level eps": says it already
        return doc or param
    return f"{doc} ({param})"


def _symbol(param: str, info: Mapping[str, Any] | None) -> str:
    """The symbol that ends a parameter's description (``p`` of ``rewiring probability p``),
    else the key: short enough to name a curve beside the legend title's words."""
    name = param.rpartition(".")[2]
    words = param_words(param, info, short=True).split()
    return name if len(words) > 1 and words[-1] == name else param


def _named(param: str, info: Mapping[str, Any] | None) -> str:
    """Words that end in the parameter's symbol (``rewiring probability p``), else the key
    (``T``: "steps of the spread = 2" would not read)."""
    words = param_words(param, info, short=True)
    return words if _symbol(param, info) != param else param


def axis_words(param: str, info: Mapping[str, Any] | None = None) -> str:
    """A parameter's axis label: its documented meaning and its key (``steps of the spread, T``)."""
    return param_words(param, info)


def _wrap(text: str, width_in: float) -> str:
    # about 11 characters per inch at the title's size: wrapped, never cut off
    return "\n".join(textwrap.fill(line, width=max(30, int(width_in * 11))) for line in text.splitlines())


# --------------------------------------------------------------------------- line figures


def _series(table: Table, spec: PlotSpec, metric: str) -> dict[tuple, list[dict[str, Any]]]:
    rows = [r for r in table.rows if r["metric"] == metric]
    others = [p for p in table.params if p != spec.x and len({r[p] for r in rows}) > 1]
    if spec.series in others:
        others.remove(spec.series)
        others.insert(0, spec.series)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple((p, r[p]) for p in others), []).append(r)
    return groups


def _categorical(table: Table, x: str) -> bool:
    return any(isinstance(r[x], str | bool) for r in table.rows)


def _saturated(table: Table) -> dict[tuple, float]:
    """Point -> its ``saturated`` estimate (empty when the table has no such metric)."""
    return {tuple(r[p] for p in table.params): r["mean"] for r in table.rows if r["metric"] == SATURATED}


def _ring(ax: Any, xs: Sequence[Any], ys: Sequence[float]) -> None:
    ax.scatter(xs, ys, s=120, facecolors="none", edgecolors="red", linewidths=1.3, zorder=5)


# short: the legend sits below narrow one-column figures too
_COVERED_LABEL = f"most of the component covered (mean >= {HIGH_COVERAGE:.0%})"


def _covered(table: Table) -> set[tuple]:
    """The points of mean coverage >= :data:`~harness.coverage.HIGH_COVERAGE`."""
    return {tuple(f["params"][p] for p in table.params) for f in covered_points(table)}


def _mark_covered(ax: Any, xs: Sequence[Any], ys: Sequence[float]) -> None:
    ax.scatter(xs, ys, s=260, marker="h", facecolors="none", edgecolors="black",
               linewidths=1.0, zorder=5)


def _covered_handle() -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], marker="h", ms=13, mfc="none", mec="black", mew=1.0, ls="none")


def _saturated_handle() -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], marker="o", ms=10, mfc="none", mec="red", mew=1.3, ls="none")


#: On a log axis a band is drawn only where the interval's lower end is within this factor
#: (a decade) below the estimate; further down, a band would fill decades the data do not.
_BAND_SPAN = 10.0
_BOUND_LABEL = "upper end of a 95% interval reaching 0"


def _bound_marker() -> Any:
    """An upper-limit glyph: a bar at the bound with an arrow pointing down from it (the
    path's origin, the marker's anchor, is the bar's centre)."""
    from matplotlib.path import Path

    verts = [(-0.45, 0.0), (0.45, 0.0), (0.0, 0.0), (0.0, -1.0),
             (-0.3, -0.6), (0.0, -1.0), (0.3, -0.6)]
    codes = [Path.MOVETO, Path.LINETO, Path.MOVETO, Path.LINETO,
             Path.MOVETO, Path.LINETO, Path.LINETO]
    return Path(verts, codes)


def _bound_handle() -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], marker=_bound_marker(), ms=13, mew=1.3, color="0.3", ls="none")


def _draw_intervals(ax: Any, intervals: Sequence[tuple], *, log: bool) -> bool:
    """Draw each series' 95% intervals: as bands on a linear axis. On a log axis a band
    from 0 (or from far below a near-zero estimate) would fill the lower decades and read
    as data, so there a band is drawn only where the interval's lower end is within a
    decade below the estimate, a capped bar where it lies further down, and only the upper
    end (an arrow down from the bound) where the interval reaches 0. True when an upper
    end was drawn."""
    bounds = False
    for xs, ys, lo, hi, color in intervals:
        if not any(a != b for a, b in zip(lo, hi)):
            continue
        if not log:
            ax.fill_between(xs, lo, hi, color=color, alpha=0.25, linewidth=0)
            continue
        ok = [math.isfinite(y) and math.isfinite(a) and math.isfinite(b) and b >= a
              for y, a, b in zip(ys, lo, hi)]
        reach0 = [k for k, y in enumerate(ys) if ok[k] and (y <= 0 or lo[k] <= 0) and hi[k] > 0]
        band = [ok[k] and y > 0 and lo[k] > 0 and y <= _BAND_SPAN * lo[k] for k, y in enumerate(ys)]
        # a band needs a neighbour to span: an isolated narrow interval is a bar
        joined = [b and ((k > 0 and band[k - 1]) or (k + 1 < len(band) and band[k + 1]))
                  for k, b in enumerate(band)]
        bars = [k for k, y in enumerate(ys) if ok[k] and y > 0 and lo[k] > 0 and not joined[k]]
        if any(joined):
            ax.fill_between(xs, lo, hi, where=joined, color=color, alpha=0.25, linewidth=0)
        if bars:
            ax.errorbar([xs[k] for k in bars], [ys[k] for k in bars],
                        yerr=[[max(0.0, ys[k] - lo[k]) for k in bars], [max(0.0, hi[k] - ys[k]) for k in bars]],
                        fmt="none", ecolor=color, elinewidth=0.9, capsize=2.5, alpha=0.7)
        if reach0:
            ax.plot([xs[k] for k in reach0], [hi[k] for k in reach0], ls="none",
                    marker=_bound_marker(), ms=13, mew=1.3, color=color, alpha=0.85,
                    label="_upper end of a 95% interval")
            bounds = True
    return bounds


def _bars_to_bounds(bars: Sequence[tuple]) -> bool:
    """On a log axis, an error bar reaching 0 keeps only its upper end, drawn as on line
    figures (:func:`_draw_intervals`); True when one was drawn."""
    drawn = False
    for ax, container, xs, ys, lo, hi, colour in bars:
        reach0 = [k for k, (y, a, b) in enumerate(zip(ys, lo, hi))
                  if math.isfinite(y) and math.isfinite(b) and (y <= 0 or a <= 0) and b > 0]
        _, caps, cols = container.lines
        if not reach0 or len(cols) != 1 or len(cols[0].get_segments()) != len(xs):
            continue
        keep = [k for k in range(len(xs)) if k not in reach0]
        segments = cols[0].get_segments()
        cols[0].set_segments([segments[k] for k in keep])
        for cap in caps:
            cx, cy = cap.get_xdata(), cap.get_ydata()
            if len(cx) == len(xs):
                cap.set_data([cx[k] for k in keep], [cy[k] for k in keep])
        ax.plot([xs[k] for k in reach0], [hi[k] for k in reach0], ls="none", marker=_bound_marker(),
                ms=13, mew=1.3, color=colour, alpha=0.85, label="_upper end of a 95% interval")
        drawn = True
    return drawn


_CHOSEN_NOTE = ("strongest: chosen on the even-numbered trials of each batch (named in the legend), "
                "detection from the odd-numbered ones")


def _derived(table: Table, info: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = list(getattr(table, "derived", ()) or info.get("derived") or ())
    return [d for d in found if isinstance(d, Mapping) and isinstance(d.get("params"), Mapping)
            and d.get("kind") != "ceiling"]  # a ceiling chooses nothing


def _ceiling_methods(table: Table, info: Mapping[str, Any],
                     points: Sequence[Mapping[str, Any]]) -> list[str]:
    """How the Bayes ceiling of each of ``points`` was computed (``"exact"``, ``"monte-carlo"``),
    when every one of them is a ceiling point, else ``[]``."""
    found = list(getattr(table, "derived", ()) or info.get("derived") or ())
    records = {tuple(d["params"].get(p) for p in table.params): d for d in found
               if isinstance(d, Mapping) and isinstance(d.get("params"), Mapping)
               and d.get("kind") == "ceiling"}
    methods = [records.get(tuple(pp[p] for p in table.params)) for pp in points]
    if not methods or any(m is None for m in methods):
        return []
    return [str(m.get("method", "")) for m in methods]


#: How a Bayes-ceiling series is drawn: above every estimator, in black, never a colour an
#: estimator could also have.
_CEILING_STYLE = {"color": "black", "ls": (0, (6, 2)), "lw": 2.0, "marker": "*", "ms": 10}


def _chosen(table: Table, info: Mapping[str, Any], points: Sequence[Mapping[str, Any]],
            ys: Sequence[float]) -> list[tuple[Mapping[str, Any], str]]:
    """``(point, chosen attack)`` of each drawn point of a series that is a strongest attack."""
    records = {tuple(d["params"].get(p) for p in table.params): d for d in _derived(table, info)}
    out = []
    for pp, y in zip(points, ys):
        d = records.get(tuple(pp[p] for p in table.params))
        if d is not None and d.get("chosen") and math.isfinite(y):  # a strongest attack's record
            out.append((pp, str(d["chosen"]).rpartition("/")[2]))
    return out


def _chosen_words(chosen: Sequence[tuple[Mapping[str, Any], str]], x: str, n_points: int,
                  facet: str | None = None) -> str:
    """``chosen: ml (T = 2, 4), jordan (T = 6)`` -- or ``chosen: first-spy at every fraction``
    -- for the legend entry of a strongest series. Written beside the points, the names of
    several series collide (at the top left, or where curves meet); in the legend, never.
    With facets, each point is named by its facet too (``graph er: T = 2``)."""
    by_name: dict[str, list[Mapping[str, Any]]] = {}
    for pp, name in chosen:
        by_name.setdefault(name, []).append(pp)
    if len(by_name) == 1 and len(chosen) == n_points and facet is None:
        # a plural axis name reads "at all rounds", a singular one "at every T"
        every = f"at all {x}" if len(x) > 2 and x.endswith("s") else f"at every {x}"
        return f"chosen: {next(iter(by_name))} {every}"

    def where(pps: list[Mapping[str, Any]]) -> str:
        per: dict[Any, list[str]] = {}
        for pp in pps:
            value = _plain(pp[x]) if isinstance(pp[x], float) else str(pp[x])
            per.setdefault(pp.get(facet) if facet else None, []).append(value)
        parts = [(f"{facet} {fv}: " if facet else "") + f"{x} = {', '.join(vs)}" for fv, vs in per.items()]
        return "; ".join(parts)

    return "chosen: " + ", ".join(f"{name} ({where(pps)})" for name, pps in by_name.items())


def _legend_below(fig: Any, handles: Mapping[str, Any], title: str = "") -> None:
    """One legend under the panels (never on the data)."""
    if len(handles) < 2:
        return
    entries = dict(handles)
    width = fig.get_figwidth()
    longest = max(len(line) for k in handles for line in str(k).splitlines())
    ncols = max(1, min(len(handles), 4, int(width * 14 // (longest + 6))))
    rows = -(-len(entries) // ncols)
    # the legend takes its rows from the figure: grow the figure so the panels keep their height
    fig.set_figheight(fig.get_figheight() + 0.2 * rows)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=ncols,
               fontsize="small", title=title or None, title_fontsize="small")


def _without_missing_metrics(table: Table, spec: PlotSpec, where: Mapping[str, Any]) -> PlotSpec:
    """``spec`` without the metrics none of the kept rows has (``estimator=strongest`` keeps
    detection only); refused when no metric of the figure is left."""
    import dataclasses

    known = {r["metric"] for r in table.rows}
    y = tuple(m for m in spec.y if m in known)
    panels = tuple((label, kept) for label, ms in spec.panels if (kept := tuple(m for m in ms if m in known)))
    if (spec.y and not y) or (spec.panels and not panels):
        said = ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list | tuple) else v}"
                         for k, v in where.items())
        raise InvalidParameterError(
            f"where: the rows kept ({said}) have none of the figure's metrics "
            f"{list(spec.y) or [m for _, ms in spec.panels for m in ms]}; they have {sorted(known)}")
    return dataclasses.replace(spec, y=y, panels=panels)


def check_figure_text(*, title: Any = "", labels: Any = None, info: Any = None) -> None:
    """Refuse a figure's title, labels or sidecar of the wrong type (before matplotlib sees them).

    Raises
    ------
    InvalidParameterError
        ``title`` is not a str, ``labels`` not a mapping of str to str (or None), ``info``
        not a mapping (or None).
    """
    if not isinstance(title, str):
        raise InvalidParameterError(f"title must be a str; got {type(title).__name__} {title!r:.60}")
    if labels is not None and not (isinstance(labels, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items())):
        raise InvalidParameterError(f"labels must be a mapping of metric names to str labels, or None; "
                                    f"got {labels!r:.80}")
    if info is not None and not isinstance(info, Mapping):
        raise InvalidParameterError(f"info must be a run's sidecar (a mapping) or None; got {type(info).__name__}")


def draw(table: Table, spec: PlotSpec, *, title: str = "", labels: Mapping[str, str] | None = None,
         info: Mapping[str, Any] | None = None, where: Mapping[str, Any] | None = None) -> Any:
    """Draw the table on a new :class:`~matplotlib.figure.Figure` (one panel per metric).

    With ``spec.facet`` or a categorical x the panels form a grid (rows: metrics,
    columns: facet values) drawn by :func:`draw_grid`. One legend, outside the panels.

    Parameters
    ----------
    table : Table
    spec : PlotSpec
    title : str
        The title's first line (default: the run's title or name from ``info``); the
        second line is always what the run holds fixed and its trials per point.
    labels : mapping, optional
        Metric -> axis label (default: the labels recorded in ``info``, else the names).
    info : mapping, optional
        The run's JSON sidecar (:attr:`RunResult.metadata`): name, graphs with n and m,
        parameter descriptions for axis labels, mode.
    where : mapping of str to value or list of values, optional
        Keep only the rows whose parameters take these values (:func:`~harness.results.keep_rows`:
        ``{"estimator": "strongest"}``); unknown parameters or values are refused with the
        close ones suggested.
    """
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    check_figure_text(title=title, labels=labels, info=info)
    info = dict(info or {})
    full = table  # E[N_T] of the rows a filter leaves out still gives the uniform guess
    if where:
        table = keep_rows(table, where)
        info.update(skipped=list(table.skipped), derived=list(table.derived))
        spec = _without_missing_metrics(table, spec, where)
    info["parameter_docs"] = _drawn_docs(table, info)
    labels = {**{m["name"]: m.get("label") or m["name"] for m in info.get("metrics", ())
                 if isinstance(m, Mapping) and "name" in m}, **(labels or {})}
    metrics = list(spec.y) or [m for m in dict.fromkeys(r["metric"] for r in table.rows) if m != SATURATED]
    if spec.x not in table.params:
        raise InvalidParameterError(f"plot x must be one of {list(table.params)}; got {spec.x!r}")
    known = {r["metric"] for r in table.rows}
    for m in metrics:
        if m not in known:
            raise InvalidParameterError(f"plot metric must be one of {sorted(known)}; got {m!r}")
    if spec.facet is not None or _categorical(table, spec.x):
        return draw_grid(table, spec, metrics, title=title, labels=labels, info=info)
    # (y label, metrics overlaid on that axis); one metric per panel unless spec.panels
    panels = list(spec.panels) or [(labels.get(m, m), (m,)) for m in metrics]
    width = max(4.8 * len(panels), 6.4)
    fig = Figure(figsize=(width, 4.6), layout="constrained")
    cmap = colormaps["viridis"]
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    refs = _references(full, spec)
    point_means = _point_means(full)
    saturated = _saturated(table)
    covered = _covered(table)
    handles: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    notes: list[str] = []
    # one legend title naming the parameters when every series is keyed by the same ones
    keyed = {tuple(p for p, _ in key) for _, ms in panels for m in ms for key in _series(table, spec, m)}
    uniform = len(keyed) == 1
    key_title = " / ".join(param_words(p, info, short=True) for p in next(iter(keyed))) if uniform else ""
    xs_all = [r[spec.x] for r in table.rows]
    x_scale = choose_scale(xs_all, True) if spec.logx else ("linear", None)
    n_shared = 0  # reference curves shared by several series, each in its own grey
    # one colour and line style per series for the whole figure, whichever panels it is
    # drawn in (a series missing from a panel, e.g. strongest without hops, must not shift
    # the others' colours there: the legend is shared)
    ident: dict[tuple, int] = {}
    for _, ms in panels:
        for m in ms:
            for key in _series(table, spec, m):
                ident.setdefault((m, key) if len(ms) > 1 else (None, key), len(ident))
    n_ident = len(ident)
    for ax, (ylabel, panel) in zip(axes, panels):
        overlay = len(panel) > 1
        # reference curve -> the series it belongs to: drawn once, after the series
        pending: dict[tuple, list[tuple[tuple, str, Any]]] = {}
        yvals: list[float] = []
        intervals: list[tuple] = []
        for i_metric, metric in enumerate(panel):
            groups = _series(table, spec, metric)
            theories = [t for t in spec.theory if t.metric == metric]
            shared = []  # theory curves that are the same for every series: drawn once, in black
            for t in theories:
                curves = {
                    tuple((r[spec.x], t.fn({p: r[p] for p in table.params}))
                          for r in sorted(rows, key=lambda r: r[spec.x]))
                    for rows in groups.values()
                }
                if len(groups) > 1 and len(curves) == 1:
                    xs, ys = zip(*next(iter(curves)))
                    (h,) = ax.plot(xs, ys, ls="--", color="black", alpha=0.8)
                    extra.setdefault(t.label, h)
                    yvals += _finite(ys)
                    shared.append(t)
            for key, rows in groups.items():
                # overlaid metrics, or else the series, get distinct markers and lines, so
                # coinciding curves stay visible
                i_line = ident[(metric, key) if overlay else (None, key)]
                style = (_line_style(i_metric, len(panel)) if overlay
                         else _line_style(i_line, n_ident))
                rows = sorted(rows, key=lambda r: r[spec.x])
                xs = [r[spec.x] for r in rows]
                if uniform:
                    label = " / ".join(str(v) for _, v in key) or labels.get(metric, metric)
                else:
                    label = ", ".join(f"{param_words(p, info, short=True)}={v}" for p, v in key) or labels.get(metric, metric)
                if overlay and key:
                    label = f"{labels.get(metric, metric)}, {label}"
                # beyond the 10 cycle colours, a sequential colour map keeps series apart
                color = cmap(i_line / max(1, n_ident - 1)) if n_ident > 10 else f"C{i_line % 10}"
                ys = [r["mean"] for r in rows]
                points = [{p: r[p] for p in table.params} for r in rows]
                base_label = label
                chosen = _chosen(table, info, points, ys)
                if chosen:  # a strongest series: its legend entry names the attack chosen at each x
                    label = f"{label}\n{_chosen_words(chosen, spec.x, len(rows))}"
                    notes.append(_CHOSEN_NOTE)
                ceiling = _ceiling_methods(table, info, points)
                if ceiling:  # the Bayes ceiling: black, dashed, named as what it is
                    label = (f"{label}\nBayes-optimal detection, no adversary above it "
                             f"({', '.join(dict.fromkeys(ceiling))})")
                    style, color = {k: v for k, v in _CEILING_STYLE.items() if k != "color"}, "black"
                (line,) = ax.plot(xs, ys, color=color, label=label, **style)
                if key or overlay:  # a panel's only curve is named by its axis label
                    handles.setdefault(label, line)
                lo, hi = [r["ci_low"] for r in rows], [r["ci_high"] for r in rows]
                yvals += _finite(ys) + _finite(lo) + _finite(hi)
                # drawn once the panel's y scale is known: a band reads differently on a log axis
                intervals.append((xs, ys, lo, hi, line.get_color()))
                for t in theories:
                    if t not in shared:
                        tys = [t.fn(pp) for pp in points]
                        if all(y != y for y in tys):
                            continue  # NaN everywhere: the curve does not apply to this series
                        ax.plot(xs, tys, ls="--", color=line.get_color(), alpha=0.9)
                        extra.setdefault(f"{t.label} (dashed)", Line2D(
                            [], [], ls="--", color="0.3"))
                        yvals += _finite(tys)
                for ref in refs:
                    if ref.metric == metric:
                        rys = [ref.fn(pp, point_means(pp)) for pp in points]
                        if all(y != y for y in rys):
                            continue
                        curve = (ref.label, tuple(xs), tuple(round(y, 12) if y == y else None for y in rys))
                        pending.setdefault(curve, []).append((key, base_label, line.get_color()))
                        yvals += _finite(rys)
                flagged = [k for k, pp in enumerate(points)
                           if saturated.get(tuple(pp[p] for p in table.params), 0.0) >= SATURATED_SHARE]
                if flagged:
                    _ring(ax, [xs[k] for k in flagged], [ys[k] for k in flagged])
                    extra.setdefault(_SATURATED_LABEL, _saturated_handle())
                most = [k for k, pp in enumerate(points) if tuple(pp[p] for p in table.params) in covered]
                if most:
                    _mark_covered(ax, [xs[k] for k in most], [ys[k] for k in most])
                    extra.setdefault(_COVERED_LABEL, _covered_handle())
        for (ref_label, xs, rys), owners in _merge_contained(pending).items():
            ys_ref = [math.nan if y is None else y for y in rys]
            if len(owners) == 1:  # one series: in its colour, named after it
                who, colour, dots = owners[0][1].splitlines()[0], owners[0][2], (0, (1, 2.5))
            else:  # several series (the estimators of one protocol): what they have in common
                common = [(p, v) for p, v in owners[0][0] if all((p, v) in o[0] for o in owners)]
                who = ", ".join(f"{v}" if p in _COMPONENT_WORDS else f"{_symbol(p, info)} = {v}"
                                for p, v in common) or "the same for every series"
                colour = _SHARED_GREYS[n_shared % len(_SHARED_GREYS)]
                dots = (0, (1, 1.5 + 1.5 * (n_shared // len(_SHARED_GREYS))))
                n_shared += 1
            ax.plot(xs, ys_ref, ls=dots, lw=1.3, color=colour, alpha=0.9, label=f"_reference: {ref_label}")
            short = _GUESS_SHORT if ref_label == _GUESS_LABEL else ref_label
            name = ref_label if len(pending) == 1 and not owners[0][0] else f"{short}: {who}"
            extra.setdefault(name, Line2D([], [], ls=dots, lw=1.3, color=colour))
        ax.set_xlabel(spec.xlabel or axis_words(spec.x, info))
        ax.set_ylabel(ylabel)
        notes.append(_apply_scale(ax, "x", x_scale, [r[spec.x] for r in table.rows if r["metric"] in panel]))
        if x_scale[0] == "linear" and all(isinstance(v, int) for v in xs_all):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # T = 1, 2, 3: no 1.25
        y_scale = choose_scale(yvals, spec.logy)
        if _draw_intervals(ax, intervals, log=y_scale[0] != "linear"):
            extra.setdefault(_BOUND_LABEL, _bound_handle())
        notes.append(_apply_scale(ax, "y", y_scale, yvals))
        ax.grid(True, alpha=0.3)
    _legend_below(fig, {**handles, **extra}, key_title)
    _finish(fig, table, info, title, width, notes)
    return fig


def _merge_contained(pending: Mapping[tuple, list]) -> dict[tuple, list]:
    """Reference curves ``(label, xs, ys) -> owners``, with every curve whose points all lie
    on a longer curve of the same reference folded into it (its series join that curve's
    owners), in the order of the rest: the ceiling computed at fewer T than its protocol's
    estimators shares their uniform guess instead of drawing a one-point curve (invisible
    when dotted) with a legend entry of its own."""
    def points(curve: tuple) -> set:
        return {(x, y) for x, y in zip(curve[1], curve[2]) if y is not None}

    host: dict[tuple, tuple] = {}
    for c in pending:
        bigger = [h for h in pending if h[0] == c[0] and len(points(h)) > len(points(c))
                  and points(c) <= points(h)]
        if bigger:
            host[c] = max(bigger, key=lambda h: len(points(h)))
    out: dict[tuple, list] = {}
    for c, owners in pending.items():
        if c not in host:
            out.setdefault(c, []).extend(owners)
    for c, h in host.items():
        while h in host:  # a chain: fold into the longest
            h = host[h]
        out[h].extend(pending[c])
    return out


def _finish(fig: Any, table: Table, info: Mapping[str, Any], title: str, width: float,
            notes: Sequence[str] = ()) -> None:
    """The title on top: the run's title and name, its set-up, then how its axes treat 0."""
    said = list(dict.fromkeys(n for n in notes if n))
    text = "\n".join(t for t in (figure_title(table, info, title), *said) if t)
    if text:
        wrapped = _wrap(text, width)
        # the title takes its lines from the figure: grow it so the panels keep their height
        fig.set_figheight(fig.get_figheight() + TITLE_LINE_INCHES * (wrapped.count("\n") + 1))
        fig.suptitle(wrapped, fontsize="medium")


def _groups(rows: list[dict[str, Any]], params: Sequence[str], spec: PlotSpec) -> dict[tuple, list[dict[str, Any]]]:
    """Rows of one panel by series; other parameters split a series only where they vary in it."""
    fixed = {spec.x, spec.facet, spec.series}
    by_series: dict[Any, list[dict[str, Any]]] = {}
    for r in rows:
        by_series.setdefault(r[spec.series] if spec.series else None, []).append(r)
    others = [p for p in params if p not in fixed
              and any(len({r[p] for r in rs}) > 1 for rs in by_series.values())]
    if spec.series is not None:
        others.insert(0, spec.series)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple((p, r[p]) for p in others), []).append(r)
    return groups


def draw_grid(table: Table, spec: PlotSpec, metrics: Sequence[str], *, title: str = "",
              labels: Mapping[str, str] | None = None, info: Mapping[str, Any] | None = None) -> Any:
    """Panels in a grid: one row per metric, one column per value of ``spec.facet``.

    Panels of a row share their y axis; a series keeps its colour in every panel, and one
    legend below the panels names them (it never covers data). ``spec.annotate`` lists
    parameters whose values (in series order) go under each facet title. A categorical x is
    drawn as markers with 95% error bars, series side by side in each category, never
    joined by lines; theory values are black bars, references (``spec.references``, and
    1/E[N_T] on a detection row) grey crosses at the same positions. An estimate of 0 is
    drawn at 0 (on a log axis, linear from 0 to its smallest positive value; the title
    says so), and on a log row an error bar reaching 0 is drawn as its upper end only.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    info = dict(info or {})
    labels = dict(labels or {})
    facets: list[Any] = [None]
    if spec.facet is not None:
        facets = list(dict.fromkeys(r[spec.facet] for r in table.rows))
    categorical = _categorical(table, spec.x)
    width = 1.5 + 3.6 * len(facets)
    fig = Figure(figsize=(width, 1.2 + 2.8 * len(metrics)), layout="constrained")
    axes = fig.subplots(len(metrics), len(facets), squeeze=False, sharey="row")
    colours: dict[str, str] = {}
    handles: dict[str, Any] = {}
    extra: dict[str, Any] = {}  # theory and references, listed after the series
    refs = _references(table, spec)
    means = _means(table)
    saturated = _saturated(table)
    covered = _covered(table)
    notes: list[str] = []
    chosen_in: dict[str, dict[tuple, tuple[Mapping[str, Any], str]]] = {}
    n_chosen: dict[str, set[tuple]] = {}
    for i, metric in enumerate(metrics):
        mrows = [r for r in table.rows if r["metric"] == metric]
        yvals: list[float] = []
        bars: list[tuple] = []  # the row's error bars, redrawn once its y scale is known
        for j, fv in enumerate(facets):
            ax = axes[i][j]
            rows = [r for r in mrows if spec.facet is None or r[spec.facet] == fv]
            cats = list(dict.fromkeys(r[spec.x] for r in rows))
            pos = {c: k for k, c in enumerate(cats)}
            groups = _groups(rows, table.params, spec)
            width_cat = 0.7
            for g, (key, grows) in enumerate(groups.items()):
                label = ", ".join(f"{v}" if p == spec.series else f"{p}={v}" for p, v in key) or labels.get(metric, metric)
                colour = colours.setdefault(label, f"C{len(colours) % 10}")
                grows = grows if categorical else sorted(grows, key=lambda r: r[spec.x])
                if categorical:
                    shift = (g - (len(groups) - 1) / 2) * width_cat / max(1, len(groups))
                    xs = [pos[r[spec.x]] + shift for r in grows]
                else:
                    xs = [r[spec.x] for r in grows]
                ys = [r["mean"] for r in grows]
                lo = [max(0.0, m - r["ci_low"]) for m, r in zip(ys, grows)]
                hi = [max(0.0, r["ci_high"] - m) for m, r in zip(ys, grows)]
                yvals += _finite(ys) + _finite(r["ci_low"] for r in grows) + _finite(r["ci_high"] for r in grows)
                # on lines, distinct markers and styles, earlier families hollow and larger:
                # coinciding series stay visible as rings (as in the line figures)
                look = {"fmt": "o", "ms": 4} if categorical else {"fmt": "", **_line_style(g, len(groups))}
                h = ax.errorbar(xs, ys, yerr=[lo, hi], capsize=2, color=colour, lw=1.2, **look)
                handles.setdefault(label, h)
                bars.append((ax, h, xs, ys, [r["ci_low"] for r in grows], [r["ci_high"] for r in grows], colour))
                point = [{p: r[p] for p in table.params} for r in grows]
                for t in spec.theory:
                    if t.metric == metric:
                        tv = [t.fn(pp) for pp in point]
                        ok = [k for k, v in enumerate(tv) if v == v]
                        if ok:
                            ax.scatter([xs[k] for k in ok], [tv[k] for k in ok], marker="_", s=220,
                                       color="black", linewidths=2, zorder=4)
                            extra.setdefault(f"theory: {t.label}", Line2D(
                                [], [], color="black", marker="_", ms=14, mew=2, ls="none"))
                            yvals += _finite(tv[k] for k in ok)
                for ref in refs:
                    if ref.metric == metric:
                        rv = [ref.fn(pp, means[tuple(pp[p] for p in table.params)]) for pp in point]
                        ok = [k for k, v in enumerate(rv) if v == v]
                        if ok:
                            # in its series' colour, beside its marker: whose reference it is
                            ax.scatter([xs[k] for k in ok], [rv[k] for k in ok], marker="x", s=30,
                                       color=colour, linewidths=1.2, zorder=4)
                            extra.setdefault(f"{ref.label}, x in each series' colour", Line2D(
                                [], [], color="0.35", marker="x", ms=6, mew=1.2, ls="none"))
                            yvals += _finite(rv[k] for k in ok)
                flagged = [k for k, pp in enumerate(point)
                           if saturated.get(tuple(pp[p] for p in table.params), 0.0) >= SATURATED_SHARE]
                if flagged:
                    _ring(ax, [xs[k] for k in flagged], [ys[k] for k in flagged])
                    extra.setdefault(_SATURATED_LABEL, _saturated_handle())
                most = [k for k, pp in enumerate(point) if tuple(pp[p] for p in table.params) in covered]
                if most:
                    _mark_covered(ax, [xs[k] for k in most], [ys[k] for k in most])
                    extra.setdefault(_COVERED_LABEL, _covered_handle())
                chosen = _chosen(table, info, point, ys)
                if chosen:  # once per point, whichever metric rows it is drawn in
                    for pp, name in chosen:
                        chosen_in.setdefault(label, {})[tuple(pp[p] for p in table.params)] = (pp, name)
                    n_chosen.setdefault(label, set()).update(tuple(pp[p] for p in table.params) for pp in point)
                    notes.append(_CHOSEN_NOTE)
            if categorical:
                ax.set_xticks(range(len(cats)), [str(c) for c in cats])
                ax.set_xlim(-0.6, len(cats) - 0.4)
                ax.tick_params(axis="x", labelsize="small")
            elif spec.logx:
                notes.append(_apply_scale(ax, "x", choose_scale([r[spec.x] for r in rows], True),
                                          [r[spec.x] for r in rows]))
            if i == len(metrics) - 1:
                ax.set_xlabel(spec.xlabel or axis_words(spec.x, info))
            if j == 0:
                ax.set_ylabel(labels.get(metric, metric))
            if i == 0 and spec.facet is not None:
                notes_facet = []
                for p in spec.annotate:
                    per = list(dict.fromkeys(r[p] for r in rows))
                    notes_facet.append(f"{p} = {' / '.join(map(str, per))}")
                ax.set_title("\n".join([f"{axis_words(spec.facet, info)} = {fv}", *notes_facet]),
                             fontsize="medium")
            ax.grid(True, axis="y", alpha=0.3)
        # once every panel of the row is drawn (they share the y axis)
        y_scale = choose_scale(yvals, spec.logy)
        if y_scale[0] != "linear" and _bars_to_bounds(bars):
            extra.setdefault(_BOUND_LABEL, _bound_handle())
        notes.append(_apply_scale(axes[i][0], "y", y_scale, yvals))
    # a strongest series names the attack chosen at each point in its legend entry
    handles = {(f"{k}\n{_chosen_words(list(chosen_in[k].values()), spec.x, len(n_chosen[k]), spec.facet)}"
                if k in chosen_in else k): h for k, h in handles.items()}
    handles.update(extra)
    _legend_below(fig, handles, spec.series or "")
    _finish(fig, table, info, title, width, notes)
    return fig


def plot_table(
    table: Table,
    spec: PlotSpec,
    path: str | os.PathLike[str],
    *,
    title: str = "",
    labels: Mapping[str, str] | None = None,
    pdf: bool = False,
    info: Mapping[str, Any] | None = None,
    where: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Draw and write ``path`` (PNG), plus the same stem as PDF when ``pdf``; atomic writes.

    Parameters
    ----------
    table : Table
        The results.
    spec : PlotSpec
        What to draw.
    path : path-like
        The PNG to write.
    title : str
        A title that replaces the run's.
    labels : mapping of str to str, optional
        Axis labels of the metrics (default: from ``info``, else the names).
    pdf : bool
        Also write the PDF.
    info : mapping, optional
        The run's JSON sidecar (title, what was held fixed, trials).
    where : mapping of str to value or list of values, optional
        Keep only these rows (as :func:`draw`; ``anonspread plot --where KEY=V[,V]``).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    check_figure_text(title=title, labels=labels, info=info)
    if not isinstance(pdf, bool):
        raise InvalidParameterError(f"pdf must be True or False; got {pdf!r:.60}")
    path = check_replaceable(path)
    if path.suffix.lower() != ".png":
        raise OutputError(f"the figure's path must name a .png file (with pdf, the PDF is "
                          f"written beside it as .pdf); got {str(path)!r}")
    if pdf:
        check_replaceable(path.with_suffix(".pdf"))
    fig = draw(table, spec, title=title, labels=labels, info=info, where=where)
    written = []
    formats: Sequence[tuple[str, Path]] = [("png", path)] + (
        [("pdf", path.with_suffix(".pdf"))] if pdf else [])
    for fmt, target in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=120)
        written.append(atomic_write(target, buf.getvalue()))
    return written


def figure_png(fig: Any, *, dpi: int = 110) -> bytes:
    """The PNG bytes of a figure (for HTML pages and notebooks)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
