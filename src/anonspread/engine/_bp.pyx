# cython: language_level=3
"""Belief propagation over infection times for discrete-time SI spreading (random diffusion,
flooding) (see :mod:`anonspread.engine.bp` for the model and the maths). Two kernels with
the same sweeps: the log domain (``sweep``, ``beliefs``; never underflows) and the linear
domain with per-message scaling (``sweep_lin``, ``beliefs_lin``; about 15x faster), which
hands a run back to the log domain when a normaliser underflows.

Graph: the infected subgraph as CSR over local ids ``0..n-1`` (``indptr`` int64,
``indices`` int32), ``rev[e]`` the CSR position of the reverse of directed edge ``e``,
``extra[i]`` the number of uninfected contacts of ``i``. Times ``t = 0..T`` (``L = T + 1``).

A message ``i -> j`` is two log vectors over ``t_i``: ``d`` (``i`` infected at ``t_i`` by a
contact other than ``j``, or ``i`` the source at ``t_i = 0``) and ``a`` (no contact other than
``j`` reached ``i`` before ``t_i``; ``i`` needs ``j``'s transmission at exactly ``t_i``):
``M(t_i, t_j) = S(t_i + 1 - t_j) d(t_i) + P(t_i - t_j) a(t_i)`` with ``S(x) = q^max(x-1, 0)``
and ``P(x) = p q^(x-1)`` for ``x >= 1`` (else 0), ``q = 1 - p``. Every term is nonnegative,
so no log-domain subtraction is ever needed.
"""

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY, exp, fabs, log, log1p
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

cdef extern from *:
    """
    #ifdef _OPENMP
    #define ANONSPREAD_BP_OPENMP 1
    #else
    #define ANONSPREAD_BP_OPENMP 0
    #endif
    """
    int ANONSPREAD_BP_OPENMP

OPENMP = bool(ANONSPREAD_BP_OPENMP)

cdef double NINF = -INFINITY


cdef inline double lae(double a, double b) noexcept nogil:
    # log(exp(a) + exp(b)); a term 2^-60 below the other changes nothing in double precision
    if a == NINF:
        return b
    if b == NINF:
        return a
    if a > b:
        if b - a < -42.0:
            return a
        return a + log1p(exp(b - a))
    if a - b < -42.0:
        return b
    return b + log1p(exp(a - b))


cdef inline double ladd(double a, double b) noexcept nogil:
    # log(x * y); -inf absorbs (no +inf ever occurs)
    if a == NINF or b == NINF:
        return NINF
    return a + b


cdef inline double lphi(int64_t e, int64_t T, int64_t t, double lq) noexcept nogil:
    # log q^(e (T - t)): each uninfected contact escaped every step after t
    if e == 0 or t == T:
        return 0.0
    if lq == NINF:
        return NINF
    return <double> (e * (T - t)) * lq


cdef struct Work:
    int64_t L
    int64_t maxdeg
    double *lB      # maxdeg x L: contraction B of each incoming message
    double *lD      # maxdeg x L: contraction D
    double *pa      # (maxdeg + 1) x L: prefix products (alpha, beta, delta)
    double *pb
    double *pd
    double *sa      # suffix products
    double *sb
    double *sd
    double *F       # L scratch
    double *G
    double *H
    double *newm    # 2L scratch: the new message


cdef int work_alloc(Work *w, int64_t L, int64_t maxdeg) noexcept nogil:
    cdef int64_t m = maxdeg if maxdeg > 0 else 1
    w.L = L
    w.maxdeg = m
    w.lB = <double *> malloc((2 * m * L + 6 * (m + 1) * L + 5 * L) * sizeof(double))
    if w.lB == NULL:
        return -1
    w.lD = w.lB + m * L
    w.pa = w.lD + m * L
    w.pb = w.pa + (m + 1) * L
    w.pd = w.pb + (m + 1) * L
    w.sa = w.pd + (m + 1) * L
    w.sb = w.sa + (m + 1) * L
    w.sd = w.sb + (m + 1) * L
    w.F = w.sd + (m + 1) * L
    w.G = w.F + L
    w.H = w.G + L
    w.newm = w.H + L
    return 0


cdef void work_free(Work *w) noexcept nogil:
    free(w.lB)
    w.lB = NULL


cdef void contract(const double *msg, int64_t L, double lp, double lq, double *lB, double *lD,
                   Work *w) noexcept nogil:
    """The message ``k -> i`` summed over ``t_k`` against ``i``'s factor:
    ``B(t) = sum_u M(u, t) S(t + 1 - u)`` (k has not reached i by t) and
    ``D(t) = sum_u M(u, t) P(t - u)`` (k reaches i exactly at t), for every t."""
    cdef const double *d = msg
    cdef const double *a = msg + L
    cdef double *F = w.F
    cdef double *G = w.G
    cdef double *H = w.H
    cdef int64_t t
    # F(t) = sum_{u <= t} d(u) q^(t - u); G(t) = sum_{u > t} d(u) q^(u - t);
    # H(t) = sum_{u > t} a(u) q^(u - t - 1)
    F[0] = d[0]
    for t in range(1, L):
        F[t] = lae(ladd(lq, F[t - 1]), d[t])
    G[L - 1] = NINF
    H[L - 1] = NINF
    for t in range(L - 2, -1, -1):
        G[t] = ladd(lq, lae(G[t + 1], d[t + 1]))
        H[t] = lae(a[t + 1], ladd(lq, H[t + 1]))
    for t in range(L):
        lB[t] = lae(lae(F[t], G[t]), ladd(lp, H[t]))
    lD[0] = NINF
    for t in range(1, L):
        lD[t] = ladd(lp, F[t - 1])


