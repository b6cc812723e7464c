"""The soft-margin estimator's simulation loop (:mod:`._softmargin`, compiled ahead of time).

For each candidate source ``c``, :func:`accumulate` runs the protocol's kernel (``code``,
``params``: ``Protocol.kernel_code`` and ``kernel_params``) ``n_sims`` times from ``c`` for
``T`` steps and compares each simulated infected set ``R_i`` with the observed set ``R*``
(``mask``, one byte per store node) by the Jaccard similarity
``phi_i = |R_i & R*| / |R_i | R*|``. It accumulates, per candidate, ``sum phi_i`` and
``sum phi_i^2`` (``jac``), the number of exact matches ``phi_i = 1`` (``hits``) and, for
each kernel width ``a_j`` (given as ``inv_a2[j] = 1 / a_j^2``), the soft-margin kernel sums
``sum_i exp(-(phi_i - 1)^2 / a_j^2)`` and ``sum_i exp(-2 (phi_i - 1)^2 / a_j^2)`` as
log-sums: ``log sum = m + log s`` with a running maximum ``m`` (``m1``, ``s1``; ``m2``,
``s2``), so that a narrow kernel never underflows to zero while one run is close.

Each candidate draws from its own ``numpy.random.Generator`` (``gens[c]``): the runs of a
candidate, and so its sums, do not depend on the number of threads nor on how the caller
splits the runs into calls (the sums carry over; a call continues each stream). Candidates
are shared among ``len(stores)`` threads (OpenMP ``prange``, dynamic schedule), each with its
own store: on a finite graph a store per thread over the same CSR; on a lazily grown tree a
copy of the realisation that holds the observed nodes (:func:`copy_store`; runs grow each
copy on their own, and nodes created by a run are never in ``R*``). No Python runs per
simulation.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from anonspread.engine import _inputs as _check

# GNU libgomp's thread pool does not survive fork; rumor_threads registers the at-fork hook
# that stops it (for every OpenMP region of the process, these included)
from anonspread.engine import _softmargin, rumor_threads  # noqa: F401
from anonspread.engine.spreading import FLOODING, RANDOM_DIFFUSION
from anonspread.engine.store import GraphStore, new_finite_store
from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["BITSET_BYTES", "LANE_KERNELS", "OPENMP", "LaneStreams", "PairSums",
           "SoftMarginSums", "accumulate", "accumulate_chunk", "accumulate_shared",
           "accumulate_shared_chunk", "accumulate_shared_lanes", "accumulate_shared_lanes_chunk",
           "copy_store", "lanes_bytes", "probability_bits", "scoring_costs"]

#: Whether this build runs candidates on OpenMP threads (``setup.py`` compiles
#: ``_softmargin`` with ``-fopenmp`` when the compiler accepts it).
OPENMP: bool = _softmargin.OPENMP
#: Most bytes of snapshot bitsets ``scoring="auto"`` lets :func:`accumulate_shared`
#: allocate (64 MiB; beyond it, it counts per snapshot).
BITSET_BYTES: int = _softmargin.BITSET_BYTES
#: The ways :func:`accumulate_shared` scores a run (the kernel's codes).
_SCORING = {"auto": -1, "counts": 0, "bitsets": 1}


def copy_store(store: GraphStore) -> GraphStore:
    """A copy of ``store`` that runs may grow and write independently (clean run state
    expected, as every driver leaves it)."""
    return GraphStore(store.start.copy(), store.deg.copy(), store.nbr.copy(), store.tpar.copy(),
                      store.key.copy(), store.dvals.copy(), store.dcdf.copy(), store.ns.copy(),
                      store.order.copy(), store.n_nodes, store.n_nbr, store.lazy)


class SoftMarginSums:
    """The running sums of :func:`accumulate` for ``n_candidates`` sources and ``n_widths``
    kernel widths (all zero runs so far; ``m1``, ``m2`` start at ``-inf``).

    Parameters
    ----------
    n_candidates : int
    n_widths : int

    Attributes
    ----------
    m1, s1, m2, s2 : numpy.ndarray of float64, shape (n_candidates, n_widths)
        ``log sum_i K_i = m1 + log s1`` and ``log sum_i K_i^2 = m2 + log s2``.
    jac : numpy.ndarray of float64, shape (n_candidates, 2)
        ``sum_i phi_i`` and ``sum_i phi_i^2``.
    hits : numpy.ndarray of int64
        Exact matches per candidate.
    runs : int
        Runs per candidate so far.
    """

    def __init__(self, n_candidates: int, n_widths: int) -> None:
        shape = (n_candidates, n_widths)
        self.m1 = np.full(shape, -np.inf)
        self.s1 = np.zeros(shape)
        self.m2 = np.full(shape, -np.inf)
        self.s2 = np.zeros(shape)
        self.jac = np.zeros((n_candidates, 2))
        self.hits = np.zeros(n_candidates, np.int64)
        self.runs = 0

    def log_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """``(log sum_i K_i, log sum_i K_i^2)`` per candidate and width (``-inf``: no runs
        or every kernel value underflowed)."""
        with np.errstate(divide="ignore"):
            return self.m1 + np.log(self.s1), self.m2 + np.log(self.s2)

    def take(self, rows: slice) -> SoftMarginSums:
        """The sums of the candidates ``rows`` (copies), with the same ``runs``."""
        out = SoftMarginSums.__new__(SoftMarginSums)
        for f in ("m1", "s1", "m2", "s2", "jac", "hits"):
            setattr(out, f, getattr(self, f)[rows].copy())
        out.runs = self.runs
        return out

    @classmethod
    def concatenate(cls, parts: list) -> SoftMarginSums:
        """The sums of ``parts`` (each a :class:`SoftMarginSums` of some candidates, all
        with the same ``runs``) stacked in order: candidates are independent, so the rows
        are exactly those one call over every candidate gives."""
        if not parts or len({p.runs for p in parts}) != 1:
            raise ValueError("parts must be a non-empty list of sums with equal runs")
        out = cls.__new__(cls)
        for f in ("m1", "s1", "m2", "s2", "jac", "hits"):
            setattr(out, f, np.concatenate([getattr(p, f) for p in parts]))
        out.runs = parts[0].runs
        return out


def accumulate(code: int, stores: list, sources: np.ndarray, gens: list, n_sims: int, T: int,
               params, mask: np.ndarray, n_obs: int, widths, sums: SoftMarginSums) -> None:
    """Run ``n_sims`` more spreads from each of ``sources`` and add them to ``sums``.

    Parameters
    ----------
    code : int
        The protocol's kernel code (``Protocol.kernel_code``).
    stores : list of GraphStore
        One store per thread, each with clean run state (left clean); their number is
        the number of threads (one: serial).
    sources : numpy.ndarray of int32
        The candidates (store node ids).
    gens : list of numpy.random.Generator
        One per candidate, used by this call only (no lock is taken).
    n_sims : int
        Runs per candidate in this call.
    T : int
        Steps of each run.
    params : array_like of float
        ``Protocol.kernel_params(graph, T)``.
    mask : numpy.ndarray of uint8
        1 at the observed infected nodes (store node ids below ``len(mask)``).
    n_obs : int
        ``mask.sum()``.
    widths : array_like of float
        The kernel widths ``a_j > 0``.
    sums : SoftMarginSums
        Updated in place.
    """
    if not isinstance(stores, list) or not 1 <= len(stores) <= 1024:
        raise InvalidParameterError(f"stores must be a list of 1..1024 stores; got {stores!r:.80}")
    if not isinstance(sums, SoftMarginSums):
        raise InvalidTypeError(f"sums must be SoftMarginSums; got {type(sums).__name__}")
    if not isinstance(gens, list) or not all(isinstance(g, np.random.Generator) for g in gens):
        raise InvalidTypeError("gens must be a list of numpy.random.Generator, one per source")
    widths = np.asarray(widths, np.float64)
    if widths.ndim != 1 or np.any(~(widths > 0)):
        raise ValueError(f"widths must be positive; got {widths!r}")
    with np.errstate(all="ignore"):
        inv_a2 = np.ascontiguousarray(1.0 / widths**2)
    if not np.isfinite(2.0 * inv_a2).all():
        raise ValueError(f"widths must be at least 2**-510 (1/a^2 must stay finite); got {widths!r}")
    mask = np.ascontiguousarray(mask, np.uint8)
    if mask.ndim != 1 or mask.shape[0] == 0 or int(mask.sum()) != n_obs:
        raise ValueError(f"mask must be a non-empty 0/1 vector with n_obs = {n_obs} ones")
    if len(stores) > 1 and not OPENMP:
        stores = stores[:1]
    _softmargin.accumulate(int(code), list(stores), np.ascontiguousarray(sources, np.int32),
                           list(gens), int(n_sims), int(T),
                           np.ascontiguousarray(params, np.float64), mask, int(n_obs), inv_a2,
                           sums.m1, sums.s1, sums.m2, sums.s2, sums.jac, sums.hits)
    sums.runs += int(n_sims)


def accumulate_chunk(code: int, shared: tuple, threads: int, sources: np.ndarray, gens: list,
                     n_sims: int, T: int, n_obs: int, widths, sums: SoftMarginSums
                     ) -> tuple[SoftMarginSums, list]:
    """:func:`accumulate` for a chunk of the candidates, as a task for another process or
    worker (module level, so it pickles by name).

    Parameters
    ----------
    code, sources, gens, n_sims, T, n_obs, widths
        As :func:`accumulate` (``sources``, ``gens``: the chunk's).
    shared : tuple
        ``(graph, params, mask)``, the same for every chunk of a call: ``graph`` is
        ``(indptr, indices)`` of a finite graph's CSR or the ``GraphStore`` of a lazily
        grown tree (never written: runs use copies).
    threads : int
        Stores, hence OpenMP threads, of this task.
    sums : SoftMarginSums
        The chunk's sums so far (updated and returned).

    Returns
    -------
    (SoftMarginSums, list of numpy.random.Generator)
        The chunk's sums and its generators, advanced past this call's runs.
    """
    if not isinstance(shared, tuple) or len(shared) != 3:
        raise InvalidParameterError("shared must be the tuple (graph, params, mask)")
    graph, params, mask = shared
    threads = _check.integer(threads, "threads", low=1, high=1024)
    if isinstance(graph, GraphStore):
        stores = [copy_store(graph) for _ in range(threads)]
    else:
        indptr, indices = graph
        stores = [new_finite_store(indptr, indices) for _ in range(threads)]
    accumulate(code, stores, sources, gens, n_sims, T, params, mask, n_obs, widths, sums)
    return sums, gens


class PairSums:
    """The running sums of :func:`accumulate_shared`, one row per (candidate, snapshot)
    pair and ``n_widths`` kernel widths; like :class:`SoftMarginSums` but each pair counts
    its own runs (a pair stops drawing when its snapshot stops or eliminates the
    candidate).

    Parameters
    ----------
    n_pairs : int
    n_widths : int

    Attributes
    ----------
    m1, s1, m2, s2, jac, hits
        As :class:`SoftMarginSums`, per pair.
    runs : numpy.ndarray of int64
        Runs scored against each pair's snapshot so far.
    near : numpy.ndarray of int64, shape (n_pairs, n_widths)
        Runs within one width of the snapshot (``1 - phi <= a_j``).
    """

    _FIELDS = ("m1", "s1", "m2", "s2", "jac", "hits", "runs", "near")

    def __init__(self, n_pairs: int, n_widths: int) -> None:
        shape = (n_pairs, n_widths)
        self.m1 = np.full(shape, -np.inf)
        self.s1 = np.zeros(shape)
        self.m2 = np.full(shape, -np.inf)
        self.s2 = np.zeros(shape)
        self.jac = np.zeros((n_pairs, 2))
        self.hits = np.zeros(n_pairs, np.int64)
        self.runs = np.zeros(n_pairs, np.int64)
        self.near = np.zeros(shape, np.int64)

    def log_sums(self, rows=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """``(log sum_i K_i, log sum_i K_i^2)`` of the pairs ``rows``, per width."""
        with np.errstate(divide="ignore"):
            return (self.m1[rows] + np.log(self.s1[rows]), self.m2[rows] + np.log(self.s2[rows]))

    def take(self, rows: slice) -> PairSums:
        """The sums of the pairs ``rows`` (copies)."""
        out = PairSums.__new__(PairSums)
        for f in self._FIELDS:
            setattr(out, f, getattr(self, f)[rows].copy())
        return out

    @classmethod
    def concatenate(cls, parts: list) -> PairSums:
        """The sums of ``parts`` stacked in order (pairs are independent)."""
        if not parts:
            raise ValueError("parts must be a non-empty list of PairSums")
        out = cls.__new__(cls)
        for f in cls._FIELDS:
            setattr(out, f, np.concatenate([getattr(p, f) for p in parts]))
        return out


def _check_layout(sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs, widths):
    sources = np.ascontiguousarray(sources, np.int32)
    pair_ptr = np.ascontiguousarray(pair_ptr, np.int64)
    pair_snap = np.ascontiguousarray(pair_snap, np.int32)
    active = np.ascontiguousarray(active, np.uint8)
    snap_ptr = np.ascontiguousarray(snap_ptr, np.int64)
    snap_ids = np.ascontiguousarray(snap_ids, np.int32)
    n_obs = np.ascontiguousarray(n_obs, np.int64)
    for name, arr in (("sources", sources), ("pair_ptr", pair_ptr), ("pair_snap", pair_snap),
                      ("active", active), ("snap_ptr", snap_ptr), ("snap_ids", snap_ids),
                      ("n_obs", n_obs)):
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if snap_ptr.shape[0] == 0:
        raise ValueError("snap_ptr must have at least one entry")
    if n_obs.shape[0] and (np.any(n_obs < 1)
                           or not np.array_equal(np.bincount(snap_ids, minlength=n_obs.shape[0])
                                                 [:n_obs.shape[0]], n_obs)):
        raise ValueError("n_obs must count each snapshot's nodes in snap_ids (every one >= 1)")
    widths = np.asarray(widths, np.float64)
    if widths.ndim != 1 or np.any(~(widths > 0)):
        raise ValueError(f"widths must be positive; got {widths!r}")
    inv_a2 = np.ascontiguousarray(1.0 / widths**2)
    return sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs, inv_a2


def scoring_costs(pair_ptr: np.ndarray, active: np.ndarray, snap_ptr: np.ndarray,
                  n_snapshots: int) -> tuple[float, float, int]:
    """Expected word operations per run of each way :func:`accumulate_shared` can score a
    run, and the bytes the bitsets take (what ``scoring="auto"`` compares).

    A run resembles a snapshot of the batch, so its nodes are held by as many snapshots as
    a snapshot's nodes are on average, ``sum_v h_v^2 / B`` (``h_v``: the snapshots holding
    node ``v``, ``B`` the snapshots); counting visits each twice (count, reset). Bitsets
    set and clear the run's bits (``2 sum_v h_v / B``) and and-count ``ceil(U / 64)``
    words (``U``: the nodes of any snapshot) per active pair of a running candidate.

    Parameters
    ----------
    pair_ptr, active, snap_ptr
        As :func:`accumulate_shared`.
    n_snapshots : int
        The snapshots of the batch (``len(n_obs)``).

    Returns
    -------
    (float, float, int)
        Word operations per run by counts and by bitsets, and the bitsets' bytes.
    """
    pair_ptr = np.ascontiguousarray(pair_ptr, np.int64)
    active = np.ascontiguousarray(active, np.uint8)
    snap_ptr = np.ascontiguousarray(snap_ptr, np.int64)
    n_snapshots = _check.integer(n_snapshots, "n_snapshots", low=0)
    if pair_ptr.ndim != 1 or active.ndim != 1 or snap_ptr.ndim != 1:
        raise ValueError("pair_ptr, active and snap_ptr must be one-dimensional")
    if (pair_ptr.shape[0] == 0 or pair_ptr[0] != 0 or np.any(np.diff(pair_ptr) < 0)
            or pair_ptr[-1] != active.shape[0]):
        raise ValueError("pair_ptr must be non-decreasing from 0 to len(active)")
    if snap_ptr.shape[0] == 0 or snap_ptr[0] != 0 or np.any(np.diff(snap_ptr) < 0):
        raise ValueError("snap_ptr must be non-decreasing from 0")
    return _softmargin.scoring_costs(pair_ptr, active, snap_ptr, n_snapshots)


def accumulate_shared(code: int, stores: list, sources: np.ndarray, gens: list, n_sims: int,
                      T: int, params, pair_ptr: np.ndarray, pair_snap: np.ndarray,
                      active: np.ndarray, snap_ptr: np.ndarray, snap_ids: np.ndarray,
                      n_obs: np.ndarray, widths, sums: PairSums, *, scoring: str = "auto") -> str:
    """Run ``n_sims`` more spreads from each candidate that has an active pair and score
    every run against each snapshot of its active pairs.

    A batch of snapshots ``b = 0..B-1`` of one graph, protocol and ``T``: candidate
    ``sources[c]`` is a candidate of the snapshots ``pair_snap[p]`` for the pairs
    ``pair_ptr[c] <= p < pair_ptr[c + 1]``. Each run from ``sources[c]`` (one simulation,
    drawn from ``gens[c]``) is compared with every snapshot ``b`` of an active pair
    (``active[p] = 1``) by its Jaccard similarity, counted through ``snap_ptr``/``snap_ids``
    (CSR: the snapshots that hold store node ``v``, for ``v < len(snap_ptr) - 1``), and
    added to that pair's sums. A candidate without an active pair does not run and does
    not draw from its generator. Pair ``p``'s sums are therefore exactly those that
    :func:`accumulate` gives for snapshot ``pair_snap[p]`` alone from the same generator,
    over the same runs (the first ``sums.runs[p]`` runs of ``gens[c]``), whatever the
    other snapshots of the batch.

    Parameters
    ----------
    code, stores, T, params
        As :func:`accumulate`.
    sources : numpy.ndarray of int32
        The distinct candidates (store node ids).
    gens : list of numpy.random.Generator
        One per candidate, used by this call only.
    n_sims : int
        Runs per running candidate in this call.
    pair_ptr : numpy.ndarray of int64, shape (len(sources) + 1,)
    pair_snap : numpy.ndarray of int32
        The snapshot of each pair.
    active : numpy.ndarray of uint8
        1 for the pairs that take this call's runs.
    snap_ptr, snap_ids : numpy.ndarray of int64, int32
        The snapshots holding each store node (CSR over the first ``len(snap_ptr) - 1``
        store nodes; later nodes are in no snapshot).
    n_obs : numpy.ndarray of int64
        Nodes of each snapshot (the count of its id in ``snap_ids``).
    widths : array_like of float
        The kernel widths ``a_j > 0``.
    sums : PairSums
        Updated in place.
    scoring : {"auto", "counts", "bitsets"}, default "auto"
        How ``|run & snapshot|`` is counted, the same integers (hence the same sums,
        bitwise) either way: ``"counts"``, one counter per snapshot, incremented for every
        snapshot that holds each run node (cost per run: the run's nodes times the
        snapshots holding them; best for small snapshots scattered over a large graph);
        ``"bitsets"``, the run as a bitset over the nodes of any snapshot, and-ed with the
        bitset of each active pair's snapshot and counted by popcount (cost per run:
        ``ceil(U / 64)`` words per active pair, ``U`` the nodes of any snapshot; best when
        the snapshots overlap, e.g. a sweep point's trials covering most of a graph);
        ``"auto"``, the cheaper by the expected word operations
        (:func:`scoring_costs`), counts when the bitsets would take more than
        :data:`BITSET_BYTES`.

    Returns
    -------
    str
        The way used, ``"counts"`` or ``"bitsets"``.
    """
    if scoring not in _SCORING:
        raise InvalidParameterError(
            f"scoring must be one of {', '.join(map(repr, _SCORING))}; got {scoring!r}")
    if not 1 <= len(stores) <= 1024:
        raise ValueError(f"stores must hold 1..1024 stores; got {len(stores)}")
    (sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs,
     inv_a2) = _check_layout(sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs,
                             widths)
    if len(stores) > 1 and not OPENMP:
        stores = stores[:1]
    used = _softmargin.accumulate_shared(int(code), list(stores), sources, list(gens), int(n_sims),
                                         int(T), np.ascontiguousarray(params, np.float64), pair_ptr,
                                         pair_snap, active, snap_ptr, snap_ids, n_obs, inv_a2,
                                         sums.m1, sums.s1, sums.m2, sums.s2, sums.jac, sums.hits,
                                         sums.runs, sums.near, _SCORING[scoring])
    return "bitsets" if used == 1 else "counts"


def accumulate_shared_chunk(code: int, shared: tuple, threads: int, sources: np.ndarray,
                            gens: list, n_sims: int, T: int, pair_ptr: np.ndarray,
                            pair_snap: np.ndarray, active: np.ndarray, widths,
                            sums: PairSums) -> tuple[PairSums, list]:
    """:func:`accumulate_shared` for a chunk of the candidates, as a task for another
    process or worker (module level, so it pickles by name).

    Parameters
    ----------
    shared : tuple
        ``(graph, params, snap_ptr, snap_ids, n_obs)``, the same for every chunk:
        ``graph`` as in :func:`accumulate_chunk`.
    threads : int
        Stores, hence OpenMP threads, of this task.
    sources, gens, pair_ptr, pair_snap, active, sums
        The chunk's (``pair_ptr`` rebased to start at 0).
    code, n_sims, T, widths
        As :func:`accumulate_shared`.

    Returns
    -------
    (PairSums, list of numpy.random.Generator)
        The chunk's sums and its generators, advanced past this call's runs.
    """
    graph, params, snap_ptr, snap_ids, n_obs = shared
    threads = _check.integer(threads, "threads", low=1, high=1024)
    if isinstance(graph, GraphStore):
        stores = [copy_store(graph) for _ in range(threads)]
    else:
        indptr, indices = graph
        stores = [new_finite_store(indptr, indices) for _ in range(threads)]
    accumulate_shared(code, stores, sources, gens, n_sims, T, params, pair_ptr, pair_snap,
                      active, snap_ptr, snap_ids, n_obs, widths, sums)
    return sums, gens


def _random_diffusion_p(params: np.ndarray) -> float:
    """Random diffusion's ``p`` from its kernel parameters (``RandomDiffusion.kernel_params``)."""
    if params.ndim != 1 or params.shape[0] < 1:
        raise InvalidParameterError(
            f"params must hold random diffusion's p (RandomDiffusion.kernel_params); got {params!r}")
    return float(params[0])


