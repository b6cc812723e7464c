"""The component registry: named, parametrised factories that sweeps combine.

A component is a named factory of some *kind*: ``graph``, ``protocol``,
``estimator``, ``mechanism``, ``utility``... with declared, typed parameters
(:class:`~harness.params.Param`). :func:`register_component` adds one, as a call or
as a decorator; the built-in components are registered exactly the way a user's
module (``anonspread --import mymodule``) registers its own::

    @register_component("graph", "ring")
    def ring(n: int = 100, *, rng):          # typed defaults become parameters
        return networkx.cycle_graph(n)

A component's parameters are sweep axes named ``<axis>.<parameter>`` (``graph.n``,
``protocol.p``); each value is checked against the declared type before a run starts.
A factory that takes a keyword-only ``rng`` is *random*: it gets one more parameter,
``seed`` (int >= 0, default 0), and is called with ``rng=seed``.

Packages other than the harness never import it (the data flow is one way), so the
harness's gallery modules register the other packages' factories.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.harness.kinds import KINDS
from anonspread.harness.params import REQUIRED, Param
from anonspread.registry import Registry

__all__ = [
    "Component",
    "KindConvention",
    "component_info",
    "declare_kind",
    "get_component",
    "kind_convention",
    "list_components",
    "register_component",
]

SEED = Param("int", 0, low=0, doc="seed of the component's own randomness")


@dataclass(frozen=True)
class Component:
    """A registered factory with its declared parameters.

    Calling the component calls the factory (``component(*args, **kwargs)``);
    :meth:`build` calls it with the parameters of a grid point.

    Parameters
    ----------
    kind, name : str
        The component's kind (``"graph"``) and its name within the kind.
    factory : callable
        What the component calls.
    description : str
        One line for ``anonspread sweep --list``.
    params : dict of str to Param
        Declared parameters (``seed`` included for random factories).
    random : bool
        The factory takes ``rng`` (called with ``rng=seed``).

    Examples
    --------
    >>> from anonspread import harness
    >>> er = harness.component_info("graph", "erdos-renyi")
    >>> sorted(er.params), er.random
    (['mean_degree', 'n', 'seed'], True)
    >>> er.values({"graph.n": 50}, "graph")
    {'n': 50, 'mean_degree': 5.0, 'seed': 0}
    >>> er.build(point={"graph.n": 50, "graph.seed": 3}, axis="graph")
    ContactGraph(n=50, m=123)
    """

    kind: str
    name: str
    factory: Callable[..., Any]
    description: str = ""
    params: Mapping[str, Param] = field(default_factory=dict)
    random: bool = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.factory(*args, **kwargs)

    def values(self, point: Mapping[str, Any], axis: str) -> dict[str, Any]:
        """This component's parameter values at a grid point (axes ``axis.p``, else defaults).

        Parameters
        ----------
        point : mapping of str to object
            A grid point, ``{"graph.n": 50, ...}``.
        axis : str
            The axis the component fills (``"graph"``); its parameters are ``axis.p``.

        Returns
        -------
        dict of str to object
            One value per declared parameter.
        """
        out = {}
        for p, spec in self.params.items():
            key = f"{axis}.{p}"
            if key in point:
                out[p] = point[key]
            elif spec.default is REQUIRED:
                raise InvalidParameterError(
                    f"{self.kind} {self.name!r} needs a value for {key!r} ({spec.describe()})"
                )
            else:
                out[p] = spec.default
        return out

    def build(self, *context: Any, point: Mapping[str, Any] | None = None, axis: str | None = None,
              **values: Any) -> Any:
        """Call the factory with ``context`` positionals and the parameter values.

        Parameters
        ----------
        *context
            The positional arguments the sweep supplies (the graph, for a protocol).
        point : mapping of str to object, optional
            A grid point to read the parameter values from (:meth:`values`).
        axis : str, optional
            The axis of ``point`` the component fills (default: its kind).
        **values
            Parameter values; they win over those of ``point``.

        Returns
        -------
        object
            What the factory returns.
        """
        params = self.values(point or {}, axis or self.kind) if point is not None else {}
        params.update(values)
        seed = params.pop("seed", SEED.default) if self.random else None
        if self.random:
            params["rng"] = seed
        return self.factory(*context, **params)



@dataclass(frozen=True)
class KindConvention:
    """How the sweeps call the factories of one component kind.

    One convention for every kind: the *context* the sweep supplies comes first,
    positionally (the graph, for a protocol); the component's own parameters follow as
    keywords; randomness arrives only as the keyword ``rng``.

    Parameters
    ----------
    kind : str
        The component kind.
    context : tuple of str
        Names of the positional arguments the sweep passes first.
    rng : {"seed", "trial"}
        ``"seed"``: a keyword-only ``rng`` is optional and makes the component random,
        with a ``seed`` parameter (``rng=seed``); ``"trial"``: the sweep always passes the
        trial's :class:`numpy.random.Generator` as ``rng=`` (required, no ``seed``).
    returns : str
        What the factory returns (for messages and docs).

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.KindConvention("doc-noise", context=("k",), rng="trial").signature()
    'factory(k, *, rng, **params)'
    """

    kind: str
    context: tuple[str, ...] = ()
    rng: str = "seed"
    returns: str = ""

    def signature(self) -> str:
        """The expected signature, e.g. ``f(k, *, rng, **params) -> a utility``."""
        args = [*self.context, "*"]
        args.append("rng" if self.rng == "trial" else "rng (optional)")
        args.append("**params")
        out = f"factory({', '.join(args)})"
        return f"{out} -> {self.returns}" if self.returns else out


#: Declared calling conventions by component kind.
_CONVENTIONS: Registry[KindConvention] = Registry("component calling convention")


def declare_kind(kind: str, *, context: tuple[str, ...] = (), rng: str = "seed", returns: str = "",
                 replace: bool = False) -> KindConvention:
    """Declare how sweeps call the factories of ``kind``; :func:`register_component` then
    checks every factory of that kind against it when it is registered.

    Parameters
    ----------
    kind : str
        The component kind (``"graph"``, ``"protocol"``, or a new one).
    context, rng, returns
        The fields of :class:`KindConvention` of the same names.
    replace : bool
        Replace a different convention already declared for ``kind``.

    Returns
    -------
    KindConvention

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.declare_kind("doc-noise", context=("k",), rng="trial", returns="an array",
    ...                      replace=True).signature()
    'factory(k, *, rng, **params) -> an array'
    """
    if rng not in ("seed", "trial"):
        raise InvalidParameterError(f"rng must be 'seed' or 'trial'; got {rng!r}")
    if kind in _CONVENTIONS and not replace and _CONVENTIONS[kind] != KindConvention(kind, tuple(context), rng, returns):
        raise InvalidParameterError(f"component kind {kind!r} already has a calling convention")
    conv = KindConvention(kind, tuple(context), rng, returns)
    return _CONVENTIONS.add(kind, conv, replace=True)


# The kinds of the built-in sweep templates (docs/harness.md has a worked example of each).
declare_kind("graph", returns="a networkx graph, a ContactGraph or an infinite tree")
declare_kind("protocol", context=("graph",), returns="a spread.Protocol")
declare_kind("estimator", returns="a function snapshot -> {node: score}")
declare_kind("mechanism", context=("utility", "eps"), returns="a mechanism (row-stochastic matrix)")
declare_kind("utility", context=("k",), rng="trial", returns="a privacy.utility.SublinearUtility")


def kind_convention(kind: str) -> KindConvention | None:
    """The declared convention of ``kind`` (None for a kind without one).

    Parameters
    ----------
    kind : str
        A component kind.

    Returns
    -------
    KindConvention or None

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.kind_convention("protocol").signature()
    'factory(graph, *, rng (optional), **params) -> a spread.Protocol'
    >>> harness.kind_convention("no-such-kind") is None
    True
    """
    return _CONVENTIONS.get(kind, None)


def _check_convention(conv: KindConvention, name: str, factory: Callable[..., Any]) -> None:
    """Refuse a factory the sweeps could not call, naming it and the expected signature."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return  # a builtin without introspectable signature: trusted
    fname = getattr(factory, "__name__", type(factory).__name__)
    where = f"{conv.kind} {name!r}: {fname}{sig}"
    expected = f"the sweeps call a {conv.kind} as {conv.signature()}"
    try:
        sig.bind_partial(*conv.context)
    except TypeError:
        ctx = ", ".join(conv.context) or "nothing"
        raise InvalidTypeError(
            f"{where} cannot be called that way: {expected} (it must take {ctx} positionally)"
        ) from None
    params = sig.parameters
    rng = params.get("rng")
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    if conv.rng == "trial":
        ok = (rng is not None and rng.kind in (rng.KEYWORD_ONLY, rng.POSITIONAL_OR_KEYWORD)) or var_kw
        if not ok:
            raise InvalidTypeError(f"{where} takes no keyword 'rng': {expected}")
        if rng is not None and rng.kind is rng.POSITIONAL_OR_KEYWORD and \
                list(params).index("rng") < len(conv.context):
            raise InvalidTypeError(f"{where} takes 'rng' where the sweep passes context: {expected}")
    elif rng is not None and rng.kind is not rng.KEYWORD_ONLY:
        raise InvalidTypeError(
            f"{where} takes 'rng' positionally; make it keyword-only (def f(..., *, rng)): {expected}"
        )


