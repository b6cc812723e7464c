"""Rumour centrality on large 2-cores: :func:`anonspread.engine.rumor.graph_rumor_top` with its
exact core evaluations on OpenMP threads (:mod:`._rumor_threads`).

The answer is the serial one: the scan takes the nodes in the same order with the same
stopping rule (``anonspread.engine.rumor._rumor_advance``); only the evaluations it needs
next are computed ahead, a batch at a time (growing from one per thread, doubling, up to
about 25 million adjacency entries per thread), one work row per thread. A batch may hold
evaluations the scan then does not need (at most one batch, discarded); the evaluation
count returned is the scan's, as in the serial path. The number of threads is the caller's
``threads`` argument, never read from the machine. Safe across ``fork``: OpenMP's thread
pool is stopped before a fork (``os.register_at_fork``), so a forked child runs its own.
"""

from __future__ import annotations

import os

import numpy as np

from anonspread.engine import _inputs as _check
from anonspread.engine import _rumor_threads
from anonspread.engine.rumor import _bool_out, _connected

__all__ = ["OPENMP", "PARALLEL_MIN_CORE", "rumor_scan_parallel", "rumor_top"]

#: 2-core size (nodes) from which :func:`rumor_top` evaluates on threads when it is given
#: more than one (smaller cores: the serial scan is as fast).
PARALLEL_MIN_CORE = 3000

#: Whether this build has OpenMP (``setup.py`` compiles ``_rumor_threads`` with
#: ``-fopenmp`` when the compiler accepts it); without it every scan is serial.
OPENMP: bool = _rumor_threads.OPENMP

if OPENMP:
    # GNU libgomp's thread pool does not survive fork: a child of a process that ran a
    # parallel scan would hang in its first one (measured). Stopping the pool before each
    # fork lets children (e.g. of a fork process pool) use their own threads.
    os.register_at_fork(before=_rumor_threads.pause_threads)


def _check_threads(threads) -> int:
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)) \
            or threads < 1:
        raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
    return int(threads)


def rumor_top(indptr, indices, s: int, rtol: float, top: np.ndarray, threads: int = 1,
              min_core: int = PARALLEL_MIN_CORE) -> tuple:
    """:func:`anonspread.engine.rumor.graph_rumor_top`, on ``threads`` threads when the
    2-core is large.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR adjacency of a connected graph on ``n`` nodes.
    s : int
        The node whose rank data is returned.
    rtol : float
        Relative tie tolerance.
    top : numpy.ndarray
        Boolean array of length n, set True at the maximisers.
    threads : int >= 1
        The caller's choice: with more than one (and OpenMP built in, :data:`OPENMP`), a
        graph whose 2-core has at least ``min_core`` nodes is evaluated on exactly that many
        threads; anything else scans serially. Same answer either way.
    min_core : int
        The 2-core size from which threads are used.

    Returns
    -------
    tuple
        ``(best, s0, greater, tied, n_core_bfs, threads_used)``: the first five as
        ``graph_rumor_top``, then 1 for the serial scan or the number of threads that ran.
    """
    return rumor_scan_parallel(indptr, indices, s, rtol, top, threads, min_core)[:6]


def rumor_scan_parallel(indptr, indices, s: int, rtol: float, top: np.ndarray,
                        threads: int, min_core: int = 0) -> tuple:
    """:func:`rumor_top` (by default on threads whatever the core's size) with one more
    entry: the number of core evaluations computed, at least the number used (the last
    batch may hold evaluations the scan did not need)."""
    threads = _check_threads(threads)
    indptr, indices = _connected(indptr, indices)
    n = indptr.shape[0] - 1
    s = _check.index(s, n, "s")
    min_core = _check.integer(min_core, "min_core", low=0)
    return _rumor_threads.rumor_top(indptr, indices, s, float(rtol),
                                    _bool_out(top, n, "top"), threads, min_core)
