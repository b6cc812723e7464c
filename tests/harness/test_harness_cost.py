"""Cost before running (issue 31): the pilot's estimate, the dry run, the refusal, and the
learned adversary trained once per key for a whole run, whatever the executor."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os

import cost_helpers as ch
import pytest

from anonspread import harness
from anonspread.adversaries import learned
from anonspread.errors import InvalidParameterError
from anonspread.harness import pilot
from anonspread.harness.cli import main
from anonspread.harness.executors import InProcessExecutor, ProcessPoolExecutor
from anonspread.spread.limits import raised_limits


def test_pilot_prices_trials_of_known_cost():
    est = harness.estimate_cost(ch.SLEEPY, trials=200, batch_size=20, executor="inprocess", workers=2)
    by_k = {r["params"]["k"]: r for r in est.rows}
    for k, r in by_k.items():
        assert 1 <= r["pilot_trials"] <= pilot.PILOT_TRIALS
        # a spin of k x 4 ms per trial: never less; more on a busy machine (a sanity bound)
        assert k * ch.SLEEP_SECONDS <= r["seconds_per_trial"] < 10 * k * ch.SLEEP_SECONDS + 0.05
    expected = 200 * 4 * ch.SLEEP_SECONDS
    elapsed = sum(r["seconds_per_trial"] * r["trials"] for r in est.rows)
    assert expected <= elapsed < 10 * expected + 5
    # CPU time: at most the elapsed time (less when the shared machine preempted the spin)
    assert 0 < est.cpu_seconds <= 1.05 * elapsed
    assert est.wall_seconds == pytest.approx(elapsed / 2, rel=1e-9)
    # one batch per point: the longest batch bounds the wall time
    whole = harness.estimate_cost(ch.SLEEPY, trials=200, batch_size=200, executor="inprocess", workers=2)
    assert whole.wall_seconds >= 200 * 3 * ch.SLEEP_SECONDS
    line = est.summary()
    assert line.startswith("test-sleepy: pilot estimate (2 (point, estimator) pairs x ")
    assert "CPU" in line and "wall on inprocess(workers=2)" in line
    assert len(est.format_text().splitlines()) == 3


def test_pilot_builds_what_trials_share_before_timing_them():
    """A point's graph, read once per process, is not priced as the cost of every trial:
    the pilot calls the experiment's ``warm`` first and counts it once per worker."""
    ch._BUILT.clear()
    est = harness.estimate_cost(ch.WARMED, trials=1000, batch_size=100, executor="inprocess", workers=2)
    for r in est.rows:  # one spin per trial, not the build (0.3 s) spread over a few trials
        assert ch.SLEEP_SECONDS <= r["seconds_per_trial"] < 0.25 * ch.BUILD_SECONDS
    assert any("building the points' graphs took" in n for n in est.notes), est.notes
    trials_cpu = sum(r["cpu_per_trial"] * r["trials"] for r in est.rows)
    assert est.cpu_seconds > trials_cpu  # the builds, once per worker
    assert est.wall_seconds >= 2 * ch.BUILD_SECONDS  # two points' builds, before the trials
    # without warm, the first trial of each point carries its build (the estimate it fixes)
    ch._BUILT.clear()
    cold = harness.estimate_cost(dataclasses.replace(ch.WARMED, warm=None), trials=1000,
                                 batch_size=100, executor="inprocess", workers=2)
    assert max(r["seconds_per_trial"] for r in cold.rows) >= 0.5 * ch.BUILD_SECONDS / pilot.PILOT_TRIALS
    assert sum(r["seconds_per_trial"] * r["trials"] for r in cold.rows) > 10 * sum(
        r["seconds_per_trial"] * r["trials"] for r in est.rows)


def test_pilot_never_runs_more_trials_than_the_point(tmp_path):
    est = harness.estimate_cost(ch.SLEEPY, trials=2, executor="inprocess")
    assert [r["pilot_trials"] for r in est.rows] == [2, 2]


def test_run_refuses_an_estimate_above_the_work_limit_before_writing(tmp_path):
    # 200 trials x 4 spins of 4 ms: about 3.2 s of CPU, 3.2e7 "node visits" at 1e7/s
    with raised_limits(work=1e6), pytest.raises(InvalidParameterError) as err:
        harness.run(ch.SLEEPY, trials=200, rng=1, out=tmp_path, executor="inprocess",
                    plot=False, progress=False, pilot=True)
    msg = str(err.value)
    assert msg.startswith("trials must be small enough for the sweep 'test-sleepy' (pilot estimate")
    assert "node visits, more than the 1e+06 allowed" in msg and "ANONSPREAD_MAX_WORK" in msg
    assert list(tmp_path.iterdir()) == []
    with raised_limits(work=1e6), pytest.raises(InvalidParameterError, match="pilot estimate"):
        harness.estimate_cost(ch.SLEEPY, trials=200, executor="inprocess")


