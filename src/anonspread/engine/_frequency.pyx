"""Support counting of local hashing (OLH/BLH) reports (see :mod:`anonspread.engine.frequency`).

A report ``(a, b, y)`` supports every value ``i`` in ``range(k)`` whose hash
``((a i + b) mod P) mod g`` equals ``y``, with ``P = 2^31 - 1``. Counting the support of ``n``
reports visits ``n k`` hashes; the loop walks ``u = (a i + b) mod P`` by additions (no
multiplication, no division by ``P``) and reduces modulo ``g`` with Lemire's multiply-shift
remainder (exact for 32-bit operands), so one hash costs a few cycles."""

from cython.parallel cimport prange, threadid
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t

from anonspread.engine._bitgen cimport bitgen_of, randint
from anonspread.engine._bits cimport anonspread_ctz64


cdef extern from *:
    """
    static inline uint32_t anonspread_fastmod_u32(uint32_t a, uint64_t M, uint32_t d) {
        uint64_t lowbits = M * a;
        return (uint32_t)(((__uint128_t)lowbits * d) >> 64);
    }
    """
    uint32_t anonspread_fastmod_u32(uint32_t a, uint64_t M, uint32_t d) nogil

cdef extern from *:
    """
    #ifdef _OPENMP
    #define ANONSPREAD_FQ_OPENMP 1
    #else
    #define ANONSPREAD_FQ_OPENMP 0
    #endif
    """
    int ANONSPREAD_FQ_OPENMP

#: The prime modulus of the hash family (a Mersenne prime).
HASH_PRIME = 2147483647
#: Whether this build counts on OpenMP threads.
OPENMP = bool(ANONSPREAD_FQ_OPENMP)


cdef inline void _olh_one(uint64_t u, uint64_t step, uint32_t yj, int64_t k, uint32_t g,
                          uint64_t M, int64_t* out) noexcept nogil:
    cdef int64_t i
    cdef uint64_t P = 2147483647  # HASH_PRIME
    for i in range(k):
        if anonspread_fastmod_u32(<uint32_t>u, M, g) == yj:
            out[i] += 1
        u += step
        if u >= P:
            u -= P


def olh_support(const uint32_t[::1] a, const uint32_t[::1] b, const uint32_t[::1] y,
                int64_t k, uint32_t g, int64_t[::1] out, int64_t[:, ::1] partial):
    """Add to ``out[i]`` the number of reports ``j`` with ``((a[j] i + b[j]) mod P) mod g == y[j]``.

    ``partial`` has one zeroed row of ``k`` counts per thread (``partial.shape[0]`` threads,
    OpenMP ``prange`` over the reports when built with OpenMP and more than one row); the
    rows are added to ``out`` at the end. Unchecked: the public wrapper checks shapes,
    dtypes and ranges."""
    cdef Py_ssize_t n = a.shape[0], j
    cdef int nthr = <int>partial.shape[0], t
    cdef int64_t i
    cdef uint64_t M = (<uint64_t>0xFFFFFFFFFFFFFFFF) // g + 1
    with nogil:
        if nthr <= 1:
            for j in range(n):
                _olh_one(b[j], a[j], y[j], k, g, M, &out[0])
        else:
            for j in prange(n, num_threads=nthr, schedule="static", chunksize=4096):
                _olh_one(b[j], a[j], y[j], k, g, M, &partial[threadid(), 0])
            for t in range(nthr):
                for i in range(k):
                    out[i] += partial[t, i]


# ----------------------------------------------------------------- unary encoding

cdef inline uint64_t _bernoulli64(bitgen_t* bg, const uint8_t* digits, int ndigits) noexcept nogil:
    """64 independent Bernoulli(q) lanes, exactly: lane ``l`` compares the binary digits of a
    uniform ``U_l`` with those of ``q`` (``digits[j]`` = digit ``j + 1``) and is 1 iff ``U_l < q``;
    all lanes are compared at once, one 64-bit word of random digits per digit position, until
    every lane is decided (after the last 1-digit of ``q`` an undecided lane has ``U_l >= q``)."""
    cdef uint64_t result = 0, undecided = 0xFFFFFFFFFFFFFFFF, r
    cdef int j
    for j in range(ndigits):
        r = bg.next_uint64(bg.state)
        if digits[j]:
            result |= undecided & ~r
            undecided &= r
        else:
            undecided &= ~r
        if undecided == 0:
            break
    return result


