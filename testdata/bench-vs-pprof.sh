#!/usr/bin/env bash
# Times pprof-tui -top and go tool pprof -top on a synthesized profile
# (wall time and peak RSS via /usr/bin/time), checks that both print the
# same report, and times gunzip -c for scale, all in one run.
#   bash testdata/bench-vs-pprof.sh [SAMPLES]
#   SHAPE=distinct PPROF_TIMEOUT=600 bash testdata/bench-vs-pprof.sh 10000000
# SHAPE is a synthprof shape (zipf, distinct, wide, deep; default zipf);
# REPORT is the report's flags (default "-top -nodecount=20"; "-tags"
# compares the label report);
# PROF=FILE uses a file instead. go tool pprof is stopped after
# PPROF_TIMEOUT seconds (default 1800): at 10M samples it needs many
# minutes and well over 10 GB, and the line then says it was stopped.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
shape="${SHAPE:-zipf}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$repo"
go build -o "$tmp/pprof-tui" .
prof="${PROF:-}"
if [ -z "$prof" ]; then
  prof="$tmp/big.pb.gz"
  go run ./internal/synth/synthprof -samples "$n" -shape "$shape" -o "$prof"
fi
export TZ=UTC
measure() { /usr/bin/time -o "$tmp/time" -f "%e s, %M KB max RSS" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || true; tail -1 "$tmp/time"; }
echo "profile: $prof ($(du -h "$prof" | cut -f1))"
echo "gunzip -c:           $( { /usr/bin/time -f '%e s' gunzip -c "$prof" >/dev/null; } 2>&1 )"
report="${REPORT:--top -nodecount=20}"
# shellcheck disable=SC2086 # the report's flags are words
echo "pprof-tui $report: $(measure "$tmp/pprof-tui" $report "$prof")"
cp "$tmp/out.txt" "$tmp/ours.txt"
# shellcheck disable=SC2086
echo "go tool pprof $report: $(measure timeout "${PPROF_TIMEOUT:-1800}" go tool pprof $report "$prof")"
if ! [ -s "$tmp/out.txt" ]; then
  echo "go tool pprof printed nothing (stopped after ${PPROF_TIMEOUT:-1800} s, or failed: $(tail -1 "$tmp/err.txt"))"
elif cmp -s "$tmp/ours.txt" "$tmp/out.txt"; then
  echo "reports identical"
else
  echo "REPORTS DIFFER"; diff "$tmp/ours.txt" "$tmp/out.txt" | head; exit 1
fi
