#!/usr/bin/env bash
# Regenerates golden/*.symbolized.* from `go tool pprof`, the reference,
# for the gperftools CPU profiles symbolized with their binaries. Run from
# anywhere:
#   bash testdata/legacy/regen-symbolized.sh
# go tool pprof's symbolizer (cmd/pprof's, not binutils) reports no inline
# frames, so the goldens are made with -noinlines, which is also what our
# symbolizer gives with -noinlines (see ../../symbolize_test.go).
set -euo pipefail
cd "$(dirname "$0")"
export TZ=UTC
mkdir -p golden
go version > golden/GO_VERSION.symbolized
for pair in cpubench:cpu.prof cpubench32:cpu32.prof; do
  bin=${pair%%:*} prof=${pair#*:}
  go tool pprof -top -nodefraction=0 -nodecount=1000000 -noinlines "$bin" "$prof" \
    > "golden/$prof.symbolized.noinlines.top.txt" 2>/dev/null
  go tool pprof -top -nodefraction=0 -nodecount=1000000 -noinlines -lines "$bin" "$prof" \
    > "golden/$prof.symbolized.noinlines.lines.top.txt" 2>/dev/null
done
