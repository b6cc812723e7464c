"""
What the adversary believes: the posterior of one snapshot
==========================================================

The snapshot adversary sees which nodes are infected at time T and computes, for
every infected node, the likelihood that the spread started there
(:func:`anonspread.ml_adaptive_diffusion`, exact on trees by message passing);
:func:`anonspread.adversaries.posterior` turns it into a posterior under a uniform
prior. Adaptive diffusion is designed so that on a d-regular tree at even T this
posterior is *flat*: every infected node but the virtual source is equally likely
(thesis Theorem 2.3.1), so the best guess is right with probability
``1/(N_T - 1)``. On an irregular tree the design degree no longer matches every
node and the posterior is no longer flat.
"""

import matplotlib.pyplot as plt
import numpy as np

import anonspread as asp
from anonspread.adversaries import posterior
from anonspread.spread.graphs import random_tree, regular_tree
from anonspread.spread.protocols import AdaptiveDiffusion

T = 8
cases = {
    "3-regular tree": regular_tree(3),
    "random tree, degrees 3 or 4": random_tree({3: 0.5, 4: 0.5}, rng=1),
}
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
for label, g in cases.items():
    s = asp.simulate(g, AdaptiveDiffusion(d0=3), T=T, rng=7)
    post = posterior(asp.ml_adaptive_diffusion(asp.observe(s), d0=3))
    p = np.sort(np.fromiter(post.values(), float))[::-1]
    n = len(s.infected)
    print(f"{label}: N_T = {n}, 1/(N_T - 1) = {1 / (n - 1):.4f}\n"
          f"  posterior of the true source {post[s.source]:.4f}, largest {p[0]:.4f}, "
          f"zero at {int((p == 0).sum())} node(s)")
    positive = p[p > 0]  # the virtual source has posterior 0 (it never is the source)
    ax.plot(np.arange(1, positive.size + 1), positive, "o-", ms=3, label=f"{label} (N_T = {n})")
    ax.axhline(1 / (n - 1), color=ax.lines[-1].get_color(), ls=":", lw=1)
ax.set(yscale="log", xlabel="infected nodes with a posterior > 0, most likely first",
       ylabel="posterior P(source = v | snapshot)",
       title=f"Adaptive diffusion (d0 = 3), T = {T}; dotted: 1/(N_T - 1)")
ax.legend()
plt.show()
