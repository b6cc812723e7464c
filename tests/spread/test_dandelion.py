"""Dandelion and Dandelion++ (spread.dandelion): the protocol's invariants in both engines.

Statistical tests use fixed seeds and fail at p < 1e-3 (or outside 4 standard errors).
"""

import math

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import AnonspreadError, GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.dandelion import (
    STEM_PROTOCOLS,
    AnonymityGraph,
    Dandelion,
    DandelionPlusPlus,
    draw_anonymity_graph,
    simulate_stems,
)
from anonspread.spread.events import ContinuousDiffusion, simulate_messages

ALPHA = 1e-3

ALL = [
    Dandelion(0.2),
    DandelionPlusPlus(0.2),
    DandelionPlusPlus(0.2, peers="all"),
    DandelionPlusPlus(0.2, routing="per-incoming-edge"),
    DandelionPlusPlus(0.2, routing="per-transaction", coin="hop"),
    DandelionPlusPlus(0.2, routing="all-to-one", peers="all"),
    DandelionPlusPlus(0.3, relays=3),
]


def rr(d, n, seed=0):
    """A random d-regular graph whose node i has index i."""
    h = nx.Graph()
    h.add_nodes_from(range(n))
    h.add_edges_from(nx.random_regular_graph(d, n, seed=seed).edges())
    return spread.graphs.from_networkx(h)


# ----------------------------------------------------------------- anonymity graph


def test_dandelion_anonymity_graph_is_one_hamiltonian_cycle():
    g = rr(4, 101)
    a = draw_anonymity_graph(g, Dandelion(0.1), rng=3)
    assert a.out_degree.tolist() == [1] * 101 and a.in_degree.tolist() == [1] * 101
    seen, v = set(), 0
    for _ in range(101):
        seen.add(v)
        v = int(a.out[v])
    assert v == 0 and len(seen) == 101  # one cycle through every node
    assert all(a.forward(v, -1) == a.out[v] for v in range(101))


@pytest.mark.parametrize("routing", ["one-to-one", "per-incoming-edge", "all-to-one",
                                     "per-transaction"])
@pytest.mark.parametrize("peers", ["contacts", "all"])
def test_dandelion_pp_anonymity_graph_structure(routing, peers):
    nxg = nx.gnp_random_graph(200, 0.03, seed=4)
    nxg = nxg.subgraph(max(nx.connected_components(nxg), key=len)).copy()
    g = spread.graphs.from_networkx(nxg)
    n = g.number_of_nodes()
    a = draw_anonymity_graph(g, DandelionPlusPlus(0.2, routing=routing, peers=peers), rng=5)
    deg = np.diff(g.indptr)
    checked = []
    want = np.minimum(2, deg) if peers == "contacts" else np.full(n, 2)
    assert np.array_equal(a.out_degree, want)
    assert a.in_degree.sum() == a.out_degree.sum()  # in-degree 2 on average (4-regular-ish)
    for v in range(n):
        rel = a.out[a.out_ptr[v] : a.out_ptr[v + 1]].tolist()
        assert len(set(rel)) == len(rel) and v not in rel
        if peers == "contacts":
            assert set(rel) <= set(g.neighbors(v).tolist())
        preds = a.in_src[a.in_ptr[v] : a.in_ptr[v + 1]].tolist()
        assert all(v in a.out[a.out_ptr[u] : a.out_ptr[u + 1]].tolist() for u in preds)
        maps = [a.forward(v, u) for u in preds]
        if routing == "per-transaction":
            assert a.own[v] == -1 and all(m == -1 for m in maps)
            continue
        assert a.own[v] in rel and all(m in rel for m in maps)
        if len(rel) >= 2:  # never back on the link a stem came from
            assert all(m != u for m, u in zip(maps, preds))
        if routing == "all-to-one":
            assert all(m == a.own[v] for m, u in zip(maps, preds) if u != a.own[v])
        if routing == "one-to-one" and len(preds) <= len(rel):
            assert len(set(maps)) == len(maps)  # in-edges go to distinct relays
            if len(preds) == len(rel) == 2:
                checked.append(v)
    if routing == "one-to-one":
        assert len(checked) > 10
    assert a.diffuser.dtype == np.int8


