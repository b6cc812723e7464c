"""Check: message-level runs and exact likelihoods of every protocol, hashed at fixed seeds.

Run it with two installs and compare the printed hashes (same hashes, same results):
the message-level engine for the thesis's protocols, continuous diffusion, Dandelion and
Dandelion++ (one-step and geometric delays, four graph kinds, four seeds each) and
``adversaries.exact_likelihood`` for every protocol with an enumeration on trees, lines and
a cycle. Not a test: ``python benchmarks/check_protocol_behaviour.py`` (about 10 s), run
from a directory that is not a checkout to use an installed package.

Adaptive diffusion under ``GeometricDelay`` is left out on the graph with cycles: it does
not finish there (a storm of zero-time messages; the same before and after issue 22's
protocol refactor).
"""

from __future__ import annotations

import hashlib
import math
import sys
import warnings

import networkx as nx
import numpy as np

import anonspread
from anonspread import adversaries as A
from anonspread import spread
from anonspread.spread.dandelion import Dandelion, DandelionPlusPlus
from anonspread.spread.events import ContinuousDiffusion, GeometricDelay, simulate_messages


def main() -> None:
    warnings.simplefilter("ignore")
    print("package:", anonspread.__file__, file=sys.stderr)
    h = hashlib.sha256()

    def feed(*arrays) -> None:
        for a in arrays:
            h.update(np.ascontiguousarray(np.asarray(a, dtype=np.float64)).tobytes())

    graphs = [spread.graphs.line(), spread.graphs.regular_tree(3),
              spread.graphs.random_tree({2: 0.3, 3: 0.4, 5: 0.3}, rng=4),
              nx.connected_watts_strogatz_graph(60, 6, 0.3, seed=2)]
    protocols = [spread.AdaptiveDiffusion(3), spread.AdaptiveDiffusion(math.inf, 2),
                 spread.AdaptiveDiffusion(3, infectors="leaves"), spread.LineProtocol(),
                 spread.TreeProtocol(), spread.TreeProtocolPseudocode(), spread.RandomDiffusion(0.4),
                 spread.Flooding(), ContinuousDiffusion(1.0)]
    runs = 0
    for gi, g in enumerate(graphs):
        for p in protocols:
            continuous = isinstance(p, ContinuousDiffusion)
            for seed in range(4):
                delay = None if continuous or seed < 2 or gi == 3 else GeometricDelay(0.6)
                run = simulate_messages(g, p, 2 if continuous else 6, delay=delay, rng=seed)
                s = run.spread
                feed(s.index, s.times, s.parent_position, s.sizes, run.log.sent, run.log.received)
                h.update(repr(run.log.kind.tolist()).encode())
                if s.virtual_source_history is not None:
                    feed(s.virtual_source_history)
                runs += 1
    rr = nx.random_regular_graph(4, 40, seed=3)
    for p in (Dandelion(0.3), DandelionPlusPlus(0.3),
              DandelionPlusPlus(0.2, coin="hop", routing="per-transaction")):
        for seed in range(4):
            run = simulate_messages(rr, p, 8, rng=seed)
            s = run.spread
            feed(s.index, s.times, s.parent_position, run.log.sent, run.log.received, run.anonymity.out)
            h.update(repr(run.log.kind.tolist()).encode())
            runs += 1
    print(f"message-level runs: {runs}, sha256 {h.hexdigest()}")

    h = hashlib.sha256()
    cases = [
        (A.Snapshot(nx.path_graph(9), [2, 3, 4, 5], 3),
         [spread.LineProtocol(), spread.RandomDiffusion(0.5), spread.Flooding()]),
        (A.Snapshot(nx.balanced_tree(3, 3), [0, 1, 2, 3, 4, 5, 6, 13, 14, 15], 4),
         [spread.AdaptiveDiffusion(3), spread.TreeProtocol(), spread.TreeProtocolPseudocode(),
          spread.RandomDiffusion(0.3), spread.LineProtocol(), spread.Flooding()]),
        (A.Snapshot(nx.cycle_graph(6), [0, 1, 2, 3], 2), [spread.RandomDiffusion(0.6)]),
    ]
    for seed in range(3):
        g = spread.graphs.regular_tree(3)
        cases.append((A.observe(spread.simulate(g, spread.AdaptiveDiffusion(), 6, rng=seed)),
                      [spread.AdaptiveDiffusion(3), spread.AdaptiveDiffusion(4.5), spread.TreeProtocol()]))
        cases.append((A.observe(spread.simulate(g, spread.TreeProtocolPseudocode(), 5, rng=seed)),
                      [spread.TreeProtocolPseudocode()]))
    evaluations = 0
    for snap, ps in cases:
        for p in ps:
            feed(np.nan_to_num(A.exact_likelihood(snap, p).array, neginf=-1e308))
            evaluations += 1
    print(f"exact likelihoods: {evaluations}, sha256 {h.hexdigest()}")


if __name__ == "__main__":
    main()
