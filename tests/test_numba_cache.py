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
    from anonspread.engine import store as _store

    path = nc.compile_lock_path(K.tree_rumor)
    assert path is not None and path.endswith(".compile.lock")
    assert nc.compile_lock_path(_store.reset_run_state) != path
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
