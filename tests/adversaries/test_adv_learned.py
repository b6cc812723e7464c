"""The learned adversary (adversaries.learned): never above the Bayes-optimal MAP where it is
known, well above a uniform guess, seeded, cached per (graph, protocol, T, budget, seed),
picklable, refusing oversized or malformed requests."""

import math
import pickle

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import learned
from anonspread.errors import InvalidParameterError, InvalidTypeError

SMALL = {"spreads": 200, "held_out": 50}


def _paired(adv, G, proto, T, reference, trials, seed):
    """Per-snapshot detection probability of ``adv`` and of ``reference`` on the same spreads."""
    rng = np.random.default_rng(seed)
    out = np.empty((3, trials))
    for i in range(trials):
        sp = spread.simulate(G, proto, T, rng=rng)
        snap = A.observe(sp)
        out[0, i] = A.detection_probability(adv.scores(snap), sp.source)
        out[1, i] = A.detection_probability(reference(snap), sp.source)
        out[2, i] = 1.0 / snap.n  # a uniform guess among the infected nodes
    return out


# On a finite tree with a uniform source the exact likelihood's arg-max is the MAP estimate:
# no estimator can beat it on average ("ml" for adaptive diffusion, exact_likelihood otherwise).
MAP_CASES = [
    (nx.balanced_tree(2, 4), spread.AdaptiveDiffusion(3), 4,
     lambda s: A.ml_adaptive_diffusion(s, 3)),
    (nx.random_labeled_tree(40, seed=3), spread.RandomDiffusion(0.5), 3,
     lambda s: A.exact_likelihood(s, spread.RandomDiffusion(0.5))),
    (nx.random_labeled_tree(40, seed=3), spread.TreeProtocolPseudocode(), 4,
     lambda s: A.exact_likelihood(s, spread.TreeProtocolPseudocode())),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(MAP_CASES)))
def test_never_above_the_map_and_well_above_a_uniform_guess(case):
    G, proto, T, reference = MAP_CASES[case]
    adv = A.train_adversary(G, proto, T, spreads=800, held_out=200, train_seed=1)
    d = _paired(adv, G, proto, T, reference, 300, seed=11)
    diff = d[0] - d[1]
    se = diff.std(ddof=1) / math.sqrt(diff.shape[0])
    assert diff.mean() <= 3 * se + 1e-12, (d[0].mean(), d[1].mean())
    gain = d[0] - d[2]
    assert gain.mean() > 3 * gain.std(ddof=1) / math.sqrt(gain.shape[0])
    # the reported held-out interval covers the detection measured on fresh spreads
    ho = adv.held_out
    assert 0.0 <= ho.low <= ho.detection <= ho.high <= 1.0 and ho.spreads == 200
    margin = 3 * d[0].std(ddof=1) / math.sqrt(d.shape[1])
    assert ho.low - margin <= d[0].mean() <= ho.high + margin
    assert set(ho.baselines) >= {"jordan", "rumor-first-parent"}


def test_regular_tree_even_T_matches_perfect_obfuscation():
    # adaptive diffusion on the 3-regular tree at T = 4: every infected node but the
    # virtual source is equally likely (thesis §2.3), P_D = 1/9 for any estimator
    adv = A.train_adversary(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4,
                            spreads=300, held_out=400)
    assert adv.likelihoods == ("ml",)
    assert adv.held_out.low <= 1 / 9 <= adv.held_out.high
    assert adv.held_out.baselines["ml"] == pytest.approx(1 / 9)


def test_seeded_determinism_and_independence_from_the_evaluation_rng():
    G = nx.random_labeled_tree(30, seed=2)
    proto = spread.RandomDiffusion(0.5)
    a = A.train_adversary(G, proto, 3, train_seed=4, **SMALL)
    b = A.train_adversary(G, proto, 3, train_seed=4, **SMALL)
    c = A.train_adversary(G, proto, 3, train_seed=5, **SMALL)
    assert a.held_out == b.held_out
    differs = False
    for seed in range(5):
        snap = A.observe(spread.simulate(G, proto, 3, rng=seed))
        assert np.array_equal(a.scores(snap).array, b.scores(snap).array)
        differs |= not np.array_equal(a.scores(snap).array, c.scores(snap).array)
    assert differs


def test_scores_do_not_depend_on_the_order_of_the_infected_nodes():
    G = nx.connected_watts_strogatz_graph(60, 4, 0.2, seed=1)
    proto = spread.AdaptiveDiffusion(math.inf)
    adv = A.train_adversary(G, proto, 4, reveal_edges=True, **SMALL)
    assert adv.likelihoods == ("ml",)
    sp = spread.simulate(G, proto, 4, rng=3)
    snap = A.observe(sp, reveal_edges=True)
    order = np.random.default_rng(0).permutation(snap.n)
    nodes = snap.nodes[order].tolist()
    shuffled = A.Snapshot(G, nodes, 4, infection_edges=snap.infection_edges)
    a, b = adv.scores(snap), adv.scores(shuffled)
    assert all(a[v] == b[v] for v in nodes)
    # trained with the infection tree, it refuses a snapshot without it
    with pytest.raises(InvalidParameterError, match="reveal the infection tree"):
        adv.scores(A.observe(sp))


