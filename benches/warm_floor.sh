#!/usr/bin/env bash
# Cold against the parse floor (issues 19 and 21): per repository, ROUNDS rounds (default 5),
# each one `mapscope bench DIR --parse-floor --runs 1 --json` (the floor: CPU of reading the
# code files, compiling the tags queries of the languages present, and parsing and tagging
# every file; divided by the rayon threads for the wall-time floor) followed at once by a cold
# `map --no-cache` (wall and CPU). Ratios are taken round by round and their median printed:
# this machine's speed drifts by a quarter from minute to minute (a shared host), so a floor
# and a map are only comparable when measured back to back. The map is timed to the
# microsecond by benches/timed.py (`/usr/bin/time`'s hundredths moved javapoet's ratio from
# 1.07x to 1.28x by rounding alone). benches/floor_profile.sh (the split within one run,
# from a CPU profile) and benches/floor_instructions.sh (the same split in instructions, under
# valgrind) do not depend on the drift; this one measures the floor in a process of its own
# (isolated, not in the map's run), which BENCHMARKS.md compares with the profile's.
# Two more columns break the ratio down, beside it and not instead of it: the floor with the
# bench process's first (cold) parse-and-tags pass (`first_pass_floor_ms`: fresh heaps and
# parser code run for the first time, as in a cold map), and that plus the binary's own start
# and exit (`--version`, timed right after the map), which no run of a CLI avoids.
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm REPOS="vite mypy" benches/warm_floor.sh
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
REPOS=${REPOS:-"vite mypy prometheus terraform"}
ROUNDS=${ROUNDS:-5}
B=$B BENCH=$BENCH REPOS=$REPOS ROUNDS=$ROUNDS BENCHES=$(dirname "$0") python3 - <<'P'
import json, os, statistics as st, subprocess, sys
e = os.environ
sys.path.insert(0, e["BENCHES"])
from timed import measure
B, N = e["B"], int(e["ROUNDS"])
print(f"| repo | files | floor CPU ms (read + query compile + parse and tags), median | floor ms (÷ threads) | cold map wall ms | cold map CPU ms | wall ÷ floor, median of {N} rounds (interquartile range) | CPU ÷ floor CPU, median | wall ÷ first-pass floor, median | process start and exit ms (`--version`), median | wall ÷ (first-pass floor + start), median |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for r in e["REPOS"].split():
    d = os.path.join(e["BENCH"], r)
    rounds, starts = [], []
    for _ in range(N):
        out = subprocess.run([B, "bench", d, "--parse-floor", "--runs", "1", "--json"],
                             capture_output=True, text=True, check=True).stdout
        f = json.loads(out)
        wall, cpu, _, _ = measure([B, "map", d, "--tokens", "4096", "--no-cache"])
        start = measure([B, "--version"])[0]
        rounds.append((f, wall * 1000, cpu * 1000))
        starts.append(start * 1000)
    med = st.median
    fcpu = med(f["floor_cpu_ms"] for f, _, _ in rounds)
    parts = " + ".join(f"{med(f[k] for f, _, _ in rounds):.1f}" for k in ("read_cpu_ms", "query_compile_cpu_ms", "tags_cpu_ms"))
    floor = med(f["floor_ms"] for f, _, _ in rounds)
    wall = med(w for _, w, _ in rounds)
    cpu = med(c for _, _, c in rounds)
    ratios = [w / f["floor_ms"] for f, w, _ in rounds]
    q = st.quantiles(ratios, n=4) if N > 1 else [ratios[0]] * 3
    cr = med(c / f["floor_cpu_ms"] for f, _, c in rounds)
    files = rounds[0][0]["files"]
    first = med(w / f["first_pass_floor_ms"] for f, w, _ in rounds)
    with_start = med(w / (f["first_pass_floor_ms"] + s) for (f, w, _), s in zip(rounds, starts))
    print(f"| {r} | {files} | {fcpu:.1f} ({parts}) | {floor:.1f} | {wall:.1f} | {cpu:.1f} | {med(ratios):.3f}× ({q[0]:.3f}–{q[2]:.3f}) | {cr:.3f}× | {first:.3f}× | {med(starts):.2f} | {with_start:.3f}× |")
P
