"""Interrupt a CLI run with SIGINT, resume it, and get the uninterrupted table."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import harness_testexp as tx

from anonspread import harness
from anonspread.harness.journal import Journal

HERE = Path(__file__).parent


def _units(path: Path) -> list[dict]:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [r for r in lines if r["type"] == "unit"]


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigint_then_resume_matches_uninterrupted(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "CI": "1"}
    cmd = [sys.executable, "-m", "anonspread", "run", "test-slow", "--import", "harness_testexp",
           "--rng", "11", "--out", str(out), "--workers", "2"]
    # Ctrl-C as a terminal delivers it: the run starts with SIGINT's default action even when
    # this test process inherited it ignored (a shell's background job, `nohup`).
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    journal = out / "test-slow.journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and len(_units(journal)) >= 4:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert len(err.strip().splitlines()) == 1 and "--resume" in err
    assert not (out / "test-slow.csv").exists()
    assert not (out / "test-slow.json").exists()

    before = {(r["point"], r["batch"]): r for r in _units(journal)}
    total = 4 * 10  # 4 points x 200 trials in batches of 20
    assert 4 <= len(before) < total

    res = harness.run("test-slow", out=out, resume=True, workers=1, plot=False)
    assert res.seed == 11  # taken from the journal
    assert res.reused == len(before) and res.computed == total - len(before)
    after = _units(journal)
    keys = [(r["point"], r["batch"]) for r in after]
    assert len(keys) == len(set(keys)) == total  # nothing finished was recomputed
    for r in after:
        if (r["point"], r["batch"]) in before:
            assert r == before[(r["point"], r["batch"])]
    assert {r["session"] for r in after if (r["point"], r["batch"]) not in before} == {2}

    ref = harness.run(tx.SLOW, rng=11, out=tmp_path / "ref", workers=1, plot=False)
    assert res.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()

    again = harness.run("test-slow", out=out, resume=True, workers=1, plot=False)
    assert again.computed == 0 and again.reused == total
    assert again.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()


def test_resume_refuses_a_different_run(tmp_path):
    harness.run(tx.COIN_BATCHED, rng=1, trials=600, out=tmp_path, workers=1, plot=False)
    try:
        harness.run(tx.COIN_BATCHED, rng=2, trials=600, out=tmp_path, workers=1, resume=True)
    except harness.JournalMismatchError as exc:
        assert "seed" in str(exc)
    else:
        raise AssertionError("a journal of another seed was reused")


def test_torn_journal_tail_is_dropped(tmp_path):
    first = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False)
    path = first.paths["journal"]
    lines = path.read_text().splitlines(keepends=True)
    # Drop the last two units and leave half a line, as a kill during a write would.
    path.write_text("".join(lines[:-2]) + lines[-2][: len(lines[-2]) // 2])
    state = Journal(path).read()
    assert len(state.units) == 6  # 2 points x 4 batches (1000 trials by 300), minus 2
    res = harness.run(tx.COIN_BATCHED, rng=3, out=tmp_path, workers=1, plot=False, resume=True)
    assert (res.reused, res.computed) == (6, 2)
    assert res.paths["csv"].read_bytes() == first.table.to_csv().encode()
