"""Per-profile mechanisms that privatize (profile, value) pairs (step 2 of Algorithms 1-4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy.mechanism import Mechanism
from anonspread.privacy.profiles.checks import _check_matrices, _check_profiles
from anonspread.privacy.profiles.epsilon import profile_epsilon
from anonspread.privacy.profiles.one_bit import flip_matrices
from anonspread.validation import check_rng

__all__ = ["ProfileMechanism"]


class ProfileMechanism:
    """Per-profile mechanisms ``A^1, ..., A^k`` that privatize (profile, value) pairs.

    Step 2 of Algorithms 1-4: an input ``x`` of profile ``i`` is released as
    ``y ~ A^i[x, :]``.

    Parameters
    ----------
    matrices : sequence of k array_like or Mechanism, all of shape (d, m)

    Examples
    --------
    >>> mech = ProfileMechanism.from_flip_probabilities([0.0, 0.5])
    >>> mech.privatize([0, 0, 1, 1], [1, 1, 0, 1], rng=7)[:2].tolist()
    [1, 1]
    """

    __slots__ = ("_A",)

    def __init__(self, matrices: Any) -> None:
        if isinstance(matrices, (str, bytes)) or not isinstance(matrices, (Sequence, np.ndarray)):
            raise InvalidTypeError(
                f"matrices must be a sequence of row-stochastic matrices; got {type(matrices).__name__}"
            )
        mats = list(matrices)
        if not mats:
            raise InvalidParameterError("matrices must hold at least one matrix; got 0")
        first = mats[0].matrix if isinstance(mats[0], Mechanism) else np.asarray(mats[0])
        if first.ndim != 2:
            raise InvalidParameterError(
                f"matrices must be 2-D (inputs x outputs); got shape {first.shape}"
            )
        A = _check_matrices(mats, len(mats), first.shape[0])
        A.setflags(write=False)
        self._A = A

    @classmethod
    def from_flip_probabilities(cls, alphas: Any) -> ProfileMechanism:
        """The one-bit mechanism flipping profile ``i``'s bit with probability ``alphas[i]``.

        Parameters
        ----------
        alphas : array_like, shape (k,)
            Flip probabilities in [0, 1].

        Returns
        -------
        ProfileMechanism

        Examples
        --------
        >>> m = ProfileMechanism.from_flip_probabilities([0.25, 0.1])
        >>> P = [[0.9, 0.1], [0.2, 0.8]]
        >>> m.output_distributions(P).round(4)
        array([[0.7 , 0.3 ],
               [0.26, 0.74]])
        >>> round(m.epsilon(P, [(0, 1)]), 6)
        0.990399
        """
        return cls(flip_matrices(alphas))

    @property
    def matrices(self) -> list[np.ndarray]:
        """The matrices ``A^i``, one read-only ``(d, m)`` array per profile."""
        return [a for a in self._A]

    @property
    def n_profiles(self) -> int:
        """Number of profiles ``k``."""
        return self._A.shape[0]

    def output_distributions(self, P: Any) -> np.ndarray:
        """``P_i A^i`` for each profile (shape ``(k, m)``): the law of the release.

        Parameters
        ----------
        P : array_like, shape (k, d)
            The profiles (rows are distributions).

        Returns
        -------
        numpy.ndarray, shape (k, m)
        """
        Parr = _check_profiles(P)
        if Parr.shape != self._A.shape[:2]:
            raise InvalidParameterError(f"P must have shape {self._A.shape[:2]}; got {Parr.shape}")
        return np.einsum("kd,kdm->km", Parr, self._A)

    def epsilon(self, P: Any, edges: Any) -> float:
        """The exact profile-privacy level, :func:`profile_epsilon`.

        Parameters
        ----------
        P : array_like, shape (k, d)
            The profiles (rows are distributions).
        edges : iterable of pairs (i, j)
            The sensitive pairs, as profile indices.

        Returns
        -------
        float
        """
        return profile_epsilon(P, edges, self._A)

    def privatize(self, profiles: Any, x: Any, *, rng: Any = None) -> np.ndarray:
        """Release ``y ~ A^{profiles[n]}[x[n], :]`` for each pair (broadcast together).

        Parameters
        ----------
        profiles : array_like of int
            Profile indices in ``range(k)``.
        x : array_like of int
            Inputs in ``range(d)``.
        rng : None, int or numpy.random.Generator

        Returns
        -------
        numpy.ndarray of int64, the broadcast shape of ``profiles`` and ``x``.
        """
        gen = check_rng(rng)
        prof = np.asarray(profiles)
        xs = np.asarray(x)
        for name, arr, hi in (("profiles", prof, self.n_profiles), ("x", xs, self._A.shape[1])):
            if arr.size and not np.issubdtype(arr.dtype, np.integer):
                raise InvalidTypeError(f"{name} must hold integers; got dtype {arr.dtype}")
            if arr.size and (arr.min() < 0 or arr.max() >= hi):
                raise InvalidParameterError(
                    f"{name} must hold values in [0, {hi - 1}]; got values in "
                    f"[{int(arr.min())}, {int(arr.max())}]"
                )
        prof, xs = np.broadcast_arrays(prof, xs)
        flat_p, flat_x = prof.reshape(-1), xs.reshape(-1)
        cdf = np.cumsum(self._A, axis=2)
        cdf[:, :, -1] = 1.0
        u = gen.random(flat_p.size)
        # one row of the CDF per pair: (number of CDF values <= u) is the sampled output
        out = (cdf[flat_p, flat_x] <= u[:, None]).sum(axis=1).astype(np.int64)
        np.minimum(out, self._A.shape[2] - 1, out=out)
        return out.reshape(prof.shape)

    def __repr__(self) -> str:
        k, d, m = self._A.shape
        return f"ProfileMechanism(k={k}, d={d}, m={m})"
