"""The compiled engine: every Monte Carlo kernel, over flat arrays, beneath the packages.

``spread``, ``adversaries`` and ``privacy`` are Python layers above it that validate
arguments, describe runs and return result objects; the engine holds what runs per node
and per trial:

* :mod:`~anonspread.engine.store`: the node store (``GraphStore``, named flat arrays) of a
  finite graph or a lazily grown infinite tree;
* :mod:`~anonspread.engine.spreading`: one kernel per spreading protocol, the Monte Carlo
  driver and the fused loop's simulation phase;
* :mod:`~anonspread.engine.dandelion`: the one Dandelion simulator -- Dandelion and
  Dandelion++ in continuous time, and the abstract transaction model as a configuration
  of the same anonymity graph, forwarding tables and stem walk;
* :mod:`~anonspread.engine.scoring`: the source estimators (ML message passing, Jordan
  centre and eccentricities, BFS, tie-aware summaries);
* :mod:`~anonspread.engine.rumor`: rumour centrality (trees, the certified scan on graphs);
* :mod:`~anonspread.engine.rumor_threads`: the rumour scan of large 2-cores on OpenMP threads;
* :mod:`~anonspread.engine.literature`: NETSLEUTH and LISN;
* :mod:`~anonspread.engine.softmargin`: the soft-margin estimator's runs from each candidate
  source (Jaccard similarity with the snapshot, kernel sums; candidates on OpenMP threads);
* :mod:`~anonspread.engine.sensors`: earliest-infection-first and Pinto et al.;
* :mod:`~anonspread.engine.fused`: the fused simulate -> score loop (its scoring phase,
  ``score_chunk``);
* :mod:`~anonspread.engine.graphs`: per-graph statistics (triangles);
* :mod:`~anonspread.engine.features`: node features of the learned adversary (distance sums,
  eccentricities, distance to a node set);
* :mod:`~anonspread.engine.staircase`: the staircase enumeration of the LDP optimiser.

The engine imports no other package of anonspread but the shared error classes.
"""
