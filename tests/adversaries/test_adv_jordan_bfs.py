"""Issue 32: the Jordan kernel's direction-optimising BFS against the top-down BFS of before.

The single BFS of the first phase (the offset BFS from one source, bottom-up levels stopping
at a node's first neighbour in the frontier), the bit-parallel pass and the offset BFS must
give the same distances as top-down BFS, the first phase the same next source (the smallest
node of the last level: not the last node of a queue, whose order within a level the
direction changes), and the whole certification the same bounds, BFS count and answer.
Random graphs with shuffled rows (the snapshots' rows are not sorted), disconnected parts,
isolated nodes, self-loops and repeated arcs.
"""

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import shortest_path

from anonspread.engine import scoring as K


def _random_csr(rng, n, m, *, loops=0, repeats=0, isolated=0):
    """A symmetric CSR over n nodes: m random edges (both arcs), ``loops`` self-loops (one
    arc each), ``repeats`` edges added twice, the last ``isolated`` nodes without edges,
    every row shuffled."""
    k = n - isolated
    u = rng.integers(0, k, m)
    v = rng.integers(0, k, m)
    keep = u != v
    u, v = u[keep], v[keep]
    if repeats:
        pick = rng.integers(0, u.size, repeats)
        u, v = np.r_[u, u[pick]], np.r_[v, v[pick]]
    src = np.r_[u, v]
    dst = np.r_[v, u]
    if loops:
        w = rng.integers(0, k, loops)
        src, dst = np.r_[src, w], np.r_[dst, w]
    perm = rng.permutation(src.size)  # rows in random order
    src, dst = src[perm], dst[perm]
    o = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[o].astype(np.int32)


