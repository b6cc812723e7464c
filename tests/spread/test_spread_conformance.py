"""Every registered protocol: runs on every graph kind, is seeded, validates input, and
round-trips through the harness (its component factory and the ``detection`` sweep)."""

import networkx as nx
import numpy as np
import pytest

from anonspread import spread
from anonspread.errors import InvalidParameterError
from anonspread.spread.protocols import PROTOCOLS, AdaptiveDiffusion


def instance(cls):
    return cls(d0=3) if cls is AdaptiveDiffusion else cls()


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_registered_protocol_conforms(name):
    cls = PROTOCOLS[name]
    proto = instance(cls)
    assert cls.name == name and proto == instance(cls) and hash(proto) == hash(instance(cls))
    assert name in repr(proto) or type(proto).__name__ in repr(proto)
    graphs = [spread.graphs.line(), spread.graphs.regular_tree(3),
              spread.graphs.random_tree({2: 0.5, 3: 0.5}, rng=1), nx.random_regular_graph(3, 60, seed=2)]
    for g in graphs:
        a = spread.simulate(g, proto, 5, rng=11)
        b = spread.simulate(g, proto, 5, rng=11)
        assert a == b and 1 <= a.n_infected and a.infected[0] == a.source
        assert (a.virtual_source is not None) == proto.has_virtual_source
        m = spread.simulate_many(g, proto, 5, 20, rng=3)
        assert m.sizes.shape == (20, 6) and np.all(np.diff(m.sizes, axis=1) >= 0)
    with pytest.raises(InvalidParameterError, match="T must be"):
        spread.simulate(graphs[0], proto, -2)


@pytest.mark.parametrize("name", ["adaptive-diffusion", "random-diffusion", "flooding", "line", "tree"])
def test_protocol_round_trips_through_the_harness(name, tmp_path):
    from anonspread.harness.compose import compose, get_template
    from anonspread.harness.runner import run

    exp = compose(get_template("detection"), product={"protocol": [name], "graph": ["regular-3"],
                                                      "estimator": ["jordan"], "T": [3]})
    res = run(exp, trials=40, rng=5, out=tmp_path, executor="inprocess", plot=False, progress=False)
    rows = {r["metric"]: r for r in res.table.rows}
    assert rows["n_infected"]["n"] == 40 and rows["n_infected"]["mean"] >= 1
    assert 0 <= rows["detection"]["mean"] <= 1
