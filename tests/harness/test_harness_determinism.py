"""Same seed, same bytes: in-process, a 2-process pool and a real 2-worker Dask cluster."""

from __future__ import annotations

import harness_testexp as tx
import pytest

from anonspread import harness
from anonspread.harness.executors import DaskExecutor, InProcessExecutor, ProcessPoolExecutor


def _csv(tmp_path, executor, name="x", exp=tx.COIN, **kw):
    res = harness.run(exp, rng=20240601, out=tmp_path / name, executor=executor, plot=False, **kw)
    return res.paths["csv"].read_bytes(), res


def test_byte_identical_across_executors(tmp_path):
    distributed = pytest.importorskip("distributed")
    ref, res = _csv(tmp_path, InProcessExecutor(1), "inproc")
    pool, _ = _csv(tmp_path, ProcessPoolExecutor(2), "pool")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        dask, _ = _csv(tmp_path, DaskExecutor(2, scheduler=cluster.scheduler_address), "dask")
    assert len(res.table.rows) == 12
    assert pool == ref
    assert dask == ref


def test_worker_count_and_chunking_do_not_matter(tmp_path):
    ref, _ = _csv(tmp_path, InProcessExecutor(1), "w1", exp=tx.COIN_BATCHED)
    many, _ = _csv(tmp_path, InProcessExecutor(16), "w16", exp=tx.COIN_BATCHED)
    assert many == ref


def test_different_seed_or_batch_size_changes_streams(tmp_path):
    ref, _ = _csv(tmp_path, InProcessExecutor(1), "a", exp=tx.COIN_BATCHED)
    res = harness.run(tx.COIN_BATCHED, rng=1, out=tmp_path / "b", workers=1, plot=False)
    other = harness.run(tx.COIN_BATCHED, rng=20240601, out=tmp_path / "c", workers=1,
                        plot=False, batch_size=77)
    assert res.paths["csv"].read_bytes() != ref
    assert other.paths["csv"].read_bytes() != ref


def test_estimates_cover_truth(tmp_path):
    """Across points the 95% intervals of a Bernoulli mean cover p (a check that can fail)."""
    res = harness.run(tx.COIN_BATCHED, trials=4000, rng=5, out=tmp_path, workers=1, plot=False)
    rows = res.table.where(metric="heads")
    assert [r["n"] for r in rows] == [4000, 4000]
    for r in rows:
        assert r["ci_low"] <= r["p"] <= r["ci_high"]
        assert abs(r["mean"] - r["p"]) < 5 * r["stderr"]
    u = res.table.where(metric="u")
    assert all(r["ci_low"] <= 0.5 <= r["ci_high"] for r in u)


def test_chunks_deal_units_round_robin():
    from anonspread.harness.work import Unit, chunk

    units = [Unit(point=p, batch=b, n=10) for p in range(30) for b in range(2)]
    chunks = chunk(units, workers=2)
    dealt = [(u.point, u.batch) for c in chunks for u in c]
    assert sorted(dealt) == [(u.point, u.batch) for u in units]  # each unit exactly once
    assert len(chunks) == 16 and max(map(len, chunks)) - min(map(len, chunks)) <= 1
    # the last (typically most expensive) grid points land on different chunks
    last = [i for i, c in enumerate(chunks) for u in c if u.point >= 28]
    assert len(set(last)) == len(last) == 4
