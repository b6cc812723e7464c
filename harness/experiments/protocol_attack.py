"""Which protocol hides the source best against which attack: the ``protocol-attack`` sweep.

One transaction (rumour) per trial from a uniformly drawn honest source on a chosen graph
family; ``floor(fraction n)`` spies drawn uniformly among the other nodes record who sent
them the message first and when; the snapshot adversary (adaptive diffusion only: the
others run to completion, so their snapshot is the whole graph) sees the infected subgraph
and, on graphs with cycles, the infection tree (the §2.4.2 adversary). Each value of the
``attack`` axis is a pair ``PROTOCOL/ADVERSARY``; the adversary is any estimator of the
registry (:data:`adversaries.ESTIMATORS`) that applies to that protocol and graph --
applicability is the registry's ``why_not``, so a pair that does not apply is skipped
before anything runs and named with the registry's reason (the printed table, the JSON's
``"skipped"``); only a sweep where no pair applies is refused.

Protocols: ``adaptive-diffusion`` (Protocol 3 as the thesis runs it on the graph, for
``T`` steps, message-level engine), ``diffusion`` (Bitcoin-style: exponential delays on
every edge, run to completion), ``dandelion`` (line anonymity graph, fluff probability
``q`` per hop) and ``dandelion++`` (4-regular anonymity graph over contacts, one-to-one
routing, diffusers per epoch with probability ``q``), the last three through the compiled
:func:`spread.simulate_stems`. The metric is the probability that the adversary's pick
(ties shared) is the source -- the expected recall of one transaction in the Dandelion
papers' terms, whose lower bound ``p`` (any protocol) is overlaid.

    anonspread sweep protocol-attack --set graph=random-regular --set graph.n=1000 \\
        --set fraction=0.02,0.05,0.1,0.2 --trials 300 --rng 1 --out results/
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from anonspread.errors import GraphError, InvalidParameterError
from anonspread.harness.compose import SweepTemplate, register_template
from anonspread.harness.experiment import Metric, PlotSpec, Theory
from anonspread.harness.params import Param
from anonspread.harness.selection import SELECTION_METRICS as _SELECTION_METRICS

__all__: list[str] = []

PROTOCOLS = ("adaptive-diffusion", "diffusion", "dandelion", "dandelion++")

#: The default comparison: every protocol with every adversary that applies on any graph
#: and costs at most ~15 ms of CPU per trial at 10^3 nodes (measured: AD first-spy 12.7 ms,
#: the snapshot estimators 0.1 ms, the stems' first-spy 0.4-0.7 ms). The other applicable
#: ones are added with ``--set attack=...``: ``eif`` (any protocol, 1.4-1.7 s per trial at 10^3
#: nodes and 100 spies), ``pinto`` (diffusion), ``lisn``, ``netsleuth`` (adaptive diffusion,
#: snapshot), and on trees ``ml-snapshot-spies`` (adaptive diffusion).
DEFAULT_ATTACKS = (
    "adaptive-diffusion/first-spy", "adaptive-diffusion/jordan", "adaptive-diffusion/rumor",
    "adaptive-diffusion/ml", "adaptive-diffusion/strongest", "diffusion/first-spy",
    "dandelion/first-spy", "dandelion++/first-spy",
)

#: The adversary name of a protocol's strongest attack (``PROTOCOL/strongest``): chosen by
#: the data among the sweep's other attacks on that protocol (:mod:`harness.selection`).
STRONGEST = "strongest"
#: The adversary name of a protocol's Bayes ceiling (``PROTOCOL/ceiling``, :func:`ceiling_setting`).
CEILING = "ceiling"


def _attack_names() -> tuple[str, ...]:
    from anonspread.adversaries import ESTIMATORS  # the package fills its registry

    names = [f"{p}/{e}" for p in PROTOCOLS for e in sorted(ESTIMATORS) if e != "exact"]
    return tuple(names + [f"{p}/{a}" for a in (STRONGEST, CEILING) for p in PROTOCOLS])


def make_protocol(name: str, graph: Any, params: Mapping[str, Any]) -> Any:
    """The protocol object of ``name`` on ``graph`` (``q`` for the stems)."""
    q = float(params.get("q", 0.1))
    if name == "adaptive-diffusion":
        from anonspread.harness.experiments.spreading import adaptive_diffusion

        return adaptive_diffusion(graph)
    if name == "diffusion":
        from anonspread.spread.events import ContinuousDiffusion

        return ContinuousDiffusion(1.0)
    from anonspread.spread.dandelion import Dandelion, DandelionPlusPlus

    return Dandelion(q) if name == "dandelion" else DandelionPlusPlus(q)


def _split(attack: str) -> tuple[str, str]:
    proto, _, adv = str(attack).partition("/")
    if proto not in PROTOCOLS or not adv:
        raise InvalidParameterError(
            f"attack must be PROTOCOL/ADVERSARY with PROTOCOL in {list(PROTOCOLS)}; got {attack!r}"
        )
    return proto, adv


def _observation_of(spec: Any, snapshot: Any, spies: Any) -> tuple:
    if spec.observation == "snapshot":
        return (snapshot,)
    if spec.observation == "spies":
        return (spies,)
    return (snapshot, spies)


def attack_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator, *,
                  components: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """``n`` transactions of one protocol on the point's graph, scored by one adversary."""
    from anonspread import adversaries as A
    from anonspread.harness.experiments.spreading import make_graph

    proto_name, adv = _split(params["attack"])
    g = make_graph(params, rng, components=components)
    if g.is_infinite:
        raise GraphError(
            f"graph must be finite for the protocol-attack sweep (Dandelion needs every node); got {g!r}"
        )
    protocol = make_protocol(proto_name, g, params)
    spec = A.get_estimator(adv)
    stem = proto_name != "adaptive-diffusion"
    reason = _why_not(proto_name, adv, protocol, g)
    if reason is not None:
        raise InvalidParameterError(f"attack {params['attack']!r} does not apply: {reason}")
    N = g.number_of_nodes()
    k = math.floor(float(params["fraction"]) * N + 1e-9)
    if k >= N:
        raise InvalidParameterError(f"fraction must leave an honest node; got {params['fraction']} of {N}")
    spies = np.empty((n, k), np.int64)
    sources = np.empty(n, np.int64)
    for i in range(n):
        draw = rng.choice(N, size=k + 1, replace=False)
        sources[i], spies[i] = draw[0], draw[1:]
    labels = _labels(g, np.arange(N))
    kw = spec.params(protocol, g)
    if spec.random:  # a simulation-based estimator draws from the run's generator
        kw["rng"] = rng
    out = {"detection": np.zeros(n)}
    done = _with_selection(out)
    if stem:
        from anonspread.spread.dandelion import simulate_stems

        batch = simulate_stems(g, protocol, n, spies=[[labels[j] for j in row] for row in spies]
                               if k else (), sources=[labels[s] for s in sources], rng=rng)
        for i in range(n):
            if k == 0:
                out["detection"][i] = 1.0 / N  # nothing seen: a uniform guess
                continue
            scores = spec.func(batch.observation(i), **kw)
            out["detection"][i] = A.detection_probability(scores, labels[sources[i]])
        return done()
    T = int(params["T"])
    if spec.observation == "snapshot" and spec.batch:
        # no spies involved: the compiled Monte Carlo path (simulate + estimate + score)
        b = A.simulate_and_score(g, protocol, T, n, estimators=(adv,), rng=rng)
        out["detection"] = b[adv].detection_probability.astype(np.float64)
        return done()
    from anonspread.spread.events import simulate_messages

    for i in range(n):
        run = simulate_messages(g, protocol, T, source=labels[sources[i]], rng=rng)
        obs = A.observe_spies(run, [labels[j] for j in spies[i]]) if k else None
        if spec.observation != "snapshot" and k == 0:
            out["detection"][i] = 1.0 / N
            continue
        snap = A.observe(run.spread, reveal_edges=True)
        scores = spec.func(*_observation_of(spec, snap, obs), **kw)
        out["detection"][i] = A.detection_probability(scores, labels[sources[i]])
    return done()


