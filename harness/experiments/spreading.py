"""Spreading experiments: thesis Chapter 2 (Figs. 2.2, 2.3, 2.7, 2.8, 2.9, Thm 2.3.1,
Props. 2.2.1-2.2.2) and the main job ``compare-detection``.

Every random experiment runs the compiled Monte Carlo path of
:func:`adversaries.simulate_and_score` (simulate + estimate + score on flat arrays), one
call per (point, batch), so a batch of trials costs little more than its spreads.

Also registers the spreading components (kind ``graph``: named contact graphs; kind
``protocol``: protocol factories) and the ``detection`` sweep template, so
``anonspread sweep detection --set graph=... --set protocol=... --set estimator=...``
composes graph x protocol x estimator x T from the command line.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.harness.components import component_info, register_component
from anonspread.harness.compose import SweepTemplate, register_template
from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Reference, Theory
from anonspread.harness.experiments.graphs import TREE_DEGREES
from anonspread.harness.grid import Grid
from anonspread.harness.params import Param
from anonspread.harness.registry import register_experiment
from anonspread.harness.selection import SELECTION_METRICS as _SELECTION_METRICS
from anonspread.harness.work import task_threads

__all__: list[str] = []

# ----------------------------------------------------------------- components
# Graph families are registered in harness.experiments.graphs; protocols and estimators
# here, with the same decorator a user's module uses.


@register_component("protocol", "adaptive-diffusion", params={
    "d0": Param("float", None, low=2.0, allow_inf=True,
                doc="design degree (auto: the tree's degree, 3 on irregular trees, inf on graphs with cycles)"),
    "cap": Param("int", None, low=1, doc="max new infections per node and step (auto: 3 on finite graphs)"),
    "relay": Param("str", "tree", choices=("tree", "graph"), doc="how infection messages travel on cycles"),
    "infectors": Param("str", "all", choices=("all", "leaves"),
                       doc="who infects when a message arrives: every reached node, or infection-tree leaves"),
    "stuck": Param("str", "keep", choices=("keep", "pass"),
                   doc="a virtual source at a dead end keeps the token, or (the authors' rule) "
                   "sends two rounds to its one tree neighbour and passes it the token"),
})
def adaptive_diffusion(graph: Any, *, d0: float | None = None, cap: int | None = None,
                       relay: str = "tree", infectors: str = "all", stuck: str = "keep") -> Any:
    """Adaptive diffusion (Protocol 3) as the thesis runs it on ``graph``.

    Automatic choices: on finite graphs (with cycles, §2.4.2) d0 = inf and a cap of 3
    infections per node and step; on infinite trees d0 = the degree of a regular tree,
    else 3, and no cap.
    """
    from anonspread.spread.protocols import AdaptiveDiffusion

    if graph.is_infinite:
        auto_d0 = graph.regular_degree() or 3
        auto_cap = None
    else:
        auto_d0, auto_cap = math.inf, 3
    return AdaptiveDiffusion(auto_d0 if d0 is None else d0, auto_cap if cap is None else cap, relay,
                             infectors, stuck)


@register_component("protocol", "random-diffusion",
                    params={"p": Param("float", 0.5, low=0.0, high=1.0, doc="infection probability per step")})
def random_diffusion(graph: Any, *, p: float = 0.5) -> Any:
    """Random diffusion: each infected node infects each uninfected neighbour w.p. p per step."""
    from anonspread.spread.protocols import RandomDiffusion

    return RandomDiffusion(p)


@register_component("protocol", "flooding")
def flooding(graph: Any) -> Any:
    """Flooding: every neighbour at once."""
    from anonspread.spread.protocols import Flooding

    return Flooding()


@register_component("protocol", "line")
def line_protocol(graph: Any) -> Any:
    """Protocol 1 (the line protocol)."""
    from anonspread.spread.protocols import LineProtocol

    return LineProtocol()


@register_component("protocol", "tree")
def tree_protocol(graph: Any) -> Any:
    """Protocol 2 (the tree protocol of the thesis's prose and Fig. 2.4)."""
    from anonspread.spread.protocols import TreeProtocol

    return TreeProtocol()


def _register_estimators() -> None:
    """Every snapshot estimator of the adversaries registry, by its name (those of the
    compiled Monte Carlo path run there, the others trial by trial), and ``strongest`` (derived per protocol from the others, :func:`strongest_detection`)."""
    from anonspread.adversaries.registry import ESTIMATORS

    for name, spec in ESTIMATORS.items():
        if spec.observation == "snapshot":
            register_component("estimator", name, functools.partial(str, name),
                               description=spec.description)
    register_component("estimator", STRONGEST, functools.partial(str, STRONGEST),
                       description="the strongest of the sweep's other estimators on each protocol, "
                       "chosen by the data: the most detections on the even-numbered trials of each "
                       "batch, its detection reported on the odd-numbered ones (no winner's bias)")
    register_component("estimator", CEILING, functools.partial(str, CEILING),
                       description="the Bayes ceiling: the detection probability no snapshot "
                       "adversary can beat (adversaries.bayes_ceiling; exact where the enumeration "
                       "fits, else Monte Carlo with its interval, else the run says why not)")
    register_component("estimator", BP_PREDICTED, functools.partial(str, BP_PREDICTED),
                       description="BP's predicted detection: the mean of the largest BP posterior "
                       "over spreads from a uniform source (random diffusion, flooding), an "
                       "estimate of the Bayes ceiling beside bp's realised detection "
                       "(harness.bp_predicted), never the ceiling")


#: The estimator of a detection sweep derived from the others (see :func:`strongest_detection`).
STRONGEST = "strongest"
#: The Bayes ceiling on the estimator axis (see :func:`derived_detection`).
CEILING = "ceiling"
#: BP's predicted detection on the estimator axis (see :func:`derived_detection`).
BP_PREDICTED = "bp-predicted"
#: The derived estimators of a detection sweep (no trials of their own).
DERIVED = (STRONGEST, CEILING, BP_PREDICTED)


def is_strongest(params: Mapping[str, Any]) -> bool:
    """Whether a detection point is ``strongest`` (derived, no trials of its own)."""
    return params["estimator"] == STRONGEST


def is_derived(params: Mapping[str, Any]) -> bool:
    """Whether a detection point is derived (``strongest``, ``ceiling`` or ``bp-predicted``: no
    trials of its own)."""
    return params["estimator"] in DERIVED


def strongest_detection(table: Any, points: Any, level: float, components: Any = None) -> Any:
    """The rows of each ``strongest`` point of a detection sweep.

    Among the sweep's other estimators that apply to the point's protocol (same graph,
    protocol, parameters and T; paired, so they score the same spreads), the one with the
    most detections on the even-numbered trials of each batch is chosen and its detection
    reported on the odd-numbered trials, with its Wilson interval
    (:func:`harness.selection.strongest_rows`): no declared order (which can be wrong) and
    no winner's bias. Only ``detection`` is derived (the spread's own metrics are those of
    the candidates, in their rows).
    """
    from anonspread.harness.selection import strongest_rows

    computed = list({tuple(r[p] for p in table.params): {p: r[p] for p in table.params}
                     for r in table.rows}.values())

    def candidates(point: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [c for c in computed if not is_derived(c)
                and all(c[p] == point[p] for p in table.params if p != "estimator")]

    return strongest_rows(table, points, candidates, axis="estimator", level=level)


def ceiling_setting(point: Mapping[str, Any], components: Any = None) -> Any:
    """``(graph, protocol, T)`` of a ``ceiling`` point for :func:`adversaries.bayes_ceiling`,
    or why it has none."""
    from anonspread.errors import AnonspreadError

    if point.get("fresh_graph"):
        return "fresh_graph=true draws a graph per trial batch; the ceiling is that of one graph"
    if point.get("stop", "none") != "none":
        return (f"stop={point['stop']} gives each trial its own T; the Bayes ceiling is computed "
                "at one fixed T (run the ceiling without stop, at the T the reach takes)")
    try:
        g = make_graph(point, np.random.default_rng(0), components=components)
        return g, make_protocol(point, g, components=components), int(point["T"])
    except AnonspreadError as exc:
        return str(exc)


def derived_detection(table: Any, points: Any, level: float, components: Any = None) -> Any:
    """The rows of the derived points of a detection sweep: ``strongest``
    (:func:`strongest_detection`), then ``ceiling`` (:func:`harness.ceiling.ceiling_rows`:
    :func:`adversaries.bayes_ceiling` on the point's graph, protocol and T), then
    ``bp-predicted`` (:func:`harness.bp_predicted.bp_predicted_rows`: BP's predicted detection,
    an estimate)."""
    from anonspread.harness.bp_predicted import bp_predicted_rows
    from anonspread.harness.ceiling import ceiling_rows

    table = strongest_detection(table, [p for p in points if is_strongest(p)], level, components)
    table = ceiling_rows(table, [p for p in points if p["estimator"] == CEILING],
                         functools.partial(ceiling_setting, components=components), axis="estimator",
                         level=level)
    return bp_predicted_rows(table, [p for p in points if p["estimator"] == BP_PREDICTED],
                             functools.partial(bp_predicted_setting, components=components),
                             axis="estimator", level=level)


#: Derived estimators computed after the trials, and the estimator whose trials at the same
#: point cost what they cost (``bp-predicted``: BP on as many spreads of its own).
DERIVED_STAND_INS = {BP_PREDICTED: "bp"}
#: Derived estimators computed after the trials whose cost no pilot can tell: what they do.
DERIVED_UNPRICED = {CEILING: "an exact enumeration, or exact posteriors of sampled spreads: "
                             "seconds to minutes where it fits, refused where it cannot"}


def derived_stand_in(point: Mapping[str, Any]) -> dict | None:
    """What the derived ``point`` costs (:attr:`harness.Experiment.derived_cost`):
    ``bp-predicted`` runs BP on as many spreads of its own as the point's trials, so
    ``bp``'s trials at the same point; ``ceiling``'s cost no pilot can tell (an exact
    enumeration), ``{"unpriced": what it does}``; None for the derived points that cost
    nothing to speak of (``strongest``).

    Examples
    --------
    >>> derived_stand_in({"T": 3, "estimator": "bp-predicted"})
    {'T': 3, 'estimator': 'bp'}
    >>> derived_stand_in({"T": 3, "estimator": "strongest"}) is None
    True
    >>> sorted(derived_stand_in({"T": 3, "estimator": "ceiling"}))
    ['unpriced']
    """
    name = point.get("estimator")
    name = name[0] if isinstance(name, tuple) and len(name) == 1 else name
    if isinstance(name, str) and name in DERIVED_UNPRICED:
        return {"unpriced": DERIVED_UNPRICED[name]}
    stand_in = DERIVED_STAND_INS.get(name) if isinstance(name, str) else None
    return None if stand_in is None else {**point, "estimator": stand_in}


def bp_predicted_setting(point: Mapping[str, Any], components: Any = None) -> Any:
    """``(graph, protocol, T)`` of a ``bp-predicted`` point, or why it has none (a protocol
    BP does not model, a fresh graph per batch)."""
    from anonspread.adversaries.registry import get_estimator

    got = ceiling_setting(point, components)
    if isinstance(got, str):
        return got
    reason = get_estimator("bp").why_not(got[1], got[0])
    return got if reason is None else reason


_register_estimators()


def _component(kind: str, params: Mapping[str, Any], components: Mapping[str, Any] | None,
               axis: str | None = None) -> Any:
    axis = axis or kind
    name = params[axis]
    if components is not None and name in components.get(axis, {}):
        return components[axis][name]
    return component_info(kind, name)


def make_graph(params: Mapping[str, Any], rng: np.random.Generator | None = None, *,
               components: Mapping[str, Any] | None = None) -> Any:
    """The graph of a point (``graph`` + ``graph.*`` axes), built once per process.

    With ``fresh_graph`` true a random family is redrawn per call from ``rng``.
    """
    from anonspread.harness.graphs import graph_for

    return graph_for(_component("graph", params, components), params, rng=rng,
                     fresh=bool(params.get("fresh_graph", False)))


def warm_graph(params: Mapping[str, Any], *, components: Mapping[str, Any] | None = None) -> None:
    """Build (and keep, once per process) the graph of a point before a pilot times its
    trials (:attr:`harness.Experiment.warm`); a fresh graph per batch is not kept, so
    nothing is built for it."""
    if not params.get("fresh_graph", False):
        make_graph(params, np.random.default_rng(0), components=components)


def make_protocol(params: Mapping[str, Any], graph: Any, *,
                  components: Mapping[str, Any] | None = None) -> Any:
    """The protocol of a point (``protocol`` + ``protocol.*`` axes) for ``graph``."""
    return _component("protocol", params, components).build(graph, point=params, axis="protocol")


# ----------------------------------------------------------------- the trial


def _is_compiled(comp: Any) -> bool:
    """A built-in estimator component (its factory returns the estimator's name)."""
    return isinstance(getattr(comp, "factory", None), functools.partial) and comp.factory.func is str


def detection_skip(params: Mapping[str, Any], components: Mapping[str, Any] | None = None) -> str | None:
    """Why the estimator of a detection point does not apply to its protocol and graph
    (the estimator registry's ``why_not``, the infection tree revealed), or None.

    ``strongest`` and user estimators always apply. The graph is the point's (for a
    fresh graph per batch, one drawn from a throwaway stream: applicability depends on
    the family, not on the draw).
    """
    name = params["estimator"]
    comp = _component("estimator", params, components)
    if name in DERIVED or not _is_compiled(comp):
        return None
    from anonspread.adversaries.registry import get_estimator

    g = make_graph(params, np.random.default_rng(0), components=components)
    proto = make_protocol(params, g, components=components)
    return get_estimator(str(name)).why_not(proto, g, reveal_edges=True)


def reach_metrics(g: Any, sources: Any, n_infected: np.ndarray) -> dict[str, np.ndarray]:
    """``component_fraction`` (N_T over the size of the source's connected component) and
    ``saturated`` (1 when the spread covered that component) of each trial; 0 on infinite
    graphs."""
    size = n_infected.astype(np.float64)
    if g.is_infinite:
        zero = np.zeros(size.shape[0])
        return {"component_fraction": zero, "saturated": zero.copy()}
    from anonspread.spread.reach import component_sizes

    # no label -> index dict (about 100 bytes per node in every worker): a binary search
    idx = g.node_indices(sources)
    # the graph's components: computed once per graph, or read from its graph file
    total = component_sizes(g, idx).astype(np.float64)
    return {"component_fraction": size / total, "saturated": (size >= total).astype(np.float64)}


def detection_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator, *,
                     components: Mapping[str, Any] | None = None) -> dict:
    """``n`` trials of (graph, protocol, T) scored by ``estimator``.

    Metrics: ``detection`` (1 if the estimate, ties broken uniformly, is the source),
    ``hops`` (estimate-to-source hop distance), ``n_infected`` (N_T), ``rank``,
    ``component_fraction`` (N_T over the size of the source's connected component) and
    ``saturated`` (1 when the spread covered that component: detection then says little
    about the protocol). Estimators of the compiled path (their component returns the
    estimator's name, registered with ``batch=True``) run in
    :func:`adversaries.simulate_and_score`; the other registered estimators, and a user's
    estimator component (a function ``snapshot -> scores``), run trial by trial through
    :func:`spread.simulate`, :func:`adversaries.observe` and :func:`adversaries.evaluate`
    (with it, the built-in estimators of the same group run that way too, through their
    registered functions, so that all score the same spreads).

    With ``params["estimator"]`` a tuple of names (sweeps and the main job are paired on
    the estimator), every estimator scores the same ``n`` simulated spreads, each
    distinct estimator once, and the result is ``{name: metrics}``.
    """
    g = make_graph(params, rng, components=components)
    proto = make_protocol(params, g, components=components)
    names = params["estimator"]
    paired = isinstance(names, tuple)
    names_t = names if paired else (names,)
    ests = []
    for name in names_t:
        comp = _component("estimator", {**params, "estimator": name}, components)
        est = comp.build(point={**params, "estimator": name}, axis="estimator")
        if est == STRONGEST:
            raise InvalidParameterError(
                "estimator 'strongest' is derived from the other estimators of a detection sweep "
                "(chosen on half of their trials); it has no trials of its own"
            )
        if est == BP_PREDICTED:
            raise InvalidParameterError(
                "estimator 'bp-predicted' is computed after a detection sweep's trials "
                "(harness.bp_predicted); it has no trials of its own"
            )
        if est == CEILING:
            raise InvalidParameterError(
                "estimator 'ceiling' is computed after a detection sweep's trials "
                "(adversaries.bayes_ceiling); it has no trials of its own"
            )
        ests.append(est)
    T = params["T"]
    stop = params.get("stop")
    if all(isinstance(e, str) and _is_batch(e) for e in ests):
        from anonspread.adversaries import simulate_and_score

        unique = tuple(dict.fromkeys(ests))
        b = simulate_and_score(g, proto, T, n, estimators=unique, rng=rng, stop=stop)
        size = b.n_infected.astype(np.float64)
        reach = reach_metrics(g, b.sources, b.n_infected)
        reach.update(stop_metrics(T, n, b.steps, b.reached))
        by_name = {e: {"detection": b[e].detected.astype(np.float64), "hops": b[e].hops.astype(np.float64),
                       "n_infected": size, "rank": b[e].rank, **{k: v.copy() for k, v in reach.items()}}
                   for e in unique}
        out = [by_name[e] for e in ests]
    else:
        # each distinct estimator once
        keys = [e if isinstance(e, str) else i for i, e in enumerate(ests)]
        unique = list(dict.fromkeys(keys))
        funcs = [_as_function(ests[keys.index(k)], proto, g, rng) for k in unique]
        runs = dict(zip(unique, _warnings_summarised(
            lambda: _python_trials(g, proto, T, n, funcs, rng, stop=stop), n,
            where=f"{proto!r}, T = {T}")))
        out = [runs[k] for k in keys]
    return dict(zip(names_t, out)) if paired else out[0]


def _warnings_summarised(call: Any, n: int, where: str = "") -> Any:
    """``call()``, its warnings of each category given once with a count: an estimator that
    warns per snapshot (``BPConvergenceWarning``) would otherwise print one line for each of
    a batch's ``n`` trials. The first warning's text and location are kept; the category is
    the same, so filters apply as before. ``where`` (the point: protocol and T) heads the
    line, so that a warning re-issued from a worker says which point it came from."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    groups: dict[type, list] = {}
    for w in caught:
        groups.setdefault(w.category, []).append(w)
    for category, ws in groups.items():
        first = ws[0]
        text = str(first.message)
        if len(ws) > 1:
            text = (f"{len(ws)} warnings of this kind in a batch of {n} trials; the first: {text}")
        if where:
            text = f"{where}: {text}"
        warnings.warn_explicit(text, category, first.filename, first.lineno)
    return out


def _is_batch(name: str) -> bool:
    """Whether the registered estimator ``name`` runs in the compiled Monte Carlo path."""
    from anonspread.adversaries.registry import get_estimator

    return get_estimator(name).batch


def _as_function(est: Any, protocol: Any, g: Any, rng: np.random.Generator) -> Any:
    """``snapshot -> scores``: a user's function as is, a registered one by its function
    (an estimator that draws random numbers gets the run's generator ``rng``)."""
    if not isinstance(est, str):
        return est
    from anonspread.adversaries.registry import check_applicable

    spec = check_applicable(est, protocol, g, reveal_edges=True)
    kwargs = spec.params(protocol, g)
    if spec.random:
        kwargs["rng"] = rng
    threads = task_threads()  # the run's threads per worker (--threads), for OpenMP kernels
    if threads > 1 and "threads" in inspect.signature(spec.func).parameters:
        kwargs["threads"] = threads
    if spec.many is not None:
        return _Many(functools.partial(spec.many, **kwargs))
    return functools.partial(spec.func, **kwargs)


class _Many:
    """A registered estimator with a batch form (``EstimatorSpec.many``): called on one
    snapshot it scores a batch of one; :func:`_python_trials` gives it every snapshot of
    its trials at once (soft-margin then simulates each candidate once for all of them)."""

    def __init__(self, many: Any) -> None:
        self.many = many

    def __call__(self, snapshot: Any, **kwargs: Any) -> Any:
        return self.many([snapshot], **kwargs)[0]


def _python_trials(g: Any, proto: Any, T: int, n: int, funcs: list, rng: np.random.Generator, *,
                   stop: Any = None) -> list[dict]:
    """Trial by trial: each spread simulated once (stopped by reach with ``stop``) and
    scored by every ``snapshot -> scores`` (the snapshot's ``T`` is the trial's step); the
    batch forms (:class:`_Many`) score the snapshots of each step at once, after the loop."""
    from anonspread import adversaries, spread

    keys = ("detection", "hops", "n_infected", "rank")
    out = [{k: np.empty(n) for k in keys} for _ in funcs]
    sources, snaps = [], []
    steps = np.empty(n, np.int64)
    reached = np.ones(n, bool)
    many = any(isinstance(f, _Many) for f in funcs)

    def record(o, i, scores, source, size):
        ev = adversaries.evaluate(g, scores, source, rng=rng)
        o["detection"][i] = float(ev.detected)
        o["hops"][i] = ev.hops
        o["n_infected"][i] = size
        o["rank"][i] = ev.rank

    for i in range(n):
        s = spread.simulate(g, proto, T, rng=rng, stop=stop)
        sources.append(s.source)
        steps[i] = s.T
        reached[i] = s.reached is not False
        snap = adversaries.observe(s, reveal_edges=True)
        if many:
            snaps.append(snap)
        for f, o in zip(funcs, out):
            if not isinstance(f, _Many):
                record(o, i, f(snap), s.source, len(s.infected))
    # the batch forms after the loop: every trial's snapshot at once, by snapshot step
    # (a stopping rule by reach gives trials different steps; a batch shares one T)
    by_step: dict[int, list[int]] = {}
    for i, snap in enumerate(snaps):
        by_step.setdefault(int(snap.T), []).append(i)
    for f, o in zip(funcs, out):
        if isinstance(f, _Many):
            for idx in by_step.values():
                for i, sc in zip(idx, f.many([snaps[i] for i in idx])):
                    record(o, i, sc, sources[i], snaps[i].n)
    reach = reach_metrics(_contact(g), sources, out[0]["n_infected"]) if funcs else {}
    reach.update(stop_metrics(T, n, steps, reached))
    return [{**o, **{k: v.copy() for k, v in reach.items()}} for o in out]


def stop_metrics(T: int, n: int, steps: np.ndarray | None, reached: np.ndarray | None) -> dict:
    """``T_snapshot`` (each trial's snapshot step: ``T``, or with a stopping rule by reach
    the step at which it was attained, the cap ``T`` if never) and ``reached`` (1 when the
    trial attained the reach; 1 without a rule) per trial."""
    if steps is None:
        return {"T_snapshot": np.full(n, float(T)), "reached": np.ones(n)}
    return {"T_snapshot": steps.astype(np.float64), "reached": np.asarray(reached, np.float64)}


def _contact(g: Any) -> Any:
    from anonspread.spread.graphs import as_contact_graph

    return as_contact_graph(g)


def detection_cost(params: Mapping[str, Any], *, components: Mapping[str, Any] | None = None) -> float:
    """Estimated node visits of one detection trial (:func:`spread.limits.run_work`).

    The point's graph is built (once per process, as the trials do); a point whose graph
    or protocol cannot be built counts 1: its trials then report why.
    """
    from anonspread.errors import AnonspreadError
    from anonspread.harness.graphs import graph_for
    from anonspread.spread.limits import run_work

    try:
        g = graph_for(_component("graph", params, components), params)
        proto = make_protocol(params, g, components=components)
        return run_work(g, proto, int(params["T"]))
    except AnonspreadError:
        return 1.0


#: Most snapshots a point's priced estimators are priced from (a larger batch is
#: extrapolated from them: :func:`adversaries.soft_margin_cost`).
PRICE_SNAPSHOTS = 200
#: The sample snapshots of the points priced in this process, by point and size, and
#: the prices (a run prices a point for its budget, then its pilot reports the price).
_PRICE_SAMPLES: dict = {}
_PRICES: dict = {}
_TIMED = object()  # a price of None (timed by the pilot), as _PRICES keeps it


def detection_price(params: Mapping[str, Any], trials: int, batch_size: int, timed: bool, *,
                    components: Mapping[str, Any] | None = None) -> dict | None:
    """What the point's estimator costs, priced before the run, for an estimator
    registered with a ``price`` (soft-margin, rumour centrality:
    :attr:`adversaries.EstimatorSpec.price`); None for the others and where the price
    says the point is too cheap to price (the pilot times their trials).

    The point's ``trials`` are scored in batches of ``batch_size`` (one call of the
    estimator's batch form each, sharing its simulations); each batch is priced from up
    to :data:`PRICE_SNAPSHOTS` spreads of the point (or the estimator's own
    ``price_sample``) drawn from a stream seeded by the point (the same in every run and
    process), ``timed`` or by node visits only.

    Returns
    -------
    dict or None
        ``{"estimator", "work" (node visits), "cpu_s" (timed CPU seconds or None: an
        upper bound), "cpu_min_s" (its lower bound: every snapshot stopping as soon as it
        can), "text" (what the price rests on, for the largest batch), "basis" (what a price
        of its kind rests on) and "caveat" (what kind of number it is)}``.
    """
    from anonspread import adversaries, spread
    from anonspread.adversaries.registry import get_estimator
    from anonspread.harness.ceiling import point_seed

    names = params["estimator"]
    names = names if isinstance(names, tuple) else (names,)
    if len(names) != 1 or names[0] in DERIVED:
        return None
    name = names[0]
    point = {**params, "estimator": name}
    if not _is_compiled(_component("estimator", point, components)):
        return None
    spec = get_estimator(str(name))
    if spec.price is None:
        return None
    g = make_graph(point, np.random.default_rng(0), components=components)
    proto = make_protocol(point, g, components=components)
    T, stop = int(point["T"]), point.get("stop")
    sizes = [min(batch_size, trials - k) for k in range(0, trials, batch_size)]
    m = min(max(sizes), spec.price_sample or PRICE_SNAPSHOTS)
    key = (repr(sorted((k, repr(v)) for k, v in point.items())), m)
    if key not in _PRICE_SAMPLES:
        rng = np.random.default_rng(point_seed(point))
        sample = []
        for _ in range(m):  # one spread at a time: only its snapshot and source are kept
            x = spread.simulate(g, proto, T, rng=rng, stop=stop)
            sample.append((adversaries.observe(x), x.source))
        _PRICE_SAMPLES[key] = sample
    sample = _PRICE_SAMPLES[key]
    done = _PRICES.get((key, trials, batch_size, timed, spec.name))
    if done is not None:
        return None if done is _TIMED else dict(done)
    kwargs = spec.params(proto, g)
    work, cpu, text = 0.0, 0.0 if timed else None, ""
    cpu_min = 0.0 if timed else None
    by_size: dict[int, Any] = {}
    for size in sizes:
        if size not in by_size:
            # a stop rule gives the snapshots several T: each T is a batch of its own
            by_t: dict[int, list] = {}
            for sn, src in sample[:min(size, m)]:
                by_t.setdefault(int(sn.T), []).append((sn, src))
            parts = [spec.price([sn for sn, _ in group], sources=[src for _, src in group],
                                batch=max(len(group), round(size * len(group) / min(size, m))),
                                timed=timed, **kwargs) for group in by_t.values()]
            if any(c is None for c in parts):  # too cheap to price: the pilot times it
                _PRICES[(key, trials, batch_size, timed, spec.name)] = _TIMED
                return None
            by_size[size] = parts
        parts = by_size[size]
        work += sum(c.work for c in parts)
        if timed:
            cpu += sum(c.cpu_seconds for c in parts)
            cpu_min += sum(c.cpu_seconds if c.min_cpu_seconds is None else c.min_cpu_seconds
                           for c in parts)
        if not text:
            text = "; ".join(c.describe() for c in parts)
    got = {"estimator": str(name), "work": work, "cpu_s": cpu, "cpu_min_s": cpu_min, "text": text,
           "basis": parts[0].basis, "caveat": parts[0].caveat}
    _PRICES[(key, trials, batch_size, timed, spec.name)] = got
    return dict(got)


#: The registered estimator whose model :func:`detection_prepare` trains once per run.
LEARNED = "learned"


def learned_preparation(settings: Any, pilot: bool, *, executor: Any = None) -> Any:
    """The ``learned`` adversary's models for ``settings`` (``(graph, protocol, T, task)``:
    ``task`` rebuilds the first three in another process, see :func:`_learned_setting`),
    each trained once, as a :class:`~harness.work.Preparation` (None when there are none).

    The model is the one :func:`adversaries.learned_estimator` would train in a worker
    (its default budget and ``train_seed``, the infection tree revealed as the sweeps
    reveal it), so results do not change. With ``pilot`` each model is a scaled-down pilot
    training and the seconds are the estimate of the full one
    (:func:`adversaries.learned.estimate_training_seconds`). With an ``executor`` of more
    than one worker on this machine (``Executor.shares_files``), the distinct models are
    trained as its tasks, one per worker at a time, instead of one after the other here:
    the same models (each training's seeds are fixed), in about 1/workers of the time.
    """
    import time

    from anonspread.adversaries import learned
    from anonspread.harness.work import Preparation

    models: dict[Any, Any] = {}
    seconds: list[float] = []
    cpu: list[float] = []
    tasks = []
    for g, proto, T, task in settings:
        key = learned.model_key(g, proto, T, reveal_edges=True)
        if key in models:
            continue
        models[key] = None
        tasks.append((key, g, proto, T, task))
    fit_timings: dict = {}  # the pilot's fits timed once per shape of the full fit's rows
    remote = (not pilot and executor is not None and len(tasks) > 1
              and getattr(executor, "shares_files", False) and executor.workers > 1)
    if remote:
        for key, model, secs, used in executor.imap_unordered(_train_learned, [(k, t) for k, *_, t in tasks]):
            models[key] = model
            seconds.append(secs)
            cpu.append(used)
    else:
        for key, g, proto, T, _ in tasks:
            if pilot:
                secs, used, models[key] = learned.estimate_training_seconds(
                    g, proto, T, reveal_edges=True, fit_timings=fit_timings)
            else:
                t0, c0 = time.perf_counter(), time.process_time()
                models[key] = learned.cached_adversary(g, proto, T, reveal_edges=True)
                secs, used = time.perf_counter() - t0, time.process_time() - c0
            seconds.append(secs)
            cpu.append(used)
    if not models:
        return None
    return Preparation(learned.TrainedModels(models), {"learned training": seconds},
                       estimated=pilot, cpu={"learned training": cpu})


def _learned_setting(task: tuple) -> tuple[Any, Any, int]:
    """``(graph, protocol, T)`` of a learned training, rebuilt from its task in a worker:
    ``("detection", point, components)`` or ``("facebook", point)``."""
    kind, point, *rest = task
    if kind == "facebook":
        return make_graph(point, np.random.default_rng(0)), _facebook_protocol(point), 2 * int(point["rounds"])
    components = rest[0] if rest else None
    g = make_graph(point, np.random.default_rng(0), components=components)
    return g, make_protocol(point, g, components=components), int(point["T"])


def _train_learned(item: tuple) -> tuple[Any, Any, float, float]:
    """A worker's task of :func:`learned_preparation`: ``(key, model, elapsed s, CPU s)``."""
    import time

    from anonspread.adversaries import learned

    key, task = item
    t0, c0 = time.perf_counter(), time.process_time()
    g, proto, T = _learned_setting(task)
    model = learned.cached_adversary(g, proto, T, reveal_edges=True)
    got = learned.model_key(g, proto, T, reveal_edges=True)
    if got != key:  # the worker's graph is not the run's: never install a model under another key
        raise RuntimeError(f"a worker rebuilt another setting for the learned training ({got!r} != {key!r})")
    return key, model, time.perf_counter() - t0, time.process_time() - c0


def detection_prepare(points: Any, pilot: bool, components: Mapping[str, Any] | None = None, *,
                      executor: Any = None) -> Any:
    """The detection sweep's one-off work: the ``learned`` adversary trained once per
    (graph, protocol, T) for the whole run (:func:`learned_preparation`; on the run's
    process-pool workers when there are several, then installed in every worker before
    its first batch) instead of once per worker. A point with ``fresh_graph`` (a graph
    per batch) is left to its workers."""
    def settings():
        for point in points:
            comp = _component("estimator", point, components)
            if point["estimator"] != LEARNED or not _is_compiled(comp) or point.get("fresh_graph"):
                continue
            task = ("detection", dict(point), components)
            yield (*_learned_setting(task), task)

    return learned_preparation(settings(), pilot, executor=executor)


DETECTION_METRICS = (
    Metric("detection", "proportion", "P(detect)",
           description="probability that the estimator names the true source"),
    Metric("hops", "mean", "E[hop distance]", low=0.0,
           description="mean hop distance from the estimate to the true source"),
    Metric("n_infected", "mean", "E[N_T]", low=1.0,
           description="mean number of infected nodes at time T"),
    Metric("rank", "mean", "E[rank of source]", low=1.0,
           description="mean rank of the true source among the infected nodes by score (1: found)"),
    Metric("component_fraction", "mean", "fraction of the source's component infected", low=0.0,
           description="N_T over the size of the source's connected component (0 on infinite trees)"),
    Metric("saturated", "proportion", "P(spread covered its component)",
           description="fraction of trials whose spread infected the source's whole connected component"),
    Metric("T_snapshot", "mean", "E[T at the snapshot]", low=0.0,
           description="mean step of the snapshot: T, or with stop=... the step at which the "
           "reach was attained (the cap T where it was not)"),
    Metric("reached", "proportion", "P(reach attained by T)",
           description="fraction of trials that attained the stop=... reach by the cap T "
           "(1 without a stopping rule)"),
)

def canonical_stop(value: str) -> str:
    """The ``stop`` axis value checked (:func:`spread.reach.parse_reach`), as ``"none"``,
    ``"infected:K"`` or ``"coverage:F"``."""
    from anonspread.spread.reach import parse_reach

    reach = parse_reach(value)
    return "none" if reach is None else str(reach)


#: Declared axes of the detection experiments (component names, T and the stop rule).
DETECTION_AXES = {
    "graph": Param("str", kind="graph"),
    "protocol": Param("str", kind="protocol"),
    "estimator": Param("str", kind="estimator"),
    "T": Param("int", low=0, doc="steps of the spread"),
    # the doc is the figure's axis label: short (the rule is in spread.reach and the docs)
    "stop": Param("str", "none", validate=canonical_stop,
                  doc="stop at reach (infected:K or coverage:F; T is the cap)"),
}


def detection_metadata(points: Any, seed: int, components: Any = None) -> dict:
    """The graphs of a detection run (family, parameters, seed, draw, summary)."""
    from anonspread.harness.graphs import graph_metadata

    return graph_metadata(points, seed, components=components)


def detection_sweep_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator, *,
                           components: Mapping[str, Any] | None = None) -> dict:
    """:func:`detection_trials` with each estimator's helper metrics of the strongest attack
    (:func:`harness.selection.selection_arrays`)."""
    from anonspread.harness.selection import selection_arrays

    out = detection_trials(params, n, rng, components=components)
    if isinstance(params["estimator"], tuple):
        return {k: {**v, **selection_arrays(v["detection"])} for k, v in out.items()}
    return {**out, **selection_arrays(out["detection"])}


register_template(SweepTemplate(
    name="detection",
    description="Detection probability, hop distance and rank of source estimators against a "
    "spreading protocol on a contact graph after T steps (graph x protocol x estimator x T); the "
    "estimators of a point score the same spreads, estimators that do not apply to a protocol "
    "are skipped and named, 'strongest' is each protocol's strongest of them, chosen on half "
    "of the trials and reported on the other half, 'ceiling' the Bayes-optimal detection "
    "probability (exact or Monte Carlo; absent points say why).",
    components={"graph": "graph", "protocol": "protocol", "estimator": "estimator"},
    defaults={"graph": "regular-3", "protocol": "adaptive-diffusion",
              "estimator": ("ml", "jordan", "rumor", STRONGEST), "T": 6, "fresh_graph": False,
              "stop": "none"},
    paired="estimator",
    skip=detection_skip,
    types={"T": DETECTION_AXES["T"], "stop": DETECTION_AXES["stop"],
           "fresh_graph": Param("bool", False, doc="a fresh random graph per trial batch")},
    metrics=(*DETECTION_METRICS, *_SELECTION_METRICS),
    trials=detection_sweep_trials,
    default_trials=2000,
    plot=PlotSpec(x="T", series="estimator", y=("detection", "hops")),
    metadata=detection_metadata,
    cost=detection_cost,
    derived=is_derived,
    derive=derived_detection,
    derived_cost=derived_stand_in,
    prepare=detection_prepare,
    pilot=True,
    warm=warm_graph,
    price=detection_price,
))


# ----------------------------------------------------------------- theory curves


def _degree(params: Mapping[str, Any]) -> int:
    g = str(params["graph"])
    return 2 if g == "line" else int(g.split("-")[1])


def ad_detection_theory(params: Mapping[str, Any]) -> float:
    """Exact ML detection of adaptive diffusion: 1/(N_T - 1) at even T (Thm 2.3.1), and at
    odd T the value derived in :func:`adversaries.theory.adaptive_diffusion_detection`."""
    from anonspread.adversaries.theory import adaptive_diffusion_detection

    return adaptive_diffusion_detection(_degree(params), int(params["T"]))


def ad_hops_theory(params: Mapping[str, Any]) -> float:
    """Thm 2.3.1(c): E[hop] >= (d - 1)/d * T/2."""
    d, T = _degree(params), int(params["T"])
    return (d - 1) / d * T / 2


def ad_size_theory(params: Mapping[str, Any]) -> float:
    """Eq. (2.14) corrected: the smallest N_T (the ball at even T; at odd T the nodes within
    (T-1)/2 hops of an edge, (2 (d-1)^((T+1)/2) - d)/(d-2) + 1)."""
    from anonspread.adversaries.theory import adaptive_diffusion_min_size

    return float(adaptive_diffusion_min_size(_degree(params), int(params["T"])))


register_experiment(Experiment(
    name="thm2.3.1-adaptive-diffusion-regular-trees",
    title="Adaptive diffusion on d-regular trees: ML detection, hop distance, N_T (Thm 2.3.1)",
    description="""
    Thesis Theorem 2.3.1 by simulation: adaptive diffusion (Protocol 3, alpha of Eq. 2.13,
    d0 = d) on the infinite d-regular tree, attacked by the exact ML estimator
    (Prop. 2.4.1, message passing; ties broken uniformly). Dashed, detection: the exact
    ML detection probability, 1/(N_T - 1) at even T (every infected node but the virtual
    source is equally likely) and at odd T = 2k + 1 the value derived in
    adversaries.theory.adaptive_diffusion_detection, (d+2)/(2d) (d-2)/((d-1)^(k+1) - 1)
    (2/(T+1) on the line), which is above the thesis's bound (2.15); that bound as printed
    is a transcription error (it exceeds 1 for d = 4, T <= 7). Dashed, N_T: the smallest
    infected tree, Eq. (2.14) with the exponent corrected to (T+1)/2,
    (2 (d-1)^((T+1)/2) - d)/(d-2) + 1 at odd T. Hops: (d-1)/d T/2 (2.16).""",
    grid=Grid(product={"graph": ["line", "regular-3", "regular-4"], "protocol": ["adaptive-diffusion"],
                       "estimator": ["ml"], "T": list(range(1, 13))}),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes=DETECTION_AXES,
    metadata=detection_metadata,
    default_trials=4000,
    plot=PlotSpec(x="T", series="graph", y=("detection", "hops", "n_infected"), logy=True,
                  theory=(Theory("detection", ad_detection_theory, "exact ML"),
                          Theory("hops", ad_hops_theory, "(d-1)/d T/2"),
                          Theory("n_infected", ad_size_theory, "min N_T (2.14 corr.)"))),
))


def line_protocol_size(params: Mapping[str, Any]) -> float:
    return int(params["T"]) + 1.0


def line_protocol_detection_bound(params: Mapping[str, Any]) -> float:
    T = int(params["T"])
    return (2 * T + 1) / (T + 1) ** 2


def line_protocol_hops_bound(params: Mapping[str, Any]) -> float:
    T = int(params["T"])
    return T**3 / (9 * (T + 1) ** 2)


register_experiment(Experiment(
    name="prop2.2.1-line-protocol",
    title="Protocol 1 on the line: E[N_T] = T + 1, detection and hop bounds (Prop. 2.2.1)",
    description="""
    Thesis Proposition 2.2.1 by simulation on the infinite line. The estimator is the
    Jordan centre, which on the line is the ML estimate (thesis, caption of Fig. 2.3).
    Dashed: E[N_T] = T + 1 (a), P(detect) <= (2T+1)/(T+1)^2 (b),
    E[hop] >= T^3 / (9 (T+1)^2) (c).""",
    grid=Grid(product={"graph": ["line"], "protocol": ["line"], "estimator": ["jordan"],
                       "T": [2, 4, 8, 16, 32, 64]}),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes=DETECTION_AXES,
    metadata=detection_metadata,
    default_trials=4000,
    plot=PlotSpec(x="T", y=("n_infected", "detection", "hops"), logx=True, logy=True,
                  theory=(Theory("n_infected", line_protocol_size, "T + 1"),
                          Theory("detection", line_protocol_detection_bound, "(2T+1)/(T+1)^2"),
                          Theory("hops", line_protocol_hops_bound, "T^3/(9(T+1)^2)"))),
))


def tree_protocol_size_bound(params: Mapping[str, Any]) -> float:
    """Prop. 2.2.2(a): N_T >= (d-1)^((T+1)/2)/(d-2)."""
    d, T = _degree(params), int(params["T"])
    return (d - 1) ** ((T + 1) / 2) / (d - 2)


def tree_protocol_detection_theory(params: Mapping[str, Any]) -> float:
    """Prop. 2.2.2(b), Eq. (2.8): (d-1)/(2 + (d-2) N_T), N_T of Protocol 2 (deterministic)."""
    from anonspread.adversaries.theory import tree_protocol_detection

    return tree_protocol_detection(_degree(params), int(params["T"]))


def tree_protocol_hops_bound(params: Mapping[str, Any]) -> float:
    """Prop. 2.2.2(c), Eq. (2.9): E[hop] >= T/2."""
    return int(params["T"]) / 2


register_experiment(Experiment(
    name="prop2.2.2-tree-protocol",
    title="Protocol 2 on d-regular trees: N_T, ML detection and hop distance (Prop. 2.2.2)",
    description="""
    Thesis Proposition 2.2.2 by simulation: Protocol 2 as the thesis's prose and Figure 2.4
    describe it (spread.TreeProtocol: the virtual source moves one hop every two steps, so
    the infected tree is a ball around it with the source among its leaves) on the infinite
    d-regular tree, d = 3, 4, 5, attacked by its ML estimator (ml-tree: every leaf of the
    balanced infected tree equally likely; ties broken uniformly). Dashed: (a) N_T >=
    (d-1)^((T+1)/2)/(d-2); (b) P(ML detects) = (d-1)/(2 + (d-2) N_T), Eq. (2.8); (c)
    E[hop] >= T/2. The thesis's printed pseudo-code is a different protocol for which (b)
    fails (spread.TreeProtocolPseudocode; docs/spreading.md).""",
    grid=Grid(product={"graph": ["regular-3", "regular-4", "regular-5"], "protocol": ["tree"],
                       "estimator": ["ml-tree"], "T": list(range(1, 13))}),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes=DETECTION_AXES,
    metadata=detection_metadata,
    default_trials=4000,
    plot=PlotSpec(x="T", series="graph", y=("n_infected", "detection", "hops"), logy=True,
                  theory=(Theory("n_infected", tree_protocol_size_bound, "(d-1)^((T+1)/2)/(d-2)"),
                          Theory("detection", tree_protocol_detection_theory, "Eq. 2.8"),
                          Theory("hops", tree_protocol_hops_bound, "T/2"))),
))


register_experiment(Experiment(
    name="fig2.3-line-protocol-jordan-trees",
    title="Protocol 1 on d-regular trees: the Jordan centre finds the source (Fig. 2.3)",
    description="""
    Thesis Figure 2.3: Protocol 1 spread on d-regular trees (d = 2, 3, 4, 5) attacked by the
    Jordan centre; the detection probability stays bounded away from zero as the infection
    grows when d > 2, while on the line (d = 2, where Jordan = ML) it decays like
    1/E[N_T]. The thesis plots against E[N_T]; the harness plots against T and reports
    E[N_T] alongside (panel 2). T stops at 8, where Protocol 1 already infects about
    15,000 nodes of the 5-regular tree (3 million at T = 12).""",
    grid=Grid(product={"graph": ["line", "regular-3", "regular-4", "regular-5"],
                       "protocol": ["line"], "estimator": ["jordan"], "T": [1, 2, 3, 4, 5, 6, 7, 8]}),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes=DETECTION_AXES,
    metadata=detection_metadata,
    default_trials=2000,
    plot=PlotSpec(x="T", series="graph", y=("detection", "n_infected"), logy=True),
))


def inverse_mean_size(params: Mapping[str, Any]) -> float:
    """Not a bound: 1/E[N_T] is filled in from the run by the plot's second panel."""
    return math.nan


register_experiment(Experiment(
    name="fig2.7-irregular-trees",
    title="Adaptive diffusion on irregular random trees: ML detection vs T (Fig. 2.7)",
    description="""
    Thesis Figure 2.7: adaptive diffusion with d0 = 3 on infinite random trees whose degrees
    are i.i.d. (three distributions: {3,4} uniform, {2: .25, 3: .5, 4: .25}, {3: .8, 10: .2};
    the thesis does not list its three), each trial on a fresh tree, attacked by the exact
    ML estimator of Prop. 2.4.1 / Algorithm 4 (irregular degrees). The thesis finds the
    detection probability decays nearly as 1/E[N_T]: compare panel 1 with 1/(panel 2).
    Thesis: 10,000 trials per point, T = 2..20; the default here is T = 2..16 (benchmark:
    benchmarks/README.md times the full T = 2..20 run).""",
    grid=Grid(product={"graph": list(TREE_DEGREES), "protocol": ["adaptive-diffusion"],
                       "estimator": ["ml"], "T": [2, 4, 6, 8, 10, 12, 14, 16]}),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes=DETECTION_AXES,
    metadata=detection_metadata,
    default_trials=10_000,
    plot=PlotSpec(x="T", series="graph", y=("detection", "n_infected"), logy=True),
))


def facebook_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator, *,
                    components: Mapping[str, Any] | None = None) -> dict:
    """``n`` trials of adaptive diffusion on a social graph as the thesis ran Figs. 2.8-2.9.

    d0 = inf, at most 3 new infections per infecting node and step, ``infectors`` who may
    infect (``"leaves"``: the authors' rule; ``"all"``: Protocol 3 as written), ``stuck``
    what a virtual source at a dead end does (``"pass"``: the authors' rule; ``"keep"``),
    tree relay; the adversary sees the infection tree (near-ML of §2.4.2). Time is counted in
    rounds, one virtual-source pass = two protocol steps (the thesis's time unit):
    ``T = 2 * rounds``.
    """
    from anonspread.adversaries import simulate_and_score
    from anonspread.spread.protocols import AdaptiveDiffusion

    g = make_graph(params, rng, components=components)
    proto = AdaptiveDiffusion(math.inf, 3, infectors=str(params["infectors"]),
                              stuck=str(params.get("stuck", "keep")))
    b = simulate_and_score(g, proto, 2 * int(params["rounds"]), n, estimators=("ml",), rng=rng)
    e = b["ml"]
    n_inf = b.n_infected.astype(np.float64)
    return {
        "detection": e.detected.astype(np.float64),
        "hops": e.tree_hops.astype(np.float64),
        "graph_hops": e.hops.astype(np.float64),
        "n_infected": n_inf,
        "fraction": n_inf / g.number_of_nodes(),
    }


