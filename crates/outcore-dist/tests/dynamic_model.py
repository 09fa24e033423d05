"""A plain Python model of the dynamic store's semantics, the second
oracle of the distributed store's tests (tests/mpi.rs).

    python3 dynamic_model.py [--undirected] [--multigraph] [--weighted] FILE...

Applies the text update streams in order (README, `outcore dynamic`):
`+ u v [w]` inserts an edge (a multigraph counts copies and keeps the last
weight; otherwise a present edge is left as it is), `- u v` deletes one
copy, `+ u` inserts a vertex, `- u` deletes a vertex with every edge at
it, `= u x` sets a property. Undirected stores hold both arcs. Prints
`e u v weight-bits count` per arc and `p u x` per property, sorted.
"""
import struct
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
flags = {a for a in sys.argv[1:] if a.startswith("--")}
undirected, multigraph, weighted = "--undirected" in flags, "--multigraph" in flags, "--weighted" in flags

adj = {}    # u -> {v: [count, weight]}
props = {}  # u -> x


def arc(u, v, insert, w):
    out = adj.setdefault(u, {})
    if insert:
        if v in out:
            if multigraph:
                out[v][0] += 1
                out[v][1] = w
        else:
            out[v] = [1, w]
    elif v in out:
        if out[v][0] > 1:
            out[v][0] -= 1
        else:
            del out[v]


for path in args:
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0][0] in "#%":
                continue
            op = t[0]
            ids = [int(x) if i < 2 or op == "=" else float(x) for i, x in enumerate(t[1:])]
            if op == "+" and len(ids) >= 2:
                u, v = ids[0], ids[1]
                w = ids[2] if len(ids) == 3 and weighted else 1.0
                arc(u, v, True, w)
                if undirected and u != v:
                    arc(v, u, True, w)
            elif op == "-" and len(ids) == 2:
                arc(ids[0], ids[1], False, 0.0)
                if undirected and ids[0] != ids[1]:
                    arc(ids[1], ids[0], False, 0.0)
            elif op == "+":
                adj.setdefault(ids[0], {})
            elif op == "-":
                u = ids[0]
                adj.pop(u, None)
                props.pop(u, None)
                for out in adj.values():
                    out.pop(u, None)
            elif op == "=":
                props[ids[0]] = ids[1]
            else:
                sys.exit(f"{path}: cannot read {line!r}")

bits = lambda w: struct.unpack("<I", struct.pack("<f", w))[0]
for u in sorted(adj):
    for v in sorted(adj[u]):
        c, w = adj[u][v]
        print(f"e {u} {v} {bits(w)} {c}")
for u in sorted(props):
    print(f"p {u} {props[u]}")
