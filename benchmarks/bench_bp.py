"""Belief propagation for random diffusion: anonspread's compiled BP against bpepi (issue 31).

Same instances, same model, same marginals: a random 3-regular graph of N nodes, one
random-diffusion spread (p = 0.5) for T steps, observed as a snapshot at T (infected nodes
``t <= T``, the others ``t > T``). Both run BP with independent sources of prior ``delta``
(bpepi's model; ``anonspread.engine.bp.bp_run``), no damping, until the largest message
change is below ``tol``, and return every infected node's time marginal ``P(t_i = t)``.
anonspread works on the infected nodes only (the uninfected contacts enter as a factor);
bpepi on the graph it is given: the whole graph (what its users run) and, second, only
the infected nodes and their uninfected contacts (the same information).

The peer runs in its own venv (never our dependency): ``--peer-python`` is that venv's
python, ``--peer-src`` a directory holding the ``bpepi`` package (github SPOC-group/bpepi,
``bpepi/Modules/{fg,st}.py``). This file re-runs itself there with ``--peer-worker`` (numpy
and bpepi only). Timings: each side's own ``perf_counter`` around build + iterate +
marginals (no process start-up) in **CPU seconds** (``process_time``: the machine is shared;
both sides run on one thread), one warm-up round of each side (the first size), then
``--rounds`` interleaved rounds per size; the ratio is of the medians.

    python benchmarks/bench_bp.py --peer-python /work/venvs/bpepi-peer/bin/python \
        --peer-src /work/venvs/bpepi-peer/src --sizes 1000 --rounds 2
    python benchmarks/bench_bp.py --sizes 10000 --rounds 1

``--scaling`` (no peer): ``adversaries.bp_posterior(method="prior")`` (one damped BP run,
gamma = PRIOR_GAMMA) on random-diffusion snapshots of about 10^2, 10^3, 10^4 infected nodes
(3-regular graphs of 4x that many nodes, p = 0.5, the first T reaching the size), CPU
seconds of the whole call (subgraph extraction included) and ns per message entry per
sweep; then ``method="auto"`` on the 498-node three-block graph of
``make_three_block.py`` (issue 31's sweep graph), random diffusion p = 0.5, T = 2, 4, 6, 8:
CPU seconds per snapshot over ``--snapshots`` snapshots and which methods ran. Each call
runs twice on the same snapshot, interleaved: with the engine's default kernel (linear
domain, ``kernel="auto"``) and with ``kernel="log"`` (the log-domain kernel, unchanged: the
cost before the linear one), and the largest difference of their posteriors is printed.

    python benchmarks/bench_bp.py --scaling --snapshots 20
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def peer_worker(inst: str, delta: float, tol: float, out: str, src: str) -> None:
    """Run bpepi on the instance (numpy + bpepi only)."""
    sys.path.insert(0, src)
    from bpepi.Modules.fg import FactorGraph

    d = np.load(inst)
    n, T, p = int(d["n"]), int(d["T"]), float(d["p"])
    edges = d["edges"]
    contacts = [(int(a), int(b), t, p) for a, b in edges for t in range(T)]
    contacts += [(int(b), int(a), t, p) for a, b in edges for t in range(T)]
    infected = np.zeros(n, bool)
    infected[d["infected"]] = True
    obs = [(i, 1 if infected[i] else 0, T) for i in range(n)]
    t0, c0 = time.perf_counter(), time.process_time()
    f = FactorGraph(n, T, contacts, obs, delta)
    it, err = f.update(maxit=1000, tol=tol, damp=0.0)
    marg = f.marginals()
    np.savez(out, marg=marg, it=it, err=err, sec=time.process_time() - c0,
             wall=time.perf_counter() - t0)


def instance(N: int, T: int, p: float, seed: int, boundary_only: bool, path: str) -> dict:
    """A snapshot written for the peer; returns what anonspread needs to run the same one."""
    import networkx as nx

    from anonspread import adversaries, spread

    g = nx.random_regular_graph(3, N, seed=seed)
    sp = spread.simulate(g, spread.RandomDiffusion(p), T, rng=seed)
    snap = adversaries.observe(sp)
    inf = np.asarray(snap.nodes, np.int64)
    edges = np.array(list(g.edges()), np.int64)
    n = N
    if boundary_only:
        # the infected nodes, their uninfected contacts, and the edges touching an infected node
        keep = np.zeros(N, bool)
        keep[inf] = True
        touch = keep[edges[:, 0]] | keep[edges[:, 1]]
        edges = edges[touch]
        nodes = np.unique(edges)
        relabel = np.full(N, -1, np.int64)
        relabel[nodes] = np.arange(nodes.shape[0])
        edges, inf, n = relabel[edges], relabel[inf], int(nodes.shape[0])
    np.savez(path, edges=edges, n=n, infected=inf, T=T, p=p)
    ip, ix = snap.subgraph()
    return {"snap": snap, "ip": ip, "ix": ix, "extra": snap.contact_degrees() - np.diff(ip),
            "local": inf, "n_graph": n, "edges": int(edges.shape[0])}


def ours(inst: dict, T: int, p: float, delta: float, tol: float):
    from anonspread.engine import bp as ebp

    c0 = time.process_time()
    r = ebp.bp_run(inst["ip"], inst["ix"], inst["extra"], T, p, delta, damping=0.0, tol=tol,
                   max_iter=1000)
    return time.process_time() - c0, r


@contextlib.contextmanager
def kernel(name: str):
    """Run ``adversaries.bp_posterior`` with the engine's ``kernel=name`` (``"log"`` is the
    log-domain kernel, unchanged: the code before the linear-domain one)."""
    from anonspread.engine import bp as ebp

    saved = ebp.bp_run, ebp.clamped_log_likelihood
    ebp.bp_run = functools.partial(saved[0], kernel=name)
    ebp.clamped_log_likelihood = functools.partial(saved[1], kernel=name)
    try:
        yield
    finally:
        ebp.bp_run, ebp.clamped_log_likelihood = saved


def timed_posterior(snap, proto, name: str, **kw):
    import warnings

    from anonspread import adversaries

    with kernel(name), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c0 = time.process_time()
        r = adversaries.bp_posterior(snap, proto, **kw)
        return time.process_time() - c0, r


def scaling(snapshots: int, seed: int) -> None:
    from collections import Counter

    import networkx as nx

    from anonspread import adversaries, spread

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_three_block import three_block

    proto = spread.RandomDiffusion(0.5)
    warm = True
    for target in (100, 1000, 10000):
        g = nx.random_regular_graph(3, 4 * target, seed=seed)
        for T in range(1, 200):
            snap = adversaries.observe(spread.simulate(g, proto, T, rng=seed))
            if snap.n >= target:
                break
        if warm:
            for name in ("auto", "log"):
                timed_posterior(snap, proto, name, method="prior")
            warm = False
        nnz = int(snap.subgraph()[1].shape[0])
        row = {"method": "prior", "infected": snap.n, "directed_edges": nnz, "T": T}
        for name in ("auto", "log"):
            sec, r = timed_posterior(snap, proto, name, method="prior")
            row[f"{name}_cpu_s"] = round(sec, 4)
            row[f"{name}_ns_per_entry_sweep"] = round(
                1e9 * sec / (r.iterations * nnz * 2 * (T + 1)), 1)
            row[f"{name}_sweeps"] = r.iterations
            row[f"{name}_converged"] = r.converged
            row[f"{name}_posterior"] = r.posterior
        row["max_posterior_diff"] = float(np.abs(row.pop("auto_posterior")
                                                 - row.pop("log_posterior")).max())
        print(json.dumps(row), flush=True)
    g = three_block()
    rng = np.random.default_rng(seed)
    for T in (2, 4, 6, 8):
        secs = {"auto": [], "log": []}
        methods, sizes, diff = Counter(), [], 0.0
        for _ in range(snapshots):
            snap = adversaries.observe(spread.simulate(g, proto, T, rng=rng))
            post = {}
            for name in ("auto", "log"):
                sec, r = timed_posterior(snap, proto, name)
                secs[name].append(sec)
                post[name] = r.posterior
            methods[r.method] += 1
            sizes.append(snap.n)
            diff = max(diff, float(np.abs(post["auto"] - post["log"]).max()))
        print(json.dumps({"graph": f"make_three_block ({g.number_of_nodes()} nodes)", "T": T,
                          "method": "auto", "snapshots": snapshots,
                          "mean_cpu_s_linear": round(float(np.mean(secs["auto"])), 4),
                          "max_cpu_s_linear": round(float(np.max(secs["auto"])), 4),
                          "mean_cpu_s_log": round(float(np.mean(secs["log"])), 4),
                          "max_cpu_s_log": round(float(np.max(secs["log"])), 4),
                          "methods": dict(methods),
                          "mean_infected": round(float(np.mean(sizes)), 1),
                          "max_posterior_diff": diff}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer-python", default="/work/venvs/bpepi-peer/bin/python")
    ap.add_argument("--peer-src", default="/work/venvs/bpepi-peer/src")
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--T", type=int, default=12)
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--delta", type=float, default=1e-3)
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--snapshots", type=int, default=20)
    ap.add_argument("--peer-worker", nargs=4, metavar=("INST", "DELTA", "TOL", "OUT"),
                    help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.peer_worker:
        inst, delta, tol, out = a.peer_worker
        peer_worker(inst, float(delta), float(tol), out, a.peer_src)
        return
    if a.scaling:
        print(f"# load average {os.getloadavg()}, {os.cpu_count()} cores, "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        scaling(a.snapshots, a.seed)
        return
    print(f"# load average {os.getloadavg()}, {os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    warmed = False
    with tempfile.TemporaryDirectory() as tmp:
        for N in [int(x) for x in a.sizes.split(",")]:
            for boundary in (False, True):
                path = os.path.join(tmp, f"inst{N}{boundary}.npz")
                inst = instance(N, a.T, a.p, a.seed, boundary, path)
                out = os.path.join(tmp, "out.npz")

                def peer(path: str = path, out: str = out) -> tuple[float, dict]:
                    subprocess.run([a.peer_python, __file__, "--peer-src", a.peer_src,
                                    "--peer-worker", path, str(a.delta), str(a.tol), out],
                                   check=True)
                    r = np.load(out)
                    return float(r["sec"]), {k: r[k] for k in ("marg", "it", "err")}

                if not warmed:
                    peer()  # warm-up (file caches; neither side compiles at run time)
                    ours(inst, a.T, a.p, a.delta, a.tol)
                    warmed = True
                tp, to = [], []
                for _ in range(a.rounds):
                    s, pr = peer()
                    tp.append(s)
                    s, orr = ours(inst, a.T, a.p, a.delta, a.tol)
                    to.append(s)
                theirs = pr["marg"][inst["local"]][:, : a.T + 1]
                diff = float(np.abs(orr.marginals - theirs).max())
                row = {
                    "N": N, "bpepi_graph": "infected+boundary" if boundary else "whole graph",
                    "bpepi_nodes": inst["n_graph"], "bpepi_edges": inst["edges"],
                    "infected": int(inst["snap"].n), "T": a.T,
                    "bpepi_s": round(float(np.median(tp)), 4), "ours_s": round(float(np.median(to)), 5),
                    "ratio": round(float(np.median(tp) / np.median(to)), 1),
                    "max_marginal_diff": diff, "bpepi_iters": int(pr["it"]),
                    "ours_sweeps": orr.sweeps, "ours_converged": orr.converged,
                    "ours_kernel": orr.kernel,
                    "bpepi_all_s": [round(x, 4) for x in tp], "ours_all_s": [round(x, 5) for x in to],
                }
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
