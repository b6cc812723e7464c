"""Where ``bp``'s time goes in issue 31's three-block sweep, and what reusing equal snapshots
saves (issue 31 item 6, branch bpfast).

Two parts, each interleaved (before, after, alternating which runs first) after a warm-up:

* **snapshots** (default): random diffusion (p = 0.5) on the 498-node three-block graph
  of ``make_three_block.py``, T = 2, 4, 6, 8, ``--snapshots`` seeded spreads per T, each
  attempted by ``adversaries.bp_posterior`` with ``cache=False`` (before: every snapshot
  computed) and ``cache=True`` (after: a snapshot equal to an earlier one reuses its
  computation). Printed per T: the methods ``auto`` chose, CPU seconds
  (``process_time``) before and after, the cache's hits, how many results are identical
  (posterior, log-likelihood and every flag compared with ``==``, and the warnings'
  texts), the snapshots that saturated (every node infected), and, for the ``prior``
  runs, the attempts of the default schedule: how many ran, converged, their sweeps and
  CPU (each attempt re-run alone through ``engine.bp.bp_run``, as ``bp_posterior`` runs
  it);
* **sweep** (``--sweep-reps R``): the issue's sweep command with ``--set estimator=bp``,
  run R times each way in subprocesses (before: ``BP_CACHE_SIZE = 0``, nothing kept),
  CPU of the child (user + system) and whether the result CSVs are byte-identical.

    python benchmarks/make_three_block.py /tmp/three_block.csv
    python benchmarks/bench_bp_reuse.py /tmp/three_block.csv --snapshots 200 --sweep-reps 2
"""

from __future__ import annotations

import argparse
import filecmp
import importlib
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from anonspread import adversaries, datasets, spread
from anonspread.engine import bp as ebp

abp = importlib.import_module("anonspread.adversaries.bp")  # the module (the package's `bp` is the estimator)


def today(snap, proto):
    """``bp_posterior`` as before this branch: sweeps in the snapshot's own order (a spread's
    snapshot lists its nodes in infection order, source first), nothing reused."""
    keep = abp._canonical_order
    abp._canonical_order = lambda s: None
    try:
        return adversaries.bp_posterior(snap, proto, cache=False)
    finally:
        abp._canonical_order = keep


def new(snap, proto):
    return adversaries.bp_posterior(snap, proto)


def timed(f, snap, proto):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", adversaries.BPConvergenceWarning)
        t0 = time.process_time()
        r = f(snap, proto)
        return r, time.process_time() - t0


def hit(post: np.ndarray, src: int) -> float:
    top = np.flatnonzero(post >= post.max() * (1 - 1e-12))
    return float(src in top) / top.size


def attempts(snap, proto, table: dict) -> None:
    """The default ``prior`` schedule's attempts (canonical order), each timed alone."""
    ip, ix = snap.subgraph()
    ip = np.ascontiguousarray(ip, np.int64)
    ix = np.ascontiguousarray(ix, np.int32)
    extra = snap.contact_degrees() - np.diff(ip)
    perm = abp._canonical_order(snap)
    if perm is not None:
        ip, ix, extra = abp._relabel(ip, ix, extra, perm)
    T, p = snap.T, float(proto.p)
    g = np.where(ebp.feasible_sources(ip, ix, T), abp.PRIOR_GAMMA, 0.0)
    for k, (d, st) in enumerate(dict(abp.SCHEDULES)["prior"]):
        t0 = time.process_time()
        run = ebp.bp_run(ip, ix, extra, T, p, g, damping=d, stall=st)
        a = table.setdefault(k, {"damping": d, "ran": 0, "converged": 0, "sweeps": 0,
                                 "cpu": 0.0, "log kernel": 0})
        a["ran"] += 1
        a["converged"] += run.converged
        a["sweeps"] += run.sweeps
        a["cpu"] += time.process_time() - t0
        a["log kernel"] += run.kernel == "log"
        if run.converged:
            break


