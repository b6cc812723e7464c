"""Brute-force likelihood: sum over every protocol trajectory consistent with a snapshot.

This is the reference the fast estimators are tested against. It follows the spread
kernels of :mod:`anonspread.engine.spreading` step by step (the same order of actions, the same
random choices) but, instead of drawing, it branches on every outcome and keeps a
probability per distinct protocol state, dropping every branch that infects a node
outside the observed set. Cost grows with the number of distinct reachable states:
fine for T up to about 10 on trees of a few dozen nodes (and for Protocol 1 and
random diffusion on a line up to T of a few dozen, where states are intervals).

Each protocol's enumeration is registered under the protocol's name in
:data:`TRAJECTORIES` (:func:`register_trajectories`); :func:`exact_likelihood` looks it up
and never asks which protocol it has. A protocol defined elsewhere (in ``spread`` or in
a user's module) gets exact likelihoods by registering its enumeration here.
"""

from __future__ import annotations

import inspect
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries.estimators import _check_snapshot
from anonspread.adversaries.observation import Snapshot
from anonspread.adversaries.registry import register_estimator
from anonspread.adversaries.scores import Scores
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    Protocol,
    RandomDiffusion,
    TreeProtocol,
    TreeProtocolPseudocode,
    alpha,
)
from anonspread.validation import check_int

__all__ = [
    "TRAJECTORIES",
    "LocalView",
    "StateLimitError",
    "Trajectories",
    "exact_likelihood",
    "register_trajectories",
]

#: Default cap on the number of distinct protocol states alive at one step.
MAX_STATES = 200_000


class LocalView:
    """The infected set S of a snapshot as bitmasks, what an enumeration works on.

    Nodes are the positions ``0 .. n-1`` of ``snapshot.nodes``; a set of them is an int
    bitmask (bit ``i`` for node ``i``).

    Parameters
    ----------
    snapshot : Snapshot
        The observation (at most 62 infected nodes for :func:`exact_likelihood`).

    Attributes
    ----------
    T : int
        The snapshot's step count.
    n : int
        ``|S|`` (at most 62).
    full : int
        The mask of S.
    nbrs : list of list of int
        Each node's neighbours inside S.
    adj : list of int
        The same as masks.
    gdeg : list of int
        Each node's degree in the contact graph.
    extra : list of int
        Each node's contacts outside S (an enumeration drops a branch that infects one).
    is_tree : bool
        The infected subgraph is a tree.

    Examples
    --------
    >>> import networkx as nx
    >>> view = LocalView(Snapshot(nx.path_graph(6), [2, 3, 4], 2))
    >>> view.n, bin(view.full), view.nbrs, view.extra, view.is_tree
    (3, '0b111', [[1], [0, 2], [1]], [1, 0, 1], True)
    >>> list(view.bits(0b101)), view.tree_parents(1)
    ([0, 2], [1, -1, 1])
    """

    def __init__(self, snapshot: Snapshot) -> None:
        indptr, indices = snapshot.subgraph()
        n = snapshot.n
        self.snapshot = snapshot
        self.T = snapshot.T
        self.n = n
        self.full = (1 << n) - 1
        self.nbrs = [indices[indptr[i] : indptr[i + 1]].tolist() for i in range(n)]
        self.adj = [sum(1 << w for w in ws) for ws in self.nbrs]
        self.gdeg = snapshot.contact_degrees().tolist()
        self.extra = [self.gdeg[i] - len(self.nbrs[i]) for i in range(n)]
        self.is_tree = indices.shape[0] == 2 * (n - 1)

    def tree_parents(self, root: int) -> list[int]:
        """Each node's parent in S's BFS tree from ``root`` (-1 for the root).

        Parameters
        ----------
        root : int
            A node (position).

        Returns
        -------
        list of int
        """
        par = [-1] * self.n
        seen = [False] * self.n
        seen[root] = True
        queue = [root]
        for x in queue:
            for w in self.nbrs[x]:
                if not seen[w]:
                    seen[w] = True
                    par[w] = x
                    queue.append(w)
        return par

    def bits(self, mask: int):
        """The nodes of ``mask``, lowest first.

        Parameters
        ----------
        mask : int
            A set of nodes as a bitmask.

        Yields
        ------
        int
        """
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low


