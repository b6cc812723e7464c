"""The fused Monte Carlo loop: simulate a chunk of trials, then score every snapshot.

Trials run in chunks of two phases, both compiled ahead of time:
:func:`anonspread.engine.spreading.simulate_chunk` runs trials and copies each snapshot
into flat buffers, then :func:`score_chunk` (``_fused.pyx``) scores them with every
estimator asked for. Scoring draws nothing from the random stream, so chunking leaves
every result unchanged. :func:`anonspread.adversaries.simulate_and_score` is the Python
layer above it.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _checks, _fused
from anonspread.engine import _inputs as _check
from anonspread.engine._fused import JORDAN, LISN, ML, NETSLEUTH, RUMOR
from anonspread.errors import InvalidParameterError

__all__ = ["CHUNK_NODES", "JORDAN", "LISN", "ML", "NETSLEUTH", "RUMOR", "local_tree", "score_chunk"]


#: Infected nodes per chunk of trials: the simulation phase fills snapshot buffers of
#: about this many nodes (a single larger trial still fits: the buffers grow), then the
#: scoring phase reads them. About 20 bytes per node: 2^16 nodes keep the buffers (reused
#: by every chunk) in the caches; 2^20 made the ML path a third slower on the random
#: {3,4} tree at T = 16 (165 vs 111 us per trial), from writing and re-reading 20 MB.
CHUNK_NODES = 1 << 16

_RULES = {
    1: "must be partitioned by noff: noff[i0] >= 0, noff[i + 1] = noff[i] + n_out[i] with "
       "n_out[i] >= 1, within noff, n_out, b_vs, b_order, b_par and b_gdeg",
    2: "must hold in b_vs a local id of each trial's nodes or -1",
    3: "must hold in b_order node indices of the contact graph",
    4: "must hold in b_par infection-tree parents as local ids in infection order (-1 for the "
       "source, first; each parent before its child)",
    5: "must hold in b_gdeg at least each node's infection-tree degree (its degree in the "
       "contact graph)",
}

_PARENTS = ("must hold infection-tree parents as local ids in infection order (-1 for the "
            "source, first; each parent before its child)")


def local_tree(par, n, cnt, fill, indices):
    """The infection tree's CSR over local ids from the parents ``par[:n]``, written into
    ``cnt`` (int64, n + 1), ``fill`` (int64, n, scratch) and ``indices`` (int32, 2n);
    returns views of them."""
    n = _check.integer(n, "n", low=1)
    par = _check.index_array(par, n, "par", low=-1, min_len=n)
    if par[0] != -1 or (par[1:n] >= np.arange(1, n)).any() or (par[1:n] < 0).any():
        raise InvalidParameterError(f"par {_PARENTS}")
    return _fused.local_tree(par, n, _check.out(cnt, np.int64, "cnt", min_len=n + 1),
                             _check.out(fill, np.int64, "fill", min_len=n),
                             _check.out(indices, np.int32, "indices", min_len=2 * n))


def score_chunk(i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, gptr, gind, codes, tie_u,
                seen, detected, pdet, hops, tree_hops, rank, **options):
    """Score trials ``[i0, i1)`` from the snapshots the simulation phase buffered.

    Trial i's snapshot is ``[noff[i], noff[i + 1])`` of the buffers (``noff`` relative to
    the chunk, ``noff[i0] = 0``): ``b_order`` the infected nodes in infection order,
    ``b_par`` their infection-tree parents as local ids (-1 for the source), ``b_gdeg``
    their contact degrees; ``b_vs[i]`` the local id of the final virtual source (-1 if
    none). Row e of the outputs receives estimator ``codes[e]`` (ML 0, Jordan 1, rumour 2,
    NETSLEUTH 3, LISN 4): whether the estimate (ties broken by ``tie_u[e, i]``) is the
    source, the detection probability, the estimate's hops to the source in the contact
    graph and in the infection tree, and the source's rank. ``gptr``, ``gind``: the contact
    graph's CSR (finite graphs); ``seen``: the BFS stamps of the hop counts, kept across
    chunks.

    Options (keyword only, checked): ``T``, ``lazy``, ``tree_graph``, ``centre_known``;
    ML's tables ``r_node``, ``alive``, ``dead``, ``r_edge``, ``move``
    (:func:`adversaries._tables.ad_tables`); LISN's ``lisn_rate`` (NaN: plug-in).

    The buffers are checked once per call (vectorised over the chunk's nodes): offsets
    that partition them, parents before children, virtual sources and nodes in range,
    contact degrees at least the infection-tree degrees.
    """
    i0 = _check.integer(i0, "i0", low=0)
    i1 = _check.integer(i1, "i1", low=i0)
    # values are checked where the kernel reads them (the buffers' tails may be unwritten);
    # the kernel's typed arguments check dtypes and contiguity
    lazy = options.get("lazy")
    if lazy is not True:
        gptr, gind = _check.csr(gptr, gind, "contact graph", indices_dtype=np.int32)
    if i1 > i0:
        ng = 2**31 - 1 if lazy is True else gptr.shape[0] - 1
        try:  # one compiled pass; the kernel's own typed arguments check dtypes
            code = _checks.chunk_status(i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, ng)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"score_chunk's buffers: {exc}") from None
        if code:
            raise InvalidParameterError(f"score_chunk's buffers {_RULES[code]}")
    return _fused.score_chunk(i0, i1, noff, n_out, b_vs, b_order, b_par, b_gdeg, gptr, gind,
                              codes, tie_u, seen, detected, pdet, hops, tree_hops, rank,
                              **options)
