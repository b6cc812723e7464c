"""Engine A/B: the same workloads in two installs of anonspread, interleaved in one run.

Starts one worker process per Python interpreter (``--baseline`` and ``--candidate``, each
an environment with its own anonspread installed, e.g. the last numba commit and this
one), warms both up on every case, then runs the cases round by round, baseline then
candidate for each case (candidate first in every other round), and prints the median CPU time per case and the ratio
(baseline / candidate: above 1 means the candidate is faster). CPU time is
``time.process_time`` inside the worker, so the machine's other load affects both sides
alike. The cases are those of ``bench_dandelion.py`` (compiled column),
``bench_transactions.py`` and ``bench_privacy.py`` (column generation), the
triangle count of the harness's graph statistics, the sensor estimators of
``bench_literature.py`` (earliest-infection-first, Pinto et al.), the spreading kernels
(``spread``: the workloads of ``bench_spread.py`` plus one per protocol on finite graphs and
single ``simulate()`` traces), the message-level event engine against ``simulate`` and
``simulate_many`` (``events``: the workloads of ``bench_events.py``), rumour centrality
(``rumor``: the certified top+rank of ``bench_cyclic.py``'s graph A snapshots, 10^3 to 10^5
infected (100 / 10 / 1 calls a round), on 1 and 2 threads; the pipeline snapshots of
``bench_rumor_kernel.py``; every score on a tree and on a small graph), NETSLEUTH / LISN
(``literature``: the snapshots of ``bench_literature.py``, LISN on the regular tree,
NETSLEUTH's inverse iteration on a 2,000-node snapshot), the Monte Carlo path of ``bench_adversaries.py`` (``adversaries``:
``simulate_and_score``) and the snapshot estimators of ``bench_cyclic.py`` (``cyclic``:
Jordan and rumour top+rank, all eccentricities). Cases marked "wall" return wall-clock
seconds (threads: CPU time would add both threads' time up).

    python benchmarks/bench_engine_ab.py --baseline /path/venv-old/bin/python \\
        --candidate /path/venv-new/bin/python [--rounds 5] [--only dandelion ...] [--match TEXT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

FAMILIES = ("dandelion", "transactions", "privacy", "graphs", "sensors", "spread", "events",
            "rumor", "literature", "adversaries", "cyclic")
_MARK = "@@bench "


def _rumor_cases() -> dict:
    """Rumour centrality: ``top_and_rank`` on graph A snapshots of ``bench_cyclic.py``
    (random diffusion on a 10^6-node random 4-regular graph), the 200 pipeline snapshots of
    ``bench_rumor_kernel.py`` and every score (``rumor_centrality``) on small snapshots."""
    import networkx as nx
    import numpy as np
    from bench_cyclic import random_regular, rd_snapshot

    from anonspread import adversaries as A
    from anonspread import spread
    from anonspread.engine import rumor_threads as P

    cases = {}
    gA = random_regular(10**6, 4, seed=1)
    # calls per round: one call on the smaller snapshots takes 0.05 / 4 ms, near the timer's
    # and the table's resolution and dominated by cold caches after the previous case
    for k, reps in ((1_000, 100), (10_000, 10), (100_000, 1)):
        snap = rd_snapshot(gA, k, seed=1)
        src = snap.nodes[0]

        def top(snap=snap, src=src, reps=reps):
            t = time.process_time()
            for _ in range(reps):
                A.top_and_rank(snap, "rumor", src)
            return time.process_time() - t
        calls = f", x{reps}" if reps > 1 else ""
        cases[f"rumour top+rank, graph A, {k:,} infected, 1 thread{calls}"] = ("rumor", top)
    ip, ix = snap.subgraph()  # the 10^5 snapshot: a 35,262-node 2-core

    def top2():
        t = time.perf_counter()
        P.rumor_top(ip, ix, 0, 1e-9, np.zeros(snap.n, np.bool_), 2)
        return time.perf_counter() - t
    cases["rumour top+rank, graph A, 100,000 infected, 2 threads (wall)"] = ("rumor", top2)
    snap4 = rd_snapshot(gA, 10_000, seed=1)
    ip4, ix4 = snap4.subgraph()

    def top4(threads):
        t = time.perf_counter()
        P.rumor_top(ip4, ix4, 0, 1e-9, np.zeros(snap4.n, np.bool_), threads, 0)
        return time.perf_counter() - t
    for threads in (1, 2):
        cases[f"rumor_top, graph A, 10,000 infected, {threads} thread(s), min_core 0 (wall)"] = (
            "rumor", lambda threads=threads: top4(threads))
    g = spread.graphs.from_networkx(nx.random_regular_graph(4, 10**4, seed=1))
    rng = np.random.default_rng(2)
    pipe = []
    while len(pipe) < 200:
        sp = spread.simulate(g, spread.RandomDiffusion(0.5), 9, rng=rng)
        snap_p = A.observe(sp)
        if not snap_p.subgraph_is_tree():
            pipe.append(snap_p)

    def pipeline():
        t = time.process_time()
        for s in pipe:
            A.top_and_rank(s, "rumor", s.nodes[0])
        return time.process_time() - t
    cases["rumour top+rank, 200 pipeline snapshots (4-regular n = 10^4, T = 9)"] = ("rumor", pipeline)
    tree = A.observe(spread.simulate(spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 16,
                                     rng=3))
    small = rd_snapshot(gA, 2_000, seed=4)
    # calls per round: on the tree one call takes ~0.1 ms, the table's resolution
    for label, sn, calls in ((f"tree, {tree.n:,} infected, x100", tree, 100),
                             (f"graph A, {small.n:,} infected", small, 1)):
        def every(sn=sn, calls=calls):
            t = time.process_time()
            for _ in range(calls):
                A.rumor_centrality(sn)
            return time.process_time() - t
        cases[f"rumour every score, {label}"] = ("rumor", every)
    return cases


def _literature_cases() -> dict:
    """NETSLEUTH and LISN per snapshot (``bench_literature.py``'s snapshots and more)."""
    import networkx as nx
    import numpy as np

    from anonspread import adversaries as A
    from anonspread import spread

    cases = {}
    G = nx.barabasi_albert_graph(300, 2, seed=7)
    rng = np.random.default_rng(11)
    snaps = [A.observe(spread.simulate(G, spread.RandomDiffusion(0.4), 3, rng=rng))
             for _ in range(20)]
    rep = 50

    def ns():
        t = time.process_time()
        for _ in range(rep):
            for s in snaps:
                A.netsleuth(s)
        return time.process_time() - t

    def ls(delays):
        t = time.process_time()
        for _ in range(rep):
            for s in snaps:
                A.lisn(s, 0.4, delays=delays)
        return time.process_time() - t
    lab = f"BA n = 300, m = 2, 20 snapshots x {rep}"
    cases[f"NETSLEUTH, {lab}"] = ("literature", ns)
    cases[f"LISN geometric, {lab}"] = ("literature", lambda: ls("geometric"))
    cases[f"LISN exponential, {lab}"] = ("literature", lambda: ls("exponential"))
    tree = [A.observe(spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 12,
                                      rng=r)) for r in range(20)]

    def tree_cases(fn):
        t = time.process_time()
        for s in tree:
            fn(s)
        return time.process_time() - t
    cases["NETSLEUTH, adaptive diffusion on the 3-regular tree, T = 12, 20 snapshots"] = (
        "literature", lambda: tree_cases(A.netsleuth))
    cases["LISN, adaptive diffusion on the 3-regular tree, T = 12, 20 snapshots"] = (
        "literature", lambda: tree_cases(lambda s: A.lisn(s, 0.5)))
    big = A.observe(spread.simulate(nx.random_regular_graph(4, 10**4, seed=5),
                                    spread.RandomDiffusion(0.5), 10, source=0, rng=6))

    def ns_big():
        t = time.process_time()
        A.netsleuth(big)
        return time.process_time() - t
    cases[f"NETSLEUTH (inverse iteration), 4-regular n = 10^4, {big.n:,} infected"] = (
        "literature", ns_big)

    def ls_big():
        t = time.process_time()
        A.lisn(big, 0.5)
        return time.process_time() - t
    cases[f"LISN geometric, 4-regular n = 10^4, {big.n:,} infected"] = ("literature", ls_big)
    return cases


