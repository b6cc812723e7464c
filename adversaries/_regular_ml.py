"""Adaptive diffusion's ML estimate on the infinite d-regular tree, by symmetry.

At even ``T = 2r >= 2`` on the d-regular tree (d >= 2) the infected set is the ball
of radius r around the final virtual source c, the only consistent configuration
(:func:`anonspread.engine.scoring.ml_ball`), and the ML score of an infected node w depends
on its distance D from c only: ``-log d - (D - 1) log(d - 1) + log B(D)`` (Eq. 2.17;
every interior node has degree d), ``-inf`` at c. The source is at distance H from c,
H the number of times the token was passed (it never steps back, so its path is the
tree path). Hence a trial's scores, maximisers and the source's rank are functions of
(d, T, H) alone, and :func:`simulate_and_score` needs from the simulation only N_T and
H, which ``spread.simulate_many``'s counting path gives without creating the ball.

Per trial, with ``S_D = d (d-1)^(D-1)`` nodes at distance D >= 1 (``S_0 = 1``):

* the maximisers are the spheres whose score is within the relative tie tolerance
  (:data:`adversaries.scores.TIE_RTOL`) of the best, ``|top| = sum of their S_D``;
* ``detection_probability = 1/|top|`` if the source's sphere H is among them, else 0;
* ``rank = 1 + greater + (tied - 1)/2``, greater/tied summing S_D over the spheres above
  / tied with sphere H, by the rule of :func:`anonspread.engine.scoring.score_summary`.

The scores are computed with the same floating-point operations as ``ml_ball`` (which
gives the same scores as ``ml_tree``), so these three outcomes equal the materialised
path's, trial by trial. The estimate, uniform among the maximisers, is drawn with the
trial's tie-breaking number ``u`` as the ``floor(u |top|)``-th maximiser in a canonical
order: by sphere D, then by the depth m (from c) at which its path from c leaves the
path from c to the source. A node at (D, m) is ``D + H - 2m`` hops from the source and
the classes hold

* m = 0: ``(d-1)^D`` nodes (a different first step from c),
* 0 < m < min(D, H): ``(d-2) (d-1)^(D-m-1)``,
* m = D <= H: 1 (the node of the source's path at depth D; the source itself if D = H),
* m = H < D: ``(d-1)^(D-H)`` (below the source),

which add up to S_D. ``detected`` and ``hops`` therefore have exactly the law they have
when the ball is created and the estimate is the ``floor(u |top|)``-th maximiser in
infection order, but they are a different function of ``u`` (a change of stream,
recorded in CHANGELOG.md); the tests compare both paths trial by trial (rank, detection
probability, N_T) and in distribution (detected, hops).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from anonspread.adversaries.scores import TIE_RTOL

__all__ = ["regular_ml_trials", "sphere_scores"]


def sphere_scores(d: int, r: int, log_b: np.ndarray) -> list[float]:
    """``s[D]``, D = 0..r: the ML log-likelihood of a node at distance D from the centre.

    The operations of :func:`anonspread.engine.scoring.ml_ball`, in its order (the path term
    accumulated outwards from the centre, then ``- log d + log B(D)``).
    """
    ld1 = math.log(d - 1)
    ld = math.log(d)
    s = [-math.inf] * (r + 1)
    acc = 0.0
    for D in range(1, r + 1):
        if D >= 2:
            acc = acc - ld1
        if D < log_b.shape[0] and log_b[D] > -math.inf:
            s[D] = acc - ld + float(log_b[D])
    return s


def _summary(s: list[float], size: list[int], H: int) -> tuple[bool, int, int]:
    """(source among the maximisers, greater, tied) for the source in sphere H, by the
    rules of :func:`anonspread.engine.scoring.score_summary`, spheres weighted by their sizes."""
    best = max(s)
    thr = -math.inf if best == -math.inf else best - TIE_RTOL * max(1.0, abs(best))
    s0 = s[H]
    greater = tied = 0
    if s0 == -math.inf:
        for x, k in zip(s, size):
            if x == -math.inf:
                tied += k
            else:
                greater += k
    else:
        tol = TIE_RTOL * max(1.0, abs(s0))
        for x, k in zip(s, size):
            if x > s0 + tol:
                greater += k
            elif abs(x - s0) <= tol:
                tied += k
    return s0 >= thr, greater, tied


def _classes(d: int, D: int, H: int) -> list[tuple[int, int, bool]]:
    """(count, hops to the source, is the source) of sphere D's nodes by branch depth m."""
    out = []
    for m in range(min(D, H) + 1):
        if m == min(D, H):
            count = 1 if D <= H else (d - 1) ** (D - H)
        elif m == 0:
            count = (d - 1) ** D
        else:
            count = (d - 2) * (d - 1) ** (D - m - 1)
        if count > 0:
            out.append((count, D + H - 2 * m, D == H and m == H))
    return out


