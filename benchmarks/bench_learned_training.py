"""Issue 31 item 6: the learned adversary's training, feature version 1 against version 2, on the
new user's three-block graph and on ego-Facebook: CPU, the pilot's price, and paired strength.

For each setting of the sweep of ``bench_strongest_sweep.py`` (the graph of
``make_three_block.py`` read from its CSV; the sweep's adaptive diffusion, d0 = inf and at
most 3 new infections per node and step, and random diffusion p = 0.5; T = 2, 4, 6, 8; the
infection tree revealed, as the sweep reveals it) and, with ``--facebook``, of
``facebook-random-diffusion-attacks`` (ego-Facebook, degree >= 3, random diffusion p = 0.1,
T = 2, 3), it trains the model the sweep trains (``train_adversary``: 1,000 spreads,
``train_seed`` 0) as main trained it before issue 31 item 6 (``feature_version=1``: the
rumour columns from the ``rumor`` estimator, one BFS per node; scikit-learn's binning; 500
held-out spreads, the default then) and as it trains it now (``feature_version=2`` and 200
held-out spreads, the defaults: ``engine.features.bfs_rumor``, 64 BFS trees at once; bins
computed by one sort a column; features computed once per infected set), the two one
after the other (the order alternating between settings) after a warm-up, and prints:

* each training's CPU seconds (``time.process_time``: the machine is shared) and version 2's
  price by the pilot (``learned.estimate_training_seconds``, its CPU estimate);
* their strength on the same fresh spreads (``--fresh``, from a stream independent of
  the training's): each model's detection probability with a Wilson 95% interval, and the
  paired difference (version 2 minus version 1) with a 95% normal interval over the spreads;
  and each model's own held-out detection (500 and 200 spreads; the first 200 the same
  for both: they come from ``train_seed``).

Usage::

    python benchmarks/bench_learned_training.py --out /tmp/blt            # three-block
    python benchmarks/bench_learned_training.py --out /tmp/blt --facebook --no-three-block
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_three_block import three_block, write_csv

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import learned
from anonspread.harness.experiments.spreading import make_graph, make_protocol


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def settings(csv: Path, facebook: bool, three: bool) -> list[tuple[str, object, object, int]]:
    out = []
    if three:
        for proto in ("adaptive-diffusion", "random-diffusion"):
            for T in (2, 4, 6, 8):
                point = {"graph": "edgelist", "graph.path": str(csv), "protocol": proto, "T": T}
                g = make_graph(point, np.random.default_rng(0))
                out.append(("three-block", g, make_protocol(point, g), T))
    if facebook:
        for T in (2, 3):
            point = {"graph": "ego-facebook", "protocol": "random-diffusion", "protocol.p": 0.1,
                     "T": T}
            g = make_graph(point, np.random.default_rng(0))
            out.append(("ego-facebook", g, make_protocol(point, g), T))
    return out


def trained(g, proto, T, version, held_out):
    c0 = time.process_time()
    adv = A.train_adversary(g, proto, T, reveal_edges=True, feature_version=version,
                            held_out=held_out)
    return adv, time.process_time() - c0


def paired(advs, g, proto, T, fresh, seed):
    """Per fresh spread, each model's detection probability."""
    rng = np.random.default_rng(seed)
    d = np.empty((len(advs), fresh))
    for i in range(fresh):
        sp = spread.simulate(g, proto, T, rng=rng)
        snap = A.observe(sp, reveal_edges=True)
        for k, adv in enumerate(advs):
            d[k, i] = A.detection_probability(adv.scores(snap), sp.source)
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--graph", type=Path, help="three-block CSV (default: OUT/three_block.csv, written)")
    ap.add_argument("--facebook", action="store_true", help="add ego-Facebook, T = 2, 3")
    ap.add_argument("--no-three-block", action="store_true")
    ap.add_argument("--fresh", type=int, default=500, help="fresh spreads of the paired comparison")
    ap.add_argument("--seed", type=int, default=20261128, help="the fresh spreads' seed")
    ap.add_argument("--held-out-v1", type=int, default=500,
                    help="version 1's held-out spreads (500: main's default before)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    csv = args.graph or args.out / "three_block.csv"
    if not args.no_three_block and not csv.exists():
        write_csv(three_block(), csv)
    cases = settings(csv, args.facebook, not args.no_three_block)
    # warm-up: scikit-learn, the engine, the graphs
    A.train_adversary(spread.graphs.regular_tree(3), spread.Flooding(), 2, spreads=10, held_out=2)
    rows = []
    total = {1: 0.0, 2: 0.0}
    print("| graph | protocol | T | CPU s v1 | CPU s v2 | v2 priced (pilot) | fresh det. v1 [95%] "
          "| fresh det. v2 [95%] | paired v2 - v1 [95%] | held-out v1 / v2 |")
    print("|---|---|---:|---:|---:|---:|---|---|---|---|")
    for i, (name, g, proto, T) in enumerate(cases):
        order = (1, 2) if i % 2 == 0 else (2, 1)
        advs, cpu = {}, {}
        for v in order:
            advs[v], cpu[v] = trained(g, proto, T, v,
                                      args.held_out_v1 if v == 1 else learned.DEFAULT_HELD_OUT)
            total[v] += cpu[v]
        _, priced, _ = learned.estimate_training_seconds(g, proto, T, reveal_edges=True)
        d = paired([advs[1], advs[2]], g, proto, T, args.fresh, args.seed + i)
        m1, m2 = d[0].mean(), d[1].mean()
        diff = d[1] - d[0]
        half = 1.96 * diff.std(ddof=1) / math.sqrt(diff.shape[0])
        w1, w2 = wilson(m1, args.fresh), wilson(m2, args.fresh)
        h1, h2 = advs[1].held_out, advs[2].held_out
        row = {"graph": name, "protocol": repr(proto), "T": T, "cpu_v1": cpu[1], "cpu_v2": cpu[2],
               "priced_v2": priced, "fresh": args.fresh, "det_v1": m1, "det_v2": m2,
               "diff": diff.mean(), "diff_half": half, "held_v1": h1.detection,
               "held_v2": h2.detection, "baselines_v1": h1.baselines, "baselines_v2": h2.baselines}
        rows.append(row)
        print(f"| {name} | {proto!r} | {T} | {cpu[1]:.2f} | {cpu[2]:.2f} | {priced:.2f} | "
              f"{m1:.3f} [{w1[0]:.3f}, {w1[1]:.3f}] | {m2:.3f} [{w2[0]:.3f}, {w2[1]:.3f}] | "
              f"{diff.mean():+.3f} [{diff.mean() - half:+.3f}, {diff.mean() + half:+.3f}] | "
              f"{h1.detection:.3f} / {h2.detection:.3f} |", flush=True)
    print(f"\ntotal training CPU: v1 {total[1]:.1f} s, v2 {total[2]:.1f} s "
          f"({total[1] / max(total[2], 1e-9):.2f}x)")
    (args.out / "learned_training.json").write_text(json.dumps(
        {"rows": rows, "total_cpu": total}, indent=1, default=str))


if __name__ == "__main__":
    main()
