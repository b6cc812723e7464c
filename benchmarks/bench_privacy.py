"""Benchmark: optimal staircase mechanisms by column generation vs the full 2^k-column LP.

For KL and mutual information at eps = 1 on one random instance per k (Dirichlet(1) at a
fixed seed), solves the staircase LP of Theorem 3.2.4 with
``solve_staircase_lp(..., method="column_generation")`` for every k and with
``method="full"`` up to ``--full-max-k``, each in a fresh subprocess, and reports wall time
of the solve, the process's peak resident memory, the optimum, and (column generation)
rounds and columns held. A k = 6 solve warms the imports before the timed solve.

Usage::

    python benchmarks/bench_privacy.py                  # k = 6 ... 26, full LP up to 18
    python benchmarks/bench_privacy.py --ks 6 10 14 --full-max-k 14

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

DEFAULT_KS = (6, 10, 14, 16, 18, 20, 22, 24, 26)


def _instance(k: int, seed: int):
    import numpy as np

    rng = np.random.default_rng([seed, k])
    return rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))


def _utility(name: str, k: int, seed: int):
    from anonspread.privacy.utility import KL, MutualInformation

    P0, P1 = _instance(k, seed)
    return KL(P0, P1) if name == "kl" else MutualInformation(P0)


def run_one(method: str, name: str, k: int, eps: float, seed: int) -> dict:
    """Solve one instance in this process; return the measurements."""
    from anonspread.privacy.staircase import solve_staircase_lp

    solve_staircase_lp(_utility(name, 6, seed), eps)  # imports and first calls
    U = _utility(name, k, seed)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    res = solve_staircase_lp(U, eps, method=method)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "method": method,
        "utility": name,
        "k": k,
        "eps": eps,
        "wall_s": wall,
        "peak_rss_mb": peak,
        "rss_before_mb": rss_before,
        "value": res.value,
        "upper_bound": res.upper_bound,
        "rounds": res.n_rounds,
        "columns": res.n_columns,
        "outputs": int(res.mechanism.shape[1]),
    }


def _spawn(method: str, name: str, k: int, eps: float, seed: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--one", method, name, str(k), str(eps), str(seed)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"method": method, "utility": name, "k": k, "error": f"timeout > {timeout:g} s"}
    except subprocess.CalledProcessError as exc:
        return {"method": method, "utility": name, "k": k, "error": exc.stderr.strip()[-200:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ks", type=int, nargs="+", default=list(DEFAULT_KS))
    parser.add_argument("--full-max-k", type=int, default=18)
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--utilities", nargs="+", default=["kl", "mi"])
    parser.add_argument("--json", help="also write all rows to this JSON file")
    parser.add_argument("--one", nargs=5, metavar=("METHOD", "UTILITY", "K", "EPS", "SEED"))
    args = parser.parse_args(argv)
    if args.one:
        method, name, k, eps, seed = args.one
        print(json.dumps(run_one(method, name, int(k), float(eps), int(seed))))
        return
    rows = []
    print(f"# cpus={os.cpu_count()} eps={args.eps} seed={args.seed}", flush=True)
    header = "| utility | k | method | wall (s) | peak RSS (MB) | optimum | rounds | columns | outputs | |opt - full| / opt |"
    print(header)
    print("|" + "---|" * 10)
    for name in args.utilities:
        for k in args.ks:
            cg = _spawn("column_generation", name, k, args.eps, args.seed, args.timeout)
            full = (
                _spawn("full", name, k, args.eps, args.seed, args.timeout)
                if k <= args.full_max_k
                else None
            )
            for row in (cg, full):
                if row is None:
                    continue
                rows.append(row)
                if "error" in row:
                    print(f"| {name} | {k} | {row['method']} | {row['error']} |||||||")
                    continue
                diff = ""
                if row is cg and full is not None and "error" not in full:
                    diff = f"{abs(cg['value'] - full['value']) / abs(full['value']):.1e}"
                print(
                    f"| {name} | {k} | {row['method']} | {row['wall_s']:.3f} | "
                    f"{row['peak_rss_mb']:.0f} | {row['value']:.12g} | {row['rounds']} | "
                    f"{row['columns']} | {row['outputs']} | {diff} |",
                    flush=True,
                )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
