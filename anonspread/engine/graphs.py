"""Per-graph statistics computed once per graph (compiled)."""

from __future__ import annotations

import numba as nb
import numpy as np

from anonspread.engine._numba_cache import install as _install_numba_cache

_install_numba_cache()  # cache entries stamped with the sources they contain

__all__ = ["triangles"]


@nb.njit(cache=True)
def triangles(indptr, indices, nodes):  # pragma: no cover - compiled
    """Triangles through each node of ``nodes`` (mark the neighbours, walk two steps)."""
    n = indptr.shape[0] - 1
    mark = np.zeros(n, np.bool_)
    out = np.zeros(nodes.shape[0], np.int64)
    for k in range(nodes.shape[0]):
        v = nodes[k]
        for j in range(indptr[v], indptr[v + 1]):
            mark[indices[j]] = True
        t = 0
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            for i in range(indptr[u], indptr[u + 1]):
                if mark[indices[i]]:
                    t += 1
        for j in range(indptr[v], indptr[v + 1]):
            mark[indices[j]] = False
        out[k] = t // 2
    return out
