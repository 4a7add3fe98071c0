#!/usr/bin/env bash
# Rebuilds the producer corpus on this machine and regenerates its goldens
# from the producers' own reference tools. Run from anywhere:
#   bash testdata/producers/regen.sh            # new profiles, then goldens
#   bash testdata/producers/regen.sh goldens    # goldens of the files here
#   bash testdata/producers/regen.sh perfwork   # one producer (goheap, tcheap, perfwork, …), then goldens
# A producer that cannot be set up here is skipped with a one-line note and
# its files are left as they are. See ../README.md for what each file is.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
export TZ=UTC
mode=${1:-all}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
note() { echo "regen: $*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# google/pprof itself, with binutils, for the gperftools goldens.
PPROF_VERSION=v0.0.0-20261016150608-1facf8f91b50

# --- Producers ---------------------------------------------------------

goheap() { # Go's ?debug=1 text profiles and their binary
  have go || { note "skip goheap: no go"; return; }
  (cd src/goheap && go build -trimpath -ldflags='-s -w' -o "$work/goheap" .)
  mkdir -p "$work/goheap.out"
  "$work/goheap" "$work/goheap.out"
  cp "$work"/goheap.out/*.debug1.txt goheap/
  gzip -9n < "$work/goheap" > goheap/goheap.gz
}

tcheap() { # gperftools: HEAPPROFILE dumps, heap_v2 and growth samples
  have c++ || { note "skip tcheap: no c++"; return; }
  [ -e /usr/include/gperftools/heap-profiler.h ] || {
    note "skip tcheap: no gperftools (apt-get install libgoogle-perftools-dev)"; return; }
  # An absolute source name, the same on every machine, so that every
  # symbolizer prints the same file name (/build/tcheap.cc).
  c++ -g -O1 -fno-omit-frame-pointer -fdebug-prefix-map="$here/src/tcheap=/build" \
    -o "$work/tcheap" "$here/src/tcheap/tcheap.cc" -ltcmalloc
  mkdir -p "$work/tc"
  HEAPPROFILE="$work/tc/heap" TCMALLOC_SAMPLE_PARAMETER=65536 "$work/tcheap" "$work/tc" 2>/dev/null
  # Every mapped file is renamed /absent/NAME, so that pprof and we find
  # only the binaries kept here (PPROF_BINARY_PATH=.), whatever libc this
  # machine has: the others stay unsymbolized ([libc.so.6]) in both.
  for f in heap.0001.heap heap.0002.heap heap_v2.heap growth.heap; do
    sed -E 's|^([0-9a-f]+-[0-9a-f]+ .* )/([^ ]*/)?([^/ ]+)$|\1/absent/\3|' "$work/tc/$f" > "tcheap/$f"
  done
  lib=$(grep -o '/[^ ]*libtcmalloc[^ ]*' "$work/tc/heap_v2.heap" | head -n 1)
  gzip -9n < "$lib" > "tcheap/$(basename "$lib").gz"
  gzip -9n < "$work/tcheap" > tcheap/tcheap.gz
}

perfwork() { # Linux perf: perf script text, perf report as the oracle
  have perf || { note "skip perf: no perf (apt-get install linux-perf)"; return; }
  have cc || { note "skip perf: no cc"; return; }
  cc -g -O1 -fno-omit-frame-pointer -fdebug-prefix-map="$here/src/perfwork=/build" \
    -o "$work/perfwork" "$here/src/perfwork/perfwork.c" -lm -lpthread
  if ! perf record -q -F 999 -g -e cpu-clock,task-clock -o "$work/perf.data" "$work/perfwork" >/dev/null 2>"$work/err"; then
    note "skip perf: perf record failed (kernel.perf_event_paranoid?): $(head -n 1 "$work/err")"; return
  fi
  mkdir -p perf/golden
  perf script -i "$work/perf.data" -F +pid 2>/dev/null | gzip -9n > perf/perfwork.script.gz
  # perf's own shares per symbol: self (--no-children) and with callees
  # (--children), one section per event.
  perf report -i "$work/perf.data" --stdio --sort sym -g none --no-children 2>/dev/null > perf/golden/report.self.txt
  perf report -i "$work/perf.data" --stdio --sort sym -g none --children 2>/dev/null > perf/golden/report.children.txt
  perf --version > perf/golden/PERF_VERSION
}

v8work() { # V8 CPU profile (node --cpu-prof); the test computes its own oracle
  have node || { note "skip v8: no node"; return; }
  mkdir -p "$work/v8" v8
  cp src/v8work/work.js "$work/v8/"
  (cd "$work/v8" && node --cpu-prof --cpu-prof-dir=. --cpu-prof-name=work.cpuprofile \
    --cpu-prof-interval 1000 work.js >/dev/null)
  # The script's URL names this machine's temporary directory: /build instead.
  sed "s|file://$work/v8/|file:///build/|g" "$work/v8/work.cpuprofile" > v8/work.cpuprofile
  node --version > v8/NODE_VERSION
}

gotrace() { # go tool trace -pprof=net|sync|syscall|sched
  have go || { note "skip gotrace: no go"; return; }
  (cd src/gotrace && go build -trimpath -o "$work/gotrace" .)
  "$work/gotrace" "$work/trace.out"
  mkdir -p gotrace
  for k in net sync syscall sched; do
    go tool trace -pprof=$k "$work/trace.out" > "gotrace/$k.pb" 2>/dev/null
  done
}