def _cases(families=FAMILIES) -> dict:
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
    if "spread" in families:
        cases.update(_spread_cases(counter))
    if "events" in families:
        cases.update(_events_cases())
    if "rumor" in families:
        cases.update(_rumor_cases())
    if "literature" in families:
        cases.update(_literature_cases())
    if "adversaries" in families:
        cases.update(_adversaries_cases(counter))
    if "cyclic" in families:
        cases.update(_cyclic_cases())
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



def _events_cases() -> dict:
    """The workloads of ``bench_events.py``: adaptive diffusion as the thesis ran it on
    Facebook (d0 = inf, at most 3 new infections per node and step) on ego-Facebook (degree
    >= 3) at T = 8 from the same 40 sources, by the message-level event engine
    (``simulate_messages``), by ``simulate`` and by ``simulate_many`` (its 4,000-trial run is
    the ``spread`` family's ego-Facebook row)."""
    import math

    import numpy as np

    from anonspread import datasets, spread
    from anonspread.spread.events import simulate_messages
    from anonspread.spread.graphs import ContactGraph

    fb = datasets.load_graph("ego-facebook", min_degree=3)
    fb = fb if isinstance(fb, ContactGraph) else spread.graphs.from_networkx(fb)
    proto = spread.AdaptiveDiffusion(math.inf, 3)
    sources = np.random.default_rng(0).integers(0, fb.number_of_nodes(), 40)
    labels = [fb.labels[int(s)] for s in sources]

    def events():
        t = time.process_time()
        for i, s in enumerate(labels):
            simulate_messages(fb, proto, 8, source=s, rng=i)
        return time.process_time() - t

    def simulate():
        t = time.process_time()
        for i, s in enumerate(labels):
            spread.simulate(fb, proto, 8, source=s, rng=i)
        return time.process_time() - t

    def many():
        t = time.process_time()
        for r in range(25):
            spread.simulate_many(fb, proto, 8, 40, rng=r)
        return time.process_time() - t
    tag = "AD(inf, cap 3), ego-Facebook (degree >= 3), T = 8"
    return {f"simulate_messages (event engine) {tag}, 40 sources": ("events", events),
            f"simulate() {tag}, the same 40 sources": ("events", simulate),
            f"simulate_many {tag}, 40 trials, x25": ("events", many)}


