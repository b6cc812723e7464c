"""A protocol defined in this file -- one class, its node behaviour and its registrations --
runs through spread.simulate, spread.simulate_many, the message-level engine and exact
enumeration without editing the package; a protocol without an exact enumeration is
refused by name."""

import math

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.errors import InvalidParameterError
from anonspread.spread.events import simulate_messages
from anonspread.spread.nodes import MessageBehaviour, Node, next_tick
from anonspread.spread.protocols import PROTOCOLS, Protocol, RandomDiffusion, register_protocol
from anonspread.validation import check_int

NAME = "test-coin-flood"


class _CoinNode(Node):
    """At every tick, each contact not known to have the rumour gets it with probability 1/k."""

    def on_infected(self, data):
        self.env.process(self._act())

    def _act(self):
        while True:
            yield self.env.timeout(next_tick(self.env.now))
            todo = self.unknown()
            if not todo:
                return
            for w in todo:
                if self.rng.random() < self.params:
                    self.known.add(w)
                    self.port.send(w, "infect", payload=True)


class CoinFlood(Protocol):
    """Each infected node infects each uninfected contact with probability 1/k per step.

    Random diffusion with p = 1/k: it runs on the random-diffusion kernel with its own
    parameters, its own node behaviour and its own exact enumeration.
    """

    kernel_code = RandomDiffusion.kernel_code
    if "kernel" in vars(RandomDiffusion):  # the Python entry point, while protocols name one
        kernel = vars(RandomDiffusion)["kernel"]

    def __init__(self, k: int = 2) -> None:
        self.k = check_int(k, "k", low=1)

    def _params(self):
        return {"k": self.k}

    def kernel_params(self, graph, T):
        return np.array([1.0 / self.k], np.float64)

    def message_behaviour(self, graph, T, *, rng):
        return MessageBehaviour(_CoinNode, 1.0 / self.k)


def _coin_flood_likelihood(protocol, view, v, max_states):
    """P(exactly the observed set after T steps | source v), by brute force over the sets
    alive at each step (written here, independently of the package's enumerations)."""
    q = 1.0 / protocol.k
    states = {1 << v: 1.0}
    for _ in range(view.T):
        new = {}
        for mask, pr in states.items():
            members = list(view.bits(mask))
            # every contact outside S escapes every infected node it touches
            pr *= math.prod((1 - q) ** view.extra[x] for x in members)
            # each node of S not yet infected is hit by at least one infected contact or not
            free = [w for w in range(view.n) if not mask >> w & 1]
            hit = {w: 1 - (1 - q) ** sum(1 for x in members if w in view.nbrs[x]) for w in free}
            for choice in range(1 << len(free)):
                p, add = pr, 0
                for j, w in enumerate(free):
                    if choice >> j & 1:
                        p *= hit[w]
                        add |= 1 << w
                    else:
                        p *= 1 - hit[w]
                if p > 0:
                    new[mask | add] = new.get(mask | add, 0.0) + p
        states = new
    return states.get(view.full, 0.0)


@pytest.fixture(scope="module", autouse=True)
def coin_flood():
    """The registrations a new protocol's module makes (undone afterwards, so that the
    registries other tests iterate hold only the package's own protocols)."""
    register_protocol(NAME)(CoinFlood)
    A.register_trajectories(CoinFlood, cycles=True)(_coin_flood_likelihood)
    yield
    PROTOCOLS.remove(NAME)
    A.TRAJECTORIES.remove(NAME)


def test_it_is_registered_by_name():
    assert PROTOCOLS[NAME] is CoinFlood and CoinFlood.name == NAME
    assert CoinFlood(3) == CoinFlood(3) and repr(CoinFlood(3)) == "CoinFlood(k=3)"
    assert "exact" in A.applicable_estimators(CoinFlood(), nx.cycle_graph(6))


def test_simulate_runs_it_as_random_diffusion_with_p_one_over_k():
    g = spread.graphs.regular_tree(3)
    for seed in range(5):
        a = spread.simulate(g, CoinFlood(4), 6, rng=seed)
        b = spread.simulate(g, RandomDiffusion(0.25), 6, rng=seed)
        assert np.array_equal(a.infected, b.infected) and a.protocol == CoinFlood(4)
    many = spread.simulate_many(g, CoinFlood(4), 6, 50, rng=3)
    assert np.array_equal(many.sizes, spread.simulate_many(g, RandomDiffusion(0.25), 6, 50, rng=3).sizes)


