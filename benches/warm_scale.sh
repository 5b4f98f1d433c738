#!/usr/bin/env bash
# The scale curve of issue 19: cold and warm `mapscope map` (wall, CPU, peak RSS) and the
# phases, on N copies of one tree.
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm benches/warm_scale.sh
#
# Expects $BENCH/scale/x1, x4, x16 (N copies of vite's tree each, e.g.
#   for i in $(seq 1 N); do mkdir -p xN/c$i && git -C VITE_MIRROR archive HEAD | tar -x -C xN/c$i; done).
# Per N: 3 cold runs (--no-cache), 1 untimed run filling a scratch cache, 3 warm runs, then
# `bench --runs 1` (cold phases), `stats --json` (warm phases) and a single-threaded
# `stats --json --no-cache`. Raw output in $OUT (default /tmp/mapscope-scale).
# DIRS="NAME=PATH ..." measures other trees instead (e.g. DIRS="moby=/tmp/moby").
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
OUT=${OUT:-/tmp/mapscope-scale}; mkdir -p "$OUT"
DIRS=${DIRS:-"1=$BENCH/scale/x1 4=$BENCH/scale/x4 16=$BENCH/scale/x16"}
for entry in $DIRS; do
  n=${entry%%=*}
  d=${entry#*=}
  [ -d "$d" ] || { echo "no $d" >&2; continue; }
  export MAPSCOPE_CACHE_DIR=$OUT/cache-x$n; rm -rf "$MAPSCOPE_CACHE_DIR"
  for _ in 1 2 3; do /usr/bin/time -f "x$n cold %e s u%U s%S rss %M KB" "$B" map "$d" --tokens 4096 --no-cache > /dev/null 2>> "$OUT/x$n.time"; done
  "$B" map "$d" --tokens 4096 > /dev/null 2>&1
  for _ in 1 2 3; do /usr/bin/time -f "x$n warm %e s u%U s%S rss %M KB" "$B" map "$d" --tokens 4096 > /dev/null 2>> "$OUT/x$n.time"; done
  "$B" bench "$d" --runs 1 --tokens 4096 > "$OUT/x$n-bench.txt" 2>&1
  "$B" stats "$d" --json > "$OUT/x$n-stats-warm.json" 2>/dev/null
  RAYON_NUM_THREADS=1 "$B" stats "$d" --json --no-cache > "$OUT/x$n-stats-1thread.json" 2>/dev/null
  rm -rf "$MAPSCOPE_CACHE_DIR"
done
for entry in $DIRS; do n=${entry%%=*}; cat "$OUT/x$n.time"; grep -h "median ms" "$OUT/x$n-bench.txt"; done
