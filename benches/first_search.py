#!/usr/bin/env python3
"""The first search after a map against the second, and a warm search against a warm map
(issue 40's warm paths), as a user meets them: per round, the repository's cache is cleared,
a cold `map` runs (and leaves its background warm-up behind, unless the binary predates it),
`cache warm` waits for that warm-up to finish (a binary without `cache warm` skips it), then
a warm `map`, the first `search` and a second `search` are timed. Medians over the rounds.

    benches/first_search.py --mapscope target/release/mapscope --rounds 5 DIR...

Prints one line per tree: warm map, first search, second search (wall, s), first ÷ second
and second ÷ warm map, then the same in CPU (user + system, children included). The cache
lives in a scratch dir of its own.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timed import measure  # noqa: E402

QUERY = "parse config"


def run(cmd):
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapscope", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("trees", nargs="+")
    args = ap.parse_args()
    os.environ["MAPSCOPE_CACHE_DIR"] = tempfile.mkdtemp(prefix="mapscope-first-search-")
    os.environ.pop("MAPSCOPE_NO_WARM", None)
    b = args.mapscope
    for tree in args.trees:
        warm_map, first, second = [], [], []
        for _ in range(args.rounds):
            run([b, "cache", "clear", tree])
            run([b, "map", tree, "--tokens", "4096"])
            run([b, "cache", "warm", tree])
            warm_map.append(measure([b, "map", tree, "--tokens", "4096"])[:2])
            first.append(measure([b, "search", tree, QUERY, "--json"])[:2])
            second.append(measure([b, "search", tree, QUERY, "--json"])[:2])
        m, f, s = (statistics.median(x[0] for x in xs) for xs in (warm_map, first, second))
        mc, fc, sc = (statistics.median(x[1] for x in xs) for xs in (warm_map, first, second))
        print(f"{os.path.basename(tree.rstrip('/'))}: warm map {m:.3f} s, first search {f:.3f} s, "
              f"second search {s:.3f} s, first/second {f / s:.2f}, search/map {s / m:.2f}; "
              f"CPU {mc:.3f} / {fc:.3f} / {sc:.3f} s, first/second {fc / sc:.2f}, "
              f"search/map {sc / mc:.2f}")


if __name__ == "__main__":
    main()
