"""Reading an edge list: ``spread.graphs.from_edgelist`` vs ``np.loadtxt`` vs ``networkx.read_edgelist``.

Each read runs in a fresh subprocess, which reports its CPU seconds (``time.process_time``
around the read: parse + build), wall seconds, and memory: resident set size after the
imports, its peak (``ru_maxrss``) and after the read, holding the result. "Above the
result" is peak minus after, per edge line: what reading costs beyond the graph it returns
(the issue's budget: 40 bytes per line). Readers are interleaved round by round after a
warm-up read of every file (page cache); the table gives the median over rounds.

Usage (files from ``make_powerlaw_edgelist.py``)::

    python benchmarks/bench_read.py --rounds 3 /work/data/powerlaw-1e6.txt /work/data/powerlaw-1e7.txt
    python benchmarks/bench_read.py --rounds 1 --readers ours loadtxt /work/data/powerlaw-1e8.txt

``networkx`` is run on files of at most 2 x 10^6 lines (it needs ~300 B per line and 10 s
per 10^6 lines). A ``.gz`` twin of each file is read too with ``--gz``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def _rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def child(reader: str, path: str) -> None:
    import numpy as np

    if reader == "ours":
        from anonspread.spread.graphs import from_edgelist
    elif reader == "networkx":
        import networkx as nx
    before = _rss()
    t0, w0 = time.process_time(), time.perf_counter()
    if reader == "ours":
        g = from_edgelist(path)
        result = (g.indptr, g.indices, g.labels)
        lines, nodes, edges = g.read_info["edge_lines"], g.number_of_nodes(), g.number_of_edges()
    elif reader == "loadtxt":
        result = np.loadtxt(path, dtype=np.int64, comments="#")
        lines, nodes, edges = result.shape[0], -1, -1
    else:
        result = nx.read_edgelist(path, nodetype=int)
        lines, nodes, edges = -1, result.number_of_nodes(), result.number_of_edges()
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    after = _rss()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"cpu": cpu, "wall": wall, "before": before, "peak": peak, "after": after,
                      "lines": lines, "nodes": nodes, "edges": edges}))
    del result


def run(reader: str, path: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", reader, path], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def count_lines(path: str) -> int:
    with open(path, "rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--readers", nargs="+", default=["ours", "loadtxt", "networkx"])
    ap.add_argument("--gz", action="store_true", help="also read the .gz twin of each file")
    ap.add_argument("--child", nargs=2, metavar=("READER", "PATH"))
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    files = []
    for f in args.files:
        files.append(f)
        if args.gz and os.path.exists(f + ".gz"):
            files.append(f + ".gz")
    lines = {}
    for f in files:  # warm-up: the files in the page cache
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass
        lines[f] = count_lines(f) if not f.endswith(".gz") else lines.get(f[:-3], 0)
    jobs = [(r, f) for f in files for r in args.readers
            if not (r == "networkx" and (f.endswith(".gz") or lines[f] > 2_000_000))]
    results: dict = {job: [] for job in jobs}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for job in jobs:
            res = run(*job)
            results[job].append(res)
            print(f"  {job[0]:9s} {os.path.basename(job[1]):22s} cpu {res['cpu']:7.2f} s  wall "
                  f"{res['wall']:7.2f} s  peak {res['peak'] / 1e6:8.0f} MB", file=sys.stderr, flush=True)
    print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average before: {load:.1f}, "
          f"{args.rounds} round(s), median shown\n")
    print("| file | reader | CPU s | wall s | x loadtxt CPU | peak RSS MB (above start) "
          "| after, MB | above the result, B/line | graph |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for f in files:
        base = [statistics.median(r["cpu"] for r in results[("loadtxt", f)])] \
            if ("loadtxt", f) in results else None
        for r_name in args.readers:
            rs = results.get((r_name, f))
            if not rs:
                continue
            cpu = statistics.median(r["cpu"] for r in rs)
            wall = statistics.median(r["wall"] for r in rs)
            peak = statistics.median(r["peak"] - r["before"] for r in rs)
            after = statistics.median(r["after"] - r["before"] for r in rs)
            above = statistics.median((r["peak"] - r["after"]) for r in rs)
            n_lines = lines[f] or rs[0]["lines"]
            ratio = f"{cpu / base[0]:.2f}" if base else "-"
            graph = f"n={rs[0]['nodes']:,}, m={rs[0]['edges']:,}" if rs[0]["nodes"] >= 0 else "-"
            print(f"| {os.path.basename(f)} | {r_name} | {cpu:.2f} | {wall:.2f} | {ratio} | "
                  f"{peak / 1e6:,.0f} | {after / 1e6:,.0f} | {above / max(n_lines, 1):.1f} | {graph} |")


if __name__ == "__main__":
    main()
