"""Profile-based privacy (Geumlek & Chaudhuri 2019): Figures 2(a), 2(b)-(c) and 3.

All four experiments are exact (``evaluate``): the mechanisms are the linear
programs of :mod:`privacy.profiles`, and the reported quantities are functions of
their matrices, so there is nothing to average.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Theory
from anonspread.harness.grid import Grid
from anonspread.harness.registry import register_experiment

__all__: list[str] = []


# ----------------------------------------------------------------- Fig. 2(a)


def couplet_parameters(diff: float) -> tuple[float, float]:
    """The two Bernoulli parameters, centred on 1/2, that differ by ``diff``."""
    return 0.5 - diff / 2, 0.5 + diff / 2


def couplet_flip(params: Mapping[str, Any]) -> dict[str, float]:
    """Flip probabilities of Smooth One Bit (LP 5) and Algorithm 1 (LP 4) on a couplet."""
    from anonspread.privacy import profiles as pr

    eps = float(params["eps"])
    p_a, p_b = couplet_parameters(float(params["diff"]))
    g = pr.bernoulli_couplet(p_a, p_b)
    alphas = pr.smooth_one_bit(g.bernoulli_parameters, g.edges, eps)
    return {"smooth_one_bit": float(np.max(alphas)),
            "two_profile": pr.one_bit_two_profile(p_a, p_b, eps)}


def ldp_flip(params: Mapping[str, Any]) -> float:
    """Warner's randomized response, 1 / (1 + e^eps): the eps-LDP baseline."""
    return 1.0 / (1.0 + math.exp(float(params["eps"])))


def observation_10(params: Mapping[str, Any]) -> float:
    """The closed-form bound (7) of Observation 10 on the flip probability of LP (4)."""
    from anonspread.privacy.profiles import observation10_bound

    return observation10_bound(*couplet_parameters(float(params["diff"])), float(params["eps"]))


