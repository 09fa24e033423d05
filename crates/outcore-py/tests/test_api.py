"""The Python package against independent oracles: networkx on the shared
real graphs, the `outcore` command's own output, numpy/scipy for the
inputs; bad input raises the package's exceptions and leaves nothing
behind; a result larger than half the budget comes back memory-mapped;
Ctrl-C stops a run and the next one works."""

import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import outcore

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHARED = pathlib.Path(os.environ.get("OUTCORE_SHARED", ROOT.parent / "shared"))
REAL = SHARED / "data" / "real"


def cli():
    path = pathlib.Path(os.environ.get("OUTCORE_BIN", ROOT / "target" / "debug" / "outcore"))
    assert path.exists(), f"the outcore command is not at {path}: build it (cargo build) or set OUTCORE_BIN"
    return str(path)


def cli_values(args):
    """{original id: value text} from `outcore ALG STORE ... -o -`."""
    out = subprocess.run([cli(), *args, "-q", "-o", "-"], check=True, capture_output=True, text=True).stdout
    return {int(v): x for v, x in (line.split() for line in out.splitlines() if line)}


@pytest.fixture(scope="module")
def grqc(tmp_path_factory):
    """CA-GrQc (undirected collaboration network): the store and networkx's graph."""
    path = tmp_path_factory.mktemp("grqc") / "grqc.store"
    report = outcore.import_graph(REAL / "CA-GrQc.txt", path, directed=False, progress=False)
    G = nx.read_edgelist(REAL / "CA-GrQc.txt", nodetype=int, create_using=nx.Graph)
    assert report["vertices"] == G.number_of_nodes()
    return outcore.open(path), G


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    """wiki-Vote (directed)."""
    path = tmp_path_factory.mktemp("wiki") / "wiki.store"
    outcore.import_graph(REAL / "wiki-Vote.txt", path, progress=False, layouts=["in"])
    G = nx.read_edgelist(REAL / "wiki-Vote.txt", nodetype=int, create_using=nx.DiGraph)
    return outcore.open(path), G


def as_dict(graph, values):
    return dict(zip(graph.vertices().tolist(), values.tolist()))


def partition(labels: dict):
    groups = {}
    for v, c in labels.items():
        groups.setdefault(c, set()).add(v)
    return sorted(sorted(g) for g in groups.values())


def test_store_facts_match_networkx(grqc, wiki):
    g, G = grqc
    assert (g.num_vertices, g.num_edges, g.directed) == (G.number_of_nodes(), G.number_of_edges(), False)
    assert sorted(g.vertices().tolist()) == sorted(G.nodes)
    info = g.info()
    assert info["vertices"] == G.number_of_nodes()
    w, W = wiki
    assert (w.num_vertices, w.num_edges, w.directed) == (W.number_of_nodes(), W.number_of_edges(), True)
    assert "in" in w.layouts


def test_pagerank_equals_networkx(grqc, wiki):
    for g, G in (grqc, wiki):
        r = g.pagerank(memory="64M", progress=False)
        ours = as_dict(g, r.rank)
        theirs = nx.pagerank(G)
        assert max(abs(ours[v] - theirs[v]) for v in G) < 1e-9
        assert r.report["algorithm"] == "pagerank" and r.report["engine"] and r.report["engine_reason"]
        assert r.report["peak_rss_bytes"] > 0 and "seconds" in r.report


def test_bfs_levels_equal_networkx(wiki):
    g, G = wiki
    root = max(G.nodes, key=G.out_degree)
    r = g.bfs(root, progress=False, verify=True)
    assert r.report["validation"]["passed"]
    levels = as_dict(g, r.level)
    theirs = nx.single_source_shortest_path_length(G, root)
    assert {v: lv for v, lv in levels.items() if lv >= 0} == theirs
    parents = as_dict(g, r.parent)
    for v, p in parents.items():
        if v != root and p >= 0:
            assert G.has_edge(p, v) and theirs[p] == theirs[v] - 1


def test_wcc_equals_networkx(grqc, wiki):
    g, G = grqc
    assert partition(as_dict(g, g.wcc(progress=False).component)) == sorted(sorted(c) for c in nx.connected_components(G))
    w, W = wiki
    assert partition(as_dict(w, w.wcc(progress=False).component)) == sorted(sorted(c) for c in nx.weakly_connected_components(W))


