"""Timestamp (sensor) estimators from the literature: earliest-infection-first and Pinto et al.

Both read the spies' observation of :func:`adversaries.observe_spies` -- for every spy,
the time of its first receipt (``inf`` if none by T) and who sent it -- and score every
node of the graph realised so far (the candidates of :meth:`SpyObservation.candidates`).
A spy with a receipt is a *timestamped node* (Zhu, Chen & Ying) or *observer* (Pinto,
Thiran & Vetterli). The hot loops are the kernels of :mod:`anonspread.engine.sensors`
over the contact graph's CSR arrays.

* :func:`earliest_infection_first` -- Zhu, Chen & Ying, "Locating the contagion source in
  networks with partial timestamps" (Data Min. Knowl. Disc. 30, 2016), §3-4: the cost of
  a greedy spreading tree built in order of the timestamps; lower cost, likelier source.
* :func:`pinto` -- Pinto, Thiran & Vetterli, "Locating the source of diffusion in
  large-scale networks" (Phys. Rev. Lett. 109, 068702, 2012): the Gaussian approximation
  of the observers' arrival-time differences on the BFS tree of each candidate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.adversaries.observation import _csr_from_edges, graph_is_forest
from anonspread.adversaries.scores import Scores
from anonspread.adversaries.spies import SpyObservation, _check_obs, _index, register_spy_estimator
from anonspread.engine import sensors as _sensor_kernels
from anonspread.errors import InvalidParameterError
from anonspread.spread.graphs import LazyTree
from anonspread.validation import check_real

__all__ = ["earliest_infection_first", "pinto"]


def graph_csr(g: Any) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(indptr, indices)`` of a finite graph, or of the realised part of a lazy tree."""
    if not isinstance(g, LazyTree):
        return g.indptr, g.indices
    n = g.number_of_touched_nodes()
    par = g.store.tpar[:n].astype(np.int64)
    child = np.nonzero(par >= 0)[0]
    return _csr_from_edges(n, par[child], child.astype(np.int64))


