"""The Monte Carlo path: simulate + estimate + score in compiled loops.

:func:`simulate_and_score` draws sources and tree seeds exactly as
:func:`spread.simulate_many` does, runs the protocol's kernel on the flat store, then
runs the estimator kernels of :mod:`anonspread.engine.scoring`, :mod:`~anonspread.engine.rumor`
and :mod:`~anonspread.engine.literature` on the infected nodes in
infection order, their infection-tree parents and contact degrees, so no Python object
is created per node or per trial. The same ``rng`` gives the same spreads as
``spread.simulate_many``; ties are broken with a child stream spawned from it (which
does not advance its state).

Trials run in chunks of two phases, both compiled ahead of time:
``engine.spreading.simulate_chunk`` runs trials and copies each snapshot into flat
buffers, then :func:`anonspread.engine.fused.score_chunk` (one call for every estimator
asked for) scores them. Scoring draws nothing from ``rng``, so chunking leaves every
result unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonspread.adversaries._regular_ml import regular_ml_trials
from anonspread.adversaries._tables import ad_tables
from anonspread.adversaries.observation import graph_is_forest
from anonspread.adversaries.registry import check_applicable
from anonspread.engine.fused import CHUNK_NODES, score_chunk
from anonspread.engine.spreading import ADAPTIVE_DIFFUSION, KERNEL_CODES, run_batch, simulate_chunk
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import LazyTree, as_contact_graph
from anonspread.spread.limits import check_run_size
from anonspread.spread.protocols import Protocol
from anonspread.spread.reach import parse_reach, reach_targets, size_check_steps
from anonspread.spread.simulate import batch_setup
from anonspread.validation import check_int, check_rng

__all__ = ["BatchScores", "EstimatorTrials", "simulate_and_score"]

#: Batch codes of the estimators with a compiled kernel.
CODES = {"ml": 0, "ml-tree": 0, "jordan": 1, "rumor": 2, "netsleuth": 3, "lisn": 4}


def _centre_known(g, protocol: Protocol, params: np.ndarray, T: int) -> bool:
    """True if every snapshot is the complete ball of radius T/2 around the final virtual
    source, and the only configuration consistent with it.

    Adaptive diffusion (or Protocol 2, which runs its kernels) at even ``T >= 2`` on an
    infinite tree whose degree law gives every node at least two neighbours, without a
    cap on infections and with every infected node infecting (``params`` as
    ``AdaptiveDiffusion.kernel_params``): the token never meets a dead end, the infected
    set is the ball around it (thesis §2.3), and no other centre fits (see
    :func:`anonspread.engine.scoring.ml_ball`).
    """
    if not isinstance(g, LazyTree) or T < 2 or T % 2 == 1:
        return False
    if protocol.kernel_code != ADAPTIVE_DIFFUSION or params[0] >= 0 or int(params[2]) & 2:
        return False
    return min(d for d, p in g.degrees.items() if p > 0) >= 2


def _regular_tree_batch(g, protocol, T, sources, seeds, store, gen, log_b, tie_u):
    """The trials of :func:`simulate_and_score` with ML estimators only on the d-regular
    tree (``regular_symmetry=True``): ``spread.simulate_many``'s compiled loop counts each ball
    and reports the token's hop count H (the same random numbers, the same spreads), then
    ``adversaries._regular_ml`` scores every trial from (d, T, H). Returns N_T per trial
    and (detected, detection_probability, hops, rank) per estimator row of ``tie_u``."""
    trials = sources.shape[0]
    sizes = np.empty((trials, T + 1), np.int64)
    vs_hops = np.empty(trials, np.int32)
    vs_node = np.empty(trials, np.int32)
    params = protocol.summary_params(g, T)
    run_batch(protocol.kernel_code, store, True, sources, seeds, T, params, gen, sizes, vs_hops,
              vs_node)
    d = g.regular_degree()
    return sizes[:, T].copy(), [regular_ml_trials(d, T, log_b, vs_hops, u) for u in tie_u]


def _short(obj: Any, limit: int = 60) -> str:
    """``repr(obj)`` when it is one line of at most ``limit`` characters, else its type's name."""
    text = repr(obj)
    return text if len(text) <= limit and "\n" not in text else f"{type(obj).__name__}(...)"


