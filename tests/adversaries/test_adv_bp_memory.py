"""BP's messages are sized before they are allocated (issue 32): a snapshot whose messages
would not fit in memory is refused up front, naming its size; the estimate is what the run
allocates."""

from __future__ import annotations

import tracemalloc

import networkx as nx
import pytest

from anonspread import adversaries as A
from anonspread import spread
from anonspread.engine import bp as E
from anonspread.errors import InvalidParameterError
from anonspread.spread.limits import raised_limits


@pytest.fixture(scope="module")
def snap():
    g = spread.graphs.as_contact_graph(nx.random_regular_graph(6, 4000, seed=1))
    return A.observe(spread.simulate(g, spread.RandomDiffusion(0.5), 8, rng=3))


@pytest.mark.filterwarnings("ignore::anonspread.adversaries.bp.BPConvergenceWarning")
def test_the_estimate_is_what_the_prior_run_allocates(snap):
    nnz = snap.subgraph()[1].shape[0]
    assert snap.n > 3000 and nnz > 20_000
    need = E.message_bytes("run", snap.n, nnz, 8)
    tracemalloc.start()
    try:
        A.bp_posterior(snap, spread.RandomDiffusion(0.5), method="prior", cache=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # numpy's arrays are traced (the compiled kernels' own scratch, in the estimate, is not):
    # measured 0.95 of the estimate
    assert 0.8 * need <= peak <= 1.05 * need


def test_messages_above_the_memory_limit_are_refused_up_front(snap):
    nnz = snap.subgraph()[1].shape[0]
    need = E.message_bytes("run", snap.n, nnz, 8)
    with raised_limits(memory=need / 2), pytest.raises(InvalidParameterError) as err:
        A.bp_posterior(snap, spread.RandomDiffusion(0.5), method="prior", cache=False)
    text = str(err.value)
    assert text.startswith("snapshot.n must be small enough for BP's messages (prior: 2 x "
                           f"{nnz:,} arcs x 9 times, 8 bytes each) to fit in memory")
    assert "ANONSPREAD_MEMORY_LIMIT" in text
    # bethe sizes one set of messages per thread
    one = E.message_bytes("clamped", snap.n, nnz, 8, threads=1)
    assert E.message_bytes("clamped", snap.n, nnz, 8, threads=2) - one == 8 * (2 * nnz * 9 + 7 * snap.n)
    with pytest.raises(InvalidParameterError, match="kind must be 'run' or 'clamped'"):
        E.message_bytes("tree", 3, 4, 2)
