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

from harness.components import (
    Component,
    component_info,
    get_component,
    list_components,
    register_component,
)
from harness.compose import SweepTemplate, compose, get_template, list_templates, register_template
from harness.errors import (
    ExecutorError,
    HarnessError,
    JournalMismatchError,
    OutputError,
    RunInterrupted,
    TrialError,
    UnknownNameError,
)
from harness.executors import Executor, make_executor, register_executor
from harness.experiment import Experiment, Metric, PlotSpec, Reference, Theory
from harness.grid import Grid, expand
from harness.params import Param
from harness.registry import (
    get_experiment,
    list_experiments,
    register_experiment,
    unregister_experiment,
)
from harness.results import Table, read_table
from harness.runner import RunResult, run
from harness.stats import normal_interval, wilson_interval

__all__ = [
    "Component",
    "Executor",
    "ExecutorError",
    "Experiment",
    "Grid",
    "HarnessError",
    "JournalMismatchError",
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
    "expand",
    "get_component",
    "get_experiment",
    "get_template",
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
