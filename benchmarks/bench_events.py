"""Benchmark: the message-level engine (spread.events) against the compiled engine.

Runs adaptive diffusion as the thesis ran it on Facebook (d0 = inf, at most 3 new
infections per node and step, tree relay) on ego-Facebook (degree >= 3) at T = 8, the
same sources for both engines, and reports messages processed per second by the event
engine and the cost per trial of each engine. Not a test: ``python benchmarks/bench_events.py``.
"""

from __future__ import annotations

import argparse
import math
import platform
import time

import numpy as np

import datasets
import spread
from spread.events import simulate_messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--T", type=int, default=8)
    args = ap.parse_args()
    g = spread.graphs.from_networkx(datasets.load_graph("ego-facebook", min_degree=3))
    proto = spread.AdaptiveDiffusion(math.inf, 3)
    sources = np.random.default_rng(0).integers(0, g.number_of_nodes(), args.trials)
    labels = [g.labels[int(s)] for s in sources]
    spread.simulate(g, proto, args.T, source=labels[0], rng=0)  # compile
    simulate_messages(g, proto, 2, source=labels[0], rng=0)

    t0 = time.perf_counter()
    msgs = sizes = 0
    for i, s in enumerate(labels):
        run = simulate_messages(g, proto, args.T, source=s, rng=i)
        msgs += run.counts.total
        sizes += run.spread.n_infected
    t_event = time.perf_counter() - t0

    t0 = time.perf_counter()
    fsizes = 0
    for i, s in enumerate(labels):
        fsizes += spread.simulate(g, proto, args.T, source=s, rng=i).n_infected
    t_fast = time.perf_counter() - t0

    t0 = time.perf_counter()
    spread.simulate_many(g, proto, args.T, args.trials, rng=1)
    t_batch = time.perf_counter() - t0

    print(f"# bench_events: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"ego-Facebook (min_degree=3, {g.number_of_nodes()} nodes), {proto!r}, T = {args.T}, "
          f"{args.trials} trials (same sources)")
    print(f"event engine : {t_event:.2f} s, {msgs} messages ({msgs / args.trials:.0f} per trial), "
          f"{msgs / t_event:,.0f} messages/s, mean N_T = {sizes / args.trials:.1f}")
    print(f"fast simulate: {t_fast * 1e3:.1f} ms ({t_fast / args.trials * 1e3:.3f} ms per trial), "
          f"mean N_T = {fsizes / args.trials:.1f}")
    print(f"fast simulate_many: {t_batch * 1e3:.1f} ms for the same number of trials")
    print(f"cost ratio event / simulate: {t_event / t_fast:,.0f}x; event / simulate_many: "
          f"{t_event / t_batch:,.0f}x")


if __name__ == "__main__":
    main()
