"""Part B of the adaptive-diffusion likelihood (thesis Eq. 2.17), in log space.

The hop count ``h`` of the virtual source from the true source is 1 after step 1
(the source passes the token) and changes only at the *decisions*, made at the odd
steps ``t = 3, 5, ...``: the token is kept with probability ``alpha_{d0}(t - 1, h)``
(Eq. 2.13) or passed one hop further (``h += 1``). ``F[j, h]`` is the log-probability
of being at hop ``h`` after ``j`` decisions; the sum over all keep/pass schedules of
Eq. (2.17) is a sum over the paths of this small chain, so B costs O(T^2) instead of
the 2^(T/2) terms of the naive sum. The alphas enter as logs computed in log space
(:func:`spread.protocols.log_alpha`) and are combined with ``logaddexp``, so every
entry is finite wherever the exact probability is positive, for any T (tested at
T = 3000 against the closed form of Eq. 2.12), where products of alphas would
underflow and ``alpha`` itself would round to 0 or 1.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.spread.limits import memory_budget
from anonspread.spread.protocols import log_alpha

__all__ = ["ad_tables"]

NEG_INF = -math.inf


@lru_cache(maxsize=64)
def _chain(d0: float, J: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``F[j, h]``, and the log keep/pass probabilities ``lk[j, h]``, ``lp[j, h]``.

    Decision ``j + 1`` (0-based ``j``) happens at step ``2 j + 3`` and uses
    ``alpha_{d0}(2 j + 2, h)``.
    """
    H = J + 2
    lk = np.full((J + 1, H + 1), NEG_INF)
    lp = np.full((J + 1, H + 1), NEG_INF)
    for j in range(J + 1):
        t = 2 * j + 2
        lk[j, 1 : t // 2 + 1], lp[j, 1 : t // 2 + 1] = log_alpha(d0, t, np.arange(1, t // 2 + 1))
    F = np.full((J + 1, H + 1), NEG_INF)
    F[0, 1] = 0.0
    for j in range(J):
        F[j + 1, 1 : j + 3] = np.logaddexp(F[j, 1 : j + 3] + lk[j, 1 : j + 3],
                                           F[j, : j + 2] + lp[j, : j + 2])
    return F, lk, lp


def _arrived(F: np.ndarray, lp: np.ndarray, j: int, H: int) -> float:
    """Log-probability of having reached hop H within ``j`` decisions (H absorbing)."""
    terms = np.concatenate([F[0, H : H + 1], F[:j, H - 1] + lp[:j, H - 1]])
    return float(np.logaddexp.reduce(terms))


@lru_cache(maxsize=64)
def ad_tables(d0: float, T: int) -> tuple[int, np.ndarray, np.ndarray, int, np.ndarray]:
    """The configuration radii and part-B tables used by :func:`anonspread.engine.scoring.ml_tree`.

    Returns ``(r_node, logB_alive, logB_dead, r_edge, logB_move)``:

    * even ``T >= 2``: the infected set is the ball of radius ``T/2`` around the
      virtual source c; ``logB_alive[H]`` = log P(h = H after the ``T/2 - 1``
      decisions) and ``logB_dead[H]`` the same when c has no child (it then keeps
      the token with probability 1, as the spread kernel does);
    * odd ``T >= 3``: either the token was kept at step T (a ball of radius
      ``(T+1)/2``: ``logB_alive[H]`` includes the final keep ``alpha(T-1, H)``) or
      passed over the edge {a, b} (every node within ``(T-1)/2`` of the edge:
      ``logB_move[D]`` for a candidate at distance D from the far end b, i.e. at hop
      ``D - 1`` from a when the final pass happened);
    * ``T = 1``: the two infected nodes, one edge configuration with
      ``logB_move = [-inf, 0]`` (the source passed the token to its neighbour).

    ``r = -1`` disables a configuration kind.
    """
    J = max(T // 2, 1)
    need = 3 * 8 * (J + 1) * (J + 3)  # F, lk, lp
    if need > memory_budget():
        raise InvalidParameterError(
            f"T must be small enough for the adaptive-diffusion likelihood tables to fit in memory; "
            f"got T={T}: they need {need / 2**30:.3g} GiB of the {memory_budget() / 2**30:.3g} GiB allowed"
        )
    L = T + 3
    alive = np.full(L, NEG_INF)
    dead = np.full(L, NEG_INF)
    move = np.full(L, NEG_INF)
    if T <= 0:
        return -1, alive, dead, -1, move
    if T == 1:
        move[1] = 0.0
        return -1, alive, dead, 0, move
    if T % 2 == 0:
        J = T // 2 - 1
        F, lk, lp = _chain(float(d0), max(J, 0))
        for H in range(1, T // 2 + 1):
            alive[H] = F[J, H]
            dead[H] = _arrived(F, lp, J, H)
        return T // 2, alive, dead, -1, move
    J = (T - 1) // 2
    F, lk, lp = _chain(float(d0), J)
    for H in range(1, J + 1):
        # the last decision (at step T, alpha(T - 1, H)) is the J-th
        alive[H] = F[J - 1, H] + lk[J - 1, H]
        dead[H] = _arrived(F, lp, J - 1, H)
        move[H + 1] = F[J - 1, H] + lp[J - 1, H]
    return (T + 1) // 2, alive, dead, (T - 1) // 2, move
