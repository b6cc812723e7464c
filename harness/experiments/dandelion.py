"""Dandelion and Dandelion++: precision and recall against the fraction of spies.

The papers' transaction model (:mod:`adversaries.transactions`): ``n = 100`` nodes,
``floor(p n)`` spies, every honest node sends one transaction, stems run until they
meet a spy (``q -> 0``), the adversary knows the anonymity graph and maps transactions
to nodes. One trial = one anonymity graph, one spy placement and all ``h`` stems; the
authors' scripts average 20 graphs x 30 path draws = 600 per point, the default here.

* ``dandelion-graphs`` -- Dandelion++ Fig. 3: random directed d-regular anonymity
  graphs (d = 1: Dandelion's line; d = 2: 4-regular; d = 3), per-transaction routing,
  first-spy and the likelihood adversaries (max-precision matching, max-recall MAP).
* ``dandelion-routing`` -- Dandelion++ Fig. 6: first-spy precision and recall on the
  4-regular graph for the four stem routing rules, and diffusion.
* ``dandelion-protocols`` -- the headline comparison: diffusion, Dandelion (line) and
  Dandelion++ (4-regular, one-to-one), first-spy and the best adversary we have.

Every figure overlays the papers' lower bounds (recall ``p``, precision ``p^2``, for any
protocol) and, for the line, the exact finite-n expectations of
:mod:`adversaries.transactions_theory`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Theory
from anonspread.harness.grid import Grid
from anonspread.harness.params import Param
from anonspread.harness.registry import register_experiment

__all__: list[str] = []

#: Spy fractions of the authors' configuration (``config_random_regular.py``).
FRACTIONS = [0.02, 0.04, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.45, 0.5]

#: name -> (anonymity-graph out-degree d, routing, transport) of the protocols compared.
PROTOCOL_SETUPS = {
    "diffusion": (2, "per-tx", "diffusion"),
    "dandelion": (1, "per-tx", "dandelion"),
    "dandelion++": (2, "one-to-one", "dandelion"),
}


def _undirected(n: int, indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    src = np.repeat(np.arange(n), np.diff(indptr))
    a = np.concatenate([src, indices])
    b = np.concatenate([indices, src])
    key = np.unique(a * n + b)
    a, b = key // n, key % n
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, a + 1, 1)
    return np.cumsum(ptr), b.astype(np.int64)


def population_trials(n_nodes: int, fraction: float, d: int, routing: str, transport: str,
                      estimators: tuple[str, ...], trials: int, rng: np.random.Generator,
                      q: float = 0.0) -> dict[str, np.ndarray]:
    """``trials`` draws of (anonymity graph, spies, every honest node's transaction).

    Returns ``precision_E`` and ``recall_E`` arrays for each estimator ``E`` and
    ``hops`` (mean stem length, diffusion: infected honest nodes before a spy).
    """
    from anonspread.adversaries import transactions as tx

    out = {f"{m}_{e}": np.zeros(trials) for e in estimators for m in ("precision", "recall")}
    out["hops"] = np.zeros(trials)
    for t in range(trials):
        g = tx.anonymity_graph(n_nodes, d, rng=rng)
        spy = tx.draw_spy_mask(n_nodes, fraction, rng=rng)
        if not spy.any():
            continue  # no spy sees anything: precision = recall = 0
        if transport == "diffusion":
            g = _undirected(n_nodes, *g)
        obs = tx.observe_transactions(g, spy, transport, routing=routing, q=q, rng=rng)
        out["hops"][t] = obs.hops.mean()
        for e in estimators:
            out[f"precision_{e}"][t], out[f"recall_{e}"][t] = tx.precision_recall(
                obs, tx.estimate(e.replace("_", "-"), obs, rng=rng))
    return out


# ----------------------------------------------------------------- theory overlays


def _k(params: Mapping[str, Any]) -> int:
    from anonspread.adversaries.transactions_theory import spies_for

    return spies_for(int(params["nodes"]), float(params["fraction"]))


def precision_bound(params: Mapping[str, Any]) -> float:
    """The papers' lower bound on the best expected precision, any protocol: ``p^2``."""
    from anonspread.adversaries.transactions_theory import precision_lower_bound

    return precision_lower_bound(float(params["fraction"]))


def recall_bound(params: Mapping[str, Any]) -> float:
    """The papers' lower bound on the best expected recall, any protocol: ``p``."""
    from anonspread.adversaries.transactions_theory import recall_lower_bound

    return recall_lower_bound(float(params["fraction"]))


def _is_line(params: Mapping[str, Any]) -> bool:
    if "d" in params:
        return int(params["d"]) == 1
    return params.get("protocol") == "dandelion"


def line_first_spy_precision(params: Mapping[str, Any]) -> float:
    """Exact E[precision] of first-spy on the line (NaN for other graphs)."""
    from anonspread.adversaries.transactions_theory import line_first_spy

    if not _is_line(params) or _k(params) < 1:
        return math.nan
    return float(line_first_spy(int(params["nodes"]), _k(params))[0])


def line_recall(params: Mapping[str, Any]) -> float:
    """Exact E[recall] of first-spy and of max-recall on the line: ``k/(n-1)``."""
    from anonspread.adversaries.transactions_theory import line_first_spy

    if not _is_line(params) or _k(params) < 1:
        return math.nan
    return float(line_first_spy(int(params["nodes"]), _k(params))[1])


def line_max_precision(params: Mapping[str, Any]) -> float:
    """Exact E[precision] of max-precision on the line: ``k/(n-1)``."""
    from anonspread.adversaries.transactions_theory import line_max_precision as f

    if not _is_line(params) or _k(params) < 1:
        return math.nan
    return float(f(int(params["nodes"]), _k(params)))


def line_first_spy_limit(params: Mapping[str, Any]) -> float:
    """``p^2 log(1/p)/(1-p)``: first-spy precision on the line as n -> inf."""
    from anonspread.adversaries.transactions_theory import line_first_spy_precision_limit

    if not _is_line(params):
        return math.nan
    return line_first_spy_precision_limit(float(params["fraction"]))


_AXES = {
    "fraction": Param("float", low=0.0, high=0.99, doc="fraction p of spies (floor(p n) spies)"),
    "nodes": Param("int", low=3, high=20_000, doc="nodes n of the anonymity graph"),
}

_BOUNDS_P = Theory("precision_first_spy", precision_bound, "lower bound p² (any protocol)")
_BOUNDS_R = Theory("recall_first_spy", recall_bound, "lower bound p (any protocol)")

#: Precision and recall of first-spy and the two likelihood adversaries (one epoch per trial).
_ESTIMATOR_METRICS = (
    Metric("precision_first_spy", "mean", "first-spy"),
    Metric("precision_max_precision", "mean", "max-precision"),
    Metric("recall_first_spy", "mean", "first-spy"),
    Metric("recall_max_recall", "mean", "max-recall"),
    Metric("precision_max_recall", "mean", "max-recall"),
    Metric("recall_max_precision", "mean", "max-precision"),
)
_ESTIMATOR_PANELS = (("expected precision", ("precision_first_spy", "precision_max_precision")),
                     ("expected recall", ("recall_first_spy", "recall_max_recall")))


# ----------------------------------------------------------------- Fig. 3: d-regular graphs


def graphs_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator) -> dict:
    """Per-transaction routing on the d-regular graph; first-spy, max-precision, max-recall."""
    out = population_trials(int(params["nodes"]), float(params["fraction"]), int(params["d"]),
                            "per-tx", "dandelion", ("first_spy", "max_precision", "max_recall"), n,
                            rng)
    return out