_ANNOTATIONS = {"bool": "bool", "int": "int", "float": "float", "str": "str"}


def _param_type(annotation: Any, default: Any) -> str | None:
    if isinstance(annotation, type) and annotation.__name__ in _ANNOTATIONS:
        return annotation.__name__
    if isinstance(annotation, str):
        for word in annotation.replace("|", " ").replace(",", " ").split():
            if word in _ANNOTATIONS:
                return word
    for t in (bool, int, float, str):
        if type(default) is t:
            return t.__name__
    return None


def signature_params(factory: Callable[..., Any]) -> tuple[dict[str, Param], bool]:
    """Parameters declared by a factory's signature, and whether it is random.

    A keyword-only ``rng`` makes it random. Every keyword parameter with a default (other than ``rng``) whose annotation or
    default is ``int``, ``float``, ``str`` or ``bool`` becomes a :class:`Param` with
    that default; a keyword-only parameter without default is required.
    """
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return {}, False
    params: dict[str, Param] = {}
    rng = sig.parameters.get("rng")
    random = rng is not None and rng.kind is rng.KEYWORD_ONLY
    for p in sig.parameters.values():
        if p.name == "rng" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            continue
        default = p.default
        if default is inspect.Parameter.empty:
            if p.kind is not p.KEYWORD_ONLY:
                continue  # a positional context argument (the graph, for a protocol)
            default = REQUIRED
        kind = _param_type(p.annotation, default)
        if kind is None:
            continue
        params[p.name] = Param(kind, default, allow_inf=kind == "float")
    return params, random


