"""Compiled kernel pricing staircase patterns (used by :mod:`privacy.staircase`).

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

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _staircase
from anonspread.errors import InvalidParameterError

__all__ = ["KIND_CHI2", "KIND_HELLINGER", "KIND_KL", "KIND_MI", "KIND_TV", "price_blocks"]

KIND_KL = 0
KIND_TV = 1
KIND_CHI2 = 2
KIND_HELLINGER = 3
KIND_MI = 4


def price_blocks(kind: int, a: np.ndarray, b: np.ndarray, w: np.ndarray, eps: float, n_low: int,
                 best_rc: np.ndarray, best_idx: np.ndarray) -> None:
    """Best reduced cost ``mu(t) - w.t`` over each block of ``2^n_low`` scaled patterns.

    ``t = e^-eps s`` is the staircase pattern ``s`` scaled to entries ``e^-eps`` and 1,
    and ``w`` the duals of the master LP written in the scaled patterns. Pattern index
    ``j`` follows Definition 3.2.3: input ``x`` is in ``B`` when bit ``k - 1 - x`` of
    ``j`` is set. Block ``h`` holds ``j = h * 2^n_low + l``; its best reduced cost and
    index are written to ``best_rc[h]`` (float64) and ``best_idx[h]`` (int64). Pattern 0
    (``B`` empty, a multiple of the all-ones pattern) is skipped.
    """
    kind = _check.integer(kind, "kind", low=KIND_KL, high=KIND_MI)
    a = _check.floats(a, "a")
    k = a.shape[0]
    if not 1 <= k <= 62:
        raise InvalidParameterError(f"a must hold 1..62 inputs (2^k patterns); got {k}")
    b = _check.floats(b, "b", min_len=k)
    w = _check.floats(w, "w", min_len=k)
    if b.shape[0] != k or w.shape[0] != k:
        raise InvalidParameterError(f"a, b and w must have the same length; got {k}, "
                                    f"{b.shape[0]}, {w.shape[0]}")
    n_low = _check.integer(n_low, "n_low", low=0, high=min(k, 30))
    blocks = 1 << (k - n_low)
    _staircase.price_blocks(kind, a, b, w, float(eps), n_low,
                            _check.out(best_rc, np.float64, "best_rc", min_len=blocks),
                            _check.out(best_idx, np.int64, "best_idx", min_len=blocks))
