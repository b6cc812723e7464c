"""Compiled kernels of the transaction model (every honest node sends one transaction).

Shared by :mod:`adversaries.transactions`; compiled ahead of time (:mod:`._transactions`). Graphs are CSR arrays: ``(indptr, indices)``
for the out-neighbours of the anonymity graph (stems) and for the neighbours of the
undirected spreading graph (diffusion). Randomness comes from a
``numpy.random.Generator`` passed in (its stream advances, draw for draw as its own
``integers`` and ``random`` methods would), so a seed reproduces a run.

Observation codes per transaction (see :class:`adversaries.transactions.TransactionObservation`):
``kind = 0``: the stem reached a spy -- ``node`` handed it to spy ``spy``; ``kind = 1``:
an honest node ``node`` fluffed it (per-hop coin, or the failsafe after ``cap`` hops)
before any spy saw it in the stem; ``kind = 2``: no spy ever saw it (``node = -1``).
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _transactions as _k

__all__ = [
    "ROUTING_CODES",
    "diffusion_first_spy",
    "precision_recall",
    "regular_digraph",
    "routing_tables",
    "stems",
]

#: Stem forwarding rules (Dandelion++ §4.2, the authors' ``edgebased`` codes 0-3).
ROUTING_CODES = {"per-tx": 0, "per-edge": 1, "all-to-one": 2, "one-to-one": 3}


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, np.int64)


def _mask(a) -> np.ndarray:
    return np.ascontiguousarray(a, np.bool_).view(np.uint8)


def regular_digraph(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Union of ``d`` uniformly random directed Hamiltonian cycles on ``n`` nodes (CSR).

    The authors' ``RegGraphGen``: out- and in-degree ``d`` (an arc drawn twice is kept
    once, as in their ``networkx.DiGraph``, so a few nodes may have out-degree < d).
    """
    return _k.regular_digraph(int(n), int(d), rng)


def routing_tables(n: int, indptr, indices, code: int, rng: np.random.Generator):
    """Per-epoch forwarding tables of the deterministic rules (unused for per-tx).

    Returns ``(iptr, iind, table, own)``: the in-neighbour CSR, ``table[e]`` the
    successor a transaction arriving over in-arc ``e`` (position in ``iind``) is sent
    to, and ``own[u]`` the successor of ``u``'s own transaction (-1: no successor).
    per-edge: every in-arc independently uniform; all-to-one: one successor per node
    for everything; one-to-one: the in-arcs dealt over a shuffled list of successors,
    reshuffled when it runs out (a bijection when in- and out-degree agree).
    """
    return _k.routing_tables(int(n), _i64(indptr), _i64(indices), int(code), rng)


def stems(n: int, indptr, indices, spy, code: int, q: float, cap: int, escape: bool,
          rng: np.random.Generator, kind: np.ndarray, node: np.ndarray, spy_of: np.ndarray,
          hops: np.ndarray) -> None:
    """Run every honest node's stem; fill the observation arrays (indexed by transaction).

    Transactions are the honest nodes in increasing order. A stem moves from node to
    successor by the routing rule; arriving at a spy it stops (``kind 0``, the sender is
    recorded); arriving at an honest node it is fluffed there with probability ``q``
    (``kind 1``; the source itself always sends its own transaction on); after ``cap`` hops
    the failsafe fluffs it where it is (``kind 1``). A node without successor fluffs at once.
    With ``escape`` (deterministic routings only), a stem back at a node it already left
    takes a uniformly random *other* successor than its table's, the authors' loop rule.
    ``kind`` is int8, the other outputs int64, one entry per honest node.
    """
    _k.stems(int(n), _i64(indptr), _i64(indices), _mask(spy), int(code), float(q), int(cap),
             bool(escape), rng, kind, node, spy_of, hops)


def diffusion_first_spy(n: int, indptr, indices, spy, rng: np.random.Generator,
                        kind: np.ndarray, node: np.ndarray, spy_of: np.ndarray,
                        hops: np.ndarray) -> None:
    """Diffusion (each infected node relays to each neighbour after an i.i.d. exponential
    delay) from every honest node until the first spy receives it.

    By memorylessness the next delivery is a uniformly random edge from the infected set to
    an uninfected node; it is drawn by rejection over the edges pushed so far (edges into
    nodes infected meanwhile are rejected), which is exactly uniform over the live ones.
    Records who delivered it to the first spy (``kind 0``); ``kind 2`` if the honest
    component holds no spy. ``hops`` counts the infected honest nodes.
    """
    _k.diffusion_first_spy(int(n), _i64(indptr), _i64(indices), _mask(spy), rng, kind, node,
                           spy_of, hops)


def precision_recall(n: int, sources, mapping) -> tuple[float, float]:
    """Precision and recall of a mapping (transaction i -> node ``mapping[i]``, -1: none).

    ``recall = (1/h) sum_i 1{M(x_i) = s_i}`` and
    ``precision = (1/h) sum_i 1{M(x_i) = s_i} / |M^{-1}(M(x_i))|`` over the ``h``
    transactions (one per honest node ``s_i``).
    """
    return _k.precision_recall(int(n), _i64(sources), _i64(mapping))
