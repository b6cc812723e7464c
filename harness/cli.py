"""The ``anonspread`` command line: list, show, run, sweep, plot, report, graph convert.

Every error is one line on stderr and a non-zero exit status (2: bad input,
1: a failure while running, 130: interrupted); ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import textwrap
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from anonspread.errors import AnonspreadError, InvalidParameterError
from anonspread.harness.grid import Scalar, is_axis_name
from anonspread.harness.params import CliText

__all__ = ["main", "parse_assignment", "parse_value"]

PROG = "anonspread"


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (usage is in --help)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def parse_value(text: str) -> Scalar:
    """A --set value: ``true``/``false``, an int, a float, or else the string itself.

    Parameters
    ----------
    text : str
        The value as typed.

    Returns
    -------
    bool, int, float or str

    Examples
    --------
    >>> parse_value("true"), parse_value("3"), parse_value("2.5"), parse_value("ml")
    (True, 3, 2.5, 'ml')
    """
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    if not text.strip():
        raise InvalidParameterError("a --set value must not be empty")
    return text.strip()


def parse_assignment(text: str) -> tuple[str, list[CliText]]:
    """Parse ``key=v1,v2,...`` into ``(key, [values])``.

    The values stay text (:class:`~harness.params.CliText`): each is parsed by the
    declared type of its axis when the run is set up (``T=2.5`` on an integer axis is
    refused there, naming the axis, the value and the type). ``key`` is a parameter
    name or ``component.parameter`` (``graph.n``).

    Parameters
    ----------
    text : str
        One ``--set`` argument.

    Returns
    -------
    key : str
    values : list of CliText

    Raises
    ------
    InvalidParameterError
        ``"--set must be key=value[,value...]; got 'x'"``.

    Examples
    --------
    >>> parse_assignment("graph.n=100,200")
    ('graph.n', ['100', '200'])
    """
    key, sep, rest = text.partition("=")
    if not sep or not is_axis_name(key.strip()) or not rest.strip():
        raise InvalidParameterError(f"--set must be key=value[,value...]; got {text!r}")
    values = [v.strip() for v in rest.split(",")]
    if not all(values):
        raise InvalidParameterError(f"--set {key.strip()}: a value must not be empty; got {text!r}")
    return key.strip(), [CliText(v) for v in values]


def _assignments(items: Sequence[str] | None) -> dict[str, list[CliText]]:
    out: dict[str, list[CliText]] = {}
    for item in items or ():
        key, values = parse_assignment(item)
        if key in out:
            raise InvalidParameterError(f"parameter {key!r} is set twice")
        out[key] = values
    return out


# --------------------------------------------------------------------------- commands


def _cmd_list(args: argparse.Namespace) -> int:
    from anonspread.harness.registry import list_experiments

    exps = list_experiments()
    width = max((len(e.name) for e in exps), default=0)
    for e in exps:
        print(f"{e.name:<{width}}  {e.title}")
    if args.components:
        from anonspread.harness.components import list_components
        from anonspread.harness.compose import list_templates

        print()
        for tpl in list_templates():
            print(f"sweep {tpl.name}: {tpl.description.splitlines()[0] if tpl.description else ''}")
        for kind, names in list_components().items():
            print(f"{kind}: {', '.join(names)}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from anonspread.harness.grid import expand
    from anonspread.harness.registry import get_experiment

    e = get_experiment(args.name)
    spec = e.plot_spec()
    print(f"{e.name}: {e.title}\n")
    print(textwrap.dedent(e.description).strip() + "\n")
    print(f"computes:  {e.mode}" + ("" if e.is_exact else f" (default {e.default_trials} trials per point, batches of {e.effective_batch_size()})"))
    print(f"points:    {len(expand(e.grid))}")
    for part in ("product", "zip"):
        for k, v in getattr(e.grid, part).items():
            print(f"  {part:<7} {k} = {', '.join(map(str, v))}")
    print("metrics:")
    for m in e.metrics:
        words = m.label + (f" ({m.description})" if m.description and m.description != m.label else "")
        print(f"  {m.name} ({'exact' if e.is_exact else m.kind}){': ' + words if words else ''}")
    theory = ", ".join(t.label for t in spec.theory) or "none"
    print(f"plot:      x={spec.x} series={spec.series} logx={spec.logx} logy={spec.logy} theory: {theory}")
    return 0


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "trials": args.trials,
        "rng": args.rng,
        "out": args.out,
        "workers": args.workers,
        "threads": args.threads,
        "scheduler": args.scheduler,
        "executor": args.executor,
        "resume": args.resume,
        "batch_size": args.batch_size,
        "plot": not args.no_plot,
        "pdf": args.pdf,
        "progress": False if args.quiet else None,
        "estimator_budget": args.estimator_budget,
    }


def _report(res: Any) -> None:
    files = ", ".join(str(p) for k, p in res.paths.items() if k != "journal")
    reused = f", {res.reused} reused from the journal" if res.reused else ""
    print(res.table.format_text())
    for g in ((res.metadata or {}).get("components") or {}).get("graphs", ()):
        if isinstance(g, dict) and g.get("notes"):  # once per graph and run
            given = g.get("parameters") or {}
            what = os.path.basename(str(given["path"])) if "path" in given else \
                ", ".join(f"{k}={v}" for k, v in given.items())
            print(f"note: graph {g.get('family')}({what}): {g['notes']}")
    print(f"{res.experiment.name}: {res.computed} batches computed{reused} in {res.elapsed:.1f} s; wrote {files}")


def _dry_run(exp: Any, args: argparse.Namespace, opts: dict[str, Any]) -> int:
    """``--dry-run``: the pilot's estimate, per (point, estimator), and stop."""
    from anonspread.harness.runner import estimate_cost

    keys = ("trials", "workers", "scheduler", "executor", "batch_size", "estimator_budget")
    text = estimate_cost(exp, overrides=_assignments(getattr(args, "set", None)) if isinstance(exp, str) else None,
                         **{k: opts[k] for k in keys}).format_text()
    print(_fit(text))
    return 0


