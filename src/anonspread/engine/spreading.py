"""The spreading kernels: one run of each protocol on a :class:`~anonspread.engine.store.GraphStore`.

Compiled ahead of time (:mod:`._spreading`); this module holds their codes, validates the
arrays handed to them and documents them. One kernel per protocol, chosen by its code
(``Protocol.kernel_code``): :data:`FLOODING`, :data:`RANDOM_DIFFUSION`, :data:`LINE_PROTOCOL`
(Protocol 1), :data:`TREE_PROTOCOL` (the printed pseudo-code of Protocol 2) and
:data:`ADAPTIVE_DIFFUSION` (Protocol 3; Protocol 2 itself runs it with ``d0 = inf``).

A run fills ``vs_out[t]`` (the virtual source after step ``t``, -1 for protocols without
one) and ``sizes_out[t]`` (the number of infected nodes after step ``t``) for
``t = 0..T`` and returns the number ``n`` of infected nodes: ``store.order[:n]`` in
infection order, their infection times and parents in ``store.ns[:, TIME]`` and
``store.ns[:, PARENT]``. ``params`` is the protocol's float64 parameter vector
(``Protocol.kernel_params``). Randomness comes from the ``numpy.random.Generator`` passed
in, draw for draw as its own ``random()`` and ``integers(0, n)`` would advance it, so the
same generator gives the same runs. Nodes infected during step ``t`` never act before step
``t + 1``; the plain-Python reading of each protocol is in ``spread.protocols``.

Adaptive diffusion takes a closed-form path on infinite trees without a cap on infections
(the token's walk is drawn exactly as the relay path draws it; then every node's
infection time follows from its distance to the virtual-source path, each infected node
visited once) and relays infection messages otherwise; both give the same infected set,
times, parents and virtual sources on trees, from the same random numbers. With the
:data:`AD_SUMMARY_ONLY` flag (``Protocol.summary_params``) a batch counts the ball instead
of creating it.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _spreading
from anonspread.engine.store import AUX, CHILD, FLAG, NCOL, PARENT, SIB, TIME, GraphStore
from anonspread.errors import InvalidTypeError

__all__ = [
    "ADAPTIVE_DIFFUSION",
    "AD_STUCK_PASS",
    "AD_SUMMARY_ONLY",
    "AUX",
    "CHILD",
    "FLAG",
    "FLOODING",
    "KERNEL_CODES",
    "LINE_PROTOCOL",
    "NCOL",
    "PARENT",
    "RANDOM_DIFFUSION",
    "SIB",
    "TIME",
    "TREE_PROTOCOL",
    "run_adaptive_diffusion_relay",
    "run_adaptive_diffusion_tree",
    "run_batch",
    "run_protocol",
    "run_summary",
    "simulate_chunk",
    "vs_hops",
]

#: Kernel codes (see ``Protocol.kernel_code``).
FLOODING, RANDOM_DIFFUSION, LINE_PROTOCOL, TREE_PROTOCOL, ADAPTIVE_DIFFUSION = 0, 1, 2, 3, 4
KERNEL_CODES = (FLOODING, RANDOM_DIFFUSION, LINE_PROTOCOL, TREE_PROTOCOL, ADAPTIVE_DIFFUSION)
#: Flag bit of adaptive diffusion's ``params[2]`` (``AdaptiveDiffusion.summary_params``):
#: the caller keeps only the counts and virtual sources (see :func:`run_summary`).
AD_SUMMARY_ONLY = 4
#: Flag bit of ``params[2]``: the authors' stuck-virtual-source rule
#: (``AdaptiveDiffusion(stuck="pass")``; see :func:`run_adaptive_diffusion_relay`).
AD_STUCK_PASS = 8

def _params(params) -> np.ndarray:
    return _check.floats(params, "params")


def _store(store) -> GraphStore:
    if not isinstance(store, GraphStore):
        raise InvalidTypeError(f"store must be a GraphStore; got {type(store).__name__}")
    return store


def _rng(rng):
    if not isinstance(rng, np.random.Generator):
        raise InvalidTypeError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    return rng


def _stops(stops, trials: int):
    """``stops`` as the int64 array the kernels read (None: no stop), one entry per trial."""
    if stops is None:
        return None
    a = np.ascontiguousarray(stops, np.int64)
    if a.ndim != 1 or a.shape[0] < trials:
        raise ValueError(f"stops must be a 1-d array with an entry per trial ({trials}); got "
                         f"shape {a.shape}")
    return a


def _check_stop(stop) -> int:
    stop = int(stop)
    if stop < 0:
        raise ValueError(f"stop must be >= 0 (0: no stop); got {stop}")
    return stop


def run_protocol(code: int, store: GraphStore, source: int, T: int, params, rng,
                 vs_out: np.ndarray, sizes_out: np.ndarray, stop: int = 0) -> int:
    """One run of protocol ``code`` from node ``source``; returns the number of infected
    nodes. ``vs_out`` (int32) and ``sizes_out`` (int64) need ``T + 1`` entries.

    ``stop > 0`` is the stopping rule by reach: the run ends after the first step ``t``
    with ``stop`` or more infected nodes (every node infected during that step is kept,
    so the count may exceed ``stop``), and ``vs_out``, ``sizes_out`` keep that state for
    ``t + 1 .. T``; a run that never reaches ``stop`` runs all ``T`` steps."""
    return _spreading.run_one(int(code), _store(store), int(source), int(T), _params(params), _rng(rng),
                              vs_out, sizes_out, 0, _check_stop(stop))


def run_summary(code: int, store: GraphStore, source: int, T: int, params, rng,
                vs_out: np.ndarray, sizes_out: np.ndarray) -> int:
    """:func:`run_protocol` for a caller that keeps only ``sizes_out`` and ``vs_out`` (the
    batch drivers, with ``Protocol.summary_params``): for adaptive diffusion on a tree with
    room in the store, the ball is counted instead of created (``store.order`` then does
    not list the infected nodes)."""
    return _spreading.run_one(int(code), _store(store), int(source), int(T), _params(params), _rng(rng),
                              vs_out, sizes_out, 1)


def run_adaptive_diffusion_tree(store: GraphStore, source: int, T: int, params, rng,
                                vs_out: np.ndarray, sizes_out: np.ndarray) -> int:
    """Adaptive diffusion's closed-form tree path (a lazily grown tree without a cap)."""
    return _spreading.run_one(ADAPTIVE_DIFFUSION, _store(store), int(source), int(T),
                              _params(params), _rng(rng), vs_out, sizes_out, 2)


