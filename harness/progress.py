"""Progress a person can trust: a start line at once, then progress weighted by cost.

What is shown (on stderr):

* on a terminal (outside CI): at once, before any worker starts, one line with the
  points, trials and batches, then a tqdm bar (notebook-aware via ``tqdm.auto``);
* otherwise (output redirected, CI): from ``interval`` seconds on (30 by default), that
  line and then one status line every ``interval`` seconds and one at the end (a run
  shorter than ``interval`` prints nothing, so logs of short runs and one-line errors
  stay as they were);
* nothing with ``enabled=False`` (``--quiet``).

The fraction done and the ETA are weighted by *expected cost*, not by trial counts:
each finished batch reports its compute time, and a point's remaining trials are
priced at the seconds per trial measured on that point -- or, before any of its
batches finished, on the points of the same kind (:func:`shape` of its non-numeric
parameters), else on all finished batches. So a grid mixing cheap and expensive points
(a small graph and an 82,000-node one) does not read 78% with a quarter of its time
left. The ETA is the remaining cost over the rate at which cost has been done (compute
seconds per wall-clock second, which counts the workers).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["Progress", "format_duration", "in_notebook", "progress_enabled", "progress_mode"]

#: Seconds between two progress lines when stderr is not a terminal.
LOG_INTERVAL = 30.0


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
    ``CI`` is not set.

    Parameters
    ----------
    stream : file-like, optional
        Where progress would be written (default :data:`sys.stderr`).

    Returns
    -------
    bool
    """
    stream = sys.stderr if stream is None else stream
    if os.environ.get("CI"):
        return False
    if stream is sys.stderr and in_notebook():
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def progress_mode(enabled: bool | None, stream: TextIO | None = None) -> str:
    """``"bar"`` (a terminal), ``"log"`` (periodic lines) or ``"off"``.

    ``enabled=None`` chooses by the stream; ``True`` forces the bar; ``False`` is off.

    Parameters
    ----------
    enabled : bool or None
        The caller's choice (``progress=`` of :func:`harness.run`).
    stream : file-like, optional
        Where progress goes (default :data:`sys.stderr`).

    Returns
    -------
    str

    Examples
    --------
    >>> progress_mode(True), progress_mode(False)
    ('bar', 'off')
    """
    if enabled is False:
        return "off"
    if enabled is True:
        return "bar"
    return "bar" if progress_enabled(stream) else "log"


