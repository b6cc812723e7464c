"""bp on dense loopy snapshots (issue 31 item 1): feasible sources, the damping schedule, the
stall rule, and honest flags where BP does not converge."""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, spread
from anonspread.engine import bp as ebp
from anonspread.errors import InvalidParameterError, InvalidTypeError


def _csr(g):
    n = g.number_of_nodes()
    nb = [sorted(g[v]) for v in range(n)]
    ip = np.concatenate([[0], np.cumsum([len(x) for x in nb])]).astype(np.int64)
    ix = np.array([u for x in nb for u in x], np.int32)
    return ip, ix


def test_feasible_sources_are_the_nodes_of_eccentricity_at_most_T():
    checked = 0
    for seed in range(60):
        g = nx.gnp_random_graph(25, 0.1, seed=seed)
        g = nx.convert_node_labels_to_integers(g.subgraph(max(nx.connected_components(g), key=len)))
        ip, ix = _csr(g)
        ecc = nx.eccentricity(g) if g.number_of_nodes() > 1 else {0: 0}
        for T in range(7):
            want = np.array([ecc[v] <= T for v in range(g.number_of_nodes())])
            assert np.array_equal(ebp.feasible_sources(ip, ix, T), want), (seed, T)
            checked += 1
    # a huge T: every node of a connected subgraph, after at most diameter + 1 rounds
    assert ebp.feasible_sources(ip, ix, 10**12).all()
    # a disconnected subgraph: no node reaches every other
    ip, ix = _csr(nx.Graph([(0, 1), (2, 3)]))
    assert not ebp.feasible_sources(ip, ix, 5).any()
    assert checked == 420


