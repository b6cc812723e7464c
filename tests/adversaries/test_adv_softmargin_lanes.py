"""Soft-margin's runs of random diffusion and flooding, 64 at a time
(:func:`engine.softmargin.accumulate_shared_lanes`): the law of the serial kernel (exact
likelihoods by enumeration), runs that depend only on (key, run index), and p drawn
exactly."""

from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.softmargin import _layout
from anonspread.engine import softmargin as engine_sm
from anonspread.engine.store import new_finite_store
from anonspread.errors import InvalidParameterError

WIDTHS = [0.25, 0.0625]


def _graph():
    # 8 nodes: a 5-cycle with chords and a pendant path (cycles, degrees 1-4)
    G = nx.cycle_graph(5)
    G.add_edges_from([(0, 2), (1, 3), (4, 5), (5, 6), (6, 7), (2, 6)])
    return spread.graphs.as_contact_graph(G)


def _lanes(g, proto, snaps, runs, *, streams=None, threads=1, calls=None, keep=None):
    T = snaps[0].T
    keeps = [np.arange(s.n) if keep is None else keep for s in snaps]
    lay = _layout(snaps, keeps, g.number_of_nodes())
    npairs = lay.pair_snap.shape[0]
    sums = engine_sm.PairSums(npairs, len(WIDTHS))
    stores = [new_finite_store(g.indptr, g.indices) for _ in range(threads)]
    streams = streams or engine_sm.LaneStreams(np.arange(lay.sources.shape[0], dtype=np.uint64) * 977 + 5)
    for n in calls or [runs]:
        engine_sm.accumulate_shared_lanes(proto.kernel_code, stores, lay.sources, streams, n, T,
                                          proto.kernel_params(g, T), lay.pair_ptr, lay.pair_snap,
                                          np.ones(npairs, np.uint8), lay.snap_ptr, lay.snap_ids,
                                          lay.n_obs, WIDTHS, sums)
    return lay, sums, streams


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_exact_matches_have_the_exact_likelihood(p):
    # every run reproducing the snapshot is counted: hits / runs estimates P(snapshot | v),
    # which exact_likelihood enumerates; 4.5-sigma bands at a fixed seed
    g, proto, T = _graph(), spread.RandomDiffusion(p), 2
    snaps = [A.Snapshot(g, [0, 1, 2], T=T), A.Snapshot(g, [0, 1, 2, 3, 4], T=T),
             A.Snapshot(g, [2, 5, 6], T=T)]
    runs = 64 * 300
    lay, sums, _ = _lanes(g, proto, snaps, runs)
    checked = 0
    for b, snap in enumerate(snaps):
        exact = A.exact_likelihood(snap, proto)
        for p_ in np.nonzero(lay.pair_snap == b)[0]:
            c = np.searchsorted(lay.pair_ptr, p_, side="right") - 1
            node = int(lay.sources[c])
            q = float(np.exp(exact[node]))
            sd = math.sqrt(q * (1 - q) / runs)
            assert sums.runs[p_] == runs
            assert abs(sums.hits[p_] / runs - q) <= 4.5 * sd + 1e-12, (b, node, q, sums.hits[p_])
            checked += q > 0.01
    assert checked >= 5  # the bands were tested where they can fail