def format_duration(seconds: float) -> str:
    """``mm:ss`` or ``h:mm:ss`` (``?`` when unknown).

    Parameters
    ----------
    seconds : float
        A duration (NaN or infinite when unknown).

    Returns
    -------
    str

    Examples
    --------
    >>> format_duration(75), format_duration(3725), format_duration(float("nan"))
    ('01:15', '1:02:05', '?')
    """
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "?"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Counts finished trials, points and compute time; shows them as the mode says.

    Parameters
    ----------
    desc : str
        Label (the experiment name).
    total_trials, total_points : int
        What a complete run does.
    enabled : bool or None
        See :func:`progress_mode`.
    units : sequence of (point, trials), optional
        The batches still to run (to price the remaining work per point).
    shapes : mapping point -> hashable, optional
        The kind of each point (points of one kind are priced alike before they are
        measured).
    stream : text stream, optional
        Default: ``sys.stderr``.
    interval : float
        Seconds between two lines in ``"log"`` mode.
    priors : mapping point -> float, optional
        Seconds per trial of each point before any of its batches finished (a pilot's
        estimate, :mod:`harness.pilot`); a measured point's own time replaces it.
    """

    def __init__(self, desc: str, total_trials: int, total_points: int, *, enabled: bool | None = None,
                 units: Sequence[tuple[int, int]] = (), shapes: Mapping[int, Hashable] | None = None,
                 stream: TextIO | None = None, interval: float = LOG_INTERVAL,
                 priors: Mapping[int, float] | None = None) -> None:
        self.desc = desc
        self.total_trials = total_trials
        self.total_points = total_points
        self.enabled = enabled
        self.trials = 0
        self.points = 0
        self.stream = stream
        self.interval = interval
        self.mode = "off"
        self._remaining: dict[int, int] = {}
        for point, n in units:
            self._remaining[point] = self._remaining.get(point, 0) + n
        self._shapes = dict(shapes or {})
        self._priors = dict(priors or {})
        self._cost: dict[int, list[float]] = {}  # point -> [seconds, trials]
        self._done_cost = 0.0
        self._t0 = time.monotonic()
        self._work_t0: float | None = None
        self._bar: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._announced = False
        self._intro = ""
        self._printed = 0

    # ------------------------------------------------------------------ output
    def _out(self) -> TextIO:
        return sys.stderr if self.stream is None else self.stream

    def _line(self, text: str) -> None:
        try:
            print(text, file=self._out(), flush=True)
        except (OSError, ValueError):
            pass

    def announce(self, text: str) -> None:
        """Print the start line now (before workers start) on a terminal.

        When stderr is not a terminal the first line comes after ``interval`` seconds,
        so short runs and one-line errors stay exactly that in logs.

        Parameters
        ----------
        text : str
            The line (what runs, on which executor).
        """
        self.mode = progress_mode(self.enabled, self.stream)
        if self.mode == "log":
            self._intro = f"{self.desc}: {text}"
        if self.mode == "bar" and not self._announced:
            self._announced = True
            self._line(f"{self.desc}: {text}")

    def say(self, text: str) -> None:
        """Print ``text`` now, whatever the mode but ``"off"`` (a cost estimate: the line a
        person must see before the run commits them).

        Parameters
        ----------
        text : str
            The line.
        """
        self.mode = progress_mode(self.enabled, self.stream)
        if self.mode != "off":
            self._line(text)

    # ------------------------------------------------------------------ estimates
    def _per_trial(self, point: int) -> float | None:
        own = self._cost.get(point)
        if own and own[1] > 0:
            return own[0] / own[1]
        if point in self._priors:
            return self._priors[point]
        shape = self._shapes.get(point)
        same = [c for q, c in self._cost.items() if c[1] > 0 and self._shapes.get(q) == shape]
        pool = same or [c for c in self._cost.values() if c[1] > 0]
        if not pool:
            return None
        return sum(c[0] for c in pool) / sum(c[1] for c in pool)

    def estimate(self) -> tuple[float, float]:
        """(fraction done by expected cost, ETA in seconds; NaN before anything finished)."""
        if self._done_cost <= 0:
            frac = self.trials / self.total_trials if self.total_trials else 1.0
            return frac, float("nan")
        remaining = 0.0
        for point, n in self._remaining.items():
            if n > 0:
                per = self._per_trial(point)
                remaining += n * (per if per is not None else 0.0)
        frac = self._done_cost / (self._done_cost + remaining) if remaining > 0 else 1.0
        wall = time.monotonic() - (self._work_t0 or self._t0)
        rate = self._done_cost / wall if wall > 0 else 0.0
        eta = remaining / rate if rate > 0 else float("nan")
        return frac, eta

    def status(self) -> str:
        """One line: percent (by cost), trials, points, elapsed, ETA."""
        frac, eta = self.estimate()
        return (f"{self.desc}: {100 * frac:.0f}% done (trials {self.trials}/{self.total_trials}, "
                f"points {self.points}/{self.total_points}), elapsed "
                f"{format_duration(time.monotonic() - self._t0)}, ETA {format_duration(eta)}")

    # ------------------------------------------------------------------ life cycle
    def __enter__(self) -> Progress:
        if not self._announced:
            self.mode = progress_mode(self.enabled, self.stream)
        self._work_t0 = time.monotonic()
        if self.mode == "bar":
            # tqdm.auto: a widget in a notebook with ipywidgets, text on a terminal (and in a
            # notebook without ipywidgets, where tqdm.auto would only warn and fall back)
            from tqdm.auto import tqdm

            if in_notebook() and importlib.util.find_spec("ipywidgets") is None:
                from tqdm.std import tqdm

            self._bar = tqdm(total=1000, desc=self.desc, dynamic_ncols=True, leave=True, unit="starting",
                             file=self._out(),
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| {unit}")
            self._refresh_bar()
        elif self.mode == "log":
            self._thread = threading.Thread(target=self._tick, name="anonspread-progress", daemon=True)
            self._thread.start()
        return self

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                if self._intro and not self._printed:
                    self._line(self._intro)
                self._printed += 1
                self._line(self.status())

    def _refresh_bar(self) -> None:
        frac, eta = self.estimate()
        self._bar.n = round(1000 * min(max(frac, 0.0), 1.0))
        # the status goes in the {unit} field of bar_format (a postfix would start with ", ")
        self._bar.unit = (f"trials {self.trials}/{self.total_trials}, points {self.points}/"
                          f"{self.total_points}, elapsed {format_duration(time.monotonic() - self._t0)}, "
                          f"ETA {format_duration(eta)}")
        self._bar.refresh()

    def update(self, trials: int, points: int, *, costs: Sequence[tuple[int, int, float]] = ()) -> None:
        """Add ``trials`` finished trials and ``points`` completed parameter points.

        Parameters
        ----------
        trials : int
            Trials just finished.
        points : int
            Parameter points just completed.
        costs : sequence of (point, trials, seconds)
            The finished batches, for the time estimate.
        """
        with self._lock:
            self.trials += trials
            self.points += points
            for point, n, seconds in costs:
                c = self._cost.setdefault(point, [0.0, 0])
                c[0] += seconds
                c[1] += n
                self._done_cost += seconds
                if point in self._remaining:
                    self._remaining[point] = max(0, self._remaining[point] - n)
            if self._bar is not None:
                self._refresh_bar()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
            if exc[0] is None and self._printed:
                self._line(self.status())
        if self._bar is not None:
            self._bar.close()
            self._bar = None
