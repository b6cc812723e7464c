"""A learned source estimator: gradient boosting over node features, trained on simulated spreads.

The adversary of issue 26's "learned" family. For a (contact graph, protocol, T) it
simulates ``spreads`` spreads of the very protocol under attack with the compiled engine
(uniform source on a finite graph; node 0 of a fresh realisation of the same family on an
infinite tree), turns every infected node of each snapshot into a feature vector
(:data:`FEATURES`), and fits scikit-learn's :class:`~sklearn.ensemble.HistGradientBoostingClassifier`
to tell the source from the other infected nodes. A node's score is the model's log-odds
that it is the source; the estimate is the arg-max. The model is then evaluated on
``held_out`` further spreads, simulated from an independent stream, and their detection
probability is reported with an interval (:class:`HeldOut`).

What this adversary is, and is not:

* a **lower bound** on the strongest attack: any estimator's detection probability is at
  most the Bayes-optimal (MAP) one, so a learned adversary that detects the source with
  probability p shows that the protocol leaks at least that much on this graph; it never
  shows that the protocol leaks no more;
* trained for one (graph, protocol, T) and one observation (with or without the revealed
  infection tree); :meth:`LearnedAdversary.scores` refuses other snapshots;
* deterministic given ``train_seed``: the training and held-out spreads, the negatives
  kept and the boosting all draw from ``numpy.random.SeedSequence(train_seed)``, never
  from the caller's evaluation generator.

The registered estimator ``"learned"`` (:func:`learned_estimator`) trains once per
(graph fingerprint, protocol, T, budget, train_seed, observation) and process, keeps the
model in a bounded LRU (:func:`cache_info`, :func:`cache_clear`; nothing on disk), and
scores. A run over many workers trains once for all of them instead: it trains the
models of its keys in one process (:func:`cached_adversary`), bundles them
(:class:`TrainedModels`) and installs the bundle in every worker before its first task
(:meth:`TrainedModels.install`); an installed model is used before the LRU and never
evicted from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np

from anonspread.adversaries.estimators import _check_snapshot, rumor_centrality
from anonspread.adversaries.observation import Snapshot, graph_is_forest, observe, relisted
from anonspread.adversaries.registry import applicable_estimators, get_estimator, register_estimator
from anonspread.adversaries.scores import TIE_RTOL, Scores, top_set
from anonspread.engine import features as _features
from anonspread.engine.spreading import KERNEL_CODES
from anonspread.errors import AnonspreadError, InvalidParameterError, InvalidTypeError
from anonspread.spread import graphs as _graphs
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size, check_size, run_work
from anonspread.spread.protocols import PROTOCOLS, Protocol
from anonspread.spread.simulate import infected_sets, simulate
from anonspread.validation import check_int, check_real

__all__ = [
    "CACHE_SIZE",
    "DEFAULT_HELD_OUT",
    "DEFAULT_SPREADS",
    "FEATURES",
    "FEATURE_VERSION",
    "FEATURE_VERSIONS",
    "HeldOut",
    "LearnedAdversary",
    "TrainedModels",
    "cache_clear",
    "cache_info",
    "cached_adversary",
    "estimate_training_seconds",
    "learned_estimator",
    "model_key",
    "snapshot_features",
    "train_adversary",
]

#: Training spreads by default: about a second of simulation, features and boosting
#: for snapshots of tens of nodes (see benchmarks/bench_learned.py).
DEFAULT_SPREADS = 1000
#: Held-out spreads by default: the Wilson 95% interval of the held-out detection is then
#: at most +-0.069 wide (at 0.5; +-0.03 at 0.05 or 0.95), which :class:`HeldOut` reports.
#: 500 before issue 31 (+-0.044): the held-out evaluation cost a third of a training, and
#: a sweep measures the adversary's detection on its own trials anyway.
DEFAULT_HELD_OUT = 200
#: Negatives (non-source infected nodes) kept per training snapshot: half the best-ranked
#: by the features' estimators, half drawn uniformly from the rest and weighted to stand for
#: it, so the classifier still sees the pooled node distribution (:func:`_negatives`).
DEFAULT_NEGATIVES = 24
#: Trained models kept per process by the registered estimator (least recently used out).
CACHE_SIZE = 8
#: Most bytes of base features a model keeps of the infected sets it has scored (the
#: sets that recur are then not recomputed: :meth:`LearnedAdversary.scores`); a
#: 500-node set takes 60 kB.
SCORING_CACHE_BYTES = 16e6

#: Features of every infected node, normalised within its snapshot (differences to the
#: snapshot's best or ratios to its largest value, ranks in [0, 1] with 0 the best) so
#: that one model serves snapshots of different sizes. Distances are hop counts inside
#: the infected subgraph; the boundary is the set of infected nodes with an uninfected
#: contact. ``jordan``'s score is minus the eccentricity (``ecc_*``).
BASE_FEATURES = (
    "log_n",                # log of the number of infected nodes (context)
    "ecc_minus_min",        # eccentricity minus the snapshot's radius
    "ecc_over_max",         # eccentricity over the snapshot's diameter
    "ecc_rank",             # jordan's rank
    "mean_dist_minus_min",  # mean distance to the other infected nodes minus its minimum
    "mean_dist_over_max",
    "mean_dist_rank",
    "boundary_dist",        # hops to the nearest boundary node (-1: no boundary)
    "boundary_dist_from_max",
    "boundary_dist_over_max",
    "deg_in",               # degree inside the infected set
    "deg_out",              # degree outside it (uninfected contacts)
    "deg_in_over_max",
    "rumor_minus_max",      # log rumour centrality minus the snapshot's maximum
    "rumor_rank",
)
#: Per likelihood estimator ``e`` that applies (``"ml"``, ``"ml-tree"``): its score minus
#: the snapshot's maximum (NaN where it is -inf), its rank, whether the node is possible.
LIKELIHOOD_FEATURES = ("{}_minus_max", "{}_rank", "{}_possible")
FEATURES = BASE_FEATURES + tuple(f.format("<likelihood>") for f in LIKELIHOOD_FEATURES)

#: The definition of the features a new model is trained on (part of :func:`model_key`).
#: Version 2 (issue 31): the rumour columns score every node v on a BFS tree rooted at v
#: in which every other node's parent is its first neighbour one hop closer to v in a
#: fixed hashed order of the graph's nodes (:func:`_rows_by_hash`,
#: :func:`anonspread.engine.features.bfs_rumor`: 64 roots at once, O(ceil(n / 64) x
#: (2 T + 1) x (n + m) + n^2) a snapshot), the exact rumour centrality wherever the
#: infected subgraph is a tree; the base columns are computed in the order of the nodes'
#: indices in the graph (a function of the infected set, bit for bit, computed once per
#: set in a training); and the boosting is fitted on bin numbers computed here
#: (:func:`_bin_edges`: the thresholds scikit-learn computes from weighted rows, a sort a
#: column instead of one a threshold). Version 1: the ``rumor`` estimator's scores (on a
#: graph with cycles the parent its BFS queue reaches first, one search per node, O(n m))
#: and scikit-learn's own binning. A version-1 model (:func:`train_adversary` with
#: ``feature_version=1``, or one unpickled from before version 2) keeps its features.
FEATURE_VERSION = 2
#: The feature versions :func:`snapshot_features` computes.
FEATURE_VERSIONS = (1, 2)

#: The protocols with a compiled kernel (what the training spreads run on).
COMPILED_PROTOCOLS = tuple(sorted(n for n, c in PROTOCOLS.items() if c.kernel_code in KERNEL_CODES))

_CLIP = 60.0  # log-scale differences below -_CLIP carry no more information


# ------------------------------------------------------------------ features


def _ranks(values: np.ndarray) -> np.ndarray:
    """Rank of each value in decreasing order, ties sharing their mean, scaled to [0, 1]
    (:func:`anonspread.engine.features.descending_ranks`; :func:`_ranks_reference` is the
    numpy definition it is tested against, bit for bit)."""
    return _features.descending_ranks(values)


def _ranks_reference(values: np.ndarray) -> np.ndarray:
    """:func:`_ranks` in numpy (the definition before issue 31's compiled pass)."""
    n = values.shape[0]
    if n == 1:
        return np.zeros(1)
    order = np.argsort(-values, kind="stable")
    v = -values[order]
    # runs of equal values share the mean of their positions
    start = np.concatenate([[True], v[1:] != v[:-1]])
    group = np.cumsum(start) - 1
    first = np.nonzero(start)[0]
    last = np.concatenate([first[1:], [n]]) - 1
    out = np.empty(n)
    out[order] = ((first + last) / 2.0)[group]
    return out / (n - 1)


def _merge_ties(values: np.ndarray) -> np.ndarray:
    """``values`` with each run of near-equal values (consecutive gaps within
    :data:`TIE_RTOL` of the largest magnitude) replaced by the run's largest value.

    Scores equal in exact arithmetic come out of message passing rooted at the first
    infected node -- the source -- with rounding differences in the last bits; ranked as
    they are, those bits would tell the model which node the traversal started from.
    """
    return _features.merge_close(values, TIE_RTOL)


def _merge_ties_reference(values: np.ndarray) -> np.ndarray:
    """:func:`_merge_ties` in numpy (the definition before issue 31's compiled pass)."""
    finite = np.isfinite(values)
    if finite.sum() < 2:
        return values
    v = values[finite]
    tol = TIE_RTOL * max(1.0, float(np.abs(v).max()))
    order = np.argsort(-v, kind="stable")
    w = v[order]
    start = np.concatenate([[True], (w[:-1] - w[1:]) > tol])
    out = values.copy()
    merged = np.empty_like(v)
    merged[order] = w[np.nonzero(start)[0][np.cumsum(start) - 1]]
    out[finite] = merged
    return out


def _rounded_gap(values: np.ndarray, top: float) -> np.ndarray:
    """``values - top`` clipped at ``-_CLIP`` and rounded to 1e-6.

    The rounding matters: log-scale scores carry rounding errors of ~1e-15 that depend on
    where the message passing started (the first infected node, the source), and a
    boosted tree can place a threshold between two such values of different snapshots.
    """
    return np.round(np.maximum(values - top, -_CLIP), 6)


def _likelihood_features(values: np.ndarray) -> list[np.ndarray]:
    values = _merge_ties(values)
    possible = np.isfinite(values)
    top = values[possible].max() if possible.any() else 0.0
    diff = np.where(possible, _rounded_gap(values, top), np.nan)
    return [diff, _ranks(np.where(possible, values, -np.inf)), possible.astype(np.float64)]


def _check_version(version: Any) -> int:
    version = check_int(version, "feature_version")
    if version not in FEATURE_VERSIONS:
        raise InvalidParameterError(
            f"feature_version must be one of {', '.join(map(str, FEATURE_VERSIONS))}; got {version}"
        )
    return version


def _rumor_scores(snapshot: Snapshot, indptr: np.ndarray, indices: np.ndarray,
                  version: int, total: np.ndarray, ecc: np.ndarray) -> np.ndarray:
    """The log rumour centralities behind the rumour columns (see :data:`FEATURE_VERSION`),
    and the distance sums and eccentricities of the infected subgraph in ``total`` and
    ``ecc`` (version 2: from the rumour columns' own breadth-first searches)."""
    if version == 1:
        _features.distance_sums(indptr, indices, total, ecc)
        return rumor_centrality(snapshot).array
    out = np.empty(snapshot.n, np.float64)
    if indices.shape[0] != 2 * (snapshot.n - 1):  # on a tree the BFS trees are the tree
        indices = _rows_by_hash(snapshot, indptr, indices)
    _features.bfs_rumor(indptr, indices, out, total=total, ecc=ecc)
    return out


def _rows_by_hash(snapshot: Snapshot, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``indices`` with every CSR row ordered by a fixed hash of the neighbours' indices in
    the contact graph (a multiplicative hash modulo a prime: a pseudo-random order of the
    graph's nodes, the same in every snapshot, never the order the snapshot lists them in).

    :func:`~anonspread.engine.features.bfs_rumor` gives each node the first parent in its
    row; with rows in the graph's order (usually sorted by label) nodes of small labels
    would claim the subtrees of every tree (a model trained so detected less on adaptive
    diffusion at T = 6, 8 on the three-block graph, on average over training seeds:
    docs/adversaries.md).
    """
    key = (snapshot.index.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(4294967291)
    # a row's keys are distinct (distinct graph indices below the prime): sorting each row
    # by key is the stable argsort of (row, key) pairs it replaced (_rows_by_hash_reference)
    return _features.rows_sorted_by(indptr, indices, key)


def _rows_by_hash_reference(snapshot: Snapshot, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """:func:`_rows_by_hash` by one stable argsort of (row, key) pairs (before issue 31)."""
    key = (snapshot.index.astype(np.uint64) * np.uint64(2654435761)) % np.uint64(4294967291)
    rows = np.repeat(np.arange(snapshot.n, dtype=np.uint64), np.diff(indptr))
    order = np.argsort((rows << np.uint64(32)) | key[indices], kind="stable")
    return np.ascontiguousarray(indices[order])


def snapshot_features(snapshot: Snapshot, likelihoods: dict[str, dict[str, Any]] | None = None,
                      *, feature_version: int = FEATURE_VERSION) -> np.ndarray:
    """The feature matrix of a snapshot: one row per infected node, columns :data:`FEATURES`.

    Cost per snapshot of n infected nodes whose infected subgraph has m edges (version 2):
    O(ceil(n / 64) x (e + 1) x (n + m)) word operations for the distances and again for
    the rumour columns (64 breadth-first searches at once, e the largest eccentricity, at
    most 2 T), plus O(n^2) for the rumour columns' subtree sizes (O(n) on a tree), O(n + m)
    for the boundary distances and degrees, O(n log n) for the ranks, plus the likelihood
    estimators' own cost. Version 1's rumour columns cost O(n m) on a graph with cycles
    (one breadth-first search per node).

    Parameters
    ----------
    snapshot : Snapshot
        The observation.
    likelihoods : dict, optional
        ``{estimator name: its keyword arguments}`` of the likelihood estimators whose
        scores are features (three columns each, in this order); none by default. A
        snapshot the estimator finds impossible gives NaN (missing) columns.
    feature_version : int
        The definition of the features (:data:`FEATURE_VERSION`, the default, or 1).

    Returns
    -------
    numpy.ndarray of float64, shape (snapshot.n, 15 + 3 * len(likelihoods))
        Rows in the order of ``snapshot.nodes``.

    Examples
    --------
    >>> import networkx as nx
    >>> from anonspread import adversaries
    >>> snap = adversaries.Snapshot(nx.path_graph(6), [1, 2, 3], T=2)
    >>> X = adversaries.learned.snapshot_features(snap)
    >>> X.shape, X[:, 1].tolist(), X[:, 7].tolist()  # eccentricity - radius, boundary hops
    ((3, 15), [1.0, 0.0, 1.0], [0.0, 1.0, 0.0])
    """
    snapshot = _check_snapshot(snapshot)
    feature_version = _check_version(feature_version)
    return _snapshot_features(snapshot, likelihoods, feature_version, None)


class _FeatureCache:
    """The base features of the infected sets already seen in one training, by set.

    The base columns (:data:`BASE_FEATURES`) depend on the infected set and the graph
    only (never on the source, the order or the revealed infection tree; version 2 computes
    them in the order of the nodes' indices in the graph, so a set's are the same bits
    whenever it recurs). Random diffusion covering most of a small graph repeats its sets:
    17 distinct among 1,500 spreads at T = 8 on the 498-node three-block graph, 828 at
    T = 6. At most ``max_bytes`` of features are kept (later sets are computed, not kept).
    """

    def __init__(self, graph: Any, max_bytes: float = 64e6) -> None:
        # held weakly: a model's scoring cache must not keep its graph alive
        self._graph = None if graph is None else weakref.ref(graph)
        self.max_bytes = max_bytes
        self.nbytes = 0
        self.sets: dict[bytes, np.ndarray] = {}
        self.hits = 0
        self.computed = 0  # base features computed (misses), and their seconds
        self.seconds = 0.0
        self.cpu_seconds = 0.0

    @property
    def graph(self) -> Any:
        """The graph whose sets are kept (None: none, or it is gone)."""
        return None if self._graph is None else self._graph()

    def get(self, snapshot: Snapshot, key: bytes) -> np.ndarray | None:
        if snapshot.graph is not self.graph:
            return None
        hit = self.sets.get(key)
        self.hits += hit is not None
        return hit

    def put(self, key: bytes, X: np.ndarray) -> None:
        if self.nbytes + X.nbytes <= self.max_bytes:
            self.sets[key] = X
            self.nbytes += X.nbytes


def _canonical(snapshot: Snapshot) -> tuple[Snapshot, np.ndarray | None]:
    """The snapshot with its nodes in the order of their indices in the graph, and the
    permutation (``canonical row i`` = ``snapshot row order[i]``; None: already so)."""
    order = np.argsort(snapshot.index, kind="stable")
    if np.array_equal(order, np.arange(snapshot.n)):
        return snapshot, None
    out = Snapshot.__new__(Snapshot)
    out._init(snapshot.graph, snapshot.nodes[order], snapshot.index[order], snapshot.T, None)
    return out, order


def _snapshot_features(snapshot: Snapshot, likelihoods: dict | None, feature_version: int,
                       cache: _FeatureCache | None) -> np.ndarray:
    """:func:`snapshot_features` after its checks, its base columns through ``cache``."""
    if feature_version == 1:
        base = _base_features(snapshot, 1)
    else:
        canon, order = _canonical(snapshot)
        key = canon.index.tobytes()
        base = None if cache is None else cache.get(snapshot, key)
        if base is None:
            t0, c0 = time.perf_counter(), time.process_time()
            base = _base_features(canon, feature_version)
            if cache is not None:
                cache.computed += 1
                cache.seconds += time.perf_counter() - t0
                cache.cpu_seconds += time.process_time() - c0
                if snapshot.graph is cache.graph:
                    cache.put(key, base)
        if order is not None:
            out = np.empty_like(base)
            out[order] = base
            base = out
    if not likelihoods:
        return base
    n = snapshot.n
    cols = []
    for name, kwargs in likelihoods.items():
        try:
            values = get_estimator(name).func(snapshot, **kwargs).array
        except InvalidParameterError:  # impossible under the (near-)ML's model: missing
            cols += [np.full(n, np.nan), np.full(n, np.nan), np.zeros(n)]
        else:
            cols += _likelihood_features(values)
    return np.column_stack([base, *[np.asarray(c, np.float64) for c in cols]])


def _base_features(snapshot: Snapshot, feature_version: int) -> np.ndarray:
    """The :data:`BASE_FEATURES` columns, rows in the snapshot's order."""
    n = snapshot.n
    indptr, indices = snapshot.subgraph()
    total = np.empty(n, np.int64)
    ecc = np.empty(n, np.int64)
    rumor = _merge_ties(_rumor_scores(snapshot, indptr, indices, feature_version, total, ecc))
    mean = total / max(n - 1, 1)
    deg_in = np.diff(indptr).astype(np.float64)
    deg_out = snapshot.contact_degrees() - deg_in
    bdist = np.empty(n, np.int64)
    _features.multi_source_distance(indptr, indices, np.nonzero(deg_out > 0)[0], bdist)
    bmax = max(int(bdist.max()), 0)
    cols = [
        np.full(n, math.log(n)),
        ecc - ecc.min(),
        ecc / max(int(ecc.max()), 1),
        _ranks(-ecc.astype(np.float64)),
        mean - mean.min(),
        mean / max(float(mean.max()), 1e-300),
        _ranks(-mean),
        bdist,
        np.where(bdist >= 0, bmax - bdist, 0),
        np.where(bdist >= 0, bdist / max(bmax, 1), 0.0),
        deg_in,
        deg_out,
        deg_in / max(float(deg_in.max()), 1.0),
        _rounded_gap(rumor, rumor.max()),
        _ranks(rumor),
    ]
    return np.column_stack([np.asarray(c, np.float64) for c in cols])


# ------------------------------------------------------------------ graph identity


_FINGERPRINTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def graph_fingerprint(graph: Any) -> tuple:
    """A cheap identity of a contact graph: ``("csr", n, m, blake2b of the CSR arrays)``,
    or ``("tree", kind, degree law)`` for an infinite tree (the family a model trains on).

    Node labels do not enter: two graphs with the same CSR arrays are the same to a model.
    """
    g = as_contact_graph(graph)
    if isinstance(g, LazyTree):
        return ("tree", g.kind, tuple(sorted(g.degrees.items())))
    hit = _FINGERPRINTS.get(g)
    if hit is None:
        h = hashlib.blake2b(digest_size=16)
        h.update(np.ascontiguousarray(g.indptr, np.int64).tobytes())
        h.update(np.ascontiguousarray(g.indices, np.int32).tobytes())
        hit = ("csr", g.number_of_nodes(), g.number_of_edges(), h.hexdigest())
        _FINGERPRINTS[g] = hit
    return hit


def _shuffled(sp: Any, reveal: bool, gen: np.random.Generator) -> tuple[Snapshot, int]:
    """The snapshot of ``sp`` with its infected nodes in a uniformly random order, and the
    source's row.

    :func:`observe` lists the nodes in infection order, source first; anything in the
    features that still depended on that order (the root of a message passing, the
    order of a search) would otherwise be a label the model could learn and a held-out
    evaluation in the same order could not catch.
    """
    snap = observe(sp, reveal_edges=reveal)
    out, inv = relisted(snap, gen.permutation(snap.n))
    return out, int(inv[0])


def _training_graph(g: Any, gen: np.random.Generator) -> Any:
    """The graph one training spread runs on: ``g`` itself, or a fresh member of an infinite
    tree's family (a new realisation of a random tree; the line and regular trees are one)."""
    if not isinstance(g, LazyTree):
        return g
    if g.kind == "random":
        return _graphs.random_tree(g.degrees, rng=gen)
    if g.kind == "line":
        return _graphs.line()
    return _graphs.regular_tree(g.regular_degree())


# ------------------------------------------------------------------ the model


@dataclass(frozen=True)
class HeldOut:
    """Detection on held-out spreads: the learned adversary's, and its features' estimators'.

    Parameters
    ----------
    spreads : int
        Held-out spreads (simulated from a stream independent of the training spreads).
    detection : float
        Mean over them of ``P(arg-max = source | snapshot)`` (``1/|ties|`` or 0).
    low, high : float
        Wilson interval at ``level`` for ``detection``, treating it as a proportion over
        ``spreads`` trials (conservative: averaging over ties only lowers the variance).
    level : float
        Confidence level of the interval.
    baselines : dict
        The same measure for the arg-max of single feature columns, on the same spreads:
        ``"jordan"`` (minus the eccentricity: the ``jordan`` estimator), ``"ml"`` or
        ``"ml-tree"`` where they apply (those estimators' scores), and the rumour column:
        ``"rumor-first-parent"`` for a model of feature version 2 (rumour centrality of each
        node on a BFS tree rooted at it whose nodes take as parent the first neighbour in
        their CSR row one hop closer to the root, :func:`anonspread.engine.features.bfs_rumor`:
        the ``rumor`` estimator's scores where the infected subgraph is a tree or its
        shortest-path parents are unique, not always elsewhere: ``rumor`` takes the
        parent its BFS queue reaches first), ``"rumor"`` for version 1 (the ``rumor``
        estimator's scores). Scores within :data:`~anonspread.adversaries.scores.TIE_RTOL`
        or 1e-6 of each other tie, as in the features.

    Examples
    --------
    :func:`train_adversary` reports one as ``.held_out``; flooding's ball has one centre,
    the source, which every estimator finds:

    >>> from anonspread import adversaries, spread
    >>> adv = adversaries.train_adversary(spread.graphs.regular_tree(3), spread.Flooding(), 2,
    ...                                   spreads=20, held_out=30)
    >>> ho = adv.held_out
    >>> ho.spreads, ho.detection, round(ho.low, 3), ho.baselines
    (30, 1.0, 0.886, {'jordan': 1.0, 'rumor-first-parent': 1.0})
    """

    spreads: int
    detection: float
    low: float
    high: float
    level: float
    baselines: dict = field(default_factory=dict)


def _wilson(p: float, n: int, level: float) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _top_probability(values: np.ndarray, s: int) -> float:
    top = top_set(values)
    return 1.0 / top.shape[0] if s in set(top.tolist()) else 0.0


class LearnedAdversary:
    """A source estimator fitted on simulated spreads of one (graph, protocol, T).

    Built by :func:`train_adversary` (the constructor only stores what it is given);
    picklable (the fitted scikit-learn model, the graph's fingerprint and the training
    description, not the graph).

    Parameters
    ----------
    model : sklearn.ensemble.HistGradientBoostingClassifier or None
        The fitted classifier (None when no training snapshot had a non-source node: every
        node then scores 0).
    protocol : Protocol
        The protocol it was trained on.
    T : int
        The snapshot time it was trained on.
    budget : int
        Training spreads.
    train_seed : int
        The seed of its ``numpy.random.SeedSequence``.
    reveal_edges : bool
        Whether its snapshots reveal the infection tree (only matters on graphs with cycles).
    likelihoods : tuple of str
        The likelihood estimators among its features (``("ml",)`` for adaptive diffusion...).
    likelihood_params : dict
        Their keyword arguments (``{"ml": {"d0": 3.0}}``).
    fingerprint : tuple
        The training graph's :func:`graph_fingerprint`.
    training_rows : int
        Rows (nodes) it was fitted on.
    feature_version : int
        The definition of its features (:data:`FEATURE_VERSION`; 1 for a model unpickled
        from before version 2).

    Attributes
    ----------
    feature_names : tuple of str
        The columns of :func:`snapshot_features` it reads.
    held_out : HeldOut
        Its detection on held-out spreads, with an interval (set by :func:`train_adversary`).

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> adv = adversaries.train_adversary(tree, spread.AdaptiveDiffusion(), 4, spreads=50,
    ...                                   held_out=20)
    >>> adv.budget, adv.likelihoods, adv.feature_names[-3:]
    (50, ('ml',), ('ml_minus_max', 'ml_rank', 'ml_possible'))
    >>> sp = spread.simulate(tree, spread.AdaptiveDiffusion(), 4, rng=1)
    >>> sc = adv.scores(adversaries.observe(sp))
    >>> sc.kind, len(sc)
    ('log-odds', 10)
    """

    def __init__(self, *, model, protocol, T, budget, train_seed, reveal_edges, likelihoods,
                 likelihood_params, fingerprint, training_rows,
                 feature_version: int = FEATURE_VERSION) -> None:
        self.model = model
        self.protocol = protocol
        self.T = T
        self.budget = budget
        self.train_seed = train_seed
        self.reveal_edges = reveal_edges
        self.likelihoods = tuple(likelihoods)
        self.likelihood_params = dict(likelihood_params)
        self.fingerprint = fingerprint
        self.training_rows = training_rows
        self.feature_version = _check_version(feature_version)
        #: per feature column, the bin thresholds the boosting was fitted on (version 2;
        #: None: scikit-learn binned the raw features itself, version 1)
        self.bin_edges: list | None = None
        self.held_out: HeldOut | None = None
        self.feature_names = BASE_FEATURES + tuple(
            f.format(e) for e in self.likelihoods for f in LIKELIHOOD_FEATURES
        )

    def __setstate__(self, state: dict) -> None:
        # a model pickled before feature version 2 read the version-1 features
        state.setdefault("feature_version", 1)
        state.setdefault("bin_edges", None)
        self.__dict__.update(state)

    def __repr__(self) -> str:
        ho = "" if self.held_out is None else (
            f", held_out={self.held_out.detection:.3f} [{self.held_out.low:.3f}, {self.held_out.high:.3f}]"
        )
        fv = "" if self.feature_version == FEATURE_VERSION else f", feature_version={self.feature_version}"
        return (f"LearnedAdversary({self.protocol!r}, T={self.T}, budget={self.budget}, "
                f"train_seed={self.train_seed}{fv}{ho})")

    def __getstate__(self) -> dict:
        # the compiled form of the trees and the scoring's feature cache are rebuilt
        # where the model is used, never pickled
        state = dict(self.__dict__)
        state.pop("_ensemble", None)
        state.pop("_scored_sets", None)
        return state

    def _log_odds(self, X: np.ndarray) -> np.ndarray:
        if self.model is None:  # every training snapshot had one node: nothing to rank
            return np.zeros(X.shape[0])
        if self.bin_edges is not None:
            X = _binned(X, self.bin_edges)
        return _decision(self.model, X, self)

    def _check(self, snapshot: Any) -> Snapshot:
        snapshot = _check_snapshot(snapshot)
        if snapshot.T != self.T:
            raise InvalidParameterError(
                f"snapshot.T must be the T this adversary was trained for ({self.T}); got "
                f"{snapshot.T} (train another with adversaries.train_adversary)"
            )
        fp = graph_fingerprint(snapshot.graph)
        if fp != self.fingerprint:
            raise InvalidParameterError(
                "snapshot.graph must be the graph this adversary was trained on (same CSR "
                f"arrays, or the same infinite-tree family); got {snapshot.graph!r}"
            )
        if self.reveal_edges and snapshot.infection_tree() is None:
            raise InvalidParameterError(
                "snapshot must reveal the infection tree: this adversary was trained with "
                "reveal_edges=True on a graph with cycles (use adversaries.observe(spread, "
                "reveal_edges=True)); got a snapshot without it"
            )
        return snapshot

    def scores(self, snapshot: Snapshot) -> Scores:
        """Log-odds that each infected node is the source (higher = more likely).

        Parameters
        ----------
        snapshot : Snapshot
            A snapshot of the graph and ``T`` the adversary was trained on (with the
            infection tree revealed when it was trained so on a graph with cycles).

        Returns
        -------
        Scores
            kind ``"log-odds"`` (not a likelihood: no posterior is implied).

        Raises
        ------
        InvalidParameterError
            A snapshot of another ``T`` or graph.
        """
        snapshot = self._check(snapshot)
        X = _snapshot_features(snapshot, self.likelihood_params, self.feature_version,
                               self._scoring_cache(snapshot.graph))
        return Scores(snapshot.nodes, self._log_odds(X), "log-odds")

    def _scoring_cache(self, graph: Any) -> _FeatureCache | None:
        """The base features of the infected sets this model has scored on ``graph``
        (:class:`_FeatureCache`, at most :data:`SCORING_CACHE_BYTES`; a new graph object
        starts a new one). A set that recurs -- random diffusion covering most of a small
        graph -- gets the bits computed the first time (the base features are a function
        of the set: :data:`FEATURE_VERSION`)."""
        if self.feature_version < 2 or isinstance(graph, LazyTree):
            return None
        cache = getattr(self, "_scored_sets", None)
        if cache is None or cache.graph is not graph:
            cache = _FeatureCache(graph, max_bytes=SCORING_CACHE_BYTES)
            self._scored_sets = cache
        return cache


def _ensemble_of(model: Any) -> _features.TreeEnsemble | None:
    """The fitted boosting's trees as one :class:`~anonspread.engine.features.TreeEnsemble`
    (its log-odds in one compiled call, the same bits as ``model.decision_function``:
    the baseline plus each tree's leaf value in the trees' order), or None where that
    does not hold (categorical splits, several trees per iteration): scikit-learn
    predicts then."""
    if getattr(model, "n_trees_per_iteration_", None) != 1:
        return None
    try:  # scikit-learn's fitted attributes as of 1.x; another layout: its own predict
        trees = [ps[0].nodes for ps in model._predictors]
        if not trees or any(t["is_categorical"].any() for t in trees):
            return None
        sizes = np.array([t.shape[0] for t in trees], np.int64)
        roots = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        nodes = np.concatenate(trees)
        shift = np.repeat(roots, sizes)
        base = np.asarray(model._baseline_prediction, np.float64).ravel()
        if base.shape != (1,):
            return None
        return _features.TreeEnsemble(
            feature=nodes["feature_idx"], threshold=nodes["num_threshold"],
            missing_left=nodes["missing_go_to_left"], is_leaf=nodes["is_leaf"],
            left=nodes["left"].astype(np.int64) + shift,
            right=nodes["right"].astype(np.int64) + shift,
            value=nodes["value"], roots=roots, baseline=float(base[0]),
            n_features=int(model.n_features_in_))
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, AnonspreadError):
        return None


def _decision(model: Any, X: np.ndarray, holder: Any = None) -> np.ndarray:
    """``model.decision_function(X)`` (float64), by the compiled trees where they apply
    (:func:`_ensemble_of`, kept on ``holder`` as ``_ensemble`` when one is given)."""
    ens = getattr(holder, "_ensemble", False) if holder is not None else False
    if ens is False:
        ens = _ensemble_of(model)
        if holder is not None:
            holder._ensemble = ens
    if ens is not None:
        return ens.predict(X)
    with _one_thread():
        return np.asarray(model.decision_function(X), np.float64)


_CONTROLLER: list = []


def _one_thread():
    """A context in which scikit-learn's OpenMP loops run on one thread.

    A model is fitted on tens of thousands of rows and scores one snapshot (tens of rows)
    at a time, inside a harness that already runs one process per core: OpenMP's
    fork-join per tree then costs far more than it saves (a 10x slow-down measured on 2
    shared cores).
    """
    if not _CONTROLLER:
        import sklearn.ensemble  # noqa: F401  (loads the OpenMP runtime the controller finds)

        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # threadpoolctl < 3: the slower one-off limiter
            from threadpoolctl import threadpool_limits

            return threadpool_limits(limits=1, user_api="openmp")
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="openmp")


def _check_protocol(protocol: Any) -> Protocol:
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(
            f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}"
        )
    if protocol.name not in COMPILED_PROTOCOLS:
        raise InvalidParameterError(
            f"protocol must be one with a compiled kernel ({', '.join(COMPILED_PROTOCOLS)}); "
            f"got {protocol!r}"
        )
    return protocol