def test_feasible_sources_more_open_nodes_than_one_chunk():
    """Over 1,024 nodes left open by the distance bounds: the bit-parallel check runs in
    chunks; the same answer as all-pairs shortest paths."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    g = nx.random_regular_graph(3, 2500, seed=4)
    ip, ix = _csr(g)
    ecc = shortest_path(csr_matrix((np.ones(ix.shape[0]), ix, ip), shape=(2500, 2500)),
                        unweighted=True).max(axis=1)
    for T in (int(ecc.min()), int(ecc.max()) - 1, int(ecc.max())):
        want = ecc <= T
        assert np.array_equal(ebp.feasible_sources(ip, ix, T), want), T
    assert 0 < (ecc <= ecc.max() - 1).sum() < 2500


def test_feasible_sources_bad_input():
    ip, ix = _csr(nx.path_graph(4))
    with pytest.raises(InvalidTypeError, match="indptr"):
        ebp.feasible_sources(ip.tolist(), ix, 2)
    with pytest.raises(InvalidParameterError, match="indices"):
        ebp.feasible_sources(ip, ix + 10, 2)
    with pytest.raises(InvalidParameterError, match="T"):
        ebp.feasible_sources(ip, ix, -1)


def _three_block():
    # benchmarks/make_three_block.py's graph (issue 31's sweep graph): 3 x 166 nodes,
    # p_in 0.05, p_out 0.003, seed 31
    probs = [[0.05 if i == j else 0.003 for j in range(3)] for i in range(3)]
    return nx.Graph(nx.stochastic_block_model([166] * 3, probs, seed=31, sparse=True))


def _arrays(snap):
    ip, ix = snap.subgraph()
    ip = np.ascontiguousarray(ip, np.int64)
    ix = np.ascontiguousarray(ix, np.int32)
    return ip, ix, snap.contact_degrees() - np.diff(ip)


def test_three_block_snapshot_that_did_not_converge_now_does():
    """T = 4 on the three-block graph: the one-run BP with a source prior on every infected
    node (``prior`` before issue 31's convergence work) oscillates; with sources restricted
    to the feasible nodes (and the damping schedule) it converges, and its MAP is the
    source."""
    g = _three_block()
    proto = spread.RandomDiffusion(0.5)
    snap, src = None, None
    sp = spread.simulate(g, proto, 4, rng=42)
    snap = adversaries.observe(sp)
    ip, ix, extra = _arrays(snap)
    old = ebp.bp_run(ip, ix, extra, 4, 0.5, 0.03, damping=0.3, max_iter=200)
    assert not old.converged and old.sweeps == 200
    feas = ebp.feasible_sources(ip, ix, 4)
    assert 0 < feas.sum() < snap.n // 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = adversaries.bp_posterior(snap, proto)
    assert res.method == "prior" and res.converged and res.unconverged == 0
    assert res.candidates == feas.sum()
    # impossible sources (more than T hops from some infected node) get exactly 0
    assert np.all(res.posterior[~feas] == 0.0) and np.isclose(res.posterior.sum(), 1.0)
    src = snap.position(sp.source)
    assert feas[src] and res.posterior.argmax() == src


def test_flags_stay_false_where_bp_does_not_converge():
    """T = 6 on the three-block graph, almost every node infected: this snapshot's BP has no
    stable fixed point (its change never settles at damping 0.3 or 0.6, nor at 0.9 with
    1,000 sweeps); the result says so, and the stall rule stops each attempt early."""
    g = _three_block()
    proto = spread.RandomDiffusion(0.5)
    snap = adversaries.observe(spread.simulate(g, proto, 6, rng=1))
    ip, ix, extra = _arrays(snap)
    assert ebp.feasible_sources(ip, ix, 6).all()
    long = ebp.bp_run(ip, ix, extra, 6, 0.5, 0.03, damping=0.9, max_iter=1000)
    assert not long.converged and long.change > 1e-3
    with pytest.warns(adversaries.BPConvergenceWarning,
                      match=r"damping 0 \(stall 10\) then 0.3 \(stall 50\) then 0.6 \(stall 50\)"):
        res = adversaries.bp_posterior(snap, proto)
    assert res.method == "prior" and not res.exact
    assert not res.converged and res.unconverged == 1 and res.stalled == 1
    assert res.damping == 0.6 and res.max_change >= 1e-9
    # the three attempts stopped by their stall windows, before max_iter
    assert res.iterations < 3 * 200
    with pytest.warns(adversaries.BPConvergenceWarning):
        full = adversaries.bp_posterior(snap, proto, stall=0)
    assert not full.converged and full.stalled == 0 and full.iterations == 600
    np.testing.assert_allclose(res.posterior.sum(), 1.0)


def test_stall_rule_in_the_engine():
    """stall = 0 is the run of before (same sweeps, same answer); a stalled run stops
    before max_iter, unconverged; a converging run is not stopped."""
    g = _three_block()
    proto = spread.RandomDiffusion(0.5)
    snap = adversaries.observe(spread.simulate(g, proto, 6, rng=1))
    ip, ix, extra = _arrays(snap)
    a = ebp.bp_run(ip, ix, extra, 6, 0.5, 0.03, max_iter=200)
    b = ebp.bp_run(ip, ix, extra, 6, 0.5, 0.03, max_iter=200, stall=0)
    assert a.sweeps == b.sweeps == 200 and a.log_z == b.log_z
    c = ebp.bp_run(ip, ix, extra, 6, 0.5, 0.03, max_iter=200, stall=30)
    assert 30 <= c.sweeps < 200 and not c.converged
    # the clamped runs of the first candidates converge after 121-189 sweeps (no stall)
    lz0, it0, ch0 = ebp.clamped_log_likelihood(ip, ix, extra, 6, 0.5, np.arange(3), max_iter=200)
    lz1, it1, ch1 = ebp.clamped_log_likelihood(ip, ix, extra, 6, 0.5, np.arange(3), max_iter=200,
                                               stall=30)
    assert np.all(ch0 < 1e-9) and np.array_equal(it0, it1) and np.array_equal(lz0, lz1)
    tree = nx.balanced_tree(2, 4)
    s = adversaries.observe(spread.simulate(tree, proto, 3, rng=3))
    ip, ix, extra = _arrays(s)
    lz0, it0, _ = ebp.clamped_log_likelihood(ip, ix, extra, 3, 0.5, np.arange(s.n))
    lz1, it1, ch1 = ebp.clamped_log_likelihood(ip, ix, extra, 3, 0.5, np.arange(s.n), stall=5)
    assert np.array_equal(it0, it1) and np.array_equal(lz0, lz1) and np.all(ch1 < 1e-9)
    with pytest.raises(InvalidParameterError, match="stall"):
        ebp.bp_run(ip, ix, extra, 3, 0.5, 0.03, stall=-1)


def test_damping_schedule_and_source_prior_options():
    g = nx.random_regular_graph(3, 16, seed=2)
    proto = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(5)
    snap = next(s for s in (adversaries.observe(spread.simulate(g, proto, 4, rng=rng))
                            for _ in range(40)) if not s.subgraph_is_tree() and s.n > 8)
    one = adversaries.bp_posterior(snap, proto, damping=0.3)
    sched = adversaries.bp_posterior(snap, proto, damping=[0.3, 0.6])
    # converged at the first damping: the schedule changes nothing
    assert one.converged and sched.converged and one.damping == sched.damping == 0.3
    np.testing.assert_array_equal(one.posterior, sched.posterior)
    # the default prior schedule converges undamped on a snapshot that converges; the same
    # answer as damping 0.3 (the same fixed point)
    pr = adversaries.bp_posterior(snap, proto, method="prior")
    pr3 = adversaries.bp_posterior(snap, proto, method="prior", damping=0.3)
    assert pr.converged and pr.damping == 0.0 and pr3.converged and pr3.damping == 0.3
    np.testing.assert_allclose(pr.posterior, pr3.posterior, rtol=0, atol=1e-8)
    pair = adversaries.bp_posterior(snap, proto, method="prior", damping=[(0.0, 10), 0.3])
    np.testing.assert_array_equal(pair.posterior, pr.posterior)
    for bad in ((), (0.3, 1.0), (0.3, -0.1), "0.3", [(0.3, 5, 1)], [(0.3, -5)]):
        with pytest.raises((InvalidParameterError, InvalidTypeError), match="damping"):
            adversaries.bp_posterior(snap, proto, damping=bad)
    with pytest.raises(InvalidParameterError, match="stall"):
        adversaries.bp_posterior(snap, proto, stall=-1)
    ip, ix, extra = _arrays(snap)
    with pytest.raises(InvalidParameterError, match="source_prior"):
        ebp.bp_run(ip, ix, extra, 4, 0.5, 0.0)
    with pytest.raises(InvalidParameterError, match="source_prior"):
        ebp.bp_run(ip, ix, extra, 4, 0.5, np.zeros(snap.n))
    # a zero prior: that node is never a source
    gm = np.full(snap.n, 0.03)
    gm[0] = 0.0
    r = ebp.bp_run(ip, ix, extra, 4, 0.5, gm, max_iter=2000)
    assert r.log_source[0] == -np.inf and np.isfinite(r.log_source[1:]).any()
