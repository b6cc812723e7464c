"""Local differential privacy experiments of Kairouz's thesis, chapter 3 (Figs. 3.3-3.7).

Also registers the privacy components and the ``ldp-utility`` sweep template:

* kind ``mechanism``: ``factory(utility, eps) -> Mechanism`` for ``binary``
  (Eq. 3.14, or Eq. 3.22 for mutual information), ``randomized_response`` (Eq. 3.16),
  ``geometric`` (the truncated geometric baseline of §3.3.2), ``staircase`` (the
  optimal one, LP 3.11) and ``binary_or_rr`` (the better of the first two);
* kind ``utility``: ``factory(k, rng) -> SublinearUtility`` drawing a random
  instance uniformly from the simplex: ``kl`` (``D(M0||M1)`` for random ``P0, P1``),
  ``tv`` (total variation) and ``mi`` (``I(X; Y)`` for a random ``P``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.components import register_component
from harness.compose import SweepTemplate, register_template
from harness.experiment import Experiment, Metric, PlotSpec, Theory
from harness.grid import Grid
from harness.registry import register_experiment

__all__: list[str] = []

EPS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
MECHANISMS = ("binary", "randomized_response", "geometric", "staircase")


# ----------------------------------------------------------------- components


def binary(utility: Any, eps: float) -> Any:
    """The binary mechanism of the utility: Eq. (3.22) for mutual information, else (3.14)."""
    from privacy.mechanisms import binary_mechanism, binary_mechanism_mi

    if hasattr(utility, "P"):
        return binary_mechanism_mi(utility.P, eps)
    return binary_mechanism(utility.P0, utility.P1, eps)


def randomized_response(utility: Any, eps: float) -> Any:
    """k-ary randomized response, Eq. (3.16)."""
    from privacy.mechanisms import randomized_response as rr

    return rr(utility.n_inputs, eps)


def geometric(utility: Any, eps: float) -> Any:
    """Truncated geometric mechanism (the baseline of §3.3.2)."""
    from privacy.mechanisms import geometric_mechanism

    return geometric_mechanism(utility.n_inputs, eps)


def staircase(utility: Any, eps: float) -> Any:
    """The optimal staircase mechanism (LP 3.11, Theorem 3.2.4)."""
    from privacy.staircase import optimal_staircase

    return optimal_staircase(utility, eps)


def binary_or_rr(utility: Any, eps: float) -> Any:
    """The better of binary and randomized response (§3.3.2, Fig. 3.4)."""
    from privacy.mechanisms import binary_or_randomized_response

    return binary_or_randomized_response(utility, eps)


def random_kl(k: int, rng: np.random.Generator) -> Any:
    """``D_kl(M0 || M1)`` for ``P0, P1`` uniform on the simplex of size ``k``."""
    from privacy.utility import KL

    return KL(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)))


def random_tv(k: int, rng: np.random.Generator) -> Any:
    """Total variation for ``P0, P1`` uniform on the simplex."""
    from privacy.utility import TotalVariation

    return TotalVariation(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)))


def random_mi(k: int, rng: np.random.Generator) -> Any:
    """``I(X; Y)`` for ``X ~ P``, ``P`` uniform on the simplex."""
    from privacy.utility import MutualInformation

    return MutualInformation(rng.dirichlet(np.ones(k)))


for _name, _f in (("binary", binary), ("randomized_response", randomized_response),
                  ("geometric", geometric), ("staircase", staircase), ("binary_or_rr", binary_or_rr)):
    register_component("mechanism", _name, _f, description=(_f.__doc__ or "").splitlines()[0])
for _name, _f in (("kl", random_kl), ("tv", random_tv), ("mi", random_mi)):
    register_component("utility", _name, _f, description=(_f.__doc__ or "").splitlines()[0])


def _normalised(utility: Any, mechanism: Any) -> float:
    """Utility of a mechanism divided by that of publishing X itself (eps = inf)."""
    return utility.value(mechanism) / utility.value(np.eye(utility.n_inputs))


# ----------------------------------------------------------------- Figs. 3.3 and 3.6


def _compare(params: Mapping[str, Any], rng: np.random.Generator, draw: Any) -> dict[str, float]:
    utility = draw(int(params["k"]), rng)
    eps = float(params["eps"])
    out = {}
    for name, factory in zip(MECHANISMS, (binary, randomized_response, geometric, staircase)):
        out[name] = _normalised(utility, factory(utility, eps))
    return out


def kl_compare(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One random (P0, P1): D(M0||M1)/D(P0||P1) under the four mechanisms."""
    return _compare(params, rng, random_kl)