def _observers(obs: SpyObservation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Timestamped spies in increasing time (stable), their times and their senders."""
    fin = np.nonzero(np.isfinite(obs.time))[0]
    order = fin[np.argsort(obs.time[fin], kind="stable")]
    senders = np.array([_index(obs.graph, obs.sender[i], "sender") for i in order.tolist()],
                       np.int64)
    return obs.spy_index[order].astype(np.int64), obs.time[order].astype(np.float64), senders


def _tree_constraints(obs, indptr, indices, nodes, senders, n) -> np.ndarray:
    """True for the candidates the senders rule out (on a tree only; see direction_mask)."""
    bad = np.zeros(n, np.bool_)
    if graph_is_forest(obs.graph) and nodes.shape[0]:
        _sensor_kernels.direction_mask(indptr, indices, nodes, senders, bad)
    return bad


# ----------------------------------------------------------------- earliest-infection-first


def estimate_mu(indptr: np.ndarray, indices: np.ndarray, nodes: np.ndarray, times: np.ndarray) -> float:
    """Zhu, Chen & Ying's per-hop delay: ``sum |t_u - t_v| / sum d(u, v)`` over timestamped pairs."""
    from anonspread.engine.scoring import bfs

    n = indptr.shape[0] - 1
    order = np.empty(n, np.int32)
    parent = np.empty(n, np.int32)
    dist = np.full(n, -1, np.int32)
    num = den = 0.0
    for a in range(nodes.shape[0]):
        k = bfs(indptr, indices, int(nodes[a]), order, parent, dist)
        for b in range(nodes.shape[0]):
            if b != a and dist[nodes[b]] >= 0:
                num += abs(times[a] - times[b])
                den += dist[nodes[b]]
        dist[order[:k]] = -1
    return num / den if den > 0 else float("nan")


def _mu_params(protocol, graph) -> dict:
    if protocol.name == "random-diffusion" and protocol.p > 0:
        return {"mu": 1.0 / protocol.p}
    if protocol.name == "continuous-diffusion":
        return {"mu": 1.0 / protocol.rate}
    return {"mu": None}


@register_spy_estimator("eif", protocols=None, params=_mu_params)
def earliest_infection_first(obs: SpyObservation, mu: float | None = None) -> Scores:
    """Earliest-infection-first: minus the cost of the greedy spreading tree rooted at each node.

    Zhu, Chen & Ying (2016), §3 (the EIF tree) and §4 (cost-based ranking). The cost of
    a spreading tree with timestamps ``t`` is ``sum_{(u, v)} (t_v - t_u - mu)^2`` over
    its edges (``mu`` the mean per-hop delay). Rooted at a candidate r (time ``t_1 -
    mu``, ``t_1`` the earliest timestamp, unless r is itself timestamped), the tree is
    grown by taking the timestamped nodes in increasing time and joining each, a, to
    the tree node m minimising ``L ((t_a - t_m) / L - mu)^2`` over *modified shortest
    paths* -- shortest paths whose L - 1 interior nodes are neither in the tree nor
    timestamped (nor spies that received nothing, which did not relay by T). The
    interior nodes get evenly spaced times, the minimiser of the path's cost, so the
    cost added is exactly that term. Score: ``-cost``; ``-inf`` when some timestamped
    node cannot be reached by a modified shortest path. That never happens to the true
    source under SI with positive delays: the rumour's own path to a runs through nodes
    infected before a, so its interior is free of later timestamped nodes and of spies
    that heard nothing, and the last tree node on it is a valid m.

    Observation: the spies' first-receipt times (senders unused). Model: SI with mean
    per-hop delay ``mu``; ``mu=None`` uses the paper's estimate
    ``sum |t_u - t_v| / sum d(u, v)`` over pairs of timestamped nodes.

    Readings and differences from cosasi 0.0.4 (``earliest_infection_first``), whose
    root time ``t_1 - mu`` we follow (the paper's text on it was not available to us):
    a path of L edges costs ``L ((t_a - t_m)/L - mu)^2`` here (cosasi divides by the
    number of nodes, L + 1, then moves a's timestamp off its observed value); a
    timestamped root is not charged for itself (cosasi adds ``mu^2``); an unreachable
    timestamped node rules the root out (cosasi skips it, which *rewards* roots cut off
    from the observations); spies that heard nothing block paths.

    Parameters
    ----------
    obs : SpyObservation
    mu : float > 0 or None

    Returns
    -------
    Scores
        kind ``"minus-eif-cost"`` over every candidate node; all 0 when fewer than two
        spies received the rumour (no tree to build).

    Examples
    --------
    On the path 0..4 with spies at 0 and 4 that received at times 2 and 2 (mu = 1): a
    root that is not timestamped starts at ``2 - mu = 1``; from the middle node each
    two-hop path costs ``2 ((2 - 1)/2 - 1)^2 = 1/2``; from node 1 the path to 0 costs 0
    and the three-hop one to 4 costs ``3 (1/3 - 1)^2 = 4/3``; a spy as root (time 2)
    pays ``4 (0/4 - 1)^2 = 4`` for the other:

    >>> import networkx as nx
    >>> from anonspread import spread
    >>> from anonspread.adversaries.spies import SpyObservation
    >>> g = spread.graphs.from_networkx(nx.path_graph(5))
    >>> obs = SpyObservation(graph=g, T=2, spies=np.array([0, 4]), spy_index=np.array([0, 4]),
    ...                      time=np.array([2.0, 2.0]), sender=[1, 3], kind=["infect"] * 2,
    ...                      protocol=spread.RandomDiffusion(1.0))
    >>> sc = earliest_infection_first(obs, 1.0)
    >>> [round(sc[v], 6) for v in range(5)]
    [-4.0, -1.333333, -1.0, -1.333333, -4.0]
    """
    obs = _check_obs(obs, "eif")
    labels, idx = obs.candidates()
    indptr, indices = graph_csr(obs.graph)
    nodes, times, _ = _observers(obs)
    if nodes.shape[0] < 2:
        return Scores(labels, np.zeros(labels.shape[0]), "minus-eif-cost")
    if mu is None:
        mu = estimate_mu(indptr, indices, nodes, times)
        if not np.isfinite(mu):
            raise InvalidParameterError(
                "mu must be given for 'eif' when the timestamped spies are not connected "
                f"to each other (the paper's estimate is undefined); got mu=None with spies {nodes.tolist()}"
            )
    else:
        mu = check_real(mu, "mu", low=0.0, low_open=True)
    blocked = np.zeros(indptr.shape[0] - 1, np.bool_)
    blocked[obs.spy_index] = True  # timestamped spies, and spies that heard nothing
    out = np.empty(idx.shape[0])
    _sensor_kernels.eif_costs(indptr, indices, idx, nodes, times, blocked, float(mu), out)
    return Scores(labels, -out, "minus-eif-cost")


# ----------------------------------------------------------------- Pinto et al.


def _pinto_params(protocol, graph) -> dict:
    if protocol.name == "random-diffusion":
        p = protocol.p
        return {"mu": 1.0 / p, "sigma2": (1.0 - p) / p**2}
    return {"mu": 1.0 / protocol.rate, "sigma2": 1.0 / protocol.rate**2}


def _pinto_extra(protocol, graph, reveal_edges) -> str | None:
    if protocol.name == "random-diffusion" and not 0.0 < protocol.p < 1.0:
        return (
            "estimator 'pinto' needs random per-edge delays (variance > 0): random diffusion "
            f"with p in (0, 1); got {protocol!r}"
        )
    return None


@register_spy_estimator("pinto", protocols=("random-diffusion", "continuous-diffusion"),
                        params=_pinto_params, extra=_pinto_extra)
def pinto(obs: SpyObservation, mu: float, sigma2: float) -> Scores:
    """Pinto, Thiran & Vetterli's sparse-observer estimator (Gaussian arrival times on a BFS tree).

    Pinto, Thiran & Vetterli, Phys. Rev. Lett. 109, 068702 (2012), Eqs. (4)-(7) and the
    BFS-tree extension to general graphs. The per-edge delays are i.i.d. with mean ``mu``
    and variance ``sigma2``, approximated as Gaussian. With observers ``o_0..o_{K-1}``
    (spies that received; ``o_0`` the reference -- the density below does not depend
    on the choice) and the differences ``d_k = t_k - t_0`` (the start time is unknown),
    candidate s is scored on the BFS tree ``T_s`` rooted at s by

    ``log N(d; mu_s, Lambda_s)``, ``mu_s[k] = mu (|P(s, o_k)| - |P(s, o_0)|)``,
    ``Lambda_s[k, i] = sigma2 |P(o_0, o_k) ∩ P(o_0, o_i)|``,

    path lengths in ``T_s``. On a tree ``T_s`` is the tree, this is the exact likelihood
    of the Gaussian model (Eq. 5), and the senders restrict the candidates as the paper's
    "observed direction" does (each spy heard first from its neighbour towards the
    source; excluded candidates score ``-inf``). On graphs with cycles the senders are
    not used (the BFS tree need not contain the edge the rumour took).

    Observation: the spies' first-receipt times and, on trees, senders. Model: SI with
    i.i.d. edge delays; registered for random diffusion (``Geometric(p)`` delays: mean
    ``1/p``, variance ``(1 - p)/p^2``) and continuous diffusion (``Exponential(rate)``).

    Parameters
    ----------
    obs : SpyObservation
    mu : float > 0
        Mean per-edge delay.
    sigma2 : float > 0
        Variance of the per-edge delay.

    Returns
    -------
    Scores
        kind ``"gaussian-log-density"``: 0 for every consistent candidate when fewer than
        two spies received (no difference to compare).

    Examples
    --------
    Path 0..4, observers 0 and 4 both at time 2: ``d = 0``, ``mu_s = mu (4 - 2 s)``,
    ``Lambda = 4 sigma2``; the middle node is the only one with ``mu_s = d``:

    >>> import math, networkx as nx
    >>> from anonspread import spread
    >>> from anonspread.adversaries.spies import SpyObservation
    >>> g = spread.graphs.from_networkx(nx.path_graph(5))
    >>> obs = SpyObservation(graph=g, T=2, spies=np.array([0, 4]), spy_index=np.array([0, 4]),
    ...                      time=np.array([2.0, 2.0]), sender=[1, 3], kind=["infect"] * 2,
    ...                      protocol=spread.RandomDiffusion(0.5))
    >>> sc = pinto(obs, 1.0, 0.5)
    >>> [round(sc[v] + 0.5 * math.log(2 * math.pi * 2.0), 6) for v in (1, 2, 3)]
    [-1.0, 0.0, -1.0]
    """
    obs = _check_obs(obs, "pinto")
    mu = check_real(mu, "mu", low=0.0, low_open=True)
    sigma2 = check_real(sigma2, "sigma2", low=0.0, low_open=True)
    labels, idx = obs.candidates()
    indptr, indices = graph_csr(obs.graph)
    nodes, times, senders = _observers(obs)
    out = np.zeros(idx.shape[0])
    if nodes.shape[0] >= 1:
        _sensor_kernels.pinto_loglik(indptr, indices, idx, nodes, times, mu, sigma2, out)
    bad = _tree_constraints(obs, indptr, indices, nodes, senders, indptr.shape[0] - 1)
    out[bad[idx]] = -np.inf
    return Scores(labels, out, "gaussian-log-density")
