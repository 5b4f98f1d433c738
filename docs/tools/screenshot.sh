#!/usr/bin/env bash
# Makes docs/screenshot.png from a real run: mapscope in tmux (110×32) on a repository,
# a query typed, the screen captured with its colours and rendered by ansi_to_png.py.
# usage: docs/tools/screenshot.sh REPO "QUERY" [MAPSCOPE_BINARY]
set -euo pipefail
repo=$1 query=$2 bin=${3:-mapscope}
here=$(cd "$(dirname "$0")" && pwd)
sock=mapscope-screenshot-$$
cache=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$cache"' EXIT
tmux -L "$sock" -f /dev/null new-session -d -s t -x 110 -y 32 \
  "env -u TMUX -u DISPLAY MAPSCOPE_CACHE_DIR='$cache' '$bin' '$repo' --tokens 2048; sleep 60"
for _ in $(seq 1 120); do
  sleep 0.5
  tmux -L "$sock" capture-pane -p -t t | grep -q "code files" && break
done
tmux -L "$sock" send-keys -t t -l "$query"
sleep 5   # the hits, the map for the query and the preview's colours
tmux -L "$sock" capture-pane -e -p -t t > "$cache/screen.ansi"
python3 "$here/ansi_to_png.py" "$cache/screen.ansi" "$here/../screenshot.png"
echo "wrote $here/../screenshot.png"
