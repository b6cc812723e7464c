"""The soft-margin estimator against spies: Dandelion, Dandelion++ and continuous diffusion.

The simulation-based attack of :mod:`adversaries.softmargin` (Antulov-Fantulin, Lančić,
Šmuc, Štefančić & Šikić, Phys. Rev. Lett. 114, 248701, 2015, arXiv:1406.2909) for the
protocols that run to completion and are attacked through spies. For each candidate source
θ (an honest node) the protocol is run ``n`` times from θ with the *same* spies
(:func:`spread.simulate_stems`), each run's spy observation is compared with the observed
one by a similarity ``φ_i`` in [0, 1], and the likelihood is estimated with the soft-margin
kernel ``P̂_a(obs | θ) = (1/n) Σ_i exp(-(φ_i - 1)² / a²)``.

*Observation model.* Each spy sees who first sent it the transaction and when. Times are
continuous (Exponential message delays), so a run never reproduces them; the similarity
compares what can repeat: the order of first receipts and the senders, earliest first,

    φ = Σ_j w_j 1[the run's j-th receipt is by the observed j-th spy, from the same sender],

``w_j = 2^-j / (1 - 2^-k)`` (receipts ordered by time; spies that heard nothing last, in
spy order). The earliest receipt weighs most (half of ``φ``): under Dandelion it is the one
that can come from the stem, near the source, while later receipts come from the fluff.
``φ = 1`` exactly when every sender and the whole order of receipt match, so as ``a -> 0``
the estimate tends to the probability of that discrete part of the observation given θ: an
exact likelihood of the senders and the receipt order, whose arg-max is the MAP source for
that coarsened observation under a uniform prior over the candidates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries.scores import Scores
from anonspread.adversaries.softmargin import DEFAULT_WIDTHS, _check_widths, _width_stability
from anonspread.adversaries.spies import _check_obs, register_spy_estimator
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.dandelion import StemProtocol, simulate_stems
from anonspread.spread.events import ContinuousDiffusion
from anonspread.spread.limits import check_size
from anonspread.spread.spy_observation import SpyObservation
from anonspread.validation import check_int, check_real, check_rng

__all__ = ["SPY_SOFT_MARGIN_PROTOCOLS", "SpySoftMarginResult", "soft_margin_spies",
           "soft_margin_spies_estimate", "spy_similarity"]

#: The protocols the estimator simulates: the stem-and-fluff protocols of
#: :func:`spread.simulate_stems` (plain continuous diffusion has no stem).
SPY_SOFT_MARGIN_PROTOCOLS = ("dandelion", "dandelion++", "continuous-diffusion")


@dataclass(frozen=True)
class SpySoftMarginResult:
    """What :func:`soft_margin_spies_estimate` found, with its Monte Carlo error.

    Parameters
    ----------
    scores : Scores
        ``log P̂_a(obs | θ)`` at width :attr:`a` for every node of the graph, kind
        ``"log-likelihood"``; ``-inf`` for the spies and for pruned nodes.
    a : float
        The kernel width of :attr:`scores`.
    widths : numpy.ndarray
        Every width tried (widest first).
    log_likelihood : numpy.ndarray, shape (len(candidates), len(widths))
        ``log P̂_a`` of each candidate at each width.
    candidates : numpy.ndarray
        The candidate sources simulated (labels), nearest the first spy's sender first.
    simulations : int
        Runs per candidate.
    total_simulations : int
        ``simulations * len(candidates)``.
    error : float
        Standard error (delta method) of the MAP candidate's posterior probability at
        width ``a`` (uniform prior over the candidates).
    converged : bool
        Whether the stopping rule held before ``max_simulations``.
    exact_matches : numpy.ndarray of int
        Runs per candidate whose senders and receipt order both matched (``φ = 1``).
    mean_similarity : numpy.ndarray of float
        Mean similarity ``φ`` of each candidate's runs with the observation.

    Examples
    --------
    Continuous diffusion on the path 0-1-2-3-4 with spies at both ends: the senders are
    always 1 and 3, so only the order of receipt informs; the exact matches estimate it
    (spy 0 hears first with probability 7/8 from node 1, 1/2 from 2, 1/8 from 3):

    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> from anonspread.spread.events import ContinuousDiffusion
    >>> proto = ContinuousDiffusion(1.0)
    >>> batch = spread.simulate_stems(nx.path_graph(5), proto, 1, spies=[0, 4], sources=[1],
    ...                               rng=0)
    >>> obs = batch.observation(0)
    >>> bool(obs.time[0] < obs.time[1])
    True
    >>> res = adversaries.soft_margin_spies_estimate(obs, proto, rng=2, a=1e-3, simulations=4000,
    ...                                              max_simulations=4000, candidates=None)
    >>> res.candidates.tolist(), (res.exact_matches / res.simulations).tolist()
    ([1, 2, 3], [0.87475, 0.4795, 0.13125])
    """

    scores: Scores
    a: float
    widths: np.ndarray
    log_likelihood: np.ndarray
    candidates: np.ndarray
    simulations: int
    total_simulations: int
    error: float
    converged: bool
    exact_matches: np.ndarray
    mean_similarity: np.ndarray

    def __repr__(self) -> str:
        # one line: the key figures (the per-candidate arrays are the fields)
        return (f"SpySoftMarginResult(candidates={len(self.candidates)}, a={self.a:.3g}, "
                f"simulations={self.simulations} per candidate ({self.total_simulations} in all), "
                f"converged={self.converged}, error={self.error:.3g})")


def spy_similarity(sender: np.ndarray, time: np.ndarray, obs_sender: np.ndarray,
                   obs_time: np.ndarray) -> np.ndarray:
    """Similarity of simulated spy observations with an observed one (module docstring).

    ``φ = Σ_j w_j 1[the run's j-th receipt is by the observation's j-th spy, from the same
    sender]``, ``w_j = 2^-j / (1 - 2^-k)`` for ``j = 1..k`` (receipts ordered by time,
    spies that heard nothing last in spy order).

    Parameters
    ----------
    sender : numpy.ndarray of int, shape (runs, k)
        Each run's sender per spy (internal indices, -1: none).
    time : numpy.ndarray of float, shape (runs, k)
        Each run's first receipt time per spy (``inf``: none).
    obs_sender, obs_time : numpy.ndarray, shape (k,)
        The same for the observation.

    Returns
    -------
    numpy.ndarray of float, shape (runs,)

    Examples
    --------
    >>> import numpy as np
    >>> obs_s, obs_t = np.array([3, 5, 7]), np.array([1.0, 2.0, 3.0])
    >>> spy_similarity(np.array([[3, 5, 7], [3, 5, 8], [3, 5, 7]]),
    ...                np.array([[0.5, 0.9, 4.0], [1.0, 2.0, 3.0], [2.5, 2.0, 1.0]]),
    ...                obs_s, obs_t).tolist()
    [1.0, 0.8571428571428571, 0.2857142857142857]
    """
    k = obs_sender.shape[0]
    want = np.argsort(obs_time, kind="stable")                 # observed order of receipt
    order = np.argsort(time, axis=1, kind="stable")            # each run's order
    same_spy = order == want[None, :]
    same_sender = sender[:, want] == obs_sender[want][None, :]
    w = 0.5 ** np.arange(1, k + 1)
    return (same_spy & same_sender) @ (w / w.sum())


def _candidates(obs: SpyObservation, k: int | None, first: int) -> np.ndarray:
    """Internal ids of the honest candidates, by hop distance from ``first`` (the first
    spy's sender; ties by index), at most ``k`` of them (``None``: every honest node)."""
    g = obs.graph
    n = g.number_of_nodes()
    spy = np.zeros(n, bool)
    spy[obs.spy_index] = True
    want = n - int(spy.sum()) if k is None else k
    indptr, indices = g.indptr, g.indices
    dist = np.full(n, -1, np.int64)
    dist[first] = 0
    frontier = [first]
    out = [first] if not spy[first] else []
    while frontier and len(out) < want:
        nxt = []
        for v in frontier:
            for w in indices[indptr[v]:indptr[v + 1]].tolist():
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    nxt.append(w)
        nxt.sort()
        out.extend(w for w in nxt if not spy[w])
        frontier = nxt
    return np.array(out[:want], np.int64)


def _log_sum(x: np.ndarray) -> float:
    top = float(np.max(x))
    return top + math.log(float(np.exp(x - top).sum())) if np.isfinite(top) else -math.inf


def _check_protocol(protocol: Any) -> Any:
    if not isinstance(protocol, (StemProtocol, ContinuousDiffusion)) or (
            protocol.name not in SPY_SOFT_MARGIN_PROTOCOLS):
        raise InvalidParameterError(
            f"protocol must be one of {list(SPY_SOFT_MARGIN_PROTOCOLS)} (a stem-and-fluff protocol "
            f"of spread.simulate_stems) for 'soft-margin-spies'; got {protocol!r}"[:300])
    return protocol


def soft_margin_spies_estimate(obs: SpyObservation, protocol: Any, *, rng: Any = None,
                               simulations: int = 200, a: Any = DEFAULT_WIDTHS,
                               candidates: int | None = 20, tolerance: float = 0.05,
                               max_simulations: int = 3200) -> SpySoftMarginResult:
    """Soft-margin likelihood of each candidate source from what the spies saw.

    For each candidate θ, ``n`` runs of ``protocol`` from θ with the observed spies
    (:func:`spread.simulate_stems`: a fresh anonymity graph per run, as the adversary does
    not know it), the similarity ``φ_i`` of each run's spy observation with ``obs``
    (senders and order of first receipt, :func:`spy_similarity`) and
    ``P̂_a(obs | θ) = (1/n) Σ_i exp(-(φ_i - 1)² / a²)``. As ``a -> 0`` this tends to the
    probability that a run from θ reproduces every spy's sender and the order of receipt.

    *Refinement* as :func:`soft_margin_estimate`: every width on the same runs, ``n``
    doubles from ``simulations``; a width is stable when the previous round's MAP is within
    two standard errors of the current MAP's posterior, that posterior's standard error is
    at most ``tolerance`` and at least 10 effective runs carry it; stop when the narrowest
    width is stable or the next doubling would pass ``max_simulations``; report the
    narrowest stable width (``converged=True``), else the widest.

    *Pruning.* Only the ``candidates`` honest nodes nearest (in hops) the sender of the
    earliest message any spy received are simulated (that sender is on the stem or the
    fluff near the source; ties by node index); every other node, and every spy, scores
    ``-inf``. ``candidates=None`` simulates every honest node.

    *Cost.* ``len(candidates) x n'`` runs of the compiled stem simulator, each a heap
    Dijkstra over the whole graph (about 5-10 µs on a 100-node 4-regular graph);
    requests whose ``len(candidates) x max_simulations`` runs pass the work budget are
    refused before anything runs, naming the node visits needed.

    Parameters
    ----------
    obs : SpyObservation
        What the spies saw of a run to completion (:meth:`spread.StemBatch.observation`).
    protocol : Dandelion, DandelionPlusPlus or spread.events.ContinuousDiffusion
        The protocol with its parameters (as the adversary knows them).
    rng : None, int or numpy.random.Generator
        Candidate ``c`` (internal index) draws from the child stream
        ``SeedSequence(entropy, spawn_key=(c,))``, ``entropy`` drawn once from ``rng``.
    simulations : int >= 1, default 200
        Runs per candidate in the first round.
    a : float or sequence of float, default (1/4, 1/8, 1/16, 1/32, 1/64)
        Kernel widths, strictly decreasing.
    candidates : int >= 1 or None, default 20
        Simulate at most this many honest candidates.
    tolerance : float in (0, 1], default 0.05
        Largest accepted standard error of the MAP's posterior.
    max_simulations : int >= simulations, default 3200
        Cap on the runs per candidate.

    Returns
    -------
    SpySoftMarginResult

    Raises
    ------
    InvalidParameterError
        Bad parameters, a protocol other than the three, an observation without spies or
        not of a run to completion, or a request over the work budget.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = nx.random_regular_graph(4, 30, seed=2)
    >>> proto = spread.Dandelion(0.2)
    >>> batch = spread.simulate_stems(g, proto, 1, spies=[0, 5, 10, 15, 20, 25], sources=[7],
    ...                               rng=4)
    >>> res = adversaries.soft_margin_spies_estimate(batch.observation(0), proto, rng=1)
    >>> len(res.candidates), res.simulations >= 200, bool(res.scores[0] == -float("inf"))
    (20, True, True)
    """
    obs = _check_obs(obs, "soft-margin-spies")
    protocol = _check_protocol(protocol)
    if obs.T != math.inf:
        raise InvalidParameterError(
            "obs must observe a run to completion (T = inf, from spread.simulate_stems); "
            f"got T={obs.T!r}")
    simulations = check_int(simulations, "simulations", low=1)
    max_simulations = check_int(max_simulations, "max_simulations", low=simulations)
    widths = _check_widths(a)
    if candidates is not None:
        candidates = check_int(candidates, "candidates", low=1)
    tolerance = check_real(tolerance, "tolerance", low=0.0, high=1.0, low_open=True)
    gen = check_rng(rng)
    g = obs.graph
    if g.is_infinite:
        raise InvalidParameterError(f"obs.graph must be finite for 'soft-margin-spies'; got {g!r}")
    n_nodes = g.number_of_nodes()
    obs_sender = np.array([-1 if s is None else g.node_index(s, "sender") for s in obs.sender],
                          np.int64)
    heard = np.isfinite(obs.time)
    labels_all, _ = obs.candidates()
    if not heard.any():
        raise InvalidParameterError(
            "obs must have a spy that received the transaction (a run to completion reaches "
            "every node); got no receipt at all")
    first = int(obs_sender[int(np.argmin(obs.time))])
    keep = _candidates(obs, candidates, first)
    nc = keep.shape[0]
    if nc == 0:
        raise InvalidParameterError(f"obs must leave an honest node to score; got {obs.n_spies} "
                                    f"spies on {n_nodes} nodes")
    per_run = (n_nodes + float(g.indices.shape[0])) * max(1.0, math.log2(n_nodes))
    check_size("max_simulations", max_simulations, work=nc * float(max_simulations) * per_run,
               what=f"the soft-margin-spies simulations ({nc} candidates x max_simulations runs)")
    entropy = int(gen.integers(0, 2**63))
    gens = [np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(int(c),))))
            for c in keep]
    spies = obs.spies.tolist()
    cand_labels = g.labels_of(keep)
    nw = widths.shape[0]
    logp = np.full((nc, nw), -np.inf)
    logq = np.full((nc, nw), -np.inf)
    hits = np.zeros(nc, np.int64)
    phi_sum = np.zeros(nc)
    runs = 0
    prev_map = np.full(nw, -1)
    n_round = simulations
    inv_a2 = 1.0 / (widths * widths)
    while True:
        for c in range(nc):
            b = simulate_stems(g, protocol, n_round, spies=spies,
                               sources=[cand_labels[c]] * n_round, rng=gens[c])
            phi = spy_similarity(b.spy_sender, b.spy_time, obs_sender, obs.time)
            hits[c] += int(np.count_nonzero(phi == 1.0))
            phi_sum[c] += float(phi.sum())
            e = -((phi - 1.0) ** 2)[:, None] * inv_a2[None, :]  # (runs, widths)
            for j in range(nw):
                logp[c, j] = np.logaddexp(logp[c, j], _log_sum(e[:, j]))
                logq[c, j] = np.logaddexp(logq[c, j], _log_sum(2.0 * e[:, j]))
        runs += n_round
        stable, errs = _width_stability(logp, logq, runs, prev_map, tolerance)
        if stable[-1] or 2 * runs > max_simulations:
            break
        n_round = runs  # double the total
    ok = np.nonzero(stable)[0]
    j = int(ok[-1]) if ok.shape[0] else 0
    values = np.full(labels_all.shape[0], -np.inf)
    values[keep] = logp[:, j] - math.log(runs)
    return SpySoftMarginResult(
        scores=Scores(labels_all, values, "log-likelihood"),
        a=float(widths[j]),
        widths=widths,
        log_likelihood=logp - math.log(runs),
        candidates=np.asarray(cand_labels),
        simulations=runs,
        total_simulations=runs * nc,
        error=float(errs[j]),
        converged=bool(ok.shape[0]),
        exact_matches=hits,
        mean_similarity=phi_sum / runs,
    )


