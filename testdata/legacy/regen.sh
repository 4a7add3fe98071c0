#!/usr/bin/env bash
# Regenerates golden/ from `go tool pprof`, the reference implementation,
# for the legacy gperftools CPU profiles here. Run from anywhere:
#   bash testdata/legacy/regen.sh
# golden/<f>.raw.txt: pprof's -raw dump (samples as location ids, locations
# with their addresses and mappings, the mapping list).
# golden/<f>.top.addresses.txt: flat/cum per address, for the profiles
# without symbols (java.cpu carries its own and has none).
set -euo pipefail
cd "$(dirname "$0")"
export TZ=UTC
mkdir -p golden
go version > golden/GO_VERSION
for f in cpu.prof cpu.be64.prof cpu32.prof cpu32.be32.prof cppbench.cpu \
         cppbench.longpaths.cpu go.crc32.cpu gobench.cpu java.cpu maps-quirks.prof java-quirks.cpu; do
  go tool pprof -raw -symbolize=none "$f" > "golden/$f.raw.txt" 2>/dev/null
  if [ "${f#java}" = "$f" ]; then
    go tool pprof -top -nodecount=1000000 -symbolize=none -addresses "$f" \
      > "golden/$f.top.addresses.txt" 2>/dev/null
  fi
done
