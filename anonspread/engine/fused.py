"""The fused Monte Carlo loop: simulate a chunk of trials, then score every snapshot.

Trials run in chunks of two phases, both compiled ahead of time:
:func:`anonspread.engine.spreading.simulate_chunk` runs trials and copies each snapshot
into flat buffers, then :func:`score_chunk` (``_fused.pyx``) scores them with every
estimator asked for. Scoring draws nothing from the random stream, so chunking leaves
every result unchanged. :func:`anonspread.adversaries.simulate_and_score` is the Python
layer above it.
"""

from __future__ import annotations

from anonspread.engine._fused import JORDAN, LISN, ML, NETSLEUTH, RUMOR, local_tree, score_chunk

__all__ = ["CHUNK_NODES", "JORDAN", "LISN", "ML", "NETSLEUTH", "RUMOR", "local_tree", "score_chunk"]


#: Infected nodes per chunk of trials: the simulation phase fills snapshot buffers of
#: about this many nodes (a single larger trial still fits: the buffers grow), then the
#: scoring phase reads them. About 20 bytes per node: 2^16 nodes keep the buffers (reused
#: by every chunk) in the caches; 2^20 made the ML path a third slower on the random
#: {3,4} tree at T = 16 (165 vs 111 us per trial), from writing and re-reading 20 MB.
CHUNK_NODES = 1 << 16
