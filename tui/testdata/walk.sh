#!/usr/bin/env bash
# walk.sh: what a person waits for in the explorer, step by step.
# Builds the binary and walks PROFILE in tmux (120×35): the first Top
# screen (beside `gunzip -c` of the file), a navigation key, next sample
# type, a search as typed (its match count, then its share of the total),
# focus / ignore / hide / tagfocus (the view, then the status bar's total
# of what they keep) and clearing them, granularity lines, the Tree and
# inverting it, Labels, the Flame graph (first layout, a key, a zoom,
# inverting it, a pivot with a key, a re-pivot and back, folding
# recursion all, direct and off), Peek, Source and the Graph; per step
# the time from the key press to the redrawn screen, and RSS and peak RSS
# (/proc/PID/status). The driver is tui/testdata/walk (Go, one tmux
# control-mode connection).
#
#   bash tui/testdata/walk.sh [PROFILE] [ROUNDS]              # from the repository root
#   SHAPE=wide SAMPLES=1000000 bash tui/testdata/walk.sh      # writes /tmp/walk-wide-1000000.pb.gz first
#
# TAG sets the tagfocus step's filter (default worker=w1; service=checkout
# for the Zipf shape, SHAPE=zipf); FIRST=1 times the first screen only;
# STEPS=RE takes only the steps whose names match RE
# (STEPS='Graph|Top \(1\)' opens the Graph view and goes back to Top);
# THINK=1s waits that long on each screen before the next key, as a
# person reading it (by default each key is pressed as soon as the
# screen is drawn, before the explorer's background work is done).
# CPUPROF=FILE has the explorer profile its CPU from its start until the
# walk quits it, HEAPPROF=FILE write its heap's profile then (FILE.N per
# round); read them with `go tool pprof -top FILE`.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "walk: tmux is not installed" >&2; exit 2; }
SHAPE=${SHAPE:-distinct}
SAMPLES=${SAMPLES:-1000000}
PROF=${1:-/tmp/walk-$SHAPE-$SAMPLES.pb.gz}
ROUNDS=${2:-1}
[ -f "$PROF" ] || go run ./internal/synth/synthprof -samples "$SAMPLES" -shape "$SHAPE" -o "$PROF"
TAG=${TAG:-worker=w1}
[ "$SHAPE" = zipf ] && TAG=${TAG_ZIPF:-service=checkout}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
go build -o "$OUT/pprof-tui" .
go build -o "$OUT/walk" ./tui/testdata/walk
"$OUT/walk" -rounds "$ROUNDS" -tag "$TAG" ${FIRST:+-first} -think "${THINK:-0}" -steps "${STEPS:-}" \
	-cpuprofile "${CPUPROF:-}" -heapprofile "${HEAPPROF:-}" "$OUT/pprof-tui" "$PROF"
