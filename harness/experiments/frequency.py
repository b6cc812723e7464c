"""Frequency oracles under local privacy (:mod:`privacy.frequency`): a sweep, a regime map and
Wang et al. (2017)'s comparison of variances.

Registers

* kind ``oracle``: ``factory(k, eps) -> FrequencyOracle``, one per name of
  :data:`privacy.frequency.ORACLES` (``grr``, ``sue``, ``oue``, ``rappor``, ``olh``, ``blh``,
  ``hr``, ``ss``, ``geometric``);
* kind ``frequency-data``: ``factory(k) -> pmf`` over ``range(k)``: ``zipf`` (exponent ``s``),
  ``uniform``, and ``adult`` (the empirical distribution of a column of the bundled UCI
  Adult training data, its categories sorted by frequency);
* the ``frequency-oracles`` sweep template (oracle x eps x k x users x data): measured error of
  the unbiased estimate beside the closed form;
* the experiments ``frequency-best-oracle`` (exact: each oracle's expected squared L2 error
  over the best one's, eps x k) and ``frequency-wang2017-var`` (the papers' ``Var*`` against
  eps, measured by simulation, with Wang et al.'s formulas overlaid).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from anonspread.harness.components import register_component
from anonspread.harness.compose import SweepTemplate, register_template
from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Theory
from anonspread.harness.grid import Grid
from anonspread.harness.params import Param
from anonspread.harness.registry import register_experiment

__all__: list[str] = []

EPS_AXIS = Param("float", 1.0, low=0.01, high=20.0, doc="privacy level eps of every user's report")


# ----------------------------------------------------------------- components


def _oracle_factory(name: str, k: int, eps: float) -> Any:
    from anonspread.privacy.frequency import make_oracle

    return make_oracle(name, int(k), float(eps))


def zipf(k: int, s: float = 1.1) -> np.ndarray:
    """Zipf law over range(k): P(i) proportional to (i + 1)^-s."""
    w = np.arange(1, int(k) + 1, dtype=float) ** -float(s)
    return w / w.sum()


def uniform(k: int) -> np.ndarray:
    """The uniform law over range(k)."""
    return np.full(int(k), 1.0 / int(k))


@functools.lru_cache(maxsize=16)
def _adult_pmf(column: str) -> tuple[float, ...]:
    from anonspread.datasets.adult import load_adult

    col = load_adult("train").data[column]
    _, counts = np.unique(col, return_counts=True)
    counts = np.sort(counts)[::-1]
    return tuple((counts / counts.sum()).tolist())


def adult(k: int, column: str = "education") -> np.ndarray:
    """Empirical law of a column of UCI Adult (train), categories by decreasing frequency."""
    from anonspread.errors import InvalidParameterError

    pmf = np.array(_adult_pmf(column))
    if pmf.size > int(k):
        raise InvalidParameterError(
            f"k must be at least the {pmf.size} categories of Adult's column {column!r}; got {k}")
    return np.concatenate([pmf, np.zeros(int(k) - pmf.size)])


def _register_components() -> None:
    from anonspread.privacy.frequency import ORACLES

    for name in ORACLES:
        register_component("oracle", name, functools.partial(_oracle_factory, name),
                           description=f"frequency oracle {name!r} of privacy.frequency",
                           params={})
    register_component("frequency-data", "zipf", zipf,
                       params={"s": Param("float", 1.1, low=0.0, high=10.0, doc="Zipf exponent")})
    register_component("frequency-data", "uniform", uniform)
    register_component("frequency-data", "adult", adult,
                       params={"column": Param("str", "education", doc="a categorical column of Adult")})


_register_components()


# ----------------------------------------------------------------- the sweep


def oracle_trial(params: Mapping[str, Any], rng: np.random.Generator, *,
                 components: Mapping[str, Any]) -> dict[str, float]:
    """n users drawn from the data law privatise their values; error of the unbiased estimate."""
    k, n, eps = int(params["k"]), int(params["users"]), float(params["eps"])
    oracle = components["oracle"][params["oracle"]].build(k, eps, point=params, axis="oracle")
    pmf = components["data"][params["data"]].build(k, point=params, axis="data")
    values = rng.choice(k, size=n, p=pmf)
    truth = np.bincount(values, minlength=k) / n
    err = oracle.simulate(values, rng=rng).frequencies - truth
    return {"l2": float((err ** 2).sum()), "l2_closed_form": oracle.expected_squared_l2(truth, n),
            "l1": float(np.abs(err).sum()), "l1_closed_form": oracle.approx_expected_l1(truth, n),
            "linf": float(np.abs(err).max())}


def _closed_form(params: Mapping[str, Any], what: str) -> float:
    from anonspread.harness.components import component_info

    k, n, eps = int(params["k"]), int(params["users"]), float(params["eps"])
    pmf = component_info("frequency-data", params["data"]).build(k, point=params, axis="data")
    oracle = component_info("oracle", params["oracle"]).build(k, eps, point=params, axis="oracle")
    return getattr(oracle, what)(pmf, n)


def l2_theory(params: Mapping[str, Any]) -> float:
    """E ||f_hat - f||_2^2 at the data law (exact: the variance is linear in the counts)."""
    return _closed_form(params, "expected_squared_l2")


def l1_theory(params: Mapping[str, Any]) -> float:
    """E ||f_hat - f||_1 at the data law, normal approximation."""
    return _closed_form(params, "approx_expected_l1")


register_template(SweepTemplate(
    name="frequency-oracles",
    description="Frequency oracles: measured error of the unbiased frequency estimate beside the closed form.",
    components={"oracle": "oracle", "data": "frequency-data"},
    defaults={"oracle": ["grr", "oue", "olh", "hr", "ss"], "data": "zipf", "k": 64, "users": 10_000,
              "eps": 1.0},
    metrics=(
        Metric("l2", "mean", "E ||f_hat - f||_2^2 (measured)",
               description="squared L2 distance of the estimated frequencies from the users' frequencies"),
        Metric("l2_closed_form", "mean", "E ||f_hat - f||_2^2 (closed form)",
               description="the exact expected squared L2 error given the users' frequencies "
               "(sum of the per-value variances)"),
        Metric("l1", "mean", "E ||f_hat - f||_1 (measured)"),
        Metric("l1_closed_form", "mean", "E ||f_hat - f||_1 (normal approximation)"),
        Metric("linf", "mean", "max_i |f_hat_i - f_i| (measured)"),
    ),
    types={"eps": EPS_AXIS, "k": Param("int", 64, low=2, high=1 << 20, doc="number of values k"),
           "users": Param("int", 10_000, low=1, high=10**9, doc="number of users n")},
    trial=oracle_trial,
    default_trials=50,
    plot=PlotSpec(x="eps", series="oracle", logx=True, y=("l2", "l1"),
                  theory=(Theory("l2", l2_theory, "exact E||.||_2^2 at the data law"),
                          Theory("l1", l1_theory, "normal approx. at the data law"))),
))


# ----------------------------------------------------------------- the regime map (exact)

BEST_ORACLES = ("grr", "oue", "olh", "hr", "ss", "sue", "blh")


def best_oracle(params: Mapping[str, Any]) -> dict[str, float]:
    """The oracle's exact E||f_hat - f||^2 over the smallest among BEST_ORACLES, uniform data."""
    from anonspread.privacy.frequency import rank_oracles

    ranking = dict(rank_oracles(int(params["k"]), float(params["eps"]), int(params["users"]),
                                names=BEST_ORACLES))
    ratio = ranking[params["oracle"]] / min(ranking.values())
    return {"ratio": ratio, "best": float(ratio <= 1.0 + 1e-9)}


