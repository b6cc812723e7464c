"""The soft-margin estimator on an executor (issue 26): candidates split into chunks that run
as tasks of a process pool or a dask cluster give the in-process result bit for bit."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import networkx as nx
import numpy as np
import pytest
from softmargin_checks import Inline, assert_identical

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import softmargin as engine_sm
from anonspread.errors import InvalidParameterError, InvalidTypeError


@pytest.fixture(scope="module")
def cases():
    """A finite graph refined over three rounds, and a lazily grown tree."""
    G = nx.connected_watts_strogatz_graph(150, 6, 0.2, seed=2)
    rd = spread.RandomDiffusion(0.4)
    snap = A.observe(spread.simulate(G, rd, 3, source=0, rng=1))
    finite = (snap, rd, {"rng": 7, "simulations": 100, "max_simulations": 400, "candidates": 12,
                              "stop_uninformative": False})
    ad = spread.AdaptiveDiffusion()
    tsnap = A.observe(spread.simulate(spread.graphs.regular_tree(3), ad, 6, rng=3))
    lazy = (tsnap, ad, {"rng": 9, "simulations": 200, "max_simulations": 200, "candidates": None})
    out = []
    for snap, proto, kw in (finite, lazy):
        out.append((snap, proto, kw, A.soft_margin_estimate(snap, proto, **kw)))
    assert out[0][3].simulations == 400 and len(out[0][3].candidates) == 12  # three rounds
    return out


def test_process_pool_gives_the_serial_result_whatever_the_chunks(cases):
    with ProcessPoolExecutor(2) as pool:
        for snap, proto, kw, serial in cases:
            for chunks in (None, 1, 3, 7, 1000):
                assert_identical(serial, A.soft_margin_estimate(snap, proto, executor=pool,
                                                                 chunks=chunks, **kw))
            assert_identical(serial, A.soft_margin_estimate(snap, proto, executor=pool,
                                                             chunks=2, threads=2, **kw))


def test_thread_pool_and_a_minimal_executor_give_the_serial_result(cases):
    with ThreadPoolExecutor(3) as pool:
        for snap, proto, kw, serial in cases:
            assert_identical(serial, A.soft_margin_estimate(snap, proto, executor=pool, **kw))
    for snap, proto, kw, serial in cases:
        assert_identical(serial, A.soft_margin_estimate(snap, proto, executor=Inline(),
                                                         chunks=4, **kw))
    # and the registered estimator's scores are those of the estimate
    snap, proto, kw, serial = cases[0]
    assert np.array_equal(A.soft_margin(snap, proto, executor=Inline(), **kw).array,
                          serial.scores.array)


@pytest.mark.parametrize("processes", [False, True])
def test_dask_cluster_gives_the_serial_result(cases, processes):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        for snap, proto, kw, serial in cases:
            for chunks in (None, 5):
                assert_identical(serial, A.soft_margin_estimate(snap, proto, executor=client,
                                                                 chunks=chunks, **kw))


def test_sums_split_and_merge_exactly():
    G = nx.connected_watts_strogatz_graph(60, 4, 0.2, seed=4)
    proto = spread.RandomDiffusion(0.5)
    snap = A.observe(spread.simulate(G, proto, 2, source=0, rng=2))
    cg = spread.graphs.as_contact_graph(G)
    mask = np.zeros(60, np.uint8)
    mask[snap.index] = 1
    src = snap.index[:5].astype(np.int32)
    params = proto.kernel_params(cg, 2)
    whole = engine_sm.SoftMarginSums(5, 2)
    gens = [np.random.default_rng(k) for k in range(5)]
    store = cg.take_store()
    engine_sm.accumulate(proto.kernel_code, [store], src, gens, 50, 2, params, mask, snap.n,
                         [0.25, 0.01], whole)
    cg.give_store(store)
    parts = []
    start = engine_sm.SoftMarginSums(5, 2)
    for rows in (slice(0, 2), slice(2, 5)):
        g = [np.random.default_rng(k) for k in range(5)][rows]
        s, g2 = engine_sm.accumulate_chunk(proto.kernel_code, ((cg.indptr, cg.indices), params, mask),
                                           1, src[rows], g, 50, 2, snap.n, [0.25, 0.01],
                                           start.take(rows))
        assert len(g2) == rows.stop - rows.start
        parts.append(s)
    merged = engine_sm.SoftMarginSums.concatenate(parts)
    assert merged.runs == whole.runs == 50
    for name in ("m1", "s1", "m2", "s2", "jac", "hits"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name)), name
    with pytest.raises(ValueError, match="equal runs"):
        engine_sm.SoftMarginSums.concatenate([parts[0], engine_sm.SoftMarginSums(1, 2)])


def test_bad_executor_or_chunks_is_refused_by_name():
    snap = A.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], 2)
    line = spread.LineProtocol()
    with pytest.raises(InvalidTypeError, match=r"executor must be .*\.submit.*got <object"):
        A.soft_margin_estimate(snap, line, rng=1, executor=object())
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(InvalidTypeError, match="executor must be"):
        A.soft_margin_estimate(snap, line, rng=gen, executor="pool")
    assert gen.bit_generator.state == state  # refused before any draw
    for bad in (0, -2):
        with pytest.raises(InvalidParameterError, match=rf"chunks.*{bad}"):
            A.soft_margin_estimate(snap, line, rng=1, executor=Inline(), chunks=bad)
    with pytest.raises(InvalidParameterError, match=r"chunks must be an integer >= 1; got 2.5"):
        A.soft_margin_estimate(snap, line, rng=1, executor=Inline(), chunks=2.5)
    with pytest.raises(InvalidTypeError, match="chunks"):
        A.soft_margin_estimate(snap, line, rng=1, executor=Inline(), chunks="2")
