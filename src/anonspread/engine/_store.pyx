"""The graph store of the spreading kernels, compiled (see :mod:`anonspread.engine.store`)."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint64_t

cnp.import_array()

#: The columns of the per-run node state ``ns`` (the enum of ``_store.pxd``), for Python.
COLUMNS = {"TIME": TIME, "PARENT": PARENT, "CHILD": CHILD, "SIB": SIB, "AUX": AUX,
           "FLAG": FLAG, "NCOL": NCOL}


cdef inline void* _data(object a):
    return cnp.PyArray_DATA(<cnp.ndarray> a)


def _grown(a, int64_t cap, int64_t new):
    b = np.empty((new,) + a.shape[1:], a.dtype)
    b[:cap] = a[:cap]
    return b


def _check_content(start, deg, nbr, tpar, dvals, dcdf, ns, int64_t n, int64_t n_nbr, bint lazy):
    """The kernels index with these arrays' values without bounds checks: every value they
    read must name a node or a neighbour slot in use (vectorised, once per store)."""
    def bad(what):
        raise ValueError(f"GraphStore content out of range: {what}")
    st, dg = start[:n], deg[:n].astype(np.int64)
    if n and dg.min() < 0:
        bad("a negative degree")
    built = st >= 0 if lazy else np.ones(n, bool)
    if lazy and n and ((st < -1).any() or (tpar[:n] < -1).any() or (tpar[:n] >= n).any()):
        bad("start must be -1 (not expanded) or a slot, tpar -1 or a node")
    if n and built.any() and ((st[built] < 0).any() or (st[built] + dg[built] > n_nbr).any()):
        bad(f"every node's neighbour block start[v]..start[v] + deg[v] must lie in the "
            f"{n_nbr} slots in use")
    used = nbr[:n_nbr]
    if used.size and (used.min() < 0 or used.max() >= n):
        bad(f"neighbours must be nodes 0..{n - 1}")
    if (dvals < 0).any() or not np.isfinite(dcdf).all() or (np.diff(dcdf) < 0).any():
        bad("degree values must be >= 0 and their cdf finite and non-decreasing")
    links = ns[:n, PARENT:SIB + 1]
    if links.size and (links.min() < -1 or links.max() >= n):
        bad("the run state's parent, child and sibling links must be -1 or nodes")


cdef class GraphStore:
    """The flat arrays a spreading kernel reads and grows, by name.

    ``start`` (int64: offset of a node's neighbour block in ``nbr``, -1 while a lazily grown
    node is not expanded), ``deg`` (int32), ``nbr`` (int32), ``tpar`` (int32: a lazy tree's
    parent, -1 for the root), ``key`` (uint64: a lazy node's position hash), ``dvals`` and
    ``dcdf`` (a lazy tree's degree law), ``ns`` (int32, one row of node state per node:
    columns ``TIME``, ``PARENT``, ...) and ``order`` (int32: the infected nodes of the last
    run in infection order). A finite graph's store is its CSR and never grows; a lazy
    tree's arrays double when full (the fields then name new arrays: do not hold on to one
    across a run). Build with :func:`anonspread.engine.store.new_finite_store` or
    :func:`~anonspread.engine.store.new_lazy_store`.
    """

    def __init__(self, start, deg, nbr, tpar, key, dvals, dcdf, ns, order, int64_t n_nodes,
                 int64_t n_nbr, bint lazy):
        cap = start.shape[0] if isinstance(start, np.ndarray) else -1
        for name, a, dtype, shape in (
            ("start", start, np.int64, (cap,)), ("deg", deg, np.int32, (cap,)),
            ("nbr", nbr, np.int32, None), ("tpar", tpar, np.int32, (cap,)),
            ("key", key, np.uint64, (cap,)), ("dvals", dvals, np.int32, None),
            ("dcdf", dcdf, np.float64, (dvals.shape[0],)), ("ns", ns, np.int32, (cap, NCOL)),
            ("order", order, np.int32, (cap,)),
        ):
            # a finite graph's CSR is never written: it may be the graph's own read-only arrays
            write = lazy or name in ("ns", "order")
            if (not isinstance(a, np.ndarray) or a.dtype != dtype or not a.flags.c_contiguous
                    or (write and not a.flags.writeable)
                    or (shape is not None and a.shape != shape)
                    or (shape is None and a.ndim != 1)):
                raise ValueError(f"GraphStore field {name} must be a{' writeable' if write else ''} "
                                 f"C-contiguous {np.dtype(dtype).name} array of shape "
                                 f"{shape or '(k,)'}; got {a!r:.80}")
        if dvals.shape[0] < 1:
            raise ValueError("GraphStore field dvals must hold at least one degree value")
        if not (0 <= n_nodes <= cap and 0 <= n_nbr <= nbr.shape[0]):
            raise ValueError(f"GraphStore counters out of range: n_nodes={n_nodes} (capacity "
                             f"{cap}), n_nbr={n_nbr} (capacity {nbr.shape[0]})")
        _check_content(start, deg, nbr, tpar, dvals, dcdf, ns, n_nodes, n_nbr, lazy)
        self.start = start
        self.deg = deg
        self.nbr = nbr
        self.tpar = tpar
        self.key = key
        self.dvals = dvals
        self.dcdf = dcdf
        self.ns = ns
        self.order = order
        self.s.ndv = dvals.shape[0]
        self.s.dmax = int(dvals.max())
        self.s.n_nodes = n_nodes
        self.s.n_nbr = n_nbr
        self.s.lazy = lazy
        self.s.owner = <void*> self
        if lazy:
            self.s.maxdeg = self.s.dmax
        else:
            self.s.maxdeg = int(deg[:n_nodes].max()) if n_nodes > 0 else 0
        self._bind()

    cdef int _bind(self) except -1:
        self.s.start = <int64_t*> _data(self.start)
        self.s.deg = <int32_t*> _data(self.deg)
        self.s.nbr = <int32_t*> _data(self.nbr)
        self.s.tpar = <int32_t*> _data(self.tpar)
        self.s.key = <uint64_t*> _data(self.key)
        self.s.ns = <int32_t*> _data(self.ns)
        self.s.order = <int32_t*> _data(self.order)
        self.s.dvals = <const int32_t*> _data(self.dvals)
        self.s.dcdf = <const double*> _data(self.dcdf)
        self.s.cap_nodes = self.start.shape[0]
        self.s.cap_nbr = self.nbr.shape[0]
        return 0

    cdef int grow_nodes(self, int64_t need) except -1:
        cdef int64_t cap = self.s.cap_nodes, new
        if need <= cap:
            return 0
        new = max(need, 2 * cap)
        self.start = _grown(self.start, cap, new)
        self.deg = _grown(self.deg, cap, new)
        self.tpar = _grown(self.tpar, cap, new)
        self.key = _grown(self.key, cap, new)
        self.ns = _grown(self.ns, cap, new)
        self.order = _grown(self.order, cap, new)
        self._bind()
        return 0

    cdef int grow_nbr(self, int64_t need) except -1:
        cdef int64_t cap = self.s.cap_nbr
        if need <= cap:
            return 0
        self.nbr = _grown(self.nbr, cap, max(need, 2 * cap))
        self._bind()
        return 0

    @property
    def n_nodes(self) -> int:
        """Nodes in use (a lazy tree: the nodes created so far)."""
        return self.s.n_nodes

    @property
    def n_nbr(self) -> int:
        """Neighbour slots in use."""
        return self.s.n_nbr

    @property
    def lazy(self) -> bool:
        """True for a lazily grown tree."""
        return bool(self.s.lazy)

    def max_degree(self) -> int:
        """The largest degree a node of this store can have."""
        return self.s.maxdeg

    def expand(self, int64_t v):
        """Make sure node ``v``'s neighbours exist (creating a lazy node's children)."""
        if not 0 <= v < self.s.n_nodes:
            raise IndexError(f"node must be in 0..{self.s.n_nodes - 1}; got {v}")
        expand(&self.s, v)

    def reset_lazy(self, uint64_t seed):
        """Forget a lazy tree's realisation and start a new one from root seed ``seed``."""
        if not self.s.lazy:
            raise ValueError("reset_lazy needs a lazily grown store")
        reset_lazy(&self.s, seed)

    def reset_run_state(self, int64_t n_inf):
        """Clear the node state of ``order[:n_inf]`` (the nodes the last run infected)."""
        if not 0 <= n_inf <= self.s.n_nodes:
            raise ValueError(f"n_inf must be in 0..{self.s.n_nodes}; got {n_inf}")
        reset_run_state(&self.s, n_inf)

    def clear_run_state(self):
        """Clear the node state of every node (after a run that failed half-way)."""
        cdef int64_t v
        for v in range(self.s.cap_nodes):
            init_node_state(self.s.ns, v)

    def __reduce__(self):
        return (GraphStore, (self.start, self.deg, self.nbr, self.tpar, self.key, self.dvals,
                             self.dcdf, self.ns, self.order, self.s.n_nodes, self.s.n_nbr,
                             bool(self.s.lazy)))

    def __repr__(self):
        kind = "lazy tree" if self.s.lazy else "finite graph"
        return (f"<GraphStore of a {kind}: {self.s.n_nodes} nodes, capacity "
                f"{self.s.cap_nodes}>")
