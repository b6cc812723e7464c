"""Benchmark: one exact rumour evaluation over the 2-core, flat-array kernel vs the plain loop (not a test).

Run::

    python benchmarks/bench_rumor_kernel.py              # pipeline snapshots + graph A 10^4 / 10^5
    python benchmarks/bench_rumor_kernel.py --no-large   # without the 10^5 snapshot (~50 s of CPU)

``graph_rumor_top`` spends its time on exact scores of 2-core nodes, one BFS of the weighted
core each. This script times every core node's exact score on the same snapshots with

* ``plain``: the loop ``graph_rumor_top`` ran before (``_kernels.bfs`` with a distance array
  reset after each BFS, node-indexed subtree sizes, one table lookup of ``log`` per node),
  kept here as the reference, and
* ``flat``: what ``graph_rumor_top`` runs: the core renumbered in BFS order, unsigned
  (padded where that at most doubles the entries: ``_kernels.core_flat``), stamps,
  queue-position-indexed sizes, log of products; a branchless scan on sparse cores (mean
  degree below 7, ``core_log_sizes``), a tested one on dense cores
  (``core_log_sizes_dense``),

interleaved (plain, flat, plain, flat, ...; the fastest of 3 rounds, one round for the 10^5
snapshot) after a warm-up, in CPU seconds, and checks that both
give the same scores (relative 1e-12). Snapshots: 200 spreads of random diffusion (p = 0.5,
T = 9) on a 10^4-node random 4-regular graph (the pipeline of ``bench_cyclic.py --only C``),
the 10^4 / 10^5 snapshots of graph A of ``bench_cyclic.py`` and, with ``--slashdot``, its
10^3 / 10^4 snapshots of Slashdot (dense cores).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import networkx as nx
import numpy as np

try:  # its reference loops are written for numba (not a dependency of the package)
    import numba as nb
except ImportError:
    raise SystemExit(f"{__file__}: this script's reference loops need numba: pip install numba") from None

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import scoring as K
from anonspread.spread.graphs import as_contact_graph


@nb.njit(cache=True)
def plain_sizes(cptr, cind, cwi, root, order, parent, dist, size, logk):
    """The loop ``graph_rumor_top`` ran first (and on dense cores until the unsigned kernels):
    :func:`_kernels.bfs`, node-indexed integer sizes, a table of logs (``logk[i] = log i``);
    ``dist`` holds -1 on entry and is restored."""
    k = K.bfs(cptr, cind, root, order, parent, dist)
    for j in range(k):
        size[order[j]] = cwi[order[j]]
    for j in range(k - 1, 0, -1):
        x = order[j]
        size[parent[x]] += size[x]
    sm = 0.0
    for j in range(k):
        x = order[j]
        sm += logk[size[x]]
        dist[x] = -1
    return sm


@nb.njit(cache=True)
def plain_all(indptr, indices, out):
    """Every core node's exact log rumour centrality by the previous loop.

    The core keeps the snapshot's node order (no BFS renumbering) and each score is
    :func:`plain_sizes`.
    """
    n = indptr.shape[0] - 1
    core, att, psize, weight, const = K.two_core(indptr, indices)
    cid = np.full(n, -1, np.int64)
    nc = 0
    for v in range(n):
        if core[v]:
            cid[v] = nc
            nc += 1
    cptr = np.zeros(nc + 1, np.int64)
    cw = np.empty(nc, np.int64)
    for v in range(n):
        if core[v]:
            c = 0
            for j in range(indptr[v], indptr[v + 1]):
                if core[indices[j]]:
                    c += 1
            cptr[cid[v] + 1] = c
            cw[cid[v]] = weight[v]
    for i in range(nc):
        cptr[i + 1] += cptr[i]
    cind = np.empty(cptr[nc], np.int32)
    k = 0
    for v in range(n):
        if core[v]:
            for j in range(indptr[v], indptr[v + 1]):
                if core[indices[j]]:
                    cind[k] = cid[indices[j]]
                    k += 1
    order = np.empty(nc, np.int32)
    parent = np.empty(nc, np.int32)
    dist = np.full(nc, -1, np.int32)
    size = np.empty(nc, np.int64)
    lg = math.lgamma(n + 1.0)
    logk = np.empty(n + 1, np.float64)
    logk[0] = -np.inf
    for i in range(1, n + 1):
        logk[i] = math.log(i)
    for v in range(n):
        if not core[v]:
            continue
        out[v] = lg - const - plain_sizes(cptr, cind, cw, cid[v], order, parent, dist, size, logk)
    return nc


@nb.njit(cache=True)
def flat_all(indptr, indices, out):
    """Every core node's exact log rumour centrality as ``graph_rumor_top`` computes it:
    :func:`_kernels.core_eval` (``core_log_sizes`` on sparse cores, ``core_log_sizes_dense``
    on dense ones) over the :func:`_kernels.core_flat` arrays."""
    n = indptr.shape[0] - 1
    core, att, psize, weight, const = K.two_core(indptr, indices)
    start = 0
    while not core[start]:
        start += 1
    cid, cptr, cind, cw, cwe = K.core_csr(indptr, indices, core, weight, start)
    fptr, find, fwe = K.core_flat(cptr, cind, cwe)
    nc = cw.shape[0]
    sparse = cind.shape[0] < 7 * nc
    ws = K.core_workspace(fptr, 1)
    lg = math.lgamma(n + 1.0)
    stamp = 0
    for v in range(n):
        if core[v]:
            stamp += 1
            out[v] = lg - const - K.core_eval(fptr, find, fwe, cw, sparse, cid[v], stamp, ws, 0)
    return nc


def compare(label: str, subs, rounds: int) -> None:
    """Interleaved rounds (plain, flat, plain, flat, ...); the fastest round of each."""
    outs = [(np.full(ip.shape[0] - 1, np.nan), np.full(ip.shape[0] - 1, np.nan)) for ip, _ in subs]
    times = {"plain": [], "flat": []}
    for _ in range(rounds):
        for name, fn, k in (("plain", plain_all, 0), ("flat", flat_all, 1)):
            t0 = time.process_time()
            for (ip, ix), o in zip(subs, outs):
                fn(ip, ix, o[k])
            times[name].append(time.process_time() - t0)
    for a, b in outs:
        m = ~np.isnan(a)
        np.testing.assert_allclose(b[m], a[m], rtol=1e-12)
        assert np.isnan(b[~m]).all()
    p, f = min(times["plain"]), min(times["flat"])
    per = len(subs)
    print(f"| {label} | {rounds} | {fmt(p / per)} | {fmt(f / per)} | {p / f:.2f} |", flush=True)


def fmt(t: float) -> str:
    return f"{t * 1000:.2f} ms" if t < 1 else f"{t:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-large", action="store_true", help="skip the 10^5-infected snapshot")
    ap.add_argument("--slashdot", action="store_true",
                    help="only the 10^3 / 10^4 Slashdot snapshots (dense cores, 2 rounds)")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)\n")
    # warm-up: compile both on a small graph with cycles
    ip, ix = A.Snapshot(nx.connected_watts_strogatz_graph(60, 4, 0.3, seed=1), range(60), T=3).subgraph()
    plain_all(ip, ix, np.empty(60))
    flat_all(ip, ix, np.empty(60))
    print("| snapshots | rounds | plain (per snapshot) | flat (per snapshot) | plain / flat |")
    print("|---|---|---|---|---|")
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    from bench_cyclic import random_regular, rd_snapshot

    if args.slashdot:
        from anonspread.datasets.graphs import load_graph

        gB = as_contact_graph(load_graph("soc-slashdot"))
        for k in (10**3, 10**4):
            ip, ix = rd_snapshot(gB, k, seed=2).subgraph()
            core = K.two_core(ip, ix)[0]
            deg = (np.diff(ip)[core]).mean()
            compare(f"Slashdot, {k:,} infected ({core.sum():,}-node core, mean degree <= {deg:.0f})",
                    [(ip, ix)], 2)
        print(f"\nload average at end: {os.getloadavg()[0]:.1f}")
        return
    g = as_contact_graph(nx.random_regular_graph(4, 10**4, seed=1))
    subs = []
    for i in range(200):
        sp = spread.simulate(g, spread.RandomDiffusion(0.5), 9, rng=i)
        subs.append(A.Snapshot(g, sp.infected, T=9).subgraph())
    ncore = np.mean([K.two_core(ip, ix)[0].sum() for ip, ix in subs])
    compare(f"200 pipeline snapshots (mean core {ncore:.0f} nodes)", subs, 3)
    gA = random_regular(10**6, 4, seed=1)
    for k in (10**4,) + (() if args.no_large else (10**5,)):
        snap = rd_snapshot(gA, k, seed=2)
        ip, ix = snap.subgraph()
        compare(f"graph A, {k:,} infected ({K.two_core(ip, ix)[0].sum():,}-node core)", [(ip, ix)],
                3 if k <= 10**4 else 1)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