def test_sssp_equals_networkx_dijkstra(tmp_path):
    rng = np.random.default_rng(7)
    n, m = 2000, 12000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 50, m).astype(np.float64)
    path = tmp_path / "w.store"
    outcore.import_graph((src, dst, w), path, num_vertices=n, progress=False)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for a, b, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        if not G.has_edge(a, b) or G[a][b]["weight"] > x:
            G.add_edge(a, b, weight=x)
    g = outcore.open(path)
    assert g.weighted
    r = g.sssp(root=0, progress=False)
    ours = {v: d for v, d in as_dict(g, r.distance).items() if np.isfinite(d)}
    assert ours == nx.single_source_dijkstra_path_length(G, 0)


def test_betweenness_equals_networkx(tmp_path):
    G = nx.gnm_random_graph(300, 900, seed=3)
    src, dst = (np.array(x) for x in zip(*G.edges()))
    path = tmp_path / "bc.store"
    outcore.import_graph((src, dst), path, directed=False, num_vertices=300, progress=False)
    g = outcore.open(path)
    r = g.betweenness(sources="all", progress=False)
    ours = as_dict(g, r.centrality)
    theirs = nx.betweenness_centrality(G, normalized=False)
    assert max(abs(ours[v] - theirs[v]) for v in G) < 1e-9


def test_cdlp_and_spmv_equal_the_command(wiki):
    g, _ = wiki
    store = str(g.path)
    for name, column, params in (("cdlp", "community", {"iterations": 5}), ("spmv", "y", {})):
        r = g.run(name, progress=False, **params)
        args = [name, store] + [x for k, v in params.items() for x in (f"--{k}", str(v))]
        theirs = cli_values(args)
        ours = as_dict(g, r[column])
        assert ours.keys() == theirs.keys()
        for v, x in ours.items():
            assert float(theirs[v]) == pytest.approx(x, rel=1e-12), (name, v)


def test_every_registry_algorithm_is_a_method(grqc):
    g, _ = grqc
    for spec in outcore.algorithms():
        method = getattr(g, spec["name"])
        assert spec["about"] in method.__doc__
        for p in spec["params"]:
            assert p["name"] in str(__import__("inspect").signature(method))


def test_array_dataframe_and_sparse_inputs_give_the_file_import(tmp_path):
    text = (REAL / "CA-GrQc.txt").read_text().splitlines()
    pairs = np.array([[int(x) for x in line.split()] for line in text if line and not line.startswith("#")])
    src, dst = pairs[:, 0], pairs[:, 1]
    ref = outcore.open(tmp_path / "file.store") if outcore.import_graph(REAL / "CA-GrQc.txt", tmp_path / "file.store", progress=False) else None
    stores = {
        "arrays": outcore.import_graph((src, dst), tmp_path / "arrays.store", progress=False),
        "frame": outcore.import_graph(pd.DataFrame({"a": src, "b": dst}), tmp_path / "frame.store", columns=("a", "b"), progress=False),
    }
    expect = as_dict(ref, ref.pagerank(progress=False).rank)

    def edges(store):
        out = tmp_path / f"{pathlib.Path(store).name}.el"
        outcore.export(store, out, progress=False)
        return sorted(out.read_text().splitlines())

    file_edges = edges(tmp_path / "file.store")
    assert len(file_edges) == ref.num_edges
    for name in stores:
        g = outcore.open(tmp_path / f"{name}.store")
        assert (g.num_vertices, g.num_edges) == (ref.num_vertices, ref.num_edges), name
        assert edges(tmp_path / f"{name}.store") == file_edges, name
        assert sorted(g.vertices().tolist()) == sorted(ref.vertices().tolist()), name
        got = as_dict(g, g.pagerank(progress=False).rank)
        assert got.keys() == expect.keys()
        assert max(abs(got[v] - expect[v]) for v in got) < 1e-12, name
    # a sparse matrix: rows -> columns, its size the vertex count, values the weights
    n = int(pairs.max()) + 1
    A = sp.csr_matrix((np.full(len(src), 2.5), (src, dst)), shape=(n, n))
    outcore.import_graph(A, tmp_path / "sparse.store", progress=False)
    g = outcore.open(tmp_path / "sparse.store")
    assert g.num_vertices == n and g.weighted
    d = as_dict(g, g.sssp(root=int(src[0]), progress=False).distance)
    levels = as_dict(ref, ref.bfs(int(src[0]), progress=False).level)
    for v, lv in levels.items():
        assert d[v] == (2.5 * lv if lv >= 0 else np.inf)


