"""
Which frequency oracle for your users: k values, privacy level eps, n users
===========================================================================

Each user holds one of ``k`` values and sends one eps-LDP report; the server estimates
how many users hold each value. :mod:`anonspread.privacy.frequency` has the standard
protocols (GRR, unary encodings, local hashing, Hadamard response, subset selection,
RAPPOR) and any finite mechanism of ours through its inverse. Their variances are exact,
so the best one for a regime is found without simulating; here we check it against a
simulation on a Zipf-distributed population. Put your own ``k``, ``eps`` and ``n``.
"""

import matplotlib.pyplot as plt
import numpy as np

from anonspread.privacy import frequency

k, n = 128, 20_000
rng = np.random.default_rng(1)
values = (rng.zipf(1.2, size=n) - 1) % k
truth = np.bincount(values, minlength=k) / n

names = ["grr", "oue", "olh", "hr", "ss", "geometric"]
eps_grid = [0.5, 1.0, 2.0, 4.0, 6.0]
closed, measured = {m: [] for m in names}, {m: [] for m in names}
for eps in eps_grid:
    for name in names:
        oracle = frequency.make_oracle(name, k, eps)
        closed[name].append(oracle.expected_squared_l2(truth, n))
        errs = [oracle.simulate(values, rng=rng).frequencies - truth for _ in range(5)]
        measured[name].append(float(np.mean([e @ e for e in errs])))
    best = frequency.rank_oracles(k, eps, n, frequencies=truth)[0][0]
    print(f"eps={eps}: best oracle {best}; E||f_hat - f||^2 closed form / measured (5 runs): "
          + ", ".join(f"{m} {closed[m][-1]:.2e}/{measured[m][-1]:.2e}" for m in names))

# %%
# The thesis's truncated geometric mechanism, used through its unbiased inverse, is about a
# million times worse here: its rows vary smoothly with the value, so inverting it
# amplifies the noise. It was designed for other utilities (hypothesis testing, mutual
# information), not for frequencies. Every oracle's privacy level is computed from its
# channel, not asserted:
print({name: round(frequency.make_oracle(name, k, 1.0).epsilon(), 12) for name in names})

# %%
fig, ax = plt.subplots(figsize=(6.5, 4.2), layout="constrained")
for name in names:
    line, = ax.plot(eps_grid, closed[name], "--", label=f"{name} (closed form)")
    ax.plot(eps_grid, measured[name], "o", color=line.get_color())
ax.set(xscale="log", yscale="log", xlabel="eps", ylabel="E ||f_hat - f||_2^2",
       title=f"Frequency oracles, k = {k}, n = {n:,}, Zipf(1.2) users\n"
             "dashed: exact closed form; dots: mean of 5 simulations")
ax.legend(fontsize=8, ncols=2)
plt.show()
