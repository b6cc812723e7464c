"""Argument checks shared by the privacy-funnel modules (one wording for every error).

Internal: the public functions of :mod:`privacy.funnel` call these at their boundary.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_distribution, check_real

__all__ = ["check_eps", "check_joint", "check_mechanism_matrix"]


def check_joint(
    p_sx: Any, name: str = "p_sx", *, min_ndim: int = 2, max_ndim: int = 2
) -> np.ndarray:
    """Return ``p_sx`` as a float array holding a joint distribution of (S, X).

    Axis 0 indexes the secret ``s``; the remaining axes index the data (one axis for
    plain data, one per attribute for multi-attribute data). Entries must be
    non-negative and sum to 1 within 1e-9; the returned array is renormalised exactly.

    Parameters
    ----------
    p_sx : array_like
        The joint distribution.
    name : str
        The argument's name, for the error message.
    min_ndim, max_ndim : int
        Accepted numbers of axes.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> float(check_joint([[0.4, 0.1], [0.1, 0.4]]).sum())
    1.0
    >>> check_joint([0.5, 0.5])
    Traceback (most recent call last):
    ...
    anonspread.errors.InvalidParameterError: p_sx must be a joint distribution of shape (c, a); got an array of shape (2,)
    """
    try:
        arr = np.asarray(p_sx, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"{name} must be an array of probabilities of shape (c, a); got {type(p_sx).__name__}"
        ) from exc
    if not min_ndim <= arr.ndim <= max_ndim:
        shape_text = "(c, a)" if max_ndim == 2 else "(c, a_1, ..., a_m)"
        raise InvalidParameterError(
            f"{name} must be a joint distribution of shape {shape_text}; got an array of shape "
            f"{arr.shape}"
        )
    arr = check_distribution(arr, name, ndim=arr.ndim)
    return arr / arr.sum()


def check_eps(eps: Any, name: str = "eps") -> float:
    """Return ``eps`` as a finite float ``>= 0``.

    Parameters
    ----------
    eps : float
        The value.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float
    """
    return check_real(eps, name, low=0.0)


def check_mechanism_matrix(Q: Any, n_inputs: tuple[int, ...], name: str = "Q") -> np.ndarray:
    """Return the matrix of ``Q`` (a :class:`Mechanism` or a row-stochastic array).

    Parameters
    ----------
    Q : Mechanism or array_like
        The mechanism.
    n_inputs : tuple of int
        The accepted numbers of rows (for instance ``a`` for a mechanism on X and
        ``c * a`` for one on the pairs (S, X)).
    name : str
        The argument's name, for the error message.

    Returns
    -------
    numpy.ndarray
    """
    mech = Q if isinstance(Q, Mechanism) else None
    if mech is None:
        try:
            mech = Mechanism(Q)
        except (InvalidParameterError, InvalidTypeError) as exc:
            raise type(exc)(f"{name}: {exc}") from exc
    Qm = mech.matrix
    if Qm.shape[0] not in n_inputs:
        accepted = " or ".join(str(n) for n in n_inputs)
        raise InvalidParameterError(
            f"{name} must have {accepted} rows (one per input value of p_sx); got a matrix "
            f"of shape {Qm.shape}"
        )
    return Qm
