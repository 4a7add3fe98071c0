#!/usr/bin/env bash
# Times pprof-tui -top and go tool pprof -top on the synthesized
# 1M-sample profile (wall time and peak RSS via /usr/bin/time), checks that
# both print the same report, and times gunzip -c for scale.
#   bash testdata/bench-vs-pprof.sh [SAMPLES]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
tmp="$(mktemp -d)"
cd "$repo"
go build -o "$tmp/pprof-tui" .
go run ./format/synth/synthprof -samples "$n" -o "$tmp/big.pb.gz"
export TZ=UTC
measure() { /usr/bin/time -f "%e s, %M KB max RSS" "$@" 2>&1 >"$tmp/out.txt" | tail -1; }
echo "gunzip -c:           $( { /usr/bin/time -f '%e s' gunzip -c "$tmp/big.pb.gz" >/dev/null; } 2>&1 )"
echo "pprof-tui -top:      $(measure "$tmp/pprof-tui" -top -nodecount=20 "$tmp/big.pb.gz")"
cp "$tmp/out.txt" "$tmp/ours.txt"
echo "go tool pprof -top:  $(measure go tool pprof -top -nodecount=20 "$tmp/big.pb.gz")"
if cmp -s "$tmp/ours.txt" "$tmp/out.txt"; then echo "reports identical"; else echo "REPORTS DIFFER"; diff "$tmp/ours.txt" "$tmp/out.txt" | head; exit 1; fi