@dataclass(frozen=True)
class EstimatorTrials:
    """Per-trial outcomes of one estimator.

    :class:`BatchScores` holds one per estimator (``scores[name]``).

    Parameters
    ----------
    detected : numpy.ndarray of int8
        1 if the estimate (arg-max, ties broken uniformly at random) is the source.
    detection_probability : numpy.ndarray of float64
        ``P(estimate = source | snapshot)``: ``1/|ties|`` if the source is among the
        maximisers, else 0 (same mean as ``detected``, less variance).
    hops : numpy.ndarray of int64
        Hop distance from the estimate to the source in the contact graph.
    rank : numpy.ndarray of float64
        Rank of the source (1 = best; ties share their mean rank).
    tree_hops : numpy.ndarray of int64, optional
        Hop distance from the estimate to the source over the infection tree (the
        thesis's Fig. 2.9 measure; equal to ``hops`` on trees, never smaller).

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread import adversaries
    >>> t = adversaries.EstimatorTrials(
    ...     detected=np.array([1, 0, 0, 1], np.int8),
    ...     detection_probability=np.array([1.0, 0.0, 0.5, 0.5]),
    ...     hops=np.array([0, 2, 1, 0]), rank=np.array([1.0, 3.0, 1.5, 1.5]))
    >>> [round(x, 4) for x in t.mean()]  # mean and standard error
    [0.5, 0.2887]
    >>> t.mean("hops")[0]
    0.75
    """

    detected: np.ndarray
    detection_probability: np.ndarray
    hops: np.ndarray
    rank: np.ndarray
    tree_hops: np.ndarray | None = None

    def mean(self, name: str = "detected") -> tuple[float, float]:
        """Mean of a per-trial array and its standard error.

        Parameters
        ----------
        name : str, default "detected"
            The field: ``"detected"``, ``"detection_probability"``, ``"hops"``,
            ``"rank"`` or ``"tree_hops"``.

        Returns
        -------
        tuple of float
            ``(mean, standard error)``; the standard error is NaN for one trial.
        """
        x = np.asarray(getattr(self, name), dtype=np.float64)
        se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
        return float(x.mean()), se

    def __repr__(self) -> str:
        # one line: the trials and the means (the per-trial arrays are the fields)
        n = int(np.asarray(self.detected).size)
        if not n:
            return "EstimatorTrials(trials=0)"
        mean, se = self.mean()
        return (f"EstimatorTrials(trials={n}, detection={mean:.4g} (se {se:.2g}), "
                f"mean hops={self.mean('hops')[0]:.4g}, mean rank={self.mean('rank')[0]:.4g})")


