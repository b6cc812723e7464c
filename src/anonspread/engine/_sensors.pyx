"""Sensor-based source estimators, compiled (see :mod:`anonspread.engine.sensors`)."""

import numpy as np

from libc.math cimport INFINITY, M_PI, log, sqrt
from libc.stdint cimport int32_t, int64_t

ctypedef fused index_t:
    int32_t
    int64_t


def direction_mask(const int64_t[::1] indptr, const index_t[::1] indices,
                   const int64_t[::1] spies, const int64_t[::1] senders, unsigned char[::1] bad):
    """On a tree: ``bad[v] = 1`` for every v on a spy's side of the edge to its sender."""
    cdef Py_ssize_t nv = indptr.shape[0] - 1, k, top, j
    cdef int64_t s, u, x, w, stamp
    cdef int64_t[::1] seen = np.zeros(nv, np.int64)
    cdef int64_t[::1] stack = np.empty(max(nv, 1), np.int64)
    with nogil:
        for k in range(spies.shape[0]):
            s = spies[k]
            u = senders[k]
            if bad[s]:
                continue  # already excluded, and so is everything behind it
            stamp = k + 1
            seen[s] = stamp
            seen[u] = stamp
            stack[0] = s
            top = 1
            while top > 0:
                top -= 1
                x = stack[top]
                bad[x] = 1
                for j in range(indptr[x], indptr[x + 1]):
                    w = indices[j]
                    if seen[w] != stamp:
                        seen[w] = stamp
                        stack[top] = w
                        top += 1


cdef inline int64_t _tree_dist(const int64_t[::1] parent, const int64_t[::1] depth, int64_t a,
                               int64_t b) noexcept nogil:
    cdef int64_t da = depth[a], db = depth[b], h = 0
    while da > db:
        a = parent[a]
        da -= 1
        h += 1
    while db > da:
        b = parent[b]
        db -= 1
        h += 1
    while a != b:
        a = parent[a]
        b = parent[b]
        h += 2
    return h


