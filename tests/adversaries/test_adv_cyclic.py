"""Jordan centre and rumour centrality on graphs with cycles: the certified fast path
(:func:`adversaries.top_and_rank`, the kernels of the Monte Carlo path) gives exactly the
maximisers and the rank of the all-scores definition."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread.adversaries.scores import top_set
from anonspread.engine import rumor as R
from anonspread.engine import scoring as K
from anonspread.errors import GraphError


def _random_graph(rng: np.random.Generator) -> nx.Graph:
    kind = int(rng.integers(6))
    seed = int(rng.integers(1 << 30))
    n = int(rng.integers(4, 45))
    if kind == 0:
        G = nx.gnp_random_graph(n, float(rng.uniform(0.06, 0.35)), seed=seed)
    elif kind == 1:
        d = int(rng.choice([3, 4]))
        G = nx.random_regular_graph(d, n + (n * d) % 2, seed=seed)
    elif kind == 2:
        G = nx.connected_watts_strogatz_graph(n, 4, float(rng.uniform(0.05, 0.5)), seed=seed)
    elif kind == 3:
        G = nx.grid_2d_graph(int(rng.integers(2, 7)), int(rng.integers(2, 7)))
    elif kind == 4:  # a tree with a few chords: long cycles, cut vertices, pendant trees
        G = nx.random_labeled_tree(n, seed=seed)
        for _ in range(int(rng.integers(1, 4))):
            a, b = rng.integers(n, size=2)
            if a != b:
                G.add_edge(int(a), int(b))
    else:  # cycles joined by bridges
        G = nx.cycle_graph(int(rng.integers(3, 9)))
        for _ in range(int(rng.integers(1, 4))):
            m = G.number_of_nodes()
            H = nx.cycle_graph(int(rng.integers(3, 9)))
            G = nx.disjoint_union(G, H)
            G.add_edge(int(rng.integers(m)), m + int(rng.integers(H.number_of_nodes())))
    # relabel at random: the adjacency order (and so the BFS trees) changes too
    nodes = list(G.nodes())
    perm = rng.permutation(len(nodes))
    return nx.relabel_nodes(G, {v: int(perm[i]) for i, v in enumerate(nodes)})


def _random_infected(G: nx.Graph, rng: np.random.Generator) -> list:
    """A connected infected set grown from a random node (the whole component at times)."""
    comp = list(max(nx.connected_components(G), key=len))
    start = comp[int(rng.integers(len(comp)))]
    want = int(rng.integers(1, len(comp) + 1)) if rng.random() < 0.7 else len(comp)
    inf = [start]
    seen = {start}
    frontier = [start]
    while len(inf) < want and frontier:
        x = frontier[int(rng.integers(len(frontier)))]
        new = [w for w in G.neighbors(x) if w not in seen]
        if not new:
            frontier.remove(x)
            continue
        w = new[int(rng.integers(len(new)))]
        seen.add(w)
        inf.append(w)
        frontier.append(w)
    return inf


def _brute(scores: A.Scores, source) -> tuple[set, float, float]:
    top = set(scores.nodes[top_set(scores.array)].tolist())
    return top, A.source_rank(scores, source), A.detection_probability(scores, source)


def test_top_and_rank_equal_the_all_scores_definition_on_random_graphs_with_cycles():
    rng = np.random.default_rng(20261123)
    cyclic = 0
    pruned = 0
    for _ in range(300):
        G = _random_graph(rng)
        infected = _random_infected(G, rng)
        snap = A.Snapshot(G, infected, T=3)
        cyclic += not snap.subgraph_is_tree()
        scores = {"jordan": A.jordan_center(snap), "rumor": A.rumor_centrality(snap)}
        for source in {infected[0], infected[-1], infected[int(rng.integers(len(infected)))]}:
            for name, sc in scores.items():
                top, rank, pdet = _brute(sc, source)
                got = A.top_and_rank(snap, name, source)
                assert set(got.maximisers.tolist()) == top, (name, infected, source)
                assert got.rank == rank, (name, infected, source)
                assert got.detection_probability == pdet
                assert got.source_score == pytest.approx(sc[source], rel=1e-12, abs=1e-12)
                pruned += got.exact_scores < snap.n
    assert cyclic > 200  # most snapshots have cycles: the certified paths ran
    assert pruned > 100  # and the bounds spared exact scores on many of them


def test_cut_vertex_bound_is_above_every_rumour_score_and_exact_on_trees():
    rng = np.random.default_rng(5)
    for _ in range(100):
        G = _random_graph(rng)
        snap = A.Snapshot(G, _random_infected(G, rng), T=3)
        indptr, indices = snap.subgraph()
        ub = np.empty(snap.n)
        R.cut_rumor_bound(indptr, indices, ub)
        exact = A.rumor_centrality(snap).array
        assert np.all(ub >= exact - 1e-9 * np.maximum(1.0, np.abs(exact)))
        if snap.subgraph_is_tree():
            np.testing.assert_allclose(ub, exact, rtol=1e-12, atol=1e-9)


def test_jordan_top_and_rank_on_a_cycle_and_a_theta_graph():
    # every node of a cycle has the same eccentricity: all tie, the source's rank is the mean
    snap = A.Snapshot(nx.cycle_graph(7), range(7), T=3)
    r = A.top_and_rank(snap, "jordan", 3)
    assert sorted(r.maximisers.tolist()) == list(range(7))
    assert (r.rank, r.detection_probability, r.source_score) == (4.0, 1 / 7, -3.0)
    # a 4-cycle with a path of 3 hanging at node 0
    G = nx.cycle_graph(4)
    nx.add_path(G, [0, 4, 5, 6])
    # ecc: 0 -> 3, 1 -> 4, 2 -> 5, 3 -> 4, 4 -> 3, 5 -> 4, 6 -> 5
    assert nx.eccentricity(G) == {0: 3, 1: 4, 2: 5, 3: 4, 4: 3, 5: 4, 6: 5}
    snap = A.Snapshot(G, [6, 5, 4, 0, 1, 2, 3], T=3)
    r = A.top_and_rank(snap, "jordan", 1)
    assert sorted(r.maximisers.tolist()) == [0, 4]
    assert r.rank == 3 + (3 - 1) / 2 and r.detection_probability == 0.0 and r.source_score == -4.0


def test_top_and_rank_passes_estimator_parameters_and_refuses_non_infected_sources():
    from anonspread import spread

    sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6, rng=3)
    snap = A.observe(sp)
    r = A.top_and_rank(snap, "ml", sp.source, d0=3)
    sc = A.ml_adaptive_diffusion(snap, 3)
    assert r.rank == A.source_rank(sc, sp.source) and r.exact_scores == snap.n
    with pytest.raises(GraphError, match="infected node"):
        A.top_and_rank(snap, "jordan", 10**9)


def test_bit_parallel_eccentricities_equal_networkx():
    rng = np.random.default_rng(11)
    for _ in range(60):
        G = nx.convert_node_labels_to_integers(_random_graph(rng))
        G = G.subgraph(max(nx.connected_components(G), key=len))
        G = nx.convert_node_labels_to_integers(G)
        snap = A.Snapshot(G, range(G.number_of_nodes()), T=1)
        indptr, indices = snap.subgraph()
        lo = np.zeros(snap.n, np.int64)
        hi = np.full(snap.n, K.BIG, np.int64)
        K.bitparallel_eccentricity(indptr, indices, lo, hi, K.BIG // 2, K.BIG)
        want = nx.eccentricity(G)
        assert lo.tolist() == hi.tolist() == [want[v] for v in snap.nodes.tolist()]


def test_jordan_top_and_rank_through_the_bit_parallel_finish_on_a_small_world_graph():
    # nearly equal eccentricities: bounding stalls and the bit-parallel pass settles the rest
    G = nx.connected_watts_strogatz_graph(400, 6, 0.5, seed=3)
    snap = A.Snapshot(G, range(400), T=5)
    sc = A.jordan_center(snap)
    for source in (0, 123, 399):
        got = A.top_and_rank(snap, "jordan", source)
        assert set(got.maximisers.tolist()) == set(snap.nodes[top_set(sc.array)].tolist())
        assert got.rank == A.source_rank(sc, source)
    assert got.exact_scores >= 64  # a bit-parallel pass ran


def _with_pendant_trees(G: nx.Graph, k: int, seed: int) -> nx.Graph:
    """G with k random trees of 1-6 nodes hung from random nodes (core weights > 1)."""
    rng = np.random.default_rng(seed)
    G = nx.convert_node_labels_to_integers(G)
    m = G.number_of_nodes()
    for _ in range(k):
        G.add_edge(int(rng.integers(m)), m)  # the tree's root
        for i in range(1, int(rng.integers(1, 7))):
            G.add_edge(m + int(rng.integers(i)), m + i)
        m = G.number_of_nodes()
    return G


def test_core_bfs_kernel_equals_the_all_scores_definition_on_both_scans_and_large_cores():
    # the exact evaluations of graph_rumor_top: one BFS of the weighted 2-core per node
    # (renumbered in BFS order), by the sparse kernel (branchless scan, logs of running
    # products flushed past 1e280) and by the dense one (tested scan), on every layout
    cases = [
        _with_pendant_trees(nx.connected_watts_strogatz_graph(1500, 4, 0.2, seed=5), 200, 1),
        _with_pendant_trees(nx.random_regular_graph(3, 300, seed=2), 40, 2),
        nx.gnp_random_graph(120, 0.12, seed=3),  # mean degree ~14: graph_rumor_top's dense kernel
        nx.cycle_graph(9),  # a core without any node of degree > 2
    ]
    for G in cases:
        G = G.subgraph(max(nx.connected_components(G), key=len))
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        indptr, indices = snap.subgraph()
        core, att, psize, weight, const = R.two_core(indptr, indices)
        start = int(np.flatnonzero(core)[-1])
        cid, cptr, cind, cw, cwe = R._core_csr(indptr, indices, core, weight, start)
        nc = cw.shape[0]
        assert cid[start] == 0 and sorted(cid[core].tolist()) == list(range(nc))
        assert cw.sum() == snap.n  # every pendant node weighs on exactly one core node
        ref = A.rumor_centrality(snap).array
        lg = math.lgamma(snap.n + 1.0)
        # the kernel's layouts: unsigned CSR, and padded to the maximum degree (core_flat
        # pads when that at most doubles the entries)
        fptr, find, fwe = R._core_flat(cptr, cind, cwe)
        maxd = int(np.diff(cptr).max())
        assert (fptr.shape[0] - 1, find.shape[0]) == ((nc, nc * maxd) if maxd * nc <= 2 * cptr[-1]
                                                      else (nc, cptr[-1]))
        d = np.diff(fptr.astype(np.int64))
        flat = {"padded" if (d == maxd).all() else "unpadded": (fptr, find, fwe)}
        flat["unsigned"] = (cptr.astype(np.uint64), cind.astype(np.uint32), cwe)
        for f in flat.values():
            size = nc + int(np.diff(f[0].astype(np.int64)).max()) + 1
            seen = np.zeros(nc + 1, np.int32)  # visited iff equal to the call's stamp (k + 1)
            qpk = np.empty(size, np.uint64)
            spos = np.empty(size)
            for kernel in (R._core_log_sizes, R._core_log_sizes_dense):  # branchless / tested scan
                got = np.array([
                    lg - const - kernel(*f, cw, cid[v], k + 1, seen, qpk, spos)
                    for k, v in enumerate(np.flatnonzero(core))
                ])
                np.testing.assert_allclose(got, ref[core], rtol=1e-12)
                seen[:] = 0
        assert "padded" in flat or G.number_of_nodes() < 150  # the sparse cases were padded
        if nc > 1000:  # every evaluation flushed its product at least once
            assert (lg - const - ref[core]).min() > math.log(1e280)
        for s in (0, snap.n - 1):
            top = np.zeros(snap.n, np.bool_)
            best, s0, greater, tied, nb = R.graph_rumor_top(indptr, indices, s, 1e-9, top)
            want = top_set(ref)
            assert np.flatnonzero(top).tolist() == sorted(np.asarray(want).tolist())
            assert s0 == pytest.approx(ref[s], rel=1e-12)
            assert greater == int((ref > ref[s] + 1e-9 * max(1.0, abs(ref[s]))).sum())

def test_rumor_top_on_sparse_cores_with_hubs_equals_the_all_scores_definition():
    # a sparse 2-core whose hubs keep it unpadded (maximum degree times core size above twice
    # its entries): graph_rumor_top scans it blocked (rows padded to a multiple of 4 entries
    # that point to dummy nodes), serially and on threads; core degrees of every residue mod 4
    from anonspread.engine import rumor_threads as P

    for G in (_with_pendant_trees(nx.barabasi_albert_graph(400, 2, seed=1), 60, 3),
              _with_pendant_trees(nx.barabasi_albert_graph(300, 3, seed=4), 30, 5)):
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        indptr, indices = snap.subgraph()
        core, att, psize, weight, const = R.two_core(indptr, indices)
        cid, cptr, cind, cw, cwe = R._core_csr(indptr, indices, core, weight,
                                              int(np.flatnonzero(core)[0]))
        nc, d = cw.shape[0], np.diff(cptr)
        assert cind.shape[0] < 7 * nc and d.max() * nc > 2 * cptr[-1]  # sparse, unpadded
        assert set((d % 4).tolist()) == {0, 1, 2, 3}
        ref = A.rumor_centrality(snap).array
        want = sorted(np.asarray(top_set(ref)).tolist())
        for s in (0, 7, snap.n - 1):
            top = np.zeros(snap.n, np.bool_)
            best, s0, greater, tied, nb = R.graph_rumor_top(indptr, indices, s, 1e-9, top)
            assert np.flatnonzero(top).tolist() == want
            assert best == pytest.approx(ref.max(), rel=1e-12)
            assert s0 == pytest.approx(ref[s], rel=1e-12)
            tol = 1e-9 * max(1.0, abs(ref[s]))
            assert greater == int((ref > ref[s] + tol).sum())
            assert tied == int((np.abs(ref - ref[s]) <= tol).sum())
            for threads in (1, 2):
                top2 = np.zeros(snap.n, np.bool_)
                got = P.rumor_scan_parallel(indptr, indices, s, 1e-9, top2, threads, 0)
                assert got[:5] == (best, s0, greater, tied, nb) and (top2 == top).all()


def _csr_and_distances(G: nx.Graph):
    """The CSR of a connected graph (nodes 0..n-1) and its all-pairs distance matrix."""
    snap = A.Snapshot(G, range(G.number_of_nodes()), T=1)
    indptr, indices = snap.subgraph()
    H = nx.Graph()
    H.add_nodes_from(range(snap.n))
    for v in range(snap.n):
        H.add_edges_from((v, int(w)) for w in indices[indptr[v]:indptr[v + 1]])
    D = np.array([[d[w] for w in range(snap.n)] for _, d in
                  sorted(nx.all_pairs_shortest_path_length(H))], dtype=np.int64)
    return indptr, indices, D


def _connected_random_graph(rng):
    while True:
        try:  # (a random regular graph of fewer nodes than its degree + 1 does not exist)
            G = _random_graph(rng)
            break
        except nx.NetworkXError:
            continue
    G = G.subgraph(max(nx.connected_components(G), key=len))
    return nx.convert_node_labels_to_integers(G)


def test_offset_bfs_is_the_minimum_over_late_starting_sources():
    rng = np.random.default_rng(7)
    for _ in range(60):
        indptr, indices, D = _csr_and_distances(_connected_random_graph(rng))
        n = D.shape[0]
        cnt = int(rng.integers(1, min(n, 64) + 1))
        srcs = rng.choice(n, cnt, replace=False).astype(np.int64)
        off = rng.integers(0, 6, size=64).astype(np.int64)
        order = np.empty(n, np.int32)
        dist = np.full(n, -1, np.int32)
        k = K._offset_bfs(indptr, indices, srcs, off, cnt, order, dist)
        assert k == n
        want = (off[:cnt, None] + D[srcs]).min(axis=0)
        assert dist.tolist() == want.tolist()


def test_bit_parallel_pass_and_its_bounds_equal_64_single_bfs():
    rng = np.random.default_rng(8)
    for _ in range(60):
        indptr, indices, D = _csr_and_distances(_connected_random_graph(rng))
        n = D.shape[0]
        ecc_all = D.max(axis=1)
        cnt = int(rng.integers(1, min(n, 64) + 1))
        srcs = rng.choice(n, cnt, replace=False).astype(np.int64)
        zeros = [np.zeros(n, np.uint64) for _ in range(3)]
        lo = np.zeros(n, np.int64)
        hi = np.full(n, K.BIG, np.int64)
        ecc = np.empty(64, np.int64)
        K._bp_pass(indptr, indices, srcs, cnt, *zeros, np.empty(n, np.int64), np.empty(n, np.int64),
                   lo, ecc)
        assert ecc[:cnt].tolist() == ecc_all[srcs].tolist()
        assert lo.tolist() == D[srcs].max(axis=0).tolist()  # max_b d(b, w)
        assert all(not z.any() for z in zeros)  # work arrays restored
        K._bp_bounds(indptr, indices, srcs, cnt, ecc, lo, hi, np.empty(n, np.int32),
                     np.full(n, -1, np.int32), np.empty(64, np.int64))
        e = ecc_all[srcs][:, None]
        want_lo = np.maximum(D[srcs], e - D[srcs]).max(axis=0)  # Takes & Kosters, every source
        want_hi = (e + D[srcs]).min(axis=0)
        want_lo[srcs] = want_hi[srcs] = ecc_all[srcs]
        assert lo.tolist() == want_lo.tolist() and hi.tolist() == want_hi.tolist()
        assert np.all(lo <= ecc_all) and np.all(ecc_all <= hi)


def test_jordan_top_and_rank_through_the_bit_parallel_phase_on_random_graphs():
    # graphs of 80-400 nodes whose eccentricities are nearly equal: single BFS stall and
    # the bit-parallel passes (with the bounds of their sources) place the rest
    rng = np.random.default_rng(9)
    phase2 = 0
    for i in range(40):
        n = int(rng.integers(80, 400))
        seed = int(rng.integers(1 << 30))
        kind = i % 4
        if kind == 0:
            G = nx.random_regular_graph(int(rng.choice([3, 4])), n - n % 2, seed=seed)
        elif kind == 1:
            G = nx.connected_watts_strogatz_graph(n, 4, float(rng.uniform(0.2, 0.8)), seed=seed)
        elif kind == 2:
            G = nx.gnm_random_graph(n, int(n * rng.uniform(1.3, 3)), seed=seed)
        else:
            G = nx.powerlaw_cluster_graph(n, 2, 0.3, seed=seed)
        G = nx.convert_node_labels_to_integers(G.subgraph(max(nx.connected_components(G), key=len)))
        infected = _random_infected(G, rng) if rng.random() < 0.3 else []
        if len(infected) < 40:
            infected = list(G.nodes())
        snap = A.Snapshot(G, infected, T=3)
        sc = A.jordan_center(snap)
        top = set(snap.nodes[top_set(sc.array)].tolist())
        for source in rng.choice(infected, 3, replace=False).tolist():
            got = A.top_and_rank(snap, "jordan", source)
            assert set(got.maximisers.tolist()) == top, (i, source)
            assert got.rank == A.source_rank(sc, source), (i, source)
            assert got.source_score == sc[source]
            phase2 += got.exact_scores >= 64
    assert phase2 > 40  # the bit-parallel phase ran on many of the 120 calls


def _subdivided(G: nx.Graph, rng: np.random.Generator, most: int) -> nx.Graph:
    """G with each edge replaced by a path through 0..most new nodes (long degree-2 chains)."""
    G = nx.convert_node_labels_to_integers(G)
    H = nx.Graph()
    H.add_nodes_from(G.nodes())
    m = G.number_of_nodes()
    for a, b in G.edges():
        k = int(rng.integers(most + 1))
        path = [a, *range(m, m + k), b]
        m += k
        nx.add_path(H, path)
    return H


def _rumor_cases(rng: np.random.Generator, count: int):
    """Random connected graphs with cycles: the mixed families above, subdivided regular and
    small-world graphs, each with or without weighted pendant trees."""
    for i in range(count):
        kind = i % 3
        if kind == 0:
            G = _connected_random_graph(rng)
        else:
            seed = int(rng.integers(1 << 30))
            n = int(rng.integers(6, 30))
            base = (nx.random_regular_graph(3, n + n % 2, seed=seed) if kind == 1
                    else nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=seed))
            G = _subdivided(base, rng, int(rng.integers(1, 4)))
        if rng.random() < 0.5:
            G = _with_pendant_trees(G, int(rng.integers(1, 8)), int(rng.integers(1 << 30)))
        G = G.subgraph(max(nx.connected_components(G), key=len))
        yield nx.relabel_nodes(G, dict(zip(G.nodes(), rng.permutation(G.number_of_nodes()).tolist())))


def test_parallel_rumour_scan_equals_the_serial_one_and_the_all_scores_definition():
    # the large-core path (evaluations batched over OpenMP threads), forced on small graphs
    # with cycles, long subdivided chains and weighted pendant trees: same maximisers, rank
    # data, source score and evaluation count as the serial scan, and as every score
    from anonspread.engine.rumor_threads import rumor_top

    rng = np.random.default_rng(20261124)
    cyclic = 0
    for G in _rumor_cases(rng, 240):
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        if snap.n < 3:
            continue
        cyclic += not snap.subgraph_is_tree()
        indptr, indices = snap.subgraph()
        ref = A.rumor_centrality(snap).array
        want = sorted(np.asarray(top_set(ref)).tolist())
        for s in {0, snap.n - 1, int(rng.integers(snap.n))}:
            tol = 1e-9 * max(1.0, abs(ref[s]))
            serial = np.zeros(snap.n, np.bool_)
            par = np.zeros(snap.n, np.bool_)
            rs = R.graph_rumor_top(indptr, indices, s, 1e-9, serial)
            rp = rumor_top(indptr, indices, s, 1e-9, par, 2, 0)  # 2 threads, any core size
            assert np.flatnonzero(serial).tolist() == np.flatnonzero(par).tolist() == want
            assert rs[2:] == rp[2:5]  # greater, tied, evaluations used
            assert rp[2] == int((ref > ref[s] + tol).sum())
            assert rp[3] == int((np.abs(ref - ref[s]) <= tol).sum())
            assert rp[1] == pytest.approx(ref[s], rel=1e-12) and rp[1] == rs[1]
            assert rp[0] == rs[0]
    assert cyclic > 200


def test_rumour_top_goes_parallel_on_large_cores_only_with_the_same_answer():
    from anonspread.engine import rumor_threads as P

    if not P.OPENMP:
        pytest.skip("built without OpenMP: no threaded scan to test")
    rng = np.random.default_rng(3)
    sparse = _with_pendant_trees(_subdivided(nx.random_regular_graph(3, 1400, seed=4), rng, 2), 300, 5)
    dense = nx.gnm_random_graph(3100, 4 * 3100, seed=6)  # mean degree 8: the dense kernel
    for G in (sparse, dense):
        G = G.subgraph(max(nx.connected_components(G), key=len))
        snap = A.Snapshot(G, list(G.nodes()), T=3)
        indptr, indices = snap.subgraph()
        assert R.two_core(indptr, indices)[0].sum() >= P.PARALLEL_MIN_CORE
        ref = A.rumor_centrality(snap).array
        for s in (0, snap.n - 1):
            top = np.zeros(snap.n, np.bool_)
            got = P.rumor_top(indptr, indices, s, 1e-9, top, 2)
            assert got[5] == 2  # the threads ran
            serial = np.zeros(snap.n, np.bool_)
            want = R.graph_rumor_top(indptr, indices, s, 1e-9, serial)
            assert np.flatnonzero(top).tolist() == np.flatnonzero(serial).tolist()
            assert np.flatnonzero(top).tolist() == sorted(np.asarray(top_set(ref)).tolist())
            assert got[:5] == want and got[1] == pytest.approx(ref[s], rel=1e-12)
        # the public entry: threads=2 runs them, the default scans serially, same answer
        two = A.top_and_rank(snap, "rumor", 0, threads=2)
        one = A.top_and_rank(snap, "rumor", 0)
        assert (two.threads, one.threads) == (2, 1)
        assert (two.rank, two.maximisers.tolist()) == (one.rank, one.maximisers.tolist())
    # threads=1 always scans serially
    assert P.rumor_top(indptr, indices, 0, 1e-9, np.zeros(snap.n, np.bool_), 1)[5] == 1
    # many nodes but a small 2-core (a 10-cycle with a 3,000-node path): serial, same answer
    G = nx.cycle_graph(10)
    nx.add_path(G, range(9, 3010))
    snap = A.Snapshot(G, list(G.nodes()), T=3)
    indptr, indices = snap.subgraph()
    top = np.zeros(snap.n, np.bool_)
    got = P.rumor_top(indptr, indices, 5, 1e-9, top, 2)
    assert got[5] == 1
    ref = A.rumor_centrality(snap).array
    assert np.flatnonzero(top).tolist() == sorted(np.asarray(top_set(ref)).tolist())
    assert got[1] == pytest.approx(ref[5], rel=1e-12)
    with pytest.raises(ValueError, match="threads"):
        A.top_and_rank(snap, "rumor", 5, threads=0)


def test_small_cores_scan_serially_even_when_threads_are_offered():
    # the Monte Carlo path and small snapshots take the serial scan, threads or not
    from anonspread.engine import rumor_threads as P

    G = nx.random_regular_graph(4, 400, seed=1)
    snap = A.Snapshot(G, list(nx.bfs_tree(G, 0))[:300], T=3)
    assert not snap.subgraph_is_tree()
    two = A.top_and_rank(snap, "rumor", 0, threads=2)
    one = A.top_and_rank(snap, "rumor", 0)
    assert (two.threads, one.threads) == (1, 1)
    assert (two.rank, two.maximisers.tolist()) == (one.rank, one.maximisers.tolist())
    indptr, indices = snap.subgraph()
    assert P.rumor_top(indptr, indices, 0, 1e-9, np.zeros(snap.n, np.bool_), 2)[5] == 1


def test_threads_2_give_the_answer_of_threads_1_on_a_core_above_min_core():
    from anonspread.engine import rumor_threads as P

    if not P.OPENMP:
        pytest.skip("built without OpenMP: no threaded scan to test")
    rng = np.random.default_rng(11)
    G = _with_pendant_trees(_subdivided(nx.random_regular_graph(3, 200, seed=12), rng, 1), 60, 13)
    G = G.subgraph(max(nx.connected_components(G), key=len))
    snap = A.Snapshot(G, list(G.nodes()), T=3)
    indptr, indices = snap.subgraph()
    nc = int(R.two_core(indptr, indices)[0].sum())
    assert nc > 100
    for s in (0, snap.n // 2, snap.n - 1):
        t1 = np.zeros(snap.n, np.bool_)
        t2 = np.zeros(snap.n, np.bool_)
        one = P.rumor_top(indptr, indices, s, 1e-9, t1, 1, 100)
        two = P.rumor_top(indptr, indices, s, 1e-9, t2, 2, 100)
        assert (one[5], two[5]) == (1, 2)  # serial, then two threads
        assert one[:5] == two[:5] and np.array_equal(t1, t2)
        assert one[:5] == R.graph_rumor_top(indptr, indices, s, 1e-9, np.zeros(snap.n, np.bool_))


def test_a_forked_child_of_a_process_that_ran_the_threaded_scan_still_scores():
    # GNU libgomp's thread pool does not survive fork (a child's first parallel region would
    # wait forever for the parent's threads): the pool is stopped before every fork, so the
    # child runs its own threads and gets the same answer
    import subprocess
    import sys

    code = (
        "import multiprocessing as mp, networkx as nx, numpy as np\n"
        "from anonspread import adversaries as A\n"
        "from anonspread.engine import rumor_threads as P\n"
        "G = nx.connected_watts_strogatz_graph(200, 4, 0.3, seed=1)\n"
        "snap = A.Snapshot(G, range(200), T=3)\n"
        "ip, ix = snap.subgraph()\n"
        "want = P.rumor_top(ip, ix, 0, 1e-9, np.zeros(200, np.bool_), 2, 10)\n"
        "assert want[5] == (2 if P.OPENMP else 1)  # the threaded scan ran here\n"
        "def child(q):\n"
        "    top = np.zeros(200, np.bool_)\n"
        "    r = P.rumor_top(ip, ix, 0, 1e-9, top, 2, 10)\n"
        "    q.put((r, top.tolist()))\n"
        "ctx = mp.get_context('fork')\n"
        "q = ctx.Queue()\n"
        "p = ctx.Process(target=child, args=(q,))\n"
        "p.start()\n"
        "p.join(120)\n"
        "assert p.exitcode == 0, p.exitcode\n"
        "got, top = q.get()\n"
        "assert got == want  # the same answer, on the child's own threads\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
