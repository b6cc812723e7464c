"""Local differential privacy experiments of Kairouz's thesis, chapter 3 (Figs. 3.3-3.8).

Also registers the privacy components and the ``ldp-utility`` sweep template:

* kind ``mechanism``: ``factory(utility, eps, **params) -> Mechanism`` for ``binary``
  (Eq. 3.14, or Eq. 3.22 for mutual information), ``randomized_response`` (Eq. 3.16),
  ``geometric`` (the truncated geometric baseline of §3.3.2), ``staircase`` (the
  optimal one, LP 3.11) and ``binary_or_rr`` (the better of the first two);
* kind ``utility``: ``factory(k, *, rng, **params) -> SublinearUtility`` drawing a random
  instance uniformly from the simplex: ``kl`` (``D(M0||M1)`` for random ``P0, P1``),
  ``tv`` (total variation) and ``mi`` (``I(X; Y)`` for a random ``P``).
"""

from __future__ import annotations

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

EPS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]

#: The privacy level of every experiment that solves the optimal staircase LP, which is
#: solved for eps <= privacy.staircase.MAX_EPS (e^eps beyond 1e13 is not representable
#: with the LP's tolerances): one declared axis, so ``run --set eps=`` and ``sweep --set
#: eps=`` check the same bounds before anything runs.
EPS_AXIS = Param("float", low=0.0, high=30.0, doc="privacy level eps (the staircase LP takes eps <= 30)")
MECHANISMS = ("binary", "randomized_response", "geometric", "staircase")


# ----------------------------------------------------------------- components


def binary(utility: Any, eps: float) -> Any:
    """The binary mechanism of the utility: Eq. (3.22) for mutual information, else (3.14)."""
    from anonspread.privacy.mechanisms import binary_mechanism, binary_mechanism_mi

    if hasattr(utility, "P"):
        return binary_mechanism_mi(utility.P, eps)
    return binary_mechanism(utility.P0, utility.P1, eps)


def randomized_response(utility: Any, eps: float) -> Any:
    """k-ary randomized response, Eq. (3.16)."""
    from anonspread.privacy.mechanisms import randomized_response as rr

    return rr(utility.n_inputs, eps)


def geometric(utility: Any, eps: float) -> Any:
    """Truncated geometric mechanism (the baseline of §3.3.2)."""
    from anonspread.privacy.mechanisms import geometric_mechanism

    return geometric_mechanism(utility.n_inputs, eps)


def staircase(utility: Any, eps: float) -> Any:
    """The optimal staircase mechanism (LP 3.11, Theorem 3.2.4)."""
    from anonspread.privacy.staircase import optimal_staircase

    return optimal_staircase(utility, eps)


def binary_or_rr(utility: Any, eps: float) -> Any:
    """The better of binary and randomized response (§3.3.2, Fig. 3.4)."""
    from anonspread.privacy.mechanisms import binary_or_randomized_response

    return binary_or_randomized_response(utility, eps)


def random_kl(k: int, rng: np.random.Generator) -> Any:
    """``D_kl(M0 || M1)`` for ``P0, P1`` uniform on the simplex of size ``k``."""
    from anonspread.privacy.utility import KL

    return KL(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)))


def random_tv(k: int, rng: np.random.Generator) -> Any:
    """Total variation for ``P0, P1`` uniform on the simplex."""
    from anonspread.privacy.utility import TotalVariation

    return TotalVariation(rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k)))


def random_mi(k: int, rng: np.random.Generator) -> Any:
    """``I(X; Y)`` for ``X ~ P``, ``P`` uniform on the simplex."""
    from anonspread.privacy.utility import MutualInformation

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


_LABELS = {"binary": "binary", "randomized_response": "randomized response",
           "geometric": "geometric", "staircase": "optimal (staircase)"}
_METRICS = tuple(Metric(m, "mean", _LABELS[m]) for m in MECHANISMS)

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
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"eps": EPS, "k": [6]}),
    metrics=_METRICS,
    trial=kl_compare,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="eps", logx=True, y=MECHANISMS,
                  panels=(("D_kl(M0||M1) / D_kl(P0||P1) (mean)", MECHANISMS),)),
))

