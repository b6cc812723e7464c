"""Bit-for-bit check of the rumour, rumour-thread and literature kernels across builds.

Hashes (SHA-256 of the raw bytes) the outputs of every ported function on fixed-seed
inputs: ``graph_rumor_top`` with ties, dense and sparse cores, pendant trees; the pieces of
its scan (cut bound, 2-core, core CSR and flat form, the setup with its argsort order, the
core evaluations); ``tree_rumor`` and ``graph_rumor``; ``rumor_top`` with threads 1 and 2 and
``min_core`` small enough to take the threaded path; NETSLEUTH on its dense and CG paths;
the binomial tail tables; LISN on graphs (one with several components) and on the regular
tree; and the Python estimators that use them (``rumor_centrality``, ``top_and_rank``,
``netsleuth``, ``lisn``). Run it with the numba baseline and with the Cython build (from a
directory that is not a checkout, so each imports its installed package) and compare::

    cd /tmp && /work/venv-numba-base/bin/python /path/to/check_rumor_port.py > numba.txt
    cd /tmp && /work/venv-rumorcy/bin/python /path/to/check_rumor_port.py > cython.txt
    diff numba.txt cython.txt && echo identical

Each line is ``name hash``; the last line hashes all of them.
"""

from __future__ import annotations

import hashlib
import math

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread import spread

try:  # the Cython build
    from anonspread.engine import rumor as R
except ImportError:  # the numba baseline: the same functions in scoring
    from anonspread.engine import scoring as R
from anonspread.engine import literature as L
from anonspread.engine import rumor_threads as P

LINES: list[str] = []


def _h(name: str, *objs) -> None:
    h = hashlib.sha256()
    for o in objs:
        if isinstance(o, np.ndarray):
            h.update(str(o.dtype).encode())
            h.update(np.ascontiguousarray(o).tobytes())
        elif isinstance(o, (tuple, list)):
            for x in o:
                h.update(np.asarray(x).tobytes() if isinstance(x, np.ndarray) else repr(
                    float(x) if isinstance(x, (float, np.floating)) else
                    int(x) if isinstance(x, (int, np.integer, bool, np.bool_)) else x).encode())
        else:
            h.update(repr(float(o) if isinstance(o, (float, np.floating)) else o).encode())
    LINES.append(f"{name} {h.hexdigest()[:24]}")


def _pendant(G: nx.Graph, k: int, seed: int) -> nx.Graph:
    rng = np.random.default_rng(seed)
    G = nx.convert_node_labels_to_integers(G)
    nxt = G.number_of_nodes()
    for _ in range(k):
        u = int(rng.integers(nxt))
        for _ in range(int(rng.integers(1, 4))):  # a small tree hanging from u
            G.add_edge(u, nxt)
            u = nxt if rng.random() < 0.5 else u
            nxt += 1
    return G


def _subdivided(G: nx.Graph, seed: int) -> nx.Graph:
    rng = np.random.default_rng(seed)
    G = nx.convert_node_labels_to_integers(G)
    H = nx.Graph()
    nxt = G.number_of_nodes()
    for u, v in G.edges():
        k = int(rng.integers(0, 3))
        path = [u, *range(nxt, nxt + k), v]
        nxt += k
        nx.add_path(H, path)
    return H


def _largest(G: nx.Graph) -> nx.Graph:
    G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
    rng = np.random.default_rng(G.number_of_nodes())
    perm = rng.permutation(G.number_of_nodes()).tolist()
    return nx.relabel_nodes(G, dict(zip(G.nodes(), perm)))


