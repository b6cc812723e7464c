"""Does ``bp`` converge on dense loopy snapshots, at what cost, and how well does it detect?
Before and after (issue 31 item 1, branch bpconv).

The snapshots: random diffusion on the 498-node three-block graph of ``make_three_block.py``
(p = 0.5, T = 4, 6, 8; the graph of issue 31's sweep) and on ego-Facebook (degree >= 3, the
thesis's preparation: 3,866 nodes; p = 0.1, T = 2, 3, 4, as
``harness/experiments/facebook_attacks.py``), a uniform source, seeded. Each snapshot is
attacked twice, interleaved (before, after, on the same snapshot), after one warm-up call
of each:

* **before**: ``bp`` as on main before this branch, reproduced call for call from the
  engine's kernels (unchanged at ``stall=0``): ``method="auto"`` picks ``tree`` /
  ``bethe`` / ``prior`` by the same rule; ``prior`` is one run with source prior
  ``gamma = 0.03`` on every infected node, damping 0.3, 200 sweeps; ``bethe`` one clamped
  run per candidate, damping 0.3, 200 sweeps;
* **after**: ``adversaries.bp_posterior(snap, protocol)`` with its defaults (``prior``:
  sources restricted to the feasible nodes; damping 0.3 then 0.6; stall rule of 50 sweeps).

Printed per (graph, T): snapshots, methods, converged counts, CPU seconds per snapshot
(``process_time`` of the whole call, mean and max), detection of the MAP (ties split
uniformly) before and after with the paired difference and its standard error, and the
mean largest posterior (BP's predicted detection).

    python benchmarks/make_three_block.py /tmp/three_block.csv
    python benchmarks/bench_bp_convergence.py --three-block /tmp/three_block.csv \
        --snapshots 60 --fb-snapshots 200 --stall0

(``--stall0``: the after-method is also run with ``stall=0``, to count what the stall rule
costs in converged runs and saves in CPU.)
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings

import numpy as np

from anonspread import adversaries, datasets, spread
from anonspread.engine import bp as ebp

abp = importlib.import_module("anonspread.adversaries.bp")  # the module (the package's `bp` is the estimator)


def before(snap, proto) -> dict:
    """``bp_posterior`` as on main before this branch (method auto, damping 0.3, 200 sweeps,
    ``prior`` on every infected node with gamma 0.03), from the unchanged kernels."""
    p = float(proto.p)
    ip, ix = snap.subgraph()
    ip = np.ascontiguousarray(ip, np.int64)
    ix = np.ascontiguousarray(ix, np.int32)
    extra = snap.contact_degrees() - np.diff(ip)
    n, T = snap.n, snap.T
    work = n * ix.shape[0] * (T + 1)
    if snap.subgraph_is_tree():
        method, ll, conv = "tree", ebp.tree_log_likelihood(ip, ix, extra, T, p), True
    elif work <= abp.BETHE_BUDGET:
        lz, it, ch = ebp.clamped_log_likelihood(ip, ix, extra, T, p, np.arange(n, dtype=np.int64),
                                                damping=0.3, tol=1e-9, max_iter=200)
        live = np.isfinite(lz) | (it > 0)
        method, ll, conv = "bethe", lz, not bool(((ch >= 1e-9) & live).any())
    else:
        r = ebp.bp_run(ip, ix, extra, T, p, abp.PRIOR_GAMMA, damping=0.3, tol=1e-9, max_iter=200)
        ll = r.log_z + r.log_source if np.isfinite(r.log_z) else np.full(n, -np.inf)
        method, conv = "prior", r.converged
    post = np.exp(ll - ll.max())
    post /= post.sum()
    return {"method": method, "converged": conv, "posterior": post}


def after(snap, proto, **kw) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", adversaries.BPConvergenceWarning)
        r = adversaries.bp_posterior(snap, proto, **kw)
    return {"method": r.method, "converged": r.converged, "posterior": r.posterior,
            "damping": r.damping, "stalled": r.stalled}


def hit(post: np.ndarray, src: int) -> float:
    top = np.flatnonzero(post >= post.max() * (1 - 1e-12))
    return float(src in top) / top.size


def no_stall(snap, proto) -> dict:
    return after(snap, proto, stall=0)


def timed(f, snap, proto):
    t0 = time.process_time()
    out = f(snap, proto)
    out["cpu"] = time.process_time() - t0
    return out


def run(name: str, graph, p: float, Ts, k: int, seed: int, stall0: bool) -> None:
    proto = spread.RandomDiffusion(p)
    for T in Ts:
        rng = np.random.default_rng(seed + T)
        rows = []
        for i in range(k):
            sp = spread.simulate(graph, proto, T, rng=rng)
            snap = adversaries.observe(sp)
            src = snap.position(sp.source)
            if i == 0:  # warm-up of both (not counted)
                before(snap, proto)
                after(snap, proto)
            b, a = (timed(before, snap, proto), timed(after, snap, proto)) if i % 2 == 0 else \
                tuple(reversed((timed(after, snap, proto), timed(before, snap, proto))))
            z = timed(no_stall, snap, proto) if stall0 else None
            rows.append((snap.n, b, a, hit(b["posterior"], src), hit(a["posterior"], src), z))
        n = np.array([r[0] for r in rows])
        hb = np.array([r[3] for r in rows])
        ha = np.array([r[4] for r in rows])
        d = ha - hb
        meth = {}
        for r in rows:
            key = r[1]["method"] + ">" + r[2]["method"]
            meth[key] = meth.get(key, 0) + 1
        cb = sum(r[1]["converged"] for r in rows)
        ca = sum(r[2]["converged"] for r in rows)
        st = sum(r[2]["stalled"] > 0 for r in rows)
        d6 = sum(r[2]["converged"] and r[2]["damping"] > 0.3 for r in rows)
        tb = np.array([r[1]["cpu"] for r in rows])
        ta = np.array([r[2]["cpu"] for r in rows])
        pb = np.mean([r[1]["posterior"].max() for r in rows])
        pa = np.mean([r[2]["posterior"].max() for r in rows])
        print(f"{name} p={p} T={T}: {k} snapshots, mean infected {n.mean():.1f}; methods "
              f"(before>after) {meth}")
        print(f"  converged before {cb}/{k}, after {ca}/{k} (of them at damping 0.6: {d6}; "
              f"unconverged after that stalled: {st})")
        if stall0:
            cz = sum(r[5]["converged"] for r in rows)
            tz = np.array([r[5]["cpu"] for r in rows])
            lost = sum(r[5]["converged"] and not r[2]["converged"] for r in rows)
            print(f"  after without the stall rule (stall=0): converged {cz}/{k} ({lost} of them "
                  f"not converged with it), CPU s/snapshot {tz.mean():.4f} (max {tz.max():.3f})")
        print(f"  CPU s/snapshot before {tb.mean():.4f} (max {tb.max():.3f}), after {ta.mean():.4f} "
              f"(max {ta.max():.3f}); total {tb.sum():.2f} s vs {ta.sum():.2f} s")
        print(f"  detection before {hb.mean():.3f}, after {ha.mean():.3f}, paired difference "
              f"{d.mean():+.3f} (se {d.std(ddof=1) / np.sqrt(k):.3f}); mean max posterior "
              f"before {pb:.3f}, after {pa:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--three-block", default=None, help="CSV of make_three_block.py")
    ap.add_argument("--snapshots", type=int, default=50)
    ap.add_argument("--fb-snapshots", type=int, default=0, help="0: skip ego-Facebook")
    ap.add_argument("--fb-T", default="2,3,4")
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--stall0", action="store_true",
                    help="also run the after-method without the stall rule (converged, CPU)")
    args = ap.parse_args()
    if args.three_block:
        g = spread.graphs.from_edgelist(args.three_block, delimiter="comma")
        run("three-block", g, 0.5, (4, 6, 8), args.snapshots, args.seed, args.stall0)
    if args.fb_snapshots:
        g = datasets.load_graph("ego-facebook", min_degree=3)
        run("ego-facebook", g, 0.1, [int(t) for t in args.fb_T.split(",")], args.fb_snapshots,
            args.seed + 100, args.stall0)


if __name__ == "__main__":
    main()
