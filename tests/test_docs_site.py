"""The documentation site: the API reference is complete, the docstrings pass numpydoc's
checks, and the site builds with warnings as errors.

The completeness and front-door checks need nothing but the package. The numpydoc
check needs the ``docs`` extra (numpydoc) and the build needs Sphinx; the ``test`` extra
installs both, so CI runs them, and they are skipped with the reason only where the
packages are missing. The build runs with ``-D plot_gallery=0`` (the example scripts are
run by tests/test_examples.py; the documented command, in README.md and
docs/getting-started.md, runs them too and draws their figures).
"""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from _modules import all_modules

import anonspread

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import _apigen  # noqa: E402

sys.path.remove(str(ROOT / "docs"))


def _documented() -> dict[int, str]:
    """id(object) -> the dotted name the API reference documents it under."""
    out = {}
    for sections in _apigen.public_api().values():
        for module, names in sections:
            for name in names:
                out[id(getattr(importlib.import_module(module), name))] = f"{module}.{name}"
    return out


def test_api_reference_lists_every_public_name():
    documented = _documented()
    missing = []
    for modname in all_modules():
        if any(part.startswith("_") for part in modname.split(".")):
            continue
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", ()):
            if name.startswith("_") or (modname == "anonspread" and name == "__version__"):
                continue
            obj = getattr(module, name)
            if isinstance(obj, ModuleType):
                continue
            if id(obj) not in documented:
                missing.append(f"{modname}.{name}")
    assert not missing, f"public names absent from the API reference: {missing}"


def test_api_reference_has_a_page_per_subpackage():
    pages = _apigen.public_api()
    assert set(pages) == {"anonspread", *anonspread.SUBPACKAGES}
    for sub in anonspread.SUBPACKAGES:
        sections = [module for module, _ in pages[sub]]
        assert sections[0] == f"anonspread.{sub}"
        assert len(sections) == len(set(sections))


def test_package_level_functions_document_their_parameters():
    # every function a subpackage exports at its top level (the front door's among them)
    # has a Parameters section, which numpydoc's PR01 then holds complete
    lacking = []
    for sub in anonspread.SUBPACKAGES:
        package = importlib.import_module(f"anonspread.{sub}")
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            if not inspect.isfunction(obj) or not inspect.signature(obj).parameters:
                continue
            if not re.search(r"^Parameters\n-{3,}", inspect.getdoc(obj) or "", re.M):
                lacking.append(f"anonspread.{sub}.{name}")
    assert not lacking, f"functions without a Parameters section: {lacking}"


def _validated_names() -> list[str]:
    """Every function, class and public method the API reference documents (dotted names)."""
    exclude = re.compile("|".join(_apigen.VALIDATION_EXCLUDE))
    names = []
    for dotted in _documented().values():
        module, _, attr = dotted.rpartition(".")
        obj = getattr(importlib.import_module(module), attr)
        if inspect.isclass(obj):
            names.append(dotted)
            names += [f"{dotted}.{m}" for m in _apigen._own_methods(obj)]
            names += [f"{dotted}.{p}" for p in _apigen._own_properties(obj)]
        elif inspect.isfunction(obj):
            names.append(dotted)
    return [n for n in names if not exclude.search(n)]


def _package_level_names() -> set[str]:
    """The documented names of the classes and functions each subpackage exports at its top."""
    documented = _documented()
    out = set()
    for sub in anonspread.SUBPACKAGES:
        package = importlib.import_module(f"anonspread.{sub}")
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) in documented:
                out.add(documented[id(obj)])
    return out


def _numpydoc_errors(names: list[str]) -> dict[str, list[tuple[str, str]]]:
    from numpydoc.validate import validate

    package_level = _package_level_names()
    checks = {}
    for name in names:
        wanted = set(_apigen.VALIDATION_CHECKS) | ({"EX01"} if name in package_level else set())
        report = validate(name)
        checks[name] = [(code, msg) for code, msg in report["errors"] if code in wanted]
    return checks


_SECTION_OF = {"GL08": "docstring", "PR01": "Parameters", "EX01": "Examples"}


def test_numpydoc_validation_of_the_public_api():
    # every public function, class and method: GL08, PR01, PR02, PR03, PR10; the names a
    # subpackage exports at its top level also EX01. Only the entries of _apigen.PENDING
    # may still lack the sections they name.
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (the docs extra)")
    names = _validated_names()
    assert len(names) > 400
    errors = []
    for name, found in _numpydoc_errors(names).items():
        pending = _apigen.PENDING.get(name, "")
        for code, message in found:
            if _SECTION_OF.get(code, "-") in pending:
                continue
            errors.append(f"{name}: {code} {message}")
    assert not errors, "numpydoc validation:\n" + "\n".join(errors)


def test_pending_names_still_lack_their_sections():
    # the list of names excused from PR01/EX01 only shrinks: an entry whose name is gone,
    # or that has its sections now, must be removed from docs/_apigen.py PENDING
    pytest.importorskip("numpydoc", reason="numpydoc is not installed (the docs extra)")
    names = set(_validated_names())
    gone = sorted(set(_apigen.PENDING) - names)
    assert not gone, f"docs/_apigen.py PENDING lists names that are not documented: {gone}"
    found = _numpydoc_errors(sorted(_apigen.PENDING))
    stale = []
    for name, sections in _apigen.PENDING.items():
        missing = {_SECTION_OF[code] for code, _ in found[name] if code in _SECTION_OF}
        done = sorted(set(sections.split(", ")) - missing)
        if done:
            stale.append(f"{name} has {', '.join(done)} now")
    assert not stale, "remove from docs/_apigen.py PENDING:\n" + "\n".join(stale)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx", reason="Sphinx is not installed (the docs extra)")
    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-D", "plot_gallery=0", "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"),
           str(out)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "MPLBACKEND": "Agg"})
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stderr[-6000:]}"
    print(f"site built in {elapsed:.1f} s")
    for page in ["index.html", "getting-started.html", "spreading.html", "changelog.html",
                 "auto_examples/index.html", "api/index.html", "api/spread.html",
                 "api/generated/anonspread.spread.simulate.html"]:
        assert (out / page).is_file(), page
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    for path in examples:
        assert (out / "auto_examples" / f"{path.stem}.html").is_file(), path.name
    api = (out / "api" / "harness.html").read_text(encoding="utf-8")
    assert "anonspread.harness.run" in api
