"""Belief propagation: the single-source posterior of a random-diffusion or flooding snapshot.

Random diffusion with probability ``p`` (flooding is ``p = 1``) is discrete-time SI
spreading: every edge ``k -> i`` carries a delay ``s_ki ~ Geometric(p)`` on ``{1, 2, ...}``,
``t_source = 0`` and ``t_i = min_k (t_k + s_ki)`` (a node infected at step ``t`` transmits
from step ``t + 1``); the snapshot says ``t_i <= T`` for the infected nodes and
``t_u > T`` for the others (:mod:`anonspread.engine.bp`). Belief propagation over the
infection times (Altarelli, Braunstein, Dall'Asta, Lage-Castellanos, Zecchina, PRL 112,
118701, 2014) computes ``P(snapshot | s)``:

* **tree** (the infected subgraph is a tree): exactly, for every source at once, by the
  messages of the no-source sub-trees in two passes, ``O(sum_i deg_i * (T + 1))``;
* **flooding** (``p = 1``, any graph): exactly (deterministic: 1 or 0, a BFS per node);
* **bethe** (cycles, ``p < 1``): for each candidate source (nodes within ``T`` hops of every
  infected node; the others are impossible), BP with that source clamped, damped, swept
  until the largest message change is below ``tol`` (``converged``) or ``max_iter``
  sweeps, and its Bethe free energy ``log Z = sum_i log Z_i - sum_(ij) log Z_ij``:
  ``O(candidates * sweeps * sum_i deg_i * (T + 1))``, quadratic in the snapshot;
* **prior** (any graph, ``p < 1``): ONE damped BP run with independent sources, each
  feasible node (within ``T`` hops of every infected node: the only possible single sources)
  a source with prior ``gamma`` (the model of Altarelli et al. 2014 and of bpepi, its sources
  restricted to where the snapshot allows one), and the posterior
  ``P(s | snapshot) ∝ P(t_s = 0 | snapshot)`` (that run's source marginals, normalised over
  the feasible nodes): ``O(sweeps * sum_i deg_i * (T + 1))``, linear in the snapshot.
  Exact only as ``gamma -> 0`` on trees (auto never uses it there); on graphs with cycles a coarse approximation of the single-source posterior (its distance to the exact posterior is in ``docs/adversaries.md``);
* **auto** (the default): ``flooding`` when ``p = 1``, ``tree`` when the infected subgraph
  is a tree, ``bethe`` while ``candidates * 2|E| * (T + 1)`` is at most ``bethe_budget``,
  else ``prior``. :attr:`BPResult.method` says which ran.
* **feasible**: when ``bethe`` or ``prior`` would run, ``T`` is known and exactly one node
  is within ``T`` hops of every infected node (the true source always is), the posterior is
  1 on that node, exactly, without a BP run (:attr:`BPResult.method` ``"feasible"``). The
  feasible nodes are found by the Jordan certification's eccentricity bounds with ``T`` as
  the threshold (``O(B m)``, issue 32). Dense random-diffusion snapshots of a small-world
  graph whose spread has reached distance ``T`` are often of this kind (10^5 infected of a
  10^7-edge power-law graph at T = 4: 78 s of BP before, a fraction of a second now).

Why ``bethe`` runs once per candidate on graphs with cycles: the alternative, messages carrying the
order-0 and order-1 terms of a vanishing source prior (no source / one source behind the
edge), is exact on trees but collapses on cycles: BP's computation tree on a cycle is
infinite, an infinite sub-tree with no source cannot be infected within ``T`` steps, so the
order-0 messages die after ``T`` sweeps and every posterior with them. Clamping the source
keeps a source in every copy of the candidate in the computation tree. The ``prior``
method avoids the collapse differently: with a finite ``gamma`` every node of the
computation tree may be a source, so the messages never die; the price is a posterior of
a model with several possible sources (see :data:`PRIOR_GAMMA` for the default).

The posterior over sources is ``P(s | snapshot) ∝ P(snapshot | s)`` (uniform prior over the
infected nodes), or, with ``T`` unknown, ``∝ sum_T prior(T) P(snapshot | s, T)``.

Convergence (``bethe``, ``prior``): each run follows a schedule of attempts (damping, stall
window), each from fresh messages, until one converges: an attempt is swept until its
largest message change is below ``tol`` (converged), ``max_iter`` sweeps, or a stall (the
change has not halved in the window's sweeps: a drifting or oscillating run, see
``docs/adversaries.md``). Defaults (:data:`SCHEDULES`): ``prior`` undamped with a window of
10 (fast where it converges), then damping 0.3 and 0.6 with a window of 50; ``bethe``
damping 0.3 then 0.6, no window. What is left unconverged is counted, flagged and warned
about.

Sweep order: the sweeps visit the infected nodes in the contact graph's node order, never in
the order the snapshot lists them (a spread's snapshot lists them in infection order, source
first: what the adversary does not see). Where BP converges the order changes the posterior
by less than ``tol`` allows (measured: at most 9e-10 on the three-block snapshots); where it
does not, the last sweep's posterior depends on the order, and it must not depend on the
spread's history. It also makes the answer a function of the snapshot's content alone.

Reuse (``cache=True``, the default): a ``bethe`` or ``prior`` computation is kept in a bounded
least-recently-used store (:data:`BP_CACHE_SIZE` entries, :data:`BP_CACHE_BYTES`) keyed by
every input it reads (the infected subgraph in that order, the uninfected contacts, ``p``,
the times, the method and its options), and an equal snapshot reuses it: the same numbers,
bit for bit, and the same warning. In a sweep the spreads that saturate give equal snapshots
(every node infected): 174 and 42 of 200 spreads at T = 8 and 6 on the 498-node
three-block graph (``docs/adversaries.md``, "Sweep order and reuse of equal snapshots").
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.adversaries.observation import Snapshot
from anonspread.adversaries.registry import register_estimator
from anonspread.adversaries.scores import Scores
from anonspread.engine import bp as _bp
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.limits import check_size
from anonspread.spread.protocols import Flooding, Protocol, RandomDiffusion
from anonspread.validation import check_int, check_real

__all__ = ["BETHE_BUDGET", "BP_CACHE_BYTES", "BP_CACHE_SIZE", "BP_METHODS", "BP_PROTOCOLS",
           "PRIOR_GAMMA", "SCHEDULES", "BPConvergenceWarning", "BPDetection", "BPResult", "bp",
           "bp_cache_clear", "bp_cache_info", "bp_detection", "bp_posterior"]

#: The protocols whose snapshots BP's model describes exactly (discrete-time SI).
BP_PROTOCOLS = ("flooding", "random-diffusion")
#: Default ceiling on ``candidates * 2|E| * (T + 1)`` (one sweep of every candidate's BP)
#: for the Bethe method; larger snapshots are refused up front.
MAX_WORK = 2_000_000_000
#: The ``method`` values of :func:`bp_posterior`.
BP_METHODS = ("auto", "tree", "flooding", "bethe", "prior")
#: Default ``bethe_budget`` of ``method="auto"``: the largest ``candidates * 2|E| * (T + 1)``
#: (elements of one sweep over every candidate's messages) for which it runs ``bethe``
#: (about 0.05 s per sweep on one core, a few seconds per snapshot); above it, ``prior``.
BETHE_BUDGET = 250_000
#: Default schedules of :func:`bp_posterior` (``damping=None``), ``(method, attempts)`` pairs
#: (a tuple, so that no module state can change them): attempts
#: ``(damping, stall)``, each from fresh messages, until one converges; ``stall`` > 0 stops an
#: attempt whose largest change has not halved in that many sweeps (0: never). ``prior``:
#: first undamped (where it converges, in about half the sweeps of damping 0.3 on the
#: three-block snapshots; abandoned after 10 sweeps without halving), then 0.3 and 0.6
#: (abandoned after 50: a drifting run, which no damping fixes). ``bethe``: 0.3 then 0.6 and
#: no stall rule (its clamped runs on dense snapshots can wander longer than 50 sweeps and
#: then converge). Measured: ``docs/adversaries.md``, "Convergence on dense loopy snapshots".
SCHEDULES = (("prior", ((0.0, 10), (0.3, 50), (0.6, 50))),
             ("bethe", ((0.3, 0), (0.6, 0))))
#: Default source prior ``gamma`` of the ``prior`` method. On trees the posterior tends to
#: the exact single-source one as ``gamma -> 0``; on graphs with cycles a small ``gamma``
#: is worse, not better: the source-less parts of BP's computation tree can only be
#: explained by a source far away, impossible sources keep weight and the sweeps grow
#: (on 3-regular graphs of 12 and 16 nodes, T = 3-4, p = 0.5, the mean total-variation
#: distance to the exact posterior was 0.14-0.34 at gamma = 1e-2..1e-4, 0.10-0.18 at 0.03,
#: 0.11-0.23 at 0.1; ``docs/adversaries.md``).
PRIOR_GAMMA = 0.03
#: Most BP computations (``bethe``, ``prior``) :func:`bp_posterior` keeps for reuse, the
#: least recently used forgotten first (:func:`bp_cache_info`). A snapshot equal to an
#: earlier one (the same infected subgraph in the same local order, the same uninfected
#: contacts per node) with the same ``p``, times and options has the same posterior: BP
#: is deterministic and reads nothing else (and sweeps in the graph's node order, so the
#: snapshot's listing order does not matter). In a sweep this is common where spreads
#: saturate: every spread that infected the whole graph gives the same snapshot (174 of
#: 200 spreads on the 498-node three-block graph at T = 8, 42 at T = 6).
BP_CACHE_SIZE = 32
#: Most bytes the reuse cache holds (keys and stored likelihoods); a computation larger
#: than this alone is not kept.
BP_CACHE_BYTES = 32_000_000

_CACHE: OrderedDict = OrderedDict()
_CACHE_BYTES = [0]
_LOCK = threading.Lock()
_STATS = {"hits": 0, "misses": 0}


def bp_cache_info() -> dict[str, int]:
    """The reuse cache of :func:`bp_posterior`: ``hits`` (computations reused), ``misses``
    (computed and kept), ``size`` (entries), ``maxsize`` (:data:`BP_CACHE_SIZE`) and
    ``bytes``.

    Examples
    --------
    >>> from anonspread import adversaries
    >>> sorted(adversaries.bp_cache_info())
    ['bytes', 'hits', 'maxsize', 'misses', 'size']
    """
    with _LOCK:
        return {**_STATS, "size": len(_CACHE), "maxsize": BP_CACHE_SIZE,
                "bytes": _CACHE_BYTES[0]}


def bp_cache_clear() -> None:
    """Forget every computation kept by :func:`bp_posterior` and reset the counts of
    :func:`bp_cache_info`.

    Examples
    --------
    >>> from anonspread import adversaries
    >>> adversaries.bp_cache_clear()
    >>> adversaries.bp_cache_info()["size"]
    0
    """
    with _LOCK:
        _CACHE.clear()
        _CACHE_BYTES[0] = 0
        _STATS.update(hits=0, misses=0)


def _cache_get(key: tuple) -> tuple | None:
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is None:
            return None
        _CACHE.move_to_end(key)
        _STATS["hits"] += 1
        return hit[0]


def _cache_put(key: tuple, value: tuple) -> None:
    size = sum(len(k) for k in key if isinstance(k, bytes)) + value[0].nbytes + 200
    if size > BP_CACHE_BYTES or BP_CACHE_SIZE < 1:
        return
    with _LOCK:
        _STATS["misses"] += 1
        if key in _CACHE:
            return
        _CACHE[key] = (value, size)
        _CACHE_BYTES[0] += size
        while len(_CACHE) > BP_CACHE_SIZE or _CACHE_BYTES[0] > BP_CACHE_BYTES:
            _, (_, sz) = _CACHE.popitem(last=False)
            _CACHE_BYTES[0] -= sz


class BPConvergenceWarning(UserWarning):
    """Some BP run did not converge at any attempt of its schedule (within ``max_iter``
    sweeps, or it stalled; its ``log Z`` is that of the last sweep of its last attempt):
    :attr:`BPResult.converged` is False.

    Examples
    --------
    >>> from anonspread import adversaries
    >>> issubclass(adversaries.BPConvergenceWarning, UserWarning)
    True
    """


@dataclass(frozen=True)
class BPResult:
    """What :func:`bp_posterior` computed.

    Parameters
    ----------
    scores : Scores
        ``log P(s | snapshot)`` of every infected node (uniform prior; a log-likelihood up
        to the constant ``log P(snapshot)``), kind ``"log-likelihood"``; ``-inf`` for
        impossible sources.
    posterior : numpy.ndarray
        ``P(s | snapshot)``, in snapshot order (sums to 1).
    log_likelihood : numpy.ndarray
        ``log P(snapshot | s)`` (with ``T`` unknown: ``log sum_T prior(T) P(snapshot | s, T)``);
        for ``prior``, ``log P(snapshot, s a source)`` in the independent-source model
        (Bethe ``log Z`` plus the log source marginal; a constant apart from the
        single-source likelihood only in the ``gamma -> 0`` limit on trees); for
        ``feasible``, NaN at the one feasible source (not computed) and ``-inf`` elsewhere.
    method : {"tree", "flooding", "bethe", "prior", "feasible"}
        How it was computed (see the module docstring; ``method="auto"`` resolves to one
        of the first four). ``"feasible"``: ``bethe`` or ``prior`` was asked for (or
        chosen by ``auto``), ``T`` is known and exactly one node is within ``T`` hops of
        every infected node; every other node has likelihood 0, so the posterior is 1 on it,
        exactly, and no BP run is made.
    exact : bool
        ``method`` is ``"tree"``, ``"flooding"`` or ``"feasible"`` (the posterior is the
        exact one).
    converged : bool
        Every BP run's largest message change fell below ``tol`` at some attempt of its
        schedule (always True when exact; for ``prior``: its one run per ``T``).
    iterations : int
        Most sweeps of any run, summed over its attempts (0 when no sweeps were needed).
    max_change : float
        Largest last-sweep message change over the runs' reported (last) attempts (0.0
        when exact).
    unconverged : int
        BP runs that did not converge at any attempt (summed over the ``T`` values; for
        ``bethe`` one run per candidate, for ``prior`` one run per ``T``).
    candidates : int
        Candidate sources scored, summed over ``T``: ``bethe``, the candidates run (within
        ``T`` hops of every infected node); ``prior``, the feasible nodes (the same);
        ``tree`` and ``flooding``, the sources of finite likelihood.
    T : numpy.ndarray of int
        The times considered.
    T_posterior : numpy.ndarray
        ``P(T | snapshot)`` over :attr:`T`.
    damping : float
        Largest damping at which a reported run was computed (0.0 when every run converged
        undamped, or the posterior is exact).
    stalled : int
        Of :attr:`unconverged`, the runs whose last attempt was stopped early by its stall
        window (its change had stopped halving), not by ``max_iter``.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5], T=2)
    >>> res = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    >>> res.method, res.exact, res.posterior.round(4).tolist()
    ('tree', True, [0.0, 0.5, 0.5, 0.0])
    """

    scores: Scores
    posterior: np.ndarray
    log_likelihood: np.ndarray
    method: str
    exact: bool
    converged: bool
    iterations: int
    max_change: float
    unconverged: int
    candidates: int
    T: np.ndarray
    T_posterior: np.ndarray
    damping: float = 0.0
    stalled: int = 0

    @property
    def predicted_detection(self) -> float:
        """``max_s P(s | snapshot)``: the probability that the MAP source is the true one,
        as the model sees this snapshot (its mean over snapshots drawn from the model is the
        Bayes detection probability when the posterior is exact)."""
        return float(self.posterior.max())

    def __repr__(self) -> str:
        # one line: the key figures (the posterior and likelihood arrays are the fields)
        top = f"{self.predicted_detection:.4g}" if self.posterior.size else "nan"
        state = "exact" if self.exact else "converged" if self.converged else "not converged"
        return (f"BPResult(method={self.method!r}, candidates={self.candidates}, {state}, "
                f"iterations={self.iterations}, max posterior={top})")


def _check_protocol(protocol: Any) -> float:
    if isinstance(protocol, RandomDiffusion):
        return float(protocol.p)
    if isinstance(protocol, Flooding):
        return 1.0
    if isinstance(protocol, Protocol):
        raise InvalidParameterError(
            f"protocol must be one BP models ({', '.join(BP_PROTOCOLS)}: discrete-time SI "
            f"spreading); got {protocol!r}")
    raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")


def _check_T_prior(T_prior: Any, snapshot: Snapshot) -> tuple[np.ndarray, np.ndarray]:
    if T_prior is None:
        return np.array([snapshot.T], np.int64), np.zeros(1)
    if isinstance(T_prior, Mapping):
        items = list(T_prior.items())
    elif isinstance(T_prior, (Sequence, np.ndarray)) and not isinstance(T_prior, (str, bytes)):
        items = [(t, 1.0) for t in T_prior]
    else:
        raise InvalidTypeError("T_prior must be None, a mapping {T: prior weight} or a sequence "
                               f"of T values (uniform prior); got {T_prior!r}")
    if not items:
        raise InvalidParameterError("T_prior must name at least one T; got an empty one")
    ts = np.array([check_int(t, "T in T_prior", low=0) for t, _ in items], np.int64)
    if np.unique(ts).shape[0] != ts.shape[0]:
        raise InvalidParameterError(f"T_prior must name each T once; got {ts.tolist()}")
    w = np.array([check_real(x, "T_prior weight", low=0.0) for _, x in items], np.float64)
    if not w.sum() > 0:
        raise InvalidParameterError(f"T_prior must have a positive total weight; got {w.tolist()}")
    with np.errstate(divide="ignore"):
        return ts, np.log(w / w.sum())


def _check_damping(damping: Any) -> tuple[tuple[float, int | None], ...] | None:
    """None, or the schedule as ``(damping, stall or None)`` pairs."""
    if damping is None:
        return None
    if isinstance(damping, (Sequence, np.ndarray)) and not isinstance(damping, (str, bytes)):
        ds = tuple(damping)
        if not ds:
            raise InvalidParameterError("damping must be None, a float in [0, 1) or a non-empty "
                                        "sequence of them or of (damping, stall) pairs; got an "
                                        "empty sequence")
    else:
        ds = (damping,)
    out = []
    for d in ds:
        st = None
        if isinstance(d, tuple):
            if len(d) != 2:
                raise InvalidParameterError(f"damping's pairs must be (damping, stall); got {d!r}")
            d, st = d
            st = check_int(st, "stall in damping", low=0)
        d = check_real(d, "damping", low=0.0, high=1.0)
        if d >= 1.0:
            raise InvalidParameterError(f"damping must be in [0, 1); got {d!r}")
        out.append((d, st))
    return tuple(out)


def _canonical_order(snapshot: Snapshot) -> np.ndarray | None:
    """The permutation that lists the snapshot's nodes by their index in the contact graph
    (None when they already are): BP sweeps the nodes in this order, which depends on the
    infected set only, never on the order the snapshot lists them in (a spread's snapshot
    lists them in infection order, source first: what the adversary does not see)."""
    perm = np.argsort(snapshot.index, kind="stable")
    if np.array_equal(perm, np.arange(perm.shape[0])):
        return None
    return perm


def _relabel(indptr: np.ndarray, indices: np.ndarray, extra: np.ndarray,
             perm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The infected subgraph with node ``perm[k]`` renamed ``k``, each row's neighbours in
    increasing order."""
    n = perm.shape[0]
    inv = np.empty(n, np.int64)
    inv[perm] = np.arange(n)
    deg = np.diff(indptr)[perm]
    ip = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=ip[1:])
    pos = np.repeat(indptr[:-1][perm] - ip[:-1], deg) + np.arange(ip[-1])
    nbr = inv[indices[pos]]
    row = np.repeat(np.arange(n), deg)
    order = np.lexsort((nbr, row))
    return ip, np.ascontiguousarray(nbr[order], np.int32), np.ascontiguousarray(extra[perm])


