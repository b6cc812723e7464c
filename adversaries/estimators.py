"""Source estimators of the snapshot adversary: ML for adaptive diffusion, Jordan centre, rumour centrality.

Each estimator maps a :class:`~adversaries.observation.Snapshot` to
:class:`~adversaries.scores.Scores` over the infected nodes (higher = more likely the
source). The hot loops are the compiled kernels of :mod:`anonspread.engine.scoring`,
shared with the Monte Carlo path :func:`adversaries.simulate_and_score`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries._tables import ad_tables
from anonspread.adversaries.observation import Snapshot, graph_is_forest
from anonspread.adversaries.registry import register_estimator
from anonspread.adversaries.scores import TIE_RTOL, Scores
from anonspread.engine import rumor as _rumor
from anonspread.engine import scoring as _kernels
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.limits import check_size, work_budget
from anonspread.validation import check_int, check_real

__all__ = [
    "RumorCost",
    "TopRank",
    "jordan_center",
    "ml_adaptive_diffusion",
    "ml_tree_protocol",
    "rumor_centrality",
    "rumor_cost",
    "top_and_rank",
]


def _check_snapshot(snapshot: Any) -> Snapshot:
    if not isinstance(snapshot, Snapshot):
        raise InvalidTypeError(
            "snapshot must be an adversaries.Snapshot (e.g. from adversaries.observe(spread)); "
            f"got {type(snapshot).__name__}"
        )
    return snapshot


def check_d0(d0: Any, snapshot: Snapshot) -> float:
    """Validate the design degree; None means the contact graph's degree if it is regular."""
    if d0 is None:
        d = snapshot.graph.regular_degree()
        if d is None or d < 2:
            raise InvalidParameterError(
                "d0 must be a real number >= 2 or math.inf (None only on a regular graph of "
                f"degree >= 2); got None on {snapshot.graph!r}"
            )
        return float(d)
    return check_real(d0, "d0", low=2.0, allow_inf=True)


def _ml_protocol_params(protocol, graph) -> dict:
    return {"d0": protocol.design_degree(graph)}


def _ml_extra(protocol, graph, reveal_edges) -> str | None:
    if graph_is_forest(graph):
        if protocol.max_infections_per_step is not None:
            return (
                "estimator 'ml' is exact on trees only without max_infections_per_step; "
                f"got {protocol!r}"
            )
        return None
    if protocol.relay != "tree":
        return (
            "estimator 'ml' (near-ML over the infection tree, §2.4.2) assumes relay='tree' on "
            f"graphs with cycles; got {protocol!r}"
        )
    return None


def ml_structure(snapshot: Snapshot) -> tuple[np.ndarray, np.ndarray, bool]:
    """The tree the ML runs on: ``(indptr, indices, exact)``.

    The infected subgraph when it is a tree (exact: the boundary of the ball is
    checked too), else the revealed infection tree (near-ML, §2.4.2).
    """
    if snapshot.subgraph_is_tree() and (
        graph_is_forest(snapshot.graph) or snapshot.infection_tree() is None
    ):
        indptr, indices = snapshot.subgraph()
        return indptr, indices, True
    tree = snapshot.infection_tree()
    if tree is None:
        raise GraphError(
            "snapshot must reveal the infection tree when the infected subgraph has cycles "
            "(near-ML of §2.4.2): use adversaries.observe(spread, reveal_edges=True) or pass "
            f"infection_edges; got {snapshot!r}"
        )
    return tree[0], tree[1], False


