"""The infected subgraph of a snapshot, built by the compiled ``engine.graphs.induced_subgraph``
(issue 32 item 3): arc for arc the arrays of the numpy gather it replaced, and the same
estimator answers."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine.graphs import induced_subgraph
from anonspread.errors import AnonspreadError, GraphError, InvalidParameterError
from anonspread.spread.graphs import ContactGraph


def numpy_gather(indptr, indices, idx):
    """The numpy formulation ``Snapshot.subgraph`` used before (the oracle)."""
    n = idx.shape[0]
    loc = np.full(indptr.shape[0] - 1, -1, np.int64)
    loc[idx] = np.arange(n)
    starts = indptr[idx]
    degs = (indptr[idx + 1] - starts).astype(np.int64)
    src = np.repeat(np.arange(n), degs)
    offs = np.arange(src.shape[0]) - np.repeat(np.cumsum(degs) - degs, degs)
    nbr = loc[indices[np.repeat(starts, degs) + offs]]
    keep = nbr >= 0
    src, nbr = src[keep], nbr[keep]
    out = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=out[1:])
    return out, np.ascontiguousarray(nbr, dtype=np.int32)


def multigraph_csr(n, m, rng):
    """A CSR with self-loops, repeated arcs and unsorted rows (what a raw reader may give)."""
    a = rng.integers(0, n, m)
    b = rng.integers(0, n, m)
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst[order].astype(np.int32)


@pytest.mark.parametrize("n", [63, 64, 65, 129, 1000, 5003])
def test_rows_taken_in_the_graphs_order_are_placed_in_the_order_of_the_nodes(n):
    # the kernel reads the rows by the bitmap of the nodes (increasing node), many words of it
    rng = np.random.default_rng(n)
    indptr, indices = multigraph_csr(n, 5 * n, rng)
    for k in (1, 2, n // 3, n - 1, n):
        idx = rng.permutation(n)[:k].astype(np.int64)
        p, q = induced_subgraph(indptr, indices, idx)
        p0, q0 = numpy_gather(indptr, indices, idx)
        np.testing.assert_array_equal(p, p0)
        np.testing.assert_array_equal(q, q0)


@pytest.mark.parametrize("seed", range(6))
def test_induced_subgraph_equals_the_numpy_gather(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    indptr, indices = multigraph_csr(n, int(rng.integers(0, 4 * n)), rng)
    for k in (0, 1, n // 2, n):
        idx = rng.permutation(n)[:k].astype(np.int64)
        p, q = induced_subgraph(indptr, indices, idx)
        p0, q0 = numpy_gather(indptr, indices, idx)
        assert p.dtype == np.int64 and q.dtype == np.int32
        np.testing.assert_array_equal(p, p0)
        np.testing.assert_array_equal(q, q0)
        # int64 neighbours give the same arrays
        p1, q1 = induced_subgraph(indptr, indices.astype(np.int64), idx.astype(np.int32))
        np.testing.assert_array_equal(p1, p0)
        np.testing.assert_array_equal(q1, q0)


def test_induced_subgraph_refuses_what_it_cannot_read():
    indptr = np.array([0, 2, 4, 6])
    indices = np.array([1, 2, 0, 2, 0, 1])
    with pytest.raises(InvalidParameterError, match=r"nodes must hold node indices in 0\.\.2; got 3"):
        induced_subgraph(indptr, indices, [0, 3])
    with pytest.raises(InvalidParameterError, match="node 1 appears more than once"):
        induced_subgraph(indptr, indices, [1, 0, 1])
    with pytest.raises(InvalidParameterError, match="give node 1 a row"):
        induced_subgraph(np.array([0, 2, 1, 6]), indices, [1])
    with pytest.raises(InvalidParameterError, match="give node 2 a row"):
        induced_subgraph(np.array([0, 2, 4, 9]), indices, [2])
    with pytest.raises(InvalidParameterError, match=r"indices must be node indices in 0\.\.2; got 9"):
        induced_subgraph(indptr, np.array([1, 2, 0, 9, 0, 1]), [1])
    with pytest.raises(InvalidParameterError, match="1-dimensional"):
        induced_subgraph(indptr, indices, [[0, 1]])
    with pytest.raises(AnonspreadError, match="nodes"):
        induced_subgraph(indptr, indices, [0.5])
    # rows it does not read are not its business: node 0's row alone is read
    p, q = induced_subgraph(np.array([0, 1, 0, 0]), np.array([0]), [0])
    assert p.tolist() == [0, 1] and q.tolist() == [0]


@pytest.mark.parametrize("estimator", ["jordan", "rumor", "ml", "netsleuth"])
def test_snapshot_answers_unchanged(estimator):
    """top_and_rank on the compiled subgraph: the maximisers and rank of the numpy one."""
    g = spread.graphs.from_networkx(nx.connected_watts_strogatz_graph(400, 6, 0.2, seed=3))
    proto = (spread.protocols.AdaptiveDiffusion(4.0, max_infections_per_step=3)
             if estimator == "ml" else spread.protocols.RandomDiffusion(0.4))
    for seed in range(3):
        sp = spread.simulate(g, proto, 8, rng=seed)
        snap = A.observe(sp, reveal_edges=True)
        assert not snap.subgraph_is_tree()
        params = {"d0": 4.0} if estimator == "ml" else {}
        got = A.top_and_rank(snap, estimator, sp.source, **params)
        old = A.observe(sp, reveal_edges=True)
        old._sub = numpy_gather(np.asarray(g.indptr), np.asarray(g.indices), np.asarray(old.index))
        np.testing.assert_array_equal(old.subgraph()[1], snap.subgraph()[1])
        want = A.top_and_rank(old, estimator, sp.source, **params)
        assert sorted(got.maximisers.tolist()) == sorted(want.maximisers.tolist())
        assert got.rank == want.rank and got.source_score == want.source_score


def test_contact_graph_with_repeated_arcs():
    """The snapshot of a graph given with repeated arcs keeps them, as before."""
    indptr, indices = multigraph_csr(30, 90, np.random.default_rng(7))
    g = ContactGraph(range(30), indptr, indices)
    sp = spread.simulate(g, spread.protocols.RandomDiffusion(0.5), 4, rng=2)
    snap = A.observe(sp)
    p0, q0 = numpy_gather(np.asarray(g.indptr), np.asarray(g.indices), np.asarray(snap.index))
    p, q = snap.subgraph()
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(q, q0)


def test_position_first_scan_then_dict():
    """The first look-up of an integer label scans; later ones use the dict; same answers."""
    g = spread.graphs.from_networkx(nx.connected_watts_strogatz_graph(200, 4, 0.3, seed=1))
    sp = spread.simulate(g, spread.protocols.RandomDiffusion(0.5), 6, rng=4)
    labels = sp.infected.tolist()
    for reveal in (False, True):
        for first in (labels[0], labels[-1], np.int32(labels[3])):
            snap = A.observe(sp, reveal_edges=reveal)
            assert snap.position(first) == labels.index(int(first))
            assert [snap.position(v) for v in labels] == list(range(len(labels)))
        for bad in (10**6, 2**70, -1, "x", 1.5, None):
            snap = A.observe(sp, reveal_edges=reveal)
            with pytest.raises(GraphError, match="infected node of the snapshot"):
                snap.position(bad)
            assert snap.position(labels[1]) == 1
