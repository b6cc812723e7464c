"""Probe (not a test): could a bound exact near the root and generic deeper down prune rumour evaluations?

Run::

    python benchmarks/probe_rumor_bounds.py     # ~10 s

For every 2-core node v of a snapshot, the weighted core BFS tree rooted at v (the tree
``graph_rumor_top`` evaluates) is split by depth: ``S(v) = sum_k L_k(v)`` with ``L_k(v)``
the sum of ``log T_u`` over the nodes u at depth k. A bound that computes the tree exactly
to depth h and bounds ``D_h(v) = sum_{k >= h} L_k(v)`` by anything that does not depend on
v is at best ``min_w D_h(w)``; its excess over the exact score of v is then
``D_h(v) - min_w D_h(w)``. Printed per h: the ball size (nodes above depth h), the spread of
``D_h`` over the roots, and the share of nodes that even this best case would exclude below
the best score (and below min(best, source)); plus how much neighbouring core nodes' exact
scores differ. Snapshots: 3 pipeline snapshots (random diffusion p = 0.5, T = 9, on a
10^4-node random 4-regular graph) and the 10^4-infected snapshot of ``bench_cyclic.py``'s
graph A.
"""

from __future__ import annotations

import math
import os
import sys

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
def depth_profiles(cptr, cind, cw, maxdep, L, B):
    """``L[r, k]``: sum of log T_u over depth-k nodes of the core BFS tree rooted at r
    (depths past maxdep - 1 pooled); ``B[r, k]``: how many nodes at depth k."""
    nc = cptr.shape[0] - 1
    order = np.empty(nc, np.int32)
    parent = np.empty(nc, np.int32)
    dist = np.full(nc, -1, np.int32)
    size = np.empty(nc, np.float64)
    for r in range(nc):
        k = K.bfs(cptr, cind, r, order, parent, dist)
        for j in range(k):
            size[order[j]] = cw[order[j]]
        for j in range(k - 1, 0, -1):
            x = order[j]
            size[parent[x]] += size[x]
        for j in range(k):
            x = order[j]
            d = min(dist[x], maxdep - 1)
            L[r, d] += math.log(size[x])
            B[r, d] += 1
            dist[x] = -1


def analyse(label: str, ip, ix, src: int) -> None:
    n = ip.shape[0] - 1
    core, att, _, weight, const = K.two_core(ip, ix)
    cid, cptr, cind, cw, _ = K.core_csr(ip, ix, core, weight, int(np.flatnonzero(core)[0]))
    nc = cw.shape[0]
    maxdep = 200
    L = np.zeros((nc, maxdep))
    B = np.zeros((nc, maxdep))
    depth_profiles(cptr, cind, cw, maxdep, L, B)
    score = math.lgamma(n + 1.0) - const - L.sum(1)
    best = score.max()
    s0 = score[cid[src if core[src] else att[src]]]
    dif = np.abs(np.repeat(score, np.diff(cptr)) - score[cind])
    print(f"{label}: n = {n:,}, core {nc:,}; scores 0..{best - score.min():.0f} below the best "
          f"(median {np.median(best - score):.0f}), source {best - s0:.1f} below; neighbours' "
          f"scores differ by median {np.median(dif):.2f}, 90% {np.quantile(dif, 0.9):.2f}, "
          f"max {dif.max():.2f}")
    for h in (1, 2, 3, 4, 6, 8, 12):
        D = L[:, h:].sum(1)
        gap = D - D.min()
        ex_best = np.mean(score + gap < best - 1e-9 * abs(best))
        ex_src = np.mean(score + gap < min(best, s0) - 1e-9 * abs(s0))
        print(f"  h = {h:2d}: ball {B[:, :h].sum(1).mean():.0f} nodes (mean); spread of D_h "
              f"{gap.max():.0f} (median excess {np.median(gap):.0f}); excluded below the best "
              f"{100 * ex_best:.1f}%, below min(best, source) {100 * ex_src:.1f}%", flush=True)


def main() -> None:
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)\n")
    g = as_contact_graph(nx.random_regular_graph(4, 10**4, seed=1))
    for i in range(3):
        sp = spread.simulate(g, spread.RandomDiffusion(0.5), 9, rng=i)
        snap = A.Snapshot(g, sp.infected, T=9)
        ip, ix = snap.subgraph()
        analyse(f"pipeline snapshot {i}", ip, ix, snap.position(sp.source))
    sys.path.insert(0, os.path.dirname(__file__))
    from bench_cyclic import random_regular, rd_snapshot

    snap = rd_snapshot(random_regular(10**6, 4, seed=1), 10**4, seed=2)
    ip, ix = snap.subgraph()
    analyse("graph A, 10^4 infected", ip, ix, 0)


if __name__ == "__main__":
    main()