@register_estimator(
    "ml",
    protocols=("adaptive-diffusion",),
    edges_on_cycles=True,
    likelihood=True,
    batch=True,
    params=_ml_protocol_params,
    extra=_ml_extra,
)
def ml_adaptive_diffusion(snapshot: Snapshot, d0: float | None) -> Scores:
    """Log-likelihood ``log P(G_T | v)`` of adaptive diffusion for every infected node.

    Exact on trees (finite or lazily grown, regular or irregular) by the message
    passing of Proposition 2.4.1 / Algorithm 4: for each final virtual source ``c``
    consistent with the snapshot,

    ``P(G_T | v) = 1/deg(v) * prod_{p in path(v, c) interior} 1/(deg(p) - 1) * B(h)``,

    where ``h = d(v, c)`` and part B of Eq. (2.17) sums the keep/pass schedules of
    the virtual source by a recursion over (decision, hop) in log space
    (:mod:`adversaries._tables`). Up to a constant this is the score of Eq. (2.18).

    * Even T: the infected set is the ball of radius T/2 around the virtual source,
      which gets ``-inf`` (the source passed the token at step 1).
    * Odd T (derived from Protocol 3): either the token was kept at step T (a ball of
      radius (T+1)/2, last factor ``alpha(T-1, h)``) or passed over an edge {a, b}
      (every node within (T-1)/2 hops of the edge; the candidate's path runs through
      a to b, last factor ``(1 - alpha(T-1, h)) / (deg(a) - 1)``); both ends of that
      edge get ``-inf``. At T = 1 the two infected nodes score ``-log deg``.
    * Finite trees: every consistent configuration is summed (when the tree is
      small, balls around different centres can coincide), and a virtual source
      with no child keeps the token with probability 1, exactly as the spread
      kernel does; the result equals :func:`adversaries.exact_likelihood`.

    On graphs with cycles this is the **near-ML** of §2.4.2, an approximation: the
    same formula over the revealed infection tree, ``deg(p) - 1`` replaced by the
    number of infection-tree children of p (the uninfected neighbours p had when the
    token reached it, under the spread's semantics), summed over every node (or
    edge) within T/2 (or (T+1)/2, (T-1)/2) tree hops of all infected nodes. It
    ignores cycles the token could take and caps on infections per step.

    Under the authors' Facebook rule (``AdaptiveDiffusion(infectors="leaves")``) a node
    infects in one step only, so its number of infection-tree children is the set the
    token chose from when it reached the node, exactly; on a tree the probabilities of
    the infected subsets themselves are the same for every leaf candidate (each
    infecting node other than the source drew once from its other contacts), so they
    cancel in the arg-max over leaves, the candidates the thesis's near-ML ranks
    (§2.4.2); with cycles they depend on the order of infection, which the near-ML
    ignores.
    Under the default rule a node may gain children after the token passed it, and
    the count is an approximation.

    Cost (issue 32): the sum over configurations is one message passing over the tree
    (:func:`anonspread.engine.scoring.ml_tree`), O(sum over nodes of min(r, ecc(v))) <=
    O(n r) time and memory with r = (T + 1) // 2 + 1 at most, whatever the number of
    consistent configurations: linear in n at a fixed T, at most linear in T at a fixed
    snapshot (constant once r exceeds the tree's eccentricities), plus the O(T^2) part-B
    tables once per (d0, T). Before, one walk per configuration made a stalled spread's
    cost grow exponentially in T up to O(n^2).

    Parameters
    ----------
    snapshot : Snapshot
    d0 : float >= 2, math.inf or None
        The design degree of the ``alpha`` table (Eq. 2.13); None: the degree of a
        regular contact graph.

    Returns
    -------
    Scores
        kind ``"log-likelihood"``; exact absolute log-probabilities on trees.

    Raises
    ------
    InvalidParameterError
        If ``d0 < 2``, or the snapshot cannot come from adaptive diffusion.
    GraphError
        If the infected subgraph has cycles and no infection tree is revealed.

    Examples
    --------
    >>> from anonspread import spread, adversaries
    >>> sp = spread.simulate(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 6, rng=3)
    >>> sc = ml_adaptive_diffusion(adversaries.observe(sp), 3)
    >>> sc[sp.virtual_source], len(set(np.round(sc.array[np.isfinite(sc.array)], 9)))
    (-inf, 1)
    """
    snapshot = _check_snapshot(snapshot)
    d0 = check_d0(d0, snapshot)
    gdeg = snapshot.contact_degrees()
    n, T = snapshot.n, snapshot.T
    out = np.full(n, -np.inf)
    if n == 1:
        if T == 0 or gdeg[0] == 0:
            out[0] = 0.0
            found = 1
        else:
            found = 0
    elif T == 0:
        found = 0
    else:
        indptr, indices, exact = ml_structure(snapshot)
        r_node, alive, dead, r_edge, move = ad_tables(d0, T)
        found = _kernels.ml_tree(
            indptr, indices, gdeg, exact, r_node, alive, dead, r_edge, move, out,
            _kernels.ml_workspace(indptr.shape[0] - 1),
        )
    if found == 0:
        raise InvalidParameterError(
            f"snapshot must be a possible outcome of adaptive diffusion at T={T}: no node "
            f"(even T) or edge (odd T) has all {n} infected nodes within the right number "
            "of hops with a complete ball; got an inconsistent snapshot"
        )
    return Scores(snapshot.nodes, out, "log-likelihood")


