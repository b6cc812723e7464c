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
* :mod:`harness.experiments.frequency` -- frequency oracles under local privacy: the
  ``frequency-oracles`` sweep, the regime map and Wang et al. (2017)'s Var* comparison.
* :mod:`harness.experiments.graphs` -- the graph families (networkx generators, edge-list
  files, the bundled datasets, the infinite trees), components of kind ``graph``.
* :mod:`harness.experiments.spreading` -- thesis ch. 2 (Figs. 2.2, 2.3, 2.7-2.9,
  Thm 2.3.1, Props. 2.2.1-2.2.2), the main job ``compare-detection``, the protocol and
  estimator components and the ``detection`` sweep.
* :mod:`harness.experiments.facebook_attacks` -- random diffusion on ego-Facebook against
  belief propagation, soft-margin, learned, Jordan and rumour, with BP's predicted detection.
* :mod:`harness.experiments.spies` -- the spy adversary (thesis §2.5): detection against
  the fraction of spies, adaptive diffusion vs diffusion, on message-level runs.
* :mod:`harness.experiments.dandelion` -- Dandelion and Dandelion++ (Fanti et al.
  2017/2018): precision and recall of first-spy and the likelihood adversaries against
  the fraction of spies, with the papers' bounds.
* :mod:`harness.experiments.protocol_attack` -- the ``protocol-attack`` sweep: adaptive
  diffusion, diffusion, Dandelion and Dandelion++ against every applicable adversary on a
  chosen graph family.
"""

from anonspread.harness.experiments import (
    dandelion,
    facebook_attacks,
    frequency,
    funnel,
    graphs,
    krandom,
    privacy_ldp,
    profiles,
    protocol_attack,
    spies,
    spreading,
)

__all__ = ["dandelion", "facebook_attacks", "frequency", "funnel", "graphs", "krandom",
           "privacy_ldp", "profiles", "protocol_attack", "spies", "spreading"]