@dataclass(frozen=True)
class Trajectories:
    """A protocol's exact trajectory enumeration, as :func:`register_trajectories` declares it.

    Parameters
    ----------
    protocol : str
        The protocol's registry name (``protocol.name``).
    likelihood : callable
        ``likelihood(protocol, view, v, max_states) -> float``: the probability that a
        run of ``protocol`` from candidate ``v`` (a position in ``view``, a
        :class:`LocalView`) infects exactly the observed set in ``view.T`` steps.
    cycles : bool
        Whether it handles an infected subgraph with cycles (else only trees).
    refuse : callable or None
        ``refuse(protocol) -> str | None``: why this protocol instance cannot be
        enumerated (a message naming the parameter), or None.
    final : callable or None
        ``final(protocol, view, v, max_states) -> dict``: the distribution of the final
        infected set of a run from ``v``, ``{mask: probability}`` over the sets inside
        ``view`` (bitmasks; runs that leave the view are dropped), from which
        ``likelihood`` is the entry of ``view.full``. Every built-in protocol has one (it
        is what :func:`adversaries.bayes_ceiling` enumerates); None for an enumeration
        registered as a likelihood only.

    Examples
    --------
    >>> from anonspread import adversaries
    >>> t = adversaries.TRAJECTORIES["random-diffusion"]
    >>> t.protocol, t.cycles, adversaries.TRAJECTORIES["line"].cycles
    ('random-diffusion', True, False)
    """

    protocol: str
    likelihood: Callable[[Any, LocalView, int, int], float]
    cycles: bool = False
    refuse: Callable[[Any], str | None] | None = None
    final: Callable[[Any, LocalView, int, int], dict[int, float]] | None = None


#: Exact trajectory enumerations by protocol name (what :func:`exact_likelihood` runs).
TRAJECTORIES: Registry[Trajectories] = Registry("exact trajectory enumeration", parameter="protocol")


def register_trajectories(protocol: str | type, *, cycles: bool = False,
                          refuse: Callable[[Any], str | None] | None = None, replace: bool = False,
                          final: bool = False):
    """Function decorator: register ``likelihood(protocol, view, v, max_states) -> float``
    as the exact trajectory enumeration of ``protocol`` (see :class:`Trajectories`).

    With ``final=True`` the function is ``final(protocol, view, v, max_states) -> dict``,
    the distribution of the final infected set over the sets inside the view
    (``{mask: probability}``); the likelihood is then its entry for the whole view, so one
    enumeration serves both :func:`exact_likelihood` and :func:`adversaries.bayes_ceiling`.

    Parameters
    ----------
    protocol : str or Protocol subclass
        The protocol's registry name, or its class (registered under ``cls.name``, which
        :func:`spread.protocols.register_protocol` sets).
    cycles : bool
        The enumeration handles infected subgraphs with cycles.
    refuse : callable or None
        ``refuse(protocol) -> str | None``: a reason to refuse a protocol instance.
    replace : bool
        Replace an enumeration already registered for the protocol.
    final : bool
        The function returns the final-set distribution, not the likelihood.

    Examples
    --------
    The estimator ``"exact"`` then applies to the protocol, and
    :func:`exact_likelihood` runs the registered function for every candidate:

    >>> from anonspread import adversaries
    >>> sorted(adversaries.TRAJECTORIES)[:3]
    ['adaptive-diffusion', 'flooding', 'line']
    """
    if isinstance(protocol, type):
        name = vars(protocol).get("name")
        if not (issubclass(protocol, Protocol) and isinstance(name, str)):
            raise InvalidParameterError(
                "protocol must be a registered spread.protocols.Protocol subclass (with its own "
                f"name) or a protocol name; got {protocol!r}"
            )
        protocol = name
    if not isinstance(protocol, str):
        raise InvalidTypeError(f"protocol must be a protocol name or a Protocol subclass; got {protocol!r}")

    def deco(func: Callable[[Any, LocalView, int, int], Any]) -> Callable:
        if final:
            spec = Trajectories(protocol, _likelihood_of(func), bool(cycles), refuse, func)
        else:
            spec = Trajectories(protocol, func, bool(cycles), refuse)
        TRAJECTORIES.add(protocol, spec, replace=replace)
        return func

    return deco


