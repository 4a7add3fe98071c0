#!/usr/bin/env bash
# Regenerates golden/ from `go tool pprof`, the reference implementation,
# for the legacy text profiles here. Run from anywhere:
#   bash testdata/legacytext/regen.sh
# golden/<f>.raw.txt: pprof's -raw dump (sample types and values, stacks as
# location ids, the bytes label, locations with their addresses, mappings
# and Java frames, the mapping list).
# golden/<f>.top.addresses.txt: flat/cum per address, for the profiles
# without symbols (the same command as the corpus's expected/ files).
# golden/<f>.err.txt: the first line of pprof's error, for files it rejects.
set -euo pipefail
cd "$(dirname "$0")"
export TZ=UTC
mkdir -p golden
rm -f golden/*.txt
go version > golden/GO_VERSION
for f in *; do
  case "$f" in golden|regen.sh) continue ;; esac
  if ! go tool pprof -raw -symbolize=none "$f" > "golden/$f.raw.txt" 2> "golden/$f.err.txt"; then
    rm "golden/$f.raw.txt"
    head -n 1 "golden/$f.err.txt" | sed "s|^$f: ||" > "golden/$f.err.tmp"
    mv "golden/$f.err.tmp" "golden/$f.err.txt"
    continue
  fi
  rm "golden/$f.err.txt"
  if ! grep -q ' s=[0-9]*$' "golden/$f.raw.txt"; then
    go tool pprof -top -nodecount=1000000 -symbolize=none -addresses "$f" \
      > "golden/$f.top.addresses.txt" 2>/dev/null
  fi
done
