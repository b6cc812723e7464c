"""Issue 32 item 3: BP's feasible sources (``ecc(v) <= T``) by the Jordan certification's
bounds with a threshold, against all-pairs BFS and against the searched kernel of before.

The threshold mode (``_jordan_place(..., thresh=T)``, ``scoring.within_radius``) settles a
node once its upper bound is at most T or its lower bound above it; a wrong bound or a
wrong placement shows up as a node on the wrong side of T. Random graphs with shuffled rows,
self-loops and repeated arcs, every T from 0 to past the diameter; disconnected graphs go
to the searched kernel (nothing feasible), asymmetric ones are refused by ``within_radius``.
"""

import warnings

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_array
from scipy.sparse.csgraph import shortest_path

from anonspread.engine import bp as B
from anonspread.engine import scoring as K
from anonspread.errors import InvalidParameterError


def _csr(g, rng, *, loops=0, repeats=0):
    n = g.number_of_nodes()
    u, v = (np.array(x, np.int64) for x in zip(*g.edges())) if g.number_of_edges() else (
        np.zeros(0, np.int64), np.zeros(0, np.int64))
    if repeats and u.size:
        pick = rng.integers(0, u.size, repeats)
        u, v = np.r_[u, u[pick]], np.r_[v, v[pick]]
    src, dst = np.r_[u, v], np.r_[v, u]
    if loops:
        w = rng.integers(0, n, loops)
        src, dst = np.r_[src, w], np.r_[dst, w]
    perm = rng.permutation(src.size)
    src, dst = src[perm], dst[perm]
    o = np.argsort(src, kind="stable")
    ip = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=ip[1:])
    return ip, dst[o].astype(np.int32)


def _ecc(ip, ix):
    n = ip.size - 1
    d = shortest_path(csr_array((np.ones(ix.size), ix, ip), shape=(n, n)), unweighted=True)
    return d.max(axis=1)


def _graphs(rng):
    for _ in range(40):
        n = int(rng.integers(1, 150))
        g = nx.gnm_random_graph(n, int(rng.integers(0, 4 * n + 1)), seed=int(rng.integers(2**31)))
        if rng.random() < 0.6:
            nx.add_path(g, rng.permutation(n).tolist())  # connected
        yield _csr(g, rng, loops=int(rng.integers(0, 3)), repeats=int(rng.integers(0, 5)))
    for n, m in ((400, 3), (600, 1)):  # hubs; a tree (long paths)
        yield _csr(nx.barabasi_albert_graph(n, m, seed=int(rng.integers(2**31))), rng)
    yield _csr(nx.random_regular_graph(4, 500, seed=int(rng.integers(2**31))), rng)
    yield _csr(nx.path_graph(300), rng)  # eccentricities above 254: the one-reference rule


