#!/usr/bin/env bash
# Cold against the parse floor, counted in instructions (issues 19 and 21). One cold
# `map --no-cache` per repository under valgrind's callgrind, which counts the instructions
# each function executes, inclusive of what it calls: repeatable for the same binary and
# input whatever else the machine is doing, where CPU seconds on this shared 2-core host
# drift by a quarter from minute to minute (benches/warm_floor.sh measures the seconds).
#
# The floor is the work no cold map can skip, counted inside that same run:
#   read     `content::load_source`, reading each code file;
#   compile  compiling each language's tags query: inside `tags::extract_tags_until` on the
#            language's first parse, or ahead of it on a worker the walk starts
#            (`index::prefetch::compile_ahead`, counted here);
#   tags     `tags::extract_tags_until`, parsing each file and running its tags query.
# cold ÷ floor = every instruction of the process ÷ those two. Kernel time (page faults,
# reads) is not an instruction of the process: /usr/bin/time's system seconds are shown
# beside it from a native run.
#
# Limit: callgrind names functions by symbol, so the split needs `extract_tags_until` to
# stay out of line. In 8429308's build it was; from 27f710b on (the query compile moved to
# a job the walk starts) the compiler inlines it and the query compile, and the "parse +
# tags" column comes out far too small: use benches/floor_profile.sh there, whose DWARF
# stacks include inlined frames.
#
#   MAPSCOPE=target/release/mapscope benches/floor_instructions.sh /work/bench-warm/vite DIR...
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
OUT=${OUT:-/tmp/mapscope-floor-ir}; mkdir -p "$OUT"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
echo "| repo | code files | instructions, cold map | of which read | of which parse + tags (+ query compile) | other | cold ÷ floor (instructions) | native: user s, system s |"
echo "|---|---|---|---|---|---|---|---|"
for dir in "$@"; do
  name=$(basename "$dir")
  out="$OUT/$name.callgrind"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$B" map "$dir" --tokens 4096 --no-cache >/dev/null 2>"$OUT/$name.err" || { echo "| $name | valgrind failed: see $OUT/$name.err |"; continue; }
  /usr/bin/time -f "%U %S" -o "$OUT/$name.time" "$B" map "$dir" --tokens 4096 --no-cache >/dev/null 2>&1
  files=$("$B" stats "$dir" --json --no-cache 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("files","?"))' 2>/dev/null || echo "?")
  callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null > "$OUT/$name.annotate"
  NAME=$name FILES=$files ANN="$OUT/$name.annotate" TIME="$OUT/$name.time" python3 - <<'P'
import os, re
ann = open(os.environ["ANN"]).read().splitlines()
def count(line):
    return int(line.split()[0].replace(",", ""))
total = next(count(l) for l in ann if l.strip().endswith("PROGRAM TOTALS"))
def inclusive(fn):
    # The function's own entry ends with its object in brackets; call-site lines do not.
    xs = [count(l) for l in ann if re.search(r":" + re.escape(fn) + r" \[", l)]
    return max(xs) if xs else 0
read = inclusive("mapscope::engine::ingest::content::load_source")
tags = inclusive("mapscope::engine::ingest::tags::extract_tags_until")
tags += inclusive("mapscope::engine::index::prefetch::compile_ahead")
floor = read + tags
u, s = open(os.environ["TIME"]).read().split()
g = lambda n: f"{n / 1e9:.3f} G"
print(f"| {os.environ['NAME']} | {os.environ['FILES']} | {g(total)} | {g(read)} | {g(tags)} | {g(total - floor)} ({(total - floor) / total:.1%}) | {total / floor:.3f}× | {u}, {s} |")
P
done