cdef void node_products(int64_t i, const int64_t *indptr, const int64_t *rev, const double *msgs,
                        int64_t L, double lp, double lq, Work *w) noexcept nogil:
    """Contractions of every message into ``i`` and their prefix/suffix products."""
    cdef int64_t start = indptr[i]
    cdef int64_t deg = indptr[i + 1] - start
    cdef int64_t m, t
    cdef double *lB
    cdef double *lD
    cdef double la
    for m in range(deg):
        contract(msgs + rev[start + m] * 2 * L, L, lp, lq, w.lB + m * L, w.lD + m * L, w)
    for t in range(L):
        w.pa[t] = 0.0
        w.pb[t] = 0.0
        w.pd[t] = NINF
        w.sa[deg * L + t] = 0.0
        w.sb[deg * L + t] = 0.0
        w.sd[deg * L + t] = NINF
    for m in range(deg):
        lB = w.lB + m * L
        lD = w.lD + m * L
        for t in range(L):
            la = lae(lB[t], lD[t])
            w.pa[(m + 1) * L + t] = ladd(w.pa[m * L + t], la)
            w.pb[(m + 1) * L + t] = ladd(w.pb[m * L + t], lB[t])
            w.pd[(m + 1) * L + t] = lae(ladd(w.pd[m * L + t], lB[t]), ladd(w.pa[m * L + t], lD[t]))
    for m in range(deg - 1, -1, -1):
        lB = w.lB + m * L
        lD = w.lD + m * L
        for t in range(L):
            la = lae(lB[t], lD[t])
            w.sa[m * L + t] = ladd(w.sa[(m + 1) * L + t], la)
            w.sb[m * L + t] = ladd(w.sb[(m + 1) * L + t], lB[t])
            w.sd[m * L + t] = lae(ladd(w.sd[(m + 1) * L + t], lB[t]), ladd(w.sa[(m + 1) * L + t], lD[t]))


cdef double sweep(const int64_t *indptr, const int64_t *rev, const int64_t *extra, int64_t n,
                  int64_t T, double lp, double lq, const double *lcns, const double *lcsrc,
                  double damping, double lcut, double *msgs, Work *w) noexcept nogil:
    """One sequential pass over the nodes (in id order), each sending all its messages.
    Returns the largest change of a message entry (messages normalised to max 1)."""
    cdef int64_t L = T + 1
    cdef int64_t i, m, t, start, deg
    cdef double change = 0.0, mx, v, old, lph, al, be, de
    cdef double l1 = log(1.0 - damping) if damping < 1.0 else NINF
    cdef double l2 = log(damping) if damping > 0.0 else NINF
    cdef double *out
    cdef double *nm = w.newm
    for i in range(n):
        start = indptr[i]
        deg = indptr[i + 1] - start
        if deg == 0:
            continue
        node_products(i, indptr, rev, msgs, L, lp, lq, w)
        for m in range(deg):
            out = msgs + (start + m) * 2 * L
            mx = NINF
            for t in range(L):
                lph = lphi(extra[i], T, t, lq)
                al = ladd(w.pa[m * L + t], w.sa[(m + 1) * L + t])
                be = ladd(w.pb[m * L + t], w.sb[(m + 1) * L + t])
                de = lae(ladd(w.pd[m * L + t], w.sa[(m + 1) * L + t]),
                         ladd(w.pb[m * L + t], w.sd[(m + 1) * L + t]))
                if t == 0:
                    nm[0] = ladd(lcsrc[i], ladd(lph, be))
                    nm[L] = NINF
                else:
                    nm[t] = ladd(lcns[i], ladd(lph, de))
                    nm[L + t] = ladd(lcns[i], ladd(lph, al))
                if nm[t] > mx:
                    mx = nm[t]
                if nm[L + t] > mx:
                    mx = nm[L + t]
            for t in range(2 * L):
                v = nm[t] - mx if (mx != NINF and nm[t] != NINF) else NINF
                if damping > 0.0:
                    v = lae(ladd(l1, v), ladd(l2, out[t]))
                nm[t] = v
            if damping > 0.0:
                mx = NINF
                for t in range(2 * L):
                    if nm[t] > mx:
                        mx = nm[t]
                for t in range(2 * L):
                    nm[t] = nm[t] - mx if (mx != NINF and nm[t] != NINF) else NINF
            for t in range(2 * L):
                # entries below lcut in both sweeps change by less than tol / e^3: skip the exps
                if out[t] > lcut or nm[t] > lcut:
                    old = exp(out[t]) if out[t] != NINF else 0.0
                    v = exp(nm[t]) if nm[t] != NINF else 0.0
                    if fabs(v - old) > change:
                        change = fabs(v - old)
                out[t] = nm[t]
    return change


cdef double beliefs(const int64_t *indptr, const int32_t *indices, const int64_t *rev,
                    const int64_t *extra, int64_t n, int64_t T, double lp, double lq,
                    const double *lcns, const double *lcsrc, const double *msgs, Work *w,
                    double *lsrc, double *marg) noexcept nogil:
    """Bethe log partition function ``sum_i log Z_i - sum_(ij) log Z_ij``; the log source
    marginal of every node in ``lsrc`` and, if ``marg`` is not NULL, every node's time
    marginal ``P(t_i = t)`` (n x L)."""
    cdef int64_t L = T + 1
    cdef int64_t i, m, t, start, deg
    cdef double lz, lzij, total = 0.0, s0, v
    cdef bint dead = False
    cdef const double *out
    for i in range(n):
        start = indptr[i]
        deg = indptr[i + 1] - start
        node_products(i, indptr, rev, msgs, L, lp, lq, w)
        s0 = ladd(lcsrc[i], ladd(lphi(extra[i], T, 0, lq), w.pb[deg * L]))
        lz = s0
        for t in range(1, L):
            lz = lae(lz, ladd(lcns[i], ladd(lphi(extra[i], T, t, lq), w.pd[deg * L + t])))
        if lz == NINF:
            dead = True
            lsrc[i] = NINF
        else:
            lsrc[i] = s0 - lz if s0 != NINF else NINF
            total += lz
        if marg != NULL:
            for t in range(L):
                if lz == NINF:
                    marg[i * L + t] = 0.0
                    continue
                if t == 0:
                    v = s0
                else:
                    v = ladd(lcns[i], ladd(lphi(extra[i], T, t, lq), w.pd[deg * L + t]))
                marg[i * L + t] = exp(v - lz) if v != NINF else 0.0
        for m in range(deg):
            if indices[start + m] <= i:
                continue
            out = msgs + (start + m) * 2 * L
            lzij = NINF
            for t in range(L):
                lzij = lae(lzij, ladd(out[t], w.lB[m * L + t]))
                lzij = lae(lzij, ladd(out[L + t], w.lD[m * L + t]))
            if lzij == NINF:
                dead = True
            else:
                total -= lzij
    if dead:
        return NINF
    return total