def test_result_larger_than_half_the_budget_is_memory_mapped(tmp_path):
    n = 2 << 20
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
    outcore.import_graph((src, dst), tmp_path / "big.store", directed=False, num_vertices=n, progress=False, memory="256M")
    g = outcore.open(tmp_path / "big.store")
    r = g.wcc(memory="48M", progress=False)
    assert isinstance(r.component, np.memmap)
    ids = g.vertices(memory="48M")
    assert isinstance(ids, np.memmap)
    whole = g.wcc(memory="1G", progress=False)
    assert not isinstance(whole.component, np.memmap)
    assert np.array_equal(np.asarray(r.component), whole.component)
    assert not any(p.name.startswith("outcore-result-") for p in pathlib.Path(__import__("tempfile").gettempdir()).iterdir())
    kept = tmp_path / "kept"
    kept.mkdir()
    r = g.wcc(memory="1G", progress=False, out_dir=kept)
    assert (kept / "component.npy").exists() and np.array_equal(np.load(kept / "component.npy"), whole.component)


def leftovers(directory):
    return [p.name for p in pathlib.Path(directory).iterdir()]


@pytest.mark.parametrize(
    "source,kwargs,error,words",
    [
        ((np.array([0.5, 1.0]), np.array([1, 2])), {}, outcore.InputError, "integers"),
        ((np.array([[0, 1]]), np.array([1])), {}, outcore.InputError, "one-dimensional"),
        ((np.array([0, -1]), np.array([1, 2])), {}, outcore.InputError, "non-negative"),
        ((np.array([0, 1]), np.array([1, 2]), np.array([1.0, np.nan])), {}, outcore.InputError, "finite"),
        ((np.array([0, 1]), np.array([1, 2, 3])), {}, outcore.InputError, "same length"),
        (pd.DataFrame({"a": [0], "b": [1]}), {"columns": ("a", "c")}, outcore.InputError, "'c'"),
        (sp.csr_matrix((2, 3)), {}, outcore.InputError, "square"),
        ("no-such-file.el", {}, outcore.OutcoreError, "no-such-file.el"),
        ((np.array([0, 1]), np.array([1, 2])), {"memory": "1M"}, outcore.BudgetError, "memory budget"),
        ((np.array([0, 1]), np.array([1, 2])), {"layouts": ["sideways"]}, outcore.ParameterError, "sideways"),
    ],
)
def test_bad_input_raises_and_writes_nothing(tmp_path, source, kwargs, error, words):
    with pytest.raises(error, match=words):
        outcore.import_graph(source, tmp_path / "g.store", progress=False, **kwargs)
    assert leftovers(tmp_path) == []


def test_bad_calls_raise_named_errors(grqc, tmp_path):
    g, _ = grqc
    with pytest.raises(outcore.StoreError, match="no such store"):
        outcore.open(tmp_path / "missing.store")
    with pytest.raises(outcore.ParameterError, match="root"):
        g.bfs(root=10**12, progress=False)
    with pytest.raises(outcore.ParameterError, match="takes no parameter 'rooot'"):
        g.bfs(rooot=1)
    with pytest.raises(outcore.ParameterError, match="engine"):
        g.bfs(engine="warp")
    with pytest.raises(outcore.BudgetError) as e:
        g.pagerank(memory="1M", progress=False)
    assert e.value.suggested_memory > 1 << 20
    r = g.pagerank(memory=e.value.suggested_memory, progress=False)
    assert r.report["budget_peak_bytes"] <= e.value.suggested_memory
    with pytest.raises(outcore.ExistsError):
        outcore.import_graph(REAL / "CA-GrQc.txt", g.path, progress=False)
    assert outcore.open(g.path).num_vertices == g.num_vertices


def test_runs_release_the_gil(grqc):
    g, _ = grqc
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    g.pagerank(iterations=300, progress=False)
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # the other thread ran throughout the call: a held GIL would leave one gap as long as the call
    gaps = np.diff([start, *during, end])
    assert len(during) > 5 and gaps.max() < 0.5 * (end - start), (len(during), gaps.max(), end - start)