def test_the_message_level_engine_runs_its_nodes():
    """Its own node class, with the kernel's distribution: on the 3-regular tree the mean
    infected count after T steps is 1 + 3 sum_{t<T} (1 + 2p)^t p (the same recursion
    as random diffusion's reach), within 4 standard errors over 400 runs each."""
    g = spread.graphs.regular_tree(3)
    T, k = 4, 2
    runs = [simulate_messages(g, CoinFlood(k), T, rng=s) for s in range(400)]
    assert all(set(r.log.kind.tolist()) == {"infect"} for r in runs)
    msg = np.array([r.spread.n_infected for r in runs], float)
    fast = spread.simulate_many(g, CoinFlood(k), T, 400, rng=11).n_infected.astype(float)
    # expected reach of random diffusion on a tree: f(t) = p S(t), S(t) = 1 + 2 f(t-1) + (1-p) S(t-1)
    p, f, S = 1.0 / k, 0.0, 0.0
    for _ in range(T):
        S = 1.0 + 2 * f + (1 - p) * S
        f = p * S
    expected = 1.0 + 3 * f
    for sample in (msg, fast):
        se = sample.std(ddof=1) / math.sqrt(sample.size)
        assert abs(sample.mean() - expected) < 4 * se, (sample.mean(), expected, se)
    assert simulate_messages(g, CoinFlood(k), T, rng=5).spread.n_infected == runs[5].spread.n_infected


def test_exact_likelihood_runs_its_enumeration():
    """The registered enumeration (written in this file) gives random diffusion's exact
    likelihoods, on a tree and on an infected subgraph with cycles, and sums to 1 over
    every infected set of a small graph."""
    snaps = [A.Snapshot(nx.path_graph(7), [2, 3, 4], 2),
             A.Snapshot(nx.balanced_tree(2, 2), [0, 1, 2, 3], 2),
             A.Snapshot(nx.cycle_graph(6), [0, 1, 2, 5], 2)]
    for snap in snaps:
        got = A.exact_likelihood(snap, CoinFlood(2))
        ref = A.exact_likelihood(snap, RandomDiffusion(0.5))
        assert np.allclose(np.exp(got.array), np.exp(ref.array), rtol=1e-12, atol=0)
    g = nx.cycle_graph(5)
    total = 0.0
    for mask in range(1, 1 << 5):
        nodes = [i for i in range(5) if mask >> i & 1]
        if 0 not in nodes or not nx.is_connected(g.subgraph(nodes)):
            continue
        sc = A.exact_likelihood(A.Snapshot(g, nodes, 2), CoinFlood(3))
        total += float(np.exp(sc[0]))
    assert total == pytest.approx(1.0, abs=1e-12)


def test_a_protocol_without_an_enumeration_is_refused_by_name():
    class Silent(CoinFlood):
        pass

    register_protocol("test-silent")(Silent)
    try:
        snap = A.Snapshot(nx.path_graph(5), [1, 2], 1)
        with pytest.raises(InvalidParameterError,
                           match=r"got Silent\(k=2\), whose protocol 'test-silent' has no exact"):
            A.exact_likelihood(snap, Silent())
        with pytest.raises(InvalidParameterError, match="estimator 'exact' assumes a protocol in"):
            A.check_applicable("exact", Silent(), nx.path_graph(5))
        # the node behaviour and the kernel are inherited: it still runs everywhere else
        assert simulate_messages(nx.path_graph(5), Silent(), 2, source=2, rng=0).spread.T == 2
    finally:
        PROTOCOLS.remove("test-silent")


def test_a_protocol_without_a_message_behaviour_is_refused_by_name():
    class NoMessages(Protocol):
        kernel_code = RandomDiffusion.kernel_code

    with pytest.raises(InvalidParameterError,
                       match=r"message-level engine runs \(AdaptiveDiffusion, .*CoinFlood.*\); "
                             r"got NoMessages\(\), whose class NoMessages does not define"):
        simulate_messages(nx.path_graph(4), NoMessages(), 2)
