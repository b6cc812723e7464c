"""Size guards: a run that cannot fit in memory or finish in reasonable time is refused up front.

Before a simulator allocates anything it estimates what the request needs and raises
:class:`~anonspread.errors.InvalidParameterError` naming the parameter and the size:

* the per-step arrays (``T + 1`` entries per run, ``trials x (T + 1)`` sizes for
  :func:`spread.simulate_many`);
* on an infinite tree, the nodes a run touches: the *expected* number of infected
  nodes (exact for flooding and adaptive diffusion on regular trees, the mean over the
  degree law on random trees) times the mean degree, since the children of infected
  nodes are created too. Node ids are int32, so more than 2^31 - 1 nodes cannot exist
  at all; each node costs about :data:`BYTES_PER_NODE` bytes;
* the total work, ``trials x (nodes touched + T)``, at most :data:`MAX_WORK` (at the
  compiled kernels' pace of about 10^7-10^8 node visits per second this is hours).

The expected reach of a protocol on an infinite tree of mean degree ``d`` comes from
a registry (:func:`register_reach`), so a new protocol adds its own; a protocol
without one is guarded by the step and trial counts only. Memory is compared with
half the machine's physical memory.

The same two limits guard every other request that could exhaust the machine: the graph
generators of the harness, :func:`spread.graphs.from_edgelist`, :func:`simulate_stems`,
the transaction model, the privacy Monte Carlo, and a whole sweep (the sum over its
points). Each estimates what it needs from its parameters, before allocating, and calls
:func:`check_size`, whose refusal names the parameter, the size needed and the limit.

**Raising the limits.** Both are read from the environment on every check, so that
pool and Dask workers started by a run see the same values:
``ANONSPREAD_MEMORY_LIMIT`` (bytes; suffixes K, M, G, T accepted, e.g. ``64G``) and
``ANONSPREAD_MAX_WORK`` (node visits, e.g. ``1e13``). :func:`raised_limits` sets them
for a ``with`` block.

**Readers.** A file's size says little about what reading it costs when its lines add
nothing: a gigabyte of one repeated edge line, or a megabyte of gzip that expands to it,
holds a graph of two nodes yet takes a minute and gigabytes to read. A reader therefore
counts its *idle text*: the bytes read beyond :data:`TEXT_PER_EDGE` bytes for each
distinct edge the lines read so far could hold (at most the edge lines, and at most
``nodes^2`` for the nodes named so far), i.e. text that is certainly repeated edges,
self-loops, comments or blank lines. More than :func:`idle_text_budget` bytes of it
(:data:`MAX_IDLE_TEXT`, raised with ``ANONSPREAD_MAX_IDLE_TEXT``) stops the read with
:func:`check_idle_text`'s error, within seconds; an edge list whose lines name new edges
never meets this limit, however long (its size is guarded by the memory limit).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator
from typing import Any

from anonspread.errors import InvalidParameterError
from anonspread.registry import Registry

__all__ = [
    "BYTES_PER_NODE",
    "IDLE_TEXT_ENV",
    "MAX_IDLE_TEXT",
    "MAX_NODES",
    "MAX_WORK",
    "MEMORY_ENV",
    "TEXT_PER_EDGE",
    "WORK_ENV",
    "check_idle_text",
    "check_run_size",
    "check_size",
    "expected_reach",
    "idle_text_budget",
    "memory_budget",
    "raised_limits",
    "register_reach",
    "run_work",
    "work_budget",
]

#: int32 node ids.
MAX_NODES = 2**31 - 1
#: Bytes of store per touched node of a lazily grown tree (its arrays, doubling slack included).
BYTES_PER_NODE = 128
#: Most node visits (trials x nodes touched) a request may ask for, unless raised
#: (:data:`WORK_ENV`): at the compiled kernels' pace, hours.
MAX_WORK = 10**12
#: Environment variable raising (or lowering) the memory limit, in bytes (``64G`` allowed).
MEMORY_ENV = "ANONSPREAD_MEMORY_LIMIT"
#: Environment variable raising (or lowering) the work limit, in node visits (``1e13`` allowed).
WORK_ENV = "ANONSPREAD_MAX_WORK"
#: Bytes of idle text (text that cannot add an edge: repeated edges, self-loops, comments,
#: blank lines) a reader may read before it stops, unless raised (:data:`IDLE_TEXT_ENV`):
#: a few seconds at the edge-list reader's pace.
MAX_IDLE_TEXT = 64 * 2**20
#: Environment variable raising (or lowering) :data:`MAX_IDLE_TEXT`, in bytes (``4G`` allowed).
IDLE_TEXT_ENV = "ANONSPREAD_MAX_IDLE_TEXT"
#: Bytes of text a reader accepts for each distinct edge its lines could hold (a line with
#: two ids and a few extra columns is 10-60 bytes).
TEXT_PER_EDGE = 256
_SUFFIX = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}

#: Expected reach by protocol class (keyed by its qualified name; looked up along the MRO).
_REACH: Registry[Callable[[Any, float, float, int], float]] = Registry("expected-reach estimate")


def _class_key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def register_reach(cls: type) -> Callable:
    """Decorator: ``fn(protocol, degree, offspring, T) -> expected infected nodes`` for ``cls``.

    ``degree`` is the mean degree of the source, ``offspring`` the mean number of
    children of any other node (``degree - 1`` on regular trees). Subclasses of ``cls``
    without their own estimate use it.
    """
    if not isinstance(cls, type):
        raise InvalidParameterError(f"cls must be a protocol class; got {cls!r}")

    def deco(fn):
        _REACH.add(_class_key(cls), fn, replace=True)
        return fn

    return deco


def _env_number(name: str, *, suffixes: bool) -> float | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    unit = 1
    if suffixes:  # 64G, 64GB, 64GiB, 512M, 1e10
        text = text.upper().removesuffix("IB").removesuffix("B")
        if text[-1:] in ("K", "M", "G", "T"):
            unit, text = _SUFFIX[text[-1]], text[:-1]
    try:
        value = float(text) * unit
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        what = "bytes (a positive number, K/M/G/T suffixes allowed, e.g. 64G)" if suffixes \
            else "node visits (a positive number, e.g. 1e13)"
        raise InvalidParameterError(
            f"the environment variable {name} must give {what}; got {os.environ[name]!r}")
    return value


def memory_budget() -> int:
    """Bytes a single request may use: :data:`MEMORY_ENV` if set, else half the physical
    memory (8 GiB if unknown)."""
    env = _env_number(MEMORY_ENV, suffixes=True)
    if env is not None:
        return int(env)
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 * 2**30


def work_budget() -> float:
    """Node visits a single request may ask for: :data:`WORK_ENV` if set, else :data:`MAX_WORK`."""
    env = _env_number(WORK_ENV, suffixes=False)
    return float(MAX_WORK) if env is None else env


def idle_text_budget() -> int:
    """Bytes of idle text a reader may read: :data:`IDLE_TEXT_ENV` if set, else :data:`MAX_IDLE_TEXT`."""
    env = _env_number(IDLE_TEXT_ENV, suffixes=True)
    return MAX_IDLE_TEXT if env is None else int(env)


@contextlib.contextmanager
def raised_limits(*, memory: float | str | None = None, work: float | None = None,
                  idle_text: float | str | None = None) -> Iterator[None]:
    """Within the block, allow ``memory`` bytes and ``work`` node visits per request, and
    ``idle_text`` bytes of idle text per read.

    Sets :data:`MEMORY_ENV` / :data:`WORK_ENV` / :data:`IDLE_TEXT_ENV` (so process-pool
    workers started inside inherit them) and restores the previous values on exit.

    Parameters
    ----------
    memory : float or str, optional
        Bytes, or text with a suffix (``"64G"``); None keeps the current limit.
    work : float, optional
        Node visits; None keeps the current limit.
    idle_text : float or str, optional
        Bytes of idle text a reader may read (``"4G"``); None keeps the current limit.

    Yields
    ------
    None

    Examples
    --------
    >>> with raised_limits(work=1e13):
    ...     print(f"{work_budget():.0e}")
    1e+13
    """
    old = {k: os.environ.get(k) for k in (MEMORY_ENV, WORK_ENV, IDLE_TEXT_ENV)}
    try:
        if memory is not None:
            os.environ[MEMORY_ENV] = str(memory)
            memory_budget()  # refuse a bad value here, not at the first check
        if work is not None:
            os.environ[WORK_ENV] = repr(float(work)) if not isinstance(work, str) else work
            work_budget()
        if idle_text is not None:
            os.environ[IDLE_TEXT_ENV] = str(idle_text)
            idle_text_budget()
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_HOW_MEMORY = f"raise it with {MEMORY_ENV}, e.g. {MEMORY_ENV}=64G"
_HOW_WORK = f"split the work into batches or raise the limit with {WORK_ENV}, e.g. {WORK_ENV}=1e13"


def check_size(name: str, value: Any, *, nbytes: float = 0.0, work: float = 0.0, what: str = "") -> None:
    """Refuse a request needing more than :func:`memory_budget` bytes or :func:`work_budget` visits.

    Parameters
    ----------
    name : str
        The parameter that makes the request big (``graph.n``, ``trials``...).
    value : object
        Its value.
    nbytes : float
        Bytes the request needs.
    work : float
        Node visits it needs.
    what : str
        What the estimate counts (``"the graph"``).

    Raises
    ------
    InvalidParameterError
        Naming ``name`` and ``value``, the size needed, the limit and how to raise it.

    Examples
    --------
    >>> check_size("trials", 10**12, work=1e15, what="the trials")
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: trials must be small enough for the trials to finish in reasonable time; got trials=1000000000000: about 1e+15 node visits, more than the 1e+12 allowed (split the work into batches or raise the limit with ANONSPREAD_MAX_WORK, e.g. ANONSPREAD_MAX_WORK=1e13)
    """
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    budget = memory_budget()
    if nbytes > budget or math.isnan(nbytes):
        raise InvalidParameterError(
            f"{name} must be small enough for {what or 'the request'} to fit in memory; got "
            f"{name}={shown}: it needs about {_gib(nbytes)}, more than the {_gib(budget)} "
            f"allowed ({_HOW_MEMORY})"
        )
    limit = work_budget()
    if work > limit or math.isnan(work):
        raise InvalidParameterError(
            f"{name} must be small enough for {what or 'the request'} to finish in reasonable "
            f"time; got {name}={shown}: about {work:.3g} node visits, more than the {limit:.3g} "
            f"allowed ({_HOW_WORK})"
        )


def check_idle_text(name: str, value: Any, *, idle: float, read: float, lines: int, edges: int,
                    nodes: int, total: float | None = None, seconds: float = 0.0) -> None:
    """Stop a read whose idle text exceeds :func:`idle_text_budget` (see the module's docstring).

    Parameters
    ----------
    name : str
        The parameter naming the file (``path``).
    value : object
        Its value.
    idle : float
        Bytes of idle text read so far.
    read : float
        Bytes of text read so far.
    lines : int
        Lines read so far.
    edges : int
        Edge lines among them.
    nodes : int
        Distinct nodes named so far.
    total : float, optional
        Bytes of text the whole file holds (estimated for a compressed file); None: unknown.
    seconds : float
        Time the read has taken so far (for the estimate of the whole).

    Raises
    ------
    InvalidParameterError
        Naming ``name`` and ``value``, what was read, what the whole would take, the limit and
        how to raise it.

    Examples
    --------
    >>> check_idle_text("path", "g.txt", idle=2**30, read=2**30, lines=2**28, edges=2**28, nodes=2)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: path must be an edge list whose lines add edges; got path='g.txt': its first 268,435,456 lines (1 GiB of text) name 2 nodes, so at most 4 distinct edges: 1 GiB of the text is repeated edges, self-loops, comments or blank lines, more than the 64 MiB allowed (remove the repeated lines, e.g. with `sort -u`, or raise the limit with ANONSPREAD_MAX_IDLE_TEXT, e.g. ANONSPREAD_MAX_IDLE_TEXT=2G)
    """
    limit = idle_text_budget()
    if not idle > limit:
        return
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    whole = ""
    if total is not None and total > read and seconds > 0:
        whole = (f"; the whole file holds about {_size(total)} of text, about "
                 f"{total * seconds / read:.3g} s to read at this pace")
    raise InvalidParameterError(
        f"{name} must be an edge list whose lines add edges; got {name}={shown}: its first "
        f"{lines:,} lines ({_size(read)} of text) name {nodes:,} nodes, so at most "
        f"{min(edges, nodes * nodes):,} distinct edges: {_size(idle)} of the text is repeated "
        f"edges, self-loops, comments or blank lines, more than the {_size(limit)} allowed"
        f"{whole} (remove the repeated lines, e.g. with `sort -u`, or raise the limit with "
        f"{IDLE_TEXT_ENV}, e.g. {IDLE_TEXT_ENV}={_size(2 * max(total or 0, read), env=True)})"
    )


def _size(nbytes: float, *, env: bool = False) -> str:
    """``nbytes`` in the largest binary unit that keeps it >= 1 (``64 MiB``; ``64M`` for an env value)."""
    for unit, scale in (("T", 2**40), ("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if nbytes >= scale:
            value = nbytes / scale
            if env:
                return f"{math.ceil(value)}{unit}"
            return f"{value:.3g} {unit}iB"
    return f"{math.ceil(nbytes)}" if env else f"{nbytes:.0f} B"


def ball(degree: float, offspring: float, radius: float) -> float:
    """Nodes within ``radius`` of the root of a tree (root degree, mean offspring); inf on overflow."""
    if radius <= 0:
        return 1.0
    if offspring == 1:
        return 1.0 + degree * radius
    try:
        return 1.0 + degree * (offspring**radius - 1) / (offspring - 1)
    except OverflowError:
        return math.inf


def expected_reach(protocol: Any, degree: float, offspring: float, T: int) -> float | None:
    """Expected infected nodes after ``T`` steps on an infinite tree (None: no estimate).

    Parameters
    ----------
    protocol : Protocol
        A protocol with a registered reach (:func:`register_reach`).
    degree : float
        Mean degree of the source.
    offspring : float
        Mean number of children of any other node (``degree - 1`` on regular trees).
    T : int
        Steps.

    Returns
    -------
    float or None

    Examples
    --------
    Flooding infects the whole ball of radius 4 of the 3-regular tree; adaptive
    diffusion keeps to 10 nodes:

    >>> from anonspread import spread
    >>> protocols = (spread.Flooding(), spread.AdaptiveDiffusion())
    >>> [expected_reach(p, 3, 2, 4) for p in protocols]
    [46.0, 10.0]
    """
    for cls in type(protocol).__mro__:
        fn = _REACH.get(_class_key(cls), None)
        if fn is not None:
            return float(fn(protocol, degree, offspring, T))
    return None


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.3g} GiB"


def check_run_size(graph: Any, protocol: Any, T: int, trials: int = 1, *, per_trial_steps: bool = False) -> None:
    """Refuse a run of ``protocol`` for ``T`` steps (``trials`` times) that cannot fit or finish.

    ``per_trial_steps`` counts ``trials x (T + 1)`` step entries (the sizes table of
    :func:`spread.simulate_many`) instead of ``T + 1``.

    Parameters
    ----------
    graph : ContactGraph or LazyTree
        The contact graph.
    protocol : Protocol
        The protocol.
    T : int
        Steps.
    trials : int
        Runs.
    per_trial_steps : bool
        Count a sizes table of ``trials x (T + 1)`` entries.

    Raises
    ------
    InvalidParameterError
        Naming ``T`` or ``trials``, the size needed and the limit.

    Examples
    --------
    >>> from anonspread import spread
    >>> check_run_size(spread.graphs.regular_tree(3), spread.Flooding(), 60)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: T must be small enough for the spread to fit in memory; got T=60: Flooding() on regular_tree(3) infects about 3.46e+18 nodes...
    """
    budget = memory_budget()
    # a trace keeps ~24 bytes per step (virtual sources, sizes); a batch 8 per trial and step
    step_bytes = 8 * (T + 1) * trials if per_trial_steps else 24 * (T + 1)
    if step_bytes > budget:
        name = "trials" if per_trial_steps and trials > 1 else "T"
        raise InvalidParameterError(
            f"{name} must be small enough for the per-step arrays to fit in memory; got T={T}, "
            f"trials={trials}: they need {_gib(step_bytes)} of the {_gib(budget)} allowed ({_HOW_MEMORY})"
        )
    touched = 0.0
    if not getattr(graph, "is_infinite", False):
        n = graph.number_of_nodes()
        degree = 2.0 * graph.number_of_edges() / max(n, 1)
        reach = expected_reach(protocol, degree, max(degree - 1.0, 0.0), T)
        touched = float(n) if reach is None else min(float(n), reach)
    else:
        degree = _mean_degree(graph)
        reach = expected_reach(protocol, degree, max(degree - 1.0, 0.0), T)
        if reach is not None:
            touched = reach * max(degree, 1.0)
            if touched > MAX_NODES or touched * BYTES_PER_NODE > budget:
                raise InvalidParameterError(
                    f"T must be small enough for the spread to fit in memory; got T={T}: "
                    f"{protocol!r} on {graph!r} infects about {reach:.3g} nodes and touches "
                    f"{touched:.3g} ({_gib(touched * BYTES_PER_NODE)}; at most "
                    f"{min(MAX_NODES, budget // BYTES_PER_NODE):.3g} nodes fit; {_HOW_MEMORY})"
                )
    work = trials * (touched + T + 1)
    limit = work_budget()
    if work > limit:
        name = "trials" if trials > 1 else "T"
        raise InvalidParameterError(
            f"{name} must be small enough to finish in reasonable time; got T={T}, trials={trials}: "
            f"about {work:.3g} node visits (at most {limit:.3g}; {_HOW_WORK})"
        )


def run_work(graph: Any, protocol: Any, T: int) -> float:
    """Node visits of one run of ``protocol`` for ``T`` steps: nodes touched + ``T + 1``.

    The estimate :func:`check_run_size` compares with the limit (inf when it overflows).

    Parameters
    ----------
    graph : ContactGraph or LazyTree
        The contact graph.
    protocol : Protocol
        The protocol.
    T : int
        Steps.

    Returns
    -------
    float
    """
    if getattr(graph, "is_infinite", False):
        degree = _mean_degree(graph)
        reach = expected_reach(protocol, degree, max(degree - 1.0, 0.0), T)
        touched = 0.0 if reach is None else reach * max(degree, 1.0)
    else:
        n = graph.number_of_nodes()
        degree = 2.0 * graph.number_of_edges() / max(n, 1)
        reach = expected_reach(protocol, degree, max(degree - 1.0, 0.0), T)
        touched = float(n) if reach is None else min(float(n), reach)
    return touched + T + 1


def _mean_degree(graph: Any) -> float:
    return float(sum(d * p for d, p in graph.degrees.items()))


_LOOP = 10**5  # longer recurrences are replaced by the ball bound (closed form)


def _register_builtin() -> None:
    from anonspread.spread.protocols import (
        AdaptiveDiffusion,
        Flooding,
        LineProtocol,
        RandomDiffusion,
        TreeProtocol,
        TreeProtocolPseudocode,
    )

    @register_reach(Flooding)
    def _flooding(protocol, degree, offspring, T):
        return ball(degree, offspring, T)  # the ball of radius T, exactly

    @register_reach(AdaptiveDiffusion)
    def _adaptive(protocol, degree, offspring, T):
        return ball(degree, offspring, (T + 1) // 2)  # a ball around the virtual source

    @register_reach(TreeProtocol)
    @register_reach(TreeProtocolPseudocode)
    def _tree(protocol, degree, offspring, T):
        # the prose protocol fills the ball of radius T/2 at even T; the pseudo-code
        # grows as (d-1)^(T/2), inside the same ball
        return ball(degree, offspring, (T + 1) // 2)

    @register_reach(LineProtocol)
    def _line(protocol, degree, offspring, T):
        if offspring <= 1 or T > _LOOP:
            return ball(degree, offspring, T)  # a bound, in closed form
        # along any root path the rule is Protocol 1 on a line, whose far end is uniform on
        # 0..T: a node at distance r is infected with probability (T - r + 1) / (T + 1)
        total, level = 1.0, degree
        for r in range(1, T + 1):
            total += level * (T - r + 1) / (T + 1)
            level *= offspring
            if total > 1e300 or level > 1e300:
                return math.inf
        return total

    @register_reach(RandomDiffusion)
    def _random(protocol, degree, offspring, T):
        # f(t): expected subtree infected by time t below a node infected at time 0, whose
        # child is infected after a Geometric(p) delay: f(t) = p S(t) with
        # S(t) = 1 + offspring f(t - 1) + (1 - p) S(t - 1)
        if offspring <= 1 or T > _LOOP:
            return ball(degree, offspring, T)
        p = protocol.p
        f, S = 0.0, 0.0
        for _ in range(T):
            S = 1.0 + offspring * f + (1.0 - p) * S
            f = p * S
            if f > 1e300:
                return math.inf
        return 1.0 + degree * f


_register_builtin()