@register_estimator(
    "ml-tree",
    protocols=("tree",),
    edges_on_cycles=True,
    likelihood=True,
    batch=True,
)
def ml_tree_protocol(snapshot: Snapshot) -> Scores:
    """Log-likelihood ``log P(G_T | v)`` of Protocol 2 (:class:`spread.TreeProtocol`).

    Closed form. Protocol 2's virtual source moves one hop every two steps, so at even
    ``T = 2k`` the snapshot is the ball of radius ``k`` around a centre ``c`` and the
    source is a leaf of it; a leaf ``v`` has likelihood

    ``P(G_T | v) = 1/deg(v) * prod_{p in path(v, c) interior} 1/(deg(p) - 1)``

    (the uniform choices of the token's hops) and every other node likelihood 0. At
    odd ``T = 2k + 1`` the snapshot is every node within ``k`` hops of an edge
    ``{a, b}`` (two symmetric centres) and a candidate ``k`` hops from ``a`` on a's
    side has the product above along its path to ``a`` times ``1/(deg(a) - 1)`` for the
    last hop to ``b``. On a d-regular tree all leaves are therefore equally likely
    (``1/(d (d-1)^(k-1))`` each at ``T = 2k``, ``1/(d (d-1)^k)`` at ``T = 2k + 1``), the ML
    estimate is a uniform leaf and it is the source with probability
    ``1/#leaves = (d-1) / (2 + (d-2) N_T)``, Eq. (2.8) of Proposition 2.2.2.

    Computed by the message passing of :func:`ml_adaptive_diffusion` with the alpha
    table of Protocol 2 (``alpha = 0``: every keep/pass schedule but "always pass" has
    probability 0, so part B of Eq. (2.17) is the indicator of ``h = T/2``), which also
    covers finite trees (a virtual source without a child keeps the token, exactly as
    the spread kernel does; the result equals :func:`adversaries.exact_likelihood`)
    and, given the revealed infection tree, graphs with cycles (the near-ML of §2.4.2).

    Parameters
    ----------
    snapshot : Snapshot
        The infected subgraph (:func:`observe`), with the infection tree's edges on graphs
        with cycles.

    Examples
    --------
    >>> from anonspread import spread, adversaries
    >>> sp = spread.simulate(spread.graphs.regular_tree(3), spread.TreeProtocol(), 6, rng=3)
    >>> sc = ml_tree_protocol(adversaries.observe(sp))
    >>> finite = sc.array[np.isfinite(sc.array)]
    >>> finite.size, round(float(np.exp(finite[0])), 12)  # 12 leaves, 1/(3 * 2^2) each
    (12, 0.083333333333)
    """
    return ml_adaptive_diffusion(snapshot, math.inf)


