"""The experiment registry.

Experiments (and, in :mod:`harness.components`, sweep components) are added by
registering them, never by growing an if/elif chain. The gallery
(:mod:`harness.experiments`) fills it: :mod:`anonspread.harness` hands every harness
registry a loader that imports the gallery on the first lookup, so ``import
anonspread.harness`` stays light.
"""

from __future__ import annotations

from anonspread.harness.experiment import Experiment, check_experiment
from anonspread.registry import Registry, suggest

__all__ = [
    "Registry",
    "get_experiment",
    "list_experiments",
    "register_experiment",
    "suggest",
    "unregister_experiment",
]

_EXPERIMENTS: Registry[Experiment] = Registry("experiment")


def register_experiment(experiment: Experiment, *, replace: bool = False) -> Experiment:
    """Validate and register an experiment; returns it (so it can be kept in a name).

    Parameters
    ----------
    experiment : Experiment
        Its name must be new unless ``replace``.
    replace : bool
        Replace an experiment of the same name.

    Examples
    --------
    >>> from anonspread import harness
    >>> def coin(params, rng):
    ...     return {"heads": float(rng.random() < params["p"])}
    >>> exp = harness.register_experiment(harness.Experiment(
    ...     name="doc-coin", title="A biased coin", description="Estimates p.",
    ...     grid=harness.Grid(product={"p": [0.2, 0.7]}),
    ...     metrics=(harness.Metric("heads", "proportion"),), trial=coin), replace=True)
    >>> harness.get_experiment("doc-coin") is exp
    True
    """
    check_experiment(experiment)
    return _EXPERIMENTS.add(experiment.name, experiment, replace=replace)


def unregister_experiment(name: str) -> None:
    """Remove an experiment from the registry (tests use this to clean up).

    Parameters
    ----------
    name : str
        A registered experiment's name.

    Examples
    --------
    >>> from anonspread import harness
    >>> exp = harness.register_experiment(harness.Experiment(
    ...     name="doc-temp", title="t", description="d", grid=harness.Grid(product={"p": [0.5]}),
    ...     metrics=(harness.Metric("x", "mean"),), trial=lambda params, rng: {"x": 1.0}), replace=True)
    >>> harness.unregister_experiment("doc-temp")
    >>> "doc-temp" in [e.name for e in harness.list_experiments()]
    False
    """
    _EXPERIMENTS.remove(name)


def get_experiment(name: str) -> Experiment:
    """The registered experiment ``name``; unknown names suggest the closest ones.

    Parameters
    ----------
    name : str
        As ``anonspread list`` shows it.

    Returns
    -------
    Experiment

    Examples
    --------
    >>> from anonspread import harness
    >>> harness.get_experiment("compare-detection").title
    'Who finds the source? Adaptive diffusion vs random diffusion vs flooding, every estimator'
    """
    return _EXPERIMENTS.get(name)


def list_experiments() -> list[Experiment]:
    """All registered experiments, sorted by name.

    Examples
    --------
    >>> from anonspread import harness
    >>> "compare-detection" in [e.name for e in harness.list_experiments()]
    True
    """
    return [_EXPERIMENTS.get(n) for n in _EXPERIMENTS.names()]
