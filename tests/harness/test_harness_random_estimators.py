"""Registered estimators outside the compiled path, and estimators that draw random numbers.

A registered snapshot estimator that is not in the compiled Monte Carlo path runs in the
detection sweep trial by trial; one registered with ``random=True`` receives the run's
generator as ``rng`` (so a seeded run is reproducible), in the detection sweep and in
``protocol-attack``.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from anonspread import adversaries, harness
from anonspread.harness.components import KINDS
from anonspread.harness.experiments import protocol_attack, spreading

SEEN: list = []


@pytest.fixture
def coin_estimator():
    """A model-free estimator that scores the infected nodes at random, with the rng it gets."""

    @adversaries.register_estimator("coin-test", protocols=None, random=True)
    def coin(snapshot, *, rng=None):
        "Uniformly random scores."
        SEEN.append(rng)
        if not isinstance(rng, np.random.Generator):
            raise AssertionError(f"expected the run's generator, got {rng!r}")
        return adversaries.Scores(snapshot.nodes, rng.random(snapshot.n), "random")

    # the sweep's estimator axis names components; a built-in one returns its registry name
    harness.register_component("estimator", "coin-test", functools.partial(str, "coin-test"))
    SEEN.clear()
    yield "coin-test"
    adversaries.ESTIMATORS.remove("coin-test")
    KINDS.get("estimator").remove("coin-test")


def test_the_spec_records_that_an_estimator_draws_random_numbers(coin_estimator):
    assert adversaries.get_estimator(coin_estimator).random is True
    assert adversaries.get_estimator("jordan").random is False


def test_detection_trials_pass_the_run_generator_and_are_reproducible(coin_estimator):
    params = {"graph": "regular-3", "protocol": "random-diffusion", "T": 3, "fresh_graph": False,
              "estimator": (coin_estimator, "jordan")}
    a = spreading.detection_trials(params, 60, np.random.default_rng(7))
    b = spreading.detection_trials(params, 60, np.random.default_rng(7))
    c = spreading.detection_trials(params, 60, np.random.default_rng(8))
    assert SEEN and all(isinstance(r, np.random.Generator) for r in SEEN)
    for name in (coin_estimator, "jordan"):
        np.testing.assert_array_equal(a[name]["detection"], b[name]["detection"])
    assert not np.array_equal(a[coin_estimator]["rank"], c[coin_estimator]["rank"])
    # a random guess among N_T nodes detects with probability E[1/N_T]
    n_inf = a[coin_estimator]["n_infected"]
    assert a[coin_estimator]["detection"].mean() <= (1.0 / n_inf).mean() + 4 * np.sqrt(0.25 / 60)


def test_a_registered_non_batch_estimator_runs_by_name_in_the_detection_sweep():
    # "exact" has no compiled kernel: it runs trial by trial on the same spreads as jordan
    params = {"graph": "regular-3", "protocol": "line", "T": 2, "fresh_graph": False,
              "estimator": ("exact", "jordan")}
    out = spreading.detection_trials(params, 40, np.random.default_rng(3))
    np.testing.assert_array_equal(out["exact"]["n_infected"], out["jordan"]["n_infected"])
    assert out["exact"]["detection"].shape == (40,)


def test_protocol_attack_passes_the_run_generator(coin_estimator):
    params = {"attack": f"adaptive-diffusion/{coin_estimator}", "graph": "random-regular",
              "graph.n": 60, "graph.d": 4, "fraction": 0.05, "T": 3, "q": 0.1, "fresh_graph": False}
    a = protocol_attack.attack_trials(params, 8, np.random.default_rng(5))
    b = protocol_attack.attack_trials(params, 8, np.random.default_rng(5))
    assert len(SEEN) == 16 and all(isinstance(r, np.random.Generator) for r in SEEN)
    np.testing.assert_array_equal(a["detection"], b["detection"])
