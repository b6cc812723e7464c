"""HTML pieces shared by notebook displays and ``anonspread report``: a result table with
intervals and trial counts, and a PNG embedded as a data URL (nothing fetched).

Kept free of other harness imports: :class:`~harness.results.Table` uses it for its
``_repr_html_``.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping
from typing import Any

__all__ = ["png_img", "table_html"]


def _cell(row: Mapping[str, Any] | None) -> str:
    if row is None:
        return ""
    mean, lo, hi = row["mean"], row["ci_low"], row["ci_high"]
    text = f"{mean:.4g}"
    if isinstance(lo, float) and isinstance(hi, float) and hi > lo:
        text += f" [{lo:.3g}, {hi:.3g}]"
    return text


def table_html(table: Any, labels: Mapping[str, str] | None = None, *, max_points: int = 200) -> str:
    """The table as HTML: one row per point, the parameters that vary, ``mean [95% CI]`` per
    metric and the trials of the point (a range when its metrics differ).

    Parameters
    ----------
    table : Table
        The results.
    labels : mapping of str to str, optional
        Column headings of the metrics (default: their names).
    max_points : int
        Most rows shown (a note says how many more the CSV holds).

    Returns
    -------
    str
        An HTML ``<table>`` (with the note, if any).
    """
    labels = dict(labels or {})
    points: dict[tuple, dict[str, Mapping[str, Any]]] = {}
    metrics: list[str] = []
    for row in table.rows:
        key = tuple(row[p] for p in table.params)
        if row["metric"] not in metrics:
            metrics.append(row["metric"])
        points.setdefault(key, {})[row["metric"]] = row
    keys = list(points)
    varying = [i for i, p in enumerate(table.params) if len({k[i] for k in keys}) > 1] or list(
        range(len(table.params)))
    head = [html.escape(table.params[i]) for i in varying]
    head += [f'<span title="{html.escape(m)}">{html.escape(labels.get(m, m))}</span>' for m in metrics]
    head.append("trials")
    out = ['<table class="results">', "<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>",
           "<tbody>"]
    for key in keys[:max_points]:
        cells = [f"<td>{html.escape(str(key[i]))}</td>" for i in varying]
        cells += [f'<td class="num">{html.escape(_cell(points[key].get(m)))}</td>' for m in metrics]
        ns = sorted({int(r["n"]) for r in points[key].values()})
        trials = f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,}-{ns[-1]:,}"
        cells.append(f'<td class="num">{trials}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if len(keys) > max_points:
        out.append(f"<p>... {len(keys) - max_points} more points in the CSV.</p>")
    if len(varying) < len(table.params):
        fixed = ", ".join(f"{table.params[i]} = {keys[0][i]}" for i in range(len(table.params))
                          if i not in varying) if keys else ""
        if fixed:
            out.append(f"<p>Held fixed: {html.escape(fixed)}.</p>")
    return "\n".join(out)


def png_img(png: bytes, alt: str) -> str:
    """An ``<img>`` carrying the PNG inline (base64 data URL).

    Parameters
    ----------
    png : bytes
        The image file's bytes.
    alt : str
        The text alternative (escaped here).

    Returns
    -------
    str

    Examples
    --------
    >>> png_img(b"\\x89PNG", "a figure")
    '<img class="figure" alt="a figure" src="data:image/png;base64,iVBORw==">'
    """
    data = base64.b64encode(png).decode("ascii")
    return f'<img class="figure" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