ddnode() { # npm @datadog/pprof (wall+cpu with labels, line numbers, heap) and npm pprof
  have npm && have node || { note "skip ddnode: no node/npm"; return; }
  mkdir -p "$work/ddnode" ddnode
  cp src/ddnode/package.json src/ddnode/ddwork.js "$work/ddnode/"
  if ! (cd "$work/ddnode" && npm install --no-audit --no-fund >/dev/null 2>"$work/err"); then
    note "skip ddnode: npm install @datadog/pprof failed: $(tail -n 1 "$work/err")"; return
  fi
  cp src/ddnode/gnode.js "$work/ddnode/"
  (cd "$work/ddnode" && node ddwork.js "$here/ddnode")
  # npm pprof builds its addon with node-gyp: an install script npm may
  # not have run.
  if (cd "$work/ddnode" && npm rebuild pprof >/dev/null 2>"$work/err"); then
    (cd "$work/ddnode" && node gnode.js "$here/ddnode")
  else
    note "skip npm pprof: its addon does not build: $(tail -n 1 "$work/err")"
  fi
  node --version > ddnode/NODE_VERSION
}

goprofs() { # fgprof, godeltaprof, go test -memprofile -blockprofile -mutexprofile
  have go || { note "skip goprofs: no go"; return; }
  if ! (cd src/goprofs && go build -trimpath -o "$work/goprofs" . 2>"$work/err"); then
    note "skip goprofs: cannot build (Go module proxy?): $(tail -n 1 "$work/err")"; return
  fi
  mkdir -p goprofs
  "$work/goprofs" goprofs
  (cd src/goprofs && go test -trimpath -o "$work/goprofs.test" -run TestWork \
    -memprofile "$here/goprofs/test-mem.pb.gz" -blockprofile "$here/goprofs/test-block.pb.gz" \
    -mutexprofile "$here/goprofs/test-mutex.pb.gz" . >/dev/null)
}

jfr() { # OpenJDK Flight Recorder, converted by github.com/grafana/jfr-parser
  have javac && have java || { note "skip jfr: no JDK"; return; }
  [ -n "${JFR_PARSER_DIR:-}" ] || {
    note "skip jfr: set JFR_PARSER_DIR to a checkout of github.com/grafana/jfr-parser (1d06ce37; not on the module proxy)"; return; }
  mkdir -p "$work/jfr" jfr
  cp src/jfr/* "$work/jfr/"
  (cd "$work/jfr" && go mod edit -replace "github.com/grafana/jfr-parser=$JFR_PARSER_DIR" &&
    GOFLAGS=-mod=mod go build -o jfr2pprof . && javac Work.java &&
    java -XX:StartFlightRecording=filename=rec.jfr,settings=profile -cp . Work >/dev/null 2>&1 &&
    ./jfr2pprof rec.jfr "$here/jfr" >/dev/null) || { note "skip jfr: the recording or its conversion failed"; return; }
  java -version 2>&1 | head -n 1 > jfr/JAVA_VERSION
}

# --- Goldens -------------------------------------------------------------

# setup DIR: a copy of DIR's inputs in $work/run with *.gz gunzipped
# (binaries, kept compressed here), but not *.pb.gz (profiles).
setup() {
  rm -rf "$work/run"
  mkdir -p "$work/run"
  for f in "$1"/*; do
    case "$f" in */golden) continue ;; esac
    case "$f" in
      *.pb.gz) cp "$f" "$work/run/" ;; # a profile: pprof reads it gzipped
      *.gz) gunzip < "$f" > "$work/run/$(basename "${f%.gz}")"; chmod +x "$work/run/$(basename "${f%.gz}")" ;;
      *) cp "$f" "$work/run/" ;;
    esac
  done
}

goldens() {
  local gopprof=""
  if have llvm-symbolizer || have addr2line; then
    GOBIN="$work/bin" GOFLAGS=-mod=mod go install "github.com/google/pprof@$PPROF_VERSION" 2>/dev/null &&
      gopprof="$work/bin/pprof" || note "skip pprof goldens: cannot install github.com/google/pprof"
  else
    note "skip pprof goldens: no binutils (addr2line) or llvm-symbolizer"
  fi
  go version > GO_VERSION
  echo "github.com/google/pprof@$PPROF_VERSION" >> GO_VERSION
  local dir name oracle
  while read -r dir name oracle args; do
    case "$dir" in ''|'#'*) continue ;; esac
    [ -d "$dir" ] || continue
    setup "$dir"
    mkdir -p "$dir/golden"
    args=${args//\$SRC/$here/src} # the sources, for -list
    local tool=(go tool pprof)
    case "$oracle" in
      pprof) [ -n "$gopprof" ] || continue; tool=("$gopprof") ;;
    esac
    # shellcheck disable=SC2086 # args are split as the test splits them
    if ! (cd "$work/run" && PPROF_BINARY_PATH=. "${tool[@]}" $args) \
        > "$dir/golden/$name.txt" 2> "$work/err" < /dev/null; then
      note "$dir $name: $(head -n 1 "$work/err")"
      rm -f "$dir/golden/$name.txt"
    elif [ -f "$dir/golden/$name.txt" ]; then
      # The sources' path is this checkout's: the golden says $SRC.
      sed -i "s|$here/src|\$SRC|g" "$dir/golden/$name.txt"
    fi
  done < cases.txt
}

case "$mode" in
  all) goheap; tcheap; perfwork; v8work; gotrace; ddnode; goprofs; jfr ;;
  goldens) ;;
  *) for p in "$@"; do "$p"; done ;;
esac
goldens
