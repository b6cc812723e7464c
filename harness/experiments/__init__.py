"""The gallery: one module per topic, each registering its experiments on import.

Importing this package fills the experiment, component and sweep-template
registries; :func:`harness.get_experiment` does so on its first call.
"""

from harness.experiments import krandom  # noqa: F401

__all__: list[str] = []
