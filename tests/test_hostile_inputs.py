"""Regressions of the second hostile-user battery (issue 24), classes 2, 3 and 5.

(Class 1, the size guards, is tests/test_size_guards.py; class 4, the compile cache, is gone:
the engine is compiled ahead of time, so no compile cache exists to corrupt.)
"""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
import pytest

from anonspread import AnonspreadError
from anonspread.adversaries import transactions as tx
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.privacy import funnel
from anonspread.privacy import profiles as pr
from anonspread.validation import check_real

# ----------------------------------------------------------------- 2. self-contradictory refusals


def _obs():
    from anonspread.adversaries import draw_spies, observe_spies
    from anonspread.spread.events import simulate_messages
    from anonspread.spread.graphs import regular_tree
    from anonspread.spread.protocols import RandomDiffusion

    g = regular_tree(3)
    run = simulate_messages(g, RandomDiffusion(0.5), 4, rng=0)
    return observe_spies(run, draw_spies(g, 0.5, rng=0))


def _snapshot():
    from anonspread import adversaries, spread
    from anonspread.spread.protocols import RandomDiffusion

    g = nx.random_regular_graph(3, 30, seed=0)
    return adversaries.observe(spread.simulate(g, RandomDiffusion(0.5), 4, rng=0))


_PSX = np.array([[0.2, 0.1, 0.2], [0.1, 0.3, 0.1]])
_INF = math.inf

#: The parameters the battery found printing ``[0.0, inf]`` / ``(0.0, inf]`` and refusing inf.
REFUSING_INF = {
    "Dandelion(rate)": lambda: __import__("anonspread.spread.dandelion", fromlist=["x"]).Dandelion(rate=_INF),
    "DandelionPlusPlus(rate)":
        lambda: __import__("anonspread.spread.dandelion", fromlist=["x"]).DandelionPlusPlus(rate=_INF),
    "ContinuousDiffusion(rate)":
        lambda: __import__("anonspread.spread.events", fromlist=["x"]).ContinuousDiffusion(_INF),
    "lisn(rate, exponential delays)":
        lambda: __import__("anonspread.adversaries", fromlist=["x"]).lisn(_snapshot(), rate=_INF, delays="exponential"),
    "earliest_infection_first(mu)":
        lambda: __import__("anonspread.adversaries", fromlist=["x"]).earliest_infection_first(_obs(), _INF),
    "pinto(sigma2)": lambda: __import__("anonspread.adversaries", fromlist=["x"]).pinto(_obs(), 1.0, _INF),
    "pinto(mu)": lambda: __import__("anonspread.adversaries", fromlist=["x"]).pinto(_obs(), _INF, 1.0),
    "optimal_ldp(eps)": lambda: funnel.optimal_ldp(_PSX, _INF),
    "optimal_lip(eps)": lambda: funnel.optimal_lip(_PSX, _INF),
    "oue(eps)": lambda: funnel.oue(_PSX, _INF),
    "grr(eps)": lambda: funnel.grr(_PSX, _INF),
}


@pytest.mark.parametrize("name", sorted(REFUSING_INF))
def test_a_refusal_of_inf_prints_the_range_open_at_inf(name):
    with pytest.raises(InvalidParameterError) as info:
        REFUSING_INF[name]()
    msg = str(info.value)
    assert "got inf" in msg and "inf)" in msg and "inf]" not in msg, msg


def test_check_real_prints_the_range_it_accepts():
    with pytest.raises(InvalidParameterError, match=r"in \[0\.0, inf\); got inf"):
        check_real(math.inf, "x", low=0.0)
    with pytest.raises(InvalidParameterError, match=r"in \(-inf, 1\.0\]; got -inf"):
        check_real(-math.inf, "x", high=1.0)
    with pytest.raises(InvalidParameterError, match=r"in \[2\.0, inf\]; got 1\.5"):
        check_real(1.5, "x", low=2.0, allow_inf=True)  # inf accepted: the bracket is closed
    assert check_real(math.inf, "x", low=2.0, allow_inf=True) == math.inf


def test_eps_inf_is_the_no_noise_limit_of_the_profile_mechanisms():
    assert pr.ldp_flip_probability(math.inf) == 0.0
    assert pr.one_bit_two_profile(0.0, 1.0, math.inf) == 0.0
    assert pr.one_bit_cluster([0.0, 0.5, 1.0], [(0, 1), (1, 2)], math.inf) == 0.0
    assert pr.smooth_one_bit([0.0, 0.5, 1.0], [(0, 1), (1, 2)], math.inf).tolist() == [0.0, 0.0, 0.0]
    assert pr.observation10_bound(0.2, 0.7, math.inf) == 0.0
    np.testing.assert_array_equal(pr.ldp_baseline(3, math.inf), np.eye(3))
    P = [[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]]
    for A in pr.smooth_categorical(P, [(0, 1)], math.inf):
        np.testing.assert_array_equal(A, np.eye(3))
    # the limit of the finite values (randomized response: 1 / (1 + e^eps) -> 0)
    assert pr.ldp_flip_probability(700.0) < 1e-300
    assert pr.smooth_one_bit([0.0, 0.5, 1.0], [(0, 1), (1, 2)], 30.0).max() < 1e-9


# ----------------------------------------------------------------- 3. silent acceptance, wrong answers


