"""``anonspread report DIR`` (issue 23, item 9): one self-contained HTML page for every
run in a folder, rendered in a real browser (headless Chromium) and read back.

The browser test needs Debian's ``chromium`` (``.ci/run`` installs it before the tests);
where it is absent the test is skipped saying so, unless ``ANONSPREAD_REQUIRE_BROWSER``
is set (CI sets it), which turns the absence into a failure.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

from anonspread import harness
from anonspread.harness import cli


def _trials(params, n, rng):
    return {"hit": (rng.random(n) < params["p"]).astype(float), "size": np.full(n, 3.0)}


def _exp(name, values):
    return harness.Experiment(
        name=name, title=f"report demo {name}", description="two runs in one folder",
        grid=harness.Grid(product={"p": values, "who": ["a", "b"]}),
        metrics=(harness.Metric("hit", "proportion", "P(hit)", description="fraction of trials that hit"),
                 harness.Metric("size", "mean", "E[size]")),
        trials=_trials, default_trials=40)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    harness.run(_exp("run-one", [0.0, 0.25, 0.5]), rng=11, out=out, workers=1)
    harness.run(_exp("run-two", [0.125, 0.75]), rng=12, out=out, workers=1, trials=30)
    assert cli.main(["report", str(out)]) == 0
    return out


def test_the_page_is_self_contained(folder):
    page = (folder / "report.html").read_text()
    # nothing is fetched: no external src/href, no @import; images are data URLs
    assert not re.search(r'(src|href)\s*=\s*"(?!data:|#)', page)
    assert "@import" not in page and "url(" not in page
    assert page.count('src="data:image/png;base64,') == 2
    # run from Python here (the command recorded is pytest's): the page gives the Python call
    for text in ("run-one", "run-two", "<th>trials</th>", "harness.run(experiment, rng=11, trials=40, out=",
                 "fraction of trials that hit"):
        assert text in page, text


def test_bad_folders_are_refused(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path / "missing")]) == 1
    assert "report directory must be an existing directory" in capsys.readouterr().err
    assert cli.main(["report", str(tmp_path)]) == 1
    assert "holds no run" in capsys.readouterr().err


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("ANONSPREAD_REQUIRE_BROWSER"):
        pytest.fail("ANONSPREAD_REQUIRE_BROWSER is set but no chromium is installed (apt-get install chromium)")
    pytest.skip("headless Chromium is not installed here (Debian: apt-get install chromium); CI installs it")


def _browser(url, *args):
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", *args, url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_the_page_renders_in_chromium(folder):
    url = (folder / "report.html").resolve().as_uri()
    done = _browser(url, "--virtual-time-budget=5000", "--dump-dom")
    dom = done.stdout
    assert done.returncode == 0 and "<section" in dom, done.stderr[-2000:]
    # each embedded figure decoded in the browser (the page's inline script records its size)
    sizes = re.findall(r'data-natural-width="(\d+)" data-natural-height="(\d+)"', dom)
    if not sizes:  # attribute order is the browser's
        sizes = [(w, h) for h, w in re.findall(r'data-natural-height="(\d+)"[^>]*data-natural-width="(\d+)"', dom)]
    assert len(sizes) == 2 and all(int(w) > 400 and int(h) > 200 for w, h in sizes), sizes
    text = html.unescape(re.sub(r"<[^>]+>", " ", dom))
    words = " ".join(text.split())
    for shown in ("anonspread report", "run-one: report demo run-one", "run-two: report demo run-two",
                  "P(hit)", "trials", "seed 11", "seed 12", "reproduce", "versions"):
        assert shown in words, shown
    # the tables: three points x two series with 40 trials, two x two with 30
    assert len(re.findall(r">\s*40\s*<", dom)) == 6 and len(re.findall(r">\s*30\s*<", dom)) == 4


def test_a_screenshot_of_the_page(folder):
    shot = folder / "report.png"
    done = _browser((folder / "report.html").resolve().as_uri(), "--window-size=1200,1600",
                    "--virtual-time-budget=5000", f"--screenshot={shot}")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    from matplotlib.image import imread

    img = imread(shot)
    assert img.shape[:2] == (1600, 1200)
    assert float(np.std(img[..., :3])) > 0.05  # not a blank page


def test_points_that_do_not_apply_are_listed(folder):
    from anonspread.harness.report import run_html
    from anonspread.harness.results import read_sidecar, read_table

    csv = folder / "run-one.csv"
    side = {**read_sidecar(csv), "skipped": [{"params": {"p": 0.5, "who": "c"}, "reason": "c needs p < 0.5"}]}
    page = run_html(side, read_table(csv), None)
    assert "Not computed (1 point(s); the reason of each below):" in page and "p=0.5, who=c: c needs p &lt; 0.5" in page
