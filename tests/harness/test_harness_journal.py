"""What a resume trusts, the journal's lock and symlink refusal, the results' mode (issue 14, 4-5).

Each test damages a finished run's journal as a careless user, a crash or a second run
would, resumes, and checks that the table is the uninterrupted one: nothing untrusted
reaches the CSV, nothing trustworthy is recomputed.
"""

from __future__ import annotations

import json
import math
import os
import stat

import harness_testexp as tx
import pytest

from anonspread import harness
from anonspread.harness.journal import Journal, _checksum

UNITS = 8  # test-coin-batched: 2 points x 4 batches (1000 trials by 300)


def _finished(tmp_path):
    first = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False)
    return first, first.paths["journal"]


def _lines(path):
    return path.read_text().splitlines(keepends=True)


def _resealed(rec):
    rec = dict(rec)
    rec["sum"] = _checksum(rec)
    return json.dumps(rec, separators=(",", ":")) + "\n"


def _resume(tmp_path, **kw):
    return harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False, resume=True, **kw)


def _assert_recomputed(tmp_path, first, n):
    with pytest.warns(RuntimeWarning, match="not trusted and will be recomputed"):
        res = _resume(tmp_path)
    assert (res.computed, res.reused) == (n, UNITS - n)
    assert res.paths["csv"].read_bytes() == first.table.to_csv().encode()
    assert all(r["n"] == 1000 for r in res.table.rows)


def test_unit_outside_the_plan_is_not_merged(tmp_path):
    first, path = _finished(tmp_path)
    rec = json.loads(_lines(path)[-1])
    rec["batch"] = 9  # a batch the plan does not have (it was counted: n = 1300)
    path.write_text("".join(_lines(path)) + _resealed(rec))
    _assert_recomputed(tmp_path, first, 0)


@pytest.mark.parametrize("edit", ["nan", "hand", "missing-metric", "trials"])
def test_untrustworthy_unit_is_recomputed(tmp_path, edit):
    first, path = _finished(tmp_path)
    lines = _lines(path)
    rec = json.loads(lines[3])
    if edit == "nan":
        rec["moments"]["u"][1] = math.nan
        lines[3] = _resealed(rec)
    elif edit == "hand":  # a mean edited by hand: the checksum no longer matches
        lines[3] = lines[3].replace(json.dumps(rec["moments"]["heads"][1]), "0.5")
        assert lines[3] != _resealed(rec)
    elif edit == "missing-metric":
        del rec["moments"]["heads"]
        lines[3] = _resealed(rec)
    else:
        rec["n"] = rec["moments"]["heads"][0] = rec["moments"]["u"][0] = 7
        lines[3] = _resealed(rec)
    path.write_text("".join(lines))
    _assert_recomputed(tmp_path, first, 1)


def test_garbled_middle_line_costs_only_its_unit(tmp_path):
    first, path = _finished(tmp_path)
    lines = _lines(path)
    lines[4] = '{"type":"unit","point":0,"bat\x00\x17 garbage\n'
    path.write_text("".join(lines))
    state = Journal(path).read()
    assert [i for i, _ in state.rejected] == [5] and len(state.units) == UNITS - 1
    _assert_recomputed(tmp_path, first, 1)


def test_journal_without_header_is_refused_not_overwritten(tmp_path):
    _, path = _finished(tmp_path)
    path.write_text("".join(_lines(path)[1:]))
    before = path.read_bytes()
    with pytest.raises(harness.JournalMismatchError, match="no readable header"):
        _resume(tmp_path)
    assert path.read_bytes() == before


def test_journal_symlink_is_not_followed(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "test-coin-batched.journal.jsonl").symlink_to(target)
    with pytest.raises(harness.OutputError, match="symbolic link"):
        harness.run(tx.COIN_BATCHED, rng=3, out=out, workers=1, plot=False)
    assert target.read_text() == "keep me\n"


def test_journal_path_that_is_a_directory(tmp_path):
    (tmp_path / "test-coin-batched.journal.jsonl").mkdir()
    with pytest.raises(harness.OutputError, match="is a directory"):
        harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False)


def test_second_run_into_the_same_out_is_refused(tmp_path):
    first, path = _finished(tmp_path)
    before = path.read_bytes()
    with Journal(path):  # another run holds the lock
        for resume in (False, True):
            with pytest.raises(harness.OutputError, match="another run is writing"):
                harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False, resume=resume)
    assert path.read_bytes() == before
    res = _resume(tmp_path)  # the lock is gone with its holder
    assert res.computed == 0


