"""A paged report of ~1,000 runs opened in headless Chromium (issue 33, item 2).

Runs four small real experiments (``--trials 20``), copies their CSV, JSON and PNG into
``--runs`` runs of distinct names (a folder of many small runs without running them all),
times ``anonspread report`` on the folder, then opens the index page and one run page in
headless Chromium, each as a screenshot (``--screenshot``: the page loaded, laid out and
painted), timed against a blank page to separate the browser's start. Prints the page
sizes and the times; the PNGs are left in ``--out`` to be looked at.

    python benchmarks/bench_report_browser.py --out /tmp/report-bench --runs 1000
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXPERIMENTS = ("fig2.3-line-protocol-jordan-trees", "krandom-ratio", "ldp-kl-mechanisms",
               "fig2.2-line-posterior")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    sys.exit("headless Chromium is needed (Debian: apt-get install chromium)")


def shot(url: str, png: Path, height: int = 2000) -> float:
    """Seconds for headless Chromium to load ``url`` and write its screenshot."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size=1280,{height}",
           f"--screenshot={png}", url]
    try:
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, timeout=300)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="screenshots per page (median reported)")
    args = ap.parse_args()
    real, runs = args.out / "real", args.out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    for exp in EXPERIMENTS:
        if not (real / f"{exp}.csv").exists():
            subprocess.run(["anonspread", "run", exp, "--trials", "20", "--rng", "1", "--out", str(real),
                            "--workers", "1", "--quiet"], check=True)
    for i in range(args.runs):
        exp = EXPERIMENTS[i % len(EXPERIMENTS)]
        name = f"run{i:04d}-{exp}"
        shutil.copyfile(real / f"{exp}.csv", runs / f"{name}.csv")
        side = json.loads((real / f"{exp}.json").read_text())
        side["files"] = {k: v.replace(exp, name) for k, v in side.get("files", {}).items()}
        (runs / f"{name}.json").write_text(json.dumps(side))
        shutil.copyfile(real / f"{exp}.png", runs / f"{name}.png")  # after the CSV: up to date
    start = time.perf_counter()
    subprocess.run(["anonspread", "report", str(runs)], check=True, capture_output=True)
    built = time.perf_counter() - start
    index = runs / "report.html"
    pages = sorted((runs / "report_files").glob("run-*.html"))
    page = pages[len(pages) // 2]
    sizes = [p.stat().st_size for p in [index, *(runs / "report_files").glob("*.html")]]
    print(f"report of {args.runs} runs: {built:.1f} s wall (process included); {len(sizes)} HTML pages, "
          f"largest {max(sizes) / 1024:.0f} KiB, total {sum(sizes) / 2**20:.1f} MiB; "
          f"figures referenced: {sum(1 for _ in runs.glob('*.png'))} PNGs")
    blank = args.out / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    times = {"blank page": [], "index": [], "run page": []}
    for _ in range(args.repeat):  # interleaved
        times["blank page"].append(shot(blank.resolve().as_uri(), args.out / "blank.png"))
        times["index"].append(shot(index.resolve().as_uri(), args.out / "index.png"))
        times["run page"].append(shot(page.resolve().as_uri(), args.out / "page.png", 1400))
    for what, ts in times.items():
        print(f"chromium screenshot, {what}: median {statistics.median(ts):.2f} s "
              f"({', '.join(f'{t:.2f}' for t in ts)})")
    print(f"screenshots: {args.out / 'index.png'}, {args.out / 'page.png'} ({page.name})")


if __name__ == "__main__":
    main()
