#!/usr/bin/env bash
# Runs one package's race-enabled tests again and again, one run at a
# time, and stops at the first run that dies of a signal, keeping what
# settles the cause: the run's output, the binary, its core and gdb's
# reading of the core.
#
#   bash testdata/race-loop.sh [PACKAGE] [RUNS]     default: ./tui 20
#   bash testdata/race-loop.sh all [RUNS]           the whole race suite, default 10
#   bash testdata/race-loop.sh read BINARY CORE     gdb's reading of a core
#
# all runs `go test -race -count=1 ./...` as .ci/run does (two test
# binaries at once, each loading both cores), prints each run's time and
# load average, and stops at a run in which a binary died of a signal,
# reading every core that run left with the binary that dumped it.
# DIR= keeps everything there (default: a new directory under /tmp).
# Runs whose tests fail are counted, their output kept, and the loop
# goes on; only a death by a signal stops it.
set -uo pipefail

# read prints what a core says: the signal that killed the process (a
# si_code of 0 or -6 was sent, by the runtime's own raise; 1 or 2 is a
# fault the kernel delivered while Go's handler could not take it; 128,
# a signal frame the kernel could not write), the
# faulting thread's stack (the frames under "<signal handler called>"
# are where the first fault was), its registers and instruction, every
# thread's stack and goroutine, and whether the race runtime's exit
# (racefini) had begun.
read_core() {
  local bin=$1 core=$2
  if ! command -v gdb >/dev/null; then
    echo "gdb is not installed: keep $bin and $core"
    return
  fi
  gdb -q -batch -nx -iex "add-auto-load-safe-path $(go env GOROOT)/src/runtime" \
    -ex 'echo \n== signal\n' -ex 'p $_siginfo' \
    -ex 'echo \n== faulting thread\n' -ex 'bt 40' \
    -ex 'echo \n== registers\n' -ex 'info registers rip rsp' -ex 'x/3i $pc' \
    -ex 'echo \n== exit begun (key != 0)\n' -ex "p 'runtime.raceFiniLock'" \
    -ex 'echo \n== threads\n' -ex 'info threads' -ex 'thread apply all bt 12' \
    -ex 'echo \n== goroutines\n' -ex 'info goroutines' \
    "$bin" "$core" 2>&1 | grep -v -e '^\[New LWP' -e 'reg-xstate'
}

if [ "${1:-}" = read ]; then
  read_core "$(realpath "$2")" "$(realpath "$3")"
  exit
fi

cd "$(dirname "$0")/.."

if [ "${1:-}" = all ]; then
  runs=${2:-10}
  dir=${DIR:-$(mktemp -d /tmp/race-loop.XXXXXX)}
  mkdir -p "$dir/bin"
  ulimit -c unlimited 2>/dev/null || echo "cannot raise the core size limit (ulimit -c $(ulimit -c)): no core will be written"
  echo "keeping runs in $dir"
  stamp=$dir/.stamp
  for i in $(seq 1 "$runs"); do
    touch "$stamp"
    start=$(date +%s)
    GOTRACEBACK=crash go test -race -count=1 -o "$dir/bin/" ./... >"$dir/out.$i" 2>&1
    rc=$?
    echo "run $i: exit status $rc, $(($(date +%s) - start)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    grep '^--- FAIL' "$dir/out.$i" | sed 's/^/  /'
    if ! grep -q '^signal: ' "$dir/out.$i"; then
      [ "$rc" -eq 0 ] && rm -f "$dir/out.$i"
      continue
    fi
    grep -B1 '^signal: ' "$dir/out.$i" | sed 's/^/  /'
    find . -name 'core*' -type f -newer "$stamp" | while read -r core; do
      pkgdir=$(dirname "$core")
      bin=$dir/bin/$(basename "$(go list -f '{{.ImportPath}}' "$pkgdir")").test
      n=$(echo "$pkgdir" | tr / _)
      mv "$core" "$dir/core$n.$i"
      read_core "$bin" "$dir/core$n.$i" >"$dir/gdb$n.$i"
      echo "core: $dir/core$n.$i, gdb's reading: $dir/gdb$n.$i"
    done
    echo "output: $dir/out.$i; binaries: $dir/bin"
    exit 1
  done
  echo "$runs runs of the race suite, none killed by a signal"
  exit 0
fi

pkg=${1:-./tui}
runs=${2:-20}
dir=${DIR:-$(mktemp -d /tmp/race-loop.XXXXXX)}
mkdir -p "$dir"
bin=$dir/$(basename "$(cd "$pkg" && pwd)").race
go test -race -c -o "$bin" "$pkg" || exit 1

ulimit -c unlimited 2>/dev/null || echo "cannot raise the core size limit (ulimit -c $(ulimit -c)): no core will be written"
echo "core_pattern: $(cat /proc/sys/kernel/core_pattern) (a plain name is written in $pkg)"
echo "keeping runs in $dir"

cd "$pkg"
stamp=$dir/.stamp
failed=0
for i in $(seq 1 "$runs"); do
  touch "$stamp"
  GOTRACEBACK=crash GORACE=halt_on_error=1 nice -n 10 "$bin" -test.v -test.timeout=20m >"$dir/out.$i" 2>&1
  rc=$?
  if [ "$rc" -le 128 ]; then
    echo "run $i: exit status $rc"
    if [ "$rc" -ne 0 ]; then
      failed=$((failed + 1))
      grep '^--- FAIL' "$dir/out.$i" | sed 's/^/  /'
    else
      rm -f "$dir/out.$i"
    fi
    continue
  fi
  echo "run $i: killed by signal $((rc - 128)) ($(kill -l $((rc - 128))))"
  echo "last test started: $(grep '^=== RUN' "$dir/out.$i" | tail -1)"
  grep -q '^PASS$' "$dir/out.$i" && echo "every test had passed: the death came while the binary exited"
  core=$(find . -maxdepth 1 -name 'core*' -newer "$stamp" | head -1)
  if [ -n "$core" ]; then
    mv "$core" "$dir/core.$i"
    read_core "$bin" "$dir/core.$i" >"$dir/gdb.$i"
    echo "core: $dir/core.$i, gdb's reading: $dir/gdb.$i"
  else
    echo "no core in $pkg: see core_pattern above"
  fi
  dmesg 2>/dev/null | tail -20 >"$dir/dmesg.$i"
  echo "output: $dir/out.$i; kernel log: $dir/dmesg.$i; binary: $bin"
  exit 1
done
echo "$runs runs, none killed by a signal ($failed with failing tests)"
