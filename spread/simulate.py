"""The simulators: one run with a full trace, and the compiled Monte Carlo path."""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.engine.spreading import KERNEL_CODES, PARENT, TIME, run_batch, run_protocol
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size
from anonspread.spread.protocols import Protocol
from anonspread.spread.reach import parse_reach, reach_targets, size_check_steps, steps_and_reached
from anonspread.spread.result import Spread, SpreadBatch
from anonspread.validation import check_int, check_rng

__all__ = ["batch_setup", "infected_sets", "make_spread", "simulate", "simulate_many"]


def _check_protocol(protocol: Any) -> Protocol:
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(
            "protocol must be a spread.protocols.Protocol instance such as AdaptiveDiffusion(); "
            f"got {protocol!r}"
        )
    return protocol


def _check_compiled(protocol: Any) -> Protocol:
    protocol = _check_protocol(protocol)
    if protocol.kernel_code not in KERNEL_CODES:
        raise InvalidParameterError(
            "protocol must be a compiled protocol for spread.simulate (one with an engine kernel, "
            f"kernel_code in {KERNEL_CODES}); got {protocol!r}, which runs only in "
            "spread.events.simulate_messages (and, for the stem protocols, "
            "spread.dandelion.simulate_stems)"
        )
    return protocol


def _source_index(g, source: Any, rng: np.random.Generator) -> int:
    if isinstance(g, LazyTree):
        return 0 if source is None else g.node_index(source, "source")
    if source is None:
        return int(rng.integers(0, g.number_of_nodes()))
    return g.node_index(source)


def make_spread(g, protocol: Protocol, T: int, idx: np.ndarray, times: np.ndarray,
                parent_position: np.ndarray, vs_index: np.ndarray | None, sizes: np.ndarray, *,
                stop: Any = None, reached: bool | None = None) -> Spread:
    """The :class:`Spread` of a run given by internal node indices (shared by the engines).

    Parameters
    ----------
    g : ContactGraph or LazyTree
        The graph of the run.
    protocol : Protocol
        The protocol that ran.
    T : int
        The number of steps.
    idx : numpy.ndarray of int
        The infected nodes in infection order (source first), as internal indices.
    times : numpy.ndarray
        Their infection times, aligned with ``idx``.
    parent_position : numpy.ndarray of int
        The position in ``idx`` of each node's infector (-1 for the source).
    vs_index : numpy.ndarray of int or None
        The virtual source after each step (ignored for protocols without one).
    sizes : numpy.ndarray of int
        The number of infected nodes after each step.
    stop : Reach or None
        The stopping rule by reach, if any.
    reached : bool or None
        Whether the run reached it (``T`` is then the step it did).

    Returns
    -------
    Spread
        The trace, with labels in place of indices.
    """
    infected = g.labels_of(idx)
    if protocol.has_virtual_source and vs_index is not None:
        hist = g.labels_of(vs_index)
        vs = hist[T].item() if hasattr(hist[T], "item") else hist[T]
    else:
        hist, vs = None, None
    return Spread(
        source=infected[0].item() if hasattr(infected[0], "item") else infected[0],
        T=T,
        infected=infected,
        times=times,
        parent_position=parent_position,
        virtual_source=vs,
        virtual_source_history=hist,
        graph=g,
        protocol=protocol,
        index=idx,
        sizes=sizes,
        stop=stop,
        reached=reached,
    )


