"""Estimator output: a read-only mapping node -> score backed by arrays, and the arg-max."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from anonspread.engine.scoring import TIE_RTOL
from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.validation import check_rng

__all__ = ["TIE_RTOL", "Scores", "pick", "top_set"]

# TIE_RTOL: scores within this relative tolerance of the maximum (in log space) are ties;
# defined beside the compiled kernels, which break ties with it too.


class Scores(Mapping):
    """Scores of the infected nodes: higher means more likely to be the source.

    A :class:`collections.abc.Mapping` node -> float backed by two arrays, so that
    10^6 scores cost two arrays and no dict until a lookup by label is made.

    Parameters
    ----------
    nodes : numpy.ndarray
        The infected nodes (labels); the attribute of the same name.
    values : array_like of float
        Their scores, aligned with ``nodes``; stored as the attribute ``array``
        (``values()`` is the Mapping view).
    kind : str
        What the scores are: ``"log-likelihood"`` (so
        :func:`adversaries.metrics.posterior` applies), ``"minus-eccentricity"``,
        ``"log-rumor-centrality"``, ``"first-spy"``, ``"posterior"``...

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread import adversaries
    >>> sc = adversaries.Scores(np.array(["a", "b", "c"]), np.array([-1.2, -0.3, -2.0]),
    ...                         "log-likelihood")
    >>> sc, sc["b"], adversaries.pick(sc)
    (Scores(kind='log-likelihood', n=3), -0.3, 'b')
    >>> {node: round(p, 4) for node, p in adversaries.posterior(sc).items()}
    {'a': 0.2558, 'b': 0.6292, 'c': 0.1149}
    """

    __slots__ = ("_pos", "array", "kind", "nodes")

    def __init__(self, nodes: np.ndarray, values: np.ndarray, kind: str) -> None:
        self.nodes = nodes
        self.array = np.asarray(values, dtype=np.float64)
        self.kind = kind
        self._pos: dict | None = None

    @property
    def is_likelihood(self) -> bool:
        """Whether the scores are log-likelihoods (``kind == "log-likelihood"``)."""
        return self.kind == "log-likelihood"

    def _index(self) -> dict:
        if self._pos is None:
            self._pos = {v: i for i, v in enumerate(self.nodes.tolist())}
        return self._pos

    def __getitem__(self, node: Any) -> float:
        try:
            return float(self.array[self._index()[node]])
        except TypeError:
            raise KeyError(node) from None

    def __iter__(self) -> Iterator:
        return iter(self.nodes.tolist())

    def __len__(self) -> int:
        return int(self.array.shape[0])

    def __contains__(self, node: object) -> bool:
        try:
            return node in self._index()
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"Scores(kind={self.kind!r}, n={len(self)})"


def _is_real(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _as_arrays(scores: Mapping) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(scores, Scores):
        return scores.nodes, scores.array
    if not isinstance(scores, Mapping):
        raise InvalidTypeError(f"scores must be a mapping node -> score; got {type(scores).__name__}")
    if len(scores) == 0:
        raise InvalidParameterError("scores must hold at least one node; got an empty mapping")
    nodes = np.empty(len(scores), dtype=object)
    for i, k in enumerate(scores):
        nodes[i] = k
    try:
        values = np.fromiter((float(scores[k]) for k in nodes), dtype=np.float64, count=len(nodes))
    except (TypeError, ValueError, OverflowError):
        bad = next(k for k in nodes if not _is_real(scores[k]))
        raise InvalidTypeError(
            f"scores must map nodes to real numbers; got {scores[bad]!r} for node {bad!r}"
        ) from None
    if np.any(np.isnan(values)):
        raise InvalidParameterError("scores must not contain NaN; got a NaN score")
    return nodes, values


def top_set(values: np.ndarray) -> np.ndarray:
    """Positions of the maximal scores, ties within :data:`TIE_RTOL` (relative) included.

    Parameters
    ----------
    values : numpy.ndarray of float64
        Scores, not all NaN; if all are ``-inf``, every position is returned.

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> import numpy as np
    >>> top_set(np.array([0.0, 1.0, 1.0 - 1e-12, 0.5])).tolist()
    [1, 2]
    """
    top = values.max()
    if np.isneginf(top):
        return np.arange(values.shape[0])
    tol = TIE_RTOL * max(1.0, abs(top))
    return np.nonzero(values >= top - tol)[0]


def pick(scores: Mapping, *, rng: Any = None) -> Any:
    """The arg-max of ``scores``, ties broken uniformly at random.

    Scores within a relative tolerance of ``1e-9`` of the maximum count as tied
    (they are log-likelihoods computed along different paths, equal in exact
    arithmetic but not always to the last bit). If every score is ``-inf`` (no
    candidate could have produced the observation under the estimator's model) there
    is nothing to pick: an error, as in :func:`adversaries.posterior`.

    Parameters
    ----------
    scores : Mapping
        node -> score (e.g. the output of an estimator).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    node

    Examples
    --------
    >>> pick({"a": 0.0, "b": 1.0, "c": 1.0}, rng=0) in {"b", "c"}
    True
    """
    gen = check_rng(rng)
    nodes, values = _as_arrays(scores)
    if np.isneginf(values.max()):
        raise InvalidParameterError(
            "scores must give some node a finite score to pick from; got all -inf (the "
            "observation is impossible under the estimator's model)"
        )
    top = top_set(values)
    i = top[0] if top.shape[0] == 1 else top[gen.integers(0, top.shape[0])]
    v = nodes[i]
    return v.item() if isinstance(v, np.generic) else v
