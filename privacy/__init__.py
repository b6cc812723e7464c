"""Local privacy mechanisms, their optimisers, and privacy and utility measures.

The topic modules (``privacy.utility``, ``privacy.mechanisms``, ``privacy.staircase``,
``privacy.dominance``, ``privacy.bounds``, ``privacy.profiles``, ``privacy.funnel``,
``privacy.krandom``, ``privacy.frequency``) and the public names re-exported from them are imported on first
attribute access, so ``from anonspread import privacy`` stays light.
"""

import importlib

from anonspread.privacy.mechanism import Mechanism

_SUBMODULES = (
    "utility",
    "mechanisms",
    "staircase",
    "dominance",
    "bounds",
    "profiles",
    "funnel",
    "krandom",
    "frequency",
)

# Public name -> the submodule defining it (resolved lazily by __getattr__).
_EXPORTS = {
    "binary_mechanism": "mechanisms",
    "binary_mechanism_mi": "mechanisms",
    "randomized_response": "mechanisms",
    "geometric_mechanism": "mechanisms",
    "quaternary_mechanism": "mechanisms",
    "binary_or_randomized_response": "mechanisms",
    "balanced_partition": "mechanisms",
    "optimal_staircase": "staircase",
    "solve_staircase_lp": "staircase",
    "StaircaseResult": "staircase",
    "pattern_matrix": "staircase",
    "dominates": "dominance",
    "error_region": "dominance",
    "dp_error_region": "dominance",
}

__all__ = ["Mechanism", *_EXPORTS, *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"anonspread.privacy.{name}")
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"anonspread.privacy.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'privacy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
