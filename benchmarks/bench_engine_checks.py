"""Per-call cost of the engine's input checks (issue 33, class 5).

Each public engine entry point checks its arrays once per call (``engine/_inputs.py``). This
times the hot entry points through their checked wrappers and the same compiled kernel
called directly with the arrays the wrapper would pass, interleaved (wrapper, kernel,
wrapper, ...) after a warm-up; the figure is the best of ``--rounds`` rounds of ``--calls``
calls each, in microseconds per call.

    python benchmarks/bench_engine_checks.py [--rounds 5] [--calls 2000]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

from anonspread.engine import _fused, _rumor, _scoring, _spreading, fused, rumor, scoring, spreading
from anonspread.engine.store import new_finite_store


def _csr(g):
    a = nx.to_scipy_sparse_array(g, nodelist=range(g.number_of_nodes()), format="csr")
    return a.indptr.astype(np.int64), a.indices.astype(np.int32)


def _cases(n: int):
    tree = nx.random_labeled_tree(n, seed=1) if hasattr(nx, "random_labeled_tree") else nx.random_tree(n, seed=1)
    tp, ti = _csr(tree)
    gp, gi = _csr(nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=1))
    out = np.zeros(n)
    ecc = np.zeros(n, np.int64)
    top = np.zeros(n, bool)
    cases = {
        f"rumor.tree_rumor (tree, n={n})": (lambda: rumor.tree_rumor(tp, ti, out),
                                           lambda: _rumor.py_tree_rumor(tp, ti, out)),
        f"scoring.tree_eccentricity (tree, n={n})": (
            lambda: scoring.tree_eccentricity(tp, ti, ecc),
            lambda: _scoring.py_tree_eccentricity(tp, ti, ecc)),
        f"rumor.graph_rumor_top (cycles, n={n})": (
            lambda: rumor.graph_rumor_top(gp, gi, 0, 1e-9, top),
            lambda: _rumor.py_graph_rumor_top(gp, gi, 0, 1e-9, top.view(np.uint8))),
    }
    # one trial of random diffusion on a 10^5-node graph (the checks must not cost O(graph))
    big = nx.random_regular_graph(4, 100_000, seed=1)
    bp, bi = _csr(big)
    store = new_finite_store(bp, bi)
    params = np.array([0.5])
    vs, sizes = np.empty(5, np.int32), np.empty(5, np.int64)
    gen = np.random.default_rng(0)

    def run_checked():
        k = spreading.run_protocol(spreading.RANDOM_DIFFUSION, store, 0, 4, params, gen, vs, sizes)
        store.reset_run_state(k)

    def run_direct():
        k = _spreading.run_one(spreading.RANDOM_DIFFUSION, store, 0, 4, params, gen, vs, sizes, 0)
        store.reset_run_state(k)

    cases["spreading.run_protocol (T=4, 10^5-node graph)"] = (run_checked, run_direct)
    # the fused loop's scoring phase: one chunk of 200 path snapshots of 30 nodes, Jordan
    m, t = 30, 200
    noff = np.arange(t + 1, dtype=np.int64) * m
    args = [0, t, noff, np.full(t, m, np.int64), np.full(t, -1, np.int64),
            np.tile(np.arange(m, dtype=np.int32), t), np.tile(np.arange(-1, m - 1, dtype=np.int64), t),
            np.tile(np.r_[1, np.full(m - 2, 2), 1].astype(np.int64), t), np.zeros(2, np.int64),
            np.zeros(1, np.int32), np.array([1], np.int64), np.full((1, t), 0.5), np.zeros(0, np.int64),
            np.zeros((1, t), np.int8), np.zeros((1, t)), np.zeros((1, t), np.int64),
            np.zeros((1, t), np.int64), np.zeros((1, t))]
    kw = dict(T=m, lazy=True, tree_graph=True, centre_known=False)
    cases[f"fused.score_chunk (Jordan, {t} snapshots of {m} nodes)"] = (
        lambda: fused.score_chunk(*args, **kw), lambda: _fused.score_chunk(*args, **kw))
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    a = ap.parse_args()
    cases = {}
    for n in (30, 1000):
        cases.update(_cases(n))
    print(f"{'entry point':58s} {'checked us':>11s} {'kernel us':>10s} {'overhead us':>12s}")
    for name, (checked, direct) in cases.items():
        calls = a.calls if "score_chunk" not in name and "1000" not in name else max(a.calls // 20, 20)
        best = [float("inf"), float("inf")]
        for f in (checked, direct):
            f()
        for _ in range(a.rounds):
            for i, f in enumerate((checked, direct)):
                t0 = time.perf_counter()
                for _ in range(calls):
                    f()
                best[i] = min(best[i], (time.perf_counter() - t0) / calls * 1e6)
        print(f"{name:58s} {best[0]:11.1f} {best[1]:10.1f} {best[0] - best[1]:12.1f}")


if __name__ == "__main__":
    main()
