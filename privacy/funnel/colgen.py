"""Column generation for the cone-ray LP, for cones with too many extreme rays to list.

Internal to :mod:`privacy.funnel`. The optimal mechanism under a homogeneous
per-column privacy constraint ``A q >= 0`` solves (see :func:`privacy.funnel.optimal_ldp`)

    max sum_k theta_k mu(r_k)  s.t.  sum_k theta_k r_k = 1,  theta >= 0

over generators ``r_k`` of the cone ``C = {q >= 0 : A q >= 0}``. Any set of
generators works, not only extreme rays, so the LP can be grown column by column.
With rays normalised to ``p_X . r = 1``, ``mu(r) = sum_x p_x r_x ln r_x`` and the
pricing problem for the LP dual ``y`` is

    max F(r) = sum_x (p_x r_x ln r_x + y_x r_x)  over  P1 = {r in C : p_X . r = 1}.

``F`` is separable and convex, so its maximum is at a vertex of ``P1``. Columns are
found by successive linearisation (each LP step cannot decrease ``F``) and the
final dual is *certified* by branch and bound with secant over-estimators
(Falk-Soland): when every box has an LP bound ``<= tol``, no column improves the
master by more than ``tol``, and since ``sum_k theta_k = 1`` for every feasible
``theta`` the master's value is within ``tol`` nats of the optimum.
"""

from __future__ import annotations

import heapq

import highspy
import numpy as np
from scipy.optimize import linprog

from anonspread.errors import InfeasibleError
from anonspread.privacy._highs import quiet_highs

__all__ = ["colgen_optimum"]

_OPTS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class _Pricing:
    """LPs over ``P1 = {r >= 0 : A r >= 0, p . r = 1}`` (optionally inside a box).

    One persistent HiGHS model; only the costs and bounds change between solves, so
    each solve is warm-started and costs a fraction of a millisecond.
    """

    def __init__(self, A: np.ndarray, p_x: np.ndarray) -> None:
        a = p_x.size
        M = np.vstack([A, p_x[None, :]])
        lp = highspy.HighsLp()
        lp.num_col_ = a
        lp.num_row_ = M.shape[0]
        lp.col_cost_ = np.zeros(a)
        lp.col_lower_ = np.zeros(a)
        lp.col_upper_ = np.full(a, highspy.kHighsInf)
        lp.row_lower_ = np.concatenate([np.zeros(A.shape[0]), [1.0]])
        lp.row_upper_ = np.concatenate([np.full(A.shape[0], highspy.kHighsInf), [1.0]])
        lp.sense_ = highspy.ObjSense.kMaximize
        nz = np.nonzero(M)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(np.count_nonzero(M, axis=1))])
        lp.a_matrix_.index_ = nz[1].astype(np.int32)
        lp.a_matrix_.value_ = M[nz]
        self.h = quiet_highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        self.h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        # Primal simplex: a child box is split at the parent's solution, which stays
        # feasible for both children, so the parent's basis is a primal-feasible start.
        self.h.setOptionValue("simplex_strategy", 4)
        self.h.passModel(lp)
        self.idx = np.arange(a, dtype=np.int32)
        self.free_hi = np.full(a, highspy.kHighsInf)
        self.p_x = p_x
        self.box = self._tightest_box()

    def _tightest_box(self) -> tuple[np.ndarray, np.ndarray]:
        """The smallest box ``[lo, hi]`` containing ``P1`` (2a LPs, once per problem).

        ``r_x <= 1 / p_x`` holds on ``P1`` trivially; the privacy rows cut it much
        further, and every secant bound of the certificate shrinks with the box.
        """
        a = self.p_x.size
        lo, hi = np.zeros(a), 1.0 / self.p_x
        for x in range(a):
            e = np.zeros(a)
            e[x] = 1.0
            top = self.argmax(e)
            bottom = self.argmax(-e)
            if top is not None:
                hi[x] = min(hi[x], top[x] * (1 + 1e-9) + 1e-12)
            if bottom is not None:
                lo[x] = max(0.0, bottom[x] * (1 - 1e-9) - 1e-12)
        return lo, hi

    def argmax(
        self,
        g: np.ndarray,
        lo: np.ndarray | None = None,
        hi: np.ndarray | None = None,
        basis: highspy.HighsBasis | None = None,
    ):
        """The maximiser of ``g . r`` over ``P1`` (inside ``[lo, hi]``), or None if empty.

        ``basis`` (a parent box's optimal basis) warm-starts the simplex.
        """
        h, a = self.h, self.p_x.size
        if basis is not None:
            h.setBasis(basis)
        h.changeColsCost(a, self.idx, g)
        if lo is None or hi is None:
            h.changeColsBounds(a, self.idx, np.zeros(a), self.free_hi)
        else:
            h.changeColsBounds(a, self.idx, lo, hi)
        h.run()
        status = h.getModelStatus()
        if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible):
            # the warm start (or the primal simplex) lost its way: solve again from scratch
            # with the dual simplex, which is what the solver does by default
            h.clearSolver()
            h.setOptionValue("simplex_strategy", 1)
            h.run()
            h.setOptionValue("simplex_strategy", 4)
            status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        if status != highspy.HighsModelStatus.kOptimal:
            raise InfeasibleError(f"a pricing LP of the column generation failed: {status}")
        r = np.clip(np.asarray(h.getSolution().col_value), 0.0, None)
        return r / (self.p_x @ r)


