"""The anonspread CLI: listing, running, sweeping, plotting, and one-line errors."""

from __future__ import annotations

import time

import harness_testexp  # noqa: F401 - registers the test experiments
import pytest

from anonspread.harness.cli import main, parse_assignment

IMPORT = ["--import", "harness_testexp"]


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_error(rc, err, *fragments):
    assert rc != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0]


def assert_no_results(out_dir, name):
    for suffix in (".csv", ".json", ".png"):
        assert not (out_dir / f"{name}{suffix}").exists()


def test_list_and_show(capsys):
    rc, out, _ = _run(capsys, "list")
    assert rc == 0 and "test-coin " in out
    rc, out, _ = _run(capsys, "show", "test-coin")
    assert rc == 0
    assert "Bernoulli" in out and "zip" in out and "heads (proportion)" in out


def test_help_has_examples(capsys):
    for cmd in ([], ["run"], ["sweep"], ["plot"], ["show"], ["list"]):
        assert main([*cmd, "--help"]) == 0
        assert "example" in capsys.readouterr().out


def test_unknown_experiment_suggests(capsys, tmp_path):
    rc, _, err = _run(capsys, "run", "test-coni", "--out", str(tmp_path))
    assert_one_line_error(rc, err, "unknown experiment 'test-coni'", "did you mean 'test-coin'")
    rc, _, err = _run(capsys, "show", "tset-exact")
    assert_one_line_error(rc, err, "did you mean 'test-exact'")


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--trials", "-3"], ["trials must be an integer >= 1; got -3"]),
        (["--trials", "0"], ["trials must be an integer >= 1; got 0"]),
        (["--set", "p"], ["--set must be key=value"]),
        (["--set", "lable=a,b"], ["unknown parameter 'lable'", "did you mean 'label'", "the grid has: p, k, label"]),
        (["--set", "k=1,2,3"], ["zipped grid axes must have equal lengths"]),
        (["--set", "p=1,,2"], ["must not be empty"]),
        (["--workers", "0"], ["workers must be an integer in [1, ", "got 0"]),
        (["--executor", "threads"], ["unknown executor 'threads'"]),
        (["--rng", "-1"], ["rng must be"]),
        (["--trials", "x"], ["invalid int value"]),
    ],
)
def test_bad_run_input(capsys, tmp_path, argv, fragments):
    rc, _, err = _run(capsys, "run", "test-coin", "--out", str(tmp_path), "--workers", "1", *argv)
    assert_one_line_error(rc, err, *fragments)
    assert rc == 2
    assert_no_results(tmp_path, "test-coin")


