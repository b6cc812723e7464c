"""Rumour centrality's certified top-and-rank against brute force (issue 32).

The reference here shares no code with the engine: for every candidate v, a plain BFS of the
infected subgraph rooted at v (neighbours in the order of ``Snapshot.subgraph()``, a node's
parent the first dequeued neighbour that reaches it), its subtree sizes, and
``R(v) = n! / prod_u T_u`` as an exact integer ratio. Exact ties (equal products) must be
ties of the kernels (relative tolerance ``TIE_RTOL`` on ``log R``), and distinct products are
kept well apart from it, so the reference needs no floating-point tie rule of its own.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

import networkx as nx
import numpy as np

from anonspread import adversaries as A
from anonspread.adversaries.scores import TIE_RTOL
from anonspread.engine import rumor as R
from anonspread.engine import rumor_threads as P


def _brute_products(indptr: np.ndarray, indices: np.ndarray) -> list[int]:
    """``prod_u T_u`` of the BFS tree rooted at every node (exact integers)."""
    n = indptr.shape[0] - 1
    out = []
    for v in range(n):
        parent = [-2] * n
        parent[v] = -1
        order = [v]
        queue = deque([v])
        while queue:
            x = queue.popleft()
            for w in indices[indptr[x]:indptr[x + 1]].tolist():
                if parent[w] == -2:
                    parent[w] = x
                    order.append(w)
                    queue.append(w)
        size = [1] * n
        for x in reversed(order[1:]):
            size[parent[x]] += size[x]
        out.append(math.prod(size))
    return out


def _graphs(rng: np.random.Generator):
    """Small connected graphs with cycles: symmetric ones (many exact ties), random ones,
    trees with chords, cycles with pendant twins (ties between leaves and between roots)."""
    fixed = [
        nx.cycle_graph(7), nx.cycle_graph(10), nx.complete_graph(5),
        nx.complete_bipartite_graph(3, 4), nx.petersen_graph(), nx.hypercube_graph(3),
        nx.circular_ladder_graph(6), nx.grid_2d_graph(3, 4), nx.wheel_graph(8),
        nx.circulant_graph(12, [1, 3]), nx.barbell_graph(4, 2), nx.lollipop_graph(4, 3),
    ]
    yield from fixed
    for _ in range(140):
        kind = int(rng.integers(5))
        seed = int(rng.integers(1 << 30))
        n = int(rng.integers(5, 26))
        if kind == 0:
            G = nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.5)), seed=seed)
        elif kind == 1:
            G = nx.random_regular_graph(3, n + n % 2, seed=seed)
        elif kind == 2:
            G = nx.random_labeled_tree(n, seed=seed)
            for _ in range(int(rng.integers(1, 4))):
                a, b = (int(x) for x in rng.integers(n, size=2))
                if a != b:
                    G.add_edge(a, b)
        elif kind == 3:  # a cycle with twin leaves hung on some of its nodes
            G = nx.cycle_graph(int(rng.integers(3, 9)))
            for a in list(G.nodes()):
                if rng.random() < 0.5:
                    m = G.number_of_nodes()
                    G.add_edges_from([(a, m), (a, m + 1)])
        else:  # a dense power-law-ish graph: hubs and a 2-core holding most nodes
            G = nx.barabasi_albert_graph(n, int(rng.integers(2, 4)), seed=seed)
        G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
        nodes = list(G.nodes())
        perm = rng.permutation(len(nodes))  # new labels: new adjacency order, new BFS trees
        yield nx.relabel_nodes(G, {v: int(perm[i]) for i, v in enumerate(nodes)})


def test_rumor_top_and_rank_equal_brute_force_on_small_graphs_with_cycles_ties_included():
    rng = np.random.default_rng(20261128)
    cases = multi_top = tied_sources = pruned = 0
    for G in _graphs(rng):
        infected = list(G.nodes())
        if rng.random() < 0.4 and len(infected) > 6:  # a connected part of G
            start = infected[int(rng.integers(len(infected)))]
            infected = list(nx.bfs_tree(G, start, depth_limit=int(rng.integers(2, 4))).nodes())
        snap = A.Snapshot(G, infected, T=3)
        if snap.subgraph_is_tree():
            continue
        cases += 1
        indptr, indices = snap.subgraph()
        n = snap.n
        prods = _brute_products(indptr, indices)
        best = min(prods)
        lg = math.lgamma(n + 1.0)
        logs = [lg - math.log(p) for p in prods]
        # the reference needs no tolerance: distinct products differ far beyond TIE_RTOL
        for p, x in zip(prods, logs):
            assert p == best or x < logs[prods.index(best)] - 1e3 * TIE_RTOL * abs(x)
        want_top = [v for v in range(n) if prods[v] == best]
        multi_top += len(want_top) > 1
        for s in range(n):
            greater = sum(p < prods[s] for p in prods)
            tied = sum(p == prods[s] for p in prods)
            assert all(p == prods[s] or abs(Fraction(p, prods[s]) - 1) > 1e-6 for p in prods)
            tied_sources += tied > 1
            top = np.zeros(n, np.bool_)
            got = R.graph_rumor_top(indptr, indices, s, TIE_RTOL, top)
            assert np.flatnonzero(top).tolist() == want_top, (G.edges(), infected, s)
            assert (got[2], got[3]) == (greater, tied), (G.edges(), infected, s)
            assert abs(got[1] - logs[s]) <= 1e-12 * abs(logs[s])
            assert abs(got[0] - logs[want_top[0]]) <= 1e-12 * abs(logs[want_top[0]])
            pruned += got[4] < int(R.two_core(indptr, indices)[0].sum())
            if s == 0:  # the harness's path and the threaded scan: the same answer
                r = A.top_and_rank(snap, "rumor", snap.nodes[s])
                assert sorted(r.maximisers.tolist()) == sorted(snap.nodes[want_top].tolist())
                assert r.rank == 1.0 + greater + (tied - 1) / 2.0
                top2 = np.zeros(n, np.bool_)
                assert P.rumor_scan_parallel(indptr, indices, s, TIE_RTOL, top2, 2, 0)[:5] == got
                assert (top2 == top).all()
    assert cases > 100  # 130 at this seed
    assert multi_top > 20  # several maximisers tied exactly (37)
    assert tied_sources > 500  # sources tied exactly with other nodes (730)
    assert pruned > 60  # and the bounds spared exact evaluations (107)


def _layered(rng: np.random.Generator, nb: int) -> nx.Graph:
    """r - 200 nodes A - 10 hubs H (each adjacent to every A) - nb nodes B (each adjacent to
    every hub) - 30 nodes C (each adjacent to 3 random B): from r, the level of B is found
    bottom-up (the rows of B and C hold fewer entries than a quarter of the hubs') and the
    first hub gets all nb B as children, ordered by their offsets in its row (a scatter
    for nb > 16, an insertion sort below); the C then take the first B of that order."""
    G = nx.Graph()
    A_, H = range(1, 201), range(201, 211)
    B = range(211, 211 + nb)
    G.add_edges_from((0, a) for a in A_)
    G.add_edges_from((a, h) for a in A_ for h in H)
    G.add_edges_from((h, b) for h in H for b in B)
    for c in range(211 + nb, 241 + nb):
        G.add_edges_from((c, int(b)) for b in rng.choice(list(B), 3, replace=False))
    perm = rng.permutation(G.number_of_nodes())
    return nx.relabel_nodes(G, {v: int(perm[v]) for v in G.nodes()})


def test_direction_optimising_core_bfs_gives_the_top_down_trees_on_dense_cores():
    # dense cores (mean degree >= 7) are scanned level by level, bottom-up where the
    # unreached nodes' rows are few: the same trees as the top-down scan of before issue 32
    # (bit for bit) and as brute force. Every row of the CSR is shuffled, so a node's
    # offset in its parent's row (the order of a level's children) follows no numbering.
    rng = np.random.default_rng(32)
    cases = [
        _layered(rng, 20),
        _layered(rng, 10),
        nx.random_regular_graph(8, 200, seed=1),  # padded layout (every row D entries)
        nx.barabasi_albert_graph(300, 5, seed=2),  # hubs: unpadded
        nx.gnp_random_graph(150, 0.15, seed=3),
        nx.connected_watts_strogatz_graph(200, 10, 0.3, seed=4),
    ]
    for case, G in enumerate(cases):
        m = G.number_of_nodes()
        for i, a in enumerate(rng.choice(m, 10, replace=False).tolist()):
            G.add_edges_from([(a, m + 2 * i), (m + 2 * i, m + 2 * i + 1)])  # pendant trees
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        indptr, indices = snap.subgraph()
        indices = indices.copy()
        for v in range(snap.n):
            indices[indptr[v]:indptr[v + 1]] = rng.permutation(indices[indptr[v]:indptr[v + 1]])
        n = snap.n
        lg = math.lgamma(n + 1.0)
        ref = np.array([lg - math.log(p) for p in _brute_products(indptr, indices)])
        # every source of the layered graphs (each source's score is checked exactly)
        sources = range(n) if case < 2 else rng.choice(n, 10, replace=False).tolist()
        for i, s in enumerate(sources):
            top, top0 = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
            got = R.graph_rumor_top(indptr, indices, s, TIE_RTOL, top)
            old = R._graph_rumor_top_down(indptr, indices, s, TIE_RTOL, top0)
            assert got == old and (top == top0).all()  # bit for bit: the same queue
            tol = TIE_RTOL * max(1.0, abs(ref[s]))
            assert got[2] == int((ref > ref[s] + tol).sum())
            assert got[3] == int((np.abs(ref - ref[s]) <= tol).sum())
            want = ref >= ref.max() - TIE_RTOL * max(1.0, abs(ref.max()))
            assert (top == want).all()
            assert abs(got[1] - ref[s]) <= 1e-12 * abs(ref[s])
            if i < 3:
                top2 = np.zeros(n, np.bool_)
                assert P.rumor_scan_parallel(indptr, indices, s, TIE_RTOL, top2, 2, 0)[:5] == got
