"""Small untruths of the views (issue 34, item 6): one duration in the HTML view, the text
repr, the CLI line and the JSON; a reproduce line runnable as written; no helper metrics;
interrupted runs in the report with their resume command; our own warning classes."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import anonspread as asp
from anonspread import harness
from anonspread.harness.report import interrupted_runs, report, reproduce_command

HERE = Path(__file__).parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]), "CI": "1",
       "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def test_the_html_view_and_the_text_repr_give_the_same_time(tmp_path):
    import harness_testexp  # noqa: F401  (registers test-coin)

    res = harness.run("test-coin", trials=60, rng=2, out=tmp_path, workers=1, progress=False)
    side = json.loads(res.paths["json"].read_text())
    assert res.elapsed == side["timing"]["elapsed_s"]
    text = f"{res.elapsed:.1f} s"
    assert text in repr(res).splitlines()[0]
    page = res._repr_html_()
    assert f"{text} from the call to the results and figures written" in page
    assert "of it computing the results" in page


def test_the_reproduce_line_of_a_cli_run_runs_as_written(tmp_path):
    out = tmp_path / "first"
    first = [sys.executable, "-m", "anonspread", "sweep", "test-flip", "--import", "harness_testexp",
             "--set", "coin=fair,biased", "--set", "bias=0.3", "--trials", "50", "--out", str(out),
             "--workers", "1", "--no-plot"]
    subprocess.run(first, env=ENV, check=True, capture_output=True, timeout=120)
    (side_path,) = out.glob("*.json")
    csv = side_path.with_suffix(".csv")
    original = csv.read_bytes()
    line = reproduce_command(json.loads(side_path.read_text()))
    assert line.startswith("anonspread sweep test-flip") and "--rng" in line and "--overwrite" in line
    csv.unlink()
    done = subprocess.run(line, shell=True, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert csv.read_bytes() == original


def test_the_reproduce_line_of_a_python_run_runs_as_written(tmp_path):
    import harness_testexp  # noqa: F401

    res = harness.run("test-coin-batched", trials=300, out=tmp_path, workers=1, progress=False,
                      overrides={"p": [0.3]}, batch_size=100, plot=False)
    line = reproduce_command(res.metadata, res.paths["csv"].parent)
    assert line.startswith("import harness_testexp; from anonspread import harness; harness.run(")
    assert "overrides={'p': [0.3]}" in line and "batch_size=100" in line
    assert line in res._repr_html_().replace("&#x27;", "'")
    shutil.move(res.paths["csv"], tmp_path / "original.csv")
    done = subprocess.run([sys.executable, "-c", line], env=ENV, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert res.paths["csv"].read_bytes() == (tmp_path / "original.csv").read_bytes()


def test_the_reproduce_line_of_a_sweep_composed_in_python_composes_it_again(tmp_path):
    exp = harness.compose("detection", product={"graph": "erdos-renyi", "graph.n": 40, "protocol": "flooding",
                                                "estimator": ["jordan", "rumor"], "T": [2, 3]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", asp.AnonspreadWarning)
        res = harness.run(exp, trials=20, out=tmp_path / "a", workers=1, progress=False, plot=False)
    line = reproduce_command(json.loads(res.paths["json"].read_text()), tmp_path / "b")
    assert line.startswith("from anonspread import harness; harness.run(harness.compose('detection', product=")
    done = subprocess.run([sys.executable, "-c", line], env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "b" / res.paths["csv"].name).read_bytes() == res.paths["csv"].read_bytes()


def test_helper_metrics_are_not_shown_in_a_sweep_without_strongest(tmp_path):
    exp = harness.compose("detection", product={"graph": "regular-3", "protocol": "random-diffusion",
                                                "estimator": "jordan", "T": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", asp.AnonspreadWarning)
        res = harness.run(exp, trials=20, rng=1, out=tmp_path, workers=1, progress=False)
    side = json.loads(res.paths["json"].read_text())
    names = [m["name"] for m in side["metrics"]]
    assert "detection" in names and not {"selection_hits", "selection_trials"} & set(names)
    assert "selection_" not in res._repr_html_() and "selection_" not in res.paths["csv"].read_text()


def test_the_report_lists_interrupted_runs_with_a_runnable_resume_command(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "anonspread", "run", "test-slow", "--import", "harness_testexp",
           "--rng", "5", "--out", str(out), "--workers", "1", "--set", "p=0.2,0.4"]
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    journal = out / "test-slow.journal.jsonl"
    try:
        import time

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and b'"type":"unit"' not in (
                journal.read_bytes() if journal.exists() else b""):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    assert not (out / "test-slow.csv").exists()
    assert report(out).is_file()  # no finished run: the page lists the interrupted one
    page = (out / "report.html").read_text()
    ((what, resume),) = interrupted_runs(out)
    assert what.startswith("test-slow: ") and "batches journaled" in what
    assert resume.startswith("anonspread run test-slow --import harness_testexp --rng 5")
    assert "--set p=0.2,0.4" in resume and resume.endswith(f"--out {shlex.quote(str(out))} --resume")
    assert "Interrupted runs (1" in page
    done = subprocess.run(resume, shell=True, env=ENV, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (out / "test-slow.csv").exists() and not interrupted_runs(out)


def test_saturation_warnings_have_a_class_of_their_own(tmp_path):
    assert issubclass(asp.SaturationWarning, asp.AnonspreadWarning)
    assert issubclass(asp.SaturationWarning, RuntimeWarning) and issubclass(asp.AnonspreadWarning, UserWarning)
    exp = harness.compose("detection", product={"graph": "erdos-renyi", "graph.n": 30, "graph.mean_degree": 8.0,
                                                "protocol": "flooding", "estimator": "jordan", "T": 4})
    with pytest.warns(asp.SaturationWarning, match="whole connected component"):
        harness.run(exp, trials=10, rng=1, out=tmp_path, workers=1, progress=False, plot=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", asp.SaturationWarning)  # what a notebook does
        harness.run(exp, trials=10, rng=1, out=tmp_path, workers=1, progress=False, plot=False)


def test_threads_per_worker_reach_the_openmp_estimators_and_change_no_result(tmp_path, capsys):
    from anonspread.harness.cli import main
    from anonspread.harness.experiments.spreading import _as_function, make_graph, make_protocol
    from anonspread.harness.work import _THREADS

    point = {"graph": "erdos-renyi", "graph.n": 40, "graph.mean_degree": 4.0, "protocol": "random-diffusion",
             "protocol.p": 0.5, "estimator": "bp", "T": 3}
    exp = harness.compose("detection", product=point)
    params = harness.expand(exp.grid)[0]
    g = make_graph(params)
    proto = make_protocol(params, g)
    token = _THREADS.set(2)  # what run_task does for a task of a run with threads=2
    try:
        assert _as_function("bp", proto, g, None).keywords["threads"] == 2
    finally:
        _THREADS.reset(token)
    assert "threads" not in _as_function("bp", proto, g, None).keywords
    csvs = []
    for threads in ("1", "2"):
        out = tmp_path / threads
        argv = ["sweep", "detection", "--out", str(out), "--trials", "20", "--rng", "3", "--workers", "1",
                "--no-plot", "--quiet", "--threads", threads]
        for key, value in point.items():
            argv += ["--set", f"{key}={value}"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", asp.AnonspreadWarning)
            assert main(argv) == 0
        (side,) = out.glob("*.json")
        assert json.loads(side.read_text())["threads_per_worker"] == int(threads)
        csvs.append(side.with_suffix(".csv").read_bytes())
    assert csvs[0] == csvs[1]
    capsys.readouterr()
    with pytest.raises(asp.InvalidParameterError, match="threads"):
        harness.run(exp, trials=2, out=tmp_path, threads=0, progress=False)