def _adversaries_cases(counter: dict) -> dict:
    """``simulate_and_score`` (bench_adversaries.py workloads A and B, bench_cyclic.py C)."""
    import networkx as nx

    from anonspread import adversaries as A
    from anonspread import spread

    cases = {}
    tree = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=1)
    ad = spread.AdaptiveDiffusion(3.5)
    ba = spread.graphs.from_networkx(nx.barabasi_albert_graph(10_000, 3, seed=1))
    rrg = spread.graphs.from_networkx(nx.random_regular_graph(4, 10_000, seed=1))
    rd = spread.RandomDiffusion(0.5)
    for label, g, proto, T, trials, kw in (
            ("AD random tree {3,4} T = 16, ml (known centre)", tree, ad, 16, 2000,
             dict(estimators=("ml",))),
            ("AD random tree {3,4} T = 16, ml (message passing)", tree, ad, 16, 500,
             dict(estimators=("ml",), known_centre=False)),
            ("AD random tree {3,4} T = 15, ml", tree, ad, 15, 500, dict(estimators=("ml",))),
            ("AD random tree {3,4} T = 16, ml + jordan + rumor", tree, ad, 16, 500, {}),
            ("RD BA 10^4 T = 4, jordan + rumor", ba, rd, 4, 30,
             dict(estimators=("jordan", "rumor"))),
            ("RD BA 10^4 T = 4, jordan", ba, rd, 4, 100, dict(estimators=("jordan",))),
            ("RD 4-regular 10^4 T = 9, jordan", rrg, rd, 9, 400, dict(estimators=("jordan",))),
            ("RD 4-regular 10^4 T = 6, netsleuth + lisn", rrg, rd, 6, 20,
             dict(estimators=("netsleuth", "lisn")))):
        def run(g=g, proto=proto, T=T, trials=trials, kw=kw):
            counter["r"] += 1
            t = time.process_time()
            A.simulate_and_score(g, proto, T, trials, rng=counter["r"] % 3, **kw)
            return time.process_time() - t
        cases[f"simulate_and_score {label}, {trials} trials"] = ("adversaries", run)
    return cases


