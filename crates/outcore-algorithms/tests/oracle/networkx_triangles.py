"""networkx's triangles and clustering: the oracle of tests/triangles.rs.

usage: networkx_triangles.py EDGE_LIST
Reads the edge list as an undirected simple graph (a directed file's arcs
become edges; self loops are dropped, as in the Graphalytics LCC) and
prints `vertex triangles clustering` lines.
"""
import sys

import networkx as nx

graph = nx.Graph()
with open(sys.argv[1]) as f:
    for line in f:
        if line.startswith("#") or line.startswith("%") or not line.strip():
            continue
        u, v = line.replace(",", " ").split()[:2]
        graph.add_node(int(u))
        graph.add_node(int(v))
        if u != v:
            graph.add_edge(int(u), int(v))
triangles = nx.triangles(graph)
clustering = nx.clustering(graph)
for v in sorted(graph.nodes):
    print(v, triangles[v], repr(clustering[v]))
