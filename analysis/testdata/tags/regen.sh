#!/usr/bin/env bash
# Regenerates the label (tag) goldens from `go tool pprof`, the reference.
# Usage: bash analysis/testdata/tags/regen.sh   (from anywhere)
#
# For each line of cases.txt it writes NAME.tags.txt, pprof's -tags output
# as is (nothing in it depends on paths), and NAME.totals.txt, the sum of
# each sample type over the samples pprof's -raw output keeps after the
# filters. errors.golden records how pprof rejects each value of errors.txt.
set -euo pipefail
set -f # flags hold regexps: no globbing
here="$(cd "$(dirname "$0")" && pwd)"
export TZ=UTC

# The synthetic fixtures first: they are written by the test that checks them.
(cd "$here/../.." && go test -count=1 -run '^TestTagFixtures$' . -args -write-tag-fixtures >/dev/null)

cd "$here/../../../testdata"
grep -v '^#' "$here/cases.txt" | while read -r name profile flags; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086
  go tool pprof -tags $flags "$profile" > "$here/$name.tags.txt" 2>/dev/null
  # -raw: "Samples:", a line of type/unit names, then one line per sample
  # ("v1 v2 ...: locations") followed by label lines (which hold "[").
  # shellcheck disable=SC2086
  go tool pprof -raw $flags "$profile" 2>/dev/null | awk '
    /^Samples:/ { in_samples = 1; getline; n = split($0, types, " "); next }
    /^Locations/ { in_samples = 0 }
    in_samples && /:/ && !/\[/ {
      for (i = 1; i <= NF; i++) { f = $i; last = sub(/:$/, "", f); sum[i] += f; if (last) break }
    }
    END { for (i = 1; i <= n; i++) { t = types[i]; sub(/\[dflt\]$/, "", t); printf "%s %.0f\n", t, sum[i] } }
  ' > "$here/$name.totals.txt"
done

: > "$here/errors.golden"
grep -v '^#' "$here/errors.txt" | while read -r option value; do
  [ -n "$option" ] || continue
  status=0
  msg=$(go tool pprof -tags "-$option=$value" go/heap.pb.gz 2>&1 >/dev/null) || status=$?
  msg=$(printf '%s\n' "$msg" | grep -v '^Main binary filename not available' | head -n 1)
  printf '%s %s\texit %d: %s\n' "$option" "$value" "$status" "$msg" >> "$here/errors.golden"
done
go version > "$here/GO_VERSION"
