"""Benchmark: adaptive diffusion's relay path, runs per second, two builds interleaved (issue 31 item 6; not a test).

Run::

    python benchmarks/make_three_block.py /tmp/three_block.csv
    python benchmarks/bench_relay.py /tmp/three_block.csv --before PYTHON_OF_THE_BEFORE_BUILD

(``--before``: any interpreter that imports the other build, e.g. a venv of main; without it
only this build is timed.)

Each measurement is a separate process (``--worker``): one interpreter per build (``--before``
and ``--after``, default this one), alternated ``--rounds`` times after a warm-up run of each.
A worker times (CPU seconds, ``time.process_time``) a fixed number of seeded runs (per case,
times ``--scale``) of
``AdaptiveDiffusion`` through the batch driver (``engine.spreading.run_batch``, the kernel
every simulation-based estimator calls), from uniform sources, on

* the three-block graph of the CSV (``make_three_block.py``) at T = 4, 6, 8, 12, and
* a random 4-regular graph of 10^4 nodes (networkx, seed 4) at T = 8 and 16,

each with the harness's automatic setting on finite graphs (``d0 = inf``, cap 3) and, for the
three-block graph at T = 8, the other relay options (``--settings``). It prints runs/s per
build (the median of the rounds) and their ratio, and a digest of every run's outputs (sizes
per step, final virtual source and its hops, the generator's state after the batch) which
must be the same for both builds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import subprocess
import sys
import time

import numpy as np

#: name -> AdaptiveDiffusion keyword arguments (d0 = inf unless given).
SETTINGS = {
    "cap3": dict(max_infections_per_step=3),
    "cap3-graph": dict(max_infections_per_step=3, relay="graph"),
    "cap3-leaves-pass": dict(max_infections_per_step=3, infectors="leaves", stuck="pass"),
    "nocap": dict(max_infections_per_step=None),
    "cap3-d4": dict(d0=4.0, max_infections_per_step=3),
}


#: Trials of the extra settings at T = 8 on the three-block graph.
TRIALS_T8 = {"cap3": 100_000, "cap3-graph": 8_000, "cap3-leaves-pass": 60_000, "nocap": 30_000,
             "cap3-d4": 60_000}


def _graph(which: str, csv: str):
    from anonspread.spread.graphs import from_edgelist, from_networkx

    if which == "three-block":
        return from_edgelist(csv)
    import networkx as nx

    return from_networkx(nx.random_regular_graph(4, 10_000, seed=4))


def worker(which: str, csv: str, T: int, setting: str, trials: int) -> dict:
    """Time ``trials`` runs; return runs/s and the outputs' digest."""
    from anonspread.engine import spreading as k
    from anonspread.spread.protocols import AdaptiveDiffusion

    g = _graph(which, csv)
    kw = dict(SETTINGS[setting])
    proto = AdaptiveDiffusion(kw.pop("d0", math.inf), **kw)
    params = proto.kernel_params(g, T)
    r = np.random.default_rng(12345)
    n = g.number_of_nodes()
    sources = r.integers(0, n, trials).astype(np.int32)
    seeds = np.zeros(trials, np.uint64)
    sizes = np.zeros((trials, T + 1), np.int64)
    hops = np.zeros(trials, np.int32)
    vsn = np.zeros(trials, np.int32)
    store = g._new_store()
    warm = min(trials, 50)
    k.run_batch(k.ADAPTIVE_DIFFUSION, store, False, sources[:warm], seeds[:warm], T, params,
                np.random.default_rng(0), sizes[:warm], hops[:warm], vsn[:warm])
    rng = np.random.default_rng(2026)
    t0 = time.process_time()
    k.run_batch(k.ADAPTIVE_DIFFUSION, store, False, sources, seeds, T, params, rng, sizes, hops,
                vsn)
    cpu = time.process_time() - t0
    h = hashlib.sha256()
    for a in (sizes, hops, vsn):
        h.update(a.tobytes())
    st = rng.bit_generator.state
    h.update(repr((st["state"], st["has_uint32"], st["uinteger"])).encode())
    return {"runs_per_s": trials / cpu, "cpu_s": cpu, "digest": h.hexdigest()[:16],
            "mean_infected": float(sizes[:, T].mean())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="the three-block graph's CSV (make_three_block.py)")
    ap.add_argument("--before", default=None, help="python of the 'before' build")
    ap.add_argument("--after", default=sys.executable, help="python of the 'after' build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every case's trials")
    ap.add_argument("--settings", default="cap3-graph,cap3-leaves-pass,nocap,cap3-d4",
                    help="extra settings run on the three-block graph at T = 8")
    ap.add_argument("--worker", nargs=4, metavar=("GRAPH", "T", "SETTING", "TRIALS"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        which, T, setting, trials = args.worker
        print(json.dumps(worker(which, args.csv, int(T), setting, int(trials))))
        return
    # trials per case: about a third of a second of CPU each on the machine of the README
    cases = [("three-block", T, "cap3", n) for T, n in ((4, 500_000), (6, 200_000),
                                                        (8, 100_000), (12, 40_000))]
    cases += [("three-block", 8, s, TRIALS_T8[s]) for s in args.settings.split(",") if s]
    cases += [("4-regular-1e4", 8, "cap3", 100_000), ("4-regular-1e4", 16, "cap3", 2_000)]
    cases = [(g, T, s, max(int(n * args.scale), 20)) for g, T, s, n in cases]
    builds = {"after": args.after}
    if args.before:
        builds = {"before": args.before, "after": args.after}

    def run(py, case):
        which, T, setting, trials = case
        out = subprocess.run([py, __file__, args.csv, "--worker", which, str(T), setting,
                              str(trials)], check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.rounds} rounds, "
          f"builds: {builds}")
    print(f"{'graph':<14} {'T':>3} {'setting':<17} {'infected':>8} "
          + " ".join(f"{b + ' runs/s':>14}" for b in builds) + ("   ratio  same" if len(builds) > 1 else ""))
    for case in cases:
        for py in builds.values():  # warm-up: page cache, compiled modules
            run(py, (case[0], case[1], case[2], 20))
        res = {b: [] for b in builds}
        for _ in range(args.rounds):
            for b, py in builds.items():
                res[b].append(run(py, case))
        med = {b: statistics.median(x["runs_per_s"] for x in v) for b, v in res.items()}
        digests = {x["digest"] for v in res.values() for x in v}
        line = (f"{case[0]:<14} {case[1]:>3} {case[2]:<17} "
                f"{res['after'][0]['mean_infected']:>8.1f} "
                + " ".join(f"{med[b]:>14.0f}" for b in builds))
        if len(builds) > 1:
            line += f"  {med['after'] / med['before']:>5.2f}x  {'yes' if len(digests) == 1 else 'NO'}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