INTERRUPTED = """
import sys, outcore
g = outcore.open(sys.argv[1])
print("started", flush=True)
try:
    g.pagerank(iterations=10**7, progress=False)
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
r = g.pagerank(iterations=3, progress=False, verify=True)
print("again", r.report["validation"]["passed"])
"""


def test_ctrl_c_stops_a_run_and_the_next_one_works(grqc):
    g, _ = grqc
    before = sorted(leftovers(g.path))
    p = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(g.path)],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # once the run has begun (a loaded machine may take seconds to start Python)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    assert out.split() == ["interrupted", "again", "True"], out
    assert sorted(leftovers(g.path)) == before


def test_type_stubs_name_every_algorithm_and_its_parameters():
    import ast
    import keyword

    stub = ast.parse((pathlib.Path(outcore.__file__).parent / "__init__.pyi").read_text())
    graph = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Graph")
    methods = {f.name: f for f in graph.body if isinstance(f, ast.FunctionDef)}
    for spec in outcore.algorithms():
        assert spec["name"] in methods, spec["name"]
        f = methods[spec["name"]]
        positional = [a.arg for a in f.args.args[1:]]
        assert positional == [p["name"] + ("_" if keyword.iskeyword(p["name"]) else "") for p in spec["params"]], spec["name"]


def test_networkx_dispatches_to_a_store_without_converting(grqc, monkeypatch):
    import outcore.nx as onx

    g, G = grqc
    OG = onx.open(g.path)
    assert OG.__networkx_backend__ == "outcore" and not OG.is_directed() and len(OG) == G.number_of_nodes()
    converted = []
    monkeypatch.setattr(onx.BackendInterface, "convert_from_nx", staticmethod(lambda *a, **k: converted.append(a)))
    pr = nx.pagerank(OG)
    theirs = nx.pagerank(G)
    assert max(abs(pr[v] - theirs[v]) for v in G) < 1e-9
    assert nx.number_connected_components(OG) == nx.number_connected_components(G)
    root = next(iter(G))
    assert nx.single_source_shortest_path_length(OG, root) == nx.single_source_shortest_path_length(G, root)
    assert converted == []
    assert nx.node_connected_component(OG, root) == nx.node_connected_component(G, root)
    for H in (G, OG):
        with pytest.raises(KeyError):
            nx.node_connected_component(H, -5)


def test_readme_python_session_runs_as_written(tmp_path, monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Python\n") :]
    block = section[section.index("```python\n") + len("```python\n") :]
    block = block[: block.index("```")]
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED)
    monkeypatch.chdir(work)
    exec(compile(block, "README.md (Python)", "exec"), {})
    out = capsys.readouterr().out
    assert "7115 vertices, 103689 directed edges" in out
    assert out.rstrip().splitlines()[-1] == str(nx.number_weakly_connected_components(
        nx.read_edgelist(REAL / "wiki-Vote.txt", nodetype=int, create_using=nx.DiGraph)))


def test_degrees_and_their_plots_equal_networkx(wiki, grqc):
    import matplotlib

    matplotlib.use("Agg")
    g, G = wiki
    d = g.degrees(top=3)

    def buckets(degrees):
        h = {}
        for x in degrees:
            if x > 0:
                k = 1 << (x.bit_length() - 1)
                h[k] = h.get(k, 0) + 1
        return sorted(h.items())

    for name, degrees in (("out", [x for _, x in G.out_degree()]), ("in", [x for _, x in G.in_degree()])):
        stats = d[name]
        drawn = [(1 << k, c) for k, c in enumerate(stats["histogram"]) if c > 0]
        assert drawn == buckets(degrees), name
        assert stats["max"] == max(degrees) and stats["zero"] == degrees.count(0)
        assert [x for _, x in stats["top"]] == sorted(degrees, reverse=True)[:3]
    ax = g.plot_degrees()
    lines = {line.get_label(): [tuple(p) for p in line.get_xydata().tolist()] for line in ax.get_lines()}
    assert lines["out-degree"] == [(float(k), float(c)) for k, c in buckets([x for _, x in G.out_degree()])]
    assert lines["in-degree"] == [(float(k), float(c)) for k, c in buckets([x for _, x in G.in_degree()])]
    u, _ = grqc
    r = u.pagerank(engine="sortreduce", iterations=4, progress=False)
    series = r.series()
    assert len(series) > 0 and all(len(v) == 4 for v in series.values())
    axes = r.plot()
    assert [list(a.get_lines()[0].get_ydata()) for a in axes] == [list(map(float, v)) for v in series.values()]


