"""Rumour centrality's cost, known before it runs (issue 32 item 3): the plan counts the
exact scan's evaluations (its ``n_core_bfs``, exactly), :func:`adversaries.rumor_cost`
prices a batch from it, a scan above the work limit is refused up front naming its size,
and the sweeps price rumour points (skipping those above the estimator budget) instead of
timing a trial that can take hours."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import harness, spread
from anonspread.adversaries import estimators as E
from anonspread.adversaries.scores import TIE_RTOL
from anonspread.engine import rumor as R
from anonspread.engine import rumor_threads as P
from anonspread.errors import InvalidParameterError
from anonspread.spread.limits import raised_limits


def _csr(G: nx.Graph, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """CSR of a connected graph, each row in a random order (the scan's BFS trees follow it)."""
    G = nx.convert_node_labels_to_integers(G)
    indptr, indices = [0], []
    for v in range(G.number_of_nodes()):
        row = list(G.neighbors(v))
        rng.shuffle(row)
        indices += row
        indptr.append(len(indices))
    return np.array(indptr, np.int64), np.array(indices, np.int32)


def _graphs(rng: np.random.Generator):
    """Connected graphs of every shape the scan meets: sparse and dense, 2-connected cores,
    cores with cut vertices and pendant trees, bridged cycles, trees."""
    for k in range(60):
        n = int(rng.integers(4, 70))
        kind = k % 6
        if kind == 0:
            G = nx.gnp_random_graph(n, 3.0 / n, seed=k)
        elif kind == 1:
            G = nx.random_regular_graph(3, n + n % 2, seed=k)
        elif kind == 2:
            G = nx.barabasi_albert_graph(n, 1 + k % 3, seed=k)
        elif kind == 3:
            G = nx.random_labeled_tree(n, seed=k)
        elif kind == 4:  # a tree with a few chords: small cores, long pendant trees
            G = nx.random_labeled_tree(n, seed=k)
            for a, b in rng.integers(0, n, (3, 2)).tolist():
                if a != b:
                    G.add_edge(a, b)
        else:  # two dense blocks joined by a path: cut vertices inside the core
            G = nx.disjoint_union(nx.complete_graph(5 + k % 4), nx.cycle_graph(4 + k % 5))
            G.add_edge(0, G.number_of_nodes() - 1)
        if not nx.is_connected(G):
            G = G.subgraph(max(nx.connected_components(G), key=len)).copy()
        if G.number_of_nodes() >= 2:
            yield G


def test_the_plan_counts_the_scans_evaluations_exactly():
    rng = np.random.default_rng(7)
    checked = with_core = 0
    for G in _graphs(rng):
        indptr, indices = _csr(G, rng)
        n = indptr.shape[0] - 1
        for s in {0, n - 1, *rng.integers(0, n, 3).tolist()}:
            top = np.zeros(n, bool)
            best, s0, greater, tied, used = R.graph_rumor_top(indptr, indices, s, TIE_RTOL, top)
            plan = R.rumor_plan(indptr, indices, s, TIE_RTOL, timed=2)
            assert plan.evaluations == used, (n, s)
            assert plan.source_score == pytest.approx(s0, rel=1e-12, abs=1e-12)
            core = R.two_core(indptr, indices)[0]
            assert plan.core_nodes == int(core.sum())
            assert plan.core_arcs == sum(int(core[indices[indptr[v]:indptr[v + 1]]].sum())
                                         for v in np.flatnonzero(core))
            assert plan.work == plan.evaluations * (plan.core_nodes + plan.core_arcs)
            assert (plan.seconds_per_evaluation > 0) == (plan.evaluations > 0)
            assert plan.cpu_seconds == pytest.approx(
                plan.setup_seconds + plan.evaluations * plan.seconds_per_evaluation)
            # the threaded scan uses the same evaluations (its batches may compute more)
            top2 = np.zeros(n, bool)
            assert P.rumor_top(indptr, indices, s, TIE_RTOL, top2, 2, 0)[4] == used
            checked += 1
            with_core += plan.core_nodes > 0
    assert checked > 150 and with_core > 100


def test_the_plan_on_a_2_connected_core_evaluates_every_core_node():
    rng = np.random.default_rng(3)
    G = nx.random_regular_graph(4, 300, seed=2)  # 2-connected: one bound for every node
    indptr, indices = _csr(G, rng)
    plan = R.rumor_plan(indptr, indices, 5, TIE_RTOL)
    assert plan.evaluations == plan.core_nodes == 300 and plan.core_arcs == 1200
    assert R.rumor_plan(indptr, indices, 5, TIE_RTOL, timed=0).seconds_per_evaluation == 0.0
    with pytest.raises(InvalidParameterError, match="min_seconds"):
        R.rumor_plan(indptr, indices, 5, TIE_RTOL, min_seconds=-1.0)
    with pytest.raises(InvalidParameterError, match="timed"):
        R.rumor_plan(indptr, indices, 5, TIE_RTOL, timed=-1)


def _snapshots(g, proto, T, seeds):
    sims = [spread.simulate(g, proto, T, rng=s) for s in seeds]
    return [A.observe(x) for x in sims], [x.source for x in sims]


def test_rumor_cost_prices_a_batch_from_its_plans():
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 200, seed=1))
    snaps, sources = _snapshots(g, spread.RandomDiffusion(0.5), 4, range(6))
    cost = A.rumor_cost(snaps, sources, batch=12)
    plans = [R.rumor_plan(*sn.subgraph(), sn.position(src), TIE_RTOL, timed=0)
             for sn, src in zip(snaps, sources) if not sn.subgraph_is_tree()]
    assert cost.evaluations == sum(p.evaluations for p in plans) > 0
    linear = sum(sn.n + sn.subgraph()[1].shape[0] for sn in snaps)
    assert cost.work == pytest.approx(2 * (linear + sum(p.work for p in plans)))
    assert cost.snapshots == 12 and cost.sampled == 6 and cost.cpu_seconds > 0
    assert cost.cpu_seconds > 2 * cost.evaluations * cost.seconds_per_evaluation  # + the setups
    assert 0 < cost.most_seconds <= cost.cpu_seconds / 2  # the costliest of the 6, not their sum
    assert "exact evaluations a snapshot" in cost.describe() and "from 6 sampled of 12" in cost.describe()
    untimed = A.rumor_cost(snaps, sources, timed=False)
    assert untimed.cpu_seconds is None and untimed.seconds_per_evaluation is None
    assert untimed.work == pytest.approx(cost.work / 2)
    # each evaluation of the scan is one it counted
    for sn, src, p in zip(snaps, sources, plans):
        assert A.top_and_rank(sn, "rumor", src).exact_scores >= p.evaluations
    with pytest.raises(InvalidParameterError, match="sources must hold one source per snapshot"):
        A.rumor_cost(snaps, sources[:2])
    with pytest.raises(InvalidParameterError, match="snapshots must hold at least one"):
        A.rumor_cost([], [])
    with pytest.raises(InvalidParameterError, match="batch"):
        A.rumor_cost(snaps, sources, batch=2)


