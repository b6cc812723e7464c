"""Detection metrics: detection probability, hop distance, rank, posterior (thesis §2.1.3).

``P_D = P(v_hat = v*)`` (Eq. 2.1-2.2), the hop distance ``d(v_hat, v*)`` between the
estimate and the true source (Eqs. 2.5, 2.9, 2.16), the rank of the true source
among the infected nodes, and the posterior ``P(v* = v | G_T)`` of a likelihood
estimator under a uniform prior (Eq. 2.6, Fig. 2.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries.scores import TIE_RTOL, Scores, _as_arrays, pick, top_set
from anonspread.errors import GraphError, InvalidParameterError
from anonspread.spread.graphs import LazyTree, as_contact_graph

__all__ = [
    "Evaluation",
    "detection_probability",
    "evaluate",
    "hop_distance",
    "posterior",
    "source_rank",
]


def _source_pos(nodes: np.ndarray, source: Any) -> int:
    hits = np.nonzero(nodes == source)[0] if nodes.dtype != object else [
        i for i, v in enumerate(nodes.tolist()) if v == source
    ]
    if len(hits) == 0:
        raise GraphError(f"source must be one of the scored (infected) nodes; got {source!r}")
    return int(hits[0])


def detection_probability(scores: Mapping, source: Any) -> float:
    """``P(pick(scores) = source)`` under uniform tie-breaking: ``1/|ties|`` or 0.

    The conditional expectation of the 0/1 detection given the snapshot, so its mean
    over trials estimates ``P_D`` with less variance than the 0/1 outcomes.

    Parameters
    ----------
    scores : mapping
        Node -> score (an estimator's output).
    source : node
        The true source (one of the scored nodes).

    Returns
    -------
    float
        ``1/|ties|`` if the source is among the maximisers, else 0.

    Examples
    --------
    >>> detection_probability({"a": 0.0, "b": 0.0, "c": -1.0}, "a")
    0.5
    """
    nodes, values = _as_arrays(scores)
    i = _source_pos(nodes, source)
    top = top_set(values)
    return 1.0 / top.shape[0] if i in set(top.tolist()) else 0.0


def source_rank(scores: Mapping, source: Any) -> float:
    """Rank of the true source by score (1 = best), ties sharing their mean rank.

    ``1 + #{v: s(v) > s(source)} + (#{v != source: s(v) = s(source)}) / 2`` with
    equality up to the tie tolerance of :func:`adversaries.pick`: the expected
    position of the source when ties are ordered uniformly at random.

    Parameters
    ----------
    scores : mapping
        Node -> score (an estimator's output).
    source : node
        The true source (one of the scored nodes).

    Examples
    --------
    >>> source_rank({"a": 2.0, "b": 1.0, "c": 1.0}, "b")
    2.5
    """
    nodes, values = _as_arrays(scores)
    s = values[_source_pos(nodes, source)]
    if np.isneginf(s):
        greater = int(np.sum(~np.isneginf(values)))
        tied = int(np.sum(np.isneginf(values)))
    else:
        tol = TIE_RTOL * max(1.0, abs(s))
        greater = int(np.sum(values > s + tol))
        tied = int(np.sum(np.abs(values - s) <= tol))
    return 1.0 + greater + (tied - 1) / 2.0


def posterior(scores: Mapping) -> Scores:
    """Posterior ``P(v* = v | G_T)`` of a log-likelihood under a uniform prior (Fig. 2.2).

    ``exp(l_v - logsumexp(l))``; only for likelihood estimators.

    Parameters
    ----------
    scores : mapping
        Node -> log-likelihood (a likelihood estimator's output).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import spread, adversaries
    >>> s = adversaries.Snapshot(nx.path_graph(9), range(2, 7), T=4)
    >>> post = posterior(adversaries.exact_likelihood(s, spread.LineProtocol()))
    >>> round(sum(post.values()), 12)
    1.0
    """
    if isinstance(scores, Scores):
        if not scores.is_likelihood:
            raise InvalidParameterError(
                f"scores must be log-likelihoods for a posterior; got kind {scores.kind!r}"
            )
        nodes, values = scores.nodes, scores.array
    else:
        nodes, values = _as_arrays(scores)
    top = values.max()
    if np.isneginf(top):
        raise InvalidParameterError("scores must give some node a positive likelihood; got all -inf")
    w = np.exp(values - top)
    return Scores(nodes, w / w.sum(), "posterior")


def hop_distance(graph: Any, u: Any, v: Any) -> int:
    """Hop distance between nodes ``u`` and ``v`` of the contact graph (Eqs. 2.9, 2.16).

    On a lazily grown tree, through the tree parents; on a finite graph, by BFS.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph.
    u, v : node
        Two of its nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> hop_distance(nx.cycle_graph(6), 0, 4)
    2
    """
    g = as_contact_graph(graph)
    if isinstance(g, LazyTree):
        a, b = g.node_index(u, "u"), g.node_index(v, "v")
        da, db = g.depth(a), g.depth(b)
        tpar = g.store.tpar
        h = 0
        while da > db:
            a, da, h = int(tpar[a]), da - 1, h + 1
        while db > da:
            b, db, h = int(tpar[b]), db - 1, h + 1
        while a != b:
            a, b, h = int(tpar[a]), int(tpar[b]), h + 2
        return h
    a, b = g.node_index(u, "u"), g.node_index(v, "v")
    if a == b:
        return 0
    dist = {a: 0}
    frontier = [a]
    while frontier:
        nxt = []
        for x in frontier:
            for w in g.neighbors(x).tolist():
                if w not in dist:
                    dist[w] = dist[x] + 1
                    if w == b:
                        return dist[w]
                    nxt.append(w)
        frontier = nxt
    raise GraphError(f"u and v must be connected in graph; got {u!r} and {v!r} in different components")


@dataclass(frozen=True)
class Evaluation:
    """How one estimate fared against the true source.

    :func:`evaluate` returns one.

    Parameters
    ----------
    estimate : node
        ``pick(scores)``.
    detected : bool
        ``estimate == source``.
    detection_probability : float
        ``P(pick = source | snapshot)`` (``1/|ties|`` or 0).
    hops : int
        Hop distance from the estimate to the source in the contact graph.
    rank : float
        :func:`source_rank`.

    Examples
    --------
    Flooding for two steps infects the ball around the source, whose centre the Jordan
    estimator finds; after random diffusion the source ties with a neighbour, and the
    tie-break picks the neighbour:

    >>> import anonspread as asp
    >>> from anonspread import adversaries, spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> s = asp.simulate(tree, spread.Flooding(), T=2, rng=0)
    >>> jordan = adversaries.jordan_center(adversaries.observe(s))
    >>> adversaries.evaluate(s.graph, jordan, s.source)
    Evaluation(estimate=0, detected=True, detection_probability=1.0, hops=0, rank=1.0)
    >>> s = asp.simulate(tree, spread.RandomDiffusion(0.5), T=4, rng=2)
    >>> jordan = adversaries.jordan_center(adversaries.observe(s))
    >>> adversaries.evaluate(s.graph, jordan, s.source, rng=0)
    Evaluation(estimate=2, detected=False, detection_probability=0.5, hops=1, rank=1.5)
    """

    estimate: Any
    detected: bool
    detection_probability: float
    hops: int
    rank: float


def evaluate(graph: Any, scores: Mapping, source: Any, *, rng: Any = None) -> Evaluation:
    """Score one estimate: detection (with random tie-breaking), hops, rank.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph (for the hop distance between the estimate and the source).
    scores : mapping
        Node -> score (an estimator's output).
    source : node
        The true source.
    rng : None, int or numpy.random.Generator
        Breaks ties between maximisers uniformly (:func:`pick`).

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import networkx as nx
    >>> ev = evaluate(nx.path_graph(3), {0: -1.0, 1: 0.0, 2: -1.0}, 0, rng=0)
    >>> ev.estimate, ev.detected, ev.hops, ev.rank
    (1, False, 1, 2.5)
    """
    est = pick(scores, rng=rng)
    return Evaluation(
        estimate=est,
        detected=bool(est == source),
        detection_probability=detection_probability(scores, source),
        hops=hop_distance(graph, est, source),
        rank=source_rank(scores, source),
    )
