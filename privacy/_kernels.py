"""numba kernels for pricing staircase patterns (used by :mod:`privacy.staircase`).

Imported lazily: compiling (or loading the cached compilation of) these kernels is the only
numba work in :mod:`privacy`.

A staircase pattern (Def. 3.2.3) is ``s = 1 + (e^eps - 1) 1_B`` for a subset ``B`` of the
inputs. The utilities with a ``_kind`` code have ``mu(s)`` depending on ``s`` only through
one or two subset sums (``P0(B), P1(B)`` for f-divergences, ``P(B)`` for mutual
information), and the dual term ``w.s = sum(w) + (e^eps - 1) w(B)`` is a subset sum too. The
kernel enumerates all ``2^k`` subsets as ``high * 2^L + low``: subset sums of the ``L`` low
and ``k - L`` high inputs are tabulated once (``O(2^L + 2^(k-L))`` memory), so each pattern
costs two additions per sum, with one rounding only, and no Gray-code drift.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

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
def _mu(kind, E, eps_e, sa, sb):
    u = 1.0 + E * sa
    if kind == 4:  # mutual information: eps e^eps P(B) - (P.s) log(P.s)
        return eps_e * sa - u * math.log(u)
    v = 1.0 + E * sb
    if kind == 0:
        return u * math.log(u / v)
    if kind == 1:
        return 0.5 * abs(u - v)
    if kind == 2:
        return (u - v) * (u - v) / v
    su = math.sqrt(u) - math.sqrt(v)
    return su * su


@njit(cache=True)
def price_blocks(kind, a, b, w, eps, n_low, best_rc, best_idx):
    """Best reduced cost ``mu(s) - w.s`` over each block of ``2^n_low`` patterns.

    Pattern index ``j`` follows Definition 3.2.3: input ``x`` is in ``B`` when bit
    ``k - 1 - x`` of ``j`` is set. Block ``h`` holds ``j = h * 2^n_low + l``; its best
    reduced cost and index are written to ``best_rc[h]`` and ``best_idx[h]``.
    """
    k = a.size
    E = math.expm1(eps)
    eps_e = eps * math.exp(eps)
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
        base = W + E * hw[h]
        best = -np.inf
        arg = 0
        for lo in range(n_l):
            rc = _mu(kind, E, eps_e, sa0 + la[lo], sb0 + lb[lo]) - base - E * lw[lo]
            if rc > best:
                best = rc
                arg = lo
        best_rc[h] = best
        best_idx[h] = (h << n_low) | arg