def _with_selection(out: dict[str, np.ndarray]) -> Any:
    """``out`` with the helper metrics of the strongest attack, once ``detection`` is filled
    (:func:`harness.selection.selection_arrays`; ``detection`` here is the probability
    that the pick is the source, ties shared, so the selection counts are expected hits)."""
    from anonspread.harness.selection import selection_arrays

    def done() -> dict[str, np.ndarray]:
        return {**out, **selection_arrays(out["detection"])}

    return done


def _why_not(proto_name: str, adv: str, protocol: Any, g: Any) -> str | None:
    """The registry's reason an adversary does not apply to a protocol on ``g`` (or None)."""
    from anonspread import adversaries as A

    spec = A.get_estimator(adv)
    reason = spec.why_not(protocol, g, reveal_edges=True)
    if reason is None and proto_name != "adaptive-diffusion" and spec.observation != "spies":
        reason = (f"estimator {adv!r} needs a snapshot, and {proto_name} runs to completion (its "
                  "snapshot is the whole graph): only spy estimators apply")
    return reason


def attack_skip(params: Mapping[str, Any], components: Mapping[str, Any] | None = None) -> str | None:
    """Why an attack of the sweep does not apply on the point's graph (skipped and named by
    the run, never a refusal of the whole sweep), or None. ``PROTOCOL/strongest`` always
    applies (it is derived from the other attacks; with none, the run says so)."""
    from anonspread.harness.experiments.spreading import make_graph

    proto_name, adv = _split(params["attack"])
    if adv in (STRONGEST, CEILING):
        return None
    g = make_graph(params, np.random.default_rng(0), components=components)
    if g.is_infinite:
        return None  # refused with its reason when the trials run
    return _why_not(proto_name, adv, make_protocol(proto_name, g, params), g)


