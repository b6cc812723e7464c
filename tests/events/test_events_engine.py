"""The message-level engine: results, determinism, the message log's invariants, hand counts."""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import spread
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.events import (
    ContinuousDiffusion,
    ExponentialDelay,
    GeometricDelay,
    MessageRun,
    OneStep,
    simulate_messages,
)
from anonspread.spread.protocols import alpha

PROTOCOLS = [spread.AdaptiveDiffusion(3), spread.LineProtocol(), spread.TreeProtocol(),
             spread.RandomDiffusion(0.4), spread.Flooding()]


def graphs():
    return [spread.graphs.line(), spread.graphs.regular_tree(3),
            spread.graphs.random_tree({2: 0.3, 3: 0.4, 5: 0.3}, rng=4),
            nx.connected_watts_strogatz_graph(60, 6, 0.3, seed=2)]


def check_log(run: MessageRun, G=None):
    """Invariants a distributed deployment guarantees, read off the log alone."""
    sp, log = run.spread, run.log
    g = sp.graph
    if G is None:
        adj = {int(v): set(g.neighbors(int(v)).tolist()) for v in set(log.sender.tolist())}
    else:
        adj = {v: set(G[v]) for v in G}
    # every message travels along an edge of the contact graph
    for s, r in zip(log.sender.tolist(), log.receiver.tolist()):
        assert r in adj[s]
    t_inf = sp.infection_time
    # a node sends the rumour, the token, relays or offers only once it has the rumour
    # (answers to offers come from nodes that do not have it yet)
    for s, t, k in zip(log.sender.tolist(), log.sent.tolist(), log.kind.tolist()):
        if k not in ("accept", "decline"):
            assert s in t_inf and t_inf[s] <= t
    # every infection is the arrival of a rumour-carrying message from the parent, on that edge
    payload = np.isin(log.kind, ["infect", "token"]) & log.delivered
    arrivals = set(zip(log.sender[payload].tolist(), log.receiver[payload].tolist(),
                       log.received[payload].tolist()))
    for v, p in sp.parent.items():
        if p is None:
            assert v == sp.source and t_inf[v] == 0
        else:
            assert (p, v, float(t_inf[v])) in arrivals
            # and nothing reached v before its infection except control messages
            early = log.delivered & (log.receiver == v) & (log.received < t_inf[v])
            assert set(log.kind[early].tolist()) <= {"offer"}
    # counts agree with the log
    assert run.counts.total == len(log) == sum(run.counts.by_kind.values())
    assert sum(run.counts.per_node.values()) == len(log)


@pytest.mark.parametrize("proto", PROTOCOLS, ids=repr)
def test_runs_on_every_graph_kind_seeded_with_a_consistent_log(proto):
    for G in graphs():
        a = simulate_messages(G, proto, 5, rng=11)
        b = simulate_messages(G, proto, 5, rng=11)
        assert a.spread == b.spread and np.array_equal(a.log.received, b.log.received)
        sp = a.spread
        assert sp.infected[0] == sp.source and sp.n_infected == sp.sizes[-1]
        assert np.all(np.diff(sp.sizes) >= 0) and np.all(np.diff(sp.times) >= 0)
        assert (sp.virtual_source is not None) == proto.has_virtual_source
        check_log(a, G if isinstance(G, nx.Graph) else None)


def test_adaptive_diffusion_with_cap_on_a_graph_with_cycles_claims_uninfected_contacts():
    G = nx.connected_watts_strogatz_graph(200, 8, 0.2, seed=3)
    run = simulate_messages(G, spread.AdaptiveDiffusion(math.inf, 3), 6, rng=5)
    check_log(run, G)
    sp = run.spread
    # at most 3 new infections per node and step, and every infection was accepted first
    kids = {}
    for v, p in sp.parent.items():
        if p is not None:
            kids.setdefault((p, sp.infection_time[v]), []).append(v)
    assert max(len(k) for k in kids.values()) <= 3
    accepted = set(zip(run.log.receiver[run.log.kind == "accept"].tolist(),
                       run.log.sender[run.log.kind == "accept"].tolist()))
    for v, p in sp.parent.items():
        if p is not None and sp.infection_time[v] > 1:
            assert (p, v) in accepted


