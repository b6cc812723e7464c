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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

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

__all__ = ["SOFT_MARGIN_PROTOCOLS", "SoftMarginResult", "soft_margin", "soft_margin_estimate"]

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
        Runs per candidate (every candidate the same number).
    total_simulations : int
        ``simulations * len(candidates)``.
    error : float
        Standard error (delta method) of the posterior probability of the MAP candidate at
        width ``a`` under a uniform prior over the candidates.
    converged : bool
        Whether the stopping rule held before ``max_simulations``.
    exact_matches : numpy.ndarray of int
        Runs per candidate that reproduced the snapshot exactly (``φ = 1``).
    mean_jaccard : numpy.ndarray of float
        Mean Jaccard similarity of each candidate's runs with the snapshot.

    Examples
    --------
    Protocol 1 fills the path segment [2, 6] in two steps only from its centre:

    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> res = adversaries.soft_margin_estimate(snap, spread.LineProtocol(), rng=1)
    >>> res.candidates.tolist(), res.exact_matches.tolist(), res.total_simulations
    ([2, 3, 4, 5, 6], [0, 0, 211, 0, 0], 10000)
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


def _check_widths(a: Any) -> np.ndarray:
    vals = [a] if isinstance(a, (int, float, np.integer, np.floating)) else a
    if isinstance(vals, (str, bytes)) or not isinstance(vals, (Sequence, np.ndarray)):
        raise InvalidTypeError(f"a must be a positive width or a sequence of them; got {a!r}")
    out = np.array([check_real(v, "a", low=0.0, low_open=True) for v in vals], np.float64)
    if out.shape[0] == 0:
        raise InvalidParameterError("a must hold at least one width; got an empty sequence")
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
    eccentricity in the infected subgraph (Jordan score; ties by snapshot order)."""
    n = snapshot.n
    if k is None or k >= n:
        return np.arange(n)
    jordan = jordan_center(snapshot).array
    return np.sort(np.argsort(-jordan, kind="stable")[:k])


def _stores(g, threads: int) -> tuple[list, Any]:
    """One store per thread, and the store to give back to ``g`` (finite graphs)."""
    if isinstance(g, LazyTree):
        base = g.store
        return [_sm.copy_store(base) for _ in range(threads)], None
    first = g.take_store()
    return [first] + [new_finite_store(g.indptr, g.indices) for _ in range(threads - 1)], first


def _is_dask_client(executor: Any) -> bool:
    # without dask.distributed imported, nothing is one of its clients (no import here)
    dist = sys.modules.get("distributed")
    return dist is not None and isinstance(executor, dist.Client)


def _check_executor(executor: Any) -> None:
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InvalidTypeError(
            "executor must be None, a concurrent.futures.Executor, a dask.distributed.Client or "
            f"any object with .submit(fn, *args) returning futures; got {executor!r}")


def _n_chunks(executor: Any, chunks: int | None, nc: int) -> int:
    """``chunks``, or the executor's workers when known, else ``2 * os.cpu_count()``; at
    most ``nc``."""
    if chunks is None:
        workers = getattr(executor, "_max_workers", None)  # concurrent.futures pools
        if _is_dask_client(executor):
            workers = sum(executor.nthreads().values())  # threads of every worker
        chunks = workers if isinstance(workers, int) and workers >= 1 else 2 * (os.cpu_count() or 1)
    return min(chunks, nc)


class _ChunkedRunner:
    """Runs :func:`engine.softmargin.accumulate` over chunks of the candidates as tasks of
    ``executor`` and merges the chunks' sums (each chunk carries its own sums and
    generators between rounds, so every row is what the serial loop computes)."""

    def __init__(self, executor: Any, n_chunks: int, code: int, graph: Any, params: np.ndarray,
                 mask: np.ndarray, threads: int, sources: np.ndarray, gens: list,
                 sums: Any) -> None:
        self.executor, self.code, self.threads = executor, code, threads
        self.dask = _is_dask_client(executor)
        if isinstance(graph, LazyTree):
            data = graph.store
        else:
            data = (graph.indptr, graph.indices)
        shared = (data, np.asarray(params, np.float64), mask)
        # dask: ship the graph to the workers once per call, tasks name it by key
        self.shared = executor.scatter([shared], broadcast=True, hash=False)[0] if self.dask else shared
        bounds = np.linspace(0, sources.shape[0], n_chunks + 1).round().astype(int)
        self.rows = [slice(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:])]
        self.sources = [sources[r] for r in self.rows]
        self.gens = [gens[r] for r in self.rows]
        self.sums = [sums.take(r) for r in self.rows]

    def accumulate(self, n_sims: int, T: int, n_obs: int, widths: np.ndarray) -> Any:
        args = [(self.code, self.shared, self.threads, self.sources[k], self.gens[k], n_sims, T,
                 n_obs, widths, self.sums[k]) for k in range(len(self.rows))]
        if self.dask:
            futures = [self.executor.submit(_sm.accumulate_chunk, *a, pure=False) for a in args]
            results = self.executor.gather(futures)
        else:
            futures = [self.executor.submit(_sm.accumulate_chunk, *a) for a in args]
            results = [f.result() for f in futures]
        self.sums = [r[0] for r in results]
        self.gens = [list(r[1]) for r in results]
        return _sm.SoftMarginSums.concatenate(self.sums)


def soft_margin_estimate(snapshot: Snapshot, protocol: Protocol, *, rng: Any = None,
                         simulations: int = 1000, a: Any = DEFAULT_WIDTHS,
                         candidates: int | None = 100, tolerance: float = 0.02,
                         max_simulations: int = 16000, threads: int = 1,
                         executor: Any = None, chunks: int | None = None) -> SoftMarginResult:
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

    *Choice of a and n (our reading of the paper).* The paper evaluates the kernel on a
    decreasing sequence ``a = 2^-j`` and increases ``n`` (up to about 10^6 in its
    evaluation; the issue cites ~20,000) until the MAP estimate and its posterior
    probability no longer change, then uses the narrowest kernel that has converged. Here:
    all widths of ``a`` are evaluated on the same runs; ``n`` starts at ``simulations`` and
    doubles; after each round a width *is stable* when (i) the previous round's MAP is
    still within two standard errors of the current MAP's posterior (so ties, e.g. the
    equally likely sources of adaptive diffusion at even T, do not count as instability)
    and (ii) the standard error of the MAP's posterior is at most ``tolerance`` and (iii)
    at least :data:`MIN_EFFECTIVE_RUNS` effective runs (``(Σ K_i)² / Σ K_i²``) support the
    MAP's estimate (a narrow kernel carried by one lucky near miss is not stable). Refinement
    stops when the narrowest width is stable or when the next doubling would pass
    ``max_simulations``; the reported scores are those of the narrowest stable width
    (``converged=True``), else of the widest (``converged=False``: least variance).

    *Pruning.* With ``candidates = k`` fewer than the infected nodes, only the ``k``
    infected nodes of smallest eccentricity in the infected subgraph (the Jordan
    estimator's best, i.e. the nodes nearest a Jordan centre; ties by snapshot order) are
    simulated; every other infected node scores ``-inf``, below every candidate (a
    candidate's score is always finite: the kernel sums are kept as log-sums).

    *Cost.* ``len(candidates) x simulations'`` runs of the compiled kernel, each costing
    about the nodes it touches, plus ``len(a)`` exponentials per run;
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
        Candidate ``i`` (position in the snapshot) draws from the child stream
        ``SeedSequence(entropy, spawn_key=(i,))``, ``entropy`` drawn once from ``rng``:
        the same ``rng`` gives the same result whatever ``threads`` or ``candidates``.
    simulations : int >= 1, default 1000
        Runs per candidate in the first round.
    a : float or sequence of float, default (1/4, 1/8, 1/16, 1/32, 1/64)
        Kernel widths, strictly decreasing.
    candidates : int >= 1 or None, default 100
        Keep at most this many candidates (None: every infected node).
    tolerance : float in (0, 1], default 0.02
        Largest accepted standard error of the MAP's posterior.
    max_simulations : int >= simulations, default 16000
        Cap on the runs per candidate.
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
    >>> int(res.exact_matches[2])  # 1/9 of the runs from node 4 (both ends grow twice)
    211
    """
    snapshot = _check_snapshot(snapshot)
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
    threads = check_int(threads, "threads", low=1, high=1024)
    _check_executor(executor)
    if chunks is not None:
        chunks = check_int(chunks, "chunks", low=1)
    gen = check_rng(rng)
    g, T = snapshot.graph, snapshot.T
    keep = _prune(snapshot, candidates)
    nc = keep.shape[0]
    # refuse up front: every candidate may run max_simulations times
    check_size("max_simulations", max_simulations,
               work=nc * float(max_simulations) * run_work(g, protocol, T),
               what=f"the soft-margin simulations ({nc} candidates x max_simulations runs)")
    entropy = int(gen.integers(0, 2**63))
    gens = [np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(int(i),))))
            for i in keep]
    params = protocol.kernel_params(g, T)
    idx = snapshot.index
    if isinstance(g, LazyTree):
        mask = np.zeros(g.store.n_nodes, np.uint8)
    else:
        mask = np.zeros(g.number_of_nodes(), np.uint8)
    mask[idx] = 1
    sources = idx[keep].astype(np.int32)
    sums = _sm.SoftMarginSums(nc, widths.shape[0])
    runner = None
    if executor is not None:
        runner = _ChunkedRunner(executor, _n_chunks(executor, chunks, nc), protocol.kernel_code, g, params, mask, threads,
                                sources, gens, sums)
        stores, give_back = [], None
    else:
        stores, give_back = _stores(g, threads)
    prev_map = np.full(widths.shape[0], -1)
    n_round = simulations
    try:
        while True:
            if runner is None:
                _sm.accumulate(protocol.kernel_code, stores, sources, gens, n_round, T, params,
                               mask, snapshot.n, widths, sums)
            else:
                sums = runner.accumulate(n_round, T, snapshot.n, widths)
            logp, logq = sums.log_sums()
            stable, errs = _width_stability(logp, logq, sums.runs, prev_map, tolerance)
            if stable[-1] or 2 * sums.runs > max_simulations:
                break
            n_round = sums.runs  # double the total
    finally:
        if give_back is not None:
            g.give_store(give_back)
    ok = np.nonzero(stable)[0]
    j = int(ok[-1]) if ok.shape[0] else 0
    values = np.full(snapshot.n, -np.inf)
    values[keep] = logp[:, j] - math.log(sums.runs)
    return SoftMarginResult(
        scores=Scores(snapshot.nodes, values, "log-likelihood"),
        a=float(widths[j]),
        widths=widths,
        log_likelihood=logp - math.log(sums.runs),
        candidates=snapshot.nodes[keep],
        simulations=sums.runs,
        total_simulations=sums.runs * nc,
        error=float(errs[j]),
        converged=bool(ok.shape[0]),
        exact_matches=sums.hits.copy(),
        mean_jaccard=sums.jac[:, 0] / sums.runs,
    )


def _soft_margin_params(protocol, graph) -> dict:
    return {"protocol": protocol}


@register_estimator("soft-margin", protocols=SOFT_MARGIN_PROTOCOLS, random=True, likelihood=True,
                    params=_soft_margin_params)
def soft_margin(snapshot: Snapshot, protocol: Protocol, *, rng: Any = None,
                simulations: int = 1000, a: Any = DEFAULT_WIDTHS, candidates: int | None = 100,
                tolerance: float = 0.02, max_simulations: int = 16000,
                threads: int = 1, executor: Any = None, chunks: int | None = None) -> Scores:
    """Soft-margin estimate of the log-likelihood by simulation (Antulov-Fantulin et al. 2015).

    The scores of :func:`soft_margin_estimate` (same parameters; see it for the model, the
    choice of the width and of the number of runs, pruning and cost). For the number of
    simulations and the Monte Carlo error, call :func:`soft_margin_estimate`.

    Parameters
    ----------
    snapshot : Snapshot
    protocol : Protocol
    rng, simulations, a, candidates, tolerance, max_simulations, threads, executor, chunks
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
                                max_simulations=max_simulations, threads=threads,
                                executor=executor, chunks=chunks).scores
