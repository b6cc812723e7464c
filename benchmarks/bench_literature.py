"""Benchmark: the source-inference literature's estimators against cosasi (not a test).

Run::

    python benchmarks/bench_literature.py                          # anonspread only
    python benchmarks/bench_literature.py --peers /work/venvs/peer/bin/python

``--peers`` names the python of a separate venv holding cosasi 0.0.4 (``pip install
cosasi six``; never a dependency of anonspread). The same observations are written to a
JSON file and scored by both; the peer runs in its own interpreter.

Workloads (sizes chosen so that cosasi finishes: its LISN runs one networkx BFS per
(candidate, node) pair):

S. snapshots of random diffusion (p = 0.4, T = 3) on a Barabasi-Albert graph (n = 300,
   m = 2): NETSLEUTH and LISN (exponential delays, rate 0.4, t = T, the model cosasi
   implements). Agreement: LISN scores equal to 1e-9; NETSLEUTH arg-max compared with
   cosasi's and with the paper's smallest eigenvector computed by numpy from cosasi's
   own Laplacian slice (which must agree with ours).
E. message-level random diffusion (p = 0.5, T = 8) on a random tree (n = 150) and on a
   BA graph (n = 150, m = 2; 3 observations by default: cosasi takes about a minute on
   each), 20% spies: earliest-infection-first, cosasi's candidates (the
   infected nodes) and its observers (the spies that received). Agreement: arg-min of the
   cost over the infected nodes, and how often the two costs agree.
P. Pinto et al. (no peer implements it): our kernel against the brute-force Gaussian
   density (numpy edge-incidence matrices + scipy) on the same tree observations.

Speed: CPU time (``time.process_time``) per observation, after a warm-up; our cold first
call (imports, first allocations) is reported separately. Ours and the peer are
timed in alternation (ours, peer, ours) and the ratio uses the mean of our two passes.
Also: the compiled Monte Carlo path (``simulate_and_score`` with NETSLEUTH and LISN).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.sensors import earliest_infection_first, pinto
from anonspread.adversaries.spies import draw_spies, observe_spies
from anonspread.spread.events import simulate_messages


def _graph(G: nx.Graph) -> nx.Graph:
    H = nx.Graph()
    H.add_nodes_from(range(G.number_of_nodes()))  # cosasi indexes its Laplacian by label
    H.add_edges_from(G.edges())
    return H


def snapshot_data(k: int) -> dict:
    G = _graph(nx.barabasi_albert_graph(300, 2, seed=7))
    rng = np.random.default_rng(11)
    snaps = [spread.simulate(G, spread.RandomDiffusion(0.4), 3, rng=rng) for _ in range(k)]
    return {"G": G, "snaps": snaps, "T": 3, "rate": 0.4}


def spy_data(k: int, kind: str) -> dict:
    rng = np.random.default_rng(12 if kind == "tree" else 13)
    G = _graph(nx.random_labeled_tree(150, seed=5) if kind == "tree" else nx.barabasi_albert_graph(150, 2, seed=5))
    out = []
    while len(out) < k:
        run = simulate_messages(G, spread.RandomDiffusion(0.5), 8, rng=rng)
        obs = observe_spies(run, draw_spies(G, 0.2, rng=rng))
        if np.isfinite(obs.time).sum() >= 2:
            out.append((run, obs))
    return {"G": G, "runs": out}


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


# ----------------------------------------------------------------- ours


def ours_snapshots(d: dict) -> dict:
    snaps = [A.observe(s) for s in d["snaps"]]
    res = {"netsleuth": [], "lisn": []}
    for s in snaps:
        ns = A.netsleuth(s)
        res["netsleuth"].append({str(v): float(ns[v]) for v in ns})
        ls = A.lisn(s, d["rate"], delays="exponential")
        res["lisn"].append({str(v): float(ls[v]) for v in ls})
    return res


def time_ours_snapshots(d: dict) -> dict:
    snaps = [A.observe(s) for s in d["snaps"]]
    k = len(snaps)
    return {
        "netsleuth": cpu(lambda: [A.netsleuth(s) for s in snaps]) / k,
        "lisn": cpu(lambda: [A.lisn(s, d["rate"], delays="exponential") for s in snaps]) / k,
    }


def ours_eif(d: dict) -> list:
    out = []
    for run, obs in d["runs"]:
        sc = earliest_infection_first(obs)
        inf = run.spread.infected.tolist()
        out.append({str(v): -float(sc[v]) for v in inf})
    return out


def time_ours_eif(d: dict) -> float:
    return cpu(lambda: [earliest_infection_first(obs) for _, obs in d["runs"]]) / len(d["runs"])


def pinto_check(d: dict) -> dict:
    from scipy.stats import multivariate_normal

    G = d["G"]
    worst = 0.0
    t_ref = t_ours = 0.0
    for _, obs in d["runs"]:
        fin = np.isfinite(obs.time)
        order = np.argsort(obs.time[fin], kind="stable")
        nodes = obs.spy_index[fin][order].tolist()
        times = obs.time[fin][order]
        t0 = time.process_time()
        sc = pinto(obs, 2.0, 2.0)
        t_ours += time.process_time() - t0
        t0 = time.process_time()
        for s in G:
            if not np.isfinite(sc[s]):
                continue
            paths = [nx.shortest_path(G, s, o) for o in nodes]
            sets = [{frozenset(e) for e in zip(p, p[1:])} for p in paths]
            edges = sorted(set().union(*sets), key=sorted)
            M = np.array([[1.0 if e in st else 0.0 for e in edges] for st in sets]).reshape(len(nodes), -1)
            D = M[1:] - M[0]
            ref = multivariate_normal(2.0 * D.sum(1), 2.0 * D @ D.T).logpdf(times[1:] - times[0])
            worst = max(worst, abs(ref - sc[s]) / max(1.0, abs(ref)))
        t_ref += time.process_time() - t0
    k = len(d["runs"])
    return {"max relative difference": worst, "ours s/observation": t_ours / k,
            "brute force s/observation": t_ref / k, "speed-up": t_ref / t_ours}


def batch_rate(trials: int) -> dict:
    G = nx.barabasi_albert_graph(2000, 3, seed=1)
    out = {}
    for names in (("jordan",), ("netsleuth",), ("lisn",)):
        A.simulate_and_score(G, spread.RandomDiffusion(0.3), 3, 5, estimators=names, rng=0)  # warm
        t = cpu(lambda names=names: A.simulate_and_score(G, spread.RandomDiffusion(0.3), 3, trials,
                                                          estimators=names, rng=1))
        out[f"simulate_and_score({names[0]}) trials/s"] = trials / t
    g = spread.graphs.regular_tree(3)
    for names in (("netsleuth",), ("lisn",)):
        A.simulate_and_score(g, spread.AdaptiveDiffusion(), 12, 5, estimators=names, rng=0)
        t = cpu(lambda names=names: A.simulate_and_score(g, spread.AdaptiveDiffusion(), 12, trials,
                                                          estimators=names, rng=1))
        out[f"AD on regular_tree(3), T=12 (N=190): {names[0]} trials/s"] = trials / t
    return out


# ----------------------------------------------------------------- the peer

PEER_SCRIPT = r"""
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import networkx as nx
import numpy as np
from cosasi.source_inference.single_source import netsleuth, lisn, earliest_infection_first
data = json.load(open(sys.argv[1]))
out = {}
def graph(edges, n):
    G = nx.Graph(); G.add_nodes_from(range(n)); G.add_edges_from(edges); return G
