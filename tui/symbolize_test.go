package tui

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSymbolizeNotes: the load's symbolization warnings (here: no binary
// for the profile's mapping) are shown in the footer, and loads share one
// cache of binaries.
func TestSymbolizeNotes(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(filepath.Join("..", "testdata", "legacy", "cpu.prof")))
	h.waitFor("the note", func(m *Model) bool { return strings.Contains(m.note.text.String(), "no binary for cpubench") })
	if s := h.screen(); !strings.Contains(s, "symbolize: no binary for cpubench") {
		t.Errorf("the warning is not on the screen:\n%s", s)
	}
	h.do(func(m *Model) {
		if m.load.bins == nil {
			t.Error("no cache of binaries kept for the next load")
		}
	})
}
