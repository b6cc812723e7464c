"""Small genuine random experiments used by the harness machinery tests.

Imported by the tests and, through ``--import harness_testexp``, by CLI
subprocesses (worker processes import it when they unpickle the functions).
"""

from __future__ import annotations

import time

import numpy as np

import harness

__all__ = ["COIN", "COIN_BATCHED", "EXACT", "SLOW"]


def coin_trial(params, rng):
    """One Bernoulli(p) draw and one Uniform(0, 1) draw."""
    return {"heads": float(rng.random() < params["p"]), "u": float(rng.random())}


def coin_trials(params, n, rng):
    """``n`` Bernoulli(p) draws at once."""
    return {"heads": (rng.random(n) < params["p"]).astype(float), "u": rng.random(n)}


def slow_trial(params, rng):
    """A Bernoulli trial that takes a while (for interruption tests)."""
    time.sleep(params["delay"])
    return {"heads": float(rng.random() < params["p"])}


def variance(params):
    """Exact Bernoulli variance p (1 - p)."""
    return {"var": params["p"] * (1 - params["p"])}


def _p(params):
    return float(params["p"])


COIN = harness.Experiment(
    name="test-coin",
    title="Bernoulli mean (test)",
    description="Estimates p of a Bernoulli(p) coin and the mean 1/2 of a uniform draw.",
    grid=harness.Grid(product={"p": [0.1, 0.5, 0.9]}, zip={"k": [1, 2], "label": ["a", "b"]}),
    metrics=(harness.Metric("heads", "proportion"), harness.Metric("u", "mean")),
    trial=coin_trial,
    default_trials=200,
    batch_size=50,
    plot=harness.PlotSpec(x="p", y=("heads",), series="label",
                          theory=(harness.Theory("heads", _p, "p"),)),
)

COIN_BATCHED = harness.Experiment(
    name="test-coin-batched",
    title="Bernoulli mean, batched (test)",
    description="As test-coin with the vectorised trials form.",
    grid=harness.Grid(product={"p": [0.2, 0.6]}),
    metrics=(harness.Metric("heads", "proportion"), harness.Metric("u", "mean")),
    trials=coin_trials,
    default_trials=1000,
    batch_size=300,
)

EXACT = harness.Experiment(
    name="test-exact",
    title="Bernoulli variance (test)",
    description="Closed form p (1 - p).",
    grid=harness.Grid(product={"p": list(np.linspace(0.0, 1.0, 5))}),
    metrics=(harness.Metric("var", "mean"),),
    evaluate=variance,
)

SLOW = harness.Experiment(
    name="test-slow",
    title="Slow Bernoulli (test)",
    description="A Bernoulli mean whose trials sleep, so a run can be interrupted mid-way.",
    grid=harness.Grid(product={"p": [0.2, 0.4, 0.6, 0.8], "delay": [0.004]}),
    metrics=(harness.Metric("heads", "proportion"),),
    trial=slow_trial,
    default_trials=200,
    batch_size=20,
)

for _exp in (COIN, COIN_BATCHED, EXACT, SLOW):
    harness.register_experiment(_exp, replace=True)


def fair_coin(bias):
    """A fair coin ignores the bias parameter."""
    return 0.5


def biased_coin(bias):
    """A coin landing heads with probability ``bias``."""
    return float(bias)


def flip_trials(params, n, rng, *, components):
    """Template body: flip the selected coin ``n`` times."""
    p = components["coin"][params["coin"]](params["bias"])
    return {"heads": (rng.random(n) < p).astype(float)}


harness.register_component("test-coin", "fair", fair_coin, description="p = 1/2", replace=True)
harness.register_component("test-coin", "biased", biased_coin, description="p = bias", replace=True)
harness.register_template(
    harness.SweepTemplate(
        name="test-flip",
        description="Heads frequency of a registered coin (test template).",
        components={"coin": "test-coin"},
        defaults={"bias": 0.5},
        metrics=(harness.Metric("heads", "proportion"),),
        trials=flip_trials,
        default_trials=400,
    ),
    replace=True,
)
