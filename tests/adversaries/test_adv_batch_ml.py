"""simulate_and_score's ML shortcuts on infinite trees against the general path.

* Known centre (``anonspread.engine.scoring.ml_ball``): the same scores as ``ml_tree``, bit for
  bit, on every snapshot, and the same per-trial outcomes as the general path.
* Symmetry on the d-regular tree (``adversaries._regular_ml``): the same N_T, rank and
  detection probability per trial; ``detected`` and ``hops`` with the same law.
"""

import math

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from anonspread import adversaries as A
from anonspread import spread
from anonspread.adversaries import _regular_ml as R
from anonspread.adversaries import batch as B
from anonspread.adversaries._tables import ad_tables
from anonspread.adversaries.scores import TIE_RTOL
from anonspread.engine import fused
from anonspread.engine import scoring as K
from anonspread.errors import InvalidParameterError

LAWS = [
    {3: 1.0},
    {2: 1.0},
    {3: 0.5, 4: 0.5},
    {2: 0.5, 5: 0.5},
    {3: 0.8, 10: 0.2},
    {2: 0.6, 3: 0.2, 40: 0.2},  # heavy tail
]
PROTOCOLS = [
    spread.AdaptiveDiffusion(2),
    spread.AdaptiveDiffusion(3),
    spread.AdaptiveDiffusion(3.5),
    spread.AdaptiveDiffusion(math.inf),
    spread.TreeProtocol(),
]


def _tree(law, seed):
    if len(law) == 1:
        return spread.graphs.regular_tree(next(iter(law)))
    return spread.graphs.random_tree(law, rng=seed)


def _snapshot_arrays(sp):
    """Local parents, contact degrees, infection-tree CSR and the virtual source's local id."""
    snap = A.observe(sp)
    par = sp.parent_position.astype(np.int64)
    gdeg = snap.contact_degrees().astype(np.int64)
    n = par.shape[0]
    cnt = np.empty(n + 1, np.int64)
    tptr, tind = fused.local_tree(par, n, cnt, np.empty(n, np.int64), np.empty(2 * n, np.int32))
    c = list(sp.infected.tolist()).index(sp.virtual_source)
    return par, gdeg, tptr.copy(), tind.copy(), c


@pytest.mark.parametrize("law", LAWS, ids=str)
def test_ml_ball_gives_ml_tree_scores_bit_for_bit(law):
    checked = 0
    for proto in PROTOCOLS:
        for T in (2, 4, 6, 8, 10):
            r_node, alive, dead, r_edge, move = ad_tables(float(proto.d0), T)
            for seed in range(4):
                g = _tree(law, 100 * T + seed)
                sp = spread.simulate(g, proto, T, rng=seed)
                par, gdeg, tptr, tind, c = _snapshot_arrays(sp)
                n = par.shape[0]
                ref = np.empty(n)
                found = K.ml_tree(tptr, tind, gdeg, True, r_node, alive, dead, r_edge, move, ref,
                                  K.ml_workspace(n))
                assert found == 1  # the ball's centre is the only consistent configuration
                out = np.full(n, np.nan)
                logk = np.array([-np.inf] + [math.log(k) for k in range(1, int(gdeg.max()) + 1)])
                K.ml_ball(par, gdeg, c, alive, logk, out, np.empty(n), np.empty(n, np.int64))
                assert np.array_equal(out, ref), (law, proto, T, seed)
                assert out[c] == -np.inf and np.isfinite(out[0])
                checked += 1
    assert checked == len(PROTOCOLS) * 5 * 4


def _all_fields_equal(a, b):
    assert np.array_equal(a.n_infected, b.n_infected)
    assert a.estimators.keys() == b.estimators.keys()
    for name in a.estimators:
        for f in ("detected", "detection_probability", "hops", "rank", "tree_hops"):
            assert np.array_equal(getattr(a[name], f), getattr(b[name], f)), (name, f)


def _general(*args, **kw):
    return A.simulate_and_score(*args, known_centre=False, **kw)


