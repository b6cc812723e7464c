"""
Load past runs into pandas
==========================

Every run leaves ``NAME.csv`` (tidy: one row per parameter point and metric, with
its interval) and ``NAME.json`` (the grid, the seed, the versions, the timing).
:func:`anonspread.read_table` reads a CSV back with the parameter types of its
sidecar; ``Table.to_pandas()`` makes a :class:`pandas.DataFrame` when pandas is
installed (it is not a dependency of anonspread). Here two small runs of the
``detection`` sweep, one per protocol, stand in for a folder of past results.
"""

import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import anonspread as asp

results = Path(tempfile.mkdtemp())
for protocol in ("random-diffusion", "adaptive-diffusion"):
    exp = asp.compose("detection", name=f"tree-{protocol}", product={
        "graph": "regular-3", "protocol": protocol, "estimator": ["jordan", "rumor"],
        "T": [2, 4, 6]})
    asp.run(exp, trials=300, rng=11, out=results, workers=1, plot=False, progress=False)
print(sorted(p.name for p in results.iterdir()))

# %%
# Read every CSV of the folder back; the sidecar says how each was made.
tables = {}
for csv in sorted(results.glob("*.csv")):
    meta = json.loads(csv.with_suffix(".json").read_text())
    tables[csv.stem] = asp.read_table(csv)
    print(csv.name, "seed", meta["seed"], "trials", meta["trials"],
          "columns", tables[csv.stem].columns)

# %%
# One DataFrame for all runs, when pandas is there; else the same rows as dicts.
try:
    import pandas as pd
except ModuleNotFoundError:
    pd = None

if pd is not None:
    df = pd.concat([t.to_pandas().assign(run=name) for name, t in tables.items()])
    detection = df[df.metric == "detection"].pivot_table(
        index="T", columns=["protocol", "estimator"], values="mean")
    print(detection.round(3))
else:
    print("pandas is not installed: the rows as dicts")
    for t in tables.values():
        for row in t.where(metric="detection"):
            print(f"{row['protocol']:18s} {row['estimator']:6s} T={row['T']}: "
                  f"P(detect) {row['mean']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]")

# %%
# The loaded rows are all a plot needs, with or without pandas.
# Series are shifted a little sideways so that equal values stay visible.
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
series = [(t, p, e) for t in tables.values() for p in sorted({r["protocol"] for r in t.rows})
          for e in sorted({r["estimator"] for r in t.rows})]
for k, (t, protocol, estimator) in enumerate(series):
    rows = t.where(metric="detection", protocol=protocol, estimator=estimator)
    T = [r["T"] + 0.08 * (k - (len(series) - 1) / 2) for r in rows]
    ax.errorbar(T, [r["mean"] for r in rows],
                yerr=[[r["mean"] - r["ci_low"] for r in rows],
                      [r["ci_high"] - r["mean"] for r in rows]],
                fmt="o-", capsize=3, label=f"{protocol}, {estimator}")
ax.set(xlabel="T (steps)", ylabel="P(detect)", xticks=[2, 4, 6],
       title="Two past runs on the 3-regular tree (95% intervals)")
ax.legend()
plt.show()
