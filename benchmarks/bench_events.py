"""Benchmark: the message-level engine (spread.events) against the compiled engine.

Runs adaptive diffusion as the thesis ran it on Facebook (d0 = inf, at most 3 new
infections per node and step, tree relay) on ego-Facebook (degree >= 3) at T = 8, the
same sources for both engines, and reports messages processed per second by the event
engine and the CPU cost per trial of each engine, all warmed first. Not a test: ``python benchmarks/bench_events.py``.
"""

from __future__ import annotations

import argparse
import math
import platform
import time

import numpy as np

from anonspread import datasets, spread
from anonspread.spread.events import simulate_messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--T", type=int, default=8)
    args = ap.parse_args()
    g = spread.graphs.from_networkx(datasets.load_graph("ego-facebook", min_degree=3))
    proto = spread.AdaptiveDiffusion(math.inf, 3)
    sources = np.random.default_rng(0).integers(0, g.number_of_nodes(), args.trials)
    labels = [g.labels[int(s)] for s in sources]
    # warm every engine first (compiling or loading the kernels is not what is measured)
    spread.simulate(g, proto, args.T, source=labels[0], rng=0)
    spread.simulate_many(g, proto, args.T, 2, rng=0)
    simulate_messages(g, proto, 2, source=labels[0], rng=0)

    t0 = time.process_time()
    msgs = sizes = 0
    for i, s in enumerate(labels):
        run = simulate_messages(g, proto, args.T, source=s, rng=i)
        msgs += run.counts.total
        sizes += run.spread.n_infected
    t_event = time.process_time() - t0

    t0 = time.process_time()
    fsizes = 0
    for i, s in enumerate(labels):
        fsizes += spread.simulate(g, proto, args.T, source=s, rng=i).n_infected
    t_fast = time.process_time() - t0

    t0 = time.process_time()
    spread.simulate_many(g, proto, args.T, args.trials, rng=1)
    t_batch = time.process_time() - t0

    big = 100 * args.trials  # the batch path's per-trial cost, call overhead amortised
    t0 = time.process_time()
    spread.simulate_many(g, proto, args.T, big, rng=2)
    t_big = (time.process_time() - t0) / big

    print(f"# bench_events: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"ego-Facebook (min_degree=3, {g.number_of_nodes()} nodes), {proto!r}, T = {args.T}, "
          f"{args.trials} trials (same sources)")
    print(f"event engine : {t_event:.2f} s, {msgs} messages ({msgs / args.trials:.0f} per trial), "
          f"{msgs / t_event:,.0f} messages/s, mean N_T = {sizes / args.trials:.1f}")
    print(f"fast simulate: {t_fast * 1e3:.1f} ms ({t_fast / args.trials * 1e3:.3f} ms per trial), "
          f"mean N_T = {fsizes / args.trials:.1f}")
    print(f"fast simulate_many: {t_batch * 1e3:.1f} ms for the same number of trials")
    print(f"fast simulate_many with {big} trials: {t_big * 1e6:.1f} us per trial")
    print(f"cost ratio event / simulate: {t_event / t_fast:,.0f}x; event / simulate_many: "
          f"{t_event / t_batch:,.0f}x ({args.trials} trials), "
          f"{t_event / args.trials / t_big:,.0f}x per trial at {big} trials")


if __name__ == "__main__":
    main()
