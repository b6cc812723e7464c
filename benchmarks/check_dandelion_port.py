"""Same seeds, same outputs? The Dandelion simulator before and after it became one kernel family.

Runs a fixed set of seeded workloads through the public entry points of both Dandelion
configurations and prints one SHA-256 per case (of every output array, bit for bit):

* ``spread.dandelion``: ``draw_anonymity_graph`` and ``simulate_stems`` for Dandelion and
  Dandelion++ (every routing, both peer sets, both coins, relays 1-3, q = 0, 0.1, 1; a
  shared anonymity graph; plain diffusion), and ``spread.events.simulate_messages`` (it
  draws its anonymity graph through the same kernel);
* ``adversaries.transactions``: ``anonymity_graph`` (d = 1, 2, 3), the routing tables of
  codes 1-3, ``observe_transactions`` (every routing, q = 0 and 0.1, both revisit rules, a
  short cap, diffusion), ``transactions_from_stems`` and the estimators' precision and
  recall (first-spy, max-recall, max-precision).

With ``--baseline PYTHON`` it runs itself under that interpreter too (from a scratch
directory, so that the baseline imports its own installed anonspread) and prints, per case,
whether the two hashes agree::

    python benchmarks/check_dandelion_port.py --baseline /path/venv-old/bin/python
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import tempfile


def _digest(*arrays) -> str:
    import numpy as np

    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"None")
            continue
        a = np.asarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def _routing_tables():
    try:  # after: one kernel family
        from anonspread.engine import dandelion as E
        return E.routing_tables, E.ROUTING_CODES
    except ImportError:  # before
        from anonspread.engine import transactions as E
        return E.routing_tables, E.ROUTING_CODES


def cases() -> dict[str, str]:
    import warnings

    import networkx as nx
    import numpy as np

    from anonspread import spread
    from anonspread.adversaries import transactions as tx
    from anonspread.spread.dandelion import (
        Dandelion,
        DandelionPlusPlus,
        draw_anonymity_graph,
        simulate_stems,
    )
    from anonspread.spread.events import ContinuousDiffusion, simulate_messages

    warnings.simplefilter("ignore", UserWarning)  # nodes with fewer contacts than relays
    out: dict[str, str] = {}
    g8 = spread.graphs.from_networkx(nx.random_regular_graph(8, 300, seed=0))
    h = nx.gnp_random_graph(200, 0.03, seed=4)
    gnp = spread.graphs.from_networkx(h.subgraph(max(nx.connected_components(h), key=len)).copy())
    protos = [Dandelion(0.1), Dandelion(0.0), Dandelion(1.0)]
    for routing in ("one-to-one", "per-incoming-edge", "all-to-one", "per-transaction"):
        for peers in ("contacts", "all"):
            for coin in ("epoch", "hop"):
                protos.append(DandelionPlusPlus(0.2, routing=routing, peers=peers, coin=coin))
    protos += [DandelionPlusPlus(0.3, relays=3), DandelionPlusPlus(0.1, relays=1),
               DandelionPlusPlus(0.0), DandelionPlusPlus(0.0, coin="hop"),
               DandelionPlusPlus(1.0, coin="hop")]
    for gname, g in (("8-regular n=300", g8), (f"gnp n={gnp.number_of_nodes()}", gnp)):
        n = g.number_of_nodes()
        spies = list(range(0, n, 7))
        for p in protos:
            a = draw_anonymity_graph(g, p, rng=5)
            out[f"draw_anonymity_graph {p!r} on {gname}"] = _digest(
                a.out_ptr, a.out, a.own, a.in_ptr, a.in_src, a.in_to, a.diffuser)
            b = simulate_stems(g, p, 400, spies=spies, rng=6)
            out[f"simulate_stems {p!r} on {gname}"] = _digest(
                b.source, b.stem_length, b.fluff_node, b.fluff_time, b.failsafe, b.reached,
                b.completion_time, b.spy_time, b.spy_sender, b.spy_kind)
            b = simulate_stems(g, p, 200, spies=spies, sources=list(range(200)), anonymity=a,
                               rng=7)
            out[f"simulate_stems {p!r} on {gname}, one epoch"] = _digest(
                b.stem_length, b.fluff_node, b.fluff_time, b.failsafe, b.spy_time, b.spy_sender,
                b.spy_kind)
        b = simulate_stems(g, ContinuousDiffusion(1.5), 300, spies=spies, rng=8)
        out[f"simulate_stems ContinuousDiffusion on {gname}"] = _digest(
            b.source, b.completion_time, b.spy_time, b.spy_sender, b.spy_kind)
    for p in (Dandelion(0.2), DandelionPlusPlus(0.2), DandelionPlusPlus(0.2, routing="per-transaction",
                                                                         coin="hop")):
        run = simulate_messages(g8, p, 10_000, rng=9)
        out[f"simulate_messages {p!r}"] = _digest(run.log.sender, run.log.receiver,
                                                  run.log.received, run.anonymity.out)

    routing_tables, codes = _routing_tables()
    for n, d in ((50, 1), (100, 2), (100, 3), (7, 2)):
        for seed in range(3):
            out[f"anonymity_graph({n}, {d}) seed {seed}"] = _digest(*tx.anonymity_graph(n, d, rng=seed))
            indptr, indices = tx.anonymity_graph(n, d, rng=seed)
            for r in ("per-edge", "all-to-one", "one-to-one"):
                rng = np.random.default_rng(seed + 10)
                res = routing_tables(n, indptr, indices, codes[r], rng)
                out[f"routing_tables code {codes[r]} ({r}) n={n} d={d} seed {seed}"] = _digest(
                    *res, rng.random(4))
    estimators = ("first-spy", "max-recall", "max-precision")
    for d in (1, 2, 3):
        for routing in ("per-tx", "per-edge", "all-to-one", "one-to-one"):
            for q in (0.0, 0.1):
                for revisit, cap in (("escape", None), ("follow", None), ("escape", 5)):
                    rng = np.random.default_rng([d, int(q * 10), len(routing), cap or 0,
                                                 len(revisit)])
                    rows = []
                    for _ in range(20):
                        a = tx.anonymity_graph(100, d, rng=rng)
                        spy = tx.draw_spy_mask(100, 0.1, rng=rng)
                        obs = tx.observe_transactions(a, spy, routing=routing, q=q, cap=cap,
                                                      revisit=revisit, rng=rng)
                        rows += [obs.kind, obs.node, obs.spy_of, obs.hops]
                        for e in estimators:
                            rows.append(np.array(tx.precision_recall(obs, tx.estimate(e, obs, rng=rng))))
                    out[f"observe_transactions d={d} {routing} q={q} {revisit} cap={cap}"
                        " + estimators"] = _digest(*rows)
    from anonspread.harness.experiments.dandelion import _undirected

    rng = np.random.default_rng(31)
    rows = []
    for _ in range(20):
        a = _undirected(100, *tx.anonymity_graph(100, 2, rng=rng))
        spy = tx.draw_spy_mask(100, 0.1, rng=rng)
        obs = tx.observe_transactions(a, spy, "diffusion", rng=rng)
        rows += [obs.kind, obs.node, obs.spy_of, obs.hops,
                 np.array(tx.precision_recall(obs, tx.estimate("first-spy", obs)))]
    out["observe_transactions diffusion on 4-regular + first-spy"] = _digest(*rows)
    G = nx.random_regular_graph(6, 60, seed=2)
    for p in (Dandelion(0.0), Dandelion(0.2), DandelionPlusPlus(0.2),
              DandelionPlusPlus(0.2, routing="per-transaction", coin="hop", peers="all"),
              ContinuousDiffusion(1.0)):
        rows = []
        for seed in range(4):
            rng = np.random.default_rng(seed)
            spies = np.sort(rng.choice(60, size=6, replace=False))
            honest = np.setdiff1d(np.arange(60), spies)
            a = None if isinstance(p, ContinuousDiffusion) else draw_anonymity_graph(G, p, rng=rng)
            b = simulate_stems(G, p, honest.shape[0], spies=spies.tolist(), sources=honest.tolist(),
                               anonymity=a, rng=rng)
            obs = tx.transactions_from_stems(b)
            rows += [obs.kind, obs.node, obs.spy_of, obs.seen_from, obs.indptr, obs.indices]
            for e in (estimators if obs.protocol == "dandelion" else ("first-spy",)):
                rows.append(np.array(tx.precision_recall(obs, tx.estimate(e, obs, rng=rng))))
        out[f"transactions_from_stems {p!r} + estimators"] = _digest(*rows)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="Python of the install to compare with")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(cases()))
        return
    mine = cases()
    if not args.baseline:
        for k, v in mine.items():
            print(f"{v}  {k}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([args.baseline, os.path.abspath(__file__), "--json"], cwd=tmp,
                              capture_output=True, text=True, check=True)
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    same = [k for k in mine if theirs.get(k) == mine[k]]
    diff = [k for k in mine if theirs.get(k) != mine[k]]
    for k in diff:
        print(f"DIFFERS  {k}")
    print(f"{len(same)} of {len(mine)} cases identical, {len(diff)} differ")


if __name__ == "__main__":
    main()
