#!/usr/bin/env bash
# TUI responsiveness while a large tree is indexed (issue 19 item 3): the first frame, and
# how long a typed key takes to show while the index is still being built.
#
#   MAPSCOPE=target/release/mapscope benches/tui_responsive.sh TREE [KEYS]
#
# Starts `mapscope TREE` in a fresh tmux server (120×36) with an empty cache dir (a cold
# index; WARM=1 fills the cache first), then polls `tmux capture-pane` every POLL seconds
# (default 0.005):
#   first frame   from the moment the pane's shell starts mapscope (it writes the time to a
#                 file just before `exec`) to the first screen with the query box ("query")
#                 and the map pane ("map");
#   key latency   KEYS times (default 5) while the status bar does not yet show the index
#                 (" files · "): type one letter and time until the query box shows it
#                 ("› " + what was typed so far); a key that shows only after the index is
#                 done is reported with "after index";
#   index         until the status bar shows " files · ".
# Each time includes one capture-pane (~2–5 ms here). Raw screens in $OUT (default
# /tmp/mapscope-tui). Needs tmux and bash ≥ 5 (EPOCHREALTIME).
set -u
B=${MAPSCOPE:?set MAPSCOPE to a mapscope binary}
TREE=${1:?usage: tui_responsive.sh TREE [KEYS]}
KEYS=${2:-5}
POLL=${POLL:-0.005}
OUT=${OUT:-/tmp/mapscope-tui}; mkdir -p "$OUT"
SOCK=mapscope-tui-$$
CACHE=$OUT/cache-$$
T=(tmux -L "$SOCK")
trap '"${T[@]}" kill-server 2>/dev/null; rm -rf "$CACHE"' EXIT
rm -rf "$CACHE"; mkdir -p "$CACHE"
if [ "${WARM:-0}" = 1 ]; then MAPSCOPE_CACHE_DIR=$CACHE "$B" stats "$TREE" > /dev/null 2>&1; fi

now() { echo "${EPOCHREALTIME/./}"; }   # µs
screen() { "${T[@]}" capture-pane -p -t t 2>/dev/null; }
ms() { echo "scale=1; ($1 - $2) / 1000" | bc; }

"${T[@]}" new-session -d -s t -x 120 -y 36 sh -c \
  "date +%s%6N > '$OUT/start'; exec env -u TMUX MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='$CACHE' '$B' '$TREE'"

deadline=$(( $(now) + 60000000 ))
while :; do
  s=$(screen)
  if [[ $s == *query* && $s == *map* ]]; then first=$(now); break; fi
  [ "$(now)" -gt $deadline ] && { echo "no first frame in 60 s"; echo "$s"; exit 1; }
  sleep "$POLL"
done
while [ ! -s "$OUT/start" ]; do sleep 0.001; done
start=$(cat "$OUT/start")
echo "$s" > "$OUT/first-frame.txt"
echo "first frame: $(ms "$first" "$start") ms"

typed=""
indexed=""
for i in $(seq 1 "$KEYS"); do
  s=$(screen)
  if [[ $s == *" files · "* ]]; then echo "key $i: index already done"; indexed=1; break; fi
  letter=$(printf "\\x$(printf %x $((96 + i)))")
  typed="$typed$letter"
  t0=$(now)
  "${T[@]}" send-keys -t t -l "$letter"
  while :; do
    s=$(screen)
    if [[ $s == *"› $typed"* ]]; then
      t1=$(now)
      if [[ $s == *" files · "* ]]; then note=" (after index)"; else note=" (while indexing)"; fi
      echo "key $i '$letter': $(ms "$t1" "$t0") ms$note"
      echo "$s" > "$OUT/key-$i.txt"
      break
    fi
    [ "$(now)" -gt $((t0 + 120000000)) ] && { echo "key $i: not shown in 120 s"; echo "$s"; exit 1; }
    sleep "$POLL"
  done
  sleep 0.2
done

if [ -z "$indexed" ]; then
  deadline=$(( $(now) + 600000000 ))
  while :; do
    s=$(screen)
    [[ $s == *" files · "* ]] && break
    [ "$(now)" -gt $deadline ] && { echo "index not shown in 600 s"; break; }
    sleep 0.05
  done
fi
echo "index shown: $(ms "$(now)" "$start") ms after start"
echo "$s" > "$OUT/indexed.txt"
