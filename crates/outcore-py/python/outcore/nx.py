"""A networkx backend that runs out of core: ``nx.pagerank(G)`` on a graph
that lives in an outcore store on disk.

Two ways in:

* ``G = outcore.nx.open("big.store")`` gives a backend graph; networkx
  dispatches to outcore on it without converting (``nx.pagerank(G)``).
  Its nodes are the store's original vertex ids.
* An ordinary networkx graph with ``backend="outcore"`` (or with
  ``nx.config.backend_priority = ["outcore"]``) is written to a temporary
  store first (``convert_from_nx``), removed again when the converted
  graph is collected.

Functions: pagerank, connected_components, number_connected_components,
is_connected, node_connected_component, weakly_connected_components,
bfs_layers, bfs_edges, single_source_shortest_path_length,
shortest_path_length (single source), single_source_dijkstra_path_length,
betweenness_centrality, betweenness_centrality_subset, triangles,
clustering (undirected), average_clustering (undirected),
core_number, strongly_connected_components,
number_strongly_connected_components, is_strongly_connected.  Where outcore cannot match a parameter
(personalization, weighted PageRank, several BFS sources, negative or
non-float32 weights, endpoints=True, multigraphs), ``can_run`` says so and
networkx runs its own code.

The memory budget of every run is ``nx.config.backends.outcore.memory``
(default ``"1G"``); the engine is ``...outcore.engine`` (default ``auto``).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import weakref
from typing import Any, Dict, List, Optional

import numpy as np

import outcore

builtins_open = open  # the module's own `open` opens stores

__all__ = ["open", "OutcoreGraph", "BackendInterface", "get_info"]

_FUNCTIONS = {
    "pagerank": "Power iteration over the store under the budget (unweighted; uniform teleport and dangling mass).",
    "connected_components": "Weakly connected components (Afforest or union-find) over the store.",
    "number_connected_components": "As connected_components.",
    "is_connected": "As connected_components.",
    "node_connected_component": "As connected_components.",
    "weakly_connected_components": "As connected_components.",
    "bfs_layers": "One BFS from a single source; a layer lists its nodes in the graph's node order.",
    "bfs_edges": "One BFS from the source; the tree edges level by level, children in the graph's node order.",
    "single_source_shortest_path_length": "One BFS from the source.",
    "shortest_path_length": "Single source only (target=None): a BFS, or Dijkstra with weight.",
    "single_source_dijkstra_path_length": "Dijkstra over the store (non-negative weights exact in float32).",
    "betweenness_centrality_subset": "Brandes over the store from the sources, counting only shortest paths that end at the targets (unweighted).",
    "betweenness_centrality": "Brandes over the store from every source or the k sampled as networkx samples them (unweighted, endpoints=False).",
    "triangles": "Degree-ordered orientation over the store, forward lists in parts that fit the budget (undirected graphs).",
    "clustering": "Graphalytics LCC over the store (undirected graphs, unweighted).",
    "average_clustering": "The mean of outcore's clustering (undirected graphs, unweighted, every node).",
    "core_number": "Iterated h-index over the store (undirected graphs without self loops).",
    "strongly_connected_components": "Forward-backward from a pivot, colouring rounds and Tarjan on what is left, over scans of the store.",
    "number_strongly_connected_components": "As strongly_connected_components.",
    "is_strongly_connected": "As strongly_connected_components.",
}


def get_info() -> dict:
    """The backend's entry in networkx's backend_info."""
    return {
        "backend_name": "outcore",
        "project": "outcore",
        "package": "outcore",
        "url": "https://github.com/outcore/outcore",
        "short_summary": "Out-of-core graph analytics: graphs in a store on disk, run under a memory budget.",
        "default_config": {"memory": "1G", "engine": "auto"},
        "functions": {name: {"additional_docs": doc} for name, doc in _FUNCTIONS.items()},
    }


def _config(key: str, default: Any) -> Any:
    try:
        import networkx as nx

        return getattr(nx.config.backends.outcore, key)
    except Exception:
        return default


class OutcoreGraph:
    """A graph held in an outcore store, as networkx sees it: dispatching
    a function on it runs outcore, never a conversion."""

    __networkx_backend__ = "outcore"

    def __init__(self, graph: "outcore.Graph", labels: Optional[List[Any]] = None, weights: str = "none", owned: Optional[str] = None):
        self._g = graph
        # node object of each original id (None: the ids are the nodes)
        self._labels = labels
        self._index: Optional[Dict[Any, int]] = None
        # "none", "int" (every weight an integer), "float"
        self._weights = weights
        self.graph: dict = {}
        if owned is not None:
            weakref.finalize(self, shutil.rmtree, owned, True)

    @property
    def store(self) -> "outcore.Graph":
        """The outcore graph underneath (run any algorithm on it)."""
        return self._g

    def is_directed(self) -> bool:
        return self._g.directed

    def is_multigraph(self) -> bool:
        return False

    def number_of_nodes(self) -> int:
        return self._g.num_vertices

    def number_of_edges(self) -> int:
        return self._g.num_edges

    def __len__(self) -> int:
        return self._g.num_vertices

    def __iter__(self):
        return iter(self._labels if self._labels is not None else self._g.vertices().tolist())

    def __contains__(self, node) -> bool:
        try:
            self._id(node)
            return True
        except (KeyError, TypeError):
            return False

    def _id(self, node) -> int:
        """The original id of `node` (KeyError if it is not a node)."""
        if self._index is None:
            keys = self._labels if self._labels is not None else self._g.vertices().tolist()
            self._index = {n: i for i, n in enumerate(keys)}
            if self._labels is None:
                self._index = {n: n for n in keys}
        return self._index[node]

    def _order(self) -> list:
        """The node of each position of a result array."""
        ids = self._g.vertices()
        if self._labels is None:
            return ids.tolist()
        return [self._labels[i] for i in ids.tolist()]

    def _as_dict(self, values: np.ndarray, keep=None) -> dict:
        """{node: value} in the graph's node order."""
        if self._labels is None:
            # no intermediate lists: the dict itself is what networkx returns
            ids = self._g.vertices()
            out = dict(zip(map(int, ids), map(values.dtype.type.item, values)))
            return out if keep is None else {n: x for n, x in out.items() if keep(x)}
        out = dict(zip(self._order(), values.tolist()))
        if self._labels is not None:
            out = {n: out[n] for n in self._labels}
        if keep is not None:
            out = {n: x for n, x in out.items() if keep(x)}
        return out

    def to_networkx(self):
        """The graph in memory as a networkx Graph or DiGraph (edges read
        back from the store; weights as the ``weight`` attribute)."""
        import networkx as nx

        G = nx.DiGraph() if self.is_directed() else nx.Graph()
        G.graph.update(self.graph)
        G.add_nodes_from(self)
        weighted = self._weights != "none"
        with tempfile.TemporaryDirectory(prefix="outcore-nx-") as tmp:
            path = os.path.join(tmp, "edges.wel" if weighted else "edges.bin64")
            outcore.export(self._g.path, path, format="wel" if weighted else "bin64", memory=_config("memory", "1G"), progress=False)
            label = (lambda i: i) if self._labels is None else self._labels.__getitem__
            if weighted:
                cast = int if self._weights == "int" else float
                with builtins_open(path) as f:
                    for line in f:
                        a, b, w = line.split()
                        G.add_edge(label(int(a)), label(int(b)), weight=cast(float(w)))
            else:
                pairs = np.fromfile(path, dtype="<u8").reshape(-1, 2)
                G.add_edges_from((label(int(a)), label(int(b))) for a, b in pairs.tolist())
        return G

    def _run(self, name: str, **params) -> "outcore.Result":
        return self._g.run(
            name,
            memory=_config("memory", "1G"),
            engine=_config("engine", "auto"),
            progress=False,
            **params,
        )


