"""Helpers of the soft-margin tests: field-for-field identity of two results, and the
smallest executor."""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future

import numpy as np

from anonspread import adversaries as A


def assert_identical(one, two):
    """Every field of two SoftMarginResult equal, arrays bit for bit."""
    for f in dataclasses.fields(one):
        a, b = getattr(one, f.name), getattr(two, f.name)
        if isinstance(a, A.Scores):
            assert np.array_equal(a.nodes, b.nodes) and a.kind == b.kind
            a, b = a.array, b.array
        assert np.array_equal(a, b), f.name


class Inline:
    """The smallest executor: anything with .submit(fn, *args) returning .result()."""

    def submit(self, fn, *args):
        fut = Future()
        fut.set_result(fn(*args))
        return fut
