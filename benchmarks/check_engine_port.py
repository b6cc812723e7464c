"""Bit-for-bit check of an engine port: hash the outputs of every protocol at fixed seeds.

Runs, at fixed seeds, every spreading protocol (each adaptive-diffusion variant: closed-form
tree path, summary-only counting, relay with a cap, graph relay, ``infectors="leaves"``,
``stuck="pass"``, ``d0`` finite and infinite; Protocol 1's distance rate; the printed
pseudo-code of Protocol 2) on finite graphs (a random regular graph, an Erdos-Renyi graph with
several components, a grid, a path, a star; a fixed source and uniform sources) and on lazily
grown trees (``line``, ``regular_tree(3)``, ``random_tree``), through ``spread.simulate``
(several runs on one graph object, so reused and regrown stores are covered),
``spread.simulate_many`` (the summary path included) and ``adversaries.simulate_and_score``
(ML, Jordan, rumour; known centre on and off, the regular-tree symmetry path), and writes one
sha256 per case to a JSON file. A case that raises records the exception's class.

Run it with two installs and compare the files (every hash must match)::

    cd /tmp/somewhere   # not a checkout: import the installed package
    BASE/bin/python path/to/check_engine_port.py --out base.json
    CAND/bin/python path/to/check_engine_port.py --out cand.json
    python path/to/check_engine_port.py --compare base.json cand.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time

import numpy as np


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"None|")
            continue
        a = np.asarray(a)
        if a.dtype == object:
            h.update(repr(a.tolist()).encode())
        else:
            h.update(str(a.dtype).encode() + str(a.shape).encode())
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(b"|")
    return h.hexdigest()


def _finite_graphs():
    import networkx as nx

    from anonspread import spread

    er = nx.gnp_random_graph(300, 0.006, seed=2)  # several components, isolated nodes too
    return {
        "regular4": spread.graphs.from_networkx(nx.random_regular_graph(4, 400, seed=1)),
        "er": spread.graphs.from_networkx(er),
        "grid": spread.graphs.from_networkx(nx.grid_2d_graph(20, 20)),
        "path": spread.graphs.from_networkx(nx.path_graph(60)),
        "star": spread.graphs.from_networkx(nx.star_graph(25)),
    }


def _lazy_graphs():
    from anonspread import spread

    return {
        "line": lambda: spread.graphs.line(),
        "regular3": lambda: spread.graphs.regular_tree(3),
        "random234": lambda: spread.graphs.random_tree({2: 0.3, 3: 0.4, 4: 0.3}, rng=5),
        "random1235": lambda: spread.graphs.random_tree({1: 0.1, 2: 0.2, 3: 0.4, 5: 0.3}, rng=9),
    }


def _protocols(regular: bool):
    from anonspread.spread import protocols as P

    d0 = None if regular else 3
    out = {
        "flooding": P.Flooding(),
        "random0.4": P.RandomDiffusion(0.4),
        "random1.0": P.RandomDiffusion(1.0),
        "line-protocol": P.LineProtocol(),
        "tree-protocol": P.TreeProtocol(),
        "tree-pseudocode": P.TreeProtocolPseudocode(),
        "ad": P.AdaptiveDiffusion(d0),
        "ad-inf": P.AdaptiveDiffusion(math.inf),
        "ad-4.5": P.AdaptiveDiffusion(4.5),
        "ad-cap2": P.AdaptiveDiffusion(d0, 2),
        "ad-inf-cap3-graph": P.AdaptiveDiffusion(math.inf, 3, relay="graph"),
        "ad-graph": P.AdaptiveDiffusion(d0, relay="graph"),
        "ad-leaves": P.AdaptiveDiffusion(d0, infectors="leaves"),
        "ad-inf-leaves-pass": P.AdaptiveDiffusion(math.inf, infectors="leaves", stuck="pass"),
        "ad-pass": P.AdaptiveDiffusion(d0, stuck="pass"),
        "ad-inf-cap2-pass-graph": P.AdaptiveDiffusion(math.inf, 2, relay="graph", stuck="pass"),
    }
    return out


def _try(digest, fn, *args, **kwargs):
    """``digest(fn(*args, **kwargs))``, or the class of the exception it raises."""
    try:
        return digest(fn(*args, **kwargs))
    except Exception as exc:  # the same error on both sides is a match
        return "error:" + type(exc).__name__


def _spread_digest(s) -> str:
    hist = getattr(s, "virtual_source_history", None)
    return _digest(np.asarray(s.infected), s.times, s.parent_position,
                   None if hist is None else np.asarray(hist), s.sizes)


def _simulate_cases(out: dict) -> None:
    from anonspread import spread

    for gname, g in _finite_graphs().items():
        regular = g.regular_degree() is not None
        for pname, proto in _protocols(regular).items():
            for T in (0, 1, 2, 5, 8, 11):
                # uniform sources: several runs on the same graph object (the reused store)
                digs = [_try(_spread_digest, spread.simulate, g, proto, T, rng=seed)
                        for seed in range(4)]
                out[f"simulate/{gname}/{pname}/T{T}/random-source"] = _digest(np.array(digs, object))
                k = 3 if gname == "star" else 1  # a leaf of the star
                src = g.labels[k]
                d = _try(_spread_digest, spread.simulate, g, proto, T, source=src, rng=77)
                out[f"simulate/{gname}/{pname}/T{T}/source{k}"] = d
    for gname, make in _lazy_graphs().items():
        for pname, proto in _protocols(gname in ("line", "regular3")).items():
            g = make()  # one object for every T: the realisation grows across runs
            for T in (0, 1, 2, 3, 6, 9, 12):
                digs = [_try(_spread_digest, spread.simulate, g, proto, T, rng=seed)
                        for seed in range(3)]
                out[f"simulate/{gname}/{pname}/T{T}"] = _digest(np.array(digs, object))
            out[f"simulate/{gname}/{pname}/touched"] = _digest(
                np.array([g.number_of_touched_nodes()]),
                np.array([g.degree(v) for v in range(min(50, g.number_of_touched_nodes()))]))
        g = make()
        nb = [g.neighbors(v).tolist() for v in range(40)]
        out[f"lazytree/{gname}/neighbors"] = _digest(np.array(repr(nb).encode()))


def _many_digest(b) -> str:
    return _digest(np.asarray(b.sources), b.sizes, b.vs_hops, b.virtual_source)


def _simulate_many_cases(out: dict) -> None:
    from anonspread import spread

    for gname, g in _finite_graphs().items():
        regular = g.regular_degree() is not None
        for pname, proto in _protocols(regular).items():
            for T in (0, 3, 8):
                out[f"many/{gname}/{pname}/T{T}"] = _try(
                    _many_digest, spread.simulate_many, g, proto, T, 40, rng=T + 1)
            out[f"many/{gname}/{pname}/T6/source"] = _try(
                _many_digest, spread.simulate_many, g, proto, 6, 20, source=g.labels[1], rng=3)
    for gname, make in _lazy_graphs().items():
        for pname, proto in _protocols(gname in ("line", "regular3")).items():
            for T in (0, 1, 4, 7, 10, 16):
                trials = 60 if T <= 10 else 15
                out[f"many/{gname}/{pname}/T{T}"] = _try(
                    _many_digest, spread.simulate_many, make(), proto, T, trials, rng=T)


def _score_digest(b) -> str:
    parts = [np.asarray(b.sources), b.n_infected]
    for name in sorted(b.estimators):
        e = b.estimators[name]
        parts += [np.array([name], object), e.detected, e.detection_probability, e.hops, e.rank,
                  e.tree_hops]
    return _digest(*parts)


def _score_cases(out: dict) -> None:
    from anonspread import adversaries
    from anonspread.adversaries.registry import applicable_estimators

    score = adversaries.simulate_and_score

    def names(proto, g):
        ok = applicable_estimators(proto, g, reveal_edges=True, batch=True)
        return tuple(n for n in ("ml", "ml-tree", "jordan", "rumor") if n in ok)

    for gname, g in _finite_graphs().items():
        regular = g.regular_degree() is not None
        for pname, proto in _protocols(regular).items():
            est = _try(tuple, names, proto, g)
            if isinstance(est, str) or not est:
                out[f"score/{gname}/{pname}"] = f"no-estimators:{est}"
                continue
            for T in (2, 5, 8):
                out[f"score/{gname}/{pname}/T{T}"] = _try(
                    _score_digest, score, g, proto, T, 30, estimators=est, rng=T)
    for gname, make in _lazy_graphs().items():
        for pname, proto in _protocols(gname in ("line", "regular3")).items():
            g = make()
            est = _try(tuple, names, proto, g)
            if isinstance(est, str) or not est:
                out[f"score/{gname}/{pname}"] = f"no-estimators:{est}"
                continue
            for T in (3, 6, 10):
                for kc in (True, False):
                    out[f"score/{gname}/{pname}/T{T}/known{kc}"] = _try(
                        _score_digest, score, make(), proto, T, 40, estimators=est, rng=T,
                        known_centre=kc)
                ml = tuple(n for n in est if n.startswith("ml"))
                if ml:
                    for sym in (True, False):
                        out[f"score/{gname}/{pname}/T{T}/ml-only/sym{sym}"] = _try(
                            _score_digest, score, make(), proto, T, 40, estimators=ml,
                            rng=T + 100, regular_symmetry=sym)
    # a chunked run: more infected nodes than one chunk buffers (CHUNK_NODES = 2^16)
    from anonspread import spread
    from anonspread.spread.protocols import AdaptiveDiffusion, RandomDiffusion

    out["score/chunked/regular3/ad/T14"] = _try(
        _score_digest, score, spread.graphs.regular_tree(3), AdaptiveDiffusion(), 14, 300,
        estimators=("ml", "jordan", "rumor"), rng=1)
    g = _finite_graphs()["regular4"]
    out["score/chunked/regular4/random0.5/T6"] = _try(
        _score_digest, score, g, RandomDiffusion(0.5), 6, 400, estimators=("jordan", "rumor"),
        rng=2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write the case -> sha256 JSON here")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two JSON files")
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(p)) for p in args.compare)
        keys = sorted(set(a) | set(b))
        bad = [k for k in keys if a.get(k) != b.get(k)]
        for k in bad:
            print(f"DIFF {k}: {a.get(k)} != {b.get(k)}")
        print(f"{len(keys) - len(bad)} of {len(keys)} cases match")
        return 1 if bad else 0
    import anonspread

    t0 = time.perf_counter()
    out: dict = {}
    _simulate_cases(out)
    _simulate_many_cases(out)
    _score_cases(out)
    errors = sum(1 for v in out.values() if v.startswith("error:"))
    print(f"{len(out)} cases ({errors} raise) in {time.perf_counter() - t0:.1f} s; "
          f"anonspread from {anonspread.__file__}", file=sys.stderr)
    text = json.dumps(out, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