def _mu(r: np.ndarray, p_x: np.ndarray) -> np.ndarray:
    """``mu`` of rows of ``r`` normalised to ``p . r = 1``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(r > 0, np.log(np.where(r > 0, r, 1.0)), 0.0)
    return (r * logs) @ p_x


def _climb(pricing: _Pricing, r: np.ndarray, y: np.ndarray, p_x: np.ndarray) -> np.ndarray:
    """Successive linearisation of the convex ``F`` from ``r`` (never decreases ``F``)."""
    best = r
    val = _mu(r[None], p_x)[0] + y @ r
    for _ in range(50):
        g = p_x * (np.log(np.maximum(best, 1e-300)) + 1.0) + y
        cand = pricing.argmax(np.maximum(g, -1e6))
        if cand is None:
            break
        cval = _mu(cand[None], p_x)[0] + y @ cand
        if cval <= val + 1e-14:
            break
        best, val = cand, cval
    return best


def _certify(
    pricing: _Pricing,
    y: np.ndarray,
    p_x: np.ndarray,
    tol: float,
    max_nodes: int,
    pool: list[np.ndarray] | None = None,
) -> np.ndarray | None:
    """A point of ``P1`` with ``F > tol``, or ``None`` once ``max F <= tol`` is proven."""

    def f(x_idx, t):
        return p_x[x_idx] * np.where(t > 0, t * np.log(np.where(t > 0, t, 1.0)), 0.0) + y[x_idx] * t

    a = p_x.size
    idx = np.arange(a)
    lo0, hi0 = pricing.box
    counter = 0

    def bound(lo, hi, basis=None):
        width = hi - lo
        f_lo, f_hi = f(idx, lo), f(idx, hi)
        slope = np.where(width > 0, (f_hi - f_lo) / np.where(width > 0, width, 1.0), 0.0)
        const = f_lo - slope * lo
        r = pricing.argmax(slope, lo, hi, basis)
        if r is None:
            return None
        if pool is not None:
            pool.append(r)
        ub = slope @ r + const.sum()
        return ub, r, slope, const, pricing.h.getBasis()

    first = bound(lo0, hi0)
    heap: list = []
    if first is not None:
        heapq.heappush(heap, (-first[0], counter, lo0, hi0, first))
    while heap:
        neg_ub, _, lo, hi, (ub, r, slope, const, basis) = heapq.heappop(heap)
        if ub <= tol:
            return None  # best-first: every remaining box is bounded by tol
        val = _mu(r[None], p_x)[0] + y @ r
        if val > tol:
            return r
        counter += 1
        if counter > max_nodes:
            raise InfeasibleError(
                f"column generation could not certify optimality within {max_nodes} "
                f"branch-and-bound nodes (remaining bound {ub:.3g} > tol {tol:g})"
            )
        gap = slope * r + const - f(idx, r)
        j = int(np.argmax(gap))
        split = r[j]
        if not lo[j] + 1e-9 * (hi[j] - lo[j]) < split < hi[j] - 1e-9 * (hi[j] - lo[j]):
            split = 0.5 * (lo[j] + hi[j])
        for new_lo, new_hi in ((lo[j], split), (split, hi[j])):
            lo2, hi2 = lo.copy(), hi.copy()
            lo2[j], hi2[j] = new_lo, new_hi
            child = bound(lo2, hi2, basis)
            if child is not None and child[0] > tol:
                heapq.heappush(
                    heap, (-child[0], counter * 2 + int(new_lo > lo[j]), lo2, hi2, child)
                )
    return None


def colgen_optimum(
    A: np.ndarray, p_x: np.ndarray, *, tol: float = 1e-10, max_nodes: int = 200_000
) -> np.ndarray:
    """Optimal mechanism matrix (inputs x outputs) of the cone-ray LP by column generation.

    Parameters
    ----------
    A : numpy.ndarray, shape (r, a)
        The cone ``{q >= 0 : A q >= 0}`` of admissible columns
        (:func:`~anonspread.privacy.funnel.optimal.ldp_cone_constraints` or
        :func:`~anonspread.privacy.funnel.optimal.lip_cone_constraints`).
    p_x : numpy.ndarray, shape (a,)
        The distribution of the data ``X``, positive.
    tol : float
        Optimality tolerance of the certificate (no column improves by more).
    max_nodes : int
        Most branch-and-bound nodes of one certificate.

    Returns
    -------
    numpy.ndarray, shape (a, outputs)
        Row-stochastic.

    Raises
    ------
    InfeasibleError
        An LP failed or the generation did not converge.

    Examples
    --------
    The optimal ``log 2``-LDP mechanism for mutual information, two secrets, two data
    values (the same as from the cone's extreme rays, in another output order):

    >>> import numpy as np
    >>> from anonspread.privacy.funnel.optimal import ldp_cone_constraints
    >>> A = ldp_cone_constraints(np.array([[0.8, 0.2], [0.2, 0.8]]), np.log(2.0))
    >>> colgen_optimum(A, np.array([0.5, 0.5])).round(4)
    array([[0.7778, 0.2222],
           [0.2222, 0.7778]])
    """
    a = p_x.size
    pricing = _Pricing(A, p_x)
    cols = [np.ones(a)]  # the constant column is in every such cone
    pool: list[np.ndarray] = []  # LP solutions met by the certificates (candidate columns)
    for _ in range(10_000):
        R = np.array(cols)
        mu = _mu(R, p_x)
        res = linprog(
            -mu, A_eq=R.T, b_eq=np.ones(a), bounds=(0, None), method="highs", options=_OPTS
        )
        if res.status != 0:
            raise InfeasibleError(f"the master LP of the column generation failed: {res.message}")
        y = np.asarray(res.eqlin.marginals)
        # reduced cost of a column r (p . r = 1): mu(r) + y . r  (zero on the basis)
        new = []
        starts = [R[k] for k in np.flatnonzero(res.x > 0)] + [np.full(a, 1.0)]
        if pool:
            # points met by earlier certificates that improve on the new dual
            P = np.array(pool)
            gain = _mu(P, p_x) + P @ y
            starts += [P[k] for k in np.argsort(gain)[::-1][: 2 * a] if gain[k] > tol]
        for start in starts:
            r = _climb(pricing, start, y, p_x)
            if _mu(r[None], p_x)[0] + y @ r > tol:
                new.append(r)
        if not new:
            r = _certify(pricing, y, p_x, tol, max_nodes, pool)
            if r is None:
                theta = np.clip(res.x, 0.0, None)
                used = np.flatnonzero(theta > 0)
                return R[used].T * theta[used]
            new.append(_climb(pricing, r, y, p_x))
        cols.extend(new)
    raise InfeasibleError("column generation did not converge in 10000 rounds")
