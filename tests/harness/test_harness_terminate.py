"""A run stopped by SIGTERM or SIGKILL leaves no worker computing, and resumes exactly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import harness_testexp as tx
import pytest

from anonspread import harness

HERE = Path(__file__).parent


def _units(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for x in path.read_text().splitlines() if x.strip() and json.loads(x)["type"] == "unit")


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(x) for x in text]
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(") ", 1)[1][0] != "Z"


def _command(out: Path) -> tuple[list[str], dict[str, str]]:
    """``anonspread run test-slow`` into ``out`` on 2 workers (a 4 x 10 batch run, seed 5), and its env."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
           "CI": "1"}
    cmd = [sys.executable, "-m", "anonspread", "run", "test-slow", "--import", "harness_testexp",
           "--rng", "5", "--out", str(out), "--workers", "2"]
    return cmd, env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_run_leaves_no_worker_and_resumes(tmp_path, sig):
    out = tmp_path / "run"
    cmd, env = _command(out)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = out / "test-slow.journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _units(journal) < 4:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    workers = _children(proc.pid)
    assert workers, "the pool should have started worker processes"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    if sig == signal.SIGTERM:
        assert proc.returncode == 130 and "--resume" in err  # handled like Ctrl-C
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "orphaned workers kept running"
    assert not (out / "test-slow.csv").exists()

    res = harness.run("test-slow", out=out, resume=True, workers=1, plot=False)
    ref = harness.run(tx.SLOW, rng=5, out=tmp_path / "ref", workers=1, plot=False)
    assert res.reused >= 4
    assert res.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()


def _session(sid: int) -> list[int]:
    """Live processes of session ``sid`` (the CLI was started as its leader)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("delay", [0.0, 0.3, 1.0])
def test_early_sigkill_leaves_no_process(tmp_path, delay):
    # Killed while the pool is still starting (workers not yet past their set-up, the
    # death signal not yet armed): every worker and the resource tracker still stop.
    out = tmp_path / "run"
    cmd, env = _command(out)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    journal = out / "test-slow.journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not journal.exists():
        assert proc.poll() is None
        time.sleep(0.005)
    time.sleep(delay)
    seen = set(_session(proc.pid))
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _session(proc.pid):
        seen |= set(_session(proc.pid))
        time.sleep(0.05)
    left = _session(proc.pid)
    for pid in left:  # do not leave them behind for the rest of the suite
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the killed run still alive: {left} (seen {sorted(seen)})"
    # (so early that the header may not be written yet: the seed is given again)
    res = harness.run("test-slow", rng=5, out=out, resume=True, workers=1, plot=False)
    ref = harness.run(tx.SLOW, rng=5, out=tmp_path / "ref", workers=1, plot=False)
    assert res.paths["csv"].read_bytes() == ref.paths["csv"].read_bytes()


def test_signals_arriving_while_workers_start_are_held_back_then_handled():
    # the cause of multiprocessing's start-up traceback: a signal handled between launching
    # a worker and writing its set-up data into its pipe. Held back, it is handled after.
    from anonspread.harness.executors import _signals_deferred

    seen = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    # Python's own Ctrl-C handler, whatever an earlier test left; the signals go to this
    # (the main) thread, so that a thread of an earlier test's thread pool cannot take
    # one and deliver it after the block
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    me = threading.main_thread().ident
    try:
        with _signals_deferred():
            signal.pthread_kill(me, signal.SIGTERM)
            time.sleep(0.05)
            assert seen == []  # not while the workers start
        assert seen == [signal.SIGTERM]  # once, by the handler that was in place
        with pytest.raises(KeyboardInterrupt), _signals_deferred():
            signal.pthread_kill(me, signal.SIGINT)  # Ctrl-C: Python's own handler, afterwards
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


def test_the_command_called_from_python_puts_sigterm_back():
    # main() turns SIGTERM into Ctrl-C while it runs (the command's own process exits after
    # it); called from Python it leaves the handler it found
    from anonspread.harness.cli import main

    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    seen = []
    try:
        assert main(["show", "compare-detectoin"]) == 2
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        mine = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
        assert main(["show", "compare-detectoin"]) == 2  # a handler of the caller's: kept
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        del mine
    finally:
        signal.signal(signal.SIGTERM, previous)