#: Declared axes of the Facebook figures.
FACEBOOK_AXES = {
    "graph": Param("str", kind="graph"),
    "infectors": Param("str", "leaves", choices=("leaves", "all"),
                       doc="who infects: infection-tree leaves (the authors' rule) or every reached node"),
    "stuck": Param("str", "pass", choices=("pass", "keep"),
                   doc="a virtual source whose one tree neighbour sent it the token passes it back after "
                   "two rounds towards it (the authors' rule), or keeps it"),
    "rounds": Param("int", low=0, doc="rounds of two protocol steps (the thesis's time unit)"),
}

FACEBOOK_METRICS = (
    Metric("detection", "proportion", "P(detect), near-ML"),
    Metric("hops", "mean", "E[hops over the infection tree]", low=0.0),
    Metric("graph_hops", "mean", "E[hops in the contact graph]", low=0.0),
    Metric("n_infected", "mean", "E[N]", low=1.0),
    Metric("fraction", "mean", "fraction of the graph reached", low=0.0),
)

_FACEBOOK_SETTING = """
    Setting (the thesis's reading, stated): adaptive diffusion with d0 = inf and at most 3
    new infections per infecting node and step, run with the rule of the authors' public
    simulation code as far as it can be read (their infect_nodes_adaptive_diff) -- only
    the current leaves of the infection tree infect (AdaptiveDiffusion(infectors="leaves");
    --set infectors=all runs Protocol 3 as written, where every node an infection message
    reaches infects), and the token moves to a uniform infection-tree neighbour other than
    the node it came from, a virtual source whose only tree neighbour is that node sending
    it two rounds of infection messages and passing the token back to it
    (AdaptiveDiffusion(stuck="pass"); --set stuck=keep keeps the token at such a dead end,
    Protocol 3 as written; on ego-Facebook after 10 rounds the reach is 0.284 +- 0.007
    with the authors' rule against 0.256 +- 0.006 with keep, 600 runs each) -- and its time
    unit: one round = one virtual-source pass = two protocol steps (rounds r = 1..10 are
    T = 2r steps). Graphs: the bundled SNAP ego-Facebook graph with nodes of degree < 3
    removed once (3,866 nodes), and a stand-in of the thesis's size for its 2009 New
    Orleans Facebook graph (9,502 users; not redistributable, no degree statistics given):
    a seeded Holme-Kim graph, networkx.powerlaw_cluster_graph(9502, 12, 0.5, seed=1), mean
    degree 23.9, average clustering 0.09. Source uniform over the graph; the adversary
    sees the infection tree and uses the near-ML estimator of §2.4.2."""