def _fit(text: str) -> str:
    """``text`` with its lines wrapped at the terminal's width (100 columns when the output is
    not a terminal), continuation lines indented four more spaces than their first."""
    import shutil

    width = max(40, shutil.get_terminal_size((100, 24)).columns)
    out = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line, width=width, subsequent_indent=indent + "    ", break_on_hyphens=False,
                             break_long_words=False) or [""]
    return "\n".join(out)


def _cmd_run(args: argparse.Namespace) -> int:
    from anonspread.harness.runner import run

    if args.dry_run:
        return _dry_run(args.name, args, _run_options(args))
    res = run(args.name, overrides=_assignments(args.set), **_run_options(args))
    _report(res)
    return 0


def _print_components(kinds: dict[str, list[str]]) -> None:
    from anonspread.harness.components import component_info

    for kind, names in kinds.items():
        print(f"\n{kind} components (--set {kind}=NAME; parameters --set {kind}.PARAM=V,...):")
        for name in names:
            comp = component_info(kind, name)
            params = ", ".join(f"{p}: {spec.type}={spec.default_text()}" for p, spec in comp.params.items())
            print(f"  {name}" + (f"({params})" if params else "") + (f"  {comp.description}" if comp.description else ""))


def _cmd_sweep(args: argparse.Namespace) -> int:
    from anonspread.harness.compose import compose, get_template, list_templates, load_sweep_file

    if args.list:
        from anonspread.harness.components import list_components

        for tpl in list_templates():
            kinds = ", ".join(f"{p}: {k}" for p, k in tpl.components.items())
            print(f"{tpl.name}  ({kinds})\n    {tpl.description.strip().splitlines()[0]}")
            print(f"    parameters: {', '.join(tpl.parameters)}")
        _print_components(list_components())
        return 0
    config = load_sweep_file(args.config) if args.config else {}
    name = args.template or config.get("template")
    if not name:
        raise InvalidParameterError("give a sweep template (see 'anonspread sweep --list') or --config FILE")
    tpl = get_template(name)
    product = {**config.get("product", {}), **_assignments(args.set)}
    zipped = {**config.get("zip", {}), **_assignments(args.zip)}
    for key in set(product) & set(zipped):
        raise InvalidParameterError(f"parameter {key!r} is both a product and a zipped axis")
    plot = dict(config.get("plot", {}))
    for key in ("x", "series"):
        if getattr(args, key):
            plot[key] = getattr(args, key)
    plot.update({k: getattr(args, k) for k in ("logx", "logy") if getattr(args, k) is not None})
    exp = compose(tpl, product=product, zip=zipped, name=args.name or config.get("name"),
                  title=config.get("title"), plot=plot)
    opts = _run_options(args)
    for key in ("trials", "rng", "batch_size"):
        if opts[key] is None and key in config:
            opts[key] = config[key]
    if args.dry_run:
        return _dry_run(exp, args, opts)
    from anonspread.harness.runner import run

    _report(run(exp, overwrite=args.overwrite, **opts))
    return 0


