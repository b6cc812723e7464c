"""Benchmark: the cost of compiling, on a fresh install, against a warm cache.

Run:  python benchmarks/bench_coldstart.py [--job-trials N] [--workers W] [--skip-job]

Every measurement runs in a new Python process with ``NUMBA_CACHE_DIR`` pointing at a
new empty directory (cold: what a fresh install sees), then again in another new
process with the directory the first one filled (warm). CPU seconds are those of the
process and its children (``resource.getrusage``), so pool workers count.

* per-kernel first calls: ``simulate_many`` (adaptive diffusion on a random tree),
  ``simulate_and_score(ml)`` and ``ml_adaptive_diffusion``, each alone in its process;
* the main job, ``anonspread run compare-detection`` (``--workers`` processes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

SNIPPETS = {
    "simulate_many": """
import spread
g = spread.graphs.random_tree({3: .5, 4: .5})
spread.simulate_many(g, spread.AdaptiveDiffusion(3), 10, 5, rng=0)
""",
    "simulate_and_score(ml)": """
import spread
from adversaries import simulate_and_score
g = spread.graphs.random_tree({3: .5, 4: .5})
simulate_and_score(g, spread.AdaptiveDiffusion(3), 10, 5, estimators=("ml",), rng=0)
""",
    "ml_adaptive_diffusion": """
import spread, adversaries
from adversaries.estimators import ml_adaptive_diffusion
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


def run_snippet(code: str, cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", TIMER, code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_job(cache: str, out: str, trials: int | None, workers: int) -> dict:
    import resource

    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    cmd = [sys.executable, "-m", "harness", "run", "compare-detection", "--rng", "1", "--out", out,
           "--quiet", "--no-plot", "--workers", str(workers)]
    if trials:
        cmd += ["--trials", str(trials)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--job-trials", type=int, default=None, help="trials per point (default: the job's)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-job", action="store_true")
    args = ap.parse_args(argv)
    print(f"{'what':28s} {'cold cpu':>9s} {'warm cpu':>9s} {'cold wall':>10s} {'warm wall':>10s} {'ratio':>6s}")
    for name, code in SNIPPETS.items():
        with tempfile.TemporaryDirectory() as cache:
            cold = run_snippet(code, cache)
            warm = run_snippet(code, cache)
        print(f"{name:28s} {cold['cpu']:9.1f} {warm['cpu']:9.1f} {cold['wall']:10.1f} "
              f"{warm['wall']:10.1f} {cold['cpu'] / warm['cpu']:5.1f}x")
    if not args.skip_job:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            cold = run_job(cache, out, args.job_trials, args.workers)
            warm = run_job(cache, out + "/warm", args.job_trials, args.workers)
        print(f"{'compare-detection':28s} {cold['cpu']:9.1f} {warm['cpu']:9.1f} {cold['wall']:10.1f} "
              f"{warm['wall']:10.1f} {cold['cpu'] / warm['cpu']:5.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
