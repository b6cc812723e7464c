"""Bit-for-bit check of the scoring port (issue 22): hash every estimator's outputs at fixed seeds.

Runs the engine's scoring kernels (``anonspread.engine.scoring``: tree passes,
eccentricities, the Jordan machinery, ML message passing and the known-centre ball,
summaries, BFS), the Python-level estimators (Jordan, rumour, ML, NETSLEUTH, LISN,
``top_and_rank``) and ``adversaries.simulate_and_score`` with every estimator code on
finite graphs (trees, graphs with cycles, several components, vertex-transitive graphs
full of ties) and lazy trees, and writes one sha256 per case::

    cd /tmp/x && /work/venv-numba-base/bin/python /path/to/check_scoring_port.py --out numba.json
    python benchmarks/check_scoring_port.py --out cython.json
    python benchmarks/check_scoring_port.py --compare numba.json cython.json

Run it from a directory that is not a checkout to import the installed package. Not a test
(the baseline is another build); a case that raises records the exception's type and
message instead of a hash.
"""

# Every closure below is called at once by _run, inside its loop iteration:
# ruff: noqa: B023

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread as S
from anonspread.engine import scoring as K


def _canon(x) -> bytes:
    if isinstance(x, np.ndarray):
        if x.dtype == np.bool_:
            x = x.astype(np.uint8)
        elif np.issubdtype(x.dtype, np.integer):
            x = x.astype(np.int64)
        elif np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float64)
        return str(x.shape).encode() + np.ascontiguousarray(x).tobytes()
    if isinstance(x, (tuple, list)):
        return b"(" + b",".join(_canon(y) for y in x) + b")"
    if isinstance(x, dict):
        return b"{" + b",".join(_canon(k) + b":" + _canon(x[k]) for k in sorted(x)) + b"}"
    if isinstance(x, (float, np.floating)):
        return float(x).hex().encode()
    if isinstance(x, (bool, np.bool_)):
        return b"T" if x else b"F"
    if isinstance(x, (int, np.integer)):
        return str(int(x)).encode()
    return repr(x).encode()


def _digest(x) -> str:
    return hashlib.sha256(_canon(x)).hexdigest()


# ----------------------------------------------------------------- graphs


def _prufer_tree(n: int, seed: int) -> nx.Graph:
    rng = np.random.default_rng(seed)
    return nx.from_prufer_sequence(rng.integers(0, n, n - 2).tolist())


def _trees() -> dict[str, nx.Graph]:
    cat = nx.path_graph(30)
    for i in range(30):
        cat.add_edge(i, 30 + i)
    return {
        "path40": nx.path_graph(40),
        "path41": nx.path_graph(41),
        "star25": nx.star_graph(25),
        "balanced3x5": nx.balanced_tree(3, 5),
        "balanced2x8": nx.balanced_tree(2, 8),
        "caterpillar": cat,
        "prufer200": _prufer_tree(200, 1),
        "prufer2000": _prufer_tree(2000, 2),
        "k2": nx.path_graph(2),
        "k1": nx.empty_graph(1),
    }


def _cyclic() -> dict[str, nx.Graph]:
    return {
        "cycle30": nx.cycle_graph(30),
        "cycle31": nx.cycle_graph(31),
        "petersen": nx.petersen_graph(),
        "complete12": nx.complete_graph(12),
        "grid15x20": nx.convert_node_labels_to_integers(nx.grid_2d_graph(15, 20)),
        "hypercube9": nx.convert_node_labels_to_integers(nx.hypercube_graph(9)),
        "rrg3_300": nx.random_regular_graph(3, 300, seed=3),
        "rrg4_2000": nx.random_regular_graph(4, 2000, seed=4),
        "ws500": nx.connected_watts_strogatz_graph(500, 6, 0.1, seed=5),
        "barbell": nx.barbell_graph(10, 15),
        "lollipop": nx.lollipop_graph(12, 20),
        "tree_plus_cycle": nx.compose(_prufer_tree(300, 6), nx.cycle_graph(40)),
    }