@dataclass(frozen=True)
class BatchScores:
    """Result of :func:`simulate_and_score`.

    ``scores[name]`` is the :class:`EstimatorTrials` of the estimator ``name``.

    Parameters
    ----------
    T : int
        The number of time steps of every spread (with a stopping rule by reach, the cap).
    trials : int
        The number of spreads.
    sources : numpy.ndarray
        Source of each trial (labels; node 0 on infinite trees).
    n_infected : numpy.ndarray of int64
        The number of infected nodes of each trial's snapshot (at ``T``, or at its stop).
    estimators : dict of str to EstimatorTrials
        The per-trial outcomes of each estimator, by name.
    protocol : Protocol, optional
        The protocol that spread.
    graph : networkx.Graph, ContactGraph or LazyTree, optional
        The contact graph.
    stop : Reach or None
        The stopping rule by reach (:mod:`spread.reach`), else None.
    steps : numpy.ndarray of int64 or None
        With a stopping rule: each trial's snapshot step, the ``T`` its estimators used
        (the first step at which it reached its target, else the cap ``T``).
    reached : numpy.ndarray of bool or None
        With a stopping rule: whether each trial reached its target by the cap.
    targets : numpy.ndarray of int64 or None
        With a stopping rule: each trial's target infected count.

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> sc = adversaries.simulate_and_score(tree, spread.AdaptiveDiffusion(), T=4, trials=200,
    ...                                     estimators=("ml", "jordan"), rng=1)
    >>> sc.T, sc.trials, sorted(sc.estimators)
    (4, 200, ['jordan', 'ml'])
    >>> mean, se = sc["ml"].mean()
    >>> 0 <= mean <= 1
    True
    """

    T: int
    trials: int
    sources: np.ndarray
    n_infected: np.ndarray
    estimators: dict = field(default_factory=dict)
    protocol: Any = field(default=None, repr=False)
    graph: Any = field(default=None, repr=False)
    stop: Any = field(default=None, repr=False)
    steps: np.ndarray | None = field(default=None, repr=False)
    reached: np.ndarray | None = field(default=None, repr=False)
    targets: np.ndarray | None = field(default=None, repr=False)

    def __getitem__(self, name: str) -> EstimatorTrials:
        return self.estimators[name]

    def __repr__(self) -> str:
        # one line of at most about 200 characters: the setting, then each estimator's
        # detection while they fit (the rest counted); the arrays are the fields
        n_inf = np.asarray(self.n_infected)
        mean = f"{float(n_inf.mean()):.4g}" if n_inf.size else "nan"
        head = (f"BatchScores(protocol={_short(self.protocol)}, graph={_short(self.graph)}, T={self.T}, "
                f"trials={self.trials}, mean N_T={mean}")
        parts = [f"{name} {t.mean()[0]:.3g}" if np.asarray(t.detected).size else f"{name} -"
                 for name, t in self.estimators.items()]
        shown: list[str] = []
        for i, part in enumerate(parts):
            more = len(parts) - i - 1
            tail = f", +{more} more" if more else ""
            if len(head) + len(", detection: ") + len(", ".join([*shown, part])) + len(tail) + 1 > 200:
                break
            shown.append(part)
        rest = len(parts) - len(shown)
        detect = ", ".join(shown) + (f", +{rest} more" if rest else "")
        return f"{head}, detection: {detect})" if parts else f"{head})"

    def _repr_html_(self) -> str:
        """Notebook display: the setting, then one row per estimator with its means."""
        import html

        rows = []
        for name, t in self.estimators.items():
            cells = [html.escape(str(name))]
            for field_name in ("detected", "hops", "rank"):
                if np.asarray(getattr(t, field_name)).size:
                    mean, se = t.mean(field_name)
                    cells.append(f"{mean:.4g} &plusmn; {se:.2g}")
                else:
                    cells.append("")
            rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        head = html.escape(repr(self).split(", detection:")[0] + ")")
        return (f"<p><code>{head}</code></p><table><thead><tr><th>estimator</th><th>detection</th>"
                f"<th>mean hops</th><th>mean rank</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
                "<p>mean &plusmn; standard error over the trials</p>")


