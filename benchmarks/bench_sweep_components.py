"""Issue 31 item 6: where the new user's sweep spends its CPU, per component, in one process.

The three-block sweep's points (adaptive and random diffusion, T = 2, 4, 6, 8) on the graph
of ``make_three_block.py``: for each point the learned adversary's model is trained once
(timed), then ``--trials`` spreads are drawn (one stream, ``--rng``) and every estimator of
the list scores each of them through its registered function, timed one by one (CPU seconds
of this process). With ``--bp-attempts`` the ``prior`` runs of ``bp`` are replayed attempt
by attempt of its default schedule, counting where each converged and the CPU of each.

Run it under two interpreters (an older commit's environment and this one) to compare
before/after; the numbers are CPU seconds, so other jobs on the machine matter less than
for elapsed times. Usage::

    python benchmarks/bench_sweep_components.py --graph three_block.csv
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import time
import warnings

import numpy as np

from anonspread import adversaries, spread
from anonspread.errors import AnonspreadError
from anonspread.harness.experiments.spreading import _as_function, make_graph, make_protocol


def bp_attempts(g, proto, T: int, snaps: list) -> str:
    """The ``prior`` snapshots of ``snaps`` replayed attempt by attempt."""
    from anonspread.engine import bp as _bp

    bpm = importlib.import_module("anonspread.adversaries.bp")
    sched = dict(bpm.SCHEDULES)["prior"]
    where, cpu = collections.Counter(), collections.Counter()
    for snap in snaps:
        ip, ix = snap.subgraph()
        ip, ix = np.ascontiguousarray(ip, np.int64), np.ascontiguousarray(ix, np.int32)
        if snap.subgraph_is_tree() or snap.n * ix.shape[0] * (T + 1) <= bpm.BETHE_BUDGET:
            continue  # tree or bethe: not the prior method
        extra = snap.contact_degrees() - np.diff(ip)
        prior = np.where(_bp.feasible_sources(ip, ix, T), bpm.PRIOR_GAMMA, 0.0)
        for k, (d, st) in enumerate(sched):
            c = time.process_time()
            run = _bp.bp_run(ip, ix, extra, T, proto.p, prior, damping=d, max_iter=200, stall=st)
            cpu[k] += time.process_time() - c
            if run.converged:
                where[f"attempt {k}"] += 1
                break
        else:
            where["never"] += 1
    cost = ", ".join(f"attempt {k} (damping {d:g}) {cpu[k]:.2f} s" for k, (d, _) in enumerate(sched))
    return f"    bp prior runs: converged {dict(where)}; CPU {cost}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", required=True, help="the edge-list CSV")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--rng", type=int, default=1)
    ap.add_argument("--estimators", default="ml,jordan,rumor,bp,learned")
    ap.add_argument("--bp-attempts", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # bp's convergence warnings: counted by --bp-attempts
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()}, "
          f"anonspread from {adversaries.__file__}")
    total = collections.Counter()
    for proto_name in ("adaptive-diffusion", "random-diffusion"):
        for T in (2, 4, 6, 8):
            params = {"graph": "edgelist", "graph.path": args.graph, "protocol": proto_name, "T": T}
            g = make_graph(params, np.random.default_rng(0))
            proto = make_protocol(params, g)
            rng = np.random.default_rng(args.rng)
            funcs = {}
            for e in args.estimators.split(","):
                try:
                    funcs[e] = _as_function(e, proto, g, rng)
                except AnonspreadError:  # does not apply to this protocol
                    pass
            cpu = collections.Counter()
            snaps = []
            for i in range(args.trials):
                c = time.process_time()
                snap = adversaries.observe(spread.simulate(g, proto, T, rng=rng), reveal_edges=True)
                cpu["simulation"] += time.process_time() - c
                snaps.append(snap)
                for e, f in funcs.items():
                    c = time.process_time()
                    f(snap)  # the learned adversary trains at its first snapshot: apart
                    key = "learned training" if e == "learned" and i == 0 else e
                    cpu[key] += time.process_time() - c
            print(f"{proto_name} T={T}: " + ", ".join(f"{k} {v:.2f} s" for k, v in cpu.items()),
                  flush=True)
            if args.bp_attempts and "bp" in funcs:
                print(bp_attempts(g, proto, T, snaps), flush=True)
            total.update(cpu)
    print("total CPU: " + ", ".join(f"{k} {v:.2f} s" for k, v in total.items()))


if __name__ == "__main__":
    main()