def test_registered_estimator_caches_per_graph_protocol_and_T():
    learned.cache_clear()
    G = nx.random_labeled_tree(30, seed=5)
    ad = spread.AdaptiveDiffusion(3)
    spec = A.get_estimator("learned")
    assert spec.params(ad, G) == {"protocol": ad} and not spec.likelihood and not spec.random
    snap4 = A.observe(spread.simulate(G, ad, 4, rng=1))
    first = spec.func(snap4, ad, **SMALL)
    again = spec.func(snap4, ad, **SMALL)
    assert np.array_equal(first.array, again.array) and first.kind == "log-odds"
    assert learned.cache_info()["misses"] == 1 and learned.cache_info()["hits"] == 1
    # the same graph under other labels is the same graph to the model
    relabelled = nx.relabel_nodes(G, {v: v for v in G})
    spec.func(A.observe(spread.simulate(relabelled, ad, 4, rng=2)), ad, **SMALL)
    assert learned.cache_info()["misses"] == 1
    spec.func(A.observe(spread.simulate(G, ad, 5, rng=1)), ad, **SMALL)  # another T
    assert learned.cache_info()["misses"] == 2
    rd = spread.RandomDiffusion(0.5)
    spec.func(A.observe(spread.simulate(G, rd, 4, rng=1)), rd, **SMALL)  # another protocol
    assert learned.cache_info()["misses"] == 3
    spec.func(snap4, ad, train_seed=1, **SMALL)  # another seed
    info = learned.cache_info()
    assert info["misses"] == 4 and info["size"] == 4 and info["maxsize"] == learned.CACHE_SIZE
    learned.cache_clear()
    assert learned.cache_info() == {"hits": 0, "misses": 0, "size": 0,
                                    "maxsize": learned.CACHE_SIZE, "pinned": 0}


def test_pickle_round_trip():
    G = nx.random_labeled_tree(30, seed=6)
    proto = spread.LineProtocol()
    adv = A.train_adversary(G, proto, 3, **SMALL)
    back = pickle.loads(pickle.dumps(adv))
    assert back.held_out == adv.held_out and back.budget == 200 and back.T == 3
    snap = A.observe(spread.simulate(G, proto, 3, rng=2))
    assert np.array_equal(back.scores(snap).array, adv.scores(snap).array)


def test_refuses_oversized_requests_with_the_size():
    tree = spread.graphs.regular_tree(3)
    with pytest.raises(InvalidParameterError, match=r"T must be small enough.*infects about"):
        A.train_adversary(tree, spread.Flooding(), 60)
    with pytest.raises(InvalidParameterError, match=r"spreads must be small enough.*node visits"):
        A.train_adversary(tree, spread.Flooding(), 20, spreads=10**5)
    with pytest.raises(InvalidParameterError, match=r"spreads must .* fit in memory; got "
                       r"spreads=100000000: it needs about"):
        A.train_adversary(tree, spread.Flooding(), 12, spreads=10**8)


def test_bad_input_names_parameter_value_and_what_is_accepted():
    G = nx.path_graph(10)
    fl = spread.Flooding()
    with pytest.raises(InvalidParameterError, match="spreads must be an integer >= 10; got 5"):
        A.train_adversary(G, fl, 2, spreads=5)
    with pytest.raises(InvalidParameterError, match="train_seed must be an integer >= 0; got -1"):
        A.train_adversary(G, fl, 2, train_seed=-1)
    with pytest.raises(InvalidParameterError, match="level must be in"):
        A.train_adversary(G, fl, 2, level=1.0)
    with pytest.raises(InvalidTypeError, match=r"protocol must be a spread\.protocols\.Protocol"):
        A.train_adversary(G, "flooding", 2)
    with pytest.raises(InvalidTypeError, match="reveal_edges must be True or False"):
        A.train_adversary(G, fl, 2, reveal_edges="yes")
    with pytest.raises(InvalidTypeError, match=r"snapshot must be an adversaries\.Snapshot"):
        A.learned_estimator("snap", fl)
    adv = A.train_adversary(G, fl, 2, **SMALL)
    with pytest.raises(InvalidParameterError, match=r"snapshot.T must be the T .* \(2\); got 3"):
        adv.scores(A.observe(spread.simulate(G, fl, 3, rng=0)))
    with pytest.raises(InvalidParameterError, match=r"snapshot\.graph must be the graph"):
        adv.scores(A.observe(spread.simulate(nx.cycle_graph(10), fl, 2, rng=0)))


def test_features_are_exact_on_a_worked_example():
    # a path 0-1-2-3-4 infected inside the path 0..6: node 2 is the centre
    snap = A.Snapshot(nx.path_graph(7), [0, 1, 2, 3, 4], T=2)
    X = learned.snapshot_features(snap)
    col = {name: X[:, i].tolist() for i, name in enumerate(learned.BASE_FEATURES)}
    assert col["ecc_minus_min"] == [2, 1, 0, 1, 2]
    assert col["mean_dist_minus_min"] == [1.0, 0.25, 0.0, 0.25, 1.0]  # sums 10, 7, 6, 7, 10 over 4
    assert col["boundary_dist"] == [4, 3, 2, 1, 0]  # only node 4 touches an uninfected node
    assert col["deg_in"] == [1, 2, 2, 2, 1] and col["deg_out"] == [0, 0, 0, 0, 1]
    assert col["ecc_rank"] == [0.875, 0.375, 0.0, 0.375, 0.875]
    assert col["rumor_minus_max"][2] == 0.0 and col["rumor_rank"][2] == 0.0
