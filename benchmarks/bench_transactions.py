"""The transaction model (Dandelion/Dandelion++ precision and recall): CPU per trial.

One trial = one anonymity graph, one spy placement, every honest node's transaction and the
estimator's mapping (adversaries.transactions). Measured with ``time.process_time`` after a
warm-up, interleaved over ``--rounds`` rounds (median reported). With ``--authors DIR`` (a
checkout of gfanti/dandelion-simulations: sim_lib.py, graph_lib.py, utils.py) the same
set-ups run through the authors' scripts in this process for the ratio; their code is only
imported from DIR, never copied.

    python benchmarks/bench_transactions.py [--n 100] [--p 0.1] [--rounds 5] [--authors DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from anonspread.adversaries import transactions as tx


def ours(n: int, p: float, d: int, routing: str, transport: str, estimator: str, trials: int,
         rng: np.random.Generator) -> float:
    from anonspread.harness.experiments.dandelion import _undirected

    t = time.process_time()
    for _ in range(trials):
        g = tx.anonymity_graph(n, d, rng=rng)
        spy = tx.draw_spy_mask(n, p, rng=rng)
        if transport == "diffusion":
            g = _undirected(n, *g)
        obs = tx.observe_transactions(g, spy, transport, routing=routing, rng=rng)
        tx.precision_recall(obs, tx.estimate(estimator, obs, rng=rng))
    return (time.process_time() - t) / trials


def authors(n: int, p: float, d: int, kind: str, trials: int) -> float:
    import networkx as nx

    # networkx 3 returns iterators where their code calls len(); a shim in this process only
    nx.DiGraph.successors = lambda self, v: list(self._succ[v])
    nx.DiGraph.predecessors = lambda self, v: list(self._pred[v])
    import graph_lib
    import sim_lib
    from utils import get_num_honest_nodes

    t = time.process_time()
    for _ in range(trials):
        gen = graph_lib.RegGraphGen(n, p, d, False)
        h = get_num_honest_nodes(gen.G)
        if kind == "first-spy per-tx":
            sim_lib.FirstSpyLineSimulator(gen.G, h, False, p_and_r=True, edgebased=0)
        elif kind == "first-spy one-to-one":
            sim_lib.FirstSpyLineSimulator(gen.G, h, False, p_and_r=True, edgebased=3)
        elif kind == "diffusion first-spy":
            sim_lib.FirstSpyDiffusionSimulator(gen.G, h, False)
        else:
            sim_lib.incedge = 0
            sim_lib.MaxWeightLineSimulator(gen.G, h, False, p_and_r=True)
    return (time.process_time() - t) / trials


CASES = [  # label, d, routing, transport, our estimator, the authors' simulator
    ("first-spy, 4-regular per-tx", 2, "per-tx", "dandelion", "first-spy", "first-spy per-tx"),
    ("first-spy, 4-regular one-to-one", 2, "one-to-one", "dandelion", "first-spy", "first-spy one-to-one"),
    ("first-spy, diffusion on 4-regular", 2, "per-tx", "diffusion", "first-spy", "diffusion first-spy"),
    ("max-precision, 4-regular per-tx", 2, "per-tx", "dandelion", "max-precision", "max-weight"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--p", type=float, default=0.1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--trials", type=int, default=50, help="our trials per round")
    ap.add_argument("--authors-trials", type=int, default=5)
    ap.add_argument("--authors", metavar="DIR", help="checkout of gfanti/dandelion-simulations")
    args = ap.parse_args()
    if args.authors:
        sys.path.insert(0, args.authors)
    rng = np.random.default_rng(1)
    res: dict[str, dict[str, list[float]]] = {c[0]: {"ours": [], "authors": []} for c in CASES}
    for _label, d, routing, transport, est, akind in CASES:  # warm-up (imports, caches)
        ours(args.n, args.p, d, routing, transport, est, 2, rng)
        if args.authors:
            authors(args.n, args.p, d, akind, 1)
    for _ in range(args.rounds):
        for label, d, routing, transport, est, akind in CASES:
            res[label]["ours"].append(ours(args.n, args.p, d, routing, transport, est, args.trials, rng))
            if args.authors:
                res[label]["authors"].append(authors(args.n, args.p, d, akind, args.authors_trials))
    print(f"n = {args.n}, p = {args.p}: CPU per trial (median of {args.rounds} interleaved rounds)")
    print("| set-up | ours | authors' scripts | ratio |\n|---|---|---|---|")
    for label, r in res.items():
        o = statistics.median(r["ours"])
        if r["authors"]:
            a = statistics.median(r["authors"])
            print(f"| {label} | {o * 1e3:.2f} ms | {a * 1e3:.1f} ms | {a / o:.0f}x |")
        else:
            print(f"| {label} | {o * 1e3:.2f} ms | - | - |")


if __name__ == "__main__":
    main()
