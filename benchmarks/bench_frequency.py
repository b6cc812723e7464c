"""Frequency oracles at scale (issue 35): anonspread.privacy.frequency vs pure-ldp and multi-freq-ldpy.

Each case runs in a fresh subprocess (so its peak RSS is its own): the users' values are drawn
(Zipf(1.1) mod k, not timed), then privatised and aggregated into unbiased estimates; the
subprocess prints wall time, CPU time (user + system of the process, all threads) and the
peak RSS above the RSS once the values are in memory. Ours run at 10^7 users x k = 1,024
(GRR, OLH, Hadamard: every report held, 8-12 bytes per user; OUE and subset selection
through ``simulate``, which draws every report in a compiled loop and adds it to the counts
without holding it: memory O(k)); the peers
run users one by one in Python, at sizes they finish in tens of seconds; the ratio compares
CPU seconds per user. Each subprocess first runs its library on 50 users (imports, numba's
JIT compilation: not timed). One warm-up round at tiny sizes, then one interleaved measured round
(ours, pure-ldp, multi-freq-ldpy per oracle).

Agreement: on a shared case (k = 16, eps = 1, n = 2,000 fixed values, 200 runs each) the
per-value mean and variance of the estimates of each library against ours and our exact
closed form. pure-ldp's estimates are unbiased counts; multi-freq-ldpy's ``*_Aggregator_MI``
clip at 0 and renormalise, so ours are passed through the same post-processing before the
comparison.

Run (peers in their own venv, never our dependency)::

    python -m venv /work/venvs/ldp-peers && /work/venvs/ldp-peers/bin/pip install pure-ldp multi-freq-ldpy
    python benchmarks/bench_frequency.py --peer-python /work/venvs/ldp-peers/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

K, EPS = 1024, 1.0


def _values(n: int, k: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).zipf(1.1, size=n) - 1) % k


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# ----------------------------------------------------------------- workers


def _ours(oracle: str, values: np.ndarray, k: int, eps: float, seed: int) -> np.ndarray:
    from anonspread.privacy.frequency import make_oracle

    o = make_oracle("olh", k, eps, threads=2) if oracle == "olh-2threads" else make_oracle(oracle, k, eps)
    if oracle in ("oue", "ss", "sue", "rappor"):
        return o.simulate(values, rng=seed).counts
    return o.estimate(o.privatize(values, rng=seed)).counts


def _pure(oracle: str, values: np.ndarray, k: int, eps: float, seed: int) -> np.ndarray:
    np.random.seed(seed)  # noqa: NPY002 - the peers draw from the legacy global state
    import random
    random.seed(seed)
    if oracle == "grr":
        from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
        client, server = DEClient(eps, k), DEServer(eps, k)
    elif oracle == "olh":
        from pure_ldp.frequency_oracles.local_hashing import LHClient, LHServer
        client, server = LHClient(eps, k, use_olh=True), LHServer(eps, k, use_olh=True)
    elif oracle == "oue":
        from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer
        client, server = UEClient(eps, k, use_oue=True), UEServer(eps, k, use_oue=True)
    elif oracle == "hr":
        from pure_ldp.frequency_oracles.hadamard_response import (
            HadamardResponseClient,
            HadamardResponseServer,
        )
        server = HadamardResponseServer(eps, k)
        client = HadamardResponseClient(eps, k, server.get_hash_funcs())
    else:
        raise SystemExit(f"pure-ldp: no {oracle}")
    for v in values:  # pure-ldp's items are 1..k
        server.aggregate(client.privatise(int(v) + 1))
    return np.array([server.estimate(i + 1, suppress_warnings=True) for i in range(k)])


def _multi(oracle: str, values: np.ndarray, k: int, eps: float, seed: int) -> np.ndarray:
    np.random.seed(seed)  # noqa: NPY002 - the peers draw from the legacy global state
    import random
    random.seed(seed)
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE
    client, agg = {
        "grr": (lambda v: GRR.GRR_Client(v, k, eps), lambda r: GRR.GRR_Aggregator_MI(r, k, eps)),
        "olh": (lambda v: LH.LH_Client(v, k, eps, True), lambda r: LH.LH_Aggregator_MI(r, k, eps, True)),
        "oue": (lambda v: UE.UE_Client(v, k, eps, True), lambda r: UE.UE_Aggregator_MI(r, eps, True)),
        "ss": (lambda v: SS.SS_Client(v, k, eps), lambda r: SS.SS_Aggregator_MI(r, k, eps)),
    }.get(oracle, (None, None))
    if client is None:
        raise SystemExit(f"multi-freq-ldpy: no {oracle}")
    reports = [client(int(v)) for v in values]
    return np.asarray(agg(reports)) * len(values)  # normalised frequencies -> counts


LIBS = {"ours": _ours, "pure-ldp": _pure, "multi-freq-ldpy": _multi}


def worker(lib: str, oracle: str, n: int, k: int, eps: float) -> None:
    LIBS[lib](oracle, _values(50, k, seed=1), k, eps, 0)  # imports, JIT: not timed
    values = _values(n, k)
    base = _rss_mb()
    t0, c0 = time.perf_counter(), os.times()
    LIBS[lib](oracle, values, k, eps, 1)
    c1 = os.times()
    wall = time.perf_counter() - t0
    cpu = (c1.user - c0.user) + (c1.system - c0.system)
    print(json.dumps({"wall": wall, "cpu": cpu, "extra_mb": _rss_mb() - base, "base_mb": base}))


def agree_worker(lib: str, oracle: str, runs: int) -> None:
    k, eps, n = 16, 1.0, 2000
    values = _values(n, k, seed=7)
    est = np.array([LIBS[lib](oracle, values, k, eps, 1000 + r) for r in range(runs)])
    print(json.dumps({"mean": est.mean(axis=0).tolist(), "var": est.var(axis=0, ddof=1).tolist()}))


# ----------------------------------------------------------------- driver


def _run(python: str, args: list[str]) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([python, __file__, *args], capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


PLAN = {  # oracle -> {lib: n}
    "grr": {"ours": 10**7, "pure-ldp": 200_000, "multi-freq-ldpy": 200_000},
    "olh": {"ours": 10**7, "pure-ldp": 2_000, "multi-freq-ldpy": 2_000},
    "olh-2threads": {"ours": 10**7},
    "hr": {"ours": 10**7, "pure-ldp": 20_000},
    "oue": {"ours": 10**7, "pure-ldp": 20_000, "multi-freq-ldpy": 20_000},
    "ss": {"ours": 10**7, "multi-freq-ldpy": 20_000},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer-python", default="/work/venvs/ldp-peers/bin/python")
    ap.add_argument("--worker", nargs=5, metavar=("LIB", "ORACLE", "N", "K", "EPS"))
    ap.add_argument("--agree", nargs=3, metavar=("LIB", "ORACLE", "RUNS"))
    ap.add_argument("--skip-agreement", action="store_true")
    a = ap.parse_args()
    if a.worker:
        lib, oracle, n, k, eps = a.worker
        return worker(lib, oracle, int(n), int(k), float(eps))
    if a.agree:
        return agree_worker(a.agree[0], a.agree[1], int(a.agree[2]))
    py = {"ours": sys.executable, "pure-ldp": a.peer_python, "multi-freq-ldpy": a.peer_python}
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}; "
          f"cores {os.cpu_count()}; k = {K}, eps = {EPS}")
    for oracle, libs in PLAN.items():  # warm-up (imports, page cache)
        for lib in libs:
            _run(py[lib], ["--worker", lib, oracle, "200", str(K), str(EPS)])
    print(f"{'oracle':7} {'library':16} {'users':>10} {'wall s':>8} {'CPU s':>8} {'CPU us/user':>12} "
          f"{'extra RSS MB':>12} {'ours faster (CPU/user)':>22}")
    for oracle, libs in PLAN.items():
        rows = {lib: _run(py[lib], ["--worker", lib, oracle, str(n), str(K), str(EPS)]) for lib, n in libs.items()}
        ours = rows["ours"]
        if "error" in ours:
            print(f"{oracle:7} ours error: {ours['error']}")
            continue
        for lib, n in libs.items():
            r = rows[lib]
            if "error" in r:
                print(f"{oracle:7} {lib:16} {n:>10} error: {r['error']}")
                continue
            per = r["cpu"] / n * 1e6
            ratio = "" if lib == "ours" else f"{per / (ours['cpu'] / libs['ours'] * 1e6):.0f}x"
            print(f"{oracle:7} {lib:16} {n:>10} {r['wall']:8.2f} {r['cpu']:8.2f} {per:12.3f} "
                  f"{r['extra_mb']:12.0f} {ratio:>22}", flush=True)
    print(f"load after {os.getloadavg()}")
    if a.skip_agreement:
        return
    from anonspread.privacy.frequency import make_oracle

    k, eps, n, runs = 16, 1.0, 2000, 200
    values = _values(n, k, seed=7)
    counts = np.bincount(values, minlength=k).astype(float)
    print(f"\nagreement: k = {k}, eps = {eps}, n = {n}, {runs} runs each; per value, "
          "z = (mean_peer - mean_ours)/se, and var_peer / var_ours")
    for oracle, libs in (("grr", ("pure-ldp", "multi-freq-ldpy")), ("olh", ("pure-ldp", "multi-freq-ldpy")),
                         ("oue", ("pure-ldp", "multi-freq-ldpy")), ("hr", ("pure-ldp",)),
                         ("ss", ("multi-freq-ldpy",))):
        o = make_oracle(oracle, k, eps)
        ours_raw = np.array([o.estimate(o.privatize(values, rng=r)).counts for r in range(runs)])
        exact = o.count_variance(counts)
        for lib in libs:
            peer = _run(py[lib], ["--agree", lib, oracle, str(runs)])
            if "error" in peer:
                print(f"  {oracle:4} {lib:16} error: {peer['error']}")
                continue
            mine = ours_raw
            if lib == "multi-freq-ldpy":  # the same clip-and-renormalise post-processing
                clipped = ours_raw.clip(0)
                mine = clipped / clipped.sum(axis=1, keepdims=True) * n
            m, v = mine.mean(axis=0), mine.var(axis=0, ddof=1)
            pm, pv = np.array(peer["mean"]), np.array(peer["var"])
            z = (pm - m) / np.sqrt((pv + v) / runs)
            note = (f"; ours var / exact closed form: mean {np.mean(v / exact):.3f}" if lib == "pure-ldp" else "")
            print(f"  {oracle:4} {lib:16} max |z| {np.abs(z).max():5.2f}  var ratio: mean "
                  f"{np.mean(pv / v):.3f} [min {np.min(pv / v):.3f}, max {np.max(pv / v):.3f}]{note}",
                  flush=True)


if __name__ == "__main__":
    main()