register_experiment(Experiment(
    name="dandelion-graphs",
    title="Dandelion(++) on d-regular anonymity graphs: precision and recall vs spy fraction (D++ Fig. 3)",
    description="""
    Dandelion++ (Fanti et al. 2018) Fig. 3 set-up, from the authors' scripts: n = 100
    nodes, floor(p n) spies, a random directed d-regular anonymity graph (union of d
    random Hamiltonian cycles; d = 1 is Dandelion's line, d = 2 the 4-regular graph),
    per-transaction routing, stems until they meet a spy (q -> 0), every honest node
    sends one transaction. Adversaries: first-spy; max-precision (maximum-weight matching
    of transactions to nodes on the exact stem likelihoods, the authors' MaxWeight
    estimator, whose precision equals its recall); max-recall (each transaction to its
    most likely source). Dashed: the papers' lower bounds for any protocol (p^2 on
    precision, p on recall) and, for d = 1, the exact finite-n expectations
    (adversaries.transactions_theory). One trial = one graph, spy placement and all
    stems; 600 per point as in the authors' 20 graphs x 30 runs.""",
    grid=Grid(product={"d": [1, 2, 3], "fraction": FRACTIONS, "nodes": [100]}),
    metrics=(*_ESTIMATOR_METRICS, Metric("hops", "mean", "E[stem hops]")),
    trials=graphs_trials,
    default_trials=600,
    batch_size=100,
    axes={"d": Param("int", low=1, high=10, doc="out-degree of the anonymity graph"), **_AXES},
    plot=PlotSpec(
        x="fraction", xlabel="spy fraction p", series="d", logx=True, logy=True,
        panels=_ESTIMATOR_PANELS,
        theory=(_BOUNDS_P, _BOUNDS_R,
                Theory("precision_first_spy", line_first_spy_precision, "line, first-spy (exact)"),
                Theory("precision_max_precision", line_max_precision, "line, max-precision (exact)"),
                Theory("recall_first_spy", line_recall, "line, recall (exact)")),
    ),
))


