"""Every script of the example gallery (``examples/plot_*.py``) runs, as a user would run it.

Each script runs in a fresh interpreter, in a temporary directory, with the installed
package only (the repository root is not on the path) and matplotlib's Agg backend; it
must exit 0 and print what it computed. The scripts are the gallery's pages
(sphinx-gallery runs them again when it builds the site). A script is also checked for
the gallery's format: a module docstring whose first line is a title underlined by
``=``, and imports through ``anonspread`` only.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 10, [p.name for p in EXAMPLES]
    assert (ROOT / "examples" / "README.rst").is_file()


def test_the_gallery_says_nothing_is_compiled_at_run_time():
    # numba is gone: no page of the gallery may speak of its kernels compiling or warming up
    for path in [ROOT / "examples" / "README.rst", *EXAMPLES]:
        text = path.read_text(encoding="utf-8").lower()
        for word in ("numba", "warm up", "warm-up", "warms up", "just-in-time"):
            assert word not in text, f"{path.name} mentions {word!r}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_format(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree, clean=False)
    assert doc, f"{path.name}: no module docstring"
    lines = doc.strip("\n").splitlines()
    assert len(lines) >= 3 and lines[1] == "=" * len(lines[0]), (
        f"{path.name}: the docstring must start with a title line underlined by '='")
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            top = name.split(".")[0]
            assert top not in {"spread", "adversaries", "privacy", "harness", "datasets"}, (
                f"{path.name}: imports {name!r}; use anonspread.{name}")


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(path, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True,
                          text=True, env=env)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, f"{path.name}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"{path.name} printed nothing"
    print(f"{path.name}: {elapsed:.1f} s")
