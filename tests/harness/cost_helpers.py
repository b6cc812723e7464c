"""Helpers of test_harness_cost: an executor whose workers log their learned-model cache,
and a piloted experiment whose trials take a known time.

Importable by spawned pool workers (they unpickle :func:`counted_run` from here).
"""

from __future__ import annotations

import functools
import os
import time

from anonspread import harness
from anonspread.harness.executors import ProcessPoolExecutor

__all__ = ["SLEEPY", "SLEEP_SECONDS", "CountingPool", "MarkPayload", "counted_run", "pid_and_marks"]


def counted_run(task, *, fn, log):
    """Run ``task`` and append ``pid misses hits pinned`` of this worker's learned cache to ``log``."""
    from anonspread.adversaries import learned

    out = fn(task)
    info = learned.cache_info()
    with open(log, "a") as f:
        f.write(f"{os.getpid()} {info['misses']} {info['hits']} {info['pinned']}\n")
    return out


class CountingPool(ProcessPoolExecutor):
    """A process pool whose every task logs the worker's learned-model cache to ``log``."""

    name = "test-counting-pool"

    def __init__(self, workers: int = 2, *, log: str) -> None:
        super().__init__(workers)
        self.log = log

    def imap_unordered(self, fn, tasks):
        yield from super().imap_unordered(functools.partial(counted_run, fn=fn, log=self.log), tasks)


#: Seconds one step of a :data:`SLEEPY` trial takes (it spins: CPU and elapsed time).
SLEEP_SECONDS = 0.004


def sleepy_trials(params, n, rng):
    """``n`` trials of ``params["k"]`` spins of SLEEP_SECONDS each (a cost known in advance)."""
    end = time.perf_counter() + SLEEP_SECONDS * params["k"] * n
    while time.perf_counter() < end:
        pass
    return {"u": rng.random(n)}


SLEEPY = harness.Experiment(
    name="test-sleepy", title="trials of known cost", description="k sleeps per trial",
    grid=harness.Grid(product={"k": [1, 3]}),
    metrics=(harness.Metric("u", "mean"),), trials=sleepy_trials, default_trials=100, pilot=True,
)


#: Seconds the first call of a point of :data:`WARMED` spends building what its trials share.
BUILD_SECONDS = 0.3
_BUILT: set = set()


def _build(params):
    """Spin BUILD_SECONDS the first time a point is seen in this process (a graph read once)."""
    if params["k"] not in _BUILT:
        end = time.perf_counter() + BUILD_SECONDS
        while time.perf_counter() < end:
            pass
        _BUILT.add(params["k"])


def warmed_trials(params, n, rng):
    """``n`` trials of one SLEEP_SECONDS spin each, after the point's one-off build."""
    _build(params)
    return sleepy_trials({"k": 1}, n, rng)


#: Trials of known cost whose first call builds a shared, kept object; ``warm`` builds it.
WARMED = harness.Experiment(
    name="test-warmed", title="trials after a one-off build", description="build once, then spin",
    grid=harness.Grid(product={"k": [1, 2]}),
    metrics=(harness.Metric("u", "mean"),), trials=warmed_trials, default_trials=100, pilot=True,
    warm=_build,
)


#: Tokens of the :class:`MarkPayload` installed in this process.
_MARKS: list = []


class MarkPayload:
    """A preload payload that records its installation in the worker (:func:`pid_and_marks`)."""

    def __init__(self, token):
        self.token = token

    def install(self):
        _MARKS.append(self.token)

    def uninstall(self):
        _MARKS.remove(self.token)


def pid_and_marks(x):
    """This worker's pid and the payloads installed in it (after a short spin, so that
    both workers of a pool take tasks)."""
    end = time.perf_counter() + 0.05
    while time.perf_counter() < end:
        pass
    return os.getpid(), tuple(_MARKS)
