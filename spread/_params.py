"""A base for small objects defined by their parameters (protocols, delay models)."""

from __future__ import annotations

from typing import Any

__all__ = ["Parametrized"]


class Parametrized:
    """Equality, hashing and ``repr`` from the parameters returned by :meth:`_params`.

    Subclasses store their (validated) parameters in ``__init__`` and return them as a
    dict from ``_params``; two instances are equal when their types and parameters are.
    """

    def _params(self) -> dict[str, Any]:
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._params() == other._params()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._params().items()))))