register_experiment(Experiment(
    name="fig2.8-facebook-near-ml",
    title="Adaptive diffusion on Facebook-like graphs: near-ML detection and reach (Fig. 2.8; time in rounds of 2 steps)",
    description="""
    Thesis Figure 2.8: the probability that the near-ML adversary names the source, and the
    fraction of the graph reached (the thesis: 96% of its graph in 10 time steps), against
    time in rounds.""" + _FACEBOOK_SETTING,
    grid=Grid(product={"graph": ["ego-facebook", "holme-kim-9502"], "infectors": ["leaves"],
                       "stuck": ["pass"], "rounds": list(range(1, 11))}),
    metrics=FACEBOOK_METRICS,
    trials=facebook_trials,
    axes=FACEBOOK_AXES,
    metadata=detection_metadata,
    default_trials=2000,
    plot=PlotSpec(x="rounds", xlabel="time in rounds (2 protocol steps each)", series="graph",
                  y=("detection", "fraction")),
))


register_experiment(Experiment(
    name="fig2.9-facebook-hops",
    title="Adaptive diffusion on Facebook-like graphs: hop distance of the near-ML estimate (Fig. 2.9; rounds of 2 steps)",
    description="""
    Thesis Figure 2.9: the mean hop distance between the true source and the near-ML
    estimate against time in rounds, measured over the infection subtree as the thesis
    does (hops; graph_hops is the contact-graph distance, never larger).""" + _FACEBOOK_SETTING,
    grid=Grid(product={"graph": ["ego-facebook", "holme-kim-9502"], "infectors": ["leaves"],
                       "stuck": ["pass"], "rounds": list(range(1, 11))}),
    metrics=FACEBOOK_METRICS,
    trials=facebook_trials,
    axes=FACEBOOK_AXES,
    metadata=detection_metadata,
    default_trials=2000,
    plot=PlotSpec(x="rounds", xlabel="time in rounds (2 protocol steps each)", series="graph",
                  y=("hops", "graph_hops")),
))