@lru_cache(maxsize=256)
def _tables(d: int, T: int, log_b: bytes) -> tuple[int, tuple]:
    """``|top|`` and, for H = 1..T/2: (detection probability, rank, cumulative class counts,
    hops and is-source of each class) of the maximisers in canonical order."""
    r = T // 2
    s = sphere_scores(d, r, np.frombuffer(log_b))
    size = [1] + [d * (d - 1) ** (D - 1) for D in range(1, r + 1)]
    best = max(s)
    thr = -math.inf if best == -math.inf else best - TIE_RTOL * max(1.0, abs(best))
    top = [D for D in range(r + 1) if s[D] >= thr]
    nt = sum(size[D] for D in top)
    per_h = [None]
    for h in range(1, r + 1):
        in_top, greater, tied = _summary(s, size, h)
        cls = [c for D in top for c in _classes(d, D, h)]
        per_h.append((
            1.0 / nt if in_top else 0.0,
            1.0 + greater + (tied - 1) / 2.0,
            np.cumsum([c[0] for c in cls]),
            np.array([c[1] for c in cls], np.int64),
            np.array([c[2] for c in cls], np.int8),
        ))
    return nt, tuple(per_h)


def regular_ml_trials(d: int, T: int, log_b: np.ndarray, H: np.ndarray, tie_u: np.ndarray):
    """Per-trial ML outcomes on the d-regular tree at even T from the hop counts H.

    Parameters
    ----------
    d : int >= 2
    T : even int >= 2
    log_b : numpy.ndarray
        ``logB_alive`` of :func:`adversaries._tables.ad_tables` for the protocol's d0 and T.
    H : numpy.ndarray of int
        Per trial, the source's distance from the final virtual source (1..T/2).
    tie_u : numpy.ndarray of float
        Per trial, the tie-breaking number in [0, 1).

    Returns
    -------
    (detected, detection_probability, hops, rank) : int8, float64, int64, float64 arrays
    """
    r = T // 2
    nt, per_h = _tables(d, T, np.ascontiguousarray(log_b, np.float64).tobytes())
    trials = H.shape[0]
    detected = np.zeros(trials, np.int8)
    pdet = np.zeros(trials, np.float64)
    hops = np.zeros(trials, np.int64)
    rank = np.zeros(trials, np.float64)
    target = (tie_u * nt).astype(np.int64)
    np.minimum(target, nt - 1, out=target)
    for h in np.unique(H).tolist():
        if not 1 <= h <= r:
            raise RuntimeError(f"anonspread internal error: hop count {h} outside 1..{r}")
        at = np.flatnonzero(H == h)
        p, rk, cum, cls_hops, cls_det = per_h[h]
        pdet[at] = p
        rank[at] = rk
        k = np.searchsorted(cum, target[at], side="right")
        hops[at] = cls_hops[k]
        detected[at] = cls_det[k]
    return detected, pdet, hops, rank
