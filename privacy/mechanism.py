"""The :class:`Mechanism`: a validated row-stochastic matrix ``Q[x, y] = P(Y = y | X = x)``."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.validation import check_real, check_rng

__all__ = ["Mechanism"]


def _real_array(matrix: Any) -> np.ndarray:
    """``matrix`` as a float array, refusing what is not real numbers (never coerced).

    Strings (``"0.5"``), complex numbers, booleans and other objects are refused rather
    than converted; integers and floats are accepted.
    """
    try:
        raw = np.asarray(matrix)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise InvalidTypeError(
            f"matrix must be a 2-D array of probabilities; got {type(matrix).__name__} "
            f"({exc})"
        ) from exc
    kind = raw.dtype.kind
    if kind == "O":
        flat = raw.ravel().tolist()
        bad = next(
            (v for v in flat if isinstance(v, bool) or not isinstance(v, numbers.Real)), None
        )
        if bad is not None or raw.size == 0:
            raise InvalidTypeError(
                "matrix must be a 2-D array of real probabilities; got an entry of type "
                f"{type(bad).__name__}" if bad is not None else "matrix must not be empty"
            )
    elif kind not in "iuf":
        raise InvalidTypeError(
            f"matrix must be a 2-D array of real probabilities (int or float); got dtype "
            f"{raw.dtype} (strings, complex numbers and booleans are not converted)"
        )
    return np.array(raw, dtype=float)


class Mechanism:
    """A local privatisation mechanism given by its conditional probability matrix.

    ``Q[x, y] = P(Y = y | X = x)`` for inputs ``x`` in ``range(k)`` and outputs ``y``
    in ``range(m)`` (thesis §3.1.1). Rows are checked to be probability vectors
    (non-negative, summing to 1 within ``atol``) and are then renormalised exactly.

    Parameters
    ----------
    matrix : array_like, shape (k, m)
        The conditional distribution of the output given each input.
    atol : float
        Tolerance on each row sum.

    Examples
    --------
    >>> import numpy as np
    >>> Q = Mechanism([[0.75, 0.25], [0.25, 0.75]])
    >>> round(Q.ldp_epsilon(), 6) == round(float(np.log(3)), 6)
    True
    >>> Q.privatize([0, 1, 1, 0], rng=0).shape
    (4,)
    """

    __slots__ = ("_Q",)

    def __init__(self, matrix: Any, *, atol: float = 1e-9) -> None:
        Q = _real_array(matrix)
        if Q.ndim != 2 or Q.shape[0] == 0 or Q.shape[1] == 0:
            raise InvalidParameterError(
                f"matrix must be a non-empty 2-D array (inputs x outputs); got shape {Q.shape}"
            )
        if not np.all(np.isfinite(Q)) or np.any(Q < 0):
            raise InvalidParameterError("matrix must have finite, non-negative entries")
        sums = Q.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
        if bad.size:
            raise InvalidParameterError(
                f"matrix rows must sum to 1 (within {atol:g}); row {int(bad[0])} sums to {sums[bad[0]]!r}"
            )
        Q /= sums[:, None]
        Q.setflags(write=False)
        self._Q = Q

    @property
    def matrix(self) -> np.ndarray:
        """The (read-only) matrix ``Q[x, y]``."""
        return self._Q

    @property
    def n_inputs(self) -> int:
        """Number of inputs (rows)."""
        return self._Q.shape[0]

    @property
    def n_outputs(self) -> int:
        """Number of outputs (columns)."""
        return self._Q.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_inputs, n_outputs)``."""
        return self._Q.shape

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._Q, dtype=dtype)

    def __repr__(self) -> str:
        return f"Mechanism(k={self.n_inputs}, m={self.n_outputs}, eps={self.ldp_epsilon():.6g})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mechanism):
            return NotImplemented
        return self._Q.shape == other._Q.shape and bool(np.array_equal(self._Q, other._Q))

    __hash__ = None  # type: ignore[assignment]

    def ldp_epsilon(self) -> float:
        """The exact local-DP level: ``max_y max_{x,x'} log(Q[x, y] / Q[x', y])``.

        Columns that are entirely zero are ignored; a column holding a zero next to a
        non-zero entry makes the level infinite.
        """
        Q = self._Q
        used = Q.max(axis=0) > 0
        cols = Q[:, used]
        lo = cols.min(axis=0)
        if np.any(lo == 0):
            return float("inf")
        return float(np.max(np.log(cols.max(axis=0)) - np.log(lo)))

    def approx_dp_delta(self, eps: float) -> float:
        """The smallest ``delta`` for which the mechanism is (eps, delta)-LDP (Eq. 3.25).

        ``Q(S|x) <= e^eps Q(S|x') + delta`` for all sets ``S`` is tightest for
        ``S = {y : Q[x, y] > e^eps Q[x', y]}``, so
        ``delta = max_{x, x'} sum_y max(0, Q[x, y] - e^eps Q[x', y])``.

        Parameters
        ----------
        eps : float
            Privacy level, >= 0 (``inf`` gives 0).

        Returns
        -------
        float

        Examples
        --------
        Binary randomized response at ``eps = log 3`` is (log 3, 0)-LDP; at a smaller
        eps it needs a ``delta``:

        >>> import numpy as np
        >>> from anonspread.privacy.mechanisms import randomized_response
        >>> Q = randomized_response(2, float(np.log(3.0)))
        >>> Q.approx_dp_delta(float(np.log(3.0))), round(Q.approx_dp_delta(0.5), 6)
        (0.0, 0.33782)
        """
        eps = check_real(eps, "eps", low=0.0, allow_inf=True)
        if np.isinf(eps):
            return 0.0
        Q = self._Q
        diff = Q[:, None, :] - np.exp(eps) * Q[None, :, :]
        return float(max(0.0, np.clip(diff, 0.0, None).sum(axis=2).max()))

    def privatize(self, x: Any, *, rng: Any = None) -> np.ndarray:
        """Sample one output for each input in ``x`` (vectorised inverse-CDF sampling).

        Parameters
        ----------
        x : array_like of int
            Inputs in ``range(n_inputs)``; any shape.
        rng : None, int or numpy.random.Generator

        Returns
        -------
        numpy.ndarray of int64, same shape as ``x``
        """
        gen = check_rng(rng)
        xs = np.asarray(x)
        if xs.size and (not np.issubdtype(xs.dtype, np.integer)):
            raise InvalidTypeError(f"x must hold integer inputs; got dtype {xs.dtype}")
        if xs.size and (xs.min() < 0 or xs.max() >= self.n_inputs):
            raise InvalidParameterError(
                f"x must hold inputs in [0, {self.n_inputs - 1}]; got values in "
                f"[{int(xs.min())}, {int(xs.max())}]"
            )
        cdf = np.cumsum(self._Q, axis=1)
        cdf[:, -1] = 1.0
        flat = xs.reshape(-1)
        u = gen.random(flat.size)
        out = np.empty(flat.size, dtype=np.int64)
        # Sort by input so that each row's CDF is searched once for all its inputs.
        order = np.argsort(flat, kind="stable")
        bounds = np.searchsorted(flat[order], np.arange(self.n_inputs + 1))
        for row in range(self.n_inputs):
            idx = order[bounds[row] : bounds[row + 1]]
            if idx.size:
                out[idx] = np.searchsorted(cdf[row], u[idx], side="right")
        np.minimum(out, self.n_outputs - 1, out=out)
        return out.reshape(xs.shape)
