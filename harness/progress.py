"""Progress a person can trust: a start line at once, then progress weighted by cost.

What is shown (on stderr):

* on a terminal (outside CI): at once, before any worker starts, one line with the
  points, trials and batches, then a tqdm bar (notebook-aware via ``tqdm.auto``);
* otherwise (output redirected, CI): from ``interval`` seconds on (30 by default), that
  line and then one status line every ``interval`` seconds and one at the end (a run
  shorter than ``interval`` prints nothing, so logs of short runs and one-line errors
  stay as they were);
* nothing with ``enabled=False`` (``--quiet``).

The percentage is monotone by construction. Each point's trials get a *weight* once,
when the work starts (the run's first bar or status line), and keep it to the end; the
percentage is the weight of the finished trials over the weight of all the run's trials
(those a resume takes from the journal count as finished). A weight is the best price
known at the start: the seconds per trial the journal measured on that point (a resume),
else the pilot's estimate (:mod:`harness.pilot`), else the journal's measurements on points
of the same kind (:func:`shape` of its non-numeric parameters) or on any point; when some
point has none of these, the experiment's relative cost model (``Experiment.cost``) prices
every point, else each trial weighs the same. So a grid mixing cheap and expensive points
(a small graph and an 82,000-node one) does not read 78% with a quarter of its time left
when the run is piloted, and the percentage never goes back when later batches re-price
the work: re-pricing moves the ETA, never the percentage, and 100% means every batch is
finished.

The ETA is re-priced at every batch: a point's remaining trials at the seconds per trial
measured on that point (in this session or, on a resume, in the journal), else the pilot's
estimate, else points of the same kind, else all; over the rate at which this session has
done compute (compute seconds per wall-clock second, which counts the workers), or, before
the session's first batch finished, over the workers the batches can keep busy (at most one
per batch) and never below the longest batch. Unknown prices leave it ``?``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["Progress", "format_duration", "format_seconds", "in_notebook", "progress_enabled", "progress_mode"]

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


def format_seconds(seconds: float) -> str:
    """A duration in the unit that shows it: ``35 us``, ``12 ms``, ``1.2 s``, ``31 s``,
    then :func:`format_duration` from a minute on (``?`` when unknown).

    Parameters
    ----------
    seconds : float
        A duration (NaN or infinite when unknown).

    Returns
    -------
    str

    Examples
    --------
    >>> format_seconds(0.5), format_seconds(4.2e-5), format_seconds(3.25), format_seconds(75)
    ('500 ms', '42 us', '3.2 s', '01:15')
    """
    if seconds != seconds or seconds < 0 or seconds == float("inf"):
        return "?"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.0f} ms"
    if seconds < 60.0:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    return format_duration(seconds)


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
        The run's batches (every one, including those a resume takes from the journal).
    shapes : mapping point -> hashable, optional
        The kind of each point (points of one kind are priced alike before they are
        measured).
    stream : text stream, optional
        Default: ``sys.stderr``.
    interval : float
        Seconds between two lines in ``"log"`` mode.
    priors : mapping point -> float, optional
        Seconds per trial of each point before any of its batches finished (a pilot's
        estimate, :mod:`harness.pilot`); a measured point's own time replaces it in the ETA.
    relative : mapping point -> float, optional
        A relative cost per trial of each point (``Experiment.cost``), the weights of the
        percentage when the seconds of some point are unknown at the start.
    workers : int, optional
        Workers of the run: the ETA's rate before this session's first batch finished (at
        most one per batch of ``units``).
    tick : float
        Seconds between two redraws of the bar on a terminal (the elapsed time moves, so a
        frozen bar and a hung run differ).

    Examples
    --------
    Two points, one 9 times dearer by the pilot: the percentage is weighted by that price,
    and measured costs that re-price the work move the ETA, not the percentage:

    >>> p = Progress("x", 200, 2, enabled=False, units=[(0, 100), (1, 100)], priors={0: 0.01, 1: 0.09})
    >>> p.update(100, 1, costs=[(0, 100, 1.0)])
    >>> round(p.estimate()[0], 3)
    0.1
    >>> p.update(0, 0, costs=[(1, 0, 0.0)])
    >>> p.update(50, 0, costs=[(1, 50, 40.0)])   # point 1 is dearer than the pilot said
    >>> round(p.estimate()[0], 3)
    0.55
    """

    def __init__(self, desc: str, total_trials: int, total_points: int, *, enabled: bool | None = None,
                 units: Sequence[tuple[int, int]] = (), shapes: Mapping[int, Hashable] | None = None,
                 stream: TextIO | None = None, interval: float = LOG_INTERVAL,
                 priors: Mapping[int, float] | None = None, relative: Mapping[int, float] | None = None,
                 workers: int | None = None, tick: float = 1.0) -> None:
        self.desc = desc
        self.total_trials = total_trials
        self.total_points = total_points
        self.enabled = enabled
        self.trials = 0
        self.points = 0
        self.stream = stream
        self.interval = interval
        self.tick = tick
        self.workers = workers
        self.mode = "off"
        self._total: dict[int, int] = {}
        self._units = list(units)
        for point, n in units:
            self._total[point] = self._total.get(point, 0) + n
        self._remaining = dict(self._total)
        self._shapes = dict(shapes or {})
        self._priors = {k: float(v) for k, v in (priors or {}).items() if _positive(v)}
        self._relative = {k: float(v) for k, v in (relative or {}).items() if _positive(v)}
        self._cost: dict[int, list[float]] = {}  # point -> [seconds, trials] measured
        self._weights: dict[int, float] | None = None  # frozen at the first estimate
        self._session_cost = 0.0
        self._rate_at: tuple[float, float | None] | None = None  # (cost per second, when measured)
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
        """Seconds per trial of ``point`` as known now (measured, pilot, same kind, any)."""
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

    def _freeze(self) -> dict[int, float]:
        """The percentage's weights per trial of every point, fixed the first time asked."""
        if self._weights is None:
            prices = {p: self._per_trial(p) for p in self._total}
            if prices and all(v is not None and v > 0 for v in prices.values()):
                weights = {p: float(v) for p, v in prices.items() if v is not None}
            elif self._total and all(p in self._relative for p in self._total):
                weights = {p: self._relative[p] for p in self._total}
            else:
                weights = dict.fromkeys(self._total, 1.0)
            self._weights = weights
        return self._weights

    def fraction(self) -> float:
        """The weight of the finished trials over the weight of all (monotone; 1.0 only
        when every batch is finished)."""
        if not self._total:
            return min(self.trials / self.total_trials, 1.0) if self.total_trials else 1.0
        weights = self._freeze()
        total = sum(n * weights[p] for p, n in self._total.items())
        if not self.unfinished():
            return 1.0
        done = sum((n - self._remaining[p]) * weights[p] for p, n in self._total.items())
        # never 1.0 while a batch runs (a weight can be tiny next to the others)
        return min(done / total, 1.0 - 1e-9) if total > 0 else 0.0

    def unfinished(self) -> int:
        """Trials still to run."""
        if not self._total:
            return max(self.total_trials - self.trials, 0)
        return sum(self._remaining.values())

    def eta(self) -> float:
        """Seconds still to wait by the measured costs (NaN when unknown).

        The cost left over the rate measured when the last batch finished, counting down
        from then (inside the context): a long batch no longer makes the ETA grow. NaN once
        that time has passed with work left (the estimate was too low).
        """
        remaining = 0.0
        for point, n in self._remaining.items():
            if n > 0:
                per = self._per_trial(point)
                if per is None:
                    return float("nan")
                remaining += n * per
        if remaining <= 0:
            return 0.0
        if self._rate_at is not None:
            rate, since = self._rate_at
            eta = remaining / rate
        elif self.workers:
            # before any batch finished: the batches over the workers, as the pilot's wall
            # time (harness.pilot): never more workers busy than batches, never less than
            # the longest batch
            since = self._work_t0
            busy = min(self.workers, len(self._units)) if self._units else self.workers
            longest = max((min(n, self._remaining.get(p, n)) * (self._per_trial(p) or 0.0)
                           for p, n in self._units), default=0.0)
            eta = max(remaining / busy, longest)
        else:
            return float("nan")
        if since is not None:
            # counts down between finished batches (the rate is that of the last one to
            # finish, the work in flight still in ``remaining``); past zero the estimate
            # was wrong, and the time left is unknown, not 00:00
            eta -= time.monotonic() - since
            if eta <= 0:
                return float("nan")
        return eta

    def estimate(self) -> tuple[float, float]:
        """(fraction done by the weights fixed at the start, ETA in seconds; NaN when unknown)."""
        return self.fraction(), self.eta()

    def _percent(self) -> str:
        frac = self.fraction()
        # floored: 100% is shown once, when every batch is finished
        return f"{100 if frac >= 1.0 else min(int(100 * frac), 99)}%"

    def status(self) -> str:
        """One line: percent (by cost), trials, points, elapsed, ETA."""
        # the percent weighs trials by their estimated cost: it can lag the trial count
        # (a soft-margin point costs more than all the others), so it says so
        return (f"{self.desc}: {self._percent()} done by estimated cost (trials "
                f"{self.trials}/{self.total_trials}, "
                f"points {self.points}/{self.total_points}), elapsed "
                f"{format_duration(time.monotonic() - self._t0)}, ETA {format_duration(self.eta())}")

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

            with self._lock:  # the first draw already says what the journal holds (a resume)
                n, text = self._bar_state()
                self._bar = tqdm(total=100, initial=n, desc=self.desc, dynamic_ncols=True, leave=True,
                                 unit=text, file=self._out(),
                                 bar_format="{desc}: {percentage:3.0f}%|{bar}| {unit}")
            period = self.tick
        elif self.mode == "log":
            period = self.interval
        else:
            return self
        self._thread = threading.Thread(target=self._ticker, args=(period,), name="anonspread-progress",
                                        daemon=True)
        self._thread.start()
        return self

    def _ticker(self, period: float) -> None:
        while not self._stop.wait(period):
            with self._lock:
                if self._bar is not None:
                    self._refresh_bar()  # the elapsed time moves between batches
                elif self.unfinished():  # the final line is __exit__'s, printed once
                    if self._intro and not self._printed:
                        self._line(self._intro)
                    self._printed += 1
                    self._line(self.status())

    def _bar_state(self) -> tuple[int, str]:
        """The bar's position (whole percents, floored: 100 only when every batch is
        finished, as tqdm would round 99.6 up) and its status text."""
        frac = self.fraction()
        # the status goes in the {unit} field of bar_format (a postfix would start with ", ")
        return (100 if frac >= 1.0 else min(int(100 * frac), 99),
                f"trials {self.trials}/{self.total_trials}, points {self.points}/{self.total_points}, "
                f"elapsed {format_duration(time.monotonic() - self._t0)}, ETA {format_duration(self.eta())}")

    def _refresh_bar(self) -> None:
        self._bar.n, self._bar.unit = self._bar_state()
        self._bar.refresh()

    def update(self, trials: int, points: int, *, costs: Sequence[tuple[int, int, float]] = (),
               reused: bool = False) -> None:
        """Add ``trials`` finished trials and ``points`` completed parameter points.

        Parameters
        ----------
        trials : int
            Trials just finished.
        points : int
            Parameter points just completed.
        costs : sequence of (point, trials, seconds)
            The finished batches, for the time estimate (seconds <= 0: not measured).
        reused : bool
            The batches come from the journal (a resume): they count as finished and
            price their points, but not in this session's rate. Call this before entering
            the context, so their prices weigh the percentage.
        """
        with self._lock:
            self.trials += trials
            self.points += points
            for point, n, seconds in costs:
                if point in self._remaining:
                    self._remaining[point] = max(0, self._remaining[point] - n)
                if not (_positive(seconds) and n > 0):
                    continue
                c = self._cost.setdefault(point, [0.0, 0])
                c[0] += seconds
                c[1] += n
                if not reused:
                    self._session_cost += seconds
            if self._session_cost > 0 and not reused:
                now = time.monotonic()
                wall = now - (self._work_t0 or self._t0)
                if wall > 0:
                    self._rate_at = (self._session_cost / wall, now if self._work_t0 is not None else None)
            if self._bar is not None:
                self._refresh_bar()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with self._lock:
            if self._bar is None and exc[0] is None and self._printed:
                self._line(self.status())
                self._printed += 1
            if self._bar is not None:
                self._bar.close()
                self._bar = None


def _positive(value: Any) -> bool:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    return v > 0 and v != float("inf")
