"""Benchmark: adaptive diffusion trials per second, compiled engine vs a plain-Python trial.

Run:  python benchmarks/bench_spread.py [--quick]

Cases (issue "Spreading simulator", acceptance benchmark):
  * adaptive diffusion, d0 = 3, on random_tree({3: 0.5, 4: 0.5}) at T = 10 and T = 16;
  * adaptive diffusion, d0 = inf, cap 3, on ego-Facebook (degree >= 3) at T = 8.
The plain-Python trial is a straightforward dict/list implementation of the same
protocol (same semantics, its own lazily grown tree); both run in this process, one
core; times are CPU seconds of this process (time.process_time), which stay
faithful on a shared machine. Figures go to benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

import datasets
import spread
from spread.graphs import random_tree
from spread.protocols import AdaptiveDiffusion, alpha


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


class PyGraph:
    def __init__(self, G):
        self.adj = {v: list(G[v]) for v in G}

    def neighbors(self, v):
        return self.adj[v]


def py_adaptive_diffusion(g, source, T, d0, cap, rnd):
    """One trial of Protocol 3 (tree relay), written plainly with dicts and lists."""
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
        return 1
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
    return len(time_of)


# ----------------------------------------------------------------- timing
def time_compiled(graph, protocol, T, trials, seed=1):
    spread.simulate_many(graph, protocol, T, 2, rng=0)  # compile / warm
    t0 = time.process_time()
    b = spread.simulate_many(graph, protocol, T, trials, rng=seed)
    dt = time.process_time() - t0
    return trials / dt, b.n_infected.sum() / dt, b.n_infected.mean()


def time_python(make_graph, d0, cap, T, trials, seed=1, random_source=None):
    rnd = random.Random(seed)
    total = 0
    t0 = time.process_time()
    for _ in range(trials):
        g = make_graph(rnd)
        src = 0 if random_source is None else rnd.choice(random_source)
        total += py_adaptive_diffusion(g, src, T, d0, cap, rnd)
    dt = time.process_time() - t0
    return trials / dt, total / dt, total / trials


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer trials (a smoke run)")
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    degrees = {3: 0.5, 4: 0.5}
    fb = datasets.load_graph("ego-facebook", min_degree=3)
    fb_py = PyGraph(fb)
    fb_nodes = list(fb)
    cases = [
        ("random tree {3,4}, T=10", random_tree(degrees), AdaptiveDiffusion(d0=3), 10,
         lambda r: PyRandomTree(degrees, r), 3, None, None, 20000, 400),
        ("random tree {3,4}, T=16", random_tree(degrees), AdaptiveDiffusion(d0=3), 16,
         lambda r: PyRandomTree(degrees, r), 3, None, None, 2000, 40),
        ("ego-Facebook (deg>=3), T=8, d0=inf, cap 3", fb, AdaptiveDiffusion(math.inf, 3), 8,
         lambda r: fb_py, math.inf, 3, fb_nodes, 20000, 400),
    ]
    print(f"{'case':44s} {'engine':8s} {'trials/s':>12s} {'infected/s':>14s} {'mean N_T':>10s}")
    for name, g, proto, T, mk, d0, cap, srcs, n_fast, n_py in cases:
        n_fast = max(int(n_fast * scale), 10)
        n_py = max(int(n_py * scale), 5)
        fr, fn, fm = time_compiled(g, proto, T, n_fast)
        pr, pn, pm = time_python(mk, d0, cap, T, n_py, random_source=srcs)
        print(f"{name:44s} {'numba':8s} {fr:12.1f} {fn:14.3e} {fm:10.1f}")
        print(f"{'':44s} {'python':8s} {pr:12.1f} {pn:14.3e} {pm:10.1f}")
        print(f"{'':44s} {'speed-up':8s} {fr / pr:12.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
