"""The frequency-oracle experiments of the harness: closed forms beside measurements, the
regime map, and Wang et al. (2017)'s Var* formulas against privacy.frequency."""

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness.experiments import frequency as fx
from anonspread.privacy.frequency import make_oracle


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_wang_formulas_are_the_oracles_var_star(eps):
    for name in fx.WANG_METRICS:
        formula = fx.wang_formula(name)({"eps": eps})
        if name.startswith("de_"):
            oracle = make_oracle("grr", int(name[3:]), eps)
        else:
            oracle = make_oracle(name, fx.WANG_K, eps)
        # exact but for local hashing's hash family (collision probability within g / 2^31 of 1/g)
        assert oracle.var_star(fx.WANG_N) == pytest.approx(formula, rel=1e-12 if name[:2] != "bl" and name != "olh" else 1e-6)


def test_best_oracle_map_follows_the_variance_formulas():
    def best(k, eps):
        return {o for o in fx.BEST_ORACLES
                if fx.best_oracle({"k": k, "eps": eps, "users": 10_000, "oracle": o})["best"] == 1.0}

    assert "grr" in best(4, 2.0) and "grr" not in best(1024, 1.0)
    assert all("ss" in best(k, eps) for k in (4, 32, 1024) for eps in (0.25, 1.0, 4.0, 8.0))
    oue = fx.best_oracle({"k": 1024, "eps": 1.0, "users": 10_000, "oracle": "oue"})["ratio"]
    assert 1.0 <= oue < 1.05


def test_sweep_measures_what_the_closed_form_says(tmp_path):
    exp = harness.compose("frequency-oracles", product={"oracle": ["grr", "olh"], "eps": [1.0],
                                                          "k": [16], "users": [2000], "data": ["adult"]})
    result = harness.run(exp, trials=60, rng=3, workers=1, plot=False, progress=False, out=tmp_path)
    rows = {(r["oracle"], r["metric"]): r for r in result.table.rows}
    for oracle in ("grr", "olh"):
        measured, exact = rows[(oracle, "l2")], rows[(oracle, "l2_closed_form")]
        assert measured["ci_low"] - 2 * measured["stderr"] <= exact["mean"] <= measured["ci_high"] + 2 * measured["stderr"]
        theory = fx.l2_theory({"oracle": oracle, "eps": 1.0, "k": 16, "users": 2000, "data": "adult"})
        assert theory == pytest.approx(exact["mean"], rel=0.05)  # the data law vs the drawn users


def test_adult_data_needs_enough_values():
    assert fx.adult(20).size == 20 and np.isclose(fx.adult(20).sum(), 1.0)
    with pytest.raises(ValueError, match="k must be at least the 16 categories"):
        fx.adult(8)
