"""Benchmark: rumour centrality's price against its scan (issue 32 item 3; not a test).

Run::

    python benchmarks/bench_rumor_price.py                     # 10^6-edge Chung-Lu graph, ~5 min
    python benchmarks/bench_rumor_price.py --sizes 1000,10000 --rounds 1

The sweeps price rumour centrality before running it (:func:`adversaries.rumor_cost`): the
scan's exact evaluations are counted by :func:`engine.rumor.rumor_plan` (its setup and one
evaluation) and timed on a few. This script checks what that price says against what the
scan does, on snapshots of the growth benchmark (``bench_estimator_growth.py``: random
diffusion p = 0.05 from node 0 of a Chung-Lu power-law graph, the first k infected; and the
same on a random 4-regular graph, sparse cores), each measured in a forked child (CPU
seconds, ``time.process_time``), after a warm-up:

* **count**: the plan's evaluations against the scan's ``exact_scores`` (must be equal);
* **price**: the CPU seconds :func:`adversaries.rumor_cost` gives (its defaults, as the
  sweeps call it) against the scan's measured CPU seconds (``top_and_rank``, serial), the
  ratio measured / priced, ``--rounds`` times, price and scan interleaved;
* **pricing cost**: what pricing took (CPU), against the scan.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import networkx as nx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_estimator_growth import load, timed

from anonspread import adversaries as A
from anonspread import spread


def price(snap: A.Snapshot, s: int):
    cost = A.rumor_cost([snap], [s])
    return cost.cpu_seconds, (cost.evaluations, cost.core_nodes, cost.timed_seconds)


def scan(snap: A.Snapshot, s: int):
    r = A.top_and_rank(snap, "rumor", s)
    return r.exact_scores


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edges", type=int, default=10**6)
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--sizes", default="1000,3000,10000,30000")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--cache", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                    "anonspread-bench"))
    ap.add_argument("--skip-regular", action="store_true")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    graphs = [(f"Chung-Lu {args.nodes} nodes, {args.edges} edge draws",
               load(args.nodes, args.edges, args.cache), 0.05)]
    if not args.skip_regular:
        graphs.append(("random 4-regular, 10^6 nodes", spread.graphs.as_contact_graph(
            nx.random_regular_graph(4, 10**6, seed=0)), 0.5))
    # warm-up: both paths once on a small snapshot
    g0 = graphs[0][1]
    sp = spread.simulate(g0, spread.RandomDiffusion(0.05), 3, source=0, rng=1)
    snap = A.Snapshot(g0, sp.infected[:300], T=int(sp.times[299]))
    price(snap, 0)
    scan(snap, 0)
    print(f"{'graph':<40} {'k':>7} {'core':>7} {'evals (plan / scan)':>21} {'priced s':>9} "
          f"{'scan s':>9} {'scan/price':>10} {'pricing s':>9}", flush=True)
    for label, g, p in graphs:
        sp = spread.simulate(g, spread.RandomDiffusion(p), 60, source=0, rng=1)
        for k in sizes:
            if k > sp.n_infected:
                continue
            snap = A.Snapshot(g, sp.infected[:k], T=int(sp.times[k - 1]))
            for _ in range(args.rounds):
                cpu_price, (ev, core, took) = price(snap, 0)
                t_scan, used = timed(lambda snap=snap: scan(snap, 0), args.timeout)
                ratio = "-" if t_scan is None or not cpu_price else f"{t_scan / cpu_price:.2f}"
                print(f"{label:<40} {k:>7} {core:>7} {f'{ev:.0f} / {used}':>21} {cpu_price:>9.3f} "
                      f"{'timeout' if t_scan is None else f'{t_scan:.3f}':>9} {ratio:>10} "
                      f"{took:>9.3f}", flush=True)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - t0:.0f} s", flush=True)
