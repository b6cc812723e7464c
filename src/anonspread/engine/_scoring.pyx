"""Source-estimator kernels (see :mod:`anonspread.engine.scoring`, the Python wrappers).

Every kernel works on the infected nodes renumbered ``0..n-1`` with a CSR adjacency
(int64 ``indptr``, int32 ``indices``): the infected subgraph or the infection tree, and,
where needed, ``gdeg[i]``, the degree of local node i in the contact graph. The same
``cdef`` functions serve the per-snapshot functions of :mod:`adversaries.estimators` and
the fused Monte Carlo loop (``_fused.pyx``). All traversals are iterative (explicit
queues), so a path of 10^6 nodes needs no recursion.
"""

import numpy as np

from libc.math cimport INFINITY, fabs, log
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from anonspread.engine._bfs cimport bfs
from anonspread.engine._logsum cimport logaddexp

TIE_RTOL_PY = TIE_RTOL
BIG_PY = BIG


# The per-node loops that gain from wide vectors (the known-centre ML path, the summary,
# Takes & Kosters' bound updates and minimum), in C so that GCC can compile them twice, for
# AVX2 and for the baseline x86-64, and pick one when the module loads (target_clones):
# numba compiled for the host CPU, and without AVX2 the fused ML loop was 25% and the Jordan
# top+rank of a 10^4-node snapshot 12% slower than numba (benchmarks/README.md). No FMA:
# the same floating-point operations, bit for bit, on either path.
cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define ANONSPREAD_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define ANONSPREAD_CLONES
    #endif

    ANONSPREAD_CLONES
    static void anonspread_summary(const double *x, int64_t n, int64_t s, double rtol,
                                   uint8_t *tp, int64_t *res) {
        int64_t k, greater = 0, tied = 0, ntop = 0;
        double best = x[0], thr, s0 = x[s], tol, hi, v, a;
        int t, above;
        for (k = 0; k < n; k++) {
            v = x[k];
            best = v > best ? v : best;
        }
        a = fabs(best);
        thr = best == -INFINITY ? -INFINITY : best - rtol * (a > 1.0 ? a : 1.0);
        if (s0 == -INFINITY) {
            for (k = 0; k < n; k++) {
                t = x[k] >= thr;
                tp[k] = (uint8_t) t;
                ntop += t;
                tied += x[k] == -INFINITY;
            }
            greater = n - tied;
        } else {
            a = fabs(s0);
            tol = rtol * (a > 1.0 ? a : 1.0);
            hi = s0 + tol;
            for (k = 0; k < n; k++) {
                v = x[k];
                t = v >= thr;
                tp[k] = (uint8_t) t;
                ntop += t;
                above = v > hi;
                greater += above;
                tied += (!above) & (fabs(v - s0) <= tol);
            }
        }
        res[0] = greater;
        res[1] = tied;
        res[2] = ntop;
    }

    ANONSPREAD_CLONES
    static void anonspread_tk_bounds(const int32_t *dist, int64_t n, int64_t e, int64_t *lo,
                                     int64_t *hi) {
        int64_t k, d, a;
        for (k = 0; k < n; k++) {
            d = dist[k];
            a = d > e - d ? d : e - d;
            lo[k] = a > lo[k] ? a : lo[k];
            hi[k] = e + d < hi[k] ? e + d : hi[k];
        }
    }

    ANONSPREAD_CLONES
    static int64_t anonspread_min64(const int64_t *x, int64_t n, int64_t m) {
        int64_t k;
        for (k = 0; k < n; k++)
            m = x[k] < m ? x[k] : m;
        return m;
    }

    ANONSPREAD_CLONES
    static void anonspread_jordan_final(const int64_t *lo, const int64_t *hi, int64_t n,
                                        int64_t t, int64_t big, uint8_t *top, int64_t *res) {
        int64_t k, emin = big, less = 0, tied = 0, l;
        for (k = 0; k < n; k++) {
            l = lo[k];
            emin = (l == hi[k] && l < emin) ? l : emin;
        }
        for (k = 0; k < n; k++) {
            l = lo[k];
            top[k] = (uint8_t) (l == hi[k] && l == emin);
            less += hi[k] < t;
            tied += (hi[k] >= t) & (l == t) & (hi[k] == t);
        }
        res[0] = emin;
        res[1] = less;
        res[2] = tied;
    }

    /* The reference bound of the Jordan certification (issue 32): d is an n x 64 byte
       matrix, d[w * 64 + b] = d(ref b, w); src[y] = 1 iff y has been a BFS source. */
    ANONSPREAD_CLONES
    static void anonspread_ref_far(const uint8_t *d, const uint8_t *src, int64_t n,
                                   int32_t *far) {
        int64_t k, b;
        uint8_t acc[64];
        for (b = 0; b < 64; b++)
            acc[b] = 0;
        for (k = 0; k < n; k++) {
            if (src[k])
                continue;
            for (b = 0; b < 64; b++)
                acc[b] = d[k * 64 + b] > acc[b] ? d[k * 64 + b] : acc[b];
        }
        for (b = 0; b < 64; b++)
            far[b] = acc[b];
    }

    ANONSPREAD_CLONES
    static void anonspread_ref_bound(const uint8_t *d, const int32_t *far, int64_t n,
                                     const int64_t *lo, int64_t *hi) {
        int64_t k, b, u, x;
        for (k = 0; k < n; k++) {
            u = 1 << 30;
            for (b = 0; b < 64; b++) {
                x = (int64_t) d[k * 64 + b] + far[b];
                u = x < u ? x : u;
            }
            u = lo[k] > u ? lo[k] : u;
            hi[k] = u < hi[k] ? u : hi[k];
        }
    }

    /* For every reference b: rem[b] = the non-sources y at d(b, y) = far[b]; gain[b] = the
       open nodes (op[w] = 1) a bound with far[b] - 1 in place of far[b] would place. */
    ANONSPREAD_CLONES
    static void anonspread_ref_gain(const uint8_t *d, const int32_t *far, const uint8_t *src,
                                    const uint8_t *op, int64_t n, const int64_t *lo,
                                    const int64_t *hi, int64_t tl, int64_t t, int64_t ehi,
                                    int64_t *rem, int64_t *gain) {
        int64_t k, b, u, l, h;
        int32_t c[64], g[64];
        for (b = 0; b < 64; b++) {
            c[b] = 0;
            g[b] = 0;
        }
        for (k = 0; k < n; k++) {
            if (!src[k])
                for (b = 0; b < 64; b++)
                    c[b] += d[k * 64 + b] == far[b];
            if (op[k]) {
                l = lo[k];
                h = hi[k];
                for (b = 0; b < 64; b++) {
                    u = (int64_t) d[k * 64 + b] + far[b] - 1;
                    u = l > u ? l : u;
                    g[b] += u < h && (u == l || ((u < tl || l > t) && l > ehi));
                }
            }
        }
        for (b = 0; b < 64; b++) {
            rem[b] = c[b];
            gain[b] = g[b];
        }
    }

    /* The open nodes (op[w] = 1) that the bound with far2 in place of far would place. */
    ANONSPREAD_CLONES
    static int64_t anonspread_ref_count(const uint8_t *d, const int32_t *far2,
                                        const uint8_t *op, int64_t n, const int64_t *lo,
                                        const int64_t *hi, int64_t tl, int64_t t,
                                        int64_t ehi) {
        int64_t k, b, u, x, l, g = 0;
        for (k = 0; k < n; k++) {
            if (!op[k])
                continue;
            u = 1 << 30;
            for (b = 0; b < 64; b++) {
                x = (int64_t) d[k * 64 + b] + far2[b];
                u = x < u ? x : u;
            }
            l = lo[k];
            u = l > u ? l : u;
            g += u < hi[k] && (u == l || ((u < tl || l > t) && l > ehi));
        }
        return g;
    }

    ANONSPREAD_CLONES
    static void anonspread_ref_attain(const uint8_t *d, const int32_t *far, const uint8_t *src,
                                      int64_t n, uint8_t *att) {
        int64_t k, b;
        int c;
        uint8_t f[64];
        for (b = 0; b < 64; b++)
            f[b] = (uint8_t) far[b];
        for (k = 0; k < n; k++) {
            c = 0;
            for (b = 0; b < 64; b++)
                c += d[k * 64 + b] == f[b];
            att[k] = src[k] ? 0 : (uint8_t) c;
        }
    }

    ANONSPREAD_CLONES
    static void anonspread_ml_ball(const int64_t *par, const int64_t *gdeg, int64_t n,
                                   int64_t c, const double *logB, int64_t nb,
                                   const double *logk, double *out, double *acc,
                                   int64_t *dist) {
        int64_t k, x, p, d;
        for (k = 0; k < n; k++)
            dist[k] = -1;
        dist[c] = 0;
        acc[c] = 0.0;
        x = c;
        while (par[x] >= 0) {
            p = par[x];
            dist[p] = dist[x] + 1;
            acc[p] = x == c ? 0.0 : acc[x] - logk[gdeg[x] - 1];
            x = p;
        }
        for (k = 0; k < n; k++) {
            p = par[k];
            if (dist[k] < 0) {
                dist[k] = dist[p] + 1;
                acc[k] = p == c ? 0.0 : acc[p] - logk[gdeg[p] - 1];
            }
            d = dist[k];
            if (k != c && d < nb && logB[d] > -INFINITY)
                out[k] = acc[k] - logk[gdeg[k]] + logB[d];
            else
                out[k] = -INFINITY;
        }
    }
    """
    void anonspread_summary(const double *x, int64_t n, int64_t s, double rtol, uint8_t *tp,
                            int64_t *res) noexcept nogil
    void anonspread_tk_bounds(const int32_t *dist, int64_t n, int64_t e, int64_t *lo,
                              int64_t *hi) noexcept nogil
    int64_t anonspread_min64(const int64_t *x, int64_t n, int64_t m) noexcept nogil
    void anonspread_jordan_final(const int64_t *lo, const int64_t *hi, int64_t n, int64_t t,
                                 int64_t big, uint8_t *top, int64_t *res) noexcept nogil
    void anonspread_ref_far(const uint8_t *d, const uint8_t *src, int64_t n,
                            int32_t *far) noexcept nogil
    void anonspread_ref_bound(const uint8_t *d, const int32_t *far, int64_t n, const int64_t *lo,
                              int64_t *hi) noexcept nogil
    void anonspread_ref_gain(const uint8_t *d, const int32_t *far, const uint8_t *src,
                             const uint8_t *op, int64_t n, const int64_t *lo, const int64_t *hi,
                             int64_t tl, int64_t t, int64_t ehi, int64_t *rem,
                             int64_t *gain) noexcept nogil
    int64_t anonspread_ref_count(const uint8_t *d, const int32_t *far2, const uint8_t *op,
                                 int64_t n, const int64_t *lo, const int64_t *hi, int64_t tl,
                                 int64_t t, int64_t ehi) noexcept nogil
    void anonspread_ref_attain(const uint8_t *d, const int32_t *far, const uint8_t *src,
                               int64_t n, uint8_t *att) noexcept nogil
    int __builtin_ctzll(unsigned long long x) noexcept nogil
    void anonspread_ml_ball(const int64_t *par, const int64_t *gdeg, int64_t n, int64_t c,
                            const double *logB, int64_t nb, const double *logk, double *out,
                            double *acc, int64_t *dist) noexcept nogil


# ----------------------------------------------------------------- trees


cdef void tree_passes(const int64_t[::1] indptr, const int32_t[::1] indices,
                      const int32_t[::1] order, int64_t n, const int32_t[::1] parent,
                      const uint8_t[::1] mark, int64_t[::1] down, int64_t[::1] up,
                      int64_t[::1] bdown, int64_t[::1] bup) noexcept nogil:
    """The two passes of tree message passing (leaves -> root, root -> leaves).

    For a tree rooted at ``order[0]`` (``order[:n]``, ``parent`` from ``bfs``):
    ``down[v]`` is the height of v's subtree, ``up[v]`` the largest distance from v to a
    node outside its subtree (-1 for the root), ``bdown[v]``/``bup[v]`` the smallest
    distance from v to a marked node inside/outside its subtree (``BIG`` if none). Then
    ``ecc(v) = max(down[v], up[v])``.
    """
    cdef int64_t k, j, h, b, h1, h2, b1, b2, hc, bc, base_h, base_b, other_h, oh, other_b, ob
    cdef int32_t v, c, p, c1, cb
    for k in range(n - 1, -1, -1):
        v = order[k]
        h = 0
        b = 0 if mark[v] else BIG
        for j in range(indptr[v], indptr[v + 1]):
            c = indices[j]
            if c == parent[v]:
                continue
            if down[c] + 1 > h:
                h = down[c] + 1
            if bdown[c] + 1 < b:
                b = bdown[c] + 1
        down[v] = h
        bdown[v] = b
    up[order[0]] = -1
    bup[order[0]] = BIG
    for k in range(n):
        p = order[k]
        # the two best children (heights) and the two nearest marked children
        h1 = -1
        h2 = -1
        c1 = -1
        b1 = BIG
        b2 = BIG
        cb = -1
        for j in range(indptr[p], indptr[p + 1]):
            c = indices[j]
            if c == parent[p]:
                continue
            hc = down[c] + 1
            if hc > h1:
                h2 = h1
                h1 = hc
                c1 = c
            elif hc > h2:
                h2 = hc
            bc = bdown[c] + 1
            if bc < b1:
                b2 = b1
                b1 = bc
                cb = c
            elif bc < b2:
                b2 = bc
        base_h = 0 if up[p] < 0 else up[p]
        base_b = 0 if mark[p] else BIG
        if bup[p] < base_b:
            base_b = bup[p]
        for j in range(indptr[p], indptr[p + 1]):
            c = indices[j]
            if c == parent[p]:
                continue
            other_h = h2 if c == c1 else h1
            oh = base_h if base_h > other_h else other_h
            up[c] = oh + 1
            other_b = b2 if c == cb else b1
            ob = base_b if base_b < other_b else other_b
            bup[c] = ob + 1 if ob < BIG else BIG


cdef void tree_eccentricity_ws(const int64_t[::1] indptr, const int32_t[::1] indices,
                               int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist,
                               uint8_t[::1] mark, int64_t[::1] down, int64_t[::1] up,
                               int64_t[::1] bdown, int64_t[::1] bup,
                               int64_t[::1] out) noexcept nogil:
    """Eccentricity of every node of a tree by :func:`tree_passes` (O(n)), with the
    caller's scratch arrays (n entries at least each)."""
    cdef int64_t n = indptr.shape[0] - 1, v
    for v in range(n):
        dist[v] = -1
        mark[v] = 0
    bfs(indptr, indices, 0, order, parent, dist)
    tree_passes(indptr, indices, order, n, parent, mark, down, up, bdown, bup)
    for v in range(n):
        out[v] = down[v] if down[v] > up[v] else up[v]


