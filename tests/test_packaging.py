"""One import package, ``anonspread``, that installs beside a researcher's own environment.

* the build configuration lists every package of the source tree and maps the
  repository's top-level folders into the namespace;
* a built wheel holds nothing but ``anonspread`` (and its dist-info) at its top level,
  with the engine's compiled extension modules inside;
* with packages named ``datasets`` (Hugging Face's), ``spread``, ``harness``, ``privacy``
  and ``adversaries`` first on ``sys.path``, the CLI, a small sweep and the README's
  Python example run, and none of those packages is imported.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import textwrap
import zipfile

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11; the CI runs 3.11

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHADOWED = ("datasets", "spread", "harness", "privacy", "adversaries")


def _setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _source_dir(package: str, mapping: dict[str, str]) -> pathlib.Path:
    """Where ``package``'s files are, by the longest mapped prefix (setuptools' rule)."""
    parts = package.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in mapping:
            return ROOT / mapping[prefix] / pathlib.Path(*parts[k:])
    return ROOT / pathlib.Path(*parts)


def test_every_subpackage_is_listed_and_mapped():
    cfg = _setuptools_config()
    listed, mapping = set(cfg["packages"]), cfg["package-dir"]
    assert all(name == "anonspread" or name.startswith("anonspread.") for name in listed)
    assert set(mapping) == {"anonspread"} | {f"anonspread.{p}" for p in SHADOWED}
    found = set()
    for root_pkg, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            name = ".".join((root_pkg, *rel))
            # a folder of src/anonspread/ that another mapping owns is not anonspread's
            if root_pkg == "anonspread" and rel and f"anonspread.{rel[0]}" in mapping:
                continue
            found.add(name)
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert listed - found == set(), f"pyproject.toml lists packages with no __init__.py: {sorted(listed - found)}"
    for name in listed:
        assert (_source_dir(name, mapping) / "__init__.py").is_file(), name


KEPT = ROOT / "build" / "anonspread-extensions"


def _wheel(out: pathlib.Path) -> dict[str, int]:
    """Build a wheel into ``out``; the kept extensions (setup.py's build cache) after it."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                           "-w", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {p.name: p.stat().st_mtime_ns for p in KEPT.glob("anonspread.engine._*")}


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory) -> tuple[pathlib.Path, dict, dict]:
    """The one wheel of the test session: its path, and the kept extensions before and after.

    The CI's editable install has just compiled the engine from this tree, so the wheel
    reuses every kept extension (setup.py's build cache: a compiled extension rewrites its
    kept file); where something changed since, the first wheel compiles it and a second
    one must compile nothing (checked by the test below, which then builds a second).
    """
    out = tmp_path_factory.mktemp("wheel")
    before = {p.name: p.stat().st_mtime_ns for p in KEPT.glob("anonspread.engine._*")}
    after = _wheel(out)
    (wheel,) = out.glob("anonspread-*.whl")
    return wheel, before, after


@pytest.mark.slow
def test_the_wheel_has_one_top_level_package(built_wheel, tmp_path):
    """One wheel, with every extension; a build of unchanged sources compiles nothing."""
    pyx = sorted(p.stem for p in (ROOT / "src" / "anonspread" / "engine").glob("_*.pyx"))
    wheel, before, after = built_wheel
    if after != before:
        again = _wheel(tmp_path / "again")
        assert again == after, "a second build of unchanged sources compiled again"
    assert sorted(name.split("-")[0].rsplit(".", 1)[1] for name in after) == pyx, sorted(after)
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    dist_info = "-".join(wheel.name.split("-")[:2]) + ".dist-info"  # name-version
    assert top == {"anonspread", dist_info}, sorted(top)
    for expected in ("anonspread/spread/__init__.py", "anonspread/adversaries/batch.py",
                     "anonspread/privacy/funnel/optimal.py", "anonspread/harness/experiments/__init__.py",
                     "anonspread/engine/spreading.py", "anonspread/datasets/facebook_combined.txt.gz",
                     "anonspread/datasets/README.md", "anonspread/py.typed"):
        assert expected in names, expected
    for pyx in (ROOT / "src" / "anonspread" / "engine").glob("_*.pyx"):
        ext = [n for n in names if n.startswith(f"anonspread/engine/{pyx.stem}.")
               and n.endswith((".so", ".pyd"))]
        assert len(ext) == 1, (pyx.name, ext)
    entry = zipfile.ZipFile(wheel).read(dist_info + "/entry_points.txt")
    assert b"anonspread = anonspread.harness.cli:main" in entry


