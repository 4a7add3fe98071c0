#!/usr/bin/env bash
# Regenerates the goldens of analysis/report from `go tool pprof`, the
# reference implementation: one NAME.txt per line of cases.txt, made by
# `go tool pprof -REPORT -symbolize=none FLAGS PROFILE` in UTC. The Go
# release whose pprof made them is recorded in GO_VERSION.
# Run from anywhere: bash analysis/report/testdata/regen.sh
set -euo pipefail
cd "$(dirname "$0")"
export TZ=UTC
profiles=../../../testdata
go version > GO_VERSION
# The gperftools CPU profile as go tool pprof symbolizes it with its
# binary: the graph reports' cases read it, so that they compare the
# reports and not the two symbolizers (see symbolize_test.go for those).
(cd "$profiles/legacy" && go tool pprof -proto cpubench cpu.prof > cpu.prof.pprof.pb.gz 2>/dev/null)
while read -r name report profile flags; do
  case "$name" in ''|'#'*) continue ;; esac
  # shellcheck disable=SC2086 # flags are separate words
  if [ "$report" = list ]; then
    # A list case's flags start with -list=RE; it runs in analysis/report,
    # where the test runs, so that the paths in pprof's errors are the
    # test's. BINARY+PROFILE is symbolized with the binary.
    if [[ "$profile" == *+* ]]; then
      (cd .. && go tool pprof $flags "../../testdata/${profile%%+*}" "../../testdata/${profile#*+}") > "$name.txt" 2>/dev/null
    else
      (cd .. && go tool pprof -symbolize=none $flags "../../testdata/$profile") > "$name.txt" 2>/dev/null
    fi
  elif [ "$report" = disasm ]; then
    # A disasm case's flags start with -disasm=RE; BINARY+PROFILE gives
    # the binary to decode (and symbolize with). Run where the test runs.
    (cd .. && go tool pprof $flags "../../testdata/${profile%%+*}" "../../testdata/${profile#*+}") > "$name.txt" 2>/dev/null || true
  elif [ "$report" = peek ]; then
    # A peek case's flags start with -peek=RE, the report itself.
    go tool pprof -symbolize=none $flags "$profiles/$profile" > "$name.txt" 2>/dev/null
  elif [ "$report" = topproto ]; then
    # A binary report: the golden is pprof's -raw of the profile it writes.
    tmp=$(mktemp --suffix=.pb.gz)
    go tool pprof -topproto -symbolize=none $flags -output="$tmp" "$profiles/$profile" 2>/dev/null
    go tool pprof -raw -symbolize=none "$tmp" > "$name.txt" 2>/dev/null
    rm -f "$tmp"
  elif [[ "$profile" == *+* ]]; then
    # BINARY+PROFILE: symbolized with the binary, as the test loads it.
    go tool pprof "-$report" $flags "$profiles/${profile%%+*}" "$profiles/${profile#*+}" > "$name.txt" 2>/dev/null
  else
    go tool pprof "-$report" -symbolize=none $flags "$profiles/$profile" > "$name.txt" 2>/dev/null
  fi
done < cases.txt
