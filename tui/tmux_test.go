package tui

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/testrun"
)

// built is the pprof-tui binary the tmux scripts share: built once per
// test run (the scripts build their own when run alone), removed by
// TestMain.
var built struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// builtBinary returns the path of the pprof-tui binary, building it on
// first use.
func builtBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "pprof-tui-test"); built.err != nil {
			return
		}
		built.out, built.err = exec.Command("go", "build", "-o", filepath.Join(built.dir, "pprof-tui"), "..").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return filepath.Join(built.dir, "pprof-tui")
}

// TestMain runs up to four parallel tests at once unless -parallel says
// otherwise: the parallel ones (the tmux scripts, the live refreshes,
// go tool pprof, the stress tests' programs) mostly wait. The tests that
// set the environment or change a package variable stay sequential; the
// one that reads the process's heap runs in a process of its own
// (testrun.Alone).
func TestMain(m *testing.M) {
	flag.Parse()
	testrun.Parallel(4)
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// runScript runs the tmux script testdata/name with the shared binary
// (PPROF_TUI_BIN); skipped without tmux or with -short. The scripts
// mostly wait for screens, so they run in parallel with each other and
// the other waiting tests.
func runScript(t *testing.T, name string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	t.Parallel()
	cmd := exec.Command("bash", "testdata/"+name)
	cmd.Env = append(os.Environ(), "PPROF_TUI_BIN="+builtBinary(t))
	out, err := cmd.CombinedOutput()
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
