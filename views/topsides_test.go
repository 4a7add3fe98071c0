package views

import (
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestSideTopsUntrimmed: a side's table is looked up by name, so a
// function trimmed by nodefraction or nodecount would show as absent
// from a side that has it.
func TestSideTopsUntrimmed(t *testing.T) {
	newE, baseE := testEngine(t, "cpu_labels.pb.gz"), testEngine(t, "cpu_labels_no_w0.pb.gz")
	sides := func() (*analysis.Engine, *analysis.Engine, error) { return newE, baseE, nil }
	opt := analysis.DefaultOptions()
	opt.NodeFraction, opt.NodeCount = 0.2, 1
	s, err := sideTops(sides, opt)
	if err != nil {
		t.Fatal(err)
	}
	full := analysis.DefaultOptions()
	full.NodeFraction = 0
	top, err := newE.Top(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range top.Rows {
		if name := top.Nodes.Name(r.Node); s.new[name] != [2]int64{r.Flat, r.Cum} {
			t.Errorf("%s: new side %v, want flat %d cum %d", name, s.new[name], r.Flat, r.Cum)
		}
	}
}
