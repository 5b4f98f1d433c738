#!/usr/bin/env bash
# compare.sh — aider's repo map vs mapscope, cold or warm, side by side, in one go per repo.
#
#   MAPSCOPE=target/release/mapscope benches/compare_aider.sh [--only REPO] [--runs N] [--warm]
#
# Per repo (vite mypy prometheus terraform, work trees under $BENCH):
#   1. aider map, 1 timed run under /usr/bin/time -v. Cold: its tags cache deleted first.
#      Warm (--warm): after an untimed cold run that fills its cache.
#   2. "$MAPSCOPE" map $BENCH/REPO --tokens $TOKENS --format json $MAPSCOPE_ARGS, N runs (default 5),
#      each under /usr/bin/time -v: median wall s, max peak RSS over the runs. Cold: --no-cache.
#      Warm: a cache dir of its own under the results dir, filled by one untimed run first.
#   3. "$MAPSCOPE" stats $BENCH/REPO --json once (untimed), for file count + per-phase times
# Then prints a markdown table. Raw outputs: $BENCH/results/compare-<stamp>/.
# If MAPSCOPE is unset, missing or fails, the mapscope cells say n/a / FAIL and aider still runs.
#
# Env: BENCH (/work/bench), ANCHORS (/work/anchors), TOKENS (4096),
#      MAPSCOPE_ARGS (extra map flags, e.g. "--tokenizer cl100k" to count like aider's anchor),
#      ANCHOR_PY (aider_map.py path; default /work/shared/anchors/aider_map.py).
#      MS_TIMEOUT (600 s per mapscope run; exit 124 = timed out).
set -u
BENCH=${BENCH:-/work/bench}
export ANCHORS=${ANCHORS:-/work/anchors}
TOKENS=${TOKENS:-4096}
RUNS=5
MODE=cold
MAPSCOPE=${MAPSCOPE:-}
MAPSCOPE_ARGS=${MAPSCOPE_ARGS:-}
PY=$ANCHORS/aider-venv/bin/python
ANCHOR_PY=${ANCHOR_PY:-/work/shared/anchors/aider_map.py}
REPOS="vite mypy prometheus terraform"

while [ $# -gt 0 ]; do
  case "$1" in
    --only) REPOS="$2"; shift 2 ;;
    --only=*) REPOS="${1#--only=}"; shift ;;
    --runs) RUNS="$2"; shift 2 ;;
    --warm) MODE=warm; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

[ -x /usr/bin/time ] || { echo "compare.sh: /usr/bin/time missing (apt-get install -y time)" >&2; exit 2; }
[ -x "$PY" ] || { echo "compare.sh: no aider venv at $ANCHORS/aider-venv" >&2; exit 2; }
[ -f "$ANCHOR_PY" ] || { echo "compare.sh: no $ANCHOR_PY" >&2; exit 2; }
for r in $REPOS; do
  git -C "$BENCH/$r" rev-parse HEAD >/dev/null 2>&1 || { echo "compare.sh: $BENCH/$r is not a git work tree" >&2; exit 2; }
done

HAVE_MS=1
if [ -z "$MAPSCOPE" ]; then
  echo "compare.sh: MAPSCOPE not set: mapscope columns will be n/a" >&2; HAVE_MS=0
elif [ ! -x "$MAPSCOPE" ]; then
  echo "compare.sh: MAPSCOPE=$MAPSCOPE is not an executable file: mapscope columns will be n/a" >&2; HAVE_MS=0
fi

# offline guarantee for aider when a private network namespace is available
NET=""; unshare -n true 2>/dev/null && NET="unshare -n"

OUT=$BENCH/results/compare-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
ROWS=$OUT/rows.jsonl; : > "$ROWS"
echo "compare.sh: raw output in $OUT" >&2
{
  echo "date $(date -Is)"; echo "host $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB"
  echo "mapscope $MAPSCOPE $( [ $HAVE_MS = 1 ] && "$MAPSCOPE" --version 2>&1 | head -1)"
  [ $HAVE_MS = 1 ] && echo "mapscope sha256 $(sha256sum "$MAPSCOPE" | cut -c1-16)"
  echo "aider $("$PY" -c 'import importlib.metadata as m; print(m.version("aider-chat"))' 2>&1)"
  for r in $REPOS; do echo "repo $r $(git -C "$BENCH/$r" rev-parse HEAD)"; done
} > "$OUT/meta.txt"