#: Kernel codes that :func:`accumulate_shared_lanes` runs 64 at a time, and how each reads
#: its success probability from the protocol's kernel parameters (checking them).
LANE_KERNELS: dict = {
    RANDOM_DIFFUSION: _random_diffusion_p,
    FLOODING: lambda params: 1.0,
}


def probability_bits(p: float) -> tuple[bool, np.ndarray]:
    """``p``'s exact binary expansion for the lanes' Bernoulli draws: ``(certain, bits)``,
    ``certain`` True when ``p == 1`` (every attempt succeeds), else ``bits[i]`` the
    ``(i + 1)``-th binary digit of ``p`` after the point (a double has finitely many;
    ``p == 0``: none, nothing ever succeeds).

    Examples
    --------
    >>> probability_bits(0.5)
    (False, array([1], dtype=uint8))
    >>> probability_bits(0.375)[1]
    array([0, 1, 1], dtype=uint8)
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise InvalidParameterError(f"p must be a probability in [0, 1]; got {p!r}")
    if p == 1.0:
        return True, np.zeros(0, np.uint8)
    f = Fraction(p)  # num / 2**E exactly
    E = f.denominator.bit_length() - 1
    num = f.numerator
    return False, np.array([(num >> (E - i)) & 1 for i in range(1, E + 1)], np.uint8)


def lanes_bytes(n_nodes: int, n_snapshots: int, n_bits: int, threads: int = 1) -> int:
    """Bytes :func:`accumulate_shared_lanes` allocates: the snapshots' bitsets over the
    ``n_bits`` nodes of any snapshot and, per thread, 25 bytes per graph node and the
    64 runs' bitsets."""
    return _softmargin.lanes_bytes(int(n_nodes), int(n_snapshots), int(n_bits), int(threads))