def test_networkx_runs_what_outcore_lacks_on_the_graph_read_back(grqc, tmp_path):
    import outcore.nx as onx

    g, G = grqc
    OG = onx.open(g.path)
    # transitivity is not an outcore function: networkx converts the store to its own graph
    with pytest.raises(NotImplementedError):
        nx.transitivity(OG)
    assert nx.transitivity(OG, backend="networkx") == pytest.approx(nx.transitivity(G), abs=1e-12)
    H = OG.to_networkx()
    assert sorted(H.edges()) == sorted(tuple(sorted(e)) for e in G.edges()) or nx.utils.graphs_equal(H, G)
    assert outcore.export(g.path, tmp_path / "g.el", progress=False) == G.number_of_edges()
    W = nx.DiGraph()
    W.add_weighted_edges_from([("a", "b", 2), ("b", "c", 3), ("a", "c", 7)])
    W.add_node("lonely")
    back = onx.BackendInterface.convert_from_nx(W, edge_attrs={"weight": 1}).to_networkx()
    assert nx.utils.graphs_equal(back, W) and back["a"]["c"]["weight"] == 7 and isinstance(back["a"]["c"]["weight"], int)


def test_triangles_clustering_and_cores_on_a_store_equal_networkx(grqc):
    import outcore.nx as onx

    g, G = grqc
    OG = onx.open(g.path)
    assert nx.triangles(OG) == nx.triangles(G)
    ours, theirs = nx.clustering(OG), nx.clustering(G)
    assert ours.keys() == theirs.keys() and max(abs(ours[v] - theirs[v]) for v in G) < 1e-12
    assert nx.average_clustering(OG) == pytest.approx(nx.average_clustering(G), abs=1e-12)
    # networkx refuses self loops in core_number; outcore leaves them out, as it does for triangles
    loopless = G.copy()
    loopless.remove_edges_from(nx.selfloop_edges(G))
    assert nx.number_of_selfloops(G) > 0 and nx.core_number(OG) == nx.core_number(loopless)
    hub = max(G.degree, key=lambda x: x[1])[0]
    assert nx.triangles(OG, hub) == nx.triangles(G, hub) > 0
    # the library's own results, with the report
    r = g.lcc(part_entries=1000)
    assert r.report["parts"] > 1 and r.report["triangles_total"] == sum(nx.triangles(G).values()) // 3
    assert r["lcc"].shape == (len(G),)


def test_strongly_connected_components_on_a_store_equal_networkx(tmp_path):
    import outcore.nx as onx

    src = REAL / "wiki-Vote.txt"
    outcore.import_graph(str(src), tmp_path / "w.store", directed=True, progress=False)
    W = nx.read_edgelist(src, create_using=nx.DiGraph, nodetype=int)
    OW = onx.open(tmp_path / "w.store")
    ours = sorted(sorted(c) for c in nx.strongly_connected_components(OW))
    assert ours == sorted(sorted(c) for c in nx.strongly_connected_components(W))
    assert nx.number_strongly_connected_components(OW) == nx.number_strongly_connected_components(W) > 1
    assert nx.is_strongly_connected(OW) is False
    r = outcore.open(tmp_path / "w.store").scc(in_memory_arcs=0)
    assert r.report["colouring_rounds"] > 0 and r.report["components"] == len(ours)


def test_networkx_pagerank_limits_as_networkx(grqc):
    import outcore.nx as onx

    g, G = grqc
    OG = onx.open(g.path)
    for kwargs in ({"max_iter": 3, "tol": 0}, {"max_iter": 0}, {"max_iter": 2, "tol": 1e-12}):
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.pagerank(G, **kwargs)
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.pagerank(OG, **kwargs)
    ours, theirs = nx.pagerank(OG, alpha=0.7, tol=1e-9), nx.pagerank(G, alpha=0.7, tol=1e-9)
    assert max(abs(ours[v] - theirs[v]) for v in G) < 1e-10


