"""A graph read once (issue 32, item 2): first read vs cached load vs pickling, and a sweep.

For each edge list given: the first read (text parse by ``spread.graphs.from_edgelist``,
then the graph file written by ``spread.graphfile.save_graph``), the cached load
(``read_edgelist`` on the unchanged file: SHA-256 of the source, header check, mapping,
CRC-32 of the arrays), a bare ``load_graph(verify=False)``, and pickling the parsed graph
(``pickle.dumps`` + ``loads``, what a task carrying the graph would cost) against pickling
the mapped one (a reference). The load and pickle rows are interleaved, after a warm-up,
median of ``--repeat``. Peak memory of a fresh process that does only the cached load is
measured in a subprocess (ru_maxrss).

``--sweep FILE`` also runs a 2-worker process-pool detection sweep on FILE three ways, each
in a fresh interpreter (CPU of that process and of its reaped children, i.e. the workers):
``graph.cache=false`` (parent and both workers parse), graph file absent (the parent parses
once and writes it, the workers map it), graph file present (nobody parses).

Usage::

    python benchmarks/bench_graph_cache.py /work/data/graphcache-1e6.txt /work/data/graphcache-1e7.txt \
        --sweep /work/data/graphcache-1e6.txt

Edge lists: ``python /tmp/gc_gen.py 1e7 /work/data/graphcache-1e7.txt``-style Chung-Lu files
(see benchmarks/README.md, "A graph read once") or ``benchmarks/make_powerlaw_edgelist.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def _cpu() -> float:
    return time.process_time()


def _measure_file(path: str, repeat: int) -> dict:
    from anonspread.spread import graphfile as gf
    from anonspread.spread.graphs import from_edgelist

    out: dict = {"file": path, "bytes": os.path.getsize(path)}
    cache = tempfile.mkdtemp(prefix="bench-graph-cache-")
    try:
        t0, c0 = time.perf_counter(), _cpu()
        parsed = from_edgelist(path)
        out["parse_s"], out["parse_cpu_s"] = time.perf_counter() - t0, _cpu() - c0
        out["n"], out["m"] = parsed.number_of_nodes(), parsed.number_of_edges()
        key = gf.source_key(path)
        target = gf.graph_file_path(path, cache_dir=cache)
        t0 = time.perf_counter()
        ref = gf.save_graph(parsed, target, source=key)
        out["write_s"] = time.perf_counter() - t0
        out["graph_file_bytes"] = os.path.getsize(ref.path)
        t0 = time.perf_counter()
        gf.source_key(path)
        out["source_hash_s"] = time.perf_counter() - t0

        def cached():
            return gf.read_edgelist(path, cache_dir=cache)

        def bare():
            return gf.load_graph(ref.path, verify=False)

        blob = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        mapped = bare()
        ref_blob = pickle.dumps(mapped, protocol=pickle.HIGHEST_PROTOCOL)
        out["pickle_bytes"], out["pickle_ref_bytes"] = len(blob), len(ref_blob)

        def pickled():
            return pickle.loads(pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))

        def pickled_ref():
            gf._OPENED.clear()  # a fresh process: it maps the file again
            return pickle.loads(pickle.dumps(mapped, protocol=pickle.HIGHEST_PROTOCOL))

        rows = {"cached_load": cached, "load_no_verify": bare, "pickle_roundtrip": pickled,
                "pickle_ref_roundtrip": pickled_ref}
        for fn in rows.values():  # warm-up
            fn()
        times: dict[str, list[float]] = {k: [] for k in rows}
        for _ in range(repeat):
            for k, fn in rows.items():
                t0 = time.perf_counter()
                g = fn()
                times[k].append(time.perf_counter() - t0)
                assert g.number_of_edges() == out["m"]
        for k, v in times.items():
            out[f"{k}_s"] = statistics.median(v)
        same = (cached().labels == parsed.labels and (cached().indices == parsed.indices).all())
        out["identical"] = bool(same)
        code = ("import resource, sys; from anonspread.spread.graphfile import read_edgelist; "
                f"g = read_edgelist({path!r}, cache_dir={cache!r}); g.indices.sum(); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        base = ("import resource; import anonspread.spread.graphfile; "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        peak = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True).stdout.split()[-1])
        idle = int(subprocess.run([sys.executable, "-c", base], capture_output=True, text=True,
                                  check=True).stdout.split()[-1])
        out["load_peak_rss_mb"], out["import_rss_mb"] = peak / 1024, idle / 1024
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return out


def _sweep_child(path: str, mode: str, out_dir: str) -> None:
    """One sweep in this fresh interpreter; prints its CPU and its workers' CPU."""
    from anonspread import harness
    from anonspread.harness.executors import ProcessPoolExecutor

    product = {"graph": "edgelist", "graph.path": path, "protocol": "random-diffusion",
               "estimator": "jordan", "T": 3}
    if mode == "no-cache":
        product["graph.cache"] = False
    exp = harness.compose("detection", name=f"bench-gc-{mode}", product=product)
    wall = time.perf_counter()
    res = harness.run(exp, trials=20, batch_size=5, rng=1, out=out_dir, plot=False, progress=False,
                      executor=ProcessPoolExecutor(2))
    wall = time.perf_counter() - wall
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"mode": mode, "wall_s": wall, "parent_cpu_s": me.ru_utime + me.ru_stime,
                      "workers_cpu_s": kids.ru_utime + kids.ru_stime,
                      "rows": [{k: v for k, v in r.items() if k != "graph.cache"} for r in res.table.rows]},
                     default=str))