cdef void init_msgs(double *msgs, int64_t nnz, int64_t L) noexcept nogil:
    cdef int64_t e, t
    for e in range(nnz):
        for t in range(2 * L):
            msgs[e * 2 * L + t] = 0.0
        msgs[e * 2 * L + L] = NINF


cdef inline bint stalled(double c, double *mark, int64_t *since, int64_t stall) noexcept nogil:
    """True when ``stall`` (> 0) sweeps have passed since the largest change last fell below
    half of its value at the previous such fall (``mark``): the residual neither converges
    nor decays geometrically at a useful rate (a run that halves its residual more slowly
    than once per ``stall`` sweeps needs more than ``30 * stall`` sweeps to go from 1 to
    1e-9). ``mark`` starts at +inf, ``since`` at 0."""
    if stall <= 0:
        return False
    if c < 0.5 * mark[0]:
        mark[0] = c
        since[0] = 0
        return False
    since[0] += 1
    return since[0] >= stall


cdef int64_t run(const int64_t *indptr, const int64_t *rev, const int64_t *extra, int64_t n,
                 int64_t T, double lp, double lq, const double *lcns, const double *lcsrc,
                 double damping, double tol, int64_t max_iter, double *msgs, Work *w,
                 double *change, int64_t stall) noexcept nogil:
    """Sweeps until the largest change is below ``tol``, ``max_iter`` sweeps, or the change
    stalls (``stalled``, with ``stall`` > 0); returns the number of sweeps, the last change
    in ``change``."""
    cdef int64_t it = 0, since = 0
    cdef double c = 0.0, mark = INFINITY
    while it < max_iter:
        c = sweep(indptr, rev, extra, n, T, lp, lq, lcns, lcsrc, damping, log(tol) - 3.0, msgs, w)
        it += 1
        if c < tol:
            break
        if stalled(c, &mark, &since, stall):
            break
    change[0] = c
    return it


# ---------------------------------------------------------------------------------------------
# The linear-domain kernel: the same messages and the same sequential sweeps as above, kept as
# plain numbers instead of logs. Every message is normalised to max 1 (as in the log domain)
# and every contraction (B, D) of an incoming message to max_t (B + D) = 1, so every product
# over a node's neighbours stays in [0, 1]; only the Bethe free energy needs the contractions'
# scales, and takes their logs once, in ``beliefs_lin``. Entries below FLUSH are set to 0
# (they are at most FLUSH of their vector's maximum; keeping them would only cost subnormal
# arithmetic). If a normaliser falls below GUARD (a message, a contraction or a node's belief
# whose whole mass is that small), the dropped entries could matter: the run reports it and
# the caller re-runs the log-domain kernel from the start. Otherwise every entry carries an
# absolute error of at most ~deg * FLUSH against a maximum >= GUARD: relative 1e-80 or less.
# ---------------------------------------------------------------------------------------------

cdef double FLUSH = 1e-250
cdef double GUARD = 1e-150


cdef struct LWork:
    int64_t L
    double *B       # maxdeg x L: contraction B of each incoming message (scaled)
    double *D       # maxdeg x L: contraction D (same scale)
    double *lc      # maxdeg: log of each contraction's scale (beliefs only)
    double *pa      # (maxdeg + 1) x L: prefix products (alpha, beta, delta)
    double *pb
    double *pd
    double *sa      # suffix products
    double *sb
    double *sd
    double *newm    # 2L scratch: the new message


cdef int lwork_alloc(LWork *w, int64_t L, int64_t maxdeg) noexcept nogil:
    cdef int64_t m = maxdeg if maxdeg > 0 else 1
    w.L = L
    w.B = <double *> malloc((2 * m * L + m + 6 * (m + 1) * L + 2 * L) * sizeof(double))
    if w.B == NULL:
        return -1
    w.D = w.B + m * L
    w.lc = w.D + m * L
    w.pa = w.lc + m
    w.pb = w.pa + (m + 1) * L
    w.pd = w.pb + (m + 1) * L
    w.sa = w.pd + (m + 1) * L
    w.sb = w.sa + (m + 1) * L
    w.sd = w.sb + (m + 1) * L
    w.newm = w.sd + (m + 1) * L
    return 0


cdef void lwork_free(LWork *w) noexcept nogil:
    free(w.B)
    w.B = NULL


cdef double contract_lin(const double *msg, int64_t L, double p, double q, double *B,
                         double *D, bint flush) noexcept nogil:
    """``contract`` in the linear domain, by the same geometric recursions; B and D are
    scaled so that ``max_t B(t) + D(t) = 1``. Returns the scale (``< GUARD``: underflow)."""
    cdef const double *d = msg
    cdef const double *a = msg + L
    cdef double F = 0.0, G = 0.0, H = 0.0, c = 0.0, v, inv
    cdef int64_t t
    # backward: B(t) <- G(t) + p H(t) with G(t) = q (G(t+1) + d(t+1)), H(t) = a(t+1) + q H(t+1)
    B[L - 1] = 0.0
    for t in range(L - 2, -1, -1):
        G = q * (G + d[t + 1])
        H = a[t + 1] + q * H
        B[t] = G + p * H
    # forward: F(t) = q F(t-1) + d(t); B(t) += F(t); D(t) = p F(t-1)
    D[0] = 0.0
    for t in range(L):
        if t > 0:
            D[t] = p * F
        F = q * F + d[t]
        B[t] += F
        v = B[t] + D[t]
        if v > c:
            c = v
    if c < GUARD:
        return c
    inv = 1.0 / c
    for t in range(L):
        B[t] *= inv
        D[t] *= inv
        if flush:
            if B[t] < FLUSH:
                B[t] = 0.0
            if D[t] < FLUSH:
                D[t] = 0.0
    return c


