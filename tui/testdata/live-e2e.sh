#!/usr/bin/env bash
# live-e2e.sh: the real binary watching a real service. A small Go program
# (livehot) serves net/http/pprof and burns CPU in hotAlpha, then, once
# the script has seen it on top and sends SIGUSR1, in hotBeta; pprof-tui
# -refresh=2s on its CPU profile URL must show hotAlpha on top, then
# hotBeta, with no key pressed.
#
#   bash tui/testdata/live-e2e.sh          # from anywhere
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "live-e2e: tmux is not installed" >&2; exit 2; }

OUT=$(mktemp -d)
SOCK="$OUT/tmux.sock"
S=live
# PPROF_TUI_BIN: a binary already built (go test builds one for all the scripts).
BIN=${PPROF_TUI_BIN:-$OUT/pprof-tui}
[ -n "${PPROF_TUI_BIN:-}" ] || go build -o "$BIN" .
go build -o "$OUT/livehot" ./tui/testdata/livehot

t() { tmux -S "$SOCK" "$@"; }
cleanup() {
  t kill-server 2>/dev/null || true
  [ -n "${HOT:-}" ] && kill "$HOT" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT

"$OUT/livehot" -switch=120s -life=120s > "$OUT/addr" &
HOT=$!
for _ in $(seq 100); do [ -s "$OUT/addr" ] && break; sleep 0.05; done
ADDR=$(head -1 "$OUT/addr")
[ -n "$ADDR" ] || { echo "live-e2e: livehot printed no address" >&2; exit 1; }

t new-session -d -s $S -x 120 -y 30 "$BIN -refresh=2s http://$ADDR/debug/pprof/profile; sleep 30"

# top_is NAME: wait (60 s at most) until the Top table's first row is NAME.
top_is() {
  for _ in $(seq 600); do
    if t capture-pane -p -t $S | sed -n 3p | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "live-e2e: FAIL: the first row never showed $1" >&2
  t capture-pane -p -t $S >&2
  exit 1
}
top_is main.hotAlpha
echo "live-e2e: main.hotAlpha on top"
kill -USR1 "$HOT"
top_is main.hotBeta
echo "live-e2e: main.hotBeta on top, no key pressed"
t capture-pane -p -t $S | grep -q "live " || { echo "live-e2e: FAIL: no live status" >&2; exit 1; }
t send-keys -t $S q
echo "live-e2e: ok"
