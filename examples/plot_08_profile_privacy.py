"""
Profile-based privacy for a two-profile graph
=============================================

Each user releases one bit. Users come in two *profiles* (say, two groups whose
bit is 1 with probability 0.3 and 0.6); what must stay private is which profile
the released bits came from, not each user's bit. Profile-based privacy
(Geumlek & Chaudhuri) asks that the output distributions of the two profiles be
within ``e^eps`` of each other, and needs much less noise than local differential
privacy, which protects every bit: randomized response flips with probability
``1 / (1 + e^eps)`` whatever the profiles.

:func:`anonspread.privacy.profiles.one_bit_two_profile` solves the paper's linear
program (4) for the smallest flip probability; :func:`~anonspread.privacy.profiles.profile_epsilon`
checks the privacy level of the result exactly.
"""

import matplotlib.pyplot as plt
import numpy as np

from anonspread.privacy import profiles as pr

p_i, p_j = 0.3, 0.6
P = np.array([[1 - p_i, p_i], [1 - p_j, p_j]])  # rows: the profiles' bit distributions
edges = [(0, 1)]                                 # the pair that must not be told apart

eps_grid = np.linspace(0.05, 2.0, 40)
alpha = np.array([pr.one_bit_two_profile(p_i, p_j, e) for e in eps_grid])
bound = np.array([pr.observation10_bound(p_i, p_j, e) for e in eps_grid])
ldp = np.array([pr.ldp_flip_probability(e) for e in eps_grid])

eps = 0.2
a = pr.one_bit_two_profile(p_i, p_j, eps)
print(f"eps={eps}: profile-based flip {a:.4f}, randomized response flip "
      f"{pr.ldp_flip_probability(eps):.4f}")
print("exact profile epsilon of that mechanism:",
      round(pr.profile_epsilon(P, edges, pr.flip_matrices([a, a])), 6))

# %%
# Release bits: 10,000 users of each profile; compare the rates of ones.
rng = np.random.default_rng(0)
profile = np.repeat([0, 1], 10_000)
bits = (rng.random(profile.size) < np.where(profile == 0, p_i, p_j)).astype(int)
mech = pr.ProfileMechanism.from_flip_probabilities([a, a])
out = mech.privatize(profile, bits, rng=1)
r0, r1 = out[profile == 0].mean(), out[profile == 1].mean()
print(f"P(1) released: profile 0 {r0:.3f}, profile 1 {r1:.3f}; "
      f"ratio {r1 / r0:.3f} (e^eps = {np.exp(eps):.3f})")

# %%
fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.plot(eps_grid, ldp, label="LDP: randomized response")
ax.plot(eps_grid, alpha, label=f"profile-based, LP (4): p = {p_i}, {p_j}")
ax.plot(eps_grid, bound, "k--", lw=1, label="Observation 10 bound")
ax.set(xlabel="eps", ylabel="flip probability",
       title="Noise needed to hide the profile, not the bit")
ax.legend()
plt.show()
