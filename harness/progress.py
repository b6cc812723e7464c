"""Progress display: a tqdm bar (trials, rate, ETA, points done) on a terminal or in a
Jupyter notebook (tqdm.auto: a widget there) only.

In CI or when stderr is not a TTY the bar stays silent, so logs hold no
carriage-return noise.  tqdm is imported only when a bar is shown.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, TextIO

__all__ = ["Progress", "in_notebook", "progress_enabled"]


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where stderr is not a terminal but a bar still shows)."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    try:
        return type(get()).__name__ == "ZMQInteractiveShell" if get is not None else False
    except Exception:  # an IPython in a strange state: no notebook bar
        return False


def progress_enabled(stream: TextIO | None = None) -> bool:
    """True when ``stream`` (default stderr) is a terminal, or in a Jupyter notebook, and
    ``CI`` is not set."""
    stream = sys.stderr if stream is None else stream
    if os.environ.get("CI"):
        return False
    if stream is sys.stderr and in_notebook():
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """Counts finished trials and points; draws them when ``enabled``.

    Parameters
    ----------
    desc : str
        Label (the experiment name).
    total_trials, total_points : int
        What a complete run does.
    enabled : bool or None
        ``None`` means :func:`progress_enabled`.
    """

    def __init__(self, desc: str, total_trials: int, total_points: int, *, enabled: bool | None = None) -> None:
        self.desc = desc
        self.total_trials = total_trials
        self.total_points = total_points
        self.enabled = enabled
        self.trials = 0
        self.points = 0
        self._bar: Any = None

    def __enter__(self) -> Progress:
        enabled = progress_enabled() if self.enabled is None else self.enabled
        if enabled:
            # tqdm.auto: a widget in a notebook with ipywidgets, text on a terminal (and in a
            # notebook without ipywidgets, where tqdm.auto would only warn and fall back)
            from tqdm.auto import tqdm

            if in_notebook() and importlib.util.find_spec("ipywidgets") is None:
                from tqdm.std import tqdm

            self._bar = tqdm(total=self.total_trials, desc=self.desc, unit="trial",
                             unit_scale=True, dynamic_ncols=True, leave=True)
        return self

    def update(self, trials: int, points: int) -> None:
        """Add ``trials`` finished trials and ``points`` completed parameter points."""
        self.trials += trials
        self.points += points
        if self._bar is not None:
            self._bar.set_postfix_str(f"points {self.points}/{self.total_points}", refresh=False)
            self._bar.update(trials)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
