"""Spreading protocols: the thesis's Protocols 1-3 and the diffusion baselines.

A protocol is a small class that stores its parameters (validated on construction,
no other work) and owns its behaviour: it names the compiled kernel that runs it
(:attr:`Protocol.kernel_code`, :meth:`Protocol.kernel_params`) and what each node does in
the message-level engine (:meth:`Protocol.message_behaviour`); the adversaries layer
registers its exact trajectory enumeration (:func:`adversaries.register_trajectories`).
Protocols are registered by name in :data:`PROTOCOLS` (a
:class:`~anonspread.registry.Registry`) so that sweeps and the harness can build them
from strings; a new protocol is added by registering it, never by growing a chain of
``if`` statements.

All protocols run in discrete time (thesis §2.1.3): at step ``t = 1, 2, ...`` the
nodes infected before step ``t`` act; nodes infected during step ``t`` act from step
``t + 1`` on.
"""

from __future__ import annotations

import math
import numbers
import sys
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from anonspread.engine import spreading as _kernels
from anonspread.errors import GraphError, InvalidParameterError, InvalidTypeError
from anonspread.registry import Registry
from anonspread.spread._params import Parametrized
from anonspread.spread.nodes import (
    MessageBehaviour,
    _AdaptiveNode,
    _DiffusionNode,
    _FloodNode,
    _PseudocodeTreeNode,
)
from anonspread.validation import check_int, check_probability

__all__ = [
    "PROTOCOLS",
    "AdaptiveDiffusion",
    "Flooding",
    "LineProtocol",
    "Protocol",
    "RandomDiffusion",
    "TreeProtocol",
    "TreeProtocolPseudocode",
    "alpha",
    "alpha_table",
    "log_alpha",
    "register_protocol",
]

#: The discrete-time protocols :func:`spread.simulate` runs, by name.
PROTOCOLS: Registry[type[Protocol]] = Registry("protocol", parameter="protocol")


def _class_registrar(table: Registry, name: str, *, replace: bool = False):
    """A class decorator that sets ``cls.name = name`` and enters ``cls`` in ``table``."""

    def deco(cls):
        if name in table and not replace:
            raise InvalidParameterError(
                f"protocol name {name!r} is already registered (by {table[name].__name__}); "
                "pass replace=True to replace it"
            )
        cls.name = name
        table.add(name, cls, replace=replace)
        return cls

    return deco


def register_protocol(name: str, *, replace: bool = False):
    """Class decorator: register a :class:`Protocol` subclass under ``name``.

    Sets ``cls.name = name`` (what estimators and exact enumerations are keyed by) and
    enters the class in :data:`PROTOCOLS`.

    Parameters
    ----------
    name : str
        The registry name (``"adaptive-diffusion"``...).
    replace : bool
        Replace a class already registered under ``name``.
    """
    return _class_registrar(PROTOCOLS, name, replace=replace)


