"""The architecture holds: layers, private modules and import circles, checked by import-linter.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``). import-linter reads the
package from the file system below the installed ``anonspread`` folder; the subpackages
live in the repository's top-level folders and are mapped into the namespace at build
time, so the test first lays the sources out as the wheel does (``anonspread/<name>/``) in
a temporary folder and lints that copy. A failure names the import that crosses a layer,
the private module imported from outside its package, or the circle.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _modules import all_modules

import anonspread

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib")  # Python >= 3.11; the CI runs 3.11


def _lint_imports() -> str:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint is not None, "lint-imports is missing: install the test extra (pip install -e '.[test]')"
    return lint


def _installed() -> None:
    """The package's subpackages import: ``anonspread`` is installed, not only its source
    folder found on the path (the science folders are mapped in only by an install)."""
    import importlib.util

    missing = [s for s in anonspread.SUBPACKAGES
               if importlib.util.find_spec(f"anonspread.{s}") is None]
    assert not missing, (f"anonspread.{missing[0]} is not importable: anonspread is not installed in "
                         f"this Python ({sys.executable}); run pip install -e '.[test]'")


def _staged(tmp_path: Path) -> Path:
    """The package's sources laid out as in a built wheel."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    dest = tmp_path / "stage"
    for package, folder in sorted(mapping.items()):
        shutil.copytree(ROOT / folder, dest / Path(*package.split(".")), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.gz", "*.so"))
    return dest


def test_import_contracts_are_kept(tmp_path):
    lint = _lint_imports()
    stage = _staged(tmp_path)
    proc = subprocess.run([lint, "--no-cache", str(ROOT / "pyproject.toml")], cwd=stage,
                          capture_output=True, text=True, env={"PYTHONPATH": str(stage), "PATH": ""})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    assert "0 broken" in out and "3 kept" in out, out[-3000:]


def test_lint_catches_a_crossed_layer(tmp_path):
    """The contracts can fail: an import of adversaries from spread breaks the layers."""
    lint = _lint_imports()
    stage = _staged(tmp_path)
    bad = stage / "anonspread" / "spread" / "crossing.py"
    bad.write_text("from anonspread.adversaries import observe\nfrom anonspread.privacy import _limits\n")
    proc = subprocess.run([lint, "--no-cache", str(ROOT / "pyproject.toml")], cwd=stage,
                          capture_output=True, text=True, env={"PYTHONPATH": str(stage), "PATH": ""})
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "anonspread.spread.crossing -> anonspread.adversaries" in out
    assert "anonspread.spread.crossing -> anonspread.privacy._limits" in out


def test_no_module_is_importable_under_two_names(tmp_path):
    """Every module of the package has one name: ``anonspread.<...>``.

    From a neutral working directory, no top-level ``spread``, ``adversaries``,
    ``privacy``, ``harness`` or ``datasets`` resolves to our files, and importing every
    module loads each file once.
    """
    _installed()
    code = textwrap.dedent(f"""
        import importlib, importlib.util, os, sys
        names = {all_modules()!r}
        for name in names:
            importlib.import_module(name)
        ours = os.path.dirname(importlib.util.find_spec("anonspread").origin)
        dirs = [os.path.dirname(importlib.import_module("anonspread." + s).__file__)
                for s in {anonspread.SUBPACKAGES!r}] + [ours]
        for top in ("spread", "adversaries", "privacy", "harness", "datasets", "engine"):
            spec = importlib.util.find_spec(top)
            assert spec is None or not any(str(spec.origin).startswith(d) for d in dirs), (top, spec)
        seen = {{}}
        for name, mod in list(sys.modules.items()):
            f = getattr(mod, "__file__", None)
            if f and any(f.startswith(d) for d in dirs):
                assert f not in seen, f"{{f}} loaded as {{seen[f]}} and as {{name}}"
                seen[f] = name
        print(len(seen))
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert int(proc.stdout.split()[-1]) >= 100  # every module was loaded, each once