class LaneStreams:
    """The random streams of :func:`accumulate_shared_lanes`: one 64-bit key per candidate
    and the runs it has drawn so far.

    Run ``r`` of a candidate is lane ``r % 64`` of its block ``r // 64``, and block ``b``
    draws from xoshiro256** seeded by SplitMix64 from ``key`` and ``b``: a run's outcome
    depends only on ``(key, r)``, so the sums do not depend on how the runs are split into
    calls, on the threads, nor on the other candidates.

    Parameters
    ----------
    keys : array_like of uint64
    drawn : array_like of int64 or None
        Runs drawn so far per candidate (None: zero).
    """

    def __init__(self, keys, drawn=None) -> None:
        self.keys = np.ascontiguousarray(keys, np.uint64)
        if self.keys.ndim != 1:
            raise InvalidParameterError(f"keys must be one-dimensional; got shape {self.keys.shape}")
        self.drawn = (np.zeros(self.keys.shape[0], np.int64) if drawn is None
                      else np.array(drawn, np.int64))
        if self.drawn.shape != self.keys.shape or np.any(self.drawn < 0):
            raise InvalidParameterError("drawn must hold a count >= 0 per key")

    def take(self, rows: slice) -> LaneStreams:
        """The streams of the candidates ``rows`` (copies)."""
        return LaneStreams(self.keys[rows].copy(), self.drawn[rows].copy())

    def __len__(self) -> int:
        return self.keys.shape[0]

    def __repr__(self) -> str:
        return f"LaneStreams({len(self)} candidates, runs drawn {self.drawn.min(initial=0)}..{self.drawn.max(initial=0)})"


