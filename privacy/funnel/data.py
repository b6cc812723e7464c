"""Joint distributions of (secret, data) estimated from records, e.g. UCI Adult (§VIII-C).

The privacy-funnel experiments of Lopuhaä-Zwakenberg et al. (Figure 5) take the
secret S in {marital-status, occupation} and the data X in {education, relationship,
sex} of the Adult census records and use the empirical joint distribution.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError

__all__ = ["ADULT_DATA", "ADULT_SECRETS", "EmpiricalJoint", "adult_joint", "empirical_joint"]

#: Secret attributes of Figure 5 (c = 7 and c = 15 with the missing value kept).
ADULT_SECRETS: tuple[str, ...] = ("marital-status", "occupation")
#: Data attributes of Figure 5 (a = 16, 6, 2).
ADULT_DATA: tuple[str, ...] = ("education", "relationship", "sex")


@dataclass(frozen=True)
class EmpiricalJoint:
    """An empirical joint distribution of a secret and a data attribute.

    Parameters
    ----------
    p_sx : numpy.ndarray, shape (c, a)
        ``p_sx[s, x]``: fraction of the records with secret ``secrets[s]`` and data
        value ``values[x]``.
    secrets : tuple of str
        The secret values, sorted.
    values : tuple of str
        The data values, sorted.
    n_records : int
        Number of records counted.

    Examples
    --------
    >>> j = empirical_joint(["a", "a", "b", "b"], ["x", "y", "y", "y"])
    >>> j.n_records, j.p_sx.sum(axis=1).tolist()
    (4, [0.5, 0.5])
    """

    p_sx: np.ndarray
    secrets: tuple[str, ...]
    values: tuple[str, ...]
    n_records: int

    def __repr__(self) -> str:
        return (f"EmpiricalJoint(records={self.n_records}, secrets={len(self.secrets)}, "
                f"values={len(self.values)})")


def _column(records: Any, name: str) -> np.ndarray:
    if hasattr(records, "column"):
        return np.asarray(records.column(name)).astype(str)
    if isinstance(records, Mapping):
        if name not in records:
            raise InvalidParameterError(
                f"{name!r} must be a column of records; got columns {list(records)}"
            )
        return np.asarray(records[name]).astype(str)
    raise InvalidTypeError(
        "records must be a datasets.Records table or a mapping of column name to values; "
        f"got {type(records).__name__}"
    )


def empirical_joint(secret_values: Iterable[Any], data_values: Iterable[Any]) -> EmpiricalJoint:
    """The empirical joint distribution of paired observations of S and X.

    Parameters
    ----------
    secret_values, data_values : iterable
        The secret and data value of each record, paired; compared as strings.

    Returns
    -------
    EmpiricalJoint

    Examples
    --------
    >>> j = empirical_joint(["a", "a", "b", "b"], ["x", "y", "y", "y"])
    >>> j.p_sx.tolist(), j.secrets, j.values
    ([[0.25, 0.25], [0.0, 0.5]], ('a', 'b'), ('x', 'y'))
    """
    s = np.asarray(list(secret_values)).astype(str)
    x = np.asarray(list(data_values)).astype(str)
    if s.shape != x.shape or s.ndim != 1 or s.size == 0:
        raise InvalidParameterError(
            "secret_values and data_values must be non-empty and of equal length; got "
            f"lengths {s.size} and {x.size}"
        )
    secrets, s_idx = np.unique(s, return_inverse=True)
    values, x_idx = np.unique(x, return_inverse=True)
    counts = np.zeros((secrets.size, values.size))
    np.add.at(counts, (s_idx, x_idx), 1.0)
    return EmpiricalJoint(
        counts / counts.sum(), tuple(secrets.tolist()), tuple(values.tolist()), int(s.size)
    )


def adult_joint(
    records: Any = None,
    secret: str = "marital-status",
    attribute: str = "education",
    *,
    missing: str = "keep",
) -> EmpiricalJoint:
    """The joint distribution ``p_sx`` of an Adult secret and data attribute (Figure 5).

    Parameters
    ----------
    records : datasets.Records or Mapping, optional
        The records (``datasets.load_adult()``, or a mapping of column name to
        values). ``None`` loads the bundled training split.
    secret, attribute : str
        Column names of S and X.
    missing : {"keep", "drop"}
        ``"keep"`` counts the missing value ``"?"`` as a category of its own, which
        gives the paper's ``c = 15`` for occupation; ``"drop"`` removes the records
        where S or X is missing.

    Returns
    -------
    EmpiricalJoint

    Examples
    --------
    >>> j = adult_joint(None, "marital-status", "sex")
    >>> j.p_sx.shape, j.n_records
    ((7, 2), 32561)
    """
    if missing not in ("keep", "drop"):
        raise InvalidParameterError(f"missing must be 'keep' or 'drop'; got {missing!r}")
    if records is None:
        from anonspread import datasets

        records = datasets.load_adult("train")
    s = _column(records, secret)
    x = _column(records, attribute)
    if missing == "drop":
        ok = (s != "?") & (x != "?")
        s, x = s[ok], x[ok]
    return empirical_joint(s, x)
