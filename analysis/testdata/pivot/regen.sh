#!/usr/bin/env bash
# Regenerates the pivot goldens from `go tool pprof`, the reference.
# Usage: bash analysis/testdata/pivot/regen.sh   (from anywhere)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../../testdata"
export TZ=UTC
grep -v '^#' "$here/cases.txt" | while read -r name profile fn flags; do
  [ -n "$name" ] || continue
  re="^$(printf '%s' "$fn" | sed 's/[][\\.*^$()+?{}|]/\\&/g')\$"
  # shellcheck disable=SC2086
  go tool pprof -top -symbolize=none -nodefraction=0 -nodecount=1000000 -focus="$re" -show_from="$re" $flags "$profile" > "$here/$name.callees.txt" 2>/dev/null
  # pprof's prune_from matches a name cut at its first "(": a method's
  # callers have no pprof report (pivot_test.go cuts the stacks itself).
  case "$fn" in *'('*) continue ;; esac
  # shellcheck disable=SC2086
  go tool pprof -top -symbolize=none -nodefraction=0 -nodecount=1000000 -focus="$re" -prune_from="$re" $flags "$profile" > "$here/$name.callers.txt" 2>/dev/null
done
go version > "$here/GO_VERSION"
