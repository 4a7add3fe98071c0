#!/usr/bin/env bash
# Regenerates the top-table goldens from `go tool pprof`, the reference.
# Usage: bash analysis/testdata/top/regen.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../../testdata"
export TZ=UTC
grep -v '^#' "$here/cases.txt" | while read -r name profile flags; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  go tool pprof -top -symbolize=none -nodefraction=0 -nodecount=1000000 $flags "$profile" > "$here/$name.txt" 2>/dev/null
done
go version > "$here/GO_VERSION"
