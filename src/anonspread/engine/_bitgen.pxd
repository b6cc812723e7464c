# cython: language_level=3
"""Random draws of the engine's kernels, through numpy's bit-generator C API.

A kernel takes the caller's ``numpy.random.Generator``, holds its bit generator's lock and
draws from its ``bitgen_t`` without the GIL, so the Generator's stream advances exactly as
the same draws made through its Python methods would advance it: ``randint(bg, n)`` is
``Generator.integers(0, n)``, ``uniform(bg)`` is ``Generator.random()`` and
``exponential(bg, scale)`` is ``Generator.exponential(scale)``, draw for draw (numpy's own
C functions, from its ``npyrandom`` library; ``randint`` writes out the branch of numpy's
bounded draw that ranges below 2**32 take, word for word).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport int64_t, uint32_t, uint64_t
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
    """Uniform on ``{0, ..., n - 1}`` (``n >= 1``): ``Generator.integers(0, n)``.

    numpy's ``random_bounded_uint64(bg, 0, n - 1, 0, False)`` written out for
    ``n - 1 < 2**32 - 1`` (its Lemire branch: one 32-bit word scaled by ``n``, redrawn
    while the low half falls below ``2**32 mod n``; nothing drawn for ``n = 1``), so the
    common draw costs no call into numpy's library; larger ranges call it. The same words
    are consumed and the same values returned (``tests/spread/test_spread_relay_kernel.py``
    compares them with ``Generator.integers``).
    """
    cdef uint64_t rng = <uint64_t> (n - 1), m
    cdef uint32_t excl, leftover, threshold
    if rng == 0:
        return 0
    if rng >= 0xFFFFFFFFULL:
        return <int64_t> random_bounded_uint64(bg, 0, rng, 0, False)
    excl = <uint32_t> n
    m = <uint64_t> bg.next_uint32(bg.state) * excl
    leftover = <uint32_t> m
    if leftover < excl:
        threshold = (<uint32_t> 0xFFFFFFFFU - <uint32_t> rng) % excl
        while leftover < threshold:
            m = <uint64_t> bg.next_uint32(bg.state) * excl
            leftover = <uint32_t> m
    return <int64_t> (m >> 32)


cdef inline double uniform(bitgen_t* bg) noexcept nogil:
    """Uniform on ``[0, 1)``: ``Generator.random()``."""
    return random_standard_uniform(bg)


cdef inline double exponential(bitgen_t* bg, double scale) noexcept nogil:
    """Exponential of mean ``scale``: ``Generator.exponential(scale)``."""
    return scale * random_standard_exponential(bg)