def _params(protocol, graph) -> dict:
    return {"protocol": protocol}


@register_spy_estimator("soft-margin-spies", protocols=SPY_SOFT_MARGIN_PROTOCOLS, random=True,
                        likelihood=True, params=_params)
def soft_margin_spies(obs: SpyObservation, protocol: Any, *, rng: Any = None,
                      simulations: int = 200, a: Any = DEFAULT_WIDTHS,
                      candidates: int | None = 20, tolerance: float = 0.05,
                      max_simulations: int = 3200) -> Scores:
    """Soft-margin likelihood by simulation from the spies' senders and order of receipt.

    The scores of :func:`soft_margin_spies_estimate` (same parameters; see it and the
    module docstring for the observation model, the similarity, pruning and cost).

    Parameters
    ----------
    obs : SpyObservation
    protocol : Dandelion, DandelionPlusPlus or spread.events.ContinuousDiffusion
    rng, simulations, a, candidates, tolerance, max_simulations
        As :func:`soft_margin_spies_estimate`.

    Returns
    -------
    Scores
        kind ``"log-likelihood"``.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = nx.random_regular_graph(4, 30, seed=2)
    >>> proto = spread.DandelionPlusPlus(0.2)
    >>> obs = spread.simulate_stems(g, proto, 1, spies=[0, 5, 10], sources=[7],
    ...                             rng=4).observation(0)
    >>> scores = adversaries.soft_margin_spies(obs, proto, rng=1, candidates=5)
    >>> scores.kind, int((scores.array > -float("inf")).sum())
    ('log-likelihood', 5)
    """
    if not isinstance(obs, SpyObservation):
        raise InvalidTypeError(
            f"observation must be a SpyObservation (from observe_spies); got {obs!r}"[:200])
    return soft_margin_spies_estimate(obs, protocol, rng=rng, simulations=simulations, a=a,
                                      candidates=candidates, tolerance=tolerance,
                                      max_simulations=max_simulations).scores