S = data["S"]; G = graph(S["edges"], S["n"])
ns, ls, small = [], [], []
t_ns = t_ls = 0.0
L = nx.laplacian_matrix(G).toarray()
for inf in S["snapshots"]:
    I = G.subgraph(inf)
    t0 = time.process_time(); r = netsleuth(I, G); t_ns += time.process_time() - t0
    ns.append(max(inf, key=lambda v: r.data["scores"][v].real if hasattr(r.data["scores"][v], "real") else r.data["scores"][v]))
    # the paper's estimator from cosasi's own Laplacian slice: smallest eigenvalue
    idx = list(I.nodes)
    w, V = np.linalg.eigh(L[np.ix_(idx, idx)].astype(float))
    small.append(idx[int(np.argmax(np.abs(V[:, 0])))])
    t0 = time.process_time(); r = lisn(I, G, t=S["T"], infection_rate=S["rate"]); t_ls += time.process_time() - t0
    ls.append({str(v): float(r.data["scores"][v]) for v in inf})
k = len(S["snapshots"])
out["netsleuth argmax"] = ns; out["smallest eigvec argmax"] = small; out["lisn"] = ls
out["netsleuth s/snapshot"] = t_ns / k; out["lisn s/snapshot"] = t_ls / k
for kind in ("tree", "ba"):
    E = data["E_" + kind]; G = graph(E["edges"], E["n"])
    costs = []; t = 0.0
    for inf, obsd in zip(E["infected"], E["observers"]):
        I = G.subgraph(inf)
        od = {int(k): v for k, v in obsd.items()}
        t0 = time.process_time(); r = earliest_infection_first(I, G, od); t += time.process_time() - t0
        costs.append({str(v): float(r.data["scores"][v]) for v in inf})
    out["eif " + kind] = costs; out["eif s/observation " + kind] = t / len(costs)
