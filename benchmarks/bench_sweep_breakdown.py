"""Benchmark: where a sweep's CPU goes on a big edge list, one process doing a worker's work (issue 32; not a test).

Run::

    python benchmarks/bench_sweep_breakdown.py /work/data/powerlaw-1e8.txt --reach 10000

Prints the CPU seconds of the imports, of the parent's full check and mapping of the graph
file (``spread.graphfile.read_edgelist``), of a worker's mapping under the parent's check
(``spread.graphfile.trusting``), of 2 trials of each point of ``bench_end_to_end.py``'s
sweep (adaptive and random diffusion x jordan and ml, seed 32, stop at ``--reach``) run
serially here, and of ``harness.graphs.graph_summary``; then this process's peak memory.
The graph file must exist (``anonspread graph convert FILE``).
"""

from __future__ import annotations

import argparse
import importlib
import resource
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path")
    ap.add_argument("--reach", type=int, default=10000)
    a = ap.parse_args()
    cpu = time.process_time
    t = cpu()
    np = importlib.import_module("numpy")
    gf = importlib.import_module("anonspread.spread.graphfile")
    spreading = importlib.import_module("anonspread.harness.experiments.spreading")
    components = importlib.import_module("anonspread.harness.components")
    graphs = importlib.import_module("anonspread.harness.graphs")
    print(f"imports {cpu() - t:.2f} s CPU", flush=True)
    t = cpu()
    g = gf.read_edgelist(a.path)
    print(f"parent's full check and map {cpu() - t:.2f} s CPU", flush=True)
    check = gf.source_check(g.graph_file)
    with gf.trusting([check]):
        t = cpu()
        g2 = graphs.graph_for(components.component_info("graph", "edgelist"),
                              {"graph": "edgelist", "graph.path": a.path})
        print(f"worker's trusted map {cpu() - t:.3f} s CPU", flush=True)
        for proto, est in (("adaptive-diffusion", "jordan"), ("adaptive-diffusion", "ml"),
                           ("random-diffusion", "jordan")):
            params = {"graph": "edgelist", "graph.path": a.path, "protocol": proto, "estimator": (est,),
                      "T": 400, "stop": f"infected:{a.reach}", "fresh_graph": False}
            t = cpu()
            out = spreading.detection_sweep_trials(params, 2, np.random.default_rng(32))
            print(f"{proto} x {est}: 2 trials {cpu() - t:.2f} s CPU, infected "
                  f"{out[est]['n_infected'].astype(int).tolist()}", flush=True)
    t = cpu()
    graphs.graph_summary(g2)
    print(f"graph_summary {cpu() - t:.2f} s CPU", flush=True)
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
