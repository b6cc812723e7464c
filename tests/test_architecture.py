"""The architecture holds: layers, private modules and import circles, checked by import-linter.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``). import-linter reads the
package from the file system below the installed ``anonspread`` folder; the subpackages
live in the repository's top-level folders and are mapped into the namespace at build
time, so the test first lays the sources out as the wheel does (``anonspread/<name>/``) in
a temporary folder and lints that copy. A failure names the import that crosses a layer,
the private module imported from outside its package, or the circle.

A Python without the test extras (import-linter, the package's dependencies) skips these
checks, saying what is missing; ``.ci/run`` sets ``ANONSPREAD_REQUIRE_TEST_EXTRAS`` so that
there a missing tool fails instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
tomllib = pytest.importorskip("tomllib")  # Python >= 3.11; the CI runs 3.11


#: The runtime dependencies' import names (pyproject's [project] dependencies).
RUNTIME_MODULES = ("numpy", "scipy", "networkx", "simpy", "cdd", "highspy", "matplotlib", "tqdm",
                   "sklearn")


def _missing(what: str) -> None:
    """A Python without the test extras cannot run these checks: skipped, saying what is
    missing, unless ``ANONSPREAD_REQUIRE_TEST_EXTRAS`` is set (``.ci/run`` sets it: there a
    missing tool fails the run, as it would a broken contract)."""
    msg = (f"{what} missing from this Python ({sys.executable}): install the test extra "
           "(pip install -e '.[test]')")
    if os.environ.get("ANONSPREAD_REQUIRE_TEST_EXTRAS"):
        pytest.fail(f"ANONSPREAD_REQUIRE_TEST_EXTRAS is set but {msg}")
    pytest.skip(msg)


def _lint_imports() -> list[str]:
    """The import-linter command: its script beside this Python (a venv), on the PATH, or
    the package run by this Python. The linted package is the staged copy of the sources,
    so anonspread itself need not be installed for the contracts to be checked."""
    lint = (shutil.which("lint-imports", path=str(Path(sys.executable).parent))
            or shutil.which("lint-imports"))
    if lint is not None:
        return [lint]
    import importlib.util

    if importlib.util.find_spec("importlinter") is None:
        _missing("import-linter is")
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
            "sys.exit(lint_imports_command())"]


def _package_env(tmp_path: Path) -> dict[str, str]:
    """An environment in which a Python started in ``tmp_path`` imports every subpackage
    of anonspread: this one when anonspread is installed in it, else the sources laid
    out as in a wheel with the engine's extensions built in place (``setup.py
    build_ext --inplace``)."""
    probe = "import importlib.util as u; print(u.find_spec('anonspread.spread') is not None)"
    try:
        proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        installed = proc.stdout.strip() == "True"
    except (OSError, subprocess.SubprocessError):
        installed = False
    if installed:
        return dict(os.environ)
    engine = ROOT / "src" / "anonspread" / "engine"
    assert list(engine.glob("_*.so")) or list(engine.glob("_*.pyd")), (
        f"anonspread is not installed in this Python ({sys.executable}) and its engine is not "
        "built in place: run pip install -e '.[test]' (or python setup.py build_ext --inplace)")
    stage = _staged(tmp_path, extensions=True)
    return {**os.environ, "PYTHONPATH": str(stage)}


def _staged(tmp_path: Path, *, extensions: bool = False) -> Path:
    """The package's sources laid out as in a built wheel (with the engine's compiled
    extensions built in place when ``extensions``)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    dest = tmp_path / "stage"
    skip = ("__pycache__", "*.gz", "*.c", "*.html") + (() if extensions else ("*.so", "*.pyd"))
    for package, folder in sorted(mapping.items()):
        shutil.copytree(ROOT / folder, dest / Path(*package.split(".")), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(*skip))
    return dest


def test_import_contracts_are_kept(tmp_path):
    lint = _lint_imports()
    stage = _staged(tmp_path)
    proc = subprocess.run([*lint, "--no-cache", str(ROOT / "pyproject.toml")], cwd=stage,
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
    proc = subprocess.run([*lint, "--no-cache", str(ROOT / "pyproject.toml")], cwd=stage,
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
    import importlib.util

    absent = [m for m in RUNTIME_MODULES if importlib.util.find_spec(m) is None]
    if absent:
        _missing(f"anonspread's dependencies {', '.join(absent)} are")
    env = _package_env(tmp_path)
    code = textwrap.dedent(f"""
        import importlib, importlib.util, os, sys
        sys.path.insert(0, {str(TESTS)!r})
        import anonspread
        from _modules import all_modules
        sys.path.pop(0)
        names = all_modules()
        for name in names:
            importlib.import_module(name)
        ours = os.path.dirname(importlib.util.find_spec("anonspread").origin)
        dirs = [os.path.dirname(importlib.import_module("anonspread." + s).__file__)
                for s in anonspread.SUBPACKAGES] + [ours]
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
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert int(proc.stdout.split()[-1]) >= 100  # every module was loaded, each once
