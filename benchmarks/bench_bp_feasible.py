"""Benchmark: BP's feasible sources on dense snapshots, and the posterior when one is feasible
(issue 32 item 3; not a test).

Run::

    python benchmarks/bench_bp_feasible.py                          # T = 2..9, the feasible sets
    python benchmarks/bench_bp_feasible.py --T 4,5 --bp --timeout 900  # and bp_posterior itself

Random diffusion (p = 0.05) from node 0 (the hub of largest weight) of the Chung-Lu graph of
``bench_estimator_growth.py`` (``--nodes``, ``--edges``; default 2x10^6 nodes, 10^7 edges),
``rng=1``, observed at each T. For each snapshot, CPU seconds (``time.process_time``) in a
forked child, with a timeout: ``feasible_sources`` (the nodes within T hops of every infected
node, by the Jordan certification's bounds with T as the threshold) and, with ``--old``,
``_feasible_searched`` (the search of before); they must give the same set. With ``--bp``,
``adversaries.bp_posterior`` (method auto) and what it ran.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_estimator_growth import fmt, load, timed

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import bp as B


def digest(feasible: np.ndarray) -> tuple[int, str]:
    import hashlib

    return int(feasible.sum()), hashlib.sha256(np.packbits(feasible).tobytes()).hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=2_000_000)
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--T", default="2,3,4,5,6,7,8,9")
    ap.add_argument("--old", action="store_true", help="also time the search of before")
    ap.add_argument("--bp", action="store_true", help="also time bp_posterior")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--cache", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                    "anonspread-bench"))
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average "
          f"{os.getloadavg()[0]:.1f} (2 cores)", flush=True)
    g = load(args.nodes, args.edges, args.cache)
    prot = spread.RandomDiffusion(0.05)
    for T in (int(x) for x in args.T.split(",")):
        snap = A.observe(spread.simulate(g, prot, T, source=0, rng=1))
        ip, ix = snap.subgraph()
        ip, ix = np.ascontiguousarray(ip, np.int64), np.ascontiguousarray(ix, np.int32)
        # (the child returns the set's size and digest, all the comparison needs)
        t_new, f_new = timed(lambda ip=ip, ix=ix, T=T: digest(B.feasible_sources(ip, ix, T)),
                             args.timeout)
        line = (f"T={T} infected={snap.n} arcs={ix.size} "
                f"feasible={'-' if f_new is None else f_new[0]} new {fmt(t_new)} s")
        if args.old:
            t_old, f_old = timed(lambda ip=ip, ix=ix, T=T: digest(B._feasible_searched(ip, ix, T)),
                                 args.timeout)
            same = "-" if f_old is None or f_new is None else f_old == f_new
            line += f" | old {fmt(t_old)} s, same set {same}"
        if args.bp:
            def run(snap=snap):
                r = A.bp_posterior(snap, prot)
                return r.method, r.iterations, r.converged, int(np.argmax(r.posterior) == 0)
            t_bp, got = timed(run, args.timeout)
            line += (f" | bp {fmt(t_bp)} s" + ("" if got is None else
                     f" method={got[0]} sweeps={got[1]} converged={got[2]} MAP=source:{got[3]}"))
        print(line, flush=True)


if __name__ == "__main__":
    main()