cdef int node_products_lin(int64_t i, const int64_t *indptr, const int64_t *rev,
                           const double *msgs, int64_t L, double p, double q, LWork *w,
                           bint logs) noexcept nogil:
    """Contractions of every message into ``i`` and their prefix/suffix products; with
    ``logs`` the log scale of each contraction in ``w.lc``. Returns -1 on underflow."""
    cdef int64_t start = indptr[i]
    cdef int64_t deg = indptr[i + 1] - start
    cdef int64_t m, t
    cdef double c, b, dd
    cdef double *Bm
    cdef double *Dm
    cdef double *pa = w.pa
    cdef double *pb = w.pb
    cdef double *pd = w.pd
    cdef double *sa = w.sa
    cdef double *sb = w.sb
    cdef double *sd = w.sd
    for m in range(deg):
        c = contract_lin(msgs + rev[start + m] * 2 * L, L, p, q, w.B + m * L, w.D + m * L,
                         not logs)
        if c < GUARD:
            return -1
        if logs:
            w.lc[m] = log(c)
    for t in range(L):
        pa[t] = 1.0
        pb[t] = 1.0
        pd[t] = 0.0
        sa[deg * L + t] = 1.0
        sb[deg * L + t] = 1.0
        sd[deg * L + t] = 0.0
    for m in range(deg):
        Bm = w.B + m * L
        Dm = w.D + m * L
        for t in range(L):
            b = Bm[t]
            dd = Dm[t]
            pd[(m + 1) * L + t] = pd[m * L + t] * b + pa[m * L + t] * dd
            pb[(m + 1) * L + t] = pb[m * L + t] * b
            pa[(m + 1) * L + t] = pa[m * L + t] * (b + dd)
    for m in range(deg - 1, -1, -1):
        Bm = w.B + m * L
        Dm = w.D + m * L
        for t in range(L):
            b = Bm[t]
            dd = Dm[t]
            sd[m * L + t] = sd[(m + 1) * L + t] * b + sa[(m + 1) * L + t] * dd
            sb[m * L + t] = sb[(m + 1) * L + t] * b
            sa[m * L + t] = sa[(m + 1) * L + t] * (b + dd)
    return 0


cdef double sweep_lin(const int64_t *indptr, const int64_t *rev, int64_t n, int64_t T,
                      double p, double q, const double *phi, const double *cns,
                      const double *csrc, double damping, double *msgs, LWork *w,
                      int *bad) noexcept nogil:
    """``sweep`` in the linear domain (same order, same updates, same change measure);
    sets ``bad`` and stops at the first normaliser below GUARD."""
    cdef int64_t L = T + 1
    cdef int64_t i, m, t, start, deg
    cdef double change = 0.0, mx, v, inv, w0, wt, ch
    cdef double *out
    cdef double *nm = w.newm
    cdef const double *ph
    cdef double *pa = w.pa
    cdef double *pb = w.pb
    cdef double *pd = w.pd
    cdef double *sa = w.sa
    cdef double *sb = w.sb
    cdef double *sd = w.sd
    for i in range(n):
        start = indptr[i]
        deg = indptr[i + 1] - start
        if deg == 0:
            continue
        if node_products_lin(i, indptr, rev, msgs, L, p, q, w, False) != 0:
            bad[0] = 1
            return change
        ph = phi + i * L
        w0 = csrc[i] * ph[0]
        for m in range(deg):
            out = msgs + (start + m) * 2 * L
            nm[0] = w0 * pb[m * L] * sb[(m + 1) * L]
            nm[L] = 0.0
            mx = nm[0]
            for t in range(1, L):
                wt = cns[i] * ph[t]
                nm[t] = wt * (pd[m * L + t] * sa[(m + 1) * L + t]
                              + pb[m * L + t] * sd[(m + 1) * L + t])
                nm[L + t] = wt * pa[m * L + t] * sa[(m + 1) * L + t]
                if nm[t] > mx:
                    mx = nm[t]
                if nm[L + t] > mx:
                    mx = nm[L + t]
            if mx < GUARD:
                bad[0] = 1
                return change
            inv = 1.0 / mx
            if damping > 0.0:
                mx = 0.0
                for t in range(2 * L):
                    v = (1.0 - damping) * (nm[t] * inv) + damping * out[t]
                    nm[t] = v
                    if v > mx:
                        mx = v
                inv = 1.0 / mx
            for t in range(2 * L):
                v = nm[t] * inv
                if v < FLUSH:
                    v = 0.0
                ch = fabs(v - out[t])
                if ch > change:
                    change = ch
                out[t] = v
    return change


cdef double beliefs_lin(const int64_t *indptr, const int32_t *indices, const int64_t *rev,
                        int64_t n, int64_t T, double p, double q, const double *phi,
                        const double *cns, const double *csrc, const double *lcns,
                        const double *lcsrc, const double *lphi0, const double *msgs,
                        LWork *w, double *lsrc, double *marg, int *bad) noexcept nogil:
    """``beliefs`` in the linear domain; sets ``bad`` (and returns -inf) where a belief,
    an edge term or a source weight underflows, for the caller to use the log kernel."""
    cdef int64_t L = T + 1
    cdef int64_t i, m, t, start, deg
    cdef double total = 0.0, s0, S, Sij, sumlc, lb0, v
    cdef const double *out
    cdef const double *ph
    cdef bint dead = False
    for i in range(n):
        start = indptr[i]
        deg = indptr[i + 1] - start
        if node_products_lin(i, indptr, rev, msgs, L, p, q, w, True) != 0:
            bad[0] = 1
            return NINF
        ph = phi + i * L
        sumlc = 0.0
        lb0 = 0.0
        for m in range(deg):
            sumlc += w.lc[m]
            if lcsrc[i] != NINF:
                if w.B[m * L] <= 0.0:
                    bad[0] = 1
                    return NINF
                lb0 += log(w.B[m * L])
        s0 = csrc[i] * ph[0] * w.pb[deg * L]
        S = s0
        for t in range(1, L):
            S += cns[i] * ph[t] * w.pd[deg * L + t]
        if S < GUARD:
            # impossible, or too small for this domain: the log kernel says which
            bad[0] = 1
            return NINF
        # the source weight from its factors' logs, so that it never underflows
        lsrc[i] = (lcsrc[i] + lphi0[i] + lb0 - log(S)) if lcsrc[i] != NINF else NINF
        total += log(S) + sumlc
        if marg != NULL:
            v = 1.0 / S
            marg[i * L] = s0 * v
            for t in range(1, L):
                marg[i * L + t] = cns[i] * ph[t] * w.pd[deg * L + t] * v
        for m in range(deg):
            if indices[start + m] <= i:
                continue
            out = msgs + (start + m) * 2 * L
            Sij = 0.0
            for t in range(L):
                Sij += out[t] * w.B[m * L + t] + out[L + t] * w.D[m * L + t]
            if Sij < GUARD:
                bad[0] = 1
                return NINF
            total -= log(Sij) + w.lc[m]
    return total


