"""outcore: graph analytics and a graph store for graphs larger than memory.

Import an edge list once into a store on disk, then run algorithms over it
under a memory budget that covers the page cache too::

    import outcore
    outcore.import_graph("wiki-Vote.txt", "wiki.store")
    g = outcore.open("wiki.store")
    pr = g.pagerank(memory="256M")
    pr.to_pandas().nlargest(10)        # the ten highest ranks, by original id

Every algorithm of the library's registry is a method of :class:`Graph`
(``g.bfs``, ``g.sssp``, ``g.wcc``, ``g.pagerank``, ``g.cdlp``, ``g.spmv``,
``g.bc`` alias ``g.betweenness``), each taking ``memory=``, ``engine=`` and
the algorithm's own parameters, and returning a :class:`Result`: numpy
arrays indexed like ``g.vertices()`` plus the run's report.  A result larger
than the budget comes back as read-only numpy memmaps.  ``outcore.nx`` is a
networkx backend (``nx.pagerank(G, backend="outcore")``).

Errors are :class:`OutcoreError` subclasses carrying the library's message
(``BudgetError`` has ``suggested_memory``); Ctrl-C stops a run, removes
what it was writing and raises KeyboardInterrupt.
"""

from __future__ import annotations

import inspect
import keyword
import json
import os
import shutil
import tempfile
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _outcore
from ._outcore import (
    BudgetError,
    ExistsError,
    InputError,
    LayoutError,
    OutcoreError,
    OutcoreIOError,
    ParameterError,
    StoreError,
    UnsupportedError,
)

__version__ = _outcore.__version__

__all__ = [
    "import_graph",
    "export",
    "open",
    "algorithms",
    "Graph",
    "Result",
    "OutcoreError",
    "BudgetError",
    "ParameterError",
    "InputError",
    "StoreError",
    "LayoutError",
    "ExistsError",
    "UnsupportedError",
    "OutcoreIOError",
]

PathLike = Union[str, "os.PathLike[str]"]

#: Rows written per chunk when arrays become an import file.
_CHUNK = 1 << 20


def algorithms() -> list:
    """The library's registry: one dict per algorithm with its ``name``,
    ``title``, ``about``, ``params`` (name, kind, default, help),
    ``engines`` and result ``columns``."""
    return _outcore.algorithms()