def simulate_and_score(
    graph: Any,
    protocol: Protocol,
    T: int,
    trials: int,
    *,
    estimators: tuple[str, ...] | None = None,
    source: Any = None,
    rng: Any = None,
    known_centre: bool = True,
    regular_symmetry: bool = True,
    chunk_nodes: int = CHUNK_NODES,
    stop: Any = None,
) -> BatchScores:
    """Run ``trials`` spreads and score every estimator on each, in one compiled loop.

    A trial is :func:`spread.simulate` + the estimators + the metrics of
    :mod:`adversaries.metrics`, on flat arrays. Sources and infinite-tree
    realisations are drawn as in :func:`spread.simulate_many` (same ``rng``, same
    spreads). On a graph with cycles the adversary is the §2.4.2 one: ``"ml"`` is
    the near-ML over the infection tree; Jordan centre and rumour centrality use the
    infected subgraph only.

    Parameters
    ----------
    graph : networkx.Graph, ContactGraph or LazyTree
    protocol : Protocol
    T : int >= 0
    trials : int >= 1
    estimators : tuple of str, optional
        Names among ``"ml"`` (adaptive diffusion), ``"ml-tree"`` (Protocol 2),
        ``"jordan"``, ``"rumor"``, ``"netsleuth"``, ``"lisn"``; default: every one that
        applies and is a default on this graph (:func:`adversaries.applicable_estimators`
        with ``default_only=True``): the ML that applies, Jordan centre, and rumour
        centrality on tree contact graphs only. NETSLEUTH and LISN, superlinear per
        snapshot, run only when named; so does rumour centrality on a graph with cycles
        (one BFS of the snapshot's 2-core per candidate: quadratic in the core). A named
        estimator runs wherever it applies. An inapplicable name raises
        :class:`InvalidParameterError` saying why.
    source : node, optional
        Fixed source on finite graphs (default: uniform per trial).
    rng : None, int or numpy.random.Generator
    known_centre : bool
        Score ML from the virtual source the simulation hands over where that is exact
        (adaptive diffusion at even T on an infinite tree without dead ends: the snapshot
        is the ball around it); False runs the general message passing everywhere. Same
        results either way (the tests compare both); True is faster.
    regular_symmetry : bool
        With only ML estimators on the d-regular tree (and a known centre), count the ball
        instead of creating it and score by symmetry: the same N_T, rank and detection
        probability per trial, ``detected`` and ``hops`` drawn with the same law from
        another function of the tie-breaking stream. False creates the ball there too.
    chunk_nodes : int >= 1
        Infected nodes buffered per chunk of trials between the simulation and the scoring
        phase (default :data:`anonspread.engine.fused.CHUNK_NODES`, 2^16, sized for the
        caches). Every result is the same for any value; a trial larger than the buffer
        still fits (the buffers grow).
    stop : None, str or Reach
        A stopping rule by reach (:mod:`spread.reach`), ``"infected:K"`` or
        ``"coverage:F"``: each trial stops in the compiled loop after the first step with
        its target count (``T`` is the cap), and every estimator scores its snapshot with
        that trial's step as ``T`` (``BatchScores.steps``; the ML's tables, the known-centre
        shortcut and LISN's rate are those of that step). Trials are scored in groups of
        equal step, one compiled call per group and chunk. ``BatchScores.reached`` says
        which trials reached the target by the cap.

    Returns
    -------
    BatchScores

    Examples
    --------
    >>> from anonspread import spread
    >>> b = simulate_and_score(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 4, 200,
    ...                        estimators=("ml",), rng=0)
    >>> float(b["ml"].detection_probability[0])  # 1 / (N_T - 1), N_T = 10
    0.1111111111111111
    >>> b = simulate_and_score(spread.graphs.regular_tree(3), spread.AdaptiveDiffusion(), 40,
    ...                        200, estimators=("ml",), rng=0, stop="infected:40")
    >>> sorted(set(b.steps.tolist())), bool(b.reached.all()), int(b.n_infected.min())
    ([7, 8], True, 46)
    """
    from anonspread.adversaries.registry import applicable_estimators, get_estimator

    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}")
    if protocol.kernel_code not in KERNEL_CODES:
        raise InvalidParameterError(
            f"protocol must be a compiled protocol (kernel_code in {KERNEL_CODES}); got {protocol!r}, "
            "which runs only in spread.events.simulate_messages"
        )
    T = check_int(T, "T", low=0)
    trials = check_int(trials, "trials", low=1)
    gen = check_rng(rng)
    chunk_nodes = check_int(chunk_nodes, "chunk_nodes", low=1)
    for flag, value in (("known_centre", known_centre), ("regular_symmetry", regular_symmetry)):
        if not isinstance(value, bool):
            raise InvalidTypeError(f"{flag} must be True or False; got {value!r}")
    reach = parse_reach(stop)
    g = as_contact_graph(graph)
    check_run_size(g, protocol, size_check_steps(reach, g, protocol, T), trials,
                   per_trial_steps=True)
    if estimators is None:
        names = tuple(
            applicable_estimators(protocol, g, reveal_edges=True, batch=True, default_only=True)
        )
    else:
        if isinstance(estimators, str):
            estimators = (estimators,)
        names = tuple(estimators)
        for name in names:
            spec = get_estimator(name)
            if not spec.batch:
                raise InvalidParameterError(
                    f"estimators must be among the compiled ones {sorted(CODES)}; got {name!r}"
                )
            check_applicable(name, protocol, g, reveal_edges=True)
    if not names:
        raise InvalidParameterError(f"estimators must name at least one estimator; got {estimators!r}")
    codes = np.array([CODES[nm] for nm in names], np.int64)
    params = protocol.kernel_params(g, T)
    lazy, sources, seeds, store = batch_setup(g, protocol, T, trials, source, gen)
    try:
        targets = reach_targets(reach, g, sources)
    except BaseException:
        if not lazy:
            g.give_store(store)
        raise
    try:
        tie_gen = gen.spawn(1)[0]
    except (AttributeError, TypeError):  # a Generator without a SeedSequence
        tie_gen = np.random.default_rng(np.random.SeedSequence(entropy=int(seeds.sum() % 2**63) + 1))
    tie_u = tie_gen.random((codes.shape[0], trials))
    need_ml = "ml" in names or "ml-tree" in names
    # Protocol 2's ML is adaptive diffusion's with alpha = 0 (its design degree is inf)
    d0 = float(protocol.design_degree(g)) if need_ml else math.nan

    def ml_tables(t: int) -> tuple:
        if need_ml:
            return ad_tables(d0, t)
        return -1, np.zeros(1), np.zeros(1), -1, np.zeros(1)

    r_node, alive, dead, r_edge, move = ml_tables(T) if reach is None else ml_tables(0)
    lisn_rate = np.nan
    if "lisn" in names:
        lisn_rate = get_estimator("lisn").params(protocol, g)["rate"]
        lisn_rate = np.nan if lisn_rate is None else float(lisn_rate)
    centre_known = known_centre and _centre_known(g, protocol, params, T)
    if reach is None and centre_known and regular_symmetry and g.regular_degree() is not None and not codes.any():
        n_out, outcomes = _regular_tree_batch(g, protocol, T, sources, seeds, store, gen, alive, tie_u)
        return BatchScores(
            T=T,
            trials=trials,
            sources=sources.astype(np.int64),
            n_infected=n_out,
            estimators={
                nm: EstimatorTrials(det, pd, hp, rk, hp.copy())
                for nm, (det, pd, hp, rk) in zip(names, outcomes)
            },
            protocol=protocol,
            graph=g,
        )
    e = codes.shape[0]
    detected = np.zeros((e, trials), np.int8)
    pdet = np.zeros((e, trials), np.float64)
    hops = np.zeros((e, trials), np.int64)
    tree_hops = np.zeros((e, trials), np.int64)
    rank = np.zeros((e, trials), np.float64)
    n_out = np.zeros(trials, np.int64)
    tree_graph = lazy or graph_is_forest(g)
    if lazy:
        gptr, gind = np.zeros(2, np.int64), np.zeros(1, np.int32)
    else:  # writable contiguous copies only if needed: one compiled type for every graph
        gptr = np.require(g.indptr, np.int64, ("C", "W"))
        gind = np.require(g.indices, np.int32, ("C", "W"))
    seen = np.zeros(0 if lazy else g.number_of_nodes(), np.int64)
    code = protocol.kernel_code
    options = dict(T=T, lazy=bool(lazy), tree_graph=bool(tree_graph), centre_known=centre_known,
                   r_node=int(r_node), alive=alive, dead=dead, r_edge=int(r_edge), move=move,
                   lisn_rate=lisn_rate)
    noff = np.zeros(trials + 1, np.int64)
    b_vs = np.full(trials, -1, np.int64)
    first = min(chunk_nodes, 64 * trials)
    b_order = np.empty(first, np.int32)
    b_par = np.empty(first, np.int64)
    b_gdeg = np.empty(first, np.int64)
    steps = np.full(trials, T, np.int64)
    outputs = (detected, pdet, hops, tree_hops, rank)
    i = 0
    while i < trials:
        end, b_order, b_par, b_gdeg = simulate_chunk(
            code, store, lazy, sources, seeds, i, T, params, gen, chunk_nodes, noff, n_out, b_vs,
            b_order, b_par, b_gdeg, targets, steps,
        )  # fmt: skip
        if reach is None:
            score_chunk(i, end, noff, n_out, b_vs, b_order, b_par, b_gdeg, gptr, gind, codes,
                        tie_u, seen, *outputs, **options)
        else:
            _score_by_step(i, end, steps, noff, n_out, b_vs, b_order, b_par, b_gdeg, gptr, gind,
                           codes, tie_u, seen, outputs, options, ml_tables,
                           lambda t: known_centre and _centre_known(g, protocol, params, t))
        i = end
    if not lazy:
        g.give_store(store)  # its run state is clean again
    if lazy:
        labels = sources.astype(np.int64)
    else:
        labels = g.labels_of(sources)
    return BatchScores(
        T=T,
        trials=trials,
        sources=labels,
        n_infected=n_out,
        estimators={
            nm: EstimatorTrials(detected[k], pdet[k], hops[k], rank[k], tree_hops[k])
            for k, nm in enumerate(names)
        },
        protocol=protocol,
        graph=g,
        stop=reach,
        steps=steps if reach is not None else None,
        reached=(n_out >= targets) if reach is not None else None,
        targets=targets,
    )


