"""Issue 31 item 6: where soft-margin's time goes at a sweep point of the new user's
three-block graph -- simulating the runs, or scoring each run against every snapshot that
holds its candidate.

The point: the 498-node graph of ``make_three_block.py`` (seed 31), random diffusion
(p = 0.5), T = 6 (the default; ``--T``), ``--trials`` snapshots (default 100: a batch of
the sweep; 200: the point) scored at once by :func:`adversaries.soft_margin_many` with the
estimator's defaults (up to 100 candidates per snapshot, five widths) but one round of
``--runs`` runs per candidate (``simulations = max_simulations``; the default schedule
doubles 1,000 up to 16,000, i.e. 16 such rounds of 1,000 on a snapshot no run reproduces).

Two timings per round, interleaved after a warm-up, CPU seconds of this process:

* ``shared``: :func:`adversaries.soft_margin_many` on the whole batch (simulation + scoring);
* ``simulate``: the same distinct candidates, the same runs, through the single-snapshot
  kernel (:func:`engine.softmargin.accumulate`) against a one-node snapshot: the
  simulations and a negligible score (one membership test per run node).

``shared - simulate`` is the scoring. Printed with the layout's sizes: distinct candidates,
(candidate, snapshot) pairs, mean snapshots per run node.

Usage::

    python benchmarks/bench_softmargin_scoring.py [--trials 100] [--runs 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from anonspread import adversaries, spread
from anonspread.engine import softmargin as sm
from anonspread.engine.store import new_finite_store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_three_block import three_block


def snapshots(T: int, trials: int, seed: int) -> tuple:
    g = spread.graphs.as_contact_graph(three_block(31))
    proto = spread.protocols.RandomDiffusion(0.5)
    rng = np.random.default_rng(seed)
    snaps = [adversaries.observe(spread.simulate(g, proto, T, rng=rng)) for _ in range(trials)]
    return g, proto, snaps


WIDTHS = np.array([2.0**-j for j in range(2, 7)])


def layout(snaps):
    """The estimator's own candidates (Jordan-pruned to 100) and batch layout."""
    from anonspread.adversaries.softmargin import _layout, _prune

    keeps = [_prune(s, 100) for s in snaps]
    return _layout(snaps, keeps, snaps[0].graph.number_of_nodes())


def gens_for(sources):
    return [np.random.Generator(np.random.PCG64(np.random.SeedSequence(1, spawn_key=(int(v),))))
            for v in sources]


def time_scored(g, proto, T, lay, runs: int, scoring: str) -> tuple[float, object, str]:
    """One round of ``runs`` runs per distinct candidate, every pair active, scored
    ``scoring`` (:func:`engine.softmargin.accumulate_shared`)."""
    sums = sm.PairSums(lay.pair_snap.shape[0], WIDTHS.shape[0])
    active = np.ones(lay.pair_snap.shape[0], np.uint8)
    store = new_finite_store(g.indptr, g.indices)
    gens = gens_for(lay.sources)
    c0 = time.process_time()
    used = sm.accumulate_shared(proto.kernel_code, [store], lay.sources, gens, runs, T,
                                proto.kernel_params(g, T), lay.pair_ptr, lay.pair_snap, active,
                                lay.snap_ptr, lay.snap_ids, lay.n_obs, WIDTHS, sums, scoring=scoring)
    return time.process_time() - c0, sums, used


def time_simulate(g, proto, T: int, sources: np.ndarray, runs: int) -> float:
    """The same runs (same streams) against a one-node snapshot: the simulation's cost."""
    mask = np.ones(1, np.uint8)
    sums = sm.SoftMarginSums(sources.shape[0], WIDTHS.shape[0])
    store = new_finite_store(g.indptr, g.indices)
    gens = gens_for(sources)
    c0 = time.process_time()
    sm.accumulate(proto.kernel_code, [store], sources, gens, runs, T, proto.kernel_params(g, T),
                  mask, 1, WIDTHS, sums)
    return time.process_time() - c0


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in sm.PairSums._FIELDS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=6)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
          f"{tuple(round(x, 2) for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    g, proto, snaps = snapshots(args.T, args.trials, args.seed)
    lay = layout(snaps)
    sources = lay.sources
    sizes = np.array([s.n for s in snaps])
    n_pairs = lay.pair_snap.shape[0]
    member = np.diff(lay.snap_ptr)
    costs = sm.scoring_costs(lay.pair_ptr, np.ones(n_pairs, np.uint8), lay.snap_ptr, len(snaps))
    print(f"three-block graph (n = {g.number_of_nodes()}), random diffusion p = 0.5, T = {args.T}, "
          f"{args.trials} snapshots: infected {sizes.min()}-{sizes.max()} (mean {sizes.mean():.0f}); "
          f"{sources.shape[0]} distinct candidates, {n_pairs} (candidate, snapshot) pairs "
          f"({n_pairs / sources.shape[0]:.1f} snapshots per candidate); a node is in "
          f"{member[member > 0].mean():.1f} snapshots on average; {args.runs} runs per candidate; "
          f"expected word operations per run: counts {costs[0]:.0f}, bitsets {costs[1]:.0f}")
    small = layout(snaps[: max(2, args.trials // 20)])  # warm-up
    for way in ("counts", "bitsets"):
        time_scored(g, proto, args.T, small, 20, way)
    time_simulate(g, proto, args.T, sources[:10], 20)
    took: dict[str, list[float]] = {"counts": [], "bitsets": [], "simulate": []}
    identical = True
    for _ in range(args.rounds):
        t, a, _u = time_scored(g, proto, args.T, lay, args.runs, "counts")
        took["counts"].append(t)
        t, b, _u = time_scored(g, proto, args.T, lay, args.runs, "bitsets")
        took["bitsets"].append(t)
        identical &= same(a, b)
        took["simulate"].append(time_simulate(g, proto, args.T, sources, args.runs))
    med = {k: statistics.median(v) for k, v in took.items()}
    sim = med["simulate"]
    runs = sources.shape[0] * args.runs
    print(f"CPU s, medians of {args.rounds} interleaved rounds: "
          + ", ".join(f"{k} {v:.2f} {[round(x, 2) for x in took[k]]}" for k, v in med.items()))
    for way in ("counts", "bitsets"):
        s = med[way]
        print(f"  {way}: {s:.2f} s = simulation {sim:.2f} s + scoring {s - sim:.2f} s "
              f"({100 * (s - sim) / s:.0f}%); per run {1e6 * s / runs:.1f} us "
              f"({1e6 * (s - sim) / runs:.1f} us scoring, {1e9 * (s - sim) / (n_pairs * args.runs):.0f} "
              f"ns per (run, snapshot) pair); default schedule (x {16000 / args.runs:g}: "
              f"1,000 doubled to 16,000 runs, nothing converging) ~{s * 16000 / args.runs / 60:.1f} min")
    print(f"bitsets vs counts: {med['counts'] / med['bitsets']:.2f}x less CPU; sums bitwise "
          f"identical: {identical}")


if __name__ == "__main__":
    main()
