"""Figures from tidy results: estimates with confidence bands, log axes, theory overlays.

matplotlib is imported lazily and used through its object API
(:class:`matplotlib.figure.Figure` with the Agg canvas), so plotting neither
needs a display nor leaves figures registered in ``pyplot``.
"""

from __future__ import annotations

import io
import os
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
    from matplotlib.figure import Figure
    from matplotlib.ticker import LogFormatter, NullFormatter

    labels = dict(labels or {})
    metrics = list(spec.y) or list(dict.fromkeys(r["metric"] for r in table.rows))
    if spec.x not in table.params:
        raise InvalidParameterError(f"plot x must be one of {list(table.params)}; got {spec.x!r}")
    fig = Figure(figsize=(4.8 * len(metrics), 3.8), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics):
        groups = _series(table, spec, metric)
        for key, rows in groups.items():
            rows = sorted(rows, key=lambda r: r[spec.x])
            xs = [r[spec.x] for r in rows]
            label = ", ".join(f"{p}={v}" for p, v in key) or None
            (line,) = ax.plot(xs, [r["mean"] for r in rows], marker="o", ms=3, label=label)
            lo, hi = [r["ci_low"] for r in rows], [r["ci_high"] for r in rows]
            if any(a != b for a, b in zip(lo, hi)):
                ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.25, linewidth=0)
            for t in spec.theory:
                if t.metric == metric:
                    ys = [t.fn({p: r[p] for p in table.params}) for r in rows]
                    tlabel = t.label if len(groups) == 1 else f"{t.label} ({label})"
                    ax.plot(xs, ys, ls="--", color=line.get_color(), alpha=0.9, label=tlabel)
        ax.set_xlabel(spec.x)
        ax.set_ylabel(labels.get(metric, metric))
        if spec.logx:
            ax.set_xscale("log")
            # short axes otherwise get overlapping labels on every minor tick
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.xaxis.set_major_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(0, 0)))
        if spec.logy:
            ax.set_yscale("log")
            ax.yaxis.set_minor_formatter(NullFormatter())
        if len(groups) > 1 or any(t.metric == metric for t in spec.theory):
            ax.legend(fontsize="x-small" if len(groups) > 6 else "small")
        ax.grid(True, alpha=0.3)
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

