"""adversaries.batch.compile_phase: compile-only calls of simulate_and_score (the harness's
warm-up) raise CompilePhaseDone, leave the graph and later results untouched."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from anonspread import spread
from anonspread.adversaries import batch
from anonspread.errors import InvalidParameterError


def _outcomes(b):
    return [np.concatenate([t.detected, t.detection_probability, t.hops, t.rank])
            for t in b.estimators.values()] + [b.n_infected]


@pytest.mark.parametrize("graph", [
    spread.graphs.from_networkx(nx.random_regular_graph(4, 300, seed=2)),
    spread.graphs.regular_tree(3),
])
def test_phases_only_compile_and_leave_results_unchanged(graph):
    proto = spread.RandomDiffusion(0.5)
    ests = ("jordan", "rumor")
    ref = batch.simulate_and_score(graph, proto, 5, 30, estimators=ests, rng=7)
    for phase in ("score", "simulate"):
        with batch.compile_phase(phase), pytest.raises(batch.CompilePhaseDone):
            batch.simulate_and_score(graph, proto, 5, 30, estimators=ests, rng=7)
        assert batch._PHASE[0] is None
        again = batch.simulate_and_score(graph, proto, 5, 30, estimators=ests, rng=7)
        for a, b in zip(_outcomes(ref), _outcomes(again)):
            np.testing.assert_array_equal(a, b)


def test_bad_phase_refused_and_state_restored():
    with pytest.raises(InvalidParameterError, match="phase must be"):
        with batch.compile_phase("both"):
            pass
    with pytest.raises(RuntimeError):
        with batch.compile_phase("score"):
            raise RuntimeError("inside")
    assert batch._PHASE[0] is None
