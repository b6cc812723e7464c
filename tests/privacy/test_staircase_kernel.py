"""The compiled pricing of staircase patterns against a plain scan of every pattern.

``anonspread.engine.staircase.price_blocks`` skips patterns whose cheap upper bound cannot
beat the best of their block (KL, squared Hellinger). The skip must never change a result:
each block's best reduced cost and pattern are those of evaluating every pattern, bit for
bit, at small and large eps and with duals of any scale.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from anonspread.engine import staircase as S


def _log1p(x):
    """libm's log1p, as the kernel calls it (numpy's own may round differently)."""
    return np.array([math.log1p(t) for t in x])


def _table(v):
    out = np.zeros(1 << v.size)
    for t in range(v.size):
        step = 1 << t
        out[step:2 * step] = out[:step] + v[t]
    return out


def _mu(kind, lo, D, eps, sa, sb):
    u = lo + D * sa
    if kind == S.KIND_MI:
        c = 1.0 - sa
        return -eps * lo * c - u * _log1p(-D * c)
    v = lo + D * sb
    d = D * (sa - sb)
    if kind == S.KIND_KL:
        return u * _log1p(d / v)
    if kind == S.KIND_TV:
        return 0.5 * np.abs(d)
    if kind == S.KIND_CHI2:
        return d * d / v
    su = np.sqrt(u) + np.sqrt(v)
    return d * d / (su * su)


def _plain(kind, a, b, w, eps, n_low):
    lo, D = math.exp(-eps), -math.expm1(-eps)
    W = 0.0
    for x in w:
        W += x
    ar, br, wr = a[::-1], b[::-1], w[::-1]
    la, lb, lw = _table(ar[:n_low]), _table(br[:n_low]), _table(wr[:n_low])
    ha, hb, hw = _table(ar[n_low:]), _table(br[n_low:]), _table(wr[n_low:])
    rc_out, idx_out = [], []
    for h in range(ha.size):
        rc = _mu(kind, lo, D, eps, ha[h] + la, hb[h] + lb) - (lo * W + D * hw[h]) - D * lw
        if h == 0:
            rc[0] = -np.inf
        j = int(np.argmax(rc))  # the first best, as the kernel keeps it
        rc_out.append(rc[j])
        idx_out.append((h << n_low) | j)
    return np.array(rc_out), np.array(idx_out)


@pytest.mark.parametrize("kind", [S.KIND_KL, S.KIND_TV, S.KIND_CHI2, S.KIND_HELLINGER, S.KIND_MI])
@pytest.mark.parametrize("eps", [0.01, 1.0, 8.0, 30.0])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_pricing_equals_the_plain_scan(kind, eps, scale):
    rng = np.random.default_rng([kind, int(eps * 100), int(scale * 1000)])
    k, n_low = 14, 4
    a, b = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    if kind == S.KIND_MI:
        b = np.zeros(k)
    w = rng.normal(size=k) * scale
    rc = np.empty(1 << (k - n_low))
    idx = np.empty(1 << (k - n_low), np.int64)
    S.price_blocks(kind, a, b, w, eps, n_low, rc, idx)
    ref_rc, ref_idx = _plain(kind, a, b, w, eps, n_low)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_array_equal(rc, ref_rc)