def test_adaptive_diffusion_message_counts_on_regular_trees():
    """Hand count of messages of adaptive diffusion on a d-regular tree (no cap).

    t = 1: the source sends the rumour with the token to v1: 1 message.
    t = 2: v1 sends the rumour to its d - 1 other contacts: d - 1 messages (total d).
    t = 3, keep (probability alpha_d(2, 1)): v1 relays an Infection Message to its d tree
    neighbours (d messages); v1 has no uninfected contact left, each of the d others has
    d - 1: d (d - 1) infections. Total d + d + d (d - 1) = d^2 + d. Step 4 sends nothing.
    t = 3, pass: v1 sends the token to one child c (1 message); c relays away from v1 to
    its tree neighbours (none yet) and infects its d - 1 contacts. Total 2d.
    t = 4 after a pass: c relays to its d - 1 new children (d - 1 messages) and each
    infects its d - 1 contacts ((d - 1)^2). Total 2d + (d - 1) + (d - 1)^2 = d^2 + d.
    So the count is d at T = 2, d^2 + d at T = 4 whatever the coin, and at T = 3 it is
    d^2 + d with probability alpha_d(2, 1) and 2d otherwise.
    """
    for d in (2, 3, 4, 5):
        for seed in range(5):
            assert simulate_messages(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), 1,
                                     rng=seed).counts.total == 1
            assert simulate_messages(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), 2,
                                     rng=seed).counts.total == d
            r4 = simulate_messages(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), 4, rng=seed)
            assert r4.counts.total == d * d + d
            assert r4.counts.by_kind["offer"] == r4.counts.by_kind["decline"] == 0
        n = 600
        rng = np.random.default_rng(d)
        keep = 0
        for _ in range(n):
            r = simulate_messages(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), 3, rng=rng)
            assert r.counts.total in (d * d + d, 2 * d)
            kept = r.counts.total == d * d + d
            # the count says whether the token moved
            assert kept == (r.spread.virtual_source_history[3] == r.spread.virtual_source_history[2])
            keep += kept
        a = float(alpha(d, 2, 1))
        assert abs(keep / n - a) < 4 * math.sqrt(a * (1 - a) / n) + 1e-9


def test_one_step_matches_the_fast_engine_exactly_where_the_protocol_is_deterministic():
    for T in range(7):
        for d in (2, 3, 4):
            g = spread.graphs.regular_tree(d)
            assert simulate_messages(g, spread.Flooding(), T).spread.n_infected == \
                spread.simulate(spread.graphs.regular_tree(d), spread.Flooding(), T).n_infected
            ev = simulate_messages(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), T, rng=T)
            fast = spread.simulate(spread.graphs.regular_tree(d), spread.AdaptiveDiffusion(), T, rng=T)
            if T % 2 == 0:
                assert ev.spread.n_infected == fast.n_infected


def test_random_delays_slow_the_spread_and_give_continuous_times():
    g = nx.random_regular_graph(4, 300, seed=1)
    base = np.mean([simulate_messages(g, spread.Flooding(), 5, rng=s).spread.n_infected for s in range(10)])
    geo = [simulate_messages(g, spread.Flooding(), 5, delay=GeometricDelay(0.3), rng=s) for s in range(10)]
    assert np.mean([r.spread.n_infected for r in geo]) < base
    assert all(r.spread.times.dtype == np.int32 for r in geo)
    ex = simulate_messages(g, spread.AdaptiveDiffusion(4), 6, delay=ExponentialDelay(2.0), rng=0)
    assert ex.spread.times.dtype == np.float64 and np.all(ex.spread.times[1:] >= 1.0)
    check_log(ex, g)
    # the same seed and delay model give the same run; GeometricDelay(1) is OneStep
    a = simulate_messages(g, spread.RandomDiffusion(0.5), 4, delay=GeometricDelay(1.0), rng=3)
    b = simulate_messages(g, spread.RandomDiffusion(0.5), 4, delay=OneStep(), rng=3)
    assert a.spread == b.spread