def _shadow_env(tmp_path: pathlib.Path) -> dict[str, str]:
    """An environment whose first sys.path entry holds foreign packages with our old names.

    Each one fails loudly when imported, so a test passes only if anonspread never
    imports a top-level package of those names.
    """
    shadow = tmp_path / "shadow"
    for name in SHADOWED:
        (shadow / name).mkdir(parents=True, exist_ok=True)
        (shadow / name / "__init__.py").write_text(
            f"raise ImportError('the foreign top-level package {name!r} was imported')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg")
    return env


def _cli(tmp_path: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    exe = pathlib.Path(sys.executable).parent / "anonspread"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "anonspread"]
    return subprocess.run([*cmd, *args], cwd=tmp_path, env=_shadow_env(tmp_path),
                          capture_output=True, text=True, timeout=600)


def test_the_shadow_packages_fail_when_imported(tmp_path):
    """The premise: the foreign packages are really first on the path."""
    proc = subprocess.run([sys.executable, "-c", "import datasets"], cwd=tmp_path,
                          env=_shadow_env(tmp_path), capture_output=True, text=True)
    assert proc.returncode != 0 and "foreign top-level package 'datasets'" in proc.stderr


def test_cli_lives_beside_foreign_packages_of_the_old_names(tmp_path):
    proc = _cli(tmp_path, "list")
    assert proc.returncode == 0, proc.stderr
    assert "compare-detection" in proc.stdout
    proc = _cli(tmp_path, "--version")
    assert proc.returncode == 0 and re.fullmatch(r"anonspread \S+\n", proc.stdout), proc.stdout


@pytest.mark.slow
def test_a_sweep_and_the_readme_example_run_beside_foreign_packages(tmp_path):
    proc = _cli(tmp_path, "sweep", "detection", "--set", "graph=regular-3", "--set",
                "protocol=adaptive-diffusion", "--set", "estimator=jordan", "--set", "T=2,4",
                "--trials", "50", "--rng", "1", "--workers", "1", "--out", "out", "--no-plot",
                "--quiet")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(list((tmp_path / "out").glob("sweep-detection-*.csv"))) == 1
    text = (ROOT / "README.md").read_text()
    example = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    proc = subprocess.run([sys.executable, "-c", example + "\nprint('README example ran')\n"],
                          cwd=tmp_path, env=_shadow_env(tmp_path), capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "README example ran" in proc.stdout


@pytest.mark.slow
def test_a_regular_install_is_imported_from_the_repository_root(built_wheel, tmp_path):
    """Python started in a clone imports the installed package, not a folder of the clone.

    The working directory comes first on ``sys.path``; a folder named ``anonspread`` at the
    repository root (the package root before it moved to ``src/``) would be imported instead
    of a regular install, without the mapped subpackages or the compiled engine. The wheel
    is installed (``pip install --target``, a regular install) into a folder put on the path
    after the working directory, and a Python started in the repository root must import
    all of it from there.
    """
    wheel, _, _ = built_wheel
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                           "--target", str(site), str(wheel)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    code = textwrap.dedent("""
        import anonspread as asp, anonspread.engine.spreading, networkx as nx
        print(asp.__file__)
        print(asp.spread.__file__)
        sp = asp.spread.simulate(nx.path_graph(4), asp.spread.RandomDiffusion(p=1.0), T=2,
                                 source=0, rng=1)
        print(sorted(int(v) for v in sp.infected))
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(site)), timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    origin, spread_origin, infected = proc.stdout.splitlines()
    assert pathlib.Path(origin).is_relative_to(site), origin
    assert pathlib.Path(spread_origin).is_relative_to(site), spread_origin
    assert infected == "[0, 1, 2]"
    assert not (ROOT / "anonspread").exists(), "a folder 'anonspread' at the repository root shadows the install"
