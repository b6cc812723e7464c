"""Size guards (issue 24, class 1): oversized requests are refused up front, within seconds.

Each request below once grew until the machine ran out of memory, ended in a raw
``MemoryError``/``OverflowError``, or ran for hours. They now estimate what they need
from their parameters and refuse with the size and the limit (:mod:`spread.limits`).
The guard test runs them all in a child process whose address space is capped
(``RLIMIT_AS``): a request that started allocating would die there instead of
refusing, and one that started computing would miss its time bound.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anonspread.errors import InvalidParameterError
from anonspread.spread import limits

#: Address space of the child: the imports need ~350 MB; every refused request needs GBs.
AS_LIMIT = 2 * 2**30
#: Seconds a refusal may take (the estimate only; the child's imports are not counted).
REFUSAL_SECONDS = 5.0

_CHILD = r'''
import json, resource, sys, time, traceback
resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
import numpy as np
import networkx as nx
from anonspread import AnonspreadError
from anonspread.harness.cli import main
from anonspread.harness.experiments import graphs as G
from anonspread.spread.graphs import from_edgelist
from anonspread.spread.dandelion import DandelionPlusPlus, simulate_stems
from anonspread.adversaries.transactions import anonymity_graph, draw_spy_mask, observe_transactions
from anonspread.privacy.profiles import ldp_baseline
from anonspread.privacy.krandom import epsilon_monte_carlo

tmp = sys.argv[1]
toml = tmp + "/many-T.toml"
with open(toml, "w") as f:
    f.write('template = "detection"\n[product]\nT = [' + ", ".join(map(str, range(200_000))) + "]\n")
long_line = tmp + "/long-line.txt"
with open(long_line, "w") as f:
    f.write("0 " + "1" * 200_000 + "\n")
cycle = nx.cycle_graph(200_000)
n_tx = 3_000_000  # a directed cycle without spies: every stem runs to the failsafe (n hops)
ring = (np.arange(n_tx + 1, dtype=np.int64), (np.arange(n_tx, dtype=np.int64) + 1) % n_tx)

def cli(*argv):
    import contextlib, io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main([*argv, "--out", tmp + "/out", "--no-plot", "--workers", "1"])
    if rc != 2:
        raise RuntimeError(f"exit status {rc}: {err.getvalue()}")
    raise AnonspreadError(err.getvalue().strip())

CASES = {
    "erdos-renyi n=1e8 mean_degree=50": lambda: G.erdos_renyi(10**8, 50.0),
    "erdos-renyi n=1e9": lambda: G.erdos_renyi(10**9, 50.0),
    "erdos-renyi n=1e10": lambda: G.erdos_renyi(10**10, 50.0),
    "random-regular n=1e9": lambda: G.random_regular(10**9, 4),
    "barabasi-albert n=1e9": lambda: G.barabasi_albert(10**9, 3),
    "watts-strogatz n=1e9": lambda: G.watts_strogatz(10**9, 4, 0.1),
    "powerlaw-cluster n=1e9": lambda: G.powerlaw_cluster(10**9, 3, 0.5),
    "stochastic-block p_in=1": lambda: G.stochastic_block(10**6, 2, 1.0, 0.0),
    "sweep erdos-renyi n=1e8": lambda: cli("sweep", "detection", "--set", "graph=erdos-renyi",
                                           "--set", "graph.n=100000000", "--set", "graph.mean_degree=50"),
    "from_edgelist /dev/zero": lambda: from_edgelist("/dev/zero"),
    "from_edgelist long line": lambda: from_edgelist(long_line),
    "simulate_stems 1e6 trials on a 200,000-cycle":
        lambda: simulate_stems(cycle, DandelionPlusPlus(0.1, relays=1), 10**6),
    "observe_transactions no spies, 3e6 nodes":
        lambda: observe_transactions(ring, np.zeros(n_tx, bool)),
    "TOML sweep with 200,000 values of T": lambda: cli("sweep", "--config", toml),
    "protocol-attack 1e8 trials on 1e5 nodes":
        lambda: cli("sweep", "protocol-attack", "--set", "graph=random-regular",
                    "--set", "graph.n=100000", "--trials", "100000000"),
    "anonymity_graph(1e11)": lambda: anonymity_graph(10**11, 2),
    "epsilon_monte_carlo n_samples=1e13":
        lambda: epsilon_monte_carlo(100, 0.25, L=2, delta=0.1, n_samples=10**13),
    "draw_spy_mask n=1e13": lambda: draw_spy_mask(10**13, 0.1),
    "ldp_baseline d=1e7": lambda: ldp_baseline(10**7, 1.0),
}
out = {}
for name, fn in CASES.items():
    t, c = time.perf_counter(), time.process_time()
    try:
        fn()
        res = {"outcome": "accepted"}
    except AnonspreadError as exc:
        res = {"outcome": "refused", "message": str(exc)}
    except BaseException as exc:
        res = {"outcome": "raw", "message": f"{type(exc).__name__}: {exc}"}
    res["seconds"] = time.perf_counter() - t
    res["cpu"] = time.process_time() - c
    out[name] = res
print(json.dumps(out))
'''

CASES = [
    "erdos-renyi n=1e8 mean_degree=50", "erdos-renyi n=1e9", "erdos-renyi n=1e10",
    "random-regular n=1e9", "barabasi-albert n=1e9", "watts-strogatz n=1e9", "powerlaw-cluster n=1e9",
    "stochastic-block p_in=1", "sweep erdos-renyi n=1e8", "from_edgelist /dev/zero",
    "from_edgelist long line", "simulate_stems 1e6 trials on a 200,000-cycle",
    "observe_transactions no spies, 3e6 nodes", "TOML sweep with 200,000 values of T",
    "protocol-attack 1e8 trials on 1e5 nodes", "anonymity_graph(1e11)", "epsilon_monte_carlo n_samples=1e13",
    "draw_spy_mask n=1e13", "ldp_baseline d=1e7",
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("guards")
    env = {k: v for k, v in os.environ.items() if k not in (limits.MEMORY_ENV, limits.WORK_ENV)}
    proc = subprocess.run([sys.executable, "-c", _CHILD.replace("AS_LIMIT", str(AS_LIMIT)), str(tmp)],
                          capture_output=True, text=True, timeout=600, env=env,
                          cwd=Path(limits.__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", CASES)
def test_oversized_request_is_refused_within_seconds(outcomes, case):
    res = outcomes[case]
    assert res["outcome"] == "refused", res
    # "within seconds" is the work done before refusing (CPU time: it does not grow with
    # other jobs on a shared machine), with a loose bound on the elapsed time as well
    assert res["cpu"] < REFUSAL_SECONDS, res
    assert res["seconds"] < 4 * REFUSAL_SECONDS, res
    # a size refusal, naming what it needs and the limit (or why the input is not a file)
    msg = res["message"]
    assert ("small enough" in msg and "allowed" in msg) or "at most" in msg or "regular" in msg \
        or "longer than" in msg, msg


def test_refusals_state_the_size_and_how_to_raise_the_limit():
    with pytest.raises(InvalidParameterError) as info:
        limits.check_size("graph.n", 10**8, nbytes=500 * 2**30, what="the graph")
    msg = str(info.value)
    assert "graph.n=100000000" in msg and "500 GiB" in msg and limits.MEMORY_ENV in msg
    with pytest.raises(InvalidParameterError, match=r"about 2e\+13 node visits, more than the 1e\+12 allowed"):
        limits.check_size("trials", 10**8, work=2e13)


def test_the_limits_can_be_raised_explicitly(monkeypatch):
    monkeypatch.delenv(limits.MEMORY_ENV, raising=False)
    monkeypatch.delenv(limits.WORK_ENV, raising=False)
    with pytest.raises(InvalidParameterError):
        limits.check_size("trials", 1, work=2e13)
    with limits.raised_limits(work=1e14, memory="2T"):
        limits.check_size("trials", 1, work=2e13, nbytes=2**40)  # accepted
        assert os.environ[limits.WORK_ENV] and limits.memory_budget() == 2 * 2**40
    assert limits.MEMORY_ENV not in os.environ and limits.work_budget() == limits.MAX_WORK
    monkeypatch.setenv(limits.MEMORY_ENV, "512M")
    assert limits.memory_budget() == 512 * 2**20
    monkeypatch.setenv(limits.MEMORY_ENV, "lots")
    with pytest.raises(InvalidParameterError, match=limits.MEMORY_ENV):
        limits.memory_budget()


def test_a_raised_limit_admits_what_the_default_refuses(monkeypatch):
    from anonspread.harness.experiments import graphs as G

    monkeypatch.setenv(limits.MEMORY_ENV, "1M")
    with pytest.raises(InvalidParameterError, match=r"graph\.n"):
        G.erdos_renyi(20_000, 4.0)
    monkeypatch.setenv(limits.MEMORY_ENV, "1G")
    assert G.erdos_renyi(20_000, 4.0).number_of_nodes() == 20_000


def test_edge_list_larger_than_the_memory_limit_is_refused_while_read(tmp_path, monkeypatch):
    from anonspread.spread.graphs import BYTES_PER_EDGE_READ, from_edgelist

    path = tmp_path / "g.txt"
    path.write_text("".join(f"{i} {i + 1}\n" for i in range(1000)))
    monkeypatch.setenv(limits.MEMORY_ENV, str(500 * BYTES_PER_EDGE_READ))
    with pytest.raises(InvalidParameterError, match=r"path must be small enough for the edge list \(more than 500 edges\)"):
        from_edgelist(path)
    monkeypatch.delenv(limits.MEMORY_ENV)
    assert from_edgelist(path).number_of_edges() == 1000


def test_sweep_work_is_the_sum_over_its_points(tmp_path, monkeypatch):
    from anonspread import harness
    from anonspread.harness.grid import expand

    exp = harness.compose("detection", product={"T": [2, 4], "estimator": "jordan"}, default_trials=10)
    per = [exp.cost(p) for p in expand(exp.grid)]
    # regular-3 tree, adaptive diffusion: the ball of radius (T + 1) // 2 (4, then 10 nodes)
    # and their children (x 3), plus T + 1 steps
    assert per == [4 * 3 + 3, 10 * 3 + 5]
    total = 10 * sum(per)
    monkeypatch.setenv(limits.WORK_ENV, str(math.floor(total) - 1))
    with pytest.raises(InvalidParameterError, match="trials must be small enough for the sweep"):
        harness.run(exp, trials=10, out=tmp_path, workers=1, plot=False, progress=False)
    monkeypatch.setenv(limits.WORK_ENV, str(math.ceil(total)))
    res = harness.run(exp, trials=10, rng=0, out=tmp_path, workers=1, plot=False, progress=False)
    assert res.computed >= 1


def test_run_work_counts_steps_and_touched_nodes():
    from anonspread.spread.graphs import regular_tree
    from anonspread.spread.protocols import Flooding

    # flooding on the 3-regular tree touches the ball of radius T (1 + 3 + 6 = 10 at T=2)
    # and its children (x3), plus T + 1 steps
    assert limits.run_work(regular_tree(3), Flooding(), 2) == pytest.approx(10 * 3 + 3)


def test_points_a_sweep_skips_do_not_count(tmp_path):
    import dataclasses

    import numpy as np

    from anonspread import harness

    exp = harness.Experiment(
        name="skip-cost", title="t", description="an expensive point that is skipped",
        grid=harness.Grid(product={"k": [0, 1]}), metrics=(harness.Metric("x", "mean"),),
        trials=lambda params, n, rng: {"x": np.zeros(n)}, default_trials=2,
        cost=lambda p: 1e15 if p["k"] else 1.0, skip=lambda p: "too big" if p["k"] else None)
    res = harness.run(exp, trials=2, rng=0, out=tmp_path / "a", workers=1, plot=False, progress=False)
    assert res.computed == 1
    with pytest.raises(InvalidParameterError, match=r"about 2e\+15 node visits"):
        harness.run(dataclasses.replace(exp, skip=None), trials=2, out=tmp_path / "b", workers=1,
                    plot=False, progress=False)


# ----------------------------------------------------------------- issue 33, class 2


@pytest.mark.parametrize("T, trials, words", [
    (3, 10**12, "trials must be small enough"),
    (3, 10**8, "trials must be small enough"),
    (10**9, 10, "T must be small enough"),
])
def test_bayes_ceiling_refuses_absurd_sizes_up_front(T, trials, words):
    import networkx as nx

    from anonspread.adversaries import bayes_ceiling
    from anonspread.spread.protocols import RandomDiffusion

    with pytest.raises(InvalidParameterError, match=words):
        bayes_ceiling(nx.cycle_graph(10), RandomDiffusion(0.5), T, method="monte-carlo",
                      trials=trials, rng=0)


@pytest.mark.parametrize("trials, words", [(10**18, "to fit in memory"), (10**8, "to finish in reasonable time")])
def test_bp_detection_refuses_absurd_trials_up_front(trials, words):
    # found by the fuzz strategies: np.empty(trials) raised a raw MemoryError
    import networkx as nx

    from anonspread.adversaries import bp_detection
    from anonspread.spread.protocols import RandomDiffusion

    with pytest.raises(InvalidParameterError, match=f"trials must be small enough for BP's detection trials {words}"):
        bp_detection(nx.cycle_graph(10), RandomDiffusion(0.5), 2, trials, rng=0)
