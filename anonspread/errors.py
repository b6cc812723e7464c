"""The one exception hierarchy of anonspread.

Every error raised on purpose by the project derives from :class:`AnonspreadError`,
and the ones about arguments also derive from the matching builtin
(:class:`ValueError` or :class:`TypeError`) so that ``except ValueError`` keeps
working for users who do not know our classes.
"""

__all__ = [
    "AnonspreadError",
    "DatasetError",
    "GraphError",
    "InfeasibleError",
    "InvalidParameterError",
    "InvalidTypeError",
    "UnknownNameError",
]


class AnonspreadError(Exception):
    """Base class of every error raised on purpose by anonspread."""


class InvalidParameterError(AnonspreadError, ValueError):
    """An argument has the right type but a value that is not accepted."""


class InvalidTypeError(AnonspreadError, TypeError):
    """An argument has a type that is not accepted."""


class GraphError(InvalidParameterError):
    """A contact graph (or a node of it) is not usable for the requested operation."""


class InfeasibleError(AnonspreadError, RuntimeError):
    """An optimisation problem has no solution (reported, never silently mis-solved)."""


class DatasetError(AnonspreadError, OSError):
    """A bundled data file is missing, corrupted or unreadable."""


class UnknownNameError(InvalidParameterError, KeyError):
    """A registry lookup failed; the message suggests the closest registered names."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
