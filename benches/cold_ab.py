#!/usr/bin/env python3
"""Cold maps of two mapscope binaries, A and B, in interleaved pairs (A B, then B A, ...).

    benches/cold_ab.py BIN_A BIN_B [--pairs N] [--tokens T] DIR...

Each run is `BIN map DIR --tokens T --no-cache`, output discarded; wall from the clock, CPU
(user + system) and peak RSS from the child's rusage. Prints, per tree, each binary's median
and the median of the per-pair ratios B / A: on a shared host the speed drifts from minute to
minute, and a ratio within a pair shares the drift.

Before the runs both binaries are evicted from the page cache and read back the same way: how
a binary's pages sit in the page cache alone moved its peak RSS by up to 1.5 MB between two
copies of the same bytes (BENCHMARKS.md, "tree-sitter's big tables on huge pages").
"""
import argparse
import os
import statistics

from timed import measure


def reread(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def run(binary, tree, tokens):
    wall, cpu, rss, status = measure([binary, "map", tree, "--tokens", str(tokens), "--no-cache"])
    if status != 0:
        raise SystemExit(f"{binary} map {tree} failed (wait status {status})")
    return wall * 1e3, cpu * 1e3, rss


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("trees", nargs="+")
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--tokens", type=int, default=4096)
    args = p.parse_args()
    for binary in (args.a, args.b):
        reread(binary)
    print("| tree | pairs | wall A → B (ms) | pair median B/A | CPU A → B (ms) | CPU pair median | peak RSS A → B (MB) |")
    print("|---|---|---|---|---|---|---|")
    for tree in args.trees:
        a_runs, b_runs = [], []
        for i in range(args.pairs):
            order = [(args.a, a_runs), (args.b, b_runs)]
            for binary, runs in order if i % 2 == 0 else reversed(order):
                runs.append(run(binary, tree, args.tokens))
        med = lambda runs, k: statistics.median(r[k] for r in runs)
        pair = lambda k: statistics.median(b[k] / a[k] for a, b in zip(a_runs, b_runs))
        print(f"| {os.path.basename(os.path.normpath(tree))} | {args.pairs} "
              f"| {med(a_runs, 0):.1f} → {med(b_runs, 0):.1f} | {pair(0):.3f} "
              f"| {med(a_runs, 1):.1f} → {med(b_runs, 1):.1f} | {pair(1):.3f} "
              f"| {med(a_runs, 2):.1f} → {med(b_runs, 2):.1f} |")


if __name__ == "__main__":
    main()
