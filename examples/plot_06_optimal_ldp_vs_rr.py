"""
The optimal LDP mechanism against randomized response, for your distributions
=============================================================================

A user holds ``x`` drawn from ``P0`` or ``P1`` and releases ``y ~ Q[x, :]``, an
eps-locally-differentially-private mechanism. How much of the KL divergence
``D(P0 || P1)`` survives? :func:`anonspread.optimal_staircase` finds the mechanism
that keeps the most (the linear program of thesis Theorem 3.2.4 over staircase
patterns); randomized response and the binary mechanism of eq. (3.14) are the
closed-form baselines. Put your own two distributions in ``P0`` and ``P1``.
"""

import matplotlib.pyplot as plt
import numpy as np

import anonspread as asp
from anonspread.privacy import binary_mechanism
from anonspread.privacy.utility import KL

P0 = np.array([0.30, 0.25, 0.20, 0.10, 0.10, 0.05])
P1 = np.array([0.05, 0.10, 0.10, 0.20, 0.25, 0.30])
U = KL(P0, P1)
k = len(P0)

eps_grid = np.geomspace(0.1, 10, 13)
optimal, rr, binary = [], [], []
for eps in eps_grid:
    Q = asp.optimal_staircase(U, eps)
    optimal.append(U.value(Q))
    rr.append(U.value(asp.randomized_response(k, eps)))
    binary.append(U.value(binary_mechanism(P0, P1, eps)))
    print(f"eps={eps:6.3f}  optimal {optimal[-1]:.4f}  RR {rr[-1]:.4f}  binary "
          f"{binary[-1]:.4f}  optimal outputs {Q.matrix.shape[1]}")

# %%
# The optimal mechanism is a matrix like any other: check its privacy level and
# privatize a few inputs.
Q = asp.optimal_staircase(U, 1.0)
print("LDP level", Q.ldp_epsilon(), "outputs for inputs 0..5:", Q.privatize(np.arange(k), rng=0))

# %%
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.plot(eps_grid, optimal, "o-", label="optimal (staircase LP)")
ax.plot(eps_grid, binary, "s--", label="binary mechanism (3.14)")
ax.plot(eps_grid, rr, "^--", label="randomized response")
ax.axhline(U.value(np.eye(k)), color="grey", lw=0.8, label="no privacy: D(P0 || P1)")
ax.set(xscale="log", xlabel="eps", ylabel="KL divergence kept",
       title="Utility of eps-LDP mechanisms, k = 6")
ax.legend()
plt.show()
