#!/usr/bin/env bash
# tmux-smoke.sh: the first minute with the real binary in a real terminal
# (tmux): open testdata/go/cpu_labels.pb.gz, see the hottest function,
# switch the sample type with :sample_index=samples, open view 2, search,
# zoom in the flame graph, quit; the terminal must be given back. Exits non-zero on any failure.
#
#   bash tui/testdata/tmux-smoke.sh            # from the repository root
#   KEEP=1 bash tui/testdata/tmux-smoke.sh     # leave the captures in $OUT
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "tmux-smoke: tmux is not installed" >&2; exit 2; }

OUT=$(mktemp -d)
SOCK="$OUT/tmux.sock"
S=smoke
# PPROF_TUI_BIN: a binary already built (go test builds one for all the scripts).
BIN=${PPROF_TUI_BIN:-$OUT/pprof-tui}
[ -n "${PPROF_TUI_BIN:-}" ] || go build -o "$BIN" .

t() { tmux -S "$SOCK" "$@"; }
cleanup() {
  t kill-server 2>/dev/null || true
  if [ -z "${KEEP:-}" ]; then rm -rf "$OUT"; else echo "captures in $OUT"; fi
}
trap cleanup EXIT

fail() {
  echo "tmux-smoke: FAIL: $*" >&2
  echo "--- screen:" >&2
  t capture-pane -p -t $S >&2 || true
  exit 1
}

# wait_for TEXT: poll the screen until it shows TEXT (15 s at most, for
# busy CI machines).
wait_for() {
  for _ in $(seq 750); do
    if t capture-pane -p -t $S | grep -qF -- "$1"; then return 0; fi
    sleep 0.02
  done
  fail "the screen never showed: $1"
}

capture() { t capture-pane -p -t $S > "$OUT/$1.txt"; }

# The program runs in a shell so that the exit status and what is left on
# the terminal after it can be checked.
t new-session -d -s $S -x 120 -y 35 "TERM=xterm-256color $BIN testdata/go/cpu_labels.pb.gz; echo EXIT=\$?; sleep 30"

# 1. The first screen: the Top view with the hottest function first.
wait_for "flat%"
capture 1-open
first_row=$(sed -n 3p "$OUT/1-open.txt")
echo "$first_row" | grep -q "main.fib" || fail "the first row is not main.fib: $first_row"
echo "$first_row" | grep -q "750ms 26.41%" || fail "main.fib's numbers differ from pprof's (0.75s): $first_row"
grep -q "cpu (nanoseconds)" "$OUT/1-open.txt" || fail "the status bar does not name the sample type"

# 2. :sample_index=samples — the same table in sample counts.
t send-keys -t $S ":"
wait_for ":focus=RE"
t send-keys -t $S -l "sample_index=samples"
t send-keys -t $S Enter
wait_for "samples (count)"
wait_for "75 26.41%"
capture 2-samples

# 3. View 2: the call tree, opened down to the hottest function.
t send-keys -t $S 2
wait_for "top-down call tree"
wait_for "main.fib"
capture 3-tree

# 4. Search: /runHash moves the cursor to that row.
t send-keys -t $S /
t send-keys -t $S -l "runHash"
wait_for "/runHash"
t send-keys -t $S Enter
wait_for "/runHash  1/1 · n/N next"
capture 4-search
grep "▶" "$OUT/4-search.txt" | grep -q "main.runHash" || fail "the cursor is not on main.runHash"

# 5. View 4: the flame graph on the selected function (main.runHash);
# enter zooms into it; esc clears the search first, the next esc zooms
# back out.
t send-keys -t $S 4
wait_for "▏root 284"
wait_for "▶ main.runHash"
t send-keys -t $S Enter
wait_for "zoomed ×1"
capture 5-flame
grep -q "^▶main.runHash 24.65%" "$OUT/5-flame.txt" || fail "the zoomed frame is not main.runHash"
grep -q "esc clears" "$OUT/5-flame.txt" || fail "the footer does not say esc clears the search"
t send-keys -t $S Escape
for _ in $(seq 750); do
  t capture-pane -p -t $S | grep -qF "esc clears" || break
  sleep 0.02
done
t capture-pane -p -t $S | grep -qF "zoomed ×1" || fail "esc with a search zoomed out instead of clearing it"
t send-keys -t $S Escape
for _ in $(seq 750); do
  t capture-pane -p -t $S | grep -qF "zoomed ×1" || break
  sleep 0.02
done
t capture-pane -p -t $S | grep -qF "zoomed ×1" && fail "esc did not zoom out"

# 6. Top: sorting keeps the selected function selected (main.runHash,
# from the search), the info panel shows pprof's header facts, and :save
# writes the view's profile.
t send-keys -t $S 1
wait_for "flat↓"
t send-keys -t $S o
wait_for "cum↓"
capture 6-sorted
grep "▶" "$OUT/6-sorted.txt" | grep -q "main.runHash" || fail "sorting moved the cursor off main.runHash"
t send-keys -t $S I
wait_for "Build ID: 4a99b1883bd589acb0d8b84bfebcbbbc9d695ef7"
capture 6-info
grep -q "Sample types" "$OUT/6-info.txt" || fail "the info panel lists no sample types"
t send-keys -t $S x
t send-keys -t $S ":"
t send-keys -t $S -l "save $OUT/saved.pb.gz"
t send-keys -t $S Enter
wait_for "saved $OUT/saved.pb.gz"
go tool pprof -top "$OUT/saved.pb.gz" 2>/dev/null | grep -q "main.fib" || fail ":save wrote no profile go tool pprof reads"

# 7. Quit: the program exits 0 and gives the terminal back (no alt screen
# left, the shell's next line visible).
t send-keys -t $S q
wait_for "EXIT=0"
capture 7-quit
if grep -q "top-down call tree\|▏root" "$OUT/7-quit.txt"; then fail "the explorer's screen was left behind"; fi

# 8. The picker: pprof-tui with no source, in a directory holding a
# profile under a name that says nothing (found by its content); enter
# opens it, P goes back to the picker.
mkdir -p "$OUT/dir/sub"
cp testdata/go/heap.pb.gz "$OUT/dir/sub/data.bin"
t new-session -d -s picker -x 100 -y 30 "cd $OUT/dir && $BIN; echo EXIT=\$?; sleep 30"
S=picker
wait_for "choose a profile"
wait_for "sub/"
t send-keys -t $S j j Enter # the demo, .., then sub/
wait_for "data.bin"
t send-keys -t $S j j Enter # the demo, .., then data.bin
wait_for "inuse_space"
t send-keys -t $S P
wait_for "choose a profile"
t send-keys -t $S q
wait_for "EXIT=0"

echo "tmux-smoke: ok (open, hottest function, :sample_index=samples, view 2, search, flame graph zoom, sort keeps the selection, I, :save, quit, the picker and P)"
