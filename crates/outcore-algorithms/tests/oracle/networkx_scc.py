"""networkx's strongly connected components: the oracle of tests/neighbourhoods.rs.

usage: networkx_scc.py EDGE_LIST
Reads the edge list as a directed graph and prints `vertex label` lines,
the label being the smallest vertex of the vertex's component.
"""
import sys

import networkx as nx

graph = nx.DiGraph()
with open(sys.argv[1]) as f:
    for line in f:
        if line.startswith("#") or line.startswith("%") or not line.strip():
            continue
        u, v = line.replace(",", " ").split()[:2]
        graph.add_edge(int(u), int(v))
for component in nx.strongly_connected_components(graph):
    smallest = min(component)
    for v in component:
        print(v, smallest)
