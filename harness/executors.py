"""Executors: where tasks run.  In-process, a local process pool, or a Dask cluster.

An executor is a context manager (resources start in ``__enter__`` and are released
in ``__exit__``, also on Ctrl-C) with one method, :meth:`Executor.imap_unordered`,
yielding task results as they finish.  Results never depend on the executor:
every unit carries its own random stream (:mod:`harness.work`).  New executors
are added with :func:`register_executor`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from anonspread.errors import InvalidParameterError
from anonspread.harness.errors import ExecutorError
from anonspread.registry import Registry
from anonspread.validation import check_int, check_real

__all__ = [
    "DaskExecutor",
    "Executor",
    "InProcessExecutor",
    "ProcessPoolExecutor",
    "default_workers",
    "executor_names",
    "make_executor",
    "register_executor",
    "ship_graph_files",
]

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """The CPUs this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class Executor:
    """Base class: run ``fn`` over tasks, yielding results in completion order.

    Parameters
    ----------
    workers : int
        Degree of parallelism (used by the runner to size chunks).

    Examples
    --------
    A subclass names itself and yields results; :func:`register_executor` makes it
    available to :func:`make_executor`, ``harness.run(executor=...)`` and
    ``anonspread run --executor``:

    >>> from anonspread import harness
    >>> class Reversed(harness.Executor):
    ...     name = "doc-reversed"
    ...     def imap_unordered(self, fn, tasks):
    ...         for task in reversed(list(tasks)):
    ...             yield fn(task)
    >>> with Reversed() as ex:
    ...     ex.describe(), list(ex.imap_unordered(abs, [-1, -2, -3]))
    ('doc-reversed(workers=1)', [3, 2, 1])
    """

    name = "base"
    #: Every worker runs on this machine and sees its files (the run's own one-off work
    #: may then be handed to the workers as tasks: :attr:`Experiment.prepare`).
    shares_files = False

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Yield ``fn(task)`` for every task, in whatever order they finish.

        Parameters
        ----------
        fn : callable
            A module-level function (it may be sent to another process).
        tasks : iterable
            Its arguments, one call each.

        Yields
        ------
        object
            ``fn(task)``, as each finishes.
        """
        raise NotImplementedError

    def describe(self) -> str:
        """Short description for the sidecar file."""
        return f"{self.name}(workers={self.workers})"

    def preload(self, payload: Any) -> bool:
        """Install ``payload`` in every worker once, before its first task (while inside
        the ``with`` block).

        ``payload`` is picklable and has ``install()`` (and ``uninstall()``): the one-off
        work of a run done once in its own process (:class:`harness.work.Preparation`),
        such as the learned adversary's trained models. This base class cannot reach the
        workers of a subclass: it returns False, and the runner then sends the payload
        with every task instead (correct, but shipped once per task).

        Parameters
        ----------
        payload : object
            What to install.

        Returns
        -------
        bool
            True when every worker of this executor will have it installed.
        """
        return False

    @classmethod
    def from_options(cls, *, workers: int, scheduler: str | None, timeout: float) -> Executor:
        """Build from the CLI's options; only executors that use a scheduler accept one.

        Parameters
        ----------
        workers : int
            ``--workers``.
        scheduler : str or None
            ``--scheduler`` (refused unless the executor uses one).
        timeout : float
            Seconds to wait for a scheduler.

        Returns
        -------
        Executor
        """
        if scheduler:
            raise InvalidParameterError(
                f"a scheduler is only used by the dask executor; got executor {cls.name!r}"
            )
        return cls(workers)


class InProcessExecutor(Executor):
    """Run every task in this process, one after the other (debugging, tiny runs).

    Parameters
    ----------
    workers : int
        Recorded only (the tasks run one after the other).
    """

    name = "inprocess"
    shares_files = True

    def __init__(self, workers: int = 1) -> None:
        super().__init__(workers)
        self._installed: list[Any] = []

    def preload(self, payload: Any) -> bool:
        """Install ``payload`` here (the only worker); uninstalled when the executor exits.

        Parameters
        ----------
        payload : object
            What to install (``install()``, ``uninstall()``).

        Returns
        -------
        bool
            True.
        """
        payload.install()
        self._installed.append(payload)
        return True

    def __exit__(self, *exc: object) -> None:
        while self._installed:  # this process outlives the run: leave it as it was
            self._installed.pop().uninstall()

    def imap_unordered(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        for task in tasks:
            yield fn(task)


def _worker_init(parent: int, payload: Any = None) -> None:
    """Pool worker set-up: leave Ctrl-C to the parent, die with the parent, and install
    the run's ``payload`` (:meth:`Executor.preload`) once.

    Ctrl-C is handled by the parent, which journals what finished and stops the pool.
    If the parent dies without stopping the pool (SIGKILL, a crash), the kernel sends
    this worker SIGTERM (Linux ``PR_SET_PDEATHSIG``) instead of leaving it computing as
    an orphan. The death signal only covers deaths *after* it is set, and a spawned
    worker gets here only after its interpreter started and imported the parent's main
    module (a second or more): a parent killed in that window has already gone, so the
    worker checks that its parent is still ``parent`` and exits otherwise. The
    multiprocessing resource tracker exits by itself once no process holds its pipe.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - exotic libc
            pass
    if os.getppid() != parent:
        os._exit(1)
    if payload is not None:
        payload.install()


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while pool workers are being started.

    A spawned worker is started in two steps (``multiprocessing.popen_spawn_posix``): the
    new interpreter is launched, then the parent writes the worker's set-up data into a
    pipe the worker reads first. A Ctrl-C or SIGTERM turned into an exception between the
    two leaves a worker that no one knows of (it is not yet in the pool's table, so the
    pool never stops it) reading an empty pipe: it prints ``EOFError: Ran out of input``
    from ``spawn_main`` after the run's own message. Here a signal that arrives meanwhile
    is only noted, and handled (by the handler that was in place) once the workers are
    started, when stopping the pool stops all of them. Main thread only (elsewhere Python
    delivers no signals).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def note(signum: int, frame: Any) -> None:
        caught.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):
            handler = previous[sig]
            if callable(handler):
                handler(sig, None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), sig)


