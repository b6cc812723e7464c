"""anonspread: anonymous message spreading, source estimation and local privacy.

One import package. ``import anonspread as asp`` reaches what a user needs first::

    import anonspread as asp

    G = asp.load_graph("ego-facebook", min_degree=3)
    s = asp.simulate(G, asp.spread.AdaptiveDiffusion(float("inf")), T=4, rng=1)
    scores = asp.jordan_center(asp.observe(s))

and each subpackage:

* :mod:`anonspread.spread`: contact graphs, spreading protocols, the simulators;
* :mod:`anonspread.adversaries`: what an adversary observes, source estimators, metrics;
* :mod:`anonspread.privacy`: local privacy mechanisms, their optimisers and measures;
* :mod:`anonspread.harness`: experiments, sweeps, executors, results, plots, the CLI;
* :mod:`anonspread.datasets`: shipped real data and its loaders;
* :mod:`anonspread.engine`: the compiled kernels beneath them.

Names load on first use, so ``import anonspread`` is light; the error classes (the one
hierarchy every deliberate error of the project derives from) are here at once.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from anonspread.errors import (
    AnonspreadError,
    AnonspreadWarning,
    DatasetError,
    GraphError,
    InfeasibleError,
    InvalidParameterError,
    InvalidTypeError,
    ReachWarning,
    SaturationWarning,
    UnknownNameError,
)

try:
    __version__ = version("anonspread")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0+unknown"

#: The subpackages (the repository's top-level folders of the same names).
SUBPACKAGES = ("spread", "adversaries", "privacy", "harness", "datasets", "engine")

#: The front door: name -> the subpackage that defines it (imported on first use).
_FRONT = {
    "simulate": "spread",
    "simulate_many": "spread",
    "simulate_messages": "spread",
    "simulate_stems": "spread",
    "simulate_and_score": "adversaries",
    "observe": "adversaries",
    "Snapshot": "adversaries",
    "ml_adaptive_diffusion": "adversaries",
    "jordan_center": "adversaries",
    "rumor_centrality": "adversaries",
    "exact_likelihood": "adversaries",
    "pick": "adversaries",
    "detection_probability": "adversaries",
    "evaluate": "adversaries",
    "Mechanism": "privacy",
    "optimal_staircase": "privacy",
    "randomized_response": "privacy",
    "run": "harness",
    "compose": "harness",
    "read_table": "harness",
    "get_experiment": "harness",
    "list_experiments": "harness",
    "load_graph": "datasets",
}

__all__ = [
    "SUBPACKAGES",
    "AnonspreadError",
    "AnonspreadWarning",
    "DatasetError",
    "GraphError",
    "InfeasibleError",
    "InvalidParameterError",
    "InvalidTypeError",
    "ReachWarning",
    "SaturationWarning",
    "UnknownNameError",
    "__version__",
    *SUBPACKAGES,
    *_FRONT,
]


def __getattr__(name: str) -> Any:
    if name in SUBPACKAGES:
        module = importlib.import_module(f"anonspread.{name}")
    elif name in _FRONT:
        module = getattr(importlib.import_module(f"anonspread.{_FRONT[name]}"), name)
    else:
        raise AttributeError(f"module 'anonspread' has no attribute {name!r}")
    globals()[name] = module
    return module


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