def test_per_epoch_roles_are_bernoulli_q():
    a = draw_anonymity_graph(rr(4, 4000), DandelionPlusPlus(0.3), rng=1)
    m = a.diffuser.mean()
    assert abs(m - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 4000)
    hop = draw_anonymity_graph(rr(4, 100), DandelionPlusPlus(0.3, coin="hop"), rng=1)
    assert not hop.diffuser.any()


def test_anonymity_graph_edges_and_relays_use_labels():
    g = nx.relabel_nodes(nx.cycle_graph(6), {i: f"n{i}" for i in range(6)})
    a = draw_anonymity_graph(g, DandelionPlusPlus(0.5), rng=0)
    assert sorted(a.relays("n0")) == ["n1", "n5"]
    assert len(a.edges()) == 12 and all(isinstance(u, str) for u, _ in a.edges())


# ----------------------------------------------------------------- stem length


@pytest.mark.slow
@pytest.mark.parametrize("q", [0.1, 0.35])
def test_dandelion_stem_length_is_geometric_with_mean_one_over_q(q):
    # the cycle has n = 400 nodes: the truncation at n hops has probability (1-q)^399 < 1e-18
    b = simulate_stems(rr(3, 400), Dandelion(q), 12000, rng=7)
    L = b.stem_length
    assert L.min() == 1 and not b.failsafe.any()
    assert abs(L.mean() - 1 / q) < 4 * math.sqrt(1 - q) / q / math.sqrt(L.size)
    kmax = int(np.searchsorted(np.cumsum(q * (1 - q) ** np.arange(200)), 1 - 20 * 5 / L.size))
    obs = np.array([np.sum(L == k) for k in range(1, kmax)] + [np.sum(L >= kmax)])
    pk = np.array([q * (1 - q) ** (k - 1) for k in range(1, kmax)] + [(1 - q) ** (kmax - 1)])
    assert stats.chisquare(obs, pk * L.size).pvalue > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("proto", [DandelionPlusPlus(0.2), DandelionPlusPlus(0.2, peers="all"),
                                   DandelionPlusPlus(0.2, coin="hop", routing="per-transaction")],
                         ids=repr)
def test_dandelion_pp_stem_hazard_is_q(proto):
    # every receipt of the stem by a new node flips the (epoch or hop) coin: the stem ends
    # there with probability q; a repeat (fail-safe) censors the count. Per hop l, the
    # fraction of coin endings among stems that reached a new node at hop l is q.
    b = simulate_stems(rr(6, 400), proto, 12000, rng=11)
    L, fs = b.stem_length, b.failsafe
    flips = L - fs
    ends = ~fs
    qhat = ends.sum() / flips.sum()
    assert abs(qhat - 0.2) < 4 * math.sqrt(0.2 * 0.8 / flips.sum())
    for hop in range(1, 8):  # chi-square per hop: coin endings ~ Binomial(reached_hop, q)
        at = flips >= hop
        k, m = np.sum(ends & (L == hop)), np.sum(at)
        assert stats.binomtest(int(k), int(m), 0.2).pvalue > ALPHA / 8
    assert fs.mean() < 0.05  # few repeats (a stem never goes back on the link it came by)
    assert np.all(L[fs] >= 2)


def test_epoch_coin_ends_stems_at_diffusers_only():
    g = rr(8, 300)
    p = DandelionPlusPlus(0.25)
    a = draw_anonymity_graph(g, p, rng=2)
    b = simulate_stems(g, p, 300, sources=list(range(300)), anonymity=a, rng=3)
    # one epoch: a stem ends at a diffuser, or at a repeat; the routes are deterministic
    assert np.all(a.diffuser[b.fluff_node[~b.failsafe]] == 1)
    again = simulate_stems(g, p, 300, sources=list(range(300)), anonymity=a, rng=99)
    assert np.array_equal(b.stem_length, again.stem_length)
    assert np.array_equal(b.fluff_node, again.fluff_node)


