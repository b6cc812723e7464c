"""Soft-margin with and without the stop of uninformative snapshots (issue 31 items 4 and 6):
CPU and detection, paired on the same snapshots.

Simulates ``--trials`` spreads of the protocol on the three-block graph of
``make_three_block.py`` (adaptive diffusion as the sweep of issue 31 runs it on a graph with
cycles, d0 = inf and at most 3 new infections per node and step; or random diffusion,
p = 0.5), then estimates them as one batch with ``adversaries.soft_margin_many`` twice, with
the same ``rng``: ``stop_uninformative=False`` (refined to the tolerance or the cap) and the
default ``True``. Prints per run the CPU of the call, detection (the MAP is the source), the
runs per candidate, why the snapshots stopped and how many were informative, then the
snapshots detected by one run only (paired). Usage::

    python benchmarks/bench_softmargin_uninformative.py --T 4 --trials 600 --seed 22
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_three_block import three_block

from anonspread import adversaries, spread


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=6)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7, help="seed of the spreads")
    ap.add_argument("--protocol", choices=["adaptive-diffusion", "random-diffusion"],
                    default="adaptive-diffusion")
    args = ap.parse_args()
    g = spread.graphs.as_contact_graph(three_block())
    proto = (spread.AdaptiveDiffusion(d0=math.inf, max_infections_per_step=3)
             if args.protocol == "adaptive-diffusion" else spread.RandomDiffusion(0.5))
    rng = np.random.default_rng(args.seed)
    snaps, sources = [], []
    for _ in range(args.trials):
        s = spread.simulate(g, proto, args.T, rng=rng)
        snaps.append(adversaries.observe(s))
        sources.append(s.source)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{os.getloadavg()[0]:.2f}; {args.protocol}, T = {args.T}, {args.trials} snapshots "
          f"(seed {args.seed}), three-block graph")
    hits = {}
    for label, stop in (("refined", False), ("stopped", True)):
        c0 = time.process_time()
        res = adversaries.soft_margin_many(snaps, proto, rng=1, stop_uninformative=stop)
        cpu = time.process_time() - c0
        hit = np.array([adversaries.pick(r.scores) == s for r, s in zip(res, sources)])
        hits[label] = hit
        runs = sorted(Counter(int(r.simulations) for r in res).items())
        why = dict(Counter(r.stop for r in res))
        print(f"{label}: CPU {cpu:.2f} s, detection {hit.mean():.4f}, runs per candidate {runs}, "
              f"stop {why}, informative {sum(r.informative for r in res)}")
    a, b = hits["refined"], hits["stopped"]
    print(f"detected by one only: refined {int((a & ~b).sum())}, stopped {int((b & ~a).sum())}")


if __name__ == "__main__":
    main()
