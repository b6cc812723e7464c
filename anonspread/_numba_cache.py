"""numba's on-disk cache, keyed on every source file a compiled kernel can contain.

numba stamps each cached function with the content of its *own* file only. A compiled
driver such as ``adversaries.batch._score_batch`` contains the spread kernels it calls
(numba links their code into it), so after an edit of ``spread/_kernels.py`` its cache
entry would still load, with the old kernels inside, or with a changed parameter layout.
:func:`install` puts cache locators in front of numba's that stamp a kernel file of this
project with a hash of all the files of its package and of the packages it calls into
(``DEPENDS``), so any such edit recompiles exactly the functions that may contain it.
Where the functions are cached (``NUMBA_CACHE_DIR``, the package's ``__pycache__`` or
the user-wide cache directory) is numba's choice, as before.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["DEPENDS", "install", "source_stamp"]

_ROOT = Path(__file__).resolve().parent.parent

#: The packages whose code a compiled function of each package may contain.
DEPENDS = {
    "spread": ("spread",),
    "adversaries": ("spread", "adversaries"),
    "privacy": ("privacy",),
    "harness": ("spread", "adversaries", "harness"),
}


@functools.cache
def source_stamp(package: str) -> str:
    """A hash of the content of every ``.py`` file of ``package`` and its dependencies."""
    h = hashlib.sha256()
    for dep in DEPENDS[package]:
        for path in sorted((_ROOT / dep).glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _package_of(py_file: str) -> str | None:
    try:
        rel = Path(py_file).resolve().relative_to(_ROOT)
    except (ValueError, OSError):
        return None
    if len(rel.parts) == 2 and rel.parts[0] in DEPENDS:
        return rel.parts[0]
    return None


def _project_locator(base):
    class Locator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            package = _package_of(py_file)
            if package is None:
                return None
            self = super().from_function(py_func, py_file)
            if self is not None:
                self._anonspread_package = package
            return self

        def get_source_stamp(self):
            return source_stamp(self._anonspread_package)

    Locator.__name__ = Locator.__qualname__ = f"Anonspread{base.__name__}"
    return Locator


@functools.cache
def install() -> None:
    """Put the project's locators first in numba's list (idempotent)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    bases = [getattr(caching, name, None) or getattr(caching, "_" + name)
             for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")]
    ours = [_project_locator(b) for b in bases]
    impl._locator_classes[:0] = ours
