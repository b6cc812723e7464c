"""Benchmark: the Jordan kernel of two builds of anonspread, interleaved, on the same snapshots
(issue 32 item 3; not a test).

Run::

    # once: dump the snapshots of bench_jordan_bfs.py's sets (and any --csr prefix) to DIR
    python benchmarks/bench_jordan_ab.py dump --dir /tmp/jb/sets --sets slashdot,reg4,cl6,cl7
    # or: the first k infected of a dumped snapshot whose nodes are in infection order
    python benchmarks/bench_jordan_ab.py dump --dir /tmp/jb/r8k --sets none --from /tmp/jb/r8 \
        --k 100000,300000,1000000
    # then: the kernel of this interpreter's build against another build's interpreter
    python benchmarks/bench_jordan_ab.py run --dir /tmp/jb/sets --old-python /path/to/old/bin/python \
        --rounds 2

Each measurement is one ``scoring._jordan_place`` call (the kernel of ``graph_jordan_top``)
on a dumped subgraph, source = the dumped source position, in a fresh process of the build's
interpreter: CPU seconds (``time.process_time``) of the call alone, after a warm-up call on a
small graph in the same process; the builds alternate which goes first per round. Printed
per snapshot: nodes, arcs, each build's BFS equivalents, the answer (ecc(s), minimum,
#below, #tied, #centres) and a digest of every node's place (below, at or above ecc(s);
a centre or not), which must be the same for both builds, and the CPU seconds of every run.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def one(prefix: str) -> dict:
    """The kernel on one dumped snapshot, in this process (this interpreter's build)."""
    import hashlib

    from bench_jordan_bfs import nx_small

    from anonspread.engine import scoring as K

    ip, ix = nx_small()
    n = ip.shape[0] - 1
    K._jordan_place(ip, ix, 0, np.zeros(n, np.int64), np.full(n, K.BIG, np.int64), -1,
                    np.zeros(1, np.int64))
    ip = np.load(prefix + "_indptr.npy")
    ix = np.load(prefix + "_indices.npy")
    s = int(np.load(prefix + "_s.npy")[0])
    n = ip.shape[0] - 1
    lo = np.zeros(n, np.int64)
    hi = np.full(n, K.BIG, np.int64)
    t0 = time.process_time()
    t, nbfs, left = K._jordan_place(ip, ix, s, lo, hi, -1, np.zeros(1, np.int64))
    cpu = time.process_time() - t0
    exact = lo == hi
    emin = int(lo[exact].min())
    top = exact & (lo == emin)
    place = np.where(hi < t, 0, np.where(lo > t, 2, 1)).astype(np.uint8)
    assert left == 0 and np.all((place != 1) | exact)
    digest = hashlib.sha256(place.tobytes() + top.astype(np.uint8).tobytes()).hexdigest()[:12]
    ans = [int(t), emin, int(np.count_nonzero(place == 0)), int(np.count_nonzero(place == 1)),
           int(np.count_nonzero(top))]
    return {"cpu": cpu, "bfs": int(nbfs), "answer": ans, "digest": digest, "n": n,
            "arcs": int(ix.shape[0])}


def first_k(prefix: str, ks: list[int]):
    """The subgraphs of the first k nodes of a dumped snapshot (local ids in infection order,
    the source at 0: every prefix is connected), source 0."""
    ip = np.load(prefix + "_indptr.npy")
    ix = np.load(prefix + "_indices.npy")
    assert int(np.load(prefix + "_s.npy")[0]) == 0
    for k in ks:
        rows = ix[: ip[k]]
        keep = rows < k
        row_of = np.repeat(np.arange(k), np.diff(ip[: k + 1]))
        sub_ip = np.zeros(k + 1, np.int64)
        np.cumsum(np.bincount(row_of[keep], minlength=k), out=sub_ip[1:])
        yield f"{os.path.basename(prefix)} first {k}", (sub_ip, rows[keep].astype(np.int32)), 0


def dump(args) -> None:
    from bench_jordan_bfs import snapshots

    os.makedirs(args.dir, exist_ok=True)
    sets = [] if args.sets == "none" else args.sets.split(",")
    found = list(snapshots(sets, args.cache)) if sets else []
    if args.src:
        found += list(first_k(args.src, [int(k) for k in args.k.split(",")]))
    for i, (label, (ip, ix), s) in enumerate(found):
        prefix = os.path.join(args.dir, f"{i:02d}-" + label.replace(" ", "_").replace("^", ""))
        np.save(prefix + "_indptr.npy", np.ascontiguousarray(ip, np.int64))
        np.save(prefix + "_indices.npy", np.ascontiguousarray(ix, np.int32))
        np.save(prefix + "_s.npy", np.array([s]))
        print(prefix, flush=True)


def run(args) -> None:
    prefixes = sorted(p[: -len("_indptr.npy")] for p in glob.glob(os.path.join(args.dir, "*_indptr.npy")))
    prefixes += args.csr
    builds = {"old": args.old_python, "new": sys.executable}
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average "
          f"{os.getloadavg()[0]:.1f} (2 cores); old = {args.old_python}, new = {sys.executable}",
          flush=True)
    me = os.path.abspath(__file__)
    for prefix in prefixes:
        got = {"old": [], "new": []}
        for r in range(args.rounds):
            for b in (("old", "new") if r % 2 == 0 else ("new", "old")):
                out = subprocess.run([builds[b], me, "one", prefix], capture_output=True, text=True,
                                     timeout=args.timeout, check=True, cwd="/")
                got[b].append(json.loads(out.stdout.strip().splitlines()[-1]))
        o, w = got["old"][0], got["new"][0]
        same = o["answer"] == w["answer"] and o["digest"] == w["digest"]
        mo = min(x["cpu"] for x in got["old"])
        mn = min(x["cpu"] for x in got["new"])
        fmt = lambda runs: ", ".join(f"{x['cpu']:.3f}" for x in runs)  # noqa: E731
        print(f"{os.path.basename(prefix)}: n={w['n']} arcs={w['arcs']} answer={w['answer']} "
              f"same answer and places={same} | BFS old {o['bfs']} new {w['bfs']} | old "
              f"{fmt(got['old'])} | new {fmt(got['new'])} | old/new (min) {mo / mn:.2f} | "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--dir", required=True)
    d.add_argument("--sets", default="slashdot,reg4,cl6,cl7", help="comma list, or none")
    d.add_argument("--from", dest="src", default=None,
                   help="a dumped snapshot prefix (nodes in infection order) to cut at --k")
    d.add_argument("--k", default="100000,300000,1000000", help="comma list of prefix sizes")
    d.add_argument("--cache", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "anonspread-bench"))
    r = sub.add_parser("run")
    r.add_argument("--dir", required=True)
    r.add_argument("--csr", nargs="*", default=[], help="further dumped snapshot prefixes")
    r.add_argument("--old-python", required=True)
    r.add_argument("--rounds", type=int, default=2)
    r.add_argument("--timeout", type=float, default=900.0)
    o = sub.add_parser("one")
    o.add_argument("prefix")
    args = ap.parse_args()
    if args.cmd == "one":
        print(json.dumps(one(args.prefix)))
    elif args.cmd == "dump":
        dump(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