# ----------------------------------------------------------------- Fig. 6: routing rules

ROUTING_SCHEMES = ["diffusion", "per-tx", "per-edge", "all-to-one", "one-to-one"]


def routing_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator) -> dict:
    """First-spy on the 4-regular graph for one routing rule (or diffusion)."""
    scheme = str(params["scheme"])
    transport = "diffusion" if scheme == "diffusion" else "dandelion"
    routing = "per-tx" if scheme == "diffusion" else scheme
    return population_trials(int(params["nodes"]), float(params["fraction"]), 2, routing, transport,
                              ("first_spy",), n, rng)


register_experiment(Experiment(
    name="dandelion-routing",
    title="Dandelion++ stem routing rules on 4-regular graphs: first-spy precision and recall (D++ Fig. 6)",
    description="""
    Dandelion++ Fig. 6 set-up (authors' scripts, edgebased 0-3): n = 100, floor(p n) spies,
    the random 4-regular anonymity graph (2 out-arcs per node), stems until a spy (q -> 0),
    first-spy adversary, for the four forwarding rules -- per transaction (a uniform
    successor at every hop), per incoming edge (a fixed random successor per in-arc),
    all-to-one (one successor per node), one-to-one (in-arcs dealt one-to-one over the
    out-arcs; Dandelion++'s choice) -- and diffusion (exponential delays on the undirected
    graph). As in the authors' scripts, a stem back at a node it already left takes another
    successor than its routing table's (deterministic routings otherwise close loops of
    honest nodes), and a stem still unseen after n hops is attributed to the node it has
    reached (a failsafe fluff whose node the adversary learns). Dashed: the papers' lower bounds p^2 and p (any protocol).""",
    grid=Grid(product={"scheme": ROUTING_SCHEMES, "fraction": FRACTIONS, "nodes": [100]}),
    metrics=(
        Metric("precision_first_spy", "mean", "E[precision], first-spy"),
        Metric("recall_first_spy", "mean", "E[recall], first-spy"),
        Metric("hops", "mean", "E[hops before a spy]"),
    ),
    trials=routing_trials,
    default_trials=600,
    batch_size=100,
    axes={"scheme": Param("str", choices=tuple(ROUTING_SCHEMES), doc="routing rule or diffusion"),
          **_AXES},
    plot=PlotSpec(x="fraction", xlabel="spy fraction p", series="scheme", y=("precision_first_spy", "recall_first_spy"),
                  logx=True, logy=True, theory=(_BOUNDS_P, _BOUNDS_R)),
))


# ----------------------------------------------------------------- headline comparison


def protocols_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator) -> dict:
    """Diffusion, Dandelion or Dandelion++: first-spy and the best adversary we have."""
    d, routing, transport = PROTOCOL_SETUPS[str(params["protocol"])]
    if transport == "diffusion":
        out = population_trials(int(params["nodes"]), float(params["fraction"]), d, routing, transport,
                                ("first_spy",), n, rng)
        out["precision_best"] = out["precision_first_spy"].copy()
        out["recall_best"] = out["recall_first_spy"].copy()
        return out
    out = population_trials(int(params["nodes"]), float(params["fraction"]), d, routing, transport,
                            ("first_spy", "max_precision", "max_recall"), n, rng)
    return {
        "precision_first_spy": out["precision_first_spy"],
        "recall_first_spy": out["recall_first_spy"],
        "precision_best": out["precision_max_precision"],
        "recall_best": out["recall_max_recall"],
        "hops": out["hops"],
    }