#: The budgets of ``fig2.8-facebook-strongest-attack``'s simulation-based estimators, by
#: name (keyword arguments of their registered functions): soft-margin's runs per candidate
#: in the first round and the cap of the doubling (about 1 s per trial at round 3 on one
#: core); the learned adversary trains on its default budget (1,000 spreads, once per
#: worker and round).
FACEBOOK_BUDGETS = {"soft-margin": {"simulations": 250, "max_simulations": 2000}}

#: The estimators of ``fig2.8-facebook-strongest-attack``, in legend order.
FACEBOOK_ATTACKS = ("ml", "jordan", "rumor", "soft-margin", "learned", STRONGEST)


def _facebook_protocol(params: Mapping[str, Any]) -> Any:
    from anonspread.spread.protocols import AdaptiveDiffusion

    return AdaptiveDiffusion(math.inf, 3, infectors=str(params["infectors"]),
                             stuck=str(params.get("stuck", "keep")))


def facebook_prepare(points: Any, pilot: bool, *, executor: Any = None) -> Any:
    """``fig2.8-facebook-strongest-attack``'s one-off work: the learned adversary trained
    once per round for the whole run (:func:`learned_preparation`)."""
    def settings():
        for point in points:
            if point["estimator"] == LEARNED:
                task = ("facebook", dict(point))
                yield (*_learned_setting(task), task)

    return learned_preparation(settings(), pilot, executor=executor)


