"""The modules of the installed ``anonspread`` package, found from the package itself.

The subpackages live in top-level folders of the repository and are mapped into the
``anonspread`` namespace by the build configuration, so they are walked from their
installed ``__path__`` (the repository folders in an editable install, the copies in
``site-packages/anonspread`` in a regular one), never from the repository's file system.
"""

from __future__ import annotations

import importlib
import pkgutil

import anonspread


def all_modules() -> list[str]:
    """Every module of ``anonspread`` (``__main__`` modules excluded), sorted."""
    names = ["anonspread"]
    roots = [("anonspread", anonspread.__path__)]
    roots += [(f"anonspread.{sub}", importlib.import_module(f"anonspread.{sub}").__path__)
              for sub in anonspread.SUBPACKAGES]
    for prefix, path in roots:
        if prefix != "anonspread":
            names.append(prefix)
        for info in pkgutil.walk_packages(path, prefix=f"{prefix}."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return sorted(set(names))
