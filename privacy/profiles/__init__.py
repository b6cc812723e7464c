"""Profile-based local privacy (Geumlek & Chaudhuri, 2019).

A *profile graph* ``G = (P, E)`` lists data-generating distributions ("profiles")
``P_1, ..., P_k`` over ``d`` categories and the *sensitive* pairs ``E`` that must
be made indistinguishable. A mechanism ``A(x, P_i)`` may use the identity of the
profile; it is given here by one row-stochastic matrix ``A^i[x, y]`` per profile.
It is ``(G, eps)``-profile-based private (Definition 2, eq. (2)) when, for every
edge ``(P_i, P_j)`` and every output ``y``,

    (P_i A^i)_y <= e^eps (P_j A^j)_y   and   (P_j A^j)_y <= e^eps (P_i A^i)_y.

Every constraint is linear in the entries of the ``A^i``, so the paper's
mechanisms are linear programs, solved here with HiGHS (``scipy.optimize.linprog``,
dual simplex):

* :func:`one_bit_two_profile` -- LP (4), Algorithm 1 (Single-bit Two-profile);
* :func:`one_bit_cluster` -- Algorithm 2 (One Bit Cluster);
* :func:`smooth_one_bit` -- LP (5), Algorithm 3 (Smooth One Bit);
* :func:`smooth_categorical` -- LP (6), Algorithm 4 (Smooth Categorical).

Exactness. A simplex solution satisfies the constraints only up to the solver's
feasibility tolerance, which after division by a small output probability can
exceed the target ``eps``. Each returned mechanism is therefore checked with
:func:`profile_epsilon`; if it misses ``eps`` it is *repaired* by mixing the
matrices of the offending connected component with the uniform output
distribution by the smallest weight that meets ``eps`` (mixing moves every ratio
monotonically towards 1, so privacy only improves; for the one-bit mechanisms this
is raising the flip probability towards 1/2, cf. the monotonicity in the proof of
Theorem 1). The weight needed is of the order of the solver tolerance. Every
mechanism returned satisfies ``profile_epsilon(...) <= eps + 1e-12`` (the
allowance covers floating-point rounding of the check itself).

Bernoulli profiles with parameter ``p`` are the categorical profiles
``[1 - p, p]`` (category 1 is the bit 1).

The package puts one concept per module: :mod:`~privacy.profiles.graph` (the profile
graph and the families of Section 6.1), :mod:`~privacy.profiles.epsilon` (the exact
level), :mod:`~privacy.profiles.one_bit` (Algorithms 1-3, Observation 10),
:mod:`~privacy.profiles.categorical` (Algorithm 4, eq. (8)),
:mod:`~privacy.profiles.mechanism` (sampling), :mod:`~privacy.profiles.composition`
(post-processing and composition, Observations 3-5 and 11-15), with the LP solving and repair in
:mod:`~privacy.profiles.lp` and the argument checks in :mod:`~privacy.profiles.checks`.
"""

from anonspread.privacy.profiles.categorical import category_costs, smooth_categorical
from anonspread.privacy.profiles.composition import (
    independent_profiles_epsilon,
    independent_samples_epsilon,
    post_process,
    same_input,
)
from anonspread.privacy.profiles.epsilon import EPS_ATOL, profile_epsilon
from anonspread.privacy.profiles.graph import (
    ProfileGraph,
    bernoulli_chain,
    bernoulli_couplet,
    categorical_chain_3,
)
from anonspread.privacy.profiles.mechanism import ProfileMechanism
from anonspread.privacy.profiles.one_bit import (
    flip_matrices,
    ldp_baseline,
    ldp_flip_probability,
    observation10_bound,
    one_bit_cluster,
    one_bit_two_profile,
    smooth_one_bit,
)

__all__ = [
    "EPS_ATOL",
    "ProfileGraph",
    "ProfileMechanism",
    "bernoulli_chain",
    "bernoulli_couplet",
    "categorical_chain_3",
    "category_costs",
    "flip_matrices",
    "independent_profiles_epsilon",
    "independent_samples_epsilon",
    "ldp_baseline",
    "ldp_flip_probability",
    "observation10_bound",
    "one_bit_cluster",
    "one_bit_two_profile",
    "post_process",
    "profile_epsilon",
    "same_input",
    "smooth_categorical",
    "smooth_one_bit",
]
