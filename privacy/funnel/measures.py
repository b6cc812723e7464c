"""Privacy and utility of a mechanism w.r.t. a secret (Lopuhaä-Zwakenberg et al., §III, §VI).

The privacy levels are *exact*: each is the smallest ``eps`` for which the mechanism
satisfies the definition, computed from the output distributions conditioned on the
secret. Logarithms are natural, so mutual information is in nats.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.privacy.funnel.checks import check_joint, check_mechanism_matrix

__all__ = ["ldp_epsilon", "lip_epsilon", "mutual_information", "srlip_epsilon"]


def _secret_output_joint(Q: Any, p_sx: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate and return ``P(S = s, Y = y)`` (shape (c, b)) and ``p_S``.

    ``Q`` has either ``a`` rows (a mechanism on X) or ``c * a`` rows (a mechanism on the
    pairs (s, x), row ``s * a + x``, as :func:`conditional_reporting` returns).
    """
    p = check_joint(p_sx)
    c, a = p.shape
    Qm = check_mechanism_matrix(Q, (a, c * a))
    if Qm.shape[0] == a:  # for c == 1 both branches agree
        p_sy = p @ Qm
    else:
        p_sy = np.einsum("sx,sxy->sy", p, Qm.reshape(c, a, -1))
    return p_sy, p.sum(axis=1)


def _max_abs_log_ratio(num: np.ndarray, den: np.ndarray) -> float:
    """``max |log(num / den)|`` over entries with ``den > 0``; a zero ``num`` there is inf."""
    mask = den > 0
    if not np.any(mask):
        return 0.0
    n, d = num[mask], den[mask]
    if np.any(n <= 0):
        return float("inf")
    return float(np.max(np.abs(np.log(n) - np.log(d))))


def ldp_epsilon(Q: Any, p_sx: Any) -> float:
    r"""The exact LDP level of ``Q`` with respect to the secret S (Definition 1).

    .. math::
        \varepsilon_{\mathrm{LDP}} = \max_{y}\max_{s, s'}
            \ln\frac{\mathbb P(Y = y \mid S = s)}{\mathbb P(Y = y \mid S = s')},
        \qquad \mathbb P(Y = y \mid S = s) = (p_{X|s}\,Q)_y \quad \text{(Eq. 1, 7)}.

    Secret values of probability zero and outputs that never occur are ignored; an
    output that occurs under one secret value and not under another gives ``inf``.

    Parameters
    ----------
    Q : Mechanism or array_like, shape (a, b) or (c * a, b)
        ``Q[x, y] = P(Y = y | X = x)``; a mechanism taking pairs (s, x) as input (row
        ``s * a + x``), such as :func:`conditional_reporting`, is also accepted.
    p_sx : array_like, shape (c, a)
        Joint distribution of the secret S (rows) and the data X (columns).

    Returns
    -------
    float
        The smallest ``eps`` such that ``Q`` is ``eps``-LDP w.r.t. S.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> round(ldp_epsilon(np.eye(2), p_sx), 6)  # ln 4
    1.386294
    """
    p_sy, p_s = _secret_output_joint(Q, p_sx)
    cond = p_sy[p_s > 0] / p_s[p_s > 0, None]
    hi = cond.max(axis=0)
    lo = cond.min(axis=0)
    used = hi > 0
    if not np.any(used):
        return 0.0
    if np.any(lo[used] <= 0):
        return float("inf")
    return float(max(0.0, np.max(np.log(hi[used]) - np.log(lo[used]))))


def lip_epsilon(Q: Any, p_sx: Any) -> float:
    r"""The exact LIP level of ``Q`` with respect to the secret S (Definition 2, Eq. 27).

    .. math::
        \varepsilon_{\mathrm{LIP}} = \max_{y, s}
            \left|\ln\frac{\mathbb P(Y = y \mid S = s)}{\mathbb P(Y = y)}\right|.

    Secret values of probability zero and outputs of probability zero are ignored.

    Parameters
    ----------
    Q : Mechanism or array_like, shape (a, b) or (c * a, b)
        As in :func:`ldp_epsilon`.
    p_sx : array_like, shape (c, a)
        Joint distribution of S (rows) and X (columns).

    Returns
    -------
    float
        The smallest ``eps`` such that ``Q`` is ``eps``-LIP w.r.t. S.

    Examples
    --------
    >>> import numpy as np
    >>> p_sx = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> round(lip_epsilon(np.eye(2), p_sx), 6)  # |ln(0.2 / 0.5)| = ln 2.5
    0.916291
    """
    p_sy, p_s = _secret_output_joint(Q, p_sx)
    keep = p_s > 0
    cond = p_sy[keep] / p_s[keep, None]
    p_y = p_sy.sum(axis=0)
    return max(0.0, _max_abs_log_ratio(cond, np.broadcast_to(p_y, cond.shape)))


