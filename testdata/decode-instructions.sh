#!/usr/bin/env bash
# Counts the instructions one decode of the synthesized 1M-sample profile
# executes (the decoder alone, on the uncompressed bytes: the
# Decode1M/plain benchmark, run once under valgrind's cachegrind). Wall
# time on the shared machines varies by ±25%; an instruction count does
# not, so this is how to compare two versions of the decoder:
#
#   bash testdata/decode-instructions.sh [TOP]
#   SHAPE=distinct bash testdata/decode-instructions.sh [TOP]
#
# It prints the total for the format package and its TOP (default 15)
# functions. Needs valgrind (Debian: apt-get install valgrind). Garbage
# collection and the scheduler run differently under valgrind, so only
# the format package's own functions are worth comparing.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
top="${1:-15}"
command -v valgrind >/dev/null || { echo "decode-instructions: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$repo"
go test -c -o "$tmp/format.test" ./format
# The benchmark writes the profile to the temp directory on first use:
# do that outside valgrind.
# SHAPE=distinct (or wide, zipf, deep) decodes that shape's gzipped
# 1M-sample profile instead (DecodeShapes1M; gzip's own instructions are
# not counted).
bench=Decode1M/plain
if [ -n "${SHAPE:-}" ]; then
  bench="DecodeShapes1M/$SHAPE"
  export PPROF_TUI_SHAPES="$SHAPE"
fi
"$tmp/format.test" -test.run XXX -test.bench "$bench" -test.benchtime 1x >/dev/null
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg.out" \
  "$tmp/format.test" -test.run XXX -test.bench "$bench" -test.benchtime 1x >/dev/null 2>&1
cg_annotate --threshold=0 --auto=no "$tmp/cg.out" 2>/dev/null |
  awk -v top="$top" '
    /pprof-tui\/format\.[^ ]*$/ && !/Benchmark|gunzip|uncompressed/ {
      n = $1; gsub(",", "", n); name = $NF; sub(/.*format\./, "", name)
      sum[name] += n; total += n
    }
    END {
      printf "format package: %.0fM instructions\n", total / 1e6
      cmd = "sort -rn | head -" top
      for (f in sum) printf "%12.1fM  %s\n", sum[f] / 1e6, f | cmd
      close(cmd)
    }'