def register_component(
    kind: str,
    name: str,
    factory: Callable[..., Any] | None = None,
    *,
    description: str = "",
    params: Mapping[str, Param] | None = None,
    replace: bool = False,
) -> Any:
    """Register ``factory`` as component ``name`` of ``kind`` (or decorate it).

    Parameters
    ----------
    kind : str
        Component family, e.g. ``"graph"``; a new kind is created on first use.
    name : str
        The value users write in a sweep (``--set graph=erdos-renyi``).
    factory : callable, optional
        Omit it to use ``register_component`` as a decorator. Use a module-level
        function or class so it can be sent to worker processes.
    description : str
        One line for ``anonspread sweep --list`` (default: the docstring's first line).
    params : dict of str to Param, optional
        Declared parameters; by default they are read from the factory's signature
        (typed keyword parameters with defaults). Entries given here replace or add
        to those (to declare bounds or choices).
    replace : bool
        Allow re-registering an existing name.

    Returns
    -------
    The factory (so the decorator leaves the function usable as it was).

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.register_component("doc-kind", "square", pow, replace=True) is pow
    True
    >>> harness.get_component("doc-kind", "square")(3, 2)
    9
    >>> @harness.register_component("doc-kind", "scaled", replace=True)
    ... def scaled(x, *, factor: float = 2.0):
    ...     return factor * x
    >>> c = harness.component_info("doc-kind", "scaled")
    >>> c.params["factor"].type, c.build(3, point={"doc-kind.factor": 0.5}, axis="doc-kind")
    ('float', 1.5)
    """
    if factory is None:
        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            return register_component(kind, name, fn, description=description, params=params,
                                      replace=replace)
        return decorate
    if not isinstance(kind, str) or not kind or not isinstance(name, str) or not name:
        raise InvalidParameterError(f"kind and name must be non-empty strings; got {kind!r}, {name!r}")
    if not callable(factory):
        raise InvalidParameterError(f"factory must be callable; got {factory!r}")
    if kind not in KINDS:  # (first, so the gallery -- and the built-in conventions -- are loaded)
        KINDS.add(kind, Registry(kind, listing="anonspread sweep --list"))
    conv = _CONVENTIONS.get(kind, None)
    if conv is not None:
        _check_convention(conv, name, factory)
    declared, random = signature_params(factory)
    if conv is not None:
        for ctx in conv.context:
            declared.pop(ctx, None)
        if conv.rng == "trial":
            random = False  # the sweep passes the trial's stream; no seed parameter
    for key, spec in (params or {}).items():
        if not isinstance(spec, Param):
            raise InvalidTypeError(f"params[{key!r}] of {kind} {name!r} must be a harness.Param; got {spec!r}")
        if not key.isidentifier():
            raise InvalidParameterError(f"parameter names must be identifiers; got {key!r}")
        declared[key] = spec
    if random:
        declared.setdefault("seed", SEED)
    if not description and inspect.isfunction(factory):
        description = ((factory.__doc__ or "").strip().splitlines() or [""])[0]
    registry = KINDS.get(kind)
    comp = Component(kind, name, factory, description, dict(declared), random)
    same = name in registry and registry.get(name).factory is factory
    registry.add(name, comp, replace=replace or same)
    return factory