cdef void init_msgs_lin(double *msgs, int64_t nnz, int64_t L) noexcept nogil:
    cdef int64_t e, t
    for e in range(nnz):
        for t in range(2 * L):
            msgs[e * 2 * L + t] = 1.0
        msgs[e * 2 * L + L] = 0.0


cdef int64_t run_lin(const int64_t *indptr, const int64_t *rev, int64_t n, int64_t T, double p,
                     double q, const double *phi, const double *cns, const double *csrc,
                     double damping, double tol, int64_t max_iter, double *msgs, LWork *w,
                     double *change, int *bad, int64_t stall) noexcept nogil:
    cdef int64_t it = 0, since = 0
    cdef double c = 0.0, mark = INFINITY
    while it < max_iter:
        c = sweep_lin(indptr, rev, n, T, p, q, phi, cns, csrc, damping, msgs, w, bad)
        it += 1
        if bad[0]:
            break
        if c < tol:
            break
        if stalled(c, &mark, &since, stall):
            break
    change[0] = c
    return it


cdef void phi_table(const int64_t *extra, int64_t n, int64_t T, double lq, double *phi,
                    double *lphi0) noexcept nogil:
    """``phi[i, t] = q^(extra_i (T - t))`` (entries below FLUSH set to 0) and
    ``lphi0[i] = log phi[i, 0]`` exactly."""
    cdef int64_t i, t, L = T + 1
    cdef double v
    for i in range(n):
        lphi0[i] = lphi(extra[i], T, 0, lq)
        for t in range(L):
            v = lphi(extra[i], T, t, lq)
            v = exp(v) if v != NINF else 0.0
            phi[i * L + t] = v if v >= FLUSH else 0.0


#: Kernels of ``bp_run`` / ``bp_clamped``: 0 the linear domain (falling back to the log
#: domain for a run whose normalisers underflow), 1 the log domain only.
KERNEL_AUTO = 0
KERNEL_LOG = 1


