"""networkx's triangles, clustering and core numbers: the oracle of
tests/neighbourhoods.rs.

usage: networkx_undirected.py EDGE_LIST
Reads the edge list as an undirected simple graph (a directed file's arcs
become edges; self loops are dropped, as in the Graphalytics LCC) and
prints `vertex triangles clustering core` lines.
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
cores = nx.core_number(graph)
for v in sorted(graph.nodes):
    print(v, triangles[v], repr(clustering[v]), cores[v])
