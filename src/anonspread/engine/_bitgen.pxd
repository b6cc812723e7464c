# cython: language_level=3
"""Random draws of the engine's kernels, through numpy's bit-generator C API.

A kernel takes the caller's ``numpy.random.Generator``, holds its bit generator's lock and
draws from its ``bitgen_t`` without the GIL, so the Generator's stream advances exactly as
the same draws made through its Python methods would advance it: ``randint(bg, n)`` is
``Generator.integers(0, n)``, ``uniform(bg)`` is ``Generator.random()`` and
``exponential(bg, scale)`` is ``Generator.exponential(scale)``, draw for draw (numpy's own
C functions, from its ``npyrandom`` library).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport int64_t, uint64_t
from numpy.random cimport bitgen_t
from numpy.random.c_distributions cimport (
    random_bounded_uint64,
    random_standard_exponential,
    random_standard_uniform,
)


cdef inline bitgen_t* bitgen_of(object gen) except NULL:
    """The ``bitgen_t`` of a ``numpy.random.Generator`` (hold ``gen.bit_generator.lock``)."""
    capsule = gen.bit_generator.capsule
    if not PyCapsule_IsValid(capsule, "BitGenerator"):
        raise TypeError(f"rng must be a numpy.random.Generator; got {gen!r}")
    return <bitgen_t*> PyCapsule_GetPointer(capsule, "BitGenerator")


cdef inline int64_t randint(bitgen_t* bg, int64_t n) noexcept nogil:
    """Uniform on ``{0, ..., n - 1}`` (``n >= 1``): ``Generator.integers(0, n)``."""
    return <int64_t> random_bounded_uint64(bg, 0, <uint64_t> (n - 1), 0, False)


cdef inline double uniform(bitgen_t* bg) noexcept nogil:
    """Uniform on ``[0, 1)``: ``Generator.random()``."""
    return random_standard_uniform(bg)


cdef inline double exponential(bitgen_t* bg, double scale) noexcept nogil:
    """Exponential of mean ``scale``: ``Generator.exponential(scale)``."""
    return scale * random_standard_exponential(bg)