def bp_run(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] rev,
           const int64_t[::1] extra, int64_t T, double p, const double[::1] lcns,
           const double[::1] lcsrc, double damping, double tol, int64_t max_iter,
           double[::1] msgs, double[::1] lsrc, double[:, ::1] marg, int kernel,
           int64_t stall=0):
    """One BP run with per-node log weights of being a non-source (``lcns``) and the source
    (``lcsrc``); ``msgs`` (``max(nnz, 1) * 2 * (T + 1)`` doubles) is scratch for the
    messages. Returns ``(bethe_log_z, sweeps, last_change, used_log)``; fills ``lsrc`` and
    ``marg``. ``kernel``: ``KERNEL_AUTO`` or ``KERNEL_LOG``; ``stall``: stop a run whose
    change has not halved in that many sweeps (0: never)."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t L = T + 1
    cdef int64_t nnz = indptr[n]
    cdef int64_t maxdeg = 0, i, t, it = 0
    cdef double change = 0.0, logz = NINF
    cdef double lp = log(p) if p > 0.0 else NINF
    cdef double lq = log1p(-p) if p < 1.0 else NINF
    cdef int bad = 1 if kernel == 1 else 0
    cdef Work w
    cdef LWork lw
    cdef double *tab = NULL
    for i in range(n):
        if indptr[i + 1] - indptr[i] > maxdeg:
            maxdeg = indptr[i + 1] - indptr[i]
    if not bad:
        tab = <double *> malloc((n * L + 3 * n) * sizeof(double))
        if tab == NULL or lwork_alloc(&lw, L, maxdeg) != 0:
            free(tab)
            raise MemoryError("bp: cannot allocate the work arrays")
        with nogil:
            phi_table(&extra[0], n, T, lq, tab, tab + n * L)
            for i in range(n):
                tab[n * L + n + i] = exp(lcns[i])
                tab[n * L + 2 * n + i] = exp(lcsrc[i])
            init_msgs_lin(&msgs[0], nnz, L)
            if nnz > 0:
                it = run_lin(&indptr[0], &rev[0], n, T, p, 1.0 - p, tab, tab + n * L + n,
                             tab + n * L + 2 * n, damping, tol, max_iter, &msgs[0], &lw,
                             &change, &bad, stall)
            if not bad:
                logz = beliefs_lin(&indptr[0], &indices[0], &rev[0] if nnz > 0 else NULL, n, T,
                                   p, 1.0 - p, tab, tab + n * L + n, tab + n * L + 2 * n,
                                   &lcns[0], &lcsrc[0], tab + n * L, &msgs[0], &lw, &lsrc[0],
                                   &marg[0, 0], &bad)
        lwork_free(&lw)
        free(tab)
        if not bad:
            return logz, it, change, False
    if work_alloc(&w, L, maxdeg) != 0:
        raise MemoryError("bp: cannot allocate the work arrays")
    change = 0.0
    it = 0
    with nogil:
        init_msgs(&msgs[0], nnz, L)
        for i in range(n):
            lsrc[i] = NINF
            for t in range(L):
                marg[i, t] = 0.0
        if nnz > 0:
            it = run(&indptr[0], &rev[0], &extra[0], n, T, lp, lq, &lcns[0], &lcsrc[0], damping,
                     tol, max_iter, &msgs[0], &w, &change, stall)
        logz = beliefs(&indptr[0], &indices[0], &rev[0] if nnz > 0 else NULL, &extra[0], n,
                       T, lp, lq, &lcns[0], &lcsrc[0], &msgs[0] if nnz > 0 else NULL, &w,
                       &lsrc[0], &marg[0, 0])
    work_free(&w)
    return logz, it, change, True


cdef int64_t ecc_within(const int64_t *indptr, const int32_t *indices, int64_t n, int64_t s,
                        int64_t T, int64_t *dist, int64_t *queue) noexcept nogil:
    """1 if every node is within T hops of s (a source must reach them all), else 0."""
    cdef int64_t i, head = 0, tail = 1, x, e, y, seen = 1
    for i in range(n):
        dist[i] = -1
    dist[s] = 0
    queue[0] = s
    while head < tail:
        x = queue[head]
        head += 1
        if dist[x] >= T:
            continue
        for e in range(indptr[x], indptr[x + 1]):
            y = indices[e]
            if dist[y] < 0:
                dist[y] = dist[x] + 1
                queue[tail] = y
                tail += 1
                seen += 1
    return 1 if seen == n else 0


def bp_clamped(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] rev,
               const int64_t[::1] extra, int64_t T, double p, const int64_t[::1] cands,
               double damping, double tol, int64_t max_iter, int threads,
               double[::1] logz, int64_t[::1] iters, double[::1] changes, int kernel,
               int64_t[::1] used_log, int64_t stall=0):
    """Per candidate source ``s`` in ``cands``: BP with ``s`` the source at time 0 and every
    other node a non-source; ``logz[c]`` the Bethe log-likelihood (``-inf`` when ``s`` is
    more than T hops from some node), ``iters[c]`` sweeps, ``changes[c]`` the last change,
    ``used_log[c]`` 1 where the log-domain kernel ran (``kernel`` ``KERNEL_LOG``, or the
    linear one underflowed). Candidates are shared among ``threads`` OpenMP threads (each
    with its own messages)."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t nnz = indptr[n]
    cdef int64_t L = T + 1
    cdef int64_t nc = cands.shape[0]
    cdef int64_t maxdeg = 0, i, c, s, j, tid
    cdef double lp = log(p) if p > 0.0 else NINF
    cdef double lq = log1p(-p) if p < 1.0 else NINF
    cdef int nthr = threads if threads >= 1 else 1
    cdef int64_t per = nnz * 2 * L + 5 * n + 1
    cdef Work *ws = <Work *> malloc(nthr * sizeof(Work))
    cdef LWork *lws = <LWork *> malloc(nthr * sizeof(LWork))
    cdef double *buf = <double *> malloc(nthr * per * sizeof(double))
    cdef int64_t *ibuf = <int64_t *> malloc(nthr * (2 * n + 1) * sizeof(int64_t))
    cdef double *tab = <double *> malloc((n * L + n + 1) * sizeof(double))
    cdef double *msgs
    cdef double *lcns
    cdef double *lcsrc
    cdef double *lsrc
    cdef double *cns
    cdef double *csrc
    cdef int64_t *dist
    cdef int64_t *queue
    cdef double ch
    cdef int64_t it
    cdef int nok = 0, nlok = 0, bad
    for i in range(n):
        if indptr[i + 1] - indptr[i] > maxdeg:
            maxdeg = indptr[i + 1] - indptr[i]
    if ws != NULL and lws != NULL:
        for tid in range(nthr):
            if work_alloc(&ws[tid], L, maxdeg) != 0:
                break
            nok += 1
            if lwork_alloc(&lws[tid], L, maxdeg) != 0:
                break
            nlok += 1
    if ws == NULL or lws == NULL or buf == NULL or ibuf == NULL or tab == NULL \
            or nok < nthr or nlok < nthr:
        for tid in range(nok):
            work_free(&ws[tid])
        for tid in range(nlok):
            lwork_free(&lws[tid])
        free(ws)
        free(lws)
        free(buf)
        free(ibuf)
        free(tab)
        raise MemoryError(f"bp: cannot allocate the messages of {nthr} thread(s) "
                          f"({nthr * per * 8} bytes)")
    with nogil:
        phi_table(&extra[0], n, T, lq, tab, tab + n * L)
        for c in prange(nc, num_threads=nthr, schedule="dynamic"):
            tid = threadid()
            msgs = buf + tid * per
            lcns = msgs + nnz * 2 * L
            lcsrc = lcns + n
            lsrc = lcsrc + n
            cns = lsrc + n
            csrc = cns + n
            dist = ibuf + tid * (2 * n + 1)
            queue = dist + n
            s = cands[c]
            ch = 0.0
            it = 0
            bad = 1 if kernel == 1 else 0
            used_log[c] = 0
            if not ecc_within(&indptr[0], &indices[0], n, s, T, dist, queue):
                logz[c] = NINF
            else:
                for j in range(n):
                    lcns[j] = 0.0
                    lcsrc[j] = NINF
                    cns[j] = 1.0
                    csrc[j] = 0.0
                lcns[s] = NINF
                lcsrc[s] = 0.0
                cns[s] = 0.0
                csrc[s] = 1.0
                if not bad:
                    init_msgs_lin(msgs, nnz, L)
                    if nnz > 0:
                        it = run_lin(&indptr[0], &rev[0], n, T, p, 1.0 - p, tab, cns, csrc,
                                     damping, tol, max_iter, msgs, &lws[tid], &ch, &bad, stall)
                    if not bad:
                        logz[c] = beliefs_lin(&indptr[0], &indices[0],
                                              &rev[0] if nnz > 0 else NULL, n, T, p, 1.0 - p,
                                              tab, cns, csrc, lcns, lcsrc, tab + n * L, msgs,
                                              &lws[tid], lsrc, NULL, &bad)
                if bad:
                    used_log[c] = 1
                    ch = 0.0
                    it = 0
                    init_msgs(msgs, nnz, L)
                    if nnz > 0:
                        it = run(&indptr[0], &rev[0], &extra[0], n, T, lp, lq, lcns, lcsrc,
                                 damping, tol, max_iter, msgs, &ws[tid], &ch, stall)
                    logz[c] = beliefs(&indptr[0], &indices[0], &rev[0] if nnz > 0 else NULL,
                                      &extra[0], n, T, lp, lq, lcns, lcsrc, msgs, &ws[tid],
                                      lsrc, NULL)
            iters[c] = it
            changes[c] = ch
    for tid in range(nthr):
        work_free(&ws[tid])
        lwork_free(&lws[tid])
    free(ws)
    free(lws)
    free(buf)
    free(ibuf)
    free(tab)


