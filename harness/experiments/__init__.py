"""The gallery: one module per topic, each registering its experiments on import.

Importing this package fills the experiment, component and sweep-template
registries; :func:`harness.get_experiment` does so on its first call.

* :mod:`harness.experiments.privacy_ldp` -- thesis ch. 3 (Figs. 3.3-3.8,
  Cor. 3.3.7), the privacy components and the ``ldp-utility`` sweep.
* :mod:`harness.experiments.krandom` -- K-randomization: relaxed privacy level and
  privacy ratio.
* :mod:`harness.experiments.profiles` -- profile-based privacy (Geumlek & Chaudhuri,
  Figs. 2(a)-(c), 3).
* :mod:`harness.experiments.funnel` -- the privacy funnel with LDP/LIP (Lopuhaä-Zwakenberg
  et al., Figs. 3-8).
"""

from harness.experiments import funnel, krandom, privacy_ldp, profiles

__all__ = ["funnel", "krandom", "privacy_ldp", "profiles"]
