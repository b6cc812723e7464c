"""Belief propagation over infection times for discrete-time SI spreading (:mod:`._bp`).

The model (random diffusion with probability ``p``; flooding is ``p = 1``): the source is
infected at time 0; at every step ``t = 1, 2, ...`` each node infected at a time ``< t``
infects each uninfected contact independently with probability ``p``, so a node infected
at step ``t`` transmits from step ``t + 1``. Equivalently every directed edge ``k -> i``
carries a delay ``s_ki ~ Geometric(p)`` on ``{1, 2, ...}`` and ``t_i = min_k (t_k + s_ki)``
(Altarelli et al., PRL 112, 118701, 2014). A snapshot at ``T`` says ``t_i <= T`` for the
infected nodes and ``t_u > T`` for the others; an uninfected contact ``u`` of an infected
node ``k`` contributes ``P(s_ku > T - t_k) = q^(T - t_k)`` (``q = 1 - p``) and nothing
else, so only the infected subgraph carries variables and the cost never depends on the
rest of the graph.

Every function takes the infected subgraph as CSR over local ids ``0..n-1`` (``indptr``
int64 of length ``n + 1``, ``indices`` int32, symmetric, no self-loops, no repeated
edges) and ``extra[i]``, the number of uninfected contacts of node ``i``. Inputs are
checked once per call (:class:`~anonspread.errors.InvalidParameterError` /
:class:`~anonspread.errors.InvalidTypeError`), never trusted by the kernels.

Cost per sweep: ``O(sum_i deg_i * (T + 1))`` (every message is two vectors over its
sender's time, contracted against the receiver's factor by geometric prefix sums);
:func:`tree_log_likelihood` is one sweep (two passes) for all sources at once;
:func:`clamped_log_likelihood` is one BP run per candidate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# GNU libgomp's thread pool does not survive fork; rumor_threads registers the at-fork hook
# that stops it (for every OpenMP region of the process, this one included)
from anonspread.engine import _bp, _checks, _scoring, rumor_threads  # noqa: F401
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError

__all__ = ["KERNELS", "MAX_T", "MAX_THREADS", "OPENMP", "BPRun", "bp_run", "clamped_log_likelihood",
           "feasible_sources", "flood_log_likelihood", "message_bytes", "reverse_edges",
           "tree_log_likelihood"]

#: Whether this build shares candidates among OpenMP threads.
OPENMP: bool = _bp.OPENMP

#: The kernels a run can be asked for: ``"auto"`` runs the messages as plain numbers, each
#: message scaled to maximum 1 (the fast path), and re-runs that BP run in the log domain
#: when a normaliser falls below 1e-150 (a message, a contraction or a belief whose whole
#: mass is that small, where entries dropped below 1e-250 could matter); ``"log"`` runs the
#: log domain only (the reference, never underflows: 15x slower on benchmarks/bench_bp.py's
#: instances, 73-78 against 4.9 ns per message entry per sweep).
KERNELS: tuple[str, ...] = ("auto", "log")


def _kernel(kernel: Any) -> int:
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise InvalidParameterError(f"kernel must be one of {', '.join(map(repr, KERNELS))}; "
                                    f"got {kernel!r}")
    return _bp.KERNEL_AUTO if kernel == "auto" else _bp.KERNEL_LOG


def _int(value: Any, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidTypeError(f"{name} must be an integer >= {low}; got {value!r}")
    if value < low:
        raise InvalidParameterError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def _real(value: Any, name: str, low: float, high: float, *, high_open: bool = False,
          low_open: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise InvalidTypeError(f"{name} must be a real number in the stated range; got {value!r}")
    v = float(value)
    bad = (not np.isfinite(v) or v < low or v > high or (high_open and v == high)
           or (low_open and v == low))
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise InvalidParameterError(f"{name} must be in {lo}{low}, {high}{hi}; got {value!r}")
    return v


def _graph(indptr: Any, indices: Any, extra: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            np.ndarray]:
    """Checked contiguous arrays and the reverse-edge index."""
    for name, a in (("indptr", indptr), ("indices", indices), ("extra", extra)):
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu":
            raise InvalidTypeError(f"{name} must be a 1-d integer numpy array; got {a!r}"[:200])
    ip, ix = _csr(indptr, indices)
    n = ip.shape[0] - 1
    if extra.shape[0] != n:
        raise InvalidParameterError(f"extra must have one entry per node ({n}); got {extra.shape[0]}")
    ex = np.ascontiguousarray(extra, np.int64)
    if n and ex.min() < 0:
        raise InvalidParameterError(f"extra must be >= 0 (uninfected contacts); got {ex.min()}")
    rev = reverse_edges(ip, ix)
    return ip, ix, ex, rev


def _csr(indptr: Any, indices: Any) -> tuple[np.ndarray, np.ndarray]:
    """Checked contiguous CSR arrays (int64 indptr, int32 indices in range)."""
    for name, a in (("indptr", indptr), ("indices", indices)):
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu":
            raise InvalidTypeError(f"{name} must be a 1-d integer numpy array; got {a!r}"[:200])
    if indptr.shape[0] < 2:
        raise InvalidParameterError(f"indptr must have length n + 1 >= 2 (at least one node); "
                                    f"got length {indptr.shape[0]}")
    n = indptr.shape[0] - 1
    ip = np.ascontiguousarray(indptr, np.int64)
    if ip[0] != 0 or np.any(np.diff(ip) < 0) or ip[-1] != indices.shape[0]:
        raise InvalidParameterError(
            "indptr must start at 0, never decrease and end at len(indices) "
            f"({indices.shape[0]}); got {ip[:5].tolist()}...{ip[-1]}")
    if indices.shape[0] and (indices.min() < 0 or indices.max() >= n):
        raise InvalidParameterError(
            f"indices must be node ids in [0, {n}); got values in [{indices.min()}, {indices.max()}]")
    if n > np.iinfo(np.int32).max:
        raise InvalidParameterError(f"the graph must have fewer than 2**31 nodes; got {n}")
    ix = np.ascontiguousarray(indices, np.int32)
    return ip, ix


def reverse_edges(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``rev[e]``: the CSR position of the reverse of directed edge ``e``.

    Parameters
    ----------
    indptr : numpy.ndarray of int64
    indices : numpy.ndarray of int32

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    GraphError
        A self-loop, a repeated edge, or an edge without its reverse.

    Examples
    --------
    >>> import numpy as np
    >>> reverse_edges(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)).tolist()
    [1, 0, 3, 2]
    """
    n = indptr.shape[0] - 1
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    dst = indices.astype(np.int64)
    if np.any(src == dst):
        raise GraphError("the infected subgraph must have no self-loops; got one")
    key = src * max(n, 1) + dst
    order = np.argsort(key, kind="stable")
    sk = key[order]
    if sk.shape[0] > 1 and np.any(sk[1:] == sk[:-1]):
        raise GraphError("the infected subgraph must have no repeated edges; got one")
    want = dst * max(n, 1) + src
    at = np.searchsorted(sk, want)
    at = np.minimum(at, max(sk.shape[0] - 1, 0))
    if sk.shape[0] and np.any(sk[at] != want):
        raise GraphError("the infected subgraph must be symmetric (every edge in both lists); "
                         "got an edge without its reverse")
    return np.ascontiguousarray(order[at], np.int64) if sk.shape[0] else np.zeros(0, np.int64)


