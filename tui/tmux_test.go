package tui

import (
	"os/exec"
	"testing"
)

// TestTmuxSmoke runs testdata/tmux-smoke.sh: the real binary in tmux
// through the first minute (open, hottest function, :sample_index=,
// view 2, search, flame graph zoom, quit). Skipped without tmux or with
// -short.
func TestTmuxSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	out, err := exec.Command("bash", "testdata/tmux-smoke.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("tmux-smoke.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestLiveEndToEnd runs testdata/live-e2e.sh: the real binary with
// -refresh=2s on a real net/http/pprof service whose hot function
// changes; the top row follows with no key pressed. Skipped without tmux
// or with -short.
func TestLiveEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	out, err := exec.Command("bash", "testdata/live-e2e.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("live-e2e.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
