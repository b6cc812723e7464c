"""The Bayes ceiling: the detection probability no snapshot adversary can beat.

With the source drawn uniformly from the ``N`` nodes of a graph, an adversary who sees
the infected set ``S`` at time ``T`` detects the source with probability at most

    ``P* = sum_S P(S) max_v P(v | S) = (1/N) sum_S max_v P(S | v)``,

the detection probability of the maximum-a-posteriori estimator (under the uniform
prior the MAP estimate is the maximum-likelihood one, ties broken any way). Every
estimator, whatever it computes and however it was trained, is a (possibly random)
function of ``S``, so none can exceed ``P*``.

:func:`bayes_ceiling` computes it

* **exactly**, by enumerating the distribution of the final infected set of a run
  from every source (the protocol's trajectory enumeration of
  :data:`adversaries.TRAJECTORIES`, :attr:`Trajectories.final`, the same code that
  gives :func:`adversaries.exact_likelihood`) and summing the largest likelihood of
  each snapshot; or
* **by Monte Carlo**: snapshots simulated from a uniform source (the compiled
  :func:`spread.simulate`), each one's exact posterior from
  :func:`adversaries.exact_likelihood`; the mean of ``max_v P(v | S)`` is an unbiased
  estimate of ``P*`` (its expectation over ``S`` is the sum above), given with a
  t confidence interval.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries.exact import (
    MAX_STATES,
    TRAJECTORIES,
    LocalView,
    StateLimitError,
    Trajectories,
    exact_likelihood,
)
from anonspread.adversaries.observation import Snapshot, graph_is_forest
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import ContactGraph, LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size, check_size, run_work
from anonspread.spread.protocols import Protocol
from anonspread.validation import check_int, check_real, check_rng

#: Node visits one Monte Carlo trial of :func:`bayes_ceiling` counts for the work limit on
#: top of its run: a Python-level ``simulate`` and a snapshot key cost about what 10^4
#: visits of a compiled kernel do (tens of microseconds against a few nanoseconds).
TRIAL_VISITS = 10_000

__all__ = ["METHODS", "Ceiling", "bayes_ceiling", "ceiling_refusal"]

#: The accepted ``method`` values of :func:`bayes_ceiling`.
METHODS = ("auto", "exact", "monte-carlo")
#: Most infected nodes :func:`adversaries.exact_likelihood` takes (bitmask states).
MAX_INFECTED = 62
#: Tolerance on the total probability of an enumeration (it must be a distribution).
_MASS_TOL = 1e-9

_UNIFORM = "uniform prior over the {n} nodes of the graph (MAP = ML)"
_SYMMETRY = (
    "source at node 0 of the vertex-transitive {tree}: by the mass-transport principle "
    "(regular trees are unimodular) the expected largest posterior of a snapshot from node 0 "
    "equals the ML (= MAP, uniform prior) detection probability with ties broken uniformly, "
    "the same for every source"
)


@dataclass(frozen=True)
class Ceiling:
    """The Bayes-optimal detection probability of a (graph, protocol, T), as computed.

    Parameters
    ----------
    value : float
        ``P*`` (exact) or its Monte Carlo estimate.
    interval : tuple of float
        ``(low, high)``: degenerate ``(value, value)`` when exact, else the t interval
        at ``level`` (clipped to [0, 1]).
    level : float
        Confidence level of ``interval``.
    method : {"exact", "monte-carlo"}
        How it was computed.
    snapshots : int
        Exact: the distinct snapshots enumerated (every infected set of positive
        probability). Monte Carlo: the snapshots sampled.
    distinct : int
        The distinct snapshots among ``snapshots`` (their likelihoods computed once each).
    stderr : float
        Standard error of ``value`` (0 when exact).
    sources : int
        Candidate sources under the prior: the graph's nodes, or 1 on an infinite
        regular tree (node 0, by symmetry).
    assumption : str
        The prior and the symmetry argument used.
    note : str
        With ``method="auto"``: why the exact enumeration was not used (empty otherwise).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import spread
    >>> c = bayes_ceiling(nx.path_graph(3), spread.Flooding(), 1)
    >>> c.value, c.method, c.snapshots  # {0,1}: from 0; {0,1,2}: from 1; {1,2}: from 2
    (1.0, 'exact', 3)
    """

    value: float
    interval: tuple[float, float]
    level: float
    method: str
    snapshots: int
    distinct: int
    stderr: float
    sources: int
    assumption: str
    note: str = ""

    def __str__(self) -> str:
        plural = "" if self.snapshots == 1 else "s"
        if self.method == "exact":
            return f"{self.value:.6g} (exact, {self.snapshots} snapshot{plural})"
        lo, hi = self.interval
        return (f"{self.value:.6g} [{lo:.4g}, {hi:.4g}] (Monte Carlo, {self.snapshots} snapshot{plural}, "
                f"{self.level:.0%} interval)")

    def __repr__(self) -> str:
        # one line: the value and how it was obtained (``assumption`` and ``note`` are the fields)
        lo, hi = self.interval
        span = "" if self.method == "exact" else f", interval=[{lo:.4g}, {hi:.4g}] ({self.level:.0%})"
        note = ", note=..." if self.note else ""
        return (f"Ceiling(value={self.value:.6g}, method={self.method!r}{span}, "
                f"snapshots={self.snapshots}, sources={self.sources}{note})")


# ----------------------------------------------------------------- checks


def _symmetric(g: LazyTree) -> bool:
    return g.kind in ("line", "regular")


def ceiling_refusal(graph: Any, protocol: Any) -> str | None:
    """Why :func:`bayes_ceiling` cannot run for ``protocol`` on ``graph`` at all, or None.

    A protocol needs an exact trajectory enumeration with a final-set distribution
    (:data:`adversaries.TRAJECTORIES`) that accepts the instance; an enumeration for
    trees only needs a graph without cycles; an infinite graph must be a regular tree
    (:func:`spread.graphs.line`, :func:`spread.graphs.regular_tree`: the uniform prior
    is then replaced by symmetry; a random tree has no uniform source).

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
    protocol : Protocol

    Returns
    -------
    str or None

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import spread
    >>> print(ceiling_refusal(nx.cycle_graph(5), spread.LineProtocol()))
    bayes_ceiling: the enumeration of protocol 'line' handles graphs without cycles only; got ContactGraph(n=5, m=5), which has cycles (on any graph: flooding, random-diffusion)
    """
    g = as_contact_graph(graph)
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    found = _refusal(g, protocol)
    return None if found is None else found[0]


def _refusal(g: ContactGraph | LazyTree, protocol: Protocol) -> tuple[str, type] | None:
    traj = TRAJECTORIES.get(protocol.name, None)
    with_final = sorted(name for name, t in TRAJECTORIES.items() if t.final is not None)
    if traj is None or traj.final is None:
        return (f"bayes_ceiling: protocol must be one whose exact trajectory enumeration gives the "
                f"final infected set ({', '.join(with_final)}); got {protocol!r}", InvalidParameterError)
    if traj.refuse is not None:
        reason = traj.refuse(protocol)
        if reason is not None:
            return f"bayes_ceiling: {reason}", InvalidParameterError
    if isinstance(g, LazyTree) and not _symmetric(g):
        return ("bayes_ceiling: graph must be finite or a regular infinite tree (line(), "
                f"regular_tree(d)), where a uniform source is defined by symmetry; got {g!r}", GraphError)
    if not traj.cycles and not graph_is_forest(g):
        cyclic = sorted(name for name in with_final if TRAJECTORIES[name].cycles)
        return (f"bayes_ceiling: the enumeration of protocol {protocol.name!r} handles graphs "
                f"without cycles only; got {g!r}, which has cycles (on any graph: {', '.join(cyclic)})",
                GraphError)
    return None


def _labels(g: ContactGraph | LazyTree, idx: list[int]) -> list[Hashable]:
    if isinstance(g, LazyTree):
        return list(idx)
    return [g.labels[i] for i in idx]


def _ball(g: ContactGraph | LazyTree, v: int, T: int) -> list[int]:
    """Node indices within ``T`` hops of ``v``, ``v`` first (every node a run from ``v``
    can infect in T steps, each infection crossing one contact per step)."""
    order = [v]
    seen = {v}
    frontier = [v]
    for _ in range(T):
        nxt = []
        for x in frontier:
            for w in g.neighbors(x).tolist():
                if w not in seen:
                    seen.add(w)
                    nxt.append(w)
        order.extend(nxt)
        frontier = nxt
        if not frontier:
            break
    return order


def _final(traj: Trajectories, protocol: Protocol, g, v: int, T: int, max_states: int,
           budget: str = "max_states"):
    """The distribution of the final infected set of a run from ``v``, keyed by the sorted
    tuple of node indices."""
    ball = _ball(g, v, T)
    loc = LocalView(Snapshot(g, _labels(g, ball), T))
    try:
        dist = traj.final(protocol, loc, 0, max_states)
    except StateLimitError as exc:
        raise StateLimitError(
            f"bayes_ceiling: the exact enumeration from node {_labels(g, [v])[0]!r} must stay under "
            f"{budget}={max_states} live protocol states at one step; got {exc.states}",
            exc.states, max_states) from None
    mass = math.fsum(dist.values())
    if abs(mass - 1.0) > _MASS_TOL:
        raise InvalidParameterError(
            f"bayes_ceiling: the enumeration of protocol {protocol.name!r} from node "
            f"{_labels(g, [v])[0]!r} sums to {mass!r}, not 1, over the sets within T={T} hops "
            "(does the protocol infect further than one hop per step?)")
    return {tuple(sorted(ball[i] for i in loc.bits(m))): p for m, p in dist.items()}


def _max_posterior(g, nodes: list[int], T: int, protocol: Protocol, max_states: int,
                   traj: Trajectories | None = None) -> float:
    """``max_v P(v | S)`` under the uniform prior, from :func:`exact_likelihood` (or, given
    ``traj``, from the same enumeration run directly, without exact_likelihood's cap of
    62 infected nodes)."""
    snap = Snapshot(g, _labels(g, nodes), T)
    if traj is None:
        logs = exact_likelihood(snap, protocol, max_states=max_states).array
    else:
        loc = LocalView(snap)
        with np.errstate(divide="ignore"):
            logs = np.log([traj.likelihood(protocol, loc, u, max_states) for u in range(loc.n)])
    top = float(np.max(logs))
    if not math.isfinite(top):
        raise InvalidParameterError(
            f"bayes_ceiling: a snapshot of protocol {protocol.name!r} has likelihood 0 from every "
            "candidate (the enumeration and the simulator disagree)")
    return 1.0 / math.fsum(np.exp(logs - top).tolist())


class SnapshotSizeError(InvalidParameterError):
    """A sampled snapshot is beyond :func:`exact_likelihood`'s reach."""