def _as_ids(name: str, a: Any) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1:
        raise InputError(f"{name}: a one-dimensional array of vertex ids is needed, not shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise InputError(f"{name}: vertex ids must be integers, not dtype {a.dtype}")
    if a.dtype.kind == "i" and a.size and a.min() < 0:
        i = int(np.argmin(a))
        raise InputError(f"{name}: vertex ids must be non-negative ({name}[{i}] is {a[i]})")
    return np.ascontiguousarray(a, dtype=np.uint64)


def _as_weights(a: Any, n: int) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 1 or a.shape[0] != n:
        raise InputError(f"weight: a one-dimensional array of {n} weights is needed, not shape {a.shape}")
    if a.dtype.kind not in "iuf":
        raise InputError(f"weight: weights must be numbers, not dtype {a.dtype}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    bad = ~np.isfinite(a)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"weight: weights must be finite numbers (weight[{i}] is {a[i]})")
    return a


def _edge_arrays(source: Any, columns: Optional[Sequence[str]]) -> Optional[Tuple[np.ndarray, np.ndarray, Optional[np.ndarray], Optional[int]]]:
    """(src, dst, weight or None, vertex count or None) of an in-memory
    source, or None when `source` is a path."""
    if isinstance(source, (str, os.PathLike)):
        return None
    # scipy sparse matrix or array: row -> column, its values the weights
    if hasattr(source, "tocoo") and hasattr(source, "shape"):
        if len(source.shape) != 2 or source.shape[0] != source.shape[1]:
            raise InputError(f"source: an adjacency matrix must be square, not {source.shape}")
        coo = source.tocoo()
        return _as_ids("row", coo.row), _as_ids("col", coo.col), np.asarray(coo.data), int(source.shape[0])
    # pandas DataFrame: the named columns
    if hasattr(source, "columns") and hasattr(source, "__getitem__") and not isinstance(source, (tuple, list)):
        names = list(columns) if columns is not None else [c for c in ("source", "target", "weight") if c in source.columns]
        if len(names) < 2:
            raise InputError(
                f"columns: name the source and target columns (and a weight column) of the DataFrame, e.g. columns=('src', 'dst'); it has {list(source.columns)}"
            )
        missing = [c for c in names if c not in source.columns]
        if missing:
            raise InputError(f"columns: the DataFrame has no column {', '.join(map(repr, missing))} (it has {list(source.columns)})")
        src = _as_ids(names[0], source[names[0]].to_numpy())
        dst = _as_ids(names[1], source[names[1]].to_numpy())
        weight = source[names[2]].to_numpy() if len(names) > 2 else None
        return src, dst, weight, None
    if isinstance(source, (tuple, list)) and len(source) in (2, 3):
        src = _as_ids("src", source[0])
        dst = _as_ids("dst", source[1])
        weight = source[2] if len(source) == 3 else None
        return src, dst, weight, None
    raise InputError(
        f"source: give a path, a (src, dst[, weight]) pair of numpy arrays, a pandas DataFrame or a scipy sparse matrix, not {type(source).__name__}"
    )


def _write_bin64(path: str, src: np.ndarray, dst: np.ndarray) -> None:
    with builtins_open(path, "xb") as f:
        for i in range(0, src.shape[0], _CHUNK):
            np.stack((src[i : i + _CHUNK], dst[i : i + _CHUNK]), axis=1).astype("<u8", copy=False).tofile(f)


builtins_open = open  # the module's own `open` opens stores


def import_graph(
    source: Any,
    store: PathLike,
    *,
    columns: Optional[Sequence[str]] = None,
    format: Optional[str] = None,
    directed: Optional[bool] = None,
    weighted: Optional[bool] = None,
    dedup: bool = True,
    self_loops: str = "keep",
    layouts: Iterable[str] = (),
    encoding: Optional[str] = None,
    order: Optional[str] = None,
    num_vertices: Optional[int] = None,
    force: bool = False,
    memory: Union[int, str, None] = None,
    progress: bool = True,
    bipartite: bool = False,
) -> dict:
    """Import a graph into a new store at `store` (external memory: the
    budget bounds the import however large the input).

    source: a path in any import format (``.el``, ``.wel``, ``.mtx``,
        ``.graph``, Graphalytics, ``.bin32``/``.bin64``, gzip or zstd), a
        pair or triple of numpy arrays ``(src, dst[, weight])``, a pandas
        DataFrame (name its columns with ``columns=('src', 'dst'[, 'w'])``;
        default ``source``/``target``/``weight``), or a square scipy sparse
        matrix (row -> column; its values are the weights, its size the
        vertex count).
    directed: False stores each edge both ways (default: directed for
        edge lists, as the format says otherwise).
    weighted: keep edge weights (default: when the source has them).
    dedup: collapse parallel edges, keeping the smallest weight.
    self_loops: ``"keep"`` or ``"drop"``.
    layouts: more layouts to build after the import: ``"in"``,
        ``"tiles"``, ``"hot"``.
    encoding: ``raw32``, ``raw64``, ``ceesor`` or ``gapref``.
    order: put the vertices in an order (``dfs``, ``degree``, ``bfs``,
        ``rcm``) by an external relabel; results stay in original ids.
    num_vertices: declare vertices 0..N-1 (isolated ones are kept).
    bipartite: a ratings graph for ``Graph.als``: each edge is ``user item
        rating``; users and items are two id spaces (item ``i`` is vertex
        ``2**62 + i`` in ``vertices()``), users first; undirected, weighted.
    force: replace an existing store.
    memory: the budget, bytes or text (``"512M"``); default 1 GiB.

    Returns the import report (vertices, edges, sort runs, seconds...).
    Raises InputError (bad input, naming the argument or the file's line),
    BudgetError, ExistsError; on failure nothing is left at `store`.
    """
    store = os.fspath(store)
    arrays = _edge_arrays(source, columns)
    opts = dict(
        directed=directed,
        dedup=dedup,
        self_loops=self_loops,
        in_layout=False,
        encoding=encoding,
        order=order,
        num_vertices=num_vertices,
        force=force,
        memory=memory,
        progress=progress,
        bipartite=bipartite,
    )
    layouts = list(layouts)
    for layout in layouts:
        if layout not in ("out", "in", "tiles", "hot"):
            raise ParameterError(f"layouts: unknown layout {layout!r} (outcore builds: in, tiles, hot)")
    if arrays is None:
        if format is not None:
            opts["format"] = format
        if weighted is not None:
            opts["weighted" if weighted else "unweighted"] = True
        report = _outcore.import_file(os.fspath(source), store, **opts)
    else:
        src, dst, weight, n = arrays
        if src.shape[0] != dst.shape[0]:
            raise InputError(f"src and dst must have the same length ({src.shape[0]} and {dst.shape[0]})")
        if weight is not None:
            weight = _as_weights(weight, src.shape[0])
            if weighted is None and hasattr(source, "tocoo"):
                weighted = not bool(np.all(weight == 1.0))
            elif weighted is None:
                weighted = True
        if not weighted:
            weight = None
        if num_vertices is None and n is not None:
            opts["num_vertices"] = n
        parent = os.path.dirname(os.path.abspath(store)) or "."
        with tempfile.TemporaryDirectory(prefix=".outcore-py-", dir=parent) as tmp:
            if weight is None:
                path = os.path.join(tmp, "edges.bin64")
                _write_bin64(path, src, dst)
                opts["format"] = "bin64"
            else:
                path = os.path.join(tmp, "edges.wel")
                _outcore.write_edge_file(path, src, dst, weight)
                opts["format"] = "wel"
                opts["weighted"] = True
            report = _outcore.import_file(path, store, **opts)
    report = json.loads(report)
    for layout in layouts:
        if layout == "in":
            _outcore.add_layout(store, "in", memory=memory, progress=progress)
        elif layout != "out":
            _outcore.add_layout(store, layout, memory=memory, progress=progress)
    return report


def export(
    store: PathLike,
    path: PathLike,
    *,
    format: str = "el",
    layout: str = "out",
    memory: Union[int, str, None] = None,
    force: bool = False,
    progress: bool = True,
) -> int:
    """Write the store's edges back out in original ids, streaming in
    bounded memory (``outcore export``): ``format`` is ``el``, ``wel``,
    ``bin32``, ``bin64``, ``mtx`` or ``graphalytics``; ``layout="in"``
    writes each edge of the in-edge layout as target -> source. An
    existing file is replaced only with ``force``. Returns the edges
    written (undirected edges once)."""
    return _outcore.export(os.fspath(store), os.fspath(path), format=format, layout=layout, memory=memory, force=force, progress=progress)


def _param_text(name: str, kind: str, value: Any):
    if kind == "switch":
        return "true" if value else "false"
    if kind == "vertices":
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            value = [value]
        return [str(int(v)) for v in value]
    if kind in ("vertex", "count"):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ParameterError(f"{name}: takes an integer, not {value!r}")
        return str(int(value))
    if kind == "real":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ParameterError(f"{name}: takes a number, not {value!r}")
        return repr(float(value))
    if kind == "vertex_file":
        return os.fspath(value)
    return str(value)


class Result:
    """One run of an algorithm: ``result[column]`` (or ``result.column``)
    is a numpy array indexed like ``graph.vertices()``; ``report`` says
    which engine ran and why, the time, bytes read and the peak memory."""

    def __init__(self, graph: "Graph", algorithm: str, report: dict, columns: Dict[str, np.ndarray]):
        self.graph = graph
        self.algorithm = algorithm
        self.report = report
        self.columns = columns

    def __getitem__(self, column: str) -> np.ndarray:
        try:
            return self.columns[column]
        except KeyError:
            raise KeyError(f"{self.algorithm} returns no {column!r} (it returns: {', '.join(self.columns)})") from None

    def __getattr__(self, column: str) -> np.ndarray:
        columns = self.__dict__.get("columns", {})
        if column in columns:
            return columns[column]
        raise AttributeError(column)

    def __repr__(self) -> str:
        shown = ", ".join(f"{c}: {a.dtype}[{a.shape[0]}]" for c, a in self.columns.items())
        return f"<outcore.Result {self.algorithm} on {self.report.get('engine')}: {shown}>"

    @property
    def vertices(self) -> np.ndarray:
        """The original id of each position of the result arrays."""
        return self.graph.vertices()

    def to_pandas(self, column: Optional[str] = None):
        """The result as a pandas Series indexed by original id (one
        column: the first by default) or, with ``column="*"``, a
        DataFrame of every column."""
        import pandas as pd

        index = pd.Index(self.vertices, name="vertex")
        if column == "*":
            return pd.DataFrame({c: np.asarray(a) for c, a in self.columns.items()}, index=index)
        column = column or next(iter(self.columns))
        return pd.Series(np.asarray(self[column]), index=index, name=column)

    def series(self) -> Dict[str, list]:
        """The figures the run recorded per step: each numeric figure of
        ``report["per_iteration"]`` (stream, interval, sort-reduce) and of
        ``report["levels"]`` (the hybrid BFS), as lists by step."""
        out: Dict[str, list] = {}
        for key, step in (("per_iteration", "iteration"), ("levels", "level")):
            rows = self.report.get(key) or []
            names = []
            for row in rows:
                for k, v in row.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in names:
                        names.append(k)
            for k in names:
                out[f"{k} per {step}"] = [row.get(k, 0) for row in rows]
        return out

    def plot(self, axes=None):
        """The run's per-iteration or per-level figures with matplotlib,
        one panel each (the figure ``--report`` draws). Returns the axes."""
        plt = _pyplot()
        series = self.series()
        if not series:
            raise ValueError(f"this run ({self.report.get('engine')} engine) recorded no per-iteration or per-level figures")
        if axes is None:
            _, axes = plt.subplots(len(series), 1, figsize=(6, 2.2 * len(series)), squeeze=False)
            axes = axes[:, 0]
        for ax, (name, values) in zip(axes, series.items()):
            ax.plot(range(len(values)), values, marker="o")
            ax.set_title(name)
        return axes

    def to_dict(self, column: Optional[str] = None) -> dict:
        """{original id: value} for one column (small graphs)."""
        column = column or next(iter(self.columns))
        return dict(zip(self.vertices.tolist(), self[column].tolist()))


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plots need matplotlib: pip install matplotlib") from None
    return plt


def _load_npy_dir(out_dir: str, files: Dict[str, str]) -> Dict[str, np.ndarray]:
    """Memory-map each result file, then remove the directory: the
    mappings keep the data (on Linux) until the arrays are gone."""
    columns = {c: np.load(p, mmap_mode="r") for c, p in files.items()}
    shutil.rmtree(out_dir, ignore_errors=True)
    return columns


class Graph:
    """A store opened for analytics: ``outcore.open(path)``.

    Attributes: ``num_vertices``, ``num_edges``, ``directed``,
    ``weighted``, ``layouts``, ``path``.  Methods: ``info()``,
    ``vertices()``, ``run(name, ...)``, ``plan(name, ...)`` and one method
    per algorithm (``bfs``, ``sssp``, ``wcc``, ``pagerank``, ``cdlp``,
    ``spmv``, ``bc`` alias ``betweenness``), each taking ``memory=``
    (bytes or ``"512M"``; default 1 GiB), ``engine=`` (``"auto"`` or an
    engine name), ``verify=`` (check with the algorithm's validator) and
    the algorithm's parameters.
    """

    def __init__(self, path: PathLike):
        self._g = _outcore.Graph(os.fspath(path))
        self._vertices: Optional[np.ndarray] = None

    num_vertices = property(lambda self: self._g.num_vertices, doc="Vertices of the graph.")
    num_edges = property(lambda self: self._g.num_edges, doc="Edges as imported (undirected ones once).")
    directed = property(lambda self: self._g.directed, doc="Whether edges are directed.")
    weighted = property(lambda self: self._g.weighted, doc="Whether edges carry weights.")
    layouts = property(lambda self: self._g.layouts, doc="The layouts present (out, in, tiles, hot).")
    path = property(lambda self: self._g.path, doc="The store's directory.")

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<outcore.Graph {self.path}: {self.num_vertices} vertices, {self.num_edges} {kind} edges, layouts {', '.join(self.layouts)}>"

    def info(self) -> dict:
        """The store's manifest (counts, layouts, encodings, checksums) as a dict."""
        return json.loads(self._g.manifest_json())

    def degrees(self, top: int = 5, memory: Union[int, str, None] = None) -> dict:
        """Degree statistics: ``{"out": {...}, "in": {...} or None}``, each
        with min, max, mean, zero (vertices of degree 0), histogram
        (``histogram[k]`` counts degrees in [2^k, 2^(k+1))) and the `top`
        highest-degree vertices as (original id, degree)."""
        return json.loads(self._g.degree_summary_json(top, memory))

    def plot_degrees(self, ax=None, memory: Union[int, str, None] = None):
        """The degree distribution on log-log axes with matplotlib (one
        point per power-of-two bucket; in and out for a directed graph), the
        figure ``outcore info --plot`` draws. Returns the Axes."""
        plt = _pyplot()
        if ax is None:
            _, ax = plt.subplots()
        summary = self.degrees(memory=memory)
        for name, stats in (("out-degree", summary["out"]), ("in-degree", summary.get("in"))):
            if not stats:
                continue
            points = [(1 << k, c) for k, c in enumerate(stats["histogram"]) if c > 0]
            if points:
                ax.loglog(*zip(*points), marker="o", label=name)
        ax.set_xlabel("degree (bucket 2^k .. 2^(k+1)-1)")
        ax.set_ylabel("vertices")
        ax.set_title(f"degree distribution of {os.path.basename(str(self.path))}")
        ax.legend()
        return ax

    def vertices(self, memory: Union[int, str, None] = None) -> np.ndarray:
        """The original id of every vertex (int64), in the order of every
        result array; a memmap when 8 bytes a vertex exceed half of
        `memory`."""
        if self._vertices is None:
            if _too_large(self.num_vertices, 1, memory):
                out_dir = tempfile.mkdtemp(prefix="outcore-ids-")
                path = os.path.join(out_dir, "ids.npy")
                try:
                    self._g.vertices(path)
                except BaseException:
                    shutil.rmtree(out_dir, ignore_errors=True)
                    raise
                self._vertices = _load_npy_dir(out_dir, {"ids": path})["ids"]
            else:
                self._vertices = self._g.vertices()
        return self._vertices

    def plan(self, name: str, memory: Union[int, str, None] = None, engine: str = "auto", **params) -> dict:
        """The plan `name` would follow here: the engine, why, and what a
        missing layout would buy."""
        spec = _spec(name)
        return json.loads(self._g.plan(spec["name"], _params(spec, params), memory, engine))

    def run(
        self,
        name: str,
        memory: Union[int, str, None] = None,
        engine: str = "auto",
        verify: bool = False,
        progress: bool = True,
        out_dir: Optional[PathLike] = None,
        **params,
    ) -> Result:
        """Run the algorithm `name` with its parameters as keywords.

        A result whose arrays exceed half the budget is written to files
        and returned as read-only memmaps (give `out_dir` to choose where,
        and to keep the ``<column>.npy`` files there)."""
        spec = _spec(name)
        args = _params(spec, params)
        keep = out_dir is not None
        if out_dir is None and _too_large(self.num_vertices, len(spec["columns"]), memory):
            out_dir = tempfile.mkdtemp(prefix="outcore-result-")
        try:
            report, columns = self._g.run(
                spec["name"], args, memory, engine, progress, verify, None if out_dir is None else os.fspath(out_dir)
            )
        except BaseException:
            if out_dir is not None and not keep:
                shutil.rmtree(out_dir, ignore_errors=True)
            raise
        if out_dir is not None:
            files = dict(columns)
            columns = {c: np.load(p, mmap_mode="r") for c, p in files.items()} if keep else _load_npy_dir(os.fspath(out_dir), files)
        return Result(self, spec["name"], json.loads(report), columns)


def _too_large(n: int, columns: int, memory: Union[int, str, None]) -> bool:
    budget = _bytes(memory)
    return 8 * n * (columns + 1) > budget // 2


def _bytes(memory: Union[int, str, None]) -> int:
    """The budget in bytes, parsed as every call parses it."""
    return _outcore.memory_bytes(memory)


_ALIASES = {"betweenness": "bc", "betweenness_centrality": "bc", "connected_components": "wcc", "shortest_paths": "sssp"}


def _spec(name: str) -> dict:
    name = _ALIASES.get(name, name)
    for spec in _REGISTRY:
        if spec["name"] == name:
            return spec
    raise ParameterError(f"no algorithm is called {name!r} (outcore has: {', '.join(s['name'] for s in _REGISTRY)})")


def _params(spec: dict, params: dict) -> dict:
    known = {p["name"]: p for p in spec["params"]}
    args = {}
    for name, value in params.items():
        if name not in known:
            raise ParameterError(f"{spec['name']} takes no parameter {name!r} (it takes: {', '.join(known) or 'none'})")
        if value is None:
            continue
        args[name] = _param_text(name, known[name]["kind"], value)
    return args


_REGISTRY = _outcore.algorithms()


def _python_name(param: str) -> str:
    """A parameter's name in Python: a keyword (ALS's ``lambda``) takes a
    trailing underscore, as PEP 8 advises."""
    return param + "_" if keyword.iskeyword(param) else param


def _method(spec: dict):
    name = spec["name"]

    names = [_python_name(p["name"]) for p in spec["params"]]
    library_name = {_python_name(p["name"]): p["name"] for p in spec["params"]}

    def method(self, *args, memory=None, engine="auto", verify=False, progress=True, out_dir=None, **params):
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} positional parameters ({', '.join(names)})")
        for p, value in zip(names, args):
            if p in params:
                raise TypeError(f"{name}() got {p!r} twice")
            params[p] = value
        params = {library_name.get(k, k): v for k, v in params.items()}
        return self.run(name, memory=memory, engine=engine, verify=verify, progress=progress, out_dir=out_dir, **params)

    lines = [f"{spec['title']}: {spec['about']}", "", "Parameters:"]
    for p in spec["params"]:
        default = f" (default {p['default']})" if p["default"] is not None else ""
        lines.append(f"    {_python_name(p['name'])}: {p['help']}{default}")
    lines += [
        "    memory: the budget, bytes or '512M' (default 1 GiB), page cache included",
        f"    engine: 'auto' or one of {', '.join(spec['engines'])}",
        "    verify: check the result with the algorithm's validator (report['validation'])",
        "",
        f"Returns a Result with {', '.join(spec['columns'])} (numpy arrays indexed like vertices()) and the report.",
    ]
    method.__name__ = name
    method.__qualname__ = f"Graph.{name}"
    method.__doc__ = "\n".join(lines)
    common = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    ] + [
        inspect.Parameter(_python_name(p["name"]), inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
        for p in spec["params"]
    ] + [
        inspect.Parameter("memory", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("engine", inspect.Parameter.KEYWORD_ONLY, default="auto"),
        inspect.Parameter("verify", inspect.Parameter.KEYWORD_ONLY, default=False),
        inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=True),
        inspect.Parameter("out_dir", inspect.Parameter.KEYWORD_ONLY, default=None),
    ]
    method.__signature__ = inspect.Signature(common)
    return method


for _spec_entry in _REGISTRY:
    setattr(Graph, _spec_entry["name"], _method(_spec_entry))
Graph.betweenness = Graph.bc
del _spec_entry


def open(store: PathLike) -> Graph:  # noqa: A001 - the package's verb
    """Open the store at `store` (made by ``outcore.import_graph`` or
    ``outcore import``) for analytics.  Raises StoreError when there is
    no store there or it is damaged."""
    return Graph(store)