def _graphs(rng):
    for _ in range(6):
        n = int(rng.integers(2, 400))
        yield _random_csr(rng, n, int(rng.integers(0, 6 * n)),
                          loops=int(rng.integers(0, 5)), repeats=int(rng.integers(0, 20)),
                          isolated=int(rng.integers(0, max(1, n // 10))))
    # a sparse one: many components and long paths
    yield _random_csr(rng, 300, 200)
    # a power-law one with hubs, shuffled rows
    g = nx.barabasi_albert_graph(500, 3, seed=int(rng.integers(2**31)))
    a = nx.to_scipy_sparse_array(g, format="csr")
    ip, ix = a.indptr.astype(np.int64), a.indices.astype(np.int32)
    for r in range(500):
        rng.shuffle(ix[ip[r]:ip[r + 1]])
    yield ip, ix


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_bfs_bottom_up_same_distances_and_next_source(seed):
    """One source, offset 0: the first phase's BFS. The distances of top-down BFS, every
    node of the component listed, the last level at the tail of ``order`` (the first phase
    takes the smallest node there as its next source)."""
    rng = np.random.default_rng(seed)
    for ip, ix in _graphs(rng):
        n = ip.size - 1
        roots = np.unique(np.r_[0, n - 1, rng.integers(0, n, 4), np.argmax(np.diff(ip))])
        for r in roots:
            order = np.empty(n, np.int32)
            parent = np.empty(n, np.int32)
            dist = np.full(n, -1, np.int32)
            k = K.bfs(ip, ix, int(r), order, parent, dist)
            o2 = np.empty(n, np.int32)
            d2 = np.full(n, -1, np.int32)
            k2 = K._offset_bfs(ip, ix, np.array([r]), np.array([0]), 1, o2, d2, hybrid=True)
            assert k2 == k and np.array_equal(d2, dist)
            assert np.array_equal(np.sort(o2[:k]), np.sort(order[:k]))
            assert np.all(np.diff(d2[o2[:k]]) >= 0)  # level by level
            e = dist.max()
            tail = o2[:k][d2[o2[:k]] == e]
            assert np.array_equal(np.sort(tail), np.sort(o2[k - tail.size:k]))


@pytest.mark.parametrize("seed", [3, 4])
def test_bitparallel_pass_and_offset_bfs_bottom_up_same_outputs(seed):
    rng = np.random.default_rng(seed)
    for ip, ix in _graphs(rng):
        n = ip.size - 1
        for cnt in (1, 7, 64):
            srcs = rng.integers(0, n, 64).astype(np.int64)  # repeated sources allowed
            got = []
            for hybrid in (False, True):
                seen, cur, nxt = (np.zeros(n, np.uint64) for _ in range(3))
                active, touched = np.empty(n, np.int64), np.empty(n, np.int64)
                lo = rng.integers(0, 3, n).astype(np.int64) if not got else got[0][4].copy()
                lo0 = lo.copy()
                ecc = np.zeros(64, np.int64)
                dmat = np.full(64 * n, 7, np.uint8)
                K._bp_pass(ip, ix, srcs, cnt, seen, cur, nxt, active, touched, lo, ecc,
                           dmat=dmat, hybrid=hybrid)
                assert not seen.any() and not cur.any() and not nxt.any()
                got.append((lo, ecc[:cnt], dmat, None, lo0))
            assert np.array_equal(got[0][0], got[1][0])
            assert np.array_equal(got[0][1], got[1][1])
            assert np.array_equal(got[0][2], got[1][2])
            off = rng.integers(0, 4, 64).astype(np.int64)
            res = []
            for hybrid in (False, True):
                order = np.empty(n, np.int32)
                dist = np.full(n, -1, np.int32)
                k = K._offset_bfs(ip, ix, srcs, off, cnt, order, dist, hybrid=hybrid)
                res.append((k, np.sort(order[:k]), dist))
            assert res[0][0] == res[1][0]
            assert np.array_equal(res[0][1], res[1][1])
            assert np.array_equal(res[0][2], res[1][2])
            # and against the definition
            adj = csr_array((np.ones(ix.size), ix, ip), shape=(n, n))
            d = shortest_path(adj, unweighted=True, indices=srcs[:cnt])
            want = np.min(d + off[:cnt, None], axis=0)
            want = np.where(np.isinf(want), -1, want).astype(np.int32)
            assert np.array_equal(res[1][2], want)


def _chung_lu(rng, n, m):
    w = (np.arange(1, n + 1) ** -0.6)
    p = w / w.sum()
    u = rng.choice(n, m, p=p)
    v = rng.choice(n, m, p=p)
    g = nx.Graph()
    g.add_edges_from((int(a), int(b)) for a, b in zip(u, v) if a != b)
    g = g.subgraph(max(nx.connected_components(g), key=len))
    g = nx.convert_node_labels_to_integers(g)
    a = nx.to_scipy_sparse_array(g, nodelist=range(g.number_of_nodes()), format="csr")
    ip, ix = a.indptr.astype(np.int64), a.indices.astype(np.int32)
    for r in range(ip.size - 1):  # unsorted rows, as in a snapshot's subgraph
        rng.shuffle(ix[ip[r]:ip[r + 1]])
    return ip, ix


@pytest.mark.parametrize("seed", [5, 6])
def test_jordan_certification_same_bounds_count_and_answer(seed):
    """Every BFS direction-optimising or every BFS top-down: the same first-phase sources,
    so the same bounds and BFS count; every rule; the answer against all-pairs BFS."""
    rng = np.random.default_rng(seed)
    ip, ix = _chung_lu(rng, 4000, 40000)
    n = ip.size - 1
    assert ix.size >= 1 << 16
    ecc = shortest_path(csr_array((np.ones(ix.size), ix, ip), shape=(n, n)),
                        unweighted=True).max(axis=1).astype(np.int64)
    for s in (0, int(np.argmax(ecc)), int(rng.integers(n))):
        t = int(ecc[s])
        for rule in ("references", "far-first", "lowest"):
            out = []
            for hybrid in (False, True):
                lo = np.zeros(n, np.int64)
                hi = np.full(n, K.BIG, np.int64)
                trace = np.zeros(8, np.int64)
                r = K._jordan_place(ip, ix, s, lo, hi, -1, trace, rule=rule, hybrid=hybrid)
                out.append((r, lo, hi, trace))
            assert out[0][0] == out[1][0] and out[1][0][0] == t and out[1][0][2] == 0
            for a, b in zip(out[0][1:], out[1][1:]):
                assert np.array_equal(a, b), rule
        top = np.empty(n, bool)
        got = K.graph_jordan_top(ip, ix, s, top)
        assert got[:4] == (t, int(ecc.min()), int((ecc < t).sum()), int((ecc == t).sum()))
        assert np.array_equal(top, ecc == ecc.min())
