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
    """Base class of the harness's own errors."""


# UnknownNameError (a failed registry lookup) is the shared core's: every registry raises it.


class ExecutorError(HarnessError, RuntimeError):
    """An executor could not start or lost its workers (e.g. an unreachable scheduler)."""


class JournalMismatchError(HarnessError, InvalidParameterError):
    """``resume`` was asked for, but the journal on disk belongs to a different run."""


class OutputError(HarnessError, OSError):
    """The output directory or one of the output files cannot be written."""


class TrialError(HarnessError, RuntimeError):
    """An experiment's trial or evaluate function returned something unusable."""


class RunInterrupted(KeyboardInterrupt):
    """A run was interrupted (Ctrl-C); the message says what was journaled and how to resume."""