register_experiment(Experiment(
    name="ldp-mi-mechanisms",
    title="Normalised mutual information of the four mechanisms (thesis Fig. 3.6 left)",
    description="""
    For random P uniform on the simplex of size k = 6, I(X; Y) / H(X) under the binary
    mechanism for mutual information (Eq. 3.22), randomized response, the truncated
    geometric mechanism and the optimal staircase mechanism, averaged over instances.
    Reproduces Kairouz (2015), Fig. 3.6 left (same caveats as ldp-kl-mechanisms).""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"eps": EPS, "k": [6]}),
    metrics=_METRICS,
    trial=mi_compare,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="eps", logx=True, y=MECHANISMS,
                  panels=(("I(X;Y) / H(X) (mean)", MECHANISMS),)),
))


# ----------------------------------------------------------------- Figs. 3.3/3.6 right, 3.4, 3.7
#
# The thesis scatters each of 100 random instances at every eps; its claims are about
# the worst instance ("as bad as 10% of the optimal", "at least 60% for all
# instances"). These experiments evaluate a fixed set of instances per alphabet size
# (the same at every eps, as in the thesis) and report the per-instance minimum with
# the mean, exactly (no sampling error beyond the choice of the instances).

N_INSTANCES = 100


def _instances(draw: Any, k: int, n: int) -> list[Any]:
    """The fixed instance set of size ``n`` for alphabet size ``k`` (seeded by ``k``)."""
    rng = np.random.default_rng([2015, 3, k])
    return [draw(k, rng) for _ in range(n)]


def _ratios(params: Mapping[str, Any], draw: Any, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    k, eps = int(params["k"]), float(params["eps"])
    factories = {"binary": binary, "randomized_response": randomized_response,
                 "geometric": geometric, "binary_or_rr": binary_or_rr}
    out: dict[str, list[float]] = {name: [] for name in names}
    for utility in _instances(draw, k, int(params["instances"])):
        best = utility.value(staircase(utility, eps))
        for name in names:
            value = utility.value(factories[name](utility, eps))
            out[name].append(value / best if best > 0 else 1.0)
    return {name: np.array(v) for name, v in out.items()}


_WORST = ("binary", "randomized_response", "geometric")


def _worst_case(params: Mapping[str, Any], draw: Any) -> dict[str, float]:
    ratios = _ratios(params, draw, _WORST)
    out = {f"min_{name}": float(r.min()) for name, r in ratios.items()}
    out.update({f"mean_{name}": float(r.mean()) for name, r in ratios.items()})
    return out


def kl_worst_case(params: Mapping[str, Any]) -> dict[str, float]:
    """Min and mean over the fixed instances of D(M0||M1) / optimum, per mechanism."""
    return _worst_case(params, random_kl)


def mi_worst_case(params: Mapping[str, Any]) -> dict[str, float]:
    """Min and mean over the fixed instances of I(X;Y) / optimum, per mechanism."""
    return _worst_case(params, random_mi)


for _name, _fig, _fn, _what, _claim in (
    ("ldp-kl-worst-ratio", "3.3 right", kl_worst_case, "D_kl(M0 || M1)",
     "RR can be as bad as 10% of the optimum (small eps) and binary as bad as 25% (large eps)"),
    ("ldp-mi-worst-ratio", "3.6 right", mi_worst_case, "I(X; Y)",
     "RR can be as bad as 35% of the optimum (small eps) and binary as bad as 40% (large eps)"),
):
    register_experiment(Experiment(
        name=_name,
        title=f"Each mechanism over the optimum, worst instance (thesis Fig. {_fig})",
        description=f"""
        For a fixed set of 100 random instances over k = 6 letters (Dirichlet(1, ..., 1),
        the same instances at every eps), {_what} under the binary mechanism, randomized
        response and the geometric mechanism divided by its value under the optimal
        staircase mechanism: the minimum over the instances (left panel, the thesis's
        claim: {_claim}) and the mean (right). Exact; the instance set is seeded by k
        (it does not depend on --rng). Reproduces Kairouz (2015), Fig. {_fig}, which
        scatters all 100 ratios at each eps.""",
        axes={"eps": EPS_AXIS},
        grid=Grid(product={"eps": EPS, "k": [6], "instances": [N_INSTANCES]}),
        metrics=tuple(Metric(f"{a}_{m}", "mean", _LABELS[m]) for a in ("min", "mean") for m in _WORST),
        evaluate=_fn,
        plot=PlotSpec(x="eps", logx=True,
                      panels=(("ratio to optimal, worst instance", tuple(f"min_{m}" for m in _WORST)),
                              ("ratio to optimal, mean", tuple(f"mean_{m}" for m in _WORST)))),
    ))


def _mixed(params: Mapping[str, Any], draw: Any) -> dict[str, float]:
    r = _ratios(params, draw, ("binary_or_rr",))["binary_or_rr"]
    return {"min_ratio": float(r.min()), "mean_ratio": float(r.mean())}


def kl_mixed(params: Mapping[str, Any]) -> dict[str, float]:
    """Better-of-binary-and-RR KL over the optimal KL: min and mean over the instances."""
    return _mixed(params, random_kl)


def mi_mixed(params: Mapping[str, Any]) -> dict[str, float]:
    """Better-of-binary-and-RR mutual information over the optimum: min and mean."""
    return _mixed(params, random_mi)


def _floor(value: float) -> Any:
    def floor(params: Mapping[str, Any]) -> float:
        return value

    return floor


for _name, _fig, _fn, _floor_value, _what in (
    ("ldp-kl-mixed", "3.4", kl_mixed, 0.6, "D_kl(M0 || M1)"),
    ("ldp-mi-mixed", "3.7", mi_mixed, 0.75, "I(X; Y)"),
):
    register_experiment(Experiment(
        name=_name,
        title=f"Better of binary and RR vs optimal (thesis Fig. {_fig})",
        description=f"""
        For a fixed set of 100 random instances per alphabet size k = 3..6 (the same at
        every eps), {_what} under the better of the binary mechanism and randomized
        response divided by its value under the optimal staircase mechanism: the
        minimum over the instances ('min_ratio', the thesis's claim is that it is at
        least {_floor_value:.0%}, drawn as the floor) and the mean ('mean_ratio').
        Exact; the instance sets are seeded by k (they do not depend on --rng).
        Reproduces Kairouz (2015), Fig. {_fig}, which scatters every instance.""",
        axes={"eps": EPS_AXIS},
        grid=Grid(product={"k": [3, 4, 5, 6], "eps": EPS, "instances": [N_INSTANCES]}),
        metrics=(Metric("min_ratio", "mean", "ratio to optimal, worst instance"),
                 Metric("mean_ratio", "mean", "ratio to optimal, mean")),
        evaluate=_fn,
        plot=PlotSpec(x="eps", series="k", logx=True, y=("min_ratio", "mean_ratio"),
                      theory=(Theory("min_ratio", _floor(_floor_value),
                                     f"thesis: >= {_floor_value:.0%}"),)),
    ))


# ----------------------------------------------------------------- Cor. 3.3.7 (exact)

P0_EXAMPLE = (0.5, 0.2, 0.2, 0.1)
P1_EXAMPLE = (0.1, 0.2, 0.3, 0.4)


def tv_exact(params: Mapping[str, Any]) -> dict[str, float]:
    """TV of the optimal staircase and of the binary mechanism for the example pair."""
    from anonspread.privacy.utility import TotalVariation

    utility = TotalVariation(P0_EXAMPLE, P1_EXAMPLE)
    eps = float(params["eps"])
    return {"staircase": utility.value(staircase(utility, eps)),
            "binary": utility.value(binary(utility, eps))}


def tv_closed_form(params: Mapping[str, Any]) -> float:
    """(e^eps - 1)/(e^eps + 1) ||P0 - P1||_TV (Cor. 3.3.7)."""
    from anonspread.privacy.bounds import tv_binary

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
    metrics=(Metric("staircase", "mean", "TV, optimal staircase"), Metric("binary", "mean", "TV, binary mechanism")),
    evaluate=tv_exact,
    plot=PlotSpec(x="eps", logx=True, y=("staircase", "binary"),
                  theory=(Theory("staircase", tv_closed_form, "Cor. 3.3.7"),
                          Theory("binary", tv_closed_form, "Cor. 3.3.7"))),
))


# ----------------------------------------------------------------- Fig. 3.9 (exact)


def _lower_boundary(region: Any, p_fa: float) -> float:
    """Smallest P_MD at false-alarm level ``p_fa`` on an error region's lower boundary."""
    xs, ys = np.asarray(region.p_fa), np.asarray(region.p_md)
    ux = np.unique(xs)  # vertical steps repeat a P_FA: the boundary takes the lowest P_MD
    uy = np.array([ys[xs == x].min() for x in ux])
    return float(np.interp(p_fa, ux, uy))


def quaternary_region(params: Mapping[str, Any]) -> dict[str, float]:
    """Lower boundary of the error region of the quaternary mechanism at P_FA = p_fa."""
    from anonspread.privacy.dominance import error_region
    from anonspread.privacy.mechanisms import quaternary_mechanism

    eps, delta, p_fa = float(params["eps"]), float(params["delta"]), float(params["p_fa"])
    return {"quaternary": _lower_boundary(error_region(quaternary_mechanism(eps, delta)), p_fa)}


def r_eps_delta(params: Mapping[str, Any]) -> float:
    """Lower boundary of R_{eps, delta} (Thm 3.5.2): max(0, 1-delta-e^eps P_FA, e^-eps(1-delta-P_FA))."""
    eps, delta, x = float(params["eps"]), float(params["delta"]), float(params["p_fa"])
    return max(0.0, 1.0 - delta - np.exp(eps) * x, np.exp(-eps) * (1.0 - delta - x))


register_experiment(Experiment(
    name="ldp-quaternary-error-region",
    title="Error region of the quaternary mechanism equals R_(eps, delta) (thesis Fig. 3.9)",
    description="""
    Exact: the lower boundary of the error region (P_MD against P_FA over all tests of
    X = 0 vs 1 from the output) of the quaternary mechanism Q_QT (Eq. 3.26, Fig. 3.9a)
    at eps = 1 and delta in {0, 0.1, 0.3}, with the region R_(eps, delta) of Theorem
    3.5.2 overlaid (Fig. 3.9b): the two coincide, which is why Q_QT dominates every
    (eps, delta)-LDP mechanism (Thm 3.5.1). At delta = 0 Q_QT is the binary mechanism
    and its region is R_(eps, 0), inside the others. Reproduces Kairouz
    (2015), Fig. 3.9b; Fig. 3.9a is the matrix itself (privacy.quaternary_mechanism).""",
    grid=Grid(product={"p_fa": [i / 20 for i in range(21)], "eps": [1.0],
                       "delta": [0.0, 0.1, 0.3]}),
    metrics=(Metric("quaternary", "mean", "P_MD, lower boundary of the error region of Q_QT"),),
    evaluate=quaternary_region,
    plot=PlotSpec(x="p_fa", series="delta", y=("quaternary",),
                  theory=(Theory("quaternary", r_eps_delta, "R_(eps, delta), Thm 3.5.2"),)),
))


# ----------------------------------------------------------------- Figs. 3.5 and 3.8
#
# The thesis scatters 100 uniform random instances against a property of each
# instance (||P0 - P1||_TV, D_kl(P0 || P1), P(T) P(T^c), H(X)). The harness puts a
# grid parameter on the x axis, so each trial draws a random instance whose property
# equals the grid value exactly; the averages then sit on the closed forms.


def pair_with_tv(k: int, tv: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random ``P0, P1`` on ``k`` letters with ``||P0 - P1||_TV = tv`` exactly.

    ``P_nu = (1 - tv) R + tv A_nu`` with ``R`` uniform on the simplex and ``A0, A1``
    uniform on the two sides of a random split of the alphabet (disjoint supports).
    """
    R = rng.dirichlet(np.ones(k))
    order = rng.permutation(k)
    j = int(rng.integers(1, k))
    A0, A1 = np.zeros(k), np.zeros(k)
    A0[order[:j]] = rng.dirichlet(np.ones(j))
    A1[order[j:]] = rng.dirichlet(np.ones(k - j))
    return (1 - tv) * R + tv * A0, (1 - tv) * R + tv * A1


def pair_with_kl(k: int, kl: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random ``P0, P1`` with ``D_kl(P0 || P1) = kl`` (to solver precision).

    ``P0`` is uniform on the simplex and ``P1 = (1 - s) P0 + s B`` with ``B`` uniform on
    a random proper subset of the letters; ``D(P0 || P1)`` grows from 0 to infinity in
    ``s``, which is found by root finding.
    """
    from scipy.optimize import brentq

    def gap(s: float) -> float:
        return float(np.sum(P0 * np.log(P0 / ((1 - s) * P0 + s * B)))) - kl

    while True:  # redraw the rare pairs whose P0 puts too little mass off B's support
        P0 = rng.dirichlet(np.ones(k))
        order = rng.permutation(k)
        j = int(rng.integers(1, k))
        B = np.zeros(k)
        B[order[:j]] = rng.dirichlet(np.ones(j))
        if gap(1.0 - 1e-12) > 0:
            break
    s = brentq(gap, 0.0, 1.0 - 1e-12, xtol=1e-15, rtol=1e-12)
    return P0, (1 - s) * P0 + s * B


def dist_with_balance(k: int, balance: float, rng: np.random.Generator) -> np.ndarray:
    """Random ``P`` on ``k`` letters with ``P(T) P(T^c) = balance`` (T of Eq. 3.21), ``0 < balance <= 1/4``.

    One letter carries ``m = (1 + sqrt(1 - 4 balance)) / 2 >= 1/2`` and the others share
    ``1 - m`` uniformly at random; then ``{heavy letter}`` is a most balanced set.
    """
    m = 0.5 * (1.0 + np.sqrt(max(0.0, 1.0 - 4.0 * balance)))
    P = np.empty(k)
    heavy = int(rng.integers(k))
    P[heavy] = m
    P[np.arange(k) != heavy] = (1 - m) * rng.dirichlet(np.ones(k - 1))
    return P


def dist_with_entropy(k: int, entropy: float, rng: np.random.Generator) -> np.ndarray:
    """Random ``P`` on ``k`` letters with ``H(P) = entropy`` nats, ``0 < entropy < log k``.

    ``P proportional to R^beta`` for ``R`` uniform on the simplex; the entropy falls from
    ``log k`` (``beta = 0``) towards 0 as ``beta`` grows, and ``beta`` is found by root finding.
    """
    from scipy.optimize import brentq
    from scipy.special import softmax

    logR = np.log(rng.dirichlet(np.ones(k)))

    def gap(beta: float) -> float:
        P = softmax(beta * logR)
        nz = P[P > 0]
        return float(-np.sum(nz * np.log(nz))) - entropy

    return softmax(brentq(gap, 0.0, 1e4, xtol=1e-12) * logR)


def _four(utility: Any, eps: float) -> dict[str, float]:
    out = {}
    for name, factory in zip(MECHANISMS, (binary, randomized_response, geometric, staircase)):
        out[name] = utility.value(factory(utility, eps))
    return out


def kl_high_privacy(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """D_kl(M0 || M1) of the four mechanisms for one random pair with the given TV."""
    from anonspread.privacy.utility import KL

    return _four(KL(*pair_with_tv(int(params["k"]), float(params["tv"]), rng)), float(params["eps"]))


def kl_low_privacy(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """D_kl(M0 || M1) of the four mechanisms for one random pair with the given D(P0||P1)."""
    from anonspread.privacy.utility import KL

    return _four(KL(*pair_with_kl(int(params["k"]), float(params["kl"]), rng)), float(params["eps"]))


def mi_high_privacy(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """I(X; Y) of the four mechanisms for one random P with the given P(T)P(T^c)."""
    from anonspread.privacy.utility import MutualInformation

    P = dist_with_balance(int(params["k"]), float(params["balance"]), rng)
    return _four(MutualInformation(P), float(params["eps"]))


def mi_low_privacy(params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """I(X; Y) of the four mechanisms for one random P with the given H(X)."""
    from anonspread.privacy.utility import MutualInformation

    P = dist_with_entropy(int(params["k"]), float(params["entropy"]), rng)
    return _four(MutualInformation(P), float(params["eps"]))


def eq_3_17(params: Mapping[str, Any]) -> float:
    """Leading term of Eq. (3.17): (e^eps - 1)^2 / (e^eps + 1) ||P0 - P1||_TV^2."""
    eps = float(params["eps"])
    return float(np.expm1(eps) ** 2 / (np.exp(eps) + 1.0) * float(params["tv"]) ** 2)


def eq_3_18(params: Mapping[str, Any]) -> float:
    """Eq. (3.18) without its instance-dependent e^-eps term: D_kl(P0 || P1)."""
    return float(params["kl"])


def eq_3_23(params: Mapping[str, Any]) -> float:
    """Eq. (3.23) exactly: I(X; Y) of the binary mechanism depends on P only through P(T)."""
    from anonspread.privacy.bounds import mi_binary

    t = 0.5 * (1.0 - np.sqrt(max(0.0, 1.0 - 4.0 * float(params["balance"]))))
    return float(mi_binary([t, 1 - t], float(params["eps"])))


def cor_3_4_4(params: Mapping[str, Any]) -> float:
    """Cor. 3.4.4 with delta = 0 (leading term of Eq. 3.23): P(T) P(T^c) eps^2 / 2."""
    return 0.5 * float(params["balance"]) * float(params["eps"]) ** 2


def eq_3_24(params: Mapping[str, Any]) -> float:
    """Eq. (3.24) / Cor. 3.4.5 with delta = 0: H(X) - (k - 1) eps e^-eps."""
    eps = float(params["eps"])
    return float(params["entropy"]) - (int(params["k"]) - 1) * eps * np.exp(-eps)


_RAW = _METRICS

register_experiment(Experiment(
    name="ldp-kl-scaling-high",
    title="KL divergence vs ||P0 - P1||_TV at eps = 0.1 (thesis Fig. 3.5 left)",
    description="""
    D_kl(M0 || M1) under the binary, randomized response, geometric and optimal
    staircase mechanisms at eps = 0.1 (high privacy), for random pairs over k = 6
    letters, against ||P0 - P1||_TV, with the leading term of Eq. (3.17),
    (e^eps - 1)^2/(e^eps + 1) TV^2, the optimum's leading term, overlaid; all four
    mechanisms share one axis.
    Reproduces Kairouz (2015), Fig. 3.5 left. Differences: the thesis scatters 100
    uniform random pairs against their TV; the harness needs TV on a grid, so each
    trial draws a pair with exactly that TV (P_nu = (1 - TV) R + TV A_nu, A0 and A1
    on disjoint random halves of the alphabet) and we plot the average per TV with
    95% intervals; log-log axes (y grows as TV^2).""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"tv": [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9], "eps": [0.1], "k": [6]}),
    metrics=_RAW,
    trial=kl_high_privacy,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="tv", logx=True, logy=True, y=MECHANISMS,
                  panels=(("D_kl(M0||M1)", MECHANISMS),),
                  theory=(Theory("staircase", eq_3_17,
                                 "Eq. 3.17 leading term (the optimum at small eps)"),)),
))

register_experiment(Experiment(
    name="ldp-kl-scaling-low",
    title="KL divergence vs D_kl(P0 || P1) at eps = 10 (thesis Fig. 3.5 right)",
    description="""
    D_kl(M0 || M1) under the four mechanisms at eps = 10 (low privacy), for random
    pairs over k = 6 letters, against D_kl(P0 || P1), with Eq. (3.18) overlaid (one
    axis for all four; D(P0||P1) bounds every mechanism by data processing). Eq. (3.18) is D(P0||P1) - G e^-eps plus
    O(e^-2eps); G depends on the instance, so the overlay is its leading term
    D(P0||P1) (the e^-eps term is below 5e-5 G here). Reproduces Kairouz (2015),
    Fig. 3.5 right. Differences: instead of scattering uniform random pairs, each
    trial draws a pair with exactly the grid's D(P0||P1) (P0 uniform on the simplex,
    P1 = (1 - s) P0 + s B with B on a random proper subset, s by root finding), and
    we plot averages with 95% intervals; log-log axes.""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"kl": [0.05, 0.1, 0.2, 0.5, 1.0, 2.0], "eps": [10.0], "k": [6]}),
    metrics=_RAW,
    trial=kl_low_privacy,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="kl", logx=True, logy=True, y=MECHANISMS,
                  panels=(("D_kl(M0||M1)", MECHANISMS),),
                  theory=(Theory("staircase", eq_3_18,
                                 "Eq. 3.18 leading term D(P0||P1) (bounds all four)"),)),
))

register_experiment(Experiment(
    name="ldp-mi-scaling-high",
    title="Mutual information vs P(T)P(T^c) at eps = 0.1 (thesis Fig. 3.8 left)",
    description="""
    I(X; Y) under the binary mechanism for mutual information (Eq. 3.22), randomized
    response, the geometric and the optimal staircase mechanisms at eps = 0.1, for
    random P over k = 6 letters, against P(T) P(T^c) (T the most balanced set, Eq.
    3.21), on one axis. Overlays: Eq. (3.23) exactly for the binary mechanism (it
    depends on P only through P(T)) and its leading term P(T)P(T^c) eps^2/2 (Cor. 3.4.4)
    for the optimum. Reproduces Kairouz (2015), Fig. 3.8 left. Differences: uniform random P
    have P(T)P(T^c) close to 1/4, so to sweep it each trial draws P with one letter of
    mass m >= 1/2 (m(1 - m) = the grid value, the other letters uniform on the
    simplex); averages with 95% intervals; log-log axes.""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"balance": [0.02, 0.05, 0.1, 0.15, 0.2, 0.25], "eps": [0.1], "k": [6]}),
    metrics=_RAW,
    trial=mi_high_privacy,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="balance", logx=True, logy=True, y=MECHANISMS,
                  panels=(("I(X;Y)", MECHANISMS),),
                  theory=(Theory("binary", eq_3_23, "Eq. 3.23 (binary, exact)"),
                          Theory("staircase", cor_3_4_4,
                                 "Cor. 3.4.4, P(T)P(T^c) eps^2/2 (the optimum at small eps)"))),
))

register_experiment(Experiment(
    name="ldp-mi-scaling-low",
    title="Mutual information vs H(X) at eps = 10 (thesis Fig. 3.8 right)",
    description="""
    I(X; Y) under the four mechanisms at eps = 10 (low privacy), for random P over
    k = 6 letters, against H(X), with Eq. (3.24), H(X) - (k - 1) eps e^-eps,
    overlaid (all four on one axis). Reproduces Kairouz
    (2015), Fig. 3.8 right. Differences: each trial draws P with exactly the grid's
    entropy (P proportional to R^beta, R uniform on the simplex, beta by root finding)
    instead of scattering uniform random P; averages with 95% intervals. Note the
    remainder of Eq. (3.24) is O(e^-eps), not O(e^-2eps) (privacy.bounds).""",
    axes={"eps": EPS_AXIS},
    grid=Grid(product={"entropy": [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75], "eps": [10.0],
                       "k": [6]}),
    metrics=_RAW,
    trial=mi_low_privacy,
    default_trials=100,
    batch_size=25,
    plot=PlotSpec(x="entropy", y=MECHANISMS,
                  panels=(("I(X;Y)", MECHANISMS),),
                  theory=(Theory("staircase", eq_3_24,
                                 "Eq. 3.24 (the optimum at large eps)"),)),
))


# ----------------------------------------------------------------- sweep template


def utility_trial(params: Mapping[str, Any], rng: np.random.Generator, *, components: Mapping[str, Any]) -> dict[str, float]:
    """Sweep body: normalised utility of a mechanism, and its ratio to the optimal one."""
    utility = components["utility"][params["utility"]].build(int(params["k"]), point=params,
                                                              axis="utility", rng=rng)
    eps = float(params["eps"])
    value = utility.value(components["mechanism"][params["mechanism"]].build(
        utility, eps, point=params, axis="mechanism"))
    best = utility.value(staircase(utility, eps))
    return {"normalised": value / utility.value(np.eye(utility.n_inputs)),
            "vs_optimal": value / best if best > 0 else 1.0}


register_template(SweepTemplate(
    name="ldp-utility",
    description="Utility of a mechanism on random instances: normalised, and relative to the optimal staircase.",
    components={"mechanism": "mechanism", "utility": "utility"},
    defaults={"utility": "kl", "k": 4, "eps": 1.0},
    required=("mechanism",),
    metrics=(Metric("normalised", "mean", "utility / utility without privacy",
                    description="the mechanism's utility divided by that of releasing the data as is"),
             Metric("vs_optimal", "mean", "utility / optimal utility at eps",
                    description="the mechanism's utility divided by that of the optimal staircase "
                    "mechanism at the same eps (1: optimal)")),
    types={"eps": Param("float", 1.0, low=0.0, high=30.0, doc=EPS_AXIS.doc),
           "k": Param("int", 4, low=2, doc="alphabet size k")},
    trial=utility_trial,
    default_trials=100,
    plot=PlotSpec(x="eps", series="mechanism", logx=True),
))
