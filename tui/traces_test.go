package tui

import (
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/views"
)

func TestTracesScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		w, h int
		keys []string // a search, then keys
	}{
		{"cpu-traces-80x24", 80, 24, nil},
		{"cpu-traces-120x35", 120, 35, nil},
		{"cpu-traces-partition-120x35", 120, 35, []string{"/", "^main.partition$"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sourceConfig("cpu_labels.pb.gz")
			cfg.Width, cfg.Height = tc.w, tc.h
			h := start(t, cfg)
			if len(tc.keys) > 0 {
				h.keys(tc.keys[0])
				h.typeText(tc.keys[1])
				h.keys("<enter>", "<esc>")
			}
			h.show(viewTraces)
			golden(t, tc.name, h.screen())
		})
	}
}

// TestTracesSelectFrame: enter on a frame of a stack through main.fib
// makes that frame's function the selection of every view, and the
// Traces view then lists the stacks through it.
func TestTracesSelectFrame(t *testing.T) {
	t.Parallel()
	h := start(t, sourceConfig("cpu_labels.pb.gz"))
	h.show(viewTraces)
	var tv *views.Traces
	h.do(func(m *Model) { tv = m.views.get(viewTraces).(*views.Traces) })
	cursor := func() (int, int, string) {
		var k, f int
		var name string
		h.do(func(*Model) { k, f, name = tv.Cursor() })
		return k, f, name
	}
	if k, f, name := cursor(); k != 0 || f != 0 || name != "main.fib" {
		t.Fatalf("cursor on stack %d frame %d %q, want the first stack's main.fib", k, f, name)
	}
	// Down the first stack past the recursion to main.runFib.func1.
	for {
		_, f, name := cursor()
		if name == "main.runFib.func1" {
			break
		}
		if f < 0 {
			t.Fatalf("no main.runFib.func1 in the first stack:\n%s", h.screen())
		}
		h.keys("j")
	}
	h.keys("<enter>")
	waitSelected(h, "main.runFib.func1")
	h.waitFor("traces about main.runFib.func1", func(m *Model) bool {
		s, _ := tv.Selection()
		return s.Name == "main.runFib.func1" && !viewsBusy(m)
	})
	if screen := h.screen(); !strings.Contains(screen, "stacks through main.runFib.func1") || !strings.Contains(screen, "● main.runFib.func1") {
		t.Errorf("traces not about main.runFib.func1:\n%s", screen)
	}
	var history int
	h.do(func(m *Model) { history = m.History() })
	if history != 0 {
		t.Errorf("selecting a frame changed the options (history %d)", history)
	}
	// Top shows the same function.
	h.keys("1")
	var top string
	h.do(func(m *Model) { top = m.views.top.RowName(0) })
	if top != "main.runFib.func1" {
		t.Errorf("Top after enter in Traces: cursor on %q", top)
	}
	// A search for a label value lands on a stack's head.
	h.show(viewTraces)
	h.keys("/")
	h.typeText("worker:w0")
	h.keys("<enter>")
	if _, f, _ := cursor(); f != -1 {
		t.Errorf("search for a label: cursor on frame %d, want a stack's head", f)
	}
}
