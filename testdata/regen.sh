#!/usr/bin/env bash
# Regenerates the golden files under testdata/golden/ from `go tool pprof`,
# the reference implementation. Run from anywhere: bash testdata/regen.sh
# Goldens depend on the Go release's pprof; record it in golden/GO_VERSION.
set -euo pipefail
cd "$(dirname "$0")"
export TZ=UTC
mkdir -p golden
go version > golden/GO_VERSION

# Decoder oracle: pprof's -raw dump (sample values, stacks by location id,
# labels) of every profile.proto in testdata.
for f in go/*.pb.gz synthetic/*.pb.gz notes/*.pb.gz pprof/large.cpu pprof/sample.cpu \
         pprof/cppbench.cpu_no_samples_type pprof/go.nomappings.crash; do
  mkdir -p "golden/$(dirname "$f")"
  go tool pprof -raw -symbolize=none "$f" > "golden/$f.raw.txt" 2>/dev/null
done
