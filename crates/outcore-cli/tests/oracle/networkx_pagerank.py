"""networkx's PageRank with its defaults (alpha 0.85, tol 1e-6, converged):
the oracle of tests/first_hour.rs.

usage: networkx_pagerank.py EDGE_LIST directed|undirected
Prints `vertex value` lines.
"""
import sys

import networkx as nx

path, kind = sys.argv[1], sys.argv[2]
graph = nx.DiGraph() if kind == "directed" else nx.Graph()
with open(path) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        u, v = line.split()[:2]
        graph.add_edge(int(u), int(v))
for v, x in sorted(nx.pagerank(graph).items()):
    print(v, repr(x))