def facebook_attack_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator, *,
                           components: Mapping[str, Any] | None = None) -> dict:
    """``n`` spreads of Figs. 2.8-2.9's setting, each scored by every estimator of the
    paired ``estimator`` axis (budgets of the simulation-based ones:
    :data:`FACEBOOK_BUDGETS`); ``{estimator: metrics}`` with the helper metrics of the
    strongest attack (:func:`harness.selection.selection_arrays`)."""
    from anonspread import adversaries, spread
    from anonspread.harness.selection import selection_arrays

    g = make_graph(params, rng, components=components)
    proto = _facebook_protocol(params)
    names = params["estimator"] if isinstance(params["estimator"], tuple) else (params["estimator"],)
    if STRONGEST in names:
        raise InvalidParameterError(
            "estimator 'strongest' is derived from the other estimators (chosen on half of their "
            "trials); it has no trials of its own"
        )
    funcs = []
    for name in names:
        f = _as_function(name, proto, g, rng)
        budget = FACEBOOK_BUDGETS.get(name, {})
        # a batch form scores every trial at once (soft-margin shares its simulations)
        funcs.append(_Many(functools.partial(f.many, **budget)) if isinstance(f, _Many)
                     else functools.partial(f, **budget))
    out = {name: {k: np.empty(n) for k in ("detection", "hops", "n_infected")} for name in names}
    T = 2 * int(params["rounds"])

    def record(o, i, scores, source, size):
        ev = adversaries.evaluate(g, scores, source, rng=rng)
        o["detection"][i] = float(ev.detected)
        o["hops"][i] = ev.hops
        o["n_infected"][i] = size

    snaps, sources = [], []
    for i in range(n):
        s = spread.simulate(g, proto, T, rng=rng)
        snap = adversaries.observe(s, reveal_edges=True)
        snaps.append(snap)
        sources.append(s.source)
        for name, f in zip(names, funcs):
            if not isinstance(f, _Many):
                record(out[name], i, f(snap), s.source, snap.n)
    for name, f in zip(names, funcs):
        if isinstance(f, _Many):
            for i, sc in enumerate(f.many(snaps)):
                record(out[name], i, sc, sources[i], snaps[i].n)
    out = {name: {**o, **selection_arrays(o["detection"])} for name, o in out.items()}
    return out if isinstance(params["estimator"], tuple) else out[names[0]]


