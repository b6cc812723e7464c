"""Side-channel-resistant LIP for multi-attribute data: the product protocol (Theorem 4, §VI).

Internal to :mod:`privacy.funnel`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from itertools import combinations
from typing import Any

import numpy as np

from anonspread.errors import InvalidParameterError
from anonspread.privacy.funnel.checks import check_eps, check_joint
from anonspread.privacy.funnel.optimal import _embed, optimal_from_rays
from anonspread.privacy.funnel.polytope import cone_rays
from anonspread.privacy.mechanism import Mechanism
from anonspread.validation import check_real

__all__ = ["product_mechanism", "srlip_components", "srlip_product"]


def product_mechanism(mechanisms: Sequence[Any]) -> Mechanism:
    """The product protocol ``prod_j Q^j`` applying ``Q^j`` to attribute ``j`` independently.

    Input ``(x^1, ..., x^m)`` is row ``numpy.ravel_multi_index(x, (a_1, ..., a_m))`` and
    output ``(y^1, ..., y^m)`` is column ``numpy.ravel_multi_index(y, (b_1, ..., b_m))``
    (the Kronecker product of the matrices).

    Parameters
    ----------
    mechanisms : sequence of Mechanism or array_like
        One mechanism per attribute.

    Returns
    -------
    Mechanism

    Examples
    --------
    >>> product_mechanism([[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5]]]).shape
    (2, 4)
    """
    if len(mechanisms) == 0:
        raise InvalidParameterError("mechanisms must be a non-empty sequence of mechanisms; got []")
    mats = [m.matrix if isinstance(m, Mechanism) else Mechanism(m).matrix for m in mechanisms]
    return Mechanism(reduce(np.kron, mats))


def _attribute_constraints(p: np.ndarray, j: int, eps_j: float) -> np.ndarray:
    """Rows ``A`` with ``A q >= 0`` iff the column ``q`` satisfies Eqs. (25)-(26) for attribute j.

    That is: ``e^-eps_j <= q . p_{X^j|s,x^J} / q . p_{X^j|x^J} <= e^eps_j`` for every
    ``J`` not containing ``j``, every ``x^J`` and every ``s`` of positive probability.
    """
    m = p.ndim - 1
    others = [k for k in range(1, m + 1) if k != j + 1]
    e = np.exp(eps_j)
    rows = []
    for size in range(len(others) + 1):
        for J in combinations(others, size):
            drop = tuple(k for k in others if k not in J)
            pj = p.sum(axis=drop) if drop else p  # axes: s, then J and j in order
            # Move attribute j last, flatten x^J into one axis: shape (c, n_J, a_j).
            axes_left = [0, *J, j + 1]
            pos = {ax: i for i, ax in enumerate(sorted(axes_left))}
            pj = np.moveaxis(pj, pos[j + 1], -1)
            c, a_j = pj.shape[0], pj.shape[-1]
            pj = pj.reshape(c, -1, a_j)
            p_sxj = pj.sum(axis=2)  # P(s, x^J)
            p_xj = pj.sum(axis=0)  # P(x^J, x^j)
            for k in range(pj.shape[1]):
                tot = p_xj[k].sum()
                if tot <= 0:
                    continue
                marg = p_xj[k] / tot
                for s in range(c):
                    if p_sxj[s, k] <= 0:
                        continue
                    cond = pj[s, k] / p_sxj[s, k]
                    rows.append(e * marg - cond)
                    rows.append(cond - marg / e)
    return np.unique(np.array(rows), axis=0)


def _split(eps: float, m: int, split: Sequence[float] | None) -> list[float]:
    if split is None:
        return [eps / m] * m
    parts = [check_real(x, "split", low=0.0) for x in split]
    if len(parts) != m or not np.isclose(sum(parts), eps, rtol=1e-12, atol=1e-12):
        raise InvalidParameterError(
            f"split must be {m} non-negative budgets summing to eps = {eps!r}; got {list(split)!r}"
        )
    return parts


def srlip_components(
    p_sx: Any, eps: Any, *, split: Sequence[float] | None = None
) -> list[Mechanism]:
    r"""Per-attribute mechanisms ``Q^j`` whose product is ``eps``-SRLIP (Theorem 4).

    For data ``X = (X^1, ..., X^m)``, ``Q^j`` maximises ``I(X^j; Y^j)`` subject to
    being ``eps^j``-LIP w.r.t. :math:`p_{S, X^j | x^J}` for every ``J`` not containing
    ``j`` and every ``x^J`` (Eqs. 23-26), where ``eps^j = eps / m`` unless ``split``
    gives the budgets. Those constraints are homogeneous and act on one output column
    at a time, so, exactly as in :func:`optimal_ldp`, the optimum is a linear program
    over the extreme rays of an ``a_j``-dimensional cone instead of a vertex
    enumeration of the ``a_j(a_j - 1)``-dimensional polytope the paper uses.

    Parameters
    ----------
    p_sx : array_like, shape (c, a_1, ..., a_m)
        Joint distribution of the secret and the ``m`` attributes.
    eps : float
        Total SRLIP budget, ``>= 0``.
    split : sequence of float, optional
        Budgets ``eps^j`` (non-negative, summing to ``eps``).

    Returns
    -------
    list of Mechanism
        ``Q^j`` on attribute ``j`` (``a_j`` inputs).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.random.default_rng(0).random((2, 2, 3)); p /= p.sum()
    >>> [Q.n_inputs for Q in srlip_components(p, 1.0)]
    [2, 3]
    """
    p = check_joint(p_sx, min_ndim=2, max_ndim=32)
    eps = check_eps(eps)
    m = p.ndim - 1
    budgets = _split(eps, m, split)
    out = []
    for j in range(m):
        p_xj = p.sum(axis=tuple(k for k in range(p.ndim) if k != j + 1))
        keep = p_xj > 0
        if keep.sum() == 1:
            out.append(_embed(np.ones((1, 1)), keep))
            continue
        A = _attribute_constraints(p, j, budgets[j])[:, keep]
        rays = cone_rays(A)
        Q = optimal_from_rays(rays, p_xj[keep], f"srlip_components (attribute {j})")
        out.append(_embed(Q, keep))
    return out


def srlip_product(p_sx: Any, eps: Any, *, split: Sequence[float] | None = None) -> Mechanism:
    """The ``eps``-SRLIP product protocol of Theorem 4 on the attribute tuples.

    The product (:func:`product_mechanism`) of :func:`srlip_components`; Theorem 4
    guarantees ``srlip_epsilon(srlip_product(p, eps), p) <= eps``.

    Parameters
    ----------
    p_sx : array_like, shape (c, a_1, ..., a_m)
    eps : float
    split : sequence of float, optional

    Returns
    -------
    Mechanism
        ``(a_1 * ... * a_m)`` inputs in C order.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.random.default_rng(0).random((2, 2, 3)); p /= p.sum()
    >>> from anonspread.privacy.funnel import srlip_epsilon
    >>> bool(srlip_epsilon(srlip_product(p, 1.0), p) <= 1.0 + 1e-9)
    True
    """
    return product_mechanism(srlip_components(p_sx, eps, split=split))
