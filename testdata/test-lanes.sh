#!/usr/bin/env bash
# Times the README's test command and shows its lanes: when each
# package's test binary started and ended, counted from the command's
# start, and how long it ran; then the command's wall, user and system
# time, and gunzip -c of the 1M-sample distinct profile (the walk's,
# written first if missing) timed just before, to compare days.
#
#   bash testdata/test-lanes.sh [RUNS]     default: 1
#
# go test ./... runs as many test binaries at once as the machine has
# cores; -json prints a package's events only once the packages before
# it have finished, so its timestamps do not show which ran beside
# which. Here go test runs each binary through this script (-exec), which
# logs the binary's span. Builds are cached first, so the runs time the
# tests, not the compiler.
set -euo pipefail

if [ "${1:-}" = --exec ]; then
  # As go test's -exec: run the test binary, log its span.
  shift
  start=$(date +%s.%N)
  set +e
  "$@"
  rc=$?
  echo "$(basename "$1" .test) $start $(date +%s.%N)" >>"$LANES_LOG"
  exit $rc
fi

cd "$(dirname "$0")/.."
runs=${1:-1}
gz=/tmp/walk-distinct-1000000.pb.gz
[ -f "$gz" ] || go run ./internal/synth/synthprof -samples 1000000 -shape distinct -o "$gz"
self=$(realpath "$0")
go test -count=1 -run XXX ./... >/dev/null # build every test binary once
for i in $(seq 1 "$runs"); do
  log=$(mktemp /tmp/test-lanes.XXXXXX)
  g0=$(date +%s.%N)
  gunzip -c "$gz" >/dev/null
  g1=$(date +%s.%N)
  t0=$(date +%s.%N)
  set +e
  LANES_LOG=$log /usr/bin/time -f "%e %U %S" -o "$log.time" \
    go test -count=1 -exec "bash $self --exec" ./... >"$log.out" 2>&1
  rc=$?
  set -e
  read -r wall user sys < <(tail -1 "$log.time") # after "exited with non-zero status"
  echo "run $i: exit status $rc, wall $wall s, user $user s, system $sys s; gunzip -c $(awk -v a="$g0" -v b="$g1" 'BEGIN { printf "%.2f", b - a }') s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  sort -k2 -n "$log" | awk -v t0="$t0" '{ printf "  %-16s %6.1f %6.1f %6.1f s\n", $1, $2 - t0, $3 - t0, $3 - $2 }'
  grep -E '^(FAIL|--- FAIL)' "$log.out" | sed 's/^/  /' || true
  rm -f "$log" "$log.time" "$log.out"
done