def _cyclic_cases() -> dict:
    """Snapshot estimators on graphs with cycles (bench_cyclic.py table A, smaller graph)."""
    import numpy as np
    from bench_cyclic import random_regular, rd_snapshot

    from anonspread import adversaries as A
    from anonspread.engine import scoring as K

    try:
        from anonspread.engine.rumor import graph_rumor_top
    except ImportError:  # the numba build: rumour kernels in scoring
        graph_rumor_top = K.graph_rumor_top
    cases = {}
    g = random_regular(300_000, 4, seed=1)
    for k, reps in ((1_000, 200), (10_000, 20), (100_000, 1)):
        snap = rd_snapshot(g, k, seed=2)
        indptr, indices = snap.subgraph()
        top = np.zeros(snap.n, np.bool_)
        tag = f"4-regular 3*10^5, snapshot {snap.n:,}, x{reps}"

        def jordan(indptr=indptr, indices=indices, top=top, reps=reps):
            t = time.process_time()
            for _ in range(reps):
                K.graph_jordan_top(indptr, indices, 0, top)
            return time.process_time() - t
        cases[f"Jordan top+rank, {tag}"] = ("cyclic", jordan)
        if k <= 10_000:
            r5, r10 = max(1, reps // 5), max(1, reps // 10)

            def rumor(indptr=indptr, indices=indices, top=top, reps=r5):
                t = time.process_time()
                for _ in range(reps):
                    graph_rumor_top(indptr, indices, 0, 1e-9, top)
                return time.process_time() - t
            cases[f"rumour top+rank, {tag[:-len(str(reps))]}{r5}"] = ("cyclic", rumor)

            def all_ecc(snap=snap, reps=r10):
                t = time.process_time()
                for _ in range(reps):
                    A.jordan_center(snap)
                return time.process_time() - t
            cases[f"Jordan all scores, {tag[:-len(str(reps))]}{r10}"] = (
                "cyclic", all_ecc)
    return cases


def worker(families: list[str]) -> None:
    cases = {k: f for k, (fam, f) in _cases(families).items() if fam in families}
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
    ap.add_argument("--match", action="append",
                    help="run only the cases whose name contains this text (repeatable)")
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
    if args.match:
        old.names = [n for n in old.names if any(m in n for m in args.match)]
    for name in old.names:  # warm-up: first calls, imports, JIT compile or cache load
        old.run(name)
        new.run(name)
    times = {name: ([], []) for name in old.names}
    for r in range(args.rounds):
        for name in old.names:
            # alternate which side goes first: a side runs right after the other's same case,
            # whose OpenMP threads may still be spinning on the cores (threaded cases)
            if r % 2 == 0:
                times[name][0].append(old.run(name))
                times[name][1].append(new.run(name))
            else:
                times[name][1].append(new.run(name))
                times[name][0].append(old.run(name))
    old.close()
    new.close()
    print(f"CPU seconds per round, median of {args.rounds} interleaved rounds after a warm-up")
    print("| case | baseline | candidate | ratio |\n|---|---:|---:|---:|")
    for name, (a, b) in times.items():
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {name} | {ma:.4f} | {mb:.4f} | {ma / mb:.2f}x |")


if __name__ == "__main__":
    main()
