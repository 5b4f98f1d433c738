#!/usr/bin/env bash
# languages.sh — per-language measurement of mapscope's map (issue 21): cold and warm time and
# peak RSS, the parse floors (tree-sitter alone; parse + tags CPU / cores), aider's cold map
# beside it, and the share of the map's tokens spent on tests, fixtures, examples and vendored
# code.
#
#   MAPSCOPE=target/release/mapscope benches/languages.sh [--runs N] [--no-aider] LANG=DIR ...
#
# Each DIR must be a git work tree (aider maps `git ls-files`). Per repository:
#   1. "$MAPSCOPE" bench DIR --parse-floor --runs N --json   (parse-only median wall; the
#      floor's CPU: reading the files, compiling the tags queries, parsing and tagging; what
#      "cold within 1.2× of the floor" is measured against: the cold map's CPU over it, since
#      wall times on a shared machine measure the load)
#   2. "$MAPSCOPE" map DIR --tokens $TOKENS --format json --no-cache, N runs, each timed to
#      the microsecond (wall from the clock, CPU and peak RSS from the child's rusage; the
#      `/usr/bin/time` this used printed hundredths, which on a 10 ms map was all rounding):
#      median wall s, max RSS (cold)
#   3. the same with a cache dir of its own, filled by one untimed run first (warm)
#   4. aider's map (../shared/anchors/aider_map.py --cold), one timed run (unless --no-aider)
#   5. the share of the map's tokens in supporting paths (test/tests/spec/fixtures/testdata/
#      examples/vendor/third_party folders and test file names), from the JSON map
# Prints a markdown table; raw output in $OUT (default a temp dir).
#
# Env: TOKENS (4096), ANCHORS (/work/anchors), ANCHOR_PY (/work/shared/anchors/aider_map.py).
set -u
TOKENS=${TOKENS:-4096}
RUNS=3
AIDER=1
ANCHORS=${ANCHORS:-/work/anchors}
ANCHOR_PY=${ANCHOR_PY:-/work/shared/anchors/aider_map.py}
PY=$ANCHORS/aider-venv/bin/python
MAPSCOPE=${MAPSCOPE:-target/release/mapscope}
REPOS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    --no-aider) AIDER=0; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *=*) REPOS+=("$1"); shift ;;
    *) echo "languages.sh: expected LANG=DIR, got $1" >&2; exit 2 ;;
  esac
done
[ ${#REPOS[@]} -gt 0 ] || { echo "languages.sh: no LANG=DIR given" >&2; exit 2; }
[ -x "$MAPSCOPE" ] || { echo "languages.sh: MAPSCOPE=$MAPSCOPE is not executable" >&2; exit 2; }
if [ $AIDER = 1 ] && { [ ! -x "$PY" ] || [ ! -f "$ANCHOR_PY" ]; }; then
  echo "languages.sh: no aider anchor ($PY, $ANCHOR_PY): aider columns n/a" >&2; AIDER=0
fi
OUT=${OUT:-$(mktemp -d /tmp/languages-XXXXXX)}
mkdir -p "$OUT"
echo "languages.sh: raw output in $OUT" >&2

timed() { # STDOUT_FILE TIME_FILE CMD...: see benches/timed.py
  python3 "$(dirname "$0")/timed.py" "$@"
}
median() { python3 -c 'import sys, statistics as s; v=[float(x) for x in sys.argv[1:]]; print(f"{s.median(v):.4f}")' "$@"; }
maxof() { python3 -c 'import sys; print(max(int(float(x)) for x in sys.argv[1:]))' "$@"; }

echo "| language | repository | code files (parsed) | parse floor s | floor CPU s (read + queries + parse + tags) | cold s (median of $RUNS) | cold CPU s | cold / parse floor | cold CPU / floor CPU | warm s | RSS MB | aider cold s | aider RSS MB | map tokens on tests/fixtures/vendored |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for spec in "${REPOS[@]}"; do
  lang=${spec%%=*}; dir=${spec#*=}; name=$(basename "$dir")
  "$MAPSCOPE" bench "$dir" --parse-floor --runs "$RUNS" --json > "$OUT/$name.floor.json" 2>&1
  # The CPU floor is load-proof where wall times are not (the machine is shared): the ratio
  # that says what a cold map adds to parsing and tagging is the one of CPU times.
  read -r files floor tags_cpu <<<"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d.get("floor_cpu_ms"); print(d["files"], d["parse_median_ms"]/1000, (t if t is not None else float("nan"))/1000)' "$OUT/$name.floor.json")"
  walls=(); rss=(); cpus=()
  for i in $(seq "$RUNS"); do
    timed "$OUT/$name.map.json" "$OUT/$name.cold$i.time" \
      "$MAPSCOPE" map "$dir" --tokens "$TOKENS" --format json --no-cache
    read -r w r c < "$OUT/$name.cold$i.time"; walls+=("$w"); rss+=("$r"); cpus+=("$c")
  done
  cold=$(median "${walls[@]}"); cold_rss=$(maxof "${rss[@]}"); cold_cpu=$(median "${cpus[@]}")
  cache="$OUT/$name.cache"; mkdir -p "$cache"
  MAPSCOPE_CACHE_DIR=$cache "$MAPSCOPE" map "$dir" --tokens "$TOKENS" > /dev/null 2>&1
  warms=()
  for i in $(seq "$RUNS"); do
    MAPSCOPE_CACHE_DIR=$cache timed /dev/null "$OUT/$name.warm$i.time" \
      "$MAPSCOPE" map "$dir" --tokens "$TOKENS"
    read -r w _ _ < "$OUT/$name.warm$i.time"; warms+=("$w")
  done
  warm=$(median "${warms[@]}")
  aider_s=n/a; aider_rss=n/a
  if [ $AIDER = 1 ]; then
    PYTHONHASHSEED=0 timed "$OUT/$name.aider.json" "$OUT/$name.aider.time" \
      "$PY" "$ANCHOR_PY" --repo "$dir" --tokens "$TOKENS" --cold --out /dev/null
    read -r aider_s aider_rss _ < "$OUT/$name.aider.time"
    aider_s=$(printf '%.3f' "$aider_s")
  fi
  share=$(python3 - "$OUT/$name.map.json" <<'EOF'
import json, re, sys
m = json.load(open(sys.argv[1]))
support = re.compile(r"(^|/)(tests?|spec|specs|testing|testdata|test_data|fixtures?|__tests__|"
                     r"examples?|vendor|third_party|benches|benchmarks?)(/|$)", re.I)
name = re.compile(r"(_test|_spec|Test|Tests|IT)\.[a-z]+$|(^|/)test_[^/]*$|\.(test|spec)\.[a-z]+$")
total = sum(f["tokens"] for f in m["files"]) or 1
sup = sum(f["tokens"] for f in m["files"] if support.search(f["path"]) or name.search(f["path"]))
print(f"{100 * sup / total:.0f}% ({sup}/{total})")
EOF
)
  ratio=$(python3 -c "print(f'{float(\"$cold\") / max(float(\"$floor\"), 1e-9):.2f}×')")
  cpu_ratio=$(python3 -c "print(f'{float(\"$cold_cpu\") / max(float(\"$tags_cpu\"), 1e-9):.2f}×')")
  printf '| %s | %s | %s | %.3f | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$lang" "$name" "$files" "$floor" "$tags_cpu" "$cold" "$cold_cpu" "$ratio" "$cpu_ratio" "$warm" "$cold_rss" "$aider_s" "$aider_rss" "$share"
done
