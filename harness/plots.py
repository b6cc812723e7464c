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

from anonspread.errors import InvalidParameterError
from harness.experiment import PlotSpec
from harness.results import Table, atomic_write

__all__ = ["draw", "plot_table"]


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


def draw(table: Table, spec: PlotSpec, *, title: str = "", labels: Mapping[str, str] | None = None) -> Any:
    """Draw the table on a new :class:`~matplotlib.figure.Figure` (one panel per metric)."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.ticker import LogFormatter, NullFormatter

    labels = dict(labels or {})
    metrics = list(spec.y) or list(dict.fromkeys(r["metric"] for r in table.rows))
    if spec.x not in table.params:
        raise InvalidParameterError(f"plot x must be one of {list(table.params)}; got {spec.x!r}")
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
            # overlaid metrics get distinct markers, so coinciding curves stay visible
            marker = "osD^vx+*"[i_metric % 8] if overlay else "o"
            size = 3 + 2 * (len(panel) - 1 - i_metric) if overlay else 3
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
            for key, rows in groups.items():
                rows = sorted(rows, key=lambda r: r[spec.x])
                xs = [r[spec.x] for r in rows]
                label = ", ".join(f"{p}={v}" for p, v in key) or None
                if overlay:
                    name = labels.get(metric, metric)
                    label = f"{name}, {label}" if label else name
                # beyond the 10 cycle colours, a sequential colour map keeps series apart
                color = cmap(i_line / max(1, n_panel - 1)) if n_panel > 10 else None
                i_line += 1
                (line,) = ax.plot(xs, [r["mean"] for r in rows], marker=marker, ms=size,
                                  label=label, color=color)
                n_lines += 1
                lo, hi = [r["ci_low"] for r in rows], [r["ci_high"] for r in rows]
                if any(a != b for a, b in zip(lo, hi)):
                    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.25, linewidth=0)
                for t in theories:
                    if t not in shared:
                        ys = [t.fn({p: r[p] for p in table.params}) for r in rows]
                        group = ", ".join(f"{p}={v}" for p, v in key)
                        tlabel = f"{t.label} ({group})" if group else t.label
                        ax.plot(xs, ys, ls="--", color=line.get_color(), alpha=0.9, label=tlabel)
                        n_lines += 1
        ax.set_xlabel(spec.x)
        ax.set_ylabel(ylabel)
        if spec.logx:
            ax.set_xscale("log")
            # short axes otherwise get overlapping labels on every minor tick
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.xaxis.set_major_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(0, 0)))
        if spec.logy:
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
        if n_lines > 1 and legend_beside:  # beside the axes: it must not hide any curve
            ax.legend(fontsize="small" if n_lines <= 8 else "x-small", loc="upper left",
                      bbox_to_anchor=(1.02, 1.0), ncol=ncol)
        elif n_lines > 1:
            ax.legend(fontsize="x-small" if n_lines > 6 else "small")
        ax.grid(True, alpha=0.3)
    if title:  # wrapped to the figure's width (about 11 characters per inch), never cut off
        fig.suptitle(textwrap.fill(title, width=int(width * 11)))
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