def _logsumexp(a: np.ndarray, axis: int | None = None) -> np.ndarray:
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if axis is not None else out.reshape(())


def bp_posterior(snapshot: Snapshot, protocol: Protocol, *, T_prior: Any = None,
                 method: str = "auto", damping: Any = None, tol: float = 1e-9,
                 max_iter: int = 200, threads: int = 1, max_work: int = MAX_WORK,
                 bethe_budget: int = BETHE_BUDGET, gamma: float = PRIOR_GAMMA,
                 stall: int | None = None, cache: bool = True) -> BPResult:
    """The posterior over sources of a random-diffusion or flooding snapshot, by BP.

    With the uniform prior over the infected nodes, ``P(s | S) = P(S | s) / sum_v P(S | v)``
    where ``P(S | s)`` sums over every infection-time history from ``s`` that leaves
    exactly ``S`` infected at ``T`` (see the module docstring for the model and the
    methods). Exact when the infected subgraph is a tree or ``p = 1``; on graphs with
    cycles the Bethe approximation of each candidate's likelihood (``bethe``, quadratic in
    the snapshot) or one BP run with a small independent source prior on the feasible
    sources (``prior``, linear), with its convergence reported (a run that did not converge
    at any attempt of its schedule sets ``converged=False`` and warns with
    :class:`BPConvergenceWarning`).

    Parameters
    ----------
    snapshot : Snapshot
        The infected set at time ``snapshot.T`` (its uninfected contacts matter: each
        escaped every infected neighbour's attempts).
    protocol : RandomDiffusion or Flooding
    T_prior : None, mapping {T: weight} or sequence of T
        None: ``T = snapshot.T`` is known. Otherwise ``T`` is unknown with this prior
        (a sequence: uniform over it) and the posterior over sources is marginalised over
        it (``snapshot.T`` is then ignored).
    method : {"auto", "tree", "flooding", "bethe", "prior"}
        ``auto``: ``flooding`` when ``p = 1``, else ``tree`` when the infected subgraph is a
        tree, else ``bethe`` when ``candidates * 2|E| * (T + 1) <= bethe_budget``, else
        ``prior``. ``tree`` needs a tree-shaped infected subgraph, ``flooding`` needs
        ``p = 1``, ``prior`` needs ``p < 1``; ``bethe`` runs on any snapshot with ``p < 1``.
        Where ``bethe`` or ``prior`` would run with ``T`` known and one feasible source, the
        exact point mass on it is returned instead (:attr:`BPResult.method` ``"feasible"``).
    damping : None, float in [0, 1), or a sequence of floats or (damping, stall) pairs
        Weight of the old message in each BP update (``bethe``, ``prior``). A sequence is a
        schedule: a run that does not converge (or stalls) is redone from fresh messages
        with the next item. None: the method's default schedule (:data:`SCHEDULES`:
        ``prior`` undamped, abandoned after 10 sweeps without halving its change, then 0.3
        and 0.6 with a window of 50; ``bethe`` 0.3 then 0.6).
    tol : float > 0
        Convergence threshold on the largest change of a message entry (messages scaled
        to maximum 1) in one sweep.
    max_iter : int >= 1
        Most sweeps per candidate.
    threads : int >= 1
        OpenMP threads sharing the candidates (same result for any number).
    max_work : int >= 1
        Refuse ``method="bethe"`` when ``candidates * 2|E| * (T + 1)`` (elements of one sweep
        over every candidate's messages) exceeds it.
    bethe_budget : int >= 0
        ``method="auto"`` runs ``bethe`` up to this ``candidates * 2|E| * (T + 1)``, above
        it ``prior``.
    gamma : float in (0, 1)
        Source prior of each feasible node for ``method="prior"``.
    stall : int >= 0 or None
        Stop an attempt, unconverged, when its largest message change has not halved in
        this many sweeps (0: never, run to ``tol`` or ``max_iter``), for every attempt of
        the schedule. None (the default): each attempt's own window (a bare float in
        ``damping``: 0).
    cache : bool, default True
        Reuse the computation of an equal earlier snapshot (``bethe``, ``prior``; the same
        infected subgraph, uninfected contacts, ``p``, times and options: the same
        numbers, bit for bit, and the same warning) and keep this one for reuse
        (:data:`BP_CACHE_SIZE`, :func:`bp_cache_info`). False: compute afresh, keep nothing.

    Returns
    -------
    BPResult

    Raises
    ------
    InvalidParameterError
        A protocol BP does not model, bad options, a method that does not apply to the
        snapshot, a snapshot too large for ``max_work``.
    GraphError
        A snapshot impossible under ``protocol`` from every source (at every ``T``).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> g = nx.cycle_graph(5)
    >>> g.add_edges_from([(0, 5), (5, 6)])
    >>> snap = adversaries.Snapshot(g, [0, 1, 2, 3, 4, 5], T=2)
    >>> res = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5))
    >>> res.method, res.converged, res.posterior.round(3).tolist()
    ('bethe', True, [0.333, 0.333, 0.0, 0.0, 0.333, 0.0])
    >>> res = adversaries.bp_posterior(snap, spread.RandomDiffusion(0.5), method="prior")
    >>> res.method, res.converged, res.posterior.round(3).tolist()
    ('prior', True, [0.304, 0.348, 0.0, 0.0, 0.348, 0.0])
    """
    if not isinstance(snapshot, Snapshot):
        raise InvalidTypeError(f"snapshot must be an adversaries.Snapshot; got {snapshot!r}")
    p = _check_protocol(protocol)
    ts, logprior = _check_T_prior(T_prior, snapshot)
    sched = _check_damping(damping)
    if stall is not None:
        stall = check_int(stall, "stall", low=0)
    tol = check_real(tol, "tol", low=0.0, low_open=True)
    max_iter = check_int(max_iter, "max_iter", low=1)
    threads = check_int(threads, "threads", low=1)
    max_work = check_int(max_work, "max_work", low=1)
    bethe_budget = check_int(bethe_budget, "bethe_budget", low=0)
    gamma = check_real(gamma, "gamma", low=0.0, high=1.0, low_open=True, high_open=True)
    if not isinstance(method, str) or method not in BP_METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(BP_METHODS)}; got {method!r}")
    if not isinstance(cache, (bool, np.bool_)):
        raise InvalidTypeError(f"cache must be a bool; got {cache!r}")
    indptr, indices = snapshot.subgraph()
    indptr = np.ascontiguousarray(indptr, np.int64)
    indices = np.ascontiguousarray(indices, np.int32)
    extra = snapshot.contact_degrees() - np.diff(indptr)
    n = snapshot.n
    # sweep in the graph's node order (the module docstring, "Sweep order")
    perm = _canonical_order(snapshot)
    if perm is not None:
        indptr, indices, extra = _relabel(indptr, indices, extra, perm)
    tree = snapshot.subgraph_is_tree()
    work = n * indices.shape[0] * (int(ts.max()) + 1)
    if method == "auto":
        if p == 1.0:
            method = "flooding"
        elif tree:
            method = "tree"
        else:
            method = "bethe" if work <= bethe_budget else "prior"
    elif method == "flooding" and p != 1.0:
        raise InvalidParameterError(f"method='flooding' needs p = 1 (Flooding); got p = {p}")
    elif method == "tree" and not tree:
        raise InvalidParameterError("method='tree' needs a tree-shaped infected subgraph; this "
                                    "one has cycles (use 'bethe', 'prior' or 'auto')")
    elif method in ("bethe", "prior") and p == 1.0:
        raise InvalidParameterError(f"method={method!r} needs p < 1 (at p = 1 the sweeps can "
                                    "cycle); use 'flooding' or 'auto'")
    default = dict(SCHEDULES).get(method)
    if default is not None:
        # the attempts: (damping, stall window)
        sched = default if sched is None else sched
        sched = tuple((d, stall if stall is not None else (0 if st is None else st))
                      for d, st in sched)
    feasible_at = {}
    if method in ("prior", "bethe") and ts.shape[0] == 1:
        # one feasible source (within T hops of every infected node): every other node has
        # likelihood 0, so the posterior is a point mass on it whatever BP would compute;
        # no message is allocated (dense snapshots of a small-world graph, issue 32)
        feasible_at[int(ts[0])] = feasible = _bp.feasible_sources(indptr, indices, int(ts[0]))
        if int(np.count_nonzero(feasible)) == 1:
            return _one_feasible(snapshot, feasible, perm, ts)
    if method in ("prior", "bethe"):
        # the messages are what a large snapshot exhausts first (10.4 GB at 2.35x10^6
        # infected, T = 8): refused before anything is allocated (benchmarks/README.md)
        nnz, L = int(indices.shape[0]), int(ts.max()) + 1
        check_size("snapshot.n", n, nbytes=_bp.message_bytes(
            "run" if method == "prior" else "clamped", n, nnz, L - 1, threads),
            what=(f"BP's messages ({method}: 2 x {nnz:,} arcs x {L} times"
                  + (f" per thread, {threads} threads" if method == "bethe" else "")
                  + ", 8 bytes each)"))
    if method == "bethe":
        if work > max_work:
            raise InvalidParameterError(
                f"max_work must be at least candidates x 2|E| x (T + 1) = {n} x "
                f"{indices.shape[0]} x {int(ts.max()) + 1} = {work} for BP on this snapshot "
                f"(its infected subgraph has cycles: one BP run per candidate); got {max_work}")
    key = None
    if cache and method in ("bethe", "prior") \
            and indptr.nbytes + indices.nbytes + 8 * n * (1 + ts.shape[0]) <= BP_CACHE_BYTES:
        # (a computation too large to keep builds no key)
        # every input of the computation below (threads and max_work change no number)
        key = (method, p, tol, max_iter, gamma, sched, ts.tobytes(), logprior.tobytes(),
               indptr.tobytes(), indices.tobytes(), np.ascontiguousarray(extra, np.int64).tobytes())
        kept = _cache_get(key)
    else:
        kept = None
    if kept is not None:
        logl, (sweeps, change, unconverged, stalled, used, ran) = kept[0].copy(), kept[1]
        todo = []
    else:
        logl = np.full((ts.shape[0], n), -np.inf)
        sweeps = 0
        change = 0.0
        unconverged = 0
        stalled = 0
        used = 0.0
        ran = 0
        todo = ts.tolist()
    for r, T in enumerate(todo):
        if method == "flooding":
            logl[r] = _bp.flood_log_likelihood(indptr, indices, extra, T)
        elif method == "tree":
            logl[r] = _bp.tree_log_likelihood(indptr, indices, extra, T, p)
        elif method == "prior":
            feasible = feasible_at.get(T)
            if feasible is None:
                feasible = _bp.feasible_sources(indptr, indices, T)
            if not feasible.any():
                continue  # no single source reaches every infected node by T
            # sources only where one can be: every other node is within T hops of one, so
            # the messages never die (module docstring), and impossible sources get no mass
            g = np.where(feasible, gamma, 0.0)
            total = 0
            for d, st in sched:
                run = _bp.bp_run(indptr, indices, extra, T, p, g, damping=d, tol=tol,
                                 max_iter=max_iter, stall=st)
                total += run.sweeps
                if run.converged:
                    break
            used = max(used, d)
            # log P(S | T) + log P(t_s = 0 | S, T): the joint weight of (T, s) in the
            # independent-source model, so a T prior mixes as for the other methods
            logl[r] = run.log_z + run.log_source if np.isfinite(run.log_z) else -np.inf
            sweeps = max(sweeps, total)
            change = max(change, run.change)
            unconverged += not run.converged
            stalled += (not run.converged) and run.sweeps < max_iter
            ran += int(feasible.sum())
        else:
            cands = np.arange(n, dtype=np.int64)
            lz = np.full(n, -np.inf)
            it = np.zeros(n, np.int64)
            lastit = np.zeros(n, np.int64)
            ch = np.zeros(n)
            todo = cands
            for k, (d, st) in enumerate(sched):
                lz2, it2, ch2 = _bp.clamped_log_likelihood(indptr, indices, extra, T, p, todo,
                                                           damping=d, tol=tol,
                                                           max_iter=max_iter, threads=threads,
                                                           stall=st)
                lz[todo] = lz2
                it[todo] += it2
                lastit[todo] = it2
                ch[todo] = ch2
                if todo.shape[0]:
                    used = max(used, d)
                if k == 0:
                    live = np.isfinite(lz) | (it > 0)
                todo = todo[(ch2 >= tol) & (np.isfinite(lz2) | (it2 > 0))]
                if not todo.shape[0]:
                    break
            ran += int(live.sum())
            logl[r] = lz
            if it.shape[0]:
                sweeps = max(sweeps, int(it.max()))
                change = max(change, float(ch[live].max()) if live.any() else 0.0)
            bad = (ch >= tol) & live
            unconverged += int(bad.sum())
            stalled += int((bad & (lastit < max_iter)).sum())
    if method in ("tree", "flooding"):
        ran = int(np.isfinite(logl).sum())
    if key is not None and kept is None:
        _cache_put(key, (logl.copy(), (sweeps, change, unconverged, stalled, used, ran)))
    if perm is not None:
        # back to the snapshot's order: canonical node k is the snapshot's node perm[k]
        back = np.empty_like(logl)
        back[:, perm] = logl
        logl = back
    joint = logl + logprior[:, None]
    marg = _logsumexp(joint, axis=0).ravel()
    total = float(_logsumexp(marg))
    if not np.isfinite(total):
        raise GraphError(
            f"snapshot must be possible under {protocol!r} from some source (at T in "
            f"{ts.tolist()}); BP gives it probability 0 from every infected node")
    logpost = marg - total
    post = np.exp(logpost)
    post /= post.sum()
    tpost = np.exp(_logsumexp(joint, axis=1).ravel() - total)
    converged = unconverged == 0
    if not converged:
        runs = ran if method == "bethe" else ts.shape[0]
        said = " then ".join(f"{d:g}" + (f" (stall {st})" if st else "") for d, st in sched)
        warnings.warn(BPConvergenceWarning(
            f"bp ({method}): {unconverged} of {runs} BP runs did not converge at damping {said} "
            f"(max_iter={max_iter} sweeps each; {stalled} stopped early by their stall window; "
            f"largest last change {change:.3g} >= tol={tol:g}); the posterior is that of the "
            "last sweep"), stacklevel=2)
    if ts.shape[0] == 1:
        logl_out = logl[0]
    else:
        logl_out = marg
    return BPResult(
        scores=Scores(snapshot.nodes, logpost, "log-likelihood"),
        posterior=post,
        log_likelihood=logl_out,
        method=method,
        exact=method in ("tree", "flooding"),
        converged=converged,
        iterations=sweeps,
        max_change=change,
        unconverged=unconverged,
        candidates=ran,
        T=ts,
        T_posterior=tpost,
        damping=used,
        stalled=stalled,
    )


