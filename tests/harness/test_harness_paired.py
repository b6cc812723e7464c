"""Paired experiments: the points that differ only in the paired axis share their trials."""

from __future__ import annotations

import dataclasses
import json

import harness_testexp as tx
import numpy as np
import pytest

from anonspread import harness
from anonspread.errors import InvalidParameterError
from anonspread.harness.errors import TrialError
from anonspread.harness.executors import InProcessExecutor, ProcessPoolExecutor
from anonspread.harness.experiment import check_experiment


def _run(tmp_path, name, exp=tx.PAIRED, **kw):
    kw.setdefault("executor", InProcessExecutor(1))
    return harness.run(exp, rng=7, out=tmp_path / name, plot=False, **kw)


def test_paired_points_score_the_same_draws(tmp_path):
    res = _run(tmp_path, "a")
    rows = res.table.where(metric="x")
    assert len(rows) == 6 and all(r["n"] == 120 for r in rows)
    for p in (0.3, 0.7):
        mean = {r["shift"]: r["mean"] for r in rows if r["p"] == p}
        # the same 120 uniforms under every shift: the differences are exact, not noisy
        assert mean[1.0] - mean[0.0] == pytest.approx(1.0, abs=1e-12)
        assert mean[2.5] - mean[0.0] == pytest.approx(2.5, abs=1e-12)
        heads = {r["shift"]: r["mean"] for r in res.table.where(metric="heads") if r["p"] == p}
        assert len(set(heads.values())) == 1
    # the two values of p draw from different streams
    m0 = [r["mean"] for r in rows if r["shift"] == 0.0]
    assert m0[0] != m0[1]


def test_paired_results_do_not_depend_on_executor_workers_or_resume(tmp_path):
    ref = _run(tmp_path, "ref").paths["csv"].read_bytes()
    assert _run(tmp_path, "w16", executor=InProcessExecutor(16)).paths["csv"].read_bytes() == ref
    assert _run(tmp_path, "pool", executor=ProcessPoolExecutor(2)).paths["csv"].read_bytes() == ref
    # a journal that lost one member's batches: the group batch is recomputed, nothing changes
    res = _run(tmp_path, "res")
    path = res.paths["journal"]
    lines = path.read_text().splitlines(keepends=True)
    kept = [ln for ln in lines if not (json.loads(ln).get("type") == "unit" and json.loads(ln)["point"] == 1)]
    assert len(kept) < len(lines)
    path.write_text("".join(kept))
    again = _run(tmp_path, "res", resume=True)
    assert again.paths["csv"].read_bytes() == ref
    assert again.computed == 3  # the 3 batches of point 1 (the other points of its group reused)


def test_paired_experiments_are_validated():
    with pytest.raises(InvalidParameterError, match="paired must name a grid parameter"):
        check_experiment(dataclasses.replace(tx.PAIRED, paired="nope"))
    with pytest.raises(InvalidParameterError, match="paired needs trials"):
        check_experiment(dataclasses.replace(tx.COIN, paired="p"))


def test_paired_groups_need_equal_trials_and_one_result_per_value(tmp_path):
    uneven = dataclasses.replace(tx.PAIRED, point_trials=lambda params, n: n + int(params["shift"]))
    with pytest.raises(InvalidParameterError, match="must get the same trials"):
        _run(tmp_path, "u", exp=uneven)

    def one_value(params, n, rng):
        return {params["shift"][0]: {"x": np.zeros(n), "heads": np.zeros(n)}}

    with pytest.raises(TrialError, match="one dict of metrics per shift value"):
        _run(tmp_path, "v", exp=dataclasses.replace(tx.PAIRED, trials=one_value))
