"""The registry of bundled data files: what each one is, where it lives, its checksum.

Every file the package ships is described once here by a :class:`DatasetInfo`
(file name, SHA-256, kind, description, citation, licence, source). Loaders look a
dataset up with :func:`info`, which rejects unknown names with the list of known
ones, and get a verified path from :func:`path`.

Internal hook (for tests only): the files are looked up in the directory held by
the module attribute ``_DATA_DIR``, read at call time, so a test can point the
loaders at a temporary copy with
``monkeypatch.setattr(datasets._registry, "_DATA_DIR", tmp_path)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from anonspread.datasets._integrity import verify
from anonspread.errors import InvalidParameterError, InvalidTypeError, UnknownNameError
from anonspread.registry import Registry, suggest

__all__ = ["DatasetInfo", "info", "list_datasets", "path"]

_DATA_DIR: Path = Path(__file__).resolve().parent

_SNAP = "J. Leskovec and A. Krevl, SNAP Datasets: Stanford Large Network Dataset Collection, 2014"
_SNAP_LICENCE = "no explicit licence on the SNAP page; SNAP asks users to cite the paper(s) above"
_ADULT_CITATION = (
    "Becker, B. and Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5XW20"
)
_ADULT_LICENCE = "CC BY 4.0 (as listed by the UCI Machine Learning Repository)"
_ADULT_SOURCE = "https://archive.ics.uci.edu/dataset/2/adult"


@dataclass(frozen=True)
class DatasetInfo:
    """Description of one bundled data file.

    Parameters
    ----------
    name : str
        The name loaders take (lower case, e.g. ``"ego-facebook"``).
    filename : str
        The file's name inside the ``datasets`` package directory.
    sha256 : str
        SHA-256 (hex) of the file as shipped; loaders refuse a file that differs.
    kind : str
        ``"graph"`` (an edge list, read by :func:`datasets.load_graph`), ``"table"``
        (records, read by :func:`datasets.load_adult`) or ``"text"`` (documentation).
    description : str
        One line on what the data are.
    citation : str
        What to cite when using the data.
    licence : str
        The redistribution terms as far as known.
    source : str
        Where the original comes from.

    Examples
    --------
    >>> from anonspread import datasets
    >>> d = datasets.info("ego-facebook")
    >>> d.name, d.kind, d.filename
    ('ego-facebook', 'graph', 'facebook_combined.txt.gz')
    """

    name: str
    filename: str
    sha256: str
    kind: str
    description: str
    citation: str
    licence: str
    source: str


_ENTRIES = (
    DatasetInfo(
        name="ego-facebook",
        filename="facebook_combined.txt.gz",
        sha256="7cc432d08910b3a940ce90f7da94c13aaf048b04724eafcdf3050b28acc49daf",
        kind="graph",
        description="SNAP ego-Facebook: friendships of 10 Facebook ego networks combined "
        "(undirected; 4,039 nodes, 88,234 edges)",
        citation="J. McAuley and J. Leskovec, Learning to Discover Social Circles in Ego "
        f"Networks, NIPS 2012; {_SNAP}",
        licence=_SNAP_LICENCE,
        source="https://snap.stanford.edu/data/ego-Facebook.html",
    ),
    DatasetInfo(
        name="email-eu-core",
        filename="email-Eu-core.txt.gz",
        sha256="4b47acdb80197b085fe63c819c357ae488131ee904ed93d1b219a68b0f9e245f",
        kind="graph",
        description="SNAP email-Eu-core: e-mails in a European research institution "
        "(directed in the file; 1,005 nodes, 25,571 directed edges)",
        citation="H. Yin, A. R. Benson, J. Leskovec, D. F. Gleich, Local Higher-order Graph "
        "Clustering, KDD 2017; J. Leskovec, J. Kleinberg, C. Faloutsos, Graph Evolution: "
        f"Densification and Shrinking Diameters, ACM TKDD 1(1), 2007; {_SNAP}",
        licence=_SNAP_LICENCE,
        source="https://snap.stanford.edu/data/email-Eu-core.html",
    ),
    DatasetInfo(
        name="ca-grqc",
        filename="ca-GrQc.txt.gz",
        sha256="a254442cdf5d684712578b630c2e0d7543518ab154ef2341cabb607572ce7230",
        kind="graph",
        description="SNAP ca-GrQc: arXiv General Relativity co-authorships 1993-2003 "
        "(undirected; 5,242 nodes, 14,484 edges without self-loops)",
        citation="J. Leskovec, J. Kleinberg, C. Faloutsos, Graph Evolution: Densification "
        f"and Shrinking Diameters, ACM TKDD 1(1), 2007; {_SNAP}",
        licence=_SNAP_LICENCE,
        source="https://snap.stanford.edu/data/ca-GrQc.html",
    ),
    DatasetInfo(
        name="soc-slashdot",
        filename="soc-Slashdot0902.txt.gz",
        sha256="65072f0a2d98a444967bf3b8379a87e03292f2f9f8924f4fe470ddd047c95553",
        kind="graph",
        description="SNAP soc-Slashdot0902: Slashdot Zoo friend/foe links, February 2009 "
        "(directed in the file; 82,168 nodes, 948,464 directed edges)",
        citation="J. Leskovec, K. Lang, A. Dasgupta, M. Mahoney, Community Structure in "
        "Large Networks: Natural Cluster Sizes and the Absence of Large Well-Defined "
        f"Clusters, Internet Mathematics 6(1), 2009; {_SNAP}",
        licence=_SNAP_LICENCE,
        source="https://snap.stanford.edu/data/soc-Slashdot0902.html",
    ),
    DatasetInfo(
        name="adult-train",
        filename="adult_train.csv.gz",
        sha256="2ad6f26656334d896732307d90ef712de06e515f2ab98e3c6316fffd36cbdc15",
        kind="table",
        description="UCI Adult training split (32,561 rows), derived CSV with a header row; "
        "values unchanged from adult.data",
        citation=_ADULT_CITATION,
        licence=_ADULT_LICENCE,
        source=_ADULT_SOURCE,
    ),
    DatasetInfo(
        name="adult-test",
        filename="adult_test.csv.gz",
        sha256="7dc9b5f2c81301653b071666a6cfa6fb2d4186e9624bcfa6a811a4b522114bd0",
        kind="table",
        description="UCI Adult test split (16,281 rows), derived CSV with a header row; "
        "values unchanged from adult.test (labels keep their trailing '.')",
        citation=_ADULT_CITATION,
        licence=_ADULT_LICENCE,
        source=_ADULT_SOURCE,
    ),
    DatasetInfo(
        name="adult-data-original",
        filename="adult.data.gz",
        sha256="c7a2b4716a97f930123e0baf879188d701e798172631a654fc703d4b082907f3",
        kind="table",
        description="UCI Adult adult.data as distributed (no header, ', ' separated)",
        citation=_ADULT_CITATION,
        licence=_ADULT_LICENCE,
        source=_ADULT_SOURCE,
    ),
    DatasetInfo(
        name="adult-test-original",
        filename="adult.test.gz",
        sha256="8a2c1bffa6e7ce5abfa43881ae5e87c4311ebc2b3cd526c9c40a43f19f06f799",
        kind="table",
        description="UCI Adult adult.test as distributed (first line '|1x3 Cross validator', "
        "no header, ', ' separated)",
        citation=_ADULT_CITATION,
        licence=_ADULT_LICENCE,
        source=_ADULT_SOURCE,
    ),
    DatasetInfo(
        name="adult-names",
        filename="adult.names.gz",
        sha256="1e8ee543cb81fc9590b1a20392e41f28eab971ac9dbe519269cdf7d4658b62f2",
        kind="text",
        description="UCI Adult adult.names: the original description of the data",
        citation=_ADULT_CITATION,
        licence=_ADULT_LICENCE,
        source=_ADULT_SOURCE,
    ),
)

#: The bundled datasets by (lower-case) name, in registry order.
_REGISTRY: Registry[DatasetInfo] = Registry("dataset", parameter="name")
for _entry in _ENTRIES:
    _REGISTRY.add(_entry.name, _entry)
del _entry


def list_datasets(kind: str | None = None) -> list[str]:
    """Return the names of the bundled datasets, in registry order.

    Parameters
    ----------
    kind : {None, "graph", "table", "text"}, optional
        Only the datasets of this kind (default: all).

    Returns
    -------
    list of str
        Names accepted by :func:`datasets.path` and :func:`datasets.info`.

    Examples
    --------
    >>> from anonspread import datasets
    >>> datasets.list_datasets("graph")
    ['ego-facebook', 'email-eu-core', 'ca-grqc', 'soc-slashdot']
    """
    kinds = sorted({entry.kind for entry in _REGISTRY.values()})
    if kind is not None and kind not in kinds:
        raise InvalidParameterError(f"kind must be None or one of {kinds}; got {kind!r}")
    return [entry.name for entry in _REGISTRY.values() if kind is None or entry.kind == kind]


def info(name: str, *, kind: str | None = None) -> DatasetInfo:
    """Return the registry entry of dataset ``name`` (case-insensitive).

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.
    kind : str, optional
        If given, also check that the dataset is of this kind (so that, e.g.,
        :func:`datasets.load_graph` rejects a table with a clear message).

    Returns
    -------
    DatasetInfo

    Raises
    ------
    InvalidTypeError
        If ``name`` is not a string.
    InvalidParameterError
        If ``name`` is unknown (the message lists the known names) or not of ``kind``.

    Examples
    --------
    >>> from anonspread import datasets
    >>> i = datasets.info("ego-facebook")
    >>> i.name, i.kind
    ('ego-facebook', 'graph')
    """
    if not isinstance(name, str):
        raise InvalidTypeError(f"name must be a dataset name (str); got {name!r}")
    entry = _REGISTRY.get(name.lower(), None)
    known = list_datasets(kind)
    if entry is None:
        raise UnknownNameError(f"name must be one of {known}; got {name!r}{suggest(name.lower(), known)}")
    if kind is not None and entry.kind != kind:
        raise InvalidParameterError(
            f"name must be one of {known} (a {kind} dataset); got {name!r}, "
            f"which is a {entry.kind} dataset"
        )
    return entry


def path(name: str) -> Path:
    """Return the path of the bundled file of dataset ``name``, after checking its SHA-256.

    The checksum is computed once per process and file (see
    :func:`datasets._integrity.verify`).

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (case-insensitive).

    Returns
    -------
    pathlib.Path
        The gzip-compressed file, as shipped.

    Raises
    ------
    DatasetError
        If the file is missing or its checksum differs from the registry's.
    InvalidParameterError
        If ``name`` is unknown.

    Examples
    --------
    >>> from anonspread import datasets
    >>> datasets.path("ego-facebook").name
    'facebook_combined.txt.gz'
    """
    entry = info(name)
    file = Path(_DATA_DIR) / entry.filename
    verify(file, entry.sha256, dataset=entry.name)
    return file