def test_dandelion_plus_plus_refuses_more_relays_than_any_node_has_contacts():
    from anonspread.spread.dandelion import DandelionPlusPlus, draw_anonymity_graph, simulate_stems

    ring = nx.cycle_graph(12)
    with pytest.raises(GraphError, match=r"relays=5 must not exceed the largest degree .* maximum degree 2"):
        simulate_stems(ring, DandelionPlusPlus(0.2, relays=5), 3, rng=0)
    with pytest.raises(GraphError, match="relays=3"):
        draw_anonymity_graph(ring, DandelionPlusPlus(0.2, relays=3), rng=0)
    # among all nodes (the overlay model) there are enough peers
    a = draw_anonymity_graph(ring, DandelionPlusPlus(0.2, relays=5, peers="all"), rng=0)
    assert set(a.out_degree.tolist()) == {5}
    # some nodes short of contacts: said, not silent
    with pytest.warns(UserWarning, match=r"2 of 12 nodes have fewer than relays=2 contacts"):
        draw_anonymity_graph(nx.path_graph(12), DandelionPlusPlus(0.2, relays=2), rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draw_anonymity_graph(ring, DandelionPlusPlus(0.2, relays=2), rng=0)


def test_watts_strogatz_refuses_an_odd_k():
    from anonspread.harness.experiments.graphs import watts_strogatz

    with pytest.raises(InvalidParameterError, match=r"graph\.k must be even .* got k=3"):
        watts_strogatz(20, 3, 0.0)
    assert watts_strogatz(20, 4, 0.0).number_of_edges() == 40


def test_a_transaction_observation_needs_an_honest_node():
    g = tx.anonymity_graph(6, 1, rng=0)
    with pytest.raises(InvalidParameterError, match="spy must leave at least one honest node"):
        tx.observe_transactions(g, np.ones(6, bool), rng=0)
    with pytest.raises(InvalidParameterError, match="spy must leave at least one honest node"):
        tx.observe_transactions(g, np.ones(6, bool), protocol="diffusion", rng=0)


def test_precision_recall_refuses_a_float_mapping():
    g = (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 0]))
    obs = tx.observe_transactions(g, np.array([False, False, False, True]), rng=0)
    with pytest.raises(InvalidTypeError, match="mapping must be integer node indices"):
        tx.precision_recall(obs, [2.7, 2.0, 2.0])  # was read as node 2
    with pytest.raises(InvalidTypeError, match="mapping"):
        tx.precision_recall(obs, ["2", "2", "2"])
    assert tx.precision_recall(obs, [2, 2, 2]) == pytest.approx((1 / 9, 1 / 3))
    assert tx.precision_recall(obs, np.array([2, 2, 2], np.int32)) == pytest.approx((1 / 9, 1 / 3))


@pytest.mark.parametrize("token", ["1_000", "\u0661\u0662", "\uff11", "+5", "1.0", "0x10", " "])
def test_edge_list_node_ids_are_ascii_digits(tmp_path, token):
    from anonspread.spread.graphs import from_edgelist

    path = tmp_path / "g.txt"
    path.write_text(f"0 1\n1 {token}x\n" if token == " " else f"0 1\n1 {token}\n", encoding="utf-8")
    with pytest.raises(GraphError, match=r"line 2: node token .* is not a valid int \(ASCII digits"):
        from_edgelist(path)
    assert from_edgelist(path, nodetype=str).number_of_nodes() == 3


def test_edge_list_ascii_ids_and_negative_ids_still_read(tmp_path):
    from anonspread.spread.graphs import from_edgelist

    path = tmp_path / "g.txt"
    path.write_text("0 1000\n1000 -3\n")
    assert from_edgelist(path).labels == [0, 1000, -3]


@pytest.mark.parametrize("profiles", [[["0.5", "0.5"], ["0.2", "0.8"]], [[0.5, "0.5"], [0.2, 0.8]]])
def test_profile_graph_refuses_strings_as_probabilities(profiles):
    with pytest.raises(InvalidTypeError, match=r"profiles must be .* \(real numbers\)"):
        pr.ProfileGraph(profiles, [(0, 1)])
    with pytest.raises(InvalidTypeError, match="ps must be"):
        pr.smooth_one_bit(["0.2", "0.4"], [(0, 1)], 1.0)


# ----------------------------------------------------------------- 5. encodings


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32", "latin-1"])
def test_a_sweep_file_must_be_utf8(tmp_path, encoding, capsys):
    from anonspread.harness.cli import main
    from anonspread.harness.compose import load_sweep_file

    path = tmp_path / "sweep.toml"
    path.write_text('template = "detection"\nname = "café"\n[product]\nT = [2, 4]\n', encoding=encoding)
    with pytest.raises(InvalidParameterError, match=r"must be UTF-8 text \(TOML is always UTF-8\)"):
        load_sweep_file(str(path))
    assert main(["sweep", "--config", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "UTF-8" in err[0] and "Traceback" not in err[0]


def test_a_utf8_sweep_file_with_a_byte_order_mark_reads(tmp_path):
    from anonspread.harness.compose import load_sweep_file

    path = tmp_path / "sweep.toml"
    path.write_text('template = "detection"\nname = "café"\n', encoding="utf-8-sig")
    assert load_sweep_file(str(path)) == {"template": "detection", "name": "café"}


def test_a_sweep_file_must_be_a_regular_file():
    from anonspread.harness.compose import load_sweep_file

    with pytest.raises(AnonspreadError, match="must be a regular file"):
        load_sweep_file("/dev/zero")
