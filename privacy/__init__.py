"""Local privacy mechanisms, their optimisers, and privacy and utility measures.

The topic modules ``privacy.utility``, ``privacy.profiles``, ``privacy.funnel`` and
``privacy.krandom`` are imported on first attribute access, so ``import privacy``
stays light.
"""

import importlib

from privacy.mechanism import Mechanism

_SUBMODULES = ("utility", "profiles", "funnel", "krandom")

__all__ = ["Mechanism", *_SUBMODULES]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"privacy.{name}")
    raise AttributeError(f"module 'privacy' has no attribute {name!r}")
