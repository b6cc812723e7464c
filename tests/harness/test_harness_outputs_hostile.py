"""Issue 33, classes 1 and 4 (CLI): outputs replace only regular files (or nothing), and the
paths a user gives are honoured exactly or refused -- never silently changed."""

from __future__ import annotations

import os

import harness_testexp  # noqa: F401 - registers the test experiments
import pytest

from anonspread.harness.cli import main
from anonspread.harness.errors import OutputError
from anonspread.harness.report import report

IMPORT = ["--import", "harness_testexp"]


def _one_line_error(capsys, argv, *fragments, code):
    rc = main(list(argv))
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == code and len(lines) == 1 and "Traceback" not in err, (rc, err)
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def result(tmp_path, capsys):
    assert main(["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1", "--no-plot",
                 "--trials", "50"]) == 0
    capsys.readouterr()
    return tmp_path / "test-coin.csv"


def _specials(tmp_path):
    """A FIFO, a symlink to a file and a directory, each where an output would go."""
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    link = tmp_path / "link.png"
    link.symlink_to(target)
    folder = tmp_path / "folder.png"
    folder.mkdir()
    return {"FIFO": fifo, "symbolic link": link, "directory": folder}, target


def test_plot_output_refuses_anything_but_a_regular_file(result, tmp_path, capsys):
    specials, target = _specials(tmp_path)
    for kind, path in specials.items():
        before = sorted(os.listdir(tmp_path))
        _one_line_error(capsys, ["plot", str(result), "--output", str(path)], f"is a {kind}",
                        code=1)
        assert sorted(os.listdir(tmp_path)) == before  # nothing written beside it
    assert target.read_text() == "keep me" and (tmp_path / "link.png").is_symlink()
    if os.path.exists("/dev/null"):  # a character device: refused before anything is opened
        _one_line_error(capsys, ["plot", str(result), "--output", "/dev/null"],
                        "is a character device", code=1)


def test_plot_output_is_honoured_exactly_or_refused(result, tmp_path, capsys):
    folder = tmp_path / "figs"
    folder.mkdir()
    _one_line_error(capsys, ["plot", str(result), "--output", str(folder)], "is a directory", code=1)
    assert not (tmp_path / "figs.png").exists()
    _one_line_error(capsys, ["plot", str(result), "--output", str(tmp_path / "x.txt")],
                    "must name a .png file", code=1)
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "x.txt").exists()
    assert main(["plot", str(result), "--output", str(tmp_path / "y.PNG")]) == 0
    assert (tmp_path / "y.PNG").is_file()


def test_report_refuses_anything_but_a_regular_file(result, tmp_path):
    specials, target = _specials(tmp_path)
    for kind, path in specials.items():
        with pytest.raises(OutputError, match=f"is a {kind}"):
            report(tmp_path, path)
    assert target.read_text() == "keep me"


def test_run_refuses_to_replace_a_fifo_or_a_symlink(tmp_path, capsys):
    os.mkfifo(tmp_path / "test-coin.csv")
    _one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1",
                             "--no-plot", "--trials", "50"], "is a FIFO", code=1)
    os.unlink(tmp_path / "test-coin.csv")
    (tmp_path / "elsewhere.json").write_text("{}")
    (tmp_path / "test-coin.json").symlink_to(tmp_path / "elsewhere.json")
    _one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1",
                             "--no-plot", "--trials", "50"], "is a symbolic link", code=1)
    assert (tmp_path / "elsewhere.json").read_text() == "{}"
    assert not (tmp_path / "test-coin.csv").exists()


def test_plot_of_a_directory_says_what_to_give(result, capsys):
    line = _one_line_error(capsys, ["plot", str(result.parent)], "is a directory",
                           "test-coin.csv", "anonspread report", code=1)
    assert str(result.parent) in line


# ----------------------------------------------------------------- class 3: silent nonsense

def test_empty_metric_is_refused(result, capsys):
    for metric in ("", " , "):
        line = _one_line_error(capsys, ["plot", str(result), "--metric", metric],
                               "--metric must name at least one", code=2)
        assert line.startswith("anonspread")


def test_a_result_row_with_extra_fields_is_refused_with_its_line(result, capsys):
    lines = result.read_text().splitlines()
    lines[2] += ",0.5,extra"
    result.write_text("\n".join(lines) + "\n")
    line = _one_line_error(capsys, ["plot", str(result)], "line 3", "2 more field(s)", code=1)
    assert result.name in line


# ----------------------------------------------------------------- class 4: raw errors

def test_a_very_long_name_is_refused(tmp_path, capsys):
    _one_line_error(capsys, ["sweep", "test-flip", *IMPORT, "--set", "coin=fair", "--out", str(tmp_path), "--name",
                             "x" * 300, "--workers", "1", "--no-plot", "--trials", "10"],
                    "at most 200 characters", code=2)
    assert not list(tmp_path.iterdir())
