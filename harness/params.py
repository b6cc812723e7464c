"""Typed parameters: what a grid axis or a component parameter accepts.

Every sweep axis has a declared type, and every value is checked against it before
anything runs (``--set T=2.5`` on an integer axis is refused, naming the axis, the
value and the type, instead of running at ``T = 2`` under the label 2.5). A
:class:`Param` declares the type, the default, bounds or choices, and, for axes that
name a registered component, its kind.

Values typed on the command line arrive as :class:`CliText` (a ``str`` subclass that
marks "not parsed yet") and are parsed by the axis's type: ``"10"`` stays the string
``"10"`` on a string axis and becomes the integer 10 on an integer one. Values from
Python and TOML are already typed and are only checked (an ``int`` is accepted where a
``float`` is declared and stored as that float; nothing else is converted).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.harness.kinds import lookup

__all__ = ["REQUIRED", "CliText", "Param", "check_params", "infer_param"]


class _Required:
    """The type of :data:`REQUIRED`, the default of a parameter the user must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""Default of a parameter the user must give."""

_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


class CliText(str):
    """A value typed on the command line, parsed by the axis it is given to."""

    __slots__ = ()


@dataclass(frozen=True)
class Param:
    """A typed parameter (a grid axis, or a parameter of a registered component).

    Parameters
    ----------
    type : {"int", "float", "str", "bool", "any"}
        Accepted type. ``"float"`` accepts ints (stored as floats); ``"any"`` accepts
        every grid scalar (axes whose values mix types).
    default : scalar, None or REQUIRED
        Used when the axis is not given; ``None`` means "automatic" (the component
        decides, and says what it chose in the result JSON).
    low, high : float, optional
        Inclusive bounds of numeric values.
    choices : tuple, optional
        The accepted values.
    kind : str, optional
        The value names a registered component of this kind (``"graph"``...).
    allow_inf : bool
        Accept ``inf`` (e.g. ``d0 = inf``); NaN is never accepted.
    doc : str
        One line for ``anonspread sweep --list`` and the docs.
    validate : callable, optional
        Checks a value the type accepts and returns it in canonical form (e.g. the
        ``stop`` axis: :func:`spread.reach.parse_reach`); an
        :class:`~anonspread.errors.InvalidParameterError` it raises names the axis.

    Examples
    --------
    >>> Param("int", 3, low=1).check("graph.d", CliText("4"))
    4
    >>> Param("int", 3, low=1).check("T", 2.5)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidTypeError: axis 'T' takes an integer >= 1; got 2.5 (float)
    """

    type: str
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    choices: tuple | None = None
    kind: str | None = None
    allow_inf: bool = False
    doc: str = ""
    validate: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.type not in (*_TYPES, "any"):
            raise InvalidParameterError(
                f"Param type must be one of {sorted((*_TYPES, 'any'))}; got {self.type!r}"
            )

    # -- description
    def describe(self) -> str:
        """What is accepted, in words (used in every error message)."""
        if self.kind is not None:
            return f"the name of a registered {self.kind}"
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        noun = {"int": "an integer", "float": "a real number", "str": "a string",
                "bool": "true or false", "any": "a number, string or boolean"}[self.type]
        if self.type in ("int", "float"):
            if self.low is not None and self.high is not None:
                noun += f" in [{_num(self.low)}, {_num(self.high)}]"
            elif self.low is not None:
                noun += f" >= {_num(self.low)}"
            elif self.high is not None:
                noun += f" <= {_num(self.high)}"
            if self.type == "float" and self.allow_inf:
                noun += " (inf allowed)"
        return noun

    def default_text(self) -> str:
        """The default as shown to users."""
        if self.default is REQUIRED:
            return "required"
        if self.default is None:
            return "auto"
        return repr(self.default)

    # -- checking
    def parse(self, name: str, text: str) -> Any:
        """Parse command-line text by this type (then :meth:`check` it).

        Parameters
        ----------
        name : str
            The axis or parameter name (for the error message).
        text : str
            The text typed (``"true"``/``"false"`` for a bool; ``"inf"`` is a float).

        Returns
        -------
        int, float, str or bool
            The parsed, not yet checked, value.

        Examples
        --------
        >>> Param("bool").parse("cache", "True")
        True
        >>> Param("float", allow_inf=True).parse("d0", "inf")
        inf
        """
        raw = str(text).strip()
        if not raw:
            raise InvalidParameterError(f"axis {name!r} takes {self.describe()}; got an empty value")
        kind = self.type
        if kind == "any":
            return _guess(raw)
        if kind == "str":
            return raw
        if kind == "bool":
            low = raw.lower()
            if low in ("true", "false"):
                return low == "true"
            raise InvalidParameterError(f"axis {name!r} takes {self.describe()}; got {raw!r}")
        if kind == "int":
            try:
                return int(raw)
            except ValueError:
                raise InvalidParameterError(
                    f"axis {name!r} takes {self.describe()}; got {raw!r} (not an integer)"
                ) from None
        try:
            return float(raw)
        except ValueError:
            raise InvalidParameterError(
                f"axis {name!r} takes {self.describe()}; got {raw!r} (not a number)"
            ) from None

    def check(self, name: str, value: Any) -> Any:
        """Return ``value`` if this parameter accepts it (CLI text is parsed first).

        Parameters
        ----------
        name : str
            The axis or parameter name (for the error message).
        value : object
            The value, or :class:`CliText` to parse first.

        Returns
        -------
        int, float, str or bool
            ``value`` (an int given to a float parameter becomes a float).

        Raises
        ------
        InvalidTypeError
            The value has the wrong type (``T = 2.5``, ``eps = True``).
        InvalidParameterError
            Out of bounds, not a choice, unparsable text, NaN or an unknown component.
        """
        if isinstance(value, CliText):
            value = self.parse(name, value)
        got = f"{value!r} ({type(value).__name__})"
        kind = self.type
        if kind == "bool":
            if not isinstance(value, bool):
                raise InvalidTypeError(f"axis {name!r} takes {self.describe()}; got {got}")
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                if isinstance(value, float) and math.isinf(value):
                    raise InvalidParameterError(
                        f"axis {name!r} takes {self.describe()}; got {value!r} (out of range)")
                raise InvalidTypeError(f"axis {name!r} takes {self.describe()}; got {got}")
            value = int(value)
        elif kind == "float":
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise InvalidTypeError(f"axis {name!r} takes {self.describe()}; got {got}")
            value = float(value)
            if math.isnan(value) or (math.isinf(value) and not self.allow_inf):
                raise InvalidParameterError(
                    f"axis {name!r} takes {self.describe()}; got {value!r} (not finite)")
        elif kind == "str":
            if not isinstance(value, str):
                raise InvalidTypeError(f"axis {name!r} takes {self.describe()}; got {got}")
            value = str(value)
        else:
            if not isinstance(value, bool | str | numbers.Real):
                raise InvalidTypeError(f"axis {name!r} takes {self.describe()}; got {got}")
            if isinstance(value, numbers.Real) and not isinstance(value, bool | numbers.Integral):
                value = float(value)
                if math.isnan(value):
                    raise InvalidParameterError(f"axis {name!r} must not be NaN")
        if kind in ("int", "float"):
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise InvalidParameterError(f"axis {name!r} takes {self.describe()}; got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise InvalidParameterError(f"axis {name!r} takes {self.describe()}; got {value!r}")
        if self.kind is not None:
            try:
                lookup(self.kind, value)
            except InvalidParameterError as exc:
                raise type(exc)(f"axis {name!r}: {exc}") from None
        if self.validate is not None:
            try:
                value = self.validate(value)
            except InvalidParameterError as exc:
                raise type(exc)(f"axis {name!r}: {exc}") from None
        return value

    def check_all(self, name: str, values: Sequence[Any]) -> list[Any]:
        """:meth:`check` every value of an axis.

        Parameters
        ----------
        name : str
            The axis or parameter name (for the error message).
        values : sequence
            The axis's values.

        Returns
        -------
        list

        Examples
        --------
        >>> Param("float", low=0).check_all("eps", [1, 0.5])
        [1.0, 0.5]
        """
        return [self.check(name, v) for v in values]


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


def _guess(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if isinstance(value, float) and math.isnan(value):
            break
        return value
    return text


def infer_param(values: Sequence[Any]) -> Param:
    """The type of an axis declared only by its values (a registered experiment's grid).

    All bools: ``bool``; all ints: ``int``; ints and floats: ``float``; all strings:
    ``str``; a mix: ``any``. Infinite floats in the declared values allow ``inf``.

    Parameters
    ----------
    values : sequence
        The axis's declared values.

    Returns
    -------
    Param
        Without default, bounds or choices.

    Examples
    --------
    >>> [infer_param(v).type for v in ([2, 4], [0.5, 1], ["a", 1])]
    ['int', 'float', 'any']
    """
    kinds = {type(v).__name__ for v in values}
    if kinds <= {"bool"}:
        return Param("bool")
    if kinds <= {"int"}:
        return Param("int")
    if kinds <= {"int", "float"}:
        return Param("float", allow_inf=any(isinstance(v, float) and math.isinf(v) for v in values))
    if kinds <= {"str"}:
        return Param("str")
    return Param("any")


def check_params(declared: Mapping[str, Param], values: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
    """Check every axis of ``values`` against its declaration (undeclared axes pass).

    Parameters
    ----------
    declared : mapping of str to Param
        The declared axes.
    values : mapping of str to sequence
        Axis name -> its values.

    Returns
    -------
    dict of str to list
        The checked values.

    Examples
    --------
    >>> check_params({"T": Param("int", low=1)}, {"T": [CliText("2"), 4], "other": ["x"]})
    {'T': [2, 4], 'other': ['x']}
    """
    return {k: (declared[k].check_all(k, v) if k in declared else list(v)) for k, v in values.items()}
