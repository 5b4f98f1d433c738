#!/usr/bin/env python3
"""usage: warm_search_paired.py ROUNDS BIN_A,BIN_B TREE...

Paired, alternating warm map / warm search timings of several binaries (each with its
own cache dir, warmed first). Per round, each binary runs map then search, binaries in
alternating order. Medians of wall and CPU; ratio search/map per binary."""
import os, statistics, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timed import measure
rounds = int(sys.argv[1]); bins = sys.argv[2].split(","); trees = sys.argv[3:]
Q = "parse config"
env0 = dict(os.environ); env0["MAPSCOPE_NO_WARM"] = "1"
for tree in trees:
    caches = {b: tempfile.mkdtemp(prefix="lz-paired-") for b in bins}
    def run(b, args):
        os.environ.clear(); os.environ.update(env0); os.environ["MAPSCOPE_CACHE_DIR"] = caches[b]
        return measure([b] + args)
    for b in bins:
        run(b, ["map", tree, "--tokens", "4096"]); run(b, ["cache", "warm", tree])
        run(b, ["map", tree, "--tokens", "4096"]); run(b, ["search", tree, Q, "--json"])
    res = {b: {"map": [], "search": [], "mapc": [], "searchc": [], "ratio": []} for b in bins}
    for i in range(rounds):
        order = bins if i % 2 == 0 else bins[::-1]
        for b in order:
            m = run(b, ["map", tree, "--tokens", "4096"])
            s = run(b, ["search", tree, Q, "--json"])
            r = res[b]; r["map"].append(m[0]); r["search"].append(s[0]); r["mapc"].append(m[1]); r["searchc"].append(s[1]); r["ratio"].append(s[0]/m[0])
    for b in bins:
        r = res[b]; med = {k: statistics.median(v) for k, v in r.items()}
        print(f"{os.path.basename(tree)} {os.path.basename(b)}: map {med['map']*1000:.0f} ms (cpu {med['mapc']*1000:.0f}), search {med['search']*1000:.0f} ms (cpu {med['searchc']*1000:.0f}), search/map of medians {med['search']/med['map']:.2f}, median of paired ratios {med['ratio']:.2f}")
