"""anonspread: anonymous message spreading, source estimation and local privacy.

The distribution ships six packages. ``anonspread`` (this one) holds only what
the others share: the exception hierarchy and the argument checks, so that
every error in the project reads the same. The science lives in ``spread``
(protocols on contact graphs), ``adversaries`` (source estimators),
``privacy`` (local privacy mechanisms), ``harness`` (experiments, sweeps,
plots, CLI) and ``datasets`` (bundled real data).
"""

from importlib.metadata import PackageNotFoundError, version

from anonspread.errors import (
    AnonspreadError,
    DatasetError,
    GraphError,
    InfeasibleError,
    InvalidParameterError,
    InvalidTypeError,
)

try:
    __version__ = version("anonspread")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0+unknown"

__all__ = [
    "AnonspreadError",
    "DatasetError",
    "GraphError",
    "InfeasibleError",
    "InvalidParameterError",
    "InvalidTypeError",
    "__version__",
]
