#!/usr/bin/env bash
# Writes what a binary answers, to compare two binaries with md5sum: a structural change
# keeps every output byte-identical (timings aside). Per repository, two passes (the first
# fills the cache, the second answers from it): map as text, markdown and JSON, with and
# without a query, with an identifier; explain; search --json and --files --json for three
# questions; stats --json. JSON has every `*_ms` field and stats' `times` removed.
#
#   benches/same_output.sh BIN OUTDIR CACHEDIR; then: diff <(cd OUT_A && md5sum *) <(cd OUT_B && md5sum *)
#   REPOS="vite mypy" TREES=/work/trees benches/same_output.sh …
set -u
B=$1; O=$2; export MAPSCOPE_CACHE_DIR=$3; mkdir -p "$O"
TREES=${TREES:-/work/trees}
rm -rf "$MAPSCOPE_CACHE_DIR"
strip() { python3 -c "
import json,sys
def clean(x):
    if isinstance(x,dict): return {k:clean(v) for k,v in x.items() if not k.endswith('_ms') and k!='times'}
    if isinstance(x,list): return [clean(v) for v in x]
    return x
try: print(json.dumps(clean(json.load(sys.stdin)),sort_keys=True))
except Exception as e: print('not json', e)"; }
for r in ${REPOS:-vite mypy prometheus}; do
  R="$TREES/$r"
  for pass in 1 2; do
    "$B" map "$R" --tokens 4096 > "$O/$r-map-$pass.txt" 2>/dev/null
    "$B" map "$R" --tokens 2048 --format markdown > "$O/$r-mapmd-$pass.md" 2>/dev/null
    "$B" map "$R" --tokens 4096 --format json | strip > "$O/$r-mapjson-$pass.json" 2>/dev/null
    "$B" map "$R" --tokens 2048 --query "parse the config file" > "$O/$r-mapq-$pass.txt" 2>/dev/null
    "$B" map "$R" --tokens 2048 --query "error handling retry" --format json 2>/dev/null | strip > "$O/$r-mapqjson-$pass.json"
    "$B" map "$R" --tokens 2048 --ident run --ident parse > "$O/$r-mapident-$pass.txt" 2>/dev/null
    "$B" map "$R" --tokens 1024 --explain > "$O/$r-explain-$pass.txt" 2>/dev/null
    for q in "parse config" "watch file changes" "error handling retry"; do
      "$B" search "$R" "$q" --json 2>/dev/null | strip > "$O/$r-search-${q// /_}-$pass.json"
      "$B" search "$R" "$q" --files --json 2>/dev/null | strip > "$O/$r-searchf-${q// /_}-$pass.json"
    done
    "$B" stats "$R" --json 2>/dev/null | strip > "$O/$r-stats-$pass.json"
  done
done
