"""Benchmark: the first run on a fresh install (empty numba cache) against a warm run.

Run:  python benchmarks/bench_coldstart.py [--pairs N] [--job-args ...] [--skip-job] [--skip-kernels]

Every measurement runs in new processes with ``NUMBA_CACHE_DIR`` pointing at a new
empty directory (cold: what a fresh install sees), then again with the directory the
cold run filled (warm). Wall seconds, and CPU seconds of the process and all its
children (``resource.getrusage``: pool workers count). The machine's load average
(``os.getloadavg``) is printed before each run.

* per-kernel first calls: ``simulate_many`` (adaptive diffusion on a random tree),
  ``simulate_and_score(ml)`` and ``ml_adaptive_diffusion``, each alone in its process;
* the main job exactly as the README's quickstart runs it,
  ``anonspread run compare-detection --rng 1 --out <dir>`` (its default workers, figure
  included), ``--pairs`` cold/warm pairs interleaved (cold, warm, cold, warm, ...), each
  cold run on its own empty cache; medians of each, the ratio of the medians and the
  median of the per-pair ratios. The CSVs of every run must be byte-identical.
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

SNIPPETS = {
    "simulate_many": """
from anonspread import spread
g = spread.graphs.random_tree({3: .5, 4: .5})
spread.simulate_many(g, spread.AdaptiveDiffusion(3), 10, 5, rng=0)
""",
    "simulate_and_score(ml)": """
from anonspread import spread
from anonspread.adversaries import simulate_and_score
g = spread.graphs.random_tree({3: .5, 4: .5})
simulate_and_score(g, spread.AdaptiveDiffusion(3), 10, 5, estimators=("ml",), rng=0)
""",
    "ml_adaptive_diffusion": """
from anonspread import spread, adversaries
from anonspread.adversaries.estimators import ml_adaptive_diffusion
sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6, rng=3)
ml_adaptive_diffusion(adversaries.observe(sp), 3)
""",
}

TIMER = """
import json, resource, sys, time
t0 = time.perf_counter()
exec(compile(sys.argv[1], "<bench>", "exec"))
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": r.ru_utime + r.ru_stime}))
"""


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def run_snippet(code: str, cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", TIMER, code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def job_command(out: str, extra: list[str]) -> list[str]:
    exe = shutil.which("anonspread", path=os.path.dirname(sys.executable)) or shutil.which("anonspread")
    cmd = [exe] if exe else [sys.executable, "-m", "anonspread"]
    return [*cmd, "run", "compare-detection", "--rng", "1", "--out", out, *extra]


def run_job(cache: str, out: str, extra: list[str]) -> dict:
    import resource

    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(job_command(out, extra), env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    csv = (Path(out) / "compare-detection.csv").read_bytes()
    return {"wall": wall, "cpu": cpu, "csv": csv}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=3, help="cold/warm pairs of the main job (interleaved)")
    ap.add_argument("--job-args", nargs=argparse.REMAINDER, default=[],
                    help="extra arguments for the job (e.g. --trials 100 --workers 2), last on the line")
    ap.add_argument("--skip-job", action="store_true")
    ap.add_argument("--skip-kernels", action="store_true")
    args = ap.parse_args(argv)
    if not args.skip_kernels:
        print(f"{'first call':28s} {'cold cpu':>9s} {'warm cpu':>9s} {'cold wall':>10s} {'warm wall':>10s}  load")
        for name, code in SNIPPETS.items():
            with tempfile.TemporaryDirectory() as cache:
                ld = load()
                cold = run_snippet(code, cache)
                warm = run_snippet(code, cache)
            print(f"{name:28s} {cold['cpu']:9.1f} {warm['cpu']:9.1f} {cold['wall']:10.1f} "
                  f"{warm['wall']:10.1f}  {ld}", flush=True)
    if args.skip_job:
        return 0
    print("main job:", " ".join(job_command("<dir>", args.job_args)), flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.pairs):
            cache = os.path.join(tmp, f"cache{k}")
            os.mkdir(cache)
            for kind in ("cold", "warm"):
                ld = load()
                r = run_job(cache, os.path.join(tmp, f"out-{kind}{k}"), args.job_args)
                rows.append((kind, k, r))
                print(f"pair {k} {kind}: wall {r['wall']:7.1f} s  cpu {r['cpu']:7.1f} s  load before {ld}",
                      flush=True)
            shutil.rmtree(cache)
    csvs = {r["csv"] for _, _, r in rows}
    cold = [r for kind, _, r in rows if kind == "cold"]
    warm = [r for kind, _, r in rows if kind == "warm"]
    for what in ("wall", "cpu"):
        c = statistics.median(r[what] for r in cold)
        w = statistics.median(r[what] for r in warm)
        pair = statistics.median(a[what] / b[what] for a, b in zip(cold, warm))
        print(f"{what}: median cold {c:.1f} s, median warm {w:.1f} s, ratio of medians {c / w:.2f}x, "
              f"median pair ratio {pair:.2f}x")
    print("CSVs of all runs identical:", len(csvs) == 1)
    return 0 if len(csvs) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
