# cython: language_level=3
"""Log-space arithmetic shared by the engine's Cython kernels."""

from libc.math cimport INFINITY, exp, log1p


cdef inline double logaddexp(double a, double b) noexcept nogil:
    """``log(exp(a) + exp(b))`` without overflow; ``-inf`` is the log of zero."""
    if a == -INFINITY:
        return b
    if b == -INFINITY:
        return a
    if a > b:
        return a + log1p(exp(b - a))
    return b + log1p(exp(a - b))