def _one_feasible(snapshot: Snapshot, feasible: np.ndarray, perm: np.ndarray | None,
                  ts: np.ndarray) -> BPResult:
    """The exact result of a snapshot with one feasible source at its one ``T``: posterior 1
    there, 0 elsewhere (``method="feasible"``); its likelihood is not computed (NaN), every
    other node's is 0 (-inf)."""
    if perm is not None:
        back = np.empty_like(feasible)
        back[perm] = feasible
        feasible = back
    post = feasible.astype(np.float64)
    logpost = np.where(feasible, 0.0, -np.inf)
    return BPResult(
        scores=Scores(snapshot.nodes, logpost, "log-likelihood"),
        posterior=post,
        log_likelihood=np.where(feasible, np.nan, -np.inf),
        method="feasible",
        exact=True,
        converged=True,
        iterations=0,
        max_change=0.0,
        unconverged=0,
        candidates=1,
        T=ts,
        T_posterior=np.ones(1),
    )


def _bp_params(protocol: Protocol, graph: Any) -> dict:
    return {"protocol": protocol}


@register_estimator("bp", protocols=BP_PROTOCOLS, likelihood=True, params=_bp_params)
def bp(snapshot: Snapshot, protocol: Protocol, *, T_prior: Any = None, method: str = "auto",
       damping: Any = None, tol: float = 1e-9, max_iter: int = 200, threads: int = 1,
       max_work: int = MAX_WORK, bethe_budget: int = BETHE_BUDGET,
       gamma: float = PRIOR_GAMMA, stall: int | None = None, cache: bool = True) -> Scores:
    """Belief-propagation source posterior for random diffusion and flooding (Altarelli et al. 2014).

    The scores of :func:`bp_posterior` (same parameters, ``method="auto"`` by default):
    ``log P(s | snapshot)``, exact when the infected subgraph is a tree or ``p = 1``,
    otherwise the Bethe approximation while ``candidates * 2|E| * (T + 1) <= bethe_budget``
    and above it the one-run independent-prior approximation (a run that did not converge
    warns with :class:`BPConvergenceWarning`; call :func:`bp_posterior` for the method
    used and the flags).

    Parameters
    ----------
    snapshot : Snapshot
    protocol : RandomDiffusion or Flooding
    T_prior, method, damping, tol, max_iter, threads, max_work, bethe_budget, gamma, stall, cache
        As :func:`bp_posterior`.

    Returns
    -------
    Scores
        kind ``"log-likelihood"`` (log posterior: the log-likelihood minus a constant).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> snap = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    >>> adversaries.pick(bp(snap, spread.RandomDiffusion(0.5)))
    4
    """
    return bp_posterior(snapshot, protocol, T_prior=T_prior, method=method, damping=damping,
                        tol=tol, max_iter=max_iter, threads=threads, max_work=max_work,
                        bethe_budget=bethe_budget, gamma=gamma, stall=stall,
                        cache=cache).scores