def ue_sample(const int64_t[::1] values, int64_t k, const uint8_t[::1] p_digits,
              const uint8_t[::1] q_digits, object rng, uint8_t[:, ::1] bits, int64_t[::1] counts,
              int store):
    """Unary-encoding reports: bit ``i`` of user ``j`` is Bernoulli(p) if ``i == values[j]`` and
    Bernoulli(q) otherwise (``p``, ``q`` given by their binary digits, exactly); adds the column
    sums to ``counts``. ``store`` 1: writes the bits to ``bits[j, :]`` one byte each (zeroed by
    the caller); 2: packed, bit ``i`` in bit ``i % 8`` of byte ``bits[j, i // 8]`` (numpy's
    ``packbits(bitorder="little")``); 0: not at all.

    Unchecked: the public wrapper checks shapes, dtypes and ranges."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef Py_ssize_t n = values.shape[0], j
    cdef int64_t base, i, x, b, nbytes
    cdef uint64_t w
    cdef int nq = q_digits.shape[0], np_ = p_digits.shape[0]
    with rng.bit_generator.lock, nogil:
        for j in range(n):
            x = values[j]
            base = 0
            while base < k:
                w = _bernoulli64(bg, &q_digits[0], nq)
                if k - base < 64:
                    w &= ((<uint64_t>1) << (k - base)) - 1
                if base <= x < base + 64:
                    w &= ~((<uint64_t>1) << (x - base))
                    if _bernoulli64(bg, &p_digits[0], np_) & 1:
                        w |= (<uint64_t>1) << (x - base)
                if store == 2:
                    nbytes = (k - base + 7) // 8
                    if nbytes > 8:
                        nbytes = 8
                    for b in range(nbytes):
                        bits[j, base // 8 + b] = <uint8_t>((w >> (8 * b)) & 0xFF)
                while w:
                    i = base + anonspread_ctz64(w)
                    counts[i] += 1
                    if store == 1:
                        bits[j, i] = 1
                    w &= w - 1
                base += 64


# ----------------------------------------------------------------- subset selection


def ss_sample(const int64_t[::1] values, int64_t k, int64_t d, double p_in, object rng,
              int32_t[:, ::1] out, int64_t[::1] counts, uint8_t[::1] mark, int64_t[::1] chosen,
              bint store):
    """Subset-selection reports: with probability ``p_in`` the user's value and ``d - 1``
    values drawn uniformly without replacement from the ``k - 1`` others, else ``d`` of them
    (Floyd's algorithm over the others, O(d) per user); adds each reported value to
    ``counts`` and, if ``store``, writes the ``d`` values to ``out[j, :]``. ``mark`` (``k``
    bytes, zeroed, left zeroed) and ``chosen`` (``d`` entries) are scratch arrays.

    The inclusion draw is ``Generator.random() < p_in``.
    Unchecked: the public wrapper checks shapes, dtypes and ranges."""
    cdef bitgen_t* bg = bitgen_of(rng)
    cdef Py_ssize_t n = values.shape[0], j
    cdef int64_t x, m, t, v, c, jj, i
    with rng.bit_generator.lock, nogil:
        for j in range(n):
            x = values[j]
            c = 0
            if bg.next_double(bg.state) < p_in:
                m = d - 1
                if store:
                    out[j, 0] = <int32_t>x
                c = 1
                counts[x] += 1
            else:
                m = d
            # Floyd: a uniform m-subset of {0, ..., k-2}, mapped onto the values other than x
            i = 0
            for jj in range(k - 1 - m, k - 1):
                t = randint(bg, jj + 1)
                if mark[t]:
                    t = jj
                mark[t] = 1
                chosen[i] = t
                i += 1
                v = t + 1 if t >= x else t
                counts[v] += 1
                if store:
                    out[j, c] = <int32_t>v
                c += 1
            for i in range(m):
                mark[chosen[i]] = 0
