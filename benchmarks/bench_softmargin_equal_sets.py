"""Soft-margin on a sweep point whose spreads saturate: snapshots of one infected set share
their pairs (``soft_margin_many``), scored once per run instead of once per snapshot.

Simulates ``--trials`` random-diffusion spreads (p = 0.5) of ``T`` steps on the three-block
graph (``make_three_block.py``; 498 nodes), as a detection sweep's batch, and times one
``soft_margin_many`` call on their snapshots (CPU of this process, after a warm-up call on
a few of them). Prints one line of JSON: T, trials, distinct infected sets, CPU seconds,
and a digest of every result (scores, width, runs, flags) so that two interpreters (before
and after a change; run them in turn, interleaved) can be compared for identical results::

    python benchmarks/bench_softmargin_equal_sets.py --T 8 --trials 200 --seed 1
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_three_block import three_block, write_csv

from anonspread import adversaries, spread


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=8)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "three_block.csv"
        write_csv(three_block(), path)
        g = spread.graphs.from_edgelist(path)
    proto = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(args.seed)
    snaps = [adversaries.observe(spread.simulate(g, proto, args.T, rng=rng)) for _ in range(args.trials)]
    distinct = len({np.sort(s.index).tobytes() for s in snaps})
    adversaries.soft_margin_many(snaps[:3], proto, rng=0, max_simulations=1000)  # warm-up
    c0 = time.process_time()
    res = adversaries.soft_margin_many(snaps, proto, rng=args.seed)
    cpu = time.process_time() - c0
    h = hashlib.sha256()
    for r in res:
        h.update(np.asarray(r.scores.array).tobytes())
        h.update(repr((r.a, r.simulations, r.total_simulations, r.converged, r.informative,
                       r.settled, r.stop, r.error)).encode())
    print(json.dumps({"T": args.T, "trials": args.trials, "distinct_sets": distinct,
                      "cpu_s": round(cpu, 3), "results_sha256": h.hexdigest()[:16]}))


if __name__ == "__main__":
    main()
