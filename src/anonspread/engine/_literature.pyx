"""NETSLEUTH and LISN kernels, compiled (see :mod:`anonspread.engine.literature`).

A port of the numba kernels with the same loops and floating-point order of operations
(checked bit for bit by ``benchmarks/check_rumor_port.py``). The dense eigensolver is
LAPACK's ``dsyevd`` from SciPy's ``cython_lapack`` (the routine and library numba's
``np.linalg.eigh`` calls), looked up when the module is imported.
"""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer
from libc.math cimport INFINITY, lgamma, log, log1p, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from anonspread.engine._bfs cimport bfs
from anonspread.engine._logsum cimport logaddexp

ctypedef void (*dsyevd_t)(char *jobz, char *uplo, int *n, double *a, int *lda, double *w,
                          double *work, int *lwork, int *iwork, int *liwork,
                          int *info) noexcept nogil

cdef dsyevd_t _dsyevd = NULL


def _load_lapack():
    global _dsyevd
    from scipy.linalg import cython_lapack

    capsule = cython_lapack.__pyx_capi__["dsyevd"]
    _dsyevd = <dsyevd_t> PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))


_load_lapack()

#: The pxd's sizes, for Python (:mod:`anonspread.engine.literature`).
PY_DENSE_MAX = DENSE_MAX
PY_DENSE_FALLBACK = DENSE_FALLBACK


# ----------------------------------------------------------------- NETSLEUTH


cdef void _lap_matvec(const int64_t[::1] indptr, const int32_t[::1] indices,
                      const int64_t[::1] gdeg, const double *x, double *out,
                      int64_t n) noexcept nogil:
    cdef int64_t i, j
    cdef double s
    for i in range(n):
        s = gdeg[i] * x[i]
        for j in range(indptr[i], indptr[i + 1]):
            s -= x[indices[j]]
        out[i] = s


cdef void _cg_solve(const int64_t[::1] indptr, const int32_t[::1] indices,
                    const int64_t[::1] gdeg, const double *b, double *x, double tol,
                    int64_t maxit, int64_t n, double *r, double *ap, double *p) noexcept nogil:
    """Solve ``L_I x = b`` (L_I symmetric positive definite) by conjugate gradients; ``r``,
    ``ap``, ``p`` are n-element scratch."""
    cdef int64_t i, it
    cdef double rr = 0.0, bb = 0.0, pap, a, rr_new, beta
    _lap_matvec(indptr, indices, gdeg, x, ap, n)
    for i in range(n):
        r[i] = b[i] - ap[i]
    for i in range(n):
        p[i] = r[i]
    for i in range(n):
        rr += r[i] * r[i]
    for i in range(n):
        bb += b[i] * b[i]
    for it in range(maxit):
        if rr <= tol * tol * bb:
            break
        _lap_matvec(indptr, indices, gdeg, p, ap, n)
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


cdef int _inverse_iteration(const int64_t[::1] indptr, const int32_t[::1] indices,
                            const int64_t[::1] gdeg, double[::1] out, double *lam_out,
                            bint *ok) except -1 nogil:
    """``x <- L_I^{-1} x`` to the smallest eigenvector (see the wrapper's docstring)."""
    cdef int64_t n = gdeg.shape[0], i, it
    cdef bint full = True
    cdef double dmax = 1.0, nrm, diff, lam, res, t
    cdef double *w
    for i in range(n):
        if gdeg[i] > dmax:
            dmax = <double> gdeg[i]
        if indptr[i + 1] - indptr[i] != gdeg[i]:
            full = False
    if full:
        for i in range(n):
            out[i] = 1.0 / sqrt(<double> n)
        lam_out[0] = 0.0
        ok[0] = True
        return 0
    w = <double *> malloc(6 * n * sizeof(double))
    if w == NULL:
        with gil:
            raise MemoryError("NETSLEUTH: no memory for %d nodes" % n)
    cdef double *x = w
    cdef double *y = w + n
    cdef double *ax = w + 2 * n
    for i in range(n):
        x[i] = 1.0 / sqrt(<double> n)
    for i in range(n):
        y[i] = x[i]
    for it in range(2000):
        _cg_solve(indptr, indices, gdeg, x, y, 1e-14, 10 * n + 10, n, w + 3 * n, w + 4 * n,
                  w + 5 * n)
        nrm = 0.0
        for i in range(n):
            nrm += y[i] * y[i]
        nrm = sqrt(nrm)
        diff = 0.0
        for i in range(n):
            y[i] /= nrm
            t = y[i] - x[i]
            diff += t * t
            x[i] = y[i]
        if diff < 1e-28:
            break
    _lap_matvec(indptr, indices, gdeg, x, ax, n)
    lam = 0.0
    for i in range(n):
        lam += x[i] * ax[i]
    res = 0.0
    for i in range(n):
        t = ax[i] - lam * x[i]
        res += t * t
        out[i] = x[i]
    free(w)
    lam_out[0] = lam
    ok[0] = sqrt(res) < 1e-10 * dmax
    return 0


