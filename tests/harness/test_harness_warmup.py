"""The warm-up before a pool run: one trial per shape, split into one block per worker."""

from __future__ import annotations

import harness_testexp as tx

from anonspread import harness
from anonspread.harness.executors import InProcessExecutor, ProcessPoolExecutor
from anonspread.harness.grid import Grid, expand
from anonspread.harness.runner import _shape, warm_up

calls: list[dict] = []


def _recording_trial(params, rng):
    calls.append(dict(params))
    return {"heads": float(rng.random() < params["p"])}


class _Recorder(InProcessExecutor):
    """Runs tasks here but with 3 workers, keeping the tasks it was given."""

    def __init__(self):
        super().__init__(3)
        self.tasks = []

    def imap_unordered(self, fn, tasks):
        self.tasks = list(tasks)
        return super().imap_unordered(fn, self.tasks)


EXP = harness.Experiment(
    name="warm-test",
    title="warm-up test",
    description="records its warm-up trials",
    grid=Grid(product={"kind": ["a", "b", "c", "d", "e"], "p": [0.2, 0.7]}),
    metrics=(harness.Metric("heads", "proportion"),),
    trial=_recording_trial,
)


def test_one_trial_per_shape_in_contiguous_blocks_one_per_worker():
    points = expand(EXP.grid)
    calls.clear()
    ex = _Recorder()
    assert warm_up(EXP, points, ex) == 5
    # numbers do not make a shape: one trial per kind, the first point of each
    assert all(c["p"] == 0.2 for c in calls)
    blocks = [[p["kind"] for p in t.points] for t in ex.tasks]
    assert blocks == [["a"], ["b", "c"], ["d", "e"]]
    assert len({_shape(p) for p in points}) == 5
    # compile-ahead passes: worker 0 scores first then simulates from the last shape
    # backwards, the others simulate from their own starting points
    ahead = [[(phase, [p["kind"] for p in pts]) for phase, pts in t.ahead] for t in ex.tasks]
    assert ahead == [[("score", list("abcde")), ("simulate", list("edcba"))],
                     [("simulate", list("abcde"))], [("simulate", list("cdeab"))]]
    # this experiment never calls simulate_and_score: each pass stops after one trial
    # (4 passes), then one trial per shape in the blocks
    assert [c["kind"] for c in calls] == ["a", "e", "a", "a", "b", "c", "c", "d", "e"]


def test_in_process_and_failing_trials():
    calls.clear()
    assert warm_up(EXP, expand(EXP.grid)) == 5 and len(calls) == 5
    bad = harness.Experiment(name="warm-bad", title="t", description="d", grid=EXP.grid,
                             metrics=EXP.metrics, trial=lambda params, rng: 1 / 0)
    assert warm_up(bad, expand(bad.grid), _Recorder()) == 0  # left for the real run to report


def test_pool_run_with_warm_up_gives_the_in_process_bytes(tmp_path):
    ref = harness.run(tx.COIN, rng=5, out=tmp_path / "a", executor=InProcessExecutor(1), plot=False)
    pool = harness.run(tx.COIN, rng=5, out=tmp_path / "b", executor=ProcessPoolExecutor(2), plot=False)
    assert pool.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()
