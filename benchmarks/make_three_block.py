"""Write a ~500-node three-block graph (stochastic block model) as a CSV edge list.

The new user's graph of issue 31: 3 blocks of 166 nodes (498), p_in = 0.05 within a block
and p_out = 0.003 across, so a node has on average 0.05 x 165 + 0.003 x 332 = 9.25
contacts; seeded (the same file for the same seed). One ``u,v`` line per edge, no
header (``anonspread sweep detection --set graph=edgelist --set graph.path=FILE`` reads
it; the comma is detected).

Usage::

    python benchmarks/make_three_block.py three_block.csv [--seed 31]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import networkx as nx

#: Nodes per block, blocks, and the edge probabilities within and across blocks.
BLOCK, BLOCKS, P_IN, P_OUT = 166, 3, 0.05, 0.003


def three_block(seed: int = 31) -> nx.Graph:
    """The graph: ``BLOCKS`` blocks of ``BLOCK`` nodes, p_in within, p_out across."""
    probs = [[P_IN if i == j else P_OUT for j in range(BLOCKS)] for i in range(BLOCKS)]
    g = nx.stochastic_block_model([BLOCK] * BLOCKS, probs, seed=seed, sparse=True)
    return nx.Graph(g)  # drop the block attributes


def write_csv(g: nx.Graph, path: Path) -> None:
    path.write_text("".join(f"{u},{v}\n" for u, v in sorted(g.edges())))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path)
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args()
    g = three_block(args.seed)
    write_csv(g, args.path)
    degrees = [d for _, d in g.degree()]
    comps = nx.number_connected_components(g)
    print(f"{args.path}: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges, mean degree "
          f"{sum(degrees) / len(degrees):.2f} (min {min(degrees)}, max {max(degrees)}), "
          f"{comps} connected component(s), seed {args.seed}")


if __name__ == "__main__":
    main()
