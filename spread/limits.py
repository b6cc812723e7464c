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
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

from anonspread.errors import InvalidParameterError

__all__ = [
    "BYTES_PER_NODE",
    "MAX_NODES",
    "MAX_WORK",
    "check_run_size",
    "expected_reach",
    "memory_budget",
    "register_reach",
]

#: int32 node ids.
MAX_NODES = 2**31 - 1
#: Bytes of store per touched node of a lazily grown tree (its arrays, doubling slack included).
BYTES_PER_NODE = 128
#: Most node visits (trials x nodes touched) a request may ask for.
MAX_WORK = 10**12

_REACH: dict[type, Callable[[Any, float, float, int], float]] = {}


def register_reach(cls: type) -> Callable:
    """Decorator: ``fn(protocol, degree, offspring, T) -> expected infected nodes`` for ``cls``.

    ``degree`` is the mean degree of the source, ``offspring`` the mean number of
    children of any other node (``degree - 1`` on regular trees).
    """

    def deco(fn):
        _REACH[cls] = fn
        return fn

    return deco


def memory_budget() -> int:
    """Bytes a single request may use: half the physical memory (8 GiB if unknown)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 * 2**30


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
    """Expected infected nodes after ``T`` steps on an infinite tree (None: no estimate)."""
    for cls in type(protocol).__mro__:
        if cls in _REACH:
            return float(_REACH[cls](protocol, degree, offspring, T))
    return None


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.3g} GiB"


def check_run_size(graph: Any, protocol: Any, T: int, trials: int = 1, *, per_trial_steps: bool = False) -> None:
    """Refuse a run of ``protocol`` for ``T`` steps (``trials`` times) that cannot fit or finish.

    ``per_trial_steps`` counts ``trials x (T + 1)`` step entries (the sizes table of
    :func:`spread.simulate_many`) instead of ``T + 1``.

    Raises
    ------
    InvalidParameterError
        Naming ``T`` or ``trials``, the size needed and the limit.
    """
    budget = memory_budget()
    # a trace keeps ~24 bytes per step (virtual sources, sizes); a batch 8 per trial and step
    step_bytes = 8 * (T + 1) * trials if per_trial_steps else 24 * (T + 1)
    if step_bytes > budget:
        name = "trials" if per_trial_steps and trials > 1 else "T"
        raise InvalidParameterError(
            f"{name} must be small enough for the per-step arrays to fit in memory; got T={T}, "
            f"trials={trials}: they need {_gib(step_bytes)} of the {_gib(budget)} allowed"
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
                    f"{min(MAX_NODES, budget // BYTES_PER_NODE):.3g} nodes fit)"
                )
    work = trials * (touched + T + 1)
    if work > MAX_WORK:
        name = "trials" if trials > 1 else "T"
        raise InvalidParameterError(
            f"{name} must be small enough to finish in reasonable time; got T={T}, trials={trials}: "
            f"about {work:.3g} node visits (at most {MAX_WORK:.0e}; split the work into batches)"
        )


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