def attack_cost(params: Mapping[str, Any], *, components: Mapping[str, Any] | None = None) -> float:
    """Estimated node visits of one transaction: a stem protocol runs a heap Dijkstra over
    the whole graph ((n + m) log2 n); adaptive diffusion what :func:`spread.limits.run_work`
    says. A point that cannot be built counts 1 (its trials report why)."""
    from anonspread.errors import AnonspreadError
    from anonspread.harness.experiments.spreading import _component
    from anonspread.harness.graphs import graph_for
    from anonspread.spread.limits import run_work

    try:
        proto_name, _ = _split(params["attack"])
        g = graph_for(_component("graph", params, components), params)
        if g.is_infinite:
            return 1.0
        if proto_name == "adaptive-diffusion":
            return run_work(g, make_protocol(proto_name, g, params), int(params["T"]))
        n = g.number_of_nodes()
        return (n + 2.0 * g.number_of_edges()) * max(1.0, math.log2(n))
    except AnonspreadError:
        return 1.0


def is_strongest(params: Mapping[str, Any]) -> bool:
    """Whether the point is a protocol's strongest attack (derived, no trials of its own)."""
    return str(params["attack"]).endswith("/" + STRONGEST)


def is_ceiling(params: Mapping[str, Any]) -> bool:
    """Whether the point is a protocol's Bayes ceiling (derived, no trials of its own)."""
    return str(params["attack"]).endswith("/" + CEILING)


def is_derived(params: Mapping[str, Any]) -> bool:
    """Whether the point is derived from the others (strongest attack or Bayes ceiling)."""
    return is_strongest(params) or is_ceiling(params)


def strongest_attack(table: Any, points: Any, level: float, components: Any = None) -> Any:
    """The rows of each ``PROTOCOL/strongest`` point: among the sweep's other attacks on
    that protocol at the same point (same graph, fraction, T, q), the one with the most
    detections on the even-numbered trials of each batch, reported on the odd-numbered
    ones (:func:`harness.selection.strongest_rows`)."""
    from anonspread.harness.selection import strongest_rows

    computed = list({tuple(r[p] for p in table.params): {p: r[p] for p in table.params}
                     for r in table.rows}.values())

    def candidates(point: Mapping[str, Any]) -> list[dict[str, Any]]:
        proto = _split(point["attack"])[0]
        same = [c for c in computed if all(c[p] == point[p] for p in table.params if p != "attack")]
        return [c for c in same if _split(c["attack"])[0] == proto and not is_derived(c)]

    return strongest_rows(table, points, candidates, axis="attack", level=level)