def test_q_one_fluffs_at_the_first_relay_and_q_zero_only_at_a_repeat():
    g = rr(4, 50)
    b = simulate_stems(g, DandelionPlusPlus(1.0), 200, rng=0)
    assert np.all(b.stem_length == 1) and not b.failsafe.any()
    b0 = simulate_stems(g, DandelionPlusPlus(0.0), 200, rng=0)
    assert b0.failsafe.all()
    d0 = simulate_stems(g, Dandelion(0.0), 20, rng=0)
    assert np.all(d0.stem_length == 50) and np.all(d0.fluff_node == d0.source)


# ----------------------------------------------------------------- fluff reaches everyone


@pytest.mark.parametrize("proto", [*ALL, ContinuousDiffusion(2.0)], ids=repr)
def test_every_node_receives_the_transaction(proto):
    g = rr(4, 80, seed=1)
    b = simulate_stems(g, proto, 200, spies=range(80), rng=1)
    assert np.all(b.reached == 80) and np.all(np.isfinite(b.completion_time))
    # every spy but a plain-diffusion source hears it, after the fluff started or in the stem
    heard = np.isfinite(b.spy_time)
    if isinstance(proto, ContinuousDiffusion):
        assert heard.sum() == 200 * 79
    else:
        assert heard.all()
    run = simulate_messages(g, proto, 10_000, rng=2)
    assert run.spread.n_infected == 80
    log = run.log
    assert log.delivered.all()
    fluff = log.kind == ("infect" if isinstance(proto, ContinuousDiffusion) else "fluff")
    got = set(log.receiver[fluff].tolist()) | set(log.sender[fluff].tolist())
    assert got == set(range(80))


def test_first_fluff_receipts_are_first_passage_times():
    # on a path the fluff from node f reaches v after |v - f| hops; the message engine's
    # infection times of fluff-only nodes are sums of Exponential delays along the path
    g = nx.path_graph(30)
    run = simulate_messages(g, Dandelion(1.0, rate=2.0), 10_000, source=0, rng=4)
    stem = run.log.kind == "stem"
    assert stem.sum() == 1
    f = int(run.log.receiver[stem][0])
    sp = run.spread
    times = sp.infection_time
    for v in range(30):
        if v not in (0, f):
            par = sp.parent[v]
            assert abs(par - f) < abs(v - f) and times[v] > times[par]


# ----------------------------------------------------------------- the message log


@pytest.mark.parametrize("proto", ALL, ids=repr)
def test_stem_messages_follow_the_anonymity_graph_and_its_rules(proto):
    g = rr(6, 120, seed=2)
    for seed in range(6):
        run = simulate_messages(g, proto, 10_000, rng=seed)
        a = run.anonymity
        assert isinstance(a, AnonymityGraph) and a.protocol == proto
        edges = set(a.edges())
        log = run.log
        stem = np.nonzero(log.kind == "stem")[0]
        snd, rcv = log.sender[stem].tolist(), log.receiver[stem].tolist()
        assert all((u, v) in edges for u, v in zip(snd, rcv))
        # one path: each stem message leaves the node the previous one reached
        src = run.spread.source
        assert snd[0] == src and all(snd[i + 1] == rcv[i] for i in range(len(stem) - 1))
        prev = -1
        for u, v in zip(snd, rcv):
            rule = a.forward(u, prev)
            assert rule in (-1, v)
            prev = u
        # all stem messages precede every fluff message; fluff goes along contact edges only
        fl = np.nonzero(log.kind == "fluff")[0]
        assert log.sent[fl].min() >= log.received[stem].max()
        assert all(g.neighbors(u).tolist().count(v) == 1
                   for u, v in zip(log.sender[fl].tolist(), log.receiver[fl].tolist()))
        # each node diffuses once: at most one fluff message per directed contact edge
        pairs = list(zip(log.sender[fl].tolist(), log.receiver[fl].tolist()))
        assert len(pairs) == len(set(pairs))


def test_message_counts_of_a_full_run():
    # every node sends the fluff to all contacts but its first fluff sender; the fluff node to all
    g = rr(4, 60, seed=3)
    run = simulate_messages(g, DandelionPlusPlus(0.3), 10_000, rng=8)
    stems = run.counts.by_kind["stem"]
    assert run.counts.by_kind["fluff"] == 60 * 4 - 59
    assert stems == int(np.sum(run.log.kind == "stem")) >= 1


