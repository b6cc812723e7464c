"""The component registry: named factories that sweeps combine (the extension point).

A component is a named factory of some *kind*: ``graph``, ``protocol``,
``estimator``, ``mechanism``, ``utility``... :func:`register_component` adds one;
sweep templates (:mod:`harness.compose`) declare which of their parameters name
a component of which kind, so ``anonspread sweep`` works over whatever is
registered.  Packages other than the harness never import it (the data flow is
one way), so the harness's gallery modules register the other packages'
factories; user code may register its own the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from anonspread.errors import InvalidParameterError
from harness.registry import Registry, _load_gallery

__all__ = ["Component", "get_component", "list_components", "register_component"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Component:
    """A registered factory: ``factory(**params)`` builds a graph, protocol, mechanism..."""

    kind: str
    name: str
    factory: Callable[..., Any]
    description: str = ""


_KINDS: Registry[Registry[Component]] = Registry("component kind", _load_gallery)


def register_component(
    kind: str, name: str, factory: Callable[..., Any], *, description: str = "", replace: bool = False
) -> Callable[..., Any]:
    """Register ``factory`` as component ``name`` of ``kind`` and return the factory.

    Parameters
    ----------
    kind : str
        Component family, e.g. ``"mechanism"``; a new kind is created on first use.
    name : str
        The value users write in a sweep (``--set mechanism=randomized_response``).
    factory : callable
        Called by the sweep template with the parameters it documents.  Use a
        module-level function or class so it can be sent to worker processes.
    description : str
        One line for ``anonspread sweep --list``.
    replace : bool
        Allow re-registering an existing name.

    Examples
    --------
    >>> import harness
    >>> harness.register_component("doc-kind", "square", pow, replace=True) is pow
    True
    >>> harness.get_component("doc-kind", "square")(3, 2)
    9
    """
    if not isinstance(kind, str) or not kind or not isinstance(name, str) or not name:
        raise InvalidParameterError(f"kind and name must be non-empty strings; got {kind!r}, {name!r}")
    if not callable(factory):
        raise InvalidParameterError(f"factory must be callable; got {factory!r}")
    if kind not in _KINDS:
        _KINDS.add(kind, Registry(kind))
    _KINDS.get(kind).add(name, Component(kind, name, factory, description), replace=replace)
    return factory


def get_component(kind: str, name: str) -> Callable[..., Any]:
    """The factory registered as ``name`` of ``kind`` (unknown names suggest close ones)."""
    return _KINDS.get(kind).get(name).factory


def component_info(kind: str, name: str) -> Component:
    """The full :class:`Component` record."""
    return _KINDS.get(kind).get(name)


def list_components(kind: str | None = None) -> dict[str, list[str]]:
    """Registered component names by kind (only ``kind`` when given)."""
    kinds = [kind] if kind is not None else _KINDS.names()
    return {k: _KINDS.get(k).names() for k in kinds}
