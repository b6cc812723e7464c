"""Snapshot estimators from the source-inference literature: NETSLEUTH and LISN.

Both see what the snapshot adversary of thesis §2.1.2 sees -- the contact graph, the
infected set and T -- and assume the susceptible-infected (SI) model, not an anonymity
protocol, so they apply to any protocol (they are the attacks a protocol designer
meets in the field). Their hot loops are the kernels of :mod:`anonspread.engine.literature`,
shared with the Monte Carlo loop :func:`adversaries.simulate_and_score`.

* :func:`netsleuth` -- Prakash, Vreeken & Faloutsos (ICDM 2012; KAIS 2013): the best
  single seed is the node with the largest component of the eigenvector of the
  smallest eigenvalue of the infected sub-Laplacian.
* :func:`lisn` -- Nie & Quinn, "Localizing the Information Source in a Network"
  (TrueFact workshop at KDD 2019; the acronym is cosasi's): a node-independent
  approximation of the SI likelihood from hop distances.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.adversaries.observation import Snapshot
from anonspread.adversaries.registry import register_estimator
from anonspread.adversaries.scores import Scores
from anonspread.engine import literature as _lit_kernels
from anonspread.engine import scoring as _kernels
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.spread.graphs import LazyTree
from anonspread.validation import check_real

__all__ = ["lisn", "netsleuth"]

#: NETSLEUTH refuses infected sets above this size (inverse iteration needs O(n) memory
#: but its time grows as n times the conjugate-gradient iterations).
NETSLEUTH_MAX = 200_000


def _check_snapshot(snapshot: Any, name: str) -> Snapshot:
    if not isinstance(snapshot, Snapshot):
        raise InvalidTypeError(
            f"snapshot must be an adversaries.Snapshot (e.g. from adversaries.observe(spread)) "
            f"for estimator {name!r}; got {type(snapshot).__name__}"
        )
    return snapshot


@register_estimator("netsleuth", protocols=None, batch=True, default=False)
def netsleuth(snapshot: Snapshot) -> Scores:
    """NETSLEUTH's single-seed score: the smallest eigenvector of the infected sub-Laplacian.

    Prakash, Vreeken & Faloutsos, "Spotting culprits in epidemics: how many and which
    ones?" (ICDM 2012), §IV-A, and "Efficiently spotting the starting points of an
    epidemic in a large graph" (KAIS 38, 2013). Under the SI model the probability that
    the infection started at s is approximated through *exoneration*: the submatrix
    ``L_I`` of the contact graph's Laplacian ``D - A`` on the infected nodes (``D``
    holding degrees in the *whole* graph, so nodes on the frontier, with uninfected
    contacts, weigh more) has a smallest eigenvalue ``lambda_1`` whose eigenvector
    ``u_1`` is largest at the nodes deepest inside the infected region; the best seed is
    ``argmax_v u_1(v)``. The score of v is ``u_1(v)`` (unit norm, positive: on a
    connected infected set ``L_I`` is an irreducible M-matrix, so ``u_1 > 0``).

    Observation: the snapshot (contact graph, infected set). Model: SI; model-free here
    (registered for every protocol). Cost: inverse iteration with conjugate gradients
    (a dense symmetric eigensolver for at most 16 infected nodes, or as a fallback up to
    3,000 if the iteration does not converge).

    cosasi 0.0.4 (``cosasi.source_inference.single_source.netsleuth``) takes the
    eigenvector of the *largest* eigenvalue of ``L_I`` (``np.linalg.eig``, sign not
    fixed) and indexes the Laplacian by node label; that is not the paper's estimator
    (see ``docs/adversaries.md`` and ``benchmarks/bench_literature.py``).

    Parameters
    ----------
    snapshot : Snapshot
        The infected nodes and the contact graph (:func:`observe`).

    Returns
    -------
    Scores
        kind ``"netsleuth-eigenvector"`` over the infected nodes.

    Examples
    --------
    On the path 0-1-2-3-4 with {1, 2, 3} infected, ``L_I`` is tridiagonal (2, -1) and
    ``u_1 = (1, sqrt 2, 1) / 2``:

    >>> import networkx as nx
    >>> sc = netsleuth(Snapshot(nx.path_graph(5), [1, 2, 3], T=2))
    >>> [round(sc[v], 6) for v in (1, 2, 3)]
    [0.5, 0.707107, 0.5]
    """
    snapshot = _check_snapshot(snapshot, "netsleuth")
    n = snapshot.n
    if n > NETSLEUTH_MAX:
        raise InvalidParameterError(
            f"snapshot must have at most {NETSLEUTH_MAX} infected nodes for 'netsleuth' "
            f"(an eigenvector of an n x n matrix); got n={n}"
        )
    indptr, indices = snapshot.subgraph()
    out = np.empty(n)
    _lit_kernels.netsleuth_vector(indptr, indices, snapshot.contact_degrees(),
                                  _lit_kernels.DENSE_MAX, out)
    return Scores(snapshot.nodes, out, "netsleuth-eigenvector")


# ----------------------------------------------------------------- LISN

DELAYS = ("geometric", "exponential")


def estimate_rate(snapshot: Snapshot) -> float:
    """The plug-in per-step rate ``r / T``: the infected set's radius over the time.

    ``r`` is the minimum eccentricity of the infected subgraph (its Jordan radius): a
    spread of rate ``p`` reaches about ``p T`` hops by time T.
    """
    if snapshot.T == 0:
        return 0.0
    indptr, indices = snapshot.subgraph()
    if not snapshot.subgraph_is_tree():
        return float(_kernels.graph_radius(indptr, indices)) / snapshot.T
    ecc = np.empty(snapshot.n, np.int64)
    _kernels.tree_eccentricity(indptr, indices, ecc)
    return float(ecc.min()) / snapshot.T


def lisn_tables(rate: float, T: int, delays: str, n_max: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``log P_k``, ``log(1 - P_k)`` (P_k: a node k hops away is infected by T) and the BFS cap."""
    if delays == "geometric":
        log_p = np.empty(T + 2)
        log_q = np.empty(T + 2)
        _lit_kernels.binomial_tail_tables(T, min(rate, 1.0), log_p, log_q)
        return log_p, log_q, T + 2
    from scipy.special import gammainc, gammaincc

    k = np.arange(1, max(n_max, 1) + 1, dtype=np.float64)
    x = rate * T
    with np.errstate(divide="ignore"):
        log_p = np.concatenate([[0.0], np.log(gammainc(k, x))])
        log_q = np.concatenate([[-np.inf], np.log(gammaincc(k, x))])
    return log_p, log_q, -1


