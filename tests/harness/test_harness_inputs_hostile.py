"""Issue 33: the files anonspread *reads* (a result CSV and its JSON sidecar, a sweep's TOML,
a run's journal) that are a FIFO, or a symlink to one, are refused at once with a one-line
error naming the file and its kind: opening a FIFO for reading waited for a writer forever.
Tests use FIFOs, symlinks and directories in a temporary folder, never real devices.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil

import harness_testexp  # noqa: F401 - registers the test experiments
import pytest

from anonspread.harness.cli import main

IMPORT = ["--import", "harness_testexp"]


def _one_line_error(capsys, argv, *, code=1):
    """Run the CLI; it must exit with ``code`` and one line on stderr, which is returned."""
    rc = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == code and len(lines) == 1 and "Traceback" not in err, (rc, err)
    return lines[0]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", "test-coin", *IMPORT, "--out", str(out), "--workers", "1", "--no-plot",
                     "--trials", "50"]) == 0
    return out / "test-coin.csv"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("which", ["csv", "json"])
@pytest.mark.parametrize("how", ["FIFO", "symlink to a FIFO"])
def test_plot_and_report_refuse_a_fifo_result(result, tmp_path, capsys, which, how):
    folder = tmp_path / "bad"
    folder.mkdir()
    for suffix in ("csv", "json"):
        shutil.copy(result.with_suffix(f".{suffix}"), folder / f"r.{suffix}")
    target = folder / f"r.{which}"
    target.unlink()
    if how == "FIFO":
        os.mkfifo(target)
    else:
        os.mkfifo(tmp_path / "pipe")
        target.symlink_to(tmp_path / "pipe")
    what = "a result CSV" if which == "csv" else "a result's JSON sidecar"
    line = _one_line_error(capsys, ["plot", str(folder / "r.csv")])
    assert f"{target} is a FIFO, not a regular file: {what} must be a regular file" in line, line
    # the report lists a run by its NAME.json being a file: a FIFO sidecar leaves no run
    line = _one_line_error(capsys, ["report", str(folder)])
    assert (f"{target} is a FIFO" if which == "csv" else "holds no run") in line, line


@pytest.mark.timeout(60)
def test_a_directory_named_like_a_sidecar_is_refused(result, tmp_path, capsys):
    shutil.copy(result, tmp_path / "r.csv")
    (tmp_path / "r.json").mkdir()
    line = _one_line_error(capsys, ["plot", str(tmp_path / "r.csv")])
    assert "r.json is a directory, not a regular file" in line, line


@pytest.mark.timeout(60)
def test_a_fifo_sweep_file_is_refused(tmp_path, capsys):
    os.mkfifo(tmp_path / "s.toml")
    line = _one_line_error(capsys, ["sweep", "--config", str(tmp_path / "s.toml")], code=2)
    assert "must be a regular file (a device or pipe may never end)" in line, line


@pytest.mark.timeout(60)
def test_a_fifo_journal_is_refused(tmp_path, capsys):
    os.mkfifo(tmp_path / "test-coin.journal.jsonl")
    line = _one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1",
                                    "--no-plot", "--trials", "50", "--resume"])
    assert "test-coin.journal.jsonl is a FIFO, not a regular file: the journal must be a regular file" in line, line
