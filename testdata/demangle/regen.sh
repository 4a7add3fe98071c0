#!/usr/bin/env bash
# Regenerates the demangling goldens from `go tool pprof`: the top table of
# a profile with C++ names (already demangled, with parameters, templates
# and clone suffixes) under each -symbolize=demangle= mode, and under
# pprof's default, which simplifies them. Run from anywhere:
#   bash testdata/demangle/regen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC
for mode in default demangle=none demangle=full demangle=templates; do
  flag=-symbolize=$mode
  [ "$mode" = default ] && flag=
  # shellcheck disable=SC2086
  go tool pprof -top -nodefraction=0 -nodecount=1000000 -unit=ns $flag synthetic/bigprof_10k.pb.gz \
    > "demangle/bigprof.$mode.top.txt" 2>/dev/null
done
go version > demangle/GO_VERSION
