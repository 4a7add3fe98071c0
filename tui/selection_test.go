package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/views"
)

// topCursor returns the name of the Top row under the cursor and whether
// that row is on screen.
func topCursor(h *harness) (string, bool) {
	var name, screen string
	h.do(func(m *Model) {
		name, screen = m.views.top.RowName(0), m.View()
	})
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "▶") && strings.Contains(l, "  "+name) {
			return name, true
		}
	}
	return name, false
}

// The selected function keeps the cursor through a new order (issue 13:
// `j j o` moved it from main.partition to runtime/pprof.Do, `G o` to
// time.Now).
func TestSortKeepsSelection(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("j", "j")
	if name, _ := topCursor(h); name != "main.partition" {
		t.Fatalf("j j: cursor on %q", name)
	}
	for _, order := range []string{"cum", "name", "flat"} {
		h.keys("o")
		if name, seen := topCursor(h); name != "main.partition" || !seen {
			t.Errorf("o (by %s): cursor on %q (on screen: %v)\n%s", order, name, seen, h.screen())
		}
	}
	h.keys("G")
	last, _ := topCursor(h)
	for _, order := range []string{"cum", "name", "flat"} {
		h.keys("o")
		if name, seen := topCursor(h); name != last || !seen {
			t.Errorf("G o (by %s): cursor on %q, want %q (on screen: %v)", order, name, last, seen)
		}
	}
}

// A filter that removes the selected function moves the cursor to its
// neighbour in the direction of travel, not to a search match further
// down (issue 13: `/sort⏎ g H` put it on main.quicksort, 11 rows down).
func TestFilterRemovingSelectionGoesToNeighbour(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("/")
	h.typeText("sort")
	h.keys("<enter>", "g")
	if name, _ := topCursor(h); name != "main.fib" {
		t.Fatalf("g: cursor on %q", name)
	}
	h.keys("H")
	if name, seen := topCursor(h); name != "main.xorshift" || !seen {
		t.Errorf("H on main.fib: cursor on %q (on screen %v), want the next row, main.xorshift", name, seen)
	}
	if h.Selected() != "main.xorshift" {
		t.Errorf("shared selection %q", h.Selected())
	}
	// Travelling up, the neighbour above takes the cursor.
	h.keys("j", "j", "j", "k") // main.hashBlock, moving up
	above := h.rowAt(0, -1)
	h.keys("i")
	if name, _ := topCursor(h); name != above {
		t.Errorf("i after k: cursor on %q, want the row above, %q", name, above)
	}
}

// Sample type and granularity changes keep the selected function.
func TestOptionChangesKeepSelection(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("heap.pb.gz")))
	h.keys("j", "j", "j")
	want, _ := topCursor(h)
	h.keys("s") // alloc_objects: the function allocated, so it is still there
	if name, seen := topCursor(h); name != want || !seen {
		t.Errorf("s: cursor on %q, want %q (on screen %v)", name, want, seen)
	}
	h.command("granularity=lines")
	if sel := h.Selected(); sel != want {
		t.Errorf("granularity=lines: selection %q, want %q", sel, want)
	}
	h.command("granularity=functions")
	if name, seen := topCursor(h); name != want || !seen {
		t.Errorf("granularity=functions: cursor on %q, want %q (on screen %v)", name, want, seen)
	}
}

// A new result that loses the selection, with nothing near it left,
// opens at the top with the heaviest rows in sight (issue 13: after
// :focus=json the table opened part-way down).
func TestFocusAwayOpensAtTop(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Height = 12
	h := start(t, cfg)
	h.keys("G")
	h.command("focus=^main\\.fib$")
	var cursor, offset int
	h.do(func(m *Model) { cursor, offset = m.views.top.Window() })
	if name, seen := topCursor(h); !seen || offset != 0 || cursor != 0 {
		t.Errorf("focus: cursor on %q row %d, window from %d:\n%s", name, cursor, offset, h.screen())
	}
}

// Selected returns the shared selection, from the UI goroutine.
func (h *harness) Selected() string {
	var s string
	h.do(func(m *Model) { s = m.Selected() })
	return s
}

// rowAt returns the name of the Top row d rows from the cursor.
func (h *harness) rowAt(view viewID, d int) string {
	var s string
	h.do(func(m *Model) { s = m.views.get(view).(*views.Top).RowName(d) })
	return s
}

// treeCursorName returns the function under the Tree's cursor.
func treeCursorName(h *harness) string {
	var name string
	h.do(func(m *Model) { sel, _ := m.views.get(viewTree).Selection(); name = sel.Name })
	return name
}

// In the tree too: a filter that removes the selected function puts the
// cursor on its neighbour in the direction of travel; one that keeps it
// keeps the cursor on it.
func TestTreeFilterKeepsNeighbour(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("2", "G")
	sel := treeCursorName(h)
	h.keys("k") // travelling up
	sel = treeCursorName(h)
	var above string
	h.do(func(m *Model) {
		tr := m.views.get(viewTree).(*views.Tree)
		above = tr.RowFunc(-1)
	})
	h.keys("H")
	if got := treeCursorName(h); got != above {
		t.Errorf("H on %s, travelling up: cursor on %q, want the row above, %q\n%s", sel, got, above, h.screen())
	}
	// A filter that keeps the selection keeps the cursor on it.
	h.keys("k")
	sel = treeCursorName(h)
	h.command("tagignore=worker=w3")
	if got := treeCursorName(h); got != sel {
		t.Errorf("tagignore: cursor on %q, want %q", got, sel)
	}
}

