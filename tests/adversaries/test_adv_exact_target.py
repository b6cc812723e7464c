"""exact_likelihood of random diffusion and the line protocol: the last step follows only the
transition to the observed set (``target``), with the value of the full enumeration to the
last bit, and much faster where the frontier is wide."""

from __future__ import annotations

import time

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import exact as E
from anonspread.adversaries.exact import LocalView


def _cases():
    rng = np.random.default_rng(8)
    for k, (n, d) in enumerate([(12, 3), (16, 4), (10, 5), (14, 3)]):
        g = nx.random_regular_graph(d, n, seed=k)
        for p in (0.3, 0.5, 0.8):
            for T in (1, 2, 3):
                sp = spread.simulate(g, spread.RandomDiffusion(p), T, rng=rng)
                yield A.observe(sp), p


@pytest.mark.parametrize("rate_name", ["random-diffusion", "line"])
def test_aimed_last_step_is_the_full_enumeration_bit_for_bit(rate_name):
    checked = 0
    for snap, p in _cases():
        loc = LocalView(snap)
        rate = (lambda t, x, d, p=p: p) if rate_name == "random-diffusion" else (lambda t, x, d: (d + 1.0) / (t + 1.0))
        for v in range(loc.n):
            full = E._diffusion(loc, v, snap.T, rate, 10**6).get(loc.full, 0.0)
            aimed = E._diffusion(loc, v, snap.T, rate, 10**6, loc.full)
            assert set(aimed) <= {loc.full}
            assert aimed.get(loc.full, 0.0) == full  # the same products in the same order
            checked += full > 0.0
    assert checked > 50


def test_the_hub_of_the_karate_club_in_a_second():
    """Random diffusion at T = 2 from the club's hub (16 contacts): the first step alone has
    65,536 outcomes; the last step used to iterate every subset of each one's frontier."""
    g = nx.karate_club_graph()
    proto = spread.RandomDiffusion(0.5)
    snap = max((A.observe(spread.simulate(g, proto, 2, source=0, rng=s)) for s in range(20)),
               key=lambda sn: sn.n)
    assert snap.n >= 20
    t0 = time.process_time()
    ll = A.exact_likelihood(snap, proto, max_states=200_000)
    assert time.process_time() - t0 < 10.0
    assert np.isfinite(ll.array[snap.position(0)])
