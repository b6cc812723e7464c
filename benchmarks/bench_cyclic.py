"""Benchmark: source estimators on snapshots of graphs with cycles, 10^3 .. 10^6 infected (not a test).

Run::

    python benchmarks/bench_cyclic.py                 # everything (about 15 min on 2 busy cores)
    python benchmarks/bench_cyclic.py --timeout 120   # per-measurement time limit (s)

Issue 12 part 3. Workloads:

A. a random 4-regular graph with 10^6 nodes (configuration model whose self-loops and
   repeated pairs are re-paired at random until the graph is simple) and B. the bundled
   Slashdot graph (82,168 nodes). A snapshot of k infected nodes is the first k nodes,
   in infection order, of random diffusion (p = 0.5) from a fixed source (a connected
   set; the source is its first node). For each snapshot: the Jordan centre and rumour
   centrality through :func:`adversaries.top_and_rank` (maximisers + the source's rank,
   the path :func:`adversaries.simulate_and_score` uses) and, up to 10^4 infected,
   through the all-scores functions; the near-ML of adaptive diffusion
   (``ml_adaptive_diffusion``, all scores) on adaptive-diffusion snapshots (d0 = 4,
   revealed infection tree) of graph A at growing T.
C. the pipeline: ``simulate_and_score`` of random diffusion on a 10^4-node random
   4-regular graph at about 1,000 infected, in runs per second.

Times are CPU seconds (``time.process_time``) of one call after a warm-up (compilation
excluded), each measured in a forked child with a time limit; the growth exponent is
the least-squares slope of log time on log n over the sizes >= 10^4 that finished.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread
from anonspread.spread.graphs import ContactGraph, as_contact_graph


def random_regular(n: int, d: int, seed: int) -> ContactGraph:
    """A simple d-regular graph: random stub pairing, bad pairs re-paired until none is left."""
    rng = np.random.default_rng(seed)
    stubs = np.repeat(np.arange(n, dtype=np.int64), d)
    rng.shuffle(stubs)
    a, b = stubs[0::2].copy(), stubs[1::2].copy()
    while True:
        key = np.minimum(a, b) * n + np.maximum(a, b)
        order = np.argsort(key, kind="stable")
        bad = a == b
        ks = key[order]
        bad[order[1:]] |= ks[1:] == ks[:-1]
        nbad = int(bad.sum())
        if nbad == 0:
            break
        good = np.nonzero(~bad)[0]
        idx = np.concatenate([np.nonzero(bad)[0], rng.choice(good, size=max(nbad, 10), replace=False)])
        s = np.concatenate([a[idx], b[idx]])
        rng.shuffle(s)
        a[idx], b[idx] = s[: idx.shape[0]], s[idx.shape[0]:]
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    o = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return ContactGraph(range(n), indptr, dst[o].astype(np.int32))


def rd_snapshot(g, k: int, seed: int) -> A.Snapshot:
    """The first k infected nodes of random diffusion (p = 0.5), source first."""
    T = 1
    while True:
        sp = spread.simulate(g, spread.RandomDiffusion(0.5), T, source=g.labels[0], rng=seed)
        if sp.n_infected >= k or (T > 4 and sp.n_infected == len(g)):
            break
        T += 1
    k = min(k, sp.n_infected)
    return A.Snapshot(g, sp.infected[:k], T=int(sp.times[k - 1]))


#: Wall-clock seconds of the last :func:`timed` call (None past its timeout).
LAST_WALL: list[float | None] = [None]


def _child(fn, q):
    t0, w0 = time.process_time(), time.perf_counter()
    extra = fn()
    q.put((time.process_time() - t0, time.perf_counter() - w0, extra))


def timed(fn, timeout: float):
    """(CPU seconds, fn's result) of fn run in a forked child, or (None, None) past the timeout.

    The child's wall-clock seconds go to ``LAST_WALL[0]``.
    """
    q = mp.get_context("fork").Queue()
    p = mp.get_context("fork").Process(target=_child, args=(fn, q))
    p.start()
    p.join(timeout)
    LAST_WALL[0] = None
    if p.is_alive():
        p.kill()
        p.join()
        return None, None
    cpu, wall, extra = q.get()
    LAST_WALL[0] = wall
    return cpu, extra


def exponent(rows: list[tuple[int, float | None]]) -> float | None:
    pts = [(math.log(n), math.log(t)) for n, t in rows if t is not None and n >= 10**4 and t > 0]
    if len(pts) < 2:
        return None
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def fmt(t):
    return "—" if t is None else (f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s")


#: Threads given to top_and_rank (--threads).
THREADS = [1]


def warm_up() -> None:
    G = nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=1)
    snap = A.Snapshot(G, range(60), T=3)
    tree = A.Snapshot(nx.path_graph(5), range(5), T=4)
    for name in ("jordan", "rumor"):
        A.top_and_rank(snap, name, 0)
        A.top_and_rank(tree, name, 0)
    A.jordan_center(snap)
    A.rumor_centrality(snap)
    sp = spread.simulate(G, spread.AdaptiveDiffusion(4), 6, rng=1)
    A.ml_adaptive_diffusion(A.observe(sp, reveal_edges=True), 4)


def snapshot_table(title: str, g, sizes, timeout: float, names=("jordan", "rumor"),
                   wall: bool = False) -> None:
    print(f"\n### {title}\n")
    print("| infected | cycles (m - n + 1) | Jordan top+rank | BFS | Jordan all scores | "
          "rumour top+rank | 2-core BFS | rumour all scores |")
    print("|---|---|---|---|---|---|---|---|")
    series: dict[str, list] = {"jordan": [], "rumor": []}
    for k in sizes:
        snap = rd_snapshot(g, k, seed=2)
        indptr, indices = snap.subgraph()
        cyc = indices.shape[0] // 2 - snap.n + 1
        src = snap.nodes[0]
        cells = []
        for name, full in (("jordan", A.jordan_center), ("rumor", A.rumor_centrality)):
            if name not in names:
                cells += ["not run"] * 3
                continue
            def run(name=name, snap=snap, src=src):
                r = A.top_and_rank(snap, name, src, threads=THREADS[0])
                return r.exact_scores, ("serial" if r.threads == 1 else f"threads ({r.threads})")

            t, r = timed(run, timeout)
            series[name].append((snap.n, t))
            cell = fmt(t) if not wall or t is None else f"{fmt(t)} (wall {fmt(LAST_WALL[0])})"
            if t is not None and r[1]:
                cell += f", {r[1]}"  # the rumour scan that ran on the 2-core
            cells += [cell, "—" if r is None else f"{r[0]:,}"]
            if snap.n <= 10**4:
                tf, _ = timed(lambda full=full, snap=snap: full(snap) and None, timeout)
            else:
                tf = None
            cells.append(fmt(tf) if snap.n <= 10**4 else "not run")
        print(f"| {snap.n:,} | {cyc:,} | " + " | ".join(cells) + " |", flush=True)
    for name, rows in series.items():
        if name not in names:
            continue
        e = exponent(rows)
        print(f"\ngrowth exponent ({name}, top+rank, sizes >= 10^4 that finished): "
              + ("—" if e is None else f"{e:.2f}"), flush=True)


def whole_graph_probe(g, passes: int) -> None:
    """The Jordan rank on the whole graph A: phase 1, then ``passes`` bit-parallel passes, extrapolated."""
    from anonspread.engine import scoring as K

    print("\n### Jordan top+rank on the whole graph A (10^6 infected): probe\n")
    indptr, indices = g.indptr, g.indices
    n = indptr.shape[0] - 1
    lo = np.zeros(n, np.int64)
    hi = np.full(n, K.BIG, np.int64)
    trace = np.zeros(passes, np.int64)
    c0 = time.process_time()
    t, nbfs0, left0 = K._jordan_place(indptr, indices, 0, lo, hi, 0, trace)
    c1 = time.process_time()
    lo[:] = 0
    hi[:] = K.BIG
    t, nbfs, left = K._jordan_place(indptr, indices, 0, lo, hi, passes, trace)
    c2 = time.process_time()
    per_pass = ((c2 - c1) - (c1 - c0)) / passes
    placed = np.diff(np.concatenate([[left0], trace]))
    print(f"ecc(source) = {t}; phase 1: {nbfs0} BFS, {c1 - c0:.2f} s CPU, {left0:,} nodes unplaced; "
          f"then {passes} bit-parallel passes (64 sources + 2 offset BFS each): "
          f"{per_pass:.2f} s CPU per pass, nodes placed per pass {(-placed).tolist()}")
    print(f"extrapolated: {left0 / 64 * per_pass / 3600:.1f} h of CPU if each pass places its 64 sources "
          f"(load average {os.getloadavg()[0]:.1f})", flush=True)


def near_ml_table(g, Ts, timeout: float) -> None:
    print("\n### near-ML of adaptive diffusion (d0 = 4, revealed infection tree), graph A\n")
    print("| T | infected | near-ML all scores |")
    print("|---|---|---|")
    rows = []
    for T in Ts:
        sp = spread.simulate(g, spread.AdaptiveDiffusion(4), T, rng=3)
        snap = A.observe(sp, reveal_edges=True)
        if T == Ts[0]:  # warm on this graph (the warm-up's small graphs left the first call cold)
            A.ml_adaptive_diffusion(snap, 4)
        t, _ = timed(lambda snap=snap: A.ml_adaptive_diffusion(snap, 4) and None, timeout)
        rows.append((snap.n, t))
        print(f"| {T} | {snap.n:,} | {fmt(t)} |", flush=True)
    e = exponent(rows)
    print("\ngrowth exponent (near-ML, sizes >= 10^4): " + ("—" if e is None else f"{e:.2f}"))


def pipeline(trials: int) -> None:
    print("\n### C. simulate + estimate + score, random 4-regular graph, 10^4 nodes\n")
    g = as_contact_graph(nx.random_regular_graph(4, 10**4, seed=1))
    proto = spread.RandomDiffusion(0.5)
    T = 9
    sizes = spread.simulate_many(g, proto, T, 200, rng=0).n_infected
    print(f"RandomDiffusion(0.5), T = {T}: infected mean {sizes.mean():.0f}, "
          f"median {np.median(sizes):.0f} (200 runs)\n")
    print("runs/s (CPU) is per core: runs / CPU seconds of the process(es); runs/s (wall) of the "
          "2-process rows is what two cores deliver together.\n")
    print("| path | runs/s (wall) | runs/s (CPU) |")
    print("|---|---|---|")
    for ests in (None, ("jordan",), ("rumor",), ("jordan", "rumor")):
        if ests is None:
            def fn():
                return spread.simulate_many(g, proto, T, trials, rng=1)
            label = "`spread.simulate_many` (simulation only)"
        else:
            def fn(ests=ests):
                return A.simulate_and_score(g, proto, T, trials, estimators=ests, rng=1)
            label = f"`simulate_and_score(estimators={ests})`"
        fn()  # warm-up (compilation)
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        w, c = time.perf_counter() - w0, time.process_time() - c0
        print(f"| {label} | {trials / w:,.0f} | {trials / c:,.0f} |", flush=True)
    # what a user with 2 cores runs: the trials split over two processes (as the harness's
    # process pool does), wall-clock runs/s of the pair; forked after the warm-up above
    for ests in (("rumor",), ("jordan", "rumor")):
        w, c = split_runs(g, proto, T, trials, ests, procs=2)
        print(f"| `simulate_and_score(estimators={ests})`, 2 processes x {trials // 2} trials | "
              f"{trials / w:,.0f} | {trials / c:,.0f} |", flush=True)


def _split_child(g, proto, T, trials, ests, seed, q):
    c0 = time.process_time()
    A.simulate_and_score(g, proto, T, trials, estimators=ests, rng=seed)
    q.put(time.process_time() - c0)


def split_runs(g, proto, T, trials: int, ests, procs: int = 2) -> tuple[float, float]:
    """(wall seconds, summed CPU seconds) of ``trials`` runs split over ``procs`` forked processes."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    ps = [ctx.Process(target=_split_child, args=(g, proto, T, trials // procs, ests, 10 + i, q))
          for i in range(procs)]
    w0 = time.perf_counter()
    for p in ps:
        p.start()
    cpu = sum(q.get() for _ in ps)
    for p in ps:
        p.join()
    return time.perf_counter() - w0, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0, help="per-measurement limit, seconds")
    ap.add_argument("--trials", type=int, default=500, help="pipeline runs per path")
    ap.add_argument("--only", choices=("A", "A7", "whole", "B", "ml", "C"), action="append",
                    help="A7: 10^6 infected of a 10^7-node random 4-regular graph; whole: the "
                         "Jordan rank on the whole graph A, probed (not in the default run)")
    ap.add_argument("--estimators", nargs="+", choices=("jordan", "rumor"), default=("jordan", "rumor"))
    ap.add_argument("--sizes", type=int, nargs="+", default=(10**3, 10**4, 10**5, 3 * 10**5, 10**6),
                    help="infected-set sizes of table A")
    ap.add_argument("--threads", type=int, default=1,
                    help="top_and_rank(threads=N): the rumour scan of 2-cores >= 3,000 nodes on N "
                         "threads (default 1: serial)")
    ap.add_argument("--wall", action="store_true",
                    help="top+rank cells also give the child's wall-clock time (the rumour kernel "
                         "evaluates large 2-cores on --threads threads: CPU time then exceeds wall)")
    args = ap.parse_args()
    only = set(args.only or ("A", "B", "ml", "C"))
    THREADS[0] = args.threads
    names = tuple(args.estimators)
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores); rumour threads: {args.threads}")
    warm_up()
    if "A" in only or "ml" in only or "whole" in only:
        t0 = time.perf_counter()
        gA = random_regular(10**6, 4, seed=1)
        print(f"graph A built in {time.perf_counter() - t0:.1f} s")
        if "A" in only:
            snapshot_table("A. random 4-regular graph, 10^6 nodes, random diffusion snapshots",
                           gA, tuple(args.sizes), args.timeout, names, args.wall)
        if "whole" in only:
            whole_graph_probe(gA, 8)
        if "ml" in only:
            near_ml_table(gA, (12, 16, 20, 24, 28), args.timeout)
    if "A7" in only:
        t0 = time.perf_counter()
        g7 = random_regular(10**7, 4, seed=1)
        print(f"\ngraph A7 (10^7 nodes) built in {time.perf_counter() - t0:.1f} s")
        snapshot_table("A7. random 4-regular graph, 10^7 nodes, random diffusion snapshots", g7,
                       (10**5, 10**6), args.timeout, names, args.wall)
        del g7
    if "B" in only:
        from anonspread.datasets.graphs import load_graph

        gB = as_contact_graph(load_graph("soc-slashdot"))
        snapshot_table("B. Slashdot (82,168 nodes), random diffusion snapshots", gB,
                       (10**3, 10**4, 3 * 10**4, 82168), args.timeout, names, args.wall)
    if "C" in only:
        pipeline(args.trials)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