def mi_compare(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One random P: I(X;Y)/H(X) under the four mechanisms."""
    return _compare(params, rng, random_mi)


_METRICS = tuple(Metric(m, "mean", m.replace("_", " ")) for m in MECHANISMS)

register_experiment(Experiment(
    name="ldp-kl-mechanisms",
    title="Normalised KL of binary, RR, geometric and optimal mechanisms (thesis Fig. 3.3 left)",
    description="""
    For random pairs P0, P1 drawn uniformly from the simplex of size k = 6, the
    divergence D_kl(M0 || M1) of the privatised distributions divided by D_kl(P0 || P1),
    under the binary mechanism (Eq. 3.14), randomized response (Eq. 3.16), the truncated
    geometric mechanism and the optimal staircase mechanism (LP 3.11), averaged over the
    instances (one trial = one instance; all four mechanisms see the same instance).
    Reproduces Kairouz (2015), Fig. 3.3 left. Differences: the thesis does not say how
    its instances were drawn (we use Dirichlet(1, ..., 1)), and we report 95% intervals
    of the average.""",
    grid=Grid(product={"eps": EPS, "k": [6]}),
    metrics=_METRICS,
    trial=kl_compare,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="eps", logx=True, y=MECHANISMS),
))

register_experiment(Experiment(
    name="ldp-mi-mechanisms",
    title="Normalised mutual information of the four mechanisms (thesis Fig. 3.6 left)",
    description="""
    For random P uniform on the simplex of size k = 6, I(X; Y) / H(X) under the binary
    mechanism for mutual information (Eq. 3.22), randomized response, the truncated
    geometric mechanism and the optimal staircase mechanism, averaged over instances.
    Reproduces Kairouz (2015), Fig. 3.6 left (same caveats as ldp-kl-mechanisms).""",
    grid=Grid(product={"eps": EPS, "k": [6]}),
    metrics=_METRICS,
    trial=mi_compare,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="eps", logx=True, y=MECHANISMS),
))


# ----------------------------------------------------------------- Figs. 3.4 and 3.7


def _mixed(params: Mapping[str, Any], rng: np.random.Generator, draw: Any, floor: float) -> dict[str, float]:
    utility = draw(int(params["k"]), rng)
    eps = float(params["eps"])
    best = utility.value(staircase(utility, eps))
    ratio = utility.value(binary_or_rr(utility, eps)) / best if best > 0 else 1.0
    return {"ratio": ratio, "above_floor": float(ratio >= floor)}


def kl_mixed(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Better-of-binary-and-RR KL over the optimal KL, for one random instance."""
    return _mixed(params, rng, random_kl, 0.6)


def mi_mixed(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Better-of-binary-and-RR mutual information over the optimal one."""
    return _mixed(params, rng, random_mi, 0.75)


def _one(params: Mapping[str, Any]) -> float:
    return 1.0


for _name, _fig, _trial, _floor, _what in (
    ("ldp-kl-mixed", "3.4", kl_mixed, 0.6, "D_kl(M0 || M1)"),
    ("ldp-mi-mixed", "3.7", mi_mixed, 0.75, "I(X; Y)"),
):
    register_experiment(Experiment(
        name=_name,
        title=f"Better of binary and RR vs optimal (thesis Fig. {_fig})",
        description=f"""
        For random instances over alphabets of size k = 3..6, {_what} under the better of
        the binary mechanism and randomized response divided by its value under the
        optimal staircase mechanism ('ratio', averaged), and the fraction of instances
        where that ratio is at least {_floor:.0%} ('above_floor'; the thesis reports
        all of them do). Reproduces Kairouz (2015), Fig. {_fig}, which scatters every
        instance; we report the mean and the fraction with intervals instead.""",
        grid=Grid(product={"k": [3, 4, 5, 6], "eps": EPS}),
        metrics=(Metric("ratio", "mean", "ratio to optimal"),
                 Metric("above_floor", "proportion", f"fraction >= {_floor:.0%} of optimal")),
        trial=_trial,
        default_trials=100,
        batch_size=50,
        plot=PlotSpec(x="eps", series="k", logx=True, y=("ratio", "above_floor"),
                      theory=(Theory("above_floor", _one, "thesis: all instances"),)),
    ))


# ----------------------------------------------------------------- Cor. 3.3.7 (exact)

P0_EXAMPLE = (0.5, 0.2, 0.2, 0.1)
P1_EXAMPLE = (0.1, 0.2, 0.3, 0.4)


def tv_exact(params: Mapping[str, Any]) -> dict[str, float]:
    """TV of the optimal staircase and of the binary mechanism for the example pair."""
    from privacy.utility import TotalVariation

    utility = TotalVariation(P0_EXAMPLE, P1_EXAMPLE)
    eps = float(params["eps"])
    return {"staircase": utility.value(staircase(utility, eps)),
            "binary": utility.value(binary(utility, eps))}


def tv_closed_form(params: Mapping[str, Any]) -> float:
    """(e^eps - 1)/(e^eps + 1) ||P0 - P1||_TV (Cor. 3.3.7)."""
    from privacy.bounds import tv_binary

    return float(tv_binary(P0_EXAMPLE, P1_EXAMPLE, float(params["eps"])))


register_experiment(Experiment(
    name="ldp-tv-binary-optimal",
    title="Binary mechanism is optimal for total variation (thesis Cor. 3.3.7)",
    description=f"""
    Exact: the total variation ||M0 - M1||_TV of the optimal staircase mechanism (LP
    3.11) and of the binary mechanism (Eq. 3.14) for P0 = {P0_EXAMPLE}, P1 =
    {P1_EXAMPLE}, against the closed form (e^eps - 1)/(e^eps + 1) ||P0 - P1||_TV of
    Corollary 3.3.7 (overlaid). No figure of the thesis; a check that the LP and the
    closed form agree at every eps.""",
    grid=Grid(product={"eps": [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0]}),
    metrics=(Metric("staircase"), Metric("binary")),
    evaluate=tv_exact,
    plot=PlotSpec(x="eps", logx=True, y=("staircase", "binary"),
                  theory=(Theory("staircase", tv_closed_form, "Cor. 3.3.7"),
                          Theory("binary", tv_closed_form, "Cor. 3.3.7"))),
))


# ----------------------------------------------------------------- sweep template


def utility_trial(params: Mapping[str, Any], rng: np.random.Generator, *, components: Mapping[str, Any]) -> dict[str, float]:
    """Sweep body: normalised utility of a mechanism, and its ratio to the optimal one."""
    utility = components["utility"][params["utility"]](int(params["k"]), rng)
    eps = float(params["eps"])
    value = utility.value(components["mechanism"][params["mechanism"]](utility, eps))
    best = utility.value(staircase(utility, eps))
    return {"normalised": value / utility.value(np.eye(utility.n_inputs)),
            "vs_optimal": value / best if best > 0 else 1.0}


register_template(SweepTemplate(
    name="ldp-utility",
    description="Utility of a mechanism on random instances: normalised, and relative to the optimal staircase.",
    components={"mechanism": "mechanism", "utility": "utility"},
    defaults={"utility": "kl", "k": 4, "eps": 1.0},
    required=("mechanism",),
    metrics=(Metric("normalised", "mean"), Metric("vs_optimal", "mean")),
    trial=utility_trial,
    default_trials=100,
    plot=PlotSpec(x="eps", series="mechanism", logx=True),
))
