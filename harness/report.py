"""HTML views of results: a table with intervals and trial counts, and one self-contained
page for every run in a folder (``anonspread report DIR``).

The page needs no network: figures are embedded as base64 PNG, the style sheet is inline,
and nothing is fetched. Each run shows its figure (redrawn from its CSV and JSON, as
``anonspread plot`` does), its table (``mean [95% interval]`` and the trials of every point),
its parameters, seed, versions and the command that reproduces it.
"""

from __future__ import annotations

import html
import json
import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonspread.harness.errors import OutputError
from anonspread.harness.html_view import png_img, table_html
from anonspread.harness.results import Table, atomic_write

__all__ = ["report", "reproduce_command", "run_html"]

_STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-top: 1px solid #ccc; padding-top: .8em; }
table.results { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
table.results th, table.results td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; }
table.results th { background: #f2f2f2; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
img.figure { max-width: 100%; height: auto; border: 1px solid #eee; }
code, pre { background: #f6f6f6; padding: .1em .3em; }
pre { padding: .5em; overflow-x: auto; white-space: pre-wrap; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; font-size: .9em; }
dt { font-weight: bold; }
nav ul { font-size: .9em; }
"""

# Records, once the page is loaded, how each embedded figure decoded (its natural size):
# a test reads it back from the browser's DOM. Inline, so the page stays self-contained.
_SCRIPT = """
window.addEventListener("load", function () {
  document.querySelectorAll("img.figure").forEach(function (img) {
    img.setAttribute("data-natural-width", img.naturalWidth);
    img.setAttribute("data-natural-height", img.naturalHeight);
  });
});
"""


def _is_cli(program: str) -> bool:
    """``anonspread``, ``python -m anonspread`` or ``python -m anonspread.harness``."""
    parts = Path(program).parts
    if not parts:
        return False
    if parts[-1] == "anonspread":
        return True
    return parts[-1] in ("__main__.py", "cli.py") and len(parts) > 1 and parts[-2] in ("harness", "anonspread")


def reproduce_command(side: Mapping[str, Any]) -> str:
    """The command that reproduces a run: the recorded one with the seed made explicit.

    Parameters
    ----------
    side : mapping
        The run's JSON sidecar (:func:`harness.results.read_sidecar`).

    Returns
    -------
    str
        A shell command for a run from the command line, else a Python call.

    Examples
    --------
    >>> reproduce_command({"command": ["/usr/bin/anonspread", "run", "compare-detection",
    ...                                "--out", "results"], "seed": 1234, "trials": 500})
    'anonspread run compare-detection --out results --rng 1234 --trials 500'
    """
    argv = [str(a) for a in side.get("command") or []]
    seed = side.get("seed")
    if len(argv) > 1 and _is_cli(argv[0]):
        args = ["anonspread", *argv[1:]]
        if "--rng" not in args and seed is not None:
            args += ["--rng", str(seed)]
        if "--trials" not in args and side.get("trials") is not None:
            args += ["--trials", str(side["trials"])]
        return shlex.join(args)
    from anonspread.harness.registry import _EXPERIMENTS

    name = str(side.get("experiment", "NAME"))
    trials = f", trials={side['trials']}" if side.get("trials") is not None else ""
    what = repr(name) if name in _EXPERIMENTS else "experiment"
    where = "" if name in _EXPERIMENTS else f", the Experiment named {name!r}"
    return (f"anonspread.harness.run({what}, rng={seed}{trials})  # run from Python{where} "
            f"({shlex.join(argv) if argv else 'no command recorded'})")


def _dl(items: Sequence[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def run_html(side: Mapping[str, Any], table: Table, png: bytes | None, *, anchor: str = "") -> str:
    """One run's section: figure, table, parameters, seed, versions, the reproducing command.

    Parameters
    ----------
    side : mapping
        The run's JSON sidecar.
    table : Table
        Its results.
    png : bytes or None
        Its figure, embedded inline (None: no figure).
    anchor : str
        The section's HTML id (default: the experiment's name).

    Returns
    -------
    str
        An HTML ``<section>``.
    """
    name = str(side.get("experiment", "run"))
    labels = {m["name"]: m.get("label", m["name"]) for m in side.get("metrics", ()) if isinstance(m, Mapping)}
    parts = [f'<section class="run" id="{html.escape(anchor or name)}">',
             f"<h2>{html.escape(name)}: {html.escape(str(side.get('title', '')))}</h2>"]
    if side.get("description"):
        parts.append(f"<p>{html.escape(' '.join(str(side['description']).split()))}</p>")
    if png is not None:
        parts.append(png_img(png, f"figure of {name}"))
    parts.append(table_html(table, labels))
    skipped = [i for i in side.get("skipped") or () if isinstance(i, Mapping)]
    if skipped:
        rows = "".join(f"<li>{html.escape(', '.join(f'{k}={v}' for k, v in (i.get('params') or {}).items()))}"
                       f": {html.escape(str(i.get('reason', '')))}</li>" for i in skipped)
        parts.append(f"<p>Not computed ({len(skipped)} point(s) that do not apply):</p><ul>{rows}</ul>")
    metrics = [f"<b>{html.escape(m['name'])}</b>: {html.escape(str(m.get('description') or m.get('label', '')))}"
               for m in side.get("metrics", ()) if isinstance(m, Mapping)]
    graphs = ((side.get("components") or {}).get("graphs")) or []
    notes = [f"{html.escape(str(g.get('family')))}: {html.escape(g['notes'])}" for g in graphs
             if isinstance(g, Mapping) and g.get("notes")]
    items = [
        ("metrics", "<br>".join(metrics)),
        ("grid", f"<code>{html.escape(json.dumps(side.get('grid', {}), sort_keys=True))}</code>"),
        ("trials", html.escape(str(side.get("trials") if side.get("trials") is not None else "exact"))
         + f" per point (batches of {html.escape(str(side.get('batch_size')))})"),
        ("seed", f"<code>{html.escape(str(side.get('seed')))}</code>"),
        ("confidence", html.escape(str(side.get("confidence_level", "")))),
        ("versions", html.escape(", ".join(f"{k} {v}" for k, v in (side.get("versions") or {}).items()))),
        ("executor", html.escape(str(side.get("executor", "")))),
        ("reproduce", f"<pre>{html.escape(reproduce_command(side))}</pre>"),
    ]
    if notes:
        items.insert(2, ("graph notes", "<br>".join(notes)))
    timing = side.get("timing") or {}
    if "elapsed_s" in timing:
        items.append(("time", f"{float(timing['elapsed_s']):.1f} s"))
    parts.append(_dl(items))
    parts.append("</section>")
    return "\n".join(parts)


def _figure(side: Mapping[str, Any], table: Table) -> bytes:
    """The run's figure, redrawn like ``anonspread plot`` (theory curves of registered runs)."""
    import dataclasses

    from anonspread.harness.experiment import PlotSpec
    from anonspread.harness.plots import draw, figure_png
    from anonspread.harness.registry import _EXPERIMENTS

    spec = PlotSpec.from_dict(side["plot"])
    name = side.get("experiment", "")
    if isinstance(name, str) and name in _EXPERIMENTS:
        registered = _EXPERIMENTS.get(name).plot_spec()
        if registered.x == spec.x and set(registered.y) <= {m["name"] for m in side["metrics"]}:
            spec = dataclasses.replace(spec, theory=registered.theory, references=registered.references,
                                       xlabel=spec.xlabel or registered.xlabel)
    labels = {m["name"]: m.get("label", m["name"]) for m in side["metrics"]}
    return figure_png(draw(table, spec, labels=labels, info=side))


def report(directory: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """Write one self-contained HTML page for every run in ``directory`` (default
    ``DIR/report.html``); returns its path.

    A run is a result CSV with its JSON sidecar beside it (``NAME.csv`` + ``NAME.json``).

    Parameters
    ----------
    directory : path-like
        The folder of the runs (an ``--out`` folder).
    output : path-like, optional
        The page to write (default ``directory/report.html``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        ``directory`` is not a directory, or holds no run.
    """
    from anonspread.harness.results import read_sidecar, read_table

    folder = Path(directory)
    if not folder.is_dir():
        raise OutputError(f"report directory must be an existing directory; got {str(folder)!r}")
    runs = sorted(p for p in folder.glob("*.csv") if p.with_suffix(".json").is_file())
    if not runs:
        raise OutputError(f"report directory {str(folder)!r} holds no run (a NAME.csv with its NAME.json)")
    sections, index = [], []
    for i, csv_path in enumerate(runs):
        side = read_sidecar(csv_path)
        table = read_table(csv_path, side)
        anchor = f"run-{i}-{csv_path.stem}"
        sections.append(run_html(side, table, _figure(side, table), anchor=anchor))
        index.append(f'<li><a href="#{html.escape(anchor)}">{html.escape(csv_path.stem)}</a>: '
                     f"{html.escape(str(side.get('title', '')))}</li>")
    page = "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>anonspread report: {html.escape(folder.resolve().name)}</title>",
        f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head><body>",
        f"<h1>anonspread report: {html.escape(str(folder))}</h1>",
        f"<p>{len(runs)} run(s). Each cell is the estimate with its 95% interval; "
        "<i>trials</i> is the number of trials of the point.</p>",
        "<nav><ul>", *index, "</ul></nav>", *sections, "</body></html>",
    ])
    target = Path(output) if output is not None else folder / "report.html"
    return atomic_write(target, page)