@register_estimator("jordan", protocols=None, batch=True)
def jordan_center(snapshot: Snapshot) -> Scores:
    """Minus the eccentricity of each infected node within the infected subgraph.

    The Jordan centre (thesis §2.1.1, [33, 34]; Fig. 2.3) minimises the largest hop
    distance to the other infected nodes. On trees the eccentricities come from two
    message passes (heights towards the leaves, then the best height through the
    parent, O(n)); on graphs with cycles by exact eccentricity bounding (Takes &
    Kosters: BFS from well-chosen nodes until the lower and upper bounds of every
    node meet, then bit-parallel passes of 64 BFS from the nodes farthest from the node
    of largest degree with the reference-node upper bound, issue 32; at worst one BFS
    per node, O(n m / 64) for the passes: no near-linear bound is known in the worst
    case). :func:`top_and_rank` certifies only the maximisers and the source's class
    (measured near-linear on random-diffusion snapshots of a power-law graph:
    benchmarks/bench_estimator_growth.py).

    Parameters
    ----------
    snapshot : Snapshot
        The infected nodes and the contact graph (:func:`observe`).

    Returns
    -------
    Scores
        Minus the eccentricity of each infected node (the centre scores highest).

    Examples
    --------
    >>> import networkx as nx
    >>> sc = jordan_center(Snapshot(nx.path_graph(5), [0, 1, 2, 3, 4], T=4))
    >>> [sc[v] for v in range(5)]
    [-4.0, -3.0, -2.0, -3.0, -4.0]
    """
    snapshot = _check_snapshot(snapshot)
    indptr, indices = snapshot.subgraph()
    ecc = np.empty(snapshot.n, np.int64)
    if snapshot.subgraph_is_tree():
        _kernels.tree_eccentricity(indptr, indices, ecc)
    else:
        _kernels.graph_eccentricity(indptr, indices, ecc)
    return Scores(snapshot.nodes, -ecc.astype(np.float64), "minus-eccentricity")


@dataclass(frozen=True)
class RumorCost:
    """What rumour centrality's exact scan (:func:`top_and_rank`, the sweeps' path) will
    cost on a batch of snapshots, priced before it runs (:func:`rumor_cost`).

    Parameters
    ----------
    snapshots : int
        Snapshots of the batch priced.
    sampled : int
        Snapshots the price was computed from (the batch's cost is their mean times
        ``snapshots``).
    evaluations : float
        Exact evaluations of the sampled snapshots, each one BFS of its 2-core: the
        scan's own count, known before it runs (:func:`engine.rumor.rumor_plan`).
    core_nodes : int
        The largest 2-core of the sample (0: every sampled subgraph is a tree, linear).
    work : float
        Node visits of the batch: ``evaluations x (core nodes + core arcs)`` plus one pass
        over each snapshot's subgraph, scaled to ``snapshots``. Deterministic.
    seconds_per_evaluation : float or None
        Mean CPU seconds of an evaluation, timed on a few of each sampled snapshot's
        (None when not timed).
    cpu_seconds : float or None
        The sampled scans' setups (timed: the plan runs the scan's own) and evaluations x
        their timed cost, scaled to ``snapshots`` (None when not timed). Not a bound: the
        count is exact, its timing an estimate.
    timed_seconds : float
        What pricing took (CPU): the scans' setups and the timed evaluations.
    most_seconds : float or None
        The costliest sampled snapshot's scan, setup and evaluations (None when not timed).

    Examples
    --------
    On a tree every score is one linear pass: no exact evaluation to price.

    >>> import networkx as nx
    >>> from anonspread import adversaries
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> cost = adversaries.rumor_cost([snap], [4], batch=100)
    >>> cost.evaluations, cost.core_nodes, cost.cpu_seconds, cost.work
    (0.0, 0, 0.0, 1300.0)
    """

    snapshots: int
    sampled: int
    evaluations: float
    core_nodes: int
    work: float
    seconds_per_evaluation: float | None
    cpu_seconds: float | None
    timed_seconds: float
    most_seconds: float | None = None
    #: what a price of this kind rests on, for the pilot's notes (one sentence)
    basis = ("its exact evaluations (one BFS of the snapshot's 2-core each), counted before "
             "the scan from its bounds on a sample of the point's spreads, x the CPU time of an "
             "evaluation, timed on a few of each, plus the scan's setup (harness.budget)")
    #: what the price is, for a skipped point's reason
    caveat = ("an estimate from the sampled spreads: each one's evaluations counted exactly, "
              "their time measured on a few")

    #: min_cpu_seconds of a price with a range (soft-margin's); this one has none
    min_cpu_seconds = None

    def __repr__(self) -> str:
        cpu = "not timed" if self.cpu_seconds is None else f"{self.cpu_seconds:.3g} s CPU"
        return (f"RumorCost({cpu}, work={self.work:.3g}, evaluations={self.evaluations:.0f}, "
                f"snapshots={self.snapshots}, sampled={self.sampled})")

    def describe(self) -> str:
        """One line: the evaluations and their cost behind the price."""
        per = ("" if self.seconds_per_evaluation is None
               else f" x {self.seconds_per_evaluation * 1e3:.2g} ms")
        mean = self.evaluations / max(self.sampled, 1)
        return (f"~{mean:,.0f} exact evaluations a snapshot{per} (2-cores up to "
                f"{self.core_nodes:,} nodes; from {self.sampled} sampled of {self.snapshots})")


