"""A damaged install (issue 33, item 6): a missing or truncated compiled extension is named.

Each case runs in a subprocess on a copy of the ``anonspread`` package in a temporary folder
(first on ``sys.path``), whose extension file is truncated, overwritten or deleted: the
import raises :class:`anonspread.errors.InstallError` naming the extension, its file and how
to reinstall. The real files are never touched.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import anonspread

PACKAGE = Path(anonspread.__file__).parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

CHILD = """
import sys
import anonspread, anonspread.errors
assert anonspread.__file__.startswith(sys.argv[1]), anonspread.__file__
try:
    import anonspread.engine.bp
except ImportError as exc:
    print(type(exc).__module__, type(exc).__name__, isinstance(exc, anonspread.errors.AnonspreadError))
    print(exc)
else:
    print("imported")
"""


@pytest.fixture
def copy(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(PACKAGE, root / "anonspread",
                    ignore=shutil.ignore_patterns("*.c", "*.html", "__pycache__"))
    return root


def _run(root: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root)], capture_output=True,
                          text=True, env=env, timeout=120, cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_the_copy_imports_when_whole(copy):
    assert _run(copy) == ["imported"]


@pytest.mark.parametrize("damage", ["a third", "all but a byte", "the header cut", "garbage", "empty"])
def test_a_damaged_extension_is_named_with_how_to_reinstall(copy, damage):
    so = copy / "anonspread" / "engine" / f"_bp{SUFFIX}"
    data = so.read_bytes()
    # a truncated library would kill the process with SIGBUS inside the dynamic loader
    damaged = {"a third": data[: len(data) // 3], "all but a byte": data[:-1],
               "the header cut": data[:40], "garbage": b"not a library\n" * 50,
               "empty": b""}[damage]
    so.write_bytes(damaged)
    kind, message = _run(copy)
    assert kind == "anonspread.errors InstallError True"
    assert message.startswith(
        f"anonspread.engine._bp, a compiled extension of anonspread, cannot be loaded from {so}: ")
    assert "(the file is damaged, or was built for another Python or numpy); reinstall anonspread: " \
        "`pip install --force-reinstall anonspread`" in message
    if damage in ("a third", "all but a byte"):
        assert f"the file is truncated ({len(damaged):,} bytes; its ELF headers say at least " in message


def test_a_missing_extension_is_named_with_how_to_reinstall(copy):
    # _rumor_threads is imported by engine.bp beneath its own _bp
    (copy / "anonspread" / "engine" / f"_rumor_threads{SUFFIX}").unlink()
    kind, message = _run(copy)
    assert kind == "anonspread.errors InstallError True"
    assert message.startswith(
        f"anonspread.engine._rumor_threads, a compiled extension of anonspread, is missing: no "
        f"_rumor_threads{SUFFIX} in {copy / 'anonspread' / 'engine'} (the install is incomplete")
    assert "reinstall anonspread" in message


def test_a_name_that_is_no_extension_is_an_ordinary_missing_module():
    with pytest.raises(ModuleNotFoundError) as info:
        __import__("anonspread.engine._no_such_kernel")
    assert not isinstance(info.value, anonspread.AnonspreadError)
