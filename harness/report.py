"""HTML views of results: a table with intervals and trial counts, and a report of every
run in a folder (``anonspread report DIR``).

Nothing is fetched from the network: the style sheet is inline. Each run shows its figure,
its table (``mean [95% interval]`` and the trials of every point), its parameters, seed,
versions and the command that reproduces it.

A folder of at most :data:`INLINE_RUNS` runs gives one self-contained page: every figure
is redrawn from the run's CSV and JSON (as ``anonspread plot`` does) and embedded as base64
PNG. A larger folder gives an index (``report.html``, :data:`RUNS_PER_INDEX` runs a page,
further pages in ``report_files/``) with a thumbnail and a link per run, and one page per
run in ``report_files/``; figures are the runs' own ``NAME.png`` files, referenced, not
copied or redrawn (a run without an up-to-date ``NAME.png`` gets one drawn into
``report_files/``). Every page then stays small whatever the number of runs, and the
report takes time proportional to reading the runs' CSV and JSON.

Interrupted runs (a ``NAME.journal.jsonl`` without its ``NAME.csv``) are listed with the
command that resumes them.
"""

from __future__ import annotations

import html
import json
import os
import shlex
import stat
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonspread.harness.errors import OutputError
from anonspread.harness.html_view import png_img, table_html
from anonspread.harness.results import Table, atomic_write

__all__ = ["INLINE_RUNS", "RUNS_PER_INDEX", "report", "reproduce_command", "run_html"]

#: Up to this many runs, ``report`` writes one self-contained page (figures embedded).
INLINE_RUNS = 20
#: Runs listed on each index page of a paged report.
RUNS_PER_INDEX = 200

_STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-top: 1px solid #ccc; padding-top: .8em; }
table.results { border-collapse: collapse; font-size: .85em; margin: .5em 0; }
table.results th, table.results td { border: 1px solid #ccc; padding: .2em .5em; text-align: left; }
table.results th { background: #f2f2f2; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
img.figure { max-width: 100%; height: auto; border: 1px solid #eee; }
img.thumb { width: 160px; height: auto; border: 1px solid #eee; }
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


def reproduce_command(side: Mapping[str, Any], out: str | os.PathLike[str] | None = None) -> str:
    """The command that reproduces a run, runnable as written: the recorded one with the seed
    and trials made explicit.

    A run from the command line gives a shell command (``anonspread sweep`` gets
    ``--overwrite``, since the run's own results are where it writes). A run from Python of a
    registered experiment gives a Python line: the modules that registered it imported, then
    :func:`harness.run` with the seed, trials, output folder and whatever differs from the
    registered experiment (grid axes as ``overrides``, batch size, confidence level). An
    experiment that is not registered cannot be named in a command: the line says so.

    Parameters
    ----------
    side : mapping
        The run's JSON sidecar (:func:`harness.results.read_sidecar`).
    out : path-like, optional
        The run's output folder (a Python line's ``out``; default ``"."``).

    Returns
    -------
    str
        A shell command for a run from the command line, else a Python line.

    Examples
    --------
    >>> reproduce_command({"command": ["/usr/bin/anonspread", "run", "compare-detection",
    ...                                "--out", "results"], "seed": 1234, "trials": 500})
    'anonspread run compare-detection --out results --rng 1234 --trials 500'
    >>> reproduce_command({"command": ["ipykernel_launcher.py", "-f", "k.json"], "seed": 7,
    ...                    "trials": 50, "experiment": "fig2.2-line-posterior"}, out="res")
    "from anonspread import harness; harness.run('fig2.2-line-posterior', rng=7, trials=50, out='res')"
    """
    argv = [str(a) for a in side.get("command") or []]
    seed = side.get("seed")
    if len(argv) > 1 and _is_cli(argv[0]):
        args = ["anonspread", *argv[1:]]
        if "--rng" not in args and seed is not None:
            args += ["--rng", str(seed)]
        if "--trials" not in args and side.get("trials") is not None:
            args += ["--trials", str(side["trials"])]
        if args[1] == "sweep" and not {"--overwrite", "--resume", "--dry-run"} & set(args):
            args.append("--overwrite")
        return shlex.join(args)
    from anonspread.harness.registry import _EXPERIMENTS

    name = str(side.get("experiment", "NAME"))
    trials = f", trials={side['trials']}" if side.get("trials") is not None else ""
    folder = f", out={os.fspath(out)!r}" if out is not None else ""
    imports = "".join(f"import {m}; " for m in side.get("modules") or ()
                      if all(part.isidentifier() for part in str(m).split(".")))
    template, grid = side.get("template"), side.get("grid")
    if name not in _EXPERIMENTS and isinstance(template, str) and isinstance(grid, Mapping):
        parts = [repr(template), f"product={dict(grid.get('product') or {})!r}"]
        if grid.get("zip"):
            parts.append(f"zip={dict(grid['zip'])!r}")
        parts.append(f"name={name!r}")
        extra = f", batch_size={side['batch_size']}" if isinstance(side.get("batch_size"), int) else ""
        level = side.get("confidence_level")
        if isinstance(level, float) and level != 0.95:
            extra += f", level={level}"
        return (f"{imports}from anonspread import harness; harness.run(harness.compose({', '.join(parts)}), "
                f"rng={seed}{trials}{folder}{extra})")
    if name not in _EXPERIMENTS:
        return (f"harness.run(experiment, rng={seed}{trials}{folder})  # where experiment is the "
                f"Experiment named {name!r} (not registered, so no command can name it)")
    return f"{imports}from anonspread import harness; harness.run({name!r}, rng={seed}{trials}{folder}" \
        f"{_differences(_EXPERIMENTS.get(name), side)})"


def _differences(exp: Any, side: Mapping[str, Any]) -> str:
    """``run``'s keyword arguments for what a run changed in a registered experiment."""
    out = ""
    grid = side.get("grid")
    if isinstance(grid, Mapping):
        mine = json.loads(json.dumps(exp.grid.to_dict(), default=str))
        changed = {}
        for part in ("product", "zip"):
            theirs = grid.get(part) or {}
            for axis, values in theirs.items():
                if (mine.get(part) or {}).get(axis) != values:
                    changed[axis] = values
        if changed:
            out += f", overrides={changed!r}"
    bsize = side.get("batch_size")
    if isinstance(bsize, int) and bsize != exp.effective_batch_size():
        out += f", batch_size={bsize}"
    level = side.get("confidence_level")
    if isinstance(level, float) and level != 0.95:
        out += f", level={level}"
    return out


def _dl(items: Sequence[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def run_html(side: Mapping[str, Any], table: Table, png: bytes | None, *, anchor: str = "",
             figure_src: str | None = None, out: str | os.PathLike[str] | None = None) -> str:
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
    figure_src : str, optional
        A URL (usually a relative path) of the figure, referenced instead of embedded
        (used when ``png`` is None).
    out : path-like, optional
        The run's folder (for the reproducing line of a run from Python).

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
    elif figure_src is not None:
        parts.append(f'<img class="figure" alt="{html.escape(f"figure of {name}")}" '
                     f'src="{html.escape(figure_src)}">')
    parts.append(table_html(table, labels))
    skipped = [i for i in side.get("skipped") or () if isinstance(i, Mapping)]
    if skipped:
        rows = "".join(f"<li>{html.escape(', '.join(f'{k}={v}' for k, v in (i.get('params') or {}).items()))}"
                       f": {html.escape(str(i.get('reason', '')))}</li>" for i in skipped)
        parts.append(f"<p>Not computed ({len(skipped)} point(s); the reason of each below):</p><ul>{rows}</ul>")
    held = {r.get("metric") for r in table.rows}  # not the helpers an older sidecar lists
    metrics = [f"<b>{html.escape(m['name'])}</b>: {html.escape(str(m.get('description') or m.get('label', '')))}"
               for m in side.get("metrics", ()) if isinstance(m, Mapping) and m.get("name") in held]
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
        ("reproduce", f'<pre style="white-space: pre-wrap">{html.escape(reproduce_command(side, out))}</pre>'),
    ]
    if notes:
        items.insert(2, ("graph notes", "<br>".join(notes)))
    items += _time_item(side.get("timing") or {})
    parts.append(_dl(items))
    parts.append("</section>")
    return "\n".join(parts)


def _time_item(timing: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The run's duration, named for what it measures (the figure ``RunResult`` and the
    command line print)."""
    try:
        elapsed = float(timing["elapsed_s"])
    except (KeyError, TypeError, ValueError):
        return []
    if "compute_s" not in timing:  # sidecars before issue 34: elapsed_s stopped at the results
        return [("time", f"{elapsed:.1f} s to compute the results (before the figures were drawn)")]
    try:
        compute = f" ({float(timing['compute_s']):.1f} s of it computing the results)"
    except (TypeError, ValueError):
        compute = ""
    return [("time", f"{elapsed:.1f} s from the call to the results and figures written{compute}")]


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


def _href(path: Path, start: Path) -> str:
    """A relative URL from a page in ``start`` to ``path``."""
    rel = os.path.relpath(path, start)
    return urllib.parse.quote(Path(rel).as_posix())


def _read_head(path: Path, limit: int = 1 << 16) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(limit)


def interrupted_runs(folder: Path) -> list[tuple[str, str]]:
    """``(what, resume command)`` of every interrupted run in ``folder``: a journal without
    its result CSV, or a pending journal (a run that was to replace the results beside it,
    interrupted: those results are the earlier run's).

    The command is the one the run was started with (recorded in the journal's first
    session line), its ``--out`` this folder, with ``--rng`` (the journal's seed) and
    ``--resume``; for journals written before that was recorded, the command is rebuilt
    from the header. ``what`` names the run and the batches its journal holds.

    Parameters
    ----------
    folder : pathlib.Path
        An ``--out`` folder.

    Returns
    -------
    list of (str, str)
    """
    found = []
    journals = [(j, j.name[: -len(".journal.jsonl")], False) for j in folder.glob("*.journal.jsonl")]
    journals += [(j, j.name[: -len(".journal.pending.jsonl")], True)
                 for j in folder.glob("*.journal.pending.jsonl")]
    for journal, name, pending in sorted(journals, key=lambda j: (j[1], j[2])):
        if not name or not journal.is_file() or (not pending and (folder / f"{name}.csv").exists()):
            continue
        try:
            lines = _read_head(journal).split(b"\n")
            head = json.loads(lines[0])
        except (OSError, ValueError):
            head = None
        if not isinstance(head, dict) or head.get("type") != "header":
            found.append((name, f"(the journal's header cannot be read: rerun {name} without --resume)"))
            continue
        what = f"{name}: {_journaled(journal)} batches journaled"
        if pending:
            what += " (a re-run that was to replace the results beside it; those are the earlier run's)"
        found.append((what, _resume_command(folder, name, head, _first_command(lines[1:]))))
    return found


def _journaled(journal: Path) -> str:
    """The unit lines of a journal (their number; '?' for one too big to count quickly)."""
    try:
        if journal.stat().st_size > 1 << 28:
            return "?"
        return str(journal.read_bytes().count(b'"type":"unit"'))
    except OSError:
        return "?"


def _first_command(lines: Sequence[bytes]) -> list[str] | None:
    for raw in lines:
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("type") == "session":
            cmd = rec.get("command")
            return [str(a) for a in cmd] if isinstance(cmd, list) else None
    return None


def _resume_command(folder: Path, name: str, head: Mapping[str, Any], argv: list[str] | None) -> str:
    from anonspread.harness.registry import _EXPERIMENTS

    exp = str(head.get("experiment", name))
    seed, trials = head.get("seed"), head.get("trials")
    if argv and len(argv) > 1 and _is_cli(argv[0]):
        args, i = ["anonspread"], 1
        while i < len(argv):  # this folder is where the journal is, whatever the cwd was
            if argv[i] == "--out" and i + 1 < len(argv):
                i += 2
                continue
            if not argv[i].startswith("--out="):
                args.append(argv[i])
            i += 1
        args += ["--out", str(folder)]
        if "--rng" not in args and seed is not None:
            args += ["--rng", str(seed)]
        if "--resume" not in args:
            args.append("--resume")
        return shlex.join(args)
    if exp in _EXPERIMENTS:
        if argv is not None:  # started from Python
            tr = f", trials={trials}" if trials is not None else ""
            return (f"from anonspread import harness; harness.run({exp!r}, rng={seed}{tr}, out={str(folder)!r}, "
                    "resume=True)  # with the first run's other arguments (overrides=...)")
        args = ["anonspread", "run", exp, "--out", str(folder)]
        if seed is not None:
            args += ["--rng", str(seed)]
        if trials is not None:
            args += ["--trials", str(trials)]
        return shlex.join([*args, "--resume"]) + "  # with the first run's other options (--set ...)"
    tr = f", trials={trials}" if trials is not None else ""
    return (f"anonspread.harness.run(experiment, rng={seed}{tr}, out={str(folder)!r}, resume=True)"
            f"  # the Experiment named {exp!r}")


def _interrupted_html(folder: Path) -> list[str]:
    found = interrupted_runs(folder)
    if not found:
        return []
    rows = "".join(f"<li><b>{html.escape(n)}</b>: <code>{html.escape(c)}</code></li>" for n, c in found)
    return [f"<h2>Interrupted runs ({len(found)}: a journal without its results; resume them with the "
            f"command shown)</h2><ul>{rows}</ul>"]


def _trials(side: Mapping[str, Any]) -> str:
    """The trials of a run, ``exact`` for a run that evaluates without sampling (``trials`` null)."""
    return str(side["trials"]) if side.get("trials") is not None else "exact"


def _page(title: str, body: Sequence[str], *, script: bool = False) -> str:
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style>" + (f"<script>{_SCRIPT}</script>" if script else "") + "</head><body>",
        *body, "</body></html>"])


def _check_folder(path: Path) -> None:
    """``path`` is a real directory (created if missing), never a symlink or anything else."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        try:
            path.mkdir()
        except OSError as exc:
            raise OutputError(f"cannot create {path}: {exc.strerror or exc}") from None
        return
    except OSError as exc:
        raise OutputError(f"cannot use {path}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        raise OutputError(f"{path} must be a directory for the report's pages (it is not, or is a "
                          "symbolic link); remove it or choose another --output")


def _paged(folder: Path, runs: Sequence[Path], target: Path) -> Path:
    """The index pages and one page per run (see the module docstring)."""
    from anonspread.harness.results import check_replaceable, read_sidecar, read_table

    check_replaceable(target)
    files = target.parent / f"{target.stem}_files"
    _check_folder(files)
    n_index = (len(runs) + RUNS_PER_INDEX - 1) // RUNS_PER_INDEX
    index_paths = [target] + [files / f"index-{k + 1}.html" for k in range(1, n_index)]
    pages = [files / f"run-{i}-{csv.stem}.html" for i, csv in enumerate(runs)]
    rows: list[str] = []
    for i, csv_path in enumerate(runs):
        side = read_sidecar(csv_path)
        table = read_table(csv_path, side)
        png = csv_path.with_suffix(".png")
        try:
            fresh = png.is_file() and png.stat().st_mtime >= csv_path.stat().st_mtime
        except OSError:
            fresh = False
        if not fresh:
            png = atomic_write(files / f"run-{i}-{csv_path.stem}.png", _figure(side, table))
        index_of = index_paths[i // RUNS_PER_INDEX]
        nav = [f'<a href="{_href(index_of, files)}">index</a>']
        if i > 0:
            nav.append(f'<a href="{_href(pages[i - 1], files)}">previous: {html.escape(runs[i - 1].stem)}</a>')
        if i + 1 < len(runs):
            nav.append(f'<a href="{_href(pages[i + 1], files)}">next: {html.escape(runs[i + 1].stem)}</a>')
        body = [f"<p>{' | '.join(nav)}</p>",
                run_html(side, table, None, anchor=f"run-{i}", figure_src=_href(png, files),
                         out=folder)]
        atomic_write(pages[i], _page(f"anonspread report: {csv_path.stem}", body))
        points = len({tuple(r.get(k) for k in table.params) for r in table.rows})
        rows.append(
            (index_of, f'<tr><td class="num">{i + 1}</td>'
                       f'<td><a href="{{page}}">{html.escape(csv_path.stem)}</a></td>'
                       f"<td>{html.escape(str(side.get('title', '')))}</td>"
                       f'<td class="num">{html.escape(str(points))}</td>'
                       f'<td class="num">{html.escape(_trials(side))}</td>'
                       f'<td class="num">{html.escape(str(side.get("seed")))}</td>'
                       f'<td><img class="thumb" loading="lazy" alt="figure of {html.escape(csv_path.stem)}" '
                       f'src="{{png}}"></td></tr>', pages[i], png))
    for k, index_path in enumerate(index_paths):
        here = index_path.parent
        links = " ".join(f"<b>{j + 1}</b>" if j == k else f'<a href="{_href(p, here)}">{j + 1}</a>'
                         for j, p in enumerate(index_paths))
        mine = [r for r in rows if r[0] == index_path]
        first = k * RUNS_PER_INDEX + 1
        body = [f"<h1>anonspread report: {html.escape(str(folder))}</h1>",
                f"<p>{len(runs)} runs; runs {first}-{first + len(mine) - 1} here. Each run has a page with "
                "its figure, its table (the estimate with its 95% interval and the trials of every point), "
                "its parameters, seed, versions and the command that reproduces it.</p>",
                f"<p>Index pages: {links}</p>" if n_index > 1 else "",
                *(_interrupted_html(folder) if k == 0 else []),
                '<table class="results"><thead><tr><th>#</th><th>run</th><th>title</th><th>points</th>'
                "<th>trials</th><th>seed</th><th>figure</th></tr></thead><tbody>",
                *(r[1].replace("{page}", _href(r[2], here)).replace("{png}", html.escape(_href(r[3], here)))
                  for r in mine),
                "</tbody></table>"]
        atomic_write(index_path, _page(f"anonspread report: {folder.resolve().name}", body))
    return target


def report(directory: str | os.PathLike[str], output: str | os.PathLike[str] | None = None, *,
           self_contained: bool | None = None) -> Path:
    """Write the report of every run in ``directory`` (default page ``DIR/report.html``);
    returns the page's path.

    A run is a result CSV with its JSON sidecar beside it (``NAME.csv`` + ``NAME.json``).
    Up to :data:`INLINE_RUNS` runs give one self-contained page; more give an index page
    with a thumbnail and a link per run, and a page per run in ``report_files/`` beside it
    (see the module docstring). Interrupted runs are listed with their resume command.

    Parameters
    ----------
    directory : path-like
        The folder of the runs (an ``--out`` folder).
    output : path-like, optional
        The page to write (default ``directory/report.html``).
    self_contained : bool, optional
        True: one page with every figure embedded, whatever the number of runs (slow and
        large for hundreds of runs); False: the index and per-run pages; None (default):
        self-contained up to :data:`INLINE_RUNS` runs.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        ``directory`` is not a directory, or holds no run; an output path is not a regular
        file (or, for ``report_files``, a directory).

    Examples
    --------
    >>> import tempfile
    >>> from anonspread import harness
    >>> out = tempfile.mkdtemp()
    >>> exp = harness.Experiment(name="coin", title="coin", description="a coin", grid=harness.Grid(product={"p": [0.5]}),
    ...     metrics=(harness.Metric("hit", "proportion"),), default_trials=20,
    ...     trials=lambda params, n, rng: {"hit": (rng.random(n) < params["p"]).astype(float)})
    >>> _ = harness.run(exp, rng=1, out=out, workers=1)
    >>> report(out).name
    'report.html'
    """
    from anonspread.harness.results import read_sidecar, read_table

    folder = Path(directory)
    if not folder.is_dir():
        raise OutputError(f"report directory must be an existing directory; got {str(folder)!r}")
    if self_contained not in (None, True, False):
        raise OutputError(f"self_contained must be True, False or None; got {self_contained!r}")
    runs = sorted(p for p in folder.glob("*.csv") if p.with_suffix(".json").is_file())
    target = Path(output) if output is not None else folder / "report.html"
    if not runs:
        interrupted = _interrupted_html(folder)
        if not interrupted:
            raise OutputError(f"report directory {str(folder)!r} holds no run (a NAME.csv with its "
                              "NAME.json) and no interrupted run (a NAME.journal.jsonl)")
        from anonspread.harness.results import check_replaceable

        check_replaceable(target)
        body = [f"<h1>anonspread report: {html.escape(str(folder))}</h1>",
                "<p>No finished run here yet.</p>", *interrupted]
        return atomic_write(target, _page(f"anonspread report: {folder.resolve().name}", body))
    if self_contained is False or (self_contained is None and len(runs) > INLINE_RUNS):
        return _paged(folder, runs, target)
    sections, index = [], []
    for i, csv_path in enumerate(runs):
        side = read_sidecar(csv_path)
        table = read_table(csv_path, side)
        anchor = f"run-{i}-{csv_path.stem}"
        sections.append(run_html(side, table, _figure(side, table), anchor=anchor, out=folder))
        index.append(f'<li><a href="#{html.escape(anchor)}">{html.escape(csv_path.stem)}</a>: '
                     f"{html.escape(str(side.get('title', '')))}</li>")
    body = [f"<h1>anonspread report: {html.escape(str(folder))}</h1>",
            f"<p>{len(runs)} run(s). Each cell is the estimate with its 95% interval; "
            "<i>trials</i> is the number of trials of the point.</p>",
            *_interrupted_html(folder), "<nav><ul>", *index, "</ul></nav>", *sections]
    return atomic_write(target, _page(f"anonspread report: {folder.resolve().name}", body, script=True))
