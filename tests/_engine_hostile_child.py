"""Child process of tests/test_engine_hostile.py: call every public-by-name callable of
``anonspread.engine`` with the classic bad inputs, printing one line per call.

Run as ``python tests/_engine_hostile_child.py MODULE`` (one engine module per process, so a
crash names its module; the parent reads the last ``START`` line to name the call). Each
callable needs a valid call in :data:`CASES`: a callable without one is reported (``MISSING``)
and fails the parent test, so a kernel added later cannot go unchecked. A valid call is
written by hand or recorded from a small call of the public layers (``_recorded``).

Lines: ``START name case``, then ``OK``, ``RAISED ExceptionType`` or, for a bad-input
case that returned normally, ``RETURNED`` (allowed: e.g. a non-contiguous input is copied).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys

import numpy as np

import anonspread.engine

#: Bad scalar values tried for every integer argument (indices, sizes, counts).
BAD_INTS = (-1, -(2**31) - 5, 7 + 10**6)


def public_callables(module) -> list[str]:
    """Public-by-name callables a module offers that the engine defines (functions, compiled
    functions, classes; not submodules nor names imported from elsewhere, e.g. errors)."""
    return sorted(n for n in dir(module) if not n.startswith("_")
                  and callable(getattr(module, n)) and not inspect.ismodule(getattr(module, n))
                  and getattr(getattr(module, n), "__module__", "").startswith("anonspread.engine"))


# ----------------------------------------------------------------- fixtures

def _graph():
    """A triangle 0-1-2 with a tail 2-3-4-5 (CSR), and its tree 0-1, 0-2, 1-3, 1-4, 2-5."""
    import networkx as nx
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5)])
    t = nx.Graph([(0, 1), (0, 2), (1, 3), (1, 4), (2, 5)])

    def csr(h):
        a = nx.to_scipy_sparse_array(h, nodelist=range(6), format="csr")
        return a.indptr.astype(np.int64), a.indices.astype(np.int32)
    return csr(g), csr(t)


(GP, GI), (TP, TI) = _graph()
N = 6


def _bfs_tree():
    from anonspread.engine import scoring
    order, parent, dist = np.empty(N, np.int32), np.empty(N, np.int32), np.full(N, -1, np.int32)
    scoring.bfs(TP, TI, 0, order, parent, dist)
    return order, parent


_RECORD: dict[str, tuple] = {}


def _recording(qual: str, f):
    @functools.wraps(f)
    def rec(*args, **kwargs):
        _RECORD.setdefault(qual, (args, kwargs))
        return f(*args, **kwargs)
    return rec


def _install_recorders() -> None:
    """Wrap every public engine callable so that the first call of each is kept (before the
    public layers import them by name)."""
    import pkgutil
    for m in pkgutil.iter_modules(anonspread.engine.__path__):
        if m.name.startswith("_"):
            continue
        mod = importlib.import_module(f"anonspread.engine.{m.name}")
        for name in public_callables(mod):
            f = getattr(mod, name)
            if inspect.isfunction(f) and f.__module__ == mod.__name__:
                setattr(mod, name, _recording(f"{m.name}.{name}", f))


def _copy(x):
    return x.copy() if isinstance(x, np.ndarray) else x


def _recorded(qual: str, driver):
    """The first recorded call of ``qual`` made by ``driver()`` (arrays copied)."""
    def make():
        if qual not in _RECORD:
            driver()
        args, kwargs = _RECORD[qual]
        return [_copy(a) for a in args], {k: _copy(v) for k, v in kwargs.items()}
    return make


# ----------------------------------------------------------------- drivers (public layers)

def _drive_simulate():
    import networkx as nx

    from anonspread import spread
    from anonspread.spread.protocols import AdaptiveDiffusion, RandomDiffusion
    spread.simulate(nx.cycle_graph(8), RandomDiffusion(0.5), 3, rng=0)
    spread.simulate_many(nx.cycle_graph(8), RandomDiffusion(0.5), 3, 4, rng=0)
    spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(), 4, rng=0)


def _drive_batch():
    import networkx as nx

    from anonspread import adversaries
    from anonspread.spread.protocols import RandomDiffusion
    adversaries.simulate_and_score(nx.cycle_graph(8), RandomDiffusion(0.5), 3, 4,
                                   estimators=["jordan", "rumor"], rng=0)


def _drive_dandelion():
    import networkx as nx

    from anonspread.spread import dandelion as d
    g = nx.cycle_graph(8)
    d.draw_anonymity_graph(g, d.Dandelion(0.5), rng=0)
    d.simulate_stems(g, d.Dandelion(0.5), 3, rng=0) if hasattr(d, "simulate_stems") else None


def _drive_transactions():

    from anonspread.adversaries import transactions as tx
    for name in ("observe", "simulate", "transaction_observation"):
        if hasattr(tx, name):
            break
    g = tx.regular_digraph(10, 2, rng=0) if hasattr(tx, "regular_digraph") else None
    return g


def _drive_bp():
    """bp_posterior by every method on small snapshots (a tree, a cycle with a tail)."""
    import networkx as nx

    from anonspread import adversaries, spread
    from anonspread.spread.protocols import Flooding, RandomDiffusion
    tree = nx.balanced_tree(2, 3)
    loopy = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 0), (3, 4), (4, 5), (5, 6)])
    for g, proto, methods in ((tree, RandomDiffusion(0.5), ("tree",)),
                              (loopy, Flooding(), ("flooding",)),
                              (loopy, RandomDiffusion(0.5), ("bethe", "prior"))):
        for seed in range(20):
            s = spread.simulate(g, proto, 3, source=0, rng=seed)
            snap = adversaries.observe(s)
            try:
                for method in methods:
                    adversaries.bp_posterior(snap, proto, method=method)
            except Exception:  # a snapshot this method does not take: try the next seed
                continue
            break
    BP_DRIVEN.append(True)


BP_DRIVEN: list = []


def _drive_softmargin():
    import networkx as nx

    from anonspread import adversaries, spread
    from anonspread.spread.protocols import RandomDiffusion
    g = nx.cycle_graph(8)
    snap = adversaries.observe(spread.simulate(g, RandomDiffusion(0.5), 2, rng=0))
    adversaries.soft_margin(snap, RandomDiffusion(0.5), n_sims=20, rng=0) \
        if hasattr(adversaries, "soft_margin") else None


def _drive_sm(executor, lanes=False):
    """Soft-margin on a small cycle: random diffusion runs 64 at a time (the lanes), the
    line protocol one at a time."""
    import concurrent.futures as cf

    import networkx as nx

    from anonspread import adversaries, spread
    from anonspread.spread.protocols import LineProtocol, RandomDiffusion
    proto = RandomDiffusion(0.5) if lanes else LineProtocol()
    snap = adversaries.observe(spread.simulate(nx.cycle_graph(8), proto, 2, rng=0))
    ex = cf.ThreadPoolExecutor(1) if executor else None
    adversaries.soft_margin_estimate(snap, proto, simulations=10, max_simulations=10, rng=0,
                                     executor=ex)


# ----------------------------------------------------------------- valid calls

def _ws_case():
    return [N], {}


def _ml_tree_case():
    from anonspread.engine import scoring
    ws = scoring.ml_workspace(N)
    gdeg = np.diff(TP).astype(np.int64)
    return [TP, TI, gdeg, True, 1, np.zeros(3), np.zeros(3), -1, np.zeros(3),
            np.zeros(N), ws], {}


def _store_case():
    from anonspread.engine import store
    s = store.new_finite_store(GP, GI)
    return [s.start, s.deg, s.nbr, s.tpar, s.key, s.dvals, s.dcdf, s.ns, s.order, s.n_nodes,
            s.n_nbr, False], {}


def _sums():
    from anonspread.engine.softmargin import SoftMarginSums
    return SoftMarginSums(2, 1)


def _accumulate_case():
    from anonspread.engine import store
    mask = np.zeros(N, np.uint8)
    mask[[0, 1]] = 1
    return [1, [store.new_finite_store(GP, GI)], np.array([0, 1], np.int32),
            [np.random.default_rng(0), np.random.default_rng(1)], 3, 2, np.array([0.5]), mask, 2,
            np.array([0.1]), _sums()], {}


def _accumulate_chunk_case():
    mask = np.zeros(N, np.uint8)
    mask[[0, 1]] = 1
    return [1, ((GP, GI), np.array([0.5]), mask), 1, np.array([0, 1], np.int32),
            [np.random.default_rng(0), np.random.default_rng(1)], 3, 2, 2, np.array([0.1]),
            _sums()], {}


def _score_chunk_case():
    gptr = np.array([0, 1, 3, 5, 6], np.int64)
    gind = np.array([1, 0, 2, 1, 3, 2], np.int32)
    args = [0, 1, np.array([0, 3], np.int64), np.full(1, 3, np.int64), np.full(1, -1, np.int64),
            np.array([0, 1, 2], np.int32), np.array([-1, 0, 1], np.int64),
            np.array([1, 2, 2], np.int64), gptr, gind, np.array([1, 2], np.int64),
            np.full((2, 1), 0.99), np.zeros(4, np.int64), np.zeros((2, 1), np.int8),
            np.zeros((2, 1)), np.zeros((2, 1), np.int64), np.zeros((2, 1), np.int64),
            np.zeros((2, 1))]
    return args, dict(T=2, lazy=False, tree_graph=True, centre_known=False)


def _lisn_graph_case():
    loc = np.full(N, -1, np.int64)
    loc[[0, 1, 2]] = [0, 1, 2]
    return [GP, GI, np.array([0, 1, 2], np.int64), loc, 3, np.log(np.full(4, 0.5)),
            np.log(np.full(4, 0.5)), 4, np.zeros(3)], {}


def _tree_passes_case():
    order, parent = _bfs_tree()
    return [TP, TI, order, parent, np.zeros(N, bool), *(np.zeros(N, np.int64) for _ in range(4))], {}


def _eif_case():
    blocked = np.zeros(N, bool)
    blocked[[3, 5]] = True
    return [GP, GI, np.array([0, 1, 2], np.int64), np.array([3, 5], np.int64),
            np.array([1.0, 2.0]), blocked, 1.0, np.zeros(3)], {}


def _price_case():
    from anonspread.engine import staircase
    a = np.array([0.5, 0.3, 0.2])
    b = np.array([0.2, 0.3, 0.5])
    return [staircase.KIND_KL, a, b, np.zeros(3), 1.0, 1, np.zeros(4), np.zeros(4, np.int64)], {}


def _rumor_at_case():
    return [GP, GI, 0, 6.579251212010101, np.empty(N, np.int32), np.empty(N, np.int32),
            np.full(N, -1, np.int32), np.ones(N, np.int64)], {}


def _run_stem_case():
    return _recorded("dandelion.run_stem_batch", _drive_dandelion_stems)()


def _drive_dandelion_stems():
    import networkx as nx

    from anonspread.spread import dandelion as d
    names = [n for n in dir(d) if "stem" in n.lower() and callable(getattr(d, n))]
    g = nx.cycle_graph(8)
    for name in ("simulate_stems", "run_stems", "stem_batch", "simulate_dandelion"):
        if hasattr(d, name):
            getattr(d, name)(g, d.Dandelion(0.5), 3, rng=0)
            return
    raise RuntimeError(f"no stem driver among {names}")


def _tx_case(kind):
    def make():
        from anonspread.engine import dandelion as K
        iptr, iind = K.regular_digraph(8, 2, np.random.default_rng(0))
        spy = np.zeros(8, bool)
        spy[[0, 3]] = True
        outs = [np.empty(6, np.int8), np.empty(6, np.int64), np.empty(6, np.int64),
                np.empty(6, np.int64)]
        if kind == "stems":
            return [8, iptr, iind, spy, 1, 0.5, 8, True, np.random.default_rng(0), *outs], {}
        return [8, iptr, iind, spy, np.random.default_rng(0), *outs], {}
    return make


CASES = {
    "bp.BPRun": lambda: ([0.0, np.zeros(3), np.zeros(3), 1, 0.0, True], {}),
    "bp.bp_run": _recorded("bp.bp_run", _drive_bp),
    "bp.clamped_log_likelihood": _recorded("bp.clamped_log_likelihood", _drive_bp),
    "bp.feasible_sources": _recorded("bp.feasible_sources", _drive_bp),
    "bp.flood_log_likelihood": _recorded("bp.flood_log_likelihood", _drive_bp),
    "bp.message_bytes": lambda: (["run", N, int(GP[-1]), 3], {"threads": 1}),
    "bp.reverse_edges": lambda: ([GP, GI.copy()], {}),
    "bp.tree_log_likelihood": _recorded("bp.tree_log_likelihood", _drive_bp),
    "dandelion.draw_anonymity": _recorded("dandelion.draw_anonymity", _drive_dandelion),
    "dandelion.run_stem_batch": _run_stem_case,
    "dandelion.regular_digraph": lambda: ([8, 2, np.random.default_rng(0)], {}),
    "dandelion.routing_tables": lambda: ([8, *_digraph(), 1, np.random.default_rng(0)], {}),
    "dandelion.stems": _tx_case("stems"),
    "dandelion.diffusion_first_spy": _tx_case("diffusion"),
    "dandelion.precision_recall": lambda: ([4, np.arange(4), np.array([0, 1, -1, 3])], {}),
    "edgelist.SimpleCSR": lambda: ([np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32),
                                    0, 1, 2, 1], {}),
    "edgelist.Tokenizer": lambda: ([0, 0, [35], False, 1000, 100], {}),
    "edgelist.simple_csr": lambda: ([3, np.array([0, 1, 1, 2]), np.array([1, 0, 1, 0])], {}),
    "edgelist.simple_csr_counts": lambda: ([3, np.array([0, 1, 1, 2], np.int32),
                                           np.array([1, 0, 1, 0], np.int32)], {}),
    "features.bfs_rumor": lambda: ([GP, GI, np.zeros(N)], {}),
    "features.distance_sums": lambda: ([GP, GI, np.zeros(N, np.int64), np.zeros(N, np.int64)], {}),
    "features.multi_source_distance": lambda: ([GP, GI, np.array([0, 4]), np.zeros(N, np.int64)], {}),
    "features.rows_sorted_by": lambda: ([GP, GI, np.array([9, 5, 7, 1, 3, 8], np.uint64)], {}),
    "features.descending_ranks": lambda: ([np.array([3.0, 1.0, 3.0, -np.inf, 2.0])], {}),
    "features.merge_close": lambda: ([np.array([1.0, 0.9999999, 0.5, -np.inf, 2.0]), 1e-7], {}),
    # two trees: a stump on column 1 (NaN left) and a two-split tree on column 0
    "features.TreeEnsemble": lambda: ([np.array([1, 0, 0, 0, 0, 0, 0, 0]),
                                       np.array([0.5, 0, 0, 1.5, 0, 2.5, 0, 0]),
                                       np.array([True, False, False, False, False, False, False, False]),
                                       np.array([False, True, True, False, True, False, True, True]),
                                       np.array([1, 0, 0, 4, 0, 6, 0, 0]),
                                       np.array([2, 0, 0, 5, 0, 7, 0, 0]),
                                       np.array([0, -1.0, 1.0, 0, 0.5, 0, -0.5, 2.0]),
                                       np.array([0, 3]), 0.1, 2], {}),
    "fused.local_tree": lambda: ([np.array([-1, 0, 0, 1], np.int64), 4, np.empty(5, np.int64),
                                  np.empty(4, np.int64), np.empty(8, np.int32)], {}),
    "fused.score_chunk": _score_chunk_case,
    "graphs.connected_components": lambda: ([GP, GI], {}),
    "graphs.induced_subgraph": lambda: ([GP, GI, np.arange(N)], {}),
    "graphs.triangles": lambda: ([GP, GI, np.arange(N)], {}),
    "literature.binomial_tail_tables": lambda: ([3, 0.5, np.zeros(5), np.zeros(5)], {}),
    "literature.lisn_graph": _lisn_graph_case,
    "literature.lisn_regular_tree": lambda: ([TP, TI, 3, np.log(np.full(4, 0.5)),
                                              np.log(np.full(4, 0.5)), np.zeros(N)], {}),
    "literature.netsleuth_vector": lambda: ([GP, GI, np.diff(GP) + 1, 100, np.zeros(N)], {}),
    "rumor.cut_rumor_bound": lambda: ([GP, GI, np.zeros(N)], {}),
    "rumor.graph_rumor": lambda: ([GP, GI, np.zeros(N)], {}),
    "rumor.graph_rumor_top": lambda: ([GP, GI, 0, 1e-9, np.zeros(N, bool)], {}),
    "rumor.RumorPlan": lambda: ([1, 2, 3, 0.5, 0.1, 0.0], {}),
    "rumor.rumor_plan": lambda: ([GP, GI, 0, 1e-9], {"timed": 1, "min_seconds": 0.0}),
    "rumor.rumor_at": _rumor_at_case,
    "rumor.tree_rumor": lambda: ([TP, TI, np.zeros(N)], {}),
    "rumor.two_core": lambda: ([GP, GI], {}),
    "rumor_threads.rumor_scan_parallel": lambda: ([GP, GI, 0, 1e-9, np.zeros(N, bool), 2], {}),
    "rumor_threads.rumor_top": lambda: ([GP, GI, 0, 1e-9, np.zeros(N, bool), 2, 0], {}),
    "scoring.bfs": lambda: ([GP, GI, 0, np.empty(N, np.int32), np.empty(N, np.int32),
                             np.full(N, -1, np.int32)], {}),
    "scoring.bitparallel_eccentricity": lambda: ([GP, GI, np.zeros(N, np.int64),
                                                  np.full(N, 1 << 30, np.int64), 2, 0], {}),
    "scoring.graph_eccentricity": lambda: ([GP, GI, np.zeros(N, np.int64)], {}),
    "scoring.graph_jordan_top": lambda: ([GP, GI, 0, np.zeros(N, bool)], {}),
    "scoring.graph_radius": lambda: ([GP, GI], {}),
    "scoring.ml_ball": lambda: ([np.array([-1, 0, 0, 1, 1, 2], np.int64), np.full(N, 3, np.int64),
                                 1, np.zeros(3), np.log(np.arange(1, 5)), np.zeros(N), np.zeros(N),
                                 np.zeros(N, np.int64)], {}),
    "scoring.ml_tree": _ml_tree_case,
    "scoring.ml_tree_walks": _ml_tree_case,
    "scoring.ml_workspace": _ws_case,
    "scoring.score_summary": lambda: ([np.arange(N, dtype=float), 0, 1e-9, np.zeros(N, bool)], {}),
    "scoring.tree_eccentricity": lambda: ([TP, TI, np.zeros(N, np.int64)], {}),
    "scoring.tree_passes": _tree_passes_case,
    "scoring.within_radius": lambda: ([GP, GI, 2], {}),
    "sensors.direction_mask": lambda: ([TP, TI, np.array([3]), np.array([1]), np.zeros(N, bool)], {}),
    "sensors.eif_costs": _eif_case,
    "sensors.pinto_loglik": lambda: ([TP, TI, np.array([0, 1, 2]), np.array([3, 4, 5]),
                                      np.array([2.0, 2.0, 2.0]), 1.0, 0.5, np.zeros(3)], {}),
    "softmargin.GraphStore": _store_case,
    "softmargin.SoftMarginSums": lambda: ([2, 1], {}),
    "softmargin.accumulate": _accumulate_case,
    "softmargin.accumulate_chunk": _accumulate_chunk_case,
    "softmargin.PairSums": lambda: ([2, 1], {}),
    "softmargin.accumulate_shared": _recorded("softmargin.accumulate_shared", lambda: _drive_sm(None)),
    "softmargin.accumulate_shared_chunk": _recorded("softmargin.accumulate_shared_chunk",
                                                    lambda: _drive_sm("pool")),
    "softmargin.accumulate_shared_lanes": _recorded("softmargin.accumulate_shared_lanes",
                                                    lambda: _drive_sm(None, lanes=True)),
    "softmargin.accumulate_shared_lanes_chunk": _recorded("softmargin.accumulate_shared_lanes_chunk",
                                                          lambda: _drive_sm("pool", lanes=True)),
    "softmargin.LaneStreams": lambda: ([np.array([1, 2], np.uint64), np.array([0, 64])], {}),
    "softmargin.lanes_bytes": lambda: ([N, 2, 4, 1], {}),
    "softmargin.probability_bits": lambda: ([0.3], {}),
    "softmargin.scoring_costs": lambda: ([np.array([0, 1, 2], np.int64), np.ones(2, np.uint8),
                                          np.array([0, 0, 1, 2, 2, 2], np.int64), 1], {}),
    "softmargin.copy_store": lambda: ([__import__("anonspread.engine.store", fromlist=["x"])
                                       .new_finite_store(GP, GI)], {}),
    "softmargin.new_finite_store": lambda: ([GP, GI], {}),
    "spreading.GraphStore": _store_case,
    "spreading.run_adaptive_diffusion_relay": _recorded("spreading.run_adaptive_diffusion_relay",
                                                        lambda: None),
    "spreading.run_adaptive_diffusion_tree": _recorded("spreading.run_adaptive_diffusion_tree",
                                                       lambda: None),
    "spreading.run_batch": _recorded("spreading.run_batch", _drive_simulate),
    "spreading.run_protocol": _recorded("spreading.run_protocol", _drive_simulate),
    "spreading.run_summary": _recorded("spreading.run_summary", lambda: None),
    "spreading.simulate_chunk": _recorded("spreading.simulate_chunk", _drive_batch),
    "spreading.vs_hops": lambda: ([__import__("anonspread.engine.store", fromlist=["x"])
                                   .new_finite_store(GP, GI), 0], {}),
    "staircase.price_blocks": _price_case,
    "frequency.olh_support": lambda: ([np.array([1, 3], np.uint32), np.array([0, 5], np.uint32),
                                       np.array([0, 1], np.uint32), 4, 2], {}),
    "frequency.ue_sample": lambda: ([np.array([0, 2], np.int64), 4, 0.5, 0.25,
                                     np.random.default_rng(0)], {}),
    "frequency.ss_sample": lambda: ([np.array([0, 2], np.int64), 5, 2, 0.5,
                                     np.random.default_rng(0)], {}),
    "store.GraphStore": _store_case,
    "store.new_finite_store": lambda: ([GP, GI], {}),
    "store.new_lazy_store": lambda: ([np.array([3]), np.array([1.0]), 0, 16], {}),
}


def _digraph():
    from anonspread.engine import dandelion as K
    return K.regular_digraph(8, 2, np.random.default_rng(0))


# run_protocol's siblings take its arguments (a store from the same driver)
def _like_run_protocol(qual, lazy):
    def make():
        from anonspread.engine import store as st
        args, kw = CASES["spreading.run_protocol"]()
        if lazy:
            s = st.new_lazy_store(np.array([3]), np.array([1.0]), 0, 64)
        else:
            s = st.new_finite_store(GP, GI)
        # (code, store, source, T, params, rng, vs_out, sizes_out) -> without the code
        return [s, 0, 2, np.array([1.0, 3.0, 0.0, 3.0]), np.random.default_rng(0),
                np.empty(3, np.int32), np.empty(3, np.int64)], {}
    return make


CASES["spreading.run_adaptive_diffusion_relay"] = _like_run_protocol("relay", False)
CASES["spreading.run_adaptive_diffusion_tree"] = _like_run_protocol("tree", True)


def _run_summary_case():
    args, kw = CASES["spreading.run_protocol"]()
    return args, kw


CASES["spreading.run_summary"] = _run_summary_case


def _use_store(store):
    """Run every protocol on a store a call returned (a store built from bad arrays must be
    refused when built, not crash its first run)."""
    from anonspread.engine import spreading
    if store.lazy:
        params = {spreading.ADAPTIVE_DIFFUSION: [1.0, 3.0, 0.0, 3.0]}
    else:
        params = {spreading.FLOODING: [], spreading.RANDOM_DIFFUSION: [0.5]}
    for code, p in params.items():
        for src in range(min(store.n_nodes, 3)):
            spreading.run_protocol(code, store, src, 3, np.array(p, np.float64),
                                   np.random.default_rng(0), np.empty(4, np.int32),
                                   np.empty(4, np.int64))


def _use_tokenizer(tok):
    """Feed a tokenizer the call built: good and out-of-range windows of a buffer, then take
    its arcs twice (the second must be refused, not read freed memory)."""
    buf = bytearray(b"0 1\n2 3\n# c\n4\n")
    for start, stop in ((0, len(buf)), (-1, 3), (3, 1), (0, 10**6), (len(buf), len(buf))):
        try:
            tok.feed(buf, start, stop, True)
        except ValueError:
            pass
    for _ in range(2):
        try:
            tok.take_arcs()
        except ValueError:
            pass


#: What to do with a call's result (a built store is run).
USE = {q: _use_store for q in ("store.GraphStore", "spreading.GraphStore", "softmargin.GraphStore",
                               "store.new_finite_store", "softmargin.new_finite_store",
                               "store.new_lazy_store", "softmargin.copy_store")}
USE["edgelist.Tokenizer"] = _use_tokenizer
USE["features.TreeEnsemble"] = lambda ens: ens.predict(np.array([[0.0, 1.0], [np.nan, 0.0], [3.0, np.nan]]))


# ----------------------------------------------------------------- bad inputs

def _bad_arrays(a: np.ndarray):
    """The classic bad versions of one array argument."""
    yield "empty", a[:0].copy()
    if a.shape and a.shape[0] > 1:
        yield "too-short", a[: a.shape[0] // 2].copy()
        yield "one-short", a[:-1].copy()
    if a.ndim >= 1 and a.size:
        nc = np.repeat(a, 2, axis=0)[::2]
        yield "non-contiguous", nc
        yield "fortran-2d", np.asfortranarray(np.stack([a, a], axis=-1)) if a.ndim == 1 else a.T
    if a.dtype.kind in "iu" and a.size:
        for v in (-1, -7, 10**6 + 3, 2**31 + 1, 2**40):
            b = a.astype(np.int64)
            b.flat[a.size // 2] = v
            yield f"value-{v}", b.astype(a.dtype) if np.can_cast(np.min_scalar_type(v), a.dtype) else b
        yield "as-float", a.astype(np.float64)
        yield "as-int8", a.astype(np.int8)
    elif a.dtype.kind == "f" and a.size:
        yield "as-int", a.astype(np.int64)
        yield "as-float32", a.astype(np.float32)
        b = a.copy()
        b.flat[0] = np.nan
        yield "nan", b
    elif a.dtype.kind == "b" and a.size:
        yield "as-int64", a.astype(np.int64)
    b = a.copy()
    b.flags.writeable = False
    yield "read-only", b
    yield "list", a.tolist()


def _odd_graphs():
    """Well-formed CSR graphs on 6 nodes that are not what a kernel may expect: two
    triangles (disconnected), a directed path (asymmetric), self-loops, an empty graph."""
    two = ([0, 2, 4, 6, 8, 10, 12], [1, 2, 0, 2, 0, 1, 4, 5, 3, 5, 3, 4])
    directed = ([0, 1, 2, 3, 4, 5, 5], [1, 2, 3, 4, 5])
    loops = ([0, 2, 4, 6, 8, 10, 12], [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0])
    empty = ([0] * 7, [])
    for label, (p, q) in (("disconnected", two), ("directed", directed), ("self-loops", loops),
                          ("edgeless", empty)):
        yield label, np.array(p, np.int64), np.array(q, np.int32)


def bad_calls(args: list, kwargs: dict):
    """(label, args, kwargs) for every classic bad input of a valid call."""
    for i in range(len(args) - 1):
        a, b = args[i], args[i + 1]
        if (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == np.int64
                and b.dtype == np.int32 and a.shape == (N + 1,)):
            for label, p, q in _odd_graphs():
                yield f"csr{i}:{label}", [*args[:i], p, q, *args[i + 2:]], kwargs
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            for label, b in _bad_arrays(a):
                yield f"arg{i}:{label}", [*args[:i], b, *args[i + 1:]], kwargs
        elif isinstance(a, (bool, np.bool_)):
            continue
        elif isinstance(a, (int, np.integer)):
            for v in BAD_INTS:
                yield f"arg{i}:int{v}", [*args[:i], v, *args[i + 1:]], kwargs
        elif isinstance(a, tuple) and a and all(isinstance(x, np.ndarray) for x in a):
            for j, x in enumerate(a):
                for label, b in _bad_arrays(x):
                    t = (*a[:j], b, *a[j + 1:])
                    yield f"arg{i}[{j}]:{label}", [*args[:i], t, *args[i + 1:]], kwargs
        elif a is None or isinstance(a, (float, str)):
            continue
        yield f"arg{i}:None", [*args[:i], None, *args[i + 1:]], kwargs
    for k, v in kwargs.items():
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            for bad in BAD_INTS:
                yield f"{k}:int{bad}", args, {**kwargs, k: bad}


def main(module_name: str) -> int:
    _install_recorders()
    mod = importlib.import_module(f"anonspread.engine.{module_name}")
    for name in public_callables(mod):
        qual = f"{module_name}.{name}"
        make = CASES.get(qual)
        if make is None:
            print(f"MISSING {qual}", flush=True)
            continue
        f = getattr(mod, name)
        args, kwargs = make()
        print(f"START {qual} valid", flush=True)
        r = f(*args, **kwargs)
        USE.get(qual, lambda r: None)(r)
        print("OK", flush=True)
        n_bad = sum(1 for _ in bad_calls(list(args), kwargs))
        for k in range(n_bad):
            args, kwargs = make()  # fresh arrays each time: a refused call may leave them dirty
            label, bargs, bkw = next(c for j, c in enumerate(bad_calls(list(args), kwargs))
                                     if j == k)
            print(f"START {qual} {label}", flush=True)
            try:
                r = f(*bargs, **bkw)
                USE.get(qual, lambda r: None)(r)
            except Exception as e:  # a clean Python exception is what is asked
                print(f"RAISED {type(e).__name__}: {str(e)[:160]!r}", flush=True)
            else:
                print("RETURNED", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