def test_continuous_diffusion_is_event_driven():
    g = spread.graphs.regular_tree(3)
    run = simulate_messages(g, ContinuousDiffusion(2.0), 2, rng=0)
    sp = run.spread
    assert sp.times.dtype == np.float64 and sp.times[0] == 0 and np.all(np.diff(sp.times) > 0)
    # each node sends to every contact it has not heard from, once, at its infection time
    for s, t in zip(run.log.sender.tolist(), run.log.sent.tolist()):
        assert t == sp.infection_time[s]
    check_log(run)
    # mean first-passage time to a neighbour: the minimum of 3 Exp(2) delays from the source
    firsts = [simulate_messages(spread.graphs.regular_tree(3), ContinuousDiffusion(2.0), 2,
                                rng=s).spread.times[1] for s in range(400)]
    assert abs(np.mean(firsts) - 1 / 6) < 4 * (1 / 6) / math.sqrt(400)
    with pytest.raises(InvalidParameterError, match="delay must be None"):
        simulate_messages(g, ContinuousDiffusion(), 3, delay=OneStep())
    with pytest.raises(InvalidParameterError, match="protocol must be a compiled protocol"):
        spread.simulate(g, ContinuousDiffusion(), 3)


def test_validation_messages():
    g = spread.graphs.line()
    with pytest.raises(InvalidParameterError, match="T must be"):
        simulate_messages(g, spread.Flooding(), -1)
    with pytest.raises(InvalidTypeError, match="delay must be"):
        simulate_messages(g, spread.Flooding(), 2, delay="one step")
    with pytest.raises(InvalidTypeError, match="protocol must be"):
        simulate_messages(g, "flooding", 2)
    with pytest.raises(InvalidParameterError, match="relay='tree'"):
        simulate_messages(g, spread.AdaptiveDiffusion(2, relay="graph"), 2)
    with pytest.raises(InvalidParameterError, match="q must be"):
        GeometricDelay(0.0)
    with pytest.raises(InvalidParameterError, match="rate must be"):
        ExponentialDelay(-1.0)


def test_nodes_only_talk_through_their_port():
    """A node process is built from its id, its contacts, its inbox and a port; the port
    refuses a receiver that is not a contact."""
    import inspect

    from anonspread.spread import events

    params = list(inspect.signature(events._Node.__init__).parameters)
    assert params == ["self", "env", "me", "nbrs", "inbox", "port", "rng", "params"]
    g = nx.path_graph(4)
    run = simulate_messages(g, spread.Flooding(), 1, source=0)
    assert run.log.records() == [(1.0, 0, 1, "infect")]
    import simpy

    env = simpy.Environment()
    ch = events.MessageChannel(env, OneStep(), 3.0, np.random.default_rng(0),
                               lambda v: [v - 1, v + 1], lambda *a: None)
    ch.open(5)
    with pytest.raises(InvalidParameterError, match="receiver must be a contact"):
        events.Port(ch, 5).send(7, "infect", payload=True)


def test_rumor_centrality_in_the_model_it_was_built_for():
    """Shah & Zaman: on a 3-regular tree under continuous-time SI, the rumour centre finds
    the source with probability bounded away from 0 (about 0.25 for large spreads), far
    above 1 / N_T."""
    from anonspread import adversaries as A

    rng = np.random.default_rng(9)
    det, inv_n = [], []
    for _ in range(300):
        run = simulate_messages(spread.graphs.regular_tree(3), ContinuousDiffusion(1.0), 4, rng=rng)
        sc = A.rumor_centrality(A.observe(run.spread))
        det.append(A.detection_probability(sc, run.spread.source))
        inv_n.append(1 / run.spread.n_infected)
    assert np.mean(det) > 0.15 and np.mean(det) > 3 * np.mean(inv_n)
