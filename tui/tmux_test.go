package tui

import (
	"os/exec"
	"testing"
)

// runScript runs the tmux script testdata/name; skipped without tmux or
// with -short.
func runScript(t *testing.T, name string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	out, err := exec.Command("bash", "testdata/"+name).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	t.Logf("%s", out)
}

// TestTmuxSmoke runs testdata/tmux-smoke.sh: the real binary in tmux
// through the first minute (open, hottest function, :sample_index=,
// view 2, search, flame graph zoom, quit).
func TestTmuxSmoke(t *testing.T) { runScript(t, "tmux-smoke.sh") }

// TestLiveEndToEnd runs testdata/live-e2e.sh: the real binary with
// -refresh=2s on a real net/http/pprof service whose hot function
// changes; the top row follows with no key pressed.
func TestLiveEndToEnd(t *testing.T) { runScript(t, "live-e2e.sh") }

// TestTmuxHostileName runs testdata/hostile-tmux.sh: a file name with
// escape sequences and soft hyphens neither sets the terminal's title
// nor wraps a row.
func TestTmuxHostileName(t *testing.T) { runScript(t, "hostile-tmux.sh") }
