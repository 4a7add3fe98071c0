#!/usr/bin/env bash
# Makes pprof's side of the saved-configuration tests with `go tool pprof
# -http` itself, headless: its web UI's /ui/saveconfig endpoint (what the
# Config menu's "Save as" posts) writes pprof-settings.json, and its Top
# page's Config menu, read with ours.json as the settings file, gives
# ours.menu.txt (each configuration's name and the URL query pprof
# applies for it).
# Usage: bash analysis/testdata/configs/regen.sh   (from anywhere; needs curl)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
profile="$here/../../../testdata/go/cpu_labels.pb.gz"
port=${PPROF_PORT:-18731}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# serve starts go tool pprof -http with settings under $tmp/$1 (pprof
# keeps them in os.UserConfigDir()/pprof/settings.json, which is
# $XDG_CONFIG_HOME/pprof/settings.json on Linux).
serve() {
  mkdir -p "$tmp/$1/pprof"
  # go itself reads its env file under XDG_CONFIG_HOME: build first.
  XDG_CONFIG_HOME="$tmp/$1" "$pprof_bin" -http=127.0.0.1:$port -no_browser "$profile" >"$tmp/$1.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/ui/top" && return
    sleep 0.2
  done
  echo "pprof did not start" >&2; cat "$tmp/$1.log" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# The pprof of this Go release, as a binary (go tool pprof builds it).
pprof_bin="$(go env GOROOT)/pkg/tool/$(go env GOOS)_$(go env GOARCH)/pprof"
[ -x "$pprof_bin" ] || pprof_bin="$(go tool -n pprof)"

# 1. Configurations saved by pprof's web UI.
serve saved
save() { curl -sf -X POST "http://127.0.0.1:$port/ui/saveconfig?config=$1&$2"; }
save hot 'f=main%5C.(quicksort%7ChashBlock)&i=fmt&g=lines&h=runtime'
save by-cum 'sort=cum&noinlines=t&trim=f&tf=worker%3Dw1&n=20&nf=0.01'
save hot 'f=main%5C.(quicksort%7ChashBlock)&i=fmt%7Cslices&g=lines&h=runtime'   # Save as an existing name replaces it
stop
cp "$tmp/saved/pprof/settings.json" "$here/pprof-settings.json"

# 2. pprof's Config menu for the file pprof-tui wrote.
serve menu
cp "$here/ours.json" "$tmp/menu/pprof/settings.json"
curl -sf "http://127.0.0.1:$port/ui/top" > "$tmp/top.html"
stop
# Each user entry: <a href="?QUERY"> NAME <span class="menu-delete-btn" ...
python3 - "$tmp/top.html" > "$here/ours.menu.txt" <<'PY'
import html, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
for href, name in re.findall(r'<a href="\?([^"]*)">\s*([^<\s][^<]*?)\s*<span class="menu-delete-btn"', page):
    print(html.unescape(name) + "\t" + html.unescape(href))
PY
go version > "$here/GO_VERSION"
