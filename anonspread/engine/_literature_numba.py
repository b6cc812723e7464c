"""Compiled (numba) kernels of the source-inference literature's estimators.

Shared by the per-observation functions of :mod:`adversaries.literature` (NETSLEUTH,
LISN) and by the Monte Carlo loop of :mod:`adversaries.batch`. Graphs are CSR arrays ``(indptr,
indices)``; traversals are iterative. The sensor estimators' kernels are in
:mod:`anonspread.engine.sensors` (compiled ahead of time).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache
from anonspread.engine.scoring import _logaddexp

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = [
    "binomial_tail_tables",
    "lisn_graph",
    "lisn_regular_tree",
    "netsleuth_vector",
]

NEG_INF = -np.inf

#: NETSLEUTH diagonalises the infected sub-Laplacian densely up to this size; above it,
#: inverse iteration with conjugate gradients (O(n) memory, ~0.1 ms at n = 190 where the
#: dense solver took ~50 ms CPU), falling back to the dense solver up to ``DENSE_FALLBACK``
#: nodes if the iteration has not converged.
DENSE_MAX = 16
DENSE_FALLBACK = 3000


# ----------------------------------------------------------------- NETSLEUTH


@nb.njit(cache=True)
def _lap_matvec(indptr, indices, gdeg, x, out):
    n = x.shape[0]
    for i in range(n):
        s = gdeg[i] * x[i]
        for j in range(indptr[i], indptr[i + 1]):
            s -= x[indices[j]]
        out[i] = s


@nb.njit(cache=True)
def _cg_solve(indptr, indices, gdeg, b, x, tol, maxit):
    """Solve ``L_I x = b`` (L_I symmetric positive definite) by conjugate gradients."""
    n = b.shape[0]
    r = np.empty(n)
    ap = np.empty(n)
    _lap_matvec(indptr, indices, gdeg, x, ap)
    for i in range(n):
        r[i] = b[i] - ap[i]
    p = r.copy()
    rr = 0.0
    for i in range(n):
        rr += r[i] * r[i]
    bb = 0.0
    for i in range(n):
        bb += b[i] * b[i]
    for _ in range(maxit):
        if rr <= tol * tol * bb:
            break
        _lap_matvec(indptr, indices, gdeg, p, ap)
        pap = 0.0
        for i in range(n):
            pap += p[i] * ap[i]
        a = rr / pap
        for i in range(n):
            x[i] += a * p[i]
            r[i] -= a * ap[i]
        rr_new = 0.0
        for i in range(n):
            rr_new += r[i] * r[i]
        beta = rr_new / rr
        rr = rr_new
        for i in range(n):
            p[i] = r[i] + beta * p[i]


@nb.njit(cache=True)
def netsleuth_vector(indptr, indices, gdeg, dense_max, out):
    """Eigenvector of the smallest eigenvalue of the infected sub-Laplacian ``L_I``.

    ``L_I = D - A`` restricted to the infected nodes, ``D`` holding the degrees in the
    whole contact graph (``gdeg``), so that an infected node with uninfected contacts
    has a larger diagonal. On a connected infected set ``L_I`` is an irreducible
    M-matrix: its smallest eigenvalue is simple and its eigenvector can be taken
    positive (Perron-Frobenius on ``c I - L_I``); it is written to ``out`` with unit
    norm and positive sum. Returns the eigenvalue. Dense solver up to ``dense_max``
    nodes, inverse iteration above (see :data:`DENSE_MAX`).
    """
    n = gdeg.shape[0]
    if n > dense_max:
        lam, ok = _inverse_iteration(indptr, indices, gdeg, out)
        if ok or n > DENSE_FALLBACK:
            return lam
    L = np.zeros((n, n))
    for i in range(n):
        L[i, i] = gdeg[i]
        for j in range(indptr[i], indptr[i + 1]):
            L[i, indices[j]] -= 1.0
    w, V = np.linalg.eigh(L)
    s = 0.0
    for i in range(n):
        s += V[i, 0]
    sign = 1.0 if s >= 0.0 else -1.0
    for i in range(n):
        out[i] = sign * V[i, 0]
    return w[0]


@nb.njit(cache=True)
def _inverse_iteration(indptr, indices, gdeg, out):
    """``x <- L_I^{-1} x`` to the smallest eigenvector; returns (eigenvalue, converged).

    Converges at rate lambda_1 / lambda_2. ``L_I`` is positive definite unless the
    infected set is a whole component (then lambda_1 = 0 and the constant vector is the
    answer). Converged: the unit iterate moved by less than 1e-14 and the residual
    ``|L x - lambda x|`` is below 1e-10 (relative to the largest degree).
    """
    n = gdeg.shape[0]
    full = True
    dmax = 1.0
    for i in range(n):
        if gdeg[i] > dmax:
            dmax = gdeg[i]
        if indptr[i + 1] - indptr[i] != gdeg[i]:
            full = False
    if full:
        for i in range(n):
            out[i] = 1.0 / math.sqrt(n)
        return 0.0, True
    x = np.ones(n) / math.sqrt(n)
    y = x.copy()
    ax = np.empty(n)
    lam = 0.0
    for _ in range(2000):
        _cg_solve(indptr, indices, gdeg, x, y, 1e-14, 10 * n + 10)
        nrm = 0.0
        for i in range(n):
            nrm += y[i] * y[i]
        nrm = math.sqrt(nrm)
        diff = 0.0
        for i in range(n):
            y[i] /= nrm
            diff += (y[i] - x[i]) ** 2
            x[i] = y[i]
        if diff < 1e-28:
            break
    _lap_matvec(indptr, indices, gdeg, x, ax)
    lam = 0.0
    for i in range(n):
        lam += x[i] * ax[i]
    res = 0.0
    for i in range(n):
        res += (ax[i] - lam * x[i]) ** 2
        out[i] = x[i]
    return lam, math.sqrt(res) < 1e-10 * dmax


# ----------------------------------------------------------------- LISN


@nb.njit(cache=True)
def binomial_tail_tables(T, p, log_p, log_q):
    """``log P(Bin(T, p) >= k)`` and ``log P(Bin(T, p) < k)`` for k = 0..T+1.

    A node k hops from the source along a path is infected by step T under discrete
    random diffusion iff the k per-edge delays, i.i.d. ``Geometric(p)`` on 1, 2, ...,
    sum to at most T, i.e. iff at least k of T Bernoulli(p) trials succeed.
    """
    lp = np.empty(T + 1)
    if p <= 0.0:
        for k in range(T + 1):
            lp[k] = 0.0 if k == 0 else NEG_INF
    elif p >= 1.0:
        for k in range(T + 1):
            lp[k] = 0.0 if k == T else NEG_INF
    else:
        a, b = math.log(p), math.log1p(-p)
        for k in range(T + 1):
            lp[k] = (math.lgamma(T + 1) - math.lgamma(k + 1) - math.lgamma(T - k + 1)
                     + k * a + (T - k) * b)
    acc = NEG_INF
    log_p[T + 1] = NEG_INF
    for k in range(T, -1, -1):
        acc = _logaddexp(acc, lp[k])
        log_p[k] = min(acc, 0.0)
    acc = NEG_INF
    log_q[0] = NEG_INF
    for k in range(1, T + 2):
        acc = _logaddexp(acc, lp[k - 1])
        log_q[k] = min(acc, 0.0)


@nb.njit(cache=True)
def _term(n, inf, log_p, log_q):
    # distances beyond the tables: P(infected) = 0 (finite tables end where it vanishes)
    if n < log_p.shape[0]:
        return log_p[n] if inf else log_q[n]
    return NEG_INF if inf else 0.0


@nb.njit(cache=True)
def lisn_graph(indptr, indices, cand, loc, n_inf, log_p, log_q, cap, out):
    """LISN scores on a finite contact graph (global CSR), one BFS per candidate.

    ``cand``: global ids of the candidates (the infected nodes); ``loc[v] >= 0`` for
    infected v, -1 otherwise; ``n_inf`` their number. A candidate's BFS stops once every infected
    node is found and the depth reaches ``cap``, beyond which an uninfected node adds
    ``log P(not infected) = 0`` exactly (``cap = len(tables)``); ``cap < 0``: no stop.
    """
    nv = indptr.shape[0] - 1
    dist = np.full(nv, -1, np.int64)
    queue = np.empty(nv, np.int64)
    for c in range(cand.shape[0]):
        v = cand[c]
        dist[v] = 0
        queue[0] = v
        head, tail = 0, 1
        found = 1
        s = 0.0
        while head < tail:
            x = queue[head]
            head += 1
            if found == n_inf and cap >= 0 and dist[x] + 1 >= cap:
                break
            for j in range(indptr[x], indptr[x + 1]):
                w = indices[j]
                if dist[w] < 0:
                    dist[w] = dist[x] + 1
                    queue[tail] = w
                    tail += 1
                    inf = loc[w] >= 0
                    if inf:
                        found += 1
                    s += _term(dist[w], inf, log_p, log_q)
        # infected nodes in another component: unreachable from v
        if found < n_inf:
            s = NEG_INF
        out[c] = s
        for k in range(tail):
            dist[queue[k]] = -1


@nb.njit(cache=True)
def lisn_regular_tree(indptr, indices, d, log_p, log_q, out):
    """LISN scores on an infinite d-regular tree from the infected subtree (local CSR).

    Distances between infected nodes are read in the infected subtree (a tree's paths
    are unique); the uninfected nodes at distance k from a candidate are the
    ``d (d - 1)^(k - 1)`` nodes at that distance less the infected ones. The tables end
    where ``P(infected) = 0`` (geometric delays: beyond T hops).
    """
    n = indptr.shape[0] - 1
    K = log_p.shape[0]
    dist = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    cnt = np.zeros(K + n + 1, np.int64)
    for v in range(n):
        dist[v] = 0
        queue[0] = v
        head, tail = 0, 1
        maxd = 0
        while head < tail:
            x = queue[head]
            head += 1
            for j in range(indptr[x], indptr[x + 1]):
                w = indices[j]
                if dist[w] < 0:
                    dist[w] = dist[x] + 1
                    cnt[dist[w]] += 1
                    if dist[w] > maxd:
                        maxd = dist[w]
                    queue[tail] = w
                    tail += 1
        s = 0.0
        total = float(d)
        for k in range(1, max(K, maxd + 1)):
            ci = cnt[k]
            if ci > 0:
                s += ci * _term(k, True, log_p, log_q)
            un = total - ci
            if un > 0.0 and k < K and log_q[k] != 0.0:
                s += un * log_q[k]
            total *= d - 1
        out[v] = s
        for k in range(tail):
            dist[queue[k]] = -1
        for k in range(maxd + 1):
            cnt[k] = 0
