"""numba kernels for pricing staircase patterns (used by :mod:`privacy.staircase`).

Imported lazily: compiling (or loading the cached compilation of) these kernels is the only
numba work in :mod:`privacy`.

A staircase pattern (Def. 3.2.3) is ``s = 1 + (e^eps - 1) 1_B`` for a subset ``B`` of the
inputs. The kernels price it scaled by ``e^-eps`` (every ``mu`` here is positively
homogeneous), as ``t = lo + D 1_B`` with ``lo = e^-eps`` and ``D = 1 - e^-eps``: entries in
``[0, 1]`` at every eps, so no quantity grows like ``e^eps`` (at eps = 30 the unscaled
reduced costs were differences of numbers near 1e13). The utilities with a ``_kind`` code
have ``mu(t)`` depending on ``t`` only through one or two subset sums (``P0(B), P1(B)`` for
f-divergences, ``P(B)`` for mutual information), written so that the ``O(eps^2)`` values
at small eps do not come from cancelling ``O(1)`` terms where avoidable, and the dual term
``w.t = lo sum(w) + D w(B)`` is a subset sum too. The
kernel enumerates all ``2^k`` subsets as ``high * 2^L + low``: subset sums of the ``L`` low
and ``k - L`` high inputs are tabulated once (``O(2^L + 2^(k-L))`` memory), so each pattern
costs two additions per sum, with one rounding only, and no Gray-code drift.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = ["KIND_CHI2", "KIND_HELLINGER", "KIND_KL", "KIND_MI", "KIND_TV", "price_blocks"]

KIND_KL = 0
KIND_TV = 1
KIND_CHI2 = 2
KIND_HELLINGER = 3
KIND_MI = 4


@njit(cache=True)
def _subset_table(v):
    n = v.size
    out = np.zeros(1 << n)
    for t in range(n):
        step = 1 << t
        for i in range(step, 2 * step):
            out[i] = out[i - step] + v[t]
    return out


@njit(cache=True, inline="always")
def _mu(kind, lo, D, eps, sa, sb):
    u = lo + D * sa
    if kind == 4:  # mutual information: sum_x P t log t - (P.t) log(P.t), c = P(not B)
        c = 1.0 - sa
        return -eps * lo * c - u * math.log1p(-D * c)
    v = lo + D * sb
    d = D * (sa - sb)  # u - v without cancellation
    if kind == 0:
        return u * math.log1p(d / v)
    if kind == 1:
        return 0.5 * abs(d)
    if kind == 2:
        return d * d / v
    su = math.sqrt(u) + math.sqrt(v)
    return d * d / (su * su)


@njit(cache=True)
def price_blocks(kind, a, b, w, eps, n_low, best_rc, best_idx):
    """Best reduced cost ``mu(t) - w.t`` over each block of ``2^n_low`` scaled patterns.

    ``t = e^-eps s`` is the staircase pattern ``s`` scaled to entries ``e^-eps`` and 1,
    and ``w`` the duals of the master LP written in the scaled patterns. Pattern index
    ``j`` follows Definition 3.2.3: input ``x`` is in ``B`` when bit ``k - 1 - x`` of
    ``j`` is set. Block ``h`` holds ``j = h * 2^n_low + l``; its best reduced cost and
    index are written to ``best_rc[h]`` and ``best_idx[h]``. Pattern 0 (``B`` empty, a
    multiple of the all-ones pattern) is skipped.
    """
    k = a.size
    lo = math.exp(-eps)
    D = -math.expm1(-eps)
    W = 0.0
    for x in range(k):
        W += w[x]
    # Bit t of j is input k-1-t: reverse the vectors so that bit t indexes entry t.
    ar = a[::-1].copy()
    br = b[::-1].copy()
    wr = w[::-1].copy()
    la = _subset_table(ar[:n_low])
    lb = _subset_table(br[:n_low])
    lw = _subset_table(wr[:n_low])
    ha = _subset_table(ar[n_low:])
    hb = _subset_table(br[n_low:])
    hw = _subset_table(wr[n_low:])
    n_l = la.size
    for h in range(ha.size):
        sa0 = ha[h]
        sb0 = hb[h]
        base = lo * W + D * hw[h]
        best = -np.inf
        arg = 0
        for low in range(1 if h == 0 else 0, n_l):
            rc = _mu(kind, lo, D, eps, sa0 + la[low], sb0 + lb[low]) - base - D * lw[low]
            if rc > best:
                best = rc
                arg = low
        best_rc[h] = best
        best_idx[h] = (h << n_low) | arg
