"""Progress that can be trusted (issue 34, item 3): a percentage that never goes back when
the work is re-priced, an ETA from measured costs (the journal's on a resume), a bar that
ticks between batches, a resume's first line, interruption counts, one final line, one
duration."""

from __future__ import annotations

import io
import json
import re
import time

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness.cli import main
from anonspread.harness.errors import RunInterrupted
from anonspread.harness.progress import Progress

# ----------------------------------------------------------------- the percentage


class _RepricingModel:
    """A fake cost model: every call prices a point up or down by up to 100x."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, point: int) -> float:
        return float(10.0 ** self.rng.uniform(-3, 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_percentage_never_goes_back_when_the_work_is_repriced(seed):
    rng = np.random.default_rng(seed)
    units = [(p, 10) for p in range(6) for _ in range(5)]  # 6 points x 5 batches of 10 trials
    pilot = {p: float(10.0 ** rng.uniform(-3, 0)) for p in range(6)}
    bar = Progress("x", 300, 6, enabled=False, units=units, priors=pilot, workers=2)
    seen = [bar.estimate()[0]]
    assert seen[0] == 0.0
    bar._per_trial = _RepricingModel(seed)  # re-prices at every estimate from now on
    for k in rng.permutation(len(units)):
        point, n = units[k]
        # measured costs wildly off the pilot, both ways
        bar.update(n, 0, costs=[(point, n, n * pilot[point] * float(10.0 ** rng.uniform(-2, 2)))])
        frac, eta = bar.estimate()
        assert frac >= seen[-1]
        assert eta >= 0 and np.isfinite(eta)
        if bar.unfinished():
            assert frac < 1.0 and bar._percent() != "100%"
        seen.append(frac)
    assert seen[-1] == 1.0 and bar._percent() == "100%" and bar.eta() == 0.0


def test_the_eta_counts_down_during_a_long_batch(monkeypatch):
    from anonspread.harness import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    bar = Progress("x", 30, 3, enabled=False, units=[(0, 10), (1, 10), (2, 10)],
                   priors={0: 1.0, 1: 1.0, 2: 1.0}, workers=1)
    with bar:
        assert bar.eta() == pytest.approx(30.0)       # 30 trials x 1 s on one worker
        clock[0] += 10.0
        assert bar.eta() == pytest.approx(20.0)       # counting down before any batch ends
        bar.update(10, 1, costs=[(0, 10, 10.0)])      # as the pilot said: 1 s a trial
        assert bar.eta() == pytest.approx(20.0)
        clock[0] += 15.0                              # a long batch: nothing finishes
        assert bar.eta() == pytest.approx(5.0)        # it used to grow to 30 s here
        clock[0] += 10.0
        assert np.isnan(bar.eta())                    # overdue: unknown, never 00:00
        bar.update(10, 1, costs=[(1, 10, 25.0)])      # that batch cost 2.5x the pilot's
        assert 0 < bar.eta() < float("inf")
        bar.update(10, 1, costs=[(2, 10, 10.0)])
        assert bar.eta() == 0.0


def test_before_a_batch_ends_the_eta_is_the_batches_over_the_workers_they_can_keep_busy(monkeypatch):
    from anonspread.harness import progress

    clock = [1000.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    # one batch of 20 trials at 12 s on two workers: one worker runs it, 240 s (was 120 s)
    bar = Progress("x", 20, 1, enabled=False, units=[(0, 20)], priors={0: 12.0}, workers=2)
    with bar:
        assert bar.eta() == pytest.approx(240.0)
        clock[0] += 30.0
        assert bar.eta() == pytest.approx(210.0)
    # three batches, one long: never below the longest batch (the pilot's wall time)
    bar = Progress("x", 60, 2, enabled=False, units=[(0, 10), (0, 10), (1, 40)],
                   priors={0: 1.0, 1: 1.0}, workers=2)
    assert bar.eta() == pytest.approx(40.0)
    # as many batches as workers and of one size: the plain split
    bar = Progress("x", 40, 1, enabled=False, units=[(0, 20), (0, 20)], priors={0: 1.0}, workers=2)
    assert bar.eta() == pytest.approx(20.0)


def test_the_weights_are_those_of_the_start_and_the_eta_moves_instead():
    bar = Progress("x", 200, 2, enabled=False, units=[(0, 100), (1, 100)], priors={0: 0.01, 1: 0.01},
                   workers=1)
    assert bar.estimate() == (0.0, pytest.approx(2.0))  # 200 trials x 0.01 s on one worker
    # a journal (no session rate yet: one worker) says point 1 is 100x dearer than the pilot
    bar.update(50, 0, costs=[(1, 50, 50.0)], reused=True)
    frac, eta = bar.estimate()
    assert frac == pytest.approx(0.25)  # still the start's weights
    assert eta == pytest.approx(50 * 1.0 + 100 * 0.01)  # re-priced by the measured costs


# ----------------------------------------------------------------- the bar and the lines


def test_the_bar_ticks_between_batches(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr("anonspread.harness.progress.in_notebook", lambda: False)
    bar = Progress("job", 10, 1, enabled=True, units=[(0, 10)], stream=buf, tick=0.02)
    with bar:
        time.sleep(0.3)  # no batch finishes meanwhile
        frames = buf.getvalue().count("\r")
    assert frames >= 5, buf.getvalue()  # redrawn, so elapsed moves (a hung run is not frozen)


def test_the_final_line_is_printed_once_in_logs():
    buf = io.StringIO()
    bar = Progress("job", 20, 2, enabled=None, units=[(0, 10), (1, 10)], stream=buf, interval=0.02)
    with bar:
        time.sleep(0.1)
        bar.update(10, 1, costs=[(0, 10, 0.1)])
        time.sleep(0.1)
        bar.update(10, 1, costs=[(1, 10, 0.1)])
        time.sleep(0.1)  # ticks after the last batch: no 100% line of theirs
    lines = buf.getvalue().splitlines()
    assert sum("100% done" in line for line in lines) == 1 and "100% done" in lines[-1], lines
    percents = [int(m.group(1)) for m in (re.search(r": (\d+)% done", x) for x in lines) if m]
    assert percents == sorted(percents)


# ----------------------------------------------------------------- a resume


_STOP = {"at": None, "calls": 0}


def _trials(params, n, rng):
    _STOP["calls"] += 1
    if _STOP["at"] == "batch" and _STOP["calls"] == 10:  # Ctrl-C in the middle of the run
        raise KeyboardInterrupt
    time.sleep(0.002 * n)
    return {"heads": (rng.random(n) < params["p"]).astype(float)}


def _prepare(points, pilot):
    if _STOP["at"] == "prepare":
        raise KeyboardInterrupt
    return None


def _exp(prepare=None):
    return harness.Experiment(
        name="progress-coin", title="coin", description="a coin",
        grid=harness.Grid(product={"p": [0.1, 0.3, 0.5, 0.7, 0.9]}),
        metrics=(harness.Metric("heads", "proportion"),), trials=_trials,
        default_trials=40, batch_size=10, prepare=prepare)


def _interrupted_run(tmp_path):
    """A run stopped mid-way: (its message, the batches its journal holds)."""
    _STOP.update(at="batch", calls=0)
    try:
        with pytest.raises(RunInterrupted) as info:
            harness.run(_exp(_prepare), rng=4, out=tmp_path, executor="inprocess", plot=False,
                        progress=False)
    finally:
        _STOP["at"] = None
    lines = (tmp_path / "progress-coin.journal.jsonl").read_text().splitlines()
    done = sum(json.loads(x)["type"] == "unit" for x in lines)
    assert 0 < done < 20
    return str(info.value), done


def test_an_interruption_counts_the_journaled_batches(tmp_path):
    message, done = _interrupted_run(tmp_path)
    assert message.startswith(f"interrupted: {done} of 20 batches are finished and journaled"), message
    # interrupted again during the resume's one-off work, before any batch of its own:
    # the batches of the journal are still there, and the line says so (it once said 0)
    _STOP["at"] = "prepare"
    try:
        with pytest.raises(RunInterrupted, match=rf"^interrupted: {done} of 20 batches are finished"):
            harness.run(_exp(_prepare), out=tmp_path, executor="inprocess", plot=False, progress=False,
                        resume=True)
    finally:
        _STOP["at"] = None


def test_a_resume_says_what_it_reuses_first_and_prices_the_rest_with_the_journal(tmp_path, capsys,
                                                                                 monkeypatch):
    _, done = _interrupted_run(tmp_path)
    units = [json.loads(x) for x in (tmp_path / "progress-coin.journal.jsonl").read_text().splitlines()]
    assert all(u["seconds"] > 0 for u in units if u["type"] == "unit")  # journaled costs
    monkeypatch.setattr("anonspread.harness.progress.in_notebook", lambda: False)
    capsys.readouterr()
    res = harness.run(_exp(), out=tmp_path, executor="inprocess", plot=False, progress=True, resume=True)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0].startswith(f"progress-coin: resuming: {done} of 20 batches from the journal"), lines[0]
    assert lines[0].endswith(f"; {20 - done} to run")
    assert f"({done} from the journal)" in lines[1]
    first = err.split("\r")[1]  # the bar's first draw, before any batch of this session
    percent = int(re.match(r"progress-coin: +(\d+)%\|", first).group(1))
    assert abs(percent - 100 * done / 20) <= 25, first  # weighted by the journal's costs
    assert "ETA ?" not in first and re.search(r"ETA 00:0\d", first), first
    assert res.reused == done and res.computed == 20 - done
    # the duration printed and the JSON's are one figure
    side = json.loads((tmp_path / "progress-coin.json").read_text())
    assert res.elapsed == side["timing"]["elapsed_s"] >= side["timing"]["compute_s"] > 0


def test_the_cli_prints_the_json_duration(tmp_path, capsys):
    assert main(["run", "test-coin-batched", "--import", "harness_testexp", "--trials", "300", "--rng", "1",
                 "--out", str(tmp_path), "--workers", "1", "--executor", "inprocess", "--quiet"]) == 0
    out = capsys.readouterr().out
    side = json.loads((tmp_path / "test-coin-batched.json").read_text())
    assert f" in {side['timing']['elapsed_s']:.1f} s;" in out, out
