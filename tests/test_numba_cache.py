"""numba's on-disk cache as the project uses it (anonspread.engine._numba_cache).

* a compiled function's entry is stamped with every source file it may contain, so an
  edit of a kernel it calls in another package makes the entry stale (recompiled);
* a function is compiled by one process at a time: a second process that needs it
  while the first compiles waits and loads it from the cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anonspread.engine import _numba_cache as nc

ROOT = Path(nc.__file__).resolve().parent.parent


def _tree(tmp_path):
    for pkg, path in nc._package_dirs().items():
        shutil.copytree(path, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return tmp_path


def test_stamp_follows_the_sources_a_kernel_may_contain(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.setattr(nc, "_DIRS", {p: root / p for p in nc._package_dirs()})
    nc.source_stamp.cache_clear()
    try:
        before = nc.source_stamp("engine")
        # an edit of one kernel module stales every engine entry (a driver links its callees)
        with open(root / "engine" / "spreading.py", "a") as f:
            f.write("\n# edited\n")
        nc.source_stamp.cache_clear()
        after = nc.source_stamp("engine")
        assert after != before
        # a file that is not a Python source of the engine does not
        (root / "engine" / "notes.txt").write_text("x")
        nc.source_stamp.cache_clear()
        assert nc.source_stamp("engine") == after
    finally:
        nc.source_stamp.cache_clear()


def test_a_project_function_is_located_and_locked():
    from anonspread.engine import scoring as K

    path = nc.compile_lock_path(K.tree_rumor)
    assert path is not None and path.endswith(".compile.lock")
    assert nc.compile_lock_path(K.tree_eccentricity) != path
    import numba

    @numba.njit(cache=False)
    def foreign(x):
        return x

    assert nc.compile_lock_path(foreign) is None


_CHILD = r"""
import json, os, sys, time
import numpy as np
from anonspread.engine import scoring as K
go = sys.argv[1]
while not os.path.exists(go):
    time.sleep(0.005)
indptr = np.array([0, 1, 3, 4], np.int64)
indices = np.array([1, 0, 2, 1], np.int32)
out = np.empty(3)
K.tree_rumor(indptr, indices, out)
st = K.tree_rumor.stats
print(json.dumps({"misses": sum(st.cache_misses.values()), "hits": sum(st.cache_hits.values()),
                  "out": out.tolist()}))
"""


@pytest.mark.slow
def test_two_processes_compile_a_function_once(tmp_path):
    """Started together on an empty cache, one process compiles and the other loads."""
    cache = tmp_path / "cache"
    cache.mkdir()
    go = tmp_path / "go"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(go)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(3.0)  # both import numba and the kernels, then wait for the signal
    go.touch()
    res = [json.loads(p.communicate(timeout=300)[0].strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(r["misses"] for r in res) == [0, 1]  # compiled once, loaded once
    assert sorted(r["hits"] for r in res) == [0, 1]
    assert res[0]["out"] == res[1]["out"]
    assert list(cache.rglob("*.compile.lock"))


# ----------------------------------------------------------------- a corrupt cache heals

_RUN = r"""
import json, warnings
import numpy as np
from anonspread.engine import scoring as K
indptr = np.array([0, 1, 3, 4], np.int64)
indices = np.array([1, 0, 2, 1], np.int32)
out = np.empty(3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    K.tree_rumor(indptr, indices, out)
st = K.tree_rumor.stats
print(json.dumps({"misses": sum(st.cache_misses.values()), "hits": sum(st.cache_hits.values()),
                  "out": out.tolist(), "warnings": [str(w.message) for w in caught
                                                    if w.category.__name__ == "CacheCorruptionWarning"]}))
"""


def _run(env):
    proc = subprocess.run([sys.executable, "-c", _RUN], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _corrupt(path: Path, how: str) -> None:
    raw = path.read_bytes()
    if how == "truncated":
        raw = raw[: len(raw) // 2]
    elif how == "zero-length":
        raw = b""
    elif how == "garbage":
        raw = bytes((i * 131 + 7) % 256 for i in range(len(raw)))
    elif how == "flipped":  # one byte in the middle of the pickled payload
        i = (len(raw) - 49) // 2
        raw = raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:]
    path.write_bytes(raw)


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory):
    cache = tmp_path_factory.mktemp("numba-cache")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    first = _run(env)
    assert first["misses"] == 1 and first["warnings"] == []
    return cache, env, first["out"]


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["nbi", "nbc"])
@pytest.mark.parametrize("how", ["truncated", "zero-length", "garbage", "flipped"])
def test_a_corrupt_cache_entry_is_discarded_and_recompiled(warm_cache, suffix, how):
    """Every later run failed with a raw UnpicklingError / EOFError / LLVM error (issue 24)."""
    cache, env, expected = warm_cache  # a sound entry (each case leaves one: see the end)
    (path,) = [p for p in cache.rglob(f"scoring.tree_rumor-*.{suffix}")]
    _corrupt(path, how)
    healed = _run(env)
    assert healed["out"] == expected
    assert healed["misses"] == 1 and healed["hits"] == 0  # compiled again
    assert len(healed["warnings"]) == 1 and "\n" not in healed["warnings"][0]
    assert "corrupt compile-cache entry of tree_rumor" in healed["warnings"][0]
    again = _run(env)  # the fresh entry was saved and loads silently
    assert again == {**again, "hits": 1, "misses": 0, "warnings": [], "out": expected}


def test_checksum_trailer_round_trip_and_detection():
    payload = b"\x80\x04K\x01."  # pickle of 1
    sealed = nc._sealed(payload)
    assert nc._unsealed(sealed, "x") == payload
    import pickle

    assert pickle.loads(sealed) == 1  # numba's own reader ignores the trailer
    for bad, reason in [(sealed[:-1], "no checksum"), (b"", "empty file"),
                        (sealed[:2] + b"\x00" + sealed[3:], "checksum mismatch")]:
        with pytest.raises(nc._Corrupt, match=reason):
            nc._unsealed(bad, "x")