#: Largest ``T`` the kernels take: every message holds ``T + 1`` numbers per directed edge
#: and a sweep updates them all, so a larger ``T`` is refused up front, not run for hours.
MAX_T = 100_000
#: Most OpenMP threads a call may ask for.
MAX_THREADS = 1024


def message_bytes(kind: str, n: int, nnz: int, T: int, threads: int = 1) -> float:
    """Bytes one call allocates beyond its inputs, from the allocations of :mod:`._bp` and
    of this module, before it runs (the callers compare them with the machine's memory).

    ``kind`` ``"run"`` (:func:`bp_run`): the messages, ``2 nnz (T + 1)`` doubles; the node
    tables and beliefs, ``2 n (T + 1) + 4 n``; the reverse-edge index, ``nnz`` int64, and its
    numpy temporaries while built (about 3 ``nnz`` int64). ``"clamped"``
    (:func:`clamped_log_likelihood`): per thread, messages and node scratch,
    ``2 nnz (T + 1) + 7 n``; the shared table ``n (T + 2)``; the reverse-edge index and its
    temporaries. The per-node work rows (``O(max degree x (T + 1))``) are below these.

    Examples
    --------
    >>> message_bytes("run", 10, 30, 3) == 8 * (2 * 30 * 4 + 2 * 10 * 4 + 4 * 10 + 4 * 30)
    True
    """
    if kind not in ("run", "clamped"):
        raise InvalidParameterError(f"kind must be 'run' or 'clamped'; got {kind!r}")
    n, nnz = _int(n, "n", 0), _int(nnz, "nnz", 0)
    L = _int(T, "T", 0) + 1
    threads = _int(threads, "threads", 1)
    rev = 4.0 * nnz  # the reverse-edge index and the temporaries that build it
    if kind == "run":
        return 8.0 * (2.0 * nnz * L + 2.0 * n * L + 4.0 * n + rev)
    return 8.0 * (threads * (2.0 * nnz * L + 7.0 * n) + n * (L + 1.0) + rev)