def run_adaptive_diffusion_relay(store: GraphStore, source: int, T: int, params, rng,
                                 vs_out: np.ndarray, sizes_out: np.ndarray) -> int:
    """Adaptive diffusion by relaying infection messages (thesis Protocol 3, §2.4.2).

    ``params = [cap, maxdeg, flags, d0]``; ``flags`` is ``graph_relay + 2 * leaves_only +
    AD_SUMMARY_ONLY * summary + AD_STUCK_PASS * stuck_pass`` (``AdaptiveDiffusion.relay``,
    ``.infectors``, ``.stuck``). ``stuck_pass`` is the rule of the authors' code: a moving
    token goes to a uniform infection-tree neighbour other than the node it came from; a
    virtual source whose only tree neighbour is that node sends two rounds of infection
    messages to it and passes the token back. Without it, the token moves to a uniform
    child and a dead end keeps it.
    """
    return _spreading.run_one(ADAPTIVE_DIFFUSION, _store(store), int(source), int(T),
                              _params(params), _rng(rng), vs_out, sizes_out, 3)


def vs_hops(store: GraphStore, vs: int) -> int:
    """Hop count from the last run's source to node ``vs`` along infection-tree parents
    (-1 for ``vs = -1``)."""
    return _spreading.vs_hops_of(_store(store), int(vs))


def run_batch(code: int, store: GraphStore, lazy: bool, sources: np.ndarray, seeds: np.ndarray,
              T: int, params, rng, sizes: np.ndarray, vs_hops: np.ndarray,
              vs_node: np.ndarray, stops=None) -> None:
    """Run ``sources.shape[0]`` independent trials of protocol ``code`` back to back.

    Finite graphs reuse one store (only the infected nodes' state is cleared between
    trials, and again at the end); lazy trees start a fresh realisation from ``seeds[i]``
    (uint64) for each trial. Writes ``sizes[i, t]`` (int64: infected after step t),
    ``vs_hops[i]`` (int32: hops from the source to the final virtual source along the
    infection tree, -1 if none) and ``vs_node[i]`` (int32). Adaptive diffusion counts the
    ball instead of creating it where it can (:func:`run_summary`). ``stops`` (int64, one
    per trial, or None) stops trial ``i`` by reach when ``stops[i] > 0`` (as in
    :func:`run_protocol`: ``sizes[i]`` then keeps the snapshot's count after its step).
    """
    _spreading.run_batch(int(code), _store(store), bool(lazy), sources, seeds, int(T), _params(params),
                         _rng(rng), sizes, vs_hops, vs_node, _stops(stops, sources.shape[0]))


def simulate_chunk(code: int, store: GraphStore, lazy: bool, sources: np.ndarray,
                   seeds: np.ndarray, i0: int, T: int, params, rng, cap: int, noff: np.ndarray,
                   n_out: np.ndarray, b_vs: np.ndarray, b_order: np.ndarray, b_par: np.ndarray,
                   b_gdeg: np.ndarray, stops=None, t_out: np.ndarray | None = None):
    """The fused loop's simulation phase: run trials ``i0, i0 + 1, ...`` until about
    ``cap`` infected nodes are buffered; returns ``(end, b_order, b_par, b_gdeg)``.

    Trial ``i`` of the chunk occupies ``[noff[i], noff[i + 1])`` of the buffers (offsets
    relative to the chunk, ``noff[i0] = 0``): ``b_order`` (int32) its infected nodes in
    infection order, ``b_par`` (int64) their infection-tree parents as local ids (-1 for
    the source), ``b_gdeg`` (int64) their contact degrees; ``n_out[i]`` its number of
    infected nodes and ``b_vs[i]`` the local id of its final virtual source (-1 if none).
    At least one trial runs; a trial larger than the buffers grows them (the returned
    arrays replace the given ones). The store's run state is clean again on return.
    ``stops`` (int64, one per trial, or None) stops trial ``i`` by reach when
    ``stops[i] > 0`` (as in :func:`run_protocol`); ``t_out`` (int64, or None) receives the
    step of each trial's snapshot (the first step with ``stops[i]`` infected, else ``T``).
    """
    return _spreading.simulate_chunk(int(code), _store(store), bool(lazy), sources, seeds, int(i0),
                                     int(T), _params(params), _rng(rng), int(cap), noff, n_out, b_vs,
                                     b_order, b_par, b_gdeg, _stops(stops, sources.shape[0]),
                                     t_out)
