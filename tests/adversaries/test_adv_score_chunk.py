"""The compiled scoring phase (anonspread.engine.fused.score_chunk): checked options, exact
worked example of one chunk, and the infection-tree CSR it builds."""

import numpy as np
import pytest

from anonspread.engine import fused
from anonspread.errors import InvalidParameterError, InvalidTypeError


def _chunk(codes, trials=1):
    """A path 0 - 1 - 2 infected in that order on a finite path graph 0 - 1 - 2 - 3."""
    e = len(codes)
    gptr = np.array([0, 1, 3, 5, 6], np.int64)
    gind = np.array([1, 0, 2, 1, 3, 2], np.int32)
    bufs = dict(
        noff=np.array([0, 3] + [3] * (trials - 1), np.int64),
        n_out=np.full(trials, 3, np.int64),
        b_vs=np.full(trials, -1, np.int64),
        b_order=np.array([0, 1, 2], np.int32),
        b_par=np.array([-1, 0, 1], np.int64),
        b_gdeg=np.array([1, 2, 2], np.int64),
    )
    outs = dict(detected=np.zeros((e, trials), np.int8), pdet=np.zeros((e, trials)),
                hops=np.zeros((e, trials), np.int64), tree_hops=np.zeros((e, trials), np.int64),
                rank=np.zeros((e, trials)))
    args = [0, 1, bufs["noff"], bufs["n_out"], bufs["b_vs"], bufs["b_order"], bufs["b_par"],
            bufs["b_gdeg"], gptr, gind, np.array(codes, np.int64), np.full((e, trials), 0.99),
            np.zeros(4, np.int64), *outs.values()]
    return args, outs


def test_jordan_and_rumour_on_a_path_snapshot():
    args, out = _chunk([1, 2])
    fused.score_chunk(*args, T=2, lazy=False, tree_graph=True, centre_known=False)
    # the centre of the path 0 - 1 - 2 is node 1: the source 0 ranks second of three for both
    # (Jordan: ecc 2, 1, 2: one node above, tied with node 2; rumour: log 1, log 2, log 1)
    assert out["detected"].tolist() == [[0], [0]]
    assert out["pdet"].tolist() == [[0.0], [0.0]]
    assert out["hops"].tolist() == [[1], [1]] and out["tree_hops"].tolist() == [[1], [1]]
    assert out["rank"].tolist() == [[2.5], [2.5]]


def test_options_are_checked():
    args, _ = _chunk([1])
    with pytest.raises(InvalidParameterError, match=r"codes must hold estimator codes 0\.\.4"):
        bad = list(args)
        bad[10] = np.array([7], np.int64)
        fused.score_chunk(*bad, T=2, lazy=False, tree_graph=True, centre_known=False)
    with pytest.raises(InvalidTypeError, match="lazy must be True or False; got 1"):
        fused.score_chunk(*args, T=2, lazy=1, tree_graph=True, centre_known=False)
    with pytest.raises(InvalidParameterError, match="T must be >= 0; got -1"):
        fused.score_chunk(*args, T=-1, lazy=False, tree_graph=True, centre_known=False)
    with pytest.raises(InvalidParameterError, match=r"ML \(code 0\) needs its tables"):
        ml = list(args)
        ml[10] = np.array([0], np.int64)
        fused.score_chunk(*ml, T=2, lazy=False, tree_graph=True, centre_known=False)
    with pytest.raises(InvalidParameterError, match=r"rank must have shape \(len\(codes\), trials\)"):
        short = list(args)
        short[-1] = np.zeros((2, 1))
        fused.score_chunk(*short, T=2, lazy=False, tree_graph=True, centre_known=False)
    with pytest.raises(TypeError):  # options are keyword-only
        fused.score_chunk(*args, 2, False, True, False)


def test_local_tree_is_the_infection_trees_csr():
    par = np.array([-1, 0, 0, 1], np.int64)
    ptr, ind = fused.local_tree(par, 4, np.empty(5, np.int64), np.empty(4, np.int64),
                                np.empty(8, np.int32))
    assert ptr.tolist() == [0, 2, 4, 5, 6]
    assert ind.tolist() == [1, 2, 0, 3, 0, 1]
