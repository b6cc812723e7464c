"""Benchmark and diagnosis: how far adaptive diffusion reaches on a large graph, per setting (issue 32 item 3; not a test).

Run::

    python benchmarks/bench_adaptive_reach.py /work/data/powerlaw-1e8.txt --reach 1000000 --T 400
    python benchmarks/bench_adaptive_reach.py /work/data/powerlaw-1e7.txt --settings cap3,cap3-leaves

For each setting (``--settings``, comma-separated names of :data:`SETTINGS`) one run of
``spread.simulate`` from the seeded uniform source of ``bench_end_to_end.py`` (``--seed``),
stopped at ``--reach`` infected or ``--T`` steps, prints

* infected, T, whether the reach was met, CPU seconds of the simulation;
* the virtual source's trajectory: how many times it moved, its hop count at the end, and at
  every move the **age** of the node that received the token (steps since it was infected)
  and the **size of its forward subtree** at that moment (its infection-tree descendants
  infected by then, itself included): the only part of the infected tree that the tree relay's
  messages reach while the token moves on (median and maximum over the moves);
* the new infections per step (median over the last half of the run) and how many infected
  nodes still have uninfected contacts at the end (the frontier that a broadcast could use).

Every figure is read from the :class:`spread.Spread` the run returns (``times``,
``parent_position``, ``virtual_source_history``): nothing is re-simulated.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

#: name -> AdaptiveDiffusion keyword arguments.
SETTINGS = {
    "cap3": dict(d0=4.0, max_infections_per_step=3),
    "cap3-leaves": dict(d0=4.0, max_infections_per_step=3, infectors="leaves"),
    "cap3-graph": dict(d0=4.0, max_infections_per_step=3, relay="graph"),
    "nocap": dict(d0=4.0, max_infections_per_step=None),
    "inf-cap3": dict(d0=math.inf, max_infections_per_step=3),
    "inf-nocap": dict(d0=math.inf, max_infections_per_step=None),
    "inf-cap3-leaves-pass": dict(d0=math.inf, max_infections_per_step=3, infectors="leaves", stuck="pass"),
}


def diagnose(g, sp) -> dict:
    indptr = np.asarray(g.indptr)
    indices = np.asarray(g.indices)
    idx = np.asarray(sp.index, np.int64)
    m = len(idx)
    par = np.asarray(sp.parent_position, np.int64)
    times = np.asarray(sp.times, np.int64)
    sizes = np.asarray(sp.sizes, np.int64)
    order = np.argsort(np.asarray(sp.infected), kind="stable")
    lab_sorted = np.asarray(sp.infected)[order]
    vsl = np.asarray(sp.virtual_source_history)
    vs = order[np.searchsorted(lab_sorted, vsl)]  # positions in infection order
    # children lists (CSR over positions) for the forward subtrees
    kids_order = np.argsort(par[1:], kind="stable") + 1
    kids_ptr = np.zeros(m + 1, np.int64)
    np.add.at(kids_ptr, par[1:] + 1, 1)
    kids_ptr = np.cumsum(kids_ptr)
    moves = [t for t in range(1, len(vs)) if vs[t] != vs[t - 1]]
    ages, subs = [], []
    for t in moves:
        p = vs[t]
        ages.append(int(t - times[p]))
        # descendants of p infected before step t (what the token's new holder relays to)
        n_sub, stack = 0, [p]
        while stack:
            q = stack.pop()
            n_sub += 1
            for c in kids_order[kids_ptr[q]:kids_ptr[q + 1]]:
                if times[c] < t:
                    stack.append(c)
            if n_sub > 10**6:
                break
        subs.append(n_sub)
    hops, q = 0, vs[-1]
    while q > 0:
        q = par[q]
        hops += 1
    infected = np.zeros(len(indptr) - 1, bool)
    infected[idx] = True
    frontier = 0
    for a in range(0, m, 20000):
        chunk = idx[a:a + 20000]
        lo, hi = indptr[chunk], indptr[chunk + 1]
        lens = hi - lo
        starts = np.repeat(lo - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        un = ~infected[indices[starts]]
        owner = np.repeat(np.arange(len(chunk)), lens)
        frontier += int(np.unique(owner[un]).size)
    new = np.diff(sizes)
    half = new[len(new) // 2:] if len(new) else new
    return {
        "vs_moves": len(moves),
        "vs_hops_end": hops,
        "age_at_move_median": float(np.median(ages)) if ages else None,
        "age_at_move_max": int(max(ages)) if ages else None,
        "subtree_at_move_median": float(np.median(subs)) if subs else None,
        "subtree_at_move_max": int(max(subs)) if subs else None,
        "new_per_step_median_last_half": float(np.median(half)) if len(half) else None,
        "infected_with_uninfected_contacts": frontier,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--reach", type=int, default=1_000_000)
    ap.add_argument("--T", type=int, default=400)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--no-diagnosis", action="store_true", help="only infected, T and CPU")
    a = ap.parse_args()

    from anonspread import spread
    from anonspread.spread.graphfile import read_edgelist

    g = read_edgelist(a.path)
    for name in a.settings.split(","):
        proto = spread.protocols.AdaptiveDiffusion(**SETTINGS[name])
        c0, w0 = time.process_time(), time.perf_counter()
        sp = spread.simulate(g, proto, a.T, rng=np.random.default_rng(a.seed), stop=f"infected:{a.reach}")
        out = {"setting": name, "infected": len(sp.infected), "T": int(sp.T), "reached": sp.reached,
               "cpu_s": round(time.process_time() - c0, 2), "wall_s": round(time.perf_counter() - w0, 2)}
        if not a.no_diagnosis:
            out.update(diagnose(g, sp))
        print(json.dumps(out), flush=True)
        del sp


if __name__ == "__main__":
    main()