@dataclass(frozen=True)
class BPDetection:
    """BP's realised detection and its own predicted detection on the same spreads.

    Parameters
    ----------
    realised : float
        Mean over the trials of ``1{true source in the MAP set} / |MAP set|`` (ties broken
        uniformly, in expectation).
    realised_se : float
        Its standard error.
    predicted : float
        Mean over the trials of ``max_s P(s | snapshot)``: **BP's predicted detection**, an
        estimate of the Bayes ceiling that is unbiased when BP's posterior is exact (trees,
        flooding) and otherwise only as good as the Bethe posterior; never "the ceiling".
    predicted_se : float
        Its standard error.
    trials : int
    exact : int
        Trials whose posterior was exact (tree-shaped infected subgraph or ``p = 1``).
    unconverged : int
        Trials with a BP run that did not converge (those results are included).

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> d = adversaries.bp_detection(nx.balanced_tree(2, 3), spread.RandomDiffusion(0.5), 3,
    ...                              200, rng=1)
    >>> d.trials, d.exact, round(d.predicted, 3), round(d.realised, 3)
    (200, 200, 0.595, 0.585)
    """

    realised: float
    realised_se: float
    predicted: float
    predicted_se: float
    trials: int
    exact: int
    unconverged: int

    def __repr__(self) -> str:
        return (f"BPDetection(realised={self.realised:.4g} (se {self.realised_se:.2g}), "
                f"predicted={self.predicted:.4g} (se {self.predicted_se:.2g}), trials={self.trials}, "
                f"exact={self.exact}, unconverged={self.unconverged})")


