package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// updating reports whether -update was given: rewrite the golden screens
// and the docs' key table and captures. (teatest's golden package defines
// the flag.)
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// The tests drive the real program with teatest at a fixed size and
// colour profile (none), and look at the model on its own goroutine
// through probe, so they never race with it.

const testW, testH = 100, 30

// probe wraps the root model so a test can run code on the UI goroutine.
// The program draws a frame after every message; after a probe that
// only looks (waitFor's polls, screen), nothing changed, and the frame
// drawn before is given again instead of drawing the model anew.
type probe struct {
	m     *Model
	frame *probeFrame
}

type probeFrame struct {
	last  string
	again bool // the next View gives last
}

func newProbe(m *Model) probe { return probe{m, &probeFrame{}} }

type probeMsg struct {
	f    func(*Model)
	done chan struct{}
	look bool // f only reads the model
}

func (p probe) Init() tea.Cmd { return p.m.Init() }
func (p probe) View() string {
	if p.frame.again {
		p.frame.again = false
		return p.frame.last
	}
	p.frame.last = p.m.View()
	return p.frame.last
}
func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	p.frame.again = false
	if pm, ok := msg.(probeMsg); ok {
		pm.f(p.m)
		close(pm.done)
		p.frame.again = pm.look
		return p, nil
	}
	_, cmd := p.m.Update(msg)
	return p, cmd
}

type harness struct {
	t  testing.TB
	tm *teatest.TestModel
}

func testConfig(sources ...string) Config {
	dark := true
	opt := analysis.DefaultOptions()
	opt.NodeFraction = -1
	return Config{
		Sources:        format.Sources{Sources: sources},
		Options:        opt,
		ColorProfile:   termenv.Ascii,
		DarkBackground: &dark,
		Width:          testW,
		Height:         testH,
		NoMouse:        true,
	}
}

// start runs the program for cfg and waits for its first screen.
func start(t testing.TB, cfg Config) *harness {
	t.Helper()
	m := NewModel(context.Background(), cfg)
	tm := teatest.NewTestModel(t, newProbe(m), teatest.WithInitialTermSize(cfg.Width, cfg.Height))
	h := &harness{t, tm}
	t.Cleanup(func() { tm.Quit() })
	if len(cfg.Sources.Sources) > 0 {
		h.waitReady()
	}
	return h
}

// do runs f on the UI goroutine.
func (h *harness) do(f func(*Model)) { h.probe(f, false) }

// look runs f, which only reads the model, on the UI goroutine.
func (h *harness) look(f func(*Model)) { h.probe(f, true) }

func (h *harness) probe(f func(*Model), look bool) {
	done := make(chan struct{})
	h.tm.Send(probeMsg{f, done, look})
	select {
	case <-done:
	case <-time.After(patience * 10 * time.Second):
		h.t.Fatal("the program did not answer")
	}
}

// screen returns the current screen.
func (h *harness) screen() string {
	var s string
	h.look(func(m *Model) { s = m.View() })
	return s
}

// waitFor waits until cond holds with no computation in flight (the
// root's, a view's own: the flame graph's zoom, or a live snapshot's).
func (h *harness) waitFor(what string, cond func(m *Model) bool) {
	h.t.Helper()
	deadline := time.Now().Add(patience * 15 * time.Second)
	for {
		ok := false
		h.look(func(m *Model) {
			ok = !m.jobs.busy() && !viewsBusy(m) && (m.live == nil || m.live.shown == m.live.seq) && cond(m)
		})
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// viewsBusy reports whether a view is laying out in the background.
func viewsBusy(m *Model) bool {
	for _, v := range m.views.all {
		if b, ok := v.(interface{ Busy() bool }); ok && b.Busy() {
			return true
		}
	}
	return false
}

func (h *harness) waitReady() {
	h.t.Helper()
	h.waitFor("the first screen", func(m *Model) bool { return m.phase == phaseReady && m.ActiveView().HasResult() })
}

// settle waits until no computation is in flight.
func (h *harness) settle() {
	h.t.Helper()
	h.waitFor("the computations to finish", func(*Model) bool { return true })
}

// keys sends key presses: single runes, or names in brackets ("<enter>").
func (h *harness) keys(seq ...string) {
	for _, k := range seq {
		h.tm.Send(keyMsg(k))
		h.settle()
	}
}

// typeText types s into whatever has focus, then settles.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	h.settle()
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "<enter>":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "<esc>":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "<tab>":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "<backspace>":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "<down>":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "<up>":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "<right>":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "<left>":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "<space>":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "<pgdown>":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "<pgup>":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "<ctrl+c>":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// command types a `:` command and runs it.
func (h *harness) command(cmd string) {
	h.keys(":")
	h.typeText(cmd)
	h.keys("<enter>")
}

// golden compares screen with testdata/screens/name.txt.
func golden(t *testing.T, name, screen string) {
	t.Helper()
	path := filepath.Join("testdata", "screens", name+".txt")
	screen = trimLines(screen)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(screen), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != screen {
		t.Errorf("screen %s differs from %s (go test ./tui -update rewrites it)\ngot:\n%s\nwant:\n%s", name, path, screen, want)
	}
}

// trimLines drops trailing blanks of every line, which a terminal does
// not show either.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func testdata(name string) string { return filepath.Join("..", "testdata", "go", name) }

// newFinished runs m until it ends by itself.
func newFinished(t *testing.T, m *Model) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, newProbe(m), teatest.WithInitialTermSize(testW, testH))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	return tm
}