def _tp(T: Any, p: Any) -> tuple[int, float]:
    T = _int(T, "T", 0)
    if T > MAX_T:
        raise InvalidParameterError(f"T must be at most {MAX_T:,} (messages of T + 1 numbers per "
                                    f"directed edge, updated every sweep); got {T}")
    return T, _real(p, "p", 0.0, 1.0)


def tree_log_likelihood(indptr: np.ndarray, indices: np.ndarray, extra: np.ndarray, T: int,
                        p: float) -> np.ndarray:
    """Exact ``log P(snapshot | s)`` of every node ``s`` of a tree-shaped infected subgraph.

    Messages ``i -> j`` of the sub-tree behind ``i`` with no source in it (every node there
    infected through the edge ``j -> i``), in two passes from a BFS order; then
    ``log P(snapshot | s) = e_s T log q + sum_(k ~ s) log B_(k -> s)(0)``. Cost
    ``O(sum_i deg_i * (T + 1))`` for all sources together.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The infected subgraph (a tree), CSR over local ids.
    extra : numpy.ndarray of int
        Uninfected contacts of each node.
    T : int >= 0
    p : float in [0, 1]

    Returns
    -------
    numpy.ndarray of float64
        ``-inf`` for impossible sources.

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)  # path 0 - 1 - 2
    >>> np.exp(tree_log_likelihood(ip, ix, np.zeros(3, np.int64), 1, 0.5)).tolist()
    [0.0, 0.25, 0.0]
    """
    ip, ix, ex, rev = _graph(indptr, indices, extra)
    T, p = _tp(T, p)
    n = ip.shape[0] - 1
    if n and ix.shape[0] != 2 * (n - 1):
        raise GraphError(f"tree_log_likelihood needs a tree (n - 1 = {n - 1} edges); got "
                         f"{ix.shape[0] // 2} edges")
    if n and _components(ip, ix) != 1:
        raise GraphError("tree_log_likelihood needs a connected infected subgraph")
    out = np.full(n, -np.inf)
    _bp.tree_loglik(ip, ix, rev, ex, T, p, out)
    return out


