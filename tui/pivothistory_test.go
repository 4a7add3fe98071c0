package tui

import (
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// flameState is the flame graph's pivot and zoom, and the options.
type flameState struct {
	pivot, zoom string
	recursion   string
}

func (h *harness) flameState() flameState {
	var s flameState
	h.do(func(m *Model) { s = flameStateOf(m) })
	return s
}

// flameStateOf is flameState read on m, for waitFor's conditions.
func flameStateOf(m *Model) flameState {
	var s flameState
	f := m.views.get(viewFlame).(*views.Flame)
	s.pivot, _ = f.Pivoted()
	s.zoom, _ = f.Zoomed()
	s.recursion = m.Options().Recursion
	return s
}

// graphLines is a screen less its tab line, status bar and key hints:
// the view's own lines.
func graphLines(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return strings.Join(lines[1:len(lines)-2], "\n")
}

// TestFlamePivotHistory: in a pivot, b leaves it for the inverted graph
// as a step backspace undoes; R folds recursion in the pivot, which is
// then the pivot of the folded profile; S on another function pivots on
// it, backspace returning to the pivot before, then out of the pivot to
// the graph it was entered from, zoomed as it was.
func TestFlamePivotHistory(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	expect := func(what string, want flameState) {
		t.Helper()
		if got := h.flameState(); got != want {
			t.Fatalf("%s: %+v, want %+v\n%s", what, got, want, h.screen())
		}
	}
	// expectGraph is expect, with the graph's lines those of lines.
	expectGraph := func(what string, want flameState, lines string) {
		t.Helper()
		expect(what, want)
		if got := graphLines(h.screen()); got != lines {
			t.Errorf("%s: not the graph expected:\n%s\nwant:\n%s", what, got, lines)
		}
	}
	h.keys("4", "/")
	h.typeText("^main.cpuPhase.func1.1$")
	h.keys("<enter>", "<esc>", "<enter>", "/")
	h.typeText("^main.fib$")
	h.keys("<enter>", "<esc>")
	expect("zoomed", flameState{zoom: "main.cpuPhase.func1.1"})
	zoomed := graphLines(h.screen())
	h.keys("S")
	expect("S", flameState{pivot: "main.fib"})
	pivot := graphLines(h.screen())

	// b: out of the pivot to the inverted graph, and back.
	h.keys("b")
	shows(h, "root · inverted")
	expect("S b", flameState{})
	h.keys("<backspace>")
	expectGraph("S b ⌫ (the pivot)", flameState{pivot: "main.fib"}, pivot)
	h.keys("<backspace>")
	expectGraph("S b ⌫ ⌫ (the graph the pivot was entered from)", flameState{zoom: "main.cpuPhase.func1.1"}, zoomed)

	// R: the pivot stays, on the folded stacks: as pivoting on the
	// folded profile shows it.
	h.keys("S", "R")
	expect("S R", flameState{pivot: "main.fib", recursion: analysis.RecursionAll})
	folded := graphLines(h.screen())
	if folded == pivot {
		t.Errorf("S R: the pivot is as before R:\n%s", folded)
	}
	// Backspace undoes R now: the top line offers esc for the pivot.
	if !strings.Contains(folded, "· esc back") {
		t.Errorf("S R: the top line does not offer esc back:\n%s", folded)
	}
	folded = strings.Replace(folded, "· esc back", "· ⌫ back", 1)
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Options.Recursion = analysis.RecursionAll
	h2 := start(t, cfg)
	h2.keys("4", "/")
	h2.typeText("^main.fib$")
	h2.keys("<enter>", "<esc>", "S")
	if want := graphLines(h2.screen()); folded != want {
		t.Errorf("S R: the pivot differs from the folded profile's:\n%s\nwant:\n%s", folded, want)
	}
	// Backspace undoes the newest step first, whoever keeps it: R (the
	// root's options), then the pivot (the view's trail), back to the
	// zoom it was entered from; then the zoom.
	h.keys("<backspace>")
	expectGraph("S R ⌫ (the pivot before R)", flameState{pivot: "main.fib"}, pivot)
	h.keys("<backspace>")
	expect("S R ⌫ ⌫", flameState{zoom: "main.cpuPhase.func1.1"})
	// A zoom, then R: R is undone first, the zoom stays.
	h.keys("R")
	expect("S R ⌫ ⌫ R", flameState{zoom: "main.cpuPhase.func1.1", recursion: analysis.RecursionAll})
	h.keys("<backspace>")
	expect("S R ⌫ ⌫ R ⌫", flameState{zoom: "main.cpuPhase.func1.1"})
	h.keys("<backspace>")
	expect("S R ⌫ ⌫ R ⌫ ⌫", flameState{})
	// R, then a zoom: the zoom goes first.
	h.keys("R", "/")
	h.typeText("^main.cpuPhase.func1.1$")
	h.keys("<enter>", "<esc>", "<enter>")
	expect("R zoom", flameState{zoom: "main.cpuPhase.func1.1", recursion: analysis.RecursionAll})
	h.keys("<backspace>")
	expect("R zoom ⌫", flameState{recursion: analysis.RecursionAll})
	h.keys("<backspace>")
	expect("R zoom ⌫ ⌫", flameState{})

	// S on another function: a step too.
	h.keys("/")
	h.typeText("^main.runFib.func1$")
	h.keys("<enter>", "<esc>", "S")
	expect("S on f", flameState{pivot: "main.runFib.func1"})
	h.keys("<down>")
	if s := selectedName(h); s != "main.fib" {
		t.Fatalf("down from the pivot: %q", s)
	}
	h.keys("S")
	expect("S on f, S on g", flameState{pivot: "main.fib"})
	h.keys("<backspace>")
	expect("S on f, S on g, ⌫", flameState{pivot: "main.runFib.func1"})
	h.keys("<backspace>")
	if st := h.flameState(); st.pivot != "" {
		t.Fatalf("S on f, S on g, ⌫ ⌫: %+v", st)
	}
	if !strings.Contains(h.screen(), "▏root 2.84s") {
		t.Errorf("out of the pivots, not the graph:\n%s", h.screen())
	}
}

func selectedName(h *harness) string {
	var s string
	h.do(func(m *Model) { s = m.Selected() })
	return s
}

// TestTreePivotHistory: the Tree's b and R in a pivot do as the flame
// graph's: b leaves the pivot for the inverted tree as a step backspace
// undoes, R folds recursion in the pivot.
func TestTreePivotHistory(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	pivot := func() string {
		var name string
		h.do(func(m *Model) { name, _ = m.views.get(viewTree).(*views.Tree).Pivoted() })
		return name
	}
	h.keys("2", "/")
	h.typeText("^main.fib$")
	h.keys("<enter>", "<esc>", "S")
	shows(h, "main.fib  ↓ its callees")
	before := h.screen()
	h.keys("b")
	shows(h, "inverted tree")
	if p := pivot(); p != "" {
		t.Fatalf("S b: pivot %q", p)
	}
	h.keys("<backspace>")
	shows(h, "main.fib  ↓ its callees")
	if got := h.screen(); got != before {
		t.Errorf("S b ⌫: not the pivot:\n%s\nwant:\n%s", got, before)
	}
	h.keys("R")
	shows(h, "recursion=all")
	if p := pivot(); p != "main.fib" || !strings.Contains(h.screen(), "main.fib  ↓ its callees") {
		t.Fatalf("S R: pivot %q\n%s", p, h.screen())
	}
	// Backspace undoes R first, then the pivot.
	h.keys("<backspace>")
	h.waitFor("R undone", func(m *Model) bool {
		return m.Options().Recursion == "" && !strings.Contains(m.View(), "recursion=all")
	})
	if p := pivot(); p != "main.fib" {
		t.Fatalf("S R ⌫: pivot %q, want R undone and the pivot kept\n%s", p, h.screen())
	}
	h.keys("<backspace>")
	shows(h, "top-down call tree")
	if p := pivot(); p != "" {
		t.Fatalf("S R ⌫ ⌫: pivot %q", p)
	}
}

// TestFlameInvertTwiceZoomed: b twice shows the graph as it was, zoom
// and all.
func TestFlameInvertTwiceZoomed(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("4", "/")
	h.typeText("^main.cpuPhase.func1.1$")
	h.keys("<enter>", "<esc>", "<enter>")
	want := flameState{zoom: "main.cpuPhase.func1.1"}
	if got := h.flameState(); got != want {
		t.Fatalf("zoomed: %+v", got)
	}
	h.keys("b")
	shows(h, "root · inverted")
	h.keys("b")
	if got := h.flameState(); got != want {
		t.Errorf("b b: %+v, want %+v\n%s", got, want, h.screen())
	}
}

// TestFlameBackHintAfterInvert: b in a pivot leaves a step backspace
// undoes, and the hint line offers it (as the top line's "⌫ back to the
// pivot" does).
func TestFlameBackHintAfterInvert(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Width = 240
	h := start(t, cfg)
	h.show(viewFlame)
	h.waitFor("the flame graph", func(m *Model) bool { return m.ActiveView().HasResult() })
	h.keys("<down>", "S")
	h.waitFor("the pivot", func(m *Model) bool { return flameStateOf(m).pivot != "" && m.ActiveView().HasResult() })
	h.keys("b")
	h.waitFor("out of the pivot", func(m *Model) bool { return flameStateOf(m).pivot == "" && m.ActiveView().HasResult() })
	screen := h.screen()
	if !strings.Contains(screen, "⌫ back to the pivot") {
		t.Fatalf("b in a pivot left no step back:\n%s", screen)
	}
	if f := footerOf(screen); !strings.Contains(f, "⌫/esc back") {
		t.Errorf("backspace goes back to the pivot, but the hint line does not offer it: %s", f)
	}
}
