"""The learned adversary's feature version 2 (issue 31 item 6): the rumour columns from
``engine.features.bfs_rumor`` (exact rumour centrality on trees, independent of the order the
snapshot lists its nodes in), the boosting fitted on bin numbers equal to scikit-learn's own
binning, and the feature version in the model key (a model of another version is never
reused), with version-1 models still scoring as they were trained."""

import pickle

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import learned
from anonspread.errors import InvalidParameterError

RUMOR = [learned.BASE_FEATURES.index("rumor_minus_max"), learned.BASE_FEATURES.index("rumor_rank")]


def test_rumour_columns_are_exact_rumour_centrality_on_trees():
    # on a tree the infected subgraph is a tree: version 2's columns are the rumor
    # estimator's exact scores (version 1's), whatever the snapshot
    G = nx.random_labeled_tree(60, seed=4)
    proto = spread.RandomDiffusion(0.6)
    rng = np.random.default_rng(1)
    for _ in range(10):
        snap = A.observe(spread.simulate(G, proto, 4, rng=rng))
        assert snap.subgraph_is_tree()
        v1 = learned.snapshot_features(snap, feature_version=1)
        v2 = learned.snapshot_features(snap)
        exact = A.rumor_centrality(snap).array
        assert np.allclose(v2[:, RUMOR[0]], np.round(exact - exact.max(), 6), rtol=0, atol=2e-6)
        assert np.allclose(v1[:, RUMOR], v2[:, RUMOR], rtol=0, atol=2e-6)
        others = [i for i in range(v1.shape[1]) if i not in RUMOR]
        assert np.array_equal(v1[:, others], v2[:, others])


def test_features_do_not_depend_on_the_order_the_nodes_are_listed_in():
    # the snapshot lists its nodes in infection order, source first: a feature tied to that
    # order would be a label (on a graph with cycles, where the BFS trees' parents matter)
    G = nx.connected_watts_strogatz_graph(80, 6, 0.2, seed=2)
    proto = spread.RandomDiffusion(0.5)
    for seed in range(4):
        sp = spread.simulate(G, proto, 4, rng=seed)
        snap = A.observe(sp)
        assert not snap.subgraph_is_tree()
        order = np.random.default_rng(seed).permutation(snap.n)
        shuffled = A.Snapshot(G, snap.nodes[order].tolist(), 4)
        a = learned.snapshot_features(snap)[order]
        b = learned.snapshot_features(shuffled)
        assert np.allclose(a, b, rtol=0, atol=2e-6, equal_nan=True)


def test_binning_gives_scikit_learns_model():
    # the boosting on bin numbers is the boosting scikit-learn fits on the raw weighted rows
    # (its weighted-percentile thresholds), tree for tree
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=1200), rng.integers(0, 40, 1200).astype(float),
                         np.round(rng.exponential(size=1200), 2), rng.uniform(size=1200)])
    X[rng.random(1200) < 0.05, 3] = np.nan
    y = (X[:, 0] + 0.1 * X[:, 1] + rng.normal(size=1200) > 2).astype(np.int8)
    w = np.where(y == 1, 1.0, rng.choice([1.0, 7.5], 1200))
    raw = learned._new_model(20, np.random.default_rng(0))
    with learned._one_thread():
        raw.fit(X, y, sample_weight=w)
    ours, edges = learned._fit(X, y, w, 20, np.random.default_rng(0), 2)
    test = np.vstack([X[:500], rng.normal(size=(200, 4)) * [1, 30, 2, 1]])
    with learned._one_thread():
        want = raw.decision_function(test)
        got = ours.decision_function(learned._binned(test, edges))
    assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_the_model_key_carries_the_feature_version(monkeypatch):
    learned.cache_clear()
    G = nx.random_labeled_tree(30, seed=5)
    ad = spread.AdaptiveDiffusion(3)
    key = learned.model_key(G, ad, 4, spreads=60, held_out=5)
    assert key[-1] == learned.FEATURE_VERSION == 2
    old = A.train_adversary(G, ad, 4, spreads=60, held_out=5, feature_version=1)
    monkeypatch.setattr(learned, "FEATURE_VERSION", 1)
    old_key = learned.model_key(G, ad, 4, spreads=60, held_out=5)
    monkeypatch.undo()
    assert old_key != key and old_key[:-1] == key[:-1]
    # a bundle of models of the old features, installed, is not used under the new key
    with learned.TrainedModels({old_key: old}).installed():
        adv = learned.cached_adversary(G, ad, 4, spreads=60, held_out=5)
    assert adv is not old and adv.feature_version == 2 and old.feature_version == 1
    assert learned.cache_info()["misses"] == 1 and learned.cache_info()["hits"] == 0
    learned.cache_clear()


def test_version_1_models_keep_their_features_and_refuse_unknown_versions():
    G = nx.connected_watts_strogatz_graph(40, 4, 0.2, seed=1)
    proto = spread.RandomDiffusion(0.5)
    v1 = A.train_adversary(G, proto, 3, spreads=60, held_out=20, feature_version=1)
    assert v1.bin_edges is None and set(v1.held_out.baselines) == {"jordan", "rumor"}
    assert "feature_version=1" in repr(v1)
    v2 = A.train_adversary(G, proto, 3, spreads=60, held_out=20)
    assert v2.bin_edges is not None and set(v2.held_out.baselines) == {"jordan", "rumor-first-parent"}
    # the same held-out spreads (they come from train_seed): the jordan column is the same
    assert v1.held_out.baselines["jordan"] == v2.held_out.baselines["jordan"]
    # a model pickled before version 2 had neither attribute: it scores with version 1
    state = {k: v for k, v in v1.__dict__.items() if k not in ("feature_version", "bin_edges")}
    legacy = learned.LearnedAdversary.__new__(learned.LearnedAdversary)
    legacy.__setstate__(pickle.loads(pickle.dumps(state)))
    snap = A.observe(spread.simulate(G, proto, 3, rng=7))
    assert legacy.feature_version == 1
    assert np.array_equal(legacy.scores(snap).array, v1.scores(snap).array)
    back = pickle.loads(pickle.dumps(v2))
    assert np.array_equal(back.scores(snap).array, v2.scores(snap).array)
    with pytest.raises(InvalidParameterError, match="feature_version must be one of 1, 2; got 3"):
        A.train_adversary(G, proto, 3, spreads=60, held_out=20, feature_version=3)
    with pytest.raises(InvalidParameterError, match="feature_version"):
        learned.snapshot_features(snap, feature_version=0)