def rumor_cost(snapshots: Sequence[Snapshot], sources: Sequence[Any], *, batch: int | None = None,
               timed: bool = True, timed_evaluations: int = 4,
               min_seconds: float = 0.01) -> RumorCost:
    """Price rumour centrality's exact scan on a batch of snapshots before running it.

    On a tree the scores are one linear pass. On a graph with cycles :func:`top_and_rank`
    (the path of the sweeps and of :func:`simulate_and_score`) computes exact scores, one
    BFS of the subgraph's 2-core each, for the source and every node whose cut-vertex
    bound reaches the source's score; inside a 2-connected core that is every core node,
    O(n_c (n_c + m_c)): quadratic (``docs/adversaries.md``). The count depends only on the
    bounds and the source's score, so it is known after the scan's setup and one
    evaluation (:func:`engine.rumor.rumor_plan`, tested equal to the scan's own count):
    this prices each snapshot exactly in evaluations, and in CPU seconds by timing
    ``timed_evaluations`` of them (spread over the scan's order, more until they take
    ``min_seconds``). A batch larger than the sample is priced at the sample's mean.

    Parameters
    ----------
    snapshots : sequence of Snapshot
    sources : sequence of node
        Each snapshot's true source (the node whose rank the scan returns).
    batch : int or None
        Snapshots of the batch priced (None: ``len(snapshots)``); at least that.
    timed : bool, default True
        Time evaluations (else only the deterministic ``work``).
    timed_evaluations : int >= 1, default 4
        Evaluations timed per snapshot, at least.
    min_seconds : float >= 0, default 0.01
        CPU seconds a snapshot's timed evaluations should take together.

    Returns
    -------
    RumorCost

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 200, seed=1))
    >>> sims = [spread.simulate(g, spread.RandomDiffusion(0.5), 4, rng=s) for s in range(3)]
    >>> cost = adversaries.rumor_cost([adversaries.observe(x) for x in sims],
    ...                               [x.source for x in sims], batch=30)
    >>> cost.snapshots, cost.sampled, cost.evaluations > 0, cost.cpu_seconds > 0
    (30, 3, True, True)
    """
    snaps = [_check_snapshot(s) for s in snapshots]
    sources = list(sources)
    if not snaps:
        raise InvalidParameterError("snapshots must hold at least one snapshot; got none")
    if len(sources) != len(snaps):
        raise InvalidParameterError(
            f"sources must hold one source per snapshot; got {len(sources)} for {len(snaps)} snapshots")
    batch = len(snaps) if batch is None else check_int(batch, "batch", low=len(snaps))
    timed_evaluations = check_int(timed_evaluations, "timed_evaluations", low=1)
    min_seconds = check_real(min_seconds, "min_seconds", low=0.0)
    c0 = time.process_time()
    evaluations = work = cpu = setup = 0.0
    most = 0.0
    core = 0
    for snap, src in zip(snaps, sources):
        indptr, indices = snap.subgraph()
        work += snap.n + indices.shape[0]
        if snap.subgraph_is_tree():
            continue
        plan = _rumor.rumor_plan(indptr, indices, snap.position(src), TIE_RTOL,
                                 timed=timed_evaluations if timed else 0,
                                 min_seconds=min_seconds if timed else 0.0)
        evaluations += plan.evaluations
        work += plan.work
        cpu += plan.evaluations * plan.seconds_per_evaluation
        setup += plan.setup_seconds
        most = max(most, plan.cpu_seconds)
        core = max(core, plan.core_nodes)
    scale = batch / len(snaps)
    return RumorCost(
        snapshots=batch, sampled=len(snaps), evaluations=evaluations, core_nodes=core,
        work=work * scale,
        seconds_per_evaluation=(cpu / evaluations if evaluations else 0.0) if timed else None,
        cpu_seconds=(cpu + setup) * scale if timed else None,
        timed_seconds=time.process_time() - c0,
        most_seconds=most if timed else None)


