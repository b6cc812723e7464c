"""Build the engine's compiled kernels (Cython) ahead of time; everything else is pyproject.toml.

Each ``anonspread/engine/_*.pyx`` becomes an extension module of the same name. Random
numbers come from numpy's bit-generator C API: the distribution functions of
``numpy/random/c_distributions.pxd`` are linked from numpy's static ``npyrandom`` library
(and ``npymath``), found beside the headers of the numpy in the build environment.
``_rumor_threads`` and ``_softmargin`` are compiled with OpenMP (``-fopenmp``) when the compiler accepts it, and
serially otherwise (the package then still builds; its scans run on one thread).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

_INCLUDE = np.get_include()
_LIBS = [os.path.join(_INCLUDE, "..", "lib"), os.path.join(_INCLUDE, "..", "..", "random", "lib")]
_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

#: Extensions that run OpenMP ``prange`` loops (and get ``-fopenmp`` when it works).
_OPENMP_EXTENSIONS = {"anonspread.engine._rumor_threads", "anonspread.engine._softmargin"}


def _openmp_flags() -> list[str]:
    """``["-fopenmp"]`` if the C compiler builds and links an OpenMP program with it, else
    ``[]`` (no OpenMP: those extensions are built serially)."""
    if os.environ.get("ANONSPREAD_NO_OPENMP"):
        return []
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    src = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"
    with tempfile.TemporaryDirectory() as tmp:
        c = Path(tmp) / "omp.c"
        c.write_text(src)
        try:
            done = subprocess.run([*cc, "-fopenmp", str(c), "-o", str(Path(tmp) / "omp")],
                                  capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            return []
    if done.returncode != 0:
        print("anonspread: the C compiler has no OpenMP; building the rumour scan serially",
              file=sys.stderr)
        return []
    return ["-fopenmp"]


def _extensions() -> list[Extension]:
    root = Path(__file__).parent
    exts = []
    omp = _openmp_flags()
    for pyx in sorted((root / "anonspread" / "engine").glob("_*.pyx")):
        rel = pyx.relative_to(root)
        name = ".".join(rel.with_suffix("").parts)
        flags = omp if name in _OPENMP_EXTENSIONS else []
        exts.append(Extension(
            name,
            [str(rel)],
            include_dirs=[_INCLUDE],
            library_dirs=_LIBS,
            libraries=["npyrandom", "npymath"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3", "-fno-math-errno", "-funroll-loops", *flags],
            extra_link_args=flags,
        ))
    return exts


setup(ext_modules=cythonize(_extensions(), compiler_directives=_DIRECTIVES))
