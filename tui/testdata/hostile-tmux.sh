#!/usr/bin/env bash
# hostile-tmux.sh: the real binary in tmux at 80 columns on a profile
# whose file name holds escape sequences (OSC 0 sets the title, OSC 52
# the clipboard) and soft hyphens (0 columns to a careless width
# function, 1 to the terminal). The pane's title must stay as it was, no
# row may wrap, and the status bar must be drawn once, on its row.
#
#   bash tui/testdata/hostile-tmux.sh          # from the repository root
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "hostile-tmux: tmux is not installed" >&2; exit 2; }

OUT=$(mktemp -d)
SOCK="$OUT/tmux.sock"
S=hostile
W=80 H=24
# PPROF_TUI_BIN: a binary already built (go test builds one for all the scripts).
BIN=${PPROF_TUI_BIN:-$OUT/pprof-tui}
[ -n "${PPROF_TUI_BIN:-}" ] || go build -o "$BIN" .

t() { tmux -u -S "$SOCK" "$@"; }
cleanup() { t kill-server 2>/dev/null || true; rm -rf "$OUT"; }
trap cleanup EXIT

fail() {
  echo "hostile-tmux: FAIL: $*" >&2
  t capture-pane -p -t $S >&2 || true
  exit 1
}

shy=$(printf '\xc2\xad%.0s' $(seq 10))
name="n$(printf '\e]0;PWNED\a\e]52;c;Zm5hbWU=\a')${shy}x.pb.gz"
cp testdata/go/cpu_labels.pb.gz "$OUT/$name"

t new-session -d -s $S -x $W -y $H "cd '$OUT' && LC_ALL=C.UTF-8 TERM=xterm-256color '$BIN' ./n*.pb.gz; sleep 30"
t set-option -t $S allow-rename off
for _ in $(seq 750); do
  t capture-pane -p -t $S | grep -qF "flat%" && break
  sleep 0.02
done
t capture-pane -p -t $S | grep -qF "flat%" || fail "the profile never opened"

# :cmd too: it draws the name again.
t send-keys -t $S ":" && sleep 0.2 && t send-keys -t $S -l "cmd" && t send-keys -t $S Enter
sleep 0.5
t capture-pane -p -t $S | grep -qF "Reopen this view" || fail ":cmd did not open"
t send-keys -t $S Escape && sleep 0.5

title=$(t display -p -t $S '#{pane_title}')
[ "$title" != PWNED ] || fail "the file name set the window title"
screen=$(t capture-pane -p -t $S)
rows=$(printf '%s\n' "$screen" | wc -l)
[ "$rows" -eq $H ] || fail "$rows rows captured, want $H"
first=$(printf '%s\n' "$screen" | sed -n 1p)
case "$first" in *"1 Top"*) ;; *) fail "a row wrapped: the tab bar is not on the first row: $first" ;; esac
bars=$(printf '%s\n' "$screen" | grep -c "total 2.84s" || true)
[ "$bars" -eq 1 ] || fail "the status bar is drawn $bars times"
status=$(printf '%s\n' "$screen" | sed -n "$((H-1))p")
case "$status" in *"n␛]0;PWNED␇"*) ;; *) fail "the status bar is not on row $((H-1)): $status" ;; esac
echo "hostile-tmux: ok"