print(json.dumps(out))
"""


def run_peer(python: str, path: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix="_lit_peer.py", delete=False) as fh:
        fh.write(PEER_SCRIPT)
        script = fh.name
    try:
        done = subprocess.run([python, script, path], capture_output=True, text=True, timeout=7200,
                              check=False)
    finally:
        os.unlink(script)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-3:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(S: dict, E: dict, mine_s: dict, mine_e: dict, peer: dict) -> dict:
    rep = {}
    # LISN: same scores
    diffs = [max(abs(a[v] - b[v]) / max(1.0, abs(b[v])) for v in b if np.isfinite(b[v]))
             for a, b in zip(mine_s["lisn"], peer["lisn"])]
    same_inf = all((np.isfinite(a[v]) == np.isfinite(b[v])) for a, b in zip(mine_s["lisn"], peer["lisn"])
                   for v in b)
    rep["lisn max relative difference"] = max(diffs)
    rep["lisn same -inf pattern"] = same_inf
    rep["lisn same arg-max"] = float(np.mean([max(a, key=a.get) == max(b, key=b.get)
                                              for a, b in zip(mine_s["lisn"], peer["lisn"])]))

    ours_arg = [int(max(a, key=a.get)) for a in mine_s["netsleuth"]]

    def tied(a, v):  # v is among our maximisers (relative 1e-9)
        top = max(a.values())
        return a[str(v)] >= top - 1e-9 * max(1.0, abs(top))

    rep["netsleuth: cosasi's pick among our maximisers"] = float(
        np.mean([tied(a, v) for a, v in zip(mine_s["netsleuth"], peer["netsleuth argmax"])]))
    rep["netsleuth: smallest eigenvector of cosasi's L_I picks among our maximisers"] = float(
        np.mean([tied(a, v) for a, v in zip(mine_s["netsleuth"], peer["smallest eigvec argmax"])]))
    src = [int(s.source) for s in S["snaps"]]
    rep["netsleuth detection: ours"] = float(np.mean(np.equal(ours_arg, src)))
    rep["netsleuth detection: cosasi"] = float(np.mean(np.equal(peer["netsleuth argmax"], src)))
    for kind in ("tree", "ba"):
        mine, theirs = mine_e[kind], peer["eif " + kind]
        same_arg = np.mean([tied({k: -x for k, x in a.items()}, min(b, key=b.get))
                            for a, b in zip(mine, theirs)])
        close = np.mean([np.isclose(a[v], b[v]) for a, b in zip(mine, theirs) for v in b])
        src = [int(r.spread.source) for r, _ in E[kind]["runs"]]
        det_m = np.mean([int(min(a, key=a.get)) == s for a, s in zip(mine, src)])
        det_t = np.mean([int(min(b, key=b.get)) == s for b, s in zip(theirs, src)])
        rep[f"eif {kind}: cosasi's arg-min among our minimisers"] = float(same_arg)
        rep[f"eif {kind}: costs equal (fraction of nodes)"] = float(close)
        rep[f"eif {kind}: detection (arg-min = source) ours / cosasi"] = [float(det_m), float(det_t)]
    return rep


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshots", type=int, default=20)
    ap.add_argument("--observations", type=int, default=20)
    ap.add_argument("--observations-ba", type=int, default=3,
                    help="cosasi's EIF takes about a minute per BA observation")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--peers", default=None, help="python of a venv with cosasi")
    args = ap.parse_args(argv)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cores {os.cpu_count()}, "
          f"load {os.getloadavg()[0]:.2f}")
    S = snapshot_data(args.snapshots)
    E = {"tree": spy_data(args.observations, "tree"), "ba": spy_data(args.observations_ba, "ba")}
    cold = {}
    s0 = A.observe(S["snaps"][0])
    cold["netsleuth cold first call s"] = cpu(lambda: A.netsleuth(s0))
    cold["lisn cold first call s"] = cpu(lambda: A.lisn(s0, S["rate"], delays="exponential"))
    obs0 = E["tree"]["runs"][0][1]
    cold["eif cold first call s"] = cpu(lambda: earliest_infection_first(obs0))
    cold["pinto cold first call s"] = cpu(lambda: pinto(obs0, 2.0, 2.0))
    print(json.dumps({"cold": cold}, indent=1))
    mine_s = ours_snapshots(S)
    mine_e = {kind: ours_eif(E[kind]) for kind in E}
    n_inf = [s.n_infected for s in S["snaps"]]
    print(json.dumps({"snapshots": len(n_inf), "mean infected": float(np.mean(n_inf))}))
    t1 = {"S": time_ours_snapshots(S), **{k: time_ours_eif(E[k]) for k in E}}
    print(json.dumps({"pinto vs brute force (tree)": pinto_check(E["tree"])}, indent=1))
    print(json.dumps({"compiled Monte Carlo path (BA n=2000, m=3, p=0.3, T=3)": batch_rate(args.trials)},
                     indent=1))
    if not args.peers:
        print(json.dumps({"ours s/observation": t1}, indent=1))
        return
    path = os.path.join(tempfile.mkdtemp(prefix="lit_bench_"), "observations.json")
    G = S["G"]
    payload = {"S": {"n": G.number_of_nodes(), "edges": [list(map(int, e)) for e in G.edges()],
                     "snapshots": [[int(v) for v in s.infected.tolist()] for s in S["snaps"]],
                     "T": S["T"], "rate": S["rate"]}}
    for kind in E:
        G = E[kind]["G"]
        payload["E_" + kind] = {
            "n": G.number_of_nodes(), "edges": [list(map(int, e)) for e in G.edges()],
            "infected": [[int(v) for v in r.spread.infected.tolist()] for r, _ in E[kind]["runs"]],
            "observers": [{str(int(s)): float(t) for s, t in zip(o.spies.tolist(), o.time.tolist())
                           if np.isfinite(t)} for _, o in E[kind]["runs"]],
        }
    with open(path, "w") as fh:
        json.dump(payload, fh)
    peer = run_peer(args.peers, path)
    if "error" in peer:
        print(json.dumps({"peer error": peer["error"]}))
        return
    t2 = {"S": time_ours_snapshots(S), **{k: time_ours_eif(E[k]) for k in E}}
    ours = {
        "netsleuth": (t1["S"]["netsleuth"] + t2["S"]["netsleuth"]) / 2,
        "lisn": (t1["S"]["lisn"] + t2["S"]["lisn"]) / 2,
        "eif tree": (t1["tree"] + t2["tree"]) / 2,
        "eif ba": (t1["ba"] + t2["ba"]) / 2,
    }
    theirs = {"netsleuth": peer["netsleuth s/snapshot"], "lisn": peer["lisn s/snapshot"],
              "eif tree": peer["eif s/observation tree"], "eif ba": peer["eif s/observation ba"]}
    speed = {k: {"ours s": ours[k], "cosasi s": theirs[k], "ratio": theirs[k] / ours[k]} for k in ours}
    print(json.dumps({"CPU seconds per observation (ours: mean of the passes before and after the peer)":
                      speed}, indent=1))
    print(json.dumps({"agreement": compare(S, E, mine_s, mine_e, peer)}, indent=1, default=str))


if __name__ == "__main__":
    main()