# parse helpers (system python3; stdlib only)
parse_timev() { # file -> "wall_s rss_mb exit"
  python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1], errors="replace").read()
w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", t)
r = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
e = re.search(r"Exit status: (\d+)", t)
wall = "nan"
if w:
    parts = [float(p) for p in w.group(1).split(":")]
    s = 0.0
    for p in parts: s = s * 60 + p
    wall = f"{s:.3f}"
print(wall, f"{int(r.group(1))/1024:.1f}" if r else "nan", e.group(1) if e else ("signal" if "signaled" in t or "Command terminated by signal" in t else "?"))
EOF
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

for r in $REPOS; do
  repo=$BENCH/$r
  echo "== $r: aider $MODE (load $(load))" >&2
  af=$OUT/aider-$r-$MODE.txt
  aider_flag=--cold
  if [ $MODE = warm ]; then
    aider_flag=""
    $NET "$PY" "$ANCHOR_PY" --repo "$repo" --tokens "$TOKENS" --cold --out "$OUT/aider-$r.map" > /dev/null 2>&1
  fi
  # shellcheck disable=SC2086
  $NET /usr/bin/time -v "$PY" "$ANCHOR_PY" --repo "$repo" --tokens "$TOKENS" $aider_flag \
      --out "$OUT/aider-$r.map" > "$af.json" 2> "$af.timev"
  cat "$af.json" "$af.timev" > "$af"
  read a_wall a_rss a_exit < <(parse_timev "$af.timev")
  echo "   aider: ${a_wall}s ${a_rss}MB exit $a_exit" >&2

  ms_walls=(); ms_rss=(); ms_fail=""
  if [ $HAVE_MS = 1 ]; then
    export MAPSCOPE_CACHE_DIR=$OUT/mapscope-cache
    CACHE_FLAG=--no-cache
    if [ $MODE = warm ]; then
      CACHE_FLAG=""
      "$MAPSCOPE" map "$repo" --tokens "$TOKENS" > /dev/null 2>&1
    fi
    for i in $(seq 1 "$RUNS"); do
      mf=$OUT/mapscope-$r-run$i
      # shellcheck disable=SC2086
      t0=$(date +%s%N)
      /usr/bin/time -v timeout "${MS_TIMEOUT:-600}" "$MAPSCOPE" map "$repo" --tokens "$TOKENS" --format json $CACHE_FLAG $MAPSCOPE_ARGS \
          > "$mf.json" 2> "$mf.timev"
      t1=$(date +%s%N)
      read m_wall m_rss m_exit < <(parse_timev "$mf.timev")
      m_wall=$(python3 -c "print(f'{($t1-$t0)/1e9:.4f}')")   # ns clock: time -v has 10 ms resolution
      if [ "$m_exit" = 0 ] && ! python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert isinstance(j["tokens"], int) and isinstance(j["budget"], int)' "$mf.json" 2>/dev/null; then
        m_exit="0-but-no-valid-json(tokens,budget)"
      fi
      if [ "$m_exit" != 0 ]; then
        ms_fail="exit $m_exit: $(grep -m1 '^mapscope:' "$mf.timev" | cut -c1-80)"
        echo "   mapscope run $i FAILED ($ms_fail)" >&2
        break
      fi
      ms_walls+=("$m_wall"); ms_rss+=("$m_rss")
      echo "   mapscope run $i: ${m_wall}s ${m_rss}MB (load $(load))" >&2
    done
    if [ -z "$ms_fail" ]; then
      timeout 600 "$MAPSCOPE" stats "$repo" --json $CACHE_FLAG > "$OUT/mapscope-$r-stats.json" 2> "$OUT/mapscope-$r-stats.err" \
        || echo "   mapscope stats failed (see $OUT/mapscope-$r-stats.err)" >&2
    fi
  fi

  python3 - "$r" "$af.json" "$a_wall" "$a_rss" "$a_exit" "$OUT/mapscope-$r-run1.json" \
      "$OUT/mapscope-$r-stats.json" "$HAVE_MS" "${ms_fail:-}" "${ms_walls[*]:-}" "${ms_rss[*]:-}" >> "$ROWS" <<'EOF'
