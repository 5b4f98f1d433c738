#!/usr/bin/env bash
# Cold against the parse floor (issues 19 and 21): per repository, the floor from
# `mapscope bench DIR --parse-floor --json` (CPU of reading the code files, compiling the tags
# queries of the languages present, and parsing and tagging every file, median of 3; divided
# by the rayon threads for the wall-time floor) beside a cold `map --no-cache` (wall and CPU,
# median of 3). Wall times on a shared machine measure its load too; CPU times much less.
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm REPOS="vite mypy" benches/warm_floor.sh
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
OUT=${OUT:-/tmp/mapscope-floor}; mkdir -p "$OUT"
REPOS=${REPOS:-"vite mypy prometheus terraform"}
for r in $REPOS; do
  "$B" bench "$BENCH/$r" --parse-floor --runs 3 --json > "$OUT/$r-floor.json" 2>/dev/null
  for i in 1 2 3; do
    /usr/bin/time -f "%e %U %S" -o "$OUT/$r-cold-$i.time" "$B" map "$BENCH/$r" --tokens 4096 --no-cache > /dev/null 2>&1
  done
done
OUT=$OUT REPOS=$REPOS python3 - <<'P'
import json, os, statistics as st
O = os.environ["OUT"]
print("| repo | files | floor CPU s (read + query compile + parse and tags) | floor s (÷ threads) | cold map wall s | wall ÷ floor | cold map CPU s | CPU ÷ floor CPU |")
print("|---|---|---|---|---|---|---|---|")
for r in os.environ["REPOS"].split():
    f = json.load(open(f"{O}/{r}-floor.json"))
    cpu_floor = f["floor_cpu_ms"] / 1000
    floor = f["floor_ms"] / 1000
    parts = f"{f['read_cpu_ms']/1000:.2f} + {f['query_compile_cpu_ms']/1000:.2f} + {f['tags_cpu_ms']/1000:.2f}"
    cold = [list(map(float, open(f"{O}/{r}-cold-{i}.time").read().split())) for i in (1, 2, 3)]
    wall = st.median(c[0] for c in cold)
    cpu = st.median(c[1] + c[2] for c in cold)
    print(f"| {r} | {f['files']} | {cpu_floor:.2f} ({parts}) | {floor:.2f} | {wall:.2f} | {wall/floor:.2f}× | {cpu:.2f} | {cpu/cpu_floor:.2f}× |")
P
