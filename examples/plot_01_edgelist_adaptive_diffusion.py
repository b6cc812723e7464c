"""
Adaptive diffusion on your own edge-list graph
==============================================

Write a contact graph as a whitespace edge list (one ``u v`` pair per line, ``#``
comments allowed, ``.gz`` too), load it with
:func:`anonspread.spread.graphs.from_edgelist`, spread a message with adaptive
diffusion and look at who was infected when. The graph here is a small ring of
cliques with chords, written to a temporary file so the script is self-contained;
put the path of your own file instead.
"""

import math
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import networkx as nx

import anonspread as asp
from anonspread.spread.graphs import from_edgelist
from anonspread.spread.protocols import AdaptiveDiffusion

# %%
# A small edge list: 12 cliques of 5 nodes on a ring, neighbouring cliques joined.
G0 = nx.ring_of_cliques(12, 5)
G0.add_edges_from((5 * i, (5 * i + 27) % 60) for i in range(0, 12, 2))  # a few chords
path = Path(tempfile.mkdtemp()) / "contacts.txt"
with open(path, "w") as f:
    f.write("# my contact graph: one edge per line\n")
    f.writelines(f"{u} {v}\n" for u, v in sorted(G0.edges()))

g = from_edgelist(path)
print(g, "max degree", g.max_degree())

# %%
# One run of adaptive diffusion, T = 8 steps from node 0. The graph is not a regular
# tree, so the design degree ``d0`` is given: ``math.inf`` always passes the
# virtual-source token; ``max_infections_per_step`` caps the new infections per
# node and step on a graph with cycles (the thesis used 3 on Facebook).
protocol = AdaptiveDiffusion(d0=math.inf, max_infections_per_step=3)
s = asp.simulate(g, protocol, T=8, source=0, rng=7)
print("infected", len(s.infected), "virtual source", s.virtual_source)
print("infection times of the first five:", {int(v): s.infection_time[v] for v in s.infected[:5]})

# %%
# The Jordan centre adversary sees the infected subgraph (a snapshot) and names a node.
scores = asp.jordan_center(asp.observe(s))
print("source", s.source, "Jordan-centre estimate", asp.pick(scores, rng=0))

# %%
# Draw the graph: infected nodes coloured by their infection time, the source ringed.
G = g.to_networkx()
pos = nx.kamada_kawai_layout(G)
times = [s.infection_time.get(v, math.nan) for v in G.nodes]
fig, ax = plt.subplots(figsize=(6, 5))
nx.draw_networkx_edges(G, pos, ax=ax, alpha=0.3)
nodes = nx.draw_networkx_nodes(G, pos, ax=ax, node_size=60, node_color=times,
                               cmap="viridis")
nx.draw_networkx_nodes(G, pos, nodelist=[s.source], ax=ax, node_size=200,
                       node_color="none", edgecolors="red", linewidths=2)
fig.colorbar(nodes, ax=ax, label="infection step (grey: not infected)")
ax.set_title(f"Adaptive diffusion, T = 8: {len(s.infected)} of {G.number_of_nodes()} infected")
ax.axis("off")
plt.show()
