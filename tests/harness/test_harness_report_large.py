"""``anonspread report`` on a folder of many runs (issue 33): an index page and a page per
run, figures referenced as files, every page small, done in seconds; interrupted runs
(a journal without its CSV) are listed with their resume command.

The runs are written directly (CSV, JSON sidecar, a tiny PNG), not simulated.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

from anonspread.harness import cli
from anonspread.harness.errors import OutputError
from anonspread.harness.report import INLINE_RUNS, RUNS_PER_INDEX, report

N_RUNS = 300


def _side(name: str, seed: int) -> dict:
    return {
        "batch_size": 5000, "command": ["anonspread", "run", name, "--out", "results"], "complete": True,
        "confidence_level": 0.95, "derived": [], "description": "a synthetic run", "executor": "inprocess(workers=1)",
        "experiment": name, "files": {"csv": f"{name}.csv", "png": f"{name}.png"},
        "grid": {"product": {"p": [0.25, 0.5]}, "zip": {}}, "high_coverage": [],
        "metrics": [{"description": "hit", "kind": "proportion", "label": "P(hit)", "low": None, "name": "hit"}],
        "mode": "trials", "parameter_docs": {}, "parameter_types": {"p": "float"}, "parameters": ["p"],
        "plot": {"annotate": [], "facet": None, "logx": False, "logy": None, "panels": [], "references": [],
                 "series": None, "theory": [], "x": "p", "xlabel": "", "y": ["hit"]},
        "points": 2, "saturated": [], "seed": seed, "skipped": [], "timing": {"elapsed_s": 0.01},
        "title": f"synthetic {name}", "trials": 20, "unreached": [], "versions": {"anonspread": "0.2.0"},
    }


_CSV = ("p,metric,n,mean,stderr,ci_low,ci_high\n"
        "0.25,hit,20,0.2,0.0894427190999916,0.08065766257979806,0.4160174322518935\n"
        "0.5,hit,20,0.5,0.11180339887498948,0.2992980081982124,0.7007019918017876\n")


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    from matplotlib.image import imsave

    buf = io.BytesIO()
    imsave(buf, np.arange(12.0).reshape(3, 4), format="png")
    png = buf.getvalue()
    out = tmp_path_factory.mktemp("many")
    for i in range(N_RUNS):
        name = f"run{i:04d}"
        (out / f"{name}.csv").write_text(_CSV)
        (out / f"{name}.json").write_text(json.dumps(_side(name, i)))
        if i != 7:  # run0007 has no figure: the report draws one
            (out / f"{name}.png").write_bytes(png)
    # an interrupted run: its journal, no CSV
    header = {"type": "header", "format": 2, "experiment": "compare-detection", "mode": "trials", "seed": 99,
              "trials": 500, "batch_size": 5000, "grid": {}, "metrics": ["detection"]}
    (out / "cut.journal.jsonl").write_text(json.dumps(header) + "\n")
    start = time.perf_counter()
    assert cli.main(["report", str(out)]) == 0
    return out, time.perf_counter() - start


def test_many_runs_give_small_pages_in_seconds(many):
    out, elapsed = many
    assert N_RUNS > INLINE_RUNS
    assert elapsed < 30, elapsed  # measured ~2 s on 2 busy cores; the inline page took ~20 min for 1,000
    index = (out / "report.html").read_text()
    files = out / "report_files"
    pages = sorted(files.glob("run-*.html"))
    assert len(pages) == N_RUNS
    # no page embeds a figure, and every page is small (the inline page was ~235 KB a run)
    for page in [out / "report.html", *files.glob("*.html")]:
        assert page.stat().st_size < 200_000, (page, page.stat().st_size)
        assert "base64" not in page.read_text()
    # the first index lists RUNS_PER_INDEX runs and links the second index page
    assert len(re.findall(r'<img class="thumb"', index)) == RUNS_PER_INDEX
    assert 'href="report_files/index-2.html"' in index
    second = (files / "index-2.html").read_text()
    assert len(re.findall(r'<img class="thumb"', second)) == N_RUNS - RUNS_PER_INDEX
    assert 'href="../report.html"' in second and 'src="../run0299.png"' in second


def test_every_link_and_figure_resolves(many):
    out, _ = many
    files = out / "report_files"
    for page in [out / "report.html", *files.glob("*.html")]:
        for ref in re.findall(r'(?:href|src)="([^"#]+)"', page.read_text()):
            assert (page.parent / ref).is_file(), (page, ref)
    run3 = (files / "run-3-run0003.html").read_text()
    assert 'src="../run0003.png"' in run3 and "synthetic run0003" in run3
    assert "anonspread run run0003 --out results --rng 3 --trials 20" in run3
    assert "previous: run0002" in run3 and "next: run0004" in run3
    # the run without a figure got one drawn beside its page
    drawn = files / "run-7-run0007.png"
    assert drawn.read_bytes()[:4] == b"\x89PNG" and 'src="run-7-run0007.png"' in (
        files / "run-7-run0007.html").read_text()


def test_interrupted_runs_are_listed_with_their_resume_command(many):
    out, _ = many
    index = (out / "report.html").read_text()
    assert "Interrupted runs (1" in index
    assert f"anonspread run compare-detection --out {out} --rng 99 --trials 500 --resume" in index


def test_the_pages_folder_must_be_a_directory(tmp_path, many):
    out, _ = many
    target = tmp_path / "r.html"
    os.symlink(tmp_path, tmp_path / "r_files")
    with pytest.raises(OutputError, match="must be a directory"):
        report(out, target)
    assert not target.exists()
    Path(tmp_path / "r_files").unlink()
    (tmp_path / "r_files").write_text("not a folder")
    with pytest.raises(OutputError, match="must be a directory"):
        report(out, target)


def test_a_few_runs_can_be_paged_and_many_inlined(tmp_path, many):
    out, _ = many
    small = tmp_path / "small"
    small.mkdir()
    for name in ("run0001", "run0002"):
        for ext in ("csv", "json", "png"):
            (small / f"{name}.{ext}").write_bytes((out / f"{name}.{ext}").read_bytes())
    assert report(small, self_contained=False) == small / "report.html"
    page = (small / "report.html").read_text()
    assert 'src="run0001.png"' in page and "base64" not in page
    assert report(small) and (small / "report.html").read_text().count("data:image/png;base64,") == 2
    with pytest.raises(OutputError, match="self_contained must be"):
        report(small, self_contained="yes")


def test_an_exact_run_says_exact_in_the_index(tmp_path):
    # a run evaluated without sampling records trials: null (the index said "None")
    for i in range(3):
        side = _side(f"ex{i}", i)
        side["trials"] = None
        (tmp_path / f"ex{i}.csv").write_text(_CSV)
        (tmp_path / f"ex{i}.json").write_text(json.dumps(side))
    index = report(tmp_path, self_contained=False).read_text()
    cells = re.findall(r'<td class="num">([^<]*)</td><td class="num">[^<]*</td><td><img', index)
    assert cells == ["exact"] * 3, cells
    assert ">None<" not in index
