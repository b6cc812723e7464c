"""One-line errors for the CLI's bad inputs of issue 14 (defects 7-9), never a traceback."""

from __future__ import annotations

import json

import harness_testexp  # noqa: F401 - registers the test experiments
import pytest

from anonspread.harness.cli import main

IMPORT = ["--import", "harness_testexp"]


def assert_one_line_error(capsys, argv, *fragments, code=2):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == code, (rc, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.mark.timeout(20)
def test_huge_trials_refused_up_front(capsys, tmp_path):
    assert_one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--trials", "1000000000000"],
                    "trials must make at most 1000000 batches", "--batch-size")
    assert_one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--trials", "1000000000000",
                             "--batch-size", "100000000"], "trials must total at most")
    assert not list(tmp_path.iterdir())


def test_empty_out_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", ""], "out must be a directory path")
    assert not list(tmp_path.iterdir())


def test_journal_path_that_is_a_directory(capsys, tmp_path):
    (tmp_path / "test-coin.journal.jsonl").mkdir()
    assert_one_line_error(capsys, ["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1"],
                    "is a directory", code=1)


@pytest.fixture
def result(tmp_path, capsys):
    assert main(["run", "test-coin", *IMPORT, "--out", str(tmp_path), "--workers", "1", "--no-plot",
                 "--trials", "50"]) == 0
    capsys.readouterr()
    return tmp_path / "test-coin.csv"


@pytest.mark.parametrize("key", ["plot", "metrics", "parameters", "parameter_types"])
def test_plot_with_sidecar_missing_a_key(capsys, result, key):
    side = result.with_suffix(".json")
    data = json.loads(side.read_text())
    del data[key]
    side.write_text(json.dumps(data))
    assert_one_line_error(capsys, ["plot", str(result)], "sidecar", repr(key), code=1)


def test_plot_with_sidecar_of_wrong_shape(capsys, result):
    side = result.with_suffix(".json")
    side.write_text("[1, 2]")
    assert_one_line_error(capsys, ["plot", str(result)], "must hold a JSON object", code=1)
    data = {"parameters": ["p"], "parameter_types": {"p": "complex"}, "metrics": [], "plot": {"x": "p"}}
    side.write_text(json.dumps(data))
    assert_one_line_error(capsys, ["plot", str(result)], "parameter 'p' needs a type", code=1)


@pytest.mark.parametrize(("column", "value"), [("mean", "abc"), ("n", "1.5"), ("p", "x"), ("k", "")])
def test_plot_with_non_numeric_cell(capsys, result, column, value):
    lines = result.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[2].split(",")
    cells[header.index(column)] = value
    lines[2] = ",".join(cells)
    result.write_text("\n".join(lines) + "\n")
    assert_one_line_error(capsys, ["plot", str(result)], "line 3", repr(column), code=1)