def _likelihood_of(final: Callable[[Any, LocalView, int, int], dict[int, float]]) -> Callable:
    """The likelihood of the whole view from a final-set enumeration (told the one final
    set wanted, ``target=loc.full``, when it takes that keyword)."""
    aimed = "target" in inspect.signature(final).parameters

    def likelihood(protocol: Any, loc: LocalView, v: int, max_states: int) -> float:
        if aimed:
            return final(protocol, loc, v, max_states, target=loc.full).get(loc.full, 0.0)
        return final(protocol, loc, v, max_states).get(loc.full, 0.0)

    likelihood.__name__ = likelihood.__qualname__ = f"likelihood_of_{final.__name__}"
    likelihood.__doc__ = final.__doc__
    return likelihood


def _subsets(items: list[int]):
    """Every subset of ``items`` as (chosen, not chosen) lists."""
    k = len(items)
    for m in range(1 << k):
        yield [items[j] for j in range(k) if m >> j & 1], [items[j] for j in range(k) if not m >> j & 1]


class StateLimitError(InvalidParameterError):
    """An enumeration needs more than ``max_states`` live protocol states at one step.

    Parameters
    ----------
    message : str
        What was refused and why.
    states : int
        How many states it had when it gave up (a lower bound when it stopped half-way
        through a step).
    limit : int
        The cap.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(30), range(30), 20)
    >>> try:
    ...     adversaries.exact_likelihood(snap, spread.RandomDiffusion(0.5), max_states=5)
    ... except adversaries.StateLimitError as exc:
    ...     print(exc.limit, exc.states > 5, isinstance(exc, ValueError))
    5 True True
    """

    def __init__(self, message: str, states: int, limit: int) -> None:
        super().__init__(message)
        self.states = states
        self.limit = limit


def _guard(states: dict, max_states: int, n: int | None = None) -> None:
    n = len(states) if n is None else n
    if n > max_states:
        raise StateLimitError(
            f"exact_likelihood must stay under max_states={max_states} protocol states; got "
            f"{n} (the snapshot is too large for brute force: use the fast estimators)",
            n, max_states,
        )


# ------------------------------------------------------------ diffusions (RD, Protocol 1)


def _diffusion(loc: LocalView, v: int, T: int, rate, max_states: int,
               target: int | None = None) -> dict[int, float]:
    """Random diffusion / Protocol 1: each infected node flips a coin per uninfected contact.

    ``rate(t, x, dist)`` is x's infection probability at step t. Outside contacts must
    all fail; an S node with k infected contacts is infected with 1 - prod(1 - q).
    Returns the final masks' distribution; with ``target`` (a mask), only the entry of
    ``target``: the last step then follows, from each mask, the one transition that ends
    at ``target`` (every remaining node of it infected now) instead of every subset of the
    frontier. The same products in the same order, so the same value to the last bit;
    the last step costs O(frontier) a mask instead of O(2^frontier) and keeps one state
    (on the 34-node karate club at T = 2 a likelihood from the hub took 53 s, the last
    step iterating 2^10-2^17 subsets from each of 65,536 masks).
    """
    dist = _bfs_dist(loc, v)
    states = {1 << v: 1.0}
    for t in range(1, T + 1):
        new: dict = defaultdict(float)
        last = t == T and target is not None
        for mask, pr in states.items():
            stay_out = 1.0
            fail = [1.0] * loc.n  # prob. that node w escapes every infected contact
            frontier = 0
            for x in loc.bits(mask):
                q = rate(t, x, dist[x])
                if loc.extra[x]:
                    stay_out *= (1.0 - q) ** loc.extra[x]
                for w in loc.nbrs[x]:
                    if not mask >> w & 1:
                        fail[w] *= 1.0 - q
                        frontier |= 1 << w
            if stay_out == 0.0:
                continue
            items = list(loc.bits(frontier))
            if last:
                # only the subset "all of the frontier", and only if it completes the target
                if mask & ~target or mask | frontier != target:
                    continue
                p = pr * stay_out
                for w in items:
                    p *= 1.0 - fail[w]
                if p > 0.0:
                    new[target] += p
                continue
            # the subsets of the frontier nodes whose fate is random lead to distinct masks:
            # more of them than the cap means the step's guard below would refuse anyway
            free = sum(1 for w in items if 0.0 < fail[w] < 1.0)
            if free >= 63 or 1 << free > max_states:
                _guard(new, max_states, max(len(new), 1 << min(free, 62)))
            for yes, no in _subsets(items):
                p = pr * stay_out
                for w in yes:
                    p *= 1.0 - fail[w]
                for w in no:
                    p *= fail[w]
                if p > 0.0:
                    add = 0
                    for w in yes:
                        add |= 1 << w
                    new[mask | add] += p
            _guard(new, max_states)
        states = new
        _guard(states, max_states)
    return dict(states)


