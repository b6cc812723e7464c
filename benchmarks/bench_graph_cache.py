"""A graph read once (issue 32, item 2): first read vs cached load vs pickling, and a sweep.

For each edge list given: the first read (text parse by ``spread.graphs.from_edgelist``,
then the graph file written by ``spread.graphfile.save_graph``), the cached load
(``read_edgelist`` on the unchanged file: SHA-256 of the source, header check, mapping,
CRC-32 of the arrays), a bare ``load_graph(verify=False)``, and pickling the parsed graph
(``pickle.dumps`` + ``loads``, what a task carrying the graph would cost) against pickling
the mapped one (a reference). The load and pickle rows are interleaved, after a warm-up,
median of ``--repeat`` (CPU seconds; wall too). Peak memory (VmHWM) of a fresh process that
only maps the graph and sums its arrays is measured in a subprocess. With ``--cache-dir`` the
graph files are kept, and a later run skips the (minutes-long) first read.

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

import numpy as np


def _cpu() -> float:
    return time.process_time()


def _peak_mb(code: str) -> float:
    """Peak resident memory (VmHWM) of a fresh interpreter running ``code``."""
    code += "; print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def _measure_file(path: str, repeat: int, cache_dir: str | None) -> dict:
    from anonspread.spread import graphfile as gf
    from anonspread.spread.graphs import ContactGraph

    out: dict = {"file": path, "bytes": os.path.getsize(path)}
    cache = cache_dir or tempfile.mkdtemp(prefix="bench-graph-cache-")
    os.makedirs(cache, exist_ok=True)
    try:
        target = gf.graph_file_path(path, cache_dir=cache)
        fresh = not os.path.exists(target)
        if fresh:  # the first read: parse + write the graph file
            t0, c0 = time.perf_counter(), _cpu()
            gf.read_edgelist(path, cache_dir=cache)
            out["first_read_s"], out["first_read_cpu_s"] = time.perf_counter() - t0, _cpu() - c0
        mapped = gf.read_edgelist(path, cache_dir=cache)
        out["n"], out["m"] = mapped.number_of_nodes(), mapped.number_of_edges()
        out["graph_file_bytes"] = os.path.getsize(target)
        # the graph as a parse leaves it (in memory, list labels): what a task would pickle
        parsed = ContactGraph(list(mapped.labels), np.array(mapped.indptr), np.array(mapped.indices),
                              dropped=mapped.dropped, read_info=mapped.read_info)
        ref_blob = pickle.dumps(mapped, protocol=pickle.HIGHEST_PROTOCOL)
        out["pickle_bytes"] = len(pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
        out["pickle_ref_bytes"] = len(ref_blob)

        def cached():
            return gf.read_edgelist(path, cache_dir=cache)

        def bare():
            return gf.load_graph(target, verify=False)

        def source_hash():
            return gf.source_key(path)

        def pickled():
            return pickle.loads(pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))

        def pickled_ref():
            gf._OPENED.clear()  # as in a fresh process: it maps the file again
            return pickle.loads(pickle.dumps(mapped, protocol=pickle.HIGHEST_PROTOCOL))

        rows = {"cached_load": cached, "source_hash": source_hash, "load_no_verify": bare,
                "pickle_roundtrip": pickled, "pickle_ref_roundtrip": pickled_ref}
        for fn in rows.values():  # warm-up
            fn()
        wall: dict[str, list[float]] = {k: [] for k in rows}
        cpu: dict[str, list[float]] = {k: [] for k in rows}
        for _ in range(repeat):
            for k, fn in rows.items():
                t0, c0 = time.perf_counter(), _cpu()
                g = fn()
                wall[k].append(time.perf_counter() - t0)
                cpu[k].append(_cpu() - c0)
                del g  # freeing the result is not the next row's time
        for k in rows:
            out[f"{k}_s"], out[f"{k}_cpu_s"] = statistics.median(wall[k]), statistics.median(cpu[k])
        again = cached()
        out["identical"] = bool(again.labels == parsed.labels and np.array_equal(again.indices, parsed.indices)
                                and np.array_equal(again.indptr, parsed.indptr))
        del again
        out["load_peak_mb"] = _peak_mb(
            "from anonspread.spread.graphfile import read_edgelist; "
            f"g = read_edgelist({path!r}, cache_dir={cache!r}); g.indices.sum(), g.indptr.sum()")
        out["import_peak_mb"] = _peak_mb("import anonspread.spread.graphfile")
    finally:
        if cache_dir is None:
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
    ap.add_argument("--cache-dir", metavar="DIR",
                    help="keep the graph files here (a second run skips the first read); default: a temp dir")
    ap.add_argument("--sweep-child", nargs=3, metavar=("MODE", "FILE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.sweep_child:
        mode, path, out = args.sweep_child
        _sweep_child(path, mode, out)
        return
    for path in args.files:
        r = _measure_file(path, args.repeat, args.cache_dir)
        print(f"{path}: {r['m']:,} edges, {r['n']:,} nodes, text {r['bytes'] / 1e6:.0f} MB, "
              f"graph file {r['graph_file_bytes'] / 1e6:.0f} MB")
        if "first_read_s" in r:
            print(f"  first read (parse + write the graph file): {r['first_read_cpu_s']:.2f} s CPU "
                  f"({r['first_read_s']:.1f} s wall)")
        else:
            print("  first read: not measured (the graph file was in --cache-dir)")
        print(f"  cached load (read_edgelist, unchanged file): {r['cached_load_cpu_s']:.3f} s CPU "
              f"({r['cached_load_s']:.3f} s wall), of which SHA-256 of the source "
              f"{r['source_hash_cpu_s']:.3f} s CPU; load_graph(verify=False) {r['load_no_verify_cpu_s']:.4f} s CPU")
        print(f"  pickle dumps+loads of the graph in memory: {r['pickle_roundtrip_cpu_s']:.3f} s CPU, "
              f"{r['pickle_bytes'] / 1e6:.1f} MB; of the mapped graph: {r['pickle_ref_roundtrip_cpu_s']:.4f} s CPU, "
              f"{r['pickle_ref_bytes']} bytes")
        print(f"  peak memory of a fresh process that maps it and sums the arrays: {r['load_peak_mb']:.0f} MB "
              f"(the imports alone: {r['import_peak_mb']:.0f} MB); identical to the parse: {r['identical']}")
        if "first_read_s" in r:
            print(f"  first read / cached load (CPU): {r['first_read_cpu_s'] / r['cached_load_cpu_s']:.0f}x")
    if args.sweep:
        print(f"2-worker process-pool sweep on {args.sweep} (detection, random diffusion, Jordan, "
              "T=3, 20 trials): CPU seconds")
        for r in _sweep(args.sweep):
            print(f"  {r['mode']:>8}: parent {r['parent_cpu_s']:.1f} s, workers {r['workers_cpu_s']:.1f} s, "
                  f"total {r['parent_cpu_s'] + r['workers_cpu_s']:.1f} s, wall {r['wall_s']:.1f} s")
        print("  same CSV in the three runs: True")


if __name__ == "__main__":
    main()