def test_mean_jaccard_agrees_with_the_serial_kernel():
    # beyond exact matches: the law of the whole infected set (its Jaccard with a
    # snapshot) is the serial kernel's, on a graph with cycles, T = 3
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(3, 30, seed=2))
    proto, T = spread.RandomDiffusion(0.4), 3
    snaps = [A.observe(spread.simulate(g, proto, T, rng=s)) for s in range(3)]
    keep = None
    lay, lanes, _ = _lanes(g, proto, snaps, 64 * 100, keep=keep)
    runs = 64 * 100
    serial = engine_sm.PairSums(lay.pair_snap.shape[0], len(WIDTHS))
    engine_sm.accumulate_shared(proto.kernel_code, [new_finite_store(g.indptr, g.indices)],
                                lay.sources, [np.random.default_rng(9 + int(v)) for v in lay.sources],
                                runs, T, proto.kernel_params(g, T), lay.pair_ptr, lay.pair_snap,
                                np.ones(lay.pair_snap.shape[0], np.uint8), lay.snap_ptr,
                                lay.snap_ids, lay.n_obs, WIDTHS, serial)
    m_l, m_s = lanes.jac[:, 0] / runs, serial.jac[:, 0] / runs
    var = (lanes.jac[:, 1] / runs - m_l**2 + serial.jac[:, 1] / runs - m_s**2) / runs
    z = (m_l - m_s) / np.sqrt(np.maximum(var, 1e-300))
    assert np.abs(z).max() < 5.0
    assert abs(z.mean()) < 4.0 / math.sqrt(z.shape[0])  # no bias over the pairs


def test_runs_depend_only_on_key_and_index():
    # one call of 1,000 runs = calls of 300 + 700 = 1 + 999, and 2 threads: bitwise
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 60, seed=3))
    proto = spread.RandomDiffusion(0.35)
    snaps = [A.observe(spread.simulate(g, proto, 3, rng=s)) for s in range(4)]
    _, a, sa = _lanes(g, proto, snaps, 1000)
    for calls, threads in (([300, 700], 1), ([1, 999], 2), ([1000], 2)):
        _, b, sb = _lanes(g, proto, snaps, None, calls=calls, threads=threads)
        for f in engine_sm.PairSums._FIELDS:
            assert np.array_equal(getattr(a, f), getattr(b, f)), (calls, threads, f)
        assert np.array_equal(sa.drawn, sb.drawn) and sa.drawn.max() == 1000
    # another key: other runs
    _, c, _ = _lanes(g, proto, snaps, 1000, streams=engine_sm.LaneStreams(
        np.arange(len(sa), dtype=np.uint64) + 12345))
    assert not np.array_equal(a.jac, c.jac)


def test_flooding_and_p_zero_are_deterministic():
    g = _graph()
    ball = A.Snapshot(g, [0, 1, 2, 3, 6], T=1)  # node 2's closed neighbourhood
    lay, s, _ = _lanes(g, spread.Flooding(), [ball], 130, keep=np.array([ball.position(2)]))
    assert s.hits.tolist() == [130] and s.runs.tolist() == [130]
    alone = A.Snapshot(g, [3], T=4)
    lay, s, _ = _lanes(g, spread.RandomDiffusion(0.0), [alone], 70)
    assert s.hits.tolist() == [70]


@pytest.mark.parametrize("p", [0.5, 0.3, 0.05, 1e-300, 1 - 2**-53, 0.1])
def test_probability_bits_are_exact(p):
    certain, bits = engine_sm.probability_bits(p)
    assert not certain
    assert sum(Fraction(int(b), 2**(i + 1)) for i, b in enumerate(bits)) == Fraction(p)
    assert engine_sm.probability_bits(1.0)[0]
    with pytest.raises(InvalidParameterError, match="p must be a probability"):
        engine_sm.probability_bits(1.5)


def test_lanes_refuse_what_they_do_not_run():
    g = _graph()
    snap = A.Snapshot(g, [0, 1, 2], T=2)
    with pytest.raises(InvalidParameterError, match="lane kernels"):
        _lanes(g, spread.LineProtocol(), [snap], 64)
    lazy = spread.graphs.regular_tree(3)
    store = lazy.store
    lay = _layout([snap], [np.arange(3)], g.number_of_nodes())
    with pytest.raises(ValueError, match="finite graph"):
        engine_sm.accumulate_shared_lanes(
            spread.RandomDiffusion(0.5).kernel_code, [store], lay.sources,
            engine_sm.LaneStreams(np.zeros(3, np.uint64)), 64, 2, [0.5], lay.pair_ptr,
            lay.pair_snap, np.ones(3, np.uint8), lay.snap_ptr, lay.snap_ids, lay.n_obs, WIDTHS,
            engine_sm.PairSums(3, len(WIDTHS)))