def _plot_overrides(args: argparse.Namespace, spec: Any, params: Sequence[str], metrics: Sequence[str]) -> Any:
    """``spec`` with the figure options given on the command line, each checked."""
    import dataclasses

    changes: dict[str, Any] = {}
    for key in ("x", "series"):
        value = getattr(args, key)
        if value is None:
            continue
        if value not in params:
            from anonspread.registry import suggest

            raise InvalidParameterError(f"--{key} must be one of the table's parameters {list(params)}; "
                                        f"got {value!r}{suggest(value, params)}")
        changes[key] = value
    if "x" in changes and changes["x"] != spec.x:
        changes["xlabel"] = ""  # the recorded label named the old axis
        if spec.facet == changes["x"]:
            changes["facet"] = None
    if args.metric is not None:
        chosen = [m.strip() for item in args.metric for m in item.split(",") if m.strip()]
        if not chosen:
            raise InvalidParameterError(f"--metric must name at least one of the table's metrics "
                                        f"{list(metrics)}; got {args.metric[-1]!r}")
        for m in chosen:
            if m not in metrics:
                from anonspread.registry import suggest

                raise InvalidParameterError(f"--metric must be among the table's metrics {list(metrics)}; "
                                            f"got {m!r}{suggest(m, metrics)}")
        changes["y"] = tuple(dict.fromkeys(chosen))
        changes["panels"] = ()
    for key in ("logx", "logy"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    return dataclasses.replace(spec, **changes) if changes else spec


def _cmd_plot(args: argparse.Namespace) -> int:
    import dataclasses

    from anonspread.harness.experiment import PlotSpec
    from anonspread.harness.plots import plot_table
    from anonspread.harness.registry import _EXPERIMENTS
    from anonspread.harness.results import read_sidecar, read_table

    side = read_sidecar(args.csv)
    table = read_table(args.csv, side)
    spec = PlotSpec.from_dict(side["plot"])
    name = side.get("experiment", "")
    if isinstance(name, str) and name in _EXPERIMENTS:
        registered = _EXPERIMENTS.get(name).plot_spec()
        if registered.x == spec.x and set(registered.y) <= {m["name"] for m in side["metrics"]}:
            spec = dataclasses.replace(spec, theory=registered.theory, references=registered.references,
                                       xlabel=spec.xlabel or registered.xlabel)
    metrics = list(dict.fromkeys(r["metric"] for r in table.rows))
    spec = _plot_overrides(args, spec, table.params, metrics)
    target = Path(args.output) if args.output else Path(args.csv).with_suffix(".png")
    labels = {m["name"]: m.get("label", m["name"]) for m in side["metrics"]}
    where: dict[str, list[CliText]] = {}
    for item in args.where or ():
        try:
            key, values = parse_assignment(item)
        except InvalidParameterError:
            raise InvalidParameterError(f"--where must be KEY=V[,V...] (a parameter of the table and "
                                        f"the values to keep); got {item!r}") from None
        if key in where:
            raise InvalidParameterError(f"--where {key} is given twice; give its values once: "
                                        f"--where {key}=V1,V2")
        where[key] = values
    for p in plot_table(table, spec, target, title=args.title or "", labels=labels, pdf=args.pdf, info=side,
                        where=where or None):
        print(f"wrote {p}")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from anonspread.harness.report import report

    print(f"wrote {report(args.directory, args.output, self_contained=args.self_contained)}")
    return 0


# --------------------------------------------------------------------------- parser

_EPILOG = {
    "main": """examples:
  anonspread list
  anonspread show compare-detection
  anonspread run NAME --trials 2000 --rng 7 --out results/ --workers 4
  anonspread run NAME --scheduler tcp://10.0.0.5:8786      # a Dask cluster
  anonspread run NAME --resume                               # after Ctrl-C
  anonspread sweep --list
  anonspread plot results/NAME.csv --pdf
  anonspread report results/                                 # one HTML page""",
    "run": """examples:
  anonspread run NAME --trials 500 --rng 1 --out out/
  anonspread run NAME --set eps=0.5,1,2 --set k=4      # replace grid axes
  anonspread run NAME --workers 1                      # in-process
  anonspread run NAME --scheduler local --workers 4    # a Dask LocalCluster
  anonspread run NAME --resume                         # reuse finished batches""",
    "sweep": """examples:
  anonspread sweep --list                              # templates and components
  anonspread sweep TEMPLATE --set eps=0.5,1,2,4 --set mechanism=a,b --trials 1000
  anonspread sweep TEMPLATE --zip n=10,100 --zip m=1,10 --x n --logx
  anonspread sweep --config my_sweep.toml --out results/

TOML file keys: template, name, title, trials, rng, batch_size, and the tables
[product] (axes crossed), [zip] (axes in lock-step), [plot] (x, xlabel, series, y, logx, logy).""",
    "plot": """examples:
  anonspread plot results/NAME.csv
  anonspread plot results/NAME.csv --x T --series protocol --metric detection --logy
  anonspread plot results/NAME.csv --no-logy --title "Flooding on my graph" --output fig/a.png
  anonspread plot results/NAME.csv --pdf --output fig/name.png
  anonspread plot results/NAME.csv --where estimator=strongest --output fig/strongest.png
  anonspread plot results/NAME.csv --where protocol=flooding,random-diffusion --where T=2,4

Without --logy/--no-logy a panel gets a log y axis when its values span two decades or more;
a value 0 on a log axis is drawn at 0 (the axis is linear from 0 to its smallest positive
value, and a note under the figure says so).""",
}


def _add_run_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("run options")
    g.add_argument("--trials", type=int, help="trials per parameter point (default: the experiment's)")
    g.add_argument("--rng", type=int, metavar="SEED", help="root seed (default: fresh entropy, recorded in the JSON)")
    g.add_argument("--out", default=".", metavar="DIR", help="output directory (default: .)")
    g.add_argument("--workers", type=int, metavar="N",
                   help="parallel workers (default: the CPUs available, divided by --threads)")
    g.add_argument("--threads", type=int, default=1, metavar="N",
                   help="threads per worker for the OpenMP kernels of the bp and soft-margin estimators "
                   "(default 1: one thread per worker; same results for any number)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://HOST:8786, or 'local'")
    g.add_argument("--executor", metavar="NAME", help="inprocess, processes or dask (default: from --workers/--scheduler)")
    g.add_argument("--batch-size", type=int, metavar="N", help="trials per random stream (changes the streams)")
    g.add_argument("--estimator-budget", metavar="SECONDS",
                   help="most CPU time an estimator priced before the run (soft-margin) may take at one "
                   "point, e.g. 600, 30m, 2h or inf; a point priced above it is skipped and named with "
                   "its price (default 10m)")
    g.add_argument("--resume", action="store_true", help="reuse batches finished in OUT/NAME.journal.jsonl")
    g.add_argument("--pdf", action="store_true", help="also write a PDF figure")
    g.add_argument("--no-plot", action="store_true", help="write only the CSV and JSON")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.add_argument("--dry-run", action="store_true",
                   help="print the cost a timed pilot estimates (per point and estimator, CPU and wall "
                   "time on the workers) and stop; nothing is written")


def _version() -> str:
    from anonspread import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of ``anonspread``."""
    common = _Parser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    common.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import MODULE first, running its code (trust it as a script you run); it may register experiments or components")
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog=PROG, description="Run, sweep and plot anonspread experiments.",
                     epilog=_EPILOG["main"], formatter_class=fmt)
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("list", parents=[common], help="list the registered experiments",
                       description="List the registered experiments.", epilog="example:\n  anonspread list --components",
                       formatter_class=fmt)
    p.add_argument("--components", action="store_true", help="also list sweep templates and components")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("show", parents=[common], help="describe one experiment",
                       description="Describe an experiment: grid, metrics, plot.",
                       epilog="example:\n  anonspread show NAME", formatter_class=fmt)
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("run", parents=[common], help="run an experiment", epilog=_EPILOG["run"],
                       description="Run an experiment; write OUT/NAME.csv, .json and .png.",
                       formatter_class=fmt)
    p.add_argument("name", metavar="NAME")
    p.add_argument("--set", action="append", metavar="KEY=V[,V...]", help="replace a grid axis (repeatable)")
    _add_run_options(p)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("sweep", parents=[common], help="compose and run a sweep over registered components",
                       description="Compose a sweep from a template and registered components, then run it.",
                       epilog=_EPILOG["sweep"], formatter_class=fmt)
    p.add_argument("template", nargs="?", metavar="TEMPLATE")
    p.add_argument("--list", action="store_true", help="list templates and components")
    p.add_argument("--config", metavar="FILE.toml", help="read the sweep from a TOML file")
    p.add_argument("--set", action="append", metavar="KEY=V[,V...]", help="a product axis (repeatable)")
    p.add_argument("--zip", action="append", metavar="KEY=V[,V...]", help="a lock-step axis (repeatable)")
    p.add_argument("--name", help="output name (default: sweep-TEMPLATE-HASH, HASH identifying the grid)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the results of an earlier sweep of the same name in --out")
    p.add_argument("--x", help="plot x parameter")
    p.add_argument("--series", help="plot series parameter")
    p.add_argument("--logx", action=argparse.BooleanOptionalAction, default=None, help="logarithmic x axis")
    p.add_argument("--logy", action=argparse.BooleanOptionalAction, default=None,
                   help="logarithmic y axes (default: log when a panel's values span decades)")
    _add_run_options(p)
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("plot", parents=[common], help="redraw a figure from a result CSV", epilog=_EPILOG["plot"],
                       description="Redraw NAME.png from NAME.csv and its NAME.json sidecar.", formatter_class=fmt)
    p.add_argument("csv", metavar="CSV")
    p.add_argument("--output", metavar="PNG", help="figure path (default: next to the CSV)")
    p.add_argument("--pdf", action="store_true", help="also write a PDF")
    p.add_argument("--x", metavar="PARAM", help="parameter on the x axis")
    p.add_argument("--series", metavar="PARAM", help="parameter telling the lines apart")
    p.add_argument("--metric", action="append", metavar="NAME[,NAME...]",
                   help="metrics to draw, one panel each (repeatable; default: the recorded ones)")
    p.add_argument("--logx", action=argparse.BooleanOptionalAction, default=None,
                   help="logarithmic x axis (default: as recorded)")
    p.add_argument("--logy", action=argparse.BooleanOptionalAction, default=None,
                   help="logarithmic y axes (default: as recorded, else log when values span decades)")
    p.add_argument("--where", action="append", metavar="KEY=V[,V...]",
                   help="keep only the rows whose parameter KEY takes one of the values (repeatable: "
                   "every KEY must match), e.g. --where estimator=strongest; names compare exactly, "
                   "case included (a near miss is refused with a suggestion)")
    p.add_argument("--title", help="first line of the title (default: the run's title and name)")
    p.set_defaults(func=_cmd_plot)

    p = sub.add_parser("report", parents=[common], help="one HTML page for every run in a folder",
                       description="Write DIR/report.html: for every run in DIR (NAME.csv + NAME.json) its "
                       "figure, table with intervals and trial counts, parameters, seed, versions and "
                       "the command that reproduces it. Up to 20 runs: one self-contained page, figures "
                       "embedded. More: an index page with a thumbnail and a link per run and one page "
                       "per run in DIR/report_files/, figures referenced as the runs' PNG files. "
                       "Interrupted runs (a journal without its CSV) are listed with their resume command.",
                       epilog="examples:\n  anonspread report results/\n  anonspread report results/ --output runs.html",
                       formatter_class=fmt)
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--output", metavar="HTML", help="page path (default: DIR/report.html)")
    p.add_argument("--self-contained", action=argparse.BooleanOptionalAction, default=None,
                   help="one page with every figure embedded (--self-contained) or an index and a page "
                   "per run (--no-self-contained); default: self-contained up to 20 runs")
    p.set_defaults(func=_cmd_report)
    _add_graph_parser(sub, common, fmt)
    return parser


# --------------------------------------------------------------------------- anonspread graph

def _cmd_graph_convert(args: argparse.Namespace) -> int:
    import time

    from anonspread.spread.graphfile import convert_edgelist, graph_file_path

    opts = dict(nodetype=args.nodetype, delimiter=args.delimiter, comments=args.comments,
                header=args.header, symmetrize=args.symmetrize)
    target = graph_file_path(args.file, cache_dir=args.cache_dir, **opts)
    before = os.stat(target).st_mtime_ns if target and os.path.exists(target) else None
    start = time.perf_counter()
    ref = convert_edgelist(args.file, cache_dir=args.cache_dir, **opts)
    seconds = time.perf_counter() - start
    from anonspread.spread.graphfile import load_graph

    g = load_graph(ref.path, verify=False)
    size = f"{g.number_of_nodes():,} nodes, {g.number_of_edges():,} edges"
    if ref.path == target and before is not None and os.stat(ref.path).st_mtime_ns == before:
        print(f"up to date: {ref.path} ({size}; checked in {seconds:.2f} s)")
    else:
        print(f"wrote {ref.path} ({size}; read in {seconds:.2f} s)")
    return 0


def _add_graph_parser(sub: Any, common: argparse.ArgumentParser, fmt: Any) -> None:
    p = sub.add_parser("graph", parents=[common], help="graph files: an edge list read once",
                       description="Graph files (spread.graphfile): an edge list's graph kept in a "
                       "memory-mapped binary form that sweeps map instead of parsing the text.",
                       formatter_class=fmt)
    gsub = p.add_subparsers(dest="graph_command", metavar="COMMAND", parser_class=_Parser)
    gsub.required = True
    c = gsub.add_parser("convert", parents=[common], help="write the graph file of an edge list",
                        description="Read FILE once and write its graph file (beside FILE when its "
                        "folder is writable, else in ~/.cache/anonspread/graphs or $XDG_CACHE_HOME); "
                        "a sweep that reads FILE with the same options maps it while FILE is unchanged.",
                        epilog="examples:\n  anonspread graph convert contacts.txt.gz\n"
                        "  anonspread graph convert users.csv --nodetype str --header\n"
                        "  anonspread sweep detection --set graph=edgelist --set graph.path=contacts.txt.gz ...",
                        formatter_class=fmt)
    c.add_argument("file", metavar="FILE", help="edge list, plain or .gz")
    c.add_argument("--nodetype", default="int", choices=("int", "str"), help="node ids (default: int)")
    c.add_argument("--delimiter", default="auto", choices=("auto", "whitespace", "comma", "tab", "semicolon"),
                   help="column separator (default: auto)")
    c.add_argument("--comments", default="#%", metavar="CHARS", help="comment characters (default: '#%%')")
    c.add_argument("--header", action="store_true", help="the first non-comment line names the columns")
    c.add_argument("--symmetrize", action="store_true", help="read a directed file's arcs as edges")
    c.add_argument("--cache-dir", metavar="DIR", help="write the graph file into DIR instead")
    c.set_defaults(func=_cmd_graph_convert)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """From the first moment, ``kill PID`` (SIGTERM) stops the command like Ctrl-C: exit 130
    with one line (a run turns it into the line saying how to resume). The handler that
    was in place is put back when the command returns (:func:`main` called from Python)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    installed = False
    with contextlib.suppress(ValueError, OSError):
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, handler)
            installed = True
    try:
        yield
    finally:
        if installed:
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``anonspread`` command with ``argv`` (default: ``sys.argv[1:]``).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name.

    Returns
    -------
    int
        The exit status: 0 on success, 2 for bad input, 1 for a failure while running,
        130 when interrupted.

    Examples
    --------
    A misspelt experiment is bad input (the message, on stderr, suggests the name):

    >>> main(["show", "compare-detectoin"])
    2
    """
    with _sigterm_as_interrupt():
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, or a usage error already printed on one line
            return exc.code if isinstance(exc.code, int) else 2
        debug = getattr(args, "debug", False)
        with warnings.catch_warnings():
            if not debug:
                warnings.showwarning = _show_warning
            return _main(args, debug)


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                  line: Any = None) -> None:
    """A warning as one line: ``anonspread: warning: ...``."""
    print(f"{PROG}: warning: {_one_line(message)}", file=sys.stderr)


def _main(args: argparse.Namespace, debug: bool) -> int:
    try:
        if args.imports and "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # like `python -m`: modules in the working directory
        for module in args.imports:
            try:
                importlib.import_module(module)
            except ImportError as exc:
                raise InvalidParameterError(f"--import {module}: {exc}") from exc
        return int(args.func(args))
    except KeyboardInterrupt as exc:
        if debug:
            traceback.print_exc()
        text = _one_line(exc) if str(exc) else "interrupted before the run started; nothing was written"
        print(f"{PROG}: {text}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`anonspread list | head`): stop quietly
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except AnonspreadError as exc:
        if debug:
            traceback.print_exc()
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError | TypeError) else 1
    except Exception as exc:
        if debug:
            traceback.print_exc()
        hint = "" if debug else " (rerun with --debug for the traceback)"
        print(f"{PROG}: error: {type(exc).__name__}: {_one_line(exc)}{hint}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
