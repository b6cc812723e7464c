"""Build the engine's compiled kernels (Cython) ahead of time; everything else is pyproject.toml.

Each ``src/anonspread/engine/_*.pyx`` becomes an extension module of the same name. Random
numbers come from numpy's bit-generator C API: the distribution functions of
``numpy/random/c_distributions.pxd`` are linked from numpy's static ``npyrandom`` library
(and ``npymath``), found beside the headers of the numpy in the build environment.
``_rumor_threads``, ``_softmargin`` and ``_bp`` are compiled with OpenMP (``-fopenmp``) when the compiler accepts it, and
serially otherwise (the package then still builds; its scans run on one thread).

The build is parallel and incremental, as scientific Python builds are:

* Cython translates the ``.pyx`` files on every core (``cythonize(nthreads=...)``) and the C
  compiler runs on every core (``build_ext --parallel``); ``ANONSPREAD_BUILD_JOBS`` sets the
  number of jobs.
* A compiled extension is kept in ``build/anonspread-extensions/`` under a key made of
  everything that decides its bytes: its ``.pyx``, the engine's ``.pxd`` files and headers,
  Cython's version and directives, the compiler and its flags, the Python ABI and the numpy
  of the build. An extension with a kept build is neither translated nor compiled: a later
  build (``pip install -e ".[test]"`` after ``pip install -e .``, ``pip wheel .``, an
  editable reinstall) with the same key copies the kept file instead of compiling again;
  any change of source, flags, compiler, Python or numpy compiles afresh.
* Whatever is compiled is translated with the package's directives (no bounds or
  wraparound checks): ``build_ext --force`` of an extension with a kept build translates
  it here, afresh, instead of leaving it to setuptools' own Cython step, which applies
  none (found 2026-11-29: kernels built that way raised ``IndexError`` on empty inputs
  and ran slower, and their ``.c`` files, newer than the ``.pyx``, were reused by later
  builds; delete ``src/anonspread/engine/*.c`` once if a tree holds such files).
* Extensions are compiled without debug information (``-g0``): the package is a third of
  the size, and tracebacks through Cython code still name the ``.pyx`` lines.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import Cython
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

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
_OPENMP_EXTENSIONS = {"anonspread.engine._rumor_threads", "anonspread.engine._softmargin",
                      "anonspread.engine._bp", "anonspread.engine._frequency"}


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
    for pyx in sorted((root / "src" / "anonspread" / "engine").glob("_*.pyx")):
        rel = pyx.relative_to(root)
        name = f"anonspread.engine.{pyx.stem}"
        flags = omp if name in _OPENMP_EXTENSIONS else []
        exts.append(Extension(
            name,
            [str(rel)],
            include_dirs=[_INCLUDE],
            library_dirs=_LIBS,
            libraries=["npyrandom", "npymath"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3", "-g0", "-fno-math-errno", "-funroll-loops", *flags],
            extra_link_args=flags,
        ))
    return exts


def _jobs() -> int:
    """Parallel jobs of the build: ``ANONSPREAD_BUILD_JOBS``, else the usable cores."""
    env = os.environ.get("ANONSPREAD_BUILD_JOBS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_KEPT = Path(__file__).parent / "build" / "anonspread-extensions"


def _key(ext: Extension) -> str:
    """What decides the bytes of ``ext``'s compiled module, hashed: its ``.pyx``, every
    ``.pxd``/header of the engine, Cython's version and directives, the compiler and flags
    (``CC``/``CFLAGS``/``LDFLAGS`` and Python's own), the extension suffix (Python ABI) and
    numpy's version. Cython's C output is not hashed: it is not byte-stable between runs and
    names the build environment's temporary folders."""
    h = hashlib.sha256()
    engine = Path(__file__).parent / "src" / "anonspread" / "engine"
    for path in [*map(Path, ext.sources), *sorted(engine.glob("*.pxd")), *sorted(engine.glob("*.h"))]:
        h.update(str(path.name).encode() + b"\0" + path.read_bytes())
    env = [os.environ.get(v, "") for v in ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED")]
    py = [sysconfig.get_config_var(v) for v in ("CC", "CFLAGS", "LDSHARED", "EXT_SUFFIX")]
    for part in (ext.name, Cython.__version__, sorted(_DIRECTIVES.items()), env, py,
                 ext.extra_compile_args, ext.extra_link_args, ext.libraries, ext.define_macros,
                 np.__version__, sys.version):
        h.update(repr(part).encode() + b"\0")
    return h.hexdigest()[:24]


def _kept(ext: Extension) -> Path:
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return _KEPT / f"{ext.name}-{ext._anonspread_key}{suffix}"


class build_ext(_build_ext):
    """``build_ext`` that compiles in parallel (one job a core) and copies a kept build of an
    unchanged extension instead of compiling it (see the module's docstring)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = _jobs()

    def build_extension(self, ext: Extension) -> None:
        target = Path(self.get_ext_fullpath(ext.name))
        kept = _kept(ext)
        if kept.is_file() and not self.force:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, target)
            print(f"anonspread: {ext.name} unchanged, reusing {kept.relative_to(_KEPT.parent.parent)}")
            return
        if any(str(src).endswith(".pyx") for src in ext.sources):
            # kept at _prepared() time but compiled anyway (--force): translate it here, with
            # the package's directives; setuptools' own Cython step would use none (bounds
            # and wraparound checks in every kernel)
            ext.sources = cythonize([ext], compiler_directives=_DIRECTIVES, force=True, quiet=True)[0].sources
        super().build_extension(ext)
        try:
            _KEPT.mkdir(parents=True, exist_ok=True)
            for old in _KEPT.glob(f"{ext.name}-*"):
                old.unlink()
            tmp = kept.with_name(kept.name + ".tmp")
            shutil.copyfile(target, tmp)
            os.replace(tmp, kept)
        except OSError as err:  # a read-only source tree builds; it only keeps nothing
            print(f"anonspread: not keeping {ext.name} ({err})", file=sys.stderr)


def _prepared() -> list[Extension]:
    """The extensions, Cython-translated (on every core) only where no kept build matches."""
    exts = _extensions()
    for ext in exts:
        ext._anonspread_key = _key(ext)
    stale = [ext for ext in exts if not _kept(ext).is_file()]
    # not forced: pip runs this file several times per install, and a .c newer than its
    # .pyx was translated here (or by build_extension below), with these directives
    done = {e.name: e for e in cythonize(stale, compiler_directives=_DIRECTIVES, nthreads=_jobs())} if stale else {}
    out = []
    for ext in exts:
        new = done.get(ext.name, ext)
        new._anonspread_key = ext._anonspread_key
        out.append(new)
    return out


setup(
    ext_modules=_prepared(),
    cmdclass={"build_ext": build_ext},
)