def accumulate_shared_lanes(code: int, stores: list, sources: np.ndarray, streams: LaneStreams,
                            n_sims: int, T: int, params, pair_ptr: np.ndarray,
                            pair_snap: np.ndarray, active: np.ndarray, snap_ptr: np.ndarray,
                            snap_ids: np.ndarray, n_obs: np.ndarray, widths,
                            sums: PairSums) -> str:
    """:func:`accumulate_shared` for random diffusion and flooding on a finite graph, 64
    runs at a time.

    The runs of each candidate are simulated as 64-bit words, one per node, bit ``l``
    the node's state in run ``l``: a step ORs into each uninfected node, in every run at
    once, its infected neighbours' attempts, each attempt a Bernoulli(``p``) bit drawn
    only for the runs where it matters, exactly (``p``'s binary expansion against uniform
    bits, :func:`probability_bits`). In every run this is the serial kernel's rule (each
    boundary node tries each uninfected neighbour once a step; nodes infected at step
    ``t`` act from ``t + 1``), so the runs have the serial kernel's law; they are not the
    serial kernel's draws (the streams are :class:`LaneStreams`). Each run is scored
    against the snapshots of its candidate's active pairs by bitsets, in run order,
    with the arithmetic of :func:`accumulate_shared`.

    Parameters
    ----------
    code : int
        A key of :data:`LANE_KERNELS` (``FLOODING``, ``RANDOM_DIFFUSION``).
    stores : list of GraphStore
        Finite-graph stores (their CSR is read; their run state is not used); one per
        thread.
    streams : LaneStreams
        One per candidate; the running candidates' ``drawn`` advance by ``n_sims``.
    sources, n_sims, T, params, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs, widths, sums
        As :func:`accumulate_shared`.

    Returns
    -------
    str
        ``"lanes"``.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.engine import softmargin, store, spreading
    >>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1], np.int32)  # a path
    >>> s = PairSums(1, 1)
    >>> _ = accumulate_shared_lanes(spreading.FLOODING, [store.new_finite_store(indptr, indices)],
    ...     np.array([1], np.int32), LaneStreams([7]), 100, 1, [], np.array([0, 1]),
    ...     np.array([0], np.int32), np.array([1], np.uint8), np.array([0, 1, 2, 3]),
    ...     np.array([0, 0, 0], np.int32), np.array([3]), [0.25], s)
    >>> int(s.hits[0]), int(s.runs[0])  # flooding one step from the middle covers the path
    (100, 100)
    """
    if code not in LANE_KERNELS:
        raise InvalidParameterError(
            f"code must be one of the lane kernels {sorted(LANE_KERNELS)}; got {code!r}")
    if not isinstance(streams, LaneStreams):
        raise InvalidTypeError(f"streams must be LaneStreams; got {type(streams).__name__}")
    if not 1 <= len(stores) <= 1024:
        raise ValueError(f"stores must hold 1..1024 stores; got {len(stores)}")
    (sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs,
     inv_a2) = _check_layout(sources, pair_ptr, pair_snap, active, snap_ptr, snap_ids, n_obs,
                             widths)
    if len(streams) != sources.shape[0]:
        raise InvalidParameterError(
            f"streams must hold one key per source ({sources.shape[0]}); got {len(streams)}")
    n_sims = _check.integer(n_sims, "n_sims", low=0)
    T = _check.integer(T, "T", low=0)
    certain, bits = probability_bits(LANE_KERNELS[code](np.asarray(params, np.float64)))
    if len(stores) > 1 and not OPENMP:
        stores = stores[:1]
    _softmargin.accumulate_shared_lanes(list(stores), sources, streams.keys, streams.drawn,
                                        int(n_sims), int(T), bool(certain), bits, pair_ptr,
                                        pair_snap, active, snap_ptr, snap_ids, n_obs, inv_a2,
                                        sums.m1, sums.s1, sums.m2, sums.s2, sums.jac, sums.hits,
                                        sums.runs, sums.near)
    return "lanes"


def accumulate_shared_lanes_chunk(code: int, shared: tuple, threads: int, sources: np.ndarray,
                                  streams: LaneStreams, n_sims: int, T: int,
                                  pair_ptr: np.ndarray, pair_snap: np.ndarray,
                                  active: np.ndarray, widths,
                                  sums: PairSums) -> tuple[PairSums, LaneStreams]:
    """:func:`accumulate_shared_lanes` for a chunk of the candidates, as a task for another
    process or worker (as :func:`accumulate_shared_chunk`; ``shared``'s graph is a finite
    graph's ``(indptr, indices)``).

    Returns
    -------
    (PairSums, LaneStreams)
        The chunk's sums and streams, advanced past this call's runs.
    """
    graph, params, snap_ptr, snap_ids, n_obs = shared
    threads = _check.integer(threads, "threads", low=1, high=1024)
    indptr, indices = graph
    stores = [new_finite_store(indptr, indices) for _ in range(threads)]
    accumulate_shared_lanes(code, stores, sources, streams, n_sims, T, params, pair_ptr,
                            pair_snap, active, snap_ptr, snap_ids, n_obs, widths, sums)
    return sums, streams
