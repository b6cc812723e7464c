"""The gallery: one module per topic, each registering its experiments on import.

Importing this package fills the experiment, component and sweep-template
registries; :func:`harness.get_experiment` does so on its first call.

* :mod:`harness.experiments.privacy_ldp` -- thesis ch. 3 (Figs. 3.3, 3.4, 3.6, 3.7,
  Cor. 3.3.7), the privacy components and the ``ldp-utility`` sweep.
* :mod:`harness.experiments.krandom` -- K-randomization's relaxed privacy level.
"""

from harness.experiments import krandom, privacy_ldp

__all__ = ["krandom", "privacy_ldp"]