def open(store) -> OutcoreGraph:  # noqa: A001 - the module's verb
    """A networkx backend graph over the store at `store`: networkx
    dispatches to outcore on it (``nx.pagerank(outcore.nx.open(path))``)."""
    g = outcore.open(store)
    return OutcoreGraph(g, weights="float" if g.weighted else "none")


def _f32_exact(x: float) -> bool:
    return float(np.float32(x)) == x


def _weights_of(G, weight) -> Optional[str]:
    """None when outcore can hold G's `weight` attribute exactly (non-negative
    finite float32), else why not."""
    for _, _, d in G.edges(data=True):
        w = d.get(weight, 1)
        if not isinstance(w, (int, float)) or isinstance(w, bool):
            return f"weight {w!r} is not a number"
        if not math.isfinite(w) or w < 0:
            return f"outcore's shortest paths need finite non-negative weights (found {w})"
        if not _f32_exact(float(w)):
            return f"outcore stores weights as float32, and {w} is not one"
    return None


def _unit_weights(G, weight) -> bool:
    if weight is None:
        return True
    if isinstance(G, OutcoreGraph):
        return G._weights == "none"
    return all(d.get(weight, 1) == 1 for _, _, d in G.edges(data=True))


class BackendInterface:
    """What networkx calls: conversions, can_run, and the functions."""

    @staticmethod
    def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                        preserve_graph_attrs=False, name=None, graph_name=None):
        import networkx as nx

        if isinstance(G, OutcoreGraph):
            return G
        if G.is_multigraph():
            raise NotImplementedError("outcore stores simple graphs, not multigraphs")
        labels = list(G)
        index = {n: i for i, n in enumerate(labels)}
        attr, default = None, 1
        if edge_attrs:
            if len(edge_attrs) > 1:
                raise NotImplementedError("outcore keeps one edge weight")
            attr, default = next(iter(edge_attrs.items()))
            default = 1 if default is None else default
        elif preserve_edge_attrs:
            attr = "weight"
        m = G.number_of_edges()
        src = np.fromiter((index[u] for u, _ in G.edges()), dtype=np.uint64, count=m)
        dst = np.fromiter((index[v] for _, v in G.edges()), dtype=np.uint64, count=m)
        weights, kind = None, "none"
        if attr is not None:
            values = [d.get(attr, default) for _, _, d in G.edges(data=True)]
            if any(v != 1 for v in values):
                if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
                    raise NotImplementedError(f"edge attribute {attr!r} holds values outcore cannot store as weights")
                weights = np.asarray(values, dtype=np.float64)
                kind = "int" if all(isinstance(v, int) for v in values) else "float"
        tmp = tempfile.mkdtemp(prefix="outcore-nx-")
        path = os.path.join(tmp, "graph.store")
        try:
            source = (src, dst) if weights is None else (src, dst, weights)
            outcore.import_graph(
                source, path, directed=G.is_directed(), num_vertices=len(labels), dedup=False,
                memory=_config("memory", "1G"), progress=False,
            )
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        out = OutcoreGraph(outcore.open(path), labels=labels, weights=kind, owned=tmp)
        if preserve_graph_attrs:
            out.graph = dict(G.graph)
        return out

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """Results pass through; a backend graph becomes an ordinary
        networkx graph read from the store (what networkx does to run a
        function outcore lacks on it: it needs the graph in memory)."""
        if isinstance(obj, OutcoreGraph):
            return obj.to_networkx()
        return obj

    @staticmethod
    def can_run(name, args, kwargs):
        return _can_run(name, args, kwargs)

    @staticmethod
    def should_run(name, args, kwargs):
        return True


