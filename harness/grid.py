"""Parameter grids: products of axes and zipped (lock-step) axes.

A :class:`Grid` stores the axes; :func:`expand` turns it into the ordered list
of parameter points, and :meth:`Grid.with_values` overrides some axes (the CLI's
``--set key=value``).  Points are ordered with the last axis varying fastest,
product axes first and the zipped group last, so a point's index (which seeds
its random streams) depends on the grid only.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["Grid", "Scalar", "check_grid", "expand", "grid_size", "is_axis_name"]

Scalar = str | int | float | bool
"""The types a grid value may take (values must be printable in a CSV cell)."""


@dataclass(frozen=True)
class Grid:
    """A parameter grid: the product of ``product`` axes times one ``zip`` group.

    Parameters
    ----------
    product : mapping of str to sequence
        Each axis is crossed with every other axis.
    zip : mapping of str to sequence
        Axes that vary together (all of the same length); the group is crossed with
        the product axes as one more axis.

    Examples
    --------
    >>> g = Grid(product={"k": [2, 4]}, zip={"n": [10, 20], "m": [1, 2]})
    >>> [tuple(p.values()) for p in expand(g)]
    [(2, 10, 1), (2, 20, 2), (4, 10, 1), (4, 20, 2)]
    """

    product: Mapping[str, Sequence[Scalar]] = field(default_factory=dict)
    zip: Mapping[str, Sequence[Scalar]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """Parameter names in column order (product axes, then the zipped ones)."""
        return (*self.product, *self.zip)

    def with_values(self, overrides: Mapping[str, Sequence[Scalar]]) -> Grid:
        """Return a copy with some axes replaced (a one-value list fixes a parameter).

        Parameters
        ----------
        overrides : mapping of str to sequence
            New values of existing axes. One value for a zipped axis is repeated
            along its group.

        Returns
        -------
        Grid

        Raises
        ------
        InvalidParameterError
            If a name is not a parameter of the grid (the message lists them) or a
            zipped axis would lose its lock-step length.

        Examples
        --------
        >>> g = Grid(product={"k": [2, 4]}, zip={"n": [10, 20], "m": [1, 2]})
        >>> g.with_values({"n": [30]})
        Grid(product={'k': [2, 4]}, zip={'n': [30, 30], 'm': [1, 2]})
        """
        from anonspread.registry import suggest

        product = {k: list(v) for k, v in self.product.items()}
        zipped = {k: list(v) for k, v in self.zip.items()}
        for key, values in overrides.items():
            if key in product:
                product[key] = list(values)
            elif key in zipped:
                zipped[key] = list(values)
            else:
                raise InvalidParameterError(
                    f"unknown parameter {key!r}{suggest(key, self.names)}; "
                    f"the grid has: {', '.join(self.names) or '(none)'}"
                )
        lengths = {len(v) for v in zipped.values()}
        if len(lengths) > 1:
            # Setting one zipped axis to a single value broadcasts it over the group.
            longest = max(lengths)
            for key, values in zipped.items():
                if len(values) == 1 and key in overrides:
                    zipped[key] = values * longest
        return Grid(product=product, zip=zipped)

    def to_dict(self) -> dict[str, dict[str, list[Scalar]]]:
        """A JSON-ready copy (used in the sidecar file)."""
        return {
            "product": {k: list(v) for k, v in self.product.items()},
            "zip": {k: list(v) for k, v in self.zip.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Grid:
        """Inverse of :meth:`to_dict` (unknown keys are rejected).

        Parameters
        ----------
        data : mapping
            ``{"product": {...}, "zip": {...}}``; either key may be missing.

        Returns
        -------
        Grid
        """
        extra = set(data) - {"product", "zip"}
        if extra:
            raise InvalidParameterError(
                f"grid must have only the keys 'product' and 'zip'; got {sorted(extra)}"
            )
        return cls(product=dict(data.get("product", {})), zip=dict(data.get("zip", {})))


def _check_value(name: str, value: Any) -> None:
    if isinstance(value, bool | str | numbers.Integral):
        return
    if isinstance(value, numbers.Real):
        if math.isnan(float(value)):
            raise InvalidParameterError(f"grid values of {name!r} must not be NaN; got {value!r}")
        return
    raise InvalidTypeError(
        f"grid values of {name!r} must be str, int, float or bool; got {value!r} "
        f"({type(value).__name__})"
    )


def is_axis_name(name: Any) -> bool:
    """An identifier, or ``component.parameter`` (``graph.n``).

    Parameters
    ----------
    name : object
        A would-be axis name.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_axis_name("T"), is_axis_name("graph.n"), is_axis_name("graph.n.x")
    (True, True, False)
    """
    return isinstance(name, str) and 1 <= len(name.split(".")) <= 2 and all(
        part.isidentifier() for part in name.split("."))


def check_grid(grid: Any) -> Grid:
    """Validate a grid (the one place grids are checked) and return it.

    Parameters
    ----------
    grid : object
        Should be a :class:`Grid` of non-empty axes, identifiers (or ``component.param``)
        as names, str/int/float/bool values, zipped axes of one length.

    Returns
    -------
    Grid
        ``grid``.

    Raises
    ------
    InvalidTypeError, InvalidParameterError
        With a one-line message naming the offending axis.
    """
    if not isinstance(grid, Grid):
        raise InvalidTypeError(f"grid must be a harness.Grid; got {type(grid).__name__}")
    seen: set[str] = set()
    for part in ("product", "zip"):
        axes = getattr(grid, part)
        if not isinstance(axes, Mapping):
            raise InvalidTypeError(f"grid.{part} must be a mapping name -> values; got {axes!r}")
        for name, values in axes.items():
            if not is_axis_name(name):
                raise InvalidParameterError(
                    "grid parameter names must be identifiers, or component parameters "
                    f"written component.parameter; got {name!r}"
                )
            if name in seen:
                raise InvalidParameterError(f"grid parameter {name!r} appears twice")
            seen.add(name)
            if isinstance(values, str | bytes) or not isinstance(values, Sequence):
                raise InvalidTypeError(
                    f"grid.{part}[{name!r}] must be a list of values; got {values!r}"
                )
            if len(values) == 0:
                raise InvalidParameterError(f"grid.{part}[{name!r}] must not be empty")
            for value in values:
                _check_value(name, value)
    lengths = {name: len(v) for name, v in grid.zip.items()}
    if len(set(lengths.values())) > 1:
        raise InvalidParameterError(
            f"zipped grid axes must have equal lengths; got {lengths}"
        )
    return grid


def grid_size(grid: Grid) -> int:
    """Number of points of ``grid`` (computed without expanding it).

    Parameters
    ----------
    grid : Grid
        A checked grid.

    Returns
    -------
    int

    Examples
    --------
    >>> grid_size(Grid(product={"k": [2, 4], "T": [1, 2, 3]},
    ...                zip={"n": [10, 20], "m": [1, 2]}))
    12
    """
    n = 1
    for values in grid.product.values():
        n *= len(values)
    if grid.zip:
        n *= len(next(iter(grid.zip.values())))
    return n


def expand(grid: Grid) -> list[dict[str, Scalar]]:
    """Expand a grid into its ordered list of parameter points (dicts).

    Parameters
    ----------
    grid : Grid
        The grid (product axes crossed with the zipped ones).

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.expand(harness.Grid(product={"a": [1, 2], "b": ["x"]}))
    [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
    """
    check_grid(grid)
    axes: list[list[dict[str, Scalar]]] = [
        [{name: v} for v in values] for name, values in grid.product.items()
    ]
    if grid.zip:
        names = list(grid.zip)
        axes.append([dict(zip(names, vals)) for vals in zip(*grid.zip.values())])
    points = []
    for combo in itertools.product(*axes):
        point: dict[str, Scalar] = {}
        for part in combo:
            point.update(part)
        points.append(point)
    return points
