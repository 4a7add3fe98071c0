#!/usr/bin/env bash
# Times symbolization: pprof-tui -top BINARY PROFILE (in-process) next to
# go tool pprof -top BINARY PROFILE on the same inputs, and next to
# addr2line -f -i on the same addresses (the binutils path upstream pprof
# runs). Two binaries, 50,000 addresses in each (stacks of five, one
# sample per stack), written by format/symbolize's TestWriteBenchInputs:
#   go     the Go toolchain's go command: symbols and pclntab, no DWARF
#   dwarf  a generated C program with full DWARF, 13.5 MB (gcc -O2 -g;
#          built once into $TMPDIR/pprof-tui-bench, a few minutes of CPU)
# Usage: bash testdata/bench-symbolize.sh   (from anywhere)
# TIMEOUT (seconds, default 900) bounds each command; GO_TOOL_TIMEOUT
# (default TIMEOUT) bounds go tool pprof, which takes many minutes on the
# DWARF binary. With upstream pprof installed (go install
# github.com/google/pprof@latest; or PPROF=path), its binutils path
# (addr2line and nm through pipes) is timed too: ROUNDS times (default
# 5), alternating with pprof-tui, and the ratio of each round is printed,
# since on a shared machine only times taken together compare.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=${TIMEOUT:-900}
gotimeout=${GO_TOOL_TIMEOUT:-$timeout}
rounds=${ROUNDS:-5}
upstream=${PPROF:-$(command -v pprof || true)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/pprof-tui" .
PPROF_TUI_BENCH_DIR="$dir" go test ./format/symbolize -run TestWriteBenchInputs -count=1 -timeout 30m > /dev/null

# run NAME LIMIT CMD...: wall time and peak RSS of one command, stdout to
# $dir/out-NAME; the seconds are left in $secs ("" when stopped).
run() {
  local name=$1 limit=$2
  shift 2
  secs=""
  if /usr/bin/time -f "%e %M" -o "$dir/time" timeout "$limit" "$@" > "$dir/out-$name" 2> /dev/null; then
    read -r secs kb < "$dir/time"
    printf '  %-28s %8.2f s %6d MB\n' "$name" "$secs" $((kb / 1024))
  else
    printf '  %-28s  > %d s (stopped)\n' "$name" "$limit"
  fi
}

for name in go dwarf; do
  bin=$(cat "$dir/$name.binary")
  prof="$dir/$name.pb.gz"
  echo "== $name: $bin ($(du -h "$bin" | cut -f1)), $(wc -l < "$dir/$name.addrs") addresses"
  if [ -n "$upstream" ]; then
    ratios=()
    for _ in $(seq "$rounds"); do
      run pprof-tui "$timeout" "$dir/pprof-tui" -top "$bin" "$prof"
      ours=$secs
      run upstream-pprof "$timeout" "$upstream" -top "$bin" "$prof"
      if [ -n "$ours" ] && [ -n "$secs" ]; then
        ratios+=("$(awk -v u="$secs" -v o="$ours" 'BEGIN { printf "%.1f", u / o }')")
      fi
    done
    echo "  upstream pprof / pprof-tui, per round: ${ratios[*]:-none}"
  else
    run pprof-tui "$timeout" "$dir/pprof-tui" -top "$bin" "$prof"
  fi
  run go-tool-pprof "$gotimeout" go tool pprof -top "$bin" "$prof"
  run pprof-tui-noinlines "$timeout" "$dir/pprof-tui" -top -noinlines "$bin" "$prof"
  run go-tool-pprof-noinlines "$gotimeout" go tool pprof -top -noinlines "$bin" "$prof"
  if command -v addr2line > /dev/null; then
    run addr2line "$timeout" addr2line -f -i -e "$bin" < "$dir/$name.addrs"
  fi
  # Same report with -noinlines (go tool pprof has no inline frames)?
  if [ -s "$dir/out-go-tool-pprof-noinlines" ]; then
    if diff <(sed 1,2d "$dir/out-pprof-tui-noinlines") <(sed 1,2d "$dir/out-go-tool-pprof-noinlines") > /dev/null; then
      echo "  -top -noinlines: identical to go tool pprof's"
    else
      echo "  -top -noinlines: DIFFERS from go tool pprof's"
    fi
  fi
done
