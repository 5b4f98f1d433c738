#!/usr/bin/env bash
# Cold against the parse floor, from CPU profiles (issues 19 and 21). `perf record` samples
# a cold `map --no-cache` (user and kernel CPU of every thread, by the cpu-clock timer) with
# call stacks; a sample is floor work when its stack runs through reading a code file
# (`content::load_source`), compiling a language's tags query (`lang::compile`, during the walk
# or on the language's first parse) or parsing and tagging a file
# (`tags::extract_tags_until`; a file parsed while its query compiles is parsed in
# `tags::extract_tags_or_parse` and tagged in `tags::finish_tags`). CPU: cold ÷ floor = all
# samples ÷ floor samples. Wall: NATIVE cold maps are also timed without perf (wall and CPU);
# each one's parallel efficiency CPU ÷ (cores × wall) is taken within that run, and cold wall
# ÷ floor (floor = floor CPU ÷ cores, as benches/warm_floor.sh has it) = median CPU ratio ÷
# median efficiency.
#
# Why a profile: floor and map measured as two processes must be compared across this shared
# host's drift (a quarter from minute to minute, see benches/warm_floor.sh); within one run
# both share the same drift. A sample whose stack was cut short (deep parser recursion past
# the 16 KiB copied) counts as not-floor, so the ratio errs high. benches/floor_instructions.sh
# counts the same split in instructions, under valgrind.
#
# NATIVE (default: RUNS) sets the number of timed runs without perf: the efficiency of a
# ~0.1 s run swings by ±0.05 from run to run on this host, and its median needs ~20 to settle.
#
#   MAPSCOPE=target/release/mapscope RUNS=3 NATIVE=20 benches/floor_profile.sh DIR...
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
RUNS=${RUNS:-3}
NATIVE=${NATIVE:-$RUNS}
OUT=${OUT:-/tmp/mapscope-floor-profile}; mkdir -p "$OUT"; rm -f "$OUT/unwind-retries"
command -v perf >/dev/null || { echo "perf is needed (apt-get install linux-perf)" >&2; exit 2; }
CORES=${CORES:-$(nproc)}
echo "| repo | samples per run (½ ms CPU each) | floor share of CPU, per run | CPU: cold ÷ floor, per run | median | parallel efficiency (native run), median | wall: cold ÷ floor, median (90% bootstrap interval) | not floor, largest parts (last run) |"
echo "|---|---|---|---|---|---|---|---|"
for dir in "$@"; do
  name=$(basename "$dir")
  # The native runs first: perf's data files (tens of MB each) are written back and freed
  # in the background for a while after each profile, which took a core from a run timed
  # right after one (efficiency 0.84 against 0.96 on vite).
  sync
  # Timed to the microsecond by benches/timed.py: /usr/bin/time prints hundredths of a
  # second, which on a ~0.1 s run moved the efficiency by up to 10% from one run to the next
  # by rounding alone.
  B=$B DIR=$dir OUT=$OUT NAME=$name NATIVE=$NATIVE BENCHES=$(dirname "$0") python3 - <<'T'
import os, sys
e = os.environ
sys.path.insert(0, e["BENCHES"])
from timed import measure
for i in range(1, int(e["NATIVE"]) + 1):
    wall, cpu, _, _ = measure([e["B"], "map", e["DIR"], "--tokens", "4096", "--no-cache"])
    with open(f'{e["OUT"]}/{e["NAME"]}-{i}.time', "w") as f:
        f.write(f"{wall:.6f} {cpu:.6f}\n")
T
  for i in $(seq 1 "$RUNS"); do
    # perf 6.1 sometimes loses the C library's unwind tables for a whole process: every
    # sample taken inside libc (malloc, free, memcpy) then has a one-frame stack and counts
    # as not floor, whoever called it. On javapoet 9 processes in 20 were hit, their CPU
    # ratios read 1.24-1.29 against 1.10-1.13 for the rest. Such a profile is taken again
    # (up to 5 times; stderr lists each one).
    for attempt in 1 2 3 4 5; do
      perf record -q -e cpu-clock -F 2000 --call-graph dwarf,16384 -o "$OUT/$name-$i.data" \
        "$B" map "$dir" --tokens 4096 --no-cache >/dev/null 2>"$OUT/$name-$i.err" || { echo "| $name | perf failed: see $OUT/$name-$i.err |"; continue 3; }
      perf script -i "$OUT/$name-$i.data" -F ip,sym,dso 2>/dev/null > "$OUT/$name-$i.stacks"
      rm -f "$OUT/$name-$i.data"
      STACKS="$OUT/$name-$i.stacks" EXE="$(basename "$(realpath "$B")")" python3 - <<'U' && break
