"""Benchmark: adaptive diffusion, compiled engine vs a plain-Python trial, interleaved.

Run:  python benchmarks/bench_spread.py [--quick] [--rounds R]

Cases (issue 13, part 2): adaptive diffusion on random_tree({3: .5, 4: .5}) (d0 = 3) at
T = 10 and 16, on the 3-regular tree (d0 = 3) at T = 10 and 16, each as a simulation alone
(``simulate_many`` against a plain dict/list trial) and with the ML estimator
(``simulate_and_score(..., estimators=("ml",))`` against the plain trial followed by a
plain-Python exact ML estimate, Prop. 2.4.1 at even T); and adaptive diffusion with
d0 = inf, cap 3, on ego-Facebook (degree >= 3) at T = 8 (simulation alone). On the
3-regular tree ``simulate_and_score`` with ML alone scores by symmetry without creating
the ball (``adversaries._regular_ml``); the "(ball created)" cases time the general path
there (``simulate_and_score(..., regular_symmetry=False)``: the ball is created and ML scored
from the known centre), against the same Python trial, which creates the ball and scores
every node in both cases.

Both engines run in this process, one core, and are timed in CPU seconds
(``time.process_time``) in alternating rounds after a warm-up, so machine load that comes
and goes hits both alike. Throughput is infected nodes per second, each trial's final
infected set counted once. The script also measures this machine's memory bandwidth
(a large numpy copy) and prints the rate that bandwidth would allow at the bytes each
infected node costs when the ball is created, alone and with ML (``BYTES_PER_NODE``,
``BYTES_PER_NODE_ML``; ``simulate_many`` on a tree only counts the ball, and so does
``simulate_and_score`` with ML alone on the regular tree).

Issue 12, part 4: ``simulate()`` of a ~10-node spread on a 10^6-node random 4-regular
graph, the first call (labels, degrees and the node store are built once per graph) and
then per call.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections import deque

import numpy as np

from anonspread import datasets, spread
from anonspread.adversaries import simulate_and_score
from anonspread.adversaries._tables import ad_tables
from anonspread.spread.graphs import ContactGraph, random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion, alpha


# ----------------------------------------------------------------- plain Python
class PyRandomTree:
    def __init__(self, degrees, rnd):
        self.vals = list(degrees)
        self.w = [degrees[d] for d in self.vals]
        self.rnd = rnd
        self.adj = {0: None}
        self.deg = {0: self._draw()}
        self.par = {0: None}
        self.n = 1

    def _draw(self):
        if len(self.vals) == 1:
            return self.vals[0]
        return self.rnd.choices(self.vals, self.w)[0]

    def neighbors(self, v):
        if self.adj[v] is None:
            out = [] if self.par[v] is None else [self.par[v]]
            for _ in range(self.deg[v] - len(out)):
                c = self.n
                self.n += 1
                self.deg[c] = self._draw()
                self.par[c] = v
                self.adj[c] = None
                out.append(c)
            self.adj[v] = out
        return self.adj[v]

    def degree(self, v):
        return self.deg[v]


class PyGraph:
    def __init__(self, G):
        self.adj = {v: list(G[v]) for v in G}

    def neighbors(self, v):
        return self.adj[v]


def py_adaptive_diffusion(g, source, T, d0, cap, rnd):
    """One trial of Protocol 3 (tree relay), written plainly with dicts and lists.

    Returns the infection-tree parent of every infected node (the source maps to None).
    """
    time_of = {source: 0}
    children = {source: []}
    parent = {source: None}

    def relay(x0, exclude, t):
        seen, stack, visit = {x0}, [x0], []
        while stack:
            x = stack.pop()
            visit.append(x)
            for y in ([parent[x]] if parent[x] is not None else []) + children[x]:
                if y != exclude and y not in seen:
                    seen.add(y)
                    stack.append(y)
        for x in visit:
            fresh = [w for w in g.neighbors(x) if w not in time_of]
            if cap is not None and len(fresh) > cap:
                fresh = rnd.sample(fresh, cap)
            for w in fresh:
                time_of[w] = t
                parent[w] = x
                children[w] = []
                children[x].append(w)

    if T == 0:
        return parent
    u = rnd.choice(g.neighbors(source))
    time_of[u], parent[u], children[u] = 1, source, []
    children[source].append(u)
    vs, prev, h = u, source, 1
    if T >= 2:
        relay(vs, prev, 2)
    t = 3
    while t <= T:
        keep = rnd.random() < alpha(d0, t - 1, h)
        if not keep and children[vs]:
            prev, vs, h = vs, rnd.choice(children[vs]), h + 1
            relay(vs, prev, t)
            if t + 1 <= T:
                relay(vs, prev, t + 1)
        else:
            relay(vs, None, t)
        t += 2
    return parent


def py_ml_even(g, parent, T, log_b, rnd):
    """Plain-Python exact ML estimate of adaptive diffusion on an infinite tree, even T.

    The infected set is the ball of radius T/2 around the virtual source c (the middle
    of a longest path); ``log P(G_T | v) = -log deg(v) - sum log(deg(p) - 1) over the
    interior of path(v, c) + log B(d(v, c))`` (Prop. 2.4.1). Returns the arg-max, ties
    broken uniformly.
    """
    adj = {v: [] for v in parent}
    for v, p in parent.items():
        if p is not None:
            adj[v].append(p)
            adj[p].append(v)

    def bfs(root):
        dist, prev, q = {root: 0}, {root: None}, deque([root])
        while q:
            x = q.popleft()
            for y in adj[x]:
                if y not in dist:
                    dist[y], prev[y] = dist[x] + 1, x
                    q.append(y)
        return dist, prev

    d1, _ = bfs(next(iter(parent)))
    a = max(d1, key=d1.get)
    d2, prev = bfs(a)
    b = max(d2, key=d2.get)
    c = b
    for _ in range(d2[b] // 2):
        c = prev[c]
    # log-products of 1/(deg(p) - 1) over path interiors, outward from c
    inner = {c: 0.0}
    hop = {c: 0}
    q = deque([c])
    while q:
        x = q.popleft()
        step = inner[x] - (math.log(g.degree(x) - 1) if x != c else 0.0)
        for y in adj[x]:
            if y not in hop:
                hop[y] = hop[x] + 1
                inner[y] = step
                q.append(y)
    best, ties = -math.inf, []
    for v in parent:
        s = -math.log(g.degree(v)) + inner[v] + log_b[hop[v]]
        if s > best + 1e-9:
            best, ties = s, [v]
        elif s >= best - 1e-9:
            ties.append(v)
    return rnd.choice(ties)


# ----------------------------------------------------------------- cases
def tree_case(name, degrees, T, with_ml, n_fast, n_py, materialise=False):
    g = random_tree(degrees) if len(degrees) > 1 else regular_tree(next(iter(degrees)))
    proto = AdaptiveDiffusion(d0=3)
    log_b = ad_tables(3.0, T)[1] if with_ml else None

    def fast(trials, seed):
        if with_ml:
            # materialise: the ball is created and scored (known centre) even where the
            # regular tree's symmetry would serve ML alone (regular_symmetry=False)
            b = simulate_and_score(g, proto, T, trials, estimators=("ml",), rng=seed,
                                   regular_symmetry=not materialise)
            return int(b.n_infected.sum())
        return int(spread.simulate_many(g, proto, T, trials, rng=seed).n_infected.sum())

    def python(trials, seed):
        rnd = random.Random(seed)
        total = 0
        for _ in range(trials):
            pg = PyRandomTree(degrees, rnd)
            parent = py_adaptive_diffusion(pg, 0, T, 3, None, rnd)
            if with_ml:
                py_ml_even(pg, parent, T, log_b, rnd)
            total += len(parent)
        return total

    label = name + (", + ML" if with_ml else "") + (" (ball created)" if materialise else "")
    return label, fast, python, n_fast, n_py, with_ml and (materialise or len(degrees) > 1)


def facebook_case(n_fast, n_py):
    fb = datasets.load_graph("ego-facebook", min_degree=3)
    g = spread.graphs.from_networkx(fb)
    proto = AdaptiveDiffusion(math.inf, 3)
    pg = PyGraph(fb)
    nodes = list(fb)

    def fast(trials, seed):
        return int(spread.simulate_many(g, proto, 8, trials, rng=seed).n_infected.sum())

    def python(trials, seed):
        rnd = random.Random(seed)
        return sum(len(py_adaptive_diffusion(pg, rnd.choice(nodes), 8, math.inf, 3, rnd))
                   for _ in range(trials))

    return "ego-Facebook (deg>=3), d0=inf, cap 3, T=8", fast, python, n_fast, n_py, False


def interleaved(fast, python, n_fast, n_py, rounds):
    fast(2, 0)  # compile / load, warm
    python(1, 0)
    cpu = {"fast": 0.0, "python": 0.0}
    nodes = {"fast": 0, "python": 0}
    trials = {"fast": 0, "python": 0}
    for r in range(rounds):
        for which, fn, n in (("fast", fast, n_fast), ("python", python, n_py)):
            t0 = time.process_time()
            nodes[which] += fn(n, 1000 + r)
            cpu[which] += time.process_time() - t0
            trials[which] += n
    return {k: (trials[k] / cpu[k], nodes[k] / cpu[k], nodes[k] / trials[k]) for k in cpu}


# ----------------------------------------------------------------- limits
#: Bytes of memory traffic per infected node of the closed-form tree path when it
#: creates the ball (``simulate``, and ``simulate_and_score``'s simulation phase):
#: creating the node (start 8, deg 4, tpar 4, key 8, its 24-byte state row, its
#: neighbour slot 4 = 52), visiting it (its queue slot in ``order`` 4 written + 4 read,
#: its state row 24 read and written back, start/deg/nbr 16 read) and the in-place sort
#: by time (order 8, state row reads 24): about 160 bytes. ``simulate_many`` on a tree
#: does not create the ball: it counts it (``_ad_tree_counts``), a closed form per level
#: on a regular tree (no memory traffic per node) and on a random tree one position key
#: and depth pushed and popped per node with an infected child (32 bytes, in L1).
BYTES_PER_NODE = 160

#: The same with the ML estimator when the ball is created (``simulate_and_score(...,
#: ("ml",))`` on a random tree, or on a regular one with ``regular_symmetry=False``): the 160
#: above, the snapshot copy (``loc`` set/read/reset 24, order/parent/degree buffers 20
#: written, parent/degree 16 read back), ``ml_ball`` from the known centre (distance reset
#: 8; per node its parent's distance and accumulator 16 read, its own 16 written, the
#: parent's degree 8 read, the score 8 written: 56) and the score summary (three passes over
#: the scores 24, the top mask written and read twice 3): about 310 bytes. (``ml_tree``,
#: which searched for the centre and built the infection tree's adjacency, moved ~500.)
#: On the regular tree with ML alone the ball is counted, not created (``adversaries.
#: _regular_ml``): no memory traffic per node, as for ``simulate_many``.
BYTES_PER_NODE_ML = 310


def copy_bandwidth(mb=256, repeats=5):
    """Sustained copy bandwidth of one core in bytes/s (read + write counted)."""
    a = np.ones(mb * 2**20 // 8)
    b = np.empty_like(a)
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(b, a)
        best = min(best, time.perf_counter() - t0)
    return 2 * a.nbytes / best


def big_graph(n=10**6, d=4, seed=0):
    """A random d-regular multigraph by pairing stubs, loops and duplicates dropped."""
    from anonspread.spread.graphs import _csr_from_pairs

    rs = np.random.default_rng(seed)
    stubs = rs.permutation(np.repeat(np.arange(n), d))
    indptr, indices, dropped = _csr_from_pairs(n, stubs[0::2], stubs[1::2])
    return ContactGraph(range(n), indptr, indices, dropped=dropped)


def bench_simulate_big(reps=200):
    g = big_graph()
    proto = AdaptiveDiffusion(math.inf, 3)
    spread.simulate(g, proto, 2, rng=0)  # compile / load once (a different graph object
    g = big_graph()                      # next: the first call below builds its caches)
    t0 = time.perf_counter()
    s = spread.simulate(g, proto, 2, rng=1)
    first = time.perf_counter() - t0
    sizes = []
    t0 = time.perf_counter()
    for i in range(reps):
        sizes.append(spread.simulate(g, proto, 2, rng=2 + i).n_infected)
    per = (time.perf_counter() - t0) / reps
    return g.number_of_nodes(), first, per, float(np.mean(sizes)), s.n_infected


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer trials (a smoke run)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per case")
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    rounds = 2 if args.quick else args.rounds
    d34, d3 = {3: 0.5, 4: 0.5}, {3: 1.0}
    cases = []
    for with_ml in (False, True):
        cases += [
            tree_case("random tree {3,4}, T=10", d34, 10, with_ml, 4000, 80),
            tree_case("random tree {3,4}, T=16", d34, 16, with_ml, 400, 8),
            tree_case("3-regular tree, T=10", d3, 10, with_ml, 4000, 80),
            tree_case("3-regular tree, T=16", d3, 16, with_ml, 400, 8),
        ]
    cases += [
        tree_case("3-regular tree, T=10", d3, 10, True, 4000, 80, materialise=True),
        tree_case("3-regular tree, T=16", d3, 16, True, 400, 8, materialise=True),
    ]
    cases.append(facebook_case(4000, 80))
    bw = copy_bandwidth()
    print(f"copy bandwidth {bw / 1e9:.1f} GB/s -> ~{bw / BYTES_PER_NODE:.2e} infected nodes/s "
          f"creating the ball ({BYTES_PER_NODE} B/node), ~{bw / BYTES_PER_NODE_ML:.2e} with ML "
          f"({BYTES_PER_NODE_ML} B/node)")
    print(f"{'case':50s} {'engine':8s} {'trials/s':>12s} {'infected/s':>12s} {'mean N_T':>9s} "
          f"{'ns/node':>8s}")
    for name, fast, python, n_fast, n_py, ball_ml in cases:
        n_fast = max(int(n_fast * scale), 10)
        n_py = max(int(n_py * scale), 2)
        res = interleaved(fast, python, n_fast, n_py, rounds)
        for k in ("fast", "python"):
            tr, nr, m = res[k]
            print(f"{name if k == 'fast' else '':50s} {k:8s} {tr:12.1f} {nr:12.3e} {m:9.1f} "
                  f"{1e9 / nr:8.1f}")
        ratio = res["fast"][1] / res["python"][1]
        limit = ""
        if ball_ml:
            limit = f"  (bandwidth limit/engine {bw / BYTES_PER_NODE_ML / res['fast'][1]:.2f}x)"
        print(f"{'':50s} {'speed-up':8s} {ratio:11.1f}x{limit}")
    n, first, per, mean, _ = bench_simulate_big(50 if args.quick else 200)
    print(f"simulate() on a {n:,}-node random 4-regular graph, AD(inf, cap 3), T=2 "
          f"(mean N_T {mean:.1f}): first call {first * 1e3:.1f} ms, then {per * 1e3:.3f} ms per call")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
