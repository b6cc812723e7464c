"""Closed forms and bounds of the transaction model (Dandelion 2017, Dandelion++ 2018).

Precision and recall as defined in :mod:`adversaries.transactions`. The papers prove,
for **any** spreading protocol, that an adversary with a fraction ``p`` of spies attains
expected recall at least ``p`` and expected precision at least ``p^2``
(Venkatakrishnan, Fanti & Viswanath 2017, the fundamental lower bounds Dandelion++
recalls), and that Dandelion's line and the 4-regular graph of Dandelion++ keep the
first-spy precision at ``O(p^2 log(1/p))``. :func:`recall_lower_bound` and
:func:`precision_lower_bound` are those bounds.

For the line (Dandelion's anonymity graph, a random directed n-cycle, stems running until
they meet a spy, ``q -> 0``) with exactly ``k`` spies placed uniformly at random, the
expectations are exact finite sums, derived here and checked against exhaustive
enumeration of the spy placements in ``tests/adversaries/test_adv_transactions.py``:

* the honest nodes between two consecutive spies form a *run*; all the run's
  transactions reach the spy after it from the run's last node;
* the run before a given spy has length ``L`` with
  ``P(L = l) = C(n-2-l, k-2) / C(n-1, k-1)`` (``l = 0..n-k``; ``L = n-1`` when ``k = 1``);
* first-spy maps the run's ``L`` transactions to its last node: one correct, precision
  ``1/L``; so ``E[R] = k/(n-1)`` and ``E[D] = (k/h) sum_l P(L = l)/l`` with ``h = n-k``,
  which tends to ``p^2 log(1/p)/(1-p)`` (:func:`line_first_spy_precision_limit`);
* an adversary that knows the graph sees that every run member is equally likely:
  max-precision (a matching) is right once per run on average, so its precision equals
  its recall, ``k/(n-1)`` -- on the line, knowing the graph lifts precision from
  ``p^2 log(1/p)`` to ``p`` (the weakness Dandelion++ fixes with the 4-regular graph);
  max-recall (each transaction to a uniform run member) has recall ``k/(n-1)`` and
  precision ``(k/h) sum_l P(L = l) (1 - (1 - 1/l)^l)``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from anonspread.errors import InvalidParameterError
from anonspread.validation import check_int, check_probability

__all__ = [
    "line_first_spy",
    "line_first_spy_precision_limit",
    "line_max_precision",
    "line_max_recall",
    "line_run_length_pmf",
    "precision_lower_bound",
    "recall_lower_bound",
    "spies_for",
]


def spies_for(n: int, p: float) -> int:
    """The number of spies the experiments place: ``floor(p n)`` (the authors' scripts).

    Parameters
    ----------
    n : int
        Nodes, >= 1.
    p : float
        Fraction of spies, in [0, 1].

    Returns
    -------
    int

    Examples
    --------
    >>> spies_for(100, 0.2)
    20
    """
    n = check_int(n, "n", low=1)
    p = check_probability(p, "p")
    return math.floor(p * n + 1e-9)


def recall_lower_bound(p: float) -> float:
    """``p``: the expected recall some adversary attains against any protocol.

    Parameters
    ----------
    p : float
        Fraction of spies, in [0, 1].

    Returns
    -------
    float
    """
    return check_probability(p, "p")


def precision_lower_bound(p: float) -> float:
    """``p^2``: the expected precision some adversary attains against any protocol.

    Parameters
    ----------
    p : float
        Fraction of spies, in [0, 1].

    Returns
    -------
    float
    """
    return check_probability(p, "p") ** 2


def _check_nk(n: int, k: int) -> tuple[int, int]:
    n = check_int(n, "n", low=2)
    k = check_int(k, "k", low=1)
    if k >= n:
        raise InvalidParameterError(f"k (spies) must be in [1, n - 1] = [1, {n - 1}]; got {k}")
    return n, k


def line_run_length_pmf(n: int, k: int) -> list[Fraction]:
    """``P(L = l)``, ``l = 0..n-k``: honest nodes just before a given spy on the n-cycle.

    Parameters
    ----------
    n : int
        Nodes on the cycle, >= 2.
    k : int
        Spies among them, ``1 <= k <= n - 1``.

    Returns
    -------
    list of fractions.Fraction

    Examples
    --------
    >>> [str(x) for x in line_run_length_pmf(6, 2)]
    ['1/5', '1/5', '1/5', '1/5', '1/5']
    """
    n, k = _check_nk(n, k)
    if k == 1:
        return [Fraction(0)] * (n - 1) + [Fraction(1)]
    den = math.comb(n - 1, k - 1)
    return [Fraction(math.comb(n - 2 - j, k - 2), den) for j in range(n - k + 1)]


def line_first_spy(n: int, k: int) -> tuple[Fraction, Fraction]:
    """Exact ``(E[precision], E[recall])`` of first-spy on Dandelion's line, k spies.

    Parameters
    ----------
    n : int
        Nodes on the cycle, >= 2.
    k : int
        Spies among them, ``1 <= k <= n - 1``.

    Returns
    -------
    tuple of fractions.Fraction

    Examples
    --------
    The worked example of :func:`adversaries.transactions.observe_transactions` (4-cycle,
    one spy): the three transactions all come from the spy's predecessor.

    >>> [str(x) for x in line_first_spy(4, 1)]
    ['1/9', '1/3']
    """
    n, k = _check_nk(n, k)
    h = n - k
    pmf = line_run_length_pmf(n, k)
    prec = Fraction(k, h) * sum((pmf[j] / j for j in range(1, len(pmf))), Fraction(0))
    return prec, Fraction(k, n - 1)


def line_max_precision(n: int, k: int) -> Fraction:
    """Exact expected precision (= recall) of max-precision on the line: ``k/(n-1)``.

    Parameters
    ----------
    n : int
        Nodes on the cycle, >= 2.
    k : int
        Spies among them, ``1 <= k <= n - 1``.

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> line_max_precision(100, 20)
    Fraction(20, 99)
    """
    n, k = _check_nk(n, k)
    return Fraction(k, n - 1)


def line_max_recall(n: int, k: int) -> tuple[float, Fraction]:
    """Exact ``(E[precision], E[recall])`` of max-recall on the line (precision as a float).

    Parameters
    ----------
    n : int
        Nodes on the cycle, >= 2.
    k : int
        Spies among them, ``1 <= k <= n - 1``.

    Returns
    -------
    tuple of (float, fractions.Fraction)

    Examples
    --------
    >>> precision, recall = line_max_recall(100, 20)
    >>> round(precision, 4), recall
    (0.151, Fraction(20, 99))
    """
    n, k = _check_nk(n, k)
    h = n - k
    pmf = line_run_length_pmf(n, k)
    prec = sum(float(pmf[j]) * (1.0 - (1.0 - 1.0 / j) ** j) for j in range(1, len(pmf)))
    return k / h * prec, Fraction(k, n - 1)


def line_first_spy_precision_limit(p: float) -> float:
    """``p^2 log(1/p) / (1 - p)``: first-spy precision on the line as ``n -> inf``.

    Parameters
    ----------
    p : float
        Fraction of spies, in [0, 1].

    Returns
    -------
    float
        NaN at ``p = 1`` (no honest node).

    Examples
    --------
    The limit and the exact value at ``n = 1000``, 20% spies:

    >>> limit = line_first_spy_precision_limit(0.2)
    >>> precision, recall = line_first_spy(1000, 200)
    >>> round(limit, 4), round(float(precision), 4)
    (0.0805, 0.0804)
    """
    p = check_probability(p, "p")
    if p in (0.0, 1.0):
        return 0.0 if p == 0.0 else math.nan
    return p * p * math.log(1.0 / p) / (1.0 - p)