def bp_detection(graph: Any, protocol: Protocol, T: int, trials: int, *, rng: Any = None,
                 **options: Any) -> BPDetection:
    """Simulate ``trials`` spreads from a uniform source, attack each with :func:`bp_posterior`
    and report BP's realised detection beside its predicted detection (mean max posterior).

    Where the exact or Monte Carlo Bayes ceiling (:func:`adversaries.bayes_ceiling`) is out
    of reach, :attr:`BPDetection.predicted` is BP's own estimate of it: exact in expectation
    when every posterior is exact, an estimate otherwise (see ``docs/adversaries.md``,
    "Belief propagation", for its calibration on small graphs).

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
    protocol : RandomDiffusion or Flooding
    T : int >= 0
    trials : int >= 2
    rng : None, int or numpy.random.Generator
    **options
        Passed to :func:`bp_posterior` (``method``, ``damping``, ``tol``, ``max_iter``,
        ``threads``, ``max_work``, ``bethe_budget``, ``gamma``, ``stall``, ``cache``).

    Returns
    -------
    BPDetection

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries, spread
    >>> d = adversaries.bp_detection(nx.cycle_graph(8), spread.RandomDiffusion(0.5), 2, 50, rng=2)
    >>> d.trials, d.unconverged, 0.0 <= d.realised <= 1.0, 0.0 < d.predicted <= 1.0
    (50, 0, True, True)
    """
    from anonspread.adversaries.observation import observe
    from anonspread.spread.simulate import simulate
    from anonspread.validation import check_rng

    _check_protocol(protocol)
    T = check_int(T, "T", low=0)
    trials = check_int(trials, "trials", low=2)
    # each trial is a Python-level simulate() and a BP posterior: at least ~10^4 kernel
    # visits' time (as a Bayes-ceiling Monte Carlo trial counts); refused up front (issue 33)
    check_size("trials", trials, nbytes=16.0 * trials, work=trials * (T + 1 + 10_000.0),
               what="BP's detection trials")
    gen = check_rng(rng)
    hit = np.empty(trials)
    pred = np.empty(trials)
    exact = unconverged = 0
    for i in range(trials):
        sp = simulate(graph, protocol, T, rng=gen)
        snap = observe(sp)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BPConvergenceWarning)
            res = bp_posterior(snap, protocol, **options)
        top = np.flatnonzero(res.posterior >= res.posterior.max() * (1 - 1e-12))
        hit[i] = float(np.isin(snap.position(sp.source), top)) / top.size
        pred[i] = res.predicted_detection
        exact += res.exact
        unconverged += not res.converged
    return BPDetection(
        realised=float(hit.mean()), realised_se=float(hit.std(ddof=1) / np.sqrt(trials)),
        predicted=float(pred.mean()), predicted_se=float(pred.std(ddof=1) / np.sqrt(trials)),
        trials=trials, exact=exact, unconverged=unconverged,
    )