def tree_loglik(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] rev,
                const int64_t[::1] extra, int64_t T, double p, double[::1] out):
    """Exact ``log P(snapshot | s)`` of every node s of a tree-shaped infected subgraph: the
    no-source messages (every node of a subtree infected through its root edge) in two
    passes (leaves to root, root to leaves), then ``log phi_s(0) + sum_k log B_k->s(0)``."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t L = T + 1
    cdef int64_t nnz = indptr[n]
    cdef double lp = log(p) if p > 0.0 else NINF
    cdef double lq = log1p(-p) if p < 1.0 else NINF
    cdef int64_t[::1] order = _bfs_order(indptr, indices)
    cdef int64_t[::1] parent_pos = _parent_positions(indptr, indices, order)
    # lb[e]: contraction B(t) at j of the message i -> j, for CSR position e of j in i's list
    cdef double[::1] lb = _full(nnz * L + 1)
    cdef double[::1] a = _full(L)
    cdef double[::1] pre = _full(L * (n + 1))
    cdef double[::1] suf = _full(L * (n + 1))
    cdef int64_t x, i, e, m, t, deg, start, pe, k, r
    cdef double H
    if n == 0:
        return
    with nogil:
        # leaves to root: the message of each non-root node to its parent
        for x in range(n - 1, 0, -1):
            i = order[x]
            pe = parent_pos[i]
            for t in range(1, L):
                a[t] = lphi(extra[i], T, t, lq)
            a[0] = NINF
            for e in range(indptr[i], indptr[i + 1]):
                if e == pe:
                    continue
                # the child's message into i sits at the position of i in the child's list
                r = rev[e]
                for t in range(1, L):
                    a[t] = ladd(a[t], lb[r * L + t])
            _b_of(&a[0], L, lp, lq, &lb[pe * L])
        # root to leaves
        for x in range(n):
            i = order[x]
            start = indptr[i]
            deg = indptr[i + 1] - start
            for t in range(L):
                pre[t] = 0.0
                suf[deg * L + t] = 0.0
            for m in range(deg):
                r = rev[start + m]
                for t in range(L):
                    pre[(m + 1) * L + t] = ladd(pre[m * L + t], lb[r * L + t])
            for m in range(deg - 1, -1, -1):
                r = rev[start + m]
                for t in range(L):
                    suf[m * L + t] = ladd(suf[(m + 1) * L + t], lb[r * L + t])
            out[i] = ladd(lphi(extra[i], T, 0, lq), pre[deg * L])
            pe = parent_pos[i]
            for m in range(deg):
                e = start + m
                k = indices[e]
                if e == pe:
                    continue
                a[0] = NINF
                for t in range(1, L):
                    a[t] = ladd(lphi(extra[i], T, t, lq), ladd(pre[m * L + t], suf[(m + 1) * L + t]))
                _b_of(&a[0], L, lp, lq, &lb[e * L])


cdef double[::1] _full(int64_t size):
    import numpy as np
    return np.full(size, -np.inf)


cdef void _b_of(const double *a, int64_t L, double lp, double lq, double *lb) noexcept nogil:
    # B(t) = p sum_{u > t} a(u) q^(u - t - 1) of a no-source message (d = 0)
    cdef double H = NINF
    cdef int64_t t
    lb[L - 1] = NINF
    for t in range(L - 2, -1, -1):
        H = lae(a[t + 1], ladd(lq, H))
        lb[t] = ladd(lp, H)


cdef int64_t[::1] _bfs_order(const int64_t[::1] indptr, const int32_t[::1] indices):
    import numpy as np
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t[::1] order = np.empty(n, np.int64)
    cdef int64_t[::1] seen = np.zeros(n, np.int64)
    cdef int64_t head = 0, tail = 1, x, e, y
    if n == 0:
        return order
    order[0] = 0
    seen[0] = 1
    while head < tail:
        x = order[head]
        head += 1
        for e in range(indptr[x], indptr[x + 1]):
            y = indices[e]
            if not seen[y]:
                seen[y] = 1
                order[tail] = y
                tail += 1
    return order


cdef int64_t[::1] _parent_positions(const int64_t[::1] indptr, const int32_t[::1] indices,
                                    const int64_t[::1] order):
    # CSR position of each node's parent in its own list (-1 for the root)
    import numpy as np
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t[::1] pos = np.full(n, -1, np.int64)
    cdef int64_t[::1] depth = np.full(n, -1, np.int64)
    cdef int64_t x, i, e
    if n == 0:
        return pos
    depth[order[0]] = 0
    for x in range(n):
        i = order[x]
        for e in range(indptr[i], indptr[i + 1]):
            if depth[indices[e]] < 0:
                depth[indices[e]] = depth[i] + 1
            elif depth[indices[e]] == depth[i] - 1:
                pos[i] = e
    return pos


def flood_loglik(const int64_t[::1] indptr, const int32_t[::1] indices, const int64_t[::1] extra,
                 int64_t T, double[::1] out):
    """Flooding (p = 1) is deterministic: ``log P(snapshot | s)`` is 0 when every node is
    within ``T`` hops of ``s`` and every node with uninfected contacts is exactly ``T`` hops
    away (an earlier one would have infected them), else ``-inf``. One BFS per node."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t[::1] dist
    cdef int64_t[::1] queue
    cdef int64_t s, i
    cdef bint ok
    import numpy as np
    dist = np.empty(n, np.int64)
    queue = np.empty(n, np.int64)
    with nogil:
        for s in range(n):
            ok = ecc_within(&indptr[0], &indices[0], n, s, T, &dist[0], &queue[0]) == 1
            if ok:
                for i in range(n):
                    if extra[i] > 0 and dist[i] < T:
                        ok = False
                        break
            out[s] = 0.0 if ok else NINF