def test_first_line_of_a_piloted_run_is_the_estimate(tmp_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        res = harness.run(ch.SLEEPY, trials=20, rng=1, out=tmp_path, executor="inprocess", plot=False)
    first = err.getvalue().splitlines()[0]
    assert first.startswith("test-sleepy: pilot estimate (2 (point, estimator) pairs x ")
    assert res.metadata["timing"]["pilot"]["cpu_s"] > 0
    # the pilot draws from its own streams: the results are those of a run without it
    again = harness.run(ch.SLEEPY, trials=20, rng=1, out=tmp_path / "b", executor="inprocess",
                        plot=False, progress=False)
    assert again.paths["csv"].read_bytes() == res.paths["csv"].read_bytes()
    assert "pilot" not in again.metadata["timing"]


def test_dry_run_prints_the_estimate_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    rc = main(["sweep", "detection", "--set", "T=2,4", "--trials", "300", "--dry-run",
               "--out", str(tmp_path), "--workers", "2"])
    out = capsys.readouterr().out
    assert rc == 0
    # wrapped at the terminal's width, continuation lines indented four more (issue 34)
    assert max(len(ln) for ln in out.splitlines()) <= 90
    lines = []
    for ln in out.splitlines():
        if lines and len(ln) - len(ln.lstrip()) >= len(lines[-1]) - len(lines[-1].lstrip()) + 4:
            lines[-1] += " " + ln.strip()
        else:
            lines.append(ln)
    assert lines[0].startswith("sweep-detection-") and ": pilot estimate (6 (point, estimator) pairs" in lines[0]
    assert "wall on processes(workers=2)" in lines[0]
    assert sum(" per trial x 300 trials" in ln for ln in lines) == 6
    assert list(tmp_path.iterdir()) == []


def test_the_first_line_says_the_ceiling_is_not_counted(tmp_path):
    """The ceiling is computed after the trials and no pilot can price it (an exact
    enumeration): the estimate says so instead of leaving it out silently."""
    grid = {"graph": ["regular-3"], "protocol": ["random-diffusion"], "T": [2, 3]}
    with_ceiling = harness.estimate_cost(
        harness.compose("detection", product={**grid, "estimator": ["jordan", "strongest", "ceiling"]}),
        trials=50, executor="inprocess")
    line = with_ceiling.summary()
    assert line.endswith("not counted, after the trials: ceiling (an exact enumeration, or exact "
                         "posteriors of sampled spreads: seconds to minutes where it fits, refused "
                         "where it cannot) at 2 points")
    without = harness.estimate_cost(
        harness.compose("detection", product={**grid, "estimator": ["jordan", "strongest"]}),
        trials=50, executor="inprocess")
    assert "not counted" not in without.summary() and without.unpriced == ()


LEARNED_SWEEP = {"graph": ["regular-3"], "protocol": ["adaptive-diffusion"],
                 "estimator": ["jordan", "learned"], "T": [1, 2]}


def _learned_run(tmp_path, name, executor):
    exp = harness.compose("detection", product=LEARNED_SWEEP, name="learned-once")
    res = harness.run(exp, trials=40, batch_size=10, rng=7, out=tmp_path / name, executor=executor,
                      plot=False, progress=False)
    return res.paths["csv"].read_bytes()


def test_learned_trains_once_per_key_for_a_two_worker_pool(tmp_path):
    learned.cache_clear()
    log = tmp_path / "workers.log"
    pool = _learned_run(tmp_path, "pool", ch.CountingPool(2, log=str(log)))
    # not trained here: the 2 keys (graph, protocol, T) were the pool's first tasks
    assert learned.cache_info()["misses"] == 0
    lines = [tuple(map(int, ln.split())) for ln in log.read_text().splitlines()]
    # every task ran in a worker process (which of the two takes the tasks is the pool's
    # scheduling: on an idle machine one worker may take them all)
    assert os.getpid() not in {pid for pid, *_ in lines}
    training = [ln for ln in lines if ln[3] == 0]  # before the models were installed
    batches = [ln for ln in lines if ln[3] == 2]
    assert len(training) == 2 and len(training) + len(batches) == len(lines)
    # each key trained once in all (a worker's counts are cumulative: its last line counts)
    last = {pid: misses for pid, misses, _, _ in training}
    assert sum(last.values()) == 2
    # the batches ran with both models installed, in the same two workers (the pool is
    # kept after the training, not started again): none trained during the batches
    assert len({pid for pid, *_ in lines}) <= 2
    assert len(batches) >= 2 and all(misses == last.get(pid, 0) for pid, misses, _, _ in batches)
    assert max(hits for _, _, hits, _ in batches) > 0  # they scored with the shipped models
    # the same bytes in this process, which trains the 2 models itself (one worker)
    inproc = _learned_run(tmp_path, "inproc", InProcessExecutor(1))
    assert inproc == pool
    assert learned.cache_info()["misses"] == 2 and learned.cache_info()["pinned"] == 0
    distributed = pytest.importorskip("distributed")
    from anonspread.harness.executors import DaskExecutor

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        dask = _learned_run(tmp_path, "dask", DaskExecutor(2, scheduler=cluster.scheduler_address))
    assert dask == pool


def test_a_pool_that_ran_tasks_keeps_its_workers_and_installs_a_preload_once_in_each():
    # the learned training runs on the pool's workers; its models are then installed in
    # those same workers (from a file read once per worker), not in a second pool whose
    # interpreters would start, import and read the graph again
    with ProcessPoolExecutor(2) as ex:
        first = list(ex.imap_unordered(ch.pid_and_marks, range(8)))
        assert ex.preload(ch.MarkPayload("models"))
        path = ex._payload_file
        assert path is not None and os.path.exists(path)
        second = list(ex.imap_unordered(ch.pid_and_marks, range(8)))
        third = list(ex.imap_unordered(ch.pid_and_marks, range(4)))
    assert all(marks == () for _, marks in first)
    assert {pid for pid, _ in second + third} <= {pid for pid, _ in first}
    assert all(marks == ("models",) for _, marks in second + third)  # once per worker
    assert not os.path.exists(path)
    # before any task, the payload goes to the workers' initializer as before (no file)
    with ProcessPoolExecutor(2) as ex:
        assert ex.preload(ch.MarkPayload("early")) and ex._payload_file is None
        assert all(marks == ("early",) for _, marks in ex.imap_unordered(ch.pid_and_marks, range(4)))


def test_an_executor_that_cannot_preload_gets_the_models_with_each_task(tmp_path):
    class Plain(harness.Executor):
        name = "test-plain"

        def imap_unordered(self, fn, tasks):
            for task in tasks:
                assert task.preload is not None
                yield fn(task)

    ref = _learned_run(tmp_path, "ref", InProcessExecutor(1))
    assert _learned_run(tmp_path, "plain", Plain(1)) == ref
    assert learned.cache_info()["pinned"] == 0  # what the tasks installed here is gone


def test_batches_are_dispatched_longest_first_by_the_pilot(tmp_path):
    """The pilot's seconds per trial order the batches: the point of k = 3 (three spins per
    trial) is dispatched before k = 1, although it comes second in the grid; without a
    pilot, grid order. The results are the same either way."""
    import json

    def journal_points(res):
        rows = [json.loads(line) for line in res.paths["journal"].read_text().splitlines()]
        return [r["point"] for r in rows if r["type"] == "unit"]

    piloted = harness.run(ch.SLEEPY, trials=20, batch_size=10, rng=1, out=tmp_path / "a",
                          executor="inprocess", plot=False, progress=False, pilot=True)
    plain = harness.run(ch.SLEEPY, trials=20, batch_size=10, rng=1, out=tmp_path / "b",
                        executor="inprocess", plot=False, progress=False, pilot=False)
    assert journal_points(piloted)[0] == 1  # k = 3, the second point of the grid
    assert journal_points(plain)[0] == 0
    assert sorted(journal_points(piloted)) == sorted(journal_points(plain)) == [0, 0, 1, 1]
    assert piloted.paths["csv"].read_bytes() == plain.paths["csv"].read_bytes()


def test_longest_first_orders_by_cost_then_grid():
    from anonspread.harness.runner import _longest_first
    from anonspread.harness.work import Unit

    units = [Unit(0, 0, 10), Unit(1, 0, 10), Unit(2, 0, 10), Unit(2, 1, 5)]
    cost = {0: 1.0, 1: 3.0, 2: 1.0}
    got = _longest_first(units, lambda u: u.n * cost[u.point])
    assert [(u.point, u.batch) for u in got] == [(1, 0), (0, 0), (2, 0), (2, 1)]
    assert _longest_first(units[::-1], lambda u: 0.0) == sorted(units, key=lambda u: (u.point, u.batch))


def test_training_estimates_share_their_fit_timings(monkeypatch):
    """The estimates of several trainings time the boosting fit once per shape of the full
    fit's rows (a sweep's pilot of its models), with the same estimate as a fresh timing
    would give from those seconds."""
    import networkx as nx

    from anonspread import spread

    g = spread.graphs.as_contact_graph(nx.random_regular_graph(3, 40, seed=2))
    calls = []
    real = learned._time_fit
    monkeypatch.setattr(learned, "_time_fit", lambda *a: calls.append(a[0].shape) or real(*a))
    shared: dict = {}
    proto = spread.Flooding()
    for T in (6, 7):  # snapshots of more than 25 nodes: 25 rows per spread at both T
        learned.estimate_training_seconds(g, proto, T, spreads=100, held_out=20, fit_timings=shared)
    assert len(calls) == len(shared) == 1
    (shape,) = shared
    assert shape[0] == 25 * 12 * round(100 / learned.PILOT_TRAINING_SPREADS)
    learned.estimate_training_seconds(g, proto, 7, spreads=100, held_out=20)
    assert len(calls) == 2  # without the dict: timed again
    with pytest.raises(TypeError, match="fit_timings must be a dict or None; got"):
        learned.estimate_training_seconds(g, proto, 7, fit_timings=[])
