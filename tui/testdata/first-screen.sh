#!/usr/bin/env bash
# first-screen.sh: how long the explorer takes to show the first screen of
# the Top view on a 1M-sample profile, against the time `gunzip -c` takes
# to decompress the same file (the target: within 1.2×), and its peak
# memory (target: under a third of `go tool pprof -top`'s, ~1.4 GB).
#
#   bash tui/testdata/first-screen.sh [PROFILE]    # from the repository root
#
# Without PROFILE it writes the synthesizer's 1M-sample profile to /tmp.
# The explorer runs in tmux (120×35); the time is from launch to the first
# capture showing the table, polled every 10 ms. With BUSY=1 a busy loop
# holds one of the cores throughout (both sides are timed under it).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "first-screen: tmux is not installed" >&2; exit 2; }
PROF=${1:-/tmp/pprof-tui-1M.pb.gz}
[ -f "$PROF" ] || go run ./internal/synth/synthprof -samples 1000000 -o "$PROF"
OUT=$(mktemp -d)
SOCK="$OUT/tmux.sock"
BIN="$OUT/pprof-tui"
go build -o "$BIN" .
t() { tmux -S "$SOCK" "$@"; }
busy=
trap 't kill-server 2>/dev/null || true; [ -n "$busy" ] && kill "$busy" 2>/dev/null; rm -rf "$OUT"' EXIT
if [ -n "${BUSY:-}" ]; then
  sh -c 'while :; do :; done' &
  busy=$!
  echo "a busy loop holds one core (pid $busy)"
fi

now() { date +%s.%N; }
echo "profile: $PROF ($(du -h "$PROF" | cut -f1))"
for run in 1 2 3; do
  t0=$(now); gunzip -c < "$PROF" > /dev/null; t1=$(now)
  gz=$(echo "$t1 - $t0" | bc)

  t new-session -d -s fs$run -x 120 -y 35 \
    "TERM=xterm-256color /usr/bin/time -f %M -o $OUT/rss$run $BIN $PROF; sleep 30"
  t0=$(now)
  until t capture-pane -p -t fs$run | grep -q "sum%"; do sleep 0.01; done
  t1=$(now)
  first=$(echo "$t1 - $t0" | bc)
  sleep 0.5 # let the first screen's work settle before quitting
  t send-keys -t fs$run q
  for _ in $(seq 500); do [ -s "$OUT/rss$run" ] && break; sleep 0.01; done
  rss=$(cat "$OUT/rss$run")
  printf 'run %d: gunzip -c %.2f s; first screen %.2f s (%.1f×); peak RSS %d MB\n' \
    "$run" "$gz" "$first" "$(echo "$first / $gz" | bc -l)" "$((rss / 1024))"
  t kill-session -t fs$run
done