def _too_many(what: str, n: int, limit: int) -> StateLimitError:
    return StateLimitError(
        f"bayes_ceiling: exact enumeration must stay under max_states={limit}; {what} {n}", n, limit)


# ----------------------------------------------------------------- the two methods


def _exact(g, protocol: Protocol, T: int, traj: Trajectories, max_states: int, *,
           project: bool = False) -> Ceiling:
    if isinstance(g, LazyTree):
        dist = _final(traj, protocol, g, 0, T, max_states)
        if len(dist) > max_states:
            raise _too_many("distinct snapshots from node 0:", len(dist), max_states)
        terms = [p * _max_posterior(g, list(nodes), T, protocol, max_states, traj)
                 for nodes, p in dist.items()]
        value = math.fsum(terms)
        return Ceiling(value, (value, value), 1.0, "exact", len(dist), len(dist), 0.0, 1,
                       _SYMMETRY.format(tree=repr(g)))
    n = g.number_of_nodes()
    # auto: a source may use its share of the budget (the table grows with the sources)
    per_source = max(1, max_states // n) if project else max_states
    best: dict[tuple, float] = {}
    for v in range(n):
        budget = f"max_states/{n} sources" if project else "max_states"
        for key, p in _final(traj, protocol, g, v, T, per_source, budget).items():
            if p > best.get(key, 0.0):
                best[key] = p
        if len(best) > max_states:
            raise _too_many(f"the snapshots of the first {v + 1} of {n} sources number",
                            len(best), max_states)
        if project and len(best) * n > max_states * (v + 1):  # auto: give up early
            raise _too_many(f"the snapshots of the first {v + 1} of {n} sources number {len(best)}, "
                            "extrapolated to all sources", len(best) * n // (v + 1), max_states)
    value = min(math.fsum(best.values()) / n, 1.0)
    return Ceiling(value, (value, value), 1.0, "exact", len(best), len(best), 0.0, n,
                   _UNIFORM.format(n=n))


def _monte_carlo(g, protocol: Protocol, T: int, trials: int, gen: np.random.Generator, level: float,
                 max_states: int, note: str) -> Ceiling:
    from scipy import stats

    from anonspread.spread.simulate import simulate

    keys: list[tuple] = []
    for _ in range(trials):
        s = simulate(g, protocol, T, rng=gen)
        keys.append(tuple(sorted(np.asarray(s.index).tolist())))
    distinct = sorted(set(keys), key=lambda k: (-len(k), k))
    if len(distinct[0]) > MAX_INFECTED:
        raise SnapshotSizeError(
            f"bayes_ceiling: Monte Carlo needs the exact posterior of every sampled snapshot, which "
            f"exact_likelihood computes for at most {MAX_INFECTED} infected nodes; the snapshots of "
            f"{protocol!r} at T={T} reach {len(distinct[0])} infected nodes")
    value_of: dict[tuple, float] = {}
    for key in distinct:  # the largest first: an infeasible one is refused before the rest run
        try:
            value_of[key] = _max_posterior(g, list(key), T, protocol, max_states)
        except StateLimitError as exc:
            raise StateLimitError(
                f"bayes_ceiling: Monte Carlo needs the exact posterior of every sampled snapshot; one "
                f"of {len(key)} infected nodes needs more than max_states={max_states} protocol states "
                f"(got {exc.states})", exc.states, max_states) from None
    x = np.array([value_of[k] for k in keys])
    mean = float(np.mean(x))
    if trials > 1:
        se = float(np.std(x, ddof=1) / math.sqrt(trials))
        half = float(stats.t.ppf(0.5 + level / 2, trials - 1)) * se
        lo, hi = max(mean - half, 0.0), min(mean + half, 1.0)
    else:
        se, lo, hi = math.nan, 0.0, 1.0
    if isinstance(g, LazyTree):
        sources, assumption = 1, _SYMMETRY.format(tree=repr(g))
    else:
        sources = g.number_of_nodes()
        assumption = _UNIFORM.format(n=sources)
    return Ceiling(mean, (lo, hi), level, "monte-carlo", trials, len(distinct), se, sources,
                   assumption, note)


# ----------------------------------------------------------------- public function


def bayes_ceiling(
    graph: Any,
    protocol: Protocol,
    T: int,
    *,
    method: str = "auto",
    trials: int = 2000,
    rng: Any = None,
    level: float = 0.95,
    max_states: int = MAX_STATES,
) -> Ceiling:
    """The Bayes-optimal (MAP) detection probability of a snapshot adversary.

    With the source uniform on the graph's ``N`` nodes and ``S`` the infected set at time
    ``T``, ``P* = (1/N) sum_S max_v P(S | v)``: the detection probability of the MAP
    estimator, which under the uniform prior is the ML estimator. No estimator of the
    source from ``S`` (and the graph and T) exceeds it.

    On an infinite regular tree (:func:`spread.graphs.line`,
    :func:`spread.graphs.regular_tree`), where a uniform source does not exist, the run
    starts at node 0 (as :func:`spread.simulate` does) and the ceiling is
    ``sum_S P(S | 0) max_v P(S | v) / sum_u P(S | u)``, the expected largest posterior;
    the tree is vertex-transitive and unimodular, so by the mass-transport principle this
    is the ML estimator's detection probability with ties broken uniformly (the quantity
    of the thesis's closed forms, :mod:`adversaries.theory`).

    Methods:

    * ``"exact"``: the protocol's trajectory enumeration (:data:`adversaries.TRAJECTORIES`)
      gives the distribution of the final infected set from every source (on the ball of
      radius ``T`` around it); the largest likelihood of each snapshot is summed (on a
      regular tree: each snapshot's posterior by :func:`exact_likelihood`). Cost: the
      protocol states alive per step (at most ``max_states``) times the sources, and the
      distinct snapshots (at most ``max_states``). Small graphs and T.
    * ``"monte-carlo"``: ``trials`` snapshots simulated from a uniform source, each one's
      largest posterior ``max_v P(v | S)`` from :func:`exact_likelihood` (each distinct
      snapshot once); their mean is unbiased for ``P*`` and the interval is the t interval
      of these values in [0, 1]. Needs snapshots of at most 62 infected nodes whose
      enumeration fits in ``max_states``.
    * ``"auto"``: exact when the enumeration stays under ``max_states`` (it gives up as
      soon as one source's enumeration holds more than ``max_states / N`` live states, or
      the distinct snapshots of the sources enumerated so far, extrapolated linearly to
      all ``N`` sources, exceed ``max_states``), else Monte Carlo; if neither fits, the
      refusal names the sizes.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        A finite graph (trees only, unless the protocol's enumeration handles cycles:
        random diffusion), or an infinite regular tree.
    protocol : Protocol
        A protocol with an exact trajectory enumeration (every built-in one;
        adaptive diffusion without ``max_infections_per_step``).
    T : int >= 0
        Steps of the spread.
    method : {"auto", "exact", "monte-carlo"}
    trials : int >= 1
        Monte Carlo snapshots.
    rng : None, int or numpy.random.Generator
        Monte Carlo stream (the exact value does not use it).
    level : float in (0, 1)
        Confidence level of the Monte Carlo interval.
    max_states : int >= 1
        Cap on the protocol states alive at one step of an enumeration and on the
        distinct snapshots of the exact method.

    Returns
    -------
    Ceiling

    Raises
    ------
    InvalidParameterError
        A protocol without a final-set enumeration, an enumeration for trees on a graph
        with cycles, a random infinite tree, or a request that does not fit (the message
        gives the size it would need).

    Examples
    --------
    Flooding on a star with 3 leaves at T = 1: the centre's run infects everything,
    a leaf's run infects itself and the centre, and each of these 4 snapshots has one
    source: the ceiling is 1. At T = 2 every run infects the whole star; the 4
    snapshots collapse into one, whose best guess is right with probability 1/4.

    >>> import networkx as nx
    >>> from anonspread import spread
    >>> [bayes_ceiling(nx.star_graph(3), spread.Flooding(), T).value for T in (1, 2)]
    [1.0, 0.25]
    >>> c = bayes_ceiling(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4)
    >>> round(c.value, 12), c.method  # 1/(N_T - 1), N_T = 10 (thesis Thm 2.3.1)
    (0.111111111111, 'exact')
    """
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}")
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    T = check_int(T, "T", low=0)
    trials = check_int(trials, "trials", low=1)
    level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    max_states = check_int(max_states, "max_states", low=1)
    gen = check_rng(rng)
    try:
        g = as_contact_graph(graph)
    except (TypeError, AttributeError):
        raise InvalidTypeError(
            f"graph must be a networkx.Graph, a ContactGraph or an infinite tree of spread.graphs; "
            f"got {graph!r}"[:300]) from None
    found = _refusal(g, protocol)
    if found is not None:
        raise found[1](found[0])
    protocol.kernel_params(g, T)  # the protocol's own checks (e.g. a design degree) on this graph
    # the size guard every simulator shares: T, and the Monte Carlo's trials, refused up
    # front with the size they would need (the exact method simulates nothing)
    check_run_size(g, protocol, T, 1 if method == "exact" else trials)
    if method != "exact":  # each Monte Carlo trial is a Python-level simulate() and a lookup
        check_size("trials", trials, work=trials * (run_work(g, protocol, T) + TRIAL_VISITS),
                   nbytes=trials * 8.0 * (MAX_INFECTED + 8), what="the Monte Carlo's trials")
    traj = TRAJECTORIES[protocol.name]
    if method == "exact":
        return _exact(g, protocol, T, traj, max_states)
    note = ""
    if method == "auto":
        try:
            return _exact(g, protocol, T, traj, max_states, project=True)
        except StateLimitError as exc:
            note = f"exact enumeration does not fit: {exc}"
    try:
        return _monte_carlo(g, protocol, T, trials, gen, level, max_states, note)
    except (StateLimitError, SnapshotSizeError) as exc:
        if method == "auto":
            raise InvalidParameterError(
                f"bayes_ceiling cannot run for {protocol!r} at T={T} on {g!r}: {note}; and {exc}") from None
        raise