def _message_level_protocols() -> list[str]:
    """Names of the protocol classes that define a message-level behaviour."""
    out, todo = set(), list(Protocol.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if "name" in vars(cls) and cls.message_behaviour is not Protocol.message_behaviour:
            out.add(cls.__name__)
    return sorted(out)


class Protocol(Parametrized):
    """Base class: a spreading protocol run by a compiled kernel.

    Subclasses set :attr:`kernel_code` (the engine kernel that runs them, see
    ``anonspread.engine.spreading.run_protocol``) and implement :meth:`kernel_params`, the
    float64 parameter vector the kernel reads.
    """

    name: ClassVar[str] = "protocol"
    kernel_code: ClassVar[int] = -1
    #: True if the protocol maintains a virtual source (``Spread.virtual_source``).
    has_virtual_source: ClassVar[bool] = False

    def kernel_params(self, graph, T: int) -> np.ndarray:
        """The float64 parameter vector the protocol's kernel reads for a run of ``T`` steps.

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The graph of the run.
        T : int
            The number of time steps.

        Returns
        -------
        numpy.ndarray of float64
            The vector (its layout is the kernel's).
        """
        return np.zeros(1, np.float64)

    def summary_params(self, graph, T: int) -> np.ndarray:
        """:meth:`kernel_params` for a run whose caller keeps only the infected count after
        each step and the final virtual source (``simulate_many``): a kernel may then skip
        materialising the infected set. Default: the same vector.

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The graph of the run.
        T : int
            The number of time steps.

        Returns
        -------
        numpy.ndarray of float64
            The vector.
        """
        return self.kernel_params(graph, T)


    def growth_hint(self, graph, T: int) -> int:
        """A guess at the number of nodes a run touches (sizes the first allocation).

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The graph of the run.
        T : int
            The number of time steps.

        Returns
        -------
        int
            The guess (default 1024).
        """
        return 1024

    #: True if the protocol draws its own message delays in the message-level engine
    #: (:func:`spread.events.simulate_messages` then takes ``delay=None`` only).
    own_message_delays: ClassVar[bool] = False

    def message_behaviour(self, graph, T: int, *, rng: np.random.Generator) -> MessageBehaviour:
        """What each node does when the protocol runs message by message.

        :func:`spread.events.simulate_messages` builds every node from the returned
        :class:`~spread.nodes.MessageBehaviour` (a :class:`~spread.nodes.Node` class and
        the parameters its nodes share) and never asks which protocol it runs. A
        protocol that should not run there (or not with these parameters) raises,
        saying why.

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The contact graph of the run.
        T : int
            The horizon.
        rng : numpy.random.Generator
            The run's generator, after the source was drawn (a protocol that draws a
            per-run structure, such as Dandelion's anonymity graph, draws it here).

        Returns
        -------
        MessageBehaviour

        Raises
        ------
        InvalidParameterError
            Here, in the base class: the protocol has no message-level behaviour.
        """
        raise InvalidParameterError(
            "protocol must be one the message-level engine runs "
            f"({', '.join(_message_level_protocols())}); got {self!r}, whose class "
            f"{type(self).__name__} does not define message_behaviour"
        )


@register_protocol("flooding")
class Flooding(Protocol):
    """Flooding: every infected node infects all its uninfected neighbours at once.

    The fastest spread (``N_T = 2T + 1`` on a line) and the easiest source to find.

    Examples
    --------
    >>> from anonspread import spread
    >>> spread.simulate(spread.graphs.line(), Flooding(), T=3).infected.size
    7
    """

    kernel_code = _kernels.FLOODING

    def message_behaviour(self, graph, T, *, rng):
        # Every node sends the rumour to all its unknown contacts at its first tick.
        return MessageBehaviour(_FloodNode)


@register_protocol("random-diffusion")
class RandomDiffusion(Protocol):
    """Discrete-time random diffusion (thesis §2.2.1).

    At each step every infected node infects each uninfected neighbour independently
    with probability ``p`` (a node with k infected neighbours is infected with
    probability ``1 - (1 - p)^k``).

    Parameters
    ----------
    p : float in [0, 1]

    Examples
    --------
    >>> from anonspread import spread
    >>> b = spread.simulate_many(spread.graphs.regular_tree(3), spread.RandomDiffusion(0.5), 4, 100,
    ...                          rng=1)
    >>> float(b.n_infected.mean())
    13.93
    """

    kernel_code = _kernels.RANDOM_DIFFUSION

    def __init__(self, p: float = 0.5) -> None:
        self.p = check_probability(p, "p")

    def _params(self):
        return {"p": self.p}

    def kernel_params(self, graph, T):
        return np.array([self.p], np.float64)

    def message_behaviour(self, graph, T, *, rng):
        # Every infected node flips a ``p``-coin per unknown contact at each tick.
        return MessageBehaviour(_DiffusionNode, ("p", self.p))


@register_protocol("line")
class LineProtocol(Protocol):
    """Protocol 1, spreading on a line (thesis §2.2.1, Eq. 2.3).

    At step ``t`` a boundary node ``v`` (an infected node with uninfected neighbours)
    infects each uninfected neighbour independently with probability
    ``(dist(v, source) + 1) / (t + 1)``. On the line the infected interval's two ends
    are then uniform on ``{0..T}`` and ``E[N_T] = T + 1`` (Prop. 2.2.1a). The rule runs
    unchanged on trees (thesis Fig. 2.3); on graphs with cycles ``dist`` is the hop
    count along the path the message took (what a node can know).

    Examples
    --------
    >>> from anonspread import spread
    >>> s = spread.simulate(spread.graphs.line(), LineProtocol(), T=10, rng=3)
    >>> 1 <= s.infected.size <= 21
    True
    """

    kernel_code = _kernels.LINE_PROTOCOL

    def message_behaviour(self, graph, T, *, rng):
        # The rumour carries its hop count; a node at ``dist`` infects with ``(dist + 1) / (t + 1)``.
        return MessageBehaviour(_DiffusionNode, ("line", None))


@register_protocol("tree-pseudocode")
class TreeProtocolPseudocode(Protocol):
    """The thesis's printed pseudo-code of Protocol 2, read literally (NOT Protocol 2).

    At ``t = 1`` the source infects one uniformly chosen neighbour u (``s1 = s2 = 1``).
    At each later step every node v infected before the step with ``s2_v > 0`` acts:
    if ``s1_v = 1`` it infects one uniformly chosen uninfected neighbour u
    (``s1_u = 1``, ``s2_u = s2_v + 1``) and sets ``s1_v = 0``; otherwise it infects all
    its uninfected neighbours w (``s1_w = 0``, ``s2_w = s2_v - 1``) and sets
    ``s2_v = 0``. The source's other neighbours are never infected.

    How it differs from :class:`TreeProtocol` (the protocol of the thesis's prose and
    Figure 2.4): the token-carrying node moves one hop *every* step and the side
    branches it leaves behind grow for a number of steps that shrinks with their
    distance from the source, so the infected tree is not balanced around a centre
    and the source is not one of its leaves. **Proposition 2.2.2 does not hold for
    it**: exact enumeration over all trajectories on the 3-regular tree gives an ML
    detection probability of 1/2, 1/2, 1/4, 1/8 at T = 2, 4, 6, 8, above Eq. (2.8)'s
    1/3, 1/6, 1/12, 1/24 at every even T >= 2 (see ``docs/spreading.md``). It is kept
    only so that the printed pseudo-code can be studied; use :class:`TreeProtocol`.

    Examples
    --------
    After four steps it has infected 7 nodes, where :class:`TreeProtocol` infects the
    10 of a ball of radius 2, and the source has one infected neighbour:

    >>> from anonspread import spread
    >>> s = spread.simulate(spread.graphs.regular_tree(3), spread.TreeProtocolPseudocode(),
    ...                     T=4, rng=1)
    >>> s.sizes.tolist()
    [1, 2, 3, 5, 7]
    >>> infected = set(s.infected.tolist())
    >>> [v in infected for v in s.graph.neighbors(s.source).tolist()].count(True)
    1
    """

    kernel_code = _kernels.TREE_PROTOCOL

    def message_behaviour(self, graph, T, *, rng):
        # ``s1`` and ``s2`` travel with the rumour (:class:`~spread.nodes._PseudocodeTreeNode`).
        return MessageBehaviour(_PseudocodeTreeNode)


@register_protocol("tree")
class TreeProtocol(Protocol):
    """Protocol 2, spreading on a regular tree, as the thesis's prose and Figure 2.4 describe it.

    At ``t = 1`` the source infects one uniformly chosen neighbour ``v_1``, the virtual
    source; at ``t = 2`` ``v_1`` infects all its uninfected neighbours, so ``G_2`` is
    the ball of radius 1 around ``v_1``. Then every two steps the virtual-source
    token moves one hop, to a uniform neighbour ``v_{k+1}`` of ``v_k`` other than
    ``v_{k-1}``, and the infection grows by two levels on ``v_{k+1}``'s side (step
    ``2k + 1``: the uninfected neighbours of the nodes within ``k - 1`` hops of
    ``v_{k+1}`` there; step ``2k + 2``: their neighbours). Hence

    * at even ``T = 2k``, ``G_T`` is the ball of radius ``k`` around ``v_k`` and the
      source is one of its leaves (it is ``k`` hops from ``v_k``);
    * at odd ``T = 2k + 1``, ``G_T`` is every node within ``k`` hops of the edge
      ``{v_k, v_{k+1}}``, a tree with two symmetric centres, and the source is one of
      its ``2 (d-1)^k`` leaves (``{source, v_1}`` at ``T = 1``).

    On a d-regular tree every leaf is equally likely to be the source (the likelihood
    of a leaf is ``1/d * (d-1)^-(k-1)`` for even T, the same for every leaf), so the
    ML detection probability is ``1 / #leaves = (d-1) / (2 + (d-2) N_T)``, Eq. (2.8) of
    Proposition 2.2.2, at every ``T >= 1``; this is the protocol that proposition is
    about. The thesis's printed pseudo-code is a different protocol for which the
    proposition fails; it stays reachable as :class:`TreeProtocolPseudocode`.

    Implementation: this is adaptive diffusion whose virtual source always passes the
    token (``alpha = 0``), so it runs the same kernels, message-level engine and
    relay of Infection Messages as ``AdaptiveDiffusion(d0=math.inf)`` (the same ``rng``
    gives the same run). On finite graphs a virtual source with no infection-tree
    child keeps the token (the ball then grows around it), and on graphs with cycles
    infection messages travel along infection edges, as for Protocol 3.

    Examples
    --------
    >>> from anonspread import spread
    >>> s = spread.simulate(spread.graphs.regular_tree(3), TreeProtocol(), T=4, rng=1)
    >>> hops, v = 0, s.virtual_source  # the source is a leaf of the ball of radius 2
    >>> while s.parent[v] is not None:
    ...     hops, v = hops + 1, s.parent[v]
    >>> s.n_infected, hops
    (10, 2)
    """

    kernel_code = _kernels.ADAPTIVE_DIFFUSION
    has_virtual_source = True
    #: The virtual source never keeps the token: the alpha table of d0 = inf.
    d0 = math.inf
    relay = "tree"
    infectors = "all"
    max_infections_per_step = None

    def _as_adaptive(self) -> AdaptiveDiffusion:
        return AdaptiveDiffusion(d0=math.inf)

    def design_degree(self, graph) -> float:
        """``math.inf``: the alpha table is identically 0 (the token always moves).

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The graph of the run (not read).

        Returns
        -------
        float
            ``math.inf``.
        """
        return math.inf

    def kernel_params(self, graph, T):
        return self._as_adaptive().kernel_params(graph, T)

    def summary_params(self, graph, T):
        return self._as_adaptive().summary_params(graph, T)

    def growth_hint(self, graph, T):
        return self._as_adaptive().growth_hint(graph, T)

    def message_behaviour(self, graph, T, *, rng):
        # Protocol 3's nodes with the alpha table of ``d0 = inf`` (the token always moves).
        return MessageBehaviour(_AdaptiveNode, (None, alpha_table(math.inf, max(T, 2) + 2), False))


# ----------------------------------------------------------------- Protocol 3


def alpha(d: float, t: int, h: int, *, exact: bool = False) -> float | Fraction:
    """The keep probability ``alpha_d(t, h)`` of adaptive diffusion (thesis Eq. 2.13).

    ``alpha_d(t, h) = ((d-1)^(t/2-h+1) - 1) / ((d-1)^(t/2+1) - 1)`` for ``d > 2``,
    ``(t - 2h + 2) / (t + 2)`` for ``d = 2``, and 0 for ``d = inf`` (the limit: the
    token always moves). ``t`` is even and ``1 <= h <= t/2``.

    The float value is computed as ``b^(-h) (1 - b^(-a)) / (1 - b^(-c))`` with
    ``b = d - 1``, ``a = t/2 - h + 1``, ``c = t/2 + 1`` (the same ratio divided through
    by ``b^c``), so no power overflows: it is accurate to a few ulps for every ``t``
    and ``d`` (``alpha(3, 2050, 1)`` is 0.5 to 1e-300).

    Parameters
    ----------
    d : int, float or math.inf
        Design degree ``d0 >= 2``.
    t, h : int
        An even step ``t >= 2`` and a hop count ``1 <= h <= t/2``.
    exact : bool
        Return a :class:`fractions.Fraction` (``d`` must then be an integer or inf).

    Examples
    --------
    >>> alpha(3, 2, 1, exact=True)
    Fraction(1, 3)
    >>> alpha(2, 4, 1, exact=True)
    Fraction(2, 3)
    >>> alpha(3, 2050, 1), alpha(3, 2050, 2)
    (0.5, 0.25)
    """
    d = _check_design_degree(d, "d")
    t = check_int(t, "t", low=2)
    if t % 2:
        raise InvalidParameterError(f"t must be an even integer >= 2; got {t!r}")
    h = check_int(h, "h", low=1, high=t // 2)
    if exact:
        if math.isinf(d):
            return Fraction(0)
        if not float(d).is_integer():
            raise InvalidParameterError(f"d must be an integer (or inf) when exact=True; got {d!r}")
        if d == 2:
            return Fraction(t - 2 * h + 2, t + 2)
        b = int(d) - 1
        return Fraction(b ** (t // 2 - h + 1) - 1, b ** (t // 2 + 1) - 1)
    return float(_alpha_row(d, t, np.array([h]))[0])


def _alpha_row(d: float, t: int, h: np.ndarray) -> np.ndarray:
    """``alpha_d(t, h)`` for an array of hop counts (no checks; see :func:`alpha`)."""
    if math.isinf(d):
        return np.zeros(h.shape)
    if d == 2:
        return (t - 2 * h + 2) / (t + 2)
    lb = math.log(float(d) - 1.0)
    a, c = t // 2 - h + 1, t // 2 + 1
    return np.exp(-h * lb) * np.expm1(-a * lb) / math.expm1(-c * lb)


def log_alpha(d: float, t: int, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log alpha_d(t, h)`` and ``log(1 - alpha_d(t, h))`` for an array of hop counts.

    Computed in log space (``-h log b + log(1 - b^-a) - log(1 - b^-c)`` and
    ``log(1 - b^-h) - log(1 - b^-c)``), so both are finite wherever the exact value is
    positive, even where ``alpha`` itself underflows (huge ``d``) or is within an ulp
    of 1; ``-inf`` only for an exact zero (``d = inf``, or ``h = t/2 + 1`` off the table).
    Used by the likelihood tables of :mod:`adversaries`. No checks (internal).

    Parameters
    ----------
    d : float >= 2
        The design degree (``math.inf`` allowed).
    t : int
        An even time step.
    h : numpy.ndarray
        Hop counts, ``1 <= h <= t/2``.

    Returns
    -------
    keep, move : numpy.ndarray of float64
        ``log alpha`` and ``log(1 - alpha)``, shaped as ``h``.

    Examples
    --------
    >>> import numpy as np
    >>> keep, move = log_alpha(3, 4, np.array([1, 2]))
    >>> np.round(np.exp(keep), 4).tolist(), np.round(np.exp(move), 4).tolist()
    ([0.4286, 0.1429], [0.5714, 0.8571])
    """
    h = np.asarray(h, dtype=float)
    if math.isinf(d):
        return np.full(h.shape, -math.inf), np.zeros(h.shape)
    with np.errstate(divide="ignore"):
        if d == 2:
            return np.log(t - 2 * h + 2) - math.log(t + 2), np.log(2 * h) - math.log(t + 2)
        lb = math.log(float(d) - 1.0)
        a, c = t // 2 - h + 1, t // 2 + 1
        norm = math.log(-math.expm1(-c * lb))
        keep = -h * lb + np.log(-np.expm1(-a * lb)) - norm
        move = np.log(-np.expm1(-h * lb)) - norm
    return keep, move


#: Largest alpha table built (entries); ``alpha_table`` refuses beyond (8 bytes each).
MAX_TABLE_ENTRIES = 1 << 27


def alpha_table(d: float, T: int) -> np.ndarray:
    """``alpha_d(t, h)`` for all even ``t <= T`` (rows) and ``h`` (columns).

    Shape ``(T + 1, T // 2 + 2)``; entries outside ``1 <= h <= t/2`` are 0. The
    simulators do not need it (their kernels evaluate Eq. 2.13 on the fly); a table of
    more than ``MAX_TABLE_ENTRIES`` entries (1 GiB) is refused, naming its size.

    Parameters
    ----------
    d : float >= 2
        The design degree (``math.inf``: every entry 0).
    T : int >= 0
        The last time step.

    Returns
    -------
    numpy.ndarray of float64
        The table, shape ``(T + 1, T // 2 + 2)``.

    Examples
    --------
    >>> alpha_table(3, 4)[4].round(4).tolist()
    [0.0, 0.4286, 0.1429, 0.0]
    """
    d = _check_design_degree(d, "d")
    T = check_int(T, "T", low=0)
    entries = (T + 1) * (T // 2 + 2)
    if entries > MAX_TABLE_ENTRIES:
        raise InvalidParameterError(
            f"T must be small enough for an alpha table of at most {MAX_TABLE_ENTRIES} entries; "
            f"got T={T}, whose table needs {entries} entries ({entries * 8 / 2**30:.1f} GiB)"
        )
    out = np.zeros((T + 1, T // 2 + 2), np.float64)
    for t in range(2, T + 1, 2):
        out[t, 1 : t // 2 + 1] = _alpha_row(d, t, np.arange(1, t // 2 + 1))
    return out


def _check_design_degree(d: Any, name: str, *, none: bool = False) -> Any:
    """``d`` checked as a design degree: a real >= 2 that is a float or inf (None if allowed)."""
    accepted = "a real number >= 2, math.inf" + (" or None" if none else "")
    if d is None and none:
        return None
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise InvalidTypeError(f"{name} must be {accepted}; got {d!r}")
    try:
        x = float(d)
    except OverflowError:
        raise InvalidParameterError(
            f"{name} must be {accepted} (at most {sys.float_info.max:.3g}); got an integer "
            f"of {len(str(abs(int(d))))} digits"
        ) from None
    if math.isnan(x) or x < 2:
        raise InvalidParameterError(f"{name} must be {accepted}; got {d!r}")
    return d


def _check_d0(d0: Any) -> float | None:
    if _check_design_degree(d0, "d0", none=True) is None:
        return None
    d0 = float(d0)
    if not math.isinf(d0) and d0.is_integer():
        return int(d0)
    return d0


_RELAYS = {"tree": 0, "graph": 1}
#: Who may infect new nodes when an infection message reaches it (kernel flag bit 2).
_INFECTORS = {"all": 0, "leaves": 2}
#: What a moving virtual source does at a dead end (kernel flag bit 8, AD_STUCK_PASS).
_STUCK = {"keep": 0, "pass": 8}


@register_protocol("adaptive-diffusion")
class AdaptiveDiffusion(Protocol):
    """Adaptive diffusion, Protocol 3 of the thesis (§2.3, §2.4).

    At ``t = 1`` the source passes the message and the virtual-source token to a
    uniform neighbour ``v_1``, which infects its uninfected neighbours at ``t = 2``.
    At each odd ``t >= 3`` the virtual source ``v`` (at hop count ``h`` from the
    source) keeps the token with probability ``alpha_{d0}(t - 1, h)`` (Eq. 2.13), and
    sends an infection message in every direction (step ``t``; nothing happens at
    ``t + 1``); otherwise it passes the token to a uniform neighbour ``u`` other than
    the one it received it from (``h += 1``), and ``u`` sends infection messages away
    from ``v`` at steps ``t`` and ``t + 1``. Infection messages are relayed along
    infection edges; every node they reach infects its uninfected neighbours. On a
    tree the infected set at even ``T`` is the ball of radius ``T/2`` around the
    virtual source; an odd ``T`` stops after the first of the two steps.

    On graphs with cycles (§2.4.2) the same rules run over the infection tree: the
    token moves only to a node the virtual source infected itself (never through a
    cycle; if it has none the token stays), and ``max_infections_per_step`` caps how
    many uninfected neighbours one node infects per step (a uniform subset; the
    thesis used 3 on Facebook).

    Parameters
    ----------
    d0 : None, float >= 2 or math.inf
        Design degree of the ``alpha`` table. ``None`` uses the graph's degree when
        the graph is regular (an error otherwise); ``math.inf`` always passes the token.
    max_infections_per_step : None or int >= 1
    relay : {"tree", "graph"}
        How infection messages travel on graphs with cycles: along infection edges
        only (``"tree"``, the default, the protocol as written), or forwarded once to
        every infected contact (``"graph"``: a flood of the infected subgraph that
        only avoids the previous virtual source). Both are identical on trees. On the
        ego-Facebook graph the tree relay's spread stalls in the branch the token
        entered while the graph relay reaches more of it; see ``docs/spreading.md``.
    infectors : {"all", "leaves"}
        Who, among the nodes an infection message reaches, infects new nodes (up to
        ``max_infections_per_step`` each): every one of them (``"all"``, the default,
        Protocol 3 as written), or only the current leaves of the infection tree
        (``"leaves"``: nodes that have not infected anyone yet). The second is the rule
        of the authors' public simulation code for the Facebook experiment (Figs. 2.8,
        2.9), as far as it can be read; the harness runs those figures with it. On a
        tree without cap the two differ only at the source: every other infected
        non-leaf is saturated, but the source, which infected only ``v_1``, never
        infects again under ``"leaves"``, so a token kept at ``v_1`` (finite ``d0``, or
        a dead end) leaves the source's other contacts uninfected. The rule is meant
        for ``d0 = math.inf`` on graphs with cycles, the Facebook setting.
    stuck : {"keep", "pass"}
        How the token moves on graphs with cycles. ``"keep"`` (the default, Protocol 3
        as written): to a uniform node the virtual source infected itself, and a virtual
        source without one keeps the token (a dead end). ``"pass"``: the rest of the
        authors' rule (their ``infect_nodes_adaptive_diff``, which the Facebook figures
        2.8-2.9 ran with ``infectors="leaves"``): the token goes to a uniform
        infection-tree neighbour other than the node it came from, and a virtual source
        whose only tree neighbour is that node sends it two rounds of infection messages
        and passes the token back to it (the hop count is not decreased, as in their
        code). Identical on trees without dead ends (infinite trees).

    Examples
    --------
    >>> from anonspread import spread
    >>> s = spread.simulate(spread.graphs.regular_tree(3), AdaptiveDiffusion(), T=4, rng=1)
    >>> s.infected.size  # the ball of radius 2 in a 3-regular tree
    10
    """

    kernel_code = _kernels.ADAPTIVE_DIFFUSION
    has_virtual_source = True

    def __init__(
        self,
        d0: float | None = None,
        max_infections_per_step: int | None = None,
        relay: str = "tree",
        infectors: str = "all",
        stuck: str = "keep",
    ) -> None:
        if not isinstance(relay, str) or relay not in _RELAYS:
            raise InvalidParameterError(f"relay must be one of {sorted(_RELAYS)}; got {relay!r}")
        if infectors not in _INFECTORS:
            raise InvalidParameterError(
                f"infectors must be one of {sorted(_INFECTORS)}; got {infectors!r}"
            )
        if not isinstance(stuck, str) or stuck not in _STUCK:
            raise InvalidParameterError(f"stuck must be one of {sorted(_STUCK)}; got {stuck!r}")
        self.relay = relay
        self.infectors = infectors
        self.stuck = stuck
        self.d0 = _check_d0(d0)
        self.max_infections_per_step = (
            None
            if max_infections_per_step is None
            else check_int(max_infections_per_step, "max_infections_per_step", low=1)
        )

    def _params(self):
        return {
            "d0": self.d0,
            "max_infections_per_step": self.max_infections_per_step,
            "relay": self.relay,
            "infectors": self.infectors,
            **({"stuck": self.stuck} if self.stuck != "keep" else {}),
        }

    def design_degree(self, graph) -> float:
        """``d0``, or the degree of a regular ``graph`` when ``d0`` is None.

        Parameters
        ----------
        graph : ContactGraph or LazyTree
            The graph of the run.

        Returns
        -------
        float
            The design degree of the alpha table.

        Raises
        ------
        GraphError
            When ``d0`` is None and ``graph`` is not regular of degree >= 2.
        """
        if self.d0 is not None:
            return self.d0
        d = graph.regular_degree()
        if d is None:
            raise GraphError(
                "AdaptiveDiffusion(d0=None) needs a regular graph (d0 defaults to its degree); "
                f"got an irregular graph {graph!r}: pass d0 explicitly (e.g. the mean degree) "
                "or d0=math.inf"
            )
        if d < 2:
            raise GraphError(
                f"AdaptiveDiffusion(d0=None) needs a regular graph of degree >= 2; got degree {d}"
            )
        return d

    def kernel_params(self, graph, T):
        d = self.design_degree(graph)
        cap = -1 if self.max_infections_per_step is None else self.max_infections_per_step
        flags = _RELAYS[self.relay] + _INFECTORS[self.infectors] + _STUCK[self.stuck]
        return np.array([cap, graph.max_degree(), flags, float(d)], np.float64)

    def summary_params(self, graph, T):
        params = self.kernel_params(graph, T)
        params[2] += _kernels.AD_SUMMARY_ONLY  # the tree path then only counts the ball
        return params

    def growth_hint(self, graph, T):
        d = max(graph.max_degree(), 2)
        if d == 2:
            return 4 * T + 64
        return int(min(1 + d * (d - 1) ** ((T + 1) // 2 + 1), 1 << 22)) + 64

    def message_behaviour(self, graph, T, *, rng):
        # Protocol 3's nodes (:class:`~spread.nodes._AdaptiveNode`): the token with its
        # ``(t, h)`` state, relayed Infection Messages along infection edges, the cap
        # through the offer/accept/decline handshake. The tree relay and ``stuck="keep"``
        # only.
        if self.stuck != "keep":
            raise InvalidParameterError(
                "protocol must use stuck='keep' in the message-level engine (the authors' "
                f"stuck-virtual-source rule runs in the compiled engine only); got {self!r}"
            )
        if self.relay != "tree":
            raise InvalidParameterError(
                "protocol must use relay='tree' in the message-level engine (the graph relay "
                f"needs a view of every infected contact); got {self!r}"
            )
        d = self.design_degree(graph)
        return MessageBehaviour(_AdaptiveNode, (self.max_infections_per_step,
                                               alpha_table(d, max(T, 2) + 2),
                                               self.infectors == "leaves"))