#: Below this many CPU seconds per snapshot (the sample's most costly) the sweeps' pilot
#: times rumour centrality's trials instead of pricing them.
RUMOR_PRICE_FROM = 0.5


def _rumor_price(snapshots: Sequence[Snapshot], *, sources: Sequence[Any], batch: int | None = None,
                 timed: bool = True) -> RumorCost | None:
    """The registry's price of ``rumor`` (:attr:`EstimatorSpec.price`): :func:`rumor_cost`,
    or None (time the trials instead, as for any estimator) where no sampled snapshot
    costs :data:`RUMOR_PRICE_FROM` seconds (at ~10^8 visits a second when not timed)."""
    cost = rumor_cost(snapshots, sources, batch=batch, timed=timed)
    if timed:
        cheap = cost.evaluations == 0 or cost.most_seconds < RUMOR_PRICE_FROM
    else:  # the costliest sampled snapshot's work, bounded by the sample's
        cheap = cost.work * cost.sampled / cost.snapshots < RUMOR_PRICE_FROM * 1e8
    return None if cheap else cost


def _check_rumor_scan(indptr: np.ndarray, indices: np.ndarray, s: int) -> None:
    """Refuse, before it runs, an exact rumour scan needing more node visits than
    :func:`spread.limits.work_budget` allows (counted by :func:`engine.rumor.rumor_plan`
    once the trivial bound ``n (n + m)`` exceeds it)."""
    n = indptr.shape[0] - 1
    if float(n) * (n + indices.shape[0]) <= work_budget():
        return
    plan = _rumor.rumor_plan(indptr, indices, s, TIE_RTOL, timed=0)
    check_size("snapshot.n", n, work=plan.work,
               what=(f"rumour centrality's exact scan ({plan.evaluations:,} evaluations, one BFS "
                     f"each of its 2-core of {plan.core_nodes:,} nodes and {plan.core_arcs:,} arcs: "
                     "quadratic in the core; the Jordan centre is not)"))


@register_estimator("rumor", protocols=None, batch=True, default="tree", price=_rumor_price,
                    price_sample=32)
