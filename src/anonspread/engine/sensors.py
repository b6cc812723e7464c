"""Compiled kernels of the sensor-based source estimators (:mod:`adversaries.sensors`).

Compiled ahead of time (:mod:`._sensors`). Graphs are CSR ``(indptr, indices)``; node
arrays are int64, times float64; outputs are written into the arrays passed in.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _sensors
from anonspread.errors import InvalidParameterError

__all__ = ["direction_mask", "eif_costs", "pinto_loglik"]


def direction_mask(indptr, indices, spies, senders, bad: np.ndarray) -> None:
    """On a tree: ``bad[v] = True`` for every v on a spy's side of the edge to its sender.

    Every node of a tree first hears the rumour from its neighbour towards the source,
    so the source lies on the sender's side of each edge (spy, sender). ``bad`` is a
    boolean array, updated in place.
    """
    indptr, indices = _check.tree(indptr, indices, indices_dtype=None)
    n = indptr.shape[0] - 1
    spies = _check.index_array(spies, n, "spies")
    senders = _check.index_array(senders, n, "senders")
    if spies.shape != senders.shape:
        raise InvalidParameterError(f"spies and senders must have the same length; got "
                                    f"{spies.shape[0]} and {senders.shape[0]}")
    _sensors.direction_mask(indptr, indices, spies, senders,
                            _check.out(bad, np.bool_, "bad", shape=(n,)))


def pinto_loglik(indptr, indices, cands, obs, t, mu: float, sigma2: float,
                 out: np.ndarray) -> None:
    """Gaussian log-density of the observers' arrival-time differences, per candidate.

    For candidate s, on the BFS tree rooted at s (the tree itself on a tree), with the
    reference observer ``o_0 = obs[0]`` and ``d_k = t_k - t_0`` (k = 1..K-1):

    ``mu_s[k] = mu (|P(s, o_k)| - |P(s, o_0)|)``,
    ``Lambda[k, i] = sigma2 |P(o_0, o_k) ∩ P(o_0, o_i)|``,

    ``out = -1/2 (d - mu_s)' Lambda^{-1} (d - mu_s) - 1/2 log det(2 pi Lambda)``
    (Pinto, Thiran & Vetterli 2012, Eqs. 4-7), through the Cholesky factor of
    ``Lambda``; ``-inf`` where an observer is unreachable. ``cands`` are global ids.
    """
    indptr, indices = _check.csr(indptr, indices)
    n = indptr.shape[0] - 1
    cands = _check.index_array(cands, n, "cands")
    obs = _check.index_array(obs, n, "obs", min_len=1)
    t = _check.floats(t, "t", min_len=obs.shape[0])
    _sensors.pinto_loglik(indptr, indices, cands, obs, t, float(mu), float(sigma2),
                          _check.out(out, np.float64, "out", min_len=cands.shape[0]))


def eif_costs(indptr, indices, cands, alpha, t_alpha, blocked, mu: float,
              out: np.ndarray) -> None:
    """Cost of the greedy earliest-infection-first spreading tree rooted at each candidate.

    ``alpha``: the timestamped nodes in increasing time order, ``t_alpha`` their times;
    ``blocked[v]``: v may not be an interior node of a path (every timestamped node,
    and spies known not to have received). For root r (time ``t_alpha[0] - mu`` unless
    r is timestamped), each timestamped node a in turn is joined to the tree node m
    minimising ``L ((t_a - t_m) / L - mu)^2`` over modified shortest paths of L edges
    (interior nodes neither in the tree nor blocked); the interior nodes get evenly
    spaced times, which minimise the path's cost ``sum (t_v - t_u - mu)^2``. Ties go to
    the tree node added first. If some a cannot be reached the cost is ``inf``.
    """
    indptr, indices = _check.csr(indptr, indices)
    n = indptr.shape[0] - 1
    cands = _check.index_array(cands, n, "cands")
    alpha = _check.index_array(alpha, n, "alpha", min_len=1)
    t_alpha = _check.floats(t_alpha, "t_alpha", min_len=alpha.shape[0])
    blocked = _check.floats(blocked, "blocked", min_len=n)[:n] != 0
    _sensors.eif_costs(indptr, indices, cands, alpha, t_alpha, blocked.view(np.uint8), float(mu),
                       _check.out(out, np.float64, "out", min_len=cands.shape[0]))