import os, sys
# Samples whose innermost user frame is in libc: how many unwound to the executable.
exe, ok, lost = os.environ["EXE"], 0, 0
for block in open(os.environ["STACKS"]).read().split("\n\n"):
    user = [l for l in block.strip().split("\n") if l.strip() and "[kernel.kallsyms]" not in l]
    if user and "/libc.so" in user[0]:
        if any(exe + ")" in l for l in user):
            ok += 1
        else:
            lost += 1
sys.exit(1 if lost > ok else 0)
U
      if [ "$attempt" -lt 5 ]; then echo "$name run $i taken again" >> "$OUT/unwind-retries"
      else echo "$name run $i kept with libc samples not unwound" >> "$OUT/unwind-retries"; fi
    done
  done
  NAME=$name RUNS=$RUNS NATIVE=$NATIVE OUT=$OUT CORES=$CORES python3 - <<'P'
import collections, os, random, re, statistics
O, name, runs = os.environ["OUT"], os.environ["NAME"], int(os.environ["RUNS"])
def samples(path):
    cur = []
    for line in open(path):
        if line.strip():
            # "ip symbol (dso)": the symbol alone.
            cur.append(re.sub(r" \([^()]*\)$", "", re.sub(r"^\s*[0-9a-f]+ ", "", line.strip())))
        elif cur:
            yield cur
            cur = []
    if cur:
        yield cur
FLOOR = ("tags::extract_tags_until", "tags::extract_tags_or_parse", "tags::finish_tags",
         "content::load_source", "lang::compile")
cores = int(os.environ["CORES"])
counts, shares, ratios, effs = [], [], [], []
for i in range(1, runs + 1):
    n = floor = 0
    parts = collections.Counter()
    for frames in samples(f"{O}/{name}-{i}.stacks"):
        n += 1
        if any(f in fr for fr in frames for f in FLOOR):
            floor += 1
            continue
        ours = [fr for fr in frames if "mapscope::" in fr or "ignore::" in fr]
        parts[(ours[0] if ours else frames[0])[:70]] += 1
    counts.append(n)
    shares.append(floor / n)
    ratios.append(n / floor)
for i in range(1, int(os.environ["NATIVE"]) + 1):
    wall, cpu = map(float, open(f"{O}/{name}-{i}.time").read().split())
    effs.append(cpu / (cores * wall))
# The wall ratio of the medians: CPU ratio (profiled runs) ÷ efficiency (native runs).
wall_ratio = statistics.median(ratios) / statistics.median(effs)
# How far that ratio can be trusted: both medians resampled (2000 bootstrap rounds, fixed
# seed), the 5th and 95th percentiles of their quotient. On this host a tree's reading moves
# by more than this between sessions (javapoet 1.197x and 1.276x eight hours apart), so the
# interval says whether one run's reading is told apart from a target, not that it will hold.
rng = random.Random(21)
boot = sorted(
    statistics.median(rng.choices(ratios, k=len(ratios)))
    / statistics.median(rng.choices(effs, k=len(effs)))
    for _ in range(2000)
)
low, high = boot[len(boot) // 20], boot[len(boot) * 19 // 20]
top = "; ".join(f"{k} {v / counts[-1]:.1%}" for k, v in parts.most_common(4))
print(f"| {name} | {', '.join(map(str, counts))} | {', '.join(f'{s:.3f}' for s in shares)} | {', '.join(f'{r:.3f}×' for r in ratios)} | {statistics.median(ratios):.3f}× | {statistics.median(effs):.3f} | {wall_ratio:.3f}× ({low:.3f}–{high:.3f}) | {top} |")
P
done
[ -s "$OUT/unwind-retries" ] && echo "profiles whose libc samples did not unwind: $(tr '\n' ';' < "$OUT/unwind-retries")" >&2
exit 0
