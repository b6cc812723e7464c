"""Named registries: lookups that fail with "did you mean" suggestions.

Every registry of anonspread (protocols, estimators, experiments, sweep components,
executors, ...) is a :class:`Registry`. A package fills its own registries: its modules
register what they define when the package imports them, and a registry never imports
the modules that register into it (a package may give it a *loader* that does, run
once before the first lookup).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from anonspread.errors import InvalidParameterError, UnknownNameError

__all__ = ["Registry", "suggest"]

T = TypeVar("T")


def suggest(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``choices``, or ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


class Registry(Generic[T]):
    """A name -> object mapping whose lookups fail with suggestions.

    Parameters
    ----------
    what : str
        Noun used in messages (``"experiment"``, ``"graph"``...).
    loader : callable or None
        Called once before the first lookup (imports the modules that register).
    listing : str
        The command that lists the registered names (quoted in messages).
    """

    def __init__(self, what: str, loader: Callable[[], None] | None = None, *,
                 listing: str = "anonspread list") -> None:
        self.what = what
        self.listing = listing
        self._loader = loader
        self._items: dict[str, T] = {}
        self._loaded = loader is None

    def set_loader(self, loader: Callable[[], None]) -> None:
        """Run ``loader`` once before the next lookup (the owning package's import of the
        modules that register here)."""
        self._loader = loader
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            assert self._loader is not None
            self._loader()

    def add(self, name: str, item: T, *, replace: bool = False) -> T:
        """Register ``item`` under ``name`` (a second registration must say ``replace``)."""
        if name in self._items and not replace and self._items[name] is not item:
            raise InvalidParameterError(
                f"a {self.what} named {name!r} is already registered; pass replace=True"
            )
        self._items[name] = item
        return item

    def remove(self, name: str) -> None:
        """Forget ``name`` (no error if absent)."""
        self._items.pop(name, None)

    def get(self, name: str) -> T:
        """Look ``name`` up.

        Raises
        ------
        UnknownNameError
            ``unknown experiment 'x'; did you mean 'y'?`` (and the list when short).
        """
        self._load()
        try:
            return self._items[name]
        except (KeyError, TypeError):
            hint = suggest(str(name), self._items)
            if not hint:
                known = sorted(self._items)
                hint = f"; known: {', '.join(known)}" if known else f"; no {self.what} is registered"
                if len(known) > 12:
                    hint = f"; {len(known)} are registered (list them with '{self.listing}')"
            raise UnknownNameError(f"unknown {self.what} {name!r}{hint}") from None

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._load()
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
