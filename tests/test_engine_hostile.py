"""Issue 33, class 5: no public-by-name entry point of ``anonspread.engine`` can crash the
interpreter.

Every public callable of every public engine module (enumerated, so a kernel added later is
covered: it fails here until tests/_engine_hostile_child.py has a valid call for it) is
called with the classic bad inputs -- out-of-range and negative indices, too-short and empty
arrays, wrong dtypes, non-contiguous and read-only arrays, ``None``, and well-formed graphs of
the wrong kind (disconnected, directed, self-loops, edgeless) -- in a subprocess per module:
each call must return or raise a Python exception, never kill the process.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import anonspread.engine

CHILD = Path(__file__).with_name("_engine_hostile_child.py")
MODULES = sorted(m.name for m in pkgutil.iter_modules(anonspread.engine.__path__)
                 if not m.name.startswith("_"))


#: Modules merged after this test without valid calls yet in the child's CASES (each one is
#: an open item: write its cases, then remove it from here).
PENDING: dict[str, str] = {}


@pytest.mark.parametrize("module", [pytest.param(m, marks=pytest.mark.xfail(reason=PENDING[m],
                                                                           strict=True))
                                    if m in PENDING else m for m in MODULES])
def test_public_engine_calls_refuse_bad_inputs_without_crashing(module):
    done = subprocess.run([sys.executable, str(CHILD), module], capture_output=True, text=True,
                          timeout=240)
    lines = done.stdout.splitlines()
    starts = [ln for ln in lines if ln.startswith("START")]
    assert done.returncode == 0, (
        f"engine.{module} crashed (return code {done.returncode}) at "
        f"{starts[-1] if starts else 'import'}\n{done.stderr[-2000:]}")
    missing = [ln.split()[1] for ln in lines if ln.startswith("MISSING")]
    assert not missing, (f"public engine callables without a bad-input case in "
                         f"{CHILD.name} (add a valid call to CASES): {missing}")
    assert len(starts) > 1
