#!/usr/bin/env bash
# Cold against the parse floor (issue 19): per repository, the parse phase's CPU on one
# thread (its share of a single-threaded `stats --no-cache` run's user+sys, best of 3) ÷ 2
# cores, beside a cold `map --no-cache` (wall and CPU, median of 3).
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm benches/warm_floor.sh
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
OUT=${OUT:-/tmp/mapscope-floor}; mkdir -p "$OUT"
REPOS=${REPOS:-"vite mypy prometheus terraform"}
for r in $REPOS; do
  for i in 1 2 3; do
    RAYON_NUM_THREADS=1 /usr/bin/time -f "%e %U %S" -o "$OUT/$r-1t-$i.time" "$B" stats "$BENCH/$r" --json --no-cache > "$OUT/$r-1t-$i.json" 2>/dev/null
    /usr/bin/time -f "%e %U %S" -o "$OUT/$r-cold-$i.time" "$B" map "$BENCH/$r" --tokens 4096 --no-cache > /dev/null 2>&1
  done
done
OUT=$OUT REPOS=$REPOS python3 - <<'P'
import json, os, statistics as st
O = os.environ["OUT"]
print("| repo | parse CPU s | floor s (÷ 2) | cold map wall s | wall ÷ floor | cold map CPU s | CPU ÷ parse CPU |")
print("|---|---|---|---|---|---|---|")
for r in os.environ["REPOS"].split():
    parse = []
    for i in (1, 2, 3):
        t = json.load(open(f"{O}/{r}-1t-{i}.json"))["times"]
        e, u, s = map(float, open(f"{O}/{r}-1t-{i}.time").read().split())
        parse.append((u + s) * t["parse_ms"] / (t["walk_ms"] + t["parse_ms"] + t["graph_ms"]))
    p = min(parse)
    cold = [list(map(float, open(f"{O}/{r}-cold-{i}.time").read().split())) for i in (1, 2, 3)]
    wall = st.median(c[0] for c in cold)
    cpu = st.median(c[1] + c[2] for c in cold)
    print(f"| {r} | {p:.2f} | {p/2:.2f} | {wall:.2f} | {wall/(p/2):.2f}x | {cpu:.2f} | {cpu/p:.2f}x |")
P
