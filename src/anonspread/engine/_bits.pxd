# cython: language_level=3
"""Bit tricks on 64-bit words shared by the engine's Cython kernels: the index of the lowest
set bit and the number of set bits, the compiler's instruction where it has one (GCC,
clang), a portable loop otherwise. (``_softmargin`` keeps its own popcount, chosen at run
time for the machine's instruction set, and ``_scoring`` calls the builtin directly.)"""


cdef extern from *:
    """
    static inline int anonspread_ctz64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzll(x);
    #else
        int c = 0; while (!(x & 1ULL)) { x >>= 1; c++; } return c;
    #endif
    }
    static inline int anonspread_popcount64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_popcountll(x);
    #else
        int c = 0; while (x) { x &= x - 1; c++; } return c;
    #endif
    }
    """
    int anonspread_ctz64(unsigned long long x) nogil
    int anonspread_popcount64(unsigned long long x) nogil
