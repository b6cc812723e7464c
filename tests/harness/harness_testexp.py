"""Small genuine random experiments used by the harness machinery tests.

Imported by the tests and, through ``--import harness_testexp``, by CLI
subprocesses (worker processes import it when they unpickle the functions).
"""

from __future__ import annotations

import time

import numpy as np

from anonspread import harness

__all__ = ["COIN", "COIN_BATCHED", "EXACT", "PAIRED", "SLOW"]


def coin_trial(params, rng):
    """One Bernoulli(p) draw and one Uniform(0, 1) draw."""
    return {"heads": float(rng.random() < params["p"]), "u": float(rng.random())}


def coin_trials(params, n, rng):
    """``n`` Bernoulli(p) draws at once."""
    return {"heads": (rng.random(n) < params["p"]).astype(float), "u": rng.random(n)}


def paired_trials(params, n, rng):
    """One Uniform(0, 1) draw per trial, shifted by each paired value: ``{shift: metrics}``."""
    u = rng.random(n)
    return {shift: {"x": u + shift, "heads": (u < params["p"]).astype(float)} for shift in params["shift"]}


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

PAIRED = harness.Experiment(
    name="test-paired",
    title="Paired shifts of one uniform draw (test)",
    description="x = u + shift with the same u for every shift of a point (paired on shift).",
    grid=harness.Grid(product={"p": [0.3, 0.7], "shift": [0.0, 1.0, 2.5]}),
    metrics=(harness.Metric("x", "mean"), harness.Metric("heads", "proportion")),
    trials=paired_trials,
    paired="shift",
    default_trials=120,
    batch_size=50,
    plot=harness.PlotSpec(x="shift", y=("x",), series="p"),
)