import json, sys, statistics
r, ajson, a_wall, a_rss, a_exit, mjson, mstats, have_ms, ms_fail, walls, rss = sys.argv[1:12]
row = {"repo": r, "a_wall": float(a_wall), "a_rss": float(a_rss), "a_exit": a_exit}
try:
    a = [json.loads(l) for l in open(ajson) if l.startswith("{")][-1]
    row.update(a_files_total=a["files_total"], a_files_parsed=a["files_parsed"],
               a_budget=a["budget_tokens"], a_tokens=a["map_tokens_exact"], a_cpu=a["cpu_s"])
except Exception as e:
    row["a_err"] = f"{type(e).__name__}: {e}"
row["have_ms"] = have_ms == "1"
row["ms_fail"] = ms_fail
if row["have_ms"] and not ms_fail and walls:
    w = [float(x) for x in walls.split()]
    m = [float(x) for x in rss.split()]
    row.update(m_walls=w, m_wall=statistics.median(w), m_rss=max(m), m_rss_med=statistics.median(m))
    try:
        j = json.load(open(mjson))
        row.update(m_tokens=j.get("tokens"), m_budget=j.get("budget"), m_tokenizer=j.get("tokenizer"),
                   m_files_shown=len(j.get("files") or []))
    except Exception as e:
        row["m_err"] = f"map json: {type(e).__name__}: {e}"
    try:
        s = json.load(open(mstats))
        row["m_files"] = s.get("files")
        row["m_stats"] = s
    except Exception as e:
        row["m_stats_err"] = f"{type(e).__name__}: {e}"
print(json.dumps(row))
EOF
done

python3 - "$ROWS" "$RUNS" "$MODE" <<'EOF' | tee "$OUT/table.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
runs, mode = sys.argv[2], sys.argv[3]
def f(x, d=1):
    return "n/a" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else str(x))
print(f"| repo | files (git / aider parsed / mapscope) | aider {mode} s | mapscope {mode} s (median of {runs}) | speed ratio | aider RSS MB | mapscope RSS MB | RSS ratio | tokens asked→given (aider; mapscope) |")
print("|---|---|---|---|---|---|---|---|---|")
notes = []
for r in rows:
    aw, ar = r["a_wall"], r["a_rss"]
    if r.get("a_exit") != "0" or "a_err" in r:
        notes.append(f"{r['repo']}: aider exit {r.get('a_exit')} {r.get('a_err','')}")
    mw, mr = r.get("m_wall"), r.get("m_rss")
    if not r["have_ms"]:
        ms_w = ms_r = "n/a"
    elif r.get("ms_fail"):
        ms_w = ms_r = "FAIL"; notes.append(f"{r['repo']}: mapscope {r['ms_fail']}")
    else:
        ms_w, ms_r = f(mw, 3 if mw >= 0.1 else 4), f(mr)
        if "m_err" in r: notes.append(f"{r['repo']}: {r['m_err']}")
    sp = f"{aw/mw:.1f}×" if mw else "n/a"
    rr = f"{ar/mr:.1f}×" if mr else "n/a"
    at = f"{r.get('a_budget','?')}→{r.get('a_tokens','?')}"
    mt = f"{r.get('m_budget','?')}→{r.get('m_tokens','?')}" if mw else "n/a"
    if mw and r.get("m_tokenizer"): mt += f" ({r['m_tokenizer']})"
    files = f"{r.get('a_files_total','?')} / {r.get('a_files_parsed','?')} / {r.get('m_files', 'n/a')}"
    print(f"| {r['repo']} | {files} | {f(aw)} | {ms_w} | {sp} | {f(ar,0)} | {ms_r if ms_r in ('n/a','FAIL') else f(mr,0)} | {rr} | {at}; {mt} |")
print()
print(f"aider: 1 {mode} run ({'tags cache deleted' if mode == 'cold' else 'after a cold run filled its cache'}), tokens counted with tiktoken cl100k. "
      "mapscope: wall = median, RSS = max peak over the runs; tokens in its own tokenizer.")
for r in rows:
    if r.get("m_walls"):
        print(f"- {r['repo']}: mapscope runs s = {', '.join(f'{w:.3f}' for w in r['m_walls'])}; "
              f"aider cpu s = {r.get('a_cpu')}")
    if r.get("m_stats"):
        s = r["m_stats"]
        ph = {k: v for k, v in s.items() if any(t in k for t in ("ms", "time", "phase"))}
        if ph: print(f"  - {r['repo']} mapscope stats phases: {json.dumps(ph)[:300]}")
for n in notes: print(f"- problem: {n}")
EOF