def _bfs_dist(loc: LocalView, root: int) -> list[int]:
    dist = [-1] * loc.n
    dist[root] = 0
    queue = [root]
    for x in queue:
        for w in loc.nbrs[x]:
            if dist[w] < 0:
                dist[w] = dist[x] + 1
                queue.append(w)
    return dist


def _flooding(loc: LocalView, v: int, T: int, max_states: int) -> dict[int, float]:
    mask = 1 << v
    for _ in range(T):
        add = 0
        for x in loc.bits(mask):
            if loc.extra[x]:
                return {}
            add |= loc.adj[x]
        mask |= add
    return {mask: 1.0}


# ------------------------------------------------------------ Protocol 2's printed pseudo-code


def _tree_protocol(loc: LocalView, v: int, T: int, max_states: int) -> dict[int, float]:
    """The printed pseudo-code of Protocol 2 as ``anonspread.engine.spreading.run_tree_protocol`` runs it
    (state: s1, s2 per node); Protocol 2 itself is adaptive diffusion with alpha = 0."""
    if T == 0 or loc.gdeg[v] == 0:
        return {1 << v: 1.0}
    g = loc.gdeg[v]
    states: dict = defaultdict(float)
    for u in loc.nbrs[v]:
        # order of infection, then (s1, s2) of the acting nodes
        states[((v, u), ((u, 1, 1),))] += 1.0 / g
    for _t in range(2, T + 1):
        new: dict = defaultdict(float)
        for (order, acting), pr in states.items():
            branches = [(list(order), {x: (a, b) for x, a, b in acting}, pr)]
            for x in order[1:]:
                nxt = []
                for od, st, p in branches:
                    if x not in st or st[x][1] <= 0:
                        nxt.append((od, st, p))
                        continue
                    s1, s2 = st[x]
                    infected = set(od)
                    free = [w for w in loc.nbrs[x] if w not in infected]
                    if s1 == 1:
                        k = len(free) + loc.extra[x]
                        st2 = dict(st)
                        st2[x] = (0, s2)
                        if k == 0:
                            nxt.append((od, st2, p))
                            continue
                        for w in free:
                            st3 = dict(st2)
                            st3[w] = (1, s2 + 1)
                            nxt.append(([*od, w], st3, p / k))
                    else:
                        if loc.extra[x]:
                            continue
                        st2 = dict(st)
                        st2[x] = (s1, 0)
                        for w in free:
                            st2[w] = (0, s2 - 1)
                        nxt.append(([*od, *free], st2, p))
                branches = nxt
            for od, st, p in branches:
                acting2 = tuple(sorted((x, a, b) for x, (a, b) in st.items() if b > 0))
                new[(tuple(od), acting2)] += p
        states = new
        _guard(states, max_states)
    final: dict = defaultdict(float)
    for (order, _), p in states.items():
        final[sum(1 << x for x in order)] += p
    return dict(final)


# ------------------------------------------------------------ Protocol 3


