package views

import (
	"context"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// TestFlameResultAfterResize: a window resized while a smaller graph was
// computed (a focus, a live refresh) lays the result out again for the new
// width; the cursor, deep in the bigger graph, is no index into the new
// one.
func TestFlameResultAfterResize(t *testing.T) {
	f, _ := cpuFlame(t, 100, 30)
	f.cur = len(f.lay.frames) - 1
	p, err := format.Load(context.Background(), format.Sources{Sources: []string{cpuProfile}}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	opt.Focus = "main.fib"
	run, _ := f.Query(e, opt, "")
	show, err := run()
	if err != nil {
		t.Fatal(err)
	}
	old := f.cur
	f.SetSize(70, 30)
	show()
	if n := len(f.lay.frames); n > old {
		t.Fatalf("the focused graph has %d frames, not fewer than the cursor's index %d", n, old)
	}
	if f.lay.width != 70 || f.cursorNode() != f.lay.frames[f.lay.top].n {
		t.Errorf("after the result: width %d, cursor %v", f.lay.width, f.cursorNode())
	}
}