def test_the_registry_price_leaves_cheap_points_to_the_pilot(monkeypatch):
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 200, seed=1))
    snaps, sources = _snapshots(g, spread.RandomDiffusion(0.5), 4, range(6))
    monkeypatch.setattr(E, "RUMOR_PRICE_FROM", 1e9)
    assert E._rumor_price(snaps, sources=sources, batch=6) is None
    monkeypatch.setattr(E, "RUMOR_PRICE_FROM", 0.0)
    assert isinstance(E._rumor_price(snaps, sources=sources, batch=6), A.RumorCost)
    assert A.get_estimator("rumor").price_sample == 32 and A.get_estimator("jordan").price is None


def test_a_tree_costs_no_evaluation():
    g = spread.graphs.as_contact_graph(nx.random_labeled_tree(200, seed=4))
    snaps, sources = _snapshots(g, spread.RandomDiffusion(0.5), 5, range(3))
    cost = A.rumor_cost(snaps, sources)
    assert cost.evaluations == 0 and cost.core_nodes == 0 and cost.cpu_seconds == 0.0
    assert E._rumor_price(snaps, sources=sources) is None  # too cheap: the pilot times it


def test_a_scan_above_the_work_limit_is_refused_up_front():
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(4, 400, seed=1))
    sim = spread.simulate(g, spread.RandomDiffusion(0.5), 8, rng=0)
    snap = A.observe(sim)
    plan = R.rumor_plan(*snap.subgraph(), snap.position(sim.source), TIE_RTOL, timed=0)
    assert plan.evaluations > 100
    with raised_limits(work=plan.work / 2), pytest.raises(InvalidParameterError) as err:
        A.top_and_rank(snap, "rumor", sim.source)
    text = str(err.value)
    assert f"snapshot.n must be small enough for rumour centrality's exact scan ({plan.evaluations:,} evaluations" in text
    assert f"of {plan.core_nodes:,} nodes and {plan.core_arcs:,} arcs" in text and "ANONSPREAD_MAX_WORK" in text
    with raised_limits(work=plan.work * 1.01):  # at the limit it runs: the count is exact
        assert A.top_and_rank(snap, "rumor", sim.source).exact_scores == plan.evaluations
    n, m = snap.n, snap.subgraph()[1].shape[0]
    with raised_limits(work=n * (n + m) / 2), pytest.raises(InvalidParameterError,
                                                          match="rumour centrality's every score"):
        A.rumor_centrality(snap)
    with raised_limits(work=n * (n + m) / 2):  # the tree path and other estimators are linear
        A.top_and_rank(snap, "jordan", sim.source)


