package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestTabAt: a click on a tab's label selects that tab, at every width
// the tab bar has a layout for (padded, compact, numbers only).
func TestTabAt(t *testing.T) {
	t.Parallel()
	for _, width := range []int{120, 80, 60} {
		cfg := testConfig(testdata("cpu_labels.pb.gz"))
		cfg.Width = width
		h := start(t, cfg)
		h.keys("4") // not the first tab, whose place differs
		h.do(func(m *Model) {
			bar := ansi.Strip(m.tabBar())
			labels, _ := m.tabs()
			for i, l := range labels {
				x := strings.Index(bar, l)
				if x < 0 {
					t.Fatalf("width %d: tab %q not in %q", width, l, bar)
				}
				if id, ok := m.tabAt(x); !ok || id != viewID(i) {
					t.Errorf("width %d: a click at %d on %q selects %d, %v", width, x, l, id, ok)
				}
				if id, ok := m.tabAt(x + ansi.StringWidth(l) - 1); !ok || id != viewID(i) {
					t.Errorf("width %d: a click on the end of %q selects %d, %v", width, l, id, ok)
				}
			}
		})
	}
}
