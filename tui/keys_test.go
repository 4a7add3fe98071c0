package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/views"
)

// TestRootKeysDistinct: no key does two things in the root's table, so
// the order of its rows changes nothing, and the hint line's places are
// each filled once.
func TestRootKeysDistinct(t *testing.T) {
	t.Parallel()
	rows := rootKeys(views.DefaultKeyMap())
	seen := map[string]string{}
	for _, r := range rows {
		if r.do == nil {
			continue
		}
		for _, k := range r.key.Keys() {
			if prev, ok := seen[k]; ok {
				t.Errorf("%q is both %q and %q", k, prev, r.key.Help().Desc)
			}
			seen[k] = r.key.Help().Desc
		}
	}
	places := map[int]bool{}
	for _, r := range rows {
		if r.hint > 0 && places[r.hint] {
			t.Errorf("hint place %d taken twice", r.hint)
		}
		places[r.hint] = true
	}
	for i, r := range hints(rows) {
		if len(r.key.Keys()) == 0 {
			t.Errorf("hint place %d is empty", i+1)
		}
	}
}

// The hint line offers a key only when it does something: the flame
// graph's zoom out while zoomed (or pivoted), backspace's back while
// there is an option change to undo and the view leaves backspace to
// the root, the filters while the selection has a name to match, the
// graph's walks while the centre has callers or callees.
func TestHintsOnlyWhatActs(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Width = 240
	h := start(t, cfg)
	hint := func(want, not []string) {
		t.Helper()
		f := footerOf(h.screen())
		for _, w := range want {
			if !strings.Contains(f, w) {
				t.Errorf("hint line lacks %q: %s", w, f)
			}
		}
		for _, n := range not {
			if strings.Contains(f, n) {
				t.Errorf("hint line offers %q: %s", n, f)
			}
		}
	}
	hint([]string{"enter drill", "f focus", "o sort"}, []string{"back"})
	h.command("nodecount=40")
	hint([]string{"backspace back"}, nil)
	h.show(viewFlame)
	h.waitFor("the flame graph", func(m *Model) bool { return m.ActiveView().HasResult() })
	hint([]string{"enter zoom", "backspace back"}, []string{"zoom out"})
	h.keys("<down>", "<enter>")
	h.waitFor("the zoom", func(m *Model) bool { return m.ActiveView().HasResult() })
	hint([]string{"⌫/esc zoom out", "S pivot", "f focus"}, []string{"backspace back"})
	h.keys("<backspace>")
	h.waitFor("the zoom out", func(m *Model) bool { return m.ActiveView().HasResult() })
	hint([]string{"backspace back"}, []string{"zoom out"})
	h.keys("<backspace>")
	h.waitFor("back", func(m *Model) bool { return len(m.history) == 0 && m.ActiveView().HasResult() })
	hint([]string{"enter zoom"}, []string{"back", "zoom out"})

	// Unnamed nodes: nothing to filter on; a graph of one node: nowhere
	// to walk.
	cfg = testConfig(filepath.Join("..", "testdata", "legacy", "gobench.cpu"))
	cfg.Width = 240
	h = start(t, cfg)
	h.keys("g") // clears the note on the missing binary
	hint([]string{"o sort"}, []string{"drill", "focus", "ignore", "hide"})
	h.show(viewGraph)
	h.waitFor("the graph", func(m *Model) bool { return m.ActiveView().HasResult() })
	hint([]string{": command"}, []string{"caller", "callee", "aim", "drill", "focus"})
	h.show(viewLabels) // no labels: no rows
	h.waitFor("the labels", func(m *Model) bool { return m.ActiveView().HasResult() })
	hint([]string{": command"}, []string{"tagfocus", "tagignore", "taghide"})
	h.show(viewDisasm) // no binary: no instructions
	h.waitFor("the disassembly", func(m *Model) bool { return !viewsBusy(m) })
	hint([]string{": command"}, []string{"hottest", "follow", "drill"})
}