def _score_by_step(i: int, end: int, steps: np.ndarray, noff: np.ndarray, n_out: np.ndarray,
                   b_vs: np.ndarray, b_order: np.ndarray, b_par: np.ndarray, b_gdeg: np.ndarray,
                   gptr: np.ndarray, gind: np.ndarray, codes: np.ndarray, tie_u: np.ndarray,
                   seen: np.ndarray, outputs: tuple, options: dict, ml_tables: Any,
                   centre_known: Any) -> None:
    """Score trials ``[i, end)`` of a chunk stopped by reach, each with its own step as T.

    :func:`score_chunk` takes one T per call, so the chunk's trials are laid out again in
    order of their step (stable, so ties keep the trial order), their snapshots gathered
    into buffers in that order (vectorised: one gather of the chunk's nodes), and each
    group of equal step is scored by one call; the outputs are written back by trial. The
    positions stay inside ``[i, end)``, so the BFS stamps of ``seen`` (position x
    estimator) never repeat across chunks.
    """
    m = end - i
    perm = np.argsort(steps[i:end], kind="stable")
    trial = i + perm
    lengths = n_out[trial]
    new_off = np.zeros(m + 1, np.int64)
    np.cumsum(lengths, out=new_off[1:])
    gather = np.repeat(noff[trial] - new_off[:-1], lengths) + np.arange(new_off[-1], dtype=np.int64)
    size = i + m + 1
    p_noff = np.zeros(size, np.int64)
    p_noff[i:] = new_off
    p_n = np.zeros(size - 1, np.int64)
    p_n[i:] = lengths
    p_vs = np.full(size - 1, -1, np.int64)
    p_vs[i:] = b_vs[trial]
    p_tie = np.zeros((tie_u.shape[0], size - 1))
    p_tie[:, i:] = tie_u[:, trial]
    p_out = [np.zeros((o.shape[0], size - 1), o.dtype) for o in outputs]
    p_order = np.ascontiguousarray(b_order[gather])
    p_par = np.ascontiguousarray(b_par[gather])
    p_gdeg = np.ascontiguousarray(b_gdeg[gather])
    sorted_steps = steps[trial]
    cuts = np.flatnonzero(np.diff(sorted_steps)) + 1
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, m]):
        t = int(sorted_steps[a])
        r_node, alive, dead, r_edge, move = ml_tables(t)
        opts = {**options, "T": t, "centre_known": bool(centre_known(t)), "r_node": int(r_node),
                "alive": alive, "dead": dead, "r_edge": int(r_edge), "move": move}
        score_chunk(i + int(a), i + int(b), p_noff, p_n, p_vs, p_order, p_par, p_gdeg, gptr,
                    gind, codes, p_tie, seen, *p_out, **opts)
    for o, po in zip(outputs, p_out):
        o[:, trial] = po[:, i:]
