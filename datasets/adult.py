"""Loader of the UCI Adult (Census Income, 1994) records, as light column arrays."""

from __future__ import annotations

import csv
import gzip
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from anonspread.datasets import _registry
from anonspread.errors import DatasetError, InvalidParameterError, InvalidTypeError

__all__ = ["ADULT_COLUMNS", "Records", "load_adult"]

#: Column names of the Adult data, in file order (as in ``adult.names``).
ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)

_INTEGER_COLUMNS = frozenset(
    {"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}
)
_SPLITS = {"train": "adult-train", "test": "adult-test"}
MISSING = "?"


@dataclass(frozen=True, eq=False)
class Records:
    """A table of records held as one numpy array per column.

    :func:`load_adult` returns one; iterating gives the column names.

    Parameters
    ----------
    columns : tuple of str
        Column names, in order.
    data : Mapping of str to numpy.ndarray
        One 1-D array per column, all of the same length (int64 for numeric
        columns, fixed-width ``str`` for categorical ones).

    Examples
    --------
    The share of UCI Adult's training records with an income above 50K, by sex:

    >>> import numpy as np
    >>> from anonspread import datasets
    >>> adult = datasets.load_adult()
    >>> adult
    Records(32561 rows x 15 columns: age, workclass, fnlwgt, education, education-num, marital-status, occupation, relationship, race, sex, capital-gain, capital-loss, hours-per-week, +2 more)
    >>> rich, sex = adult.column("income") == ">50K", adult.column("sex")
    >>> [round(float(rich[sex == s].mean()), 4) for s in ("Female", "Male")]
    [0.1095, 0.3057]
    """

    columns: tuple[str, ...]
    data: Mapping[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.data[self.columns[0]]) if self.columns else 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.columns)

    def column(self, name: str) -> np.ndarray:
        """Return the array of column ``name``.

        Parameters
        ----------
        name : str
            A column name.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        InvalidParameterError
            If there is no such column (the message lists the columns).
        """
        if name not in self.data:
            raise InvalidParameterError(
                f"name must be one of the columns {list(self.columns)}; got {name!r}"
            )
        return self.data[name]

    def __repr__(self) -> str:
        # one line: the size and the first columns while they fit (``columns`` has them all)
        head = f"Records({len(self)} rows x {len(self.columns)} columns: "
        names: list[str] = []
        for c in self.columns:
            if len(head) + len(", ".join([*names, c])) + 12 > 200:
                break
            names.append(c)
        rest = len(self.columns) - len(names)
        return head + ", ".join(names) + (f", +{rest} more)" if rest else ")")


def load_adult(split: str = "train", *, complete: bool = False) -> Records:
    """Load the UCI Adult census records (Becker and Kohavi, 1996).

    Reads the bundled CSV copy of ``adult.data`` (``split="train"``) or
    ``adult.test`` (``split="test"``) after checking its SHA-256 (once per
    process). The values are the original ones with the spaces after the commas
    removed, except the income label: the raw test file ends its labels with a
    period (``<=50K.`` / ``>50K.``), and this loader normalises both splits to
    ``"<=50K"`` / ``">50K"``. Missing values are the string ``"?"`` (they occur in
    ``workclass``, ``occupation`` and ``native-country`` only).

    Measured on the bundled files: train 32,561 rows (30,162 complete; labels
    24,720 ``<=50K`` / 7,841 ``>50K``), test 16,281 rows (15,060 complete; 12,435
    / 3,846), 15 columns (:data:`ADULT_COLUMNS`).

    Parameters
    ----------
    split : {"train", "test"}, default "train"
        Which split of the data.
    complete : bool, default False
        Drop the rows that have a missing value (``"?"``) in any column.

    Returns
    -------
    Records
        Columns ``age``, ``fnlwgt``, ``education-num``, ``capital-gain``,
        ``capital-loss`` and ``hours-per-week`` as int64 arrays, the others as
        ``str`` arrays.

    Raises
    ------
    InvalidParameterError
        If ``split`` is not ``"train"`` or ``"test"``.
    InvalidTypeError
        If ``complete`` is not a bool.
    DatasetError
        If the file is missing or corrupt (reinstall the package).

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread import datasets
    >>> adult = datasets.load_adult("test", complete=True)
    >>> len(adult), np.unique(adult.column("income")).tolist()
    (15060, ['<=50K', '>50K'])
    """
    if split not in _SPLITS:
        raise InvalidParameterError(f"split must be one of {list(_SPLITS)}; got {split!r}")
    if not isinstance(complete, bool):
        raise InvalidTypeError(f"complete must be True or False; got {complete!r}")
    name = _SPLITS[split]
    file = _registry.path(name)
    try:
        with gzip.open(file, "rt", encoding="ascii", newline="") as handle:
            reader = csv.reader(handle)
            header = tuple(next(reader))
            rows = [row for row in reader if row]
    except (OSError, EOFError, UnicodeDecodeError, csv.Error, StopIteration) as exc:
        raise DatasetError(
            f"dataset {name!r}: file {file} could not be read as a gzip CSV ({exc}); "
            "reinstall the anonspread package"
        ) from exc
    if header != ADULT_COLUMNS or any(len(row) != len(ADULT_COLUMNS) for row in rows):
        raise DatasetError(
            f"dataset {name!r}: file {file} does not have the {len(ADULT_COLUMNS)} Adult "
            "columns on every row; reinstall the anonspread package"
        )
    if complete:
        rows = [row for row in rows if MISSING not in row]

    data: dict[str, np.ndarray] = {}
    for j, column in enumerate(ADULT_COLUMNS):
        values = [row[j] for row in rows]
        if column == "income":
            values = [value.rstrip(".") for value in values]
        if column in _INTEGER_COLUMNS:
            data[column] = np.array(values, dtype=np.int64)
        else:
            data[column] = np.array(values, dtype=str)
    return Records(columns=ADULT_COLUMNS, data=data)