cdef int _eigh_smallest(const int64_t[::1] indptr, const int32_t[::1] indices,
                        const int64_t[::1] gdeg, double[::1] out, double *lam) except -1 nogil:
    """Dense: ``np.linalg.eigh`` of ``L_I`` as numba runs it (``dsyevd``, lower triangle, a
    workspace query first), then the first eigenvector with a non-negative sum."""
    cdef int n = <int> gdeg.shape[0], lda = n, lwork = -1, liwork = -1, info = 0, iq = 0
    cdef int64_t i, j
    cdef double wq = 0.0, s = 0.0, sign
    cdef char jobz = b'V'
    cdef char uplo = b'L'
    cdef double *a = <double *> malloc((<size_t> n * n + n) * sizeof(double))
    cdef double *work = NULL
    cdef int *iwork = NULL
    if a == NULL:
        with gil:
            raise MemoryError("NETSLEUTH: no memory for a %d x %d matrix" % (n, n))
    cdef double *wv = a + <size_t> n * n
    memset(a, 0, <size_t> n * n * sizeof(double))
    # column-major, as numba's copy to Fortran order lays it out
    for i in range(n):
        a[i + i * n] = <double> gdeg[i]
        for j in range(indptr[i], indptr[i + 1]):
            a[i + <int64_t> indices[j] * n] -= 1.0
    _dsyevd(&jobz, &uplo, &n, a, &lda, wv, &wq, &lwork, &iq, &liwork, &info)
    if info == 0:
        lwork = <int> wq
        liwork = iq
        work = <double *> malloc(lwork * sizeof(double))
        iwork = <int *> malloc(liwork * sizeof(int))
        if work == NULL or iwork == NULL:
            free(work)
            free(iwork)
            free(a)
            with gil:
                raise MemoryError("NETSLEUTH: no memory for the eigensolver's workspace")
        _dsyevd(&jobz, &uplo, &n, a, &lda, wv, work, &lwork, iwork, &liwork, &info)
        free(work)
        free(iwork)
    if info != 0:
        free(a)
        with gil:
            raise np.linalg.LinAlgError(
                "NETSLEUTH: LAPACK dsyevd failed on the %d-node sub-Laplacian (info = %d)"
                % (n, info))
    for i in range(n):
        s += a[i]
    sign = 1.0 if s >= 0.0 else -1.0
    for i in range(n):
        out[i] = sign * a[i]
    lam[0] = wv[0]
    free(a)
    return 0


cdef double netsleuth_vector(const int64_t[::1] indptr, const int32_t[::1] indices,
                             const int64_t[::1] gdeg, int64_t dense_max,
                             double[::1] out) except? -1.0 nogil:
    """Eigenvector of the smallest eigenvalue of the infected sub-Laplacian ``L_I`` into
    ``out`` (unit norm, non-negative sum); returns the eigenvalue."""
    cdef int64_t n = gdeg.shape[0]
    cdef double lam = 0.0
    cdef bint ok = False
    if n > dense_max:
        _inverse_iteration(indptr, indices, gdeg, out, &lam, &ok)
        if ok or n > DENSE_FALLBACK:
            return lam
    _eigh_smallest(indptr, indices, gdeg, out, &lam)
    return lam


# ----------------------------------------------------------------- LISN


cdef int binomial_tail_tables(int64_t T, double p, double[::1] log_p,
                              double[::1] log_q) except -1 nogil:
    """``log P(Bin(T, p) >= k)`` and ``log P(Bin(T, p) < k)`` for k = 0..T+1."""
    cdef double *lp = <double *> malloc((T + 1) * sizeof(double))
    cdef int64_t k
    cdef double a, b, acc
    if lp == NULL:
        with gil:
            raise MemoryError("LISN: no memory for tables of %d entries" % (T + 1))
    if p <= 0.0:
        for k in range(T + 1):
            lp[k] = 0.0 if k == 0 else -INFINITY
    elif p >= 1.0:
        for k in range(T + 1):
            lp[k] = 0.0 if k == T else -INFINITY
    else:
        a = log(p)
        b = log1p(-p)
        for k in range(T + 1):
            lp[k] = (lgamma(<double> (T + 1)) - lgamma(<double> (k + 1))
                     - lgamma(<double> (T - k + 1)) + k * a + (T - k) * b)
    acc = -INFINITY
    log_p[T + 1] = -INFINITY
    for k in range(T, -1, -1):
        acc = logaddexp(acc, lp[k])
        log_p[k] = 0.0 if 0.0 < acc else acc  # min(acc, 0.0)
    acc = -INFINITY
    log_q[0] = -INFINITY
    for k in range(1, T + 2):
        acc = logaddexp(acc, lp[k - 1])
        log_q[k] = 0.0 if 0.0 < acc else acc
    free(lp)
    return 0