def compare(name: str, g, p: float, Ts, k: int, seed: int, shuffled: bool,
            table: bool) -> None:
    proto = spread.RandomDiffusion(p)
    n_graph = g.number_of_nodes()
    for T in Ts:
        rng = np.random.default_rng(seed + T)
        rows = []
        adversaries.bp_cache_clear()
        for i in range(k):
            sp = spread.simulate(g, proto, T, rng=rng)
            snap = adversaries.observe(sp)
            src = snap.position(sp.source)
            if i == 0:  # warm-up of both (not counted)
                timed(today, snap, proto)
                timed(new, snap, proto)
                adversaries.bp_cache_clear()
            arms = [("before", today), ("after", new)]
            out = {}
            for nm, f in (arms if i % 2 == 0 else arms[::-1]):
                out[nm] = timed(f, snap, proto)
            row = {"n": snap.n, "src": src, **out}
            if shuffled:  # today's method on the same set listed in a random order
                order = np.random.default_rng(seed + 7 * i).permutation(snap.n)
                sh = adversaries.Snapshot(snap.graph, snap.nodes[order], T)
                r, _ = timed(today, sh, proto)
                row["shuffled"] = (r.posterior[np.argsort(order)], 0.0, r.converged)
            rows.append(row)
        b = [r["before"][0] for r in rows]
        a = [r["after"][0] for r in rows]
        hb = np.array([hit(x.posterior, r["src"]) for x, r in zip(b, rows)])
        ha = np.array([hit(x.posterior, r["src"]) for x, r in zip(a, rows)])
        d = ha - hb
        meth: dict = {}
        for x in a:
            meth[x.method] = meth.get(x.method, 0) + 1
        both = [i for i in range(k) if b[i].converged and a[i].converged]
        dpost = max((float(np.abs(b[i].posterior - a[i].posterior).max()) for i in both),
                    default=0.0)
        tb = sum(r["before"][1] for r in rows)
        ta = sum(r["after"][1] for r in rows)
        info = adversaries.bp_cache_info()
        full = sum(r["n"] == n_graph for r in rows)
        print(f"{name} p={p} T={T}: {k} snapshots, mean infected "
              f"{np.mean([r['n'] for r in rows]):.1f}, saturated {full}; methods {meth}")
        print(f"  CPU before {tb:.2f} s, after {ta:.2f} s (ratio {tb / max(ta, 1e-9):.2f}); "
              f"cache hits {info['hits']}")
        print(f"  converged before {sum(x.converged for x in b)}/{k}, after "
              f"{sum(x.converged for x in a)}/{k}; largest posterior difference where both "
              f"converged {dpost:.2g}")
        print(f"  detection before {hb.mean():.4f}, after {ha.mean():.4f}, paired difference "
              f"{d.mean():+.4f} (se {d.std(ddof=1) / np.sqrt(k):.4f}; {int((d != 0).sum())} "
              f"snapshots differ); mean max posterior before "
              f"{np.mean([x.posterior.max() for x in b]):.4f}, after "
              f"{np.mean([x.posterior.max() for x in a]):.4f}", flush=True)
        if shuffled:
            hs = np.array([hit(r["shuffled"][0], r["src"]) for r in rows])
            ds = hs - hb
            print(f"  before's method on the same sets listed in a random order: detection "
                  f"{hs.mean():.4f}, converged {sum(r['shuffled'][2] for r in rows)}/{k}; paired "
                  f"vs infection order {ds.mean():+.4f} (se {ds.std(ddof=1) / np.sqrt(k):.4f})",
                  flush=True)
        if table:
            tab: dict = {}
            rng2 = np.random.default_rng(seed + T)
            for i in range(k):
                sp = spread.simulate(g, proto, T, rng=rng2)
                if a[i].method == "prior":
                    attempts(adversaries.observe(sp), proto, tab)
            for j, t in tab.items():
                print(f"  prior attempt {j} (damping {t['damping']}): ran {t['ran']}, converged "
                      f"{t['converged']}, sweeps {t['sweeps']}, CPU {t['cpu']:.2f} s "
                      f"(log-domain kernel {t['log kernel']})", flush=True)


CHILD = """
import importlib, sys
abp = importlib.import_module("anonspread.adversaries.bp")
if sys.argv[1] == "before":
    abp.BP_CACHE_SIZE = 0
    abp._canonical_order = lambda s: None
from anonspread.harness.cli import main
sys.argv = ["anonspread"] + sys.argv[2:]
sys.exit(main())
"""


def sweep(path: str, reps: int) -> None:
    tmp = tempfile.mkdtemp(prefix="bench_bp_reuse_")
    cpu: dict = {"before": [], "after": []}
    csvs: dict = {"before": [], "after": []}
    for r in range(reps + 1):  # the first pair is the warm-up
        for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
            out = os.path.join(tmp, f"{name}{r}")
            cmd = [sys.executable, "-c", CHILD, name, "sweep", "detection", "--set", "graph=edgelist",
                   "--set", f"graph.path={path}", "--set", "protocol=random-diffusion",
                   "--set", "T=2,4,6,8", "--set", "estimator=bp", "--trials", "200",
                   "--workers", "1", "--rng", "1", "--name", "bp", "--out", out, "--overwrite",
                   "--no-plot", "--quiet"]
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(cmd, check=True, capture_output=True)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if r:
                cpu[name].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
                csvs[name].append(os.path.join(out, "bp.csv"))
    ident = all(filecmp.cmp(a, b, shallow=False) for a in csvs["after"] for b in csvs["after"])
    print(f"sweep (estimator=bp, 200 trials, T = 2, 4, 6, 8, --workers 1), {reps} runs each way: "
          f"CPU before {', '.join(f'{x:.1f}' for x in cpu['before'])} s, after "
          f"{', '.join(f'{x:.1f}' for x in cpu['after'])} s (mean ratio "
          f"{np.mean(cpu['before']) / np.mean(cpu['after']):.2f}); after's result CSVs "
          f"byte-identical run to run: {ident}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("three_block", help="CSV of make_three_block.py")
    ap.add_argument("--snapshots", type=int, default=200, help="per T on the three-block graph")
    ap.add_argument("--fb-snapshots", type=int, default=0, help="per T on ego-Facebook (0: skip)")
    ap.add_argument("--seed", type=int, default=3100)
    ap.add_argument("--shuffled", action="store_true",
                    help="also run before's method on each snapshot listed in a random order")
    ap.add_argument("--sweep-reps", type=int, default=0, help="0: skip the sweep part")
    args = ap.parse_args()
    if args.snapshots:
        g = spread.graphs.from_edgelist(args.three_block, delimiter="comma")
        compare("three-block", g, 0.5, (2, 4, 6, 8), args.snapshots, args.seed, args.shuffled,
                True)
    if args.fb_snapshots:
        g = datasets.load_graph("ego-facebook", min_degree=3)
        compare("ego-facebook", g, 0.1, (2, 3), args.fb_snapshots, args.seed + 100,
                args.shuffled, False)
    if args.sweep_reps:
        sweep(args.three_block, args.sweep_reps)


if __name__ == "__main__":
    main()