def test_results_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        res = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=True)
    finally:
        os.umask(old)
    for key in ("csv", "json", "png", "journal"):
        assert stat.S_IMODE(res.paths[key].stat().st_mode) == 0o644, key


def test_second_cli_run_while_the_first_runs(tmp_path, capsys):
    # two real processes: the second 'anonspread run' into the same --out refuses at once
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from anonspread.harness.cli import main

    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")]),
           "CI": "1"}
    # (2000 trials: long enough that the first run is still going whatever the load)
    argv = ["run", "test-slow", "--import", "harness_testexp", "--rng", "5", "--out", str(tmp_path),
            "--trials", "2000"]
    first = subprocess.Popen([sys.executable, "-m", "anonspread", *argv, "--workers", "2"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / "test-slow.journal.jsonl"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and b'"type":"unit"' not in (
                journal.read_bytes() if journal.exists() else b""):
            assert first.poll() is None, first.communicate()
            time.sleep(0.02)
        for extra in ([], ["--resume"]):
            assert main([*argv, "--workers", "1", *extra]) == 1
            err = capsys.readouterr().err
            assert "another run is writing" in err and len(err.strip().splitlines()) == 1, err
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    # the first run's journal is intact: every line its own, all trusted
    state = Journal(journal).read()
    assert state.header["trials"] == 2000 and state.sessions == 1
    assert len(state.units) >= 1 and not state.rejected


def test_header_with_a_mangled_seed_is_refused(tmp_path):
    _, path = _finished(tmp_path)
    lines = _lines(path)
    header = json.loads(lines[0])
    header["seed"] = "three"
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    with pytest.raises(harness.JournalMismatchError, match="differs in: seed"):
        harness.run(tx.COIN_BATCHED, out=tmp_path, workers=1, plot=False, resume=True)


def _stopping_after(batches):
    """test-coin-batched whose trials raise KeyboardInterrupt (as Ctrl-C would) once
    ``batches`` batches have run in this process."""
    import dataclasses

    calls = {"n": 0}

    def trials(params, n, rng):
        if calls["n"] >= batches:
            raise KeyboardInterrupt
        calls["n"] += 1
        return tx.coin_trials(params, n, rng)

    return dataclasses.replace(tx.COIN_BATCHED, trials=trials)


def test_interrupted_overwrite_leaves_the_old_outputs_and_journal(tmp_path):
    first = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=True)
    old = {k: first.paths[k].read_bytes() for k in ("csv", "json", "png", "journal")}
    pending = tmp_path / "test-coin-batched.journal.pending.jsonl"
    # an overwrite with another seed, interrupted after 3 of its 8 batches
    with pytest.raises(harness.RunInterrupted, match="pending"):
        harness.run(_stopping_after(3), rng=4, out=tmp_path, workers=1, plot=True, overwrite=True)
    assert {k: first.paths[k].read_bytes() for k in old} == old  # the old run, whole
    state = Journal(pending).read()
    assert state.header["seed"] == 4 and len(state.units) == 3
    # --resume continues the interrupted overwrite (its pending journal), then replaces all four
    res = harness.run(tx.COIN_BATCHED, out=tmp_path, workers=1, plot=True, resume=True)
    ref = harness.run(tx.COIN_BATCHED, rng=4, out=tmp_path / "ref", workers=1, plot=False)
    assert (res.seed, res.reused, res.computed) == (4, 3, UNITS - 3)
    assert res.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes() != old["csv"]
    assert not pending.exists()
    state = Journal(first.paths["journal"]).read()
    assert state.header["seed"] == 4 and len(state.units) == UNITS and state.sessions == 2
    assert json.loads(res.paths["json"].read_text())["seed"] == 4


def test_overwrite_replaces_the_journal_with_the_outputs(tmp_path, monkeypatch):
    first = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False)
    res = harness.run(tx.COIN_BATCHED, rng=5, out=tmp_path, workers=1, plot=False, overwrite=True)
    state = Journal(first.paths["journal"]).read()
    assert state.header["seed"] == 5 and state.sessions == 1 and len(state.units) == UNITS
    assert res.paths["journal"] == first.paths["journal"]
    assert not (tmp_path / "test-coin-batched.journal.pending.jsonl").exists()
    # a failure while the outputs are written leaves all four of the last run as they were
    before = {k: res.paths[k].read_bytes() for k in ("csv", "json", "journal")}
    import anonspread.harness.runner as runner

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "_stage_outputs", full_disk)
    with pytest.raises(harness.OutputError, match="No space left"):
        harness.run(tx.COIN_BATCHED, rng=6, out=tmp_path, workers=1, plot=False, overwrite=True)
    assert {k: res.paths[k].read_bytes() for k in before} == before
