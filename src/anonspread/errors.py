"""The one exception hierarchy of anonspread.

Every error raised on purpose by the project derives from :class:`AnonspreadError`,
and the ones about arguments also derive from the matching builtin
(:class:`ValueError` or :class:`TypeError`) so that ``except ValueError`` keeps
working for users who do not know our classes.

Warnings the project issues about its *results* have classes of their own too, so that a
notebook can filter them (``warnings.simplefilter("ignore", asp.SaturationWarning)``):
:class:`AnonspreadWarning` and its subclasses, which also derive from
:class:`RuntimeWarning` (what they were before) so existing filters keep working.
"""

__all__ = [
    "AnonspreadError",
    "AnonspreadWarning",
    "DatasetError",
    "ExecutorError",
    "GraphError",
    "InfeasibleError",
    "InstallError",
    "InvalidParameterError",
    "InvalidTypeError",
    "ReachWarning",
    "SaturationWarning",
    "UnknownNameError",
]


class AnonspreadError(Exception):
    """Base class of every error raised on purpose by anonspread.

    Examples
    --------
    >>> import anonspread as asp
    >>> try:
    ...     asp.harness.get_experiment("compare-detectoin")
    ... except asp.AnonspreadError as exc:
    ...     print(type(exc).__name__, "-", exc)
    UnknownNameError - unknown experiment 'compare-detectoin'; did you mean 'compare-detection' or 'spies-detection'?
    """


class InvalidParameterError(AnonspreadError, ValueError):
    """An argument has the right type but a value that is not accepted.

    Examples
    --------
    >>> import anonspread as asp
    >>> asp.simulate(asp.spread.graphs.regular_tree(3), asp.spread.Flooding(), T=-1)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: T must be an integer >= 0; got -1
    >>> issubclass(asp.InvalidParameterError, ValueError)
    True
    """


class InvalidTypeError(AnonspreadError, TypeError):
    """An argument has a type that is not accepted.

    Examples
    --------
    >>> import anonspread as asp
    >>> asp.simulate(asp.spread.graphs.regular_tree(3), "flooding", T=2)
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidTypeError: protocol must be a spread.protocols.Protocol instance such as AdaptiveDiffusion(); got 'flooding'
    """


class GraphError(InvalidParameterError):
    """A contact graph (or a node of it) is not usable for the requested operation.

    Examples
    --------
    >>> import networkx as nx
    >>> import anonspread as asp
    >>> path = asp.spread.graphs.from_networkx(nx.path_graph(4))
    >>> asp.simulate(path, asp.spread.Flooding(), T=2, source=9)
    Traceback (most recent call last):
    ...
    anonspread.errors.GraphError: source must be a node of the graph; got 9
    """


class ExecutorError(AnonspreadError, RuntimeError):
    """An executor the caller passed could not run the tasks (its worker died, a process
    pool broke); the message says what happened and what to do.

    Examples
    --------
    >>> from anonspread.errors import ExecutorError
    >>> issubclass(ExecutorError, RuntimeError)
    True
    """


class InfeasibleError(AnonspreadError, RuntimeError):
    """An optimisation problem has no solution (reported, never silently mis-solved).

    Examples
    --------
    The vertices of ``{v >= 0 : v_0 <= -1}``, an empty polytope:

    >>> import numpy as np
    >>> from anonspread.privacy.funnel.polytope import polytope_vertices
    >>> A_ub, b_ub = np.array([[1.0, 0.0]]), np.array([-1.0])
    >>> polytope_vertices(A_ub, b_ub, np.zeros((0, 2)), np.zeros(0))
    Traceback (most recent call last):
    ...
    anonspread.errors.InfeasibleError: the polytope is empty
    """


class InstallError(AnonspreadError, ImportError):
    """A compiled extension of the engine is missing or damaged (a broken install).

    The message names the extension and its file, what the loader said, and how to
    reinstall; being an :class:`ImportError`, ``except ImportError`` still catches it.

    Examples
    --------
    >>> import anonspread as asp
    >>> [issubclass(asp.errors.InstallError, c) for c in (ImportError, asp.AnonspreadError)]
    [True, True]
    """


class DatasetError(AnonspreadError, OSError):
    """A bundled data file is missing, corrupted or unreadable.

    The message names the file looked at and, for a corrupt one, its expected and actual
    SHA-256; being an :class:`OSError`, it is caught with the other file errors.

    Examples
    --------
    >>> import anonspread as asp
    >>> [issubclass(asp.DatasetError, c) for c in (OSError, asp.AnonspreadError)]
    [True, True]
    """


class UnknownNameError(InvalidParameterError, KeyError):
    """A registry lookup failed; the message suggests the closest registered names.

    Examples
    --------
    >>> import anonspread as asp
    >>> asp.harness.get_component("graph", "regular3")
    Traceback (most recent call last):
    ...
    anonspread.errors.UnknownNameError: unknown graph 'regular3'; did you mean 'regular-3'...
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class AnonspreadWarning(UserWarning):
    """Base class of the warnings the harness issues about what a run's results mean
    (:class:`SaturationWarning`, :class:`ReachWarning`).

    Two other warnings are plain :class:`UserWarning` subclasses of their own: the ``bp``
    estimator's ``adversaries.BPConvergenceWarning`` and the edge-list reader's
    ``spread.graphfile.GraphFileWarning``.

    Examples
    --------
    >>> import warnings
    >>> import anonspread as asp
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", asp.AnonspreadWarning)  # these, nothing else
    ...     warnings.warn("spreads covered their component", asp.SaturationWarning)
    """


class SaturationWarning(AnonspreadWarning, RuntimeWarning):
    """Spreads infected the whole (or most of the) connected component of their source.

    Issued once per run by the harness: at points where some trials saturated (column
    ``saturated``) and at points whose mean coverage is high (``component_fraction`` >= 50%),
    where detection mixes hiding with having reached nearly everyone. Also a
    :class:`RuntimeWarning`, as it was before it had a class of its own.

    Examples
    --------
    >>> import anonspread as asp
    >>> issubclass(asp.SaturationWarning, RuntimeWarning), issubclass(asp.SaturationWarning, UserWarning)
    (True, True)
    """


class ReachWarning(AnonspreadWarning, RuntimeWarning):
    """Not every trial attained the reach a ``stop=infected:K`` or ``stop=coverage:F``
    asked for by the cap ``T`` (those snapshots are at ``T``, below the target; column
    ``reached``).

    Examples
    --------
    >>> import anonspread as asp
    >>> issubclass(asp.ReachWarning, asp.AnonspreadWarning)
    True
    """
