"""The engine is compiled when the package is built, and draws from the caller's Generator.

* every ``src/anonspread/engine/_*.pyx`` is an importable extension module (no JIT at run time);
* nothing is compiled at run time: no JIT compiler is imported or required;
* a kernel advances the caller's ``numpy.random.Generator`` draw for draw as the
  Generator's own ``integers``, ``random`` and ``exponential`` methods would;
* kernels release the GIL, and batches run in threads with their own Generators give the
  results they give one after the other.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np
import pytest

from anonspread import spread
from anonspread.engine import dandelion as T
from anonspread.spread.dandelion import DandelionPlusPlus
from anonspread.spread.events import ContinuousDiffusion
from anonspread.spread.protocols import AdaptiveDiffusion, RandomDiffusion

ENGINE = pathlib.Path(__file__).resolve().parents[1] / "src" / "anonspread" / "engine"


@pytest.mark.parametrize("pyx", sorted(p.stem for p in ENGINE.glob("_*.pyx")))
def test_every_cython_source_is_a_compiled_extension(pyx):
    mod = importlib.import_module(f"anonspread.engine.{pyx}")
    assert isinstance(mod.__loader__, importlib.machinery.ExtensionFileLoader), mod.__file__


def test_nothing_is_compiled_at_run_time():
    """Every engine module, every subpackage and a fused simulate -> score run of each
    estimator family in a new interpreter: no JIT compiler is imported, and the package
    does not depend on one."""
    code = (
        "import sys, pkgutil, importlib\n"
        "import anonspread, anonspread.engine\n"
        "for m in pkgutil.iter_modules(anonspread.engine.__path__):\n"
        "    importlib.import_module('anonspread.engine.' + m.name)\n"
        "from anonspread import spread, adversaries, privacy, harness, datasets\n"
        "import networkx as nx\n"
        "g = nx.random_regular_graph(4, 200, seed=1)\n"
        "adversaries.simulate_and_score(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6,"
        " 20, estimators=('ml', 'jordan', 'rumor', 'netsleuth', 'lisn'), rng=0)\n"
        "adversaries.simulate_and_score(g, spread.RandomDiffusion(0.5), 4, 20,"
        " estimators=('jordan', 'rumor'), rng=0)\n"
        "spread.simulate_many(g, spread.Flooding(), 3, 20, rng=0)\n"
        "print(sorted(m for m in ('numba', 'llvmlite') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
    from importlib.metadata import requires

    assert not [r for r in requires("anonspread") or [] if r.split()[0].lower().startswith("numba")]

def _regular_digraph_reference(n, d, rng):
    """The kernel's algorithm in Python, drawing through the Generator's own methods."""
    succ = [[] for _ in range(n)]
    perm = list(range(n))
    for c in range(d):
        if c > 0:
            for i in range(n - 1, 0, -1):
                j = int(rng.integers(0, i + 1))
                perm[i], perm[j] = perm[j], perm[i]
        for i in range(n):
            u, w = perm[i], perm[(i + 1) % n]
            if w not in succ[u]:
                succ[u].append(w)
    return [w for s in succ for w in s]


@pytest.mark.parametrize("n,d", [(7, 1), (50, 2), (300, 3)])
def test_integer_draws_follow_the_generator(n, d):
    a, b = np.random.default_rng(n), np.random.default_rng(n)
    _, indices = T.regular_digraph(n, d, a)
    assert indices.tolist() == _regular_digraph_reference(n, d, b)
    assert a.bit_generator.state == b.bit_generator.state


def test_uniform_draws_follow_the_generator():
    """Per-transaction stems on a directed cycle with a fluff coin: one uniform per hop."""
    n, q = 40, 0.3
    indptr = np.arange(n + 1, dtype=np.int64)
    indices = (np.arange(n, dtype=np.int64) + 1) % n
    spy = np.zeros(n, bool)
    spy[[5, 25]] = True
    h = n - 2
    kind, node, spy_of, hops = (np.empty(h, np.int8), *(np.empty(h, np.int64) for _ in range(3)))
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    T.stems(n, indptr, indices, spy, 0, q, n, False, a, kind, node, spy_of, hops)
    expect = []
    for v in np.flatnonzero(~spy):
        cur, hop = v, 0
        while True:
            b.integers(0, 1)  # one successor: a draw of integers(0, 1) that takes no bits
            w = (cur + 1) % n
            hop += 1
            if spy[w]:
                expect.append((0, cur, hop))
                break
            if b.random() < q:
                expect.append((1, w, hop))
                break
            cur = w
    assert list(zip(kind.tolist(), node.tolist(), hops.tolist())) == expect
    assert a.bit_generator.state == b.bit_generator.state


def test_exponential_draws_follow_the_generator():
    """Diffusion over one edge: each trial's completion time is one exponential delay."""
    g = spread.graphs.from_networkx(nx.path_graph(2))
    batch = spread.simulate_stems(g, ContinuousDiffusion(2.0), 50, sources=[0, 1] * 25, rng=4)
    ref = np.random.default_rng(4)
    expect = [ref.exponential(0.5) for _ in range(50)]
    np.testing.assert_array_equal(batch.completion_time, expect)


def test_batches_in_threads_keep_their_own_streams():
    g = spread.graphs.from_networkx(nx.random_regular_graph(6, 400, seed=0))
    proto = DandelionPlusPlus(0.2)

    def run(seed):
        b = spread.simulate_stems(g, proto, 300, spies=np.arange(0, 400, 9), rng=seed)
        return b.spy_sender, b.completion_time

    seeds = list(range(6))
    alone = [run(s) for s in seeds]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(run, seeds))
    for (s1, t1), (s2, t2) in zip(alone, together):
        np.testing.assert_array_equal(s1, s2)
        np.testing.assert_array_equal(t1, t2)


def test_spreading_draws_follow_the_generator():
    """Random diffusion from a star's centre, one step: one uniform per leaf, in CSR order;
    adaptive diffusion's first move: one ``integers(0, degree)``."""
    g = spread.graphs.from_networkx(nx.star_graph(30))
    a, b = np.random.default_rng(8), np.random.default_rng(8)
    s = spread.simulate(g, RandomDiffusion(0.3), 1, source=0, rng=a)
    expect = [int(v) for v in g.neighbors(0) if b.random() < 0.3]  # labels are the indices
    assert s.infected.tolist() == [0, *expect] and len(expect) > 3
    assert a.bit_generator.state == b.bit_generator.state
    t = spread.graphs.regular_tree(5)
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    s = spread.simulate(t, AdaptiveDiffusion(5), 1, rng=a)
    assert s.virtual_source == t.neighbors(0)[b.integers(0, 5)]
    assert a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("graph", ["finite", "lazy"])
def test_spreading_batches_in_threads_keep_their_own_streams(graph):
    if graph == "finite":
        g = spread.graphs.from_networkx(nx.random_regular_graph(4, 2000, seed=1))
        proto = AdaptiveDiffusion(4, 2)
    else:
        g = spread.graphs.random_tree({2: 0.3, 3: 0.4, 4: 0.3}, rng=2)
        proto = AdaptiveDiffusion(3)

    def run(seed):
        return spread.simulate_many(g, proto, 12, 300, rng=seed).sizes

    seeds = list(range(6))
    alone = [run(s) for s in seeds]
    with ThreadPoolExecutor(3) as pool:
        together = list(pool.map(run, seeds))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)