def _adaptive(loc: LocalView, v: int, T: int, d0: float, max_states: int) -> dict[int, float]:
    """Protocol 3 as ``anonspread.engine.spreading.run_adaptive_diffusion`` runs it on a tree.

    State: (infected mask, virtual source, previous virtual source, hop count). The
    infection tree is the observed tree rooted at ``v`` (on a tree each node's
    infector is its neighbour towards the source).
    """
    par = loc.tree_parents(v)

    def relay(mask: int, x0: int, exclude: int) -> int | None:
        # every infected node reachable from x0 without entering ``exclude`` infects
        # all its uninfected contacts; an outside contact kills the branch
        seen = {x0}
        stack = [x0]
        add = 0
        while stack:
            x = stack.pop()
            if loc.extra[x]:
                return None
            add |= loc.adj[x] & ~mask
            for w in loc.nbrs[x]:
                if mask >> w & 1 and w != exclude and w not in seen:
                    seen.add(w)
                    stack.append(w)
        return mask | add

    if T == 0 or loc.gdeg[v] == 0:
        return {1 << v: 1.0}
    g = loc.gdeg[v]
    states: dict = defaultdict(float)
    for u in loc.nbrs[v]:
        mask = (1 << v) | (1 << u)
        if T >= 2:
            mask = relay(mask, u, v)
            if mask is None:
                continue
        states[(mask, u, v, 1)] += 1.0 / g
    t = 3
    while t <= T:
        new: dict = defaultdict(float)
        for (mask, vs, prev, h), pr in states.items():
            a = alpha(d0, t - 1, h)
            children = [w for w in loc.nbrs[vs] if mask >> w & 1 and par[w] == vs]
            keep_p = 1.0 if not children else a
            if keep_p > 0.0:
                m = relay(mask, vs, -1)
                if m is not None:
                    new[(m, vs, prev, h)] += pr * keep_p
            if children and a < 1.0:
                share = pr * (1.0 - a) / len(children)
                for c in children:
                    m = relay(mask, c, vs)
                    if m is not None and t + 1 <= T:
                        m = relay(m, c, vs)
                    if m is not None:
                        new[(m, c, vs, h + 1)] += share
        states = new
        _guard(states, max_states)
        t += 2
    final: dict = defaultdict(float)
    for (mask, *_), p in states.items():
        final[mask] += p
    return dict(final)




# ------------------------------------------------------------ the built-in protocols' enumerations


@register_trajectories(RandomDiffusion, cycles=True, final=True)
def _random_diffusion(protocol: RandomDiffusion, loc: LocalView, v: int, max_states: int,
                      target: int | None = None) -> dict[int, float]:
    p = protocol.p
    return _diffusion(loc, v, loc.T, lambda t, x, d: p, max_states, target)


@register_trajectories(LineProtocol, final=True)
def _line_protocol(protocol: LineProtocol, loc: LocalView, v: int, max_states: int,
                   target: int | None = None) -> dict[int, float]:
    return _diffusion(loc, v, loc.T, lambda t, x, d: (d + 1.0) / (t + 1.0), max_states, target)


@register_trajectories(TreeProtocolPseudocode, final=True)
def _tree_pseudocode(protocol: TreeProtocolPseudocode, loc: LocalView, v: int, max_states: int) -> dict[int, float]:
    return _tree_protocol(loc, v, loc.T, max_states)


@register_trajectories(TreeProtocol, final=True)
def _tree(protocol: TreeProtocol, loc: LocalView, v: int, max_states: int) -> dict[int, float]:
    return _adaptive(loc, v, loc.T, math.inf, max_states)


def _refuse_cap(protocol: AdaptiveDiffusion) -> str | None:
    if protocol.max_infections_per_step is not None:
        return ("protocol must be AdaptiveDiffusion without max_infections_per_step for "
                f"exact_likelihood; got {protocol!r}")
    return None


@register_trajectories(AdaptiveDiffusion, refuse=_refuse_cap, final=True)
def _adaptive_diffusion(protocol: AdaptiveDiffusion, loc: LocalView, v: int, max_states: int) -> dict[int, float]:
    return _adaptive(loc, v, loc.T, protocol.design_degree(loc.snapshot.graph), max_states)


@register_trajectories(Flooding, cycles=True, final=True)
def _flood(protocol: Flooding, loc: LocalView, v: int, max_states: int) -> dict[int, float]:
    """Flooding is deterministic: the infected set from ``v`` is its ball of radius ``T``,
    on any graph (cycles included): one state per source."""
    return _flooding(loc, v, loc.T, max_states)


# ------------------------------------------------------------ public function


def _exact_params(protocol, graph) -> dict:
    return {"protocol": protocol}


