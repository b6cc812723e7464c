"""The distribution lists every package of the source tree, so a non-editable install works."""

import pathlib

import pytest

tomllib = pytest.importorskip("tomllib")  # Python >= 3.11; the CI runs 3.11

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    top = {name.split(".")[0] for name in listed}
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for name in top
        for init in (ROOT / name).rglob("__init__.py")
    }
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert listed - found == set(), f"pyproject.toml lists packages with no __init__.py: {sorted(listed - found)}"