def _sweep(path: str) -> list[dict]:
    from anonspread.spread import graphfile as gf

    work = tempfile.mkdtemp(prefix="bench-gc-sweep-")
    src = os.path.join(work, os.path.basename(path))
    os.symlink(os.path.abspath(path), src)  # the graph file goes beside the link, in `work`
    rows = []
    try:
        for mode in ("no-cache", "cold", "warm"):
            if mode == "cold":
                for f in os.listdir(work):
                    if f.endswith(gf.GRAPH_FILE_SUFFIX):
                        os.unlink(os.path.join(work, f))
            proc = subprocess.run([sys.executable, __file__, "--sweep-child", mode, src, work],
                                  capture_output=True, text=True, check=True)
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert len({json.dumps(r.pop("rows"), sort_keys=True) for r in rows}) == 1, "sweep results differ"
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sweep", metavar="FILE")
    ap.add_argument("--sweep-child", nargs=3, metavar=("MODE", "FILE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.sweep_child:
        mode, path, out = args.sweep_child
        _sweep_child(path, mode, out)
        return
    for path in args.files:
        r = _measure_file(path, args.repeat)
        print(f"{path}: {r['m']:,} edges, {r['n']:,} nodes, text {r['bytes'] / 1e6:.0f} MB, "
              f"graph file {r['graph_file_bytes'] / 1e6:.0f} MB")
        print(f"  first read: parse {r['parse_s']:.2f} s ({r['parse_cpu_s']:.2f} s CPU) "
              f"+ write graph file {r['write_s']:.2f} s")
        print(f"  cached load (read_edgelist, unchanged file): {r['cached_load_s']:.3f} s "
              f"(of which SHA-256 of the source {r['source_hash_s']:.3f} s); "
              f"load_graph(verify=False) {r['load_no_verify_s']:.4f} s")
        print(f"  pickle round trip of the parsed graph: {r['pickle_roundtrip_s']:.3f} s, "
              f"{r['pickle_bytes'] / 1e6:.1f} MB; of the mapped graph: "
              f"{r['pickle_ref_roundtrip_s']:.4f} s, {r['pickle_ref_bytes']} bytes")
        print(f"  a fresh process mapping it: peak RSS {r['load_peak_rss_mb']:.0f} MB "
              f"(imports alone {r['import_rss_mb']:.0f} MB); identical to the parse: {r['identical']}")
        print(f"  ratio first read / cached load: {r['parse_s'] / r['cached_load_s']:.0f}x")
    if args.sweep:
        print(f"2-worker process-pool sweep on {args.sweep} (detection, random diffusion, Jordan, "
              "T=3, 20 trials): CPU seconds")
        for r in _sweep(args.sweep):
            print(f"  {r['mode']:>8}: parent {r['parent_cpu_s']:.1f} s, workers {r['workers_cpu_s']:.1f} s, "
                  f"total {r['parent_cpu_s'] + r['workers_cpu_s']:.1f} s, wall {r['wall_s']:.1f} s")
        print("  same CSV in the three runs: True")


if __name__ == "__main__":
    main()
