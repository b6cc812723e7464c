"""The soft-margin estimator: the likelihood of each candidate source by simulation.

Antulov-Fantulin, Lančić, Šmuc, Štefančić & Šikić, "Identification of patient zero in static
and temporal networks: robustness and limitations", Phys. Rev. Lett. 114, 248701 (2015),
arXiv:1406.2909. For each candidate source θ the protocol is simulated ``n`` times from θ for
the snapshot's ``T`` steps; each simulated infected set ``R_i`` is compared with the
observed set ``R*`` by the Jaccard similarity ``φ_i = |R_i ∩ R*| / |R_i ∪ R*|``, and the
likelihood ``P(R* | θ)`` is estimated with the soft-margin kernel

    P̂_a(R* | θ) = (1/n) Σ_i exp(-(φ_i - 1)² / a²).

As ``a -> 0`` the kernel keeps only exact matches (``φ_i = 1`` iff ``R_i = R*``), so
``P̂_a`` tends to the fraction of runs that reproduce the snapshot: an unbiased estimate of
the exact likelihood. A wider kernel also credits near misses: less variance, more bias.
The simulations run in the compiled engine (:mod:`anonspread.engine.softmargin`), every
candidate on its own random stream.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries import _tasks
from anonspread.adversaries.estimators import _check_snapshot, jordan_center
from anonspread.adversaries.observation import Snapshot
from anonspread.adversaries.registry import register_estimator
from anonspread.adversaries.scores import Scores
from anonspread.engine import softmargin as _sm
from anonspread.engine.spreading import KERNEL_CODES
from anonspread.engine.store import new_finite_store
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import LazyTree
from anonspread.spread.limits import check_size, run_work
from anonspread.spread.protocols import Protocol
from anonspread.validation import check_int, check_real, check_rng

__all__ = ["SOFT_MARGIN_PROTOCOLS", "SoftMarginCost", "SoftMarginResult", "soft_margin",
           "soft_margin_cost", "soft_margin_estimate", "soft_margin_many"]

#: The protocols the estimator simulates: every registered protocol with a compiled kernel
#: whose adversary sees a snapshot (Dandelion's stems run only in the message-level engine).
SOFT_MARGIN_PROTOCOLS = ("adaptive-diffusion", "line", "tree", "tree-pseudocode",
                         "random-diffusion", "flooding")

#: Runs that must support the MAP's estimate (effective sample size of its kernel values,
#: ``(sum K)^2 / sum K^2``) before a width counts as stable: a narrow kernel whose sum is one
#: lucky near miss has a small delta-method error but says little.
MIN_EFFECTIVE_RUNS = 10

#: Default kernel widths a = 2^-2, ..., 2^-6, widest first.
DEFAULT_WIDTHS = tuple(2.0**-j for j in range(2, 7))


@dataclass(frozen=True)
class SoftMarginResult:
    """What :func:`soft_margin_estimate` found, with its Monte Carlo error.

    Parameters
    ----------
    scores : Scores
        ``log P̂_a(R* | θ)`` at the reported width ``a`` for every infected node, kind
        ``"log-likelihood"``; ``-inf`` for pruned nodes (the kernel sums are kept as
        log-sums, so a candidate's score is finite even when every run missed widely).
    a : float
        The kernel width of :attr:`scores`.
    widths : numpy.ndarray
        Every width tried (widest first).
    log_likelihood : numpy.ndarray, shape (len(candidates), len(widths))
        ``log P̂_a`` of each candidate at each width.
    candidates : numpy.ndarray
        The candidate sources kept by pruning (labels), in snapshot order.
    simulations : int
        The most runs any candidate drew (every candidate draws as many unless
        ``eliminate`` stopped it: see :attr:`runs`).
    total_simulations : int
        ``runs.sum()``: the runs scored against this snapshot (with
        :func:`soft_margin_many` a run is simulated once and may be scored against several
        snapshots).
    error : float
        Standard error (delta method) of the posterior probability of the MAP candidate at
        width ``a`` under a uniform prior over the candidates.
    converged : bool
        The reported posterior estimates the *exact* posterior: at width ``a`` (i) the MAP
        is stable over the last two rounds within two standard errors, with standard error
        at most ``tolerance`` and at least :data:`MIN_EFFECTIVE_RUNS` effective runs;
        (ii) the MAP's runs reproduced the snapshot exactly at least
        :data:`MIN_EFFECTIVE_RUNS` times; (iii) runs that reproduce the snapshot carry all
        but ``tolerance`` of the kernel mass (``exact_share >= 1 - tolerance``: then the
        reported posterior is within ``1 - exact_share`` in total variation of the
        exact-match posterior, an estimate of the exact one); (iv) ``tv_error <=
        tolerance``. Never true for a snapshot no run reproduced.
    exact_matches : numpy.ndarray of int
        Runs per candidate that reproduced the snapshot exactly (``φ = 1``).
    mean_jaccard : numpy.ndarray of float
        Mean Jaccard similarity of each candidate's runs with the snapshot.
    informative : bool
        At width ``a``, at least :data:`MIN_EFFECTIVE_RUNS` runs of the MAP came within one
        width of the snapshot (``1 - φ <= a``): the scores rest on runs near the snapshot.
        False: no width had such runs; the scores (at the widest width) then rank the
        candidates by a smoothed similarity of runs that all missed widely, not by a
        likelihood.
    support : float
        The number of the MAP's runs within one width of the snapshot, at width ``a``.
    exact_share : float
        At width ``a``: ``Σ_θ hits_θ / runs_θ`` over ``Σ_θ P̂_a(R* | θ)``, the part of the
        kernel mass carried by exact matches (1: the kernel estimate is the exact-match
        estimate).
    tv_error : float
        Half the sum over the candidates of the posterior's standard errors at width ``a``
        (delta method): the scale of its total-variation error from Monte Carlo noise.
    runs : numpy.ndarray of int
        Runs per candidate (fewer for the candidates ``eliminate`` stopped).
    settled : bool
        Refinement stopped before the cap without converging (``settle=True``): at width
        ``a`` the MAP was stable and ``tv_error <= tolerance``, and no width that would be
        reported instead (a narrower one; any, when none is informative) had near runs
        enough to become informative by the cap (its most near runs, scaled to the cap's
        runs, below :data:`MIN_EFFECTIVE_RUNS`). Running on to the cap would then report
        the same width and move its posterior by about ``tv_error`` at most; the snapshot
        was still not reproduced, so the result is not ``converged``.
    stop : str
        Why refinement stopped: ``"converged"``; ``"settled"`` (above); ``"uninformative"``
        (``stop_uninformative=True``: after the second round no width was informative and
        none was projected to become informative by the cap, so the scores are the widest
        width's similarity ranking of the runs drawn, never a likelihood; see
        :func:`soft_margin_estimate`, *Uninformative snapshots*); ``"identified"``
        (``eliminate`` left one candidate drawing); ``"cap"`` (the next doubling would
        pass ``max_simulations``).

    Examples
    --------
    Protocol 1 fills the path segment [2, 6] in two steps only from its centre:

    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> res = adversaries.soft_margin_estimate(snap, spread.LineProtocol(), rng=1)
    >>> res.candidates.tolist(), res.exact_matches.tolist(), res.total_simulations
    ([2, 3, 4, 5, 6], [0, 0, 233, 0, 0], 10000)
    """

    scores: Scores
    a: float
    widths: np.ndarray
    log_likelihood: np.ndarray
    candidates: np.ndarray
    simulations: int
    total_simulations: int
    error: float
    converged: bool
    exact_matches: np.ndarray
    mean_jaccard: np.ndarray
    informative: bool
    support: float
    exact_share: float
    tv_error: float
    runs: np.ndarray
    settled: bool = False
    stop: str = "cap"

    def __repr__(self) -> str:
        # one line: the key figures (the per-candidate arrays are the fields)
        return (f"SoftMarginResult(candidates={len(self.candidates)}, a={self.a:.3g}, "
                f"simulations={self.simulations} per candidate ({self.total_simulations} in all), "
                f"converged={self.converged}, settled={self.settled}, error={self.error:.3g}, "
                f"informative={self.informative}, stop={self.stop!r})")


#: The narrowest soft-margin width whose 2/a^2 is a finite float (2^-510, about 3e-154).
_A_MIN = 2.0**-510


def _check_widths(a: Any) -> np.ndarray:
    vals = [a] if isinstance(a, (int, float, np.integer, np.floating)) else a
    if isinstance(vals, (str, bytes)) or not isinstance(vals, (Sequence, np.ndarray)):
        raise InvalidTypeError(f"a must be a positive width or a sequence of them; got {a!r}")
    out = np.array([check_real(v, "a", low=0.0, low_open=True) for v in vals], np.float64)
    if out.shape[0] == 0:
        raise InvalidParameterError("a must hold at least one width; got an empty sequence")
    with np.errstate(all="ignore"):  # the kernel weighs by exp(-2 (phi - 1)^2 / a^2)
        finite = np.isfinite(2.0 / out**2)
    if not finite.all():
        raise InvalidParameterError(
            f"a must be at least {_A_MIN:.3g} (narrower widths overflow 1/a^2 and every score "
            f"would be NaN); got {out[~finite][0]!r}")
    if np.any(np.diff(out) >= 0):
        raise InvalidParameterError(f"a must be strictly decreasing (widest first); got {a!r}")
    return out


def _posterior_error(logp: np.ndarray, logq: np.ndarray, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Posterior over the candidates (uniform prior) and the delta-method standard error of
    each entry, from ``log sum K`` and ``log sum K^2`` of ``runs`` runs each."""
    top = np.max(logp)
    if not np.isfinite(top):
        return np.full(logp.shape, np.nan), np.full(logp.shape, np.inf)
    x = np.exp(logp - top) / runs            # P̂ / max P̂ ...
    x2 = np.exp(logq - 2 * top) / runs       # ... and E[K^2] on the same scale
    var = np.maximum(x2 - x * x, 0.0) / runs
    s, vs = x.sum(), var.sum()
    post = x / s
    # pi_c = X_c / (X_c + Y_c), Y_c the other candidates' sum, estimated independently
    y = s - x
    err = np.sqrt((y * y * var + x * x * (vs - var)) / s**4)
    return post, err


def _width_stability(logp: np.ndarray, logq: np.ndarray, runs: int, prev_map: np.ndarray,
                    tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """The refinement rule of one round, per kernel width (columns of ``logp``, ``logq``:
    ``log sum K`` and ``log sum K^2`` per candidate over ``runs`` runs each).

    A width is stable when the previous round's MAP (``prev_map``, -1 before the first
    round; updated in place to this round's) is within two standard errors of the current
    MAP's posterior, that posterior's standard error is at most ``tolerance``, and at least
    :data:`MIN_EFFECTIVE_RUNS` effective runs carry it. Returns ``(stable, error)``: the
    flags and the MAP posterior's standard error per width (inf where no run counted).
    """
    nw = logp.shape[1]
    stable = np.zeros(nw, bool)
    errs = np.full(nw, np.inf)
    for j in range(nw):
        post, err = _posterior_error(logp[:, j], logq[:, j], runs)
        if np.isnan(post[0]):
            continue
        m = int(np.argmax(post))
        errs[j] = err[m]
        p = prev_map[j]
        same = p >= 0 and post[p] + 2 * math.hypot(err[m], err[p]) >= post[m]
        ess = math.exp(2 * logp[m, j] - logq[m, j])
        stable[j] = bool(same and err[m] <= tolerance and ess >= MIN_EFFECTIVE_RUNS)
        prev_map[j] = m
    return stable, errs


def _prune(snapshot: Snapshot, k: int | None) -> np.ndarray:
    """Local ids of the candidates: all infected nodes, or the ``k`` of smallest
    eccentricity in the infected subgraph (Jordan score), ties by the node's index in the
    contact graph.

    Never by snapshot order: :func:`observe` lists the infected nodes in infection order,
    source first, and breaking ties by position kept the source among the candidates of
    198 of 200 random-diffusion snapshots of the three-block graph at T = 6, where an
    order-free rule keeps it in 41.
    """
    n = snapshot.n
    if k is None or k >= n:
        return np.arange(n)
    jordan = jordan_center(snapshot).array
    return np.sort(np.lexsort((np.asarray(snapshot.index, np.int64), -jordan))[:k])


def _stores(g, threads: int) -> tuple[list, Any]:
    """One store per thread, and the store to give back to ``g`` (finite graphs)."""
    if isinstance(g, LazyTree):
        base = g.store
        return [_sm.copy_store(base) for _ in range(threads)], None
    first = g.take_store()
    return [first] + [new_finite_store(g.indptr, g.indices) for _ in range(threads - 1)], first


@dataclass
class _Simulation:
    """How a batch's runs are drawn: 64 at a time (random diffusion and flooding on a
    finite graph, :func:`engine.softmargin.accumulate_shared_lanes`) or one at a time."""

    accumulate: Any   # engine.softmargin.accumulate_shared or accumulate_shared_lanes
    chunk: Any        # its task form for an executor
    lanes: bool


_ONE_AT_A_TIME = _Simulation(_sm.accumulate_shared, _sm.accumulate_shared_chunk, False)
_LANES = _Simulation(_sm.accumulate_shared_lanes, _sm.accumulate_shared_lanes_chunk, True)


def _simulation(g, protocol: Protocol, lay: _Layout) -> _Simulation:
    """Lanes where the engine has them for the protocol (:data:`engine.softmargin.LANE_KERNELS`)
    on a finite graph whose snapshots' bitsets fit :data:`engine.softmargin.BITSET_BYTES`;
    else one run at a time."""
    if isinstance(g, LazyTree) or protocol.kernel_code not in _sm.LANE_KERNELS:
        return _ONE_AT_A_TIME
    n_bits = int(np.count_nonzero(np.diff(lay.snap_ptr)))
    bitset_bytes = lay.n_obs.shape[0] * ((n_bits + 63) // 64) * 8
    return _LANES if bitset_bytes <= _sm.BITSET_BYTES else _ONE_AT_A_TIME


def _streams(sim: _Simulation, entropy: int, sources: np.ndarray) -> Any:
    """Each distinct candidate's stream, keyed by its node index ``i_v``: the generator
    ``SeedSequence(entropy, spawn_key=(i_v,))`` (one run at a time) or, for lanes, a key
    drawn from that seed sequence (:class:`engine.softmargin.LaneStreams`)."""
    seqs = [np.random.SeedSequence(entropy, spawn_key=(int(v),)) for v in sources]
    if sim.lanes:
        keys = np.array([q.generate_state(1, np.uint64)[0] for q in seqs], np.uint64)
        return _sm.LaneStreams(keys)
    return [np.random.Generator(np.random.PCG64(q)) for q in seqs]


def _is_dask_client(executor: Any) -> bool:
    # without dask.distributed imported, nothing is one of its clients (no import here)
    dist = sys.modules.get("distributed")
    return dist is not None and isinstance(executor, dist.Client)


def _check_executor(executor: Any) -> None:
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InvalidTypeError(
            "executor must be None, a concurrent.futures.Executor, a dask.distributed.Client or "
            f"any object with .submit(fn, *args) returning futures; got {executor!r}")
    _tasks.check_open(executor)


def _n_chunks(executor: Any, chunks: int | None, nc: int) -> int:
    """``chunks``, or the executor's workers when known, else ``2 * os.cpu_count()``; at
    most ``nc``."""
    if chunks is None:
        workers = getattr(executor, "_max_workers", None)  # concurrent.futures pools
        if _is_dask_client(executor):
            workers = sum(executor.nthreads().values())  # threads of every worker
        chunks = workers if isinstance(workers, int) and workers >= 1 else 2 * (os.cpu_count() or 1)
    return min(chunks, nc)


@dataclass
class _Layout:
    """Which distinct candidate is a candidate of which snapshot (see
    :func:`engine.softmargin.accumulate_shared`)."""

    sources: np.ndarray     # distinct candidates, store ids (sorted)
    pair_ptr: np.ndarray    # pairs of sources[c]: pair_ptr[c]..pair_ptr[c+1]
    pair_snap: np.ndarray   # snapshot of each pair
    snap_pairs: list        # per snapshot: its pairs, in the order of its candidates
    snap_ptr: np.ndarray    # CSR store node -> snapshots holding it
    snap_ids: np.ndarray
    n_obs: np.ndarray


def _layout(snaps: list, keeps: list, mlen: int) -> _Layout:
    cand = [snap.index[keep].astype(np.int64) for snap, keep in zip(snaps, keeps)]
    who = np.concatenate(cand)
    snap_of = np.concatenate([np.full(c.shape[0], b, np.int64) for b, c in enumerate(cand)])
    order = np.lexsort((snap_of, who))  # by candidate, then snapshot
    sources, counts = np.unique(who, return_counts=True)
    pair_ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    pair_of = np.empty(who.shape[0], np.int64)
    pair_of[order] = np.arange(who.shape[0])
    bounds = np.concatenate(([0], np.cumsum([c.shape[0] for c in cand])))
    snap_pairs = [pair_of[bounds[b]:bounds[b + 1]] for b in range(len(snaps))]
    nodes = np.concatenate([snap.index.astype(np.int64) for snap in snaps])
    owner = np.concatenate([np.full(snap.n, b, np.int32) for b, snap in enumerate(snaps)])
    o = np.argsort(nodes, kind="stable")
    snap_ptr = np.concatenate(([0], np.cumsum(np.bincount(nodes, minlength=mlen)))).astype(np.int64)
    return _Layout(sources.astype(np.int32), pair_ptr, snap_of[order].astype(np.int32),
                   snap_pairs, snap_ptr, owner[o], np.array([snap.n for snap in snaps], np.int64))


class _ChunkedRunner:
    """Runs :func:`engine.softmargin.accumulate_shared` over chunks of the distinct
    candidates as tasks of ``executor`` and merges the chunks' sums (each chunk carries its
    own sums and generators between rounds, so every row is what the serial loop
    computes)."""

    def __init__(self, executor: Any, n_chunks: int, code: int, graph: Any, params: np.ndarray,
                 lay: _Layout, threads: int, gens: Any, n_widths: int, sim: _Simulation) -> None:
        self.executor, self.code, self.threads, self.sim = executor, code, threads, sim
        self.dask = _is_dask_client(executor)
        data = graph.store if isinstance(graph, LazyTree) else (graph.indptr, graph.indices)
        shared = (data, np.asarray(params, np.float64), lay.snap_ptr, lay.snap_ids, lay.n_obs)
        self._data = shared
        self.shared = self._scatter()
        nc = lay.sources.shape[0]
        bounds = np.linspace(0, nc, n_chunks + 1).round().astype(int)
        self.rows = [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
        self.pairs = [slice(int(lay.pair_ptr[lo]), int(lay.pair_ptr[hi])) for lo, hi in self.rows]
        self.sources = [lay.sources[lo:hi] for lo, hi in self.rows]
        self.ptrs = [lay.pair_ptr[lo:hi + 1] - lay.pair_ptr[lo] for lo, hi in self.rows]
        self.snaps = [lay.pair_snap[p] for p in self.pairs]
        self.gens = [gens.take(slice(lo, hi)) if sim.lanes else gens[lo:hi] for lo, hi in self.rows]
        self.sums = [_sm.PairSums(p.stop - p.start, n_widths) for p in self.pairs]

    def _scatter(self) -> Any:
        # dask: ship the graph to the workers once per call, tasks name it by key
        if not self.dask:
            return self._data
        return self.executor.scatter([self._data], broadcast=True, hash=False)[0]

    def accumulate(self, n_sims: int, T: int, active: np.ndarray, widths: np.ndarray) -> Any:
        def make_args(lost: bool) -> list:
            if lost:  # the graph may have gone with the worker: scatter it again
                self.shared = self._scatter()
            return [(self.code, self.shared, self.threads, self.sources[k], self.gens[k], n_sims,
                     T, self.ptrs[k], self.snaps[k], active[self.pairs[k]], widths, self.sums[k])
                    for k in range(len(self.rows))]

        results = _tasks.run_tasks(self.executor, self.sim.chunk, make_args)
        self.sums = [r[0] for r in results]
        self.gens = [r[1] if self.sim.lanes else list(r[1]) for r in results]
        return _sm.PairSums.concatenate(self.sums)


def _kl_bounds(hits: np.ndarray, n: np.ndarray, log_term: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper Chernoff bounds on the success probability ``q`` of ``n`` Bernoulli
    runs with ``hits`` successes: the ``q`` with ``n kl(hits / n, q) = log_term`` below and
    above the rate (``kl``: the Bernoulli relative entropy), so that each bound fails with
    probability at most ``exp(-log_term)`` (Chernoff-Hoeffding). Bisection, 48 halvings."""
    n = n.astype(np.float64)
    r = hits / n

    def kl(q):
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.where(r > 0, r * np.log(r / q), 0.0)
            b = np.where(r < 1, (1 - r) * np.log((1 - r) / (1 - q)), 0.0)
        return a + b

    target = log_term / n
    lo_a, lo_b = np.zeros_like(r), r.copy()      # the lower bound lies in [0, r]
    hi_a, hi_b = r.copy(), np.ones_like(r)       # the upper bound in [r, 1]
    for _ in range(48):
        mid = (lo_a + lo_b) / 2
        far = kl(np.clip(mid, 1e-300, 1 - 1e-16)) > target
        lo_a, lo_b = np.where(far, mid, lo_a), np.where(far, lo_b, mid)
        mid = (hi_a + hi_b) / 2
        far = kl(np.clip(mid, 1e-300, 1 - 1e-16)) > target
        hi_a, hi_b = np.where(far, hi_a, mid), np.where(far, mid, hi_b)
    # the outer end of each bracket: never tighter than the exact bound
    return np.where(r > 0, lo_a, 0.0), np.where(r < 1, hi_b, 1.0)


class _SnapshotState:
    """Refinement of one snapshot of a batch: its MAP per width over the rounds, which of
    its candidates still draw runs, whether it has stopped."""

    def __init__(self, n_widths: int, pairs: np.ndarray) -> None:
        self.prev_map = np.full(n_widths, -1)
        self.pairs = pairs
        self.drawing = np.ones(pairs.shape[0], bool)
        self.done = False
        self.stable = np.zeros(n_widths, bool)
        self.errs = np.full(n_widths, np.inf)
        self.settled = False
        self.stop = "cap"


def _judge(sums: Any, st: _SnapshotState, tolerance: float) -> dict:
    """The flags of one snapshot from its pairs' sums (see :func:`soft_margin_estimate`)."""
    logp, logq = sums.log_sums(st.pairs)
    runs = sums.runs[st.pairs]
    with np.errstate(divide="ignore"):
        logl = logp - np.log(runs)[:, None]
    hits = sums.hits[st.pairs]
    near = sums.near[st.pairs]
    rate = hits / runs
    nw = logp.shape[1]
    converged = np.zeros(nw, bool)
    informative = np.zeros(nw, bool)
    share = np.zeros(nw)
    support = np.zeros(nw)
    spread = np.full(nw, np.inf)
    for j in range(nw):
        m = int(np.argmax(logl[:, j]))
        support[j] = float(near[m, j])
        total = np.exp(logl[:, j]).sum()
        share[j] = min(1.0, rate.sum() / total) if total > 0 else 0.0
        informative[j] = support[j] >= MIN_EFFECTIVE_RUNS
        _, err = _posterior_error(logp[:, j], logq[:, j], runs)
        spread[j] = 0.5 * float(err.sum())
        converged[j] = bool(st.stable[j] and hits[m] >= MIN_EFFECTIVE_RUNS
                            and 1.0 - share[j] <= tolerance and spread[j] <= tolerance)
    return {"logl": logl, "logp": logp, "logq": logq, "runs": runs, "hits": hits,
            "converged": converged, "informative": informative, "share": share,
            "support": support, "spread": spread}


def _settled(f: dict, st: _SnapshotState, sums: Any, total: int, cap: int,
             tolerance: float) -> bool:
    """Whether running on to the cap (``cap`` runs per candidate, ``total`` drawn) could
    not change what is reported (see :attr:`SoftMarginResult.settled`): the width
    :func:`_result` would report now is stable with ``tv_error <= tolerance``, and no width
    it would give way to (a narrower one; any, when none is informative) can become
    informative: the most near runs of any candidate there, scaled by ``cap / total``, stay
    below :data:`MIN_EFFECTIVE_RUNS`."""
    inf = np.nonzero(f["informative"])[0]
    j = int(inf[-1]) if inf.shape[0] else 0
    if not (st.stable[j] and f["spread"][j] <= tolerance):
        return False
    others = np.arange(j + 1, f["logl"].shape[1]) if inf.shape[0] else np.arange(f["logl"].shape[1])
    if others.shape[0] == 0:
        return True
    most = sums.near[st.pairs][:, others].max(axis=0)
    return bool((most * (cap / total) < MIN_EFFECTIVE_RUNS).all())


def _hopeless(f: dict, st: _SnapshotState, sums: Any, total: int, cap: int) -> bool:
    """Whether no width is informative and none can become so by the cap: at every width,
    the most runs of any candidate within it, scaled by ``cap / total``, stay below
    :data:`MIN_EFFECTIVE_RUNS` (the projection of :func:`_settled`). Then every width
    reports a similarity ranking of runs that all missed, never a likelihood."""
    if f["informative"].any():
        return False
    most = sums.near[st.pairs].max(axis=0)
    return bool((most * (cap / total) < MIN_EFFECTIVE_RUNS).all())


def _eliminate(hits: np.ndarray, runs: np.ndarray, drawing: np.ndarray, log_term: float
               ) -> np.ndarray:
    """The candidates to stop: those whose upper bound on the exact likelihood (the rate of
    runs that reproduce the snapshot, an unbiased estimate of ``P(R_T = R* | θ)``) is below
    the best lower bound (:func:`_kl_bounds`). On the event that every bound holds, a
    stopped candidate's exact likelihood is below another's: it is not the exact
    posterior's MAP."""
    lo, hi = _kl_bounds(hits, runs, log_term)
    return drawing & (hi < lo.max())


def soft_margin_many(snapshots: Sequence[Snapshot], protocol: Protocol, *, rng: Any = None,
                     simulations: int = 1000, a: Any = DEFAULT_WIDTHS,
                     candidates: int | None = 100, tolerance: float = 0.02,
                     max_simulations: int = 16000, eliminate: bool = False,
                     risk: float = 1e-3, settle: bool = True, stop_uninformative: bool = True,
                     threads: int = 1, executor: Any = None, chunks: int | None = None
                     ) -> list[SoftMarginResult]:
    """:func:`soft_margin_estimate` of every snapshot of a batch, each candidate's runs
    simulated once and shared by every snapshot in which it is a candidate.

    The snapshots must share one contact graph (the same object, or finite graphs with the
    same CSR) and ``T``; the protocol is the same. A distinct candidate node ``v`` draws
    its runs from the child stream ``SeedSequence(entropy, spawn_key=(i_v,))`` (``i_v``
    its node index in the graph, ``entropy`` drawn once from ``rng``; for random diffusion
    and flooding on a finite graph, simulated 64 runs at a time, a key drawn from it seeds
    each block of 64 runs: :class:`engine.softmargin.LaneStreams`) and each of its runs
    is scored against every snapshot that still needs it (snapshots of one infected set,
    such as saturated spreads listed in different orders, once: they share their pairs and
    each reads them in its own candidate order). Every snapshot refines, stops
    and eliminates on its own, at the same round boundaries (``simulations``, then
    doubling), so its result is exactly (bitwise) the one :func:`soft_margin_estimate`
    gives for that snapshot alone with the same ``entropy``: snapshot ``b`` sees the first
    ``runs`` runs of each of its candidates' streams, whatever the other snapshots.

    Parameters
    ----------
    snapshots : sequence of Snapshot
        One graph and ``T``.
    protocol : Protocol
    rng, simulations, a, candidates, tolerance, max_simulations, eliminate, risk, settle, stop_uninformative, threads, executor, chunks
        As :func:`soft_margin_estimate`.

    Returns
    -------
    list of SoftMarginResult
        One per snapshot, in order.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = spread.graphs.as_contact_graph(nx.path_graph(9))
    >>> snaps = [adversaries.Snapshot(g, [2, 3, 4, 5, 6], T=2),
    ...          adversaries.Snapshot(g, [3, 4, 5, 6, 7], T=2)]
    >>> res = adversaries.soft_margin_many(snaps, spread.LineProtocol(), rng=1)
    >>> [adversaries.pick(r.scores) for r in res], [r.converged for r in res]
    ([4, 5], [True, True])
    """
    snaps = [_check_snapshot(s) for s in snapshots]
    if not snaps:
        raise InvalidParameterError("snapshots must hold at least one snapshot; got none")
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    if protocol.kernel_code not in KERNEL_CODES:
        raise InvalidParameterError(
            f"protocol must have a compiled kernel for soft_margin (one of "
            f"{', '.join(SOFT_MARGIN_PROTOCOLS)}); got {protocol!r}")
    simulations = check_int(simulations, "simulations", low=1)
    max_simulations = check_int(max_simulations, "max_simulations", low=simulations)
    widths = _check_widths(a)
    if candidates is not None:
        candidates = check_int(candidates, "candidates", low=1)
    tolerance = check_real(tolerance, "tolerance", low=0.0, high=1.0, low_open=True)
    risk = check_real(risk, "risk", low=0.0, high=1.0, low_open=True)
    for flag, value in (("eliminate", eliminate), ("settle", settle),
                        ("stop_uninformative", stop_uninformative)):
        if not isinstance(value, (bool, np.bool_)):
            raise InvalidTypeError(f"{flag} must be True or False; got {value!r:.60}")
    threads = check_int(threads, "threads", low=1, high=1024)
    _check_executor(executor)
    if chunks is not None:
        chunks = check_int(chunks, "chunks", low=1)
    g, T = snaps[0].graph, snaps[0].T
    for k, s in enumerate(snaps[1:], 1):
        same = s.graph is g or (not isinstance(g, LazyTree) and not isinstance(s.graph, LazyTree)
                                and np.array_equal(s.graph.indptr, g.indptr)
                                and np.array_equal(s.graph.indices, g.indices))
        if not same or s.T != T:
            raise InvalidParameterError(
                f"snapshots must share one contact graph and T; snapshots[{k}] has T = {s.T} "
                f"on {s.graph!r}, snapshots[0] T = {T} on {g!r}")
    gen = check_rng(rng)
    mlen = g.store.n_nodes if isinstance(g, LazyTree) else g.number_of_nodes()
    # snapshots of one infected set share their pairs: scored once per run, not per snapshot
    uid, reps = _equal_sets(snaps)
    keeps, found = _keeps(snaps, candidates, uid, reps)
    lay = _layout([snaps[r] for r in reps], [keeps[r] for r in reps], mlen)
    snap_pairs = [lay.snap_pairs[u][at] for u, at in zip(uid, found)]
    nc = lay.sources.shape[0]
    # refuse up front: every distinct candidate may run max_simulations times
    check_size("max_simulations", max_simulations,
               work=nc * float(max_simulations) * run_work(g, protocol, T),
               what=f"the soft-margin simulations ({nc} distinct candidates x max_simulations runs)")
    entropy = int(gen.integers(0, 2**63))
    sim = _simulation(g, protocol, lay)
    gens = _streams(sim, entropy, lay.sources)
    params = protocol.kernel_params(g, T)
    npairs = lay.pair_snap.shape[0]
    states = [_SnapshotState(widths.shape[0], pairs) for pairs in snap_pairs]
    results: list[SoftMarginResult | None] = [None] * len(snaps)
    active = np.ones(npairs, np.uint8)
    # per snapshot, its bounds hold together with probability >= 1 - risk: a union over
    # its candidates and the rounds (per snapshot, so that a snapshot's result
    # does not depend on the batch it is in)
    rounds = 1 + max(0, math.ceil(math.log2(max_simulations / simulations)))
    cap = runs_at_cap(simulations, max_simulations)
    sums = _sm.PairSums(npairs, widths.shape[0])
    runner = None
    if executor is not None:
        runner = _ChunkedRunner(executor, _n_chunks(executor, chunks, nc), protocol.kernel_code,
                                g, params, lay, threads, gens, widths.shape[0], sim)
        stores, give_back = [], None
    else:
        stores, give_back = _stores(g, threads)
    n_round, total = simulations, 0
    try:
        while True:
            if runner is None:
                sim.accumulate(protocol.kernel_code, stores, lay.sources, gens, n_round, T,
                               params, lay.pair_ptr, lay.pair_snap, active, lay.snap_ptr,
                               lay.snap_ids, lay.n_obs, widths, sums)
            else:
                sums = runner.accumulate(n_round, T, active, widths)
            total += n_round
            last = 2 * total > max_simulations
            for b, st in enumerate(states):
                if st.done:
                    continue
                logp, logq = sums.log_sums(st.pairs)
                st.stable, st.errs = _width_stability(logp, logq, sums.runs[st.pairs],
                                                      st.prev_map, tolerance)
                flags = _judge(sums, st, tolerance)
                if flags["converged"].any():
                    st.done, st.stop = True, "converged"
                elif last:
                    st.done = True
                elif settle and _settled(flags, st, sums, total, cap, tolerance):
                    st.done = st.settled = True
                    st.stop = "settled"
                elif (stop_uninformative and total >= 2 * simulations
                      and _hopeless(flags, st, sums, total, cap)):
                    st.done, st.stop = True, "uninformative"
                elif eliminate and sums.hits[st.pairs].any():
                    log_term = math.log(2 * st.pairs.shape[0] * rounds / risk)
                    st.drawing &= ~_eliminate(sums.hits[st.pairs], sums.runs[st.pairs],
                                              st.drawing, log_term)
                    if st.drawing.sum() <= 1:  # the MAP is identified: nothing left to refine
                        st.done, st.stop = True, "identified"
                if st.done:
                    st.drawing[:] = False
                    # now: an equal snapshot still drawing may add runs to the shared pairs
                    results[b] = _result(snaps[b], keeps[b], st, _judge(sums, st, tolerance),
                                         sums, widths)
            # a pair draws while any snapshot holding it does
            active[:] = 0
            for st in states:
                active[st.pairs] |= st.drawing
            if all(st.done for st in states):
                break
            n_round = total  # double the total
    finally:
        if give_back is not None:
            g.give_store(give_back)
    return [res if res is not None else _result(snap, keep, st, _judge(sums, st, tolerance), sums, widths)
            for res, snap, keep, st in zip(results, snaps, keeps, states)]


def _equal_sets(snaps: Sequence[Snapshot]) -> tuple[list[int], list[int]]:
    """Snapshots of one infected set: ``(uid, reps)``, ``uid[b]`` the set of snapshot ``b``
    (numbered in order of first appearance) and ``reps[u]`` its first snapshot. Saturated
    spreads give equal snapshots (every node infected, listed in different orders)."""
    ids: dict[bytes, int] = {}
    uid, reps = [], []
    for b, snap in enumerate(snaps):
        key = np.sort(np.asarray(snap.index, np.int64)).tobytes()
        u = ids.setdefault(key, len(ids))
        if u == len(reps):
            reps.append(b)
        uid.append(u)
    return uid, reps


def _keeps(snaps: Sequence[Snapshot], candidates: int | None, uid: Sequence[int],
           reps: Sequence[int]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per snapshot, its candidates' local ids (:func:`_prune`, on the first snapshot of each
    infected set only: the pruning depends on the set alone) and where each of them stands
    among the candidates of its set's first snapshot, whose pairs it shares: a snapshot
    reads the shared sums through its own candidates in its own order, exactly the sums it
    would have alone."""
    first = {r: _prune(snaps[r], candidates) for r in reps}
    keeps, found = [], []
    for b, snap in enumerate(snaps):
        r = reps[uid[b]]
        if r == b:
            keeps.append(first[r])
            found.append(np.arange(first[r].shape[0]))
            continue
        theirs = np.asarray(snaps[r].index, np.int64)[first[r]]
        index = np.asarray(snap.index, np.int64)
        order = np.argsort(index)
        keep = np.sort(order[np.searchsorted(index, theirs, sorter=order)])  # the same nodes here
        mine = index[keep]
        sorter = np.argsort(theirs)
        keeps.append(keep)
        found.append(sorter[np.searchsorted(theirs, mine, sorter=sorter)])
    return keeps, found


def _result(snap: Snapshot, keep: np.ndarray, st: _SnapshotState, f: dict, sums: Any,
            widths: np.ndarray) -> SoftMarginResult:
    """The reported width: the narrowest converged one, else the narrowest informative one
    (the least smoothing among those whose MAP rests on at least MIN_EFFECTIVE_RUNS runs
    of kernel mass), else the widest (no width is informative: the scores are a
    similarity ranking with the least variance, not a likelihood)."""
    conv, inf = np.nonzero(f["converged"])[0], np.nonzero(f["informative"])[0]
    j = int(conv[-1]) if conv.shape[0] else int(inf[-1]) if inf.shape[0] else 0
    values = np.full(snap.n, -np.inf)
    values[keep] = f["logl"][:, j]
    runs = f["runs"]
    return SoftMarginResult(
        scores=Scores(snap.nodes, values, "log-likelihood"),
        a=float(widths[j]),
        widths=widths,
        log_likelihood=f["logl"],
        candidates=snap.nodes[keep],
        simulations=int(runs.max()),
        total_simulations=int(runs.sum()),
        error=float(st.errs[j]),
        converged=bool(conv.shape[0]),
        exact_matches=f["hits"].copy(),
        mean_jaccard=sums.jac[st.pairs, 0] / runs,
        informative=bool(f["informative"][j]),
        support=float(f["support"][j]),
        exact_share=float(f["share"][j]),
        tv_error=float(f["spread"][j]),
        runs=runs.copy(),
        settled=st.settled,
        stop=st.stop,
    )


def soft_margin_estimate(snapshot: Snapshot, protocol: Protocol, *, rng: Any = None,
                         simulations: int = 1000, a: Any = DEFAULT_WIDTHS,
                         candidates: int | None = 100, tolerance: float = 0.02,
                         max_simulations: int = 16000, eliminate: bool = False,
                         risk: float = 1e-3, settle: bool = True, stop_uninformative: bool = True,
                         threads: int = 1, executor: Any = None, chunks: int | None = None
                         ) -> SoftMarginResult:
    """Soft-margin likelihood of every candidate source, refined until the top is stable.

    Antulov-Fantulin et al., PRL 114, 248701 (2015), Eq. (2)-(3) of arXiv:1406.2909: for each
    candidate θ, ``n`` simulations ``R_i`` of ``protocol`` from θ for ``snapshot.T`` steps,
    ``φ_i = |R_i ∩ R*| / |R_i ∪ R*|`` and ``P̂_a(R* | θ) = (1/n) Σ_i exp(-(φ_i - 1)² / a²)``.

    *Observation model.* The snapshot adversary (thesis §2.1.2): the contact graph, the set
    ``R*`` of nodes infected after ``T`` steps and ``T`` itself; the protocol and its
    parameters are known. The infection tree, if revealed, is not used.

    *What the estimate converges to.* For fixed ``a``, ``P̂_a -> E[exp(-(φ - 1)² / a²)]`` as
    ``n -> inf`` (law of large numbers), a smoothed likelihood; as ``a -> 0`` that limit
    tends to ``P(R_T = R* | θ)``, the exact likelihood of Eq. (2.1) (``exact_matches /
    simulations`` is its unbiased estimate). Its arg-max is then the ML source, the
    Bayes-optimal MAP under a uniform prior.

    *Choice of a and n, and what the flags mean.* The paper evaluates the kernel on a
    decreasing sequence ``a = 2^-j`` and increases ``n`` until the MAP and its posterior no
    longer change, then uses the narrowest converged kernel. Its public implementation
    (github imih/cmplx, ``paral_softmc.cc``/``common_paral.cc``) runs 10^4, 2x10^4, ...,
    8x10^6 simulations per candidate, widths 2^-3..2^-9 (2^-5 alone in its default
    driver), calls a width converged when the MAP and every posterior entry change by at
    most 0.05 between two consecutive ``n``, and otherwise returns the *narrowest*
    width's posterior. Here all widths are evaluated on the same runs; ``n`` starts at
    ``simulations`` and doubles up to ``max_simulations`` (defaults 1,000 to 16,000:
    affordable in a sweep, but 10-500x fewer than cmplx, so fewer snapshots converge);
    after each round a width *is stable* when the previous round's MAP is still within
    two standard errors of the current MAP's posterior (ties, e.g. the equally likely
    sources of adaptive diffusion at even T, are not instability), that standard error is
    at most ``tolerance`` and at least :data:`MIN_EFFECTIVE_RUNS` effective runs
    (``(Σ K_i)² / Σ K_i²``) carry the MAP's estimate. Stability alone says nothing about
    bias: a wide kernel is stable and smooth even when no run comes near the snapshot
    (0 exact matches, best mean Jaccard ~0.1 on ego-Facebook, where the former rule
    reported ``converged``). So ``converged`` also needs the snapshot reproduced: at least
    :data:`MIN_EFFECTIVE_RUNS` exact matches of the MAP, exact matches carrying all but
    ``tolerance`` of the kernel mass (``exact_share``), which bounds the total variation
    between the reported posterior and the exact-match posterior by ``1 - exact_share``,
    and ``tv_error <= tolerance``. Refinement stops at the first round with a converged
    width, or when the next doubling would pass ``max_simulations``. Reported width: the
    narrowest converged one; else the narrowest *informative* one (at least
    :data:`MIN_EFFECTIVE_RUNS` of the MAP's runs within one width, ``1 - φ <= a``): as
    in cmplx, the least smoothing, but never a width whose estimate rests on fewer near
    runs; else (``informative=False``) the widest, whose scores are then a smoothed
    similarity ranking of runs that all missed, not a likelihood (the narrowest would rank
    by the single closest miss: more variance, no less bias).

    *Elimination* (``eliminate=True``, off by default). After each round, a candidate
    whose Chernoff upper bound on its exact likelihood (its exact-match rate) is below
    the best Chernoff lower bound stops drawing runs, and a snapshot whose candidates but
    one have stopped stops. The bounds of a snapshot hold together with probability at
    least ``1 - risk`` (union over its candidates and rounds), and then a stopped
    candidate is not the exact posterior's MAP. Stopped candidates keep the estimates of
    the runs they drew, so their posterior entries stay uncertain and ``converged`` (which
    counts their errors) becomes rarer: use it when the MAP is what matters.

    *Settling* (``settle=True``, the default). A snapshot that no run reproduces cannot
    converge, and used to draw runs to the cap: on random diffusion over most of a
    498-node graph every candidate ran 16,000 times for a result the first 2,000 runs had
    already fixed. After each round, refinement of a snapshot also stops (``settled``)
    when the width it would report is stable (as above) with ``tv_error <= tolerance``
    and no width it would give way to -- a narrower one, or any width when none is
    informative -- can become informative by the cap: the most runs of any candidate
    within that width, scaled to the cap's runs per candidate, stay below
    :data:`MIN_EFFECTIVE_RUNS`. Running on would report the same width with a posterior
    that moves by about ``tv_error``; ``converged`` stays False. cmplx has no such rule
    (it stops on stability alone, which this estimator does not call convergence).

    *Uninformative snapshots* (``stop_uninformative=True``, the default). When, after the
    second round, no width is informative and none is projected to become informative by
    the cap (at every width, the most runs of any candidate within it, scaled to the cap's
    runs, stay below :data:`MIN_EFFECTIVE_RUNS`: the projection of *Settling*), every
    width's scores are a similarity ranking of runs that all missed, and more runs refine
    that ranking, not a likelihood. Refinement then stops (``stop="uninformative"``,
    ``informative`` and ``converged`` False) with ``2 x simulations`` runs per candidate.
    On adaptive diffusion over the 498-node three-block graph of issue 31, one snapshot in
    5,100 at T = 4-8 was informative, and refining the ranking to ``tolerance`` or the cap
    cost 5-7x the CPU (e.g. 33.6 s against 6.4 s for 200 snapshots at T = 8) for at most
    about a point of detection (0.113 against 0.105 at T = 4, 1.4 standard errors; none
    measurable at T = 6, 8; paired over the same snapshots, docs/adversaries.md). ``stop_uninformative=False`` keeps refining them.

    *Sharing.* :func:`soft_margin_many` estimates a batch of snapshots of one graph and
    ``T`` with one simulation per run of each distinct candidate, scored against every
    snapshot that needs it; each snapshot's result is the one this function gives for it
    alone (same ``rng``). The harness scores a detection point's trials that way.

    *Pruning.* With ``candidates = k`` fewer than the infected nodes, only the ``k``
    infected nodes of smallest eccentricity in the infected subgraph (the Jordan
    estimator's best, i.e. the nodes nearest a Jordan centre; ties by the node's index in
    the contact graph, never by the snapshot's order, which is the infection order) are
    simulated; every other infected node scores ``-inf``, below every candidate (a
    candidate's score is always finite: the kernel sums are kept as log-sums).

    *Cost.* ``len(candidates) x simulations'`` runs of the compiled kernel, each costing
    about the nodes it touches, plus up to ``2 len(a)`` exponentials per run;
    ``simulations' <= max_simulations``. Measured with the defaults (one thread, a loaded
    2-core machine): adaptive diffusion on the 3-regular tree at T = 2-6 (4-22 infected
    nodes) 2-15 ms per snapshot, so ``anonspread sweep detection --set
    estimator=soft-margin,ml,jordan,strongest --set T=2,4 --trials 200`` runs in ~5 s;
    adaptive diffusion on a random 4-regular graph of 200 nodes at T = 8 (~100 infected)
    ~0.25 s, so ``protocol-attack`` with 200 trials at each of its 5 spy fractions takes
    ~7 min; ego-Facebook at T = 6 (~50 infected) 6-10 s and at T = 8 (~150) ~50 s.
    ``threads`` shares the candidates.

    Parameters
    ----------
    snapshot : Snapshot
        The observation.
    protocol : Protocol
        A compiled protocol (``adaptive-diffusion``, ``line``, ``tree``,
        ``tree-pseudocode``, ``random-diffusion``, ``flooding``) with its parameters.
    rng : None, int or numpy.random.Generator
        Candidate node ``v`` draws from the child stream ``SeedSequence(entropy,
        spawn_key=(i_v,))``, ``i_v`` its node index in the graph, ``entropy`` drawn once
        from ``rng`` (random diffusion and flooding on a finite graph: 64 runs at a time,
        each block seeded from a key of that stream and its index, see
        :func:`engine.softmargin.accumulate_shared_lanes`): the same ``rng`` gives the same
        result whatever ``threads``,
        ``candidates``, ``executor``, ``chunks`` or the batch of :func:`soft_margin_many`.
    simulations : int >= 1, default 1000
        Runs per candidate in the first round.
    a : float or sequence of float, default (1/4, 1/8, 1/16, 1/32, 1/64)
        Kernel widths, strictly decreasing.
    candidates : int >= 1 or None, default 100
        Keep at most this many candidates (None: every infected node).
    tolerance : float in (0, 1], default 0.02
        Largest accepted standard error of the MAP's posterior, of ``tv_error`` and of
        ``1 - exact_share`` for ``converged``.
    max_simulations : int >= simulations, default 16000
        Cap on the runs per candidate.
    eliminate : bool, default False
        Stop drawing runs for candidates that cannot be the exact MAP (see *Elimination*).
    risk : float in (0, 1], default 1e-3
        Probability, per snapshot, that some elimination bound fails.
    settle : bool, default True
        Stop refining a snapshot that cannot converge once more runs, up to the cap, could
        not change its reported width and its posterior is within ``tolerance`` (see
        *Settling*); False runs such snapshots to ``max_simulations``.
    stop_uninformative : bool, default True
        Stop refining a snapshot after its second round when no width is informative and
        none is projected to become informative by the cap (see *Uninformative
        snapshots*); ``stop="uninformative"``. False refines its similarity ranking like a
        likelihood: to ``tolerance``, or to ``max_simulations``.
    threads : int >= 1, default 1
        Threads sharing the candidates (OpenMP; serial when the build has none); never
        read from the machine. With ``executor``: the threads of each task.
    executor : None or object with ``.submit(fn, *args)``, default None
        None: run in this process. Otherwise a ``concurrent.futures.Executor`` (e.g.
        ``ProcessPoolExecutor``), a ``dask.distributed.Client`` or anything whose
        ``.submit(fn, *args)`` returns futures with ``.result()``: each round, the
        candidates' simulations run as ``chunks`` tasks
        (:func:`engine.softmargin.accumulate_chunk`) and their sums are merged. The result
        is identical (bitwise) to the in-process one for the same ``rng``, whatever the
        executor and ``chunks``. A dask ``Client`` receives the graph once per call
        (``client.scatter``); other executors pickle it into every task.
    chunks : int >= 1 or None, default None
        Tasks per round with ``executor`` (at most one per candidate). None: the
        executor's workers when known (``max_workers`` of a ``concurrent.futures`` pool,
        the threads of a dask cluster), else ``2 * os.cpu_count()``. Ignored without
        ``executor``.

    Returns
    -------
    SoftMarginResult

    Raises
    ------
    InvalidParameterError
        Bad parameters; a protocol without a compiled kernel; or a request whose
        simulations would pass the work budget (:func:`spread.limits.check_size`, naming
        the node visits it needs).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> res = soft_margin_estimate(snap, spread.LineProtocol(), rng=1)
    >>> adversaries.pick(res.scores), res.simulations, res.converged, res.a
    (4, 2000, True, 0.015625)
    >>> int(res.exact_matches[2]), res.informative  # 1/9 of the runs from node 4 (both ends grow twice)
    (233, True)
    """
    return soft_margin_many([snapshot], protocol, rng=rng, simulations=simulations, a=a,
                            candidates=candidates, tolerance=tolerance,
                            max_simulations=max_simulations, eliminate=eliminate, risk=risk,
                            settle=settle, stop_uninformative=stop_uninformative,
                            threads=threads, executor=executor, chunks=chunks)[0]


def runs_at_cap(simulations: int, max_simulations: int) -> int:
    """Runs per candidate when no snapshot stops early: ``simulations`` doubled while the
    doubled total stays within ``max_simulations`` (the schedule of
    :func:`soft_margin_many`)."""
    total = simulations
    while 2 * total <= max_simulations:
        total *= 2
    return total


@dataclass(frozen=True)
class SoftMarginCost:
    """What :func:`soft_margin_many` will cost on a batch of snapshots, priced before it runs.

    Parameters
    ----------
    snapshots : int
        Snapshots of the batch priced.
    sampled : int
        Snapshots the price was computed from (fewer than ``snapshots``: the distinct
        candidates extrapolated, see :func:`soft_margin_cost`).
    candidates : float
        Distinct candidates (each simulated once per run for the whole batch).
    pairs : float
        (candidate, snapshot) pairs: each run is scored against every one of its candidate.
    runs : int
        Runs per candidate when no snapshot stops early (the schedule's cap).
    work : float
        Node visits at the cap: ``candidates x runs x`` (nodes a run touches
        (:func:`spread.limits.run_work`) + the words that score it against its pairs).
        Deterministic for a given batch; what budgets compare.
    seconds_per_run : float or None
        CPU seconds of one run scored against its candidate's pairs (the batch's mean), from
        a timed round of the real kernel on a few candidates; None when not timed.
    cpu_seconds : float or None
        ``candidates x runs x seconds_per_run`` (None when not timed): an upper bound,
        reached when no snapshot converges or settles before the cap.
    timed_seconds : float
        What the timing itself took (CPU).
    scoring : str
        How runs are drawn and scored: ``"counts"`` or ``"bitsets"``
        (:func:`engine.softmargin.accumulate_shared`), or ``"bitsets, 64 runs at a time"``
        (random diffusion and flooding on a finite graph:
        :func:`engine.softmargin.accumulate_shared_lanes`).
    min_runs : int
        Runs per candidate when every snapshot stops as soon as it can (converged or
        settled after the two rounds stability needs; ``runs`` when the schedule has one
        round).
    min_cpu_seconds : float or None
        ``cpu_seconds x min_runs / runs``: the price's lower bound.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = spread.graphs.as_contact_graph(nx.cycle_graph(30))
    >>> snaps = [adversaries.observe(spread.simulate(g, spread.RandomDiffusion(0.5), 3, rng=s))
    ...          for s in range(4)]
    >>> cost = adversaries.soft_margin_cost(snaps, spread.RandomDiffusion(0.5), timed=False)
    >>> cost.runs, cost.snapshots, cost.candidates <= cost.pairs
    (16000, 4, True)
    """

    snapshots: int
    sampled: int
    candidates: float
    pairs: float
    runs: int
    work: float
    seconds_per_run: float | None
    cpu_seconds: float | None
    timed_seconds: float
    scoring: str
    min_runs: int = 0
    min_cpu_seconds: float | None = None

    #: what a price of this kind rests on, for the pilot's notes (one sentence)
    basis = ("its distinct candidates x its runs at the cap (an upper bound: snapshots that "
             "converge, settle or are uninformative stop early, after two rounds at the soonest) "
             "x the CPU time of a run, timed on a few candidates (harness.budget)")
    #: what the price is, for a skipped point's reason
    caveat = "an upper bound: snapshots that converge, settle or are uninformative stop early"

    def __repr__(self) -> str:
        # one line: the price and what it rests on
        cpu = "not timed" if self.cpu_seconds is None else f"{self.cpu_seconds:.3g} s CPU"
        return (f"SoftMarginCost({cpu}, work={self.work:.3g}, candidates={self.candidates:.0f}, "
                f"snapshots={self.snapshots}, runs={self.runs}, scoring={self.scoring!r})")

    def describe(self) -> str:
        """One line: the candidates, runs and cost per run behind the price."""
        cand = (f"{self.candidates:,.0f}" if self.sampled == self.snapshots
                else f"~{self.candidates:,.0f} (from {self.sampled} sampled)")
        per = (f" x {self.seconds_per_run * 1e6:.2g} us" if self.seconds_per_run is not None else "")
        runs = (f"{self.runs:,}" if self.min_runs in (0, self.runs)
                else f"{self.min_runs:,}-{self.runs:,}")
        return (f"{cand} distinct candidates of {self.snapshots} snapshots x {runs} runs{per}, "
                f"{self.pairs / max(self.candidates, 1.0):.1f} snapshots scored per run ({self.scoring})")


def soft_margin_cost(snapshots: Sequence[Snapshot], protocol: Protocol, *, batch: int | None = None,
                     simulations: int = 1000, max_simulations: int = 16000,
                     candidates: int | None = 100, a: Any = DEFAULT_WIDTHS, timed: bool = True,
                     timed_candidates: int = 8, min_seconds: float = 0.02) -> SoftMarginCost:
    """Price :func:`soft_margin_many` on a batch before running it, without running it.

    The batch is ``snapshots`` (or, with ``batch`` larger, ``batch`` snapshots of which
    ``snapshots`` are a sample: a sweep point's trials). Its cost at the schedule's cap
    (every candidate to ``runs`` = ``simulations`` doubled up to ``max_simulations``; less
    where snapshots converge, settle or stop uninformative early, so an upper bound; ``min_runs``, two rounds,
    gives the lower bound) is ``D x runs`` runs, ``D`` the
    distinct candidates, each run scored against its candidate's snapshots
    (:func:`soft_margin_many` shares each candidate's runs among them, and scores the
    snapshots of one infected set once).

    * ``D`` and the pairs are those of the snapshots (the estimator's own pruning); with
      ``batch`` beyond the sample, ``D`` is extrapolated by the rate of new candidates at
      the sample's end (Good-Turing: the candidates of exactly one sampled snapshot over
      the sample's size), which, the accumulation curve being concave, over- rather than
      under-estimates, and bounded by the graph's nodes; the pairs grow in proportion.
    * ``timed``: one round of runs of ``timed_candidates`` candidates (evenly spread over
      the distinct ones) through the real kernel, scored against all their pairs, then
      against one pair each, doubling the runs until a round takes ``min_seconds``: the
      simulation's cost per run and each further pair's, so the price holds for the
      batch's pairs per candidate. Never a full estimate: at most a few tenths of a
      second.

    Parameters
    ----------
    snapshots : sequence of Snapshot
        One graph and ``T`` (as :func:`soft_margin_many`).
    protocol : Protocol
    batch : int or None
        Snapshots of the batch priced (None: ``len(snapshots)``); at least that.
    simulations, max_simulations, candidates, a
        As :func:`soft_margin_estimate`.
    timed : bool, default True
        Time the kernel (else only the deterministic ``work``).
    timed_candidates : int >= 1, default 8
        Candidates of the timed round.
    min_seconds : float > 0, default 0.02
        The timed round's runs double until it takes this long (CPU). The price is no
        steadier at 0.05 s (three pricings of each of three points of the three-block
        sweep: the same spread at both), which costs 2-3.5x the time.

    Returns
    -------
    SoftMarginCost

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 60, seed=1))
    >>> proto = spread.RandomDiffusion(0.5)
    >>> snaps = [adversaries.observe(spread.simulate(g, proto, 3, rng=s)) for s in range(10)]
    >>> cost = adversaries.soft_margin_cost(snaps, proto)
    >>> cost.runs, cost.cpu_seconds > 0, cost.work > cost.candidates * cost.runs
    (16000, True, True)
    """
    snaps = [_check_snapshot(s) for s in snapshots]
    if not snaps:
        raise InvalidParameterError("snapshots must hold at least one snapshot; got none")
    if not isinstance(protocol, Protocol) or protocol.kernel_code not in KERNEL_CODES:
        raise InvalidParameterError(
            f"protocol must have a compiled kernel for soft_margin (one of "
            f"{', '.join(SOFT_MARGIN_PROTOCOLS)}); got {protocol!r}")
    simulations = check_int(simulations, "simulations", low=1)
    max_simulations = check_int(max_simulations, "max_simulations", low=simulations)
    if candidates is not None:
        candidates = check_int(candidates, "candidates", low=1)
    batch = len(snaps) if batch is None else check_int(batch, "batch", low=len(snaps))
    timed_candidates = check_int(timed_candidates, "timed_candidates", low=1)
    min_seconds = check_real(min_seconds, "min_seconds", low=0.0, low_open=True)
    widths = _check_widths(a)
    g, T = snaps[0].graph, snaps[0].T
    if any(s.T != T or s.graph is not g for s in snaps[1:]):
        raise InvalidParameterError("snapshots must share one contact graph (the same object) and T")
    mlen = g.store.n_nodes if isinstance(g, LazyTree) else g.number_of_nodes()
    uid, reps = _equal_sets(snaps)  # scored once per distinct set, as soft_margin_many does
    lay = _layout([snaps[r] for r in reps], [_prune(snaps[r], candidates) for r in reps], mlen)
    m, D = len(snaps), float(lay.sources.shape[0])
    npairs = float(lay.pair_snap.shape[0])
    if batch > m:
        # snapshots holding each distinct candidate (equal sets counted as often as drawn)
        mult = np.bincount(np.asarray(uid), minlength=len(reps)).astype(np.float64)
        per_snap = np.add.reduceat(mult[lay.pair_snap], lay.pair_ptr[:-1]) if D else np.zeros(0)
        fresh = float(np.sum(per_snap == 1)) / m
        bound = float("inf") if isinstance(g, LazyTree) else float(mlen)
        D = min(bound, D + (batch - m) * fresh)
        npairs = npairs * batch / m
    runs = runs_at_cap(simulations, max_simulations)
    min_runs = min(runs, 2 * simulations)  # converged or settled: two rounds at the soonest
    all_active = np.ones(lay.pair_snap.shape[0], np.uint8)
    counts, bits, nbytes = _sm.scoring_costs(lay.pair_ptr, all_active, lay.snap_ptr, len(reps))
    sim = _simulation(g, protocol, lay)
    use_bits = sim.lanes or (bits < counts and nbytes <= _sm.BITSET_BYTES)
    scoring = "bitsets, 64 runs at a time" if sim.lanes else "bitsets" if use_bits else "counts"
    # words a run's scoring takes: its bits set and cleared and a bitset row per pair, or
    # one count per snapshot holding each of its nodes (which grows with the batch)
    if use_bits:
        U = int(np.count_nonzero(np.diff(lay.snap_ptr)))
        words = 2.0 * lay.snap_ids.shape[0] / len(reps) + math.ceil(U / 64) * npairs / max(D, 1.0)
    else:
        words = counts * batch / m
    work = D * runs * (run_work(g, protocol, T) + words)
    if not timed:
        return SoftMarginCost(batch, m, D, npairs, runs, work, None, None, 0.0, scoring,
                              min_runs, None)
    c_start = time.process_time()
    k = min(timed_candidates, lay.sources.shape[0])
    pick_c = np.unique(np.linspace(0, lay.sources.shape[0] - 1, k).round().astype(np.int64))
    params = protocol.kernel_params(g, T)
    stores, give_back = _stores(g, 1)
    try:
        n_runs = 64 if sim.lanes else 4  # lanes: whole blocks of 64 runs
        kw = {} if sim.lanes else {"scoring": scoring}
        while True:
            took = {}
            for one in (False, True):
                src, ptr, snap_of, act = _timed_layout(lay, pick_c, one)
                sums = _sm.PairSums(snap_of.shape[0], widths.shape[0])
                gens = _streams(sim, 0, src)
                c0 = time.process_time()
                sim.accumulate(protocol.kernel_code, stores, src, gens, n_runs, T, params, ptr,
                               snap_of, act, lay.snap_ptr, lay.snap_ids, lay.n_obs, widths, sums,
                               **kw)
                took[one] = time.process_time() - c0
            if took[False] >= min_seconds or n_runs >= runs:
                break
            n_runs *= 2
    finally:
        if give_back is not None:
            g.give_store(give_back)
    pairs_timed = float(np.sum(np.diff(lay.pair_ptr)[pick_c]))
    kk = float(pick_c.shape[0])
    extra = pairs_timed - kk  # the pairs beyond one per candidate
    t_pair = max(took[False] - took[True], 0.0) / (n_runs * extra) if extra > 0 else 0.0
    t_sim = max(took[True] / (n_runs * kk) - t_pair, 0.0)
    cpu = runs * (D * t_sim + npairs * t_pair)
    return SoftMarginCost(batch, m, D, npairs, runs, work, cpu / (D * runs), cpu,
                          time.process_time() - c_start, scoring, min_runs, cpu * min_runs / runs)


def _timed_layout(lay: _Layout, pick: np.ndarray, one: bool) -> tuple:
    """The layout of the candidates ``pick`` alone, all their pairs active (``one``: only
    the first)."""
    counts = np.diff(lay.pair_ptr)[pick]
    ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    snap_of = np.concatenate([lay.pair_snap[lay.pair_ptr[c]:lay.pair_ptr[c + 1]] for c in pick])
    act = np.ones(snap_of.shape[0], np.uint8)
    if one:
        act[:] = 0
        act[ptr[:-1]] = 1
    return lay.sources[pick], ptr, snap_of.astype(np.int32), act


def _soft_margin_params(protocol, graph) -> dict:
    return {"protocol": protocol}


def _soft_margin_price(snapshots: Sequence[Snapshot], *, sources: Sequence[Any], protocol: Protocol,
                       **kwargs: Any) -> SoftMarginCost:
    """The registry's price: :func:`soft_margin_cost` (which does not depend on the sources)."""
    return soft_margin_cost(snapshots, protocol, **kwargs)


def _soft_margin_scores_many(snapshots: Sequence[Snapshot], protocol: Protocol, **kwargs: Any
                             ) -> list[Scores]:
    """The registry's batch form: the scores of :func:`soft_margin_many`."""
    return [r.scores for r in soft_margin_many(snapshots, protocol, **kwargs)]


@register_estimator("soft-margin", protocols=SOFT_MARGIN_PROTOCOLS, random=True, likelihood=True,
                    params=_soft_margin_params, many=_soft_margin_scores_many,
                    price=_soft_margin_price)
def soft_margin(snapshot: Snapshot, protocol: Protocol, *, rng: Any = None,
                simulations: int = 1000, a: Any = DEFAULT_WIDTHS, candidates: int | None = 100,
                tolerance: float = 0.02, max_simulations: int = 16000,
                eliminate: bool = False, risk: float = 1e-3, settle: bool = True,
                stop_uninformative: bool = True, threads: int = 1, executor: Any = None,
                chunks: int | None = None) -> Scores:
    """Soft-margin estimate of the log-likelihood by simulation (Antulov-Fantulin et al. 2015).

    The scores of :func:`soft_margin_estimate` (same parameters; see it for the model, the
    choice of the width and of the number of runs, pruning and cost). For the number of
    simulations and the Monte Carlo error, call :func:`soft_margin_estimate`.

    Parameters
    ----------
    snapshot : Snapshot
    protocol : Protocol
    rng, simulations, a, candidates, tolerance, max_simulations, eliminate, risk, settle, stop_uninformative, threads, executor, chunks
        As :func:`soft_margin_estimate`.

    Returns
    -------
    Scores
        kind ``"log-likelihood"``.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> adversaries.pick(soft_margin(snap, spread.LineProtocol(), rng=1))
    4
    """
    return soft_margin_estimate(snapshot, protocol, rng=rng, simulations=simulations, a=a,
                                candidates=candidates, tolerance=tolerance,
                                max_simulations=max_simulations, eliminate=eliminate,
                                risk=risk, settle=settle,
                                stop_uninformative=stop_uninformative, threads=threads, executor=executor,
                                chunks=chunks).scores