// labelsCursor returns the Labels row under the cursor: "key" or
// "key=value".
func labelsCursor(h *harness) string {
	var s string
	h.do(func(m *Model) {
		sel, ok := m.views.get(viewLabels).Selection()
		switch {
		case !ok:
		case sel.Kind == views.SelTagKey:
			s = sel.Key
		default:
			s = sel.Key + "=" + sel.Value
		}
	})
	return s
}

// In Labels, tagignore on a value moves the cursor to its neighbour in
// the direction of travel (not to the row at its index), and a new
// sample type keeps it where it was.
func TestLabelsKeepCursor(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	// worker: w0 w2 w3 w1, the last rows.
	h.keys("3", "G", "k", "k", "j") // on w3, travelling down
	h.keys("i")
	if got := labelsCursor(h); got != "worker=w1" {
		t.Errorf("tagignore w3, travelling down: cursor on %q, want worker=w1", got)
	}
	h.keys("<backspace>", "G", "k") // on w3, travelling up
	h.keys("i")
	if got := labelsCursor(h); got != "worker=w2" {
		t.Errorf("tagignore w3, travelling up: cursor on %q, want worker=w2", got)
	}
	h.keys("s") // samples: the same labels
	if got := labelsCursor(h); got != "worker=w2" {
		t.Errorf("s: cursor on %q, want worker=w2", got)
	}
}

// Nodes with no function, file or object name (an unsymbolized legacy
// profile) are selected by their label, as pprof's -top prints it: the
// Graph view centres on one rather than on an empty name, and a
// selection made in one view is the one the others show, at the
// addresses granularity too, where each address is a node of its own.
// A filter on one says it cannot match it.
func TestUnnamedNodesSelection(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(filepath.Join("..", "testdata", "legacy", "gobench.cpu")))
	h.show(viewGraph)
	h.waitFor("the graph", func(m *Model) bool { return m.ActiveView().HasResult() })
	if c := graphCentre(h); c != "<unknown>" || strings.Contains(h.screen(), "is not among") {
		t.Fatalf("graph of functions: centre %q\n%s", c, h.screen())
	}

	h.command("granularity=addresses")
	h.show(viewTop)
	h.waitFor("the top table", func(m *Model) bool { return m.ActiveView().HasResult() })
	h.keys("j", "j")
	// go tool pprof -top -addresses -symbolize=none: its third row.
	const row3 = "000000000040fa72 <unknown>"
	waitSelected(h, row3)
	h.show(viewGraph)
	waitSelected(h, row3)
	if c := graphCentre(h); c != row3 {
		t.Fatalf("graph: centre %q, want %q\n%s", c, row3, h.screen())
	}
	// ↑: its one caller.
	const caller = "000000000041a770 <unknown>"
	h.keys("<up>")
	waitSelected(h, caller)
	for _, c := range []struct {
		view  viewID
		shows string
	}{
		{viewTree, "▶"}, // the cursor's row
		{viewPeek, "●"},
		{viewFlame, "▶"},
		{viewTraces, "stacks through"},
		{viewGraph, "flat"}, // the summary line
	} {
		h.show(c.view)
		waitSelected(h, caller)
		var sel views.Selection
		h.do(func(m *Model) { sel, _ = m.ActiveView().Selection() })
		screen := h.screen()
		shown := false
		for _, l := range strings.Split(screen, "\n") {
			shown = shown || strings.Contains(l, c.shows) && strings.Contains(l, caller)
		}
		if sel.Name != caller || !shown {
			t.Errorf("view %d: selection %q, want %q on a line with %q:\n%s", c.view, sel.Name, caller, c.shows, screen)
		}
	}
	h.show(viewSource)
	waitSelected(h, caller)
	if s := h.screen(); !strings.Contains(s, caller+" has no function or file name") {
		t.Errorf("source of %s:\n%s", caller, s)
	}
	h.show(viewDisasm)
	waitSelected(h, caller)
	if s := h.screen(); !strings.Contains(s, "no machine code for "+caller+": it has no function name") {
		t.Errorf("disassembly of %s:\n%s", caller, s)
	}

	h.show(viewTop)
	h.keys("f")
	var focus string
	h.do(func(m *Model) { focus = m.Options().Focus })
	if s := h.screen(); focus != "" || !strings.Contains(s, "no function, file or object name to filter on") {
		t.Errorf("f on %s: focus %q\n%s", caller, focus, s)
	}
}

// graphCentre is the name of the Graph view's centre.
func graphCentre(h *harness) string {
	gv := h.graph()
	var name string
	h.do(func(*Model) { name, _ = gv.Centre() })
	return name
}
