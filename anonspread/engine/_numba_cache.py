"""numba's on-disk cache, keyed on every source file a compiled kernel can contain.

numba stamps each cached function with the content of its *own* file only. A compiled
driver such as ``anonspread.engine.fused._simulate_entry`` contains the spread kernels it calls
(numba links their code into it), so after an edit of ``engine/spreading.py`` its cache
entry would still load, with the old kernels inside, or with a changed parameter layout.
:func:`install` puts cache locators in front of numba's that stamp a kernel file of this
project with a hash of all the files of its package and of the packages it calls into
(``DEPENDS``), so any such edit recompiles exactly the functions that may contain it.
Where the functions are cached (``NUMBA_CACHE_DIR``, the package's ``__pycache__`` or
the user-wide cache directory) is numba's choice, as before.

It also makes compiling a project function safe and not repeated across processes
(pool workers, or several runs sharing a cache). Each compile of such a function (load
from the cache, else compile and save) runs under an exclusive file lock next to its
cache index (POSIX ``flock``): a process that needs a function another process is
compiling waits and then loads it instead of compiling it again. Different functions
take different locks, so processes compile them in parallel; the closures a factory
makes from one ``def`` (one cache index, e.g. a driver per protocol) are different
functions here. Saving an entry (read the index, add the entry, write it) takes a
second, short lock per index: numba alone lets two processes that save different
signatures of one index both pick the same data-file number, and one could then load
the other's machine code. Compile locks follow the call graph (a caller's compile takes
its callees' locks, never the reverse), so they cannot deadlock; within a process they
are reentrant and taken under numba's compiler lock.

And it heals a corrupt cache. numba trusts its files: a truncated, emptied or
overwritten index (``.nbi``) or data file (``.nbc``) fails every later run with a raw
``UnpicklingError``, ``EOFError`` or LLVM parsing error, and flipped bytes in machine
code may load and run. The project's entries therefore end with a checksum (a trailer
after the pickle, which ``pickle`` ignores, so the files keep numba's layout); an entry
that fails its checksum, or whose loading fails in any way, is deleted with a one-line
:class:`CacheCorruptionWarning` and the function is compiled (and saved) again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import pickle
import warnings
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: compile without the file locks
    fcntl = None

__all__ = ["DEPENDS", "CacheCorruptionWarning", "compile_lock_path", "install", "source_stamp"]


class CacheCorruptionWarning(UserWarning):
    """A corrupt compile-cache entry was found, deleted and is being recompiled."""


def _find_package_dirs() -> dict[str, Path]:
    """Where each subpackage's sources are (the repository folders in an editable install,
    ``site-packages/anonspread/<name>`` in a regular one), found without importing them."""
    import importlib.util

    dirs = {}
    for name in DEPENDS:
        spec = importlib.util.find_spec(f"anonspread.{name}")
        dirs[name] = Path(next(iter(spec.submodule_search_locations))).resolve()
    return dirs


#: The source folder of each subpackage (filled on first use; tests may set it).
_DIRS: dict[str, Path] = {}


def _package_dirs() -> dict[str, Path]:
    if not _DIRS:
        _DIRS.update(_find_package_dirs())
    return _DIRS

#: The packages whose code a compiled function of each package may contain (every
#: compiled function lives in the engine; its kernels call one another across modules).
DEPENDS = {
    "engine": ("engine",),
}


@functools.cache
def source_stamp(package: str) -> str:
    """A hash of the content of every ``.py`` file of ``package`` and its dependencies."""
    h = hashlib.sha256()
    for dep in DEPENDS[package]:
        for path in sorted((_package_dirs()[dep]).glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _package_of(py_file: str) -> str | None:
    try:
        folder = Path(py_file).resolve().parent
    except OSError:
        return None
    for name, path in _package_dirs().items():
        if folder == path:
            return name
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
                _OUR_PATHS.add(self.get_cache_path())
            return self

        def get_source_stamp(self):
            return source_stamp(self._anonspread_package)

    Locator.__name__ = Locator.__qualname__ = f"Anonspread{base.__name__}"
    return Locator


def compile_lock_path(dispatcher) -> str | None:
    """The compile lock file of a project function; None for other functions."""
    cache = getattr(dispatcher, "_cache", None)
    locator = getattr(getattr(cache, "_impl", None), "_locator", None)
    if not hasattr(locator, "_anonspread_package"):
        return None
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if index is None:
        return None
    path = index + ".compile"
    closure = dispatcher.py_func.__closure__
    if closure:  # numba keys a closure's entries on its cells: so does the lock
        from numba.core.serialize import dumps

        cells = dumps(tuple(c.cell_contents for c in closure))
        path += "-" + hashlib.sha256(cells).hexdigest()[:16]
    return path + ".lock"


@contextlib.contextmanager
def _flock(path: str):
    """Hold an exclusive lock on ``path`` (created if missing); no-op if it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # e.g. a read-only cache: numba then does not save either
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


