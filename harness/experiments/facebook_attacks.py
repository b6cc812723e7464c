"""Random diffusion on ego-Facebook against every attack that applies to it (issue 31 item 7).

Random diffusion is discrete-time SI spreading, the setting in which belief propagation
over infection times (Altarelli et al., PRL 112, 118701, 2014) is the literature's scalable
strongest attack. This experiment runs it on the thesis's Facebook graph (ego-Facebook,
degree >= 3: 3,866 nodes) and attacks the same spreads with belief propagation (``bp``),
the soft-margin estimator, the learned adversary, the Jordan centre and rumour centrality;
``strongest`` picks the best of them on half of the trials, and ``bp-predicted`` is BP's own
prediction of its detection probability (the mean of its largest posterior; an estimate of
the Bayes ceiling, which cannot be computed exactly here). A composition of the
``detection`` sweep template, registered under a name so that it is one command.
"""

from __future__ import annotations

import dataclasses

from anonspread.harness.compose import compose
from anonspread.harness.experiments import graphs, spreading  # noqa: F401 (the template, components)
from anonspread.harness.registry import register_experiment

__all__ = ["FACEBOOK_RD_ATTACKS", "FACEBOOK_RD_P", "FACEBOOK_RD_T"]

#: The estimators, in legend order.
FACEBOOK_RD_ATTACKS = ("bp", "soft-margin", "learned", "jordan", "rumor", "strongest",
                       "bp-predicted")
#: Transmission probability per contact and step.
FACEBOOK_RD_P = 0.1
#: Snapshot times.
FACEBOOK_RD_T = (2, 3, 4)

_DESCRIPTION = """
    Random diffusion (each infected node infects each uninfected contact with probability
    p = 0.1 per step) on the thesis's Facebook graph (ego-Facebook, degree >= 3: 3,866
    nodes), a uniform source, a snapshot of the infected set at T = 2, 3, 4 (about 45, 140
    and 380 infected nodes). The same spreads are attacked by belief propagation over
    infection times (bp: Altarelli et al., PRL 112, 118701, 2014; the literature's scalable
    strongest attack for SI spreading; its method, exact or approximate, and convergence are
    per snapshot, see docs/adversaries.md), the soft-margin estimator (simulation-based
    likelihood; Antulov-Fantulin et al., PRL 114, 248701, 2015; its default budget of 1,000
    runs per candidate doubled up to 16,000), the learned adversary (trained once per T on
    spreads of this protocol on this graph), the Jordan centre and rumour centrality.
    'strongest' is the best of them chosen on the even-numbered trials of each batch and
    reported on the others; 'bp-predicted' is BP's own predicted detection (the mean of its
    largest posterior): an estimate of the Bayes ceiling, which is out of exact reach at
    these sizes, never the ceiling itself. Soft-margin is priced before it runs (at the cap
    of its runs): with the default --estimator-budget (10 minutes of CPU per point) it runs
    at T = 2 and 3 and is skipped, with its price, at T = 4 (about 11 minutes of CPU for
    200 trials at the cap; --estimator-budget 25m runs it). Measured numbers:
    docs/FIGURES.md."""

register_experiment(dataclasses.replace(compose(
    "detection",
    product={"graph": "ego-facebook", "protocol": "random-diffusion",
             "protocol.p": FACEBOOK_RD_P, "estimator": list(FACEBOOK_RD_ATTACKS),
             "T": list(FACEBOOK_RD_T)},
    name="facebook-random-diffusion-attacks",
    title=f"Random diffusion (p = {FACEBOOK_RD_P}) on ego-Facebook: belief propagation, "
          "soft-margin, learned, Jordan and rumour on the same spreads",
    plot={"x": "T", "series": "estimator", "y": ("detection", "n_infected")},
    default_trials=200,
), description=_DESCRIPTION))
