"""Benchmark: simulate + estimate + score trials per second (not a test).

Run::

    python benchmarks/bench_adversaries.py                      # anonspread only
    python benchmarks/bench_adversaries.py --peers /tmp/adv_peers/bin/python

Two workloads from issue 3:

A. adaptive diffusion on ``random_tree({3: .5, 4: .5})`` at T = 16 (d0 = 3.5), exact ML
   estimate and scoring, per trial a fresh tree realisation;
B. random diffusion (p = 0.5, T = 4: about 1,000 of 10,000 nodes infected) on a
   Barabasi-Albert graph (m = 3), Jordan centre and rumour centrality.

For each: the simulation alone (``spread.simulate_many``), the compiled path
(``adversaries.simulate_and_score``), the per-snapshot Python API (simulate + observe +
estimator + metrics), and networkx-based reference estimators on the same snapshots.
With ``--peers PYTHON`` (a venv holding cosasi, ndlib and EoN) the same snapshots are
scored by cosasi's Jordan and rumour centrality and the diffusion is simulated by
NDlib's SI model, in that interpreter. Compilation is excluded (a warm-up run first).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread


def rate(fn, trials: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    return trials / dt, dt


def nx_rumor(G: nx.Graph, v) -> float:
    """Reference: log rumour centrality of v on the BFS tree of G rooted at v (plain networkx)."""
    T = nx.bfs_tree(G, v)
    size = {}
    for x in reversed(list(nx.topological_sort(T))):
        size[x] = 1 + sum(size[c] for c in T.successors(x))
    return math.lgamma(G.number_of_nodes() + 1) - sum(math.log(s) for s in size.values())


def workload_a(trials: int) -> dict:
    g = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=1)
    proto = spread.AdaptiveDiffusion(3.5)
    T = 16
    A.simulate_and_score(g, proto, T, 5, estimators=("ml",), rng=0)  # warm-up / compile
    spread.simulate_many(g, proto, T, 5, rng=0)
    out: dict = {"workload": "adaptive diffusion, random_tree({3: .5, 4: .5}), T=16, d0=3.5"}
    r, _ = rate(lambda: spread.simulate_many(g, proto, T, trials, rng=1), trials)
    out["simulate_many"] = r
    res = {}

    def run_ml():
        res["b"] = A.simulate_and_score(g, proto, T, trials, estimators=("ml",), rng=1)

    out["simulate_and_score(ml)"], _ = rate(run_ml, trials)
    b = res["b"]
    out["mean_infected"] = float(b.n_infected.mean())
    out["ml_detection"] = b["ml"].mean("detection_probability")
    out["simulate_and_score(ml, jordan, rumor)"], _ = rate(
        lambda: A.simulate_and_score(g, proto, T, trials, rng=1), trials
    )
    n_py = max(trials // 20, 20)

    def python_path():
        gen = np.random.default_rng(2)
        for _ in range(n_py):
            gi = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=gen)
            sp = spread.simulate(gi, proto, T, rng=gen)
            sc = A.ml_adaptive_diffusion(A.observe(sp), 3.5)
            A.evaluate(gi, sc, sp.source, rng=gen)

    out["python API: simulate+observe+ml+evaluate"], _ = rate(python_path, n_py)
    return out


def workload_b(trials: int, snap_path: str | None) -> dict:
    G = nx.barabasi_albert_graph(10_000, 3, seed=1)
    g = spread.graphs.from_networkx(G)
    proto = spread.RandomDiffusion(0.5)
    T = 4
    est = ("jordan", "rumor")
    A.simulate_and_score(g, proto, T, 3, estimators=est, rng=0)
    spread.simulate_many(g, proto, T, 3, rng=0)
    out: dict = {"workload": "random diffusion p=0.5, T=4, Barabasi-Albert n=10,000 m=3"}
    out["simulate_many"], _ = rate(lambda: spread.simulate_many(g, proto, T, trials, rng=1), trials)
    res = {}

    def run_batch():
        res["b"] = A.simulate_and_score(g, proto, T, trials, estimators=est, rng=1)

    out["simulate_and_score(jordan, rumor)"], _ = rate(run_batch, trials)
    for one in est:
        out[f"simulate_and_score({one})"], _ = rate(
            lambda one=one: A.simulate_and_score(g, proto, T, trials, estimators=(one,), rng=1), trials
        )
    b = res["b"]
    out["mean_infected"] = float(b.n_infected.mean())
    out["jordan_detection"] = b["jordan"].mean("detection_probability")
    out["rumor_detection"] = b["rumor"].mean("detection_probability")
    # per-snapshot: the same kernels through the Python API, and networkx references
    gen = np.random.default_rng(3)
    snaps = []
    while len(snaps) < 5:
        sp = spread.simulate(g, proto, T, rng=gen)
        if 700 <= sp.n_infected <= 1500:
            snaps.append(sp)
    out["snapshot_sizes"] = [s.n_infected for s in snaps]

    def python_path():
        for sp in snaps:
            snap = A.observe(sp)
            A.evaluate(g, A.jordan_center(snap), sp.source, rng=0)
            A.evaluate(g, A.rumor_centrality(snap), sp.source, rng=0)

    out["python API: observe+jordan+rumor+evaluate (per snapshot)"], _ = rate(python_path, len(snaps))

    def nx_jordan():
        for sp in snaps[:2]:
            nx.eccentricity(G.subgraph(sp.infected.tolist()))

    out["networkx eccentricity (Jordan, per snapshot)"], _ = rate(nx_jordan, 2)

    def nx_rumor_all():
        sp = snaps[0]
        H = G.subgraph(sp.infected.tolist())
        for v in H:
            nx_rumor(H, v)

    out["networkx BFS-tree rumour centrality (per snapshot)"], _ = rate(nx_rumor_all, 1)
    if snap_path is not None:
        with open(snap_path, "w") as fh:
            json.dump(
                {
                    "edges": [[int(a), int(b)] for a, b in G.edges()],
                    "snapshots": [[int(x) for x in s.infected.tolist()] for s in snaps],
                    "sources": [int(s.source) for s in snaps],
                },
                fh,
            )
    return out


PEER_SCRIPT = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import networkx as nx
data = json.load(open(sys.argv[1]))
G = nx.Graph(); G.add_edges_from(data["edges"])
out = {}
import cosasi
from cosasi.source_inference.single_source import jordan_centrality, rumor_centrality
snaps = data["snapshots"]
t0 = time.perf_counter()
for S in snaps[:2]:
    jordan_centrality(G.subgraph(S), G)
out["cosasi jordan_centrality (per snapshot)"] = 2 / (time.perf_counter() - t0)
S = snaps[0]
t0 = time.perf_counter()
try:
    rumor_centrality(G.subgraph(S), G)
    out["cosasi rumor_centrality (per snapshot, n=%d)" % len(S)] = 1 / (time.perf_counter() - t0)
except Exception as exc:  # record the failure, then time a smaller connected piece
    out["cosasi rumor_centrality (n=%d)" % len(S)] = "%s: %s" % (type(exc).__name__, exc)
    H = G.subgraph(S)
    small = list(nx.bfs_tree(H, data["sources"][0]))[:150]
    t0 = time.perf_counter()
    rumor_centrality(H.subgraph(small), G)
    out["cosasi rumor_centrality (per snapshot, n=150)"] = 1 / (time.perf_counter() - t0)
import ndlib.models.ModelConfig as mc
import ndlib.models.epidemics as ep
n_runs = 5
t0 = time.perf_counter()
sizes = []
for r in range(n_runs):
    model = ep.SIModel(G, seed=r)
    cfg = mc.Configuration()
    cfg.add_model_parameter("beta", 0.5)
    cfg.add_model_initial_configuration("Infected", [r])
    model.set_initial_status(cfg)
    its = model.iteration_bunch(5, progress_bar=False)  # initial state + 4 steps
    sizes.append(its[-1]["node_count"][1])
out["ndlib SIModel beta=0.5, 4 steps (trials/s)"] = n_runs / (time.perf_counter() - t0)
out["ndlib infected sizes"] = sizes
import EoN
t0 = time.perf_counter()
for r in range(n_runs):
    EoN.basic_discrete_SIR(G, 0.5, initial_infecteds=[r], tmax=4)
out["EoN basic_discrete_SIR p=0.5 tmax=4 (trials/s; SIR, not SI)"] = n_runs / (time.perf_counter() - t0)
print(json.dumps(out))
"""


def peers(python: str, snap_path: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix="_adv_peer.py", delete=False) as fh:
        fh.write(PEER_SCRIPT)
        script = fh.name
    try:
        done = subprocess.run(
            [python, script, snap_path], capture_output=True, text=True, timeout=3600, check=False
        )
    finally:
        os.unlink(script)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials-a", type=int, default=2000)
    ap.add_argument("--trials-b", type=int, default=200)
    ap.add_argument("--peers", default=None, help="python of a venv with cosasi, ndlib, EoN")
    args = ap.parse_args(argv)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cores {os.cpu_count()}, "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    for res in (workload_a(args.trials_a),):
        print(json.dumps(res, indent=1, default=str))
    snap_path = None
    if args.peers:
        snap_path = os.path.join(tempfile.mkdtemp(prefix="adv_bench_"), "snapshots.json")
    print(json.dumps(workload_b(args.trials_b, snap_path), indent=1, default=str))
    if args.peers:
        print(json.dumps({"peers": peers(args.peers, snap_path)}, indent=1, default=str))


if __name__ == "__main__":
    main()