#: Lock files this process holds, with their nesting depth.
_HELD: dict[str, int] = {}


def _locked(compile_):
    from numba.core.compiler_lock import global_compiler_lock

    @functools.wraps(compile_)
    def compile(self, sig):
        path = self.__dict__.get("_anonspread_lock", False)
        if path is False:
            path = compile_lock_path(self) if fcntl is not None else None
            self.__dict__["_anonspread_lock"] = path
        if path is None:
            return compile_(self, sig)
        with global_compiler_lock:  # one compiling thread per process: _HELD is its own
            if path in _HELD:
                _HELD[path] += 1
                try:
                    return compile_(self, sig)
                finally:
                    _HELD[path] -= 1
            with _flock(path):
                _HELD[path] = 1
                try:
                    return compile_(self, sig)  # loads what another process saved meanwhile
                finally:
                    del _HELD[path]

    compile._anonspread_locked = True
    return compile


#: Cache directories of project functions (their index saves are locked).
_OUR_PATHS: set[str] = set()


def _locked_save(save):
    @functools.wraps(save)
    def locked_save(self, key, data):
        if fcntl is None or self._cache_path not in _OUR_PATHS:
            return save(self, key, data)
        with _flock(self._index_path + ".save.lock"):
            try:
                return save(self, key, data)
            except _Corrupt as exc:  # the index went bad since it was loaded: start it afresh
                _discard(self, None, exc, os.path.basename(self._index_path))
                return save(self, key, data)

    locked_save._anonspread_locked = True
    return locked_save


# ----------------------------------------------------------------- checksummed entries

#: Marks the checksum trailer: MAGIC + sha256(payload) after the pickled payload.
_MAGIC = b"ANONSPREAD-SHA256"
_TRAILER = len(_MAGIC) + 32


class _Corrupt(Exception):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{reason}: {path}")
        self.path, self.reason = path, reason


def _sealed(payload: bytes) -> bytes:
    return payload + _MAGIC + hashlib.sha256(payload).digest()


def _unsealed(raw: bytes, path: str) -> bytes:
    """The payload of a sealed file; raises _Corrupt when the trailer is missing or wrong."""
    if len(raw) < _TRAILER or raw[-_TRAILER:-32] != _MAGIC:
        raise _Corrupt(path, "no checksum (truncated or overwritten)" if raw else "empty file")
    payload = raw[:-_TRAILER]
    if hashlib.sha256(payload).digest() != raw[-32:]:
        raise _Corrupt(path, "checksum mismatch")
    return payload


def _ours(cache_file) -> bool:
    return cache_file._cache_path in _OUR_PATHS


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _checked_index(load_index):
    @functools.wraps(load_index)
    def _load_index(self):
        if not _ours(self):
            return load_index(self)
        path = self._index_path
        try:
            raw = _read(path)
        except FileNotFoundError:
            return {}
        # numba's layout: pickle(numba version) + pickle((stamp, overloads)), then our trailer
        head = io.BytesIO(raw)
        try:
            version = pickle.load(head)
        except Exception:
            raise _Corrupt(path, "unreadable header" if raw else "empty file") from None
        if version != self._version:
            return {}  # another numba's index (numba's rule)
        rest = raw[head.tell():]
        try:
            payload = _unsealed(rest, path)
        except _Corrupt:
            # an index written without a checksum (an older anonspread) is only stale
            try:
                stamp, _ = pickle.loads(rest)
            except Exception:
                raise _Corrupt(path, "unreadable index") from None
            if stamp != self._source_stamp:
                return {}
            raise
        stamp, overloads = pickle.loads(payload)
        return overloads if stamp == self._source_stamp else {}

    _load_index._anonspread_checked = True
    return _load_index


