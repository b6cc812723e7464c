"""Engine A/B: the same workloads in two installs of anonspread, interleaved in one run.

Starts one worker process per Python interpreter (``--baseline`` and ``--candidate``, each
an environment with its own anonspread installed, e.g. the last numba commit and this
one), warms both up on every case, then runs the cases round by round, baseline then
candidate for each case, and prints the median CPU time per case and the ratio
(baseline / candidate: above 1 means the candidate is faster). CPU time is
``time.process_time`` inside the worker, so the machine's other load affects both sides
alike. The cases are those of ``bench_dandelion.py`` (compiled column),
``bench_transactions.py`` and ``bench_privacy.py`` (column generation), the
triangle count of the harness's graph statistics, and the sensor estimators of
``bench_literature.py`` (earliest-infection-first, Pinto et al.); ``spread``: the workloads of
``bench_spread.py`` (adaptive diffusion on random and regular trees through
``simulate_many`` and ``simulate_and_score`` with ML, on ego-Facebook; ``simulate()`` on a
10^6-node graph) plus random diffusion, flooding, Protocol 1, the printed Protocol 2 and
the relay path of adaptive diffusion on finite graphs, and single ``simulate()`` traces.

    python benchmarks/bench_engine_ab.py --baseline /path/venv-old/bin/python \\
        --candidate /path/venv-new/bin/python [--rounds 5] [--only dandelion ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

FAMILIES = ("dandelion", "transactions", "privacy", "graphs", "sensors", "spread")
_MARK = "@@bench "


def _cases() -> dict:
    """name -> (family, zero-argument callable returning CPU seconds of one round)."""
    import networkx as nx
    import numpy as np

    from anonspread import spread
    from anonspread.spread.dandelion import Dandelion, DandelionPlusPlus
    from anonspread.spread.events import ContinuousDiffusion

    cases = {}
    g = spread.graphs.from_networkx(nx.random_regular_graph(8, 1000, seed=0))
    spies = np.arange(0, 1000, 10)
    counter = {"r": 0}
    for p in (ContinuousDiffusion(1.0), Dandelion(0.1), DandelionPlusPlus(0.1),
              DandelionPlusPlus(0.1, peers="all")):
        def stems(p=p):
            counter["r"] += 1
            t = time.process_time()
            spread.simulate_stems(g, p, 2000, spies=spies, rng=counter["r"])
            return time.process_time() - t
        cases[f"simulate_stems {p!r}, 2000 trials"] = ("dandelion", stems)

    from anonspread.adversaries import transactions as tx
    from anonspread.harness.experiments.dandelion import _undirected

    for label, d, routing, transport, est in (
            ("first-spy, 4-regular per-tx", 2, "per-tx", "dandelion", "first-spy"),
            ("first-spy, 4-regular one-to-one", 2, "one-to-one", "dandelion", "first-spy"),
            ("first-spy, diffusion on 4-regular", 2, "per-tx", "diffusion", "first-spy"),
            ("max-precision, 4-regular per-tx", 2, "per-tx", "dandelion", "max-precision")):
        def trans(d=d, routing=routing, transport=transport, est=est):
            rng = np.random.default_rng(counter["r"])
            counter["r"] += 1
            t = time.process_time()
            for _ in range(500):
                a = tx.anonymity_graph(100, d, rng=rng)
                spy = tx.draw_spy_mask(100, 0.1, rng=rng)
                if transport == "diffusion":
                    a = _undirected(100, *a)
                obs = tx.observe_transactions(a, spy, transport, routing=routing, rng=rng)
                tx.precision_recall(obs, tx.estimate(est, obs, rng=rng))
            return time.process_time() - t
        cases[f"transactions {label}, n = 100, 500 trials"] = ("transactions", trans)

    from anonspread.privacy.staircase import solve_staircase_lp
    from anonspread.privacy.utility import KL, MutualInformation

    for name in ("kl", "mi"):
        for k in (20, 22):
            r = np.random.default_rng([0, k])
            P0, P1 = r.dirichlet(np.ones(k)), r.dirichlet(np.ones(k))
            U = KL(P0, P1) if name == "kl" else MutualInformation(P0)

            def lp(U=U):
                t = time.process_time()
                solve_staircase_lp(U, 1.0, method="column_generation")
                return time.process_time() - t
            cases[f"staircase LP {name}, k = {k}, column generation"] = ("privacy", lp)

    from anonspread.engine.graphs import triangles

    h = spread.graphs.from_networkx(nx.barabasi_albert_graph(100_000, 5, seed=0))
    nodes = np.arange(h.number_of_nodes(), dtype=np.int64)

    def tri():
        t = time.process_time()
        triangles(h.indptr, h.indices, nodes)
        return time.process_time() - t
    cases["triangles, Barabasi-Albert n = 10^5, m = 5"] = ("graphs", tri)

    from anonspread.adversaries import observe_spies
    from anonspread.adversaries.sensors import earliest_infection_first, pinto
    from anonspread.adversaries.spies import draw_spies
    from anonspread.spread.events import simulate_messages

    for gname, G, T, n_obs in (
            ("random tree n = 150", nx.random_labeled_tree(150, seed=0), 8, 50),
            ("Barabasi-Albert n = 150, m = 2", nx.barabasi_albert_graph(150, 2, seed=0), 8, 50),
            ("Watts-Strogatz n = 1,000, k = 4", nx.connected_watts_strogatz_graph(1000, 4, 0.1, seed=0),
             12, 5)):
        obs = []
        for i in range(n_obs):
            run = simulate_messages(G, spread.RandomDiffusion(0.5), T, rng=i)
            obs.append(observe_spies(run, draw_spies(G, 0.2, rng=100 + i)))

        def eif(obs=obs):
            t = time.process_time()
            for o in obs:
                earliest_infection_first(o, 2.0)
            return time.process_time() - t

        def pin(obs=obs):
            t = time.process_time()
            for o in obs:
                pinto(o, 2.0, 2.0)
            return time.process_time() - t
        cases[f"earliest-infection-first, {gname}, {n_obs} observations"] = ("sensors", eif)
        cases[f"Pinto et al., {gname}, {n_obs} observations"] = ("sensors", pin)
    cases.update(_spread_cases(counter))
    return cases


def _spread_cases(counter: dict) -> dict:
    """The spreading kernels: the workloads of bench_spread.py and one per protocol."""
    import math

    import networkx as nx
    import numpy as np

    from anonspread import datasets, spread
    from anonspread.adversaries import simulate_and_score
    from anonspread.spread.graphs import ContactGraph, _csr_from_pairs
    from anonspread.spread.protocols import (
        AdaptiveDiffusion,
        Flooding,
        LineProtocol,
        RandomDiffusion,
        TreeProtocolPseudocode,
    )

    def timed(fn):
        def run():
            counter["r"] += 1
            t = time.process_time()
            fn(counter["r"])
            return time.process_time() - t
        return run

    cases = {}
    ad3 = AdaptiveDiffusion(3)
    rand34 = spread.graphs.random_tree({3: 0.5, 4: 0.5})
    reg3 = spread.graphs.regular_tree(3)
    for gname, g, T, trials in (("random_tree({3: .5, 4: .5})", rand34, 10, 20000),
                                ("random_tree({3: .5, 4: .5})", rand34, 16, 2000),
                                ("regular_tree(3)", reg3, 10, 100000),
                                ("regular_tree(3)", reg3, 16, 100000)):
        cases[f"simulate_many AD(3), {gname}, T = {T}, {trials} trials"] = (
            "spread", timed(lambda r, g=g, T=T, n=trials: spread.simulate_many(g, ad3, T, n, rng=r)))
    cases["simulate_and_score ML, AD(3), random_tree({3: .5, 4: .5}), T = 16, 1000 trials"] = (
        "spread", timed(lambda r: simulate_and_score(rand34, ad3, 16, 1000, estimators=("ml",),
                                                     rng=r)))
    cases["simulate_and_score ML, AD(3), regular_tree(3) (ball created), T = 16, 2000 trials"] = (
        "spread", timed(lambda r: simulate_and_score(reg3, ad3, 16, 2000, estimators=("ml",),
                                                     rng=r, regular_symmetry=False)))
    fb = datasets.load_graph("ego-facebook", min_degree=3)
    fb = fb if isinstance(fb, ContactGraph) else spread.graphs.from_networkx(fb)
    adfb = AdaptiveDiffusion(math.inf, 3)
    cases["simulate_many AD(inf, cap 3), ego-Facebook (degree >= 3), T = 8, 4000 trials"] = (
        "spread", timed(lambda r: spread.simulate_many(fb, adfb, 8, 4000, rng=r)))
    rs = np.random.default_rng(0)
    n = 10**6
    stubs = rs.permutation(np.repeat(np.arange(n), 4))
    indptr, indices, dropped = _csr_from_pairs(n, stubs[0::2], stubs[1::2])
    big = ContactGraph(range(n), indptr, indices, dropped=dropped)

    def big_runs(r):
        for i in range(1000):
            spread.simulate(big, adfb, 2, rng=r * 10000 + i)
    cases["simulate() AD(inf, cap 3), T = 2, random 4-regular n = 10^6, 1000 calls"] = (
        "spread", timed(big_runs))
    rr = spread.graphs.from_networkx(nx.random_regular_graph(4, 10**4, seed=0))
    grid = spread.graphs.from_networkx(nx.grid_2d_graph(100, 100))
    for label, g, proto, T, trials in (
            ("RandomDiffusion(0.5), random 4-regular n = 10^4", rr, RandomDiffusion(0.5), 8, 2000),
            ("LineProtocol(), random 4-regular n = 10^4", rr, LineProtocol(), 8, 2000),
            ("TreeProtocolPseudocode(), random 4-regular n = 10^4", rr, TreeProtocolPseudocode(),
             12, 10000),
            ("AD(4, cap 2) relay, random 4-regular n = 10^4", rr, AdaptiveDiffusion(4, 2), 12, 5000),
            ("Flooding(), grid 100 x 100", grid, Flooding(), 30, 4000)):
        cases[f"simulate_many {label}, T = {T}, {trials} trials"] = (
            "spread", timed(lambda r, g=g, p=proto, T=T, k=trials: spread.simulate_many(
                g, p, T, k, rng=r)))

    def traces(r):
        for i in range(500):
            spread.simulate(reg3, ad3, 12, rng=r * 1000 + i)
            spread.simulate(rr, RandomDiffusion(0.5), 6, rng=r * 1000 + i)
    cases["simulate() traces: AD(3) regular_tree(3) T = 12 + RandomDiffusion(0.5) n = 10^4 "
          "T = 6, 500 calls each"] = ("spread", timed(traces))
    cases["simulate_and_score Jordan + rumour, RandomDiffusion(0.5), random 4-regular "
          "n = 10^4, T = 6, 1000 trials"] = (
        "spread", timed(lambda r: simulate_and_score(rr, RandomDiffusion(0.5), 6, 1000,
                                                     estimators=("jordan", "rumor"), rng=r)))
    return cases


def worker(families: list[str]) -> None:
    cases = {k: f for k, (fam, f) in _cases().items() if fam in families}
    print(_MARK + json.dumps(list(cases)), flush=True)
    for line in sys.stdin:
        name = json.loads(line)
        print(_MARK + json.dumps(cases[name]()), flush=True)


class _Side:
    def __init__(self, python: str, families: list[str]):
        self.p = subprocess.Popen([python, __file__, "--worker", *families], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.names = self._read()

    def _read(self):
        while True:  # skip what the library prints (e.g. a solver's log)
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"worker {self.p.args[0]} exited")
            if line.startswith(_MARK):
                return json.loads(line[len(_MARK):])

    def run(self, name: str) -> float:
        self.p.stdin.write(json.dumps(name) + "\n")
        self.p.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="Python of the baseline environment")
    ap.add_argument("--candidate", default=sys.executable, help="Python of the candidate")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", action="append", choices=FAMILIES)
    ap.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return
    if not args.baseline:
        ap.error("--baseline is required")
    fams = args.only or list(FAMILIES)
    old, new = _Side(args.baseline, fams), _Side(args.candidate, fams)
    assert old.names == new.names, (old.names, new.names)
    for name in old.names:  # warm-up: first calls, imports, JIT compile or cache load
        old.run(name)
        new.run(name)
    times = {name: ([], []) for name in old.names}
    for _ in range(args.rounds):
        for name in old.names:
            times[name][0].append(old.run(name))
            times[name][1].append(new.run(name))
    old.close()
    new.close()
    print(f"CPU seconds per round, median of {args.rounds} interleaved rounds after a warm-up")
    print("| case | baseline | candidate | ratio |\n|---|---:|---:|---:|")
    for name, (a, b) in times.items():
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {name} | {ma:.4f} | {mb:.4f} | {ma / mb:.2f}x |")


if __name__ == "__main__":
    main()