register_experiment(Experiment(
    name="profiles-couplet",
    title="Flip probability vs profile difference, Bernoulli-Couplet (Geumlek & Chaudhuri Fig. 2(a))",
    description="""
    Exact: the flip probability of the Smooth One Bit mechanism (LP 5, Algorithm 3;
    'smooth_one_bit', the larger of the two profiles' flips) and of the Single-bit
    Two-profile mechanism (LP 4, Algorithm 1; 'two_profile') for two Bernoulli profiles
    p_a = 1/2 - diff/2 and p_b = 1/2 + diff/2 joined by one edge, against diff = |p_a -
    p_b|, for several eps. Overlays: randomized response's 1/(1 + e^eps) (the paper's
    horizontal LDP line) and the bound (7) of Observation 10 on the 'two_profile'
    panel. Reproduces Geumlek & Chaudhuri (2019), Fig. 2(a). Differences: the paper
    does not say where the two parameters sit; we centre them on 1/2 (the flip needed
    depends on the placement, not only on the difference), and we show several eps.""",
    grid=Grid(product={"diff": [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
                       "eps": [0.1, 0.5, 1.0, 2.0]}),
    metrics=(Metric("smooth_one_bit", "mean", "flip probability (Smooth One Bit)"),
             Metric("two_profile", "mean", "flip probability (LP 4)")),
    evaluate=couplet_flip,
    plot=PlotSpec(x="diff", series="eps", y=("smooth_one_bit", "two_profile"),
                  theory=(Theory("smooth_one_bit", ldp_flip, "LDP (RR)"),
                          Theory("two_profile", observation_10, "Obs. 10 bound"))),
))


# ----------------------------------------------------------------- Figs. 2(b)-(c)


@lru_cache(maxsize=64)
def _categorical_costs(eps: float) -> tuple[float, ...]:
    from anonspread.privacy import profiles as pr

    g = pr.categorical_chain_3()
    return tuple(pr.category_costs(g.profiles, pr.smooth_categorical(g.profiles, g.edges, eps)))


def krr_cost(params: Mapping[str, Any]) -> float:
    """Cost (8) of category ``category`` under K-ary randomized response (closed form)."""
    from anonspread.privacy import profiles as pr

    g = pr.categorical_chain_3()
    P = np.asarray(g.profiles)
    A = pr.ldp_baseline(P.shape[1], float(params["eps"]))
    return float(pr.category_costs(P, [A] * P.shape[0])[int(params["category"]) - 1])


def categorical_costs(params: Mapping[str, Any]) -> dict[str, float]:
    """Cost (8) of one category under Smooth Categorical (LP 6) and under K-ary RR."""
    j = int(params["category"]) - 1
    return {"smooth_categorical": _categorical_costs(float(params["eps"]))[j],
            "k_rr": krr_cost(params)}


register_experiment(Experiment(
    name="profiles-categorical",
    title="Per-category cost, Categorical-Chain-3 (Geumlek & Chaudhuri Figs. 2(b)-(c))",
    description="""
    Exact: the cost (8), max over profiles of |P_i[j] - (P_i A^i)_j|, of each of the 4
    categories of Categorical-Chain-3 (Table 1: P1 - P2 - P3) under the Smooth
    Categorical mechanism (LP 6, Algorithm 4; left panel) and under K-ary randomized
    response, the LDP baseline (right panel), against eps. The K-RR cost is overlaid
    dashed on the left panel for comparison. Reproduces Geumlek & Chaudhuri (2019),
    Figs. 2(b)-(c) (we read them as our method and the baseline; the text does not say
    which panel is which). The paper's claim: categories less associated with the
    profile (category 4, probability 0.1 under every profile) cost less, and the
    baseline ignores this structure and does worse.""",
    grid=Grid(product={"eps": [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0],
                       "category": [1, 2, 3, 4]}),
    metrics=(Metric("smooth_categorical", "mean", "cost (8), Smooth Categorical"),
             Metric("k_rr", "mean", "cost (8), K-ary RR")),
    evaluate=categorical_costs,
    plot=PlotSpec(x="eps", series="category", logx=True, y=("smooth_categorical", "k_rr"),
                  theory=(Theory("smooth_categorical", krr_cost, "K-RR"),)),
))


# ----------------------------------------------------------------- Fig. 3


@lru_cache(maxsize=256)
def _chain_flips(n: int, eps: float) -> tuple[float, ...]:
    from anonspread.privacy import profiles as pr

    g = pr.bernoulli_chain(n)
    return tuple(pr.smooth_one_bit(g.bernoulli_parameters, g.edges, eps))


def chain_output(params: Mapping[str, Any]) -> dict[str, float]:
    """P(output = 1) of one profile of Bernoulli-Chain-n under Smooth One Bit and under RR."""
    n, eps, p = int(params["profiles"]), float(params["eps"]), float(params["p"])
    i = round(p * (n - 1))
    a = _chain_flips(n, eps)[i]
    rr = 1.0 / (1.0 + math.exp(eps))
    return {"smooth_one_bit": p + (1 - 2 * p) * a, "randomized_response": p + (1 - 2 * p) * rr}


CHAIN_EPS = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]

for _n, _side in ((6, "left"), (21, "right")):
    register_experiment(Experiment(
        name=f"profiles-chain-{_n}",
        title=f"P(output = 1) per profile vs eps, Bernoulli-Chain-{_n} (Geumlek & Chaudhuri Fig. 3 {_side})",
        description=f"""
        Exact: for each profile p of Bernoulli-Chain-{_n} ({_n} Bernoulli profiles with p
        evenly spaced on [0, 1], successive ones joined by an edge), the probability that
        the released bit is 1, p + (1 - 2p) alpha_p, under the Smooth One Bit mechanism
        (LP 5, Algorithm 3; left panel) and under Warner's randomized response, the LDP
        baseline (right panel), against eps. A wider spread over [0, 1] at a given eps
        means less noise. Reproduces Geumlek & Chaudhuri (2019), Fig. 3 ({_side} column;
        bottom row = left panel, top row = right panel). Differences: the eps grid is
        ours (the paper's is not stated) and there is no vertical line at eps = 0.2;
        privacy.profiles breaks the LP's ties towards the least total flipping.""",
        grid=Grid(product={"eps": CHAIN_EPS,
                           "p": [round(float(v), 4) for v in np.linspace(0, 1, _n)],
                           "profiles": [_n]}),
        metrics=(Metric("smooth_one_bit", "mean", "P(output = 1), Smooth One Bit"),
                 Metric("randomized_response", "mean", "P(output = 1), randomized response")),
        evaluate=chain_output,
        plot=PlotSpec(x="eps", series="p", y=("smooth_one_bit", "randomized_response")),
    ))