def _bound(name, args, kwargs) -> dict:
    """The call's arguments by name, defaults filled in (networkx passes
    them positionally or by keyword)."""
    import inspect

    sig = inspect.signature(getattr(BackendInterface, name))
    bound = sig.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in sig.parameters})
    bound.apply_defaults()
    return bound.arguments


def _can_run(name, args, kwargs):
    if name not in _FUNCTIONS:
        return False
    a = _bound(name, args, kwargs)
    G = a.get("G")
    if G is not None and G.is_multigraph():
        return "outcore stores simple graphs, not multigraphs"
    if name == "pagerank":
        for key in ("personalization", "nstart", "dangling"):
            if a[key] is not None:
                return f"outcore's PageRank has no {key}"
        if not _unit_weights(G, a["weight"]):
            return "outcore's PageRank is unweighted and this graph has edge weights"
        return True
    if name == "bfs_layers":
        try:
            if a["sources"] in G:
                return True
        except TypeError:
            pass
        return "outcore's BFS starts from one source"
    if name == "bfs_edges":
        if a["sort_neighbors"] is not None:
            return "outcore orders a BFS tree by node order, not by a sort_neighbors function"
        if a["reverse"] and G.is_directed():
            return "outcore's BFS follows out-edges"
        return True
    if name == "shortest_path_length":
        if a["source"] is None or a["target"] is not None:
            return "outcore computes shortest path lengths from one source to all"
        if a["method"] not in ("dijkstra", "bellman-ford"):
            return f"unknown method {a['method']}"
        return _weight_ok(G, a["weight"])
    if name == "single_source_dijkstra_path_length":
        return _weight_ok(G, a["weight"])
    if name == "betweenness_centrality_subset":
        if not _unit_weights(G, a["weight"]):
            return "outcore's betweenness is unweighted"
        return True
    if name in ("triangles", "clustering", "average_clustering", "core_number") and G.is_directed():
        return f"outcore's {name} is networkx's on undirected graphs only"
    if name in ("clustering", "average_clustering"):
        if a["weight"] is not None and not _unit_weights(G, a["weight"]):
            return "outcore's clustering is unweighted"
        if name == "average_clustering" and a["nodes"] is not None:
            return "outcore averages over every node"
        return True
    if name == "core_number":
        if not isinstance(G, OutcoreGraph) and any(True for _ in _nx().selfloop_edges(G)):
            return "networkx refuses self loops in core_number"
        return True
    if name == "betweenness_centrality":
        if not _unit_weights(G, a["weight"]):
            return "outcore's betweenness is unweighted"
        if a["endpoints"]:
            return "outcore's betweenness leaves the endpoints out"
        return True
    return True


