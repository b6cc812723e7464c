"""Support counting of local hashing (OLH/BLH) reports (see :mod:`anonspread.engine.frequency`).

A report ``(a, b, y)`` supports every value ``i`` in ``range(k)`` whose hash
``((a i + b) mod P) mod g`` equals ``y``, with ``P = 2^31 - 1``. Counting the support of ``n``
reports visits ``n k`` hashes; the loop walks ``u = (a i + b) mod P`` by additions (no
multiplication, no division by ``P``) and reduces modulo ``g`` with Lemire's multiply-shift
remainder (exact for 32-bit operands), so one hash costs a few cycles."""

from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef extern from *:
    """
    static inline uint32_t anonspread_fastmod_u32(uint32_t a, uint64_t M, uint32_t d) {
        uint64_t lowbits = M * a;
        return (uint32_t)(((__uint128_t)lowbits * d) >> 64);
    }
    """
    uint32_t anonspread_fastmod_u32(uint32_t a, uint64_t M, uint32_t d) nogil

#: The prime modulus of the hash family (a Mersenne prime).
HASH_PRIME = 2147483647


def olh_support(const uint32_t[::1] a, const uint32_t[::1] b, const uint32_t[::1] y,
                int64_t k, uint32_t g, int64_t[::1] out):
    """Add to ``out[i]`` the number of reports ``j`` with ``((a[j] i + b[j]) mod P) mod g == y[j]``.

    Unchecked: the public wrapper checks shapes, dtypes and ranges."""
    cdef Py_ssize_t n = a.shape[0], j
    cdef int64_t i
    cdef uint64_t u, step, P = HASH_PRIME
    cdef uint64_t M = (<uint64_t>0xFFFFFFFFFFFFFFFF) // g + 1
    cdef uint32_t yj
    with nogil:
        for j in range(n):
            u = b[j]
            step = a[j]
            yj = y[j]
            for i in range(k):
                if anonspread_fastmod_u32(<uint32_t>u, M, g) == yj:
                    out[i] += 1
                u += step
                if u >= P:
                    u -= P
