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
import json
import math
from pathlib import Path

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


#: The recorded reference: the small graphs (edge lists, so that no generator's version
#: matters) and the digests of main's outputs on every case.
REFERENCE = Path(__file__).with_name("relay_reference_main.json")


def finite_graphs():
    """Small graphs with cycles (and dead ends, a bridge, a second component): cycle9,
    petersen, random 3- and 4-regular (12 and 30 nodes), a 4x4 grid, G(25, 0.18), a
    lollipop, a 60-node three-block graph and a 5-cycle beside a K4."""
    data = json.loads(REFERENCE.read_text())["graphs"]
    out = {}
    for name, d in data.items():
        g = nx.Graph()
        g.add_nodes_from(range(d["n"]))
        g.add_edges_from(map(tuple, d["edges"]))
        out[name] = from_networkx(g)
    return out


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


def case_params(g, T, relay, infectors, stuck, cap, d0, extra=0):
    """The kernel's params; ``extra``: flag bits added (the reference path's)."""
    params = AdaptiveDiffusion(d0, max_infections_per_step=cap, relay=relay, infectors=infectors,
                               stuck=stuck).kernel_params(g, T)
    params[2] += extra
    return params


def finite_case(g, flags, d0, seed, extra=0, n_runs=6):
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
                                                             cap, d0, extra), rng, stop, False))
    return out


def lazy_case(make, flags, d0, seed, extra=0):
    relay, infectors, stuck, cap = flags
    r = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        g = make(int(r.integers(0, 2**31)))
        T = int(r.integers(0, 11))
        store = g._new_store(capacity=int(r.choice([16, 64])))  # in-kernel growth too
        stop = int(r.choice([0, 0, 5]))
        rng = np.random.default_rng(seed + 2000)
        out.append(run_outputs(store, 0, T, case_params(g, T, relay, infectors, stuck, cap, d0,
                                                        extra), rng, stop, True))
    return out


def batch_case(g, flags, d0, seed, lazy_make=None, extra=0):
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
    params = case_params(g, T, relay, infectors, stuck, cap, d0, extra)
    sizes = np.zeros((12, T + 1), np.int64)
    hops = np.zeros(12, np.int32)
    vsn = np.zeros(12, np.int32)
    rng = np.random.default_rng(seed + 3000)
    _spreading.run_batch(_kernels.ADAPTIVE_DIFFUSION, store, lazy_make is not None, sources,
                         seeds, T, params, rng, sizes, hops, vsn, stops)
    return [b"|".join([sizes.tobytes(), hops.tobytes(), vsn.tobytes(), _state_bytes(rng)])]


def all_cases(seeds=range(3), reference=False):
    """``(name, outputs)`` for every graph, flag combination, d0 and seed; ``reference``:
    through the relay's reference path (``AD_REFERENCE_RELAY_BIT``)."""
    x = _spreading.AD_REFERENCE_RELAY_BIT if reference else 0
    fg = finite_graphs()
    lm = lazy_makers()
    for flags in FLAGS:
        tag = "-".join(str(f) for f in flags)
        for seed in seeds:
            d0 = D0S[seed % len(D0S)]
            for name, g in fg.items():
                yield f"{name}/{tag}/{seed}", finite_case(g, flags, d0, seed, x)
            for name, make in lm.items():
                yield f"{name}/{tag}/{seed}", lazy_case(make, flags, d0, seed, x)
            yield f"batch-sbm60/{tag}/{seed}", batch_case(fg["sbm60"], flags, d0, seed, extra=x)
            yield f"batch-rr4/{tag}/{seed}", batch_case(fg["rr4_30"], flags, d0, seed, extra=x)
            yield f"batch-tree/{tag}/{seed}", batch_case(None, flags, d0, seed, lm["random_tree"],
                                                         extra=x)


def grouped_digests(cases) -> dict:
    """One digest per graph and flag combination, over its seeds."""
    groups = {}
    for name, outputs in cases:
        groups.setdefault(name.rsplit("/", 1)[0], []).extend(outputs)
    return {k: digest(v) for k, v in groups.items()}


def digest(outputs) -> str:
    h = hashlib.sha256()
    for o in outputs:
        h.update(hashlib.sha256(o).digest())
    return h.hexdigest()[:16]
