package tui

import (
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Consecutive s presses are one step of the history (issue 13: a lap
// through heap's four sample types left "⌫ back (4)"); backspace goes
// back to before the cycle.
func TestSampleCycleIsOneStep(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("heap.pb.gz")))
	var before analysis.Options
	h.do(func(m *Model) { before = m.Options() })
	h.keys("s", "s", "s")
	var depth int
	var opts analysis.Options
	h.do(func(m *Model) { depth, opts = m.History(), m.Options() })
	if depth != 1 || opts.SampleIndex != "inuse_objects" {
		t.Fatalf("s s s: history %d, sample_index %q", depth, opts.SampleIndex)
	}
	// Presses too fast for the results to land in between count once too.
	h.tm.Send(keyMsg("s"))
	h.tm.Send(keyMsg("s"))
	h.settle()
	h.do(func(m *Model) { depth, opts = m.History(), m.Options() })
	if depth != 1 || opts.SampleIndex != "alloc_objects" {
		t.Fatalf("s s s s s: history %d, sample_index %q", depth, opts.SampleIndex)
	}
	h.keys("<backspace>")
	h.do(func(m *Model) { depth, opts = m.History(), m.Options() })
	if depth != 0 || opts != before {
		t.Fatalf("back: history %d, options %+v", depth, opts)
	}
	// Another key ends the cycle: the next s is a step of its own.
	h.keys("s", "j", "s")
	h.do(func(m *Model) { depth = m.History() })
	if depth != 2 {
		t.Errorf("s j s: history %d, want 2", depth)
	}
}
