"""Figures from tidy results: estimates with confidence bands, log axes, theory overlays.

matplotlib is imported lazily and used through its object API
(:class:`matplotlib.figure.Figure` with the Agg canvas), so plotting neither
needs a display nor leaves figures registered in ``pyplot``.
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonspread.harness.experiment import PlotSpec
from anonspread.harness.results import Table, atomic_write

from anonspread.errors import InvalidParameterError

__all__ = ["draw", "plot_table"]

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


def draw(table: Table, spec: PlotSpec, *, title: str = "", labels: Mapping[str, str] | None = None) -> Any:
    """Draw the table on a new :class:`~matplotlib.figure.Figure` (one panel per metric).

    With ``spec.facet`` or a categorical x the panels form a grid (rows: metrics,
    columns: facet values) drawn by :func:`draw_grid`.
    """
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    labels = dict(labels or {})
    metrics = list(spec.y) or list(dict.fromkeys(r["metric"] for r in table.rows))
    if spec.x not in table.params:
        raise InvalidParameterError(f"plot x must be one of {list(table.params)}; got {spec.x!r}")
    if spec.facet is not None or _categorical(table, spec.x):
        return draw_grid(table, spec, metrics, title=title, labels=labels)
    # (y label, metrics overlaid on that axis); one metric per panel unless spec.panels
    panels = list(spec.panels) or [(labels.get(m, m), (m,)) for m in metrics]
    # overlaid panels, and panels with many series, carry their legend beside the axes
    n_series = [sum(len(_series(table, spec, m)) for m in ms) for _, ms in panels]
    beside = [len(ms) > 1 or n > 4 for (_, ms), n in zip(panels, n_series)]
    columns = [1 + (n - 1) // 14 for n in n_series]  # at most 14 entries per legend column
    width = max(sum(4.8 + (2.8 * c if b else 0.0) for b, c in zip(beside, columns)), 6.4)
    fig = Figure(figsize=(width, 3.8), layout="constrained")
    cmap = colormaps["viridis"]
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (ylabel, panel), legend_beside, ncol, n_panel in zip(
        axes, panels, beside, columns, n_series
    ):
        overlay = len(panel) > 1
        n_lines = 0
        i_line = 0
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
                    ax.plot(xs, ys, ls="--", color="black", alpha=0.8, label=t.label)
                    n_lines += 1
                    shared.append(t)
            for i_group, (key, rows) in enumerate(groups.items()):
                # overlaid metrics, or else the series, get distinct markers and lines, so
                # coinciding curves stay visible
                style = (_line_style(i_metric, len(panel)) if overlay
                         else _line_style(i_group, len(groups)))
                rows = sorted(rows, key=lambda r: r[spec.x])
                xs = [r[spec.x] for r in rows]
                label = ", ".join(f"{p}={v}" for p, v in key) or None
                if overlay:
                    name = labels.get(metric, metric)
                    label = f"{name}, {label}" if label else name
                # beyond the 10 cycle colours, a sequential colour map keeps series apart
                color = cmap(i_line / max(1, n_panel - 1)) if n_panel > 10 else None
                i_line += 1
                (line,) = ax.plot(xs, [r["mean"] for r in rows], label=label, color=color, **style)
                n_lines += 1
                lo, hi = [r["ci_low"] for r in rows], [r["ci_high"] for r in rows]
                if any(a != b for a, b in zip(lo, hi)):
                    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.25, linewidth=0)
                for t in theories:
                    if t not in shared:
                        ys = [t.fn({p: r[p] for p in table.params}) for r in rows]
                        if all(y != y for y in ys):
                            continue  # NaN everywhere: the curve does not apply to this series
                        group = ", ".join(f"{p}={v}" for p, v in key)
                        tlabel = f"{t.label} ({group})" if group else t.label
                        ax.plot(xs, ys, ls="--", color=line.get_color(), alpha=0.9, label=tlabel)
                        n_lines += 1
        ax.set_xlabel(spec.xlabel or spec.x)
        ax.set_ylabel(ylabel)
        if spec.logx:
            ax.set_xscale("log")
            _readable_log(ax, "x", [r[spec.x] for r in table.rows if r["metric"] in panel])
        if spec.logy:
            ax.set_yscale("log")
            _readable_log(ax, "y")
        if n_lines > 1 and legend_beside:  # beside the axes: it must not hide any curve
            ax.legend(fontsize="small" if n_lines <= 8 else "x-small", loc="upper left",
                      bbox_to_anchor=(1.02, 1.0), ncol=ncol)
        elif n_lines > 1:
            ax.legend(fontsize="x-small" if n_lines > 6 else "small")
        ax.grid(True, alpha=0.3)
    if title:  # wrapped to the figure's width (about 11 characters per inch), never cut off
        fig.suptitle(textwrap.fill(title, width=int(width * 11)))
    return fig


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
              labels: Mapping[str, str] | None = None) -> Any:
    """Panels in a grid: one row per metric, one column per value of ``spec.facet``.

    Panels of a row share their y axis; a series keeps its colour in every panel, and one
    legend below the panels names them (it never covers data). ``spec.annotate`` lists
    parameters whose values (in series order) go under each facet title. A categorical x is
    drawn as markers with 95% error bars, series side by side in each category, never
    joined by lines; theory values are black bars, references (``spec.references``) grey
    crosses at the same positions. On a log axis an estimate of 0 is drawn as a
    downward triangle at the upper end of its interval.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    labels = dict(labels or {})
    facets: list[Any] = [None]
    if spec.facet is not None:
        facets = list(dict.fromkeys(r[spec.facet] for r in table.rows))
    categorical = _categorical(table, spec.x)
    fig = Figure(figsize=(1.5 + 3.6 * len(facets), 0.6 + 2.8 * len(metrics)), layout="constrained")
    axes = fig.subplots(len(metrics), len(facets), squeeze=False, sharey="row")
    colours: dict[str, str] = {}
    handles: dict[str, Any] = {}
    extra: dict[str, Any] = {}  # theory and references, listed after the series
    for i, metric in enumerate(metrics):
        mrows = [r for r in table.rows if r["metric"] == metric]
        means = {}
        for r in table.rows:
            means.setdefault(tuple(r[p] for p in table.params), {})[r["metric"]] = r["mean"]
        for j, fv in enumerate(facets):
            ax = axes[i][j]
            rows = [r for r in mrows if spec.facet is None or r[spec.facet] == fv]
            cats = list(dict.fromkeys(r[spec.x] for r in rows))
            pos = {c: k for k, c in enumerate(cats)}
            groups = _groups(rows, table.params, spec)
            width = 0.7
            for g, (key, grows) in enumerate(groups.items()):
                label = ", ".join(f"{v}" if p == spec.series else f"{p}={v}" for p, v in key) or metric
                colour = colours.setdefault(label, f"C{len(colours) % 10}")
                grows = grows if categorical else sorted(grows, key=lambda r: r[spec.x])
                if categorical:
                    shift = (g - (len(groups) - 1) / 2) * width / max(1, len(groups))
                    xs = [pos[r[spec.x]] + shift for r in grows]
                else:
                    xs = [r[spec.x] for r in grows]
                ys = [r["mean"] for r in grows]
                lo = [max(0.0, m - r["ci_low"]) for m, r in zip(ys, grows)]
                hi = [max(0.0, r["ci_high"] - m) for m, r in zip(ys, grows)]
                if spec.logy:
                    zero = [k for k, m in enumerate(ys) if m <= 0]
                    if zero:
                        ax.scatter([xs[k] for k in zero], [grows[k]["ci_high"] for k in zero], marker="v",
                                   color=colour, s=22, zorder=3)
                        extra.setdefault("estimate 0 (drawn at its upper 95% bound)", Line2D(
                            [], [], color="0.35", marker="v", ms=5, ls="none"))
                    keep = [k for k in range(len(ys)) if ys[k] > 0]
                    xs_k, ys_k = [xs[k] for k in keep], [ys[k] for k in keep]
                    lo, hi = [min(lo[k], ys[k] * 0.999) for k in keep], [hi[k] for k in keep]
                else:
                    xs_k, ys_k = xs, ys
                h = ax.errorbar(xs_k, ys_k, yerr=[lo, hi], fmt="o" if categorical else "o-", ms=4,
                                capsize=2, color=colour, lw=1.2)
                handles.setdefault(label, h)
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
                for ref in spec.references:
                    if ref.metric == metric:
                        rv = [ref.fn(pp, means[tuple(pp[p] for p in table.params)]) for pp in point]
                        ok = [k for k, v in enumerate(rv) if v == v]
                        if ok:
                            ax.scatter([xs[k] for k in ok], [rv[k] for k in ok], marker="x", s=30,
                                       color="0.35", linewidths=1.2, zorder=4)
                            extra.setdefault(ref.label, Line2D(
                                [], [], color="0.35", marker="x", ms=6, mew=1.2, ls="none"))
            if categorical:
                ax.set_xticks(range(len(cats)), [str(c) for c in cats])
                ax.set_xlim(-0.6, len(cats) - 0.4)
                ax.tick_params(axis="x", labelsize="small")
            if spec.logy:
                ax.set_yscale("log")
            if i == len(metrics) - 1:
                ax.set_xlabel(spec.xlabel or spec.x)
            if j == 0:
                ax.set_ylabel(labels.get(metric, metric))
            if i == 0 and spec.facet is not None:
                notes = []
                for p in spec.annotate:
                    per = list(dict.fromkeys(r[p] for r in rows))
                    notes.append(f"{p} = {' / '.join(map(str, per))}")
                ax.set_title("\n".join([str(fv), *notes]), fontsize="medium")
            ax.grid(True, axis="y", alpha=0.3)
    if spec.logy:  # once every panel of a row is drawn (they share the y axis)
        for row in axes:
            _readable_log(row[0], "y")
    handles.update(extra)
    if len(handles) > 1:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center",
                   ncols=min(len(handles), 4), fontsize="small")
    if title:
        fig.suptitle(title)
    return fig


def plot_table(
    table: Table,
    spec: PlotSpec,
    path: str | os.PathLike[str],
    *,
    title: str = "",
    labels: Mapping[str, str] | None = None,
    pdf: bool = False,
) -> list[Path]:
    """Draw and write ``path`` (PNG), plus the same stem as PDF when ``pdf``; atomic writes."""
    fig = draw(table, spec, title=title, labels=labels)
    path = Path(path)
    written = []
    formats: Sequence[tuple[str, str]] = [("png", ".png")] + ([("pdf", ".pdf")] if pdf else [])
    for fmt, suffix in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, dpi=120)
        written.append(atomic_write(path.with_suffix(suffix), buf.getvalue()))
    return written

