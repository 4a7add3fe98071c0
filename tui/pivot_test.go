package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// TestPivotKeys: S pivots the flame graph on the selected function from
// the flame graph, Top and Peek; enter re-pivots on the frame under
// the cursor, backspace goes back through the pivots and then out.
func TestPivotKeys(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	pivot := func() (string, int, viewID) {
		var name string
		var depth int
		var active viewID
		h.do(func(m *Model) {
			name, depth = m.views.get(viewFlame).(*views.Flame).Pivoted()
			active = m.views.active
		})
		return name, depth, active
	}
	selected := func() string {
		var s string
		h.do(func(m *Model) { s = m.Selected() })
		return s
	}
	h.keys("R", "R")               // direct recursion folded: main.fib is one frame
	h.keys("4", "<up>", "<enter>") // zoomed on main.runFib.func1
	h.waitFor("the zoom", func(m *Model) bool {
		z, _ := m.views.get(viewFlame).(*views.Flame).Zoomed()
		return z == "main.runFib.func1"
	})
	h.keys("<down>")
	h.keys("S")
	shows(h, "callers ↑")
	if p, d, v := pivot(); p != "main.fib" || d != 0 || v != viewFlame {
		t.Fatalf("S in the flame graph: pivot %q ×%d in view %d", p, d, v)
	}
	scr := h.screen()
	if !strings.Contains(scr, "pivot: callers ↑ callees ↓") || !strings.Contains(scr, "flat 750ms (26.41%)  cum 750ms (26.41%)") {
		t.Errorf("the pivot's detail line:\n%s", scr)
	}
	if !strings.Contains(scr, "750ms of 2.84s total") {
		t.Errorf("the status bar's total is not the pivot's:\n%s", scr)
	}
	// Its callers are drawn above it: up goes to the heaviest.
	h.keys("<up>")
	if s := selected(); s != "main.runFib.func1" {
		t.Fatalf("up from the pivot: %q", s)
	}
	// Away from the function's row, the detail line names it.
	if scr := h.screen(); !strings.Contains(scr, "cum 720ms (25.35%) via this path  pivot on main.fib · ⌫ back") {
		t.Errorf("a caller's detail line:\n%s", scr)
	}
	h.keys("<enter>")
	shows(h, "▶ main.runFib.func1  flat")
	if p, d, _ := pivot(); p != "main.runFib.func1" || d != 1 {
		t.Fatalf("enter on a caller: pivot %q ×%d", p, d)
	}
	// Its callee below is main.fib.
	h.keys("<down>")
	if s := selected(); s != "main.fib" {
		t.Fatalf("down from the pivot: %q", s)
	}
	h.keys("<backspace>")
	shows(h, "▶ main.fib  flat")
	if p, d, _ := pivot(); p != "main.fib" || d != 0 {
		t.Fatalf("backspace: pivot %q ×%d", p, d)
	}
	h.keys("<esc>")
	shows(h, "zoomed ×1")
	if p, _, _ := pivot(); p != "" {
		t.Fatalf("esc: still pivoted on %q", p)
	}
	// Out of the pivot, the graph is as it was: zoomed, once.
	var zoomed string
	var depth int
	h.do(func(m *Model) { zoomed, depth = m.views.get(viewFlame).(*views.Flame).Zoomed() })
	if zoomed != "main.runFib.func1" || depth != 1 {
		t.Errorf("out of the pivot: zoomed on %q ×%d, want main.runFib.func1 ×1", zoomed, depth)
	}
	h.keys("<esc>") // zoom out
	// Out of the pivot, backspace is the root's: it undoes R.
	h.keys("<backspace>")
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.Recursion != analysis.RecursionAll {
		t.Errorf("backspace after the pivot: recursion=%q, want all", o.Recursion)
	}
	// From Top and Peek, S opens the flame graph's pivot (the Tree
	// pivots itself: TestTreePivotKeys).
	for _, from := range []struct {
		keys []string
		want string
	}{
		{[]string{"1", "g", "<down>", "<down>"}, "main.partition"},
		{[]string{"5"}, ""},
	} {
		h.keys(from.keys...)
		want := from.want
		if want == "" {
			want = selected()
		}
		h.keys("S")
		shows(h, "callers ↑")
		if p, _, v := pivot(); p != want || v != viewFlame {
			t.Errorf("S after %v: pivot %q in view %d, want %q in the flame graph", from.keys, p, v, want)
		}
	}
}

// TestInvertFlameKey: b turns the flame graph upside down (roots are the
// leaf functions, as wide as their flat) and back.
func TestInvertFlameKey(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("4")
	h.keys("b")
	shows(h, "root · inverted")
	scr := h.screen()
	if !strings.Contains(scr, "root · inverted") {
		t.Fatalf("b: not inverted:\n%s", scr)
	}
	h.keys("g", "<down>")
	var s string
	h.do(func(m *Model) { s = m.Selected() })
	if s != "main.fib" || !strings.Contains(h.screen(), "flat 750ms (26.41%)") {
		t.Errorf("the inverted graph's heaviest root: %q\n%s", s, h.screen())
	}
	h.keys("<down>")
	if !strings.Contains(h.screen(), "via this path") {
		t.Errorf("a caller's detail line:\n%s", h.screen())
	}
	h.keys("b")
	shows(h, "▏root 2.84s")
	if strings.Contains(h.screen(), "inverted") {
		t.Errorf("b again: still inverted:\n%s", h.screen())
	}
}

