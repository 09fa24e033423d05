"""ALS-WR in numpy: the oracle of tests/als.rs.

Usage: numpy_als.py RATINGS RANK LAMBDA ITERATIONS SEED

RATINGS holds `user item rating` lines. Users in ascending id order come
first, then items (outcore's dense order in a bipartite store); a pair
rated twice keeps its smallest rating (outcore's import). Initial factors
are outcore's: uniform in [0, 1) from SplitMix64 of (seed, vertex, factor).
Each iteration solves every user's, then every item's regularised normal
equations (lambda times the vertex's number of ratings on the diagonal)
with numpy.linalg.solve in float64, storing factors as float32.

Prints the training RMSE after each iteration on the first line, then
`u ID x1 ... xk` and `i ID x1 ... xk` lines in dense order.
"""
import sys

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def initial(seed, v, j):
    bits = splitmix64(splitmix64(seed ^ 0xA151A1) ^ ((v * 64 + j) & MASK))
    return np.float32((bits >> 11) * (1.0 / (1 << 53)))


def main():
    path, rank, lam, iterations, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    ratings = {}
    for line in open(path):
        if not line.strip():
            continue
        u, i, r = line.split()
        key = (int(u), int(i))
        r = float(np.float32(r))
        ratings[key] = min(r, ratings.get(key, r))
    users = sorted({u for u, _ in ratings})
    items = sorted({i for _, i in ratings})
    user_index = {u: k for k, u in enumerate(users)}
    item_index = {i: len(users) + k for k, i in enumerate(items)}
    n = len(users) + len(items)
    neighbours = [[] for _ in range(n)]
    for (u, i), r in ratings.items():
        a, b = user_index[u], item_index[i]
        neighbours[a].append((b, r))
        neighbours[b].append((a, r))
    x = np.array([[initial(seed, v, j) for j in range(rank)] for v in range(n)], dtype=np.float32)
    rmse = []
    for _ in range(iterations):
        for side in (range(len(users)), range(len(users), n)):
            for v in side:
                if not neighbours[v]:
                    continue
                ids = np.array([u for u, _ in neighbours[v]])
                r = np.array([r for _, r in neighbours[v]], dtype=np.float64)
                y = x[ids].astype(np.float64)
                a = y.T @ y + lam * len(ids) * np.eye(rank)
                x[v] = np.linalg.solve(a, y.T @ r).astype(np.float32)
        squared = 0.0
        for (u, i), r in ratings.items():
            p = float(np.dot(x[user_index[u]].astype(np.float64), x[item_index[i]].astype(np.float64)))
            squared += (r - p) ** 2
        rmse.append((squared / len(ratings)) ** 0.5)
    print(" ".join(repr(e) for e in rmse))
    for k, u in enumerate(users):
        print("u", u, " ".join(repr(float(f)) for f in x[k]))
    for k, i in enumerate(items):
        print("i", i, " ".join(repr(float(f)) for f in x[len(users) + k]))


main()