register_experiment(Experiment(
    name="fig2.8-facebook-strongest-attack",
    title="Adaptive diffusion on ego-Facebook against the strongest attacks we have (Fig. 2.8 re-tested; rounds of 2 steps)",
    description="""
    Thesis Figure 2.8's claim -- the adversary names the source with small probability -- was
    tested against the near-ML estimator of §2.4.2, a heuristic on graphs with cycles. Here
    the same spreads are also attacked by the Jordan centre, rumour centrality, the
    soft-margin estimator (Antulov-Fantulin et al., PRL 114, 248701, 2015: the protocol
    simulated from each candidate, Jaccard similarity with the snapshot, soft-margin kernel;
    adversaries.soft_margin; 250 runs per candidate doubled up to 2,000, the narrowest
    kernel that converged (snapshot reproduced, posterior within 0.02), else the narrowest
    with 10 runs near the snapshot, else the widest), which estimates the protocol's own
    likelihood from the infected set, and the learned adversary (adversaries.train_adversary:
    gradient-boosted trees over per-node features, the near-ML score among them, trained on
    1,000 simulated spreads of this very protocol on this graph, once per round for the run),
    and 'strongest' names the best of them chosen by the data (the most detections on the
    even-numbered trials of each batch, its detection reported on the odd-numbered ones).
    Rounds 1-3 only: a trial costs about 1 s of soft-margin at round 3 (~50 infected nodes)
    and ~50 s at round 4 with the estimator's own default budget. Paired: every estimator
    scores the same spreads. The Bayes ceiling (adversaries.bayes_ceiling) cannot be computed
    here: snapshots of tens of nodes on a graph of 3,866 nodes are beyond exact enumeration.
    Setting: Figs. 2.8-2.9's (see fig2.8-facebook-near-ml) -- adaptive diffusion with d0 = inf,
    at most 3 new infections per infecting node and step, tree relay, the authors' rules
    (infection-tree leaves infect, a stuck virtual source passes the token back), one round
    = two protocol steps; ego-Facebook with nodes of degree < 3 removed once (3,866 nodes);
    uniform source; the adversary sees the infection tree (the near-ML and the learned
    adversary use it, the soft-margin estimator, Jordan and rumour only the infected set).""",
    grid=Grid(product={"graph": ["ego-facebook"], "infectors": ["leaves"], "stuck": ["pass"],
                       "rounds": [1, 2, 3], "estimator": list(FACEBOOK_ATTACKS)}),
    metrics=(
        Metric("detection", "proportion", "P(detect)"),
        Metric("hops", "mean", "E[hops in the contact graph]", low=0.0),
        Metric("n_infected", "mean", "E[N]", low=1.0),
        *_SELECTION_METRICS,
    ),
    trials=facebook_attack_trials,
    axes={**FACEBOOK_AXES, "estimator": Param("str", kind="estimator")},
    paired="estimator",
    metadata=detection_metadata,
    default_trials=200,
    batch_size=25,
    derived=is_strongest,
    derive=strongest_detection,
    prepare=facebook_prepare,
    pilot=True,
    warm=warm_graph,
    plot=PlotSpec(x="rounds", xlabel="time in rounds (2 protocol steps each)", series="estimator",
                  y=("detection", "hops")),
))


