"""The ego-Facebook re-test of Fig. 2.8 against the soft-margin and learned adversaries (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness.experiments import spreading
from anonspread.harness.grid import expand


def test_facebook_strongest_attack_is_registered_and_paired():
    exp = harness.get_experiment("fig2.8-facebook-strongest-attack")
    assert exp.paired == "estimator"
    points = expand(exp.grid)
    assert {p["estimator"] for p in points} == {"ml", "jordan", "rumor", "soft-margin", "learned",
                                                "strongest"}
    assert exp.derived is not None and exp.derived({"estimator": "strongest"})
    assert {p["rounds"] for p in points} == {1, 2, 3}


def test_facebook_attack_trials_score_the_same_spreads():
    params = {"graph": "ego-facebook", "infectors": "leaves", "stuck": "pass", "rounds": 1,
              "estimator": ("ml", "soft-margin", "learned"), "fresh_graph": False}
    a = spreading.facebook_attack_trials(params, 6, np.random.default_rng(3))
    b = spreading.facebook_attack_trials(params, 6, np.random.default_rng(3))
    assert set(a) == {"ml", "soft-margin", "learned"}
    # paired: every estimator saw the same snapshots
    for name in ("soft-margin", "learned"):
        np.testing.assert_array_equal(a["ml"]["n_infected"], a[name]["n_infected"])
        assert {"selection_hits", "selection_trials"} <= set(a[name])  # for the strongest attack
    for name in a:
        for k in ("detection", "hops", "n_infected"):
            np.testing.assert_array_equal(a[name][k], b[name][k])
        assert set(np.unique(a[name]["detection"])) <= {0.0, 1.0}


def test_strongest_has_no_trials_of_its_own():
    params = {"graph": "ego-facebook", "infectors": "leaves", "stuck": "pass", "rounds": 1,
              "estimator": ("ml", "strongest"), "fresh_graph": False}
    with pytest.raises(spreading.InvalidParameterError, match="strongest"):
        spreading.facebook_attack_trials(params, 2, np.random.default_rng(0))


def test_learned_budget_fits_every_round_of_the_experiment():
    # the reach bound of a capped protocol is the whole graph (3,866 nodes); the pilot's
    # measured snapshot sizes keep the default training budget within the work limit
    import math

    from anonspread.adversaries import learned
    from anonspread.spread.protocols import AdaptiveDiffusion

    g = spreading.make_graph({"graph": "ego-facebook", "fresh_graph": False},
                             np.random.default_rng(0))
    proto = AdaptiveDiffusion(math.inf, 3, infectors="leaves", stuck="pass")
    for rounds in (1, 2, 3):
        learned._check_training_size(g, proto, 2 * rounds, learned.DEFAULT_SPREADS, 500, 24)


def test_facebook_random_diffusion_attacks_is_registered_and_paired():
    """Issue 31 item 7: random diffusion on ego-Facebook, every attack on the same spreads."""
    from anonspread.harness.experiments import facebook_attacks as fa

    exp = harness.get_experiment("facebook-random-diffusion-attacks")
    assert exp.paired == "estimator"
    points = expand(exp.grid)
    assert {p["estimator"] for p in points} == set(fa.FACEBOOK_RD_ATTACKS)
    assert {"bp", "soft-margin", "learned", "jordan", "rumor", "strongest", "bp-predicted"} \
        == set(fa.FACEBOOK_RD_ATTACKS)
    assert {p["T"] for p in points} == set(fa.FACEBOOK_RD_T) == {2, 3, 4}
    assert {p["protocol"] for p in points} == {"random-diffusion"}
    assert {p["protocol.p"] for p in points} == {fa.FACEBOOK_RD_P} == {0.1}
    assert {p["graph"] for p in points} == {"ego-facebook"}
    assert exp.derived is not None and exp.derived({"estimator": "strongest"})
