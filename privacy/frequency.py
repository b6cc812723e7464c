"""Frequency oracles under local differential privacy: each user privatises one value in
``range(k)``, the server estimates how many users hold each value.

The oracles, each an object with ``privatize(values, rng=)`` (vectorised over users),
``support(reports)`` (the server's aggregate), ``estimate(reports)`` (unbiased counts) and
the exact variance of its estimate:

* :class:`GRR` -- generalised (k-ary) randomized response, "direct encoding" (Wang, Blocki,
  Li, Jha, USENIX Security 2017, §4.1; the thesis's Eq. 3.16);
* :class:`UnaryEncoding` -- ``sue`` (symmetric unary encoding, basic RAPPOR without the
  permanent step) and ``oue`` (optimised unary encoding), Wang et al. §4.2-4.3;
* :class:`LocalHashing` -- ``olh`` (optimised local hashing, ``g = round(e^eps) + 1``) and
  ``blh`` (binary local hashing, ``g = 2``), Wang et al. §4.4;
* :class:`HadamardResponse` -- Acharya, Sun and Zhang (AISTATS 2019), the high-privacy form
  (each value's set is a row of a Hadamard matrix, half of the ``K`` outputs);
* :class:`SubsetSelection` -- Ye and Barg (IEEE T-IT 2018) / Wang et al. (2016): report a
  ``d``-subset of the values;
* :class:`RAPPOR` -- Erlingsson, Pihur and Korolova (CCS 2014), *basic* RAPPOR (§3.1 of the
  paper: a known dictionary, one bit per value, ``h = 1``, no Bloom filter and no cohorts)
  with its permanent randomized response (parameter ``f``, memoised per user) followed by
  the instantaneous randomized response (``p``, ``q``);
* :class:`MechanismOracle` -- any finite :class:`~privacy.Mechanism` of ours (randomized
  response, the geometric mechanism, a staircase mechanism...) used through its unbiased
  inverse: the thesis's mechanisms enter on equal terms.

Every oracle but :class:`MechanismOracle` is *pure* in the sense of Wang et al. (Def. 2):
a report supports a set of values, the true value is supported with probability
``p_star`` and any other with probability ``q_star``, and the estimate of the count of
``i`` is ``(C_i - n q_star) / (p_star - q_star)`` with ``C_i`` the number of reports
supporting ``i``. Its variance is exactly (the users are independent)::

    Var[c_hat_i] = (n_i p*(1 - p*) + (n - n_i) q*(1 - q*)) / (p* - q*)^2      (Wang et al., Eq. 2)

for ``n_i`` users holding ``i`` among ``n`` (the papers' ``Var*`` is its ``n_i = 0`` term,
:meth:`FrequencyOracle.var_star`). For local hashing ``q_star`` is the exact support
probability of the hash family used here (``h(x) = ((a x + b) mod P) mod g``,
``P = 2^31 - 1``, ``(a, b)`` uniform with ``a != 0``), not the ``1/g`` of an ideal hash, so
the estimate is exactly unbiased and the variance exact.

The privacy level of each oracle is checked, not asserted: :meth:`FrequencyOracle.epsilon`
builds the oracle's channel as :class:`~privacy.Mechanism` matrices and takes their exact
``ldp_epsilon`` (the package's one check). For a channel that is a finite matrix of
manageable size (GRR, Hadamard, small unary encodings and subset selections) that is the
whole matrix; otherwise it is the channel *lumped* for a pair of inputs ``x, x'`` by the
classes of outputs on which the likelihood ratio is constant (the only coordinates of a
unary report whose law differs between ``x`` and ``x'`` are bits ``x`` and ``x'``; a subset
report's probability depends only on whether it holds ``x``, ``x'``), which preserves every
ratio and so the level exactly; by the oracles' symmetry every pair gives the same channel.
Local hashing is checked per hash function (the hash is public and independent of the
value: the level is the maximum over hash functions of the level of the channel
``x -> y`` given the hash).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit, gammaln, logsumexp

from anonspread.errors import InvalidParameterError, InvalidTypeError
from anonspread.privacy._limits import MAX_FINITE_EPS, check_array_size
from anonspread.privacy.mechanism import Mechanism
from anonspread.registry import Registry
from anonspread.spread.limits import check_size
from anonspread.validation import check_distribution, check_int, check_real, check_rng

__all__ = [
    "GRR",
    "ORACLES",
    "RAPPOR",
    "FrequencyEstimate",
    "FrequencyOracle",
    "HadamardResponse",
    "HashReports",
    "LocalHashing",
    "MechanismOracle",
    "SubsetSelection",
    "UnaryEncoding",
    "make_oracle",
    "rank_oracles",
    "register_oracle",
]

#: Largest channel (inputs x outputs entries) built whole by :meth:`FrequencyOracle.epsilon`;
#: beyond it the exact lumped pair channel is used.
FULL_CHANNEL_ENTRIES = 1 << 22

#: Largest eps of symmetric unary encoding and of RAPPOR's :meth:`RAPPOR.from_eps`: ``p`` is a
#: double near 1, and beyond eps = 20 its rounding moves the level by more than 1e-12 relative.
MAX_SUE_EPS = 20.0

#: Users privatised per block by :meth:`FrequencyOracle.simulate` are chosen so that one
#: block's reports and working arrays stay near this many bytes.
BLOCK_BYTES = 1 << 26

_HASH_PRIME = 2147483647  # 2^31 - 1, the engine's hash modulus (checked equal on first use)


# ----------------------------------------------------------------- checks


def _check_k(k: Any) -> int:
    return check_int(k, "k", low=2, high=_HASH_PRIME)


def _check_eps(eps: Any) -> float:
    return check_real(eps, "eps", low=0.0, high=MAX_FINITE_EPS, low_open=True)


def _check_values(values: Any, k: int, name: str = "values") -> np.ndarray:
    xs = np.asarray(values)
    if xs.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be a 1-D array of values in [0, {k - 1}] (one per user); got shape {xs.shape}"
        )
    if xs.size and not np.issubdtype(xs.dtype, np.integer):
        raise InvalidTypeError(f"{name} must hold integers in [0, {k - 1}]; got dtype {xs.dtype}")
    if xs.size and (int(xs.min()) < 0 or int(xs.max()) >= k):
        raise InvalidParameterError(
            f"{name} must hold values in [0, {k - 1}]; got values in [{int(xs.min())}, {int(xs.max())}]"
        )
    return xs.astype(np.int64, copy=False)


def _check_n(n: Any) -> int:
    return check_int(n, "n", low=1)


def _check_frequencies(frequencies: Any, k: int) -> np.ndarray:
    f = check_distribution(frequencies, "frequencies")
    if f.size != k:
        raise InvalidParameterError(f"frequencies must have k = {k} entries; got {f.size}")
    return f


def _check_int_reports(reports: Any, n_outputs: int, ndim: int, what: str) -> np.ndarray:
    r = np.asarray(reports)
    if r.ndim != ndim:
        raise InvalidParameterError(f"reports must be {what}; got an array of shape {r.shape}")
    if r.size and not np.issubdtype(r.dtype, np.integer):
        raise InvalidTypeError(f"reports must be {what}; got dtype {r.dtype}")
    if r.size and (int(r.min()) < 0 or int(r.max()) >= n_outputs):
        raise InvalidParameterError(
            f"reports must hold outputs in [0, {n_outputs - 1}]; got values in "
            f"[{int(r.min())}, {int(r.max())}]"
        )
    return r


def _guard_reports(n: int, bytes_per_user: float, what: str) -> None:
    check_size("values", f"{n} users", nbytes=n * bytes_per_user, what=what)


# ----------------------------------------------------------------- results


@dataclass(frozen=True, repr=False)
class FrequencyEstimate:
    """The server's estimate from ``n`` reports.

    Parameters
    ----------
    counts : numpy.ndarray of float, shape (k,)
        Unbiased estimates of the number of users holding each value (may be negative).
    n : int
        Number of reports.
    support : numpy.ndarray, shape (k,) or (m,)
        The aggregate the estimate is a linear function of: the number of reports
        supporting each value (pure oracles) or the histogram of the ``m`` outputs
        (:class:`MechanismOracle`).
    """

    counts: np.ndarray
    n: int
    support: np.ndarray

    @property
    def frequencies(self) -> np.ndarray:
        """``counts / n``: unbiased estimates of the fraction of users holding each value."""
        return self.counts / max(self.n, 1)

    def __repr__(self) -> str:
        k = int(np.asarray(self.counts).size)
        if k == 0:
            return f"FrequencyEstimate(n={self.n}, k=0)"
        top = int(np.argmax(self.counts))
        return (f"FrequencyEstimate(n={self.n}, k={k}, most frequent: value {top} at "
                f"{float(self.frequencies[top]):.4g})")


@dataclass(frozen=True, repr=False)
class HashReports:
    """Local-hashing reports: user ``j`` sent ``y[j]`` for the hash ``((a[j] x + b[j]) mod P) mod g``.

    Parameters
    ----------
    a : numpy.ndarray of uint32, shape (n,)
        Hash multipliers, ``1 <= a < 2^31 - 1``.
    b : numpy.ndarray of uint32, shape (n,)
        Hash offsets, ``0 <= b < 2^31 - 1``.
    y : numpy.ndarray of uint32, shape (n,)
        Randomised hash values, ``0 <= y < g``.
    """

    a: np.ndarray
    b: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def __repr__(self) -> str:
        return f"HashReports(n={len(self)}, 12 bytes each: hash (a, b) and value y)"


# ----------------------------------------------------------------- base classes


class FrequencyOracle:
    """An eps-LDP frequency oracle over the values ``range(k)`` (see the module docstring).

    Subclasses define ``privatize``, ``support``, ``n_reports``, ``estimate_from_support``,
    ``count_variance`` and ``exact_channels``; the rest derives from them.
    """

    name: str = ""
    k: int
    eps: float
    #: bytes per user of the reports (for the size guard and :meth:`simulate`'s blocks)
    report_bytes: float = 8.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k}, eps={self.eps:.6g})"

    # -- user side
    def privatize(self, values: Any, *, rng: Any = None) -> Any:
        """One report per user (vectorised over users).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        raise NotImplementedError

    # -- server side
    def support(self, reports: Any) -> np.ndarray:
        """The aggregate of ``reports`` (support counts, or the output histogram).

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        raise NotImplementedError

    def n_reports(self, reports: Any) -> int:
        """The number of users who sent ``reports``.

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        return len(reports)

    def estimate_from_support(self, support: np.ndarray, n: int) -> FrequencyEstimate:
        """The unbiased estimate from an aggregate ``support`` of ``n`` reports.

        Parameters
        ----------
        support : numpy.ndarray
            The aggregate of the reports (:meth:`support`).
        n : int
            Number of users (reports).
        """
        raise NotImplementedError

    def estimate(self, reports: Any) -> FrequencyEstimate:
        """Unbiased estimates of the count of each value from ``reports``.

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned (for any number of users).

        Returns
        -------
        FrequencyEstimate
        """
        return self.estimate_from_support(self.support(reports), self.n_reports(reports))

    def simulate(self, values: Any, *, rng: Any = None, block: int | None = None) -> FrequencyEstimate:
        """Privatise ``values`` and estimate, a block of users at a time.

        The same reports as :meth:`privatize` on the whole array would give in
        distribution; memory is bounded by one block's reports, not by all users'.

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value per user.
        rng : None, int or numpy.random.Generator
        block : int, optional
            Users per block (default: about :data:`BLOCK_BYTES` of reports).

        Returns
        -------
        FrequencyEstimate
        """
        gen = check_rng(rng)
        xs = _check_values(values, self.k)
        if block is None:
            block = max(1, int(BLOCK_BYTES // max(self.report_bytes, 1.0)))
        block = check_int(block, "block", low=1)
        total = None
        for start in range(0, max(xs.size, 1), block):
            part = self.support(self.privatize(xs[start:start + block], rng=gen))
            total = part if total is None else total + part
        return self.estimate_from_support(total, int(xs.size))

    # -- closed forms
    def count_variance(self, counts: Any) -> np.ndarray:
        """Exact variance of each estimated count given the true ``counts`` (one per value).

        Parameters
        ----------
        counts : array_like, shape (k,)
            The true number of users holding each value.
        """
        raise NotImplementedError

    def _counts_of(self, frequencies: Any, n: Any) -> tuple[np.ndarray, int]:
        return _check_frequencies(frequencies, self.k) * _check_n(n), int(n)

    def variance(self, frequencies: Any, n: Any) -> np.ndarray:
        """Exact variance of each estimated frequency for ``n`` users with ``frequencies``.

        Parameters
        ----------
        frequencies : array_like, shape (k,)
            The true distribution of the users' values (``n_i = n f_i``).
        n : int
            Number of users.

        Returns
        -------
        numpy.ndarray, shape (k,)
            ``Var[c_hat_i] / n^2``.
        """
        counts, n = self._counts_of(frequencies, n)
        return self.count_variance(counts) / float(n) ** 2

    def expected_squared_l2(self, frequencies: Any, n: Any) -> float:
        """Exact ``E ||f_hat - f||_2^2`` (the sum of :meth:`variance`: the estimate is unbiased).

        Parameters
        ----------
        frequencies : array_like, shape (k,)
            The users' distribution over the values.
        n : int
            Number of users (reports).
        """
        return float(self.variance(frequencies, n).sum())

    def approx_expected_l1(self, frequencies: Any, n: Any) -> float:
        """``E ||f_hat - f||_1`` in the normal approximation: ``sum_i sqrt(2 Var_i / pi)``.

        Each ``f_hat_i`` is a sum of ``n`` independent terms, asymptotically normal; the
        approximation is exact as ``n -> inf`` (relative error ``O(1/sqrt(n))`` per term).

        Parameters
        ----------
        frequencies : array_like, shape (k,)
            The users' distribution over the values.
        n : int
            Number of users (reports).
        """
        return float(np.sqrt(2.0 * self.variance(frequencies, n) / math.pi).sum())

    def var_star(self, n: Any) -> float:
        """The variance of a count estimate at a value nobody holds (``n_i = 0``): the papers' ``Var*``.

        Parameters
        ----------
        n : int
            Number of users (reports).
        """
        counts = np.zeros(self.k)
        counts[0] = _check_n(n)
        return float(self.count_variance(counts)[-1])

    # -- privacy
    def exact_channels(self) -> list[Mechanism]:
        """Mechanism matrices whose largest exact level is the oracle's level (module docstring)."""
        raise NotImplementedError

    def epsilon(self) -> float:
        """The exact LDP level of the oracle: ``max(Q.ldp_epsilon() for Q in exact_channels())``."""
        return max(Q.ldp_epsilon() for Q in self.exact_channels())


class _PureOracle(FrequencyOracle):
    """A pure oracle: the true value supported w.p. ``p_star``, any other w.p. ``q_star``."""

    p_star: float
    q_star: float

    def estimate_from_support(self, support: np.ndarray, n: int) -> FrequencyEstimate:
        support = np.asarray(support)
        counts = (support - n * self.q_star) / (self.p_star - self.q_star)
        return FrequencyEstimate(counts=counts, n=int(n), support=support)

    def count_variance(self, counts: Any) -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        if c.shape != (self.k,) or np.any(c < 0) or not np.all(np.isfinite(c)):
            raise InvalidParameterError(f"counts must be {self.k} non-negative numbers; got shape {c.shape}")
        n = c.sum()
        p, q = self.p_star, self.q_star
        return (c * p * (1 - p) + (n - c) * q * (1 - q)) / (p - q) ** 2


def _pair_channel(p: float, q: float) -> Mechanism:
    """Bits ``(b_x, b_x')`` of a unary report: ``b_x ~ Bern(p)``, ``b_x' ~ Bern(q)`` given ``x``
    (and the roles swapped given ``x'``); outputs 00, 01, 10, 11."""
    def row(px: float, py: float) -> list[float]:
        return [(1 - px) * (1 - py), (1 - px) * py, px * (1 - py), px * py]

    return Mechanism([row(p, q), row(q, p)])


# ----------------------------------------------------------------- GRR


class GRR(_PureOracle):
    """Generalised randomized response (direct encoding), Wang et al. 2017 §4.1.

    Report the true value w.p. ``p = e^eps / (e^eps + k - 1)``, each other value w.p.
    ``q = 1 / (e^eps + k - 1)``; ``p_star = p``, ``q_star = q``. Its channel is the thesis's
    randomized response (Eq. 3.16); ``Var* = n (e^eps + k - 2) / (e^eps - 1)^2``.

    Parameters
    ----------
    k : int
        Number of values, ``2 <= k < 2^31``.
    eps : float
        Privacy level, ``0 < eps <= 700``.

    Examples
    --------
    >>> import numpy as np
    >>> oracle = GRR(4, 1.0)
    >>> values = np.repeat(np.arange(4), [4000, 3000, 2000, 1000])
    >>> oracle.estimate(oracle.privatize(values, rng=1)).frequencies.round(2)
    array([0.37, 0.3 , 0.22, 0.11])
    >>> round(oracle.epsilon(), 12)
    1.0
    """

    name = "grr"
    report_bytes = 8.0

    def __init__(self, k: int, eps: float) -> None:
        self.k, self.eps = _check_k(k), _check_eps(eps)
        tail = math.exp(-self.eps)
        self.q_star = tail / (1.0 + (self.k - 1) * tail)
        self.p_star = 1.0 / (1.0 + (self.k - 1) * tail)

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """Reports in ``range(k)``, one per user (int64).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        gen = check_rng(rng)
        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 24.0, "the GRR reports")
        other = (xs + 1 + gen.integers(0, self.k - 1, size=xs.size)) % self.k
        return np.where(gen.random(xs.size) < self.p_star, xs, other)

    def support(self, reports: Any) -> np.ndarray:
        """How many reports name each value.

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        r = _check_int_reports(reports, self.k, 1, f"a 1-D array of reports in [0, {self.k - 1}]")
        return np.bincount(r.ravel(), minlength=self.k)

    def channel(self) -> Mechanism:
        """The ``k x k`` channel (the thesis's randomized response, Eq. 3.16)."""
        from anonspread.privacy.mechanisms import randomized_response

        return randomized_response(self.k, self.eps)

    def exact_channels(self) -> list[Mechanism]:
        if self.k * self.k <= FULL_CHANNEL_ENTRIES:
            return [self.channel()]
        # outputs x, x', and the k - 2 others (same probability under both inputs)
        p, q = self.p_star, self.q_star
        return [Mechanism([[p, q, (self.k - 2) * q], [q, p, (self.k - 2) * q]])]


# ----------------------------------------------------------------- unary encodings


class UnaryEncoding(_PureOracle):
    """Unary encoding with bit probabilities ``p`` (the true value's bit) and ``q`` (others),
    Wang et al. 2017 §4.2; ``eps = ln(p (1 - q) / ((1 - p) q))``.

    :meth:`symmetric` (SUE, basic RAPPOR without the permanent step): ``p = e^(eps/2) /
    (e^(eps/2) + 1)``, ``q = 1 - p``. :meth:`optimized` (OUE, §4.3): ``p = 1/2``,
    ``q = 1 / (e^eps + 1)``, ``Var* = 4 n e^eps / (e^eps - 1)^2``. A report is ``k`` bits.

    Parameters
    ----------
    k : int
        Number of values.
    p, q : float
        ``0 < q < p < 1``.
    name : str
        Registry name shown in tables.

    Examples
    --------
    >>> import numpy as np
    >>> oue = UnaryEncoding.optimized(8, 1.0)
    >>> reports = oue.privatize(np.zeros(5000, dtype=int), rng=0)   # 8 bits packed in a byte
    >>> reports.shape, round(oue.epsilon(), 12)
    ((5000, 1), 1.0)
    >>> oue.estimate(reports).frequencies.round(1)[:3] + 0.0
    array([1., 0., 0.])
    """

    def __init__(self, k: int, p: float, q: float, *, name: str = "ue") -> None:
        self.k = _check_k(k)
        self.p_star = check_real(p, "p", low=0.0, high=1.0, low_open=True, high_open=True)
        self.q_star = check_real(q, "q", low=0.0, high=self.p_star, low_open=True, high_open=True)
        self.eps = math.log(self.p_star * (1 - self.q_star) / ((1 - self.p_star) * self.q_star))
        self.name = name
        self.report_bytes = float((self.k + 7) // 8)

    @classmethod
    def symmetric(cls, k: int, eps: float) -> UnaryEncoding:
        """SUE: ``p = e^(eps/2) / (e^(eps/2) + 1)``, ``q = 1 - p``.

        Parameters
        ----------
        k : int
            Number of values.
        eps : float
            Privacy level, ``0 < eps <= 700``.
        """
        eps = _check_eps(eps)
        if eps > MAX_SUE_EPS:
            raise InvalidParameterError(
                f"eps must be at most {MAX_SUE_EPS:g} for symmetric unary encoding; got {eps!r} "
                "(p = e^(eps/2)/(e^(eps/2) + 1) is a double near 1, and beyond it its rounding "
                "moves the level by more than 1e-12 relative; OUE or GRR take any eps up to 700)")
        return cls(k, float(expit(eps / 2)), float(expit(-eps / 2)), name="sue")

    @classmethod
    def optimized(cls, k: int, eps: float) -> UnaryEncoding:
        """OUE: ``p = 1/2``, ``q = 1 / (e^eps + 1)``.

        Parameters
        ----------
        k : int
            Number of values.
        eps : float
            Privacy level, ``0 < eps <= 700``.
        """
        eps = _check_eps(eps)
        return cls(k, 0.5, float(expit(-eps)), name="oue")

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """Reports as packed bits, an ``(n, ceil(k/8))`` uint8 array, drawn by a compiled kernel.

        Bit ``i`` of a report (value ``i``) is bit ``i % 8`` of byte ``i // 8`` of its row:
        ``numpy.unpackbits(reports, axis=1, count=k, bitorder="little")`` gives the ``(n, k)``
        bits, which :meth:`support` also accepts.

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        from anonspread.engine.frequency import ue_sample

        xs = _check_values(values, self.k)
        _guard_reports(xs.size, float((self.k + 7) // 8), "the unary reports (k bits per user, packed)")
        return ue_sample(xs, self.k, self.p_star, self.q_star, check_rng(rng), packed=True)[0]

    def simulate(self, values: Any, *, rng: Any = None, block: int | None = None) -> FrequencyEstimate:
        """Privatise ``values`` and estimate, counting each report's bits as it is drawn.

        The same reports as :meth:`privatize` (one per user, every bit drawn; for
        :class:`RAPPOR` the one-report law of each bit, ``p_star`` / ``q_star``), never held:
        memory is ``O(k)``. ``block`` is accepted for the signature and ignored.

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        block : int, optional
            Accepted for the signature of :meth:`FrequencyOracle.simulate`; ignored.
        """
        from anonspread.engine.frequency import ue_sample

        xs = _check_values(values, self.k)
        counts = ue_sample(xs, self.k, self.p_star, self.q_star, check_rng(rng), store=False)[1]
        return self.estimate_from_support(counts, int(xs.size))

    def support(self, reports: Any) -> np.ndarray:
        """How many reports have each bit set.

        Parameters
        ----------
        reports : numpy.ndarray
            Packed bits, ``(n, ceil(k/8))`` uint8 (what :meth:`privatize` returns), or the
            bits themselves, ``(n, k)`` bool or 0/1 integers.
        """
        r = np.asarray(reports)
        width = (self.k + 7) // 8
        packed = r.ndim == 2 and r.dtype == np.uint8 and r.shape[1] == width and width != self.k
        if not packed:
            if r.ndim != 2 or r.shape[1] != self.k:
                raise InvalidParameterError(
                    f"reports must be an (n, {self.k}) array of bits or an (n, {width}) uint8 array "
                    f"of packed bits; got shape {r.shape}")
            if r.dtype != bool:
                if r.size and not np.issubdtype(r.dtype, np.integer):
                    raise InvalidTypeError(f"reports must hold bits (bool or 0/1); got dtype {r.dtype}")
                if r.size and (int(r.min()) < 0 or int(r.max()) > 1):
                    raise InvalidParameterError("reports must hold bits 0 or 1; got other values")
        counts = np.zeros(self.k, dtype=np.int64)
        for s in range(0, r.shape[0], 4096):  # uint16 partial sums: 3x faster than one int64 sum
            part = r[s:s + 4096]
            if packed:
                part = np.unpackbits(part, axis=1, count=self.k, bitorder="little")
            else:
                part = part.view(np.uint8) if part.dtype == bool else part.astype(np.uint8)
            counts += np.add.reduce(part, axis=0, dtype=np.uint16)
        return counts

    def channel(self) -> Mechanism:
        """The whole ``k x 2^k`` channel (output ``s`` = the report's bits, bit ``i`` = value ``i``)."""
        check_array_size(self.k * 2.0 ** self.k, "the k x 2^k unary channel", "k", self.k)
        bits = (np.arange(2 ** self.k)[None, :] >> np.arange(self.k)[:, None]) & 1  # (k, 2^k)
        logq1, logq0 = math.log(self.q_star), math.log1p(-self.q_star)
        base = (bits * logq1 + (1 - bits) * logq0).sum(axis=0)
        own = bits * (math.log(self.p_star) - logq1) + (1 - bits) * (math.log1p(-self.p_star) - logq0)
        return Mechanism(np.exp(base[None, :] + own))

    def exact_channels(self) -> list[Mechanism]:
        if self.k * 2 ** min(self.k, 40) <= FULL_CHANNEL_ENTRIES:
            return [self.channel()]
        return [_pair_channel(self.p_star, self.q_star)]


class RAPPOR(UnaryEncoding):
    """Basic RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014, §3.1), one report per user.

    A known dictionary of ``k`` values, one bit per value (``h = 1``: no Bloom filter, no
    cohorts). The user's bit vector ``B`` (one-hot) goes through the *permanent* randomized
    response, memoised per user: ``B'_i = 1`` w.p. ``f/2``, ``0`` w.p. ``f/2``, ``B_i``
    w.p. ``1 - f`` (:meth:`permanent_response`); each report is then the *instantaneous*
    randomized response ``S_i = 1`` w.p. ``q`` if ``B'_i = 1`` and w.p. ``p`` if ``B'_i = 0``
    (:meth:`instantaneous_response`). One report is unary encoding with
    ``p_star = q* = f(p + q)/2 + (1 - f) q`` and ``q_star = p* = f(p + q)/2 + (1 - f) p``
    (the paper's ``q*``, ``p*``, §3.2); its level is ``eps_1 = ln(q*(1 - p*) / (p*(1 - q*)))``
    (:meth:`epsilon`) and the permanent response's, which bounds what any number of
    reports of the same value reveal, ``eps_inf = 2 ln((1 - f/2) / (f/2))``
    (:meth:`permanent_epsilon`). :meth:`from_eps` picks a symmetric instantaneous response
    (``q = 1 - p``) giving one report the level ``eps``.

    Parameters
    ----------
    k : int
        Number of values.
    f : float
        Permanent randomized response, ``0 < f < 1``.
    p, q : float
        Instantaneous randomized response, ``0 <= p < q <= 1``.

    Examples
    --------
    >>> r = RAPPOR(16, f=0.5, p=0.5, q=0.75)   # the paper's default parameters
    >>> round(r.permanent_epsilon(), 4), round(r.epsilon(), 4)
    (2.1972, 0.5371)
    """

    def __init__(self, k: int, *, f: float, p: float, q: float) -> None:
        self.f = check_real(f, "f", low=0.0, high=1.0, low_open=True, high_open=True)
        self.p_irr = check_real(p, "p", low=0.0, high=1.0)
        self.q_irr = check_real(q, "q", low=self.p_irr, high=1.0, low_open=True)
        half = self.f * (self.p_irr + self.q_irr) / 2
        super().__init__(k, half + (1 - self.f) * self.q_irr, half + (1 - self.f) * self.p_irr,
                         name="rappor")

    @classmethod
    def from_eps(cls, k: int, eps: float, *, f: float = 0.5) -> RAPPOR:
        """Basic RAPPOR whose one report is exactly eps-LDP, with a symmetric instantaneous step.

        ``q* = e^(eps/2) / (e^(eps/2) + 1) = f/2 + (1 - f) q`` with ``p = 1 - q``; possible
        when ``eps <= eps_inf = 2 ln((1 - f/2)/(f/2))`` (one report cannot reveal more than
        the permanent response it is drawn from).

        Parameters
        ----------
        k : int
            Number of values.
        eps : float
            Privacy level, ``0 < eps <= 700``.
        f : float
            Permanent randomized response, ``0 < f < 1``.
        """
        eps = _check_eps(eps)
        f = check_real(f, "f", low=0.0, high=1.0, low_open=True, high_open=True)
        if eps > MAX_SUE_EPS:
            raise InvalidParameterError(
                f"eps must be at most {MAX_SUE_EPS:g} for RAPPOR's symmetric responses; got {eps!r} "
                "(q* = e^(eps/2)/(e^(eps/2) + 1) is a double near 1, and beyond it its rounding "
                "moves the level by more than 1e-12 relative)")
        eps_inf = 2.0 * math.log((1 - f / 2) / (f / 2))
        if eps > eps_inf * (1 + 1e-12):
            raise InvalidParameterError(
                f"eps must be at most the permanent response's level 2 ln((1 - f/2)/(f/2)) = "
                f"{eps_inf:.6g} for f = {f:g}; got {eps!r} (lower f to allow a larger eps)")
        q = min(1.0, (float(expit(eps / 2)) - f / 2) / (1 - f))
        return cls(k, f=f, p=1.0 - q, q=q)

    def permanent_response(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """Each user's memoised bits ``B'`` (an ``(n, k)`` boolean array).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        from anonspread.engine.frequency import ue_sample

        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 2.0 * self.k, "the permanent and instantaneous bits (k bytes each per user)")
        return ue_sample(xs, self.k, 1 - self.f / 2, self.f / 2, check_rng(rng))[0]

    def instantaneous_response(self, permanent: Any, *, rng: Any = None) -> np.ndarray:
        """A report ``S`` from memoised bits ``B'`` (``(n, k)`` booleans).

        Parameters
        ----------
        permanent : numpy.ndarray of bool, shape (n, k)
            The users' memoised bits (:meth:`permanent_response`).
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        gen = check_rng(rng)
        b = np.asarray(permanent)
        if b.ndim != 2 or b.shape[1] != self.k or b.dtype != bool:
            raise InvalidParameterError(
                f"permanent must be an (n, {self.k}) boolean array; got {b.dtype} {b.shape}")
        out = np.empty_like(b)
        rows = max(1, (1 << 21) // self.k)
        for s in range(0, b.shape[0], rows):
            part = b[s:s + rows]
            out[s:s + part.shape[0]] = gen.random(part.shape) < np.where(part, self.q_irr, self.p_irr)
        return out

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """One report per user: permanent then instantaneous response (``(n, k)`` booleans).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        gen = check_rng(rng)
        return self.instantaneous_response(self.permanent_response(values, rng=gen), rng=gen)

    def permanent_epsilon(self) -> float:
        """Exact level of the permanent response (``2 ln((1 - f/2)/(f/2))``), from its pair channel."""
        return _pair_channel(1 - self.f / 2, self.f / 2).ldp_epsilon()

    def __repr__(self) -> str:
        return f"RAPPOR(k={self.k}, f={self.f:g}, p={self.p_irr:.6g}, q={self.q_irr:.6g})"


# ----------------------------------------------------------------- local hashing


def _collision_probability(g: int) -> float:
    """``P(h(x) = h(x'))`` for ``x != x'`` over the family ``((a x + b) mod P) mod g``.

    ``(a x + b, a x' + b) mod P`` is uniform over the ordered pairs of distinct residues
    (``a != 0``), so the probability is ``sum_r c_r (c_r - 1) / (P (P - 1))`` with ``c_r`` the
    number of residues ``u < P`` with ``u mod g = r``.
    """
    P = _HASH_PRIME
    m, s = divmod(P, g)
    same = s * (m + 1) * m + (g - s) * m * (m - 1)
    return same / (P * (P - 1))


class LocalHashing(_PureOracle):
    """Local hashing, Wang et al. 2017 §4.4: report a random hash and the randomised hash value.

    Each user draws ``h(x) = ((a x + b) mod P) mod g`` (``P = 2^31 - 1``, ``a`` uniform in
    ``[1, P)``, ``b`` in ``[0, P)``) and reports ``(a, b, y)`` with ``y = h(x)`` w.p.
    ``p = e^eps / (e^eps + g - 1)`` and each other hash value w.p. ``1 / (e^eps + g - 1)``.
    A report supports ``i`` when ``h(i) = y``: ``p_star = p`` and
    ``q_star = c p + (1 - c) / (e^eps + g - 1)`` with ``c`` the exact collision probability of
    the family (``1/g`` within ``g / 2^31``). OLH takes ``g = round(e^eps) + 1``
    (``Var* ~ 4 n e^eps / (e^eps - 1)^2``), BLH ``g = 2``. Reports take 12 bytes per user,
    whatever ``k``; the server's support counting (``n k`` hashes) runs in a compiled kernel.

    Parameters
    ----------
    k : int
        Number of values.
    eps : float
        Privacy level.
    g : int, optional
        Hash range, ``2 <= g < 2^31`` (default ``round(e^eps) + 1``, OLH).
    threads : int
        Threads of the server's support counting (the caller's choice, never read from the
        machine; OpenMP, same counts whatever the number).

    Examples
    --------
    >>> import numpy as np
    >>> olh = LocalHashing(64, 2.0)
    >>> olh.g, round(olh.epsilon(), 12)
    (8, 2.0)
    >>> values = np.random.default_rng(0).zipf(1.5, 20000) % 64
    >>> est = olh.estimate(olh.privatize(values, rng=1))
    >>> bool(abs(est.frequencies[1] - np.mean(values == 1)) < 0.03)
    True
    """

    report_bytes = 12.0

    def __init__(self, k: int, eps: float, *, g: int | None = None, threads: int = 1) -> None:
        self.k, self.eps = _check_k(k), _check_eps(eps)
        self.threads = check_int(threads, "threads", low=1)
        if g is None:
            g = int(min(_HASH_PRIME - 1, max(2, round(math.exp(min(self.eps, 30.0))) + 1)))
            self.name = "olh"
        else:
            self.name = "blh" if g == 2 else "lh"
        self.g = check_int(g, "g", low=2, high=_HASH_PRIME - 1)
        tail = math.exp(-self.eps)
        self._p = 1.0 / (1.0 + (self.g - 1) * tail)
        self._q = tail / (1.0 + (self.g - 1) * tail)
        c = _collision_probability(self.g)
        self.p_star, self.q_star = self._p, c * self._p + (1 - c) * self._q

    def __repr__(self) -> str:
        return f"LocalHashing(k={self.k}, eps={self.eps:.6g}, g={self.g})"

    def privatize(self, values: Any, *, rng: Any = None) -> HashReports:
        """Reports ``(a, b, y)``, three uint32 arrays of one entry per user.

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        gen = check_rng(rng)
        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 12.0 + 40.0, "the local-hashing reports and their working arrays")
        a = gen.integers(1, _HASH_PRIME, size=xs.size, dtype=np.uint32)
        b = gen.integers(0, _HASH_PRIME, size=xs.size, dtype=np.uint32)
        h = (a.astype(np.uint64) * xs.astype(np.uint64) + b) % np.uint64(_HASH_PRIME) % np.uint64(self.g)
        other = (h + 1 + gen.integers(0, self.g - 1, size=xs.size, dtype=np.uint64)) % np.uint64(self.g)
        y = np.where(gen.random(xs.size) < self._p, h, other).astype(np.uint32)
        return HashReports(a=a, b=b, y=y)

    def support(self, reports: Any) -> np.ndarray:
        """How many reports support each value (compiled, ``n k`` hashes).

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        from anonspread.engine.frequency import HASH_PRIME, olh_support

        assert HASH_PRIME == _HASH_PRIME
        if not isinstance(reports, HashReports):
            raise InvalidTypeError(f"reports must be the HashReports of privatize; got {type(reports).__name__}")
        return olh_support(reports.a, reports.b, reports.y, self.k, self.g, threads=self.threads)

    def hash_channel(self, a: int, b: int) -> Mechanism:
        """The ``k x g`` channel ``x -> y`` given the hash ``((a x + b) mod P) mod g``.

        Parameters
        ----------
        a : int
            Multiplier of the hash, ``1 <= a < 2^31 - 1``.
        b : int
            Offset of the hash, ``0 <= b < 2^31 - 1``.
        """
        check_array_size(self.k * self.g, "the k x g channel of one hash", "k", self.k)
        h = (int(a) * np.arange(self.k, dtype=np.int64) + int(b)) % _HASH_PRIME % self.g
        Q = np.full((self.k, self.g), self._q)
        Q[np.arange(self.k), h] = self._p
        return Mechanism(Q)

    def exact_channels(self, hashes: int = 16) -> list[Mechanism]:
        """Per-hash channels of ``hashes`` hash functions (seeded; ``(1, 0)`` among them).

        Every hash's channel has entries ``p`` and ``1/(e^eps + g - 1)`` only, so each level
        is ``eps`` (a hash separating two values) or 0; beyond :data:`FULL_CHANNEL_ENTRIES`
        the lumped channel of a separated pair (outputs ``h(x)``, ``h(x')``, the rest).

        Parameters
        ----------
        hashes : int
            Number of hash functions checked.
        """
        if self.k * self.g > FULL_CHANNEL_ENTRIES:
            p, q = self._p, self._q
            return [Mechanism([[p, q, (self.g - 2) * q], [q, p, (self.g - 2) * q]])]
        gen = np.random.default_rng(2017)
        ab = [(1, 0)] + [(int(gen.integers(1, _HASH_PRIME)), int(gen.integers(0, _HASH_PRIME)))
                         for _ in range(hashes - 1)]
        return [self.hash_channel(a, b) for a, b in ab]


# ----------------------------------------------------------------- Hadamard response


def _fwht(v: np.ndarray) -> np.ndarray:
    """Fast Walsh-Hadamard transform: ``out[r] = sum_y (-1)^popcount(r & y) v[y]``."""
    out = v.astype(np.float64).copy()
    n, h = out.size, 1
    while h < n:
        blocks = out.reshape(-1, 2, h)
        a, b = blocks[:, 0, :].copy(), blocks[:, 1, :]
        blocks[:, 0, :] += b
        blocks[:, 1, :] = a - b
        h *= 2
    return out


class HadamardResponse(_PureOracle):
    """Hadamard response (Acharya, Sun, Zhang, AISTATS 2019), its high-privacy form.

    ``K`` is the smallest power of 2 above ``k``; value ``x`` owns the set
    ``C_x = {y < K : popcount((x + 1) & y) even}`` (the +1 entries of row ``x + 1`` of the
    Sylvester-Hadamard matrix, ``K/2`` outputs). A report is ``y`` drawn w.p.
    ``2 e^eps / (K (e^eps + 1))`` on ``C_x`` and ``2 / (K (e^eps + 1))`` off it; it supports
    the values whose set holds ``y``, so ``p_star = e^eps / (e^eps + 1)`` and ``q_star = 1/2``
    exactly (two distinct rows agree on half the outputs). The server's support counts are
    one Walsh-Hadamard transform of the ``K``-bin histogram (``O(n + K log K)``); reports
    take 8 bytes per user, whatever ``k``. (The paper's block version for large eps, with
    smaller sets, is not implemented.)

    Parameters
    ----------
    k : int
        Number of values.
    eps : float
        Privacy level.

    Examples
    --------
    >>> hr = HadamardResponse(6, 1.0)
    >>> hr.K, round(hr.epsilon(), 12), hr.channel().shape
    (8, 1.0, (6, 8))
    """

    name = "hr"
    report_bytes = 8.0

    def __init__(self, k: int, eps: float) -> None:
        self.k, self.eps = _check_k(k), _check_eps(eps)
        self.K = 1 << int(self.k).bit_length()  # smallest power of 2 > k
        self.p_star, self.q_star = float(expit(self.eps)), 0.5

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """Reports in ``range(K)``, one per user (int64).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        gen = check_rng(rng)
        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 40.0, "the Hadamard reports and their working arrays")
        r = xs + 1
        y = gen.integers(0, self.K, size=xs.size)
        odd = (np.bitwise_count(r & y) & 1).astype(bool)
        want_in = gen.random(xs.size) < self.p_star
        # flipping the lowest set bit of r toggles the parity: a bijection C_x <-> its complement
        return np.where(odd == want_in, y ^ (r & -r), y)

    def support(self, reports: Any) -> np.ndarray:
        """How many reports fall in each value's set (one fast Walsh-Hadamard transform).

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        r = _check_int_reports(reports, self.K, 1, f"a 1-D array of reports in [0, {self.K - 1}]")
        hist = np.bincount(r, minlength=self.K)
        return np.rint((r.size + _fwht(hist)[1:self.k + 1]) / 2).astype(np.int64)

    def channel(self) -> Mechanism:
        """The ``k x K`` channel matrix."""
        check_array_size(self.k * self.K, "the k x K Hadamard channel", "k", self.k)
        inside = (np.bitwise_count(np.arange(1, self.k + 1)[:, None] & np.arange(self.K)[None, :]) & 1) == 0
        return Mechanism(np.where(inside, expit(self.eps), expit(-self.eps)) * (2.0 / self.K))

    def exact_channels(self) -> list[Mechanism]:
        if self.k * self.K <= FULL_CHANNEL_ENTRIES:
            return [self.channel()]
        hi, lo = float(expit(self.eps)) / 2, float(expit(-self.eps)) / 2  # K/4 outputs per class
        return [Mechanism([[hi, hi, lo, lo], [hi, lo, hi, lo]])]


# ----------------------------------------------------------------- subset selection


class SubsetSelection(_PureOracle):
    """Subset selection (Ye and Barg, IEEE T-IT 2018; Wang et al. 2016): report ``d`` values.

    The report is a ``d``-subset ``Y`` of ``range(k)`` w.p. proportional to ``e^eps`` if
    ``x`` is in ``Y`` and to 1 otherwise: ``p_star = d e^eps / (d e^eps + k - d)``,
    ``q_star = (p_star (d - 1) + (1 - p_star) d) / (k - 1)``. By default ``d`` is whichever
    of ``floor``/``ceil(k / (e^eps + 1))`` (within ``[1, k - 1]``) has the smaller ``Var*``.

    Parameters
    ----------
    k : int
        Number of values.
    eps : float
        Privacy level.
    d : int, optional
        Subset size, ``1 <= d <= k - 1``.

    Examples
    --------
    >>> ss = SubsetSelection(16, 1.0)
    >>> ss.d, round(ss.epsilon(), 12)
    (4, 1.0)
    """

    name = "ss"

    def __init__(self, k: int, eps: float, *, d: int | None = None) -> None:
        self.k, self.eps = _check_k(k), _check_eps(eps)
        if d is None:
            target = self.k / (math.exp(min(self.eps, 700.0)) + 1)
            cands = sorted({min(self.k - 1, max(1, c)) for c in (math.floor(target), math.ceil(target))})
            d = min(cands, key=lambda c: SubsetSelection(self.k, self.eps, d=c).var_star(1))
        self.d = check_int(d, "d", low=1, high=self.k - 1)
        tail = math.exp(-self.eps)
        self.p_star = self.d / (self.d + (self.k - self.d) * tail)
        self.q_star = (self.p_star * (self.d - 1) + (1 - self.p_star) * self.d) / (self.k - 1)
        self.report_bytes = 4.0 * self.d

    def __repr__(self) -> str:
        return f"SubsetSelection(k={self.k}, eps={self.eps:.6g}, d={self.d})"

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """Reports as an ``(n, d)`` int32 array (each row ``d`` distinct values; compiled, O(d) per user).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        from anonspread.engine.frequency import ss_sample

        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 4.0 * self.d, "the subset reports")
        return ss_sample(xs, self.k, self.d, self.p_star, check_rng(rng))[0]

    def simulate(self, values: Any, *, rng: Any = None, block: int | None = None) -> FrequencyEstimate:
        """Privatise ``values`` and estimate, counting each report as it is drawn (memory ``O(k)``;
        ``block`` is accepted for the signature and ignored).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        block : int, optional
            Accepted for the signature of :meth:`FrequencyOracle.simulate`; ignored.
        """
        from anonspread.engine.frequency import ss_sample

        xs = _check_values(values, self.k)
        counts = ss_sample(xs, self.k, self.d, self.p_star, check_rng(rng), store=False)[1]
        return self.estimate_from_support(counts, int(xs.size))

    def support(self, reports: Any) -> np.ndarray:
        """How many reports hold each value.

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        r = _check_int_reports(reports, self.k, 2, f"an (n, {self.d}) array of values in [0, {self.k - 1}]")
        if r.shape[1] != self.d:
            raise InvalidParameterError(f"reports must be an (n, {self.d}) array; got shape {r.shape}")
        rows = max(1, (1 << 18) // self.d)  # the check's sorted copy stays small
        for s in range(0, r.shape[0], rows):
            if np.any(np.diff(np.sort(r[s:s + rows], axis=1), axis=1) == 0):
                raise InvalidParameterError("reports must hold d distinct values per row; a row repeats a value")
        counts = np.zeros(self.k, dtype=np.int64)
        for s in range(0, r.shape[0], rows):  # bincount casts to int64: a block at a time
            counts += np.bincount(r[s:s + rows].ravel(), minlength=self.k)
        return counts

    def channel(self) -> Mechanism:
        """The whole ``k x C(k, d)`` channel (outputs: the subsets in lexicographic order)."""
        m = math.comb(self.k, self.d)
        check_array_size(self.k * m, "the k x C(k, d) subset channel", "k", self.k)
        member = np.zeros((self.k, m), dtype=bool)
        for j, sub in enumerate(itertools.combinations(range(self.k), self.d)):
            member[list(sub), j] = True
        Q = np.where(member, 1.0, math.exp(-self.eps))
        return Mechanism(Q / Q.sum(axis=1, keepdims=True))

    def exact_channels(self) -> list[Mechanism]:
        if self.k * math.comb(self.k, self.d) <= FULL_CHANNEL_ENTRIES:
            return [self.channel()]
        k, d, eps = self.k, self.d, self.eps

        def lcomb(a: int, b: int) -> float:
            return -math.inf if b < 0 or b > a else float(gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1))

        # classes by (x in Y, x' in Y): both, x only, x' only, neither
        sizes = np.array([lcomb(k - 2, d - 2), lcomb(k - 2, d - 1), lcomb(k - 2, d - 1), lcomb(k - 2, d)])
        rows = []
        for x_in in ([eps, eps, 0.0, 0.0], [eps, 0.0, eps, 0.0]):
            w = sizes + np.array(x_in)
            rows.append(np.exp(w - logsumexp(w)))
        return [Mechanism(np.array(rows))]


# ----------------------------------------------------------------- any finite mechanism


class MechanismOracle(FrequencyOracle):
    """A finite :class:`~privacy.Mechanism` used as a frequency oracle through its unbiased inverse.

    With ``Q`` of shape ``(k, m)`` and rank ``k``, the histogram ``h`` of the ``n`` outputs
    has mean ``Q^T c`` (``c`` the true counts), so ``c_hat = B h`` with ``B = (Q^T)^+`` (the
    Moore-Penrose left inverse, ``B Q^T = I``) is unbiased, with exact variance
    ``Var[c_hat_i] = sum_x c_x sum_y Q[x, y] B[i, y]^2 - c_i``. A mechanism of rank below
    ``k`` (the binary mechanisms for ``k > 2``) does not identify the frequencies and is
    refused. The level is the mechanism's own exact ``ldp_epsilon``.

    Parameters
    ----------
    mechanism : Mechanism or array_like
        The channel, shape ``(k, m)``, ``m >= k``.
    name : str
        Name shown in tables.

    Examples
    --------
    >>> import numpy as np
    >>> from anonspread.privacy.mechanisms import geometric_mechanism
    >>> geo = MechanismOracle(geometric_mechanism(5, 2.0), name="geometric")
    >>> values = np.repeat(np.arange(5), 2000)
    >>> geo.estimate(geo.privatize(values, rng=3)).frequencies.round(1)
    array([0.2, 0.1, 0.2, 0.2, 0.2])
    >>> round(geo.epsilon(), 12)
    2.0
    """

    report_bytes = 8.0

    def __init__(self, mechanism: Any, *, name: str = "mechanism") -> None:
        mech = mechanism if isinstance(mechanism, Mechanism) else Mechanism(mechanism)
        k, m = mech.shape
        if k < 2:
            raise InvalidParameterError(f"mechanism must have at least 2 inputs; got shape {mech.shape}")
        check_array_size(2 * k * m, "the mechanism's inverse", "mechanism", f"a {k} x {m} matrix")
        # one SVD gives the rank (numpy's matrix_rank tolerance) and the pseudo-inverse
        u, sv, vt = np.linalg.svd(mech.matrix.T, full_matrices=False)  # Q^T = u diag(sv) vt
        rank = int(np.sum(sv > sv.max() * max(mech.shape) * np.finfo(float).eps))
        if rank < k:
            raise InvalidParameterError(
                f"mechanism must have rank k = {k} (its output law must determine the input "
                f"frequencies) to be a frequency oracle; got a {k} x {m} matrix of rank {rank}")
        self.mechanism, self.k, self.name = mech, k, name
        self.eps = mech.ldp_epsilon()
        self._B = (vt.T / sv) @ u.T  # (k, m): (Q^T)^+, B Q^T = I

    def __repr__(self) -> str:
        return f"MechanismOracle({self.name!r}, k={self.k}, m={self.mechanism.n_outputs}, eps={self.eps:.6g})"

    def privatize(self, values: Any, *, rng: Any = None) -> np.ndarray:
        """One output of the mechanism per user (int64).

        Parameters
        ----------
        values : array_like of int, shape (n,)
            One value in ``range(k)`` per user.
        rng : None, int or numpy.random.Generator
            Seed or generator of the users' randomness.
        """
        xs = _check_values(values, self.k)
        _guard_reports(xs.size, 40.0, "the mechanism's outputs and their working arrays")
        return self.mechanism.privatize(xs, rng=rng)

    def support(self, reports: Any) -> np.ndarray:
        """The histogram of the ``m`` outputs.

        Parameters
        ----------
        reports : object
            What :meth:`privatize` returned, for any number of users.
        """
        m = self.mechanism.n_outputs
        r = _check_int_reports(reports, m, 1, f"a 1-D array of outputs in [0, {m - 1}]")
        return np.bincount(r, minlength=m)

    def estimate_from_support(self, support: np.ndarray, n: int) -> FrequencyEstimate:
        support = np.asarray(support)
        return FrequencyEstimate(counts=self._B @ support, n=int(n), support=support)

    def count_variance(self, counts: Any) -> np.ndarray:
        c = np.asarray(counts, dtype=float)
        if c.shape != (self.k,) or np.any(c < 0) or not np.all(np.isfinite(c)):
            raise InvalidParameterError(f"counts must be {self.k} non-negative numbers; got shape {c.shape}")
        second = (self._B ** 2) @ self.mechanism.matrix.T  # [i, x] = sum_y B[i,y]^2 Q[x,y]
        return second @ c - c

    def var_star(self, n: Any) -> float:
        """The largest variance of a count at a value nobody holds, over where the ``n`` users are.

        Parameters
        ----------
        n : int
            Number of users (reports).
        """
        n = _check_n(n)
        second = (self._B ** 2) @ self.mechanism.matrix.T
        off = second.copy()
        np.fill_diagonal(off, -np.inf)
        return float(n * np.max(off.max(axis=1)))

    def exact_channels(self) -> list[Mechanism]:
        return [self.mechanism]


# ----------------------------------------------------------------- registry

#: Frequency oracles by name: ``factory(k, eps, **params) -> FrequencyOracle``.
ORACLES: Registry[Callable[..., FrequencyOracle]] = Registry("frequency oracle", parameter="oracle")


def register_oracle(name: str, factory: Callable[..., FrequencyOracle], *,
                    replace: bool = False) -> Callable[..., FrequencyOracle]:
    """Register ``factory(k, eps, **params) -> FrequencyOracle`` under ``name``.

    Parameters
    ----------
    name : str
        Registry key.
    factory : callable
        ``factory(k, eps, **params)``.
    replace : bool
        Replace an existing registration.

    Returns
    -------
    callable
        ``factory``.

    Examples
    --------
    >>> from anonspread.privacy.mechanisms import randomized_response
    >>> _ = register_oracle("rr-matrix", lambda k, eps: MechanismOracle(
    ...     randomized_response(k, eps), name="rr-matrix"), replace=True)
    >>> make_oracle("rr-matrix", 4, 1.0)
    MechanismOracle('rr-matrix', k=4, m=4, eps=1)
    """
    return ORACLES.add(name, factory, replace=replace)


def make_oracle(name: str, k: int, eps: float, **params: Any) -> FrequencyOracle:
    """The oracle registered as ``name`` for ``k`` values at level ``eps``.

    Parameters
    ----------
    name : str
        One of ``list(ORACLES)``: ``grr``, ``sue``, ``oue``, ``rappor``, ``olh``, ``blh``,
        ``hr``, ``ss``, ``geometric`` (the thesis's truncated geometric mechanism through its
        inverse), ``staircase-mi`` (the thesis's optimal staircase mechanism for the mutual
        information, uniform prior, ``k <= 32``, through its inverse), or a name registered
        with :func:`register_oracle`.
    k : int
        Number of values.
    eps : float
        Privacy level.
    **params
        Passed to the factory (``f`` for ``rappor``, ``g`` for ``olh``, ``d`` for ``ss``).

    Returns
    -------
    FrequencyOracle

    Examples
    --------
    >>> [round(make_oracle(name, 32, 1.0).var_star(1), 2) for name in ("grr", "oue", "olh", "hr")]
    [11.08, 3.68, 3.69, 4.68]
    """
    return ORACLES.get(name)(k, eps, **params)


#: The oracles :func:`rank_oracles` compares by default.
STANDARD_ORACLES = ("grr", "sue", "oue", "olh", "blh", "hr", "ss")


def rank_oracles(k: int, eps: float, n: int, *, frequencies: Any = None,
                 names: Any = STANDARD_ORACLES) -> list[tuple[str, float]]:
    """The oracles ranked by their exact expected squared L2 error ``E ||f_hat - f||_2^2``.

    Parameters
    ----------
    k : int
        Number of values.
    eps : float
        Privacy level.
    n : int
        Number of users.
    frequencies : array_like, shape (k,), optional
        The users' distribution (default uniform; the error depends on it only through
        the ``n_i`` term of the variance, small when ``p_star, q_star`` are far from 1/2).
    names : iterable of str
        Registered oracle names to compare.

    Returns
    -------
    list of (str, float)
        ``(name, E ||f_hat - f||_2^2)``, smallest first.

    Examples
    --------
    GRR for few values or a large eps, OLH/OUE for many values at a moderate eps:

    >>> [name for name, _ in rank_oracles(4, 1.0, 1000)[:2]]
    ['grr', 'ss']
    >>> [name for name, _ in rank_oracles(1024, 1.0, 1000)[:3]]
    ['ss', 'oue', 'olh']
    """
    k = _check_k(k)
    f = np.full(k, 1.0 / k) if frequencies is None else _check_frequencies(frequencies, k)
    n = _check_n(n)
    if isinstance(names, str):
        raise InvalidTypeError(f"names must be an iterable of oracle names; got the str {names!r}")
    rows = [(name, make_oracle(name, k, eps).expected_squared_l2(f, n)) for name in names]
    return sorted(rows, key=lambda row: row[1])


def _geometric(k: int, eps: float) -> MechanismOracle:
    from anonspread.privacy.mechanisms import geometric_mechanism

    return MechanismOracle(geometric_mechanism(_check_k(k), _check_eps(eps)), name="geometric")


def _staircase_mi(k: int, eps: float) -> MechanismOracle:
    """The thesis's optimal mechanism for the mutual information under a uniform prior
    (``optimal_staircase(MutualInformation(uniform), eps)``) through its inverse: randomized
    response (GRR) where it has rank ``k``; below that eps it has fewer than ``k`` outputs
    and cannot estimate ``k`` frequencies (refused, saying so)."""
    from anonspread.privacy.staircase import optimal_staircase
    from anonspread.privacy.utility import MutualInformation

    k = _check_k(k)
    return MechanismOracle(optimal_staircase(MutualInformation(np.full(k, 1.0 / k)), _check_eps(eps)),
                           name="staircase-mi")


for _name, _factory in (
    ("grr", GRR),
    ("sue", UnaryEncoding.symmetric),
    ("oue", UnaryEncoding.optimized),
    ("rappor", RAPPOR.from_eps),
    ("olh", LocalHashing),
    ("blh", lambda k, eps, **params: LocalHashing(k, eps, g=2, **params)),
    ("hr", HadamardResponse),
    ("ss", SubsetSelection),
    ("geometric", _geometric),
    ("staircase-mi", _staircase_mi),
):
    ORACLES.add(_name, _factory)
