"""Bundled real data with attribution, and their loaders.

The files ship inside the package (see ``datasets/README.md`` for sources,
licences, citations and checksums); nothing is downloaded at run time. Every
loader checks the file's SHA-256 against the registry (once per process) and
raises :class:`anonspread.DatasetError` if it is missing or corrupt.

- :func:`load_graph` -- SNAP contact graphs as undirected simple networkx graphs
  (``"ego-facebook"``, ``"email-eu-core"``, ``"ca-grqc"``, ``"soc-slashdot"``),
  with the thesis's degree filter (``min_degree``); :func:`load_edges` -- the same
  graphs as arrays of nodes and edges (read and filtered without networkx).
- :func:`load_adult` -- the UCI Adult census records as :class:`Records`.
- :func:`list_datasets`, :func:`info`, :func:`path` -- the registry.
"""

from anonspread.datasets._registry import DatasetInfo, info, list_datasets, path
from anonspread.datasets.adult import ADULT_COLUMNS, Records, load_adult
from anonspread.datasets.graphs import load_edges, load_graph

__all__ = [
    "ADULT_COLUMNS",
    "DatasetInfo",
    "Records",
    "info",
    "list_datasets",
    "load_adult",
    "load_edges",
    "load_graph",
    "path",
]
