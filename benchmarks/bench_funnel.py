"""Timing of the privacy-funnel optimisers (not a test).

Part 1 repeats §VIII-A of Lopuhaä-Zwakenberg et al.: 10 random p_sx with c = 2, a = 5
(each p_{s,x} uniform on [0, 1], then normalised), eps in {0.5, 1, 1.5, 2}. It times
``optimal_lip`` (Theorem 3 enumeration), ``optimal_ldp`` (cone-ray LP, enumeration)
and the paper's Theorem 2 vertex enumeration on the same instances, and checks they
reach the same optimum.

Part 2 runs the Adult experiments of Figure 5 (S in {marital-status, occupation},
X in {education, relationship, sex}) on a grid of eps: Opt-LIP and Opt-LDP with
``method="auto"``, and GRR, CR and OUE calibrated to each eps, with their utilities.

Part 3 (``--part large``) is the paper's largest size, a random ``(c, a) = (15, 16)``
joint (entries uniform on [0, 1], normalised) at every eps of the paper's grid: CPU time
of ``optimal_ldp`` (column generation with its branch-and-bound certificate), with
``--baseline FILE`` the same solve by an earlier ``colgen.py`` loaded from FILE, timed
interleaved in the same process after a warm-up, and the two certified optima compared.

Usage::

    python benchmarks/bench_funnel.py                 # everything (several minutes)
    python benchmarks/bench_funnel.py --part synthetic --ref-instances 3
    python benchmarks/bench_funnel.py --part adult --eps 0.5 1 2
    python benchmarks/bench_funnel.py --part multi     # Figure 4 set-up (Theorem 4)
    git show b929041:privacy/_funnel_colgen.py > /tmp/colgen_before.py
    python benchmarks/bench_funnel.py --part large --instances 3 --baseline /tmp/colgen_before.py
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import time

import numpy as np

from anonspread import datasets
from anonspread.privacy.funnel import (
    ADULT_DATA,
    ADULT_SECRETS,
    adult_joint,
    conditional_reporting,
    grr,
    ldp_epsilon,
    lip_epsilon,
    mutual_information,
    optimal_ldp,
    optimal_lip,
    oue,
    srlip_epsilon,
    srlip_product,
)
from anonspread.privacy.funnel.colgen import colgen_optimum
from anonspread.privacy.funnel.optimal import (
    _optimal_ldp_vertex_enumeration,
    column_utility,
    ldp_cone_constraints,
)

PAPER_EPS = (0.5, 1.0, 1.5, 2.0)
ADULT_EPS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0)


def timed(f, *args, **kwargs):
    t0 = time.perf_counter()
    out = f(*args, **kwargs)
    return out, time.perf_counter() - t0


def synthetic(n_instances: int, ref_instances: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    joints = []
    for _ in range(n_instances):
        p = rng.random((2, 5))
        joints.append(p / p.sum())
    print(f"## Synthetic c = 2, a = 5 ({n_instances} instances, seed {seed})\n")
    print(
        "| eps | Opt-LIP (Thm 3) mean s | Opt-LDP (ray LP) mean s | Thm 2 vertex enum. mean s "
        "| n ref | speed-up LDP | max abs diff I(X;Y) | mean I LIP | mean I LDP |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for eps in PAPER_EPS:
        t_lip, t_ldp, t_ref, diffs, u_lip, u_ldp = [], [], [], [], [], []
        for i, p in enumerate(joints):
            p_x = p.sum(axis=0)
            Q_lip, dt = timed(optimal_lip, p, eps, method="enumerate")
            t_lip.append(dt)
            Q_ldp, dt = timed(optimal_ldp, p, eps, method="enumerate")
            t_ldp.append(dt)
            assert lip_epsilon(Q_lip, p) <= eps + 1e-9 and ldp_epsilon(Q_ldp, p) <= eps + 1e-9
            u_lip.append(mutual_information(Q_lip, p_x))
            u_ldp.append(mutual_information(Q_ldp, p_x))
            if i < ref_instances:
                Q_ref, dt = timed(_optimal_ldp_vertex_enumeration, p, eps)
                t_ref.append(dt)
                diffs.append(abs(mutual_information(Q_ref, p_x) - u_ldp[-1]))
        ref = f"{np.mean(t_ref):.3f}" if t_ref else "-"
        speed = f"{np.mean(t_ref) / np.mean(t_ldp[: len(t_ref)]):,.0f}x" if t_ref else "-"
        diff = f"{max(diffs):.1e}" if diffs else "-"
        print(
            f"| {eps} | {np.mean(t_lip):.4f} | {np.mean(t_ldp):.4f} | {ref} | {len(t_ref)} | "
            f"{speed} | {diff} | {np.mean(u_lip):.4f} | {np.mean(u_ldp):.4f} |",
            flush=True,
        )
    print()


def multi_attribute(n_instances: int, seed: int) -> None:
    """Figure 4 set-up: c = 2, attributes of sizes 3, 3, 4 (a = 36); LIP vs Theorem 4 SRLIP."""
    rng = np.random.default_rng(seed)
    print(f"## Multiple attributes c = 2, (a_1, a_2, a_3) = (3, 3, 4) ({n_instances} instances)\n")
    print(
        "| eps | Opt-LIP (a = 36) mean s | Thm 4 product mean s | mean I LIP | mean I SRLIP product |"
    )
    print("|---:|---:|---:|---:|---:|")
    joints = []
    for _ in range(n_instances):
        p = rng.random((2, 3, 3, 4))
        joints.append(p / p.sum())
    for eps in PAPER_EPS:
        t_lip, t_sr, u_lip, u_sr = [], [], [], []
        for p in joints:
            flat = p.reshape(2, -1)
            p_x = flat.sum(axis=0)
            Q, dt = timed(optimal_lip, flat, eps)
            t_lip.append(dt)
            u_lip.append(mutual_information(Q, p_x))
            R, dt = timed(srlip_product, p, eps)
            t_sr.append(dt)
            assert srlip_epsilon(R, p) <= eps + 1e-8
            u_sr.append(mutual_information(R, p_x))
        print(
            f"| {eps} | {np.mean(t_lip):.3f} | {np.mean(t_sr):.3f} | {np.mean(u_lip):.4f} | "
            f"{np.mean(u_sr):.4f} |",
            flush=True,
        )
    print()


def adult(eps_grid: tuple[float, ...]) -> None:
    records = datasets.load_adult("train")
    print("## Adult (training split, 32,561 records, '?' kept as a category)\n")
    print(
        "| S | X | c | a | eps | Opt-LIP s | Opt-LDP s | I Opt-LIP | I Opt-LDP | I GRR | I CR "
        "| I OUE | H(X) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in ADULT_SECRETS:
        for x in ADULT_DATA:
            p = adult_joint(records, s, x).p_sx
            p_x = p.sum(axis=0)
            h = float(-np.sum(p_x * np.log(p_x)))
            for eps in eps_grid:
                Q_lip, t_lip = timed(optimal_lip, p, eps)
                Q_ldp, t_ldp = timed(optimal_ldp, p, eps)
                assert lip_epsilon(Q_lip, p) <= eps + 1e-8 and ldp_epsilon(Q_ldp, p) <= eps + 1e-8
                utils = [mutual_information(Q, p) for Q in (Q_lip, Q_ldp)]
                for make in (grr, conditional_reporting, oue):
                    Q = make(p, eps)
                    utils.append(mutual_information(Q, p))
                print(
                    f"| {s} | {x} | {p.shape[0]} | {p.shape[1]} | {eps} | {t_lip:.2f} | "
                    f"{t_ldp:.2f} | " + " | ".join(f"{u:.4f}" for u in utils) + f" | {h:.4f} |",
                    flush=True,
                )
    print()


def _load_colgen(path: str):
    spec = importlib.util.spec_from_file_location("colgen_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.colgen_optimum


def large(n_instances: int, seed: int, baseline: str | None) -> None:
    """Opt-LDP at (c, a) = (15, 16), the paper's eps grid; CPU seconds per solve."""
    rng = np.random.default_rng(seed)
    solvers = [("now", colgen_optimum)]
    if baseline:
        solvers.append(("baseline", _load_colgen(baseline)))
    print(f"## Opt-LDP at (c, a) = (15, 16), {n_instances} random joints (seed {seed})\n")
    print(f"load average at start: {os.getloadavg()[0]:.1f}; CPU seconds (time.process_time)\n")
    cols = " | ".join(f"{name} s | {name} I" for name, _ in solvers)
    print(f"| instance | eps | {cols} | abs diff I |")
    print("|---:|---:|" + "---:|---:|" * len(solvers) + "---:|")
    warm = rng.random((15, 16))
    warm /= warm.sum()
    for _, solve in solvers:  # warm-up: imports, HiGHS start-up
        solve(ldp_cone_constraints(warm / warm.sum(1, keepdims=True), 2.0), warm.sum(0))
    totals = {name: [] for name, _ in solvers}
    for i in range(n_instances):
        p = rng.random((15, 16))
        p /= p.sum()
        p_x = p.sum(axis=0)
        for eps in PAPER_EPS:
            A = ldp_cone_constraints(p / p.sum(axis=1, keepdims=True), eps)
            row = []
            values = []
            for name, solve in solvers:
                t0 = time.process_time()
                Q = solve(A, p_x)
                dt = time.process_time() - t0
                totals[name].append(dt)
                values.append(float(column_utility(Q.T, p_x).sum()))
                row.append(f"{dt:.2f} | {values[-1]:.10f}")
            diff = f"{max(values) - min(values):.1e}" if len(values) > 1 else "-"
            print(f"| {i} | {eps} | " + " | ".join(row) + f" | {diff} |", flush=True)
    for name, ts in totals.items():
        print(f"\n{name}: max {max(ts):.2f} s, mean {np.mean(ts):.2f} s per solve")
    if baseline:
        ratio = np.array(totals["baseline"]) / np.array(totals["now"])
        print(f"baseline / now: min {ratio.min():.1f}x, median {np.median(ratio):.1f}x")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["all", "synthetic", "multi", "adult", "large"], default="all")
    ap.add_argument("--instances", type=int, default=10)
    ap.add_argument("--ref-instances", type=int, default=10, help="instances given to Thm 2")
    ap.add_argument("--seed", type=int, default=2020)
    ap.add_argument("--eps", type=float, nargs="*", default=list(ADULT_EPS))
    ap.add_argument("--baseline", help="an earlier privacy/funnel/colgen.py to time against")
    args = ap.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}\n")
    if args.part in ("all", "synthetic"):
        synthetic(args.instances, args.ref_instances, args.seed)
    if args.part in ("all", "multi"):
        multi_attribute(args.instances, args.seed)
    if args.part in ("all", "adult"):
        adult(tuple(args.eps))
    if args.part in ("all", "large"):
        large(args.instances, args.seed, args.baseline)


if __name__ == "__main__":
    main()
