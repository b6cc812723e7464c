"""Running a call's chunks on an executor the caller passed (``executor=``): refuse a closed
one up front, and recover from a worker lost mid-call.

Every task is a pure function of its pickled arguments (the chunk's generators travel with
it and come back advanced), so a task lost with its worker is resubmitted and gives exactly
the result it would have given: the same ``rng``, the same answer. A task is retried
:data:`RETRIES` times; a process pool that broke cannot run anything more, so that is
reported at once, saying what to do.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
from collections.abc import Callable, Sequence
from typing import Any

from anonspread.errors import ExecutorError, InvalidParameterError

__all__ = ["RETRIES", "check_open", "is_dask_client", "run_tasks"]

#: Resubmissions of a task whose worker was lost (a Dask worker killed without a nanny).
RETRIES = 2


def is_dask_client(executor: Any) -> bool:
    """Whether ``executor`` is a ``dask.distributed.Client`` (without importing dask)."""
    dist = sys.modules.get("distributed")
    return dist is not None and isinstance(executor, dist.Client)


def check_open(executor: Any) -> None:
    """Refuse an executor that was shut down or a client that was closed."""
    closed = False
    if isinstance(executor, cf.Executor):
        closed = bool(getattr(executor, "_shutdown", False)
                      or getattr(executor, "_shutdown_thread", False)
                      or getattr(executor, "_broken", False))
    elif is_dask_client(executor):
        closed = str(getattr(executor, "status", "")) in ("closing", "closed")
    if closed:
        raise InvalidParameterError(
            f"executor must be open; got {type(executor).__name__} that was shut down or closed "
            f"(create a new one, or pass executor=None to run in this process)")


def _lost(exc: BaseException) -> bool:
    """A task lost with its worker (worth resubmitting), as Dask reports it."""
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    return bool(names & {"FutureCancelledError", "CancelledError", "KilledWorker",
                         "CommClosedError", "FutureLostError"})


def run_tasks(executor: Any, fn: Callable, make_args: Callable[[bool], Sequence[tuple]]) -> list:
    """``[fn(*a) for a in make_args(False)]`` as tasks of ``executor``, in order; a task lost
    with its worker is resubmitted up to :data:`RETRIES` times with ``make_args(True)[k]``
    (the caller scatters its shared data again: a Dask worker may take it down with it)."""
    dask = is_dask_client(executor)
    args = list(make_args(False))

    def submit(a):
        try:
            return executor.submit(fn, *a, pure=False) if dask else executor.submit(fn, *a)
        except RuntimeError as exc:  # shut down (or closed) meanwhile
            raise InvalidParameterError(
                f"executor refused the tasks ({exc}); pass an open executor or executor=None"
            ) from exc

    futures = [submit(a) for a in args]
    results = []
    for k in range(len(args)):
        for attempt in range(RETRIES + 1):
            try:
                results.append(futures[k].result())
                break
            except cf.process.BrokenProcessPool as exc:
                raise ExecutorError(
                    f"a worker process of the executor died ({exc}); the pool cannot run "
                    f"tasks any more: create a new executor and rerun (the same rng gives the "
                    f"same result)") from exc
            except Exception as exc:
                if not (dask and _lost(exc)):
                    raise
                if attempt == RETRIES:
                    raise ExecutorError(
                        f"a task was lost with its Dask worker {RETRIES + 1} times "
                        f"({type(exc).__name__}: {exc}); check that the cluster's workers stay "
                        f"up (run them under a nanny, the default of 'dask worker') and rerun: "
                        f"the same rng gives the same result") from exc
                args = list(make_args(True))
                futures[k] = submit(args[k])
    return results
