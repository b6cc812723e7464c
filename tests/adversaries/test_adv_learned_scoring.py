"""The learned adversary's scoring made cheaper without changing a bit (issue 31 item 6):
the boosting's trees summed by one compiled call (``engine.features.TreeEnsemble``) instead of
scikit-learn's call per tree, and the base features of an infected set that recurs kept by
the model instead of recomputed."""

import math
import pickle

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import learned
from anonspread.engine.features import TreeEnsemble
from anonspread.errors import InvalidParameterError


@pytest.fixture(scope="module")
def loopy():
    return nx.connected_watts_strogatz_graph(60, 6, 0.2, seed=5)


@pytest.fixture(scope="module")
def models(loopy):
    # adaptive diffusion with the near-ML's columns (NaN where a node is impossible) and
    # random diffusion (base columns only), each on a graph with cycles
    ad = learned.train_adversary(loopy, spread.AdaptiveDiffusion(d0=math.inf, max_infections_per_step=3), 4, spreads=120, held_out=20,
                                 reveal_edges=True)
    rd = learned.train_adversary(loopy, spread.RandomDiffusion(0.5), 3, spreads=120, held_out=20)
    return ad, rd


def test_compiled_trees_give_scikit_learns_log_odds_bit_for_bit(models, loopy):
    for adv in models:
        rng = np.random.default_rng(7)
        X = np.concatenate([learned.snapshot_features(
            A.observe(spread.simulate(loopy, adv.protocol, adv.T, rng=rng),
                      reveal_edges=adv.reveal_edges), adv.likelihood_params)
            for _ in range(40)])
        Xb = learned._binned(X, adv.bin_edges)
        with learned._one_thread():
            want = adv.model.decision_function(Xb)
        got = adv._log_odds(X)
        assert isinstance(adv._ensemble, TreeEnsemble) and adv._ensemble.n_trees == 150
        assert np.array_equal(got, want)
    # the compiled form is rebuilt after pickling, never carried
    back = pickle.loads(pickle.dumps(models[0]))
    assert not hasattr(back, "_ensemble")


def test_nan_rows_follow_the_trees_missing_branch(models, loopy):
    adv = models[0]  # near-ML columns: NaN for impossible sources
    rng = np.random.default_rng(3)
    X = learned._binned(np.concatenate([learned.snapshot_features(
        A.observe(spread.simulate(loopy, adv.protocol, adv.T, rng=rng), reveal_edges=True),
        adv.likelihood_params) for _ in range(40)]), adv.bin_edges)
    X[::3, 1] = np.nan  # missing values where the boosting saw none too
    assert np.isnan(X).any()
    with learned._one_thread():
        want = adv.model.decision_function(X)
    assert np.array_equal(adv._ensemble.predict(X), want)


def test_scores_of_a_recurring_set_are_the_bits_computed_afresh(models, loopy):
    adv = models[1]
    sp = spread.simulate(loopy, adv.protocol, adv.T, rng=11)
    snap = A.observe(sp)
    fresh = learned.LearnedAdversary.__new__(learned.LearnedAdversary)
    fresh.__setstate__(pickle.loads(pickle.dumps(adv)).__getstate__())
    first = fresh.scores(snap).array           # computed, kept
    assert fresh._scored_sets.computed == 1
    order = np.random.default_rng(2).permutation(snap.n)
    again = A.Snapshot(snap.graph, snap.nodes[order].tolist(), adv.T)
    second = fresh.scores(again).array         # the same set listed otherwise: kept features
    assert fresh._scored_sets.computed == 1 and fresh._scored_sets.hits == 1
    X = learned.snapshot_features(snap)
    assert np.array_equal(first, adv._log_odds(X))
    assert np.array_equal(second, first[order])


def test_tree_ensemble_refuses_what_could_loop_or_read_out_of_range():
    ok = dict(feature=[0, 0, 0], threshold=[0.5, 0, 0], missing_left=[True, False, False],
              is_leaf=[False, True, True], left=[1, 0, 0], right=[2, 0, 0],
              value=[0.0, -1.0, 2.0], roots=[0], baseline=0.0, n_features=1)
    ens = TreeEnsemble(**ok)
    assert ens.predict([[np.nan], [0.7]]).tolist() == [-1.0, 2.0]
    for bad in (dict(left=[0, 0, 0]), dict(right=[2, 0, 0], left=[3, 0, 0]), dict(feature=[1, 0, 0]),
                dict(roots=[1]), dict(value=[0.0, 1.0])):
        with pytest.raises(InvalidParameterError):
            TreeEnsemble(**{**ok, **bad})
    with pytest.raises(InvalidParameterError, match="shape"):
        ens.predict(np.zeros((2, 2)))


def test_a_model_of_another_layout_is_scored_by_scikit_learn(models, loopy):
    adv = models[1]

    class Opaque:  # the fitted model behind an interface without scikit-learn's attributes
        n_trees_per_iteration_ = 1

        def decision_function(self, X):
            return adv.model.decision_function(X)

    holder = type("Holder", (), {})()
    rng = np.random.default_rng(4)
    X = learned._binned(learned.snapshot_features(
        A.observe(spread.simulate(loopy, adv.protocol, adv.T, rng=rng))), adv.bin_edges)
    got = learned._decision(Opaque(), X, holder)
    assert holder._ensemble is None  # no compiled form: scikit-learn predicted
    with learned._one_thread():
        assert np.array_equal(got, adv.model.decision_function(X))
