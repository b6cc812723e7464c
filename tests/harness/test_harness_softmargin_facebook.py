"""The ego-Facebook re-test of Fig. 2.8 against the soft-margin estimator (issue 26)."""

from __future__ import annotations

import numpy as np

from anonspread import harness
from anonspread.harness.experiments import spreading
from anonspread.harness.grid import expand


def test_facebook_soft_margin_is_registered_and_paired():
    exp = harness.get_experiment("fig2.8-facebook-soft-margin")
    assert exp.paired == "estimator"
    points = expand(exp.grid)
    assert {p["estimator"] for p in points} == {"ml", "soft-margin"}
    assert {p["rounds"] for p in points} == {1, 2, 3}


def test_facebook_attack_trials_score_the_same_spreads():
    params = {"graph": "ego-facebook", "infectors": "leaves", "stuck": "pass", "rounds": 1,
              "estimator": ("ml", "soft-margin"), "fresh_graph": False}
    a = spreading.facebook_attack_trials(params, 6, np.random.default_rng(3))
    b = spreading.facebook_attack_trials(params, 6, np.random.default_rng(3))
    assert set(a) == {"ml", "soft-margin"}
    # paired: both estimators saw the same snapshots
    np.testing.assert_array_equal(a["ml"]["n_infected"], a["soft-margin"]["n_infected"])
    for name in a:
        for k in ("detection", "hops", "n_infected"):
            np.testing.assert_array_equal(a[name][k], b[name][k])
        assert set(np.unique(a[name]["detection"])) <= {0.0, 1.0}