@pytest.mark.parametrize("law", LAWS, ids=str)
def test_known_centre_batches_equal_the_general_path(law):
    g = _tree(law, 7)
    for proto, T, ests in [
        (spread.AdaptiveDiffusion(3), 8, ("ml",)),
        (spread.AdaptiveDiffusion(3.5), 6, ("ml", "jordan", "rumor")),
        (spread.AdaptiveDiffusion(math.inf), 10, ("jordan", "ml")),
        (spread.AdaptiveDiffusion(2), 4, ("ml", "ml")),
        (spread.TreeProtocol(), 6, ("ml-tree",)),
    ]:
        if max(law) > 10:
            T = min(T, 6)  # heavy tail: balls of tens of thousands of nodes beyond
        assert B._centre_known(g, proto, proto.kernel_params(g, T), T)
        for seed in (1, 2, 3):
            fast = A.simulate_and_score(g, proto, T, 60, estimators=ests, rng=seed,
                                        regular_symmetry=False)
            slow = _general(g, proto, T, 60, estimators=ests, rng=seed, regular_symmetry=False)
            _all_fields_equal(fast, slow)


def test_known_centre_is_used_only_where_it_is_exact():
    tree = spread.graphs.regular_tree(3)
    ad = spread.AdaptiveDiffusion(3)

    def known(g, proto, T):
        return B._centre_known(g, proto, proto.kernel_params(g, T), T)

    assert known(tree, ad, 2) and known(tree, ad, 12)
    assert not known(tree, ad, 0) and not known(tree, ad, 7)  # odd T: node and edge configurations
    assert not known(tree, spread.AdaptiveDiffusion(3, max_infections_per_step=2), 8)
    assert not known(tree, spread.AdaptiveDiffusion(3, infectors="leaves"), 8)
    assert not known(spread.graphs.random_tree({1: 0.2, 3: 0.8}, rng=0), ad, 8)  # leaves: dead ends
    assert known(spread.graphs.random_tree({1: 0.0, 3: 1.0}, rng=0), ad, 8)
    assert not known(spread.graphs.as_contact_graph(nx.path_graph(30)), ad, 4)
    assert not known(tree, spread.RandomDiffusion(0.5), 4)


def test_trees_with_leaves_keep_the_general_path_and_its_results():
    g = spread.graphs.random_tree({1: 0.3, 3: 0.4, 4: 0.3}, rng=3)
    ad = spread.AdaptiveDiffusion(3)
    assert not B._centre_known(g, ad, ad.kernel_params(g, 8), 8)  # leaves: the general path
    a = A.simulate_and_score(g, ad, 8, 80, estimators=("ml",), rng=5)
    b = _general(g, ad, 8, 80, estimators=("ml",), rng=5)
    _all_fields_equal(a, b)


# ----------------------------------------------------------------- symmetry on regular trees


def _materialised(*args, **kw):
    return A.simulate_and_score(*args, regular_symmetry=False, **kw)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_symmetry_gives_the_same_size_rank_and_detection_probability(d):
    tree = spread.graphs.regular_tree(d)
    for proto in (spread.AdaptiveDiffusion(d), spread.AdaptiveDiffusion(2.5),
                  spread.AdaptiveDiffusion(math.inf), spread.TreeProtocol()):
        name = "ml-tree" if isinstance(proto, spread.TreeProtocol) else "ml"
        for T in (2, 4, 6, 8, 10, 12):
            if d == 4 and T > 10:
                continue
            sym = A.simulate_and_score(tree, proto, T, 200, estimators=(name,), rng=T)
            mat = _materialised(tree, proto, T, 200, estimators=(name,), rng=T)
            assert np.array_equal(sym.n_infected, mat.n_infected)
            assert np.array_equal(sym.sources, mat.sources)
            for f in ("detection_probability", "rank"):
                assert np.array_equal(getattr(sym[name], f), getattr(mat[name], f)), (proto, T, f)
            s = sym[name]
            assert np.array_equal(s.hops, s.tree_hops)
            assert np.all(s.detected <= (s.detection_probability > 0))
            assert np.all((s.hops == 0) == (s.detected == 1))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_sphere_classes_count_the_maximisers_of_real_balls(d):
    """The (hops, is-source) histogram of the maximisers that _classes predicts from
    (d, T, H) equals the one of the ML maximisers of created balls, exactly."""
    tree = spread.graphs.regular_tree(d)
    for proto in (spread.AdaptiveDiffusion(d), spread.AdaptiveDiffusion(3.5),
                  spread.AdaptiveDiffusion(math.inf)):
        for T in (2, 4, 6, 8):
            log_b = ad_tables(float(proto.d0), T)[1]
            r = T // 2
            s = R.sphere_scores(d, r, log_b)
            size = [1] + [d * (d - 1) ** (D - 1) for D in range(1, r + 1)]
            for seed in range(6):
                sp = spread.simulate(tree, proto, T, rng=seed)
                sc = A.ml_adaptive_diffusion(A.observe(sp), proto.d0).array
                par = sp.parent_position
                depth = np.zeros(par.shape[0], np.int64)
                for k in range(1, par.shape[0]):
                    depth[k] = depth[par[k]] + 1
                c = list(sp.infected.tolist()).index(sp.virtual_source)
                H = int(depth[c])
                top = sc >= sc.max() - TIE_RTOL * max(1.0, abs(sc.max()))
                seen = np.bincount(depth[top], minlength=T + 1)
                best = max(s)
                topD = [D for D in range(r + 1)
                        if s[D] >= best - TIE_RTOL * max(1.0, abs(best))]
                want = np.zeros(T + 1, np.int64)
                for D in topD:
                    for count, hops, is_src in R._classes(d, D, H):
                        want[hops] += count
                        assert is_src == (hops == 0)
                assert np.array_equal(seen, want), (proto, T, seed)
                assert top.sum() == sum(size[D] for D in topD)
                assert sp.n_infected == sum(size)


