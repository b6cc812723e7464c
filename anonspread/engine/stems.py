"""Compiled kernels of the stem-and-fluff protocols (:mod:`spread.dandelion`).

Compiled ahead of time (:mod:`._stems`); this module holds their codes and documentation.

Flat arrays only. An anonymity graph (one epoch) is held in CSR form:

* ``out_ptr, out`` -- the relays of each node (its out-edges);
* ``own`` -- the relay a node uses for its own transactions (-1: drawn per transaction);
* ``in_ptr, in_src, in_to`` -- for each node ``v`` and each in-edge ``(in_src[j], v)``,
  the relay ``in_to[j]`` a stem arriving on it is forwarded to (-1: drawn per hop);
* ``diffuser`` -- the node's role for the epoch (1: diffuses every stem it receives),
  used only when the coin is per epoch.

The plain reading of the protocols is in the docstrings of :mod:`spread.dandelion`;
the kernels follow it. Random numbers come from the ``numpy.random.Generator`` passed in
(its stream advances, draw for draw as its own ``integers``, ``random`` and
``exponential`` methods would), so the same generator gives the same runs.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _stems

__all__ = ["draw_anonymity", "run_stem_batch"]

#: Anonymity-graph kinds.
CYCLE, RELAYS = 0, 1
#: Routing codes.
ONE_TO_ONE, PER_EDGE, PER_TRANSACTION, ALL_TO_ONE = 0, 1, 2, 3
#: Receipt kinds (spy observations).
STEM, FLUFF = 0, 1


def _graph(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    indices = np.ascontiguousarray(indices)
    if indices.dtype != np.int32:
        indices = np.ascontiguousarray(indices, np.int64)
    return np.ascontiguousarray(indptr, np.int64), indices


def draw_anonymity(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rng,
                   out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work) -> int:
    """Draw one epoch's anonymity graph into the given arrays; returns the number of edges.

    ``out`` / ``in_src`` / ``in_to`` need room for ``n * relays`` entries (``n`` for the
    cycle), ``work`` for ``max(n, max degree) + 1`` int64; ``diffuser`` is int8, the
    other arrays int64.
    """
    indptr, indices = _graph(indptr, indices)
    return _stems.draw_anonymity(int(kind), int(n), indptr, indices, int(relays),
                                 bool(peers_all), int(routing), bool(coin_epoch), float(q), rng,
                                 out_ptr, out, own, in_ptr, in_src, in_to, diffuser, work)


def run_stem_batch(kind, n, indptr, indices, relays, peers_all, routing, coin_epoch, q, rate,
                   stem_len, fixed, out_ptr, out, own, in_ptr, in_src, in_to, diffuser,
                   sources, spies, rng, o_len, o_fnode, o_ftime, o_repeat, o_reached, o_last,
                   o_time, o_sender, o_kind) -> None:
    """Many independent transactions; one row of outputs per trial.

    ``fixed``: reuse the given anonymity graph for every trial (one epoch), else draw a
    fresh one per trial into the same arrays. ``spies`` has shape (trials, k). Each
    trial runs the stem from ``sources[i]`` (its relays by the routing rule, a receipt
    after an exponential delay of mean ``1 / rate`` per hop, fluffed by the coin ``q``
    per hop or per epoch, or by the fail-safe when the stem comes back to a node that has
    the transaction), then diffusion from the fluff node to completion (Dijkstra over
    per-message exponential delays). The outputs are the stem length, fluff node and
    time, the fail-safe flag (bool), the nodes reached, the completion time, and per spy
    the first receipt's time, sender and kind (``STEM``, ``FLUFF``, -1: none).
    """
    indptr, indices = _graph(indptr, indices)
    _stems.run_stem_batch(int(kind), int(n), indptr, indices, int(relays), bool(peers_all),
                          int(routing), bool(coin_epoch), float(q), float(rate), int(stem_len),
                          bool(fixed), out_ptr, out, own, in_ptr, in_src, in_to, diffuser,
                          np.ascontiguousarray(sources, np.int64),
                          np.ascontiguousarray(spies, np.int64), rng, o_len, o_fnode, o_ftime,
                          o_repeat.view(np.uint8), o_reached, o_last, o_time, o_sender, o_kind)