def _csr(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    a = nx.to_scipy_sparse_array(g, nodelist=sorted(g.nodes()), format="csr")
    return a.indptr.astype(np.int64), a.indices.astype(np.int32)


# ----------------------------------------------------------------- cases


def kernel_cases(out: dict) -> None:
    for name, g in {**_trees(), **_cyclic()}.items():
        ip, ix = _csr(g)
        n = ip.shape[0] - 1
        tree = nx.is_tree(g)
        srcs = sorted({0, n // 3, n - 1})
        if tree:
            ecc = np.empty(n, np.int64)
            out[f"kernel/tree_eccentricity/{name}"] = _run(
                lambda: (K.tree_eccentricity(ip, ix, ecc), ecc)[1])
            for root in srcs:
                def passes(root=root):
                    order = np.empty(n, np.int32)
                    parent = np.empty(n, np.int32)
                    dist = np.full(n, -1, np.int32)
                    k = K.bfs(ip, ix, root, order, parent, dist)
                    mark = np.zeros(n, np.bool_)
                    mark[:: max(1, n // 7)] = True
                    arrs = [np.empty(n, np.int64) for _ in range(4)]
                    K.tree_passes(ip, ix, order, parent, mark, *arrs)
                    return k, order, parent, dist, arrs
                out[f"kernel/bfs+tree_passes/{name}/root{root}"] = _run(passes)
        if nx.is_connected(g) and n > 1:
            if not tree or n < 500:
                ecc = np.empty(n, np.int64)
                out[f"kernel/graph_eccentricity/{name}"] = _run(
                    lambda: (K.graph_eccentricity(ip, ix, ecc), ecc)[1])
            out[f"kernel/graph_radius/{name}"] = _run(lambda: K.graph_radius(ip, ix))
            for s in srcs:
                def jt(s=s):
                    top = np.zeros(n, np.bool_)
                    return K.graph_jordan_top(ip, ix, s, top), top
                out[f"kernel/graph_jordan_top/{name}/s{s}"] = _run(jt)

                def place(s=s):
                    lo = np.zeros(n, np.int64)
                    hi = np.full(n, K.BIG, np.int64)
                    trace = np.zeros(4, np.int64)
                    return K._jordan_place(ip, ix, s, lo, hi, 2, trace), lo, hi, trace
                out[f"kernel/_jordan_place2/{name}/s{s}"] = _run(place)

            def bp():
                lo = np.zeros(n, np.int64)
                hi = np.full(n, K.BIG, np.int64)
                r = K.bitparallel_eccentricity(ip, ix, lo, hi, K.BIG // 2, K.BIG)
                return r, lo, hi
            out[f"kernel/bitparallel_eccentricity/{name}"] = _run(bp)

            def offs():
                rng = np.random.default_rng(n)
                cnt = min(64, n)
                srcs_ = rng.choice(n, cnt, replace=False).astype(np.int64)
                off = rng.integers(0, 4, 64).astype(np.int64)
                order = np.empty(n, np.int32)
                dist = np.full(n, -1, np.int32)
                k = K._offset_bfs(ip, ix, srcs_, off, cnt, order, dist)
                seen = np.zeros(n, np.uint64)
                cur = np.zeros(n, np.uint64)
                nxt = np.zeros(n, np.uint64)
                lo = np.zeros(n, np.int64)
                hi = np.full(n, K.BIG, np.int64)
                ecc = np.empty(64, np.int64)
                K._bp_pass(ip, ix, srcs_, cnt, seen, cur, nxt, np.empty(n, np.int64),
                           np.empty(n, np.int64), lo, ecc)
                d2 = np.full(n, -1, np.int32)
                K._bp_bounds(ip, ix, srcs_, cnt, ecc, lo, hi, np.empty(n, np.int32), d2,
                             np.empty(64, np.int64))
                # order[:k] of _offset_bfs may list equal-offset sources' levels in another
                # order: compare the distances and the set reached
                return k, dist, np.sort(order[:k]), ecc[:cnt], lo, hi, seen, cur, nxt, d2
            out[f"kernel/offset_bfs+bp_pass+bp_bounds/{name}"] = _run(offs)
        rng = np.random.default_rng(7)
        for trial in range(3):
            sc = rng.integers(-3, 2, n).astype(np.float64)
            sc[rng.random(n) < 0.2] = -np.inf
            if trial == 2:
                sc[:] = -np.inf
            sc += rng.random(n) * 1e-12 * (trial == 1)
            for s in srcs:
                def summ(s=s, sc=sc):
                    top = np.zeros(n, np.bool_)
                    return K.score_summary(sc, s, 1e-9, top), top
                out[f"kernel/score_summary/{name}/t{trial}/s{s}"] = _run(summ)


def ml_kernel_cases(out: dict) -> None:
    from anonspread.adversaries._tables import ad_tables

    for name, g in _trees().items():
        ip, ix = _csr(g)
        n = ip.shape[0] - 1
        if n < 2:
            continue
        for T in (2, 3, 6, 7, 12, 13):
            for d0 in (3.0, 4.0, float("inf")):
                r_node, alive, dead, r_edge, move = ad_tables(d0, T)
                for check in (True, False):
                    gdeg = np.diff(ip).astype(np.int64)
                    gdeg[:: 5] += 1  # some nodes with uninfected contacts

                    def ml(check=check, gdeg=gdeg, r_node=r_node, alive=alive, dead=dead,
                           r_edge=r_edge, move=move):
                        o = np.empty(n)
                        f = K.ml_tree(ip, ix, gdeg, check, r_node, alive, dead, r_edge, move, o,
                                      K.ml_workspace(n))
                        return f, o
                    out[f"kernel/ml_tree/{name}/T{T}/d{d0}/check{check}"] = _run(ml)
    # the known-centre ball on balls of adaptive diffusion
    for d, T in ((3, 4), (3, 8), (4, 6), (5, 4)):
        r_node, alive, dead, r_edge, move = ad_tables(float(d), T)
        for seed in range(3):
            sp = S.simulate(S.graphs.regular_tree(d), S.AdaptiveDiffusion(), T, rng=seed)
            infected = list(sp.infected)
            loc = {v: i for i, v in enumerate(infected)}
            par = np.array([loc[sp.parent[v]] if sp.parent[v] is not None else -1
                            for v in infected], np.int64)
            c = loc[sp.virtual_source]
            deg = np.zeros(len(infected), np.int64)
            for i, p in enumerate(par):
                if p >= 0:
                    deg[i] += 1
                    deg[p] += 1
            logk = np.array([-np.inf] + [np.log(k) for k in range(1, d + 2)])

            def ball(par=par, deg=deg, c=c, alive=alive, logk=logk):
                m = par.shape[0]
                o = np.empty(m)
                K.ml_ball(par, deg, c, alive, logk, o, np.empty(m), np.empty(m, np.int64))
                return o
            out[f"kernel/ml_ball/d{d}/T{T}/seed{seed}"] = _run(ball)


def estimator_cases(out: dict) -> None:
    graphs = {**_trees(), **_cyclic(), "er_components": nx.gnp_random_graph(400, 0.006, seed=8)}
    for name, g in graphs.items():
        if g.number_of_nodes() < 3:
            continue
        for proto_name, proto, T in (("rd", S.RandomDiffusion(0.5), 6), ("flood", S.Flooding(), 3)):
            for seed in range(2):
                sp = S.simulate(g, proto, T, rng=seed)
                snap = A.observe(sp)
                key = f"est/{name}/{proto_name}/seed{seed}"
                out[f"{key}/jordan"] = _run(lambda: A.jordan_center(snap).array)
                if snap.n <= 1500:
                    out[f"{key}/rumor"] = _run(lambda: A.rumor_centrality(snap).array)
                out[f"{key}/netsleuth"] = _run(lambda: A.netsleuth(snap).array)
                out[f"{key}/lisn"] = _run(lambda: A.lisn(snap).array)
                for est in ("jordan", "rumor", "netsleuth", "lisn"):
                    def tr(est=est):
                        r = A.top_and_rank(snap, est, sp.source)
                        return (r.maximisers, r.source_score, r.rank, r.detection_probability,
                                r.exact_scores)
                    out[f"{key}/top_and_rank/{est}"] = _run(tr)
        if nx.is_tree(g) and g.number_of_nodes() >= 10:
            for T in (4, 5, 8):
                for seed in range(2):
                    sp = S.simulate(g, S.AdaptiveDiffusion(d0=3), T, rng=seed)
                    snap = A.observe(sp)
                    out[f"est/{name}/ad/T{T}/seed{seed}/ml"] = _run(
                        lambda: A.ml_adaptive_diffusion(snap, 3).array)

                    def tr_ml():
                        r = A.top_and_rank(snap, "ml", sp.source, d0=3)
                        return r.maximisers, r.source_score, r.rank, r.detection_probability
                    out[f"est/{name}/ad/T{T}/seed{seed}/top_and_rank/ml"] = _run(tr_ml)
    for d, T in ((3, 6), (4, 5)):
        for seed in range(3):
            sp = S.simulate(S.graphs.regular_tree(d), S.AdaptiveDiffusion(), T, rng=seed)
            snap = A.observe(sp)
            key = f"est/regular_tree{d}/ad/T{T}/seed{seed}"
            out[f"{key}/ml"] = _run(lambda: A.ml_adaptive_diffusion(snap, d).array)
            out[f"{key}/jordan"] = _run(lambda: A.jordan_center(snap).array)
            out[f"{key}/rumor"] = _run(lambda: A.rumor_centrality(snap).array)


def batch_cases(out: dict) -> None:
    finite = {
        "prufer300": _prufer_tree(300, 9),
        "rrg4_500": nx.random_regular_graph(4, 500, seed=10),
        "grid20": nx.convert_node_labels_to_integers(nx.grid_2d_graph(20, 20)),
        "er_components": nx.gnp_random_graph(500, 0.005, seed=11),
        "hypercube8": nx.convert_node_labels_to_integers(nx.hypercube_graph(8)),
        "ws300": nx.connected_watts_strogatz_graph(300, 4, 0.2, seed=12),
    }
    every = ("jordan", "rumor", "netsleuth", "lisn")
    for name, g in finite.items():
        cases = [("rd", S.RandomDiffusion(0.5), 6, every), ("flood", S.Flooding(), 2, every)]
        if nx.is_tree(g):
            cases.append(("ad", S.AdaptiveDiffusion(d0=3), 7, ("ml", *every)))
            cases.append(("ad8", S.AdaptiveDiffusion(d0=3), 8, ("ml", "jordan", "rumor")))
        else:
            cases.append(("ad_cap3", S.AdaptiveDiffusion(d0=4, max_infections_per_step=3), 6,
                          ("ml", *every)))
        for pname, proto, T, ests in cases:
            for seed in range(2):
                out[f"batch/{name}/{pname}/T{T}/seed{seed}"] = _run(
                    lambda: _batch(g, proto, T, 40, ests, seed))
        out[f"batch/{name}/rd/fixed_source"] = _run(
            lambda: _batch(g, S.RandomDiffusion(0.4), 5, 20, every, 5, source=0))
    lazy = {
        "regular3": S.graphs.regular_tree(3),
        "regular4": S.graphs.regular_tree(4),
        "random234": S.graphs.random_tree({2: 0.3, 3: 0.4, 4: 0.3}, rng=13),
        "random1234": S.graphs.random_tree({1: 0.2, 2: 0.2, 3: 0.3, 4: 0.3}, rng=14),
        "line": S.graphs.line(),
    }
    for name, g in lazy.items():
        # lisn sums over every uninfected node: on an infinite tree it needs a regular one
        # (it refuses the irregular random trees, a refusal added after the port)
        tail = ("lisn",) if name.startswith("regular") or name == "line" else ()
        for T in (4, 5, 8, 9):
            for kc in (True, False):
                for ests in (("ml",), ("ml", "jordan", "rumor", "netsleuth", *tail)):
                    if name == "line":
                        proto = S.AdaptiveDiffusion(d0=2)
                    elif name.startswith("regular"):
                        proto = S.AdaptiveDiffusion()
                    else:
                        proto = S.AdaptiveDiffusion(d0=3)
                    out[f"batch/lazy/{name}/ad/T{T}/kc{kc}/{'+'.join(ests)}"] = _run(
                        lambda: _batch(g, proto, T, 60, ests, T, known_centre=kc,
                                       regular_symmetry=False))
        out[f"batch/lazy/{name}/rd/T6"] = _run(
            lambda: _batch(g, S.RandomDiffusion(0.6), 6, 30, ("jordan", "rumor", "netsleuth",
                                                              *tail), 3))
    out["batch/lazy/random234/tree_protocol/T6"] = _run(
        lambda: _batch(lazy["random234"], S.TreeProtocol(), 6, 40, ("ml-tree", "jordan", "rumor"),
                       4))


def _batch(g, proto, T, trials, ests, seed, **kw):
    b = A.simulate_and_score(g, proto, T, trials, estimators=ests, rng=seed, **kw)
    return b.sources, b.n_infected, {
        k: (v.detected, v.detection_probability, v.hops, v.rank, v.tree_hops)
        for k, v in b.estimators.items()
    }


def _run(f) -> str:
    try:
        return _digest(f())
    except Exception as exc:  # recorded, so that both builds can be compared case by case
        return f"ERROR {type(exc).__name__}: {exc}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the hashes (JSON) here")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two hash files")
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(p)) for p in args.compare)
        keys = sorted(set(a) | set(b))
        bad = [k for k in keys if a.get(k) != b.get(k)]
        for k in bad:
            print(f"DIFF {k}\n  {a.get(k)}\n  {b.get(k)}")
        errs = [k for k in keys if str(a.get(k, "")).startswith("ERROR")]
        print(f"{len(keys)} cases, {len(keys) - len(bad)} identical, {len(bad)} different, "
              f"{len(errs)} raising in {args.compare[0]}")
        return 1 if bad else 0
    out: dict[str, str] = {}
    t0 = time.perf_counter()
    for part in (kernel_cases, ml_kernel_cases, estimator_cases, batch_cases):
        t = time.perf_counter()
        part(out)
        print(f"{part.__name__}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    print(f"{len(out)} cases in {time.perf_counter() - t0:.1f} s; "
          f"{sum(v.startswith('ERROR') for v in out.values())} raising", file=sys.stderr)
    text = json.dumps(out, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