@pytest.mark.slow
@pytest.mark.parametrize("d, T", [(3, 8), (4, 6)])
def test_symmetry_draws_detected_and_hops_with_the_materialised_law(d, T):
    tree = spread.graphs.regular_tree(d)
    proto = spread.AdaptiveDiffusion(d)
    n = 20_000
    sym = A.simulate_and_score(tree, proto, T, n, estimators=("ml",), rng=11)["ml"]
    mat = _materialised(tree, proto, T, n, estimators=("ml",), rng=12)["ml"]
    # hops: chi-square test of homogeneity (independent seeds), sparse cells pooled
    k = max(sym.hops.max(), mat.hops.max()) + 1
    a, b = np.bincount(sym.hops, minlength=k), np.bincount(mat.hops, minlength=k)
    keep = (a + b) >= 20
    table = np.array([np.append(a[keep], a[~keep].sum()), np.append(b[keep], b[~keep].sum())])
    table = table[:, table.sum(axis=0) > 0]
    p = stats.chi2_contingency(table)[1]
    assert p > 1e-3, (table, p)
    # detected: its mean against the mean detection probability (its conditional mean)
    for x in (sym, mat):
        m, se = x.mean("detected")
        assert abs(m - x.detection_probability.mean()) < 4 * se + 1e-12


def test_chunk_size_changes_no_result():
    g = spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=2)
    for proto, T, ests in [(spread.AdaptiveDiffusion(3), 8, ("ml", "jordan", "rumor")),
                           (spread.AdaptiveDiffusion(3), 7, ("ml",))]:
        ref = A.simulate_and_score(g, proto, T, 40, estimators=ests, rng=4)
        assert ref.n_infected.sum() > 10 * 50  # so 50-node chunks really split the batch
        for chunk in (50, 1):  # about one trial per chunk; every trial alone (buffers grow)
            _all_fields_equal(A.simulate_and_score(g, proto, T, 40, estimators=ests, rng=4,
                                                   chunk_nodes=chunk), ref)


def test_chunk_nodes_is_checked():
    g = spread.graphs.regular_tree(3)
    with pytest.raises(InvalidParameterError, match="chunk_nodes"):
        A.simulate_and_score(g, spread.AdaptiveDiffusion(3), 4, 5, chunk_nodes=0)


def test_symmetry_path_is_taken_exactly_when_it_serves_every_estimator(monkeypatch):
    calls = []
    real = B._regular_tree_batch

    def spy(*args, **kw):
        calls.append(args[2])  # T
        return real(*args, **kw)

    monkeypatch.setattr(B, "_regular_tree_batch", spy)
    tree, rand = spread.graphs.regular_tree(3), spread.graphs.random_tree({3: 0.5, 4: 0.5}, rng=0)
    ad = spread.AdaptiveDiffusion(3)
    A.simulate_and_score(tree, ad, 6, 5, estimators=("ml",), rng=0)
    A.simulate_and_score(tree, spread.TreeProtocol(), 4, 5, estimators=("ml-tree",), rng=0)
    A.simulate_and_score(spread.graphs.line(), spread.AdaptiveDiffusion(), 8, 5, estimators=("ml",), rng=0)
    assert calls == [6, 4, 8]
    A.simulate_and_score(tree, ad, 6, 5, estimators=("ml", "jordan"), rng=0)  # jordan needs the ball
    A.simulate_and_score(tree, ad, 7, 5, estimators=("ml",), rng=0)  # odd T
    A.simulate_and_score(rand, ad, 6, 5, estimators=("ml",), rng=0)  # not regular
    assert calls == [6, 4, 8]