cdef int64_t bfs_far(const int64_t *indptr, const int32_t *indices, int64_t n, int64_t s,
                     int64_t *dist, int64_t *queue) noexcept nogil:
    """Hop distances from s in ``dist`` (-1: unreached); returns the last node reached (a
    farthest one)."""
    cdef int64_t i, head = 0, tail = 1, x = s, e, y
    for i in range(n):
        dist[i] = -1
    dist[s] = 0
    queue[0] = s
    while head < tail:
        x = queue[head]
        head += 1
        for e in range(indptr[x], indptr[x + 1]):
            y = indices[e]
            if dist[y] < 0:
                dist[y] = dist[x] + 1
                queue[tail] = y
                tail += 1
    return x


cdef enum:
    FEAS_WORDS = 16  # words of sources checked together by ``feasible`` (64 per word)


def feasible(const int64_t[::1] indptr, const int32_t[::1] indices, int64_t T,
             int64_t[::1] out):
    """``out[s] = 1`` where every node is within T hops of s (a single source can have
    reached them all by T), else 0. Bounds first, from three BFS: from two far-apart nodes
    a and b, ``ecc(s) >= max(dist(s, a), dist(s, b))`` (above T: infeasible); from a
    central node c (smallest such bound), ``ecc(s) <= dist(s, c) + ecc(c)`` (at most T:
    feasible). The nodes the bounds leave open are checked by a bit-parallel search, 1,024
    at a time: each node holds the set of open sources within t hops of it, T rounds of
    OR over its neighbours' (fewer once a round changes nothing), and a source is feasible
    when every node holds it. ``O(m)`` plus ``O(min(T, diameter + 1) m)`` word operations
    per 64 open nodes."""
    cdef int64_t n = indptr.shape[0] - 1
    cdef int64_t s, a, b, c = 0, eccc = 0, lo, best, nopen = 0, c0, k, W, i, e, w, t, j
    cdef uint64_t bit
    cdef int changed
    import numpy as np
    if n == 0:
        return
    cdef int64_t[::1] da = np.empty(n, np.int64)
    cdef int64_t[::1] db = np.empty(n, np.int64)
    cdef int64_t[::1] dc = np.empty(n, np.int64)
    cdef int64_t[::1] queue = np.empty(n, np.int64)
    cdef int64_t[::1] opened = np.empty(n, np.int64)
    cdef uint64_t[::1] cur
    cdef uint64_t[::1] nxt
    cdef uint64_t[::1] every = np.empty(FEAS_WORDS, np.uint64)
    cdef uint64_t *pc
    cdef uint64_t *pn
    cdef uint64_t *tmp
    with nogil:
        a = bfs_far(&indptr[0], &indices[0], n, 0, &da[0], &queue[0])
        b = bfs_far(&indptr[0], &indices[0], n, a, &da[0], &queue[0])
        bfs_far(&indptr[0], &indices[0], n, b, &db[0], &queue[0])
        best = n + 1
        for s in range(n):
            lo = da[s] if da[s] > db[s] else db[s]
            if da[s] >= 0 and db[s] >= 0 and lo < best:
                best = lo
                c = s
        bfs_far(&indptr[0], &indices[0], n, c, &dc[0], &queue[0])
        for s in range(n):
            if dc[s] < 0:  # disconnected: no upper bound from c
                eccc = 4611686018427387904
                break
            if dc[s] > eccc:
                eccc = dc[s]
        for s in range(n):
            out[s] = 0
            if da[s] < 0 or da[s] > T or db[s] < 0 or db[s] > T:
                continue
            if eccc <= T and dc[s] <= T - eccc:
                out[s] = 1
                continue
            opened[nopen] = s
            nopen += 1
    if nopen == 0:
        return
    # the bit sets: n words per 64 open sources, at most FEAS_WORDS words per node
    W = (nopen + 63) // 64
    if W > FEAS_WORDS:
        W = FEAS_WORDS
    cur = np.empty(n * W, np.uint64)
    nxt = np.empty(n * W, np.uint64)
    with nogil:
        c0 = 0
        while c0 < nopen:
            k = nopen - c0
            if k > 64 * FEAS_WORDS:
                k = 64 * FEAS_WORDS
            W = (k + 63) // 64
            pc = &cur[0]
            pn = &nxt[0]
            for i in range(n * W):
                pc[i] = 0
            for j in range(k):
                s = opened[c0 + j]
                pc[s * W + j // 64] |= (<uint64_t> 1) << (j % 64)
            for t in range(T):
                changed = 0
                for i in range(n):
                    for w in range(W):
                        pn[i * W + w] = pc[i * W + w]
                    for e in range(indptr[i], indptr[i + 1]):
                        for w in range(W):
                            pn[i * W + w] |= pc[indices[e] * W + w]
                    for w in range(W):
                        if pn[i * W + w] != pc[i * W + w]:
                            changed = 1
                tmp = pc
                pc = pn
                pn = tmp
                if not changed:  # every set is final (after at most the diameter's rounds)
                    break
            for w in range(W):
                every[w] = ~(<uint64_t> 0)
            for i in range(n):
                for w in range(W):
                    every[w] &= pc[i * W + w]
            for j in range(k):
                bit = (every[j // 64] >> (j % 64)) & 1
                out[opened[c0 + j]] = 1 if bit else 0
            c0 += k