class ProcessPoolExecutor(Executor):
    """A local pool of ``workers`` processes (:mod:`concurrent.futures`).

    Workers are started with the ``spawn`` method (``forkserver`` can be asked
    for): forking a parent that already runs BLAS or OpenMP threads is unsafe.

    Parameters
    ----------
    workers : int
        Worker processes.
    start_method : {"spawn", "forkserver"}
        How :mod:`multiprocessing` starts them.
    """

    name = "processes"
    shares_files = True

    def __init__(self, workers: int = 2, *, start_method: str = "spawn") -> None:
        super().__init__(workers)
        self.start_method = start_method
        self._pool: Any = None
        self._payload: Any = None
        self._started = False  # the pool has been given tasks (its workers exist)
        self._payload_file: str | None = None

    def _new_pool(self) -> Any:
        from concurrent.futures import ProcessPoolExecutor as _Pool

        ctx = multiprocessing.get_context(self.start_method)
        return _Pool(max_workers=self.workers, mp_context=ctx, initializer=_worker_init,
                     initargs=(os.getpid(), self._payload))

    def __enter__(self) -> ProcessPoolExecutor:
        self._pool = self._new_pool()
        self._started = False
        return self

    def preload(self, payload: Any) -> bool:
        """Install ``payload`` in every worker once, before its next task: as it starts
        (the pool's initializer) when no task has run yet; in a pool that already ran
        tasks (the workers that trained the learned adversary's models), from a file
        written here once, which each worker reads and installs before its first task
        after this call (its workers are kept: no second start of the interpreters).

        Parameters
        ----------
        payload : object
            What to install (picklable, with ``install()``).

        Returns
        -------
        bool
            True.
        """
        if self._pool is None:
            raise ExecutorError("preload needs a started executor (inside its with block)")
        self._payload = payload
        if self._started:
            import pickle

            self._drop_payload_file()
            fd, path = tempfile.mkstemp(prefix="anonspread-payload-", suffix=".pickle")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
            self._payload_file = path
            return True
        old, self._pool = self._pool, self._new_pool()
        old.shutdown(wait=True)  # no worker started yet: instant
        return True

    def _drop_payload_file(self) -> None:
        path, self._payload_file = self._payload_file, None
        if path is not None:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        try:
            self._exit(exc_type)
        finally:
            self._drop_payload_file()

    def _exit(self, exc_type: object) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if exc_type is None:
            pool.shutdown(wait=True)
            return
        # Interrupted or failed: drop queued tasks and stop the running ones now
        # (their units are not journaled, so a resume recomputes exactly them).
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            if proc.is_alive():
                proc.terminate()
        for proc in processes:
            proc.join(timeout=5)

    def imap_unordered(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        tasks = list(tasks)
        # parsed and checked here once: the workers map the graph files, trusting the check
        fn = _trusting_checks(fn, _graph_files(tasks))
        if self._payload_file is not None:  # preloaded after the workers started
            fn = functools.partial(_run_with_payload, fn=fn, path=self._payload_file)
        self._started = self._started or bool(tasks)
        with _signals_deferred():  # the first submits start the workers
            futures = [self._pool.submit(fn, t) for t in tasks]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BrokenProcessPool as exc:
            raise ExecutorError(
                "a worker process died before finishing its task; finished batches are in "
                "the journal, rerun with --resume"
            ) from exc


class DaskExecutor(Executor):
    """Tasks on a Dask distributed cluster.

    Parameters
    ----------
    workers : int
        Workers of the ``LocalCluster`` started when ``scheduler == "local"``.
    scheduler : str
        ``"local"`` or a scheduler address such as ``tcp://10.0.0.5:8786``.
    timeout : float
        Seconds to wait for the scheduler before giving up.
    processes : bool
        For ``"local"``: worker processes (True) or threads in this process.
    """

    name = "dask"

    def __init__(
        self, workers: int = 2, *, scheduler: str = "local", timeout: float = 3.0, processes: bool = True
    ) -> None:
        super().__init__(workers)
        self.scheduler = scheduler
        self.timeout = timeout
        self.processes = processes
        self._cluster: Any = None
        self._client: Any = None
        self._payload: Any = None

    def __enter__(self) -> DaskExecutor:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise ExecutorError(
                "the Dask executor needs dask.distributed: pip install 'anonspread[dask]'"
            ) from exc
        if self.scheduler == "local":
            self._cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=self.processes,
                # None means dask's default :8787, which warns when another cluster holds
                # it; ":0" takes any free port (no dashboard is advertised either way)
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            )
            self._client = Client(self._cluster)
            return self
        try:
            self._client = Client(self.scheduler, timeout=f"{self.timeout}s")
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ExecutorError(
                f"cannot reach the Dask scheduler at {self.scheduler!r} within "
                f"{self.timeout:g} s ({reason})"
            ) from None
        n = len(self._client.scheduler_info().get("workers", {}))
        self.workers = max(1, n)
        return self

    def __exit__(self, *exc: object) -> None:
        client, self._client = self._client, None
        cluster, self._cluster = self._cluster, None
        self._payload = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    def imap_unordered(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        from distributed import as_completed

        tasks = list(tasks)
        files = _graph_files(tasks)
        if files:
            ship_graph_files(self._client, files)
        fn = _trusting_checks(fn, files)
        if self._payload is None:
            futures = self._client.map(fn, tasks, pure=False)
        else:
            futures = self._client.map(_run_installed, tasks, fn=fn, payload=self._payload,
                                       pure=False)
        try:
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            self._client.cancel([f for f in futures if not f.done()])

    def preload(self, payload: Any) -> bool:
        """Scatter ``payload`` to every worker once (``broadcast``); each task then gets the
        worker's copy (a worker that joins later fetches it once) and installs it, which
        is idempotent.

        Parameters
        ----------
        payload : object
            What to install (picklable, with ``install()``).

        Returns
        -------
        bool
            True.
        """
        if self._client is None:
            raise ExecutorError("preload needs a started executor (inside its with block)")
        self._payload = self._client.scatter(payload, broadcast=True, hash=False)
        return True

    def describe(self) -> str:
        return f"dask(scheduler={self.scheduler!r}, workers={self.workers})"

    @classmethod
    def from_options(cls, *, workers: int, scheduler: str | None, timeout: float) -> Executor:
        return cls(workers, scheduler=scheduler or "local", timeout=timeout)


def _graph_files(tasks: list) -> list[tuple[str, Any]]:
    """Read the tasks' edge lists here once (:func:`harness.graphs.prepare_graph_files`)."""
    from anonspread.harness.graphs import prepare_graph_files

    return prepare_graph_files(p for t in tasks for p in getattr(t, "params", ()))


def _trusting_checks(fn: Callable[[T], R], files: list[tuple[str, Any]]) -> Callable[[T], R]:
    """``fn`` run under the parent's full checks of the run's edge lists
    (:func:`spread.graphfile.trusting`): a worker then maps each graph file after comparing
    the source's size and modification time and the graph file's header with what the
    parent verified, instead of hashing the whole source again. Each task carries the
    checks (a few hundred bytes per edge list), so a worker never trusts a check of
    another run."""
    from anonspread.spread.graphfile import source_check

    checks = tuple(c for _, ref in files if (c := source_check(ref)) is not None)
    if not checks:
        return fn
    return functools.partial(_run_trusting, fn=fn, checks=checks)


def _run_trusting(task: Any, *, fn: Callable[[Any], Any], checks: tuple) -> Any:
    from anonspread.spread.graphfile import trusting

    with trusting(checks):
        return fn(task)


#: The payload files (:meth:`ProcessPoolExecutor.preload`) installed in this worker process.
_INSTALLED_FILES: set = set()


def _run_with_payload(task: Any, *, fn: Callable[[Any], Any], path: str) -> Any:
    """``fn(task)`` after installing the payload pickled at ``path`` in this process,
    once per process and file."""
    if path not in _INSTALLED_FILES:
        import pickle

        with open(path, "rb") as f:
            payload = pickle.load(f)
        payload.install()
        _INSTALLED_FILES.add(path)
    return fn(task)


def _install_on_worker(source: str, ref: Any, data: bytes, dask_worker: Any = None) -> str:
    from anonspread.spread.graphfile import install_graph_file

    base = getattr(dask_worker, "local_directory", None) or tempfile.gettempdir()
    return install_graph_file(source, ref, data, os.path.join(base, "anonspread-graphs"))


def ship_graph_files(client: Any, files: Iterable[tuple[str, Any]], *, force: bool = False) -> dict[str, list[str]]:
    """Send each graph file once to every Dask worker that does not see it (no shared disk).

    Each worker is asked whether it sees the graph file (same path, same content token);
    the bytes go, once per graph and worker, to those that do not, which keep a copy in
    their local directory and map it when a task reads the edge list
    (:func:`spread.graphfile.install_graph_file`). Tasks carry only the parameters.
    Workers that join the cluster during a run do not get the copy (their tasks fail
    naming the missing file; start the workers first).

    Parameters
    ----------
    client : distributed.Client
        The cluster.
    files : iterable of (str, GraphFileRef)
        Edge lists as the tasks name them and their graph files
        (:func:`harness.graphs.prepare_graph_files`).
    force : bool
        Send to every worker, even those that see the file.

    Returns
    -------
    dict of str to list of str
        Per graph file, the workers it was sent to.

    Examples
    --------
    >>> class NoCluster:  # a client whose every worker sees every file
    ...     def run(self, fn, *args, workers=None):
    ...         return {"tcp://w1": True}
    >>> ship_graph_files(NoCluster(), [])
    {}
    """
    from anonspread.spread.graphfile import has_graph_file

    sent: dict[str, list[str]] = {}
    for source, ref in files:
        seen = client.run(has_graph_file, ref)
        lacking = sorted(seen) if force else sorted(w for w, ok in seen.items() if not ok)
        if not lacking:
            continue
        with open(ref.path, "rb") as fh:
            data = fh.read()
        client.run(_install_on_worker, source, ref, data, workers=lacking)
        sent[ref.path] = lacking
    return sent


def _run_installed(task: Any, *, fn: Callable[[Any], Any], payload: Any) -> Any:
    """A Dask task of a run with a payload: install the worker's copy (idempotent), run."""
    payload.install()
    return fn(task)


_EXECUTORS: Registry[type[Executor]] = Registry("executor")
for _cls in (InProcessExecutor, ProcessPoolExecutor, DaskExecutor):
    _EXECUTORS.add(_cls.name, _cls)


def register_executor(cls: type[Executor], *, replace: bool = False) -> type[Executor]:
    """Make a new :class:`Executor` subclass available under ``cls.name``.

    Parameters
    ----------
    replace : bool
        Replace an executor of the same name (otherwise ``cls.name`` must be new).

    Returns
    -------
    type
        ``cls``, so it can decorate the class.

    Examples
    --------
    The executor of :class:`Executor`'s example, registered and used by a run; results
    never depend on the executor (every batch has its own random stream), so the table
    is the one of :class:`~anonspread.harness.Experiment`'s example:

    >>> from anonspread import harness
    >>> @harness.register_executor
    ... class Reversed(harness.Executor):
    ...     name = "doc-reversed"
    ...     def imap_unordered(self, fn, tasks):
    ...         for task in reversed(list(tasks)):
    ...             yield fn(task)
    >>> exp = harness.Experiment(
    ...     name="doc-coin", title="A biased coin", description="share of heads",
    ...     grid=harness.Grid(product={"p": [0.1, 0.9]}),
    ...     metrics=(harness.Metric("heads", "proportion"),),
    ...     trial=lambda params, rng: {"heads": float(rng.random() < params["p"])})
    >>> result = harness.run(exp, trials=200, rng=1, executor="doc-reversed", workers=1,
    ...                      plot=False, progress=False)
    >>> print(result.table.format_text())
    p    trials  heads
    ---  ------  --------------------
    0.1  200     0.08 [0.0498, 0.126]
    0.9  200     0.925 [0.88, 0.954]
    """
    return _EXECUTORS.add(cls.name, cls, replace=replace)


def executor_names() -> list[str]:
    """Names accepted by :func:`make_executor`."""
    return _EXECUTORS.names()


def max_workers() -> int:
    """Most workers an executor may be asked for: 8 per CPU, at least 64 (more only thrash)."""
    return max(64, 8 * default_workers())


def make_executor(
    executor: str | None = None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float = 3.0,
) -> Executor:
    """Build an executor from the CLI's options (one place validates them).

    ``executor=None`` picks ``"dask"`` when a scheduler is given, ``"inprocess"``
    for one worker and ``"processes"`` otherwise.

    Parameters
    ----------
    executor : {"inprocess", "processes", "dask"} or None
        A registered executor name.
    workers : int, optional
        Worker processes (default: the CPUs available).
    scheduler : str, optional
        A Dask scheduler address (``tcp://HOST:PORT``) or ``"local"`` for a
        ``LocalCluster`` started for the run.
    timeout : float
        Seconds to wait for a Dask scheduler before failing.

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.make_executor(workers=1).describe()
    'inprocess(workers=1)'
    """
    workers = default_workers() if workers is None else check_int(workers, "workers", low=1, high=max_workers())
    timeout = check_real(timeout, "timeout", low=0.0, low_open=True)
    if executor is None:
        executor = "dask" if scheduler else ("inprocess" if workers == 1 else "processes")
    return _EXECUTORS.get(executor).from_options(workers=workers, scheduler=scheduler, timeout=timeout)
