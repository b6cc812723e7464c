"""Size and range limits shared by :mod:`privacy`: requests that cannot fit are refused up front.

A request whose result (or working array) would not fit in memory is refused before
anything is allocated, with the size it would need; so is a closed form whose
probabilities would underflow double precision.
"""

from __future__ import annotations

from anonspread.errors import InvalidParameterError

__all__ = ["MAX_ARRAY_BYTES", "MAX_FINITE_EPS", "check_array_size", "check_finite_eps"]

#: Largest float64 array a privacy function allocates for one result (1 GiB).
MAX_ARRAY_BYTES = 1 << 30

#: Largest finite eps of the closed-form mechanisms: ``e^-eps`` must stay a normal double
#: (it is subnormal beyond ~708.4 and 0 beyond ~745, which would put exact zeros in the
#: matrix, i.e. an infinite privacy loss instead of eps). ``eps = inf`` (the deterministic
#: limit) stays accepted.
MAX_FINITE_EPS = 700.0


def _human(n_bytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n_bytes < 1024 or unit == "PiB":
            return f"{n_bytes:,.0f} {unit}" if unit == "bytes" else f"{n_bytes:,.1f} {unit}"
        n_bytes /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def check_array_size(n_entries: int, what: str, name: str, value: object) -> None:
    """Refuse a result of ``n_entries`` float64 values beyond :data:`MAX_ARRAY_BYTES`."""
    need = 8 * int(n_entries)
    if need > MAX_ARRAY_BYTES:
        raise InvalidParameterError(
            f"{name}={value!r} is too large: {what} needs {int(n_entries):,} float64 entries "
            f"({_human(need)}), more than the {_human(MAX_ARRAY_BYTES)} limit"
        )


def check_finite_eps(eps: float, name: str = "eps") -> float:
    """Refuse a finite eps above :data:`MAX_FINITE_EPS` (``inf`` passes)."""
    if eps != float("inf") and eps > MAX_FINITE_EPS:
        raise InvalidParameterError(
            f"{name} must be at most {MAX_FINITE_EPS:g} or inf; got {eps!r} (e^-{name} underflows "
            "double precision beyond ~708, which would put zeros, an infinite privacy loss, "
            "in the mechanism; eps=inf gives the deterministic limit)"
        )
    return eps
