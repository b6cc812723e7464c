"""The spy adversary (thesis §2.5 (a)): colluding nodes report when and from whom they got the rumour.

A set of spies is given or drawn (:func:`draw_spies`); :func:`observe_spies` reads a
message-level run (:func:`spread.events.simulate_messages`) and keeps, for every spy, the
time of the first message it received and its sender -- metadata any participant sees.
Estimators map that observation to :class:`adversaries.Scores` over candidate sources
(every node of a finite graph; on an infinite tree, the nodes realised so far):

* :func:`first_spy` -- the sender of the earliest message any spy received (model-free);
* :func:`ml_spies_diffusion` -- the exact likelihood of the spies' receipt times and
  senders under discrete-time random diffusion on a tree (a dynamic program over
  infection times, Pinto, Thiran & Vetterli 2012 without their Gaussian approximation);
* :func:`ml_snapshot_spies` -- adaptive diffusion on a tree, snapshot and spies together:
  the snapshot ML of Proposition 2.4.1 restricted to the sources every spy's sender
  points to (on a tree every node hears the rumour first from its neighbour towards the
  source, so this is the exact likelihood of snapshot and senders).

They are declared in :data:`SPY_ESTIMATORS` (``observation="spies"`` or
``"snapshot+spies"``), not in :data:`adversaries.ESTIMATORS`, whose entries all take a
snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from anonspread.adversaries.estimators import ml_adaptive_diffusion
from anonspread.adversaries.observation import Snapshot, graph_is_forest
from anonspread.adversaries.registry import ESTIMATORS, EstimatorSpec, register_estimator
from anonspread.adversaries.scores import Scores
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.spy_observation import SpyObservation
from anonspread.validation import check_probability, check_rng

__all__ = [
    "SPY_ESTIMATORS",
    "SpyObservation",
    "draw_spies",
    "first_spy",
    "get_spy_estimator",
    "ml_snapshot_spies",
    "ml_spies_diffusion",
    "observe_spies",
    "register_spy_estimator",
]


def _label_array(g, idx: np.ndarray) -> np.ndarray:
    return g.labels_of(idx)


def _index(g, v: Any, name: str) -> int:
    return g.node_index(v, name)


def draw_spies(graph: Any, fraction: float, *, by: str = "uniform", rng: Any = None) -> np.ndarray:
    """Draw a set of spies: a ``fraction`` of the nodes, uniformly or with weight ∝ degree.

    On a finite graph exactly ``round(fraction * n)`` distinct nodes; on an infinite tree
    every node realised so far is a spy independently with probability ``fraction``
    (``by="degree"``: ``fraction * deg / mean deg``, capped at 1), which is the i.i.d. spy
    model restricted to the nodes a run could reach.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
    fraction : float in [0, 1]
    by : {"uniform", "degree"}
    rng : None, int or numpy.random.Generator

    Returns
    -------
    numpy.ndarray of node labels

    Examples
    --------
    >>> import networkx as nx
    >>> draw_spies(nx.path_graph(10), 0.3, rng=0).shape
    (3,)
    """
    fraction = check_probability(fraction, "fraction")
    if by not in ("uniform", "degree"):
        raise InvalidParameterError(f"by must be 'uniform' or 'degree'; got {by!r}")
    gen = check_rng(rng)
    g = as_contact_graph(graph)
    if isinstance(g, LazyTree):
        n = g.number_of_touched_nodes()
        deg = g.store.deg[:n].astype(np.float64)
        prob = np.full(n, fraction)
        if by == "degree":
            prob = np.minimum(1.0, fraction * deg / deg.mean())
        return np.nonzero(gen.random(n) < prob)[0].astype(np.int64)
    n = g.number_of_nodes()
    k = round(fraction * n)
    if by == "uniform":
        idx = gen.choice(n, size=k, replace=False)
    else:
        deg = np.diff(g.indptr).astype(np.float64)
        idx = gen.choice(n, size=k, replace=False, p=deg / deg.sum())
    return _label_array(g, np.sort(idx).astype(np.int64))


def observe_spies(run: Any, spies: Iterable) -> SpyObservation:
    """The spies' view of a message-level run: first receipt time and sender of each spy.

    Parameters
    ----------
    run : spread.events.MessageRun
    spies : iterable of nodes
        May be empty (the estimators then refuse).

    Returns
    -------
    SpyObservation

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.spread.events import simulate_messages
    >>> run = simulate_messages(spread.graphs.line(), spread.RandomDiffusion(1.0), 3, rng=0)
    >>> obs = observe_spies(run, [1, 2])
    >>> obs.time.tolist(), obs.sender
    ([1.0, 1.0], [0, 0])
    """
    from anonspread.spread.events import MessageRun

    if not isinstance(run, MessageRun):
        raise InvalidTypeError(
            f"run must be a spread.events.MessageRun (from simulate_messages); got {run!r}"[:200]
        )
    sp = run.spread
    g = sp.graph
    try:
        labels = list(spies.tolist() if isinstance(spies, np.ndarray) else spies)
    except TypeError:
        raise InvalidTypeError(f"spies must be an iterable of nodes; got {spies!r}") from None
    idx = np.array([_index(g, v, "spy") for v in labels], np.int64)
    if np.unique(idx).shape[0] != idx.shape[0]:
        raise InvalidParameterError(f"spies must list each node once; got {labels!r}"[:200])
    log = run.log
    order = np.argsort(log.received, kind="stable")
    d = log.delivered[order]
    order = order[d]
    want = {v: i for i, v in enumerate(labels)}
    time = np.full(len(labels), np.inf)
    sender: list = [None] * len(labels)
    kind: list = [None] * len(labels)
    left = len(labels)
    recv = log.receiver[order].tolist()
    for j, r in zip(order.tolist(), recv):
        i = want.get(r)
        if i is not None and sender[i] is None:
            time[i] = log.received[j]
            s = log.sender[j]
            sender[i] = s.item() if hasattr(s, "item") else s
            kind[i] = str(log.kind[j])
            left -= 1
            if left == 0:
                break
    spy_labels = _label_array(g, idx) if labels else np.empty(0, np.int64)
    return SpyObservation(graph=g, T=sp.T, spies=spy_labels, spy_index=idx, time=time,
                          sender=sender, kind=kind, protocol=sp.protocol)


# ----------------------------------------------------------------- registry

#: The spy estimators by name (the same specs as in :data:`adversaries.ESTIMATORS`).
SPY_ESTIMATORS: Registry[EstimatorSpec] = Registry("spy estimator", parameter="estimator")


def register_spy_estimator(name: str, *, protocols: tuple[str, ...] | None, graphs: str = "any",
                           observation: str = "spies", likelihood: bool = False,
                           random: bool = False, params: Callable | None = None,
                           extra: Callable | None = None):
    """Function decorator: declare a spy estimator (an :class:`EstimatorSpec` with a spy observation).

    Parameters
    ----------
    name : str
        The registry name.
    protocols, graphs, observation, likelihood, random, params, extra
        As for :func:`register_estimator`; ``observation`` is ``"spies"`` or
        ``"snapshot+spies"``; ``random=True``: the function takes the keyword ``rng``.

    Returns
    -------
    callable
        The decorator; it registers the function and returns it unchanged.

    Examples
    --------
    A model-free spy estimator: every spy votes for the node it first heard from. It
    lets :func:`first_spy` check the observation (and refuse an empty set of spies), and
    imports what it uses (it stays registered after this example):

    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> from anonspread.spread.events import simulate_messages
    >>> @adversaries.register_spy_estimator("doc-sender-votes", protocols=None)
    ... def sender_votes(obs):
    ...     "Each spy votes for the node it first heard from."
    ...     import numpy as np
    ...     from anonspread.adversaries import Scores, first_spy
    ...     first = first_spy(obs)
    ...     votes = dict.fromkeys(first, 0.0)
    ...     for sender in obs.sender:
    ...         if sender is not None:
    ...             votes[sender] += 1.0
    ...     return Scores(first.nodes, np.array([votes[n] for n in first.nodes]), "votes")
    >>> spec = adversaries.get_spy_estimator("doc-sender-votes")
    >>> spec.observation, spec.description
    ('spies', 'Each spy votes for the node it first heard from.')
    >>> g = spread.graphs.from_networkx(nx.random_regular_graph(4, 30, seed=1))
    >>> run = simulate_messages(g, spread.RandomDiffusion(0.5), 4, rng=0)
    >>> obs = adversaries.observe_spies(run, adversaries.draw_spies(g, 0.3, rng=0))
    >>> obs.sender
    [27, 21, None, 24, 24, None, 17, None, None]
    >>> votes = spec.func(obs)
    >>> adversaries.pick(votes), votes[24], run.spread.source
    (24, 2.0, 25)
    """
    if observation not in ("spies", "snapshot+spies"):
        raise InvalidParameterError(
            f"observation must be 'spies' or 'snapshot+spies'; got {observation!r}"
        )

    def deco(func: Callable) -> Callable:
        # one registry for every estimator; SPY_ESTIMATORS is the view of the spy ones
        register_estimator(name, protocols=protocols, graphs=graphs, observation=observation,
                           likelihood=likelihood, random=random, params=params,
                           extra=extra)(func)
        SPY_ESTIMATORS.add(name, ESTIMATORS[name])
        return func

    return deco


def get_spy_estimator(name: str) -> EstimatorSpec:
    """The spy estimator registered under ``name``.

    Parameters
    ----------
    name : str
        A name of :data:`SPY_ESTIMATORS`.

    Examples
    --------
    >>> from anonspread import adversaries
    >>> adversaries.get_spy_estimator("first-spy").observation
    'spies'
    """
    return SPY_ESTIMATORS.get(name)


def _check_obs(obs: Any, name: str) -> SpyObservation:
    if not isinstance(obs, SpyObservation):
        raise InvalidTypeError(
            f"observation must be a SpyObservation (from observe_spies); got {obs!r}"[:200]
        )
    if obs.n_spies == 0:
        raise InvalidParameterError(
            f"spies must be a non-empty set of nodes for estimator {name!r}; got []"
        )
    return obs


def _check_model(obs: SpyObservation, name: str, protocols: tuple[str, ...], tree: bool) -> None:
    spec = SPY_ESTIMATORS[name]
    reason = spec.why_not(obs.protocol, obs.graph) if tree else None
    if obs.protocol.name not in protocols:
        reason = f"estimator {name!r} assumes a protocol in {list(protocols)}; got {obs.protocol!r}"
    if reason is not None:
        raise InvalidParameterError(reason)


# ----------------------------------------------------------------- estimators


@register_spy_estimator("first-spy", protocols=None)
def first_spy(obs: SpyObservation) -> Scores:
    """First-spy: the sender of the earliest message any spy received.

    Score 0 for that sender (every sender tied at the earliest time), ``-inf`` for the
    other candidates; 0 for all when no spy received anything (no information).

    Parameters
    ----------
    obs : SpyObservation
        What the spies saw (:func:`observe_spies`).

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.spread.events import simulate_messages
    >>> run = simulate_messages(spread.graphs.line(), spread.RandomDiffusion(0.5), 8, rng=1)
    >>> from anonspread.adversaries import pick
    >>> pick(first_spy(observe_spies(run, range(1, 9))), rng=0) == run.spread.source
    True
    """
    obs = _check_obs(obs, "first-spy")
    labels, idx = obs.candidates()
    if not np.isfinite(obs.time).any():
        return Scores(labels, np.zeros(labels.shape[0]), "first-spy")
    t0 = obs.time.min()
    firsts = {obs.sender[i] for i in np.nonzero(obs.time == t0)[0].tolist()}
    pos = [_index(obs.graph, s, "sender") for s in firsts]
    vals = np.full(labels.shape[0], -np.inf)
    vals[pos] = 0.0
    return Scores(labels, vals, "first-spy")


def _diffusion_params(protocol, graph) -> dict:
    return {"p": protocol.p}


def _neighbours(g) -> Callable[[int], list[int]]:
    if isinstance(g, LazyTree):
        n0 = g.number_of_touched_nodes()
        store = g.store

        def nb(v: int) -> list[int]:
            # only the realised part: nodes beyond it can be neither sources nor spies
            s, d = store.start[v], store.deg[v]
            if s < 0:
                return [int(store.tpar[v])] if store.tpar[v] >= 0 else []
            return [w for w in store.nbr[s : s + d].tolist() if w < n0]

        return nb
    indptr, indices = g.indptr, g.indices
    return lambda v: indices[indptr[v] : indptr[v + 1]].tolist()


@register_spy_estimator("ml-spies", protocols=("random-diffusion",), graphs="tree",
                        likelihood=True, params=_diffusion_params)
def ml_spies_diffusion(obs: SpyObservation, p: float) -> Scores:
    """Exact log-likelihood of the spies' receipts under discrete random diffusion on a tree.

    For a candidate ``v``, infection times along the tree rooted at ``v`` add i.i.d.
    ``Geometric(p)`` delays (``P(D = k) = (1 - p)^(k-1) p``) from parent to child. The
    likelihood of the spies' observations (time ``t_s`` and sender, or "nothing by
    ``T``") is computed by one upward pass over the spies' subtree with states
    ``0..T`` and ``> T``: ``m_c = K f_c``, ``f_u = prod_c m_c`` (times ``1[tau = t_u]``
    at a spy), ``L(v) = f_v(0)``. A spy's sender must be its neighbour towards ``v``.

    Parameters
    ----------
    obs : SpyObservation
        What the spies saw (:func:`observe_spies`) of a run of :class:`spread.RandomDiffusion`.
    p : float
        The infection probability per step of that run, in (0, 1].

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> run = spread.simulate_messages(nx.balanced_tree(2, 5), spread.RandomDiffusion(0.5), 6,
    ...                                source=0, rng=3)
    >>> obs = adversaries.observe_spies(run, [10, 20, 30, 40, 50, 60])
    >>> adversaries.pick(adversaries.ml_spies_diffusion(obs, 0.5), rng=0)
    0
    """
    obs = _check_obs(obs, "ml-spies")
    _check_model(obs, "ml-spies", ("random-diffusion",), tree=True)
    p = check_probability(p, "p")
    T = obs.T
    S = T + 2
    K = np.zeros((S, S))
    for a in range(T + 1):
        for b in range(a + 1, T + 1):
            K[a, b] = p * (1 - p) ** (b - a - 1)
        K[a, T + 1] = (1 - p) ** (T - a)
    K[T + 1, T + 1] = 1.0
    g = obs.graph
    labels, idx = obs.candidates()
    nb = _neighbours(g)
    spy_t = {}
    spy_from = {}
    for i, s in enumerate(obs.spy_index.tolist()):
        if np.isfinite(obs.time[i]):
            spy_t[s] = round(float(obs.time[i]))
            spy_from[s] = _index(g, obs.sender[i], "sender")
        else:
            spy_t[s] = T + 1
    vals = np.full(labels.shape[0], -np.inf)
    for c, v in enumerate(idx.tolist()):
        vals[c] = _tree_loglik(v, T, K, nb, spy_t, spy_from)
    return Scores(labels, vals, "log-likelihood")


def _tree_loglik(v, T, K, nb, spy_t, spy_from) -> float:
    S = T + 2
    if v in spy_from:
        return -np.inf  # it heard the rumour from someone: not the source
    order = [v]
    parent = {v: -1}
    depth = {v: 0}
    i = 0
    while i < len(order):
        x = order[i]
        i += 1
        if depth[x] >= T:
            continue
        for w in nb(x):
            if w != parent[x]:
                parent[w] = x
                depth[w] = depth[x] + 1
                order.append(w)
    for s, u in spy_from.items():
        if s not in parent or parent[s] != u or depth[s] > spy_t[s]:
            return -np.inf
    f: dict[int, np.ndarray] = {}
    for x in reversed(order):
        fx = f.get(x)
        if x in spy_t and x != v:  # a spy that is the source hears nothing: no factor
            e = np.zeros(S)
            e[spy_t[x]] = 1.0 if fx is None else fx[spy_t[x]]
            fx = e
        if fx is None:
            continue  # nothing observed below x
        px = parent[x]
        if px < 0:
            f[x] = fx
            continue
        m = K @ fx
        f[px] = m if px not in f else f[px] * m
    root = f.get(v)
    if root is None:
        return 0.0
    val = root[0]
    return float(np.log(val)) if val > 0 else -np.inf


def _ad_params(protocol, graph) -> dict:
    return {"d0": protocol.design_degree(as_contact_graph(graph))}


@register_spy_estimator("ml-snapshot-spies", protocols=("adaptive-diffusion",), graphs="tree",
                        observation="snapshot+spies", likelihood=True, params=_ad_params)
def ml_snapshot_spies(snapshot: Snapshot, obs: SpyObservation, d0: float | None) -> Scores:
    """Adaptive diffusion on a tree: snapshot ML (Prop. 2.4.1) restricted by the spies' senders.

    On a tree every node first hears the rumour from its neighbour towards the source,
    so a spy ``s`` whose first message carried the rumour from ``u`` rules out every node on ``s``'s side of the
    edge ``(u, s)``; given the source, the senders are determined, so
    ``log P(G_T, senders | v) = log P(G_T | v)`` for consistent ``v`` and ``-inf`` otherwise.

    Parameters
    ----------
    snapshot : Snapshot
        The infected subgraph (:func:`observe`).
    obs : SpyObservation
        What the spies saw (:func:`observe_spies`).
    d0 : float or None
        The design degree of adaptive diffusion, as for :func:`ml_adaptive_diffusion`.

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> run = spread.simulate_messages(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(3), 4,
    ...                                rng=1)
    >>> snap = adversaries.observe(run.spread)
    >>> obs = adversaries.observe_spies(run, list(run.spread.infected[1:4]))
    >>> scores = adversaries.ml_snapshot_spies(snap, obs, 3)
    >>> len(scores), adversaries.pick(scores, rng=0) == run.spread.source
    (10, True)
    """
    if not isinstance(snapshot, Snapshot):
        raise InvalidTypeError(f"snapshot must be an adversaries.Snapshot; got {snapshot!r}"[:200])
    obs = _check_obs(obs, "ml-snapshot-spies")
    _check_model(obs, "ml-snapshot-spies", ("adaptive-diffusion",), tree=True)
    if not graph_is_forest(snapshot.graph):
        raise GraphError(f"graph must be a tree for 'ml-snapshot-spies'; got {snapshot.graph!r}")
    base = ml_adaptive_diffusion(snapshot, d0)
    vals = base.array.copy()
    indptr, indices = snapshot.subgraph()
    pos = {int(v): i for i, v in enumerate(snapshot.index.tolist())}
    g = obs.graph
    for i, s in enumerate(obs.spy_index.tolist()):
        if not np.isfinite(obs.time[i]) or obs.kind[i] not in ("infect", "token"):
            continue  # nothing heard, or a relay reaching the source (it heard from no one)
        u = _index(g, obs.sender[i], "sender")
        if s not in pos or u not in pos:
            continue
        # everything reachable from s without crossing (s, u) cannot be the source
        ps, pu = pos[s], pos[u]
        seen = {ps}
        stack = [ps]
        while stack:
            x = stack.pop()
            vals[x] = -np.inf
            for w in indices[indptr[x] : indptr[x + 1]].tolist():
                if w not in seen and not (x == ps and w == pu):
                    seen.add(w)
                    stack.append(w)
    return Scores(base.nodes, vals, "log-likelihood")