# ----------------------------------------------------------------- the two engines agree


def _message_batch(g, proto, runs, spies, seed):
    gen = np.random.default_rng(seed)
    L, hit, stem_kind, t_first = [], [], [], []
    for _ in range(runs):
        run = simulate_messages(g, proto, 100_000, rng=gen)
        L.append(int(np.sum(run.log.kind == "stem")))
        obs = A.observe_spies(run, spies)
        j = int(np.argmin(obs.time))
        hit.append(obs.sender[j] == run.spread.source)
        stem_kind.append(obs.kind[j] == "stem")
        t_first.append(obs.time[j])
    return np.array(L), np.array(hit), np.array(stem_kind), np.array(t_first)


@pytest.mark.slow
@pytest.mark.parametrize("proto", [Dandelion(0.3), DandelionPlusPlus(0.3),
                                   DandelionPlusPlus(0.3, peers="all", routing="per-transaction"),
                                   ContinuousDiffusion(1.5)],
                         ids=repr)
def test_engines_agree_in_distribution(proto):
    g = rr(4, 40, seed=5)
    spies = [0, 5, 10, 15, 20, 25, 30, 35]
    runs = 500
    L1, hit1, k1, t1 = _message_batch(g, proto, runs, spies, 21)
    b = simulate_stems(g, proto, 20000, spies=spies, rng=22)
    rows = np.arange(b.trials)
    j = np.argmin(b.spy_time, axis=1)
    L2, hit2 = b.stem_length, b.first_spy() == b.source
    k2, t2 = b.spy_kind[rows, j] == 0, b.spy_time[rows, j]
    # stem length: chi-square on the pooled counts (lengths >= 6 pooled)
    cap = 6
    c1 = np.bincount(np.minimum(L1, cap), minlength=cap + 1)[1:]
    c2 = np.bincount(np.minimum(L2, cap), minlength=cap + 1)[1:]
    if isinstance(proto, ContinuousDiffusion):
        assert not L1.any() and not L2.any()
    else:
        assert stats.chi2_contingency(np.vstack([c1, c2])).pvalue > ALPHA
    for x, y in ((hit1, hit2), (k1, k2)):  # proportions: two-sample z within 4 sigma
        p = (x.sum() + y.sum()) / (x.size + y.size)
        se = math.sqrt(p * (1 - p) * (1 / x.size + 1 / y.size))
        assert abs(x.mean() - y.mean()) < 4 * se + 1e-12
    assert stats.ks_2samp(t1, t2).pvalue > ALPHA  # the earliest spy receipt time


# ----------------------------------------------------------------- spies, observations


def test_observation_fits_the_spy_estimators():
    g = rr(8, 200)
    b = simulate_stems(g, DandelionPlusPlus(0.2), 50, spies=list(range(0, 200, 5)), rng=1)
    fs = b.first_spy()
    for i in range(50):
        obs = b.observation(i)
        assert isinstance(obs, A.SpyObservation) and obs.n_spies == 40
        assert set(obs.kind) <= {"stem", "fluff"}
        sc = A.first_spy(obs)
        assert A.pick(sc, rng=0) == fs[i]


def test_first_spy_catches_the_source_when_its_relay_is_a_spy():
    g = rr(8, 300)
    p = DandelionPlusPlus(0.2)
    a = draw_anonymity_graph(g, p, rng=6)
    spies = sorted({int(a.own[v]) for v in range(10)})
    honest = [v for v in range(300) if v not in spies][:50]
    b = simulate_stems(g, p, 50, spies=spies, sources=honest, anonymity=a, rng=6)
    for i, v in enumerate(honest):
        if int(a.own[v]) in spies:  # the stem's first hop is a spy: it sees the source
            assert b.first_spy()[i] == v
            j = spies.index(int(a.own[v]))
            assert b.spy_kind[i, j] == 0 and b.spy_sender[i, j] == v


