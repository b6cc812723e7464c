"""Benchmark: thesis Figure 2.7 at full size through the harness, on 1 and 2 workers.

Run:  python benchmarks/bench_harness.py [--trials 10000] [--tmax 20] [--workers 1 2]

Runs ``anonspread run fig2.7-irregular-trees`` with T = 2, 4, ..., tmax and the given trials
per point (the thesis: 10,000, T = 2..20) once per worker count, in a fresh output
directory each time, and prints wall time, trials per second and the speed-up. The CSVs of
the runs are compared byte for byte (the harness promises identical results whatever the
number of workers). A small run first (2 trials per point, the largest worker count) warms
the file system and the interpreter's imports. Figures go to benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import filecmp
import tempfile
import time
from pathlib import Path

from anonspread.harness.runner import run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--tmax", type=int, default=20)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    T = list(range(2, args.tmax + 1, 2))
    out = Path(tempfile.mkdtemp(prefix="bench_harness_"))
    results = {}
    t0 = time.perf_counter()
    run("fig2.7-irregular-trees", overrides={"T": T}, trials=2, rng=2026, out=out / "warm-up",
        workers=max(args.workers), progress=False)
    print(f"warm-up (2 trials per point): {time.perf_counter() - t0:.1f} s wall")
    for w in args.workers:
        d = out / f"w{w}"
        t0 = time.perf_counter()
        res = run("fig2.7-irregular-trees", overrides={"T": T}, trials=args.trials, rng=2026,
                  out=d, workers=w, progress=False)
        dt = time.perf_counter() - t0
        n_points = len({tuple(r[p] for p in res.table.params) for r in res.table.rows})
        total = n_points * args.trials
        results[w] = (dt, res.paths["csv"])
        print(f"workers={w}: {n_points} points x {args.trials} trials = {total} trials "
              f"in {dt:.1f} s wall ({total / dt:.0f} trials/s)")
    base = results[args.workers[0]]
    for w, (dt, csv) in results.items():
        same = filecmp.cmp(base[1], csv, shallow=False)
        print(f"workers={w}: speed-up {base[0] / dt:.2f}x over workers={args.workers[0]}; "
              f"CSV identical: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