register_experiment(Experiment(
    name="dandelion-protocols",
    title="Diffusion vs Dandelion vs Dandelion++: precision and recall vs spy fraction, bounds overlaid",
    description="""
    The papers' headline comparison in one figure (set-up of the authors' scripts: n = 100,
    floor(p n) spies, one transaction per honest node, stems until a spy, q -> 0).
    Diffusion: exponential delays on the undirected 4-regular graph, first-spy (the papers
    use first-spy for diffusion; no likelihood adversary is implemented for it, so its
    'best' is first-spy). Dandelion: the line (random directed cycle). Dandelion++: the
    4-regular graph with one-to-one routing. 'best' = the likelihood adversary
    (max-precision for precision, max-recall for recall; it knows the anonymity graph,
    not the routing tables). Dashed: the papers' lower bounds for any protocol (p^2,
    p) and the exact line expectations.""",
    grid=Grid(product={"protocol": list(PROTOCOL_SETUPS), "fraction": FRACTIONS, "nodes": [100]}),
    metrics=(
        Metric("precision_first_spy", "mean", "first-spy"),
        Metric("precision_best", "mean", "best"),
        Metric("recall_first_spy", "mean", "first-spy"),
        Metric("recall_best", "mean", "best"),
        Metric("hops", "mean", "E[hops before a spy]"),
    ),
    trials=protocols_trials,
    default_trials=600,
    batch_size=100,
    axes={"protocol": Param("str", choices=tuple(PROTOCOL_SETUPS), doc="spreading protocol"),
          **_AXES},
    plot=PlotSpec(
        x="fraction", xlabel="spy fraction p", series="protocol", logx=True, logy=True,
        panels=(("expected precision", ("precision_first_spy", "precision_best")),
                ("expected recall", ("recall_first_spy", "recall_best"))),
        theory=(_BOUNDS_P, _BOUNDS_R,
                Theory("precision_first_spy", line_first_spy_precision, "Dandelion, first-spy (exact)"),
                Theory("precision_best", line_max_precision, "Dandelion, max-precision (exact)"),
                Theory("recall_first_spy", line_recall, "Dandelion, recall (exact)")),
    ),
))


# ----------------------------------------------------------------- the deployed protocol


def deployed_trials(params: Mapping[str, Any], n: int, rng: np.random.Generator) -> dict:
    """Dandelion++ of :mod:`spread.dandelion` on a random 8-regular contact graph, one epoch.

    Per trial: a fresh contact graph, spies, one anonymity graph (relays among contacts,
    per-epoch diffusers with probability q, one-to-one routing) and one transaction per
    honest node through :func:`spread.simulate_stems`; the spies' view
    (:func:`adversaries.transactions.transactions_from_stems`) is attacked by first-spy and
    max-precision / max-recall.
    """
    import networkx as nx

    from anonspread.adversaries import transactions as tx
    from anonspread.spread.dandelion import DandelionPlusPlus, draw_anonymity_graph, simulate_stems

    nodes, q = int(params["nodes"]), float(params["q"])
    proto = DandelionPlusPlus(q)
    names = ("first_spy", "max_precision", "max_recall")
    out = {f"{m}_{e}": np.zeros(n) for e in names for m in ("precision", "recall")}
    for t in range(n):
        G = nx.random_regular_graph(8, nodes, seed=int(rng.integers(2**31)))
        spy = tx.draw_spy_mask(nodes, float(params["fraction"]), rng=rng)
        if not spy.any():
            continue
        honest = np.nonzero(~spy)[0]
        a = draw_anonymity_graph(G, proto, rng=rng)
        b = simulate_stems(G, proto, honest.shape[0], spies=np.nonzero(spy)[0].tolist(),
                           sources=honest.tolist(), anonymity=a, rng=rng)
        obs = tx.transactions_from_stems(b)
        for e in names:
            out[f"precision_{e}"][t], out[f"recall_{e}"][t] = tx.precision_recall(
                obs, tx.estimate(e.replace("_", "-"), obs, rng=rng))
    return out


register_experiment(Experiment(
    name="dandelion-deployed",
    title="Dandelion++ as deployed (relays among contacts, per-epoch diffusers q): precision and recall",
    description="""
    The protocol of spread.dandelion as specified for deployment (Dandelion++ §4: each node
    picks 2 relays among its contacts per epoch, is a diffuser with probability q, routes
    one-to-one; fluff = exponential-delay diffusion on the contact graph), on a random
    8-regular contact graph of n = 100 nodes (the authors' Fig. 8 uses out-degree 8), one
    epoch per trial, one transaction per honest node, run by the compiled spread.simulate_stems
    and observed through adversaries.transactions.transactions_from_stems. first-spy maps each
    transaction to the node the first spy got it from (stem or fluff). max-precision /
    max-recall are granted, for a transaction first seen in the fluff, the node that fluffed
    it (the papers' strong adversary; the authors' scripts grant the node before it) and use
    the per-hop-uniform stem likelihood with a per-hop coin q -- an approximation here
    (per-epoch diffusers, one-to-one tables). Dashed: the papers' lower bounds p^2 and p.""",
    grid=Grid(product={"q": [0.1, 0.25, 0.5], "fraction": [0.05, 0.1, 0.2, 0.3], "nodes": [100]}),
    metrics=_ESTIMATOR_METRICS,
    trials=deployed_trials,
    default_trials=200,
    batch_size=50,
    axes={"q": Param("float", low=0.0, high=1.0, doc="diffuser probability per epoch"), **_AXES},
    plot=PlotSpec(
        x="fraction", xlabel="spy fraction p", series="q", logx=True, logy=True,
        panels=_ESTIMATOR_PANELS,
        theory=(_BOUNDS_P, _BOUNDS_R),
    ),
))
