"""
A sweep on a Dask cluster
=========================

The harness runs the same sweep in-process, on a local process pool or on a Dask
distributed cluster, and gives the same numbers on each: every parameter point and
trial batch draws from its own stream spawned from one seed, whoever runs it.
Here a :class:`dask.distributed.LocalCluster` with two worker processes stands in
for a real cluster; for one of your own, pass its address
(``scheduler="tcp://HOST:8786"``, or ``--scheduler tcp://HOST:8786`` on the command
line). The workers need anonspread installed (``pip install "anonspread[dask]"``).

The ``if __name__ == "__main__"`` guard matters: Dask starts its worker processes
by running this file's imports again.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from dask.distributed import LocalCluster

import anonspread as asp


def sweep():
    return asp.compose("detection", product={
        "graph": "erdos-renyi", "graph.n": 500, "graph.mean_degree": [4.0, 8.0],
        "protocol": "random-diffusion", "estimator": ["jordan", "rumor"], "T": 3})


def main():
    out = Path(tempfile.mkdtemp())
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        print("cluster:", cluster.scheduler_address, "workers:", len(cluster.workers))
        on_dask = asp.run(sweep(), trials=200, rng=5, out=out / "dask",
                          scheduler=cluster.scheduler_address, plot=False, progress=False)
    print(f"on Dask in {on_dask.elapsed:.1f} s;", on_dask.metadata["executor"])
    for row in on_dask.table.where(metric="detection"):
        print(f"mean degree {row['graph.mean_degree']}, {row['estimator']:6s}: "
              f"P(detect) {row['mean']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]")

    # the same sweep and seed in this process: the same CSV, byte for byte
    here = asp.run(sweep(), trials=200, rng=5, out=out / "here", workers=1, plot=False,
                   progress=False)
    same = Path(on_dask.paths["csv"]).read_bytes() == Path(here.paths["csv"]).read_bytes()
    print("identical CSVs:", same)

    rows = on_dask.table.where(metric="detection")
    fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
    labels = [f"degree {r['graph.mean_degree']:g}\n{r['estimator']}" for r in rows]
    ax.errorbar(range(len(rows)), [r["mean"] for r in rows],
                yerr=[[r["mean"] - r["ci_low"] for r in rows],
                      [r["ci_high"] - r["mean"] for r in rows]], fmt="o", capsize=4)
    ax.set(xticks=range(len(rows)), xticklabels=labels, ylabel="P(detect)",
           title="Random diffusion, T = 3, Erdos-Renyi n = 500 (run on Dask)")
    plt.show()


if __name__ == "__main__":
    main()
