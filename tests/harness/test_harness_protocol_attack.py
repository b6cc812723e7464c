"""The protocol-attack sweep: protocols x applicable adversaries on a chosen graph family."""

import csv
import math

import networkx as nx
import numpy as np
import pytest

from anonspread import harness
from anonspread.adversaries import transactions as tx
from anonspread.errors import InvalidParameterError
from anonspread.harness.cli import main
from anonspread.harness.experiments.protocol_attack import DEFAULT_ATTACKS, attack_trials


def test_default_sweep_runs_tiny_on_a_chosen_family(tmp_path):
    code = main(["sweep", "protocol-attack", "--set", "graph=erdos-renyi", "--set", "graph.n=80",
                 "--set", "graph.mean_degree=6", "--set", "fraction=0.1", "--set", "T=4",
                 "--trials", "4", "--rng", "1", "--workers", "1", "--quiet", "--out", str(tmp_path)])
    assert code == 0
    stem = next(tmp_path.glob("sweep-protocol-attack-*.csv")).with_suffix("")
    rows = list(csv.DictReader(open(stem.with_suffix(".csv"))))
    assert {r["attack"] for r in rows} == set(DEFAULT_ATTACKS)  # every default pair, one command
    assert all(0.0 <= float(r["mean"]) <= 1.0 for r in rows)
    assert stem.with_suffix(".png").exists()


@pytest.mark.parametrize("attack, reason", [
    ("dandelion/jordan", "only spy estimators apply"),
    ("adaptive-diffusion/ml-snapshot-spies", "needs a tree"),
    ("diffusion/ml-spies", "assumes a protocol"),
])
def test_inapplicable_pairs_are_refused_with_the_registrys_reason(attack, reason):
    p = {"graph": "random-regular", "graph.n": 50, "attack": attack, "fraction": 0.1, "T": 3,
         "q": 0.1, "fresh_graph": False}
    with pytest.raises(InvalidParameterError, match=reason):
        attack_trials(p, 2, np.random.default_rng(0))


def test_bad_attack_names_are_refused_before_running(tmp_path):
    with pytest.raises(InvalidParameterError, match="attack"):
        harness.compose("protocol-attack", product={"attack": ["gossip/first-spy"]})
    p = {"graph": "regular-3", "attack": "dandelion/first-spy", "fraction": 0.1, "T": 3, "q": 0.1,
         "fresh_graph": False}
    with pytest.raises(InvalidParameterError, match="finite"):
        attack_trials(p, 1, np.random.default_rng(0))


@pytest.mark.slow
def test_stem_engine_and_transaction_model_agree_on_first_spy_recall():
    """Two independent engines, one quantity: the first-spy recall of diffusion on one graph.

    spread.simulate_stems (continuous-time heap, one transaction per trial, source uniform over
    the honest nodes, spies uniform over the others) and the transaction model's
    diffusion kernel (every honest node's transaction, exactly k spies) estimate the same
    P(the first spy's sender is the source). Dandelion with q = 0 is compared with the line's
    exact value k/(n-1).
    """
    from anonspread.spread.dandelion import Dandelion, simulate_stems
    from anonspread.spread.events import ContinuousDiffusion

    n, k, trials = 60, 6, 3000
    G = nx.random_regular_graph(4, n, seed=3)
    rng = np.random.default_rng(7)
    draws = np.array([rng.choice(n, size=k + 1, replace=False) for _ in range(trials)])
    b = simulate_stems(G, ContinuousDiffusion(1.0), trials, spies=draws[:, 1:], sources=draws[:, 0],
                       rng=rng)
    stems = np.mean(b.first_spy() == draws[:, 0])
    csr = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
    graph = (csr.indptr.astype(np.int64), csr.indices.astype(np.int64))
    rec = [tx.precision_recall(o, tx.estimate("first-spy", o))[1]
           for o in (tx.observe_transactions(graph, tx.draw_spy_mask(n, k / n, rng=rng), "diffusion",
                                             rng=rng) for _ in range(trials // 20))]
    se = math.sqrt(stems * (1 - stems) / trials) + np.std(rec) / math.sqrt(len(rec))
    assert abs(stems - np.mean(rec)) < 4 * se, (stems, np.mean(rec))
    b = simulate_stems(G, Dandelion(0.0), trials, spies=draws[:, 1:], sources=draws[:, 0], rng=rng)
    line = np.mean(b.first_spy() == draws[:, 0])
    assert abs(line - k / (n - 1)) < 4 * math.sqrt(line * (1 - line) / trials) + 1e-3


def test_inapplicable_pairs_in_a_sweep_are_skipped_and_named(tmp_path, capsys):
    code = main(["sweep", "protocol-attack", "--set", "graph=random-regular", "--set", "graph.n=60",
                 "--set", "attack=dandelion/first-spy,dandelion/jordan,adaptive-diffusion/ml",
                 "--set", "fraction=0.1", "--set", "T=3", "--trials", "4", "--rng", "1",
                 "--workers", "1", "--quiet", "--no-plot", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    stem = next(tmp_path.glob("sweep-protocol-attack-*.csv")).with_suffix("")
    assert {r["attack"] for r in csv.DictReader(open(stem.with_suffix(".csv")))} == {
        "dandelion/first-spy", "adaptive-diffusion/ml"}
    assert "attack=dandelion/jordan" in out and "only spy estimators apply" in out
    import json

    side = json.loads(stem.with_suffix(".json").read_text())
    assert [s["params"]["attack"] for s in side["skipped"]] == ["dandelion/jordan"]


def test_strongest_attack_is_chosen_by_the_data_and_reported_on_the_other_half(tmp_path):
    # with 20% spies first-spy finds the adaptive-diffusion source far more often than the
    # snapshot near-ML (which ignores the spies): the data choose it, whatever the order
    attacks = ["adaptive-diffusion/ml", "adaptive-diffusion/jordan", "adaptive-diffusion/first-spy",
               "adaptive-diffusion/strongest"]
    exp = harness.compose("protocol-attack", product={"graph.n": [200], "fraction": [0.2], "attack": attacks})
    res = harness.run(exp, trials=120, rng=1, out=tmp_path, workers=1, progress=False)
    (rec,) = res.table.derived
    assert rec["chosen"] == "adaptive-diffusion/first-spy"
    assert set(rec["selection"]) == set(attacks[:3]) and rec["report"]["trials"] == 60
    (row,) = res.table.where(attack="adaptive-diffusion/strongest")
    assert row["n"] == 60 and row["ci_low"] > 0.03
    (fs,) = res.table.where(attack="adaptive-diffusion/first-spy")
    assert row["mean"] == pytest.approx((fs["mean"] * 120 - rec["selection"][attacks[2]][0]) / 60)
    # the figure names the choice in the series' legend entry, and says how it was made
    fig = res.draw()
    entries = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any(e.endswith("\nchosen: first-spy (attack = adaptive-diffusion/strongest)") for e in entries)
    assert not [t for ax in fig.axes for t in ax.texts]
    assert "strongest: chosen on the even-numbered trials" in fig._suptitle.get_text().replace("\n", " ")
