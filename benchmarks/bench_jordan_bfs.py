"""Benchmark: the Jordan certification with direction-optimising BFS against the top-down BFS
of before, interleaved, the same answer (issue 32 item 3; not a test).

Run::

    python benchmarks/bench_jordan_bfs.py                                   # every built-in set
    python benchmarks/bench_jordan_bfs.py --sets slashdot,cl6 --rounds 3
    python benchmarks/bench_jordan_bfs.py --sets none --csr /tmp/jb/r8 --rounds 1   # a dumped CSR

Each measurement is one ``scoring._jordan_place`` call (the kernel of ``graph_jordan_top``,
64 reference nodes) on the snapshot's infected subgraph, source = the first infected node,
in a forked child: CPU seconds (``time.process_time``) of the call alone (the subgraph is
built once in the parent). ``new`` = ``hybrid=True`` (the default: the first phase's single
BFS, the bit-parallel passes and the offset BFS bottom-up where cheaper), ``old``
= ``hybrid=False`` (every BFS top-down, the kernel of before), alternating which goes first
per round, after a warm-up of both. Printed per snapshot: nodes, arcs, BFS equivalents, the
answer (ecc(s), minimum, #below, #tied, #centres), whether the two runs' bounds (``lo``,
``hi``) were identical, and the CPU seconds of every run.

Sets (random diffusion snapshots, the first k infected):

* ``slashdot``: soc-slashdot (82,168 nodes), p = 0.5 (``bench_cyclic.rd_snapshot``),
  k = 10^3, 10^4, 3x10^4, 82,168;
* ``reg4``: the random 4-regular graph of 10^6 nodes of ``bench_cyclic``, k = 10^4, 10^5, 3x10^5;
* ``cl6`` / ``cl7``: the Chung-Lu graphs of ``bench_estimator_growth`` (10^6 edges, 2x10^5
  nodes / 10^7 edges, 2x10^6 nodes), p = 0.05 from node 0, k = 10^4, 3x10^4, 10^5 (and
  3x10^5, 10^6 on cl7);
* ``--pickle GRAPH SNAPSHOT``: a snapshot pickled by ``bench_end_to_end.py`` (``{"snap",
  "source"}``) on the graph file or edge list GRAPH (read with ``spread.graphfile.read_edgelist``),
  its subgraph built once; ``--dump PREFIX`` also saves it as
* ``--csr PREFIX``: ``PREFIX_indptr.npy``, ``PREFIX_indices.npy``, ``PREFIX_s.npy`` (a
  snapshot's subgraph and source position dumped once, e.g. the 10^8-edge graph's:
  ``--sets none --pickle /work/data/powerlaw-1e8.txt /work/data/e2e3/1e8/random.pkl --dump
  /tmp/jb/r8 --rounds 0``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_estimator_growth import timed

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import scoring as K


def run(ip, ix, s: int, hybrid: bool):
    n = ip.shape[0] - 1
    lo = np.zeros(n, np.int64)
    hi = np.full(n, K.BIG, np.int64)
    t, nbfs, left = K._jordan_place(ip, ix, s, lo, hi, -1, np.zeros(1, np.int64), hybrid=hybrid)
    exact = lo == hi
    emin = int(lo[exact].min())
    ans = (int(t), emin, int(np.count_nonzero(hi < t)),
           int(np.count_nonzero((lo == t) & (hi == t))), int(np.count_nonzero(exact & (lo == emin))))
    digest = hashlib.sha256(lo.tobytes() + hi.tobytes()).hexdigest()[:12]
    return int(nbfs), ans, digest


def snapshots(sets: list[str], cache: str):
    if "slashdot" in sets:
        from bench_cyclic import rd_snapshot

        from anonspread.datasets.graphs import load_graph
        from anonspread.spread.graphs import as_contact_graph

        g = as_contact_graph(load_graph("soc-slashdot"))
        for k in (10**3, 10**4, 3 * 10**4, 82168):
            snap = rd_snapshot(g, k, 0)
            yield f"Slashdot k={snap.n}", snap.subgraph(), snap.position(snap.nodes[0])
    if "reg4" in sets:
        from bench_cyclic import random_regular, rd_snapshot

        g = random_regular(10**6, 4, seed=1)
        for k in (10**4, 10**5, 3 * 10**5):
            snap = rd_snapshot(g, k, 0)
            yield f"4-regular 10^6 k={snap.n}", snap.subgraph(), snap.position(snap.nodes[0])
    for name, n, m, ks in (("cl6", 200_000, 10**6, (10**4, 3 * 10**4, 10**5)),
                           ("cl7", 2_000_000, 10**7, (10**4, 3 * 10**4, 10**5, 3 * 10**5, 10**6))):
        if name not in sets:
            continue
        from bench_estimator_growth import load

        g = load(n, m, cache)
        sp = spread.simulate(g, spread.RandomDiffusion(0.05), 40, source=0, rng=1)
        for k in ks:
            if k > sp.n_infected:
                break
            snap = A.Snapshot(g, sp.infected[:k], T=int(sp.times[k - 1]))
            yield f"Chung-Lu {m:.0e} edges k={k}", snap.subgraph(), 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="slashdot,reg4,cl6,cl7",
                    help="comma list of slashdot, reg4, cl6, cl7 (or none)")
    ap.add_argument("--csr", nargs="*", default=[], help="dumped snapshot prefixes")
    ap.add_argument("--pickle", nargs=2, action="append", default=[], metavar=("GRAPH", "SNAPSHOT"),
                    help="a pickled snapshot of bench_end_to_end.py and its graph")
    ap.add_argument("--dump", default=None, help="save the --pickle snapshot's CSR under this prefix")
    ap.add_argument("--rounds", type=int, default=2, help="old/new pairs per snapshot")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--cache", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                    "anonspread-bench"))
    args = ap.parse_args()
    sets = args.sets.split(",")
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average "
          f"{os.getloadavg()[0]:.1f} (2 cores)", flush=True)
    # warm-up: both paths once
    g = nx_small()
    for hybrid in (False, True):
        run(*g, 0, hybrid)

    def sources():
        yield from snapshots(sets, args.cache)
        for path, pkl in args.pickle:
            import pickle

            from anonspread.spread.graphfile import read_edgelist

            g = read_edgelist(path)  # noqa: F841 (the snapshot's graph: mapped, kept alive)
            with open(pkl, "rb") as f:
                d = pickle.load(f)
            snap = d["snap"]
            ip, ix = snap.subgraph()
            s = snap.position(d["source"])
            if args.dump:
                np.save(args.dump + "_indptr.npy", np.asarray(ip))
                np.save(args.dump + "_indices.npy", np.asarray(ix))
                np.save(args.dump + "_s.npy", np.array([s]))
            yield os.path.basename(pkl), (ip, ix), s
        for p in args.csr:
            yield (os.path.basename(p), (np.load(p + "_indptr.npy"), np.load(p + "_indices.npy")),
                   int(np.load(p + "_s.npy")[0]))

    for label, (ip, ix), s in sources():
        ip = np.ascontiguousarray(ip, np.int64)
        ix = np.ascontiguousarray(ix, np.int32)
        cpu = {"old": [], "new": []}
        res = {}
        for r in range(args.rounds):
            for mode in (("old", "new") if r % 2 == 0 else ("new", "old")):
                t, extra = timed(lambda mode=mode, ip=ip, ix=ix, s=s: run(ip, ix, s, mode == "new"),
                                 args.timeout)
                cpu[mode].append(t)
                if extra is not None:
                    res.setdefault(mode, extra)
                    assert res[mode] == extra
        same = res.get("old") == res.get("new") if len(res) == 2 else None
        nbfs, ans, _ = res.get("new") or res.get("old") or (None, None, None)
        fmt = lambda ts: ", ".join("timeout" if t is None else f"{t:.3f}" for t in ts)  # noqa: E731
        mo = min((t for t in cpu["old"] if t is not None), default=None)
        mn = min((t for t in cpu["new"] if t is not None), default=None)
        ratio = f"{mo / mn:.2f}" if mo and mn else "-"
        print(f"{label}: n={ip.shape[0] - 1} arcs={ix.shape[0]} BFS={nbfs} answer={ans} "
              f"same bounds+count={same} | old {fmt(cpu['old'])} | new {fmt(cpu['new'])} | "
              f"old/new (min) {ratio} | load {os.getloadavg()[0]:.1f}", flush=True)


def nx_small():
    """A small graph with a cycle for the warm-up (the kernels' first call)."""
    rng = np.random.default_rng(0)
    n = 2000
    u = rng.integers(0, n, 8000)
    v = rng.integers(0, n, 8000)
    keep = u != v
    src, dst = np.r_[u[keep], v[keep], np.arange(n - 1)], np.r_[v[keep], u[keep], np.arange(1, n)]
    src, dst = np.r_[src, np.arange(1, n)], np.r_[dst, np.arange(n - 1)]
    o = np.argsort(src, kind="stable")
    ip = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=ip[1:])
    return ip, dst[o].astype(np.int32)


if __name__ == "__main__":
    main()
