"""Every public result object prints as one short line (issue 34): what it is, its size and its
key figures, never its arrays; the run and its table print as a text table as wide as the
terminal (or 100 columns when not a terminal).

Each class is built from a real small instance (a run of the function that returns it), and
the list of result classes is checked against the dataclasses the five packages export, so a
new result class without a short repr fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, datasets, harness, privacy, spread

#: Longest one-line repr accepted.
LIMIT = 200


def _spread_objects():
    tree = spread.graphs.regular_tree(3)
    s = spread.simulate(tree, spread.AdaptiveDiffusion(), T=4, rng=1)
    g = nx.random_regular_graph(4, 30, seed=2)
    stems = spread.simulate_stems(g, spread.DandelionPlusPlus(0.2), 50, spies=[0, 5, 10], rng=0)
    run = spread.simulate_messages(tree, spread.AdaptiveDiffusion(), 4, rng=1)
    from anonspread.spread.dandelion import draw_anonymity_graph

    return {
        "Spread": s,
        "SpreadBatch": spread.simulate_many(tree, spread.AdaptiveDiffusion(), T=4, trials=500, rng=1),
        "StemBatch": stems,
        "AnonymityGraph": draw_anonymity_graph(g, spread.DandelionPlusPlus(0.2), rng=0),
        "MessageRun": run,
        "MessageLog": run.log,
        "MessageCounts": run.counts,
        "SpyObservation": adversaries.observe_spies(run, list(run.spread.infected[1:4])),
        "ContactGraph": spread.graphs.as_contact_graph(g),
    }


def _adversary_objects():
    tree = spread.graphs.regular_tree(3)
    s = spread.simulate(tree, spread.AdaptiveDiffusion(), T=4, rng=1)
    snap = adversaries.observe(s)
    g = nx.random_regular_graph(3, 30, seed=1)
    rd = spread.RandomDiffusion()
    sg = spread.simulate(g, rd, T=3, rng=2)
    batch = adversaries.simulate_and_score(tree, spread.AdaptiveDiffusion(), T=4, trials=2000,
                                           estimators=("ml", "jordan", "rumor"), rng=1)
    line = adversaries.Snapshot(nx.path_graph(9), [2, 3, 4, 5, 6], T=2)
    g30 = nx.random_regular_graph(4, 30, seed=2)
    stems = spread.simulate_stems(g30, spread.Dandelion(0.2), 1, spies=[0, 5, 10, 15, 20, 25],
                                  sources=[7], rng=1)
    learned = adversaries.train_adversary(tree, spread.Flooding(), 2, spreads=20, held_out=30)
    from anonspread.adversaries.learned import TrainedModels, model_key
    from anonspread.adversaries.transactions import observe_transactions

    return {
        "Snapshot": snap,
        "Scores": adversaries.jordan_center(snap),
        "Evaluation": adversaries.evaluate(tree, adversaries.jordan_center(snap), s.source, rng=1),
        "BatchScores": batch,
        "EstimatorTrials": batch["ml"],
        "BPResult": adversaries.bp_posterior(adversaries.observe(sg), rd),
        "BPDetection": adversaries.bp_detection(g, rd, 3, 20, rng=1),
        "Ceiling": adversaries.bayes_ceiling(g, rd, T=2, trials=50, rng=1),
        "SoftMarginResult": adversaries.soft_margin_estimate(line, spread.LineProtocol(), rng=1),
        "SoftMarginCost": adversaries.soft_margin_cost([line], spread.LineProtocol()),
        "RumorCost": adversaries.rumor_cost([adversaries.observe(sg)], [sg.source]),
        "SpySoftMarginResult": adversaries.soft_margin_spies_estimate(
            stems.observation(0), spread.Dandelion(0.2), rng=1),
        "TopRank": adversaries.top_and_rank(adversaries.Snapshot(nx.path_graph(4), [0, 1, 2, 3], T=3),
                                            "jordan", 0),
        "LearnedAdversary": learned,
        "HeldOut": learned.held_out,
        "TrainedModels": TrainedModels({model_key(tree, spread.Flooding(), 2): learned}),
        "TransactionObservation": observe_transactions(
            (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 0])), np.array([False, False, False, True]),
            rng=0),
    }


def _privacy_objects():
    from anonspread.privacy import dominance, krandom
    from anonspread.privacy.funnel.data import empirical_joint
    from anonspread.privacy.profiles import ProfileMechanism, bernoulli_chain
    from anonspread.privacy.staircase import solve_staircase_lp
    from anonspread.privacy.utility import KL

    _olh = privacy.frequency.LocalHashing(16, 1.0)
    _olh_reports = _olh.privatize(np.arange(16).repeat(10), rng=1)
    return {
        "Mechanism": privacy.randomized_response(4, 1.0),
        "StaircaseResult": solve_staircase_lp(KL(np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])),
                                              1.0),
        "ErrorRegion": dominance.dp_error_region(1.0, 0.0),
        "EpsilonEstimate": krandom.epsilon_monte_carlo(20, 0.25, L=2, delta=0.05, n_samples=400, rng=1),
        "EmpiricalJoint": empirical_joint(["a", "a", "b", "b"], ["x", "y", "y", "y"]),
        "ProfileMechanism": ProfileMechanism.from_flip_probabilities([0.0, 0.5]),
        "ProfileGraph": bernoulli_chain(3),
        "FrequencyEstimate": _olh.estimate(_olh_reports),
        "HashReports": _olh_reports,
    }


def _trials(params, n, rng):
    return {"hit": (rng.random(n) < params["p"]).astype(float), "size": np.full(n, 10.0 * params["p"])}


def _experiment():
    return harness.Experiment(
        name="repr-demo", title="repr demo", description="reprs",
        grid=harness.Grid(product={"p": [0.1, 0.2, 0.3], "who": ["a", "b"]}),
        metrics=(harness.Metric("hit", "proportion", "P(hit)"), harness.Metric("size", "mean", "E[size]")),
        trials=_trials, default_trials=50)


def _harness_objects(tmp_path):
    from anonspread.harness import stats

    res = harness.run(_experiment(), rng=1, out=tmp_path, workers=1, plot=False, progress=False)
    moments = stats.Moments.of(np.array([0.0, 1.0, 1.0, 0.0]))
    return {
        "RunResult": res,
        "Table": res.table,
        "CostEstimate": harness.estimate_cost(_experiment(), trials=40, workers=1),
        "Moments": moments,
        "Summary": stats.summarize(moments, "proportion"),
        "UnitResult": harness.work.UnitResult(0, 0, 4, {"detection": moments}, 0.01),
    }


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    out = {**_spread_objects(), **_adversary_objects(), **_privacy_objects(),
           **_harness_objects(tmp_path_factory.mktemp("reprs"))}
    out["Records"] = datasets.load_adult("test")
    return out


#: Dataclasses the packages export that are not results (parameters, specs, registries'
#: entries, descriptions of what to run): their reprs are their constructor calls.
NOT_RESULTS = {
    "EstimatorSpec", "Trajectories", "Reach", "MessageBehaviour", "GraphFileRef", "DatasetInfo",
    "Component", "KindConvention", "SweepTemplate", "Metric", "Theory", "Reference", "PlotSpec",
    "Experiment", "Grid", "Param", "Unit", "Task", "Preparation", "SpyEstimatorSpec",
    "TransactionEstimatorSpec", "Message", "JournalState",
}


def _exported_dataclasses():
    names = set()
    for pkg in ("spread", "adversaries", "privacy", "harness", "datasets"):
        mod = importlib.import_module(f"anonspread.{pkg}")
        subs = [mod] + [importlib.import_module(f"anonspread.{pkg}.{m}")
                        for m in getattr(mod, "__all__", ()) if inspect.ismodule(getattr(mod, m, None))]
        for sub in subs:
            for name in getattr(sub, "__all__", ()):
                obj = getattr(sub, name, None)
                if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
                    names.add(name)
    return names


def test_every_exported_result_dataclass_is_covered(objects):
    missing = _exported_dataclasses() - set(objects) - NOT_RESULTS
    assert not missing, f"result classes without a repr check here: {sorted(missing)}"


def test_each_repr_is_one_short_line(objects):
    too_long = {}
    for name, obj in objects.items():
        assert type(obj).__name__ == name, (name, type(obj))
        text = repr(obj)
        if "\n" in text or len(text) > LIMIT or "array(" in text:
            too_long[name] = (len(text), text[:120])
    assert not too_long, too_long


def test_reprs_say_the_key_figures(objects):
    batch = repr(objects["BatchScores"])
    assert "trials=2000" in batch and "detection: ml " in batch and "jordan " in batch, batch
    ml = objects["BatchScores"]["ml"].mean()[0]
    assert f"ml {ml:.3g}" in batch
    assert f"detection={ml:.4g}" in repr(objects["EstimatorTrials"])
    assert "T=4" in repr(objects["Spread"]) and "n_infected=10" in repr(objects["Spread"])
    assert "trials=500" in repr(objects["SpreadBatch"]) and "mean N_T=10" in repr(objects["SpreadBatch"])
    assert repr(objects["Ceiling"]).startswith(f"Ceiling(value={objects['Ceiling'].value:.6g}")
    assert repr(objects["Records"]).startswith("Records(16281 rows x 15 columns: age, ")
    run = repr(objects["RunResult"])
    assert run == f"<RunResult 'repr-demo': 6 points x 2 metrics, 50 trials per point, seed 1, {objects['RunResult'].elapsed:.1f} s>"
    assert repr(objects["Table"]) == "<Table: 6 points x 2 metrics (hit, size); parameters p, who>"


def test_batch_scores_html_is_a_table_of_estimators(objects):
    batch = objects["BatchScores"]
    page = batch._repr_html_()
    assert page.count("<tr>") == 1 + 3 and "<th>detection</th>" in page
    mean, se = batch["jordan"].mean()
    assert f"<td>jordan</td><td>{mean:.4g} &plusmn; {se:.2g}</td>" in page


def test_a_batch_of_many_estimators_stays_one_line():
    """A dozen estimators: the line names those that fit and counts the others."""
    trials = adversaries.EstimatorTrials(np.zeros(3, np.int8), np.zeros(3), np.zeros(3), np.ones(3))
    batch = adversaries.BatchScores(2, 3, np.zeros(3), np.full(3, 4),
                                    {f"estimator-number-{i}": trials for i in range(12)})
    text = repr(batch)
    assert len(text) <= LIMIT and "\n" not in text, text
    shown = text.count("estimator-number-")
    assert 1 <= shown < 12 and text.endswith(f", +{12 - shown} more)"), text


# --------------------------------------------------------------------------- printed tables


def _wide_table():
    """Three parameters, eight interval metrics: about 230 columns on one line."""
    rows = []
    metrics = ["detection", "hops", "n_infected", "rank", "component_fraction", "saturated",
               "T_snapshot", "reached"]
    for protocol in ("adaptive-diffusion", "random-diffusion"):
        for est in ("ml", "jordan", "strongest"):
            for T in (2, 4):
                for j, m in enumerate(metrics):
                    if est == "strongest" and m != "detection":
                        continue
                    mean = 0.0123456 * (j + 1) + T / 1000
                    rows.append({"protocol": protocol, "estimator": est, "T": T, "metric": m, "n": 200,
                                 "mean": mean, "stderr": 0.001, "ci_low": mean - 0.00213,
                                 "ci_high": mean + 0.00251})
    return harness.Table(params=("protocol", "estimator", "T"),
                         param_types={"protocol": "str", "estimator": "str", "T": "int"}, rows=rows,
                         skipped=({"params": {"protocol": "random-diffusion", "estimator": "ml", "T": 2},
                                   "reason": "estimator 'ml' assumes a protocol in ['adaptive-diffusion']; "
                                   "got RandomDiffusion(p=0.5), and this reason is long enough to wrap"},))


@pytest.mark.parametrize("width", [80, 100, 200])
def test_printed_table_fits_the_width(width):
    table = _wide_table()
    text = table.format_text(width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width, max(lines, key=len)
    # nothing is lost: every cell of the one-line table is somewhere in the blocks
    full = table.format_text(width=10_000)
    assert len(full.splitlines()[0]) > 200
    for row in table.rows:
        mean = f"{row['mean']:.4g} [{row['ci_low']:.3g}, {row['ci_high']:.3g}]"
        assert mean in text and mean in full
    blocks = text.split("\n\n")
    assert (len(blocks) == 1) == (width >= len(full.splitlines()[0]))
    for block in blocks[:-1] if width < 200 else []:
        assert block.splitlines()[0].startswith("protocol            estimator  T  trials")
    # the strongest rows (detection only) are left out of the blocks without detection
    if len(blocks) > 1:
        assert "strongest" in blocks[0] and "strongest" not in blocks[1]


def test_printed_table_defaults_to_the_terminal_or_100(monkeypatch):
    table = _wide_table()
    monkeypatch.delenv("COLUMNS", raising=False)
    # under pytest stdout is not a terminal: 100 columns
    assert table.format_text() == table.format_text(width=100)
    monkeypatch.setenv("COLUMNS", "150")
    assert table.format_text() == table.format_text(width=150)
    assert str(table) == table.format_text(max_points=12, width=150)


def test_str_of_a_run_is_the_table(objects, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    res = objects["RunResult"]
    text = str(res)
    assert text.splitlines()[0] == repr(res)
    assert text.splitlines()[1].startswith("files: ")
    assert res.table.format_text(max_points=12, width=80) in text
    assert max(len(line) for line in text.splitlines()[2:]) <= 80
