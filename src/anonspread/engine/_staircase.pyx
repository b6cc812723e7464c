"""Pricing of staircase patterns, compiled (see :mod:`anonspread.engine.staircase`)."""

import numpy as np

from libc.math cimport INFINITY, expm1, exp, fabs, log1p, sqrt
from libc.stdint cimport int64_t


cdef void _subset_table(const double[::1] v, double[::1] out) noexcept nogil:
    """``out[i]`` = sum of ``v[t]`` over the bits ``t`` of ``i`` (``out`` has ``2^len(v)``)."""
    cdef Py_ssize_t n = v.shape[0], t, i, step
    out[0] = 0.0
    for t in range(n):
        step = 1 << t
        for i in range(step, 2 * step):
            out[i] = out[i - step] + v[t]


cdef inline double _mu(int kind, double lo, double D, double eps, double sa,
                       double sb) noexcept nogil:
    cdef double u = lo + D * sa, c, v, d, su
    if kind == 4:  # mutual information: sum_x P t log t - (P.t) log(P.t), c = P(not B)
        c = 1.0 - sa
        return -eps * lo * c - u * log1p(-D * c)
    v = lo + D * sb
    d = D * (sa - sb)  # u - v without cancellation
    if kind == 0:
        return u * log1p(d / v)
    if kind == 1:
        return 0.5 * fabs(d)
    if kind == 2:
        return d * d / v
    su = sqrt(u) + sqrt(v)
    return d * d / (su * su)


# Far above the rounding error of a reduced cost (a few ulps of numbers of order 1).
cdef double MARGIN = 1e-12


cdef inline void _scan(int kind, double lo, double D, double eps, double W,
                       const double[::1] la, const double[::1] lb, const double[::1] lw,
                       const double[::1] ha, const double[::1] hb, const double[::1] hw,
                       Py_ssize_t n_low, double[::1] best_rc,
                       int64_t[::1] best_idx) noexcept nogil:
    cdef Py_ssize_t h, low, n_l = la.shape[0]
    cdef double sa0, sb0, base, best, rc, sa, sb, u, v, x, rest, bound
    cdef int64_t arg
    for h in range(ha.shape[0]):
        sa0 = ha[h]
        sb0 = hb[h]
        base = lo * W + D * hw[h]
        best = -INFINITY
        arg = 0
        for low in range(1 if h == 0 else 0, n_l):
            # A pattern whose reduced cost cannot beat the best of its block is skipped
            # before its logarithm or square roots: KL's mu = u log1p(d / v) <= u d / v,
            # Hellinger's d^2 / (sqrt u + sqrt v)^2 <= d^2 / (u + v). The bound is rounded
            # differently from mu, so a pattern is skipped only when its bound is below the
            # best by far more than any rounding error (MARGIN, relative to the magnitudes
            # involved): the patterns found, and every reduced cost, are those of the plain scan.
            if kind == 0:
                sa = sa0 + la[low]
                sb = sb0 + lb[low]
                u = lo + D * sa
                v = lo + D * sb
                x = D * (sa - sb) / v
                rest = D * lw[low]
                bound = u * x
                if bound - base - rest + MARGIN * (1.0 + fabs(bound) + fabs(base) + fabs(rest)) <= best:
                    continue
                rc = u * log1p(x) - base - rest
            elif kind == 3:
                sa = sa0 + la[low]
                sb = sb0 + lb[low]
                u = lo + D * sa
                v = lo + D * sb
                x = D * (sa - sb)
                rest = D * lw[low]
                bound = x * x / (u + v)
                if bound - base - rest + MARGIN * (1.0 + fabs(bound) + fabs(base) + fabs(rest)) <= best:
                    continue
                rc = _mu(kind, lo, D, eps, sa, sb) - base - rest
            else:
                rc = _mu(kind, lo, D, eps, sa0 + la[low], sb0 + lb[low]) - base - D * lw[low]
            if rc > best:
                best = rc
                arg = low
        best_rc[h] = best
        best_idx[h] = (<int64_t> h << n_low) | arg


def price_blocks(int kind, const double[::1] a, const double[::1] b, const double[::1] w,
                 double eps, Py_ssize_t n_low, double[::1] best_rc, int64_t[::1] best_idx):
    """Best reduced cost ``mu(t) - w.t`` over each block of ``2^n_low`` scaled patterns."""
    cdef Py_ssize_t k = a.shape[0], x, n_l, n_h
    cdef double lo = exp(-eps), D = -expm1(-eps), W = 0.0
    for x in range(k):
        W += w[x]
    # Bit t of j is input k-1-t: reverse the vectors so that bit t indexes entry t.
    cdef double[::1] ar = np.ascontiguousarray(a[::-1])
    cdef double[::1] br = np.ascontiguousarray(b[::-1])
    cdef double[::1] wr = np.ascontiguousarray(w[::-1])
    n_l = 1 << n_low
    n_h = 1 << (k - n_low)
    cdef double[::1] la = np.empty(n_l), lb = np.empty(n_l), lw = np.empty(n_l)
    cdef double[::1] ha = np.empty(n_h), hb = np.empty(n_h), hw = np.empty(n_h)
    with nogil:
        _subset_table(ar[:n_low], la)
        _subset_table(br[:n_low], lb)
        _subset_table(wr[:n_low], lw)
        _subset_table(ar[n_low:], ha)
        _subset_table(br[n_low:], hb)
        _subset_table(wr[n_low:], hw)
        # one loop per utility, each with its kind a constant (the compiler specialises _mu)
        if kind == 0:
            _scan(0, lo, D, eps, W, la, lb, lw, ha, hb, hw, n_low, best_rc, best_idx)
        elif kind == 1:
            _scan(1, lo, D, eps, W, la, lb, lw, ha, hb, hw, n_low, best_rc, best_idx)
        elif kind == 2:
            _scan(2, lo, D, eps, W, la, lb, lw, ha, hb, hw, n_low, best_rc, best_idx)
        elif kind == 3:
            _scan(3, lo, D, eps, W, la, lb, lw, ha, hb, hw, n_low, best_rc, best_idx)
        else:
            _scan(4, lo, D, eps, W, la, lb, lw, ha, hb, hw, n_low, best_rc, best_idx)
