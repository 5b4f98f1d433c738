#!/usr/bin/env bash
# Warm `search` against warm `map` on the same cache (issue 19): 11 interleaved runs each,
# medians and their ratio.
#
#   MAPSCOPE=target/release/mapscope BENCH=/work/bench-warm REPOS="vite mypy" benches/warm_search_vs_map.sh
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
BENCH=${BENCH:-/work/bench-warm}
export MAPSCOPE_CACHE_DIR=${MAPSCOPE_CACHE_DIR:-/tmp/mapscope-svm-cache}
T=$(mktemp)
for r in ${REPOS:-vite mypy}; do
  "$B" map "$BENCH/$r" --tokens 4096 >/dev/null 2>&1; "$B" search "$BENCH/$r" "parse config" --json >/dev/null 2>&1
  m=(); s=()
  for _ in $(seq 1 11); do
    /usr/bin/time -f "%e" -o "$T" "$B" map "$BENCH/$r" --tokens 4096 --format json >/dev/null 2>&1; m+=("$(cat "$T")")
    /usr/bin/time -f "%e" -o "$T" "$B" search "$BENCH/$r" "parse config" --json >/dev/null 2>&1; s+=("$(cat "$T")")
  done
  python3 -c "
import statistics as st
m=[float(x) for x in '${m[*]}'.split()]; s=[float(x) for x in '${s[*]}'.split()]
print('$r: warm map median %.3f s, warm search median %.3f s, search/map %.2f' % (st.median(m), st.median(s), st.median(s)/st.median(m)))"
done
rm -f "$T"
