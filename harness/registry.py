"""Named registries with "did you mean" errors, and the experiment registry.

Experiments (and, in :mod:`harness.components`, sweep components) are added by
registering them, never by growing an if/elif chain.  The gallery
(:mod:`harness.experiments`) is imported on the first lookup, so
``import harness`` stays light.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from anonspread.errors import InvalidParameterError
from harness.errors import UnknownNameError
from harness.experiment import Experiment, check_experiment

__all__ = [
    "Registry",
    "get_experiment",
    "list_experiments",
    "register_experiment",
    "suggest",
    "unregister_experiment",
]

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


def _load_gallery() -> None:
    importlib.import_module("harness.experiments")


_EXPERIMENTS: Registry[Experiment] = Registry("experiment", _load_gallery)


def register_experiment(experiment: Experiment, *, replace: bool = False) -> Experiment:
    """Validate and register an experiment; returns it (so it can be kept in a name).

    Examples
    --------
    >>> import harness
    >>> def coin(params, rng):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> exp = harness.register_experiment(harness.Experiment(
    ...     name="doc-coin", title="A biased coin", description="Estimates p.",
    ...     grid=harness.Grid(product={"p": [0.2, 0.7]}),
    ...     metrics=(harness.Metric("heads", "proportion"),), trial=coin), replace=True)
    >>> harness.get_experiment("doc-coin") is exp
    True
    """
    check_experiment(experiment)
    return _EXPERIMENTS.add(experiment.name, experiment, replace=replace)


def unregister_experiment(name: str) -> None:
    """Remove an experiment from the registry (tests use this to clean up)."""
    _EXPERIMENTS.remove(name)


def get_experiment(name: str) -> Experiment:
    """The registered experiment ``name``; unknown names suggest the closest ones."""
    return _EXPERIMENTS.get(name)


def list_experiments() -> list[Experiment]:
    """All registered experiments, sorted by name."""
    return [_EXPERIMENTS.get(n) for n in _EXPERIMENTS.names()]