def rumor_centrality(snapshot: Snapshot) -> Scores:
    """Log rumour centrality of each infected node (Shah & Zaman 2011).

    ``R(v) = n! / prod_u T_u^v``, ``T_u^v`` the size of the subtree of u when the
    infected tree is rooted at v: the number of infection orders starting at v, the
    ML estimator of the source under continuous-time diffusion on regular trees
    [28]. Computed in log space by message passing (subtree sizes upwards, then
    ``log R(c) = log R(p) + log T_c - log(n - T_c)`` downwards), so 10^6 nodes are
    exact and finite. On graphs with cycles, as is standard [28], each candidate v
    is scored on the BFS tree of the infected subgraph rooted at v (O(n m): one BFS
    per candidate). :func:`top_and_rank` evaluates only the candidates its cut-vertex
    bound does not exclude, but on dense random-diffusion snapshots of a power-law
    graph the bound excludes few (8,326 of 10^4 evaluated; issue 32 measured growth
    exponent 2.5-2.6 in benchmarks/README.md): not near-linear there. It is therefore
    registered with ``default="tree"``: a default estimator of
    :func:`simulate_and_score` on tree contact graphs, opt-in (run only when named) on
    graphs with cycles, per the registry's policy for estimators that grow faster than
    the snapshot (:class:`EstimatorSpec`, ``default``).

    Parameters
    ----------
    snapshot : Snapshot
        The infected nodes and the contact graph (:func:`observe`).

    Returns
    -------
    Scores
        ``log R(v)`` for each infected node ``v``.

    Examples
    --------
    >>> import networkx as nx
    >>> sc = rumor_centrality(Snapshot(nx.path_graph(4), [0, 1, 2, 3], T=3))
    >>> round(float(np.exp(sc[1])))  # C(3, 1) orders start at node 1
    3
    """
    snapshot = _check_snapshot(snapshot)
    indptr, indices = snapshot.subgraph()
    out = np.empty(snapshot.n, np.float64)
    if snapshot.subgraph_is_tree():
        _rumor.tree_rumor(indptr, indices, out)
    else:
        n = snapshot.n
        check_size("snapshot.n", n, work=float(n) * (n + indices.shape[0]),
                   what=(f"rumour centrality's every score (one BFS of the {n:,}-node subgraph per "
                         "node; top_and_rank(snapshot, 'rumor', source) computes the maximisers "
                         "and a rank with fewer)"))
        _rumor.graph_rumor(indptr, indices, out)
    return Scores(snapshot.nodes, out, "log-rumor-centrality")



@dataclass(frozen=True)
class TopRank:
    """What the harness needs of an estimator on one snapshot: its maximisers and one node's rank.

    Parameters
    ----------
    maximisers : numpy.ndarray
        The nodes of maximal score (ties within :data:`adversaries.scores.TIE_RTOL`),
        in snapshot order: exactly ``nodes[adversaries.scores.top_set(scores.array)]``.
    source_score : float
        The score of the given node.
    rank : float
        Its rank, as :func:`adversaries.source_rank` (1 = best, ties share their mean).
    detection_probability : float
        ``1 / len(maximisers)`` if the node is a maximiser, else 0.
    exact_scores : int
        How many exact per-node evaluations (BFS runs) it took; ``n`` when every score
        was computed.
    threads : int, default 1
        How many threads evaluated them (1: serially).

    Examples
    --------
    :func:`top_and_rank` returns one. On a path of four infected nodes the Jordan centre
    ties the two middle nodes, so the end node 0 ranks behind them:

    >>> import networkx as nx
    >>> from anonspread import adversaries
    >>> snap = adversaries.Snapshot(nx.path_graph(4), [0, 1, 2, 3], T=3)
    >>> tr = adversaries.top_and_rank(snap, "jordan", 0)
    >>> tr.maximisers.tolist(), tr.rank, tr.detection_probability
    ([1, 2], 3.5, 0.0)
    """

    maximisers: np.ndarray
    source_score: float
    rank: float
    detection_probability: float
    exact_scores: int
    threads: int = 1

    def __repr__(self) -> str:
        return (f"TopRank(maximisers={len(self.maximisers)}, rank={self.rank:.4g}, "
                f"detection_probability={self.detection_probability:.4g}, "
                f"exact_scores={self.exact_scores}, threads={self.threads})")