def test_betweenness_subset_equals_networkx(tmp_path):
    for directed in (False, True):
        G = nx.gnm_random_graph(120, 400, seed=5, directed=directed)
        sources, targets = [3, 7, 7, 40, 99], [1, 7, 50, 60, 61, 118]
        for normalized in (False, True):
            ours = nx.betweenness_centrality_subset(G, sources, targets, normalized=normalized, backend="outcore")
            theirs = nx.betweenness_centrality_subset(G, sources, targets, normalized=normalized)
            assert max(abs(ours[v] - theirs[v]) for v in G) < 1e-12
        # and through the API: the targets as a parameter of bc
        src, dst = (np.array(x) for x in zip(*G.edges()))
        path = tmp_path / f"bc-{directed}.store"
        outcore.import_graph((src, dst), path, directed=directed, num_vertices=120, progress=False)
        g = outcore.open(path)
        r = g.bc(source=sources, target=targets, progress=False)
        # both halve an undirected graph's sums
        theirs = nx.betweenness_centrality_subset(G, sources, targets, normalized=False)
        ours = as_dict(g, r.centrality)
        assert max(abs(ours[v] - theirs[v]) for v in G) < 1e-9


def test_an_ordered_import_gives_the_same_results_in_original_ids(grqc, tmp_path):
    g, G = grqc
    outcore.import_graph(REAL / "CA-GrQc.txt", tmp_path / "o.store", directed=False, order="degree", encoding="gapref", progress=False)
    o = outcore.open(tmp_path / "o.store")
    assert o.info()["provenance"]["order"] == "degree"
    assert as_dict(o, o.wcc(progress=False).component).keys() == as_dict(g, g.wcc(progress=False).component).keys()
    a, b = as_dict(o, o.pagerank(progress=False).rank), as_dict(g, g.pagerank(progress=False).rank)
    assert max(abs(a[v] - b[v]) for v in a) < 1e-12
    with pytest.raises(outcore.ParameterError, match="order"):
        outcore.import_graph(REAL / "CA-GrQc.txt", tmp_path / "x.store", order="sideways", progress=False)
    assert not (tmp_path / "x.store").exists()


def test_als_on_ratings_matches_numpy(tmp_path):
    """Graph.als on a bipartite store: factors as an (n, rank) array in
    vertices() order (users, then items at 2**62 + id); each item's factors
    solve its regularised least squares given the users' (numpy), and the
    RMSE reported is numpy's over the ratings."""
    rng = np.random.default_rng(3)
    users, items, rank = 50, 30, 3
    pairs = {(int(u), int(i)) for u, i in zip(rng.integers(0, users, 600), rng.integers(0, items, 600))}
    src = np.array([u for u, _ in sorted(pairs)], dtype=np.int64)
    dst = np.array([i for _, i in sorted(pairs)], dtype=np.int64)
    rating = rng.random((users, rank)) @ rng.random((items, rank)).T
    weight = np.array([rating[u, i] for u, i in sorted(pairs)], dtype=np.float32)
    store = tmp_path / "ratings.store"
    outcore.import_graph((src, dst, weight), store, bipartite=True, progress=False)
    g = outcore.open(store)
    ids = g.vertices()
    first_item = int(np.searchsorted(ids, 2**62))
    assert list(ids[:first_item]) == sorted({u for u, _ in pairs})
    assert list(ids[first_item:] - 2**62) == sorted({i for _, i in pairs})
    for engine in ("traverse", "interval"):
        r = g.als(rank, 0.1, 5, engine=engine, verify=True, progress=False)
        x = r["factors"]
        assert x.shape == (len(ids), rank) and x.dtype == np.float32
        assert r.report["engine"] == engine and r.report["validation"]["passed"]
        position = {int(v): k for k, v in enumerate(ids)}
        squared = 0.0
        for i in range(first_item, len(ids)):
            raters = [(position[u], rating[u, int(ids[i]) - 2**62]) for u, it in pairs if it == int(ids[i]) - 2**62]
            y = x[[k for k, _ in raters]].astype(np.float64)
            r_i = np.array([np.float32(w) for _, w in raters], dtype=np.float64)
            fit = np.linalg.solve(y.T @ y + 0.1 * len(raters) * np.eye(rank), y.T @ r_i)
            assert np.allclose(x[i], fit, rtol=1e-3, atol=1e-4), (i, x[i], fit)
            squared += float(np.sum((r_i - y @ x[i].astype(np.float64)) ** 2))
        assert abs(r.report["rmse"] - (squared / len(pairs)) ** 0.5) < 1e-5
    plain = tmp_path / "plain.store"
    outcore.import_graph((src, dst), plain, progress=False)
    with pytest.raises(outcore.LayoutError, match="bipartite"):
        outcore.open(plain).als()
