# cython: language_level=3
"""The graph store of the spreading kernels: named flat arrays, C-level access.

A :class:`GraphStore` owns numpy arrays (its Python-visible fields) and a ``store_t`` of raw
pointers to them, which the kernels read and write without the GIL. Growing a lazily grown
tree reallocates the arrays (doubling) and re-points the ``store_t``: kernels reload their
local pointers after every call that may grow (``reserve``, ``expand``).
"""

from libc.stdint cimport int32_t, int64_t, uint64_t

# Columns of the per-run node state ``ns`` (int32, NCOL per node, row-major).
cdef enum:
    TIME = 0    # step at which the node was infected, -1 if uninfected
    PARENT = 1  # the node that infected it (-1 for the source)
    CHILD = 2   # head of its list of infection-tree children (-1: none)
    SIB = 3     # next sibling in its parent's child list
    AUX = 4     # protocol scratch: distance to the source (Protocol 1), s2 (Protocol 2) or
                # adaptive diffusion's relay: contact slots known to be infected
    FLAG = 5    # protocol scratch: s1 (Protocol 2) or "saturated" (diffusions)
    NCOL = 6


ctypedef struct store_t:
    int64_t* start     # [cap_nodes] offset of v's neighbour block in nbr; -1: not expanded
    int32_t* deg       # [cap_nodes] contact degree
    int32_t* nbr       # [cap_nbr] neighbour blocks (CSR indices of a finite graph)
    int32_t* tpar      # [cap_nodes] lazy trees: tree parent (-1 for the root)
    uint64_t* key      # [cap_nodes] lazy trees: hash of the node's position (its degree draw)
    int32_t* ns        # [cap_nodes * NCOL] per-run node state
    int32_t* order     # [cap_nodes] infected nodes of the current run, in infection order
    const int32_t* dvals  # lazy trees: the degree values
    const double* dcdf    # lazy trees: their cumulative probabilities
    int64_t ndv        # number of degree values
    int64_t dmax       # largest degree value (lazy), as reserve() sizes by it
    int64_t maxdeg     # largest degree a node can have
    int64_t n_nodes    # nodes in use
    int64_t n_nbr      # neighbour slots in use
    int64_t cap_nodes
    int64_t cap_nbr
    bint lazy
    void* owner        # the GraphStore (to grow it, with the GIL)


cdef class GraphStore:
    cdef store_t s
    cdef readonly object start, deg, nbr, tpar, key, dvals, dcdf, ns, order
    cdef int _bind(self) except -1
    cdef int grow_nodes(self, int64_t need) except -1
    cdef int grow_nbr(self, int64_t need) except -1


cdef inline uint64_t splitmix64(uint64_t x) noexcept nogil:
    cdef uint64_t z = x + <uint64_t> 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * <uint64_t> 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t> 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t child_key(uint64_t kv, int64_t j) noexcept nogil:
    """Position key of the (j+1)-th child of the node with key ``kv``."""
    return splitmix64(kv + <uint64_t> (j + 1) * <uint64_t> 0x9E3779B97F4A7C15ULL)


cdef inline int32_t draw_degree(uint64_t key, const store_t* s) noexcept nogil:
    """The degree drawn for the node of position key ``key`` (a linear scan of the cdf:
    degree laws have a handful of values)."""
    cdef int64_t n = s.ndv, j
    cdef double u
    if n == 1:
        return s.dvals[0]
    u = <double> (splitmix64(key ^ <uint64_t> 0xD1B54A32D192ED03ULL) >> 11) * (1.0 / 9007199254740992.0)
    for j in range(n - 1):
        if u < s.dcdf[j]:
            return s.dvals[j]
    return s.dvals[n - 1]


cdef inline void init_node_state(int32_t* ns, int64_t v) noexcept nogil:
    cdef int32_t* r = ns + v * NCOL
    r[TIME] = -1
    r[PARENT] = -1
    r[CHILD] = -1
    r[SIB] = -1
    r[AUX] = 0
    r[FLAG] = 0


cdef inline bint expand_into(store_t* s, int64_t v) noexcept nogil:
    """Create the children of lazy node ``v`` in place; False (doing nothing) when the
    arrays are too small (then :func:`reserve` or :func:`expand` first)."""
    cdef int64_t has_parent = 1 if s.tpar[v] >= 0 else 0
    cdef int64_t k = s.deg[v] - has_parent, pos, c, j
    cdef uint64_t kv, kc
    if s.n_nodes + k > s.cap_nodes or s.n_nbr + k + has_parent > s.cap_nbr:
        return False
    pos = s.n_nbr
    s.start[v] = pos
    if has_parent:
        s.nbr[pos] = s.tpar[v]
        pos += 1
    kv = s.key[v]
    c = s.n_nodes
    for j in range(k):
        kc = child_key(kv, j)
        s.key[c] = kc
        s.deg[c] = draw_degree(kc, s)
        s.tpar[c] = <int32_t> v
        s.start[c] = -1
        init_node_state(s.ns, c)
        s.nbr[pos] = <int32_t> c
        pos += 1
        c += 1
    s.n_nodes = c
    s.n_nbr = pos
    return True


cdef inline int reserve(store_t* s, int64_t m) except -1 nogil:
    """Make room to expand ``m`` more lazy nodes (a no-op on finite graphs): kernels call
    it once per step, so their inner loops never grow the arrays."""
    cdef int64_t need
    if not s.lazy or m <= 0:
        return 0
    need = s.n_nodes + m * s.dmax
    if need > s.cap_nodes:
        with gil:
            (<GraphStore> s.owner).grow_nodes(need)
    need = s.n_nbr + m * s.dmax
    if need > s.cap_nbr:
        with gil:
            (<GraphStore> s.owner).grow_nbr(need)
    return 0


cdef inline int touch(store_t* s, int64_t v) except -1 nogil:
    """Expand ``v`` if needed, in room made by :func:`reserve`."""
    if s.start[v] < 0:
        if not expand_into(s, v):
            with gil:
                raise RuntimeError("anonspread internal error: lazy store used without reserve()")
    return 0


cdef inline int expand(store_t* s, int64_t v) except -1 nogil:
    """Make sure node ``v``'s neighbours exist, growing the arrays if needed."""
    cdef int64_t has_parent, k
    if s.start[v] >= 0:
        return 0
    has_parent = 1 if s.tpar[v] >= 0 else 0
    k = s.deg[v] - has_parent
    if s.n_nodes + k > s.cap_nodes:
        with gil:
            (<GraphStore> s.owner).grow_nodes(s.n_nodes + k)
    if s.n_nbr + k + has_parent > s.cap_nbr:
        with gil:
            (<GraphStore> s.owner).grow_nbr(s.n_nbr + k + has_parent)
    expand_into(s, v)
    return 0


cdef inline void reset_lazy(store_t* s, uint64_t seed) noexcept nogil:
    """Forget a lazy tree's realisation and start a new one from root seed ``seed``."""
    s.n_nodes = 1
    s.n_nbr = 0
    s.key[0] = seed
    s.deg[0] = draw_degree(seed, s)
    s.tpar[0] = -1
    s.start[0] = -1
    init_node_state(s.ns, 0)


cdef inline void reset_run_state(store_t* s, int64_t n_inf) noexcept nogil:
    """Clear the per-run state of the ``n_inf`` nodes the previous run infected."""
    cdef int64_t i
    for i in range(n_inf):
        init_node_state(s.ns, s.order[i])
