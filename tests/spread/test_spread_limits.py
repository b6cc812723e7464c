"""Size guards and unreadable edge lists (issue 14, defects 7-9): refused up front, one clear error."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

from anonspread import (
    AnonspreadError,
    GraphError,
    InvalidParameterError,
    InvalidTypeError,
    adversaries,
    spread,
)
from anonspread.spread.graphs import from_edgelist, line, random_tree, regular_tree
from anonspread.spread.limits import expected_reach
from anonspread.spread.protocols import (
    AdaptiveDiffusion,
    Flooding,
    LineProtocol,
    RandomDiffusion,
    TreeProtocol,
    TreeProtocolPseudocode,
)


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    ("call", "name", "size"),
    [
        (lambda: spread.simulate(regular_tree(3), AdaptiveDiffusion(), 10**12), "T", "GiB"),
        (lambda: spread.simulate(line(), Flooding(), 10**12), "T", "GiB"),
        (lambda: spread.simulate_many(regular_tree(3), AdaptiveDiffusion(), 4, 10**12), "trials", "GiB"),
        (lambda: spread.simulate(regular_tree(3), Flooding(), 60), "T", "nodes"),
        (lambda: spread.simulate_many(regular_tree(3), RandomDiffusion(0.5), 80, 10), "T", "nodes"),
        (lambda: spread.simulate_many(line(), AdaptiveDiffusion(), 10, 2 * 10**10), "trials", "GiB"),
        (lambda: spread.simulate_many(line(), AdaptiveDiffusion(), 10**4, 10**8), "trials", "GiB"),
        (lambda: adversaries.simulate_and_score(regular_tree(3), AdaptiveDiffusion(), 4, 10**12),
         "trials", "GiB"),
    ],
)
def test_impossible_requests_are_refused_up_front(call, name, size):
    with pytest.raises(InvalidParameterError, match=rf"^{name} must be small enough.*{size}"):
        call()


def test_work_guard_names_the_visits():
    # fits in memory (66 MB of sizes, a 1 GiB tree) but not in time: 2e5 runs of 9e6 nodes
    with pytest.raises(InvalidParameterError, match=r"^trials must .* reasonable time.*node visits"):
        spread.simulate_many(regular_tree(3), AdaptiveDiffusion(), 40, 2 * 10**5)


def test_large_but_feasible_runs_still_run():
    # the O(T^2) alpha table is gone: T = 10**5 on the line is a run of 10**5 + 1 nodes
    s = spread.simulate(line(), AdaptiveDiffusion(), 10**5, rng=0)
    assert s.n_infected == 10**5 + 1
    b = spread.simulate_many(regular_tree(3), Flooding(), 12, 3, rng=0)
    assert np.all(b.n_infected == 1 + 3 * (2**12 - 1))


@pytest.mark.parametrize("d", [3, 4])
@pytest.mark.parametrize("T", [4, 9])
def test_expected_reach_agrees_with_simulation(d, T):
    # the estimates the guards use: exact for flooding and adaptive diffusion, means
    # otherwise (checked against 2000 runs, 5 standard errors)
    g = regular_tree(d)
    for proto in (Flooding(), AdaptiveDiffusion(), LineProtocol(), RandomDiffusion(0.4), TreeProtocol(),
                  TreeProtocolPseudocode()):
        n = spread.simulate_many(g, proto, T, 2000, rng=T).n_infected
        est = expected_reach(proto, d, d - 1, T)
        if isinstance(proto, (Flooding, RandomDiffusion, LineProtocol)):
            assert abs(n.mean() - est) <= 5 * n.std() / math.sqrt(n.size) + 1e-9, proto
        else:  # a ball around the virtual source (adaptive diffusion: exactly at even T)
            assert n.max() <= est, proto
    assert expected_reach(AdaptiveDiffusion(), d, d - 1, 2 * T) == 1 + d * ((d - 1) ** T - 1) / (d - 2)


def test_random_tree_reach_uses_the_mean_degree():
    g = random_tree({2: 0.5, 4: 0.5}, rng=1)
    n = spread.simulate_many(g, Flooding(), 8, 2000, rng=0).n_infected
    est = expected_reach(Flooding(), 3.0, 2.0, 8)
    assert abs(n.mean() - est) <= 5 * n.std() / math.sqrt(n.size)


# ----------------------------------------------------------------- from_edgelist


@pytest.fixture
def bad_files(tmp_path):
    files = {}
    files["binary"] = tmp_path / "bin.txt"
    files["binary"].write_bytes(bytes(range(256)) * 8)
    files["not-gzip"] = tmp_path / "plain.gz"
    files["not-gzip"].write_text("0 1\n1 2\n")
    data = gzip.compress(b"0 1\n1 2\n" * 500)
    files["truncated-gzip"] = tmp_path / "cut.gz"
    files["truncated-gzip"].write_bytes(data[: len(data) // 2])
    files["directory"] = tmp_path / "adir"
    files["directory"].mkdir()
    return files


@pytest.mark.parametrize("kind", ["binary", "not-gzip", "truncated-gzip", "directory"])
def test_unreadable_edge_lists(bad_files, kind):
    with pytest.raises(GraphError, match=r"^path .*(text|gzip|directory)"):
        from_edgelist(bad_files[kind])


@pytest.mark.parametrize("path", [None, 3, ["g.txt"]])
def test_edge_list_path_of_wrong_type(path):
    with pytest.raises(InvalidTypeError, match=r"^path must be"):
        from_edgelist(path)


def test_nan_token_is_not_a_node(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("0 1\nnan nan\n")
    with pytest.raises(GraphError, match=r"line 2: node token 'nan'"):
        from_edgelist(p, nodetype=float)
    assert from_edgelist(p, nodetype=str).number_of_nodes() == 3  # as tokens it is a fine label


def test_relay_of_wrong_type():
    with pytest.raises(AnonspreadError, match=r"^relay must be one of"):
        AdaptiveDiffusion(relay=["tree"])


def test_pick_refuses_all_minus_inf_like_posterior():
    scores = {0: -math.inf, 1: -math.inf}
    for f in (adversaries.pick, adversaries.posterior):
        with pytest.raises(InvalidParameterError, match=r"^scores must give some node"):
            f(scores)


def test_every_registered_protocol_has_a_reach():
    # a protocol without one is guarded by its step and trial counts only
    from anonspread.spread.protocols import PROTOCOLS

    for name, cls in PROTOCOLS.items():
        assert expected_reach(cls(), 3.0, 2.0, 6) is not None, name


@pytest.mark.timeout(20)
def test_message_level_engine_is_guarded_too():
    from anonspread.spread.events import simulate_messages

    with pytest.raises(InvalidParameterError, match=r"^T must be small enough.*nodes"):
        simulate_messages(regular_tree(3), Flooding(), 60)