def graphs() -> dict[str, nx.Graph]:
    sym = nx.cycle_graph(12)  # ties: every node of the cycle, symmetric pendant pairs
    for i in range(0, 12, 3):
        sym.add_edge(i, 100 + i)
        sym.add_edge(i, 200 + i)
    return {
        "ws-pendant": _largest(_pendant(nx.connected_watts_strogatz_graph(400, 4, 0.3, seed=1), 60, 2)),
        "cubic-subdivided": _largest(_pendant(_subdivided(nx.random_regular_graph(3, 300, seed=3), 4), 40, 5)),
        "dense-gnp": _largest(nx.gnp_random_graph(150, 0.12, seed=6)),  # mean degree ~18: dense kernel
        "ties-cycle": _largest(sym),
        "ties-bipartite": _largest(nx.complete_bipartite_graph(3, 7)),
        "cycle": _largest(nx.cycle_graph(9)),
        "large-sparse": _largest(_pendant(nx.random_regular_graph(3, 3000, seed=7), 300, 8)),
    }


def trees() -> dict[str, nx.Graph]:
    return {
        "tree-random": _largest(nx.random_labeled_tree(300, seed=9) if hasattr(nx, "random_labeled_tree")
                                else nx.random_tree(300, seed=9)),
        "tree-path": _largest(nx.path_graph(50)),
        "tree-star": _largest(nx.star_graph(20)),
    }


