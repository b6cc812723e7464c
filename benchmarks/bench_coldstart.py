"""Benchmark: the first work of a new interpreter against the same work done again (cold = warm).

Run:  python benchmarks/bench_coldstart.py [--repeats N] [--job-runs N] [--job-args ...]
      [--skip-job] [--skip-workload]

The engine is compiled when the package is built, so a new interpreter (a notebook's first
cell, a fresh Dask worker) should do its first piece of work about as fast as its tenth.
Issue 22's target: the interactive workload below, in a brand-new interpreter, takes at most
1.5x its warm time plus 3 s, with no JIT compiler imported.

* the interactive workload (issue 22): ``simulate_and_score`` of adaptive diffusion with the
  ML estimate on a random {3, 4} tree (200 trials, T = 16), then random diffusion (p = 0.5)
  with Jordan and rumour on a 1,000-node 4-regular graph (20 trials, T = 10). Each repeat is a
  new process that imports anonspread, runs the workload (cold: import included, as a
  user's first cell pays it) and runs it again (warm), and reports whether any JIT compiler
  (numba, llvmlite) was imported. Wall and CPU seconds of each part.
* the main job exactly as the README's quickstart runs it, ``anonspread run
  compare-detection --rng 1 --out <dir>`` (default workers, figure included), ``--job-runs``
  times in new processes: the first run after the install is the cold one. The CSVs of every
  run must be byte-identical.

The machine's load average (``os.getloadavg``) is printed before each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKLOAD = """
import json, resource, sys, time

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def work():
    import networkx as nx
    from anonspread import spread
    from anonspread.adversaries import simulate_and_score
    t = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=1)
    a = simulate_and_score(t, spread.AdaptiveDiffusion(3), 16, 200, estimators=("ml",), rng=0)
    g = nx.random_regular_graph(4, 1000, seed=1)
    b = simulate_and_score(g, spread.RandomDiffusion(0.5), 10, 20, estimators=("jordan", "rumor"), rng=0)
    return float(a["ml"].detected.mean()), float(b["jordan"].detected.mean())

out = {}
for part in ("cold", "warm"):
    w0, c0 = time.perf_counter(), cpu()
    res = work()
    out[part] = {"wall": time.perf_counter() - w0, "cpu": cpu() - c0, "result": res}
out["jit"] = sorted(m for m in ("numba", "llvmlite") if m in sys.modules)
print(json.dumps(out))
"""


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run_workload() -> dict:
    proc = subprocess.run([sys.executable, "-c", WORKLOAD], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the workload failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def job_command(out: str, extra: list[str]) -> list[str]:
    exe = shutil.which("anonspread", path=os.path.dirname(sys.executable)) or shutil.which("anonspread")
    cmd = [exe] if exe else [sys.executable, "-m", "anonspread"]
    return [*cmd, "run", "compare-detection", "--rng", "1", "--out", out, *extra]


def run_job(out: str, extra: list[str]) -> dict:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(job_command(out, extra), check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    csv = (Path(out) / "compare-detection.csv").read_bytes()
    return {"wall": wall, "cpu": cpu, "csv": csv}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="new interpreters running the workload")
    ap.add_argument("--job-runs", type=int, default=2, help="runs of the main job, each a new process")
    ap.add_argument("--job-args", nargs=argparse.REMAINDER, default=[],
                    help="extra arguments for the job (e.g. --trials 100 --workers 2), last on the line")
    ap.add_argument("--skip-job", action="store_true")
    ap.add_argument("--skip-workload", action="store_true")
    args = ap.parse_args(argv)
    ok = True
    if not args.skip_workload:
        print(f"{'repeat':>6s} {'cold wall':>10s} {'warm wall':>10s} {'cold cpu':>9s} {'warm cpu':>9s} "
              f"{'target 1.5w+3':>14s}  jit   load")
        colds, warms = [], []
        for k in range(args.repeats):
            ld = load()
            r = run_workload()
            c, w = r["cold"], r["warm"]
            colds.append(c["wall"])
            warms.append(w["wall"])
            met = c["wall"] <= 1.5 * w["wall"] + 3.0 and not r["jit"]
            ok &= met
            print(f"{k:6d} {c['wall']:10.2f} {w['wall']:10.2f} {c['cpu']:9.2f} {w['cpu']:9.2f} "
                  f"{1.5 * w['wall'] + 3.0:10.2f} {'met' if met else 'MISSED':>3s}  "
                  f"{','.join(r['jit']) or 'none':5s} {ld}", flush=True)
        c, w = statistics.median(colds), statistics.median(warms)
        print(f"workload: median cold {c:.2f} s, median warm {w:.2f} s, ratio {c / w:.2f}x "
              f"(target: cold <= 1.5 x warm + 3 s = {1.5 * w + 3:.2f} s)")
    if args.skip_job:
        return 0 if ok else 1
    print("main job:", " ".join(job_command("<dir>", args.job_args)), flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.job_runs):
            ld = load()
            r = run_job(os.path.join(tmp, f"out{k}"), args.job_args)
            rows.append(r)
            print(f"run {k}: wall {r['wall']:7.1f} s  cpu {r['cpu']:7.1f} s  load before {ld}", flush=True)
    same = len({r["csv"] for r in rows}) == 1
    print("CSVs of all runs identical:", same)
    return 0 if ok and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