@pytest.mark.parametrize("seed", [0, 1])
def test_feasible_sources_are_the_nodes_of_eccentricity_at_most_T(seed):
    rng = np.random.default_rng(seed)
    seen = {"connected": 0, "disconnected": 0}
    for ip, ix in _graphs(rng):
        ecc = _ecc(ip, ix)
        connected = bool(np.isfinite(ecc).all())
        seen["connected" if connected else "disconnected"] += 1
        finite = ecc[np.isfinite(ecc)]
        top = int(finite.max()) + 2 if finite.size else 2
        for T in sorted({0, 1, 2, 3, top // 2, top - 2, top - 1, top, 300}):
            want = ecc <= T
            got = B.feasible_sources(ip, ix, T)
            assert got.dtype == bool and np.array_equal(got, want), (ip.size - 1, T)
            assert np.array_equal(B._feasible_searched(ip, ix, T), want)
            if connected:
                assert np.array_equal(K.within_radius(ip, ix, T), want)
    assert seen["connected"] >= 20 and seen["disconnected"] >= 5


def test_within_radius_refuses_a_disconnected_or_asymmetric_graph():
    ip = np.array([0, 1, 2, 2], np.int64)
    ix = np.array([1, 0], np.int32)  # node 2 isolated
    with pytest.raises(InvalidParameterError, match="connected undirected"):
        K.within_radius(ip, ix, 3)
    ip = np.array([0, 1, 2, 3], np.int64)
    ix = np.array([1, 2, 0], np.int32)  # a directed 3-cycle
    with pytest.raises(InvalidParameterError, match="connected undirected"):
        K.within_radius(ip, ix, 3)
    with pytest.raises(InvalidParameterError, match="T"):
        K.within_radius(np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32), -1)


def test_threshold_mode_leaves_the_jordan_certification_unchanged():
    """The same kernel without a threshold: the Jordan answer against all-pairs BFS."""
    rng = np.random.default_rng(7)
    ip, ix = _csr(nx.barabasi_albert_graph(800, 4, seed=3), rng)
    ecc = _ecc(ip, ix)
    for s in (0, int(np.argmax(ecc)), 400):
        top = np.empty(ip.size - 1, bool)
        t, emin, less, tied, _ = K.graph_jordan_top(ip, ix, s, top)
        assert (t, emin, less, tied) == (ecc[s], ecc.min(), (ecc < ecc[s]).sum(), (ecc == ecc[s]).sum())
        assert np.array_equal(top, ecc == ecc.min())


def _one_feasible_snapshots(want: int):
    """Random-diffusion snapshots of small graphs with cycles whose infected subgraph has
    cycles and exactly ``want``-or-more (want > 1) / exactly one (want == 1) feasible node."""
    from anonspread import adversaries, spread

    proto = spread.RandomDiffusion(0.9)
    found = []
    for seed in range(400):
        g = nx.connected_watts_strogatz_graph(30, 4, 0.1, seed=seed)
        sp = spread.simulate(g, proto, 2, source=seed % 30, rng=seed)
        snap = adversaries.observe(sp)
        ip, ix = snap.subgraph()
        if snap.subgraph_is_tree() or snap.n > 12:
            continue
        k = int(B.feasible_sources(ip, ix, 2).sum())
        if (k == 1) if want == 1 else (k >= want):
            found.append(snap)
        if len(found) == 4:
            break
    return proto, found


def test_one_feasible_source_is_the_exact_point_mass_without_a_run():
    from anonspread import adversaries

    proto, snaps = _one_feasible_snapshots(1)
    assert len(snaps) == 4
    for snap in snaps:
        ll = adversaries.exact_likelihood(snap, proto, max_states=10**6).array
        exact = np.exp(ll - ll.max())
        exact /= exact.sum()
        assert np.count_nonzero(exact) == 1  # the model agrees: one possible source
        for method in ("auto", "prior", "bethe"):
            res = adversaries.bp_posterior(snap, proto, method=method)
            assert res.method == "feasible" and res.exact and res.converged
            assert res.iterations == 0 and res.candidates == 1
            assert np.array_equal(res.posterior, exact)
            assert np.array_equal(np.isnan(res.log_likelihood), exact == 1)
            assert np.all(res.log_likelihood[exact == 0] == -np.inf)
            assert np.array_equal(res.scores.array, np.log(exact, where=exact > 0,
                                                           out=np.full(exact.size, -np.inf)))
            # the BP run it replaces (a second T of weight 0 keeps it from the shortcut; that
            # T's own run may not converge, and weighs nothing)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", adversaries.BPConvergenceWarning)
                ran = adversaries.bp_posterior(snap, proto,
                                               method=method if method != "auto" else "prior",
                                               T_prior={snap.T: 1.0, snap.T + 1: 0.0})
            assert ran.method in ("prior", "bethe") and np.array_equal(ran.posterior, res.posterior)


def test_several_feasible_sources_still_run_bp():
    from anonspread import adversaries

    proto, snaps = _one_feasible_snapshots(2)
    assert snaps
    for snap in snaps:
        res = adversaries.bp_posterior(snap, proto)
        assert res.method in ("bethe", "prior") and res.iterations > 0
