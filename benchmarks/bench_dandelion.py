"""Benchmark: Dandelion / Dandelion++ / diffusion in both engines (trials per CPU second).

A random 8-regular graph of 1,000 nodes (``--n``), 10 % spies, each trial a whole
transaction run to completion: the message-level SimPy engine
(``spread.events.simulate_messages``, horizon 10^6) against the compiled engine
(``spread.simulate_stems``). The cold figure is the first compiled call in this process
(module import plus one small batch; the engine is compiled when the package is built); the warm figures are
interleaved rounds after it. CPU time (``time.process_time``); the machine load is printed.
Not a test: ``python benchmarks/bench_dandelion.py``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import networkx as nx
import numpy as np

from anonspread import spread
from anonspread.spread.dandelion import Dandelion, DandelionPlusPlus
from anonspread.spread.events import ContinuousDiffusion, simulate_messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--degree", type=int, default=8)
    ap.add_argument("--message-runs", type=int, default=30)
    ap.add_argument("--trials", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    g = spread.graphs.from_networkx(nx.random_regular_graph(args.degree, args.n, seed=0))
    spies = np.arange(0, args.n, 10)
    protos = [ContinuousDiffusion(1.0), Dandelion(0.1), DandelionPlusPlus(0.1),
              DandelionPlusPlus(0.1, peers="all")]
    print(f"# {platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.2f}; "
          f"random {args.degree}-regular graph, n = {args.n}, {spies.size} spies")
    t0 = time.process_time()
    spread.simulate_stems(g, protos[2], 10, spies=spies, rng=0)
    print(f"cold: first compiled call (import + 10 trials) "
          f"{time.process_time() - t0:.2f} s CPU")
    for p in protos:  # warm every kernel and code path
        spread.simulate_stems(g, p, 10, spies=spies, rng=0)
        simulate_messages(g, p, 1_000_000, rng=0)
    fast = {repr(p): 0.0 for p in protos}
    slow = {repr(p): 0.0 for p in protos}
    for r in range(args.rounds):
        for p in protos:
            t0 = time.process_time()
            spread.simulate_stems(g, p, args.trials, spies=spies, rng=r)
            fast[repr(p)] += time.process_time() - t0
            t0 = time.process_time()
            for i in range(args.message_runs):
                simulate_messages(g, p, 1_000_000, rng=1000 * r + i)
            slow[repr(p)] += time.process_time() - t0
    print("| protocol | compiled trials/s | message-level trials/s | ratio |")
    print("|---|---:|---:|---:|")
    for p in protos:
        f = args.rounds * args.trials / fast[repr(p)]
        s = args.rounds * args.message_runs / slow[repr(p)]
        print(f"| `{p!r}` | {f:,.0f} | {s:,.1f} | {f / s:,.0f}x |")
    print(f"# load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
