"""The closed-form tree path of adaptive diffusion equals the message-passing path exactly."""

import math

import numpy as np
import pytest

from anonspread.engine import spreading as _kernels
from anonspread.spread.graphs import line, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion


def run(kernel, g, T, seed, d0):
    store = g._new_store(capacity=64)  # small: exercises in-kernel growth too
    params = AdaptiveDiffusion(d0).kernel_params(g, T)
    vs = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    rng = np.random.default_rng(seed)
    n = kernel(store, 0, T, params, rng, vs, sizes)
    # node ids follow allocation order, which differs between the paths; a node's
    # position key does not, so compare through it
    key, ns = store.key, store.ns

    def k(v):
        return -1 if v < 0 else int(key[v])

    idx = store.order[:n]
    trace = {k(v): (int(ns[v, 0]), k(ns[v, 1])) for v in idx}
    times = ns[idx, 0]
    return trace, [k(v) for v in vs], sizes, times, rng.random()


@pytest.mark.parametrize(
    "make",
    [lambda s: random_tree({1: 0.1, 2: 0.2, 3: 0.4, 5: 0.3}, rng=s),
     lambda s: regular_tree(3), lambda s: line()],
    ids=["random", "regular", "line"],
)
def test_tree_path_equals_relay_path(make):
    for seed in range(40):
        d0 = [2, 3, 4.5, math.inf][seed % 4]
        for T in range(0, 12):
            a = run(_kernels.run_adaptive_diffusion_tree, make(seed), T, seed, d0)
            b = run(_kernels.run_adaptive_diffusion_relay, make(seed), T, seed, d0)
            assert a[0] == b[0], (seed, T)
            assert a[1] == b[1]
            assert np.array_equal(a[2], b[2])
            assert np.all(np.diff(a[3]) >= 0)  # infection order
            assert a[4] == b[4]  # the same random numbers were consumed


def summary(g, T, seed, d0, capacity):
    """The batch drivers' dispatch (run_summary) with AD_SUMMARY_ONLY: sizes, virtual-source
    keys, hops, rng state, and the number of nodes the run created."""
    store = g._new_store(capacity=capacity)
    params = AdaptiveDiffusion(d0).summary_params(g, T)
    assert int(params[2]) & _kernels.AD_SUMMARY_ONLY
    vs = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    rng = np.random.default_rng(seed)
    n = _kernels.run_summary(_kernels.ADAPTIVE_DIFFUSION, store, 0, T, params, rng, vs, sizes)
    key = store.key
    hops = _kernels.vs_hops(store, vs[T])
    return n, [int(key[v]) for v in vs], sizes, hops, rng.random(), store.n_nodes


@pytest.mark.parametrize(
    "make",
    [lambda s: random_tree({1: 0.1, 2: 0.2, 3: 0.4, 5: 0.3}, rng=s),
     lambda s: random_tree({3: 0.5, 4: 0.5}, rng=s),
     lambda s: regular_tree(3), lambda s: regular_tree(5), lambda s: line()],
    ids=["random", "random34", "regular3", "regular5", "line"],
)
def test_counting_path_equals_tree_path(make):
    """Counting the ball without creating it gives the materialising path's sizes, virtual
    sources (same position keys), hop counts and random-number consumption. A store of
    16 nodes has no room to count in, so the run creates the ball (and makes room); one
    of 4,096 counts it, creating only the walk's nodes."""
    for seed in range(30):
        d0 = [2, 3, 4.5, math.inf][seed % 4]
        for T in range(0, 13):
            a = run(_kernels.run_adaptive_diffusion_tree, make(seed), T, seed, d0)
            for capacity in (16, 4096):
                b = summary(make(seed), T, seed, d0, capacity)
                assert b[0] == len(a[0]) == a[2][T], (seed, T)
                assert b[1] == a[1]
                assert np.array_equal(b[2], a[2])
                assert b[4] == a[4]
                # hops to the final virtual source: its depth in the materialised trace
                depth, k = 0, b[1][T]
                while a[0][k][1] != -1:
                    k = a[0][k][1]
                    depth += 1
                assert b[3] == depth
                if capacity == 4096:
                    assert b[5] <= 1 + 5 * (T // 2 + 2)  # the walk's expansions only


def test_graph_store_names_its_fields_and_pickles_with_its_realisation():
    import pickle

    from anonspread import spread
    from anonspread.engine.store import GraphStore

    g = random_tree({2: 0.3, 3: 0.4, 4: 0.3}, rng=3)
    s = spread.simulate(g, AdaptiveDiffusion(3), 9, rng=1)
    h = pickle.loads(pickle.dumps(g))
    st, st2 = g.store, h.store
    assert isinstance(st2, GraphStore) and st2.lazy and st2.n_nodes == st.n_nodes
    for f in ("start", "deg", "nbr", "tpar", "key", "dvals", "dcdf", "ns", "order"):
        assert np.array_equal(getattr(st, f)[: st.n_nodes], getattr(st2, f)[: st.n_nodes]), f
    assert [g.neighbors(v).tolist() for v in range(30)] == [h.neighbors(v).tolist() for v in range(30)]
    t1 = spread.simulate(g, AdaptiveDiffusion(3), 9, rng=2)
    t2 = spread.simulate(h, AdaptiveDiffusion(3), 9, rng=2)
    assert np.array_equal(t1.infected, t2.infected) and s.n_infected > 1
    with pytest.raises(ValueError, match="field deg must be"):
        GraphStore(st.start, st.deg.astype(np.int64), st.nbr, st.tpar, st.key, st.dvals, st.dcdf,
                   st.ns, st.order, st.n_nodes, st.n_nbr, True)