def srlip_epsilon(Q: Any, p_sx: Any) -> float:
    r"""The exact side-channel-resistant LIP level of ``Q`` (Definition 3, Eq. 22).

    For data with ``m`` attributes, ``X = (X^1, ..., X^m)``, the level is

    .. math::
        \max_{J \subseteq \{1..m\}}\ \max_{x^J, s, y}\left|\ln
            \frac{\mathbb P(Y = y \mid S = s, X^J = x^J)}{\mathbb P(Y = y \mid X^J = x^J)}\right|,

    over the ``x^J`` and ``s`` of positive probability. ``J = ∅`` is plain LIP, so
    ``srlip_epsilon(Q, p) >= lip_epsilon(Q, p.reshape(c, -1))`` (Lemma 2).

    Parameters
    ----------
    Q : Mechanism or array_like, shape (a_1 * ... * a_m, b)
        Mechanism on the attribute tuples, row ``numpy.ravel_multi_index(x, (a_1, ..., a_m))``.
    p_sx : array_like, shape (c, a_1, ..., a_m)
        Joint distribution of the secret and the ``m`` attributes.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> p = np.full((2, 2, 2), 1 / 8)          # S, X^1, X^2 independent
    >>> srlip_epsilon(np.eye(4), p)
    0.0
    """
    p = check_joint(p_sx, min_ndim=2, max_ndim=32)
    attr_shape = p.shape[1:]
    m = len(attr_shape)
    Qm = check_mechanism_matrix(Q, (int(np.prod(attr_shape)),))
    b = Qm.shape[1]
    joint = p[..., None] * Qm.reshape(*attr_shape, b)[None]  # P(s, x, y)
    worst = 0.0
    axes = tuple(range(1, m + 1))
    for size in range(m + 1):
        for J in combinations(axes, size):
            drop = tuple(ax for ax in axes if ax not in J)
            t = joint.sum(axis=drop) if drop else joint  # P(s, x^J, y)
            pj = p.sum(axis=drop) if drop else p  # P(s, x^J)
            p_xj = pj.sum(axis=0)  # P(x^J)
            t_xj = t.sum(axis=0)  # P(x^J, y)
            # ratio = P(y | s, x^J) / P(y | x^J) = t * P(x^J) / (P(s, x^J) * P(x^J, y))
            num = t * p_xj[None, ..., None]
            den = pj[..., None] * t_xj[None]
            valid = (pj[..., None] > 0) & (t_xj[None] > 0)
            den = np.where(valid, den, 0.0)
            worst = max(worst, _max_abs_log_ratio(num, den))
            if worst == float("inf"):
                return worst
    return worst


def mutual_information(Q: Any, p_x: Any) -> float:
    r"""The utility ``I(X; Y)`` in nats of a mechanism (the objective of Problem 2).

    .. math::
        I(X; Y) = \sum_{x, y} p_x Q_{y|x} \ln\frac{Q_{y|x}}{\sum_{x'} p_{x'} Q_{y|x'}}.

    Parameters
    ----------
    Q : Mechanism or array_like, shape (k, b)
        ``Q[x, y] = P(Y = y | X = x)``.
    p_x : array_like
        Either the input distribution (1-D, length ``k``), giving ``I(input; Y)``, or a
        joint ``p_sx`` of shape ``(c, a)``: then ``Q`` may act on X (``k = a``) or on the
        pairs (s, x) (``k = c * a``, row ``s * a + x``, as :func:`conditional_reporting`
        returns) and the result is ``I(X; Y)`` in both cases.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.isclose(mutual_information(np.eye(2), [0.5, 0.5]), np.log(2)))
    True
    """
    p_arr = np.asarray(p_x, dtype=float) if not isinstance(p_x, np.ndarray) else p_x
    if p_arr.ndim == 2:
        p = check_joint(p_arr, "p_x")
        c, a = p.shape
        Qm = check_mechanism_matrix(Q, (a, c * a))
        if Qm.shape[0] == a:
            p_xy = p.sum(axis=0)[:, None] * Qm
        else:
            p_xy = np.einsum("sx,sxy->xy", p, Qm.reshape(c, a, -1))
    elif p_arr.ndim == 1:
        p = check_joint(p_arr, "p_x", min_ndim=1, max_ndim=1)
        Qm = check_mechanism_matrix(Q, (p.size,))
        p_xy = p[:, None] * Qm
    else:
        raise InvalidParameterError(
            f"p_x must be a 1-D input distribution or a joint p_sx of shape (c, a); got an "
            f"array of shape {p_arr.shape}"
        )
    p_in = p_xy.sum(axis=1, keepdims=True)
    p_y = p_xy.sum(axis=0, keepdims=True)
    mask = p_xy > 0
    terms = p_xy[mask] * (np.log(p_xy[mask]) - np.log((p_in * p_y)[mask]))
    return float(max(0.0, terms.sum()))