def ceiling_setting(point: Mapping[str, Any], components: Any = None) -> Any:
    """What :func:`harness.ceiling.ceiling_rows` needs for a ``PROTOCOL/ceiling`` point, or why
    there is none.

    The ceiling is that of the snapshot adversary without spies: with spies
    (``fraction > 0``) the adversary sees more than the snapshot, and no ceiling is computed.
    With no spies, a protocol that runs to completion leaves the source's whole connected
    component infected, so the adversary can only guess within it: the ceiling is exactly
    (number of connected components) / n. Adaptive diffusion as this sweep runs it (a cap
    on infections per step on finite graphs) has no exact enumeration: the reason is
    :func:`adversaries.bayes_ceiling`'s.
    """
    from anonspread.errors import AnonspreadError
    from anonspread.harness.experiments.spreading import make_graph

    proto_name, _ = _split(point["attack"])
    if float(point["fraction"]) > 0:
        return (f"the ceiling is the snapshot adversary's (no spies); with fraction={point['fraction']} "
                "the spies see more than the snapshot")
    if point.get("fresh_graph"):
        return "fresh_graph=true draws a graph per trial batch; the ceiling is that of one graph"
    try:
        g = make_graph(point, np.random.default_rng(0), components=components)
    except AnonspreadError as exc:
        return str(exc)
    if g.is_infinite:
        return f"graph must be finite for the protocol-attack sweep; got {g!r}"
    if proto_name != "adaptive-diffusion":
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        from anonspread.harness.ceiling import exact_ceiling

        n = g.number_of_nodes()
        adj = csr_matrix((np.ones(g.indices.shape[0], np.int8), g.indices, g.indptr), shape=(n, n))
        k = int(connected_components(adj, directed=False)[0])
        return exact_ceiling(k / n, k, n, f"{proto_name} runs to completion: the snapshot is the "
                             f"source's connected component ({k} of them), every node of it equally "
                             f"likely under the uniform prior over the {n} nodes")
    try:
        return g, make_protocol(proto_name, g, point), int(point["T"])
    except AnonspreadError as exc:
        return str(exc)


def derived_attacks(table: Any, points: Any, level: float, components: Any = None) -> Any:
    """The rows of the derived points: ``PROTOCOL/strongest`` (:func:`strongest_attack`), then
    ``PROTOCOL/ceiling`` (:func:`ceiling_setting`, :func:`harness.ceiling.ceiling_rows`)."""
    import functools

    from anonspread.harness.ceiling import ceiling_rows

    table = strongest_attack(table, [p for p in points if is_strongest(p)], level, components)
    return ceiling_rows(table, [p for p in points if is_ceiling(p)],
                        functools.partial(ceiling_setting, components=components), axis="attack",
                        level=level)


def _labels(g: Any, idx: np.ndarray) -> list:
    return g.labels_of(idx).tolist()


def recall_bound(params: Mapping[str, Any]) -> float:
    """The Dandelion papers' lower bound on expected recall, any protocol: ``p``."""
    return float(params["fraction"])


register_template(SweepTemplate(
    name="protocol-attack",
    description="Detection probability of one transaction (expected recall) for protocol x "
    "adversary pairs ('attack' = PROTOCOL/ADVERSARY) on a graph family against the fraction "
    "of spies: adaptive diffusion, diffusion, Dandelion, Dandelion++; every registered "
    "estimator that applies (spies, snapshot, both); PROTOCOL/ceiling is the snapshot "
    "adversary's Bayes ceiling where computable (no spies).",
    components={"graph": "graph"},
    defaults={"graph": "random-regular", "attack": DEFAULT_ATTACKS,
              "fraction": (0.02, 0.05, 0.1, 0.2, 0.3), "T": 8,
              "q": 0.1, "fresh_graph": False},
    types={
        "attack": Param("str", choices=_attack_names(), doc="PROTOCOL/ADVERSARY pairs"),
        "fraction": Param("float", low=0.0, high=0.99, doc="fraction of spies"),
        "T": Param("int", 8, low=1, doc="steps of adaptive diffusion (the others run to completion)"),
        "q": Param("float", 0.1, low=0.0, high=1.0, doc="Dandelion(++) fluff probability"),
        "fresh_graph": Param("bool", False, doc="a fresh random graph per trial batch"),
    },
    metrics=(Metric("detection", "proportion", "P(detect source)"), *_SELECTION_METRICS),
    trials=attack_trials,
    skip=attack_skip,
    cost=attack_cost,
    derived=is_derived,
    derive=derived_attacks,
    default_trials=300,
    plot=PlotSpec(x="fraction", xlabel="spy fraction p", series="attack", y=("detection",), logx=True,
                  theory=(Theory("detection", recall_bound, "p (Dandelion papers' recall bound)"),)),
))