cdef bint _cholesky(double[:, ::1] C, double[:, ::1] L, Py_ssize_t m) noexcept nogil:
    """Lower Cholesky factor of ``C[:m, :m]`` into ``L``; False if not positive definite."""
    cdef Py_ssize_t i, j, k
    cdef double acc
    for j in range(m):
        acc = C[j, j]
        for k in range(j):
            acc -= L[j, k] * L[j, k]
        if not acc > 0.0:
            return False
        L[j, j] = sqrt(acc)
        for i in range(j + 1, m):
            acc = C[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            L[i, j] = acc / L[j, j]
    return True


def pinto_loglik(const int64_t[::1] indptr, const index_t[::1] indices, const int64_t[::1] cands,
                 const int64_t[::1] obs, const double[::1] t, double mu, double sigma2,
                 double[::1] out):
    """Gaussian log-density of the observers' arrival-time differences, per candidate."""
    cdef Py_ssize_t nv = indptr.shape[0] - 1, K = obs.shape[0], m = K - 1
    cdef Py_ssize_t c, k, i, j, head, tail, found
    cdef int64_t s, x, w, a, b, e
    cdef double acc, logdet, q
    cdef bint ok = True
    cdef int64_t[::1] parent = np.full(nv, -1, np.int64)
    cdef int64_t[::1] depth = np.full(nv, -1, np.int64)
    cdef int64_t[::1] queue = np.empty(max(nv, 1), np.int64)
    cdef unsigned char[::1] is_obs = np.zeros(nv, np.uint8)
    cdef double[::1] d = np.empty(max(m, 1))
    cdef double[:, ::1] C = np.zeros((max(m, 1), max(m, 1)))
    cdef double[:, ::1] Lc = np.zeros((max(m, 1), max(m, 1)))
    cdef double[::1] r = np.empty(max(m, 1)), z = np.empty(max(m, 1))
    cdef int64_t[::1] do = np.empty(K, np.int64)
    with nogil:
        for k in range(K):
            is_obs[obs[k]] = 1
        for k in range(m):
            d[k] = t[k + 1] - t[0]
        for c in range(cands.shape[0]):
            s = cands[c]
            depth[s] = 0
            parent[s] = -1
            queue[0] = s
            head = 0
            tail = 1
            found = 1 if is_obs[s] else 0
            while head < tail and found < K:
                x = queue[head]
                head += 1
                for j in range(indptr[x], indptr[x + 1]):
                    w = indices[j]
                    if depth[w] < 0:
                        depth[w] = depth[x] + 1
                        parent[w] = x
                        queue[tail] = w
                        tail += 1
                        if is_obs[w]:
                            found += 1
            if found < K:
                out[c] = -INFINITY  # some observer unreachable from s
            elif m == 0:
                out[c] = 0.0
            else:
                for k in range(K):
                    do[k] = depth[obs[k]]
                # |P(o_0, o_k) ∩ P(o_0, o_i)| = (D(0,k) + D(0,i) - D(k,i)) / 2 on the tree
                for k in range(m):
                    for i in range(k, m):
                        a = _tree_dist(parent, depth, obs[0], obs[k + 1])
                        b = _tree_dist(parent, depth, obs[0], obs[i + 1])
                        e = _tree_dist(parent, depth, obs[k + 1], obs[i + 1])
                        C[k, i] = sigma2 * 0.5 * (a + b - e)
                        C[i, k] = C[k, i]
                    r[k] = d[k] - mu * (do[k + 1] - do[0])
                if not _cholesky(C, Lc, m):
                    ok = False
                    break
                logdet = 0.0
                for k in range(m):  # solve Lc z = r
                    acc = r[k]
                    for i in range(k):
                        acc -= Lc[k, i] * z[i]
                    z[k] = acc / Lc[k, k]
                    logdet += 2.0 * log(Lc[k, k])
                q = 0.0
                for k in range(m):
                    q += z[k] * z[k]
                out[c] = -0.5 * q - 0.5 * logdet - 0.5 * m * log(2.0 * M_PI)
            for k in range(tail):
                depth[queue[k]] = -1
                parent[queue[k]] = -1
    if not ok:
        raise np.linalg.LinAlgError("Matrix is not positive definite")


def eif_costs(const int64_t[::1] indptr, const index_t[::1] indices, const int64_t[::1] cands,
              const int64_t[::1] alpha, const double[::1] t_alpha,
              const unsigned char[::1] blocked, double mu, double[::1] out):
    """Cost of the greedy earliest-infection-first spreading tree rooted at each candidate."""
    cdef Py_ssize_t nv = indptr.shape[0] - 1, c, k, head, tail, j, nt
    cdef int64_t[::1] in_tree = np.full(nv, -1, np.int64)  # insertion rank of tree nodes
    cdef double[::1] ts = np.zeros(nv)
    cdef int64_t[::1] seen = np.zeros(nv, np.int64)
    cdef int64_t[::1] dist = np.zeros(nv, np.int64)
    cdef int64_t[::1] par = np.full(nv, -1, np.int64)
    cdef int64_t[::1] queue = np.empty(max(nv, 1), np.int64)
    cdef int64_t[::1] members = np.empty(max(nv, 1), np.int64)
    cdef int64_t[::1] is_alpha = np.full(nv, -1, np.int64)
    cdef int64_t stamp = 0, r, a, x, w, best_m, best_rank, best_via, best_len, L
    cdef double cost, ta, best, cst, step, y
    with nogil:
        for k in range(alpha.shape[0]):
            is_alpha[alpha[k]] = k
        for c in range(cands.shape[0]):
            r = cands[c]
            nt = 0
            in_tree[r] = nt
            members[nt] = r
            nt += 1
            ts[r] = t_alpha[is_alpha[r]] if is_alpha[r] >= 0 else t_alpha[0] - mu
            cost = 0.0
            for k in range(alpha.shape[0]):
                a = alpha[k]
                if a == r:
                    continue
                ta = t_alpha[k]
                stamp += 1
                seen[a] = stamp
                dist[a] = 0
                par[a] = -1
                queue[0] = a
                head = 0
                tail = 1
                best = INFINITY
                best_m = -1
                best_rank = nt
                best_via = -1
                best_len = 0
                while head < tail:
                    x = queue[head]
                    head += 1
                    for j in range(indptr[x], indptr[x + 1]):
                        w = indices[j]
                        if seen[w] == stamp:
                            continue
                        seen[w] = stamp
                        if in_tree[w] >= 0:
                            L = dist[x] + 1
                            y = (ta - ts[w]) / L - mu
                            cst = L * (y * y)
                            if cst < best or (cst == best and in_tree[w] < best_rank):
                                best = cst
                                best_m = w
                                best_rank = in_tree[w]
                                best_via = x
                                best_len = L
                        elif not blocked[w]:
                            dist[w] = dist[x] + 1
                            par[w] = x
                            queue[tail] = w
                            tail += 1
                if best_m < 0:
                    cost = INFINITY  # a cannot be reached: r cannot explain the timestamps
                    break
                cost += best
                # the path m -> best_via -> ... -> a: interior times evenly spaced
                step = (ta - ts[best_m]) / best_len
                x = best_via
                while x != -1:
                    if in_tree[x] < 0:
                        in_tree[x] = nt
                        members[nt] = x
                        nt += 1
                    ts[x] = ta - dist[x] * step
                    x = par[x]
            out[c] = cost
            for k in range(nt):
                in_tree[members[k]] = -1
