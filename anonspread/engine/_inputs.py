"""The array types the engine's kernels take: what the Python wrappers hand them."""

from __future__ import annotations

import numpy as np

__all__ = ["csr", "int64"]


def csr(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A CSR graph as the kernels with a fused index type take it: contiguous int64
    ``indptr``, and ``indices`` kept as int32 (no copy) or made int64."""
    indices = np.ascontiguousarray(indices)
    if indices.dtype != np.int32:
        indices = np.ascontiguousarray(indices, np.int64)
    return np.ascontiguousarray(indptr, np.int64), indices


def int64(a) -> np.ndarray:
    """``a`` as a contiguous int64 array (no copy when it already is one)."""
    return np.ascontiguousarray(a, np.int64)