def _weight_ok(G, weight):
    if weight is None:
        return True
    if callable(weight):
        return "outcore takes a weight attribute, not a function"
    if isinstance(G, OutcoreGraph):
        return True
    why = _weights_of(G, weight)
    return True if why is None else why


def _source_id(G: OutcoreGraph, source, exc) -> int:
    try:
        return G._id(source)
    except (KeyError, TypeError):
        raise exc from None


def _nx():
    import networkx as nx

    return nx


# --- link analysis ---------------------------------------------------------


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight", dangling=None):
    nx = _nx()
    n = len(G)
    if n == 0:
        return {}
    params = {"damping": alpha, "iterations": max_iter}
    if tol > 0:
        params["tolerance"] = n * tol
    # tol=0 never converges in networkx: max_iter iterations, then the exception
    r = G._run("pagerank", **params)
    if r.report.get("stopped_by") != "converged":
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G._as_dict(r["rank"])


# --- components ------------------------------------------------------------


def _components(G, algorithm: str = "wcc") -> list:
    """The node sets of the components `algorithm` (wcc or scc) labels."""
    if len(G) == 0:
        return []
    labels = G._as_dict(G._run(algorithm)["component"])
    groups: Dict[int, set] = {}
    for node, label in labels.items():
        groups.setdefault(label, set()).add(node)
    return list(groups.values())


def connected_components(G):
    yield from _components(G)


def weakly_connected_components(G):
    yield from _components(G)


def number_connected_components(G):
    return len(_components(G))


def is_connected(G):
    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return len(_components(G)) == 1


def node_connected_component(G, n):
    if n not in G:
        # networkx looks the node up in its adjacency dict
        raise KeyError(n)
    for c in _components(G):
        if n in c:
            return c
    return {n}


# --- traversal -------------------------------------------------------------


def _bfs(G, source):
    """(levels, parents) as {node: value} in node order, reached nodes only."""
    root = G._id(source)
    r = G._run("bfs", root=root)
    order = G._order()
    level = r["level"].tolist()
    parent = r["parent"].tolist()
    labels = G._labels
    levels = {}
    parents = {}
    for node, lv, p in zip(order, level, parent):
        if lv >= 0:
            levels[node] = lv
            parents[node] = p if labels is None or p < 0 else labels[p]
    if labels is not None:
        levels = {n: levels[n] for n in labels if n in levels}
    return levels, parents


def bfs_layers(G, sources):
    nx = _nx()
    if sources not in G:
        raise nx.NetworkXError(f"The node {sources} is not in the graph.")
    levels, _ = _bfs(G, sources)
    layers: List[list] = []
    for node, lv in levels.items():
        while len(layers) <= lv:
            layers.append([])
        layers[lv].append(node)
    yield from layers


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    nx = _nx()
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    levels, parents = _bfs(G, source)
    if depth_limit is None:
        depth_limit = len(G)
    by_level: Dict[int, list] = {}
    for node, lv in levels.items():
        if 0 < lv <= depth_limit:
            by_level.setdefault(lv, []).append(node)
    for lv in sorted(by_level):
        for node in by_level[lv]:
            yield (parents[node], node)


# --- shortest paths --------------------------------------------------------


