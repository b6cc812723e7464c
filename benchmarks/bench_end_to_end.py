"""Benchmark: a power-law edge list from the file to an answer, step by step (issue 32, item 5; not a test).

Run::

    python benchmarks/bench_end_to_end.py --lines 1e6 1e7 1e8 --data /work/data
    python benchmarks/bench_end_to_end.py --lines 1e6 --steps convert,load,sim-random

Each step runs in its own fresh process (``python bench_end_to_end.py --child STEP ...`` or the
``anonspread`` command itself), so its peak memory is its own. The driver imports neither numpy
nor anonspread; for every step it records

* wall seconds, and CPU seconds of the step's process tree (the change of the driver's
  ``getrusage(RUSAGE_CHILDREN)``: every descendant that was waited for, workers included);
* peak resident memory of the step's main process (``VmHWM``, polled every 0.25 s, and the
  ``ru_maxrss`` of ``wait4``) and of every descendant process (sweep workers, the Dask
  scheduler and nannies), by the last ``VmHWM`` read before it exited (a poll every 0.25 s:
  growth in a process's last 0.25 s can be missed). Pages of a memory-mapped graph file count
  in the resident memory of every process that touched them (they are shared, once, in the
  page cache: the sum over workers overstates the machine's use);
* what the step printed (sizes, T, its own timing of the work without interpreter start-up
  and graph mapping, in the child steps).

Steps (``--steps``, comma-separated; default all):

``gen``          write ``powerlaw-<lines>.txt`` with ``make_powerlaw_edgelist.py`` if absent
                 (Chung-Lu, gamma 2.5, n = lines / 10, seed 32; duplicates and loops left in).
``convert``      ``anonspread graph convert FILE`` after deleting FILE's graph files: the first
                 read (C-speed reader) and the graph file written beside FILE.
``load``         map the graph file (``spread.graphfile.read_edgelist``) and touch every array.
``sim-adaptive`` adaptive diffusion from a seeded uniform source until ``--reach`` infected or
                 ``--t-adaptive`` steps (``stop="infected:K"``), snapshot pickled for the estimate
                 steps. ``--adaptive`` picks the setting (:data:`ADAPTIVE`): ``protocol3`` (the
                 default: d0 = 4, the thesis's cap of 3 new infections per node and step,
                 Protocol 3 as written: every node a message reaches infects, tree relay; it
                 stalls near 2x10^5 infected on the 10^8-line graph, see
                 ``bench_adaptive_reach.py``), ``authors`` (the thesis's Facebook setting, the
                 harness's Figs. 2.8-2.9: d0 = inf, cap 3, ``infectors="leaves"``,
                 ``stuck="pass"``) or ``nocap`` (d0 = 4, no cap). The near-ML step uses the
                 setting's d0.
``sim-random``   random diffusion (p = ``--p``) until ``--reach`` infected or ``--t-random`` steps.
``est-jordan-random``, ``est-jordan-adaptive``, ``est-ml-adaptive``, ``est-bp-random``,
``est-rumor-random``, ``est-rumor-adaptive``
                 the Jordan centre / the near-ML (d0 = 4) / belief propagation (random
                 diffusion, the simulated p) / rumour centrality (refused up front where its
                 exact scan is above the work limit: the refusal and its time are the
                 result) of the pickled snapshot through
                 ``adversaries.top_and_rank`` (the maximisers and the source's rank; the harness's
                 path), timed after the snapshot is loaded.
``sweep-pool``, ``sweep-dask``
                 ``anonspread sweep detection`` on the edge list, adaptive and random diffusion,
                 jordan and ml, ``--sweep-trials`` trials per point with batch size 1, stop by
                 reach ``--sweep-reach``, 2 workers: the process pool, then a Dask LocalCluster
                 (``--scheduler local``). The graph file is already written (``convert``).

The result of each size is printed as a Markdown table and appended as JSON lines to
``--json``; ``--lines`` with several sizes also prints each step's growth exponent (least-squares
slope of log wall seconds on log edge lines).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import math
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
#: ``--adaptive`` name -> AdaptiveDiffusion keyword arguments of the sim-adaptive step.
ADAPTIVE = {
    "protocol3": dict(d0=4.0, max_infections_per_step=3),
    "authors": dict(d0=math.inf, max_infections_per_step=3, infectors="leaves", stuck="pass"),
    "nocap": dict(d0=4.0, max_infections_per_step=None),
}
ALL_STEPS = ("gen", "convert", "load", "sim-adaptive", "sim-random", "est-jordan-random",
             "est-jordan-adaptive", "est-ml-adaptive", "est-bp-random", "est-rumor-random",
             "est-rumor-adaptive", "sweep-pool", "sweep-dask")


# ----------------------------------------------------------------------------- the driver

def _status(pid: int) -> dict:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmHWM:", "VmRSS:", "PPid:", "Name:")):
                    k, v = line.split(":", 1)
                    out[k] = v.strip()
    except OSError:
        pass
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _descendants(root: int) -> list[int]:
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _status(int(d))
            if "PPid" in st:
                parent[int(d)] = int(st["PPid"])
    out, frontier = [], {root}
    while frontier:
        nxt = {p for p, pp in parent.items() if pp in frontier}
        out.extend(nxt)
        frontier = nxt
    return out


def _kb(s: str) -> int:
    return int(s.split()[0]) if s else 0


def run_step(cmd: list[str], *, env: dict | None = None) -> dict:
    """Run ``cmd`` as one step; its time, CPU and peak memory (own and per descendant)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    fout, ferr = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    p = subprocess.Popen(cmd, stdout=fout, stderr=ferr, text=True, env=env)
    peaks: dict[int, tuple[int, str]] = {}
    own = [0]
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            own[0] = max(own[0], _kb(_status(p.pid).get("VmHWM", "")))
            for d in _descendants(p.pid):
                hwm = _kb(_status(d).get("VmHWM", ""))
                if hwm:
                    name = peaks.get(d, (0, ""))[1] or _cmdline(d)[:160]
                    peaks[d] = (max(hwm, peaks.get(d, (0, ""))[0]), name)
            done.wait(0.25)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    th.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    fout.seek(0)
    ferr.seek(0)
    out, err = fout.read(), ferr.read()
    info = {}
    for line in out.splitlines():
        if line.startswith("E2E "):
            info.update(json.loads(line[4:]))
    return {
        "cmd": " ".join(shlex.quote(c) for c in cmd), "rc": p.returncode, "wall_s": wall,
        "cpu_s": cpu, "peak_mb": own[0] / 1024,
        "wait4_maxrss_mb": ru.ru_maxrss / 1024,
        "children": sorted(((hwm / 1024, name) for hwm, name in peaks.values()), reverse=True),
        "info": info, "stderr_tail": err[-2000:] if p.returncode else "",
    }


