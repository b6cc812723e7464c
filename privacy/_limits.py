"""Size and range limits shared by :mod:`privacy`: requests that cannot fit are refused up front.

A request whose result (or working array) would not fit in memory is refused before
anything is allocated, with the size it would need: the project's one memory budget
(:func:`anonspread.spread.limits.memory_budget`, raisable with ``ANONSPREAD_MEMORY_LIMIT``
or :func:`~anonspread.spread.limits.raised_limits`); so is a closed form whose
probabilities would underflow double precision.
"""

from __future__ import annotations

from anonspread.errors import InvalidParameterError
from anonspread.spread.limits import check_size

__all__ = ["MAX_FINITE_EPS", "check_array_size", "check_finite_eps"]

#: Largest finite eps of the closed-form mechanisms: ``e^-eps`` must stay a normal double
#: (it is subnormal beyond ~708.4 and 0 beyond ~745, which would put exact zeros in the
#: matrix, i.e. an infinite privacy loss instead of eps). ``eps = inf`` (the deterministic
#: limit) stays accepted.
MAX_FINITE_EPS = 700.0


def check_array_size(n_entries: int, what: str, name: str, value: object) -> None:
    """Refuse a result of ``n_entries`` float64 values beyond the memory budget."""
    check_size(name, value, nbytes=8.0 * int(n_entries), what=what)


def check_finite_eps(eps: float, name: str = "eps") -> float:
    """Refuse a finite eps above :data:`MAX_FINITE_EPS` (``inf`` passes)."""
    if eps != float("inf") and eps > MAX_FINITE_EPS:
        raise InvalidParameterError(
            f"{name} must be at most {MAX_FINITE_EPS:g} or inf; got {eps!r} (e^-{name} underflows "
            "double precision beyond ~708, which would put zeros, an infinite privacy loss, "
            "in the mechanism; eps=inf gives the deterministic limit)"
        )
    return eps