def single_source_shortest_path_length(G, source, cutoff=None):
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None:
        cutoff = float("inf")
    levels, _ = _bfs(G, source)
    return {n: lv for n, lv in levels.items() if lv <= cutoff}


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if weight is None or G._weights == "none":
        levels, _ = _bfs(G, source)
        dist = levels
    else:
        r = G._run("sssp", root=G._id(source))
        dist = G._as_dict(r["distance"], keep=math.isfinite)
        if G._weights == "int":
            dist = {n: int(d) for n, d in dist.items()}
    if cutoff is not None:
        dist = {n: d for n, d in dist.items() if d <= cutoff}
    return dist


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if weight is None:
        return single_source_shortest_path_length(G, source)
    return single_source_dijkstra_path_length(G, source, weight=weight)


# --- centrality ------------------------------------------------------------


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    from networkx.algorithms.centrality import betweenness as nxb
    import inspect

    n = len(G)
    if k == n:
        k = None
    nodes = list(G) if G._labels is not None else G._g.vertices().tolist()
    if n == 0:
        return {}
    if k is None:
        sampled = None
        r = G._run("bc", sources="all")
    else:
        sampled = seed.sample(nodes, k)
        r = G._run("bc", source=[G._id(s) for s in sampled])
    # outcore halves an undirected graph's sums; networkx's rescaling does
    raw = r["centrality"] * (1.0 if G.is_directed() else 2.0)
    values = G._as_dict(raw)
    values = {v: values[v] for v in nodes}
    rescale = nxb._rescale
    params = inspect.signature(rescale).parameters
    if "sampled_nodes" in params:
        return rescale(values, n, normalized=normalized, directed=G.is_directed(), endpoints=endpoints, sampled_nodes=sampled)
    return rescale(values, n, normalized=normalized, directed=G.is_directed(), k=k, endpoints=endpoints)


def betweenness_centrality_subset(G, sources, targets, normalized=False, weight=None):
    from networkx.algorithms.centrality import betweenness_subset as nxs
    import inspect

    nodes = list(G) if G._labels is not None else G._g.vertices().tolist()
    sources = list(sources)
    targets = {G._id(t) for t in targets}
    values = dict.fromkeys(nodes, 0.0)
    if sources and targets:
        r = G._run("bc", source=[G._id(s) for s in sources], target=sorted(targets))
        # outcore halves an undirected graph's sums; networkx's rescaling does
        raw = G._as_dict(r["centrality"] * (1.0 if G.is_directed() else 2.0))
        values = {v: raw[v] for v in nodes}
    rescale = nxs._rescale
    if "endpoints" in inspect.signature(rescale).parameters:
        return rescale(values, len(G), normalized=normalized, directed=G.is_directed(), endpoints=False)
    return rescale(values, len(G), normalized=normalized, directed=G.is_directed())


# --- triangles, clustering, cores -------------------------------------------


def _subset(G, values: dict, nodes):
    """networkx's convention: a dict over ``nodes`` (all when None), or the
    value alone when ``nodes`` is a single node of the graph."""
    if nodes is None:
        return values
    if nodes in G:
        return values[nodes]
    return {n: values[n] for n in nodes}


def triangles(G, nodes=None):
    if len(G) == 0:
        return {} if nodes is None or nodes not in G else 0
    counts = {n: int(t) for n, t in G._as_dict(G._run("triangles")["triangles"]).items()}
    return _subset(G, counts, nodes)


def clustering(G, nodes=None, weight=None):
    if len(G) == 0:
        return {} if nodes is None or nodes not in G else 0
    values = {n: float(x) for n, x in G._as_dict(G._run("lcc")["lcc"]).items()}
    return _subset(G, values, nodes)


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    if len(G) == 0:
        raise ZeroDivisionError("average_clustering of an empty graph")
    values = list(clustering(G).values())
    if not count_zeros:
        values = [x for x in values if x > 0]
    return sum(values) / len(values)


def strongly_connected_components(G):
    yield from _components(G, "scc")


def number_strongly_connected_components(G):
    return len(_components(G, "scc"))


def is_strongly_connected(G):
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return len(_components(G, "scc")) == 1


def core_number(G):
    if len(G) == 0:
        return {}
    return {n: int(c) for n, c in G._as_dict(G._run("kcore")["core"]).items()}


for _name in _FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(globals()[_name]))
del _name

