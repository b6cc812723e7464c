"""Issue 33, class 3: soft-margin widths whose 1/a^2 overflows are refused, not all-NaN."""

import networkx as nx
import numpy as np
import pytest

from anonspread import adversaries, spread
from anonspread.errors import InvalidParameterError
from anonspread.spread.protocols import RandomDiffusion


@pytest.mark.parametrize("a", [1e-160, 1e-300, 5e-324, [0.5, 1e-200]])
def test_widths_that_overflow_are_refused(a):
    g = nx.cycle_graph(8)
    snap = adversaries.observe(spread.simulate(g, RandomDiffusion(0.5), 2, rng=0))
    with pytest.raises(InvalidParameterError, match=r"a must be at least 2\.98e-154"):
        adversaries.soft_margin(snap, RandomDiffusion(0.5), a=a, simulations=10, max_simulations=10, rng=0)


def test_the_narrowest_accepted_width_gives_finite_scores():
    g = nx.cycle_graph(8)
    snap = adversaries.observe(spread.simulate(g, RandomDiffusion(0.5), 2, rng=0))
    scores = adversaries.soft_margin(snap, RandomDiffusion(0.5), a=2.0**-510, simulations=10, max_simulations=10, rng=0)
    assert not np.isnan(list(scores.values())).any()
