"""Kernels of the source-inference literature's estimators: NETSLEUTH and LISN.

Compiled ahead of time (:mod:`._literature`, declarations in ``_literature.pxd`` for other
kernels). Shared by the per-observation functions of :mod:`adversaries.literature` and
the Monte Carlo loop of :mod:`adversaries.batch`. Graphs are CSR arrays ``(indptr,
indices)`` (int64 / int32; other integer dtypes are converted); outputs are written into
the arrays passed in. The sensor estimators' kernels are in :mod:`anonspread.engine.sensors`.
"""

from __future__ import annotations

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _literature
from anonspread.errors import InvalidParameterError

__all__ = [
    "DENSE_FALLBACK",
    "DENSE_MAX",
    "binomial_tail_tables",
    "lisn_graph",
    "lisn_regular_tree",
    "netsleuth_vector",
]

#: NETSLEUTH diagonalises the infected sub-Laplacian densely up to this size; above it,
#: inverse iteration with conjugate gradients (O(n) memory, ~0.1 ms at n = 190 where the
#: dense solver took ~50 ms CPU), falling back to the dense solver up to ``DENSE_FALLBACK``
#: nodes if the iteration has not converged (the values of ``_literature.pxd``).
DENSE_MAX: int = _literature.PY_DENSE_MAX
DENSE_FALLBACK: int = _literature.PY_DENSE_FALLBACK


def _csr(indptr, indices) -> tuple[np.ndarray, np.ndarray]:
    return _check.csr(indptr, indices, indices_dtype=np.int32)


def netsleuth_vector(indptr, indices, gdeg, dense_max: int, out: np.ndarray) -> float:
    """Eigenvector of the smallest eigenvalue of the infected sub-Laplacian ``L_I``.

    ``L_I = D - A`` restricted to the infected nodes, ``D`` holding the degrees in the
    whole contact graph (``gdeg``), so that an infected node with uninfected contacts
    has a larger diagonal (Prakash, Vreeken & Faloutsos 2012, Section 4). On a connected
    infected set ``L_I`` is an irreducible M-matrix: its smallest eigenvalue is simple and
    its eigenvector can be taken positive; it is written to ``out`` with unit norm and
    non-negative sum. Returns the eigenvalue. Dense solver (LAPACK ``dsyevd``) up to
    ``dense_max`` nodes, inverse iteration with conjugate gradients above (converged: the
    unit iterate moved by less than 1e-14 and the residual is below 1e-10 relative to the
    largest degree; otherwise the dense solver up to :data:`DENSE_FALLBACK` nodes).
    """
    indptr, indices = _check.connected(indptr, indices)
    n = indptr.shape[0] - 1
    gdeg = _check.index_array(gdeg, 2**62, "gdeg", min_len=n)
    if (gdeg[:n] < np.diff(indptr)).any():
        raise InvalidParameterError("gdeg must be at least each node's degree in the infected "
                                    "subgraph (its degree in the contact graph)")
    return _literature.py_netsleuth_vector(indptr, indices, gdeg,
                                           _check.integer(dense_max, "dense_max"),
                                           _check.out(out, np.float64, "out", min_len=n))


def binomial_tail_tables(T: int, p: float, log_p: np.ndarray, log_q: np.ndarray) -> None:
    """``log P(Bin(T, p) >= k)`` and ``log P(Bin(T, p) < k)`` for k = 0..T+1.

    A node k hops from the source along a path is infected by step T under discrete
    random diffusion iff the k per-edge delays, i.i.d. ``Geometric(p)`` on 1, 2, ...,
    sum to at most T, i.e. iff at least k of T Bernoulli(p) trials succeed. ``log_p`` and
    ``log_q`` have length at least ``T + 2``.
    """
    T = _check.integer(T, "T", low=0)
    log_p = _check.out(log_p, np.float64, "log_p", min_len=T + 2)
    log_q = _check.out(log_q, np.float64, "log_q", min_len=T + 2)
    _literature.py_binomial_tail_tables(T, float(p), log_p, log_q)


def lisn_graph(indptr, indices, cand, loc, n_inf: int, log_p, log_q, cap: int,
               out: np.ndarray) -> None:
    """LISN scores on a finite contact graph (global CSR), one BFS per candidate.

    ``cand``: global ids of the candidates (the infected nodes); ``loc[v] >= 0`` for
    infected v, -1 otherwise; ``n_inf`` their number. A candidate's BFS stops once every
    infected node is found and the depth reaches ``cap``, beyond which an uninfected node
    adds ``log P(not infected) = 0`` exactly (``cap = len(tables)``); ``cap < 0``: no stop.
    A candidate that cannot reach every infected node scores ``-inf``.
    """
    indptr, indices = _csr(indptr, indices)
    n = indptr.shape[0] - 1
    cand = _check.index_array(cand, n, "cand")
    n_inf = _check.integer(n_inf, "n_inf", low=0, high=n)
    loc = _check.index_array(loc, n_inf, "loc", low=-1, min_len=n)
    log_p = _check.floats(log_p, "log_p", min_len=1)
    log_q = _check.floats(log_q, "log_q", min_len=log_p.shape[0])
    cap = _check.integer(cap, "cap", high=log_p.shape[0])
    _literature.py_lisn_graph(indptr, indices, cand, loc, n_inf, log_p, log_q, cap,
                              _check.out(out, np.float64, "out", min_len=cand.shape[0]))


def lisn_regular_tree(indptr, indices, d: int, log_p, log_q, out: np.ndarray) -> None:
    """LISN scores on an infinite d-regular tree from the infected subtree (local CSR).

    Distances between infected nodes are read in the infected subtree (a tree's paths are
    unique); the uninfected nodes at distance k from a candidate are the
    ``d (d - 1)^(k - 1)`` nodes at that distance less the infected ones. The tables end
    where ``P(infected) = 0`` (geometric delays: beyond T hops).
    """
    indptr, indices = _check.tree(indptr, indices)
    n = indptr.shape[0] - 1
    d = _check.integer(d, "d", low=max(1, int(np.diff(indptr).max())))
    log_p = _check.floats(log_p, "log_p", min_len=1)
    log_q = _check.floats(log_q, "log_q", min_len=log_p.shape[0])
    _literature.py_lisn_regular_tree(indptr, indices, d, log_p, log_q,
                                     _check.out(out, np.float64, "out", min_len=n))