def _lisn_extra(protocol, graph, reveal_edges) -> str | None:
    if isinstance(graph, LazyTree) and graph.regular_degree() is None:
        return (
            "estimator 'lisn' sums over every uninfected node, so on an infinite tree it needs "
            f"a regular one (whose node counts at each distance are known); got {graph!r}"
        )
    return None


def _lisn_params(protocol, graph) -> dict:
    if protocol.name == "random-diffusion":
        return {"rate": protocol.p, "delays": "geometric"}
    return {"rate": None, "delays": "geometric"}


@register_estimator("lisn", protocols=None, likelihood=False, batch=True, default=False,
                    params=_lisn_params, extra=_lisn_extra)
def lisn(snapshot: Snapshot, rate: float | None = None, *, delays: str = "geometric") -> Scores:
    """LISN: the SI likelihood approximated node by node from hop distances.

    Nie & Quinn, "Localizing the Information Source in a Network" (TrueFact 2019,
    Algorithm 1; named LISN by cosasi). For candidate v, with ``P_k`` the probability
    that a node k hops from the source is infected by time T,

    ``score(v) = sum_{u infected, u != v} log P_{d(v,u)} + sum_{u not infected} log(1 - P_{d(v,u)})``,

    ``d`` the hop distance in the contact graph: each node is treated as reached along
    one shortest path, independently of the others.

    * ``delays="exponential"`` (the paper's continuous-time SI model, and cosasi's):
      the k edge delays are i.i.d. ``Exponential(rate)``, so
      ``P_k = gamma(k, rate T) / Gamma(k)`` (regularised lower incomplete gamma).
    * ``delays="geometric"`` (the default; discrete random diffusion, thesis §2.2.1):
      each edge delay is ``Geometric(rate)`` on 1, 2, ..., so
      ``P_k = P(Binomial(T, rate) >= k)``; then ``P_k = 0`` beyond T hops and the sum
      over uninfected nodes stops there (cost proportional to the ball of radius T
      around the infected set, not to the graph).

    Observation: the snapshot and T. Model: SI with a known rate; ``rate=None`` plugs
    in ``r / T`` (:func:`estimate_rate`, r the Jordan radius of the infected set), which
    is how it is registered for protocols other than random diffusion.

    Parameters
    ----------
    snapshot : Snapshot
        On a finite graph, or an infinite *regular* tree (the counts of uninfected nodes
        at each distance are then ``d (d-1)^(k-1)`` less the infected ones;
        geometric delays only there, where the sum is finite).
    rate : float or None
        ``p`` in (0, 1] for geometric delays, a rate > 0 for exponential ones.
    delays : {"geometric", "exponential"}

    Returns
    -------
    Scores
        kind ``"lisn-log-score"`` (an approximate log-likelihood, not normalised).

    Examples
    --------
    Flooding-like spread (p = 1) on the path 0..6 at T = 1, {2, 3, 4} infected: only
    node 3 has every infected node within one hop and every other node beyond it.

    >>> import networkx as nx
    >>> sc = lisn(Snapshot(nx.path_graph(7), [2, 3, 4], T=1), 1.0)
    >>> [sc[v] for v in (2, 3, 4)]
    [-inf, 0.0, -inf]
    """
    snapshot = _check_snapshot(snapshot, "lisn")
    if delays not in DELAYS:
        raise InvalidParameterError(f"delays must be one of {list(DELAYS)}; got {delays!r}")
    g = snapshot.graph
    if isinstance(g, LazyTree):
        reason = _lisn_extra(None, g, False)
        if reason is not None:
            raise GraphError(reason)
        if delays != "geometric":
            raise InvalidParameterError(
                "delays must be 'geometric' for 'lisn' on an infinite tree (the sum over "
                f"uninfected nodes is finite only then); got {delays!r}"
            )
    if rate is None:
        rate = estimate_rate(snapshot)
    elif delays == "geometric":
        rate = check_real(rate, "rate", low=0.0, high=1.0, low_open=True)
    else:
        rate = check_real(rate, "rate", low=0.0, low_open=True)
    n_max = g.number_of_nodes() if not isinstance(g, LazyTree) else 0
    log_p, log_q, cap = lisn_tables(rate, snapshot.T, delays, n_max)
    out = np.empty(snapshot.n)
    if isinstance(g, LazyTree):
        indptr, indices = snapshot.subgraph()
        _lit_kernels.lisn_regular_tree(indptr, indices, g.regular_degree(), log_p, log_q, out)
    else:
        loc = np.full(g.number_of_nodes(), -1, np.int64)
        loc[snapshot.index] = np.arange(snapshot.n)
        _lit_kernels.lisn_graph(g.indptr, g.indices, snapshot.index, loc, snapshot.n,
                                log_p, log_q, cap, out)
    return Scores(snapshot.nodes, out, "lisn-log-score")
