"""Errors raised on purpose by the harness.

They extend the project's one hierarchy (:mod:`anonspread.errors`), so
``except AnonspreadError`` catches them too; the CLI prints any of them as one
line on stderr.
"""

from __future__ import annotations

from anonspread.errors import AnonspreadError, InvalidParameterError, UnknownNameError

__all__ = [
    "ExecutorError",
    "HarnessError",
    "JournalMismatchError",
    "OutputError",
    "RunInterrupted",
    "TrialError",
    "UnknownNameError",
]


class HarnessError(AnonspreadError):
    """Base class of the harness's own errors.

    Examples
    --------
    >>> from anonspread import harness
    >>> sorted(c.__name__ for c in harness.HarnessError.__subclasses__())
    ['ExecutorError', 'JournalMismatchError', 'OutputError', 'TrialError']
    """


# UnknownNameError (a failed registry lookup) is the shared core's: every registry raises it.


class ExecutorError(HarnessError, RuntimeError):
    """An executor could not start or lost its workers (e.g. an unreachable scheduler).

    Examples
    --------
    >>> from anonspread import harness
    >>> with harness.make_executor("dask", scheduler="tcp://127.0.0.1:9", timeout=0.2):
    ...     pass
    Traceback (most recent call last):
    ...
    anonspread.harness.errors.ExecutorError: cannot reach the Dask scheduler at 'tcp://127.0.0.1:9' within 0.2 s (...)
    """


class JournalMismatchError(HarnessError, InvalidParameterError):
    """``resume`` was asked for, but the journal on disk belongs to a different run.

    The message names what differs (the experiment, seed, trials, grid...); the journal
    is left as it was. Being an :class:`~anonspread.errors.InvalidParameterError`, it
    is a :class:`ValueError` too.

    Examples
    --------
    >>> from anonspread.harness.journal import Journal
    >>> with Journal("coin.journal.jsonl") as journal:
    ...     journal.open({"experiment": "coin", "seed": 7}, resume=False)
    {}
    >>> with Journal("coin.journal.jsonl") as journal:
    ...     journal.open({"experiment": "coin", "seed": 8}, resume=True)
    Traceback (most recent call last):
    ...
    anonspread.harness.errors.JournalMismatchError: journal coin.journal.jsonl was written by a different run (differs in: seed); rerun without --resume to start afresh
    """


class OutputError(HarnessError, OSError):
    """The output directory or one of the output files cannot be written.

    Examples
    --------
    >>> import os
    >>> from anonspread.harness.report import report
    >>> os.makedirs("empty", exist_ok=True)
    >>> report("empty")
    Traceback (most recent call last):
    ...
    anonspread.harness.errors.OutputError: report directory 'empty' holds no run (a NAME.csv with its NAME.json) and no interrupted run (a NAME.journal.jsonl)
    """


class TrialError(HarnessError, RuntimeError):
    """An experiment's trial or evaluate function returned something unusable.

    Examples
    --------
    >>> from anonspread import harness
    >>> exp = harness.Experiment(
    ...     name="doc-bad", title="t", description="d",
    ...     grid=harness.Grid(product={"p": [0.5]}), metrics=(harness.Metric("heads"),),
    ...     trial=lambda params, rng: {"tails": 1.0})
    >>> harness.run(exp, trials=10, rng=1, workers=1, plot=False, progress=False)
    Traceback (most recent call last):
    ...
    anonspread.harness.errors.TrialError: experiment 'doc-bad' at {'p': 0.5}: trial returned metrics ['tails']; declared ['heads']
    """


class RunInterrupted(KeyboardInterrupt):
    """A run was interrupted (Ctrl-C); the message says what was journaled and how to resume.

    It is a :class:`KeyboardInterrupt`, not an
    :class:`~anonspread.errors.AnonspreadError`: ``except Exception`` does not swallow
    it, and ``anonspread run`` exits with status 130 after printing the message.

    Examples
    --------
    >>> from anonspread import harness
    >>> issubclass(harness.RunInterrupted, KeyboardInterrupt)
    True
    >>> issubclass(harness.RunInterrupted, Exception)
    False
    """
