#!/usr/bin/env bash
# Cold against the parse floor (issues 19 and 21): per repository, ROUNDS rounds (default 5),
# each one `mapscope bench DIR --parse-floor --runs 1 --json` (the floor: CPU of reading the
# code files, compiling the tags queries of the languages present, and parsing and tagging
# every file; divided by the rayon threads for the wall-time floor) followed at once by a cold
# `map --no-cache` (wall and CPU). Ratios are taken round by round and their median printed:
# this machine's speed drifts by a quarter from minute to minute (a shared host), so a floor
# and a map are only comparable when measured back to back. Even so the ratio moves by ±0.3
# between runs; benches/floor_profile.sh (the split within one run, from a CPU profile) and
# benches/floor_instructions.sh (the same split in instructions, under valgrind) do not.
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm REPOS="vite mypy" benches/warm_floor.sh
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
OUT=${OUT:-/tmp/mapscope-floor}; mkdir -p "$OUT"
REPOS=${REPOS:-"vite mypy prometheus terraform"}
ROUNDS=${ROUNDS:-5}
for r in $REPOS; do
  for i in $(seq 1 "$ROUNDS"); do
    "$B" bench "$BENCH/$r" --parse-floor --runs 1 --json > "$OUT/$r-floor-$i.json" 2>/dev/null
    /usr/bin/time -f "%e %U %S" -o "$OUT/$r-cold-$i.time" "$B" map "$BENCH/$r" --tokens 4096 --no-cache > /dev/null 2>&1
  done
done
OUT=$OUT REPOS=$REPOS ROUNDS=$ROUNDS python3 - <<'P'
import json, os, statistics as st
O = os.environ["OUT"]; N = int(os.environ["ROUNDS"])
print(f"| repo | files | floor CPU s (read + query compile + parse and tags), median | floor s (÷ threads) | cold map wall s | cold map CPU s | wall ÷ floor (median of {N} rounds) | CPU ÷ floor CPU (median of {N} rounds) |")
print("|---|---|---|---|---|---|---|---|")
for r in os.environ["REPOS"].split():
    rounds = []
    for i in range(1, N + 1):
        f = json.load(open(f"{O}/{r}-floor-{i}.json"))
        wall, u, s = map(float, open(f"{O}/{r}-cold-{i}.time").read().split())
        rounds.append((f, wall, u + s))
    med = lambda xs: st.median(xs)
    fcpu = med(f["floor_cpu_ms"] / 1000 for f, _, _ in rounds)
    parts = " + ".join(f"{med(f[k] / 1000 for f, _, _ in rounds):.2f}" for k in ("read_cpu_ms", "query_compile_cpu_ms", "tags_cpu_ms"))
    floor = med(f["floor_ms"] / 1000 for f, _, _ in rounds)
    wall = med(w for _, w, _ in rounds)
    cpu = med(c for _, _, c in rounds)
    wr = med(w / (f["floor_ms"] / 1000) for f, w, _ in rounds)
    cr = med(c / (f["floor_cpu_ms"] / 1000) for f, _, c in rounds)
    files = rounds[0][0]["files"]
    print(f"| {r} | {files} | {fcpu:.2f} ({parts}) | {floor:.2f} | {wall:.2f} | {cpu:.2f} | {wr:.2f}× | {cr:.2f}× |")
P