def _checked_save_index(save_index):
    @functools.wraps(save_index)
    def _save_index(self, overloads):
        if not _ours(self):
            return save_index(self, overloads)
        data = _sealed(self._dump((self._source_stamp, overloads)))
        with self._open_for_write(self._index_path) as f:
            pickle.dump(self._version, f, protocol=-1)
            f.write(data)

    _save_index._anonspread_checked = True
    return _save_index


def _checked_load_data(load_data):
    @functools.wraps(load_data)
    def _load_data(self, name):
        if not _ours(self):
            return load_data(self, name)
        path = self._data_path(name)
        return pickle.loads(_unsealed(_read(path), path))

    _load_data._anonspread_checked = True
    return _load_data


def _checked_save_data(save_data):
    @functools.wraps(save_data)
    def _save_data(self, name, data):
        if not _ours(self):
            return save_data(self, name, data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(_sealed(self._dump(data)))

    _save_data._anonspread_checked = True
    return _save_data


def _discard(cache_file, key, exc: BaseException, what: str) -> None:
    """Delete a corrupt entry (its data file, when the index still names it, and the index)."""
    path = exc.path if isinstance(exc, _Corrupt) else cache_file._index_path
    reason = exc.reason if isinstance(exc, _Corrupt) else f"{type(exc).__name__}: {exc}".splitlines()[0]
    victims = [cache_file._index_path]
    try:
        name = cache_file._load_index().get(key) if key is not None else None
    except Exception:
        name = None
    if name is not None:
        victims.append(cache_file._data_path(name))
    if isinstance(exc, _Corrupt) and exc.path not in victims:
        victims.append(exc.path)
    for victim in victims:
        with contextlib.suppress(OSError):
            os.unlink(victim)
    warnings.warn(f"anonspread: discarded a corrupt compile-cache entry of {what} ({reason[:160]}; "
                  f"{path}); recompiling", CacheCorruptionWarning, stacklevel=2)


def _healing_load(load_overload):
    @functools.wraps(load_overload)
    def load(self, sig, target_context):
        if not hasattr(getattr(self._impl, "_locator", None), "_anonspread_package"):
            return load_overload(self, sig, target_context)
        try:
            return load_overload(self, sig, target_context)
        except Exception as exc:  # any failure to load a cached entry: compile instead
            try:
                key = self._index_key(sig, target_context.codegen())
            except Exception:
                key = None
            _discard(self._cache_file, key, exc, getattr(self._py_func, "__qualname__", self._name))
            return None

    load._anonspread_checked = True
    return load


@functools.cache
def install() -> None:
    """Put the project's locators first in numba's list and lock compiles (idempotent)."""
    from numba.core import caching, dispatcher

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    bases = [getattr(caching, name, None) or getattr(caching, "_" + name)
             for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")]
    ours = [_project_locator(b) for b in bases]
    impl._locator_classes[:0] = ours
    if not getattr(dispatcher.Dispatcher.compile, "_anonspread_locked", False):
        dispatcher.Dispatcher.compile = _locked(dispatcher.Dispatcher.compile)
    files = caching.IndexDataCacheFile
    if not getattr(files.save, "_anonspread_locked", False):
        files.save = _locked_save(files.save)
    for attr, wrap in (("_load_index", _checked_index), ("_save_index", _checked_save_index),
                       ("_load_data", _checked_load_data), ("_save_data", _checked_save_data)):
        if not getattr(getattr(files, attr), "_anonspread_checked", False):
            setattr(files, attr, wrap(getattr(files, attr)))
    if not getattr(caching.Cache.load_overload, "_anonspread_checked", False):
        caching.Cache.load_overload = _healing_load(caching.Cache.load_overload)