def simulate(graph: Any, protocol: Protocol, T: int, *, source: Any = None, rng: Any = None,
             stop: Any = None) -> Spread:
    """Run ``protocol`` for ``T`` steps on ``graph`` from ``source`` and return the trace.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        Any undirected simple networkx graph (converted once to CSR), or an infinite
        tree from :mod:`spread.graphs` (grown as the run touches it; its realisation is
        kept on the object, so later runs and adversaries see the same tree).
    protocol : Protocol
        E.g. ``AdaptiveDiffusion(d0=3)``, ``LineProtocol()``, ``RandomDiffusion(0.5)``.
    T : int >= 0
        Number of steps.
    source : node, optional
        The true source; ``None`` draws a uniform node (node 0 on infinite trees).
    rng : None, int or numpy.random.Generator
        The same seed gives the same :class:`Spread`.
    stop : None, str or Reach
        A stopping rule by reach (:mod:`spread.reach`): ``"infected:K"`` or
        ``"coverage:F"`` (a fraction of the source's connected component). The run ends
        after the first step with at least that many infected nodes (the whole step is
        kept: the count can exceed K), and ``Spread.T`` is that step; ``T`` is then the
        cap, and a run that has not reached the target by ``T`` ends there with
        ``Spread.reached`` False.

    Returns
    -------
    Spread

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.spread.protocols import AdaptiveDiffusion
    >>> s = spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(), 6, rng=2)
    >>> s.n_infected  # the ball of radius 3 around the virtual source
    22
    >>> s = spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(), 50, rng=2,
    ...                     stop="infected:20")
    >>> s.T, s.n_infected, s.sizes.tolist(), s.reached
    (6, 22, [1, 2, 4, 10, 10, 14, 22], True)
    """
    protocol = _check_compiled(protocol)
    T = check_int(T, "T", low=0)
    gen = check_rng(rng)
    reach = parse_reach(stop)
    g = as_contact_graph(graph)
    check_run_size(g, protocol, size_check_steps(reach, g, protocol, T))
    src = _source_index(g, source, gen)
    targets = reach_targets(reach, g, np.array([src]))
    target = 0 if targets is None else int(targets[0])
    params = protocol.kernel_params(g, T)
    vs_out = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    # Only the state of the nodes a run infects is touched (and cleared afterwards), so a
    # run costs time in proportion to its spread, not to the graph.
    lazy = isinstance(g, LazyTree)
    store = g.store if lazy else g.take_store()
    try:
        n = run_protocol(protocol.kernel_code, store, src, T, params, gen, vs_out, sizes, target)
    except BaseException:
        if lazy:  # keep the realisation, clear whatever run state the failed run left
            store.clear_run_state()
        raise
    ns = store.ns
    idx = store.order[:n].copy()
    times = ns[idx, TIME].copy()
    parents = ns[idx, PARENT].astype(np.int64)
    store.reset_run_state(n)
    if not lazy:
        g.give_store(store)
    # position of each parent in infection order, by binary search (no full-size map)
    sorter = np.argsort(idx, kind="stable")
    found = sorter[np.searchsorted(idx, np.maximum(parents, 0), sorter=sorter)]
    parent_position = np.where(parents >= 0, found, -1).astype(np.int64)
    if reach is None:
        return make_spread(g, protocol, T, idx, times, parent_position, vs_out, sizes)
    steps, reached = steps_and_reached(sizes[None, :], targets, T)
    t = int(steps[0])
    return make_spread(g, protocol, t, idx, times, parent_position, vs_out[: t + 1],
                       sizes[: t + 1].copy(), stop=reach, reached=bool(reached[0]))


def infected_sets(graph: Any, protocol: Protocol, T: int, count: int, *, rng: Any = None):
    """The infected sets of ``count`` runs, drawn exactly as ``count`` calls of
    ``simulate(graph, protocol, T, rng=rng)`` draw them (a uniform source each, the same
    generator throughout), without building their traces.

    For a caller that needs only which nodes a run infected (the learned adversary's
    training pilot replays a training's spreads to count the distinct sets): a few
    microseconds per run instead of :func:`simulate`'s trace of times, parents and
    virtual sources.

    Parameters
    ----------
    graph : networkx.Graph or ContactGraph
        A finite graph (an infinite tree has no uniform source).
    protocol : Protocol
    T : int >= 0
    count : int >= 0
    rng : None, int or numpy.random.Generator
        Advanced as ``count`` calls of :func:`simulate` would advance it.

    Yields
    ------
    numpy.ndarray
        The infected nodes' indices in the graph, sorted (a fresh array per run).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import spread
    >>> from anonspread.spread.simulate import infected_sets
    >>> g = spread.graphs.as_contact_graph(nx.cycle_graph(8))
    >>> [s.tolist() for s in infected_sets(g, spread.RandomDiffusion(0.5), 2, 2, rng=3)]
    [[4, 5, 6], [0, 1, 2, 7]]
    """
    protocol = _check_compiled(protocol)
    T = check_int(T, "T", low=0)
    count = check_int(count, "count", low=0)
    gen = check_rng(rng)
    g = as_contact_graph(graph)
    if isinstance(g, LazyTree):
        raise InvalidParameterError(
            f"graph must be finite for infected_sets (an infinite tree has no uniform source); got {g!r}")
    check_run_size(g, protocol, T)
    params = protocol.kernel_params(g, T)
    vs_out = np.empty(T + 1, np.int32)
    sizes = np.empty(T + 1, np.int64)
    n_nodes = g.number_of_nodes()
    for _ in range(count):
        src = int(gen.integers(0, n_nodes))
        store = g.take_store()  # given back only clean, as simulate does
        n = run_protocol(protocol.kernel_code, store, src, T, params, gen, vs_out, sizes, 0)
        idx = np.sort(store.order[:n])
        store.reset_run_state(n)
        g.give_store(store)
        yield idx


