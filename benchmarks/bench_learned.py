"""The learned adversary (adversaries.learned): training time vs budget and graph/snapshot size,
and scoring cost per snapshot.

Training = simulating the budget's spreads, their features and the boosting, plus the
held-out spreads (200 by default; 500 before issue 31) and their prediction; the table
splits the two by timing ``held_out=1`` runs as well. Scoring = one cached call of the registered estimator
(features + one prediction) on a snapshot of the given size, after training.

CPU seconds of this process (``time.process_time``): the machine is shared. Usage::

    python benchmarks/bench_learned.py            # everything (~3 min on 2 shared cores)
    python benchmarks/bench_learned.py --quick    # smaller budgets only
"""

from __future__ import annotations

import argparse
import math
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import learned


def cpu(fn, *args, **kwargs):
    t = time.process_time()
    out = fn(*args, **kwargs)
    return time.process_time() - t, out


def training_rows(budgets):
    print(f"\n## training time vs budget (CPU s; held_out = {learned.DEFAULT_HELD_OUT} / held_out = 1)")
    print("| graph | protocol | T | mean N_T | spreads | train + held-out | train only "
          "| held-out detection | its ml |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|")
    cases = [
        ("regular_tree(3)", spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 5, False),
        ("random-regular n=1000 d=4", spread.graphs.from_networkx(nx.random_regular_graph(4, 1000, seed=0)),
         spread.AdaptiveDiffusion(math.inf, 3), 6, True),
    ]
    A.train_adversary(cases[0][1], cases[0][2], 2, spreads=10, held_out=1)  # imports scikit-learn
    for name, g, proto, T, reveal in cases:
        mean_n = np.mean([spread.simulate(g, proto, T, rng=i).n_infected for i in range(50)])
        for s in budgets:
            t_all, adv = cpu(A.train_adversary, g, proto, T, spreads=s, reveal_edges=reveal)
            t_one, _ = cpu(A.train_adversary, g, proto, T, spreads=s, held_out=1,
                           reveal_edges=reveal)
            ho = adv.held_out
            print(f"| {name} | {proto!r} | {T} | {mean_n:.0f} | {s} | {t_all:.2f} | "
                  f"{t_one:.2f} | {ho.detection:.3f} [{ho.low:.3f}, {ho.high:.3f}] | "
                  f"{ho.baselines.get('ml', float('nan')):.3f} |")


def size_rows(ns, spreads):
    print(f"\n## training time vs graph and snapshot size (spreads = {spreads}, held_out = 200)")
    print("| graph | protocol | T | mean N_T | CPU s | s per spread | held-out detection |")
    print("|---|---|---:|---:|---:|---:|---|")
    for n in ns:
        g = spread.graphs.from_networkx(nx.random_regular_graph(4, n, seed=0))
        for proto, T in ((spread.AdaptiveDiffusion(math.inf, 3), 8), (spread.RandomDiffusion(0.5), 4),
                         (spread.RandomDiffusion(0.5), 8)):
            mean_n = np.mean([spread.simulate(g, proto, T, rng=i).n_infected for i in range(50)])
            t, adv = cpu(A.train_adversary, g, proto, T, spreads=spreads, held_out=200)
            ho = adv.held_out
            print(f"| random-regular n={n} d=4 | {proto!r} | {T} | {mean_n:.0f} | {t:.2f} | "
                  f"{t / (spreads + 200) * 1e3:.2f} ms | {ho.detection:.3f} [{ho.low:.3f}, {ho.high:.3f}] |")


def _repeat(reps, fn, args, kwargs):
    for _ in range(reps):
        fn(*args, **kwargs)


def scoring_rows():
    print("\n## scoring one snapshot with a trained model (registered estimator, cache hit)")
    print("| graph | protocol | T | N_T | learned ms | ml ms | jordan ms | rumor ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    g = spread.graphs.from_networkx(nx.random_regular_graph(4, 100_000, seed=0))
    for proto, T in ((spread.AdaptiveDiffusion(math.inf, 3), 8), (spread.RandomDiffusion(0.5), 4),
                     (spread.RandomDiffusion(0.5), 8), (spread.RandomDiffusion(0.5), 10)):
        sp = spread.simulate(g, proto, T, rng=1)
        snap = A.observe(sp, reveal_edges=True)
        spec = A.get_estimator("learned")
        spec.func(snap, proto, spreads=100, held_out=20)  # train (a small budget: timing scoring)
        reps = max(3, int(2000 / snap.n))
        calls = [(spec.func, (snap, proto), {"spreads": 100, "held_out": 20}),
                 (A.ml_adaptive_diffusion, (snap, math.inf), {}) if proto.name == "adaptive-diffusion"
                 else None,
                 (A.jordan_center, (snap,), {}), (A.rumor_centrality, (snap,), {})]
        row = []
        for call in calls:
            if call is None:
                row.append("-")
                continue
            t, _ = cpu(_repeat, reps, *call)
            row.append(f"{t / reps * 1e3:.2f}")
        print(f"| random-regular n=100000 d=4 | {proto!r} | {T} | {snap.n} | " + " | ".join(row) + " |")
    learned.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        training_rows([250, 1000])
        size_rows([1000, 100_000], 300)
    else:
        training_rows([250, 500, 1000, 2000, 4000])
        size_rows([1000, 10_000, 100_000], 1000)
    scoring_rows()


if __name__ == "__main__":
    main()