def flood_log_likelihood(indptr: np.ndarray, indices: np.ndarray, extra: np.ndarray,
                         T: int) -> np.ndarray:
    """Exact ``log P(snapshot | s)`` under flooding (``p = 1``, deterministic), any graph.

    0 where every node is within ``T`` hops of ``s`` in the infected subgraph and every
    node with uninfected contacts is exactly ``T`` hops away, else ``-inf`` (the fixed point
    of the clamped BP at ``p = 1``, computed by one BFS per node instead of sweeps, which
    can cycle among the zero-weight configurations at ``p = 1``). Cost ``O(n * sum_i deg_i)``.

    Parameters
    ----------
    indptr, indices, extra : numpy.ndarray
        The infected subgraph and the uninfected contacts of each node.
    T : int >= 0

    Returns
    -------
    numpy.ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)
    >>> flood_log_likelihood(ip, ix, np.array([1, 0, 1]), 1).tolist()
    [-inf, 0.0, -inf]
    """
    ip, ix, ex, _ = _graph(indptr, indices, extra)
    T = _int(T, "T", 0)
    out = np.full(ip.shape[0] - 1, -np.inf)
    _bp.flood_loglik(ip, ix, ex, T, out)
    return out


def _components(ip: np.ndarray, ix: np.ndarray) -> int:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = ip.shape[0] - 1
    k, _ = connected_components(csr_matrix((np.ones(ix.shape[0], np.int8), ix, ip), shape=(n, n)),
                                directed=False)
    return int(k)


def _loop_options(damping: Any, tol: Any, max_iter: Any,
                  stall: Any = 0) -> tuple[float, float, int, int]:
    return (_real(damping, "damping", 0.0, 1.0, high_open=True),
            _real(tol, "tol", 0.0, np.inf, low_open=True),
            _int(max_iter, "max_iter", 1), _int(stall, "stall", 0))


def feasible_sources(indptr: np.ndarray, indices: np.ndarray, T: int) -> np.ndarray:
    """Which nodes can be the single source of a snapshot at ``T``: those within ``T`` hops of
    every node of the infected subgraph (a spread reaches at most one hop per step).

    Every other node has likelihood 0 under random diffusion and flooding, whatever ``p``.
    On a connected subgraph (a spread's snapshot always is), the nodes with ``ecc <= T`` by
    the Jordan certification's eccentricity bounds with ``T`` as the threshold
    (:func:`anonspread.engine.scoring.within_radius`: ``O(B m)``, B BFS-equivalents, 144-336
    on the snapshots of up to 2.35x10^6 infected measured in issue 32). Otherwise none is
    feasible, which the kernel of before finds: three breadth-first searches give bounds on
    each node's eccentricity (from two far-apart nodes a, b: ``ecc(s) >= max(d(s, a), d(s,
    b))``; from a central node c: ``ecc(s) <= d(s, c) + ecc(c)``), the rest are checked by a
    bit-parallel search (1,024 open sources a pass, ``O(min(T, diameter + 1) m)`` word
    operations a pass). That kernel was the only one until 2026-11-29; on dense snapshots
    it leaves most nodes open (330 s at 4.6x10^5 infected of a 10^7-edge power-law graph).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The infected subgraph, CSR over local ids.
    T : int >= 0

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 5, 6]), np.array([1, 0, 2, 1, 3, 2], np.int32)  # path of 4
    >>> feasible_sources(ip, ix, 2).tolist()
    [False, True, True, False]
    """
    ip, ix = _csr(indptr, indices)
    T = _int(T, "T", 0)
    if _checks.csr_status32(ip, ix, 1) == 0:  # connected and symmetric
        out = np.zeros(ip.shape[0] - 1, np.uint8)
        _scoring.py_within_radius(ip, ix, T, out)
        return out.view(bool)
    return _feasible_searched(ip, ix, T)


def _feasible_searched(ip: np.ndarray, ix: np.ndarray, T: int) -> np.ndarray:
    """:func:`feasible_sources` by the bounds of three BFS and a bit-parallel search of the
    nodes they leave open (any checked CSR: disconnected or asymmetric ones too)."""
    out = np.zeros(ip.shape[0] - 1, np.int64)
    _bp.feasible(ip, ix, T, out)
    return out.astype(bool)


