"""The spy adversary (thesis §2.5 (a)): detection probability against the fraction of spies.

Message-level runs (:func:`spread.events.simulate_messages`, one-step delays) of adaptive
diffusion and of random diffusion on the 3-regular tree; a fraction of the realised
nodes are spies (:func:`adversaries.draw_spies`), which report when and from whom they
first got the rumour. Two adversaries per run: first-spy (model-free), and the model's
likelihood estimator -- :func:`adversaries.ml_spies_diffusion` for random diffusion,
:func:`adversaries.ml_snapshot_spies` (snapshot + spies) for adaptive diffusion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from anonspread.harness.experiment import Experiment, Metric, PlotSpec
from anonspread.harness.grid import Grid
from anonspread.harness.registry import register_experiment

__all__: list[str] = []


def spy_trial(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One run: spread, draw spies, score the source with first-spy and the model's ML."""
    from anonspread import adversaries as A
    from anonspread import spread
    from anonspread.adversaries.spies import first_spy, ml_snapshot_spies, ml_spies_diffusion
    from anonspread.spread.events import simulate_messages

    d, T = 3, int(params["T"])
    g = spread.graphs.regular_tree(d)
    if params["protocol"] == "adaptive-diffusion":
        proto = spread.AdaptiveDiffusion(d)
    else:
        proto = spread.RandomDiffusion(0.5)
    run = simulate_messages(g, proto, T, rng=rng)
    spies = A.draw_spies(g, float(params["fraction"]), rng=rng)
    src = run.spread.source
    if len(spies) == 0:  # no spy: the adversary guesses among the realised nodes
        p = 1.0 / g.number_of_touched_nodes()
        return {"first_spy": p, "ml": p, "n_infected": float(run.spread.n_infected)}
    obs = A.observe_spies(run, spies)
    if params["protocol"] == "adaptive-diffusion":
        ml = ml_snapshot_spies(A.observe(run.spread), obs, d)
    else:
        ml = ml_spies_diffusion(obs, proto.p)
    return {
        "first_spy": A.detection_probability(first_spy(obs), src),
        "ml": A.detection_probability(ml, src),
        "n_infected": float(run.spread.n_infected),
    }


register_experiment(Experiment(
    name="spies-detection",
    title="Spy adversary: detection probability against the fraction of spies (AD vs diffusion)",
    description="""
    Thesis §2.5 (a): colluding nodes record when and from whom they first receive the
    rumour. Message-level runs (one-step delays) on the 3-regular tree at T = 6 of
    adaptive diffusion (d0 = 3) and random diffusion (p = 0.5); every realised node is a
    spy independently with probability `fraction`. Metrics: detection probability of
    first-spy (the sender of the earliest message a spy received), of the model's
    likelihood estimator (ml-spies for diffusion; snapshot ML restricted by the spies'
    senders for adaptive diffusion), and E[N_T]. The detection values are
    P(pick = source | observation), ties shared uniformly.""",
    grid=Grid(product={"protocol": ["adaptive-diffusion", "random-diffusion"],
                       "fraction": [0.02, 0.05, 0.1, 0.2, 0.3, 0.5], "T": [6]}),
    metrics=(
        Metric("first_spy", "proportion", "P(detect), first-spy"),
        Metric("ml", "proportion", "P(detect), model ML with spies"),
        Metric("n_infected", "mean", "E[N_T]"),
    ),
    trial=spy_trial,
    default_trials=400,
    plot=PlotSpec(x="fraction", series="protocol", y=("first_spy", "ml")),
))
