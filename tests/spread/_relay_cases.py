"""Cases and full outputs of adaptive diffusion's relay path (shared by
test_spread_relay_kernel.py and the script that recorded its reference digests).

A case runs the relay kernel (``run_one`` mode 3) from several sources on one store, the
store reused across runs (cleared between them as the drivers do), and returns every
output of each run: infected nodes in infection order, their times and parents, the
children lists, the virtual sources and sizes per step, the bit generator's full state
after the run (so the exact random-number consumption, buffered half-words included)
and, on lazily grown trees, the nodes the run created. ``run_batch`` cases cover the
batch driver's reuse of the store across trials.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import networkx as nx
import numpy as np

from anonspread.engine import _spreading
from anonspread.engine import spreading as _kernels
from anonspread.spread.graphs import from_networkx, line, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion

#: The flag combinations: relay, infectors, stuck, cap.
FLAGS = list(itertools.product(("tree", "graph"), ("all", "leaves"), ("keep", "pass"),
                               (None, 1, 3)))
D0S = (2.0, 3.0, 4.5, math.inf)


def finite_graphs():
    """Small graphs with cycles (and dead ends, a bridge, a second component)."""
    gs = {
        "cycle9": nx.cycle_graph(9),
        "petersen": nx.petersen_graph(),
        "rr3_12": nx.random_regular_graph(3, 12, seed=5),
        "rr4_30": nx.random_regular_graph(4, 30, seed=6),
        "grid4": nx.convert_node_labels_to_integers(nx.grid_2d_graph(4, 4)),
        "gnp25": nx.gnp_random_graph(25, 0.18, seed=7),
        "lollipop": nx.lollipop_graph(5, 4),
        "sbm60": nx.Graph(nx.stochastic_block_model([20, 20, 20], [[0.3, 0.02, 0.02],
                                                                   [0.02, 0.3, 0.02],
                                                                   [0.02, 0.02, 0.3]], seed=8)),
    }
    gs["two_parts"] = nx.disjoint_union(nx.cycle_graph(5), nx.complete_graph(4))
    return {k: from_networkx(v) for k, v in gs.items()}


def lazy_makers():
    return {
        "random_tree": lambda s: random_tree({1: 0.1, 2: 0.2, 3: 0.4, 5: 0.3}, rng=s),
        "regular3": lambda s: regular_tree(3),
        "line": lambda s: line(),
    }


def _state_bytes(rng) -> bytes:
    st = rng.bit_generator.state
    return repr((st["state"], st["has_uint32"], st["uinteger"])).encode()


def run_outputs(store, source, T, params, rng, stop, lazy) -> bytes:
    """Every output of one relay run, as bytes."""
    vs = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    n = _spreading.run_one(_kernels.ADAPTIVE_DIFFUSION, store, source, T, params, rng, vs,
                           sizes, 3, stop)
    order = store.order[:n].copy()
    ns = store.ns
    parts = [np.int64(n).tobytes(), order.tobytes(), ns[order, 0].tobytes(),
             ns[order, 1].tobytes(), ns[order, 2].tobytes(), ns[order, 3].tobytes(),
             vs.tobytes(), sizes.tobytes(), _state_bytes(rng)]
    if lazy:
        m = store.n_nodes
        parts += [np.int64(m).tobytes(), store.key[:m].tobytes(), store.tpar[:m].tobytes(),
                  store.start[:m].tobytes()]
    if not lazy:
        store.reset_run_state(n)
    return b"|".join(parts)


def case_params(g, T, relay, infectors, stuck, cap, d0):
    return AdaptiveDiffusion(d0, max_infections_per_step=cap, relay=relay, infectors=infectors,
                             stuck=stuck).kernel_params(g, T)


def finite_case(g, flags, d0, seed, n_runs=6):
    """``n_runs`` runs on one store of ``g`` from random sources, T and stops."""
    relay, infectors, stuck, cap = flags
    r = np.random.default_rng(seed)
    store = g._new_store()
    rng = np.random.default_rng(seed + 1000)
    out = []
    for _ in range(n_runs):
        T = int(r.integers(0, 13))
        source = int(r.integers(0, g.number_of_nodes()))
        stop = int(r.choice([0, 0, 3, 8]))
        out.append(run_outputs(store, source, T, case_params(g, T, relay, infectors, stuck,
                                                             cap, d0), rng, stop, False))
    return out


def lazy_case(make, flags, d0, seed):
    relay, infectors, stuck, cap = flags
    r = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        g = make(int(r.integers(0, 2**31)))
        T = int(r.integers(0, 11))
        store = g._new_store(capacity=int(r.choice([16, 64])))  # in-kernel growth too
        stop = int(r.choice([0, 0, 5]))
        rng = np.random.default_rng(seed + 2000)
        out.append(run_outputs(store, 0, T, case_params(g, T, relay, infectors, stuck, cap, d0),
                               rng, stop, True))
    return out


def batch_case(g, flags, d0, seed, lazy_make=None):
    """``run_batch`` over 12 trials on one store (the driver's store reuse)."""
    relay, infectors, stuck, cap = flags
    r = np.random.default_rng(seed)
    T = int(r.integers(2, 11))
    if lazy_make is not None:
        g = lazy_make(seed)
        store = g._new_store(capacity=32)
        sources = np.zeros(12, np.int32)
    else:
        store = g._new_store()
        sources = r.integers(0, g.number_of_nodes(), 12).astype(np.int32)
    seeds = r.integers(0, 2**63, 12).astype(np.uint64)
    stops = r.choice([0, 0, 4, 9], 12).astype(np.int64)
    params = case_params(g, T, relay, infectors, stuck, cap, d0)
    sizes = np.zeros((12, T + 1), np.int64)
    hops = np.zeros(12, np.int32)
    vsn = np.zeros(12, np.int32)
    rng = np.random.default_rng(seed + 3000)
    _spreading.run_batch(_kernels.ADAPTIVE_DIFFUSION, store, lazy_make is not None, sources,
                         seeds, T, params, rng, sizes, hops, vsn, stops)
    return [b"|".join([sizes.tobytes(), hops.tobytes(), vsn.tobytes(), _state_bytes(rng)])]


def all_cases(seeds=range(3)):
    """``(name, outputs)`` for every graph, flag combination, d0 and seed."""
    fg = finite_graphs()
    lm = lazy_makers()
    for flags in FLAGS:
        tag = "-".join(str(f) for f in flags)
        for seed in seeds:
            d0 = D0S[seed % len(D0S)]
            for name, g in fg.items():
                yield f"{name}/{tag}/{seed}", finite_case(g, flags, d0, seed)
            for name, make in lm.items():
                yield f"{name}/{tag}/{seed}", lazy_case(make, flags, d0, seed)
            yield f"batch-sbm60/{tag}/{seed}", batch_case(fg["sbm60"], flags, d0, seed)
            yield f"batch-rr4/{tag}/{seed}", batch_case(fg["rr4_30"], flags, d0, seed)
            yield f"batch-tree/{tag}/{seed}", batch_case(None, flags, d0, seed, lm["random_tree"])


def digest(outputs) -> str:
    h = hashlib.sha256()
    for o in outputs:
        h.update(hashlib.sha256(o).digest())
    return h.hexdigest()[:16]