POINT = {"graph": "random-regular", "graph.n": 120, "graph.d": 4, "protocol": "random-diffusion",
         "protocol.p": 0.5, "T": [2, 6]}


@pytest.mark.filterwarnings("ignore::anonspread.errors.SaturationWarning")
def test_the_sweep_prices_rumor_and_skips_a_point_above_the_budget(tmp_path, monkeypatch):
    from anonspread.engine import rumor_threads
    from anonspread.harness.experiments import spreading

    monkeypatch.setattr(E, "RUMOR_PRICE_FROM", 0.0)  # price even these small snapshots
    # prices are kept per process: these must not outlive the threshold patched above
    monkeypatch.setattr(spreading, "_PRICES", {})
    monkeypatch.setattr(spreading, "_PRICE_SAMPLES", {})
    exp = harness.compose("detection", name="rumor-price",
                          product={**POINT, "estimator": ["jordan", "rumor"]})
    calls = []
    real = rumor_threads.rumor_top
    est = harness.estimate_cost(exp, trials=30, executor="inprocess", workers=1, estimator_budget="inf")
    priced = [r for r in est.rows if "priced" in r]
    assert sorted(r["params"]["T"] for r in priced) == [2, 6]
    assert all(r["label"] == "rumor" and r["pilot_trials"] == 0 for r in priced)
    assert all("exact evaluations a snapshot" in r["priced"] for r in priced)
    assert any(n.startswith("rumor priced, not run: its exact evaluations") for n in est.notes)
    # the pilot never ran a rumour scan
    monkeypatch.setattr(rumor_threads, "rumor_top", lambda *a, **k: calls.append(a) or real(*a, **k))
    harness.estimate_cost(exp, trials=31, executor="inprocess", workers=1, estimator_budget="inf")
    assert not calls
    # T = 6 covers most of the 120 nodes: the costlier point, skipped under a budget between
    t2, t6 = sorted(priced, key=lambda r: r["params"]["T"])
    assert t6["cpu_per_trial"] > 3 * t2["cpu_per_trial"]
    budget = (t2["cpu_per_trial"] + t6["cpu_per_trial"]) / 2 * 30
    res = harness.run(exp, trials=30, rng=1, out=tmp_path, workers=1, progress=False, plot=False,
                      estimator_budget=budget)
    skipped = res.table.skipped
    assert [(s["params"]["estimator"], s["params"]["T"]) for s in skipped] == [("rumor", 6)]
    reason = skipped[0]["reason"]
    assert reason.startswith("rumor not run: priced at ~") and "exact evaluations a snapshot" in reason
    assert "an estimate from the sampled spreads: each one's evaluations counted exactly" in reason
    assert "--estimator-budget" in reason
    assert {(r["estimator"], r["T"]) for r in res.table.rows} == {("jordan", 2), ("jordan", 6), ("rumor", 2)}
    # the table's text says which T was skipped, although only one point of it was
    assert "  protocol=random-diffusion, estimator=rumor, T=6: rumor not run" in res.table.format_text()


def test_a_cheap_rumor_point_is_timed_as_before():
    exp = harness.compose("detection", name="rumor-timed",
                          product={**POINT, "estimator": ["rumor"]})
    est = harness.estimate_cost(exp, trials=30, executor="inprocess", workers=1)
    assert all("priced" not in r and r["pilot_trials"] >= 1 for r in est.rows)