def _exact_extra(protocol, graph, reveal_edges) -> str | None:
    from anonspread.adversaries.observation import graph_is_forest

    traj = TRAJECTORIES[protocol.name]  # the spec's protocols are TRAJECTORIES' names
    if not traj.cycles and not graph_is_forest(graph):
        cyclic = sorted(name for name, t in TRAJECTORIES.items() if t.cycles)
        return (
            f"estimator 'exact' handles {protocol!r} only when the infected subgraph is a tree; "
            f"got {graph!r}, which has cycles (exact on any graph: {', '.join(cyclic)})"
        )
    reason = traj.refuse(protocol) if traj.refuse is not None else None
    if reason is not None:
        return f"estimator 'exact' cannot run: {reason}"
    return None


@register_estimator(
    "exact",
    protocols=TRAJECTORIES,
    likelihood=True,
    batch=False,
    params=_exact_params,
    extra=_exact_extra,
)
def exact_likelihood(snapshot: Snapshot, protocol: Protocol, *, max_states: int = MAX_STATES) -> Scores:
    """Log-likelihood ``log P(G_T | v)`` by summing over every protocol trajectory.

    For each candidate source v the protocol is run from v as the spread kernels run
    it, branching on every random outcome (the neighbour the source picks, every
    keep/pass of the virtual source and every child it may pass to for adaptive
    diffusion; every subset of coin flips for random diffusion and Protocol 1; the
    uniform choices of Protocol 2) and merging branches that reach the same protocol
    state; branches that infect a node outside the snapshot are dropped. The
    probability of ending with exactly the observed set is the likelihood of Eq. (2.1).

    Supported: every protocol with an enumeration in :data:`TRAJECTORIES`
    (:func:`register_trajectories`). Built in: :class:`~spread.protocols.AdaptiveDiffusion`
    (without ``max_infections_per_step``), :class:`~spread.protocols.TreeProtocol`
    (Protocol 2: adaptive diffusion whose virtual source always passes the token),
    :class:`~spread.protocols.TreeProtocolPseudocode`,
    :class:`~spread.protocols.LineProtocol` when the infected subgraph is a tree (any
    contact graph around it), and :class:`~spread.protocols.Flooding` (deterministic: the
    ball of radius T) and :class:`~spread.protocols.RandomDiffusion` on any infected
    subgraph. Any other
    protocol is refused, naming it.

    Parameters
    ----------
    snapshot : Snapshot
    protocol : Protocol
    max_states : int
        Give up (:class:`InvalidParameterError`) when more distinct protocol states
        than this are alive at one step. Practical limits: T <= ~10 on trees of a few
        dozen nodes; a line of ~50 nodes for the diffusions.

    Returns
    -------
    Scores
        kind ``"log-likelihood"`` (``-inf`` for impossible sources).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import spread
    >>> s = Snapshot(nx.path_graph(7), [2, 3, 4], T=2)
    >>> sc = exact_likelihood(s, spread.LineProtocol())
    >>> round(float(np.exp(sc[3])), 12)  # 4 ways (which ends grow at t = 1), 1/36 each
    0.111111111111
    """
    snapshot = _check_snapshot(snapshot)
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    max_states = check_int(max_states, "max_states", low=1)
    loc = LocalView(snapshot)
    if loc.n > 62:
        raise InvalidParameterError(
            f"snapshot must have at most 62 infected nodes for exact_likelihood; got {loc.n}"
        )
    traj = TRAJECTORIES.get(protocol.name, None)
    if traj is None:
        raise InvalidParameterError(
            f"protocol must be one exact_likelihood enumerates ({', '.join(sorted(TRAJECTORIES))}); "
            f"got {protocol!r}, whose protocol {protocol.name!r} has no exact trajectory "
            "enumeration (adversaries.register_trajectories adds one)"
        )
    if not traj.cycles and not loc.is_tree:
        raise GraphError(
            f"exact_likelihood for {type(protocol).__name__} needs an infected subgraph that is "
            "a tree (the infection tree is then determined); got one with cycles"
        )
    reason = traj.refuse(protocol) if traj.refuse is not None else None
    if reason is not None:
        raise InvalidParameterError(reason)
    enumerate_from = traj.likelihood
    probs = np.array([enumerate_from(protocol, loc, v, max_states) for v in range(loc.n)], np.float64)
    with np.errstate(divide="ignore"):
        logs = np.log(probs)
    return Scores(snapshot.nodes, logs, "log-likelihood")

