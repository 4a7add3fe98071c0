package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// panicky is a Top view that crashes on a key: "P" in Update (the UI
// goroutine), "C" in a command (bubbletea's recovery), and in its next
// computation after "X" (ours: the next key, "s", recomputes).
type panicky struct {
	inner
	crashNext *bool
}

func (p panicky) Query(e *analysis.Engine, opt analysis.Options, sel string) (views.Job, string) {
	run, state := p.inner.Query(e, opt, sel)
	if *p.crashNext {
		return func() (func(), error) { panic("test panic in a computation") }, state
	}
	return run, state
}

// inner names the embedded view (whose View method hides the type's name).
type inner = views.View

func (p panicky) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "P":
			panic("test panic in Update")
		case "C":
			return func() tea.Msg { panic("test panic in a command") }
		case "X":
			*p.crashNext = true
			return nil
		}
	}
	return p.inner.Update(msg)
}

// TestPanicChild is the explorer with a crashing view, run by
// TestPanicRestoresTerminal in a real terminal; it is skipped otherwise.
func TestPanicChild(t *testing.T) {
	if os.Getenv("PPROF_TUI_PANIC_CHILD") == "" {
		t.Skip("run by TestPanicRestoresTerminal")
	}
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Width, cfg.Height = 0, 0
	cfg.Input, cfg.Output = os.Stdin, os.Stdout
	cfg.ColorProfile = termenv.ANSI256
	cfg.NoMouse = false
	p, m := NewProgram(context.Background(), cfg)
	m.views.all[viewTop] = panicky{m.views.all[viewTop], new(bool)}
	err := run(p, m)
	fmt.Printf("RUN RETURNED: %v\n", err)
	if err == nil {
		os.Exit(0)
	}
	os.Exit(3)
}

// TestPanicRestoresTerminal: a crash, on the UI goroutine or in a
// command, gives the terminal back (no raw mode, no alternate screen, no
// mouse reporting, cursor shown) and ends with an error. It runs the
// test binary's TestPanicChild in tmux. Skipped without tmux or with
// -short.
func TestPanicRestoresTerminal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	for _, tc := range []struct {
		keys, want string
		stack      bool // the stack is on the restored screen
	}{
		{"P", "please report it with this text): test panic in Update", true},
		// A panic in a command the root did not guard is bubbletea's to
		// recover, which prints the stack on the alternate screen, which
		// goes: the root guards its own commands.
		{"C", ErrPanic.Error(), false},
		{"Xs", "test panic in a computation", true},
	} {
		t.Run(tc.keys, func(t *testing.T) {
			if raceEnabled && tc.keys == "C" {
				// The child is this binary, race-enabled too. bubbletea
				// (v1.3.10) ends a program whose command panicked without
				// waiting for its input reader, and closes the terminal
				// under it (cancelreader v0.2.2): the race report can
				// replace what the test reads. The root's own crashes
				// end through an ordinary quit, and are tested here.
				t.Skip("-race: bubbletea's recovery of a command's panic races in the child")
			}
			sock := filepath.Join(t.TempDir(), "tmux.sock")
			tm := func(args ...string) string {
				out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("tmux %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			script := fmt.Sprintf("PPROF_TUI_PANIC_CHILD=1 %q -test.run='^TestPanicChild$' > /dev/tty; echo EXIT=$?; stty -a; echo STTY-END; sleep 60", bin)
			tm("new-session", "-d", "-s", "p", "-x", "100", "-y", "40", "-c", wd, "sh", "-c", script)
			defer exec.Command("tmux", "-S", sock, "kill-server").Run()
			wait := func(text string) string {
				var screen string
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					screen = tm("capture-pane", "-p", "-J", "-S", "-200", "-t", "p")
					if strings.Contains(screen, text) {
						return screen
					}
				}
				t.Fatalf("the terminal never showed %q:\n%s", text, screen)
				return ""
			}
			wait("main.fib")
			tm("send-keys", "-t", "p", tc.keys)
			// Wait for stty's last line: under load a capture can come
			// between its lines.
			screen := wait("STTY-END")
			if !strings.Contains(screen, "EXIT=3") || !strings.Contains(screen, tc.want) {
				t.Errorf("the crash did not end with %q and a failure status:\n%s", tc.want, screen)
			}
			if tc.stack && !strings.Contains(screen, "panic_test.go") {
				t.Errorf("no stack on the restored screen:\n%s", screen)
			}
			stty := screen[strings.Index(screen, "EXIT="):]
			for _, mode := range []string{"icanon", "echo", "isig"} {
				if !strings.Contains(" "+strings.Join(strings.Fields(stty), " ")+" ", " "+mode+" ") {
					t.Errorf("terminal left without %s:\n%s", mode, stty)
				}
			}
			flags := strings.Fields(tm("display", "-p", "-t", "p", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}"))
			if strings.Join(flags, " ") != "0 0 1" {
				t.Errorf("alternate screen, mouse, cursor = %v, want 0 0 1", flags)
			}
		})
	}
}