def check_rumour() -> None:
    for name, G in {**graphs(), **trees()}.items():
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        ip, ix = snap.subgraph()
        n = snap.n
        out = np.empty(n)
        if snap.subgraph_is_tree():
            R.tree_rumor(ip, ix, out)
            _h(f"tree_rumor/{name}", out)
        if n <= 500:
            R.graph_rumor(ip, ix, out)
            _h(f"graph_rumor/{name}", out)
        R.cut_rumor_bound(ip, ix, out)
        _h(f"cut_rumor_bound/{name}", out)
        core, att, psize, weight, const = R.two_core(ip, ix)
        _h(f"two_core/{name}", core, att, psize, weight, const)
        sources = sorted({0, n - 1, n // 2, int(np.argmax(core)) if core.any() else 0})
        for s in sources:
            st = R._rumor_setup(ip, ix, s)
            _h(f"rumor_setup/{name}/{s}", *[np.asarray(x) for x in st])
            top = np.zeros(n, np.bool_)
            r = R.graph_rumor_top(ip, ix, s, 1e-9, top)
            _h(f"graph_rumor_top/{name}/{s}", r, top)
            for threads, min_core in ((1, 10), (2, 10), (2, P.PARALLEL_MIN_CORE)):
                top = np.zeros(n, np.bool_)
                r = P.rumor_top(ip, ix, s, 1e-9, top, threads, min_core)
                _h(f"rumor_top/{name}/{s}/t{threads}/m{min_core}", r, top)
        if core.any():
            start = int(np.flatnonzero(core)[-1])
            cid, cptr, cind, cw, cwe = R._core_csr(ip, ix, core, weight, start)
            _h(f"core_csr/{name}", cid, cptr, cind, cw, cwe)
            fptr, find, fwe = R._core_flat(cptr, cind, cwe)
            _h(f"core_flat/{name}", fptr, find, fwe)
            nc = cw.shape[0]
            ws = R._core_workspace(fptr, 1)
            got = []
            for k, c in enumerate(range(0, nc, max(1, nc // 50))):
                got.append(R._core_log_sizes(fptr, find, fwe, cw, c, 2 * k + 1, ws[0][0], ws[1][0],
                                            ws[2][0]))
                got.append(R._core_log_sizes_dense(fptr, find, fwe, cw, c, 2 * k + 2, ws[0][0],
                                                  ws[1][0], ws[2][0]))
            _h(f"core_log_sizes/{name}", np.array(got))
        # the public estimators
        sc = A.rumor_centrality(snap).array if n <= 500 else np.zeros(0)
        _h(f"rumor_centrality/{name}", sc)
        for threads in (1, 2):
            tr = A.top_and_rank(snap, "rumor", snap.nodes[0], threads=threads)
            _h(f"top_and_rank/{name}/t{threads}", tr.maximisers, tr.source_score, tr.rank,
               tr.exact_scores)


def check_netsleuth() -> None:
    rng = np.random.default_rng(20)
    base = nx.barabasi_albert_graph(400, 2, seed=21)
    for k in range(12):
        sp = spread.simulate(base, spread.RandomDiffusion(0.4), 3 + k % 4, rng=rng)
        snap = A.observe(sp)
        ip, ix = snap.subgraph()
        gdeg = snap.contact_degrees()
        for dense_max in (L.DENSE_MAX, 0, 10**9):
            out = np.empty(snap.n)
            lam = L.netsleuth_vector(ip, ix, gdeg, dense_max, out)
            _h(f"netsleuth_vector/{k}/{dense_max}", lam, out)
        _h(f"netsleuth/{k}", A.netsleuth(snap).array)
    # the infected set is a whole component: lambda = 0, the constant vector
    G = nx.cycle_graph(30)
    snap = A.Snapshot(G, list(G.nodes()), T=3)
    ip, ix = snap.subgraph()
    out = np.empty(snap.n)
    _h("netsleuth_vector/full", L.netsleuth_vector(ip, ix, snap.contact_degrees(), 0, out), out)
    # a larger snapshot where the CG path is what runs
    G = nx.random_regular_graph(4, 3000, seed=22)
    sp = spread.simulate(G, spread.RandomDiffusion(0.5), 9, source=0, rng=23)
    snap = A.observe(sp)
    _h(f"netsleuth/large-{snap.n}", A.netsleuth(snap).array)


def check_lisn() -> None:
    for T, p in ((0, 0.3), (1, 1.0), (5, 0.3), (8, 0.0), (12, 0.77), (30, 0.5)):
        log_p = np.empty(T + 2)
        log_q = np.empty(T + 2)
        L.binomial_tail_tables(T, p, log_p, log_q)
        _h(f"binomial_tail_tables/{T}/{p}", log_p, log_q)
    rng = np.random.default_rng(30)
    # a contact graph with several components (a candidate cannot reach them all: -inf)
    comps = nx.disjoint_union_all([nx.barabasi_albert_graph(300, 2, seed=31),
                                   nx.cycle_graph(20), nx.path_graph(5)])
    for k in range(6):
        sp = spread.simulate(comps, spread.RandomDiffusion(0.5), 4, source=k, rng=rng)
        snap = A.observe(sp)
        for rate in (None, 0.5):
            _h(f"lisn/graph/{k}/{rate}", A.lisn(snap, rate).array)
        _h(f"lisn/graph-exp/{k}", A.lisn(snap, 0.7, delays="exponential").array)
        g = snap.graph
        loc = np.full(g.number_of_nodes(), -1, np.int64)
        loc[snap.index] = np.arange(snap.n)
        log_p = np.empty(6)
        log_q = np.empty(6)
        L.binomial_tail_tables(4, 0.5, log_p, log_q)
        cand = np.concatenate([snap.index, np.array([300, 321], np.int64)])  # other components
        for cap in (6, -1):
            out = np.empty(cand.shape[0])
            L.lisn_graph(g.indptr, g.indices, cand, loc, snap.n, log_p, log_q, cap, out)
            _h(f"lisn_graph/{k}/{cap}", out)
    for d in (3, 4):
        for T in (4, 7):
            sp = spread.simulate(spread.graphs.regular_tree(d), spread.RandomDiffusion(0.6), T,
                                 rng=40 + T)
            snap = A.observe(sp)
            _h(f"lisn/tree/{d}/{T}", A.lisn(snap, 0.6).array)
            ip, ix = snap.subgraph()
            log_p = np.empty(T + 2)
            log_q = np.empty(T + 2)
            L.binomial_tail_tables(T, 0.6, log_p, log_q)
            out = np.empty(snap.n)
            L.lisn_regular_tree(ip, ix, d, log_p, log_q, out)
            _h(f"lisn_regular_tree/{d}/{T}", out)


def main() -> None:
    check_rumour()
    check_netsleuth()
    check_lisn()
    for line in LINES:
        print(line)
    print("ALL", hashlib.sha256("\n".join(LINES).encode()).hexdigest()[:24], len(LINES),
          "hashes", f"lgamma(4)={math.lgamma(4.0)!r}")


if __name__ == "__main__":
    main()