def top_and_rank(snapshot: Snapshot, estimator: str, source: Any, *, threads: int = 1,
                 **params: Any) -> TopRank:
    """The maximisers of an estimator and the rank of ``source``, without every score.

    Identical to computing every score (``get_estimator(estimator).func``) and then
    :func:`adversaries.scores.top_set` and :func:`adversaries.source_rank`, but on a
    graph with cycles the Jordan centre and rumour centrality certify the answer
    with bounds instead of one BFS per node (the kernels the Monte Carlo path
    :func:`adversaries.simulate_and_score` uses; see ``docs/adversaries.md``):

    * ``"jordan"``: eccentricity bounding stopped once every node is known to be
      below, at or above ``ecc(source)`` and in or out of the minimum;
    * ``"rumor"``: a cut-vertex upper bound on every node's score, then exact
      scores in decreasing order of the bound until no node left can reach the
      maximum or the source's score (on ``threads`` threads once the 2-core has
      ``anonspread.engine.rumor_threads.PARALLEL_MIN_CORE`` nodes; same answer).

    Other estimators (and trees) compute every score, which is linear there.

    Parameters
    ----------
    snapshot : Snapshot
    estimator : str
        A snapshot estimator's registry name (``"jordan"``, ``"rumor"``, ``"ml"``, ...).
    source : node
        An infected node (usually the true source).
    threads : int >= 1
        Threads for the exact evaluations of rumour centrality on a 2-core of at least
        ``PARALLEL_MIN_CORE`` (3,000) nodes; 1 (the default) scans serially. Same answer
        either way; the result's ``threads`` says how many ran.
    **params
        Keyword arguments of the estimator (e.g. ``d0`` for ``"ml"``).

    Returns
    -------
    TopRank

    Examples
    --------
    >>> import networkx as nx
    >>> r = top_and_rank(Snapshot(nx.cycle_graph(6), [0, 1, 2, 3], T=2), "jordan", 0)
    >>> r.maximisers.tolist(), r.rank
    ([1, 2], 3.5)
    """
    from anonspread.adversaries.registry import get_estimator

    snapshot = _check_snapshot(snapshot)
    threads = check_int(threads, "threads", low=1)
    spec = get_estimator(estimator)
    s = snapshot.position(source)
    n = snapshot.n
    top = np.zeros(n, np.bool_)
    cyclic = not snapshot.subgraph_is_tree()
    used = 1
    if spec.name == "jordan" and cyclic and not params:
        indptr, indices = snapshot.subgraph()
        t, _, greater, tied, nexact = _kernels.graph_jordan_top(indptr, indices, s, top)
        s0 = -float(t)
    elif spec.name == "rumor" and cyclic and not params:
        indptr, indices = snapshot.subgraph()
        from anonspread.engine.rumor_threads import rumor_top

        _check_rumor_scan(indptr, indices, s)
        _, s0, greater, tied, nexact, used = rumor_top(indptr, indices, s, TIE_RTOL, top, threads)
    else:
        sc = spec.func(snapshot, **params)
        values = np.ascontiguousarray(sc.array, dtype=np.float64)
        greater, tied = _kernels.score_summary(values, s, TIE_RTOL, top)
        s0 = float(values[s])
        nexact = n
    nt = int(np.count_nonzero(top))
    return TopRank(
        maximisers=snapshot.nodes[top],
        source_score=float(s0),
        rank=1.0 + greater + (tied - 1) / 2.0,
        detection_probability=1.0 / nt if top[s] else 0.0,
        exact_scores=int(nexact),
        threads=int(used),
    )
