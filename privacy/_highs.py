"""A silent HiGHS solver: the one place the privacy package constructs ``highspy.Highs``.

highspy prints its banner ("Running HiGHS ... Copyright ...") on the process's stdout when
a new solver is set up with output on, and ``setOptionValue("output_flag", False)`` after
construction is too late for it. :func:`quiet_highs` turns the output off before the
banner would be printed, so library calls (and every worker of a run) stay silent.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["quiet_highs"]


@functools.cache
def _quiet_class() -> type:
    import highspy

    class QuietHighs(highspy.Highs):
        # Highs.__init__ calls enableCallbacks(), which sets up the log and prints the
        # banner while output_flag is still on: turn it off first.
        def enableCallbacks(self) -> None:
            self.setOptionValue("output_flag", False)
            super().enableCallbacks()

    return QuietHighs


def quiet_highs() -> Any:
    """A new ``highspy.Highs`` with ``output_flag`` off from the start (no banner, no log)."""
    h = _quiet_class()()
    h.setOptionValue("output_flag", False)
    return h
