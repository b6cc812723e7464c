"""Benchmark: the soft-margin estimator (issue 26) -- cost per snapshot, and the compiled
loop against a plain-Python soft-margin loop over a networkx simulator.

Run:  python benchmarks/bench_softmargin.py [--rounds R] [--skip-sizes] [--skip-ratio]
      [--executor] [--shared [--trials N]]

* sizes: random diffusion (p = 0.5) on a random 4-regular graph of 5,000 nodes, snapshots of
  about 10, 30, 100 and 300 infected nodes (:func:`snapshot_near`); every infected node a
  candidate (``candidates=None``), exactly ``n`` runs per candidate (``simulations =
  max_simulations = n``, no doubling), ``n`` in 250, 1,000, 4,000; five kernel widths. Wall
  and CPU seconds per snapshot (medians of ``--rounds``; CPU counts every thread of the
  process) and CPU microseconds per run, on one thread and on two (``threads=2``); cells over 1.2 million runs are left out.
* ratio: the same estimate by a plain-Python loop (below, :func:`python_soft_margin`): the
  same protocol semantics (discrete-time SI: each node infected before step t infects each
  uninfected contact with probability p at step t), the same candidates, the same number
  of runs, the same Jaccard similarity and kernel sums, on the networkx graph. Measured
  interleaved (compiled, Python, compiled, Python, ...) after one warm-up call of each;
  median wall seconds, and the largest difference of the mean Jaccard similarity per
  candidate between the two (a check that they estimate the same thing: it should be
  within a few Monte Carlo standard errors, ~1/sqrt(n)).
* shared (only with ``--shared``; issue 31): a sweep point's ``--trials`` snapshots (default
  200) scored four ways with the estimator's defaults: each snapshot alone
  (:func:`adversaries.soft_margin_estimate`, one call per trial) or the whole point at once
  (:func:`adversaries.soft_margin_many`, each candidate's runs simulated once and scored
  against every snapshot that needs them), each with and without elimination; CPU seconds
  of each way over the point, interleaved (alone, shared, alone, shared, ...) after a
  warm-up on a few trials; the number of simulated runs; and a check that the four give the
  estimates the guarantee promises (with elimination, alone == shared bitwise; without,
  the same). Points: random diffusion (p = 0.5) on a random 4-regular graph of 300 nodes at
  T = 3 (snapshots rarely reproduced: every candidate runs to ``max_simulations``), and
  adaptive diffusion on the 3-regular tree at T = 5 (reproduced often, unequal likelihoods:
  elimination stops some candidates early).
* executor (only with ``--executor``): one large snapshot, random diffusion (p = 0.5) on a
  random 4-regular graph of 10,000 nodes near 400 infected nodes, ``candidates=200``,
  exactly 1,000 runs per candidate; wall seconds in process (one thread) against
  ``executor=ProcessPoolExecutor(2)`` (pool started and warmed up once, outside the timing;
  default chunks = 2 and chunks = 8) and, when dask is installed, a
  ``LocalCluster(n_workers=2, threads_per_worker=1)`` of processes; the pickled size of one
  task's arguments; and a check that every result equals the serial one.

The machine's load average is printed first (the figures are only comparable at low load).
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import random
import statistics
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread

WIDTHS = tuple(2.0**-j for j in range(2, 7))


def python_soft_margin(G: nx.Graph, observed: set, candidates: list, p: float, T: int, n: int,
                       widths=WIDTHS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The reference loop: ``n`` discrete-time SI runs (infection probability ``p`` per
    contact and step) from each candidate, Jaccard similarity with ``observed`` and the
    soft-margin kernel sums ``sum_i exp(-(phi_i - 1)^2 / a^2)`` for each width. Returns
    ``(kernel sums (candidates x widths), mean Jaccard per candidate)``."""
    rnd = random.Random(seed)
    sums = np.zeros((len(candidates), len(widths)))
    jac = np.zeros(len(candidates))
    inv = [1.0 / (a * a) for a in widths]
    n_obs = len(observed)
    for c, src in enumerate(candidates):
        for _ in range(n):
            infected = {src}
            active = [src]  # nodes that may still infect (infected before this step)
            for _t in range(T):
                new = []
                for u in active:
                    for w in G.neighbors(u):
                        if w not in infected and rnd.random() < p:
                            infected.add(w)
                            new.append(w)
                active = active + new
            inter = len(infected & observed)
            phi = inter / (len(infected) + n_obs - inter)
            jac[c] += phi
            d2 = (phi - 1.0) ** 2
            for j, k in enumerate(inv):
                sums[c, j] += math.exp(-d2 * k)
    return sums, jac / n


