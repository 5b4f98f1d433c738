#!/usr/bin/env bash
# The twelve shared datasets in two processes (six each), search and then the map, with
# history: per-dataset tables and JSON reports for a before/after comparison.
#
#   benches/eval_all.sh BIN OUTDIR        (MIRRORS=/work/.mirror SHARED=../shared/eval CACHE=/work/evalcache
#                                          LIMIT=40 for the first 40 commits, MODES=search|map)
set -u
B=$1; O=$2; mkdir -p "$O"
M=${MIRRORS:-/work/.mirror}; S=${SHARED:-$(dirname "$0")/../../shared/eval}; C=${CACHE:-/work/evalcache}
args() {
  for pair in "$@"; do
    d=${pair%%:*}; g=${pair##*:}
    printf -- '--dataset %s --git-dir %s --blob-cache %s ' "$S/$d.jsonl" "$M/$g/repo" "$C/$g"
  done
}
A=(vitejs__vite:vitejs+vite pytest-dev__pytest:pytest-dev+pytest prometheus__prometheus:prometheus+prometheus \
   fastify__fastify:fastify+fastify python__mypy:python+mypy hashicorp__terraform:hashicorp+terraform)
Z=(gin-gonic__gin:gin-gonic+gin expressjs__express:expressjs+express vuejs__core:vuejs+core \
   encode__httpx:encode+httpx jhy__jsoup:jhy+jsoup jekyll__jekyll:jekyll+jekyll)
for mode in ${MODES:-search map}; do
  extra=""; [ "$mode" = map ] && extra="--map"
  [ -n "${LIMIT:-}" ] && extra="$extra --limit $LIMIT"
  $B eval $(args "${A[@]}") $extra --report "$O/$mode-a.json" > "$O/$mode-a.txt" 2>&1 &
  $B eval $(args "${Z[@]}") $extra --report "$O/$mode-z.json" > "$O/$mode-z.txt" 2>&1 &
  wait
done