def label(lines: float) -> str:
    e = round(math.log10(lines))
    return f"1e{e}" if 10**e == lines else f"{int(lines)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=float, nargs="+", default=[1e6])
    ap.add_argument("--data", default="/work/data")
    ap.add_argument("--work", default=None, help="snapshots and sweep output (default: DATA/e2e)")
    ap.add_argument("--steps", default=",".join(ALL_STEPS))
    ap.add_argument("--reach", type=int, default=None,
                    help="infected count to stop at (default: lines / 100, at most 10^6)")
    ap.add_argument("--t-adaptive", type=int, default=400)
    ap.add_argument("--t-random", type=int, default=400)
    ap.add_argument("--p", type=float, default=0.05)
    ap.add_argument("--sweep-trials", type=int, default=2)
    ap.add_argument("--sweep-reach", type=int, default=None, help="default: as --reach")
    ap.add_argument("--sweep-T", type=int, default=400)
    ap.add_argument("--json", default=None, help="append results here (default: WORK/results.jsonl)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--path", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--adaptive", choices=sorted(ADAPTIVE), default="protocol3",
                    help="the sim-adaptive step's setting (default protocol3: d0 = 4, cap 3)")
    a = ap.parse_args()
    if a.child:
        child(a)
        return
    steps = [s for s in a.steps.split(",") if s]
    bad = [s for s in steps if s not in ALL_STEPS]
    if bad:
        ap.error(f"--steps: unknown {bad}; accepted: {', '.join(ALL_STEPS)}")
    work = a.work or os.path.join(a.data, "e2e")
    os.makedirs(work, exist_ok=True)
    jpath = a.json or os.path.join(work, "results.jsonl")
    py = sys.executable
    me = os.path.abspath(__file__)
    cli = os.path.join(os.path.dirname(py), "anonspread")
    walls: dict[str, list[tuple[float, float]]] = {}
    for lines in a.lines:
        lab = label(lines)
        path = os.path.join(a.data, f"powerlaw-{lab}.txt")
        reach = a.reach or int(min(10**6, lines / 100))
        sreach = a.sweep_reach or reach
        sw = os.path.join(work, lab)
        os.makedirs(sw, exist_ok=True)
        child_args = ["--path", path, "--work", sw, "--reach", str(reach), "--seed", str(a.seed),
                      "--t-adaptive", str(a.t_adaptive), "--t-random", str(a.t_random),
                      "--p", str(a.p), "--adaptive", a.adaptive]
        print(f"\n## {lab} edge lines: {path} (reach {reach}; sweep reach {sreach})", flush=True)
        rows = []
        for step in steps:
            if step == "gen":
                if os.path.exists(path):
                    print(f"gen: {path} exists ({os.path.getsize(path) / 1e6:.0f} MB), reused")
                    continue
                cmd = [py, os.path.join(HERE, "make_powerlaw_edgelist.py"), "--lines", str(int(lines)),
                       "--out", a.data]
            elif step == "convert":
                for old in glob.glob(path + ".*.asgraph"):
                    os.remove(old)
                cmd = [cli, "graph", "convert", path]
            elif step.startswith("sweep-"):
                cmd = [cli, "sweep", "detection", "--set", "graph=edgelist",
                       "--set", f"graph.path={path}",
                       "--set", "protocol=adaptive-diffusion,random-diffusion",
                       "--set", "estimator=jordan,ml",
                       "--set", f"T={a.sweep_T}", "--set", f"stop=infected:{sreach}",
                       "--trials", str(a.sweep_trials), "--batch-size", "1", "--rng", str(a.seed),
                       "--out", sw, "--name", step, "--overwrite", "--no-plot", "--quiet",
                       "--workers", "2"]
                cmd += ["--executor", "processes"] if step == "sweep-pool" else ["--scheduler", "local"]
            else:
                cmd = [py, me, "--child", step, *child_args]
            r = run_step(cmd)
            r.update(step=step, lines=lines)
            rows.append(r)
            with open(jpath, "a") as f:
                f.write(json.dumps(r) + "\n")
            kids = "; ".join(f"{mb:.0f} MB {n.split()[-1][:40] if n else ''}" for mb, n in r["children"][:6])
            print(f"{step:20s} rc={r['rc']} wall {r['wall_s']:8.2f} s  cpu {r['cpu_s']:8.2f} s  "
                  f"peak {r['peak_mb']:8.0f} MB  {json.dumps(r['info'])}"
                  + (f"\n{'':20s} descendants: {kids}" if kids else ""), flush=True)
            if r["rc"]:
                print(r["stderr_tail"], flush=True)
            walls.setdefault(step, []).append((lines, r["wall_s"]))
        print("\n| step | wall s | CPU s | peak MB (main) | peak MB per descendant | printed |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            kids = ", ".join(f"{mb:.0f}" for mb, _ in r["children"]) or "-"
            print(f"| {r['step']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_mb']:.0f} | {kids} | "
                  f"{json.dumps(r['info'])} |")
    if len(a.lines) > 1:
        print("\ngrowth exponent of wall time in edge lines (least squares over the sizes run):")
        for step, pts in walls.items():
            pts = [(x, y) for x, y in pts if y > 0]
            if len(pts) > 1:
                xs = [math.log(x) for x, _ in pts]
                ys = [math.log(y) for _, y in pts]
                mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
                b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
                print(f"  {step:20s} {b:.2f}")


# ----------------------------------------------------------------------------- the steps

def emit(**kw) -> None:
    print("E2E " + json.dumps(kw), flush=True)


def child(a) -> None:
    import pickle

    import numpy as np

    from anonspread import adversaries as A
    from anonspread import spread
    from anonspread.spread.graphfile import read_edgelist

    t0 = time.perf_counter()
    g = read_edgelist(a.path)
    t_map = time.perf_counter() - t0
    step = a.child
    if step == "load":
        t1 = time.perf_counter()
        touched = int(np.asarray(g.indptr)[-1]) + int(np.asarray(g.indices).sum(dtype=np.int64) % 7)
        from anonspread.spread.graphfile import source_key

        t2 = time.perf_counter()
        source_key(a.path)  # what every read pays to check the source unchanged (size, mtime, SHA-256)
        t_key = time.perf_counter() - t2
        emit(map_s=round(t_map, 4), source_key_s=round(t_key, 3), touch_s=round(time.perf_counter() - t1, 3), nodes=int(len(g.indptr) - 1),
             arcs=int(np.asarray(g.indptr)[-1]), check=touched % 7)
        return
    if step.startswith("sim-"):
        if step == "sim-adaptive":
            proto = spread.protocols.AdaptiveDiffusion(**ADAPTIVE[a.adaptive])
            cap = a.t_adaptive
        else:
            proto = spread.protocols.RandomDiffusion(a.p)
            cap = a.t_random
        rng = np.random.default_rng(a.seed)
        t1 = time.perf_counter()
        sp = spread.simulate(g, proto, cap, rng=rng, stop=f"infected:{a.reach}")
        t_sim = time.perf_counter() - t1
        t2 = time.perf_counter()
        snap = A.observe(sp, reveal_edges=True)
        t_obs = time.perf_counter() - t2
        with open(os.path.join(a.work, step[4:] + ".pkl"), "wb") as f:
            pickle.dump({"snap": snap, "source": sp.source}, f, protocol=5)
        emit(map_s=round(t_map, 4), simulate_s=round(t_sim, 3), observe_s=round(t_obs, 3),
             infected=len(sp.infected), T=int(sp.T), reached=sp.reached)
        return
    if step.startswith("est-"):
        _, est, which = step.split("-")
        t1 = time.perf_counter()
        with open(os.path.join(a.work, which + ".pkl"), "rb") as f:
            d = pickle.load(f)
        t_unpickle = time.perf_counter() - t1
        snap, source = d["snap"], d["source"]
        params = {"d0": ADAPTIVE[a.adaptive]["d0"]} if est == "ml" else {}
        if est == "bp":
            params = {"protocol": spread.protocols.RandomDiffusion(a.p)}
        t2, c2 = time.perf_counter(), time.process_time()
        try:
            tr = A.top_and_rank(snap, est, source, **params)
            t_est = time.perf_counter() - t2
            c_est = time.process_time() - c2
        except Exception as e:  # a refusal up front is a result: say it
            emit(map_s=round(t_map, 4), infected=int(snap.n), T=int(snap.T),
                 refused=f"{type(e).__name__}: {e}"[:400], after_s=round(time.perf_counter() - t2, 3))
            return
        emit(map_s=round(t_map, 4), unpickle_s=round(t_unpickle, 3), estimate_s=round(t_est, 3),
             estimate_cpu_s=round(c_est, 3), source_score=float(tr.source_score),
             maximisers_sha=hashlib.sha256(np.sort(np.asarray(tr.maximisers)).tobytes()).hexdigest()[:16],
             infected=int(snap.n), T=int(snap.T), rank=float(tr.rank), top=len(tr.maximisers))
        return
    raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    main()