# ----------------------------------------------------------------- Figure 2.2 (exact)


def posterior_fig22(params: Mapping[str, Any]) -> dict[str, float]:
    """Exact P(v* = k | V_T = {1..n}) on the line for Protocol 1 and random diffusion.

    Both ends of the infected interval move independently: under Protocol 1 each end's
    extent is uniform on {0..T} (the induction behind Prop. 2.2.1a), under random diffusion
    (p) it is Binomial(T, p). The posterior of k is proportional to
    P(left = k - 1) P(right = n - k).
    """
    from scipy import stats

    n, T, k = int(params["infected"]), int(params["T"]), int(params["position"])
    ks = np.arange(1, n + 1)
    left, right = ks - 1, n - ks
    if params["protocol"] == "line":
        w = ((left <= T) & (right <= T)).astype(float)
    else:
        p = 0.5
        w = stats.binom.pmf(left, T, p) * stats.binom.pmf(right, T, p)
    post = w / w.sum()
    return {"posterior": float(post[k - 1]), "uniform": 1.0 / n}


register_experiment(Experiment(
    name="fig2.2-line-posterior",
    title="Posterior of the source on the line: Protocol 1 vs random diffusion (Fig. 2.2)",
    description="""
    Thesis Figure 2.2, exact: the posterior P(v* = k | V_T = {1, ..., 101}) of the source
    position for Protocol 1 and for random diffusion (p = 1/2), both at T = 100 (where
    E[N_T] = 101 for each). Protocol 1's posterior is flat (Eq. 2.6); random diffusion's
    concentrates in a central window of width O(sqrt(T)).""",
    grid=Grid(product={"protocol": ["line", "random-diffusion"], "infected": [101], "T": [100],
                       "position": list(range(1, 102))}),
    metrics=(Metric("posterior", "mean", "P(v* = k | V_T)"),
             Metric("uniform", "mean", "1/|V_T|")),
    evaluate=posterior_fig22,
    # linear: the figure shows the central window of random diffusion against Protocol 1's
    # flat 1/101 (a log axis would stretch the 1e-58 tails instead)
    plot=PlotSpec(x="position", series="protocol", y=("posterior",), logy=False),
))


