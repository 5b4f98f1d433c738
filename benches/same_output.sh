#!/usr/bin/env bash
# Writes what two binaries answer, to compare with md5sum (issue 19: caches change no output).
# Per repository, three passes (the first fills the cache): map text and JSON, map with a
# query, search --json and --files --json for three questions, JSON with every `*_ms`
# (timing) field removed.
#
#   benches/same_output.sh BIN OUTDIR CACHEDIR; then: (cd OUTDIR && md5sum *) for each binary
set -u
B=$1; O=$2; export MAPSCOPE_CACHE_DIR=$3; mkdir -p "$O"
BENCH=${BENCH:-/work/bench-warm}
strip() { python3 -c "
import json,sys
def clean(x):
    if isinstance(x,dict): return {k:clean(v) for k,v in x.items() if not k.endswith('_ms')}
    if isinstance(x,list): return [clean(v) for v in x]
    return x
print(json.dumps(clean(json.load(sys.stdin)),sort_keys=True))"; }
for r in ${REPOS:-vite mypy prometheus}; do
  for pass in 1 2 3; do
    "$B" map "$BENCH/$r" --tokens 4096 > "$O/$r-map-$pass.txt" 2>/dev/null
    "$B" map "$BENCH/$r" --tokens 4096 --format json > "$O/$r-mapjson-$pass.json" 2>/dev/null
    "$B" map "$BENCH/$r" --tokens 2048 --query "parse the config file" > "$O/$r-mapq-$pass.txt" 2>/dev/null
    for q in "parse config" "watch file changes" "error handling retry"; do
      "$B" search "$BENCH/$r" "$q" --json 2>/dev/null | strip > "$O/$r-search-${q// /_}-$pass.json"
      "$B" search "$BENCH/$r" "$q" --files --json 2>/dev/null | strip > "$O/$r-searchf-${q// /_}-$pass.json"
    done
  done
done