def test_unwritable_output_directory(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    rc, _, err = _run(capsys, "run", "test-exact", "--out", str(blocker / "sub"))
    assert_one_line_error(rc, err, "cannot create the output directory")


def test_unreachable_scheduler_fails_fast(capsys, tmp_path):
    start = time.monotonic()
    rc, _, err = _run(capsys, "run", "test-coin", "--scheduler", "tcp://127.0.0.1:9",
                      "--out", str(tmp_path))
    assert time.monotonic() - start < 20
    assert_one_line_error(rc, err, "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'")
    assert_no_results(tmp_path, "test-coin")
    assert not (tmp_path / "test-coin.journal.jsonl").exists()


def test_trial_error_is_one_line(capsys, tmp_path):
    from anonspread import harness

    def bad(params, rng):
        return {"wrong": 1.0}

    exp = harness.Experiment(name="test-bad", title="bad", description="returns the wrong key",
                             grid=harness.Grid(product={"a": [1]}),
                             metrics=(harness.Metric("right"),), trial=bad)
    harness.register_experiment(exp, replace=True)
    try:
        rc, _, err = _run(capsys, "run", "test-bad", "--workers", "1", "--out", str(tmp_path))
    finally:
        harness.unregister_experiment("test-bad")
    assert_one_line_error(rc, err, "returned metrics ['wrong']; declared ['right']")
    assert_no_results(tmp_path, "test-bad")


def test_run_and_replot(capsys, tmp_path):
    import matplotlib.pyplot as plt

    rc, out, _ = _run(capsys, "run", "test-coin", "--trials", "60", "--rng", "2", "--workers", "1",
                      "--out", str(tmp_path), "--set", "p=0.2,0.8", "--pdf")
    assert rc == 0 and "wrote" in out
    csv = tmp_path / "test-coin.csv"
    text = csv.read_text().splitlines()
    assert text[0] == "p,k,label,metric,n,mean,stderr,ci_low,ci_high"
    assert len(text) == 1 + 2 * 2 * 2  # p x zipped (k, label) x metrics
    assert all(line.split(",")[4] == "60" for line in text[1:])
    png = tmp_path / "test-coin.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "test-coin.pdf").read_bytes()[:4] == b"%PDF"
    png.unlink()
    rc, out, _ = _run(capsys, "plot", str(csv), "--output", str(tmp_path / "again.png"))
    assert rc == 0 and (tmp_path / "again.png").read_bytes()[:4] == b"\x89PNG"
    assert plt.get_fignums() == []
    plt.close("all")


def test_plot_without_sidecar(capsys, tmp_path):
    csv = tmp_path / "orphan.csv"
    csv.write_text("a,metric\n")
    rc, _, err = _run(capsys, "plot", str(csv))
    assert_one_line_error(rc, err, "no sidecar")


def test_sweep_from_flags_and_toml(capsys, tmp_path):
    rc, _, _ = _run(capsys, "sweep", "test-flip", "--set", "coin=fair,biased", "--set",
                    "bias=0.1,0.9", "--trials", "500", "--rng", "4", "--workers", "1",
                    "--out", str(tmp_path), "--no-plot")
    assert rc == 0
    from anonspread.harness.results import read_table

    first = next(tmp_path.glob("sweep-test-flip-*.csv"))  # the default name identifies the grid
    table = read_table(first)
    assert len(table.rows) == 4
    for r in table.rows:
        truth = 0.5 if r["coin"] == "fair" else r["bias"]
        assert r["ci_low"] <= truth <= r["ci_high"]
    toml = tmp_path / "s.toml"
    toml.write_text('template = "test-flip"\nname = "flip2"\ntrials = 500\nrng = 4\n'
                    '[product]\ncoin = ["fair", "biased"]\nbias = [0.1, 0.9]\n'
                    '[plot]\nx = "bias"\nseries = "coin"\n')
    rc, _, _ = _run(capsys, "sweep", "--config", str(toml), "--workers", "1",
                    "--out", str(tmp_path), "--no-plot")
    assert rc == 0
    assert (tmp_path / "flip2.csv").read_bytes() == first.read_bytes()


def test_sweep_errors(capsys, tmp_path):
    rc, _, err = _run(capsys, "sweep", "test-flip", "--set", "coin=biasd", "--out", str(tmp_path))
    assert_one_line_error(rc, err, "unknown test-coin 'biasd'", "did you mean 'biased'")
    rc, _, err = _run(capsys, "sweep", "test-flp", "--out", str(tmp_path))
    assert_one_line_error(rc, err, "did you mean 'test-flip'")
    rc, _, err = _run(capsys, "sweep", "test-flip", "--out", str(tmp_path))
    assert_one_line_error(rc, err, "needs a value for 'coin'", "fair")
    bad = tmp_path / "bad.toml"
    bad.write_text("template = [\n")
    rc, _, err = _run(capsys, "sweep", "--config", str(bad))
    assert_one_line_error(rc, err, "not valid TOML")
    bad.write_text('template = "test-flip"\nproducts = {}\n')
    rc, _, err = _run(capsys, "sweep", "--config", str(bad))
    assert_one_line_error(rc, err, "unknown keys ['products']")
    rc, out, _ = _run(capsys, "sweep", "--list")
    assert rc == 0 and "test-flip" in out and "test-coin components" in out
    assert "\n  biased  p = bias\n  fair  p = 1/2" in out
    assert "\n  erdos-renyi(n: int=1000, mean_degree: float=5.0, seed: int=0)" in out


def test_parse_assignment_keeps_text_for_the_axis_type():
    from anonspread.harness.params import CliText, Param

    key, values = parse_assignment("a=1,2.5,true,x")
    assert key == "a" and values == ["1", "2.5", "true", "x"]
    assert all(isinstance(v, CliText) for v in values)
    assert Param("any").check_all("a", values) == [1, 2.5, True, "x"]
    assert Param("str").check_all("a", values) == ["1", "2.5", "true", "x"]
    assert parse_assignment("graph.n=10,20") == ("graph.n", ["10", "20"])
    with pytest.raises(ValueError, match="--set must be key=value"):
        parse_assignment("=3")


def test_experiment_validation_messages():
    from anonspread import harness

    def f(params, rng):
        return {"m": 0.0}

    base = dict(name="test-v", title="t", description="d", metrics=(harness.Metric("m"),), trial=f)
    cases = [
        (dict(grid=harness.Grid(product={"n": [1]})), "clash with result columns"),
        (dict(grid=harness.Grid(product={"a": []})), "must not be empty"),
        (dict(grid=harness.Grid(zip={"a": [1, 2], "b": [1]})), "equal lengths"),
        (dict(grid=harness.Grid(product={"a": [[1]]})), "must be str, int, float or bool"),
        (dict(grid=harness.Grid(product={"a": [1]}), evaluate=f), "exactly one of"),
        (dict(grid=harness.Grid(product={"a": [1]}), default_trials=0), "default_trials"),
        (dict(grid=harness.Grid(product={"a": [1]}), plot=harness.PlotSpec(x="b")), "plot x"),
    ]
    for extra, fragment in cases:
        with pytest.raises((ValueError, TypeError), match=fragment):
            harness.register_experiment(harness.Experiment(**{**base, **extra}))
    assert "test-v" not in [e.name for e in harness.list_experiments()]
