"""
K-randomization: how private is an anonymized count?
====================================================

Every one of ``n`` users flips their bit with lie probability ``q`` and the server
only learns how many ones it received (Zhilyaev & Zeber's anonymized count query).
The worst-case privacy ratio is ``p/q = (1-q)/q`` whatever ``n``, attained on an
outcome that almost never happens. Ignoring a ``delta`` mass of outcomes gives the
relaxed level ``eps_delta(n)``, which falls as the crowd grows.
:func:`anonspread.privacy.krandom.epsilon` computes it exactly.
"""

import math

import matplotlib.pyplot as plt
import numpy as np

from anonspread.privacy import krandom as kr

q = 0.25
print(f"q = {q}: worst case ln(p/q) = {math.log((1 - q) / q):.4f} for every n")

# %%
# Where the ratio is large: the privacy ratio P[A_n(m) = s] / P[A_n(m+1) = s] over
# the outcomes s, for n = 50 users of whom m = 10 hold a one, next to the outcomes'
# probabilities.
n, m = 50, 10
s = np.arange(n + 1)
ratio = kr.privacy_ratio(n, m, q)
pmf = kr.count_pmf(n, m, q)
print("largest ratio", ratio.max().round(3), "at s =", int(ratio.argmax()),
      "with probability", f"{pmf[ratio.argmax()]:.2e}")

# %%
# The relaxed epsilon against the number of users, for several delta.
ns = [10, 30, 100, 300, 1000, 3000]
deltas = [0.0, 1e-2, 1e-4, 1e-6]
eps = {d: [kr.epsilon(k, q, delta=d) for k in ns] for d in deltas}
for d in deltas:
    print(f"delta={d:g}:", [round(e, 3) for e in eps[d]])

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
ax1.plot(s, ratio, color="C0")
ax1.axhline((1 - q) / q, color="C0", ls=":", lw=1)
ax1.set(xlabel="reported count s", ylabel="privacy ratio (blue; dotted: p/q)",
        title=f"n = {n}, m = {m}, q = {q}")
ax1b = ax1.twinx()
ax1b.semilogy(s, pmf, color="C1")
ax1b.set_ylabel("P[A_n(m) = s] (orange)")
for d in deltas:
    ax2.plot(ns, eps[d], "o-", label=f"delta = {d:g}")
ax2.set(xscale="log", xlabel="number of users n", ylabel="eps_delta(n)",
        title="Relaxed privacy level of the anonymized count")
ax2.legend()
plt.show()