def snapshot_near(G, proto, target: int):
    """The snapshot (from node 0, T = 2..8, seeds 0..19) whose infected count is closest to
    ``target``: the smallest T that gets there, for the benchmark's size classes."""
    best = None
    for T in range(2, 9):
        for seed in range(20):
            snap = A.observe(spread.simulate(G, proto, T, source=0, rng=seed))
            if best is None or abs(snap.n - target) < abs(best.n - target):
                best = snap
        if best.n >= 0.8 * target:
            break
    return best


def _timed(f) -> tuple[float, float]:
    """(wall, CPU) seconds of one call (CPU: this process, every thread)."""
    w0, c0 = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w0, time.process_time() - c0


def _median(f, rounds: int) -> tuple[float, float]:
    runs = [_timed(f) for _ in range(rounds)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def sizes(rounds: int) -> None:
    G = nx.random_regular_graph(4, 5000, seed=1)
    proto = spread.RandomDiffusion(0.5)
    print("\n## Cost per snapshot: random diffusion p=0.5, random 4-regular graph, 5,000 nodes")
    print("| T | infected (= candidates) | runs per candidate | threads | wall s | CPU s | CPU µs per run |")
    print("|---|---|---|---|---|---|---|")
    for target in (10, 30, 100, 300):
        snap = snapshot_near(G, proto, target)
        T = snap.T
        for n in (250, 1000, 4000):
            if snap.n * n > 1_200_000:  # keep each cell under a few seconds
                continue
            for threads in (1, 2):
                run = functools.partial(A.soft_margin_estimate, snap, proto, rng=1, simulations=n,
                                        max_simulations=n, candidates=None, a=WIDTHS,
                                        threads=threads)
                run()
                wall, cpu = _median(run, rounds)
                print(f"| {T} | {snap.n} | {n} | {threads} | {wall:.4f} | {cpu:.4f} | "
                      f"{1e6 * cpu / (snap.n * n):.2f} |", flush=True)


def ratio(rounds: int) -> None:
    G = nx.random_regular_graph(4, 2000, seed=2)
    proto = spread.RandomDiffusion(0.5)
    print("\n## Compiled vs plain-Python soft-margin loop (interleaved, after a warm-up)")
    print("| T | infected (= candidates) | runs per candidate | compiled CPU s | Python CPU s | ratio | "
          "max abs diff of mean Jaccard |")
    print("|---|---|---|---|---|---|---|")
    for target, n in ((10, 1000), (30, 300), (100, 40), (300, 6)):
        snap = snapshot_near(G, proto, target)
        T = snap.T
        observed = set(snap.nodes.tolist())
        cands = snap.nodes.tolist()

        compiled = functools.partial(A.soft_margin_estimate, snap, proto, rng=1, simulations=n,
                                     max_simulations=n, candidates=None, a=WIDTHS)
        python = functools.partial(python_soft_margin, G, observed, cands, 0.5, T, n, seed=1)

        res, (_, jac_py) = compiled(), python()  # warm-up (and the agreement check)
        tc, tp = [], []
        for _ in range(rounds):
            tc.append(_timed(compiled)[1])
            tp.append(_timed(python)[1])
        c, p = statistics.median(tc), statistics.median(tp)
        diff = float(np.max(np.abs(res.mean_jaccard - jac_py)))
        print(f"| {T} | {snap.n} | {n} | {c:.4f} | {p:.3f} | {p / c:.0f}x | {diff:.4f} |", flush=True)


def executors(rounds: int) -> None:
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from anonspread.engine import softmargin as engine_sm

    G = nx.random_regular_graph(4, 10_000, seed=3)
    proto = spread.RandomDiffusion(0.5)
    snap = snapshot_near(G, proto, 400)
    kw = dict(rng=1, simulations=1000, max_simulations=1000, candidates=200, a=WIDTHS)
    print(f"\n## One large snapshot on an executor: 10,000 nodes, T = {snap.T}, {snap.n} infected, "
          "200 candidates x 1,000 runs")
    cg = spread.graphs.as_contact_graph(G)
    mask = np.zeros(10_000, np.uint8)
    task = (proto.kernel_code, ((cg.indptr, cg.indices), proto.kernel_params(cg, snap.T), mask), 1,
            np.zeros(100, np.int32), [np.random.default_rng(k) for k in range(100)], 1000, snap.T,
            snap.n, np.asarray(WIDTHS), engine_sm.SoftMarginSums(100, len(WIDTHS)))
    print(f"pickled arguments of one task (100 candidates): {len(pickle.dumps(task)) / 1e3:.0f} kB")
    print("| executor | chunks | wall s | parent CPU s | same result |")
    print("|---|---|---|---|---|")
    serial = A.soft_margin_estimate(snap, proto, **kw)

    def same(res) -> bool:
        return bool(np.array_equal(res.log_likelihood, serial.log_likelihood)
                    and np.array_equal(res.exact_matches, serial.exact_matches)
                    and np.array_equal(res.mean_jaccard, serial.mean_jaccard))

    def row(name, chunks, f) -> None:
        f()  # warm-up
        wall, cpu = _median(f, rounds)
        print(f"| {name} | {chunks} | {wall:.3f} | {cpu:.3f} | {same(f())} |", flush=True)

    row("none (in process, 1 thread)", "-", functools.partial(A.soft_margin_estimate, snap, proto, **kw))
    row("none (in process, threads=2)", "-", functools.partial(A.soft_margin_estimate, snap, proto,
                                                              threads=2, **kw))
    with ProcessPoolExecutor(2) as pool:
        for chunks in (None, 8):
            row("ProcessPoolExecutor(2)", chunks or 2, functools.partial(
                A.soft_margin_estimate, snap, proto, executor=pool, chunks=chunks, **kw))
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("(dask.distributed not installed: no dask row)")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        row("dask LocalCluster(2 processes)", 2, functools.partial(
            A.soft_margin_estimate, snap, proto, executor=client, **kw))


def _shared_point(name: str, g, proto, T: int, trials: int, rounds: int) -> None:
    rng = np.random.default_rng(11)
    snaps = [A.observe(spread.simulate(g, proto, T, rng=rng)) for _ in range(trials)]
    mean_n = statistics.mean(s.n for s in snaps)
    ways = {}
    for elim in (False, True):
        ways[("alone", elim)] = functools.partial(
            lambda e: [A.soft_margin_estimate(s, proto, rng=1, eliminate=e) for s in snaps], elim)
        ways[("shared", elim)] = functools.partial(
            lambda e: A.soft_margin_many(snaps, proto, rng=1, eliminate=e), elim)
    for elim in (False, True):  # warm-up on a few trials
        A.soft_margin_many(snaps[:3], proto, rng=1, eliminate=elim)
    cpu = {k: [] for k in ways}
    results = {}
    for _ in range(rounds):
        for k, f in ways.items():
            c0 = time.process_time()
            results[k] = f()
            cpu[k].append(time.process_time() - c0)
    same = all(np.array_equal(a.scores.array, b.scores.array) and np.array_equal(a.runs, b.runs)
               for e in (False, True)
               for a, b in zip(results[("alone", e)], results[("shared", e)]))
    base = statistics.median(cpu[("alone", False)])
    for (how, elim), ts in cpu.items():
        res = results[(how, elim)]
        pair_runs = sum(r.total_simulations for r in res)
        if how == "shared":  # one simulation per distinct candidate and round it ran
            sims = _distinct_runs(res)
        else:
            sims = pair_runs
        t = statistics.median(ts)
        print(f"| {name} | {trials} | {mean_n:.1f} | {how} | {'yes' if elim else 'no'} | {t:.2f} | "
              f"{base / t:.2f}x | {sims / 1e6:.2f} | {pair_runs / 1e6:.2f} | "
              f"{sum(r.converged for r in res)} | {same} |", flush=True)


def _distinct_runs(res) -> int:
    """Simulations of the shared way: each distinct candidate ran as long as its longest
    pair (the pairs of one candidate see prefixes of one stream)."""
    longest: dict = {}
    for r in res:
        for node, n in zip(r.candidates.tolist(), r.runs.tolist()):
            longest[node] = max(longest.get(node, 0), n)
    return sum(longest.values())


def shared(rounds: int, trials: int) -> None:
    print(f"\n## A sweep point's {trials} trials: each snapshot alone vs shared simulations, "
          "with/without elimination (estimator defaults; CPU s medians of --rounds, interleaved)")
    print("| point | trials | mean infected | simulations | elimination | CPU s | speed-up vs alone, "
          "no elimination | simulated runs (M) | runs scored (M) | converged | alone == shared |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 300, seed=1))
    _shared_point("random diffusion p=0.5, random 4-regular n=300, T=3", g,
                  spread.RandomDiffusion(0.5), 3, trials, rounds)
    _shared_point("adaptive diffusion, 3-regular tree, T=5", spread.graphs.regular_tree(3),
                  spread.AdaptiveDiffusion(), 5, trials, rounds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip-sizes", action="store_true")
    ap.add_argument("--skip-ratio", action="store_true")
    ap.add_argument("--executor", action="store_true",
                    help="also time one large snapshot in process vs a process pool and dask")
    ap.add_argument("--shared", action="store_true",
                    help="also time a sweep point's trials alone vs shared, with/without elimination")
    ap.add_argument("--trials", type=int, default=200, help="trials of the --shared point")
    args = ap.parse_args()
    print("load average:", os.getloadavg())
    if not args.skip_sizes:
        sizes(args.rounds)
    if not args.skip_ratio:
        ratio(args.rounds)
    if args.executor:
        executors(args.rounds)
    if args.shared:
        shared(args.rounds, args.trials)


if __name__ == "__main__":
    main()
