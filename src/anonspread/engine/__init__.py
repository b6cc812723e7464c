"""The compiled engine: every Monte Carlo kernel, over flat arrays, beneath the packages.

``spread``, ``adversaries`` and ``privacy`` are Python layers above it that validate
arguments, describe runs and return result objects; the engine holds what runs per node
and per trial:

* :mod:`~anonspread.engine.store`: the node store (``GraphStore``, named flat arrays) of a
  finite graph or a lazily grown infinite tree;
* :mod:`~anonspread.engine.spreading`: one kernel per spreading protocol, the Monte Carlo
  driver and the fused loop's simulation phase;
* :mod:`~anonspread.engine.dandelion`: the one Dandelion simulator -- Dandelion and
  Dandelion++ in continuous time, and the abstract transaction model as a configuration
  of the same anonymity graph, forwarding tables and stem walk;
* :mod:`~anonspread.engine.scoring`: the source estimators (ML message passing, Jordan
  centre and eccentricities, BFS, tie-aware summaries);
* :mod:`~anonspread.engine.rumor`: rumour centrality (trees, the certified scan on graphs);
* :mod:`~anonspread.engine.rumor_threads`: the rumour scan of large 2-cores on OpenMP threads;
* :mod:`~anonspread.engine.literature`: NETSLEUTH and LISN;
* :mod:`~anonspread.engine.softmargin`: the soft-margin estimator's runs from each candidate
  source (Jaccard similarity with the snapshot, kernel sums; candidates on OpenMP threads);
* :mod:`~anonspread.engine.sensors`: earliest-infection-first and Pinto et al.;
* :mod:`~anonspread.engine.fused`: the fused simulate -> score loop (its scoring phase,
  ``score_chunk``);
* :mod:`~anonspread.engine.graphs`: per-graph statistics (triangles);
* :mod:`~anonspread.engine.features`: node features of the learned adversary (distance sums,
  eccentricities, distance to a node set);
* :mod:`~anonspread.engine.staircase`: the staircase enumeration of the LDP optimiser.
* :mod:`~anonspread.engine.frequency`: the frequency oracles' users and server (local-hashing
  support counts, unary-encoding bits, subset selection).

The engine imports no other package of anonspread but the shared error classes.

A compiled extension that is missing or damaged (a truncated file, one built for another
Python or numpy) is reported when it is first imported, by an import hook this package
installs for its own private names: an :class:`~anonspread.errors.InstallError` naming the
extension, its file, what the loader said and how to reinstall, instead of a bare
``ImportError`` (``_guard_extensions``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import struct
import sys

from anonspread.errors import InstallError

_REINSTALL = ("reinstall anonspread: `pip install --force-reinstall anonspread` (in a checkout: "
              "`pip install -e .`, or `python setup.py build_ext --inplace` to rebuild the "
              "extensions in place)")


def _damaged(fullname: str, path: str, exc: BaseException) -> InstallError:
    why = str(exc) or type(exc).__name__
    err = InstallError(
        f"{fullname}, a compiled extension of anonspread, cannot be loaded from {path}: {why} "
        f"(the file is damaged, or was built for another Python or numpy); {_REINSTALL}",
        name=fullname, path=path)
    return err


def _missing(fullname: str, folder: str) -> InstallError:
    leaf = fullname.rpartition(".")[2]
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return InstallError(
        f"{fullname}, a compiled extension of anonspread, is missing: no {leaf}{suffix} in "
        f"{folder} (the install is incomplete, or a checkout was used without building its "
        f"extensions); {_REINSTALL}", name=fullname)


def _is_extension(leaf: str, folder: str) -> bool:
    """Is ``leaf`` one of the engine's compiled extensions? Its Cython source lies beside it
    (a checkout, an editable install), or the install's record lists its file (a wheel)."""
    if os.path.exists(os.path.join(folder, leaf + ".pyx")):
        return True
    try:
        from importlib.metadata import PackageNotFoundError, files
        record = files("anonspread") or []
    except (PackageNotFoundError, OSError):
        return False
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return any(str(f).replace("\\", "/").startswith(f"anonspread/engine/{leaf}.")
               and str(f).endswith(suffixes) for f in record)


def _elf_truncated(path: str) -> str | None:
    """Why an ELF file is shorter than its own headers say (None: it is not, or not ELF).

    The dynamic loader maps a shared library's segments straight from the file, so a
    truncated one kills the process with SIGBUS when a page past the end is touched, before
    any ImportError could be raised: the sizes are compared here first (a few hundred bytes
    read)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return None  # the loader words it
    if head[:4] != b"\x7fELF" or len(head) < 52 or head[4] not in (1, 2) or head[5] not in (1, 2):
        return None
    wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
    if wide:
        if len(head) < 64:
            return f"the file is truncated ({size} bytes; an ELF header alone is 64)"
        phoff, shoff = struct.unpack_from(order + "QQ", head, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", head, 0x36)
    else:
        phoff, shoff = struct.unpack_from(order + "II", head, 0x1C)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(order + "HHHH", head, 0x2A)
    need = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    if phoff + phentsize * phnum <= len(head):  # the loaded segments must lie in the file
        for k in range(phnum):
            at = phoff + k * phentsize
            if wide:
                (ptype,) = struct.unpack_from(order + "I", head, at)
                offset, filesz = struct.unpack_from(order + "Q", head, at + 8)[0], \
                    struct.unpack_from(order + "Q", head, at + 32)[0]
            else:
                ptype, offset = struct.unpack_from(order + "II", head, at)
                (filesz,) = struct.unpack_from(order + "I", head, at + 16)
            if ptype == 1:  # PT_LOAD
                need = max(need, offset + filesz)
    if need > size:
        return f"the file is truncated ({size:,} bytes; its ELF headers say at least {need:,})"
    return None


class _GuardedLoader(importlib.machinery.ExtensionFileLoader):
    """The extension loader, with its ImportError worded as a damaged install (and a
    truncated ELF file refused before the dynamic loader maps it)."""

    def create_module(self, spec):
        short = _elf_truncated(self.path)
        if short is not None:
            raise _damaged(spec.name, self.path, ImportError(short))
        try:
            return super().create_module(spec)
        except ImportError as exc:
            if isinstance(exc, InstallError):
                raise
            raise _damaged(spec.name, self.path, exc) from exc

    def exec_module(self, module):
        try:
            super().exec_module(module)
        except ImportError as exc:
            if isinstance(exc, InstallError):
                raise
            raise _damaged(module.__name__, self.path, exc) from exc


class _ExtensionGuard(importlib.abc.MetaPathFinder):
    """Finds this package's private modules (``anonspread.engine._x``) as the path finder
    does, with a guarded loader for an extension and a clear error for a missing one."""

    def find_spec(self, fullname, path, target=None):
        package, _, leaf = fullname.rpartition(".")
        if package != __name__ or not leaf.startswith("_") or leaf.startswith("__"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, __path__)
        if spec is None:
            folder = __path__[0] if __path__ else os.path.dirname(__file__)
            if _is_extension(leaf, folder):
                raise _missing(fullname, folder)
            return None  # not a module of the engine: the usual ModuleNotFoundError
        if type(spec.loader) is importlib.machinery.ExtensionFileLoader:
            spec.loader = _GuardedLoader(spec.loader.name, spec.loader.path)
        return spec


def _guard_extensions() -> None:
    """Put the guard first on ``sys.meta_path`` (once per process)."""
    if not any(isinstance(f, _ExtensionGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _ExtensionGuard())


_guard_extensions()