def _likelihood_params(protocol: Protocol, g: Any, reveal_edges: bool) -> dict[str, dict]:
    out = {}
    for name in applicable_estimators(protocol, g, reveal_edges=reveal_edges, batch=True):
        spec = get_estimator(name)
        if spec.likelihood:
            out[name] = spec.params(protocol, g)
    return out


#: The rank columns whose mean orders the candidates (hard negatives are the best-ranked).
_RANK_COLUMNS = tuple(i for i, f in enumerate(BASE_FEATURES) if f.endswith("_rank"))


def _negatives(X: np.ndarray, s: int, k: int, gen: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the non-source nodes a training snapshot keeps, and their weights.

    Stratified: the ``k // 2`` best-ranked non-source nodes (mean of the rank features,
    likelihoods' included) are kept with weight 1 -- the candidates the arg-max must tell
    from the source -- and ``k - k // 2`` of the others, drawn uniformly, stand for all of
    them with weight ``others / drawn``. The weighted rows are an unbiased sample of the
    snapshot's non-source nodes.
    """
    n = X.shape[0]
    others = np.delete(np.arange(n), s)
    if others.shape[0] <= k:
        return others, np.ones(others.shape[0])
    cols = list(_RANK_COLUMNS) + list(range(len(BASE_FEATURES) + 1, X.shape[1], 3))
    score = X[others][:, cols].mean(axis=1)
    order = np.argsort(score, kind="stable")
    hard = others[order[: k // 2]]
    rest = others[order[k // 2:]]
    drawn = np.sort(gen.choice(rest, k - k // 2, replace=False))
    keep = np.concatenate([hard, drawn])
    w = np.concatenate([np.ones(hard.shape[0]), np.full(drawn.shape[0], rest.shape[0] / drawn.shape[0])])
    return keep, w


#: Spreads of the pilot that measures snapshot sizes before training (fixed seed: the pilot
#: only sizes the request; the training streams come from ``train_seed``).
PILOT_SPREADS = 16


def _check_training_size(g, protocol, T, spreads, held_out, negatives,
                         feature_version=FEATURE_VERSION) -> None:
    check_run_size(g, protocol, T)  # one spread fits; the total is checked below
    # a snapshot's features cost its nodes (trees) or, on a graph with cycles, its nodes and
    # subgraph edges times ceil(n / 64) x (2 T + 1) for the distances (64 BFS at once; every
    # infected node is within T hops of the source, so at most 2 T + 1 levels), or times n
    # (version 1's rumour columns: one BFS per node); the rows kept are the source and up
    # to `negatives` others
    per_run = run_work(g, protocol, T) - T - 1
    if getattr(g, "is_infinite", False):
        per_run /= max(float(sum(d * p for d, p in g.degrees.items())), 1.0)  # touched -> infected
    n_exp = max(per_run, 1.0)
    check_size("spreads", spreads, work=(spreads + held_out) * run_work(g, protocol, T),
               nbytes=8.0 * spreads * min(n_exp, negatives + 1) * (len(FEATURES) + 3),
               what="the training spreads")
    if not getattr(g, "is_infinite", False):
        # run_work bounds the reach by the graph where the protocol's growth has no closed
        # form (a cap on infections per step); a pilot measures it instead: twice the
        # largest of PILOT_SPREADS snapshots
        from anonspread.spread.simulate import simulate_many

        pilot = simulate_many(g, protocol, T, PILOT_SPREADS, rng=np.random.default_rng(PILOT_SPREADS))
        n_exp = min(n_exp, 2.0 * float(pilot.sizes[:, T].max()))
    cyclic = not graph_is_forest(g)
    degree = 2.0 * g.number_of_edges() / max(g.number_of_nodes(), 1) if cyclic else 1.0
    if not cyclic:
        feature_work = n_exp
    elif feature_version == 1:
        feature_work = n_exp * n_exp * degree
    else:
        feature_work = n_exp * (1.0 + degree) * (1.0 + math.ceil(n_exp / 64.0) * (2 * T + 1))
    check_size("spreads", spreads, work=(spreads + held_out) * (run_work(g, protocol, T) + feature_work),
               nbytes=8.0 * spreads * min(n_exp, negatives + 1) * (len(FEATURES) + 3),
               what="the training spreads and their features")


def train_adversary(
    graph: Any,
    protocol: Protocol,
    T: int,
    *,
    spreads: int = DEFAULT_SPREADS,
    held_out: int = DEFAULT_HELD_OUT,
    train_seed: int = 0,
    reveal_edges: bool = False,
    negatives: int = DEFAULT_NEGATIVES,
    max_iter: int = 150,
    level: float = 0.95,
    feature_version: int = FEATURE_VERSION,
) -> LearnedAdversary:
    """Fit a learned source estimator on simulated spreads of ``protocol`` on ``graph``.

    Each of ``spreads`` spreads (``spread.simulate``: a uniform source on a finite graph;
    node 0 of a fresh realisation of the family on an infinite tree) is observed
    (``adversaries.observe(spread, reveal_edges=reveal_edges)``); its source and up to
    ``negatives`` other infected nodes (half the best-ranked by the features' estimators,
    half drawn uniformly from the rest and weighted to stand for it) become rows of
    :func:`snapshot_features`, labelled source or not. A
    :class:`sklearn.ensemble.HistGradientBoostingClassifier` (``max_iter`` trees of at
    most 15 leaves, learning rate 0.1, L2 regularisation 1, no early stopping) is fitted to them, and its
    log-odds score every node. ``held_out`` further spreads measure the detection
    probability (:class:`HeldOut`).

    Randomness: ``numpy.random.SeedSequence(train_seed)`` spawns three streams (training
    spreads, held-out spreads, negatives and boosting), so the result depends on
    ``train_seed`` only.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph (an infinite tree stands for its family).
    protocol : Protocol
        A protocol with a compiled kernel (adaptive diffusion, line, tree,
        tree-pseudocode, random diffusion, flooding).
    T : int >= 0
        The snapshot time.
    spreads : int >= 10
        Training budget: the number of training spreads.
    held_out : int >= 1
        Held-out spreads for the reported detection.
    train_seed : int >= 0
        The seed of every random draw of the training.
    reveal_edges : bool
        Whether the adversary sees the infection tree (§2.4.2); on a graph with cycles
        this adds the near-ML's scores (adaptive diffusion, Protocol 2) to the features.
    negatives : int >= 1
        Non-source nodes kept per training snapshot.
    max_iter : int >= 1
        Boosting iterations.
    level : float in (0, 1)
        Confidence level of the held-out interval.
    feature_version : int
        The definition of the features (:data:`FEATURE_VERSION`, the default; 1 rebuilds
        a model of before issue 31's version 2, for comparisons).

    Returns
    -------
    LearnedAdversary

    Raises
    ------
    InvalidParameterError
        Bad parameters, or a request too large to run (naming the size it would need).

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> adv = adversaries.train_adversary(spread.graphs.regular_tree(3), spread.Flooding(), 2,
    ...                                   spreads=50, held_out=50)
    >>> adv.held_out.detection  # flooding's ball has one centre: the source
    1.0
    """
    g = as_contact_graph(graph)
    protocol = _check_protocol(protocol)
    T = check_int(T, "T", low=0)
    spreads = check_int(spreads, "spreads", low=10)
    held_out = check_int(held_out, "held_out", low=1)
    train_seed = check_int(train_seed, "train_seed", low=0)
    negatives = check_int(negatives, "negatives", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    level = check_real(level, "level", low=0.0, high=1.0)
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"level must be in (0, 1); got {level!r}")
    if not isinstance(reveal_edges, (bool, np.bool_)):
        raise InvalidTypeError(f"reveal_edges must be True or False; got {reveal_edges!r}")
    feature_version = _check_version(feature_version)
    reveal = bool(reveal_edges) and not graph_is_forest(g)
    _check_training_size(g, protocol, T, spreads, held_out, negatives, feature_version)
    likelihoods = _likelihood_params(protocol, g, reveal)

    return _train(g, protocol, T, spreads, held_out, train_seed, reveal, likelihoods, negatives,
                  max_iter, level, feature_version=feature_version)


#: Bins of a feature column for the boosting (scikit-learn's largest ``max_bins``; the
#: boosting keeps one more for missing values).
_MAX_BINS = 255


def _bin_edges(X: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    """Per column of ``X``, the thresholds of at most ``_MAX_BINS`` bins: the midpoints
    of its distinct values when there are at most that many, else its weighted quantiles
    at ``1/255 .. 254/255`` (``w`` the rows' weights; NaN ignored).

    What :class:`~sklearn.ensemble.HistGradientBoostingClassifier` computes itself when
    fitted with sample weights (its weighted percentiles, at about a second a fit for
    25,000 rows: one sort per threshold), with one sort per column; the boosting then
    sees the bin numbers (:func:`_binned`), fewer than 256 distinct values a column, which
    it keeps as they are.
    """
    edges = []
    for c in range(X.shape[1]):
        col = X[:, c]
        ok = ~np.isnan(col)
        v, ww = col[ok], w[ok]
        order = np.argsort(v, kind="stable")
        v, ww = v[order], ww[order]
        if v.shape[0] == 0:
            edges.append(np.empty(0))
            continue
        distinct = v[np.concatenate([[True], v[1:] != v[:-1]])]
        if distinct.shape[0] <= _MAX_BINS:
            edges.append((distinct[:-1] + distinct[1:]) / 2.0)
        else:
            cum = np.cumsum(ww)
            at = np.searchsorted(cum, cum[-1] * np.arange(1, _MAX_BINS) / _MAX_BINS, side="left")
            edges.append(np.unique(v[np.minimum(at, v.shape[0] - 1)]))
    return edges


def _binned(X: np.ndarray, edges: list[np.ndarray]) -> np.ndarray:
    """``X`` as bin numbers of :func:`_bin_edges`' thresholds: bin i holds the values in
    ``(edges[i - 1], edges[i]]``; NaN stays NaN (missing)."""
    out = np.empty(X.shape, np.float64)
    for c, e in enumerate(edges):
        col = X[:, c]
        out[:, c] = np.searchsorted(e, col, side="left")
        out[np.isnan(col), c] = np.nan
    return out


def _fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, max_iter: int,
         gen_model: np.random.Generator, feature_version: int) -> tuple[Any, list | None]:
    """The fitted classifier and its bin thresholds (None: version 1, binned by
    scikit-learn from the raw features)."""
    model = _new_model(max_iter, gen_model)
    edges = _bin_edges(X, w) if feature_version >= 2 else None
    with _one_thread():
        model.fit(X if edges is None else _binned(X, edges), y, sample_weight=w)
    return model, edges


def _new_model(max_iter: int, gen_model: np.random.Generator) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        learning_rate=0.1, max_iter=max_iter, max_leaf_nodes=15, min_samples_leaf=20,
        l2_regularization=1.0,
        early_stopping=False, random_state=int(gen_model.integers(0, 2**31 - 1)),
    )


def _train(g: Any, protocol: Protocol, T: int, spreads: int, held_out: int, train_seed: int,
           reveal: bool, likelihoods: dict, negatives: int, max_iter: int, level: float,
           timing: dict | None = None, *, feature_version: int = FEATURE_VERSION
           ) -> LearnedAdversary:
    """:func:`train_adversary` after its checks; ``timing`` receives the seconds of its
    phases (``rows``: the training spreads and features, ``fit``, ``held_out``) and the
    training rows (``X``, ``y``, ``w``) for :func:`estimate_training_seconds`."""
    t0, c0 = time.perf_counter(), time.process_time()
    ss_train, ss_held, ss_model = np.random.SeedSequence(train_seed).spawn(3)
    gen_train, gen_model = np.random.default_rng(ss_train), np.random.default_rng(ss_model)
    rows, labels, weights = [], [], []
    cache = None
    if feature_version >= 2 and not isinstance(g, LazyTree):
        cache = _FeatureCache(g)
    elif timing is not None:  # counts and times the features, keeps nothing
        cache = _FeatureCache(None, max_bytes=0)
    for _ in range(spreads):
        sp = simulate(_training_graph(g, gen_train), protocol, T, rng=gen_train)
        snap, s = _shuffled(sp, reveal, gen_model)
        X = _snapshot_features(snap, likelihoods, feature_version, cache)
        keep, w_neg = _negatives(X, s, negatives, gen_model)
        rows.append(X[np.concatenate([[s], keep])])
        labels.append(np.concatenate([[1], np.zeros(keep.shape[0], np.int8)]))
        weights.append(np.concatenate([[1.0], w_neg]))
    X, y, w = np.concatenate(rows), np.concatenate(labels), np.concatenate(weights)
    t1, c1 = time.perf_counter(), time.process_time()
    model, edges = None, None
    if (y == 0).any():
        model, edges = _fit(X, y, w, max_iter, gen_model, feature_version)
    t2, c2 = time.perf_counter(), time.process_time()
    adv = LearnedAdversary(
        model=model, protocol=protocol, T=T, budget=spreads, train_seed=train_seed,
        reveal_edges=reveal, likelihoods=tuple(likelihoods), likelihood_params=likelihoods,
        fingerprint=graph_fingerprint(g), training_rows=int(X.shape[0]),
        feature_version=feature_version,
    )
    adv.bin_edges = edges
    adv.held_out = _evaluate(adv, g, held_out, np.random.default_rng(ss_held), level, cache,
                             timing)
    if timing is not None:
        timing.update(rows=t1 - t0, fit=t2 - t1, held_out=time.perf_counter() - t2,
                      rows_cpu=c1 - c0, fit_cpu=c2 - c1, held_out_cpu=time.process_time() - c2,
                      X=X, y=y, w=w, features=cache.seconds, features_cpu=cache.cpu_seconds,
                      feature_sets=cache.computed)
    return adv


def _evaluate(adv: LearnedAdversary, g: Any, spreads: int, gen: np.random.Generator,
              level: float, cache: _FeatureCache | None = None,
              timing: dict | None = None) -> HeldOut:
    """Detection of ``adv`` and of its features' estimators on ``spreads`` fresh spreads.

    With a ``cache`` and no likelihood columns, every feature is a function of the infected
    set: a set that recurs has the same rows and log-odds, predicted once (its rows in the
    order of the graph's indices, the source's row found there).
    """
    names = ("jordan", "rumor" if adv.feature_version == 1 else "rumor-first-parent",
             *adv.likelihoods)
    base = np.empty((len(names), spreads))
    feats, src = [], []
    by_set = cache is not None and cache.graph is not None and not adv.likelihoods
    which, distinct = [], {}
    for i in range(spreads):
        sp = simulate(_training_graph(g, gen), adv.protocol, adv.T, rng=gen)
        snap, s = _shuffled(sp, adv.reveal_edges, gen)
        X = _snapshot_features(snap, adv.likelihood_params, adv.feature_version, cache)
        if by_set:
            order = np.argsort(snap.index, kind="stable")
            key = snap.index[order].tobytes()
            if key not in distinct:
                distinct[key] = len(feats)
                feats.append(X[order])
            which.append(distinct[key])
            src.append(int(np.searchsorted(snap.index[order], snap.index[s])))
        else:
            which.append(len(feats))
            feats.append(X)
            src.append(s)
        # jordan's score is minus the eccentricity
        base[0, i] = _top_probability(-X[:, BASE_FEATURES.index("ecc_minus_min")], s)
        base[1, i] = _top_probability(X[:, BASE_FEATURES.index("rumor_minus_max")], s)
        for k in range(len(adv.likelihoods)):
            col = X[:, len(BASE_FEATURES) + 3 * k]
            base[2 + k, i] = _top_probability(np.where(np.isnan(col), -np.inf, col), s)
    t0, c0 = time.perf_counter(), time.process_time()
    log_odds = adv._log_odds(np.concatenate(feats))  # one prediction call for all of them
    if timing is not None:
        timing.update(predict=time.perf_counter() - t0, predict_cpu=time.process_time() - c0,
                      predict_rows=int(log_odds.shape[0]), held_X=feats)
    ends = np.cumsum([X.shape[0] for X in feats])
    starts = ends - [X.shape[0] for X in feats]
    det = np.array([_top_probability(log_odds[starts[k]:ends[k]], s) for k, s in zip(which, src)])
    p = float(det.mean())
    low, high = _wilson(p, spreads, level)
    return HeldOut(spreads=spreads, detection=p, low=low, high=high, level=level,
                   baselines={n: float(b.mean()) for n, b in zip(names, base)})


# ------------------------------------------------------------------ the registered estimator

_CACHE: OrderedDict = OrderedDict()
_LOCK = threading.RLock()
_STATS = {"hits": 0, "misses": 0}
#: Models installed by :meth:`TrainedModels.install` (a run's, for its duration): used
#: before the LRU, never evicted by it.
_PINNED: dict = {}


def cache_info() -> dict[str, int]:
    """The registered estimator's model cache: ``hits``, ``misses`` (trainings), ``size``,
    ``maxsize`` (of the LRU) and ``pinned`` (models installed by :meth:`TrainedModels.install`).

    Examples
    --------
    >>> from anonspread.adversaries import learned
    >>> sorted(learned.cache_info())
    ['hits', 'maxsize', 'misses', 'pinned', 'size']
    """
    with _LOCK:
        return {**_STATS, "size": len(_CACHE), "maxsize": CACHE_SIZE, "pinned": len(_PINNED)}


def cache_clear() -> None:
    """Forget every cached and installed model and reset the counts of :func:`cache_info`."""
    with _LOCK:
        _CACHE.clear()
        _PINNED.clear()
        _STATS.update(hits=0, misses=0)


def model_key(graph: Any, protocol: Protocol, T: int, *, spreads: int = DEFAULT_SPREADS,
              held_out: int = DEFAULT_HELD_OUT, train_seed: int = 0,
              reveal_edges: bool = False) -> tuple:
    """The key a trained model is cached under: (:func:`graph_fingerprint`, protocol, T,
    spreads, held_out, train_seed, whether the infection tree is revealed on a graph with
    cycles, :data:`FEATURE_VERSION`).

    The feature version is part of the key so that a model trained on another definition
    of the features (a bundle of :class:`TrainedModels` built by an older version) is
    never installed or reused under a newer one's key.

    Parameters
    ----------
    graph, protocol, T, spreads, held_out, train_seed, reveal_edges
        As :func:`cached_adversary` takes them.

    Returns
    -------
    tuple

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.adversaries import learned
    >>> key = learned.model_key(spread.graphs.regular_tree(3), spread.Flooding(), 2)
    >>> key[0], key[2:]
    (('tree', 'regular', ((3, 1.0),)), (2, 1000, 200, 0, False, 2))
    """
    g = as_contact_graph(graph)
    reveal = bool(reveal_edges) and not graph_is_forest(g)
    return (graph_fingerprint(g), protocol, int(T), int(spreads), int(held_out), int(train_seed),
            reveal, FEATURE_VERSION)


def cached_adversary(graph: Any, protocol: Protocol, T: int, *, spreads: int = DEFAULT_SPREADS,
                     held_out: int = DEFAULT_HELD_OUT, train_seed: int = 0,
                     reveal_edges: bool = False) -> LearnedAdversary:
    """:func:`train_adversary` through the process's installed models and bounded LRU.

    Keyed by :func:`model_key`; a model installed by :meth:`TrainedModels.install` is used
    first (a hit); else the LRU of at most :data:`CACHE_SIZE` models; else it is trained
    (a miss).

    Parameters
    ----------
    graph, protocol, T, spreads, held_out, train_seed, reveal_edges
        As :func:`train_adversary` takes them.

    Returns
    -------
    LearnedAdversary
    """
    g = as_contact_graph(graph)
    reveal = bool(reveal_edges) and not graph_is_forest(g)
    key = model_key(g, protocol, T, spreads=spreads, held_out=held_out, train_seed=train_seed,
                    reveal_edges=reveal)
    with _LOCK:
        adv = _PINNED.get(key)
        if adv is not None:
            _STATS["hits"] += 1
            return adv
        adv = _CACHE.get(key)
        if adv is not None:
            _CACHE.move_to_end(key)
            _STATS["hits"] += 1
            return adv
        adv = train_adversary(g, protocol, T, spreads=spreads, held_out=held_out,
                              train_seed=train_seed, reveal_edges=reveal,
                              feature_version=key[-1])
        _STATS["misses"] += 1
        _CACHE[key] = adv
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
        return adv


class TrainedModels:
    """Trained models by :func:`model_key`, to install in a worker before it scores.

    A run trains each key once (:func:`cached_adversary`, in one process) and ships this
    bundle to every worker once; :meth:`install` makes :func:`learned_estimator` use the
    models there instead of training again. A model depends only on its key (the
    training draws from ``train_seed`` alone), so the scores are those the worker would
    have computed by training itself: results do not depend on where the training ran.

    Parameters
    ----------
    models : mapping of tuple to LearnedAdversary
        Keyed by :func:`model_key`.

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> from anonspread.adversaries import learned
    >>> tree, proto = spread.graphs.regular_tree(3), spread.Flooding()
    >>> adv = adversaries.train_adversary(tree, proto, 2, spreads=20, held_out=5)
    >>> bundle = learned.TrainedModels({learned.model_key(tree, proto, 2): adv})
    >>> with bundle.installed():
    ...     learned.cached_adversary(tree, proto, 2) is adv
    True
    >>> learned.cache_info()["pinned"]
    0
    """

    def __init__(self, models: Any) -> None:
        self.models = dict(models)

    def __len__(self) -> int:
        return len(self.models)

    def __repr__(self) -> str:
        return f"TrainedModels({len(self.models)} models)"

    def install(self) -> None:
        """Use these models in this process (before the LRU; never evicted). Cheap and
        idempotent: installing the same bundle twice changes nothing."""
        with _LOCK:
            _PINNED.update(self.models)

    def uninstall(self) -> None:
        """Stop using these models here (models installed by others stay)."""
        with _LOCK:
            for key, adv in self.models.items():
                if _PINNED.get(key) is adv:
                    del _PINNED[key]

    @contextlib.contextmanager
    def installed(self) -> Any:
        """Install the models for the duration of a ``with`` block."""
        self.install()
        try:
            yield self
        finally:
            self.uninstall()


#: Training spreads of the pilot :func:`estimate_training_seconds` times.
PILOT_TRAINING_SPREADS = 12
#: Held-out spreads of that pilot.
PILOT_TRAINING_HELD_OUT = 4


def _replayed_sets(g: Any, protocol: Protocol, T: int, spreads: int, held_out: int,
                   train_seed: int, reveal: bool, likelihoods: bool) -> tuple[int, float]:
    """How many infected sets :func:`_train` computes base features for (its cache's
    misses) and how many held-out rows it predicts, by replaying its spreads: the training
    spreads draw from their own stream only, the held-out ones from theirs, shuffles
    included (:func:`_evaluate`), so the same sets come out in the same order."""
    ss_train, ss_held, _ = np.random.SeedSequence(train_seed).spawn(3)
    gen_train, gen_held = np.random.default_rng(ss_train), np.random.default_rng(ss_held)
    cache = _FeatureCache(g)
    per_row = 8.0 * len(BASE_FEATURES)
    computed, rows, seen = 0, 0, set()

    def visit(index: np.ndarray) -> bytes:
        nonlocal computed
        key = np.sort(index).tobytes()
        if key not in cache.sets:
            computed += 1
            if cache.nbytes + per_row * index.shape[0] <= cache.max_bytes:
                cache.sets[key] = None
                cache.nbytes += per_row * index.shape[0]
        return key

    for index in infected_sets(g, protocol, T, spreads, rng=gen_train):
        visit(index.astype(np.int64, copy=False))
    for _ in range(held_out):
        snap, _s = _shuffled(simulate(g, protocol, T, rng=gen_held), reveal, gen_held)
        key = visit(snap.index)
        if likelihoods or key not in seen:
            rows += snap.n
        seen.add(key)
    return computed, float(rows)


def estimate_training_seconds(graph: Any, protocol: Protocol, T: int, *,
                              spreads: int = DEFAULT_SPREADS, held_out: int = DEFAULT_HELD_OUT,
                              train_seed: int = 0, reveal_edges: bool = False,
                              fit_timings: dict | None = None
                              ) -> tuple[float, float, LearnedAdversary]:
    """A pilot estimate of :func:`train_adversary`'s seconds, and the pilot's model.

    Trains on :data:`PILOT_TRAINING_SPREADS` spreads (and :data:`PILOT_TRAINING_HELD_OUT`
    held out), timing each phase: a training's time is its spreads' simulation, shuffles
    and likelihood columns, scaled by ``spreads + held_out`` over the pilot's; its base
    features (the bulk when snapshots are large) per infected set computed, times the sets
    the training computes (on a finite graph counted exactly by replaying the training's
    spreads, which costs their simulation: a set that recurs is computed once); the
    boosting fit, timed on the pilot's rows repeated to the full budget's count (their
    binning once, the boosting at 5 and 20 iterations: its fixed cost plus 150 times the
    cost of an iteration); and the held-out prediction, those 20 trees timed on the
    pilot's held-out rows, per tree and row, times 150 trees and the rows the training
    predicts.
    The pilot model is weak (a few spreads) but costs what the full one costs to score
    a snapshot (the same features and trees), so a pilot of the scoring may use it.

    Parameters
    ----------
    graph, protocol, T, spreads, held_out, train_seed, reveal_edges
        As :func:`train_adversary` takes them (the training whose time is estimated).
    fit_timings : dict or None
        A dict shared by the estimates of several trainings (a sweep's pilot of its
        models): the boosting fit and the held-out prediction are timed once per shape
        of the full fit's rows (rows x features) and reused by the estimates of the same
        shape, whose fits do the same number of histogram passes over as many rows (at
        most a few distinct shapes instead of two timed fits per model); None: timed
        here.

    Returns
    -------
    (float, float, LearnedAdversary)
        Estimated elapsed and CPU seconds of the full training (measured on this machine
        as loaded as it is), and the pilot's model.

    Examples
    --------
    >>> from anonspread import spread
    >>> from anonspread.adversaries import learned
    >>> secs, cpu, adv = learned.estimate_training_seconds(spread.graphs.regular_tree(3),
    ...                                                     spread.Flooding(), 2)
    >>> secs > 0, cpu > 0, adv.budget
    (True, True, 12)
    """
    spreads = check_int(spreads, "spreads", low=10)
    held_out = check_int(held_out, "held_out", low=1)
    g = as_contact_graph(graph)
    protocol = _check_protocol(protocol)
    T = check_int(T, "T", low=0)
    # what the full training would refuse, the estimate refuses too
    _check_training_size(g, protocol, T, spreads, held_out, DEFAULT_NEGATIVES)
    reveal = bool(reveal_edges) and not graph_is_forest(g)
    train_seed = check_int(train_seed, "train_seed", low=0)
    if fit_timings is not None and not isinstance(fit_timings, dict):
        raise InvalidTypeError(f"fit_timings must be a dict or None; got {fit_timings!r:.60}")
    with _one_thread():  # loads scikit-learn and the OpenMP controller outside the timing
        pass
    likelihoods = _likelihood_params(protocol, g, reveal)
    timing: dict = {}
    adv = _train(g, protocol, T, PILOT_TRAINING_SPREADS, PILOT_TRAINING_HELD_OUT, train_seed,
                 reveal, likelihoods, DEFAULT_NEGATIVES, 150, 0.95, timing)
    n_pilot = PILOT_TRAINING_SPREADS + PILOT_TRAINING_HELD_OUT
    # per spread: simulation, shuffle, likelihood columns, negatives, baselines
    rest = (timing["rows"] + timing["held_out"] - timing["features"] - timing["predict"]) / n_pilot
    rest_cpu = (timing["rows_cpu"] + timing["held_out_cpu"] - timing["features_cpu"]
                - timing["predict_cpu"]) / n_pilot
    # per infected set whose base features are computed
    sets = max(timing["feature_sets"], 1)
    feat, feat_cpu = timing["features"] / sets, timing["features_cpu"] / sets
    held_rows = timing["predict_rows"] / PILOT_TRAINING_HELD_OUT * held_out
    computed = spreads + held_out
    if not isinstance(g, LazyTree):  # the training's own spreads, replayed: their sets recur
        computed, held_rows = _replayed_sets(g, protocol, T, spreads, held_out, train_seed,
                                             reveal, bool(likelihoods))
    wall = rest * (spreads + held_out) + feat * computed
    cpu = rest_cpu * (spreads + held_out) + feat_cpu * computed
    X, y, w = timing["X"], timing["y"], timing["w"]
    if (y == 0).any():
        # the full fit and the held-out prediction (per tree and row, times 150 trees and
        # the rows the training predicts), timed by _time_fit once per shape
        reps = max(1, round(spreads / PILOT_TRAINING_SPREADS))
        shape = (X.shape[0] * reps, X.shape[1])
        timed = None if fit_timings is None else fit_timings.get(shape)
        if timed is None:
            timed = _time_fit(X, y, w, reps, np.concatenate(timing["held_X"]))
            if fit_timings is not None:
                fit_timings[shape] = timed
        (fit_wall, fit_cpu), (row_wall, row_cpu) = timed
        wall += fit_wall + row_wall * 150.0 * held_rows
        cpu += fit_cpu + row_cpu * 150.0 * held_rows
    return wall, cpu, adv


def _time_fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, reps: int, held: np.ndarray
              ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The full fit's seconds (elapsed, CPU) and the held-out prediction's per tree and
    row, timed for :func:`estimate_training_seconds`: the pilot's rows repeated ``reps``
    times (the full budget's count); their binning once; the boosting at 5 and at 20
    iterations, which separates its fixed cost from the cost of an iteration (each costs
    about the same), extrapolated to 150; the 20 trees timed on the pilot's held-out
    rows ``held``."""
    Xr, yr, wr = np.tile(X, (reps, 1)), np.tile(y, reps), np.tile(w, reps)
    t0, c0 = time.perf_counter(), time.process_time()
    edges = _bin_edges(Xr, wr)
    Xr = _binned(Xr, edges)
    fit = [time.perf_counter() - t0, time.process_time() - c0]
    fits = []
    for iters in (5, 20):
        model = _new_model(iters, np.random.default_rng(0))
        t0, c0 = time.perf_counter(), time.process_time()
        with _one_thread():
            model.fit(Xr, yr, sample_weight=wr)
        fits.append((time.perf_counter() - t0, time.process_time() - c0))
    for k in (0, 1):
        per_iter = max(fits[1][k] - fits[0][k], 0.0) / 15.0
        fit[k] += max(fits[0][k] - 5.0 * per_iter, 0.0) + 150.0 * per_iter
    Xh = _binned(held, edges)
    Xh = np.tile(Xh, (max(1, 20000 // max(Xh.shape[0], 1)), 1))
    t0, c0 = time.perf_counter(), time.process_time()
    with _one_thread():
        _decision(model, Xh)
    per_row = ((time.perf_counter() - t0) / (20.0 * Xh.shape[0]),
               (time.process_time() - c0) / (20.0 * Xh.shape[0]))
    return (fit[0], fit[1]), per_row


@register_estimator(
    "learned",
    protocols=COMPILED_PROTOCOLS,
    params=lambda protocol, graph: {"protocol": protocol},
)
def learned_estimator(snapshot: Snapshot, protocol: Protocol, *, spreads: int = DEFAULT_SPREADS,
                      held_out: int = DEFAULT_HELD_OUT, train_seed: int = 0) -> Scores:
    """Learned adversary: gradient-boosted log-odds over node features, trained on simulated spreads.

    Trains :func:`train_adversary` once per process for the snapshot's graph, ``protocol``,
    ``snapshot.T``, ``spreads``, ``train_seed`` and observation (the infection tree
    revealed or not), caches the model (:func:`cache_info`), and scores the snapshot with
    it. The first call for a new key costs the training (about a second at the default
    budget on snapshots of tens of nodes); later ones cost the features and one
    prediction.

    Parameters
    ----------
    snapshot : Snapshot
        The observation.
    protocol : Protocol
        The protocol that spread (a compiled one).
    spreads : int >= 10
        Training budget.
    held_out : int >= 1
        Held-out spreads of the model's reported detection (``.held_out``).
    train_seed : int >= 0
        The training's seed (independent of any evaluation generator).

    Returns
    -------
    Scores
        kind ``"log-odds"``.

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> sp = spread.simulate(tree, spread.Flooding(), 2, rng=1)
    >>> sc = adversaries.learned_estimator(adversaries.observe(sp), spread.Flooding(), spreads=50,
    ...                                    held_out=20)
    >>> adversaries.pick(sc) == sp.source
    True
    """
    snapshot = _check_snapshot(snapshot)
    protocol = _check_protocol(protocol)
    spreads = check_int(spreads, "spreads", low=10)
    held_out = check_int(held_out, "held_out", low=1)
    train_seed = check_int(train_seed, "train_seed", low=0)
    adv = cached_adversary(snapshot.graph, protocol, snapshot.T, spreads=spreads,
                           held_out=held_out, train_seed=train_seed,
                           reveal_edges=snapshot.infection_tree() is not None)
    return adv.scores(snapshot)
