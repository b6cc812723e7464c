"""Build the engine's compiled kernels (Cython) ahead of time; everything else is pyproject.toml.

Each ``anonspread/engine/_*.pyx`` becomes an extension module of the same name. Random
numbers come from numpy's bit-generator C API: the distribution functions of
``numpy/random/c_distributions.pxd`` are linked from numpy's static ``npyrandom`` library
(and ``npymath``), found beside the headers of the numpy in the build environment.
"""

from __future__ import annotations

import os
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


def _extensions() -> list[Extension]:
    root = Path(__file__).parent
    exts = []
    for pyx in sorted((root / "anonspread" / "engine").glob("_*.pyx")):
        rel = pyx.relative_to(root)
        exts.append(Extension(
            ".".join(rel.with_suffix("").parts),
            [str(rel)],
            include_dirs=[_INCLUDE],
            library_dirs=_LIBS,
            libraries=["npyrandom", "npymath"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3", "-fno-math-errno", "-funroll-loops"],
        ))
    return exts


setup(ext_modules=cythonize(_extensions(), compiler_directives=_DIRECTIVES))