cdef int tree_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                           int64_t[::1] out) except -1 nogil:
    """Eccentricity of every node of a tree by :func:`tree_passes` (O(n))."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int32_t[::1] w32
    cdef int64_t[::1] w64
    cdef uint8_t[::1] mark
    with gil:
        w32 = np.empty(3 * n, np.int32)
        w64 = np.empty(4 * n, np.int64)
        mark = np.empty(n, np.uint8)
    tree_eccentricity_ws(indptr, indices, w32[:n], w32[n:2 * n], w32[2 * n:], mark, w64[:n],
                         w64[n:2 * n], w64[2 * n:3 * n], w64[3 * n:], out)
    return 0


# ----------------------------------------------------------------- summaries


cdef Summary score_summary(const double[::1] sc, int64_t s, double rtol,
                           uint8_t[::1] top) noexcept nogil:
    """Maximisers and the rank data of node ``s`` from every node's score.

    The rules of :func:`adversaries.scores.top_set` and :func:`adversaries.metrics.source_rank`:
    ``top[v]`` is 1 iff ``sc[v]`` is within ``rtol`` (relative) of the maximum (every node if
    all are ``-inf``); returns the numbers of nodes above s and tied with s (s included).
    """
    cdef int64_t res[3]
    cdef Summary r
    anonspread_summary(&sc[0], sc.shape[0], s, rtol, &top[0], res)
    r.greater = res[0]
    r.tied = res[1]
    r.ntop = res[2]
    return r


# ----------------------------------------------------------------- eccentricities on graphs


cdef int graph_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                            int64_t[::1] out) except -1 nogil:
    """Eccentricity of every node of a connected graph, by eccentricity bounding.

    Takes & Kosters' bounding (the algorithm behind networkx's ``usebounds=True``): a BFS
    from u gives, for every w, ``max(d(u,w), ecc(u) - d(u,w)) <= ecc(w) <= ecc(u) +
    d(u,w)``; BFS sources alternate between the unresolved node with the largest upper and
    the smallest lower bound until every bound is tight, or until the last 8 BFS settled
    fewer nodes than a bit-parallel pass would per BFS, when
    :func:`bitparallel_eccentricity` finishes (64 sources per pass).
    """
    cdef int64_t n = indptr.shape[0] - 1
    cdef int32_t[::1] order, parent, dist
    cdef int64_t[::1] lo, hi, deg, trace0
    cdef uint8_t[::1] todo
    cdef int64_t gains[8]
    cdef int64_t window = 8, left = n, nbfs = 0, emax = 0, before, u, v, k, i, d, a, e, gsum
    cdef bint high = True
    with gil:
        order = np.empty(n, np.int32)
        parent = np.empty(n, np.int32)
        dist = np.full(n, -1, np.int32)
        lo = np.zeros(n, np.int64)
        hi = np.full(n, BIG, np.int64)
        todo = np.ones(n, np.uint8)
        deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = indptr[v + 1] - indptr[v]
    for i in range(window):
        gains[i] = 0
    while left > 0:
        gsum = 0
        for i in range(window):
            gsum += gains[i]
        if nbfs >= window and gsum * (emax + 1) < 64 * window:
            # bounding stalls: the rest by bit-parallel BFS, 64 sources per pass
            with gil:
                trace0 = np.zeros(0, np.int64)
            _place_passes(indptr, indices, &lo[0], &hi[0], 0, 0, True, emax, -1, trace0, order,
                          dist, True, &nbfs)
            for v in range(n):
                if todo[v]:
                    out[v] = lo[v]
            return 0
        before = left
        u = -1
        for v in range(n):
            if not todo[v]:
                continue
            if u < 0:
                u = v
            elif high:
                if hi[v] > hi[u] or (hi[v] == hi[u] and deg[v] > deg[u]):
                    u = v
            elif lo[v] < lo[u] or (lo[v] == lo[u] and deg[v] > deg[u]):
                u = v
        high = not high
        k = bfs(indptr, indices, u, order, parent, dist)
        e = dist[order[k - 1]]
        for v in range(n):
            if not todo[v]:
                continue
            d = dist[v]
            a = d if d > e - d else e - d
            if a > lo[v]:
                lo[v] = a
            if e + d < hi[v]:
                hi[v] = e + d
            if lo[v] == hi[v]:
                todo[v] = 0
                out[v] = lo[v]
                left -= 1
        for i in range(k):
            dist[order[i]] = -1
        nbfs += 1
        if e > emax:
            emax = e
        gains[nbfs % window] = before - left
    return 0


cdef inline int64_t _unreached(int32_t *rest, int64_t nrest, int32_t[::1] dist,
                               int64_t n) noexcept nogil:
    """The nodes not reached yet (``dist < 0``), kept in ``rest[:k]`` (k returned): all
    ``n`` nodes scanned the first time (``nrest < 0``), then the previous list filtered."""
    cdef int64_t keep = 0, i, x
    if nrest < 0:
        for x in range(n):
            if dist[x] < 0:
                rest[keep] = <int32_t> x
                keep += 1
    else:
        for i in range(nrest):
            if dist[rest[i]] < 0:
                rest[keep] = rest[i]
                keep += 1
    return keep


cdef inline int64_t _tk_sweep(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t u,
                              int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist,
                              int64_t[::1] lo, int64_t[::1] hi, int64_t *far,
                              int32_t *rest=NULL) noexcept nogil:
    """One BFS from u and Takes & Kosters' bounds for every node; returns ``ecc(u)`` and
    sets ``far`` to the node of smallest index at distance ``ecc(u)`` from u.
    ``dist`` holds -1 on entry (restored). With ``rest`` (n + 1 int32 of scratch) the BFS is
    direction-optimising (:func:`_offset_bfs` from u alone: bottom-up levels stop at a
    node's first neighbour in the frontier), else top-down (:func:`bfs`); the distances
    are the same, and ``far`` does not depend on the order within a level, so both give
    the same bounds and the same next source."""
    cdef int64_t n = indptr.shape[0] - 1, i, e, k, w
    cdef int64_t src0[1]
    cdef int64_t off0[1]
    if rest != NULL:
        src0[0] = u
        off0[0] = 0
        k = _offset_bfs(indptr, indices, src0, off0, 1, order, dist, rest)
    else:
        k = bfs(indptr, indices, u, order, parent, dist)
    # the levels are contiguous in ``order``: the last one is its tail
    e = dist[order[k - 1]]
    w = order[k - 1]
    i = k - 1
    while i >= 0 and dist[order[i]] == e:
        if order[i] < w:
            w = order[i]
        i -= 1
    far[0] = w
    anonspread_tk_bounds(&dist[0], n, e, &lo[0], &hi[0])
    for i in range(k):
        dist[order[i]] = -1
    return e


cdef void _bp_pass(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t *srcs,
                   int64_t cnt, uint64_t *seen, uint64_t *cur, uint64_t *nxt, int64_t *active,
                   int64_t *touched, int64_t *lo, int64_t *ecc,
                   uint8_t *dmat=NULL, int64_t *rest=NULL) noexcept nogil:
    """Bit-parallel BFS from ``srcs[:cnt]`` (cnt <= 64): ``ecc[b]`` = eccentricity of source b.

    Bit b of ``seen[v]`` says source b has reached v; one sweep per level pushes only the
    frontier's new bits to the neighbours, so 64 BFS cost about (levels at which a node
    receives new bits) x edges word operations instead of 64 x edges. Source b's
    eccentricity is the last level at which its bit was new anywhere. As a by-product
    ``lo[w]`` is raised to the last level at which w received a new bit, ``max_b d(b, w)``,
    a lower bound on ``ecc(w)``. ``seen``, ``cur``, ``nxt`` must be zero on entry (restored).
    With ``dmat`` (n x 64 bytes), ``dmat[w * 64 + b]`` receives ``min(d(b, w), 255)``.

    With ``rest`` (n int64 of scratch) a level is found bottom-up when the rows of the
    nodes some source has not reached hold fewer than 8 times the frontier's entries
    (issue 32; Then et al.'s multi-source BFS, direction-optimising as in Beamer, Asanovic
    and Patterson): each such node ORs its neighbours' frontier bits, stopping once every
    source has reached it. A node's new bits at a level are the same either way (the
    sources' bits on its neighbours one level up), so every output is the same. (Factor
    8: on the 2.35x10^6-node snapshot of benchmarks/README.md, 64 hubs, 64 random and 64
    lowest-degree sources took 1.2, 1.2, 0.8 s CPU at factor 1, 0.47, 0.65, 0.66 at 4,
    0.38, 0.59, 0.58 at 8, about the same at 16; top-down 2.5-3.1 s.)
    """
    cdef int64_t n = indptr.shape[0] - 1, na = 0, nt, level = 0, b, i, j, v, nrest = -1, keep
    cdef int64_t fa = 0, ua = indptr[n]
    cdef int32_t w
    cdef uint64_t bit, f, add, newbits, acc, sw
    cdef uint64_t full = ~(<uint64_t> 0) if cnt >= 64 else ((<uint64_t> 1) << cnt) - 1
    for b in range(cnt):
        v = srcs[b]
        if seen[v] == 0:
            active[na] = v
            na += 1
            fa += indptr[v + 1] - indptr[v]
        bit = (<uint64_t> 1) << b
        seen[v] |= bit
        cur[v] |= bit
        ecc[b] = 0
        if dmat != NULL:
            dmat[v * 64 + b] = 0
    for i in range(na):
        if seen[active[i]] == full:
            ua -= indptr[active[i] + 1] - indptr[active[i]]
    while na > 0:
        level += 1
        nt = 0
        if rest != NULL and ua < 8 * fa:
            # bottom-up: the rows of the nodes not reached by every source
            keep = 0
            if nrest < 0:
                for v in range(n):
                    if seen[v] != full:
                        rest[keep] = v
                        keep += 1
            else:
                for i in range(nrest):
                    if seen[rest[i]] != full:
                        rest[keep] = rest[i]
                        keep += 1
            nrest = keep
            for i in range(nrest):
                v = rest[i]
                sw = seen[v]
                acc = 0
                for j in range(indptr[v], indptr[v + 1]):
                    acc |= cur[indices[j]]
                    if (acc | sw) == full:
                        break
                add = acc & ~sw
                if add != 0:
                    touched[nt] = v
                    nt += 1
                    nxt[v] = add
            for i in range(na):
                cur[active[i]] = 0
        else:
            for i in range(na):
                v = active[i]
                f = cur[v]
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    add = f & ~seen[w]
                    if add != 0:
                        if nxt[w] == 0:
                            touched[nt] = w
                            nt += 1
                        nxt[w] |= add
                cur[v] = 0
        newbits = 0
        fa = 0
        for i in range(nt):
            w = <int32_t> touched[i]
            f = nxt[w]
            nxt[w] = 0
            seen[w] |= f
            cur[w] = f
            newbits |= f
            active[i] = w
            fa += indptr[w + 1] - indptr[w]
            if seen[w] == full:
                ua -= indptr[w + 1] - indptr[w]
            if level > lo[w]:
                lo[w] = level
            if dmat != NULL:
                while f != 0:
                    dmat[w * 64 + __builtin_ctzll(f)] = <uint8_t> min(level, 255)
                    f &= f - 1
        na = nt
        for b in range(cnt):
            if (newbits >> b) & 1:
                ecc[b] = level
    for v in range(n):
        seen[v] = 0


cdef int64_t _offset_bfs(const int64_t[::1] indptr, const int32_t[::1] indices,
                         const int64_t *srcs, const int64_t *off, int64_t cnt,
                         int32_t[::1] order, int32_t[::1] dist,
                         int32_t *rest=NULL) noexcept nogil:
    """``dist[w] = min_b off[b] + d(srcs[b], w)`` for every node (a BFS whose sources start late).

    Sources enter the queue when its level reaches their offset (offsets >= 0). ``dist``
    must hold -1 on entry; ``order[:k]`` lists the nodes reached, k returned. (Sources of
    equal offset may enter in another order than numba's argsort put them: the distances
    and the set of nodes reached do not depend on it.) With ``rest`` (n int32 of scratch),
    a level is found bottom-up (every unreached node looks for a neighbour in the frontier
    and stops at the first) when the frontier's rows hold more than 1/14 of the unreached
    nodes' entries (Beamer, Asanovic and Patterson's direction-optimising BFS and their
    alpha = 14; issue 32): the same distances; ``order`` lists the same nodes, in another
    order within a level.
    """
    cdef int64_t idx[64]
    cdef int64_t p = 0, head = 0, tail = 0, lev, end, i, j, x, v, nrest = -1, keep
    cdef int64_t n = indptr.shape[0] - 1, ua = indptr[n], fa
    cdef int32_t w, lv
    for i in range(cnt):  # insertion sort of the (at most 64) sources by offset
        x = i
        j = i
        while j > 0 and off[idx[j - 1]] > off[x]:
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = x
    while p < cnt or head < tail:
        lev = dist[order[head]] if head < tail else off[idx[p]]
        while p < cnt and off[idx[p]] <= lev:
            v = srcs[idx[p]]
            if dist[v] < 0:
                dist[v] = <int32_t> lev
                order[tail] = <int32_t> v
                tail += 1
                ua -= indptr[v + 1] - indptr[v]
            p += 1
        end = tail
        fa = 0
        if rest != NULL:
            for i in range(head, end):
                fa += indptr[order[i] + 1] - indptr[order[i]]
        if rest != NULL and 14 * fa > ua:
            # bottom-up: every unreached node's row, up to its first neighbour at ``lev``
            nrest = _unreached(rest, nrest, dist, n)
            lv = <int32_t> lev
            for i in range(nrest):
                v = rest[i]
                for j in range(indptr[v], indptr[v + 1]):
                    if dist[indices[j]] == lv:
                        dist[v] = lv + 1
                        order[tail] = <int32_t> v
                        tail += 1
                        ua -= indptr[v + 1] - indptr[v]
                        break
            head = end
            continue
        while head < end:  # the queue holds only level ``lev`` here
            v = order[head]
            head += 1
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                if dist[w] < 0:
                    dist[w] = <int32_t> (lev + 1)
                    order[tail] = w
                    tail += 1
                    ua -= indptr[w + 1] - indptr[w]
    return tail


cdef void _bp_bounds(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t *srcs,
                     int64_t cnt, const int64_t *ecc, int64_t *lo, int64_t *hi,
                     int32_t[::1] order, int32_t[::1] dist, int64_t *off,
                     bint upper=True, int32_t *rest=NULL) noexcept nogil:
    """Takes & Kosters' bounds of ``cnt`` sources of known eccentricity ``ecc[b]`` at once.

    ``hi[w] <= min_b ecc_b + d(b, w)`` and ``lo[w] >= max_b ecc_b - d(b, w)`` by two BFS
    with late-starting sources (:func:`_offset_bfs`): the bounds of cnt single BFS for the
    price of two (``max_b d(b, w)`` comes from :func:`_bp_pass`). Without ``upper`` only
    the lower bounds (one BFS: the upper bounds of peripheral sources are weak). ``rest``:
    as in :func:`_offset_bfs`.
    """
    cdef int64_t emax = 0, b, k, i
    cdef int32_t v
    for b in range(cnt):
        off[b] = ecc[b]
        if ecc[b] > emax:
            emax = ecc[b]
    if upper:
        k = _offset_bfs(indptr, indices, srcs, off, cnt, order, dist, rest)
        for i in range(k):
            v = order[i]
            if dist[v] < hi[v]:
                hi[v] = dist[v]
            dist[v] = -1
    for b in range(cnt):
        off[b] = emax - ecc[b]
    k = _offset_bfs(indptr, indices, srcs, off, cnt, order, dist, rest)
    for i in range(k):
        v = order[i]
        if emax - dist[v] > lo[v]:
            lo[v] = emax - dist[v]
        dist[v] = -1
    for b in range(cnt):
        lo[srcs[b]] = ecc[b]
        hi[srcs[b]] = ecc[b]


cdef inline bint _open(const int64_t *lo, const int64_t *hi, int64_t tl, int64_t t, int64_t ehi,
                       int64_t v) noexcept nogil:
    """Node v is not yet placed: not exact, and not both (below ``tl`` or above ``t``) and
    above ``ehi``. The Jordan certification: ``tl = t = ecc(s)``, ``ehi`` the smallest upper
    bound; the threshold of :func:`_jordan_place` with ``thresh = T``: ``tl = T + 1``,
    ``t = T``, ``ehi = -1`` (placed once ``ecc(v) <= T`` or ``ecc(v) > T`` is proved)."""
    cdef int64_t lv = lo[v], hv = hi[v]
    return not (lv == hv or ((hv < tl or lv > t) and lv > ehi))


cdef int64_t bitparallel_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                                      int64_t[::1] lo, int64_t[::1] hi, int64_t t,
                                      int64_t ehi) except -1 nogil:
    """Exact eccentricity of every node unsettled in :func:`graph_jordan_top`, 64 at a time.

    The nodes with ``lo < hi`` that are not placed strictly below or above ``t`` and above
    ``ehi`` get ``lo = hi = ecc`` by :func:`_bp_pass` (every other ``lo`` may rise to a
    still valid lower bound); returns the number of passes times 64 (BFS equivalents).
    """
    cdef int64_t n = indptr.shape[0] - 1, m = 0, v, start, cnt, b, passes = 0
    cdef int64_t[::1] srcs, w64
    cdef uint64_t[::1] bits
    cdef int64_t ecc[64]
    with gil:
        srcs = np.empty(max(n, 1), np.int64)
        bits = np.zeros(3 * n + 1, np.uint64)
        w64 = np.empty(3 * n + 1, np.int64)
    for v in range(n):
        if _open(&lo[0], &hi[0], t, t, ehi, v):
            srcs[m] = v
            m += 1
    for start in range(0, m, 64):
        cnt = min(64, m - start)
        _bp_pass(indptr, indices, &srcs[start], cnt, &bits[0], &bits[n], &bits[2 * n], &w64[0],
                 &w64[n], &lo[0], ecc, NULL, &w64[2 * n])
        for b in range(cnt):
            lo[srcs[start + b]] = ecc[b]
            hi[srcs[start + b]] = ecc[b]
        passes += 1
    return passes * 64


cdef int64_t _place_passes(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t *plo,
                           int64_t *phi, int64_t tl, int64_t t, bint exact, int64_t emax,
                           int64_t max_passes, int64_t[::1] trace, int32_t[::1] order,
                           int32_t[::1] dist, bint far_first, int64_t *nbfs,
                           bint hybrid=True) except -1 nogil:
    """Phase 2 of :func:`_jordan_place` (and of :func:`graph_eccentricity` with ``exact``):
    bit-parallel passes of 64 sources until every node is placed (``exact``: until every
    ``lo == hi``) or ``max_passes`` passes (< 0: no limit); returns the nodes left unplaced.

    Each pass sets the 64 sources' eccentricities exactly, raises every ``lo[w]`` to
    ``max_b d(b, w)`` and applies their Takes & Kosters bounds (:func:`_bp_pass`,
    :func:`_bp_bounds`). With ``far_first`` (issue 32) the sources are, while more unplaced
    nodes are left than nodes at the current level, the nodes in decreasing order of
    their distance from a reference node r (the node of largest degree), and every pass
    ends with the reference-node upper bound of Li, Qiao, Qin et al.'s eccentricity
    algorithm: once every node z with ``d(r, z) > D`` has been a source,
    ``ecc(w) <= max(max_{z source} d(z, w), d(w, r) + D) <= max(lo[w], d(w, r) + D)``,
    which places most nodes of a small-world snapshot after a few passes (the farthest
    node of almost every node is far from r); the few left, and every pass without
    ``far_first``, take the unplaced nodes of smallest lower bound (64 exact
    eccentricities a pass). Exact: every bound used is valid. ``hybrid``: the passes and
    their bounds' BFS direction-optimising (:func:`_bp_pass`, :func:`_offset_bfs`; the
    same results).
    """
    cdef int64_t n = indptr.shape[0] - 1, left = n, npass = 0, ehi, i, v, cap, below, atcap
    cdef int64_t cnt, lv, r = 0, L = 0, pos = 0, rem, dn, bnd, k
    cdef uint64_t[::1] bits
    cdef int64_t[::1] w64, nlo, dr, byfar, levend, levfill
    cdef int64_t srcs[64]
    cdef int64_t ecc[64]
    cdef int64_t off[64]
    cdef int32_t[::1] parent, r32
    cdef int64_t *rest = NULL
    cdef int32_t *rest32 = NULL
    with gil:
        bits = np.zeros(3 * n, np.uint64)
        w64 = np.empty(3 * n + 1, np.int64)
        r32 = np.empty(n + 1, np.int32)
        nlo = np.zeros(emax + 2, np.int64)
        dr = np.zeros(n if far_first else 1, np.int64)
        byfar = np.zeros(n if far_first else 1, np.int64)
        parent = np.zeros(n if far_first else 1, np.int32)
        levend = np.zeros(1, np.int64)
    if hybrid:
        rest = &w64[2 * n]
        rest32 = &r32[0]
    if far_first:
        for v in range(n):
            if indptr[v + 1] - indptr[v] > indptr[r + 1] - indptr[r]:
                r = v
        k = bfs(indptr, indices, r, order, parent, dist)
        for v in range(n):
            dr[v] = dist[v]
            if dist[v] > L:
                L = dist[v]
        for i in range(k):
            dist[order[i]] = -1
        with gil:
            levend = np.zeros(L + 2, np.int64)
            levfill = np.zeros(L + 2, np.int64)
        # byfar: the nodes by decreasing d(r, .), in index order within a level;
        # levend[l]: the end of level l in byfar
        for v in range(n):
            levend[dr[v]] += 1
        cap = 0
        for i in range(L, -1, -1):
            levfill[i] = cap
            cap += levend[i]
            levend[i] = cap
        for v in range(n):
            byfar[levfill[dr[v]]] = v
            levfill[dr[v]] += 1
    while True:
        ehi = BIG if exact else (-1 if tl != t else anonspread_min64(phi, n, BIG))
        for i in range(emax + 2):
            nlo[i] = 0
        left = 0
        for v in range(n):
            if _open(plo, phi, tl, t, ehi, v):
                nlo[min(plo[v], emax + 1)] += 1
                left += 1
        if npass > 0 and npass - 1 < trace.shape[0]:
            trace[npass - 1] = left
        if left == 0 or npass == max_passes:
            break
        rem = levend[dr[byfar[pos]]] - pos if far_first and pos < n else 0
        if far_first and pos < n and left > rem:
            # the next 64 nodes farthest from r
            cnt = min(64, n - pos)
            for i in range(cnt):
                srcs[i] = byfar[pos + i]
            pos += cnt
        else:
            # the 64 unplaced nodes of smallest lower bound (in index order within a bound)
            cap = 0
            below = 0
            while cap <= emax and below + nlo[cap] < 64:
                below += nlo[cap]
                cap += 1
            atcap = 64 - below  # how many nodes with lower bound ``cap`` to take
            cnt = 0
            for v in range(n):
                if cnt == 64:
                    break
                if _open(plo, phi, tl, t, ehi, v):
                    lv = min(plo[v], emax + 1)
                    if lv < cap:
                        srcs[cnt] = v
                        cnt += 1
                    elif lv == cap and atcap > 0:
                        srcs[cnt] = v
                        cnt += 1
                        atcap -= 1
        _bp_pass(indptr, indices, srcs, cnt, &bits[0], &bits[n], &bits[2 * n], &w64[0],
                 &w64[n], plo, ecc, NULL, rest)
        _bp_bounds(indptr, indices, srcs, cnt, ecc, plo, phi, order, dist, off, True, rest32)
        if far_first:
            # every z with d(r, z) > dn has been a source
            dn = dr[byfar[pos]] if pos < n else -BIG
            for v in range(n):
                bnd = plo[v] if plo[v] > dr[v] + dn else dr[v] + dn
                if bnd < phi[v]:
                    phi[v] = bnd
        nbfs[0] += 64
        npass += 1
    return left


cdef int64_t _ref_passes(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t *plo,
                        int64_t *phi, int64_t tl, int64_t t, int64_t emax, int64_t max_passes,
                        int64_t[::1] trace, int32_t[::1] order, int32_t[::1] dist,
                        uint8_t[::1] src, int64_t *nbfs, bint hybrid=True) except -2 nogil:
    """Phase 2 of :func:`_jordan_place` with many reference nodes (issue 32); returns the
    nodes left unplaced, or -1 (nothing changed) when a reference's eccentricity exceeds 254.

    R = the 64 nodes of largest degree (hubs: central in a small-world snapshot), their
    distances to every node kept (n x 64 bytes) from one bit-parallel pass. ``src[y]`` = 1
    iff y has been a BFS source (its BFS raised every ``lo[w]`` to at least ``d(y, w)``);
    ``D_r`` = the largest ``d(r, y)`` over non-sources y. For every node w and every r,
    a node y is within ``lo[w]`` of w if it was a source, else within
    ``d(w, r) + d(r, y) <= d(w, r) + D_r``, so

        ``ecc(w) <= max(lo[w], min_r (d(w, r) + D_r))``

    (Li, Qiao, Qin et al.'s reference-node bound of :func:`_place_passes` with 64 reference
    nodes at once: a node near any hub is bounded, not only a node near the one reference).
    Two kinds of pass of 64 sources, each followed by :func:`_bp_bounds` and the bound above:
    (0) the non-sources y at ``d(r, y) = D_r`` for the most references r (making them
    sources lowers the ``D_r``: the periphery, shared by the hubs), (1) the unplaced nodes
    of smallest lower bound (exact). The kind whose last pass placed more nodes goes next;
    a kind unused for 4 passes is tried again. Exact: every bound used is valid; it ends
    because every pass makes 64 new sources or places an unplaced node exactly.
    ``hybrid``: as in :func:`_place_passes`.
    """
    cdef int64_t n = indptr.shape[0] - 1, nr = min(n, 64), left, npass = 0, ehi, i, v, b
    cdef int64_t cap, below, atcap, cnt, lv, best, na, a, gper, nper, regen = 2 * n + 2
    cdef int64_t[::1] near
    cdef int64_t per[64]
    cdef int64_t natt[66]
    cdef int32_t far2[64]
    cdef int64_t rem[64]
    cdef int64_t gain[64]
    cdef int64_t srcs[64]
    cdef int64_t ecc[64]
    cdef int64_t off[64]
    cdef int32_t far[64]
    cdef uint64_t[::1] bits
    cdef int64_t[::1] w64, nlo
    cdef uint8_t[::1] dmat, op, att
    cdef int64_t[::1] refs
    cdef int32_t[::1] r32
    cdef int64_t *rest = NULL
    cdef int32_t *rest32 = NULL
    with gil:
        refs = np.argsort(-np.diff(np.asarray(indptr)), kind="stable")[:nr].astype(np.int64)
        bits = np.zeros(3 * n, np.uint64)
        w64 = np.empty(3 * n + 1, np.int64)
        r32 = np.empty(n + 1, np.int32)
        nlo = np.zeros(emax + 2, np.int64)
        dmat = np.zeros(64 * n, np.uint8)
        op = np.zeros(n, np.uint8)
        att = np.zeros(n, np.uint8)
    if hybrid:
        rest = &w64[2 * n]
        rest32 = &r32[0]
    for b in range(64):
        srcs[b] = refs[b % nr]
    _bp_pass(indptr, indices, srcs, 64, &bits[0], &bits[n], &bits[2 * n], &w64[0], &w64[n],
             plo, ecc, &dmat[0], rest)
    nbfs[0] += 64
    for b in range(64):
        if ecc[b] > 254:
            return -1
        plo[srcs[b]] = ecc[b]
        phi[srcs[b]] = ecc[b]
        src[srcs[b]] = 1
    while True:
        anonspread_ref_far(&dmat[0], &src[0], n, far)
        anonspread_ref_bound(&dmat[0], far, n, plo, phi)
        ehi = -1 if tl != t else anonspread_min64(phi, n, BIG)
        for i in range(emax + 2):
            nlo[i] = 0
        left = 0
        for v in range(n):
            op[v] = _open(plo, phi, tl, t, ehi, v)
            if op[v]:
                nlo[min(plo[v], emax + 1)] += 1
                left += 1
        if npass > 0 and npass - 1 < trace.shape[0]:
            trace[npass - 1] = left
        if left == 0 or npass == max_passes:
            break
        # the reference whose outer level, made sources, would place most open nodes
        # per pass; its outer level if that beats an exact pass (up to 64 placed)
        anonspread_ref_gain(&dmat[0], far, &src[0], &op[0], n, plo, phi, tl, t, ehi, rem, gain)
        best = -1
        for b in range(nr):
            if rem[b] > 0 and gain[b] > 0 and (best < 0 or gain[b] * ((rem[best] + 63) // 64)
                                                > gain[best] * ((rem[b] + 63) // 64)):
                best = b
        # the periphery: the 64 non-sources at d(r, y) = D_r for the most references r
        # (index order within a count), and the open nodes its pass would place
        anonspread_ref_attain(&dmat[0], far, &src[0], n, &att[0])
        for i in range(66):
            natt[i] = 0
        for v in range(n):
            natt[att[v]] += 1
        cap = 64
        below = 0
        while cap > 0 and below + natt[cap] < 64:
            below += natt[cap]
            cap -= 1
        na = 0
        if cap > 0:
            atcap = 64 - below
            for v in range(n):
                if na == 64:
                    break
                a = att[v]
                if a > cap or (a == cap and atcap > 0):
                    if a == cap:
                        atcap -= 1
                    per[na] = v
                    na += 1
        gper = 0
        if na > 0:
            for i in range(na):
                src[per[i]] = 1
            anonspread_ref_far(&dmat[0], &src[0], n, far2)
            for i in range(na):
                src[per[i]] = 0
            gper = anonspread_ref_count(&dmat[0], far2, &op[0], n, plo, phi, tl, t, ehi)
        cnt = 0
        if gper >= min(64, left) and (best < 0 or gper * ((rem[best] + 63) // 64) >= gain[best]):
            for i in range(na):
                srcs[i] = per[i]
            cnt = na
        elif best >= 0 and gain[best] > min(64, left) * ((rem[best] + 63) // 64):
            for v in range(n):
                if cnt == 64:
                    break
                if not src[v] and dmat[v * 64 + best] == far[best]:
                    srcs[cnt] = v
                    cnt += 1
        if cnt == 0 and left > 128 and 2 * left <= regen:
            # neither beats an exact pass and more than two are needed: new references, the
            # 64 nodes with the most unplaced neighbours (tried again once half as many left)
            regen = left
            with gil:
                near = np.zeros(n, np.int64)
                for v in range(n):
                    if op[v]:
                        for i in range(indptr[v], indptr[v + 1]):
                            near[indices[i]] += 1
                refs = np.argsort(-np.asarray(near), kind="stable")[:nr].astype(np.int64)
            for b in range(64):
                srcs[b] = refs[b % nr]
            _bp_pass(indptr, indices, srcs, 64, &bits[0], &bits[n], &bits[2 * n], &w64[0],
                     &w64[n], plo, ecc, &dmat[0], rest)
            nbfs[0] += 64
            npass += 1
            for b in range(64):
                if ecc[b] > 254:
                    return -1
                plo[srcs[b]] = ecc[b]
                phi[srcs[b]] = ecc[b]
                src[srcs[b]] = 1
            continue
        nper = cnt
        if cnt < 64:
            # the 64 unplaced nodes of smallest lower bound (in index order within a bound)
            cap = 0
            below = 0
            while cap <= emax and below + nlo[cap] < 64:
                below += nlo[cap]
                cap += 1
            atcap = 64 - below
            for v in range(n):
                if cnt == 64:
                    break
                if _open(plo, phi, tl, t, ehi, v):
                    lv = min(plo[v], emax + 1)
                    if lv < cap:
                        srcs[cnt] = v
                        cnt += 1
                    elif lv == cap and atcap > 0:
                        srcs[cnt] = v
                        cnt += 1
                        atcap -= 1
        _bp_pass(indptr, indices, srcs, cnt, &bits[0], &bits[n], &bits[2 * n], &w64[0],
                 &w64[n], plo, ecc, NULL, rest)
        _bp_bounds(indptr, indices, srcs, cnt, ecc, plo, phi, order, dist, off, nper < cnt,
                   rest32)
        for i in range(cnt):
            src[srcs[i]] = 1
        nbfs[0] += 64
        npass += 1
    return left


cdef int _jordan_place(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                       int64_t[::1] lo, int64_t[::1] hi, int64_t max_passes,
                       int64_t[::1] trace, int64_t *res, int64_t rule=2,
                       int64_t phase1_max=16, bint hybrid=True,
                       int64_t thresh=-1) except -1 nogil:
    """The two phases of :func:`graph_jordan_top` on bounds ``lo``, ``hi`` (0 and BIG on entry).

    ``thresh`` >= 0: instead of placing every node against ``ecc(s)`` and the minimum,
    place it against ``thresh`` alone: done once ``hi <= thresh`` or ``lo > thresh`` for
    every node (the nodes within ``thresh`` hops of every node: :func:`within_radius`);
    ``s`` is then only the first BFS source. The same BFS, passes and bounds.

    Stops when every node is placed or after ``max_passes`` bit-parallel passes (< 0: no
    limit); ``trace[i]`` (while i < len(trace)) receives the number of nodes still unplaced
    after the first i + 1 passes. ``res`` receives ``(ecc(s), BFS equivalents, unplaced
    nodes)``. ``rule``: the sources of phase 2: 2 (default), the 64 references of
    :func:`_ref_passes` (issue 32); 1, far from one reference node (:func:`_place_passes`
    with ``far_first``, the first rule of issue 32, also used when a reference's
    eccentricity exceeds 254); 0, always the unplaced nodes of smallest lower bound (the
    rule before issue 32). ``hybrid`` (default): every BFS direction-optimising (issue 32:
    :func:`_bp_pass` and :func:`_offset_bfs` bottom-up where cheaper, the first phase's
    single BFS too: :func:`_tk_sweep`'s next source, the smallest node of the last level,
    does not depend on the order within a level): the same distances and the same
    first-phase sources, so the same bounds, BFS count and answer; False: every BFS
    top-down (kept for the benchmark and tests).
    """
    cdef int64_t n = indptr.shape[0] - 1
    cdef int32_t[::1] order, parent, dist, rest32
    cdef int32_t *rest = NULL
    cdef int64_t *plo = &lo[0]
    cdef int64_t *phi = &hi[0]
    cdef int64_t t, tl, far, nbfs, emax, window = 8, prev = n, kind = 0, step = 0, left = n
    cdef int64_t gains[8]
    cdef int64_t kgain[3]
    cdef int64_t kused[3]
    cdef int64_t ehi, uhi, ulo, v, dv, k, u, e, gsum, i
    cdef uint64_t[::1] bits
    cdef int64_t[::1] w64, nlo
    cdef int64_t srcs[64]
    cdef int64_t ecc[64]
    cdef int64_t off[64]
    cdef int64_t npass, cap, below, atcap, cnt, lv
    cdef uint8_t[::1] src
    with gil:
        order = np.empty(n, np.int32)
        parent = np.empty(n, np.int32)
        dist = np.full(n, -1, np.int32)
        src = np.zeros(n, np.uint8)
        rest32 = np.empty(n + 1, np.int32)
    if hybrid:
        rest = &rest32[0]
    t = _tk_sweep(indptr, indices, s, order, parent, dist, lo, hi, &far, rest)
    src[s] = 1
    nbfs = 1
    emax = t
    res[0] = t
    tl = t
    if thresh >= 0:
        # the threshold's placement (_open): below means hi <= thresh, above lo > thresh
        tl = thresh + 1
        t = thresh
    for i in range(window):
        gains[i] = 0
    for i in range(3):
        kgain[i] = n  # nodes placed by the last BFS of each kind
        kused[i] = 0
    while True:
        ehi = -1 if tl != t else anonspread_min64(phi, n, BIG)
        uhi = -1
        ulo = -1
        left = 0
        for v in range(n):
            if not _open(plo, phi, tl, t, ehi, v):
                continue
            left += 1
            if uhi < 0:
                uhi = v
                ulo = v
                continue
            dv = indptr[v + 1] - indptr[v]
            if phi[v] > phi[uhi] or (phi[v] == phi[uhi] and dv > indptr[uhi + 1] - indptr[uhi]):
                uhi = v
            if plo[v] < plo[ulo] or (plo[v] == plo[ulo] and dv > indptr[ulo + 1] - indptr[ulo]):
                ulo = v
        if step > 0:
            gains[step % window] = prev - left
            kgain[kind] = prev - left
        prev = left
        gsum = 0
        for i in range(window):
            gsum += gains[i]
        if left == 0 or (step >= window and gsum * (emax + 1) < 64 * window) or (
                rule == 2 and step >= phase1_max - 1):
            break
        kind = 0
        for k in range(1, 3):
            if kgain[k] > kgain[kind]:
                kind = k
        for k in range(3):
            if step - kused[k] >= 6:
                kind = k
        kused[kind] = step
        u = far if kind == 0 else (uhi if kind == 1 else ulo)
        e = _tk_sweep(indptr, indices, u, order, parent, dist, lo, hi, &far, rest)
        src[u] = 1
        if e > emax:
            emax = e
        nbfs += 1
        step += 1
    if left > 0 and rule == 2:
        left = _ref_passes(indptr, indices, plo, phi, tl, t, emax, max_passes, trace, order,
                           dist, src, &nbfs, hybrid)
    if left < 0 or (left > 0 and rule < 2):
        left = _place_passes(indptr, indices, plo, phi, tl, t, False, emax, max_passes, trace,
                             order, dist, rule >= 1, &nbfs, hybrid)
    res[1] = nbfs
    res[2] = left
    return 0


cdef JordanTop graph_jordan_top(const int64_t[::1] indptr, const int32_t[::1] indices,
                                int64_t s, uint8_t[::1] top) except * nogil:
    """Jordan centre and the rank data of node ``s`` without every eccentricity.

    Every node is placed (a) strictly below, at or strictly above ``t = ecc(s)`` and (b)
    out of the minimum (lower bound above the smallest upper bound) or exactly:
    ``top[v]`` is 1 iff ``ecc(v)`` is the minimum. Phase 1, Takes & Kosters' bounding
    with three kinds of BFS source (the farthest node of the previous BFS, the unplaced
    node with the largest upper bound, the one with the smallest lower bound; the kind
    whose last BFS placed most nodes, a kind unused for 6 BFS tried again); phase 2, once
    the last 8 BFS placed fewer nodes than a bit-parallel pass per BFS-equivalent or after
    16 BFS: :func:`_ref_passes` (64
    reference nodes; :func:`_place_passes` when a reference's eccentricity exceeds 254),
    until every node is placed. Every BFS is direction-optimising (``hybrid`` of
    :func:`_jordan_place`: the same bounds and BFS count as top-down BFS; bottom-up levels
    stop at a node's first neighbour in the frontier). Worst case O(n m) (one BFS per node,
    64 to a pass).
    """
    cdef int64_t n = indptr.shape[0] - 1, v
    cdef int64_t[::1] lo, hi, trace
    cdef int64_t res[3]
    cdef JordanTop r
    with gil:
        lo = np.zeros(n, np.int64)
        hi = np.full(n, BIG, np.int64)
        trace = np.zeros(1, np.int64)
    _jordan_place(indptr, indices, s, lo, hi, -1, trace, res)
    r.t = res[0]
    r.nbfs = res[1]
    anonspread_jordan_final(&lo[0], &hi[0], n, r.t, BIG, &top[0], res)
    r.emin = res[0]
    r.less = res[1]
    r.tied = res[2]
    return r


cdef int64_t graph_radius(const int64_t[::1] indptr,
                          const int32_t[::1] indices) except -1 nogil:
    """The minimum eccentricity (Jordan radius) of a connected graph, by :func:`graph_jordan_top`."""
    cdef uint8_t[::1] top
    with gil:
        top = np.empty(indptr.shape[0] - 1, np.uint8)
    return graph_jordan_top(indptr, indices, 0, top).emin


# ----------------------------------------------------------------- ML (adaptive diffusion)


cdef void _accumulate(const int64_t[::1] indptr, const int32_t[::1] indices,
                      const int64_t[::1] tdeg, const int64_t[::1] gdeg, int64_t x0,
                      int64_t only, const double[::1] logB, double[::1] out,
                      int32_t[::1] stack, double[::1] acc, int32_t[::1] came,
                      int64_t[::1] depth) noexcept nogil:
    """Add the likelihood terms of one virtual-source configuration (Algorithm 4).

    Walks the tree away from ``x0`` (into neighbour ``only`` if ``only >= 0``); a node w at
    distance D gets ``-log gdeg(w) - sum_p log(tdeg(p) - 1) + logB[D]``, the sum over the
    interior nodes p of the path from w to ``x0`` (Eq. 2.17: A_w times B_w, the "Degree
    Message" of Algorithm 4). ``out`` is combined by log-sum-exp.
    """
    cdef int64_t nb_ = logB.shape[0], top = 0, j, d, k
    cdef int32_t c, w
    cdef double term, a
    for j in range(indptr[x0], indptr[x0 + 1]):
        c = indices[j]
        if only >= 0 and c != only:
            continue
        stack[top] = c
        top += 1
        acc[c] = 0.0
        came[c] = <int32_t> x0
        depth[c] = 1
    while top > 0:
        top -= 1
        w = stack[top]
        d = depth[w]
        if d < nb_ and logB[d] > -INFINITY:
            term = acc[w] - log(<double> gdeg[w]) + logB[d]
            out[w] = logaddexp(out[w], term)
        if d + 1 >= nb_:
            continue  # deeper nodes cannot be sources of this configuration
        k = tdeg[w] - 1
        if k <= 0:
            continue
        a = acc[w] - log(<double> k)
        for j in range(indptr[w], indptr[w + 1]):
            c = indices[j]
            if c == came[w]:
                continue
            acc[c] = a
            came[c] = w
            depth[c] = d + 1
            stack[top] = c
            top += 1


cdef inline void _fill(double *x, int64_t k) noexcept nogil:
    cdef int64_t i
    for i in range(k):
        x[i] = -INFINITY


cdef inline void _lse_into(double *x, const double *y, int64_t k) noexcept nogil:
    """``x[i] = logaddexp(x[i], y[i])`` for i < k."""
    cdef int64_t i
    for i in range(k):
        if y[i] != -INFINITY:
            x[i] = logaddexp(x[i], y[i])


#: :func:`ml_tree` walks the tree once per configuration when at most this many are consistent.
cdef enum:
    WALK_MAX_CONFIGS = 4
WALK_MAX_CONFIGS_PY = WALK_MAX_CONFIGS


cdef int64_t ml_tree(const int64_t[::1] indptr, const int32_t[::1] indices,
                     const int64_t[::1] gdeg, bint check_boundary, int64_t r_node,
                     const double[::1] logB_alive, const double[::1] logB_dead, int64_t r_edge,
                     const double[::1] logB_move, double[::1] out, int64_t[::1] tdeg,
                     uint8_t[::1] mark, int32_t[::1] order, int32_t[::1] parent,
                     int32_t[::1] dist, int64_t[::1] down, int64_t[::1] up, int64_t[::1] bdown,
                     int64_t[::1] bup, int32_t[::1] stack, double[::1] acc, int32_t[::1] came,
                     int64_t[::1] depth) noexcept nogil:
    """Log-likelihood of adaptive diffusion for every node of an infected tree.

    Sums Eq. (2.17) over every final configuration consistent with the snapshot: a *node*
    configuration (the infected set is the ball of radius ``r_node`` around the final
    virtual source c) and an *edge* configuration (every node within ``r_edge`` of the edge
    {a, b} the token just crossed); ``r_node``/``r_edge`` < 0 disable a kind. See
    :func:`anonspread.engine.scoring.ml_tree`.

    The sum over configurations is one message passing over the tree (issue 32), not one
    walk per configuration (:func:`ml_tree_walks`, O(n) each, O(n^2) in all once most
    nodes are consistent centres): for every directed tree edge q -> p, the vector over
    distances D of ``log sum_c prod_{interior x} 1/(tdeg(x) - 1)`` over the configurations'
    roots c on q's side at distance D from p, one vector per kind of table (alive, dead,
    move). Leaves to root, then root to leaves (prefix and suffix sums over a node's
    children: no subtraction in log space). Every root is within ``r = max(r_node,
    r_edge + 1)`` hops of every node, so vectors hold at most ``min(r, height)`` entries:
    O(sum over nodes of min(r, ecc)) time and memory, at most O(n r) and independent of
    the number of configurations. A node's score is the log-sum-exp over (kind, D) of
    ``(vector - log gdeg) + logB[D]``: with a single configuration the same floating-point
    operations as the walk (and :func:`ml_ball`), bit for bit; with several, the same sum in
    another order (equal to rounding). With at most ``WALK_MAX_CONFIGS`` (4) configurations
    the walks of :func:`ml_tree_walks` are cheaper and run instead (the same operations, in
    the same order: bit for bit the old scores).

    The scratch arrays (``tdeg`` .. ``depth``) hold n entries at least; returns the number of configurations found, -1 if
    the scratch arrays are smaller than the tree, -2 if the message buffers could not be
    allocated.
    """
    cdef int64_t n = indptr.shape[0] - 1, v, c, p, ecc, bd, found = 0
    cdef int64_t K = 0, sA = -1, sD = -1, sM = -1, cap, rmax = -1, nbmax = 0, s, d, k, j
    cdef int64_t totD = 0, totU = 0, tmpmax = 0, m, Lt, lv, lc, i, root
    cdef int64_t nb[3]
    cdef const double *tab[3]
    cdef int64_t *offD = NULL
    cdef int64_t *offU = NULL
    cdef int64_t *lenD = NULL
    cdef int64_t *lenU = NULL
    cdef double *bufD = NULL
    cdef double *bufU = NULL
    cdef double *suf = NULL
    cdef double *pre = NULL
    cdef double *tot = NULL
    cdef double *x
    cdef double *y
    cdef double lk, lg, term, res
    cdef int32_t q
    if tdeg.shape[0] < n:
        return -1
    for v in range(n):
        out[v] = -INFINITY
        tdeg[v] = indptr[v + 1] - indptr[v]
        mark[v] = check_boundary and gdeg[v] > tdeg[v]
        dist[v] = -1
    bfs(indptr, indices, 0, order, parent, dist)
    tree_passes(indptr, indices, order, n, parent, mark, down, up, bdown, bup)
    # came[v]: bit 0 / 1 v is the root of a node configuration with the alive / dead table,
    # bit 2 the edge {v, parent(v)} is an edge configuration
    for v in range(n):
        came[v] = 0
    if r_node >= 0:
        for c in range(n):
            ecc = down[c] if down[c] > up[c] else up[c]
            bd = bdown[c] if bdown[c] < bup[c] else bup[c]
            if ecc <= r_node and bd >= r_node:
                found += 1
                came[c] |= 2 if tdeg[c] <= 1 else 1
    if r_edge >= 0:
        for c in range(n):
            p = parent[c]
            if p < 0:
                continue
            ecc = down[c] if down[c] > up[c] - 1 else up[c] - 1
            bd = bdown[c] if bdown[c] < bup[c] - 1 else bup[c] - 1
            if ecc <= r_edge and bd >= r_edge:
                found += 1
                came[c] |= 4
    if found == 0:
        return 0
    if found <= WALK_MAX_CONFIGS:
        # a few configurations: one walk each is cheaper than the vectors (same sum)
        for c in range(n):
            if came[c] & 3:
                _accumulate(indptr, indices, tdeg, gdeg, c, -1,
                            logB_dead if came[c] & 2 else logB_alive, out, stack, acc, order,
                            depth)
        for c in range(n):
            if came[c] & 4:
                p = parent[c]
                _accumulate(indptr, indices, tdeg, gdeg, c, p, logB_move, out, stack, acc, order,
                            depth)
                _accumulate(indptr, indices, tdeg, gdeg, p, c, logB_move, out, stack, acc, order,
                            depth)
        return found
    for v in range(n):
        if came[v] & 1 and sA < 0:
            sA = K
            tab[K] = &logB_alive[0]
            nb[K] = logB_alive.shape[0]
            K += 1
            rmax = r_node
        if came[v] & 2 and sD < 0:
            sD = K
            tab[K] = &logB_dead[0]
            nb[K] = logB_dead.shape[0]
            K += 1
            rmax = r_node
        if came[v] & 4 and sM < 0:
            sM = K
            tab[K] = &logB_move[0]
            nb[K] = logB_move.shape[0]
            K += 1
            if r_edge + 1 > rmax:
                rmax = r_edge + 1
    for s in range(K):
        if nb[s] - 1 > nbmax:
            nbmax = nb[s] - 1
    cap = rmax if rmax < nbmax else nbmax  # the largest distance D that can score
    if cap < 1:
        return found
    root = order[0]
    offD = <int64_t *> malloc((n + 1) * sizeof(int64_t))
    offU = <int64_t *> malloc((n + 1) * sizeof(int64_t))
    lenD = <int64_t *> malloc((n + 1) * sizeof(int64_t))
    lenU = <int64_t *> malloc((n + 1) * sizeof(int64_t))
    if offD == NULL or offU == NULL or lenD == NULL or lenU == NULL:
        free(offD)
        free(offU)
        free(lenD)
        free(lenU)
        return -2
    # lenD[v]: entries D = 1.. of the message v -> parent(v); lenU[v]: of parent(v) -> v
    for v in range(n):
        if v == root:
            lenD[v] = 0
            lenU[v] = 0
        else:
            lenD[v] = down[v] + 1 if down[v] + 1 < cap else cap
            lenU[v] = up[v] if up[v] < cap else cap
        offD[v] = totD
        offU[v] = totU
        totD += K * lenD[v]
        totU += K * lenU[v]
        m = tdeg[v] - (0 if v == root else 1)
        Lt = down[v] if down[v] > up[v] else up[v]
        if Lt > cap:
            Lt = cap
        if (m + 1) * Lt > tmpmax:
            tmpmax = (m + 1) * Lt
    bufD = <double *> malloc((totD + 1) * sizeof(double))
    bufU = <double *> malloc((totU + 1) * sizeof(double))
    suf = <double *> malloc((K * tmpmax + 1) * sizeof(double))
    pre = <double *> malloc((K * cap + 1) * sizeof(double))
    tot = <double *> malloc((K * cap + 1) * sizeof(double))
    if bufD == NULL or bufU == NULL or suf == NULL or pre == NULL or tot == NULL:
        found = -2
    else:
        # leaves -> root: the message v -> parent(v)
        for k in range(n - 1, 0, -1):
            v = order[k]
            lv = lenD[v]
            x = bufD + offD[v]
            _fill(x, K * lv)
            if came[v] & 1:
                x[sA * lv] = 0.0
            if came[v] & 2:
                x[sD * lv] = 0.0
            if came[v] & 4:
                x[sM * lv] = 0.0
            if tdeg[v] - 1 <= 0 or lv < 2:
                continue
            for j in range(indptr[v], indptr[v + 1]):
                q = indices[j]
                if q == parent[v]:
                    continue
                lc = lenD[q] if lenD[q] < lv - 1 else lv - 1
                for s in range(K):
                    _lse_into(x + s * lv + 1, bufD + offD[q] + s * lenD[q], lc)
            lk = log(<double> (tdeg[v] - 1))
            for s in range(K):
                for d in range(1, lv):
                    if x[s * lv + d] != -INFINITY:
                        x[s * lv + d] = x[s * lv + d] - lk
        # root -> leaves: every node's total, its score, and the messages p -> children
        for k in range(n):
            p = order[k]
            Lt = down[p] if down[p] > up[p] else up[p]
            if Lt > cap:
                Lt = cap
            m = 0
            for j in range(indptr[p], indptr[p + 1]):
                if indices[j] != parent[p]:
                    m += 1
            # suffix sums of the children's messages: suf[i] over children i.. (Lt entries)
            _fill(suf + m * K * Lt, K * Lt)
            i = m
            for j in range(indptr[p + 1] - 1, indptr[p] - 1, -1):
                q = indices[j]
                if q == parent[p]:
                    continue
                i -= 1
                y = suf + i * K * Lt
                for s in range(K):
                    for d in range(Lt):
                        y[s * Lt + d] = y[K * Lt + s * Lt + d]
                    _lse_into(y + s * Lt, bufD + offD[q] + s * lenD[q], lenD[q])
            # total at p: the message from the parent's side, then the children's
            _fill(tot, K * Lt)
            for s in range(K):
                _lse_into(tot + s * Lt, bufU + offU[p] + s * lenU[p], lenU[p])
                _lse_into(tot + s * Lt, suf + s * Lt, Lt)
            lg = log(<double> gdeg[p])
            res = -INFINITY
            for s in range(K):
                for d in range(1, Lt + 1):
                    if d >= nb[s]:
                        break
                    if tot[s * Lt + d - 1] == -INFINITY or tab[s][d] == -INFINITY:
                        continue
                    term = tot[s * Lt + d - 1] - lg + tab[s][d]
                    res = logaddexp(res, term)
            out[p] = res
            if m == 0:
                continue
            lk = log(<double> (tdeg[p] - 1)) if tdeg[p] > 1 else 0.0
            _fill(pre, K * Lt)
            for s in range(K):
                _lse_into(pre + s * Lt, bufU + offU[p] + s * lenU[p], lenU[p])
            i = 0
            for j in range(indptr[p], indptr[p + 1]):
                q = indices[j]
                if q == parent[p]:
                    continue
                lv = lenU[q]
                x = bufU + offU[q]
                _fill(x, K * lv)
                if came[p] & 1:
                    x[sA * lv] = 0.0
                if came[p] & 2:
                    x[sD * lv] = 0.0
                if came[q] & 4:
                    x[sM * lv] = 0.0
                if tdeg[p] > 1:
                    y = suf + (i + 1) * K * Lt
                    for s in range(K):
                        for d in range(1, lv):
                            term = logaddexp(pre[s * Lt + d - 1], y[s * Lt + d - 1])
                            if term != -INFINITY:
                                x[s * lv + d] = term - lk
                for s in range(K):
                    _lse_into(pre + s * Lt, bufD + offD[q] + s * lenD[q], lenD[q])
                i += 1
    free(offD)
    free(offU)
    free(lenD)
    free(lenU)
    free(bufD)
    free(bufU)
    free(suf)
    free(pre)
    free(tot)
    return found


cdef int64_t ml_tree_walks(const int64_t[::1] indptr, const int32_t[::1] indices,
                     const int64_t[::1] gdeg, bint check_boundary, int64_t r_node,
                     const double[::1] logB_alive, const double[::1] logB_dead, int64_t r_edge,
                     const double[::1] logB_move, double[::1] out, int64_t[::1] tdeg,
                     uint8_t[::1] mark, int32_t[::1] order, int32_t[::1] parent,
                     int32_t[::1] dist, int64_t[::1] down, int64_t[::1] up, int64_t[::1] bdown,
                     int64_t[::1] bup, int32_t[::1] stack, double[::1] acc, int32_t[::1] came,
                     int64_t[::1] depth) noexcept nogil:
    """:func:`ml_tree` by one walk per configuration (the implementation before issue 32).

    The reference the tests compare :func:`ml_tree` with: O(n) per consistent
    configuration, so O(n^2) when most nodes are consistent centres (a stalled spread at a
    large T on a graph with cycles). Same arguments and return value as :func:`ml_tree`.

    Sums Eq. (2.17) over every final configuration consistent with the snapshot: a *node*
    configuration (the infected set is the ball of radius ``r_node`` around the final
    virtual source c) and an *edge* configuration (every node within ``r_edge`` of the edge
    {a, b} the token just crossed); ``r_node``/``r_edge`` < 0 disable a kind. See
    :func:`anonspread.engine.scoring.ml_tree`. The scratch arrays (``tdeg`` ..
    ``depth``) hold n entries at least; returns the number of configurations found, or -1
    if the scratch arrays are smaller than the tree.
    """
    cdef int64_t n = indptr.shape[0] - 1, v, c, p, ecc, bd, found = 0
    if tdeg.shape[0] < n:
        return -1
    for v in range(n):
        out[v] = -INFINITY
        tdeg[v] = indptr[v + 1] - indptr[v]
        mark[v] = check_boundary and gdeg[v] > tdeg[v]
        dist[v] = -1
    bfs(indptr, indices, 0, order, parent, dist)
    tree_passes(indptr, indices, order, n, parent, mark, down, up, bdown, bup)
    if r_node >= 0:
        for c in range(n):
            ecc = down[c] if down[c] > up[c] else up[c]
            bd = bdown[c] if bdown[c] < bup[c] else bup[c]
            if ecc <= r_node and bd >= r_node:
                found += 1
                if tdeg[c] <= 1:
                    _accumulate(indptr, indices, tdeg, gdeg, c, -1, logB_dead, out, stack, acc,
                                came, depth)
                else:
                    _accumulate(indptr, indices, tdeg, gdeg, c, -1, logB_alive, out, stack, acc,
                                came, depth)
    if r_edge >= 0:
        for c in range(n):
            p = parent[c]
            if p < 0:
                continue
            ecc = down[c] if down[c] > up[c] - 1 else up[c] - 1
            bd = bdown[c] if bdown[c] < bup[c] - 1 else bup[c] - 1
            if ecc <= r_edge and bd >= r_edge:
                found += 1
                _accumulate(indptr, indices, tdeg, gdeg, c, p, logB_move, out, stack, acc, came,
                            depth)
                _accumulate(indptr, indices, tdeg, gdeg, p, c, logB_move, out, stack, acc, came,
                            depth)
    return found


cdef void ml_ball(const int64_t[::1] par, const int64_t[::1] gdeg, int64_t c,
                  const double[::1] logB, const double[::1] logk, double[::1] out,
                  double[::1] acc, int64_t[::1] dist) noexcept nogil:
    """:func:`ml_tree`'s scores when the snapshot is a complete ball around a known centre
    ``c`` (see :func:`anonspread.engine.scoring.ml_ball`): the same accumulation from c,
    over the infection-tree parents ``par`` (local ids in infection order, -1 for the
    source), the same floating-point scores bit for bit. ``c`` must not be the source."""
    anonspread_ml_ball(&par[0], &gdeg[0], par.shape[0], c, &logB[0], logB.shape[0], &logk[0],
                       &out[0], &acc[0], &dist[0])


# ----------------------------------------------------------------- Python entries
# (typed; :mod:`anonspread.engine.scoring` converts and allocates)


def py_tree_passes(const int64_t[::1] indptr, const int32_t[::1] indices,
                   const int32_t[::1] order, const int32_t[::1] parent, const uint8_t[::1] mark,
                   int64_t[::1] down, int64_t[::1] up, int64_t[::1] bdown, int64_t[::1] bup):
    with nogil:
        tree_passes(indptr, indices, order, order.shape[0], parent, mark, down, up, bdown, bup)


def py_tree_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                         int64_t[::1] out):
    tree_eccentricity(indptr, indices, out)


def py_graph_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                          int64_t[::1] out):
    graph_eccentricity(indptr, indices, out)


def py_score_summary(const double[::1] sc, int64_t s, double rtol, uint8_t[::1] top):
    cdef Summary r
    with nogil:
        r = score_summary(sc, s, rtol, top)
    return r.greater, r.tied


def py_graph_jordan_top(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                        uint8_t[::1] top):
    cdef JordanTop r = graph_jordan_top(indptr, indices, s, top)
    return r.t, r.emin, r.less, r.tied, r.nbfs


def py_within_radius(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t T,
                     uint8_t[::1] out):
    """``out[v] = 1`` iff every node is within ``T`` hops of v (``ecc(v) <= T``), by the
    Jordan certification's bounds with the threshold ``T`` (:func:`_jordan_place`,
    ``thresh``), the first BFS from the node of largest degree; returns the BFS
    equivalents. The graph must be connected and symmetric, with at least one node."""
    cdef int64_t n = indptr.shape[0] - 1, v, s = 0
    cdef int64_t[::1] lo = np.zeros(n, np.int64)
    cdef int64_t[::1] hi = np.full(n, BIG, np.int64)
    cdef int64_t[::1] trace = np.zeros(1, np.int64)
    cdef int64_t res[3]
    with nogil:
        for v in range(n):
            if indptr[v + 1] - indptr[v] > indptr[s + 1] - indptr[s]:
                s = v
        _jordan_place(indptr, indices, s, lo, hi, -1, trace, res, 2, 16, True, T)
        for v in range(n):
            out[v] = hi[v] <= T
    return res[1]


def py_jordan_place(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t s,
                    int64_t[::1] lo, int64_t[::1] hi, int64_t max_passes, int64_t[::1] trace,
                    int64_t rule=2, int64_t phase1_max=16, bint hybrid=True):
    cdef int64_t res[3]
    _jordan_place(indptr, indices, s, lo, hi, max_passes, trace, res, rule, phase1_max, hybrid)
    return res[0], res[1], res[2]


def py_graph_radius(const int64_t[::1] indptr, const int32_t[::1] indices):
    return graph_radius(indptr, indices)


def py_bitparallel_eccentricity(const int64_t[::1] indptr, const int32_t[::1] indices,
                                int64_t[::1] lo, int64_t[::1] hi, int64_t t, int64_t ehi):
    return bitparallel_eccentricity(indptr, indices, lo, hi, t, ehi)


def py_bp_pass(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] srcs,
               int64_t cnt, uint64_t[::1] seen, uint64_t[::1] cur, uint64_t[::1] nxt,
               int64_t[::1] active, int64_t[::1] touched, int64_t[::1] lo, int64_t[::1] ecc,
               uint8_t[::1] dmat=None, int64_t[::1] rest=None):
    # ``dmat`` (n * 64 bytes) and ``rest`` (n int64: bottom-up levels) optional
    cdef uint8_t *dm = NULL if dmat is None else &dmat[0]
    cdef int64_t *rs = NULL if rest is None else &rest[0]
    with nogil:
        _bp_pass(indptr, indices, &srcs[0], cnt, &seen[0], &cur[0], &nxt[0], &active[0],
                 &touched[0], &lo[0], &ecc[0], dm, rs)


def py_offset_bfs(const int64_t[::1] indptr, const int32_t[::1] indices,
                  const int64_t[::1] srcs, const int64_t[::1] off, int64_t cnt,
                  int32_t[::1] order, int32_t[::1] dist, int32_t[::1] rest=None):
    # ``rest`` (n int32): bottom-up levels
    cdef int64_t k
    cdef int32_t *rs = NULL if rest is None else &rest[0]
    with nogil:
        k = _offset_bfs(indptr, indices, &srcs[0], &off[0], cnt, order, dist, rs)
    return k


def py_bp_bounds(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] srcs,
                 int64_t cnt, const int64_t[::1] ecc, int64_t[::1] lo, int64_t[::1] hi,
                 int32_t[::1] order, int32_t[::1] dist, int64_t[::1] off):
    with nogil:
        _bp_bounds(indptr, indices, &srcs[0], cnt, &ecc[0], &lo[0], &hi[0], order, dist, &off[0])


def py_ml_tree(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] gdeg,
               bint check_boundary, int64_t r_node, const double[::1] logB_alive,
               const double[::1] logB_dead, int64_t r_edge, const double[::1] logB_move,
               double[::1] out, int64_t[::1] tdeg, uint8_t[::1] mark, int32_t[::1] order,
               int32_t[::1] parent, int32_t[::1] dist, int64_t[::1] down, int64_t[::1] up,
               int64_t[::1] bdown, int64_t[::1] bup, int32_t[::1] stack, double[::1] acc,
               int32_t[::1] came, int64_t[::1] depth):
    cdef int64_t found
    with nogil:
        found = ml_tree(indptr, indices, gdeg, check_boundary, r_node, logB_alive, logB_dead,
                        r_edge, logB_move, out, tdeg, mark, order, parent, dist, down, up, bdown,
                        bup, stack, acc, came, depth)
    return found


def py_ml_tree_walks(const int64_t[::1] indptr, const int32_t[::1] indices,
                     const int64_t[::1] gdeg, bint check_boundary, int64_t r_node,
                     const double[::1] logB_alive, const double[::1] logB_dead, int64_t r_edge,
                     const double[::1] logB_move, double[::1] out, int64_t[::1] tdeg,
                     uint8_t[::1] mark, int32_t[::1] order, int32_t[::1] parent,
                     int32_t[::1] dist, int64_t[::1] down, int64_t[::1] up, int64_t[::1] bdown,
                     int64_t[::1] bup, int32_t[::1] stack, double[::1] acc, int32_t[::1] came,
                     int64_t[::1] depth):
    cdef int64_t found
    with nogil:
        found = ml_tree_walks(indptr, indices, gdeg, check_boundary, r_node, logB_alive,
                              logB_dead, r_edge, logB_move, out, tdeg, mark, order, parent, dist,
                              down, up, bdown, bup, stack, acc, came, depth)
    return found


def py_ml_ball(const int64_t[::1] par, const int64_t[::1] gdeg, int64_t c, const double[::1] logB,
               const double[::1] logk, double[::1] out, double[::1] acc, int64_t[::1] dist):
    with nogil:
        ml_ball(par, gdeg, c, logB, logk, out, acc, dist)


def py_bfs(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t root,
           int32_t[::1] order, int32_t[::1] parent, int32_t[::1] dist):
    cdef int64_t k
    with nogil:
        k = bfs(indptr, indices, root, order, parent, dist)
    return k
