"""Rumour centrality on large 2-cores: :func:`anonspread.engine.scoring.graph_rumor_top` with its
exact core evaluations spread over numba's threads.

Kept apart from :mod:`anonspread.engine.scoring` so that nothing compiles it (a ``parallel=True``
function takes seconds to compile) unless a snapshot's 2-core reaches
:data:`PARALLEL_MIN_CORE` nodes: the Monte Carlo path (``simulate_and_score``, whose trials
the harness already spreads over processes) and small snapshots never load it.

The answer is the serial one: the scan takes the nodes in the same order with the same
stopping rule (:func:`anonspread.engine.scoring.rumor_advance`); only the evaluations it needs
next are computed ahead, a batch at a time, one work row per thread. A batch may hold
evaluations the scan then does not need (at most one batch, discarded); the evaluation
count returned is the scan's, as in the serial path.
"""

from __future__ import annotations

import math
import os

import numba as nb
import numpy as np

from anonspread.engine import scoring as K
from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()

__all__ = ["PARALLEL_MIN_CORE", "rumor_scan_parallel", "rumor_top", "threads_usable"]

#: 2-core size (nodes) from which :func:`rumor_top` evaluates on threads when it is given
#: more than one (smaller cores: the serial scan is as fast).
PARALLEL_MIN_CORE = 3000

#: The largest batch gives each thread about this many adjacency entries to scan (~50 ms):
#: few joins, so threads seldom wait for each other (and spin while waiting); a scan that
#: stops early wastes at most its last batch, no larger than the work before it.
_BATCH_EDGES = 25_000_000


@nb.njit(cache=True)
def _gather(s, rtol, lg, ub, core, att, byub, exact, ist, fst, first, batch, mark, rnd):
    """Fill ``batch`` with ``first`` (the evaluation the scan needs now) and the core nodes
    the scan will need next if no better score turns up: those of the nodes after the
    current one whose bound is not below the current stop level (all of them before the
    source's score is known), each once. Returns how many."""
    n = ub.shape[0]
    size = batch.shape[0]
    batch[0] = first
    mark[first] = rnd
    nb_ = 1
    i = ist[0]
    stop = -np.inf if i < 0 else K.rumor_stop_level(fst[0], fst[1], fst[2], rtol)
    for j in range(max(i + 1, 0), n):
        if nb_ == size:
            break
        v = byub[j]
        if v == s:
            continue
        if ub[v] + 1e-12 * (lg + 1.0) < stop:
            break
        a = v if core[v] else att[v]
        if a < 0 or exact[a] == exact[a] or mark[a] == rnd:
            continue
        mark[a] = rnd
        batch[nb_] = a
        nb_ += 1
    return nb_


@nb.njit(cache=True, parallel=True)
def rumor_scan_parallel(s, rtol, top, setup, nthr):
    """:func:`anonspread.engine.scoring.graph_rumor_top` from its ``rumor_setup``, with the core
    evaluations on ``nthr`` threads
    (``numba.get_num_threads()``, passed in: reading it here would keep numba from caching
    this function).

    Returns ``(best, s0, greater, tied, evaluations used, evaluations computed)``.
    """
    ub, core, att, const, cid, cptr, cind, cw, fptr, find, fwe, byub, sparse = setup
    n = ub.shape[0]
    lg = math.lgamma(n + 1.0)
    ws = K.core_workspace(fptr, nthr)
    # entries one evaluation scans: the batches grow from one evaluation per thread, doubling,
    # up to about _BATCH_EDGES entries per thread
    scan = max(1, np.int64(fptr[fptr.shape[0] - 1]))
    cap = nthr * max(1, min(4096, _BATCH_EDGES // scan))
    batch = np.empty(cap, np.int64)
    size = nthr
    mark = np.zeros(n, np.int64)
    exact, cand, val, ist, fst = K.rumor_scan_state(n)
    rnd = 0
    done = 0
    while True:
        a = K.rumor_advance(s, rtol, lg, ub, core, att, byub, exact, cand, val, ist, fst)
        if a < 0:
            break
        rnd += 1
        k = _gather(s, rtol, lg, ub, core, att, byub, exact, ist, fst, a, batch[:size], mark, rnd)
        for t in nb.prange(nthr):  # thread t: evaluations t, t + nthr, ... on work row t
            for j in range(t, k, nthr):
                c = batch[j]
                # stamps: one per evaluation, never repeated on any row
                exact[c] = lg - const - K.core_eval(fptr, find, fwe, cw, sparse, cid[c],
                                                    done + j + 1, ws, t)
        done += k
        size = min(cap, 2 * size)
    best, s0, greater, tied, used = K.rumor_finish(s, rtol, core, att, cand, val, ist, fst, top)
    return best, s0, greater, tied, used, done


#: The process that started numba's threads through :func:`rumor_top` (None: not yet).
_LAUNCH_PID: list[int | None] = [None]


def threads_usable() -> bool:
    """Whether this process may run a ``parallel=True`` kernel.

    numba's OpenMP layer (``omp``, GNU libgomp on Linux) is not fork-safe: a process
    forked from one that has run a parallel region is terminated (SIGTERM) when it
    runs one itself. So once numba's threads are up under ``omp``, only the process
    that started them here may use them; a forked child (e.g. of a ``fork`` process
    pool) scans serially instead. ``tbb`` and ``workqueue`` are fork-safe.
    """
    try:
        layer = nb.threading_layer()
    except ValueError:  # not started yet: this process will start it
        return True
    return layer != "omp" or _LAUNCH_PID[0] == os.getpid()


def rumor_top(indptr, indices, s, rtol, top, threads=1, min_core=PARALLEL_MIN_CORE):
    """:func:`anonspread.engine.scoring.graph_rumor_top`, on ``threads`` threads when the
    2-core is large.

    ``threads`` (an int >= 1, the caller's choice; never read from the machine's load): with
    more than one, a snapshot whose 2-core has at least ``min_core`` nodes is evaluated on
    ``min(threads, NUMBA_NUM_THREADS)`` threads, if :func:`threads_usable`; anything else
    scans serially. Same answer either way. Returns ``(best, s0, greater, tied,
    n_core_bfs, threads_used)``: the first five as ``graph_rumor_top``, then 1 for the
    serial scan or the number of threads that ran.
    """
    if threads > 1 and indptr.shape[0] - 1 >= min_core and threads_usable():
        nthr = min(int(threads), nb.config.NUMBA_NUM_THREADS)
        if nthr > 1 and int(K.two_core(indptr, indices)[0].sum()) >= min_core:
            if _LAUNCH_PID[0] is None:
                _LAUNCH_PID[0] = os.getpid()
            before = nb.get_num_threads()
            nb.set_num_threads(nthr)
            try:
                setup = K.rumor_setup(indptr, indices, s)
                return (*rumor_scan_parallel(s, rtol, top, setup, nthr)[:5], nthr)
            finally:
                nb.set_num_threads(before)
    return (*K.graph_rumor_top(indptr, indices, s, rtol, top), 1)
