"""The estimator registry: what each source estimator applies to.

Each estimator declares the protocol family it assumes, the observation it needs
and the graph kinds it handles, so that the harness can pick the applicable
estimators for a (protocol, graph, observation) point and refuse the others with a
message that says why. Estimators are added by registering them
(:func:`register_estimator`), never by growing an if/elif chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread.graphs import as_contact_graph
from anonspread.spread.protocols import Protocol

__all__ = [
    "ESTIMATORS",
    "OBSERVATIONS",
    "EstimatorSpec",
    "applicable_estimators",
    "check_applicable",
    "get_estimator",
    "register_estimator",
]


@dataclass(frozen=True)
class EstimatorSpec:
    """The declaration of one estimator.

    Parameters
    ----------
    name : str
        Registry name (``"ml"``, ``"jordan"``, ``"rumor"``, ``"exact"``).
    func : callable
        ``func(snapshot, **params) -> Scores``.
    protocols : frozenset of str, Registry or None
        Names in :data:`spread.protocols.PROTOCOLS` the estimator's model assumes
        (None: it is model-free and applies to any protocol); a :class:`Registry` is a
        live set: the names registered there, now or later (``"exact"`` applies to every
        protocol with an exact enumeration in :data:`adversaries.TRAJECTORIES`).
    graphs : {"any", "tree"}
        Contact graphs it handles.
    observation : str
        What it reads: ``"snapshot"`` (the spy estimators of :data:`SPY_ESTIMATORS`:
        ``"spies"`` or ``"snapshot+spies"``).
    edges_on_cycles : bool
        Whether it also needs the revealed infection tree when the contact graph has
        cycles (§2.4.2).
    likelihood : bool
        Scores are log-likelihoods (posteriors and ranks by likelihood apply).
    batch : bool
        Available in the compiled Monte Carlo path (:func:`adversaries.simulate_and_score`).
    default : {True, False, "tree"}, default True
        Among the estimators :func:`adversaries.simulate_and_score` runs when the caller
        names none (:meth:`is_default`): True on every contact graph, False on none
        (opt-in: run only when named), ``"tree"`` only where the contact graph is a tree or
        forest (opt-in on graphs with cycles). Estimators whose cost per snapshot grows
        faster than the snapshot are opt-in where it does: NETSLEUTH's eigenvector and
        LISN's sum over the uninfected nodes everywhere (False); rumour centrality on graphs
        with cycles (``"tree"``: linear message passing on a tree, one BFS of the
        snapshot's 2-core per candidate otherwise, O(n_c (n_c + m_c)) on a 2-connected
        core). A default run of 10,000 trials at ~3,000 infected nodes would otherwise take
        many minutes for an estimator the caller did not ask for. Naming an estimator runs
        it wherever it applies, whatever its ``default``.
    random : bool, default False
        The estimator draws random numbers (simulation-based estimators): ``func`` takes
        the keyword ``rng`` (None, int or :class:`numpy.random.Generator`, SPEC 7), and the
        harness passes the run's generator so that a seeded run is reproducible.
    params : callable, optional
        ``params(protocol, graph) -> dict`` of keyword arguments for ``func`` (default:
        none).
    extra : callable or None, optional
        ``extra(protocol, graph, reveal_edges) -> str | None``: a further reason to
        refuse (None when applicable).
    many : callable or None, optional
        ``many(snapshots, **params) -> list of Scores``: the scores of a batch of
        snapshots of one graph, protocol and ``T`` at once, each the same as
        ``func(snapshot, **params)`` for its snapshot except for the random streams
        (soft-margin shares its simulations across the batch); the harness scores a
        batch of trials through it when set.
    price : callable or None, optional
        ``price(snapshots, *, sources, batch, timed, **params) -> cost or None`` with
        ``work`` (node visits, deterministic), ``cpu_seconds`` (timed, or None),
        ``min_cpu_seconds`` (a lower bound, or None), ``describe()`` (what this price rests
        on), ``basis`` (what a price of its kind rests on, one sentence) and ``caveat``
        (what kind of number it is): what scoring a batch of ``batch`` snapshots (through
        ``many`` where set) will cost, from a sample of them and their true ``sources``,
        without running it (soft-margin: :func:`adversaries.soft_margin_cost`; rumour
        centrality: :func:`adversaries.rumor_cost`); the harness prices a sweep point with
        it and skips the points above its budget. None: too cheap to price, the pilot
        times its trials instead.
    price_sample : int or None, optional
        Most sampled snapshots ``price`` needs (None: the harness's default,
        ``harness.experiments.spreading.PRICE_SNAPSHOTS``).
    description : str, optional
        One line on what it estimates (:func:`register_estimator` takes the first line
        of the function's docstring).

    Examples
    --------
    >>> from anonspread import adversaries
    >>> spec = adversaries.get_estimator("jordan")
    >>> spec.name, spec.protocols is None, spec.graphs, spec.likelihood
    ('jordan', True, 'any', False)
    """

    name: str
    func: Callable
    protocols: frozenset | Registry | None
    graphs: str
    observation: str
    edges_on_cycles: bool
    likelihood: bool
    batch: bool
    default: bool | Literal["tree"] = True
    random: bool = False
    params: Callable = field(default=lambda protocol, graph: {})
    extra: Callable | None = None
    many: Callable | None = None
    price: Callable | None = None
    price_sample: int | None = None
    description: str = ""

    def is_default(self, graph: Any) -> bool:
        """Whether :func:`adversaries.simulate_and_score` runs this estimator on ``graph`` unnamed.

        True for ``default=True``, False for ``default=False``; for ``default="tree"``,
        whether the contact graph is a tree or forest (lazily grown trees always are).
        Whether the estimator applies at all is :meth:`why_not`'s question, not this one's.

        Parameters
        ----------
        graph : networkx.Graph, ContactGraph or LazyTree
            The contact graph.

        Returns
        -------
        bool

        Examples
        --------
        >>> import networkx as nx
        >>> from anonspread import adversaries, spread
        >>> spec = adversaries.get_estimator("rumor")
        >>> spec.default
        'tree'
        >>> spec.is_default(spread.graphs.regular_tree(3)), spec.is_default(nx.cycle_graph(5))
        (True, False)
        >>> adversaries.get_estimator("netsleuth").is_default(spread.graphs.regular_tree(3))
        False
        """
        if self.default == "tree":
            from anonspread.adversaries.observation import graph_is_forest

            return graph_is_forest(as_contact_graph(graph))
        return self.default is True

    def why_not(self, protocol: Protocol, graph: Any, *, reveal_edges: bool = False) -> str | None:
        """The reason this estimator does not apply, or None if it does.

        Parameters
        ----------
        protocol : Protocol
            The protocol that spread.
        graph : networkx.Graph, ContactGraph or LazyTree
            The contact graph.
        reveal_edges : bool, default False
            Whether the observation reveals the infection tree (§2.4.2).

        Returns
        -------
        str or None
            A message naming what does not fit, or None.

        Examples
        --------
        >>> import networkx as nx
        >>> from anonspread import adversaries, spread
        >>> spec = adversaries.get_estimator("ml")
        >>> spec.why_not(spread.AdaptiveDiffusion(), spread.graphs.regular_tree(3)) is None
        True
        >>> spec.why_not(spread.Flooding(), nx.path_graph(5))  # doctest: +ELLIPSIS
        "estimator 'ml' assumes a protocol in ['adaptive-diffusion']; got ..."
        """
        from anonspread.adversaries.observation import graph_is_forest

        g = as_contact_graph(graph)
        if self.protocols is not None and protocol.name not in self.protocols:
            return (
                f"estimator {self.name!r} assumes a protocol in {sorted(self.protocols)}; "
                f"got {protocol!r}"
            )
        tree = graph_is_forest(g)
        if self.graphs == "tree" and not tree:
            return f"estimator {self.name!r} needs a tree contact graph; got {g!r}, which has cycles"
        if self.edges_on_cycles and not tree and not reveal_edges:
            return (
                f"estimator {self.name!r} needs the infection tree on a graph with cycles "
                f"(the §2.4.2 adversary): observe with reveal_edges=True; got {g!r} without it"
            )
        if self.extra is not None:
            return self.extra(protocol, g, reveal_edges)
        return None


#: Every estimator by name (snapshot and spy estimators alike).
ESTIMATORS: Registry[EstimatorSpec] = Registry("estimator", parameter="estimator")


def register_estimator(
    name: str,
    *,
    protocols: tuple[str, ...] | Registry | None,
    graphs: str = "any",
    observation: str = "snapshot",
    edges_on_cycles: bool = False,
    likelihood: bool = False,
    batch: bool = False,
    default: bool | Literal["tree"] = True,
    random: bool = False,
    params: Callable | None = None,
    extra: Callable | None = None,
    many: Callable | None = None,
    price: Callable | None = None,
    price_sample: int | None = None,
):
    """Function decorator: declare an estimator under ``name`` (see :class:`EstimatorSpec`).

    Parameters
    ----------
    name : str
        The registry name.
    protocols, graphs, observation, edges_on_cycles, likelihood, batch, default, random, params, extra, many, price, price_sample
        The fields of :class:`EstimatorSpec` of the same names (``protocols`` as a tuple,
        a :class:`Registry` whose names it follows, or ``None`` for a model-free
        estimator; ``default`` True, False or ``"tree"``; ``params`` and ``extra`` default
        to none).

    Returns
    -------
    callable
        The decorator; it registers ``func`` (``func(snapshot, **params) -> Scores``) in
        :data:`ESTIMATORS` and returns it unchanged.

    Examples
    --------
    A model-free estimator that scores every infected node by its degree in the infected
    subgraph (registered, used, then removed again):

    >>> import networkx as nx
    >>> import numpy as np
    >>> from anonspread import adversaries
    >>> @adversaries.register_estimator("infected-degree", protocols=None)
    ... def infected_degree(snapshot):
    ...     "Degree in the infected subgraph."
    ...     indptr, _ = snapshot.subgraph()
    ...     return adversaries.Scores(snapshot.nodes, np.diff(indptr), "degree")
    >>> snap = adversaries.Snapshot(nx.star_graph(3), [0, 1, 2], T=1)
    >>> adversaries.pick(adversaries.get_estimator("infected-degree").func(snap))
    0
    >>> adversaries.ESTIMATORS.remove("infected-degree")
    """
    if graphs not in ("any", "tree"):
        raise InvalidParameterError(f"graphs must be 'any' or 'tree'; got {graphs!r}")
    if not (isinstance(default, bool) or (isinstance(default, str) and default == "tree")):
        raise InvalidParameterError(
            "default must be True, False or 'tree' (a default only where the contact graph is "
            f"a tree or forest, opt-in on graphs with cycles); got {default!r}"
        )

    def deco(func: Callable) -> Callable:
        if name in ESTIMATORS:
            raise InvalidParameterError(f"estimator name {name!r} is already registered")
        doc = (func.__doc__ or "").strip().splitlines()
        live = protocols is None or isinstance(protocols, Registry)
        ESTIMATORS.add(name, EstimatorSpec(
            name=name,
            func=func,
            protocols=protocols if live else frozenset(protocols),
            graphs=graphs,
            observation=observation,
            edges_on_cycles=edges_on_cycles,
            likelihood=likelihood,
            batch=batch,
            default=default,
            random=bool(random),
            params=params or (lambda protocol, graph: {}),
            extra=extra,
            many=many,
            price=price,
            price_sample=price_sample,
            description=doc[0] if doc else "",
        ))
        return func

    return deco


def get_estimator(name: str) -> EstimatorSpec:
    """The :class:`EstimatorSpec` registered under ``name``.

    Parameters
    ----------
    name : str
        A name of :data:`ESTIMATORS` (unknown names raise, suggesting close ones).

    Examples
    --------
    >>> from anonspread import adversaries
    >>> spec = adversaries.get_estimator("ml")
    >>> sorted(spec.protocols), spec.likelihood
    (['adaptive-diffusion'], True)
    """
    return ESTIMATORS.get(name)


def _check_protocol(protocol: Any) -> Protocol:
    if not isinstance(protocol, Protocol):
        raise InvalidTypeError(
            f"protocol must be a spread.protocols.Protocol instance; got {protocol!r}"
        )
    return protocol


#: What each observation kind lets an adversary see (an estimator applies when the
#: observation it needs is among them).
OBSERVATIONS = {
    "snapshot": {"snapshot"},
    "spies": {"spies"},
    "snapshot+spies": {"snapshot", "spies", "snapshot+spies"},
}


def applicable_estimators(
    protocol: Protocol,
    graph: Any,
    *,
    reveal_edges: bool = False,
    batch: bool = False,
    observation: str = "snapshot",
    default_only: bool = False,
) -> list[str]:
    """Names of the registered estimators that apply to this protocol, graph and observation.

    ``observation`` is what the adversary has: ``"snapshot"`` (the default, thesis
    §2.1.2), ``"spies"`` (first receipts at spy nodes) or ``"snapshot+spies"``.
    ``default_only`` keeps only the estimators that are defaults on this graph
    (:meth:`EstimatorSpec.is_default`: registered with ``default=True``, or with
    ``default="tree"`` on a tree or forest): what :func:`adversaries.simulate_and_score`
    runs when no estimator is named. Rumour centrality is one on trees only: on a graph
    with cycles it costs one BFS of the snapshot's 2-core per candidate.

    Parameters
    ----------
    protocol : Protocol
        The spreading protocol the adversary attacks.
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph.
    reveal_edges : bool
        Whether the observation includes the infection tree's edges (§2.4.2).
    batch : bool
        Only estimators available in :func:`simulate_and_score`.
    observation : {"snapshot", "spies", "snapshot+spies"}
        What the adversary has.
    default_only : bool
        Only the estimators that are defaults on ``graph``.

    Examples
    --------
    >>> from anonspread import spread
    >>> applicable_estimators(spread.AdaptiveDiffusion(), spread.graphs.regular_tree(3), batch=True)
    ['jordan', 'lisn', 'ml', 'netsleuth', 'rumor']
    >>> applicable_estimators(spread.AdaptiveDiffusion(), spread.graphs.regular_tree(3), batch=True,
    ...                       default_only=True)
    ['jordan', 'ml', 'rumor']
    >>> import networkx as nx
    >>> applicable_estimators(spread.RandomDiffusion(0.5), nx.cycle_graph(5), batch=True,
    ...                       default_only=True)
    ['jordan']
    """
    protocol = _check_protocol(protocol)
    if observation not in OBSERVATIONS:
        raise InvalidParameterError(
            f"observation must be one of {sorted(OBSERVATIONS)}; got {observation!r}"
        )
    seen = OBSERVATIONS[observation]
    g = as_contact_graph(graph)  # once: a networkx graph is converted, and its forest test made, once
    return sorted(
        name
        for name, spec in ESTIMATORS.items()
        if spec.observation in seen
        and (spec.batch or not batch)
        and (not default_only or spec.is_default(g))
        and spec.why_not(protocol, g, reveal_edges=reveal_edges) is None
    )


def check_applicable(
    name: str, protocol: Protocol, graph: Any, *, reveal_edges: bool = False
) -> EstimatorSpec:
    """Return the spec of ``name`` or raise :class:`InvalidParameterError` saying why it does not apply.

    Parameters
    ----------
    name : str
        A registered estimator name.
    protocol : Protocol
        The spreading protocol the adversary attacks.
    graph : networkx.Graph, ContactGraph or LazyTree
        The contact graph.
    reveal_edges : bool
        Whether the observation includes the infection tree's edges.

    Examples
    --------
    >>> from anonspread import adversaries, spread
    >>> tree = spread.graphs.regular_tree(3)
    >>> adversaries.check_applicable("jordan", spread.Flooding(), tree).name
    'jordan'
    >>> adversaries.check_applicable("ml", spread.Flooding(), tree)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: estimator 'ml' assumes a protocol in ['adaptive-diffusion']; got Flooding()
    """
    spec = get_estimator(name)
    reason = spec.why_not(_check_protocol(protocol), graph, reveal_edges=reveal_edges)
    if reason is not None:
        raise InvalidParameterError(reason)
    return spec
