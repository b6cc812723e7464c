"""
Reproduce a figure of the thesis: adaptive diffusion on regular trees
=====================================================================

Every figure of the founding papers is a registered experiment
(``anonspread list``). This one is Theorem 2.3.1 of Kairouz's thesis: adaptive
diffusion on the infinite d-regular tree (d = 2, the line, and d = 3, 4), attacked
by the exact maximum-likelihood estimator. The harness overlays the theory
(dashed): the exact ML detection probability, ``1/(N_T - 1)`` at even T, the
expected hop distance ``(d-1)/d T/2`` and the smallest infected tree.

Here with 300 trials per point instead of the experiment's 4,000, so the intervals
are wider than in the gallery of docs/FIGURES.md; the command line is::

    anonspread run thm2.3.1-adaptive-diffusion-regular-trees --trials 300 --rng 2026
"""

import tempfile

import matplotlib.pyplot as plt

import anonspread as asp

exp = asp.get_experiment("thm2.3.1-adaptive-diffusion-regular-trees")
print(exp.title)
res = asp.run(exp, trials=300, rng=2026, out=tempfile.mkdtemp(), workers=1, progress=False)
print(f"{len(res.table.rows)} rows in {res.elapsed:.1f} s")

# %%
# The tidy rows of one graph: the detection probability with its 95% (Wilson)
# interval at even T, where the exact value is ``1/(N_T - 1)``.
rows = res.table.where(metric="detection", graph="regular-3")
for row in rows:
    if row["T"] % 2 == 0:
        print(f"T={row['T']:2d} P(detect)={row['mean']:.3f} "
              f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]")

# %%
# The figure the run wrote (``res.figure`` is its path; ``res.draw()`` returns a new
# matplotlib Figure to restyle and save).
img = plt.imread(res.figure)
fig, ax = plt.subplots(figsize=(img.shape[1] / 100, img.shape[0] / 100), layout="constrained")
ax.imshow(img)
ax.axis("off")
plt.show()
