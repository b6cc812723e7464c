"""soft-margin-spies: the simulation-based spy estimator for Dandelion, Dandelion++ and diffusion."""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries.softmargin_spies import spy_similarity
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.dandelion import simulate_stems
from anonspread.spread.events import ContinuousDiffusion

G20 = nx.random_regular_graph(4, 20, seed=1)


def _observation(g, protocol, source, spies, seed):
    return simulate_stems(g, protocol, 1, spies=spies, sources=[source], rng=seed).observation(0)


def test_similarity_weighs_receipts_earliest_first():
    obs_s, obs_t = np.array([3, 5, 7, -1]), np.array([0.4, 0.1, 2.0, np.inf])
    # observed order of receipt: spy 1 (from 5), spy 0 (from 3), spy 2 (from 7), spy 3 (none)
    sender = np.array([[3, 5, 7, -1], [3, 5, 7, -1], [5, 5, 7, -1], [3, 5, 7, 2], [3, 4, 7, -1]])
    time = np.array([[0.9, 0.2, 5.0, np.inf],   # same order, other times
                     [0.1, 0.4, 2.0, np.inf],   # first two swapped
                     [0.4, 0.1, 2.0, np.inf],   # the second receipt's sender differs
                     [0.4, 0.1, 2.0, 3.0],      # the last spy heard something (still last)
                     [0.4, 0.1, 2.0, np.inf]])  # the first receipt's sender differs
    w = np.array([8, 4, 2, 1]) / 15
    phi = spy_similarity(sender, time, obs_s, obs_t)
    assert phi == pytest.approx([1.0, w[2] + w[3], 1 - w[1], 1 - w[3], 1 - w[0]], abs=1e-12)
    assert phi[0] == 1.0 and (phi[1:] < 1).all()  # 1 exactly for the same senders and order
    # one spy: its sender
    assert spy_similarity(np.array([[1], [2]]), np.array([[1.0], [9.0]]), np.array([1]),
                          np.array([3.0])).tolist() == [1.0, 0.0]


def test_registered_for_the_three_stem_protocols_and_seeded():
    spec = A.get_spy_estimator("soft-margin-spies")
    assert spec.random and spec.likelihood and spec.observation == "spies"
    assert spec.protocols == frozenset({"dandelion", "dandelion++", "continuous-diffusion"})
    for proto in (spread.Dandelion(0.2), spread.DandelionPlusPlus(0.2), ContinuousDiffusion(1.0)):
        assert spec.why_not(proto, G20) is None
        obs = _observation(G20, proto, 7, [0, 5, 10, 15], 3)
        kw = spec.params(proto, G20)
        sc = spec.func(obs, **kw, rng=4, max_simulations=400)
        again = spec.func(obs, **kw, rng=4, max_simulations=400)
        assert np.array_equal(sc.array, again.array) and sc.is_likelihood
        assert set(sc) == set(G20) and len(sc) == 20
        assert all(sc[s] == -math.inf for s in (0, 5, 10, 15))  # a spy is not the source
        assert np.isfinite(sc.array).sum() == 16  # every honest node (n <= candidates)
    with pytest.raises(InvalidParameterError, match="assumes a protocol"):
        A.check_applicable("soft-margin-spies", spread.RandomDiffusion(0.5), G20)


def test_estimate_reports_runs_candidates_and_prunes_near_the_first_sender():
    g = nx.random_regular_graph(4, 60, seed=2)
    proto = spread.Dandelion(0.2)
    obs = _observation(g, proto, 30, [1, 11, 21, 41, 51], 5)
    res = A.soft_margin_spies_estimate(obs, proto, rng=1, candidates=8, max_simulations=800)
    first = obs.sender[int(np.argmin(obs.time))]
    dist = nx.single_source_shortest_path_length(g, first)
    kept = res.candidates.tolist()
    assert len(kept) == 8 and first in kept and not set(kept) & {1, 11, 21, 41, 51}
    others = [v for v in g if v not in kept and v not in (1, 11, 21, 41, 51)]
    assert max(dist[v] for v in kept) <= min(dist[v] for v in others)  # nearest first
    assert np.isfinite(res.scores.array).sum() == 8
    assert res.simulations in (200, 400, 800) and res.total_simulations == 8 * res.simulations
    assert res.a in res.widths and res.log_likelihood.shape == (8, 5)
    assert 0 <= res.mean_similarity.min() and res.mean_similarity.max() <= 1
    assert (res.exact_matches <= res.simulations).all()