def test_spy_rows_per_trial():
    g = rr(4, 30)
    rows = np.array([[0, 1, 2], [3, 4, 5]])
    b = simulate_stems(g, Dandelion(0.5), 2, spies=rows, rng=0)
    assert np.array_equal(b.spies, rows)


# ----------------------------------------------------------------- conformance, determinism


@pytest.mark.parametrize("name", sorted(STEM_PROTOCOLS))
def test_registered_stem_protocols_conform(name):
    cls = STEM_PROTOCOLS[name]
    proto = cls()
    assert proto == cls() and hash(proto) == hash(cls()) and type(proto).__name__ in repr(proto)
    assert cls.name == name
    assert name not in spread.protocols.PROTOCOLS
    g = rr(4, 40)
    a = simulate_stems(g, proto, 30, spies=[1, 2, 3], rng=5)
    b = simulate_stems(g, proto, 30, spies=[1, 2, 3], rng=5)
    for f in ("source", "stem_length", "fluff_node", "spy_time", "spy_sender", "spy_kind"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    r1 = simulate_messages(g, proto, 1000, rng=4)
    r2 = simulate_messages(g, proto, 1000, rng=4)
    assert r1.spread == r2.spread and np.array_equal(r1.log.received, r2.log.received)
    with pytest.raises(InvalidParameterError, match="compiled protocol"):
        spread.simulate(g, proto, 3)
    with pytest.raises(GraphError, match="finite"):
        simulate_stems(spread.graphs.regular_tree(3), proto, 3)


def test_horizon_cuts_the_message_run():
    g = rr(4, 200, seed=9)
    full = simulate_messages(g, Dandelion(0.2), 10_000, rng=3)
    cut = simulate_messages(g, Dandelion(0.2), 3, rng=3)
    assert cut.spread.n_infected < full.spread.n_infected == 200
    assert np.all(cut.spread.times <= 3) and not cut.log.delivered.all()


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize("kw, match", [
    ({"q": -0.1}, r"^q must be a real number in \[0.0, 1.0\]; got -0.1"),
    ({"q": 1.5}, r"^q must be"),
    ({"q": math.nan}, r"^q must be"),
    ({"rate": 0}, r"^rate must be a real number in \(0.0"),
    ({"routing": "random"}, r"^routing must be one of \['one-to-one', 'per-incoming-edge', "
                            r"'all-to-one', 'per-transaction'\]; got 'random'"),
    ({"relays": 0}, r"^relays must be an integer >= 1; got 0"),
    ({"peers": "outbound"}, r"^peers must be one of"),
    ({"coin": "tx"}, r"^coin must be one of"),
])
def test_bad_parameters_name_the_parameter_and_value(kw, match):
    with pytest.raises(InvalidParameterError, match=match):
        DandelionPlusPlus(**kw)


def test_bad_types_and_graphs():
    with pytest.raises(InvalidTypeError, match=r"^q must be"):
        Dandelion(q="0.1")
    with pytest.raises(GraphError, match=r"connected.*2 connected components"):
        simulate_stems(nx.disjoint_union(nx.cycle_graph(4), nx.cycle_graph(3)), Dandelion(), 3)
    with pytest.raises(GraphError, match="connected"):
        simulate_messages(nx.empty_graph(3), DandelionPlusPlus(), 10)
    with pytest.raises(GraphError, match="at least 2 nodes"):
        draw_anonymity_graph(nx.empty_graph(1), Dandelion())
    with pytest.raises(GraphError, match="more than relays=2 nodes"):
        draw_anonymity_graph(nx.path_graph(2), DandelionPlusPlus(peers="all"))
    with pytest.raises(InvalidTypeError, match="stem-and-fluff protocol"):
        simulate_stems(nx.path_graph(3), spread.Flooding(), 3)
    with pytest.raises(InvalidTypeError, match="Dandelion or DandelionPlusPlus"):
        draw_anonymity_graph(nx.path_graph(3), ContinuousDiffusion())
    with pytest.raises(InvalidParameterError, match=r"^delay must be None for Dandelion"):
        simulate_messages(nx.path_graph(3), Dandelion(), 3, delay=spread.events.OneStep())


def test_bad_batch_arguments():
    g = rr(4, 20)
    p = DandelionPlusPlus()
    with pytest.raises(InvalidParameterError, match=r"^trials must be an integer >= 1; got 0"):
        simulate_stems(g, p, 0)
    with pytest.raises(InvalidParameterError, match=r"^spies must list each node once"):
        simulate_stems(g, p, 2, spies=[1, 1])
    with pytest.raises(GraphError, match=r"^spy must be a node of the graph; got 99"):
        simulate_stems(g, p, 2, spies=[99])
    with pytest.raises(InvalidParameterError, match=r"^spies must be a 1-D list .* shape \(3, 2\)"):
        simulate_stems(g, p, 2, spies=np.zeros((3, 2), int))
    with pytest.raises(InvalidParameterError, match=r"^sources must list one node per trial \(2\)"):
        simulate_stems(g, p, 2, sources=[1])
    other = draw_anonymity_graph(rr(4, 20, seed=1), p, rng=0)
    with pytest.raises(InvalidParameterError, match=r"^anonymity must be drawn for this graph"):
        simulate_stems(g, p, 2, anonymity=other)
    with pytest.raises(InvalidParameterError, match=r"^anonymity must be drawn"):
        simulate_stems(g, Dandelion(), 2, anonymity=draw_anonymity_graph(g, p, rng=0))
    with pytest.raises(InvalidTypeError, match=r"^anonymity must be an AnonymityGraph"):
        simulate_stems(g, p, 2, anonymity="cycle")
    with pytest.raises(InvalidParameterError, match=r"^trials must be small enough for 10000000000 "
                                                    r"stem-and-fluff runs .* to fit in memory; got "
                                                    r"trials=10000000000"):
        simulate_stems(g, p, 10**10, spies=[1, 2])
    big = rr(4, 10000)
    with pytest.raises(InvalidParameterError, match=r"^trials must be small enough for .* to finish in "
                                                    r"reasonable time; got trials=50000000"):
        simulate_stems(big, p, 5 * 10**7)
    with pytest.raises(AnonspreadError, match=r"^i must be an integer in"):
        simulate_stems(g, p, 2, rng=0).observation(5)


@pytest.mark.parametrize("proto", [Dandelion(0.2), DandelionPlusPlus(0.2, peers="all"),
                                   DandelionPlusPlus(0.2), ContinuousDiffusion(1.0)], ids=repr)
def test_first_spy_sees_the_source_exactly_when_its_first_relay_is_a_spy(proto):
    # the first stem message is the earliest message of all, so the earliest spy receipt is
    # a stem message from an honest source iff the source's first relay is a spy:
    # probability k / (n - 1) (cycle successor, or own relay among all nodes), or the mean
    # fraction of spy contacts (relays among contacts); never under plain diffusion.
    g = rr(6, 200, seed=3)
    spies = list(range(0, 200, 10))
    honest = np.array([v for v in range(200) if v not in spies])
    trials = 20000
    src = np.random.default_rng(0).choice(honest, trials)
    b = simulate_stems(g, proto, trials, spies=spies, sources=src, rng=1)
    rows = np.arange(trials)
    j = np.argmin(b.spy_time, axis=1)
    hit = (b.spy_kind[rows, j] == 0) & (b.spy_sender[rows, j] == b.source)
    if isinstance(proto, ContinuousDiffusion):
        assert not hit.any() and np.all(b.spy_kind == 1)
        return
    if proto.peers == "all" or isinstance(proto, Dandelion):
        want = len(spies) / 199
    else:
        frac = [np.isin(g.neighbors(v), spies).mean() for v in honest]
        want = float(np.mean(frac))
    assert abs(hit.mean() - want) < 4 * math.sqrt(want * (1 - want) / trials)
    assert np.array_equal(hit, (b.first_spy() == b.source) & (b.spy_kind[rows, j] == 0))


def _first_spy_precision_recall(b, n):
    """The papers' precision and recall of first-spy for one transaction per honest node."""
    est = b.first_spy()
    ward = np.bincount(est[est >= 0], minlength=n)
    right = est == b.source
    precision = float(np.sum(1.0 / ward[b.source[right]])) / b.trials
    return precision, float(right.mean())


@pytest.mark.slow
def test_dandelion_line_first_spy_matches_the_exact_finite_n_expectations():
    # Dandelion 2017 with q = 0 (the papers' figures): each honest node sends one
    # transaction in one epoch; first-spy precision and recall average to the exact sums of
    # adversaries.transactions_theory.line_first_spy (runs of honest nodes before a spy).
    from anonspread.adversaries.transactions_theory import line_first_spy

    n, k, epochs = 30, 6, 1500
    g = rr(4, n, seed=8)
    proto = Dandelion(0.0)
    gen = np.random.default_rng(12)
    prec, rec = np.empty(epochs), np.empty(epochs)
    for e in range(epochs):
        spies = np.sort(gen.choice(n, k, replace=False))
        honest = np.setdiff1d(np.arange(n), spies)
        a = draw_anonymity_graph(g, proto, rng=gen)
        b = simulate_stems(g, proto, honest.size, spies=spies, sources=honest, anonymity=a,
                           rng=gen)
        assert np.all(b.spy_kind[np.arange(b.trials), np.argmin(b.spy_time, axis=1)] == 0)
        prec[e], rec[e] = _first_spy_precision_recall(b, n)
    want_p, want_r = (float(x) for x in line_first_spy(n, k))
    assert abs(prec.mean() - want_p) < 4 * prec.std() / math.sqrt(epochs)
    assert abs(rec.mean() - want_r) < 4 * rec.std() / math.sqrt(epochs)


def test_message_delays_are_exponential_in_both_phases():
    # a path of 12 nodes: diffusion from node 0 reaches node 11 after the sum of 11
    # Exponential(rate) delays, Gamma(11, 1/rate); a stem hop takes one Exponential(rate)
    # (Dandelion with q = 1: the fluff starts at the successor after one hop)
    g = nx.path_graph(12)
    rate = 2.5
    b = simulate_stems(g, ContinuousDiffusion(rate), 4000, spies=[11], sources=[0] * 4000, rng=3)
    assert np.all(b.spy_sender == 10) and np.all(b.spy_kind == 1)
    assert stats.kstest(b.spy_time[:, 0], stats.gamma(11, scale=1 / rate).cdf).pvalue > ALPHA
    assert np.allclose(b.completion_time, b.spy_time[:, 0])
    d = simulate_stems(g, Dandelion(1.0, rate=rate), 4000, rng=4)
    assert np.all(d.stem_length == 1)
    assert stats.kstest(d.fluff_time, stats.expon(scale=1 / rate).cdf).pvalue > ALPHA


def test_one_to_one_maps_are_uniform_among_the_valid_bijections():
    # complete graph K4, relays among contacts: node 0 picks 2 of its 3 contacts; with two
    # in-edges P its map P -> R is drawn uniformly among the bijections that never send a
    # stem back to its sender (exact enumeration of the valid maps, then binomial bands)
    from collections import Counter
    from itertools import permutations

    g = nx.complete_graph(4)
    gen = np.random.default_rng(3)
    seen = Counter()
    for _ in range(6000):
        a = draw_anonymity_graph(g, DandelionPlusPlus(0.5), rng=gen)
        preds = a.in_src[a.in_ptr[0] : a.in_ptr[1]].tolist()
        if len(preds) != 2:
            continue
        rel = tuple(sorted(a.out[a.out_ptr[0] : a.out_ptr[1]].tolist()))
        seen[(tuple(preds), rel, tuple(a.forward(0, u) for u in preds))] += 1
    keys = {(p, r) for p, r, _ in seen}
    assert len(keys) >= 6
    for p, r in keys:
        valid = [m for m in permutations(r) if all(x != u for x, u in zip(m, p))]
        counts = {m: seen[(p, r, m)] for m in valid}
        total = sum(v for (pp, rr_, _), v in seen.items() if (pp, rr_) == (p, r))
        assert sum(counts.values()) == total  # only valid bijections occur
        for c in counts.values():
            want = total / len(valid)
            assert abs(c - want) <= 4 * math.sqrt(want * (1 - 1 / len(valid))) + 1e-9
