"""The API reference pages, written from the packages' ``__all__``.

One page per subpackage of :mod:`anonspread` (``docs/api/<name>.rst``) and one for the
front door. A page lists the package's ``__all__`` (one autosummary entry per name, each
with its own generated page), then each public module of the package (a name without a
leading underscore, walked from the installed package) with the names of its ``__all__``
that the package does not already list. A module without ``__all__`` contributes the
functions and classes it defines whose names do not start with an underscore. Modules
re-exported under a package's ``__all__`` get their own section, not an entry.

:func:`public_api` is the same list as data; ``tests/test_docs_site.py`` checks it
against the packages, and numpydoc validates the docstrings of these names.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
import shutil
from pathlib import Path
from types import ModuleType

import anonspread

#: numpydoc's checks on the public API (docs/conf.py and tests/test_docs_site.py), on every
#: name the API reference lists (functions, classes, their public methods): every public
#: name has a docstring (GL08); every parameter is documented (PR01), none that is not in
#: the signature (PR02), in its order (PR03), each as ``name : type`` (PR10). A class's
#: parameters are its constructor's (a dataclass documents its fields there).
#: tests/test_docs_site.py adds one: every class and function a subpackage exports at its
#: top level has an Examples section (numpydoc's EX01), run as a doctest by tests/test_docs.py.
VALIDATION_CHECKS = {"GL08", "PR01", "PR02", "PR03", "PR10"}
#: Public names still lacking what is named (the dotted name the API reference documents
#: them under -> the missing sections, or the docstring of a property). Empty since every
#: name listed when the checks were extended to every public name (issue 25) got its
#: sections; kept so that tests/test_docs_site.py's checks of it stay in place. Never add
#: to this list: a new public name comes with its sections.
PENDING: dict[str, str] = {}
#: Not validated: constructors (documented by their class), the compiled kernels of the
#: engine (internal; each module's docstring says what it holds), and, by the Sphinx
#: build only, the pending names (the test still holds them to every other check).
VALIDATION_EXCLUDE = {r"\.__init__$", r"^anonspread\.engine\."}
BUILD_EXCLUDE = VALIDATION_EXCLUDE | {"^" + re.escape(name) + "$" for name in PENDING}

#: What each page says the subpackage is for (the page's lead line).
TITLES = {
    "spread": "contact graphs, spreading protocols, simulators",
    "adversaries": "observations, source estimators, metrics",
    "privacy": "local privacy mechanisms, optimisers, measures",
    "harness": "experiments, sweeps, executors, results, plots, CLI",
    "datasets": "bundled real data and loaders",
    "engine": "the compiled kernels",
}


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return [n for n in names if not n.startswith("_")]
    return sorted(
        n for n, obj in vars(module).items()
        if not n.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == module.__name__
    )


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts):
            continue
        names.append(info.name)
    return names


def front_door() -> dict[str, str]:
    """The front door's names (``asp.NAME``) -> the subpackage that documents them.

    Returns
    -------
    dict
        ``{"simulate": "spread", ...}``, in the order of ``anonspread.__all__``.
    """
    return {n: anonspread._FRONT[n] for n in anonspread.__all__ if n in anonspread._FRONT}


def public_api() -> dict[str, list[tuple[str, list[str]]]]:
    """Page name -> [(module, names documented under it)], in page order.

    The page ``anonspread`` holds the root package's own names and public modules (errors,
    registry, argument checks); the front door's names are documented in their subpackages. Each
    object is listed once, under the first (outermost) module that exports it; modules
    are sections of their own, never entries.

    Returns
    -------
    dict
        ``{"anonspread": [...], "spread": [...], ...}``.
    """
    pages: dict[str, list[tuple[str, list[str]]]] = {}
    root = ["anonspread"] + [
        f"anonspread.{info.name}" for info in pkgutil.iter_modules(anonspread.__path__)
        if not info.name.startswith("_") and info.name not in anonspread.SUBPACKAGES]
    packages = {"anonspread": root}
    packages.update({sub: _modules(f"anonspread.{sub}") for sub in anonspread.SUBPACKAGES})
    seen: set[int] = set()
    for page, modules in packages.items():
        sections = []
        for modname in modules:
            module = importlib.import_module(modname)
            names = _public_names(module)
            if modname == "anonspread":  # the front door's names live in the subpackages
                names = [n for n in names if n not in anonspread._FRONT
                         and n not in anonspread.SUBPACKAGES and n != "__version__"]
            entries = []
            for name in names:
                obj = getattr(module, name)
                if isinstance(obj, ModuleType) or id(obj) in seen:
                    continue
                seen.add(id(obj))
                entries.append(name)
            if entries or modname == modules[0]:
                sections.append((modname, entries))
        pages[page] = sections
    return pages


def _autosummary(module: str, names: list[str]) -> list[str]:
    if not names:
        return []
    return [f".. currentmodule:: {module}", "", ".. autosummary::", "   :toctree: generated/",
            "", *(f"   {n}" for n in names), ""]


def _shadowed(module: str) -> bool:
    """Whether the package also has a non-module attribute of this module's name.

    ``anonspread.spread.simulate`` is both a module and the function the package
    exports; the function keeps the name as a target, the module's section is not indexed.
    """
    package, _, name = module.rpartition(".")
    obj = getattr(importlib.import_module(package), name, None) if package else None
    return obj is not None and not isinstance(obj, ModuleType)


def _page(title: str, sections: list[tuple[str, list[str]]], lead: list[str]) -> str:
    lines = [title, "=" * len(title), ""]
    for i, (module, names) in enumerate(sections):
        if i > 0:
            head = f"``{module}``"
            lines += [head, "-" * len(head), ""]
        lines += [f".. automodule:: {module}", "   :no-members:"]
        if _shadowed(module):
            lines += ["   :no-index:"]
        lines += [""]
        if i == 0:
            lines += lead
        lines += _autosummary(module, names)
    return "\n".join(lines) + "\n"


def _front_table() -> list[str]:
    rows = [f"   ~anonspread.{sub}.{name}" for name, sub in front_door().items()]
    return [".. currentmodule:: None", "",
            "The names ``import anonspread as asp`` gives (``asp.simulate`` is",
            ":func:`anonspread.spread.simulate`, and so on), each documented in its subpackage:",
            "", ".. autosummary::", "", *rows, ""]


def _own_methods(cls: type) -> list[str]:
    """The public methods a class defines (not inherited, not fields holding functions)."""
    own = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        func = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        if not (inspect.isfunction(func) and func.__qualname__ == f"{cls.__qualname__}.{name}"):
            continue
        # an undocumented override is documented where it is declared, on the base class
        overrides = any(name in vars(base) for base in cls.__mro__[1:])
        if func.__doc__ or not overrides:
            own.append(name)
    return own


def _own_properties(cls: type) -> list[str]:
    """The public properties a class defines (``property`` and ``functools.cached_property``)."""
    own = []
    for name, value in vars(cls).items():
        if name.startswith("_") or not isinstance(value, (property, functools.cached_property)):
            continue
        overrides = any(name in vars(base) for base in cls.__mro__[1:])
        if value.__doc__ or not overrides:
            own.append(name)
    return own


def _class_page(module: str, name: str, cls: type) -> str:
    lines = [name, "=" * len(name), "", f".. currentmodule:: {module}", "",
             f".. autoclass:: {name}", ""]
    properties = _own_properties(cls)
    if properties:
        lines += ["   .. rubric:: Properties", ""]
        lines += [f"   .. autoproperty:: {p}" for p in properties]
        lines += [""]
    methods = _own_methods(cls)
    if methods:
        lines += ["   .. rubric:: Methods", ""]
        lines += [f"   .. automethod:: {m}" for m in methods]
    return "\n".join(lines) + "\n"


def write_api_pages(folder: Path) -> None:
    """Write ``folder/index.rst`` and one ``folder/<page>.rst`` per page of :func:`public_api`.

    Files are rewritten only when their text changes, so Sphinx rebuilds only what moved.

    Parameters
    ----------
    folder : pathlib.Path
        Where the pages go (``docs/api``); created if missing.
    """
    folder.mkdir(parents=True, exist_ok=True)
    # autosummary writes one stub per name under generated/; stubs of names that are no
    # longer public would be orphan pages (a warning), so the folder is made anew
    shutil.rmtree(folder / "generated", ignore_errors=True)
    pages = public_api()
    texts = {}
    texts["front"] = _page("``anonspread``: the front door, errors, registries",
                           pages["anonspread"], _front_table())
    for sub in anonspread.SUBPACKAGES:
        texts[sub] = _page(f"``anonspread.{sub}``: {TITLES[sub]}", pages[sub], [])
    index = ["API reference", "=============", "",
             "Generated from the docstrings: one page per subpackage, each listing the",
             "package's ``__all__`` and then every public module with the names it adds.",
             "Each object is listed once, where it is first exported.", "",
             ".. toctree::", "   :maxdepth: 1", "", "   front",
             *(f"   {sub}" for sub in anonspread.SUBPACKAGES), ""]
    texts["index"] = "\n".join(index)
    (folder / "generated").mkdir()
    for sections in pages.values():
        for module, names in sections:
            for name in names:
                obj = getattr(importlib.import_module(module), name)
                if inspect.isclass(obj):
                    texts[f"generated/{module}.{name}"] = _class_page(module, name, obj)
    for name, text in texts.items():
        path = folder / f"{name}.rst"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
