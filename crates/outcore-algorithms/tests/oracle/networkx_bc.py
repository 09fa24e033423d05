"""networkx's betweenness centrality from given sources: the oracle of tests/bc.rs.

usage: networkx_bc.py EDGE_LIST directed|undirected SOURCE[,SOURCE...]
Prints `vertex value` lines: sum over the sources s and all targets t of
sigma_st(v)/sigma_st, unnormalized (networkx halves undirected graphs).
"""
import sys

import networkx as nx

path, kind, sources = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")]
graph = nx.DiGraph() if kind == "directed" else nx.Graph()
with open(path) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        u, v = line.split()[:2]
        graph.add_edge(int(u), int(v))
bc = nx.betweenness_centrality_subset(graph, sources, list(graph.nodes), normalized=False)
for v, x in sorted(bc.items()):
    print(v, repr(x))
