"""Named registries: lookups that fail with "did you mean" suggestions.

Every registry of anonspread (protocols, estimators, experiments, sweep components,
executors, ...) is a :class:`Registry`. A package fills its own registries: its modules
register what they define when the package imports them, and a registry never imports
the modules that register into it (a package may give it a *loader* that does, run
once before the first lookup).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from anonspread.errors import InvalidParameterError, UnknownNameError

__all__ = ["Registry", "suggest"]

T = TypeVar("T")
_REQUIRED: Any = object()


def suggest(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``choices``, or ``""``.

    Parameters
    ----------
    name : str
        The name that was not found.
    choices : iterable of str
        The accepted names (up to three close ones are suggested).

    Returns
    -------
    str
        The suffix to append to an error message (empty when none is close).

    Examples
    --------
    >>> suggest("jordn", ["jordan", "rumor"])
    "; did you mean 'jordan'?"
    >>> suggest("xyz", ["jordan", "rumor"])
    ''

    Names differ only in case? The one that matches is suggested (names are compared
    exactly, never folded silently):

    >>> suggest("ML", ["ml", "ml-tree", "jordan"])
    "; did you mean 'ml'?"
    """
    choices = [str(c) for c in choices]
    same = [c for c in choices if c.lower() == name.lower()]
    lowered = {c.lower(): c for c in choices}
    close = same or [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)]
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


class Registry(Mapping[str, T]):
    """A name -> object mapping whose lookups fail with suggestions.

    A read-only :class:`collections.abc.Mapping` (``name in registry``, ``registry[name]``,
    ``.items()``, ``len``; iteration goes in registration order, like a dict) that is filled
    with :meth:`add` and whose failed lookups raise :class:`UnknownNameError` (a
    ``KeyError`` and a ``ValueError``) naming the value, what is accepted and the closest
    registered names.

    Parameters
    ----------
    what : str
        Noun used in messages (``"experiment"``, ``"graph"``...).
    loader : callable or None
        Called once before the first lookup (imports the modules that register).
    listing : str
        The command that lists the registered names (quoted in messages).
    parameter : str or None
        The argument whose value is looked up. ``None``: failed lookups read ``unknown
        experiment 'x'; did you mean 'y'?``; a name such as ``"estimator"``: they read
        ``estimator must be one of ['a', 'b']; got 'x'; did you mean 'y'?``.

    Examples
    --------
    >>> colours = Registry("colour", parameter="colour")
    >>> colours.add("red", (255, 0, 0))
    (255, 0, 0)
    >>> colours["red"], "blue" in colours, list(colours)
    ((255, 0, 0), False, ['red'])
    >>> colours.get("rde")
    Traceback (most recent call last):
    ...
    anonspread.errors.UnknownNameError: colour must be one of ['red']; got 'rde'; did you mean 'red'?
    """

    def __init__(self, what: str, loader: Callable[[], None] | None = None, *,
                 listing: str = "anonspread list", parameter: str | None = None) -> None:
        self.what = what
        # an instance is documented as what it holds, not as the class it is (API pages)
        self.__doc__ = (f"The {what} registry: name -> registered {what} (a "
                        f":class:`~anonspread.registry.Registry`; ``list(...)`` gives the names).")
        self.listing = listing
        self.parameter = parameter
        self._loader = loader
        self._items: dict[str, T] = {}
        self._loaded = loader is None

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._items)} registered)"

    # a registry is one object, not a value: equal only to itself (and hashable)
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def set_loader(self, loader: Callable[[], None]) -> None:
        """Run ``loader`` once before the next lookup (the owning package's import of the
        modules that register here).

        Parameters
        ----------
        loader : callable
            Called with no arguments before the next lookup, once.
        """
        self._loader = loader
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            assert self._loader is not None
            self._loader()

    def add(self, name: str, item: T, *, replace: bool = False) -> T:
        """Register ``item`` under ``name`` (a second registration must say ``replace``).

        Parameters
        ----------
        name : str
            A non-empty name.
        item : object
            What to register.
        replace : bool, default False
            Replace an item already registered under ``name`` (else that raises
            :class:`InvalidParameterError`; registering the same item again does not).

        Returns
        -------
        object
            ``item``.
        """
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"name must be a non-empty str naming a {self.what}; got {name!r}")
        if name in self._items and not replace and self._items[name] is not item:
            raise InvalidParameterError(
                f"{self.what} name {name!r} is already registered; pass replace=True to replace it"
            )
        self._items[name] = item
        return item

    def remove(self, name: str) -> None:
        """Forget ``name`` (no error if absent).

        Parameters
        ----------
        name : str
            The registered name.
        """
        self._items.pop(name, None)

    def get(self, name: str, default: Any = _REQUIRED) -> T:
        """Look ``name`` up (``default``, if given, is returned for an unknown name).

        Parameters
        ----------
        name : str
            The registered name.
        default : object, optional
            Returned for an unknown name; without it an unknown name raises.

        Returns
        -------
        object
            The registered item (or ``default``).

        Raises
        ------
        UnknownNameError
            ``unknown experiment 'x'; did you mean 'y'?`` (and the list when short), or
            ``estimator must be one of [...]; got 'x'...`` when the registry names its
            ``parameter``.
        """
        self._load()
        try:
            return self._items[name]
        except (KeyError, TypeError):
            if default is not _REQUIRED:
                return default
            raise self.unknown(name) from None

    def unknown(self, name: Any) -> UnknownNameError:
        """The error a failed lookup of ``name`` raises (for callers that look up themselves).

        Parameters
        ----------
        name : object
            The value that is not a registered name.

        Returns
        -------
        UnknownNameError
        """
        self._load()
        known = sorted(self._items)
        hint = suggest(str(name), known)
        if self.parameter is not None:
            shown = (f"{len(known)} registered {self.what} names (list them with "
                     f"'{self.listing}')" if len(known) > 12 else repr(known))
            return UnknownNameError(f"{self.parameter} must be one of {shown}; got {name!r}{hint}")
        if not hint:
            hint = f"; known: {', '.join(known)}" if known else f"; no {self.what} is registered"
            if len(known) > 12:
                hint = f"; {len(known)} are registered (list them with '{self.listing}')"
        return UnknownNameError(f"unknown {self.what} {name!r}{hint}")

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._load()
        return sorted(self._items)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        self._load()
        try:
            return name in self._items
        except TypeError:  # an unhashable value is not a name
            return False

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._items))

    def __len__(self) -> int:
        self._load()
        return len(self._items)