def clamped_log_likelihood(indptr: np.ndarray, indices: np.ndarray, extra: np.ndarray, T: int,
                           p: float, candidates: np.ndarray, *, damping: float = 0.3,
                           tol: float = 1e-9, max_iter: int = 200, threads: int = 1,
                           kernel: str = "auto",
                           stall: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bethe estimate of ``log P(snapshot | s)`` for each candidate source ``s``.

    For each candidate, BP with ``s`` clamped as the source (``t_s = 0``) and every other
    node a non-source, swept sequentially in node order with damping until the largest
    change of a message entry (messages scaled to maximum 1) is below ``tol`` or
    ``max_iter`` sweeps; then ``log Z = sum_i log Z_i - sum_(ij) log Z_ij``. Exact on trees;
    on graphs with cycles the Bethe approximation. Candidates more than ``T`` hops from
    some infected node get ``-inf`` without a run. Cost ``O(len(candidates) * sweeps *
    sum_i deg_i * (T + 1))``; memory ``threads * 16 * sum_i deg_i * (T + 1)`` bytes.

    Parameters
    ----------
    indptr, indices, extra : numpy.ndarray
        The infected subgraph and the uninfected contacts of each node.
    T : int >= 0
    p : float in [0, 1]
    candidates : numpy.ndarray of int
        Local ids of the candidate sources.
    damping : float in [0, 1)
        Weight of the old message in each update.
    tol : float > 0
    max_iter : int >= 1
    threads : int >= 1
        OpenMP threads sharing the candidates (same result for any number).
    kernel : {"auto", "log"}
        See :data:`KERNELS`; per candidate, ``"auto"`` falls back to the log domain where
        the linear one underflows (the answers agree to about 1e-12 relative).
    stall : int >= 0
        Stop a run early, unconverged, when its largest change has not halved in ``stall``
        sweeps (an oscillating run; one halving more slowly would need more than
        ``30 * stall`` sweeps to reach 1e-9); 0: never (run to ``tol`` or ``max_iter``).

    Returns
    -------
    (log_z, sweeps, change) : tuple of numpy.ndarray
        Per candidate: the Bethe log-likelihood, the sweeps run and the last sweep's
        largest change (converged where ``change < tol``).

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)
    >>> lz, it, ch = clamped_log_likelihood(ip, ix, np.zeros(3, np.int64), 1, 0.5, np.arange(3))
    >>> np.exp(lz).round(12).tolist(), bool((ch < 1e-9).all())
    ([0.0, 0.25, 0.0], True)
    """
    ip, ix, ex, rev = _graph(indptr, indices, extra)
    T, p = _tp(T, p)
    damping, tol, max_iter, stall = _loop_options(damping, tol, max_iter, stall)
    threads = _int(threads, "threads", 1)
    kern = _kernel(kernel)
    if threads > MAX_THREADS:
        raise InvalidParameterError(f"threads must be at most {MAX_THREADS}; got {threads}")
    n = ip.shape[0] - 1
    if not isinstance(candidates, np.ndarray) or candidates.ndim != 1 \
            or candidates.dtype.kind not in "iu":
        raise InvalidTypeError(f"candidates must be a 1-d integer numpy array; got {candidates!r}"[:200])
    if candidates.shape[0] and (candidates.min() < 0 or candidates.max() >= n):
        raise InvalidParameterError(f"candidates must be node ids in [0, {n}); got values in "
                                    f"[{candidates.min()}, {candidates.max()}]")
    c = np.ascontiguousarray(candidates, np.int64)
    logz = np.full(c.shape[0], -np.inf)
    sweeps = np.zeros(c.shape[0], np.int64)
    change = np.zeros(c.shape[0])
    if c.shape[0]:
        _bp.bp_clamped(ip, ix, rev, ex, T, p, c, damping, tol, max_iter, threads, logz, sweeps,
                       change, kern, np.zeros(c.shape[0], np.int64), stall)
    return logz, sweeps, change


class BPRun:
    """What one :func:`bp_run` returned (named fields).

    Attributes
    ----------
    log_z : float
        Bethe log partition function.
    log_source : numpy.ndarray
        Log marginal probability that each node is a source.
    marginals : numpy.ndarray, shape (n, T + 1)
        ``P(t_i = t)`` of each node.
    sweeps : int
    change : float
        Largest message change of the last sweep.
    converged : bool
        ``change < tol``.
    kernel : str
        ``"linear"`` (messages as scaled numbers) or ``"log"`` (asked for, or the linear
        kernel underflowed and the run was redone in the log domain).
    """

    __slots__ = ("change", "converged", "kernel", "log_source", "log_z", "marginals", "sweeps")

    def __init__(self, log_z, log_source, marginals, sweeps, change, converged,
                 kernel="log") -> None:
        self.kernel = kernel
        self.log_z = log_z
        self.log_source = log_source
        self.marginals = marginals
        self.sweeps = sweeps
        self.change = change
        self.converged = converged

    def __repr__(self) -> str:
        return (f"BPRun(log_z={self.log_z:.6g}, sweeps={self.sweeps}, change={self.change:.3g}, "
                f"converged={self.converged}, kernel={self.kernel!r})")


def bp_run(indptr: np.ndarray, indices: np.ndarray, extra: np.ndarray, T: int, p: float,
           source_prior: Any, *, damping: float = 0.3, tol: float = 1e-9,
           max_iter: int = 200, kernel: str = "auto", stall: int = 0) -> BPRun:
    """One BP run with independent sources: each node is a source with probability
    ``source_prior`` (a float, or one per node), independently (the prior of Altarelli et al.
    2014 and of bpepi). A per-node prior may be 0 (that node is never a source).

    Parameters
    ----------
    indptr, indices, extra : numpy.ndarray
        The infected subgraph and the uninfected contacts of each node.
    T : int >= 0
    p : float in [0, 1]
    source_prior : float in (0, 1), or numpy.ndarray in [0, 1) with a positive entry
    damping, tol, max_iter, stall
        As :func:`clamped_log_likelihood`.
    kernel : {"auto", "log"}
        See :data:`KERNELS`; :attr:`BPRun.kernel` says which ran.

    Returns
    -------
    BPRun

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)
    >>> r = bp_run(ip, ix, np.zeros(3, np.int64), 1, 0.5, 1e-6)
    >>> r.converged, r.kernel, np.exp(r.log_source).round(4).tolist()
    (True, 'linear', [0.0, 1.0, 0.0])
    """
    ip, ix, ex, rev = _graph(indptr, indices, extra)
    T, p = _tp(T, p)
    damping, tol, max_iter, stall = _loop_options(damping, tol, max_iter, stall)
    kern = _kernel(kernel)
    n = ip.shape[0] - 1
    g = np.broadcast_to(np.asarray(source_prior, dtype=np.float64), (n,)) \
        if isinstance(source_prior, (int, float, np.integer, np.floating, np.ndarray)) \
        and not isinstance(source_prior, (bool, np.bool_)) else None
    scalar = not isinstance(source_prior, np.ndarray) or source_prior.ndim == 0
    if g is None or g.shape != (n,) or np.any(~(g >= 0)) or np.any(~(g < 1)) \
            or not np.any(g > 0) or (scalar and np.any(g == 0)):
        raise InvalidParameterError(f"source_prior must be in (0, 1) (a float), or in [0, 1) with "
                                    f"a positive entry (one per node); got {source_prior!r}"[:200])
    lcns = np.ascontiguousarray(np.log1p(-g))
    with np.errstate(divide="ignore"):
        lcsrc = np.ascontiguousarray(np.log(g))
    L = T + 1
    msgs = np.empty(max(ix.shape[0], 1) * 2 * L)
    lsrc = np.full(n, -np.inf)
    marg = np.zeros((n, L))
    logz, sweeps, change, used_log = _bp.bp_run(ip, ix, rev, ex, T, p, lcns, lcsrc, damping, tol,
                                                max_iter, msgs, lsrc, marg, kern, stall)
    return BPRun(float(logz), lsrc, marg, int(sweeps), float(change), bool(change < tol),
                 "log" if used_log else "linear")
