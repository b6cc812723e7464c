"""Issue 31 item 6: the new user's detection sweep on a ~500-node three-block graph, with the
cheap estimators alone and with the strongest attacks, timed beside the pilot's prediction.

Runs ``anonspread sweep detection`` as a user would (a subprocess of the real CLI) on the
graph of ``make_three_block.py`` read from its CSV: adaptive diffusion (on a graph with
cycles its component chooses d0 = inf and at most 3 new infections per node and step) vs
random diffusion (p = 0.5), T = 2, 4, 6, 8, 200 trials, 2 workers, once per estimator list
given (``--estimator-budget`` passed to each). Each run's first line is the pilot's estimate (harness.pilot); the script reads the
predicted CPU and wall time from the run's JSON (``timing.pilot``) and puts them beside the
measured ones: wall-clock of the whole command, CPU of the command and its workers
(``RUSAGE_CHILDREN``), and the learned adversary's training, predicted and measured.

After a warm-up run (10 trials), the lists run in turn, ``--repeats`` times (interleaved).
With ``--python LABEL=PATH`` (repeatable) each list runs under each of those interpreters in
turn (e.g. a virtual environment whose ``anonspread`` is an older commit: before/after in
one interleaved run, each interpreter warmed up first); the sweeps' CSV files of the same
list are compared byte for byte across interpreters. Usage::

    python benchmarks/bench_strongest_sweep.py --out /tmp/bench31 \\
        --estimators ml,jordan,rumor --estimators ml,jordan,rumor,learned,strongest,ceiling
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_three_block import three_block, write_csv


def sweep_cmd(graph: Path, out: Path, name: str, estimators: str, args: argparse.Namespace,
              trials: int, python: str = sys.executable) -> list[str]:
    return [python, "-m", "anonspread", "sweep", "detection",
            "--set", "graph=edgelist", "--set", f"graph.path={graph}",
            "--set", "protocol=adaptive-diffusion,random-diffusion",
            "--set", f"T={args.T}", "--set", f"estimator={estimators}",
            "--trials", str(trials), "--workers", str(args.workers), "--rng", "1",
            "--name", name, "--out", str(out), "--overwrite", "--no-plot",
            *(["--estimator-budget", args.estimator_budget] if args.estimator_budget else [])]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one(cmd: list[str], out: Path, name: str) -> dict:
    c0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    side = json.loads((out / f"{name}.json").read_text())
    timing = side["timing"]
    return {"wall": wall, "cpu": cpu, "elapsed": timing["elapsed_s"], "pilot": timing.get("pilot", {}),
            "csv": (out / f"{name}.csv").read_bytes(),
            "one_off": timing.get("one_off_s", {}), "first_line": proc.stderr.splitlines()[0],
            "stderr": proc.stderr, "skipped": side.get("skipped", []),
            "pilot_rows": timing.get("pilot", {}).get("summary", "")}


def fmt(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"


def span(pilot: dict, what: str) -> str:
    """The pilot's prediction: ``least-most`` where priced estimators give a range (every
    priced snapshot stopping at its soonest, or at the cap), else the one figure."""
    most = pilot.get(f"{what}_s", float("nan"))
    least = pilot.get(f"{what}_least_s")
    return fmt(most) if least is None or fmt(least) == fmt(most) else f"{fmt(least)}-{fmt(most)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--graph", type=Path, help="edge-list CSV (default: OUT/three_block.csv, written)")
    ap.add_argument("--estimators", action="append", required=True,
                    help="comma-separated estimator list of one sweep (repeatable)")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--T", default="2,4,6,8")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--estimator-budget", help="passed to every sweep (default: the sweep's)")
    ap.add_argument("--python", action="append", default=[], metavar="LABEL=PATH",
                    help="run every list under this interpreter too (repeatable; default: this one)")
    args = ap.parse_args()
    pythons = dict(p.split("=", 1) for p in args.python) or {"": sys.executable}
    args.out.mkdir(parents=True, exist_ok=True)
    graph = args.graph or args.out / "three_block.csv"
    if args.graph is None:
        write_csv(three_block(31), graph)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()}, "
          f"{os.cpu_count()} CPUs; graph {graph}")
    for py in pythons.values():
        run_one(sweep_cmd(graph, args.out, "warmup", "ml,jordan,rumor", args, 10, py), args.out, "warmup")
    keys = [(est, label) for est in args.estimators for label in pythons]
    results: dict[tuple, list[dict]] = {k: [] for k in keys}
    for rep in range(args.repeats):
        for i, est in enumerate(args.estimators):
            for label, py in pythons.items():
                name = f"bench31-{i}"
                r = run_one(sweep_cmd(graph, args.out, name, est, args, args.trials, py), args.out, name)
                results[(est, label)].append(r)
                print(f"\n[{est}]{' ' + label if label else ''} repeat {rep}: wall {fmt(r['wall'])}, "
                      f"CPU {fmt(r['cpu'])}, load average {os.getloadavg()[0]:.2f}\n{r['stderr'].strip()}",
                      flush=True)
    print(f"\n# load average after: {os.getloadavg()}")
    print("\n| estimators | interpreter | measured wall | measured CPU (command + workers) | pilot: predicted wall "
          "| pilot: predicted CPU | pilot's own time | learned training: predicted / measured |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for (est, label), rs in results.items():
        for r in rs:
            p = r["pilot"]
            pred = p.get("one_off_s", {}).get("learned training", [])
            meas = r["one_off"].get("learned training", [])
            train = (f"{fmt(sum(pred))} / {fmt(sum(meas))} ({len(meas)} models)" if meas else "-")
            print(f"| {est} | {label or '-'} | {fmt(r['wall'])} | {fmt(r['cpu'])} | {span(p, 'wall')} "
                  f"| {span(p, 'cpu')} | {fmt(p.get('pilot_s', float('nan')))} | {train} |")
    for label in pythons:
        twin = results[(args.estimators[0], label)]
        base, cpu_base = min(r["wall"] for r in twin), min(r["cpu"] for r in twin)
        for est in args.estimators:
            rs = results[(est, label)]
            print(f"[{est}]{' ' + label if label else ''} / [{args.estimators[0]}]: wall "
                  f"{min(r['wall'] for r in rs) / base:.1f}x, CPU {min(r['cpu'] for r in rs) / cpu_base:.1f}x "
                  f"(best of {len(rs)})")
    for est in args.estimators:
        csvs = {label: {r["csv"] for r in results[(est, label)]} for label in pythons}
        every = set().union(*csvs.values())
        print(f"[{est}]: the sweeps' CSV files are {'byte-identical' if len(every) == 1 else 'DIFFERENT'} "
              f"across {len(pythons)} interpreter(s) and {args.repeats} repeat(s)")
    for (est, label), rs in results.items():
        for s in rs[0]["skipped"]:
            if "not run: priced" in s["reason"]:
                p = s["params"]
                print(f"  [{est}]{' ' + label if label else ''} skipped by the budget: "
                      f"{p.get('protocol')} T={p.get('T')}: {s['reason']}")


if __name__ == "__main__":
    main()
