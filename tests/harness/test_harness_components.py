"""Parametrised components: typed axes, graph families, user components, result objects.

The determinism test is the acceptance of issue 12: a sweep over two graph-family
parameters and a user edge-list file gives the same CSV bytes through the CLI and
through Python, in-process, on a process pool and on a Dask cluster.
"""

from __future__ import annotations

import gzip
import json
import math
import textwrap

import networkx as nx
import numpy as np
import pytest

from anonspread import harness
from anonspread.errors import AnonspreadError, InvalidParameterError, InvalidTypeError
from anonspread.harness.cli import main
from anonspread.harness.components import component_info
from anonspread.harness.executors import DaskExecutor, InProcessExecutor, ProcessPoolExecutor
from anonspread.harness.graphs import graph_summary
from anonspread.harness.params import CliText, Param
from anonspread.spread.graphs import from_networkx

# ------------------------------------------------------------------ typed values


@pytest.mark.parametrize(("spec", "value", "err", "match"), [
    (Param("int", low=0), 2.5, InvalidTypeError, r"axis 'x' takes an integer >= 0; got 2.5 \(float\)"),
    (Param("int"), True, InvalidTypeError, "got True"),
    (Param("float"), True, InvalidTypeError, "takes a real number; got True"),
    (Param("float"), "1", InvalidTypeError, "got '1'"),
    (Param("str"), 3, InvalidTypeError, "takes a string; got 3"),
    (Param("float"), math.nan, InvalidParameterError, "not finite"),
    (Param("float"), math.inf, InvalidParameterError, "not finite"),
    (Param("int"), CliText("1e400"), InvalidParameterError, "'1e400' \\(not an integer\\)"),
    (Param("float"), CliText("abc"), InvalidParameterError, "'abc' \\(not a number\\)"),
    (Param("bool"), CliText("yes"), InvalidParameterError, "true or false; got 'yes'"),
    (Param("int", low=1, high=3), 4, InvalidParameterError, r"in \[1, 3\]; got 4"),
    (Param("str", choices=("a", "b")), "c", InvalidParameterError, "one of 'a', 'b'"),
    (Param("str", kind="graph"), "nope", InvalidParameterError, "unknown graph 'nope'"),
])
def test_param_refuses_naming_axis_value_and_type(spec, value, err, match):
    with pytest.raises(err, match=match):
        spec.check("x", value)


def test_param_accepts_and_parses():
    assert Param("float").check("x", 2) == 2.0 and isinstance(Param("float").check("x", 2), float)
    assert Param("float", allow_inf=True).check("x", CliText("inf")) == math.inf
    assert Param("int").check("x", CliText("12")) == 12
    assert Param("str").check("x", CliText("10")) == "10"
    assert Param("bool").check("x", CliText("False")) is False
    assert Param("str", kind="graph").check("x", "erdos-renyi") == "erdos-renyi"


