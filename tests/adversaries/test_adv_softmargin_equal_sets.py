"""soft_margin_many scores the snapshots of one infected set once (saturated spreads: every
node infected, listed in different orders): each snapshot's result is still, field for
field and bit for bit, the one soft_margin_estimate gives for it alone."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from softmargin_checks import Inline, assert_identical

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import softmargin as sm


@pytest.fixture(scope="module")
def batch():
    g = spread.graphs.as_contact_graph(nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=1))
    proto = spread.RandomDiffusion(0.5)
    rng = np.random.default_rng(3)
    # most spreads of 7 steps on 30 nodes saturate: equal sets, each in its own order
    snaps = [A.observe(spread.simulate(g, proto, 7, rng=rng)) for _ in range(24)]
    snaps += [A.observe(spread.simulate(g, proto, 7, source=0, rng=rng))]
    return snaps, proto


def test_the_batch_holds_equal_sets_in_other_orders(batch):
    snaps, _ = batch
    uid, reps = sm._equal_sets(snaps)
    assert len(reps) < len(snaps) - 10  # many equal sets
    assert len({tuple(s.index) for s in snaps}) == len(snaps)  # every listing order differs
    assert [uid[r] for r in reps] == list(range(len(reps)))


@pytest.mark.parametrize("kw", [
    {},
    {"eliminate": True},
    {"settle": False, "stop_uninformative": False, "max_simulations": 4000},
    {"candidates": 5, "max_simulations": 4000},
])
def test_each_result_is_the_snapshot_alone(batch, kw):
    snaps, proto = batch
    many = A.soft_margin_many(snaps, proto, rng=7, simulations=200, **kw)
    for snap, res in zip(snaps, many):
        assert_identical(res, A.soft_margin_estimate(snap, proto, rng=7, simulations=200, **kw))


def test_on_an_executor_too(batch):
    snaps, proto = batch
    kw = {"rng": 5, "simulations": 100, "max_simulations": 800}
    serial = A.soft_margin_many(snaps, proto, **kw)
    chunked = A.soft_margin_many(snaps, proto, executor=Inline(), chunks=3, **kw)
    for one, two in zip(serial, chunked):
        assert_identical(one, two)


def test_equal_sets_are_scored_once(batch, monkeypatch):
    """The layout holds one pair per (candidate, distinct set): the kernel's scoring work
    shrinks with the duplicates."""
    snaps, proto = batch
    seen = []
    real = sm._layout
    monkeypatch.setattr(sm, "_layout", lambda s, k, m: seen.append(len(s)) or real(s, k, m))
    A.soft_margin_many(snaps, proto, rng=1, simulations=50, max_simulations=100)
    assert seen == [len(sm._equal_sets(snaps)[1])]