register_experiment(Experiment(
    name="frequency-best-oracle",
    title="Which frequency oracle wins where: exact expected squared L2 error over the best's",
    description="""
    Exact (no simulation): for n = 10,000 users with uniformly distributed values over k
    values, each oracle's expected squared L2 error E||f_hat - f||^2 (the sum of the exact
    per-value variances of privacy.frequency) divided by the smallest of them at the same k
    and eps (1 = the best there; 'best' is 1 for the oracles within 1e-9 of it). As the
    variance formulas of Wang et al. (2017) predict, GRR wins for small k or large eps
    (roughly k - 2 < 3 e^eps) and OUE and OLH (equal up to the rounding of g) otherwise;
    subset selection with the d of smallest Var* is the best or tied everywhere (it is
    GRR at d = 1 and close to OUE at d ~ k/(e^eps + 1), Ye and Barg 2018); Hadamard
    response (its high-privacy form) and BLH, whose variances are equal ((e^eps + 1)^2/(e^eps -
    1)^2 per user), are close to the best only at small eps; their curves coincide, as do
    OUE's and OLH's nearly. One panel per k (the panel title).""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"eps": [0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0], "k": [4, 32, 1024],
                       "users": [10_000], "oracle": list(BEST_ORACLES)}),
    metrics=(Metric("ratio", "mean", "E||f_hat - f||^2 / the best oracle's"),
             Metric("best", "mean", "1 if the oracle is the best (or tied)")),
    evaluate=best_oracle,
    plot=PlotSpec(x="eps", series="oracle", facet="k", logx=True, logy=True, y=("ratio",)),
))


# ----------------------------------------------------------------- Wang et al. 2017

WANG_D = (2, 4, 16, 128, 2048)
WANG_N = 10_000
WANG_K = 64  # for SUE, OUE, BLH, OLH, whose Var* does not depend on the domain size


def wang_formula(name: str) -> Any:
    """Var* of Wang et al. (2017): DE Eq. (4)-(5), SUE (§4.2), OUE (§4.3), BLH and OLH (§4.4)."""

    def var(params: Mapping[str, Any]) -> float:
        e, n = math.exp(float(params["eps"])), WANG_N
        if name.startswith("de_"):
            d = int(name[3:])
            return n * (e + d - 2) / (e - 1) ** 2
        if name == "sue":
            h = math.exp(float(params["eps"]) / 2)
            return n * h / (h - 1) ** 2
        if name == "blh":
            return n * (e + 1) ** 2 / (e - 1) ** 2
        if name == "olh":  # with g = round(e^eps) + 1 as in the protocol (4 n e^eps/(e^eps-1)^2 at g = e^eps + 1)
            g = round(e) + 1
            return n * (e - 1 + g) ** 2 / ((e - 1) ** 2 * (g - 1))
        return 4 * n * e / (e - 1) ** 2  # oue

    return var


WANG_METRICS = (*(f"de_{d}" for d in WANG_D), "sue", "oue", "blh", "olh")


def wang_trial(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One run per protocol, all n users holding value 0: the squared estimate of each value
    nobody holds, averaged over those values (its mean over trials is Var*)."""
    from anonspread.privacy.frequency import make_oracle

    eps = float(params["eps"])
    out = {}
    for name in WANG_METRICS:
        if name.startswith("de_"):
            oracle = make_oracle("grr", int(name[3:]), eps)
        else:
            oracle = make_oracle(name, WANG_K, eps)
        est = oracle.simulate(np.zeros(WANG_N, dtype=np.int64), rng=rng).counts
        out[name] = float(np.mean(est[1:] ** 2))
    return out


register_experiment(Experiment(
    name="frequency-wang2017-var",
    title="Var* of the frequency oracles against eps, with the formulas of Wang, Blocki, Li, Jha (2017)",
    description="""
    The variance Var* of the estimated count of a value nobody holds, for n = 10,000 users,
    under direct encoding (GRR) with d = 2, 4, 16, 128, 2048 values, symmetric and optimised
    unary encoding, binary and optimised local hashing (the last four on 64 values: their
    Var* does not depend on d), measured by simulation (every user holds value 0; a trial
    averages the squared estimates of the d - 1 other values, so the trial mean estimates
    Var*) with the formulas of Wang et al. (2017) overlaid dashed: DE n(e^eps + d - 2)/(e^eps - 1)^2,
    SUE n e^(eps/2)/(e^(eps/2) - 1)^2, OUE 4 n e^eps/(e^eps - 1)^2, BLH n(e^eps + 1)^2/(e^eps - 1)^2,
    OLH the same expression as OUE at g = e^eps + 1 (here with the protocol's integer g =
    round(e^eps) + 1). Reproduces their comparison of Var* (the figure plotting Var* of each
    protocol against eps on a log scale): DE is best for small d or large eps, OUE and OLH
    tie (their curves nearly coincide), and the gap grows with d.""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"eps": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0]}),
    metrics=tuple(Metric(m, "mean", m.replace("de_", "DE d=").upper() if not m.startswith("de_")
                         else m.replace("de_", "DE, d = ")) for m in WANG_METRICS),
    trial=wang_trial,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="eps", logy=True,
                  panels=(("Var* (n = 10,000): measured, Wang et al. (dashed)", WANG_METRICS),),
                  theory=tuple(Theory(m, wang_formula(m), "Wang et al. 2017") for m in WANG_METRICS)),
))
