"""The shared evaluation harness: experiments, sweeps, executors, results, plots, CLI.

An :class:`Experiment` declares a parameter :class:`Grid`, its :class:`Metric`
list and one way to compute (a random ``trial``, a batched ``trials`` or an
exact ``evaluate``).  :func:`run` expands the grid, gives every (point, batch)
its own random stream spawned from one :class:`numpy.random.SeedSequence`,
executes on the chosen executor (in-process, local processes or Dask), journals
finished batches so a run can resume, and writes a tidy CSV with confidence
intervals, a JSON sidecar and a plot.  Experiments are found by name in a
registry (:func:`get_experiment`); the gallery of paper figures lives in
:mod:`harness.experiments`; ``anonspread`` (:mod:`harness.cli`) is the command
line.  Heavy modules (matplotlib, dask, tqdm, the gallery) load on first use.
"""

from anonspread.harness import compose as _compose
from anonspread.harness import kinds as _kinds
from anonspread.harness import registry as _registries
from anonspread.harness.components import (
    Component,
    KindConvention,
    component_info,
    declare_kind,
    get_component,
    kind_convention,
    list_components,
    register_component,
)
from anonspread.harness.compose import (
    SweepTemplate,
    compose,
    get_template,
    list_templates,
    register_template,
)
from anonspread.harness.errors import (
    ExecutorError,
    HarnessError,
    JournalMismatchError,
    OutputError,
    RunInterrupted,
    TrialError,
    UnknownNameError,
)
from anonspread.harness.executors import Executor, make_executor, register_executor
from anonspread.harness.experiment import Experiment, Metric, PlotSpec, Reference, Theory
from anonspread.harness.grid import Grid, expand
from anonspread.harness.params import Param
from anonspread.harness.pilot import CostEstimate
from anonspread.harness.registry import (
    get_experiment,
    list_experiments,
    register_experiment,
    unregister_experiment,
)
from anonspread.harness.results import Table, read_table
from anonspread.harness.runner import RunResult, estimate_cost, run
from anonspread.harness.stats import normal_interval, wilson_interval


def _load_gallery() -> None:
    """Import the gallery, whose modules register experiments, templates and components."""
    import anonspread.harness.experiments  # noqa: F401


# The harness fills its own registries: the gallery is imported on the first lookup of any
# of them (not at import: it loads every science package), and no registry imports it.
for _registry in (_registries._EXPERIMENTS, _kinds.KINDS, _compose._TEMPLATES):
    _registry.set_loader(_load_gallery)
del _registry

__all__ = [
    "Component",
    "CostEstimate",
    "Executor",
    "ExecutorError",
    "Experiment",
    "Grid",
    "HarnessError",
    "JournalMismatchError",
    "KindConvention",
    "Metric",
    "OutputError",
    "Param",
    "PlotSpec",
    "Reference",
    "RunInterrupted",
    "RunResult",
    "SweepTemplate",
    "Table",
    "Theory",
    "TrialError",
    "UnknownNameError",
    "component_info",
    "compose",
    "declare_kind",
    "estimate_cost",
    "expand",
    "get_component",
    "get_experiment",
    "get_template",
    "kind_convention",
    "list_components",
    "list_experiments",
    "list_templates",
    "make_executor",
    "normal_interval",
    "read_table",
    "register_component",
    "register_executor",
    "register_experiment",
    "register_template",
    "run",
    "unregister_experiment",
    "wilson_interval",
]