cdef inline double _term(int64_t n, bint inf, const double[::1] log_p,
                         const double[::1] log_q) noexcept nogil:
    # distances beyond the tables: P(infected) = 0 (finite tables end where it vanishes)
    if n < log_p.shape[0]:
        return log_p[n] if inf else log_q[n]
    return -INFINITY if inf else 0.0


cdef int lisn_graph(const int64_t[::1] indptr, const int32_t[::1] indices,
                    const int64_t[::1] cand, const int64_t[::1] loc, int64_t n_inf,
                    const double[::1] log_p, const double[::1] log_q, int64_t cap,
                    double[::1] out) except -1 nogil:
    """LISN scores on a finite contact graph (global CSR), one BFS per candidate that stops
    once every infected node is found and the depth reaches ``cap`` (``cap < 0``: no
    stop)."""
    cdef int64_t nv = indptr.shape[0] - 1, c, v, x, w, j, k, head, tail, found
    cdef double s
    cdef bint inf
    cdef int64_t *dist = <int64_t *> malloc(2 * max(nv, 1) * sizeof(int64_t))
    if dist == NULL:
        with gil:
            raise MemoryError("LISN: no memory for a graph of %d nodes" % nv)
    cdef int64_t *queue = dist + nv
    for v in range(nv):
        dist[v] = -1
    for c in range(cand.shape[0]):
        v = cand[c]
        dist[v] = 0
        queue[0] = v
        head = 0
        tail = 1
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
            s = -INFINITY
        out[c] = s
        for k in range(tail):
            dist[queue[k]] = -1
    free(dist)
    return 0


cdef int lisn_regular_tree(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t d,
                           const double[::1] log_p, const double[::1] log_q,
                           double[::1] out) except -1 nogil:
    """LISN scores on an infinite d-regular tree from the infected subtree (local CSR)."""
    cdef int64_t n = indptr.shape[0] - 1, K = log_p.shape[0], v, k, kk, maxd, ci, dw
    cdef double s, total, un
    cdef int32_t[::1] work
    cdef int64_t[::1] cnt
    with gil:
        work = np.empty(3 * max(n, 1), np.int32)
        cnt = np.zeros(K + n + 1, np.int64)
    cdef int32_t[::1] order = work[:n]
    cdef int32_t[::1] parent = work[n:2 * n]
    cdef int32_t[::1] dist = work[2 * n:3 * n]
    dist[:] = -1
    for v in range(n):
        kk = bfs(indptr, indices, v, order, parent, dist)
        maxd = 0
        for k in range(1, kk):
            dw = dist[order[k]]
            cnt[dw] += 1
            if dw > maxd:
                maxd = dw
        s = 0.0
        total = <double> d
        for k in range(1, max(K, maxd + 1)):
            ci = cnt[k]
            if ci > 0:
                s += ci * _term(k, True, log_p, log_q)
            un = total - ci
            if un > 0.0 and k < K and log_q[k] != 0.0:
                s += un * log_q[k]
            total *= d - 1
        out[v] = s
        for k in range(kk):
            dist[order[k]] = -1
        for k in range(maxd + 1):
            cnt[k] = 0
    return 0


# ----------------------------------------------------------------- Python entries


def py_netsleuth_vector(const int64_t[::1] indptr, const int32_t[::1] indices,
                        const int64_t[::1] gdeg, int64_t dense_max, double[::1] out):
    return netsleuth_vector(indptr, indices, gdeg, dense_max, out)


def py_binomial_tail_tables(int64_t T, double p, double[::1] log_p, double[::1] log_q):
    binomial_tail_tables(T, p, log_p, log_q)


def py_lisn_graph(const int64_t[::1] indptr, const int32_t[::1] indices,
                  const int64_t[::1] cand, const int64_t[::1] loc, int64_t n_inf,
                  const double[::1] log_p, const double[::1] log_q, int64_t cap,
                  double[::1] out):
    lisn_graph(indptr, indices, cand, loc, n_inf, log_p, log_q, cap, out)


def py_lisn_regular_tree(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t d,
                         const double[::1] log_p, const double[::1] log_q, double[::1] out):
    lisn_regular_tree(indptr, indices, d, log_p, log_q, out)


def py_inverse_iteration(const int64_t[::1] indptr, const int32_t[::1] indices,
                         const int64_t[::1] gdeg, double[::1] out):
    cdef double lam = 0.0
    cdef bint ok = False
    _inverse_iteration(indptr, indices, gdeg, out, &lam, &ok)
    return lam, bool(ok)


def py_cg_solve(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] gdeg,
                const double[::1] b, double[::1] x, double tol, int64_t maxit):
    cdef int64_t n = b.shape[0]
    cdef double[::1] scratch = np.empty(3 * max(n, 1))
    _cg_solve(indptr, indices, gdeg, &b[0], &x[0], tol, maxit, n, &scratch[0], &scratch[n],
              &scratch[2 * n])