def test_detection_within_bands_of_first_spy_on_a_small_graph():
    # 60 transactions of Dandelion and 60 of diffusion on a random 4-regular graph of 20
    # nodes, 3 spies each; both estimators score the same observations. Measured (seed 5):
    # Dandelion first-spy 0.167, soft-margin-spies 0.150; diffusion 0.183 and 0.167.
    rng = np.random.default_rng(5)
    for proto in (spread.Dandelion(0.1), ContinuousDiffusion(1.0)):
        fs, sm = [], []
        for _ in range(60):
            d = rng.choice(20, 4, replace=False)
            obs = _observation(G20, proto, int(d[0]), d[1:].tolist(), rng)
            fs.append(A.detection_probability(A.first_spy(obs), int(d[0])))
            sm.append(A.detection_probability(
                A.soft_margin_spies(obs, proto, rng=rng, max_simulations=800), int(d[0])))
        diff = np.array(sm) - np.array(fs)
        band = 3 * max(diff.std(), 0.05) / math.sqrt(len(diff))
        assert diff.mean() > -band - 0.05, (proto, np.mean(fs), np.mean(sm))
        assert np.mean(sm) > 1 / 17 + 0.05  # well above the uniform guess over honest nodes


def test_exact_on_a_path_with_a_spy_at_each_end():
    # continuous diffusion on the path 0-1-2-3-4, spies 0 and 4: the senders are 1 and 3
    # whatever the source, so only the order of receipt informs. From source 1 spy 0 hears
    # first with probability P(Exp(1) < Gamma(3, 1)) = 1 - (1/2)^3 = 7/8; from 2, 1/2; from
    # 3, 1/8. The narrow kernel counts exact matches: their fraction estimates these.
    g = nx.path_graph(5)
    proto = ContinuousDiffusion(1.0)
    obs = _observation(g, proto, 1, [0, 4], 0)
    first = 0 if obs.time[0] < obs.time[1] else 4
    res = A.soft_margin_spies_estimate(obs, proto, rng=2, a=1e-3, simulations=4000,
                                       max_simulations=4000, candidates=None)
    exact = {1: 7 / 8, 2: 1 / 2, 3: 1 / 8}
    for i, v in enumerate(res.candidates.tolist()):
        p = exact[v] if first == 0 else 1 - exact[v]
        frac = res.exact_matches[i] / 4000
        assert abs(frac - p) < 4 * math.sqrt(p * (1 - p) / 4000) + 1e-9, (v, frac, p)
        assert res.scores[v] == pytest.approx(math.log(frac), abs=1e-9)


def test_refusal_and_bad_input():
    proto = spread.Dandelion(0.2)
    obs = _observation(G20, proto, 7, [0, 5], 1)
    with pytest.raises(InvalidParameterError, match=r"max_simulations=10000000000.*node visits"):
        A.soft_margin_spies(obs, proto, max_simulations=10**10, rng=0)
    with pytest.raises(InvalidParameterError, match="protocol must be one of"):
        A.soft_margin_spies(obs, spread.RandomDiffusion(0.5), rng=0)
    with pytest.raises(InvalidTypeError, match="observation must be a SpyObservation"):
        A.soft_margin_spies("not an observation", proto, rng=0)
    with pytest.raises(InvalidParameterError, match="simulations"):
        A.soft_margin_spies(obs, proto, simulations=0, rng=0)
    with pytest.raises(InvalidParameterError, match="max_simulations"):
        A.soft_margin_spies(obs, proto, simulations=100, max_simulations=50, rng=0)
    with pytest.raises(InvalidParameterError, match="candidates"):
        A.soft_margin_spies(obs, proto, candidates=0, rng=0)
    with pytest.raises(InvalidParameterError, match="strictly decreasing"):
        A.soft_margin_spies(obs, proto, a=(0.1, 0.2), rng=0)
    with pytest.raises(InvalidParameterError, match="tolerance"):
        A.soft_margin_spies(obs, proto, tolerance=0.0, rng=0)
    empty = _observation(G20, proto, 7, [], 1)
    with pytest.raises(InvalidParameterError, match="spies must be a non-empty set of nodes"):
        A.soft_margin_spies(empty, proto, rng=0)
    run = spread.simulate_messages(G20, spread.RandomDiffusion(0.5), 3, source=7, rng=0)
    with pytest.raises(InvalidParameterError, match="run to completion"):
        A.soft_margin_spies(A.observe_spies(run, [0, 5]), ContinuousDiffusion(1.0), rng=0)