// TestRecursionKey: R cycles recursion=all, direct, off, each a step of
// the history shown in the status bar; the flame graph follows.
func TestRecursionKey(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("4")
	fibRows := func() int { return strings.Count(h.screen(), "main.fib ") }
	before := fibRows()
	rec := func() string {
		var o analysis.Options
		h.do(func(m *Model) { o = m.Options() })
		return o.Recursion
	}
	for _, want := range []string{"all", "direct", ""} {
		h.keys("R")
		if got := rec(); got != want {
			t.Fatalf("R: recursion=%q, want %q", got, want)
		}
		if bar := h.screen(); (want != "") != strings.Contains(bar, "recursion="+want) {
			t.Errorf("R to %q: status bar:\n%s", want, bar)
		}
		if want == "direct" {
			if n := fibRows(); n != 2 || before < 10 { // the detail line and one frame
				t.Errorf("direct recursion folded: %d main.fib frames, %d before", n, before)
			}
		}
	}
	h.keys("<backspace>")
	if got := rec(); got != "direct" {
		t.Errorf("backspace: recursion=%q, want direct", got)
	}
	h.command("recursion=off")
	if got := rec(); got != "" {
		t.Errorf(":recursion=off: %q", got)
	}
}

func TestPivotScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		keys       []string
	}{
		{"flame-inverted", "cpu_labels.pb.gz", []string{"4", "b"}},
		{"flame-folded", "cpu_labels.pb.gz", []string{"4", "R", "R"}},
		{"flame-pivot", "recursive.pb.gz", []string{"/", "parseSum", "<enter>", "4", "S"}},
		{"flame-pivot-folded", "recursive.pb.gz", []string{"/", "parseSum", "<enter>", "4", "R", "S"}},
		{"tree-folded-all", "recursive.pb.gz", []string{"2", "R"}},
		{"tree-pivot", "recursive.pb.gz", []string{"2", "/", "^main.parseSum$", "<enter>", "<esc>", "T"}},
	} {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			name := fmt.Sprintf("%s-%dx%d", tc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				cfg := testConfig(testdata(tc.file))
				cfg.Width, cfg.Height = size[0], size[1]
				h := start(t, cfg)
				for _, k := range tc.keys {
					switch {
					case k == "S":
						h.pivotFlame()
					case k == "T": // S in the Tree
						h.keys("S")
						shows(h, "↓ its callees")
					case k == "b":
						h.keys(k)
						shows(h, "inverted")
					case strings.HasPrefix(k, "<") || len(k) == 1:
						h.keys(k)
					default:
						h.typeText(k)
					}
				}
				golden(t, name, h.screen())
			})
		}
	}
}

// shows waits until the screen shows text, with nothing computing: a
// view's own recomputation (the flame graph's b, S, enter in a pivot)
// reaches the root as a message after the key.
func shows(h *harness, text string) {
	h.t.Helper()
	h.waitFor(text, func(m *Model) bool { return strings.Contains(m.View(), text) })
}

// pivotFlame presses S in the flame graph and waits for the pivot,
// which the view computes in the background.
func (h *harness) pivotFlame() {
	h.t.Helper()
	h.keys("S")
	h.waitFor("the pivot", func(m *Model) bool {
		p, _ := m.views.get(viewFlame).(*views.Flame).Pivoted()
		return p != ""
	})
}

// TestTreePivotKeys: S in the Tree pivots it: the callers' tree above
// the callees'; S on a caller re-pivots, backspace goes back, then out,
// then undoes the last setting.
func TestTreePivotKeys(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	pivot := func() (string, int) {
		var name string
		var depth int
		h.do(func(m *Model) { name, depth = m.views.get(viewTree).(*views.Tree).Pivoted() })
		return name, depth
	}
	h.keys("2", "R", "R", "/")
	h.typeText("^main.fib$")
	h.keys("<enter>", "<esc>", "S")
	shows(h, "pivot: callers, then callees")
	if p, d := pivot(); p != "main.fib" || d != 0 {
		t.Fatalf("S: pivot %q ×%d", p, d)
	}
	scr := h.screen()
	for _, want := range []string{"main.fib  ↑ its callers", "main.fib  ↓ its callees", "─▾ main.runFib.func1", "750ms of 2.84s total"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the tree's pivot lacks %q:\n%s", want, scr)
		}
	}
	// The cursor is on the callees' root, whose flat is main.fib's.
	if !strings.Contains(scr, "▶    750ms 26.41%      750ms 26.41%") {
		t.Errorf("the pivot's row:\n%s", scr)
	}
	h.keys("g", "<down>", "S")
	shows(h, "main.runFib.func1  ↓ its callees")
	if p, d := pivot(); p != "main.runFib.func1" || d != 1 {
		t.Fatalf("S on a caller: pivot %q ×%d", p, d)
	}
	h.keys("<backspace>")
	shows(h, "main.fib  ↓ its callees")
	h.keys("<backspace>")
	shows(h, "top-down call tree")
	if p, _ := pivot(); p != "" {
		t.Fatalf("backspace twice: pivot %q", p)
	}
	h.keys("<backspace>")
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.Recursion != analysis.RecursionAll {
		t.Errorf("backspace out of the pivot: recursion=%q, want all", o.Recursion)
	}
}
