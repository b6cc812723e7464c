"""The transaction model of Dandelion/Dandelion++: worked examples, brute force, closed forms."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from anonspread.adversaries import transactions as tx
from anonspread.adversaries import transactions_theory as th
from anonspread.engine import dandelion as K
from anonspread.errors import InvalidParameterError, InvalidTypeError

CYCLE4 = (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 0]))


def _cycle(n):
    return np.arange(n + 1, dtype=np.int64), (np.arange(n, dtype=np.int64) + 1) % n


def _mask(n, spies):
    m = np.zeros(n, bool)
    m[list(spies)] = True
    return m


# ----------------------------------------------------------------- worked examples


def test_worked_example_four_cycle_one_spy():
    obs = tx.observe_transactions(CYCLE4, _mask(4, [3]), rng=0)
    assert obs.sources.tolist() == [0, 1, 2]
    assert obs.kind.tolist() == [0, 0, 0] and obs.node.tolist() == [2, 2, 2]
    assert obs.hops.tolist() == [3, 2, 1]
    # first-spy: all three to node 2; one right, node 2 holds three
    p, r = tx.precision_recall(obs, tx.estimate("first-spy", obs))
    assert (p, r) == pytest.approx((1 / 9, 1 / 3))
    assert [str(x) for x in th.line_first_spy(4, 1)] == ["1/9", "1/3"]
    # the likelihood is flat over the run {0, 1, 2}: every stem ends through 2 -> 3
    np.testing.assert_allclose(tx.stem_likelihoods(obs), np.ones((3, 3)))
    for seed in range(10):
        m = tx.estimate("max-precision", obs, rng=seed)
        assert sorted(m.tolist()) == [0, 1, 2]  # a matching: precision = recall
        pr = tx.precision_recall(obs, m)
        assert pr[0] == pr[1]
        assert set(tx.estimate("max-recall", obs, rng=seed).tolist()) <= {0, 1, 2}


def test_precision_recall_hand_example():
    obs = tx.observe_transactions(CYCLE4, _mask(4, [3]), rng=0)
    # tx of 0 -> 0 (right, alone), tx of 1 -> 2, tx of 2 -> 2 (right, node 2 holds two)
    p, r = tx.precision_recall(obs, [0, 2, 2])
    assert p == pytest.approx((1 + 1 / 2) / 3) and r == pytest.approx(2 / 3)
    assert tx.precision_recall(obs, [-1, -1, -1]) == (0.0, 0.0)


def test_diffusion_on_a_path_is_deterministic():
    # path 0 - 1 - 2 with spy 2: both transactions reach the spy from node 1
    g = (np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]))
    obs = tx.observe_transactions(g, _mask(3, [2]), "diffusion", rng=0)
    assert obs.node.tolist() == [1, 1] and obs.spy_of.tolist() == [2, 2]
    assert tx.precision_recall(obs, tx.estimate("first-spy", obs)) == pytest.approx((0.25, 0.5))


def test_diffusion_first_delivery_is_a_uniform_live_edge():
    # triangle 0-1, 0-2, 1-2 with spy 2. From 0: edges (0,1), (0,2) -> P(sender 0 at once) = 1/2;
    # else 1 is infected and (0,2), (1,2) race: P(sender = 0) = 1/2 + 1/4 = 3/4.
    g = (np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1]))
    rng = np.random.default_rng(5)
    senders = [tx.observe_transactions(g, _mask(3, [2]), "diffusion", rng=rng).node[0]
               for _ in range(4000)]
    frac = np.mean(np.array(senders) == 0)
    assert abs(frac - 0.75) < 4 * math.sqrt(0.75 * 0.25 / 4000)


# ----------------------------------------------------------------- routing rules


@pytest.mark.parametrize("routing", ["per-edge", "all-to-one", "one-to-one"])
def test_routing_tables(routing):
    rng = np.random.default_rng(3)
    indptr, indices = tx.anonymity_graph(40, 2, rng=rng)
    iptr, iind, table, own = K.routing_tables(40, indptr, indices, K.ROUTING_CODES[routing], rng)
    for u in range(40):
        succ = set(indices[indptr[u]:indptr[u + 1]].tolist())
        outs = table[iptr[u]:iptr[u + 1]].tolist()
        assert set(outs) <= succ and own[u] in succ
        if routing == "all-to-one":
            assert set(outs) == {own[u]}
        if routing == "one-to-one" and len(succ) == 2 and len(outs) == 2:
            assert set(outs) == succ  # two in-arcs dealt over two out-arcs: a bijection


def test_one_to_one_tables_deal_a_uniform_bijection():
    # node 0 of 0 <-> {1, 2} (two in-arcs, two successors): its table is one of the two
    # bijections, each with probability 1/2, and may send a stem back to its sender
    g = (np.array([0, 2, 3, 4]), np.array([1, 2, 0, 0]))
    rng = np.random.default_rng(8)
    reps, back = 4000, 0
    for _ in range(reps):
        iptr, iind, table, own = K.routing_tables(3, *g, K.ROUTING_CODES["one-to-one"], rng)
        preds, outs = iind[iptr[0]:iptr[1]].tolist(), table[iptr[0]:iptr[1]].tolist()
        assert preds == [1, 2] and sorted(outs) == [1, 2] and own[0] in (1, 2)
        back += outs == [1, 2]
    assert abs(back / reps - 0.5) < 4 * math.sqrt(0.25 / reps)


def test_anonymity_graph_is_a_union_of_hamiltonian_cycles():
    indptr, indices = tx.anonymity_graph(30, 1, rng=1)
    v, seen = 0, []
    for _ in range(30):
        seen.append(v)
        v = indices[indptr[v]]
    assert sorted(seen) == list(range(30)) and v == 0  # one cycle through every node
    indptr, indices = tx.anonymity_graph(200, 2, rng=1)
    assert np.diff(indptr).max() == 2 and np.bincount(indices, minlength=200).max() == 2
    assert np.diff(indptr).mean() > 1.95  # parallel arcs are kept once (rare)


def test_escape_rule_avoids_the_table_on_revisits():
    # 0 -> {1}, 1 -> {0, 2}, spy 2. All-to-one: if node 1's one successor is 0, following the
    # table loops 0 <-> 1 for ever (the failsafe fluffs it); the authors' escape rule sends the
    # stem back at node 1 to its other successor, the spy.
    g = (np.array([0, 1, 3, 3]), np.array([1, 0, 2]))
    looped = 0
    for seed in range(40):
        esc = tx.observe_transactions(g, _mask(3, [2]), routing="all-to-one", cap=50, rng=seed)
        assert esc.kind.tolist() == [0, 0] and esc.node.tolist() == [1, 1]
        fol = tx.observe_transactions(g, _mask(3, [2]), routing="all-to-one", revisit="follow",
                                      cap=50, rng=seed)
        looped += fol.kind[0] == 1
        assert fol.kind[0] == 0 or fol.hops[0] == 50
    assert 5 < looped < 35  # node 1 picks 0 for everything about half the time


# ----------------------------------------------------------------- closed forms vs enumeration


@pytest.mark.parametrize("n", [5, 7, 9])
def test_line_closed_forms_equal_exhaustive_enumeration_of_spy_placements(n):
    g = _cycle(n)
    for k in range(1, n):
        prec = rec = Fraction(0)
        mp = 0.0
        placements = list(itertools.combinations(range(n), k))
        for spies in placements:
            obs = tx.observe_transactions(g, _mask(n, spies), rng=0)
            m = tx.estimate("first-spy", obs)
            count = np.bincount(m, minlength=n)
            h = n - k
            prec += sum((Fraction(1, int(count[s])) for s, x in zip(obs.sources, m) if s == x),
                        Fraction(0)) / h
            rec += Fraction(int(np.sum(m == obs.sources)), h)
            # max-recall: each transaction uniform over its run (the likelihood's argmax set)
            L = tx.stem_likelihoods(obs)
            ties = L >= L.max(axis=1, keepdims=True) * (1 - 1e-9)
            run = ties.sum(axis=1)
            assert np.all(ties[np.arange(h), np.arange(h)])  # the source is always in the run
            for i in range(h):
                # right w.p. 1/L; then each of the other L - 1 lands on it w.p. 1/L, and
                # E[1 / (1 + Bin(L-1, 1/L))] = 1 - (1 - 1/L)^L
                size = int(run[i])
                mp += (1 / size) * (1 - (1 - 1 / size) ** size) / h
        assert prec / len(placements) == th.line_first_spy(n, k)[0]
        assert rec / len(placements) == th.line_first_spy(n, k)[1] == Fraction(k, n - 1)
        assert mp / len(placements) == pytest.approx(th.line_max_recall(n, k)[0], rel=1e-12)


def test_line_first_spy_tends_to_the_papers_rate():
    for p in (0.05, 0.1, 0.3):
        n = 4000
        exact = float(th.line_first_spy(n, th.spies_for(n, p))[0])
        assert exact == pytest.approx(th.line_first_spy_precision_limit(p), rel=0.01)
        # and it respects the papers' lower bound p^2 (any protocol)
        assert exact >= th.precision_lower_bound(p)


def test_run_length_pmf_sums_to_one():
    for n, k in [(10, 1), (10, 2), (10, 9), (50, 7)]:
        assert sum(th.line_run_length_pmf(n, k)) == 1


# ----------------------------------------------------------------- likelihood vs brute force


def _enumerate_paths(indptr, indices, spy, q, v, depth):
    """Sum the probability of every stem path from v, outcome by outcome, up to ``depth`` hops."""
    out = {}
    stack = [(v, 1.0, 0)]
    while stack:
        u, pr, h = stack.pop()
        if h >= depth:
            continue
        succ = indices[indptr[u]:indptr[u + 1]]
        for w in succ.tolist():
            pw = pr / len(succ)
            if spy[w]:
                out[(0, u, w)] = out.get((0, u, w), 0.0) + pw
                continue
            out[(1, w, -1)] = out.get((1, w, -1), 0.0) + pw * q
            stack.append((w, pw * (1 - q), h + 1))
    return out


def test_stem_likelihood_equals_explicit_path_enumeration():
    rng = np.random.default_rng(11)
    indptr, indices = tx.anonymity_graph(7, 2, rng=rng)
    spy = _mask(7, [2, 5])
    q = 0.45
    obs = tx.observe_transactions((indptr, indices), spy, q=q, rng=rng)
    L = tx.stem_likelihoods(obs)
    for i in range(obs.n_honest):
        key = (int(obs.kind[i]), int(obs.node[i]), int(obs.spy_of[i]))
        for j, v in enumerate(obs.sources.tolist()):
            brute = _enumerate_paths(indptr, indices, spy, q, v, 24).get(key, 0.0)
            assert L[i, j] == pytest.approx(brute, abs=2e-4)


def test_stem_kernel_samples_the_likelihood():
    # outcome frequencies of node 0's stem match its likelihood row
    rng = np.random.default_rng(2)
    indptr, indices = tx.anonymity_graph(8, 2, rng=rng)
    spy = _mask(8, [3, 6])
    q = 0.3
    freq = {}
    reps = 6000
    for _ in range(reps):
        obs = tx.observe_transactions((indptr, indices), spy, q=q, cap=10_000, rng=rng)
        key = (int(obs.kind[0]), int(obs.node[0]), int(obs.spy_of[0]))
        freq[key] = freq.get(key, 0) + 1
    probs = _enumerate_paths(indptr, indices, spy, q, 0, 40)
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-4)
    for key, pr in probs.items():
        assert abs(freq.get(key, 0) / reps - pr) < 4.5 * math.sqrt(pr * (1 - pr) / reps) + 1e-3


def test_max_weight_matching_is_optimal_on_small_matrices():
    rng = np.random.default_rng(4)
    for _ in range(20):
        w = rng.random((5, 5))
        best = max(sum(w[i, p[i]] for i in range(5)) for p in itertools.permutations(range(5)))
        m = tx.max_weight_matching(w, rng=rng)
        assert sorted(m.tolist()) == list(range(5))
        assert sum(w[i, m[i]] for i in range(5)) == pytest.approx(best)


# ----------------------------------------------------------------- registry, errors


def test_registry_conformance():
    rng = np.random.default_rng(0)
    g = tx.anonymity_graph(30, 2, rng=rng)
    spy = tx.draw_spy_mask(30, 0.2, rng=rng)
    assert spy.sum() == 6
    for protocol in tx.PROTOCOLS:
        obs = tx.observe_transactions(g, spy, protocol, rng=rng)
        for name, protos in tx.TRANSACTION_ESTIMATOR_PROTOCOLS.items():
            if protocol not in protos:
                with pytest.raises(InvalidParameterError, match=name):
                    tx.estimate(name, obs)
                continue
            m = tx.estimate(name, obs, rng=1)
            assert m.shape == (24,) and np.all((m == -1) | ~spy[np.maximum(m, 0)])
            p, r = tx.precision_recall(obs, m)
            assert 0 <= p <= r <= 1
            np.testing.assert_array_equal(m, tx.estimate(name, obs, rng=1))  # same rng, same result
    assert set(tx.TRANSACTION_ESTIMATORS) == {"first-spy", "max-recall", "max-precision"}


def test_bad_inputs_are_refused_clearly():
    spy = _mask(4, [3])
    with pytest.raises(InvalidParameterError, match="protocol must be one of"):
        tx.observe_transactions(CYCLE4, spy, "gossip")
    with pytest.raises(InvalidParameterError, match="routing must be one of"):
        tx.observe_transactions(CYCLE4, spy, routing="random")
    with pytest.raises(InvalidParameterError, match="spy must be a boolean mask of length 4"):
        tx.observe_transactions(CYCLE4, [3])
    with pytest.raises(InvalidParameterError, match="q"):
        tx.observe_transactions(CYCLE4, spy, q=1.5)
    with pytest.raises(InvalidParameterError, match="revisit"):
        tx.observe_transactions(CYCLE4, spy, revisit="loop")
    with pytest.raises(InvalidParameterError, match="CSR"):
        tx.observe_transactions((np.array([0, 2, 1]), np.array([1, 0])), _mask(2, []))
    with pytest.raises(InvalidTypeError, match="CSR pair"):
        tx.observe_transactions(42, spy)
    with pytest.raises(InvalidTypeError, match="TransactionObservation"):
        tx.precision_recall("obs", [0])
    obs = tx.observe_transactions(CYCLE4, spy, rng=0)
    with pytest.raises(InvalidParameterError, match="one node per transaction"):
        tx.precision_recall(obs, [0, 1])
    with pytest.raises(InvalidParameterError, match="estimator must be one of"):
        tx.estimate("ml", obs)
    with pytest.raises(InvalidParameterError, match=r"k \(spies\)"):
        th.line_first_spy(5, 5)
    with pytest.raises(InvalidParameterError, match="square"):
        tx.max_weight_matching(np.ones((2, 3)))
    dobs = tx.observe_transactions((np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])), _mask(3, [2]),
                                   "diffusion", rng=0)
    with pytest.raises(InvalidParameterError, match="only first-spy applies"):
        tx.stem_likelihoods(dobs)


# ----------------------------------------------------------------- Monte Carlo vs theory


@pytest.mark.slow
def test_line_estimators_match_the_closed_forms_and_bounds_within_bands():
    rng = np.random.default_rng(2024)
    n, k, trials = 60, 6, 400
    names = ("first-spy", "max-recall", "max-precision")
    vals = {e: [] for e in names}
    for _ in range(trials):
        g = tx.anonymity_graph(n, 1, rng=rng)
        obs = tx.observe_transactions(g, tx.draw_spy_mask(n, k / n, rng=rng), rng=rng)
        for e in names:
            vals[e].append(tx.precision_recall(obs, tx.estimate(e, obs, rng=rng)))
    expect = {
        "first-spy": tuple(float(x) for x in th.line_first_spy(n, k)),
        "max-recall": (th.line_max_recall(n, k)[0], float(th.line_max_recall(n, k)[1])),
        "max-precision": (float(th.line_max_precision(n, k)),) * 2,
    }
    for e in names:
        arr = np.array(vals[e])
        mean, se = arr.mean(axis=0), arr.std(axis=0, ddof=1) / math.sqrt(trials)
        assert np.all(np.abs(mean - np.array(expect[e])) < 4 * se + 1e-9), (e, mean, expect[e])
    # the papers' lower bounds hold for the best of these adversaries
    p = k / n
    assert np.mean([v[1] for v in vals["max-recall"]]) >= th.recall_lower_bound(p) - 0.01
    assert np.mean([v[0] for v in vals["max-precision"]]) >= th.precision_lower_bound(p)


# ----------------------------------------------------------------- the protocols of spread.dandelion


def _one_epoch(G, protocol, k, seed):
    from anonspread.spread.dandelion import draw_anonymity_graph, simulate_stems

    rng = np.random.default_rng(seed)
    n = G.number_of_nodes()
    spies = np.sort(rng.choice(n, size=k, replace=False))
    honest = np.setdiff1d(np.arange(n), spies)
    from anonspread.spread.events import ContinuousDiffusion

    a = None if isinstance(protocol, ContinuousDiffusion) else draw_anonymity_graph(G, protocol, rng=rng)
    b = simulate_stems(G, protocol, honest.shape[0], spies=spies.tolist(), sources=honest.tolist(),
                       anonymity=a, rng=rng)
    return b, spies


def test_dandelion_engine_observation_equals_the_transaction_kernel_on_the_same_line():
    import networkx as nx

    from anonspread.spread.dandelion import Dandelion

    G = nx.random_regular_graph(4, 40, seed=1)
    for seed in range(5):
        b, spies = _one_epoch(G, Dandelion(0.0), 5, seed)
        obs = tx.transactions_from_stems(b)
        mine = tx.observe_transactions((obs.indptr, obs.indices), obs.spy, rng=0)
        # q = 0: every stem runs along the line into the first spy, in both engines
        np.testing.assert_array_equal(obs.kind, mine.kind)
        np.testing.assert_array_equal(obs.node, mine.node)
        np.testing.assert_array_equal(obs.spy_of, mine.spy_of)
        p, r = tx.precision_recall(obs, tx.estimate("first-spy", obs))
        assert r == pytest.approx(np.count_nonzero(obs.spy[obs.indices[obs.indptr[obs.sources]]])
                                  / obs.n_honest)


def test_estimators_run_on_dandelion_plus_plus_and_diffusion_epochs():
    import networkx as nx

    from anonspread.spread.dandelion import DandelionPlusPlus
    from anonspread.spread.events import ContinuousDiffusion

    G = nx.random_regular_graph(6, 60, seed=2)
    b, _ = _one_epoch(G, DandelionPlusPlus(0.2, routing="per-transaction", coin="hop", peers="all"),
                      6, 0)
    obs = tx.transactions_from_stems(b)
    assert obs.routing == "per-tx" and obs.q == 0.2 and set(obs.kind.tolist()) <= {0, 1}
    # first-spy uses who sent the first spy its copy; stems seen by a spy: that is node
    order = np.argsort(b.source)
    first = b.first_spy()[order]
    np.testing.assert_array_equal(tx.estimate("first-spy", obs), first)
    stem = obs.kind == 0
    np.testing.assert_array_equal(obs.node[stem], first[stem])
    assert np.all(obs.node[obs.kind == 1] == b.fluff_node[order][obs.kind == 1])
    for name in ("first-spy", "max-recall", "max-precision"):
        p, r = tx.precision_recall(obs, tx.estimate(name, obs, rng=0))
        assert 0 <= p <= r <= 1
    b, _ = _one_epoch(G, ContinuousDiffusion(1.0), 6, 0)
    obs = tx.transactions_from_stems(b)
    assert obs.protocol == "diffusion" and set(obs.kind.tolist()) == {0}
    with pytest.raises(InvalidParameterError, match="applies to protocols"):
        tx.estimate("max-recall", obs)


def test_transactions_from_stems_refuses_what_is_not_one_epoch():
    import networkx as nx

    from anonspread.spread.dandelion import Dandelion, simulate_stems

    G = nx.random_regular_graph(4, 20, seed=3)
    b = simulate_stems(G, Dandelion(0.1), 18, spies=[0, 1], sources=list(range(2, 20)), rng=0)
    with pytest.raises(InvalidParameterError, match="anonymity graph"):
        tx.transactions_from_stems(b)
    b = simulate_stems(G, Dandelion(0.1), 5, spies=[0, 1], rng=0)
    with pytest.raises(InvalidParameterError, match="one trial per honest node"):
        tx.transactions_from_stems(b)
    with pytest.raises(InvalidTypeError, match="StemBatch"):
        tx.transactions_from_stems("batch")


def test_both_configurations_follow_the_line_law_with_a_fluff_coin():
    # One Dandelion epoch (a Hamiltonian line drawn by spread.dandelion) with q > 0, run by
    # both configurations of the one stem walk: the transaction model (untimed, stops at
    # the first spy) and the protocol (timed, runs through spies, then the fluff). A stem
    # from v whose first spy is j hops down the line reaches it iff the j - 1 honest nodes
    # in between all forward: probability (1 - q)^(j - 1), and then the spy hears it from
    # its predecessor. Both engines' counts sit within 4 sigma of that sum, and of each other.
    import networkx as nx

    from anonspread.spread.dandelion import Dandelion, draw_anonymity_graph, simulate_stems

    q, reps = 0.2, 300
    G = nx.Graph()
    G.add_nodes_from(range(40))  # node i has index i: labels and indices agree below
    G.add_edges_from(nx.random_regular_graph(4, 40, seed=1).edges())
    proto = Dandelion(q)
    a = draw_anonymity_graph(G, proto, rng=0)
    n = 40
    spy = _mask(n, [3, 11, 19, 27, 35])
    honest = np.flatnonzero(~spy)
    succ = a.out[a.out_ptr[:-1]]
    want_p, want_node = [], []
    for v in honest:
        j, u = 1, v
        while not spy[succ[u]]:
            u, j = succ[u], j + 1
        want_p.append((1 - q) ** (j - 1))
        want_node.append(u)
    want_p, want_node = np.array(want_p), np.array(want_node)
    mean, sd = reps * want_p.sum(), math.sqrt(reps * np.sum(want_p * (1 - want_p)))

    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(reps):
        obs = tx.observe_transactions((a.out_ptr, a.out), spy, q=q, rng=rng)
        seen = obs.kind == 0
        assert np.array_equal(obs.node[seen], want_node[seen])
        hits += int(seen.sum())
    b = simulate_stems(G, proto, reps * honest.size, spies=np.flatnonzero(spy).tolist(),
                       sources=np.tile(honest, reps).tolist(), anonymity=a, rng=6)
    rows = np.arange(b.trials)
    j = np.argmin(b.spy_time, axis=1)
    stem = b.spy_kind[rows, j] == 0
    assert np.array_equal(b.spy_sender[rows, j][stem], np.tile(want_node, reps)[stem])
    hits2 = int(stem.sum())
    assert abs(hits - mean) < 4 * sd and abs(hits2 - mean) < 4 * sd
    assert abs(hits - hits2) < 4 * math.sqrt(2) * sd