def batch_setup(g, protocol: Protocol, T: int, trials: int, source: Any, gen: np.random.Generator):
    """Sources, tree seeds and a fresh store for ``trials`` Monte Carlo runs.

    Shared by every compiled batch driver (here and in ``adversaries``), so the same
    ``rng`` gives the same spreads whichever driver runs them. On a finite graph each
    trial draws a uniform source unless ``source`` is given; on an infinite tree every
    trial starts at node 0 and gets its own realisation seed.

    Parameters
    ----------
    g : ContactGraph or LazyTree
        The graph.
    protocol : Protocol
        The protocol (its :meth:`~Protocol.growth_hint` sizes a tree's store).
    T : int
        The number of steps.
    trials : int
        The number of runs.
    source : node or None
        A fixed source (on an infinite tree only None or 0).
    gen : numpy.random.Generator
        Draws the sources and the tree seeds.

    Returns
    -------
    lazy : bool
        Whether ``g`` is an infinite tree.
    sources : numpy.ndarray of int32
        The source index of each trial.
    seeds : numpy.ndarray of uint64
        The realisation seed of each trial (0 on a finite graph).
    store : GraphStore
        A store with clean run state (give it back with ``g.give_store`` on a finite graph).
    """
    if isinstance(g, LazyTree):
        if source is not None and source != 0:
            # a named node exists only in the object's own realisation, not in fresh ones
            raise InvalidParameterError(
                "source must be None or 0 on an infinite tree (every trial starts at node 0); "
                f"got {source!r}"
            )
        sources = np.zeros(trials, np.int32)
        seeds = gen.integers(0, 2**63 - 1, size=trials, dtype=np.int64).astype(np.uint64)
        return True, sources, seeds, g._new_store(capacity=protocol.growth_hint(g, T))
    if source is None:
        sources = gen.integers(0, g.number_of_nodes(), size=trials).astype(np.int32)
    else:
        sources = np.full(trials, g.node_index(source), np.int32)
    # the drivers leave the run state clean: callers give the store back with g.give_store
    return False, sources, np.zeros(trials, np.uint64), g.take_store()


def simulate_many(
    graph: Any,
    protocol: Protocol,
    T: int,
    trials: int,
    *,
    source: Any = None,
    rng: Any = None,
    stop: Any = None,
) -> SpreadBatch:
    """Run ``trials`` independent runs in one compiled loop and return their summaries.

    This is the Monte Carlo path: no Python object is touched per node or per trial.
    On a finite graph each trial draws a uniform source (unless ``source`` is given);
    on infinite trees the source is node 0 and every trial of a :func:`random_tree`
    runs on an independent realisation (the ensemble of thesis Fig. 2.7), drawn from
    ``rng``.

    Parameters
    ----------
    graph, protocol, T
        As in :func:`simulate`.
    trials : int >= 1
        The number of independent runs.
    source, rng
        As in :func:`simulate`.
    stop : None, str or Reach
        A stopping rule by reach, as in :func:`simulate` (``T`` is the cap): each trial
        stops in the compiled loop after the first step with its target count; its step
        is ``SpreadBatch.steps``, whether it got there ``SpreadBatch.reached``.

    Returns
    -------
    SpreadBatch

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.spread.protocols import AdaptiveDiffusion
    >>> b = spread.simulate_many(spread.graphs.regular_tree(3), AdaptiveDiffusion(), 4, 100, rng=0)
    >>> set(b.n_infected.tolist())
    {10}
    >>> b = spread.simulate_many(spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 30,
    ...                          5, rng=0, stop="infected:50")
    >>> b.steps.tolist(), b.n_infected.tolist(), bool(b.reached.all())
    ([10, 8, 7, 8, 6], [70, 65, 60, 59, 51], True)
    """
    protocol = _check_compiled(protocol)
    T = check_int(T, "T", low=0)
    trials = check_int(trials, "trials", low=1)
    gen = check_rng(rng)
    reach = parse_reach(stop)
    g = as_contact_graph(graph)
    check_run_size(g, protocol, size_check_steps(reach, g, protocol, T), trials,
                   per_trial_steps=True)
    params = protocol.summary_params(g, T)  # a batch keeps only sizes and virtual sources
    lazy, sources, seeds, store = batch_setup(g, protocol, T, trials, source, gen)
    try:
        targets = reach_targets(reach, g, sources)
    except BaseException:
        if not lazy:
            g.give_store(store)
        raise
    sizes = np.empty((trials, T + 1), np.int64)
    vs_hops = np.empty(trials, np.int32)
    vs_node = np.empty(trials, np.int32)
    run_batch(protocol.kernel_code, store, lazy, sources, seeds, T, params, gen, sizes, vs_hops,
              vs_node, targets)
    if not lazy:
        g.give_store(store)
    steps, reached = steps_and_reached(sizes, targets, T) if reach is not None else (None, None)
    return SpreadBatch(
        T=T,
        trials=trials,
        sources=g.labels_of(sources) if not lazy else sources.astype(np.int64),
        sizes=sizes,
        vs_hops=vs_hops,
        virtual_source=vs_node,
        protocol=protocol,
        graph=g,
        stop=reach,
        steps=steps,
        reached=reached,
        targets=targets,
    )