def get_component(kind: str, name: str) -> Callable[..., Any]:
    """The factory registered as ``name`` of ``kind`` (unknown names suggest close ones).

    Parameters
    ----------
    kind : str
        ``"graph"``, ``"protocol"``, ``"estimator"``, ... (:func:`list_components`).
    name : str
        A component of that kind.

    Examples
    --------
    >>> from anonspread import harness
    >>> make = harness.get_component("graph", "regular-3")
    >>> make().regular_degree()
    3
    """
    return component_info(kind, name).factory


def component_info(kind: str, name: str) -> Component:
    """The full :class:`Component` record (unknown names suggest close ones).

    Parameters
    ----------
    kind : str
        ``"graph"``, ``"protocol"``, ``"estimator"``, ... (:func:`list_components`).
    name : str
        A component of that kind.

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.component_info("graph", "regular-3").kind
    'graph'
    """
    return KINDS.get(kind).get(name)


def list_components(kind: str | None = None) -> dict[str, list[str]]:
    """Registered component names by kind (only ``kind`` when given).

    Parameters
    ----------
    kind : str, optional
        One kind only.

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.list_components("protocol")["protocol"][:4]
    ['adaptive-diffusion', 'flooding', 'line', 'random-diffusion']
    """
    kinds = [kind] if kind is not None else KINDS.names()
    return {k: KINDS.get(k).names() for k in kinds}
