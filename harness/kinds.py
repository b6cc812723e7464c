"""The registry of sweep components by kind (``graph``, ``protocol``, ``estimator``, ...).

:func:`harness.register_component` fills it; a :class:`harness.Param` whose values name
a component of a kind looks the names up here. It sits below both, so neither imports
the other.
"""

from __future__ import annotations

from typing import Any

from anonspread.registry import Registry

__all__ = ["KINDS", "lookup"]

#: kind -> Registry of :class:`harness.Component` records.
KINDS: Registry[Registry[Any]] = Registry("component kind")


def lookup(kind: str, name: str) -> Any:
    """The component ``name`` of ``kind`` (unknown kinds and names suggest close ones).

    Parameters
    ----------
    kind : str
        A component kind (``"graph"``).
    name : str
        A registered name of that kind.

    Returns
    -------
    Component

    Examples
    --------
    >>> lookup("graph", "regular-3").description
    'the infinite 3-regular tree (regular-tree with d=3)'
    """
    return KINDS.get(kind).get(name)
