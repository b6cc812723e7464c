"""Adaptive diffusion's relay kernel gives main's outputs bit for bit (issue 31 item 6).

The relay skips scans that cannot infect anything, relays and infects in one pass on finite
graphs and draws its bounded integers without calling into numpy's library. None of that may
change a single output: for every flag combination (tree/graph relay, all/leaves infectors,
keep/pass at a dead end, no cap, cap 1 and 3, finite d0 and inf, stops by reach), on small
graphs with cycles and on lazily grown trees, single runs and the batch driver, the infected
nodes, their order, times, parents and children, the virtual sources, the sizes, the nodes a
lazy tree created and the generator's state after the run (so the exact draws) are compared

* with digests recorded from main before the change (``relay_reference_main.json``), and
* on more seeds, with the kernel's reference path (``AD_REFERENCE_RELAY_BIT``: collect the
  reached nodes, then let each scan all its contacts, as main did).
"""

import json

import _relay_cases as cases
import numpy as np
import pytest

from anonspread.engine import _softmargin, _spreading


def test_relay_outputs_equal_main_recorded():
    recorded = json.loads(cases.REFERENCE.read_text())["digests"]
    got = cases.grouped_digests(cases.all_cases(range(3)))
    assert got.keys() == recorded.keys()
    bad = sorted(k for k in recorded if got[k] != recorded[k])
    assert not bad, f"{len(bad)} of {len(recorded)} cases differ from main, e.g. {bad[:5]}"


def test_relay_outputs_equal_reference_path():
    seeds = range(3, 13)
    n = 0
    for (name, fast), (name_ref, ref) in zip(cases.all_cases(seeds),
                                             cases.all_cases(seeds, reference=True)):
        assert name == name_ref
        assert len(fast) == len(ref)
        for i, (a, b) in enumerate(zip(fast, ref)):
            assert a == b, f"{name}: run {i} differs from the reference path"
            n += 1
    assert n > 5000


def test_reference_path_is_another_path():
    """The comparison above can fail: the reference path is not the fast path under another
    name (it leaves the AUX column untouched, the fast path uses it)."""
    g = cases.finite_graphs()["sbm60"]
    aux = []
    for reference in (False, True):
        store = g._new_store()
        params = cases.case_params(g, 8, "tree", "all", "keep", 3, 3.0)
        params[2] += _spreading.AD_REFERENCE_RELAY_BIT if reference else 0
        vs = np.empty(9, np.int32)
        sizes = np.empty(9, np.int64)
        n = _spreading.run_one(4, store, 0, 8, params, np.random.default_rng(1), vs, sizes, 3, 0)
        aux.append(store.ns[store.order[:n], 4].copy())
    assert aux[0].any() and not aux[1].any()


def test_randint_is_generator_integers():
    """The engine's bounded draw is ``Generator.integers(0, n)``: same values, same words
    consumed (the written-out 32-bit Lemire branch, numpy's own beyond it)."""
    edges = [1, 2, 3, 7, 10, 1000, 2**31 - 1, 2**31, 2**31 + 1, 3 * 2**30, 2**32 - 2,
             2**32 - 1, 2**32, 2**32 + 1, 2**40, 2**62, 5 * 2**60 - 3]
    for seed in range(4):
        r = np.random.default_rng(seed)
        ns = np.concatenate([np.array(edges * 40, np.int64), r.integers(1, 2**33, 500),
                             r.integers(1, 60, 500)])
        r.shuffle(ns)
        a, b = np.random.default_rng(100 + seed), np.random.default_rng(100 + seed)
        got = _spreading._randint_draws(a, ns)
        want = np.array([b.integers(0, int(n)) for n in ns])
        assert np.array_equal(got, want)
        assert a.bit_generator.state == b.bit_generator.state


def test_randint_refuses_empty_range():
    with pytest.raises(ValueError, match="n must be >= 1"):
        _spreading._randint_draws(np.random.default_rng(0), np.array([3, 0], np.int64))


def test_and_popcount_both_ways():
    """The scoring's |a & b| by the popcount instruction (where the CPU has it) and by the
    portable count equal a plain count."""
    r = np.random.default_rng(5)
    for W in (0, 1, 2, 7, 64, 129):
        a = r.integers(0, 2**64, W, dtype=np.uint64, endpoint=False)
        b = r.integers(0, 2**64, W, dtype=np.uint64, endpoint=False)
        a[: W // 3] = np.uint64(2**64 - 1)
        want = sum(bin(int(x) & int(y)).count("1") for x, y in zip(a, b))
        assert _softmargin._and_popcount(a, b, False) == want
        if _softmargin.HARDWARE_POPCOUNT:
            assert _softmargin._and_popcount(a, b, True) == want
