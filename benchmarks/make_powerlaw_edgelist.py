"""Write Chung-Lu power-law edge lists (plain and .gz) for the large-graph benchmarks (issue 32).

Each line is one edge ``u v`` (``u <= v``: an undirected list, each pair in one orientation)
whose ends are drawn independently with probability proportional to a power-law weight
``w_i ~ (i + i0)^(-1 / (gamma - 1))`` (Chung & Lu's expected-degree model, edges drawn
as independent endpoint pairs): node degrees follow a power law of exponent ``gamma``.
Duplicates and self-loops are left in, as in real files (the reader drops and counts them).
Node ids are shuffled so that the hubs are not the smallest ids. Lines are formatted by
numpy in chunks and streamed to disk; nothing of size ``lines`` is ever held in memory.

Usage::

    python benchmarks/make_powerlaw_edgelist.py --lines 1e6 1e7 1e8 --out /work/data

writes ``powerlaw-1e6.txt`` and ``powerlaw-1e6.txt.gz`` (and so on) with ``n = lines / 10``
nodes (mean degree ~ 20 before duplicates are dropped), seed 32, gamma 2.5.
"""

from __future__ import annotations

import argparse
import gzip
import os
import time

import numpy as np

CHUNK = 1 << 20


def endpoints(rng: np.random.Generator, k: int, n: int, gamma: float, i0: float) -> np.ndarray:
    """``k`` node indices in [0, n) drawn with probability ~ (i + i0)^(-1/(gamma-1)) (inverse
    transform of the continuous density on [i0, n + i0))."""
    alpha = 1.0 / (gamma - 1.0)
    lo, hi = i0 ** (1.0 - alpha), (n + i0) ** (1.0 - alpha)
    u = rng.random(k)
    x = (lo + u * (hi - lo)) ** (1.0 / (1.0 - alpha))
    return np.minimum((x - i0).astype(np.int64), n - 1)


def format_pairs(u: np.ndarray, v: np.ndarray) -> bytes:
    """``b"u v\\n"`` for each pair, in decimal, by numpy (no Python object per line)."""
    digits = max(1, len(str(int(max(u.max(initial=0), v.max(initial=0))))))
    k = u.shape[0]
    width = 2 * digits + 2
    out = np.empty((k, width), np.uint8)
    keep = np.empty((k, width), bool)
    col = np.arange(digits)
    for block, x in ((0, u), (digits + 1, v)):
        nd = np.ones(k, np.int64)
        for j in range(1, digits):
            nd += x >= 10**j
        y = x.copy()
        for j in range(digits - 1, -1, -1):
            out[:, block + j] = 48 + y % 10
            y //= 10
        keep[:, block:block + digits] = col[None, :] >= (digits - nd)[:, None]
    out[:, digits] = 32
    out[:, width - 1] = 10
    keep[:, digits] = True
    keep[:, width - 1] = True
    return out[keep].tobytes()


def write(lines: int, out_dir: str, *, gamma: float = 2.5, seed: int = 32, level: int = 1) -> list[str]:
    n = max(2, lines // 10)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n).astype(np.int64)
    tag = f"{lines:.0e}".replace("+0", "").replace("+", "")
    base = os.path.join(out_dir, f"powerlaw-{tag}.txt")
    t0 = time.perf_counter()
    with open(base, "wb") as plain, gzip.open(base + ".gz", "wb", compresslevel=level) as gz:
        head = (f"# Chung-Lu power-law graph: {lines} edge lines, n={n}, gamma={gamma}, seed={seed}, "
                "one line per pair u <= v (duplicates and self-loops left in)\n").encode()
        plain.write(head)
        gz.write(head)
        done = 0
        while done < lines:
            k = min(CHUNK, lines - done)
            a = perm[endpoints(rng, k, n, gamma, 1.0)]
            b = perm[endpoints(rng, k, n, gamma, 1.0)]
            data = format_pairs(np.minimum(a, b), np.maximum(a, b))
            plain.write(data)
            gz.write(data)
            done += k
    print(f"{base}: {lines:,} lines, n={n:,}, {os.path.getsize(base) / 1e6:,.0f} MB "
          f"(.gz {os.path.getsize(base + '.gz') / 1e6:,.0f} MB), {time.perf_counter() - t0:.0f} s")
    return [base, base + ".gz"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    ap.add_argument("--out", default="/work/data")
    ap.add_argument("--gamma", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--level", type=int, default=1, help="gzip compression level")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for lines in args.lines:
        write(int(lines), args.out, gamma=args.gamma, seed=args.seed, level=args.level)


if __name__ == "__main__":
    main()