# ----------------------------------------------------------------- the main job

#: (graph, protocol, T) of the main job, each attacked by every applicable estimator. T
#: is chosen per graph and protocol for real reach: a sizeable fraction of each finite
#: graph is infected (measured numbers in docs/FIGURES.md).
_COMPARED = (
    ("regular-3", "adaptive-diffusion", 12, ("ml", "jordan", "rumor")),
    ("regular-3", "random-diffusion", 12, ("jordan", "rumor")),
    ("regular-3", "flooding", 12, ("jordan", "rumor")),
    ("ego-facebook", "adaptive-diffusion", 20, ("ml", "jordan", "rumor")),
    ("ego-facebook", "random-diffusion", 4, ("jordan", "rumor")),
    ("ego-facebook", "flooding", 3, ("jordan", "rumor")),
    ("soc-slashdot", "adaptive-diffusion", 16, ("ml", "jordan", "rumor")),
    ("soc-slashdot", "random-diffusion", 3, ("jordan", "rumor")),
    ("soc-slashdot", "flooding", 2, ("jordan", "rumor")),
)
_ZIP = [(g, p, T, e) for g, p, T, ests in _COMPARED for e in ests]
#: Share of the requested trials run on each graph (an 82k-node snapshot costs far more).
_TRIAL_SHARE = {"regular-3": 1.0, "ego-facebook": 0.2, "soc-slashdot": 0.02}


def compare_trials(params: Mapping[str, Any], trials: int) -> int:
    """Trials of a main-job point: all of them on the tree, a share (at least 10, at most
    all) on the real graphs."""
    return min(trials, max(10, round(trials * _TRIAL_SHARE.get(params["graph"], 1.0))))


def compare_theory(params: Mapping[str, Any]) -> float:
    """Exact detection on the d-regular tree where a closed form exists, else NaN.

    Adaptive diffusion under its ML estimator: :func:`adversaries.theory.
    adaptive_diffusion_detection`; flooding infects the ball of radius T around the
    source, whose centre is the Jordan and the rumour centre: detection 1.
    """
    if not str(params["graph"]).startswith("regular-"):
        return math.nan
    if params["protocol"] == "adaptive-diffusion" and params["estimator"] == "ml":
        from anonspread.adversaries.theory import adaptive_diffusion_detection

        return float(adaptive_diffusion_detection(_degree(params), int(params["T"])))
    if params["protocol"] == "flooding":
        return 1.0
    return math.nan


def inverse_size(params: Mapping[str, Any], means: Mapping[str, float]) -> float:
    """1/E[N_T]: the detection probability of a uniform guess among the infected nodes."""
    return 1.0 / means["n_infected"]


register_experiment(Experiment(
    name="compare-detection",
    title="Who finds the source? Adaptive diffusion vs random diffusion vs flooding, every estimator",
    description="""
    The main job. Three spreading protocols -- adaptive diffusion (Protocol 3), random
    diffusion (p = 1/2) and flooding -- on three contact graphs at real reach, each attacked
    by every applicable estimator: the ML estimator of adaptive diffusion (exact on the
    tree; on the real graphs the near-ML of §2.4.2 over the revealed infection tree), the
    Jordan centre and rumour centrality (on graphs with cycles over the infected subgraph;
    arg-max and source rank certified exactly with few BFS). Graphs, T and reach:
    the infinite 3-regular tree at T = 12 (adaptive diffusion with d0 = 3);
    the bundled ego-Facebook graph (degree >= 3: 3,866 nodes) with adaptive diffusion as the
    thesis's authors ran it (d0 = inf, cap 3, infection-tree leaves infect, a stuck virtual
    source passes the token back: AdaptiveDiffusion(infectors="leaves", stuck="pass")) at T = 20 (ten
    rounds), random diffusion at T = 4 and flooding at T = 3, each infecting a quarter to
    a half of the graph;
    the bundled soc-Slashdot graph (82,168 nodes, 504,230 edges) with adaptive diffusion at
    T = 16 and random diffusion at T = 3 (thousands of infected nodes) and flooding at
    T = 2 (hundreds to a few thousand: at T = 3 it reaches about 17,500 nodes, where one
    rumour evaluation takes about 16 s).
    Trials: --trials per point on the tree, a fifth of them on Facebook and 2% on Slashdot
    (at least 10, at most --trials). Paired: the estimators of one (graph, protocol, T)
    score the same simulated spreads (each spread is simulated once), so their
    differences are not blurred by different samples and E[N_T] is the same for all.
    Figure: one column per graph (T of each protocol under the title, in legend order);
    markers with 95% intervals, side by side per estimator; an estimate of 0 is drawn at 0
    with its interval (the log axis is linear from 0 to its lowest positive tick); black bars: exact theory on the tree
    (adaptive diffusion + ML: Thm 2.3.1 and its odd-T value; flooding infects the ball
    around the source, whose centre both centralities find); grey crosses: 1/E[N_T],
    what a uniform guess among the infected nodes achieves.
    Measured numbers: docs/FIGURES.md.""",
    grid=Grid(product={"stop": ["none"]}, zip={
        "graph": [z[0] for z in _ZIP],
        "protocol": [z[1] for z in _ZIP],
        "protocol.infectors": ["leaves" if z[0] != "regular-3" and z[1] == "adaptive-diffusion"
                               else "all" for z in _ZIP],
        "protocol.stuck": ["pass" if z[0] != "regular-3" and z[1] == "adaptive-diffusion"
                           else "keep" for z in _ZIP],
        "T": [z[2] for z in _ZIP],
        "estimator": [z[3] for z in _ZIP],
    }),
    metrics=DETECTION_METRICS,
    trials=detection_trials,
    axes={**DETECTION_AXES, "protocol.infectors": Param("str", choices=("all", "leaves")),
          "protocol.stuck": Param("str", choices=("keep", "pass"))},
    metadata=detection_metadata,
    point_trials=compare_trials,
    paired="estimator",
    warm=warm_graph,
    default_trials=1000,
    batch_size=50,
    plot=PlotSpec(x="estimator", series="protocol", facet="graph", annotate=("T",),
                  y=("detection", "n_infected"),
                  logy=True, theory=(Theory("detection", compare_theory, "exact (tree)"),),
                  references=(Reference("detection", inverse_size, "1/E[N_T] (uniform guess)"),)),
))