@pytest.mark.parametrize(("argv", "match"), [
    (["run", "prop2.2.1-line-protocol", "--set", "T=2.5"], "axis 'T' takes an integer >= 0; got '2.5'"),
    (["run", "prop2.2.1-line-protocol", "--set", "T=1e400"], "axis 'T' takes an integer >= 0; got '1e400'"),
    (["run", "prop2.2.1-line-protocol", "--set", "graph=nope"], "axis 'graph': unknown graph 'nope'"),
    (["run", "ldp-kl-mixed", "--set", "eps=true"], "axis 'eps' takes a real number in [0, 30]; got 'true'"),
    (["run", "ldp-kl-mixed", "--set", "eps=abc"], "axis 'eps' takes a real number in [0, 30]; got 'abc'"),
    (["run", "ldp-kl-mixed", "--set", "eps=1e400"], "axis 'eps' takes a real number in [0, 30]; got inf"),
    (["sweep", "detection", "--set", "graph=nope"], "unknown graph 'nope'"),
    (["sweep", "detection", "--set", "graph=erdos-renyi", "--set", "graph.n=10.5"], "axis 'graph.n' takes an integer >= 1"),
    (["sweep", "detection", "--set", "graph=erdos-renyi", "--set", "graph.mean_degree=true"], "axis 'graph.mean_degree'"),
    (["sweep", "detection", "--set", "graph=erdos-renyi,line", "--set", "graph.n=10"], "'graph.n' is not a parameter of graph 'line'"),
    (["sweep", "detection", "--set", "protocol=random-diffusion", "--set", "protocol.p=2"], "axis 'protocol.p' takes a real number in [0, 1]; got 2.0"),
    (["sweep", "detection", "--set", "protocol.relay=bus"], "axis 'protocol.relay' takes one of 'tree', 'graph'"),
    (["sweep", "detection", "--set", "grph.n=3"], "has no parameter 'grph.n'"),
])
def test_cli_refuses_mistyped_values_before_running(argv, match, capsys, tmp_path):
    rc = main([*argv, "--out", str(tmp_path), "--trials", "5"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.count("\n") == 1, err
    assert match in err.replace('"', "'"), err
    assert not list(tmp_path.iterdir())  # refused before anything ran


def test_python_run_refuses_mistyped_overrides(tmp_path):
    with pytest.raises(InvalidTypeError, match="axis 'T' takes an integer"):
        harness.run("prop2.2.1-line-protocol", overrides={"T": [2.5]}, out=tmp_path, trials=5)
    with pytest.raises(InvalidTypeError, match=r"axis 'eps' takes a real number in \[0, 30\]; got True"):
        harness.run("ldp-kl-mixed", overrides={"eps": [True]}, out=tmp_path, trials=5)
    with pytest.raises(InvalidTypeError, match=r"axis 'graph\.n' takes an integer"):
        harness.compose("detection", product={"graph": "erdos-renyi", "graph.n": [100.0]})


# ------------------------------------------------------------------ graph families


def test_every_family_builds_with_its_defaults():
    from anonspread.harness.graphs import graph_for

    for name in harness.list_components("graph")["graph"]:
        comp = component_info("graph", name)
        if name in ("edgelist", "soc-slashdot"):
            continue  # required path; the 82k-node graph is built in the slow test below
        g = graph_for(comp, {"graph": name})
        s = graph_summary(g)
        assert s["mean_degree"] > 0, name


def test_graph_parameters_reach_the_generator():
    from anonspread.harness.graphs import graph_for

    comp = component_info("graph", "random-regular")
    g = graph_for(comp, {"graph": "random-regular", "graph.n": 50, "graph.d": 6})
    assert g.number_of_nodes() == 50 and g.regular_degree() == 6
    ba = graph_for(component_info("graph", "barabasi-albert"),
                   {"graph.n": 300, "graph.m": 2, "graph.seed": 4})
    ref = nx.barabasi_albert_graph(300, 2, seed=4)
    assert ba.number_of_edges() == ref.number_of_edges()
    assert sorted(ba.degrees.tolist()) == sorted(d for _, d in ref.degree())


def test_erdos_renyi_is_g_n_p():
    """Edge counts over 400 seeds match Binomial(n(n-1)/2, p) (mean and variance)."""
    comp = component_info("graph", "erdos-renyi")
    n, c = 60, 4.0
    m = np.array([comp.build(n=n, mean_degree=c, seed=s).number_of_edges() for s in range(400)])
    pairs, p = n * (n - 1) / 2, c / (n - 1)
    mean, var = pairs * p, pairs * p * (1 - p)
    assert abs(m.mean() - mean) < 4 * math.sqrt(var / m.size)
    assert 0.75 < m.var(ddof=1) / var < 1.3
    g1, g2 = comp.build(n=500, mean_degree=3.0, seed=7), comp.build(n=500, mean_degree=3.0, seed=7)
    assert np.array_equal(g1.indices, g2.indices) and np.array_equal(g1.indptr, g2.indptr)
    # every pair equally likely: node degrees are Binomial(n - 1, p) around c
    deg = np.concatenate([comp.build(n=n, mean_degree=c, seed=s).degrees for s in range(200)])
    assert abs(deg.mean() - c) < 4 * math.sqrt(c / deg.size)


def test_random_tree_degree_law_is_checked():
    comp = component_info("graph", "random-tree")
    assert comp.build(degrees="3:0.8 10:0.2").degrees == {3: 0.8, 10: 0.2}
    with pytest.raises(InvalidParameterError, match="DEGREE:PROBABILITY"):
        comp.build(degrees="3-0.5")
    with pytest.raises(InvalidParameterError, match="sum to 1"):
        comp.build(degrees="3:0.5 4:0.2")


@pytest.mark.parametrize("seed", range(6))
def test_clustering_matches_networkx(seed):
    G = nx.powerlaw_cluster_graph(300, 3, 0.6, seed=seed)
    s = graph_summary(from_networkx(G))
    assert s["clustering_method"] == "exact"
    assert s["clustering"] == pytest.approx(nx.average_clustering(G), abs=1e-12)
    assert s["m"] == G.number_of_edges() and s["mean_degree"] == pytest.approx(2 * s["m"] / 300)


def test_sampled_clustering_is_said_and_close(monkeypatch):
    import anonspread.harness.graphs as hg

    G = nx.powerlaw_cluster_graph(6000, 3, 0.6, seed=1)
    exact = nx.average_clustering(G)
    monkeypatch.setattr(hg, "CLUSTERING_EXACT_WORK", 10)
    s = graph_summary(from_networkx(G))
    assert s["clustering_method"].startswith("sampled: 2000 nodes")
    assert abs(s["clustering"] - exact) < 4 * s["clustering_stderr"]


# ------------------------------------------------------------------ a user's module

USER_MODULE = '''
"""A user's components, registered with the decorators the built-ins use."""
import networkx as nx
import numpy as np

from anonspread import harness


@harness.register_component("graph", "test-ring-of-cliques")
def ring_of_cliques(cliques: int = 4, size: int = 5):
    """A ring of cliques (networkx.ring_of_cliques)."""
    return nx.ring_of_cliques(cliques, size)


@harness.register_component("graph", "test-grid", params={"side": harness.Param("int", 6, low=2)})
def grid(side=6, *, rng):
    """A side x side grid with one random diagonal per row (seeded)."""
    g = nx.convert_node_labels_to_integers(nx.grid_2d_graph(side, side))
    r = np.random.default_rng(rng)
    for row in range(side - 1):
        c = int(r.integers(side - 1))
        g.add_edge(row * side + c, (row + 1) * side + c + 1)
    return g


@harness.register_component("estimator", "test-degree")
def degree_estimator(*, sign: float = 1.0):
    """Score = sign x degree within the infected set (a model-free guess)."""
    def scores(snapshot):
        indptr, _ = snapshot.subgraph()  # the infected subgraph over positions 0..n-1
        return dict(zip(snapshot.nodes.tolist(), (sign * np.diff(indptr)).tolist()))
    return scores
'''


@pytest.fixture(scope="module")
def user_module(tmp_path_factory):
    """The user's module, importable (also by spawned workers, which inherit sys.path)."""
    import sys

    where = tmp_path_factory.mktemp("usermod")
    (where / "user_components_example.py").write_text(USER_MODULE)
    sys.path.insert(0, str(where))
    yield "user_components_example"
    sys.path.remove(str(where))


def test_user_components_work_like_built_ins(user_module, tmp_path, capsys):
    """--import a module registering a graph family and an estimator; sweep them on 2 workers."""
    out = tmp_path / "o"
    rc = main(["sweep", "detection", "--import", user_module, "--set", "graph=test-ring-of-cliques,test-grid",
               "--set", "graph.size=4", "--out", str(out)])
    assert rc == 2 and "'graph.size' is not a parameter of graph 'test-grid'" in capsys.readouterr().err
    rc = main(["sweep", "detection", "--import", user_module, "--set", "estimator=test-degree,jordan",
               "--set", "estimator.sign=-1", "--out", str(out)])
    assert rc == 2 and "'estimator.sign' is not a parameter of estimator 'jordan'" in capsys.readouterr().err
    rc = main(["sweep", "detection", "--import", user_module, "--set", "graph=test-grid",
               "--set", "graph.side=5,7", "--set", "graph.seed=0,1", "--set", "protocol=random-diffusion",
               "--set", "estimator=test-degree,jordan", "--set", "T=2",
               "--trials", "40", "--rng", "3", "--workers", "2", "--out", str(out), "--no-plot", "--quiet"])
    assert rc == 0, capsys.readouterr().err
    stem = next(out.glob("sweep-detection-*.csv")).with_suffix("")
    csv = stem.with_suffix(".csv").read_text().splitlines()
    assert csv[0].startswith("graph,protocol,estimator,T,fresh_graph,stop,graph.side,graph.seed,metric")
    assert len(csv) == 1 + 2 * 2 * 2 * 8
    side = json.loads(stem.with_suffix(".json").read_text())
    summaries = {(g["parameters"]["side"], g["seed"]): g["summary"] for g in side["components"]["graphs"]}
    assert summaries[(5, 0)]["n"] == 25 and summaries[(7, 1)]["m"] == 2 * 7 * 6 + 6


def test_user_estimator_parameters_are_axes(user_module, tmp_path):
    """A user's estimator runs trial by trial; its own parameter is a sweep axis."""
    __import__(user_module)
    res = harness.run(harness.compose("detection", product={
        "graph": "regular-3", "protocol": "random-diffusion", "estimator": ["test-degree"],
        "estimator.sign": [1.0, -1.0], "T": 2}), trials=300, rng=2, out=tmp_path, workers=1, plot=False)
    det = {r["estimator.sign"]: r for r in res.table.where(metric="detection")}
    # on the 3-regular tree after 2 steps of diffusion the source has the most infected
    # neighbours far more often than the least
    assert det[1.0]["ci_low"] > det[-1.0]["ci_high"]


# ------------------------------------------------------------------ determinism (acceptance)


def _edgelist(tmp_path):
    G = nx.connected_watts_strogatz_graph(150, 6, 0.2, seed=11)
    path = tmp_path / "contacts.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("# a user's contact graph\n")
        fh.writelines(f"{u} {v}\n" for u, v in G.edges)
    return path


def _sweep_args(path):
    return {
        "product": {"graph": "erdos-renyi", "graph.n": [80, 160], "graph.mean_degree": [3.0, 6.0],
                    "protocol": ["random-diffusion", "adaptive-diffusion"], "estimator": "jordan",
                    "T": 3},
        "edgelist": {"graph": "edgelist", "graph.path": [str(path)],
                     "protocol": ["random-diffusion", "adaptive-diffusion"], "estimator": "rumor", "T": 3},
    }


@pytest.mark.slow
def test_graph_sweeps_identical_across_executors_cli_and_python(tmp_path):
    distributed = pytest.importorskip("distributed")
    path = _edgelist(tmp_path)
    for label, product in _sweep_args(path).items():
        outputs = {}
        exp = harness.compose("detection", product=product, name=f"g-{label}")
        for ex_name, ex in (("inproc", InProcessExecutor(1)), ("pool", ProcessPoolExecutor(2))):
            res = harness.run(exp, trials=60, batch_size=20, rng=99, out=tmp_path / ex_name,
                              executor=ex, plot=False)
            outputs[ex_name] = res.paths["csv"].read_bytes()
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster:
            res = harness.run(exp, trials=60, batch_size=20, rng=99, out=tmp_path / "dask",
                              executor=DaskExecutor(2, scheduler=cluster.scheduler_address), plot=False)
            outputs["dask"] = res.paths["csv"].read_bytes()
        argv = ["sweep", "detection", "--name", f"g-{label}", "--trials", "60", "--batch-size", "20",
                "--rng", "99", "--workers", "2", "--out", str(tmp_path / "cli"), "--no-plot", "--quiet"]
        for key, values in product.items():
            values = values if isinstance(values, list) else [values]
            argv += ["--set", f"{key}={','.join(map(str, values))}"]
        assert main(argv) == 0
        outputs["cli"] = (tmp_path / "cli" / f"g-{label}.csv").read_bytes()
        assert len(set(outputs.values())) == 1, label
        rows = outputs["inproc"].decode().splitlines()
        # eight detection metrics (with T_snapshot and reached, issue 32's reach rule)
        assert len(rows) == 1 + 8 * (8 if label == "product" else 2)
        meta = res.metadata["components"]["graphs"]
        assert all(g["summary"]["n"] == (150 if label == "edgelist" else g["parameters"]["n"]) for g in meta)


def test_fresh_graph_per_batch_is_seeded_by_the_run(tmp_path):
    product = {"graph": "erdos-renyi", "graph.n": 60, "graph.mean_degree": 4.0, "fresh_graph": [False, True],
               "protocol": "random-diffusion", "estimator": "jordan", "T": 2}
    exp = harness.compose("detection", product=product)
    a = harness.run(exp, trials=40, batch_size=10, rng=5, out=tmp_path / "a", workers=1, plot=False)
    b = harness.run(exp, trials=40, batch_size=10, rng=5, out=tmp_path / "b", workers=1, plot=False)
    c = harness.run(exp, trials=40, batch_size=10, rng=6, out=tmp_path / "c", workers=1, plot=False)
    assert a.paths["csv"].read_bytes() == b.paths["csv"].read_bytes()
    graphs = a.metadata["components"]["graphs"]
    fixed = [g for g in graphs if "per point" in g["draw"]]
    fresh = [g for g in graphs if "fresh" in g["draw"]]
    assert len(fixed) == 1 and fixed[0]["seed"] == 0 and len(fresh) == 1
    assert fresh[0]["seed"] != c.metadata["components"]["graphs"][1]["seed"]
    # the recorded seed rebuilds the graph whose summary is recorded
    g = component_info("graph", "erdos-renyi").build(n=60, mean_degree=4.0, seed=fresh[0]["seed"])
    assert g.number_of_edges() == fresh[0]["summary"]["m"]


def test_toml_sweep_with_component_parameters(tmp_path, capsys):
    toml = tmp_path / "s.toml"
    toml.write_text(textwrap.dedent("""
        template = "detection"
        name = "ws"
        trials = 20
        rng = 1
        [product]
        graph = ["watts-strogatz"]
        "graph.n" = [40, 80]
        "graph.p" = [0.0, 0.3]
        protocol = ["flooding"]
        estimator = ["jordan"]
        T = [2]
    """))
    assert main(["sweep", "--config", str(toml), "--workers", "1", "--out", str(tmp_path), "--quiet",
                 "--no-plot"]) == 0
    head = (tmp_path / "ws.csv").read_text().splitlines()[0]
    assert "graph.n,graph.p" in head
    toml.write_text('template = "detection"\n[product]\ngraph = ["watts-strogatz"]\n"graph.p" = [2]\n')
    assert main(["sweep", "--config", str(toml), "--out", str(tmp_path)]) == 2
    assert "axis 'graph.p' takes a real number in [0, 1]; got 2.0" in capsys.readouterr().err


# ------------------------------------------------------------------ the result object


def test_run_returns_an_analysable_result(tmp_path):
    res = harness.run(harness.compose("detection", product={"T": [2, 4]}), trials=50, rng=1,
                      out=tmp_path, workers=1)
    assert res.figure is not None and res.figure.exists()
    assert res.metadata["seed"] == 1 and res.metadata["parameter_types"]["T"] == "int"
    assert res.metadata["components"]["graphs"][0]["summary"]["n"] == "infinite"
    fig = res.draw()
    assert len(fig.axes) == 2
    try:
        import pandas  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(ModuleNotFoundError, match="pip install pandas"):
            res.to_pandas()
    else:
        df = res.to_pandas()
        assert list(df.columns) == list(res.table.columns) and len(df) == len(res.table.rows)


def test_errors_are_project_errors():
    with pytest.raises(AnonspreadError, match=r"needs a value for 'graph\.path'"):
        harness.compose("detection", product={"graph": "edgelist"})
