package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestLayoutPivot checks a pivot's geometry: the function's row spans the
// width; every frame's ↑ and ↓ lead to the row above and below, to a
// frame over or under it; a caller sits within the frame below it (what
// it calls) and a callee within the frame above it (its caller), on
// recursive profiles, folded and not, at several widths.
func TestLayoutPivot(t *testing.T) {
	for _, c := range []struct{ file, fn string }{
		{"cpu_labels.pb.gz", "main.fib"},
		{"cpu_labels.pb.gz", "main.quicksort"},
		{"cpu_labels.pb.gz", "runtime/pprof.Do"},
		{"recursive.pb.gz", "main.parseSum"},
		{"recursive.pb.gz", "main.(*node).visit"},
	} {
		e := testEngine(t, c.file)
		for _, rec := range []string{"", analysis.RecursionAll} {
			opt := analysis.DefaultOptions()
			opt.NodeFraction, opt.Recursion = 0, rec
			p, err := e.Pivot(opt, c.fn)
			if err != nil {
				t.Fatal(err)
			}
			for _, width := range []int{30, 80, 200} {
				l := layoutPivot(p.Callers, p.Callees, width)
				what := c.file + " " + c.fn + " recursion=" + rec
				top := &l.frames[l.top]
				if top.x0 != 0 || top.x1 != width || top.n == nil || p.Callees.Nodes.FuncName(top.n.Node) != c.fn {
					t.Fatalf("%s: the function's row %+v", what, *top)
				}
				for k := range l.frames {
					fr := &l.frames[k]
					r := l.rowOf(k)
					for _, m := range []struct {
						to, row int
						dir     string
					}{{l.above(k), r - 1, "up"}, {l.below(k), r + 1, "down"}} {
						if m.to < 0 {
							continue
						}
						o := &l.frames[m.to]
						if l.rowOf(m.to) != m.row || o.x1 <= fr.x0 && o.x0 >= fr.x1 {
							t.Fatalf("%s width %d: %s from frame %d (row %d, %d-%d) reaches frame %d (row %d, %d-%d)",
								what, width, m.dir, k, r, fr.x0, fr.x1, m.to, l.rowOf(m.to), o.x0, o.x1)
						}
					}
					if fr.parent >= 0 {
						pa := &l.frames[fr.parent]
						if fr.x0 < pa.x0 || fr.x1 > pa.x1 {
							t.Fatalf("%s width %d: frame %d (%d-%d) sticks out of its parent %d (%d-%d)",
								what, width, k, fr.x0, fr.x1, fr.parent, pa.x0, pa.x1)
						}
						want := r + 1 // a caller's parent is below it
						if k > l.top {
							want = r - 1
						}
						if l.rowOf(fr.parent) != want {
							t.Fatalf("%s: frame %d's parent is in row %d, not %d", what, k, l.rowOf(fr.parent), want)
						}
					}
				}
				if k := l.top; l.above(k) < 0 && len(p.CallerRoots) > 0 && !p.Callers.Leaf(p.CallerRoots[0]) {
					t.Errorf("%s: no way up from the function to its callers", what)
				}
			}
		}
	}
}

// TestFlamePivotBackOut: out of a pivot the graph it was entered from
// comes back as it was (its tree, the diff's colours) while the profile
// and the options are the same; a profile shown meanwhile (a live
// refresh, another base) is computed afresh.
func TestFlamePivotBackOut(t *testing.T) {
	e1 := testEngine(t, "cpu_labels.pb.gz")
	e2 := testEngine(t, "cpu_labels.pb.gz")
	opt := analysis.DefaultOptions()
	for _, diff := range []bool{false, true} {
		c := testCommon()
		if diff {
			c.Diff = true
			c.Sides = func() (*analysis.Engine, *analysis.Engine, error) { return e1, e2, nil }
		}
		f := NewFlame(c)
		f.SetSize(100, 30)
		query := func(e *analysis.Engine) {
			t.Helper()
			showQuery(t, f, e, opt)
		}
		query(e1)
		outside := f.tree
		for _, e := range []*analysis.Engine{e1, e2} {
			f.Pivot("main.fib")
			query(e1)
			f.stepOut()
			query(e)
			if again := f.tree == outside; again != (e == e1) {
				t.Errorf("diff %v: out of the pivot on the same profile %v: the graph entered from %v", diff, e == e1, again)
			}
			if (f.diff != nil) != diff {
				t.Errorf("diff %v: out of the pivot on the same profile %v: the diff's colours %v", diff, e == e1, f.diff != nil)
			}
			outside = f.tree
		}
	}
}

// TestFlameRecent: a graph shown before (b twice, R round to the same
// setting, the pivot before, out of a pivot) comes back as it was, its
// trees not computed again, while the profile is the same; the graphs
// of a profile shown before another (a refresh, a base) are let go;
// recent keeps flameRecent graphs.
func TestFlameRecent(t *testing.T) {
	e1 := testEngine(t, "cpu_labels.pb.gz")
	e2 := testEngine(t, "cpu_labels.pb.gz")
	f := NewFlame(testCommon())
	f.SetSize(100, 30)
	show := func(e *analysis.Engine, rec, focus string) *analysis.Tree {
		t.Helper()
		opt := analysis.DefaultOptions()
		opt.Recursion, opt.Focus = rec, focus
		showQuery(t, f, e, opt)
		return f.tree
	}
	graph := show(e1, "", "")
	f.inverted = true
	inverted := show(e1, "", "")
	f.inverted = false
	if show(e1, "", "") != graph {
		t.Error("b twice: the graph was computed again")
	}
	f.inverted = true
	if show(e1, "", "") != inverted {
		t.Error("b three times: the inverted graph was computed again")
	}
	f.inverted = false
	all := show(e1, analysis.RecursionAll, "")
	show(e1, analysis.RecursionDirect, "")
	if show(e1, "", "") != graph {
		t.Error("R round: the graph was computed again")
	}
	if show(e1, analysis.RecursionAll, "") != all {
		t.Error("R round twice: recursion=all was computed again")
	}
	show(e1, "", "")
	f.Pivot("main.fib")
	fib := show(e1, "", "")
	f.Pivot("main.runFib")
	show(e1, "", "")
	f.stepOut()
	if show(e1, "", "") != fib || f.callers == nil {
		t.Error("back to the pivot before: computed again")
	}
	f.stepOut()
	if show(e1, "", "") != graph || f.callers != nil {
		t.Error("out of the pivots: the graph was computed again")
	}
	for i := range flameRecent + 1 {
		show(e1, "", fmt.Sprint("main|", i))
	}
	if show(e1, "", "") == graph {
		t.Errorf("more than %d graphs kept", flameRecent)
	}
	graph = f.tree
	if show(e2, "", "") == graph {
		t.Error("another profile's graph shown")
	}
	if show(e1, "", "") == graph {
		t.Error("a graph of a profile shown before another is kept")
	}
}

// TestPivotTrail: the steps backspace goes back through, for key
// sequences: S pushes the graph or the pivot it leaves; b in a pivot,
// or after leaving one with b, is a step too; b outside is undone by
// b.
func TestPivotTrail(t *testing.T) {
	type state struct {
		inverted bool
		pivot    string
	}
	for _, c := range []struct {
		keys string // S<name>, b, ⌫, space-separated
		want []state
	}{
		{"b b", []state{{false, ""}}},
		{"Sf", []state{{false, ""}, {false, "f"}}},
		{"Sf Sf", []state{{false, ""}, {false, "f"}}},
		{"Sf Sg", []state{{false, ""}, {false, "f"}, {false, "g"}}},
		{"Sf Sg ⌫", []state{{false, ""}, {false, "f"}}},
		{"Sf Sg ⌫ ⌫ ⌫", []state{{false, ""}}},
		{"Sf b", []state{{false, ""}, {false, "f"}, {true, ""}}},
		{"Sf b ⌫", []state{{false, ""}, {false, "f"}}},
		{"Sf b b", []state{{false, ""}, {false, "f"}, {true, ""}, {false, ""}}},
		{"b Sf b", []state{{true, ""}, {true, "f"}, {false, ""}}},
		{"Sf b Sg ⌫ ⌫ ⌫", []state{{false, ""}}},
	} {
		var p pivotTrail
		for _, k := range strings.Fields(c.keys) {
			switch {
			case k == "b":
				p.invert(nil)
			case k == "⌫":
				p.stepBack()
			default:
				p.pivotTo(k[1:], nil)
			}
		}
		var got []state
		for _, s := range p.back {
			got = append(got, state{s.inverted, s.pivot})
		}
		got = append(got, state{p.inverted, p.pivot})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: the trail %v, want %v", c.keys, got, c.want)
		}
	}
}

// TestFlameRecentBytes: the graphs recent keeps hold no more tree bytes
// than their budget, however few graphs that is. The budget is lowered
// to a byte a location: on this small profile the graphs left behind,
// their trees released, fit the program's four.
func TestFlameRecentBytes(t *testing.T) {
	defer func(n int64) { keptPerLocation = n }(keptPerLocation)
	keptPerLocation = 1
	e := testEngine(t, "cpu_labels.pb.gz")
	f := NewFlame(testCommon())
	f.SetSize(100, 30)
	budget := keptBytes(e.Profile())
	shown := 0
	show := func(rec string) {
		t.Helper()
		opt := analysis.DefaultOptions()
		opt.Recursion = rec
		showQuery(t, f, e, opt)
		shown++
		var kept int64
		for _, o := range f.recent {
			kept += o.bytes()
		}
		if kept > budget {
			t.Fatalf("after %d graphs, %d kept hold %d bytes of trees, more than the stacks' %d", shown, len(f.recent), kept, budget)
		}
	}
	show("")
	f.inverted = true
	show("")
	f.inverted = false
	f.Pivot("main.fib")
	show("")
	f.stepOut()
	show(analysis.RecursionAll)
	show(analysis.RecursionDirect)
	show("")
	if len(f.recent) >= flameRecent {
		t.Errorf("%d graphs kept: the bytes bound never applied on this profile (stacks %d bytes)", len(f.recent), budget)
	}
}

// TestFlameRecalledAfterRelease: a graph that leaves the screen lets go
// of its tree's cursors, and shown again and laid out wider (frames that
// were narrower than a cell grouped now, from their paths) it draws what
// a graph computed afresh at that width draws.
func TestFlameRecalledAfterRelease(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	opt := analysis.DefaultOptions()
	f := NewFlame(testCommon())
	f.SetSize(40, 20)
	showQuery(t, f, e, opt)
	first, held := f.tree, f.tree.Bytes()
	f.inverted = true
	showQuery(t, f, e, opt)
	if first.Bytes() >= held {
		t.Fatalf("the graph left behind holds %d bytes of trees, %d when shown: not released", first.Bytes(), held)
	}
	f.inverted = false
	showQuery(t, f, e, opt)
	if f.tree != first {
		t.Fatal("going back computed the graph again instead of showing the one kept")
	}
	narrow := len(f.lay.frames)
	f.SetSize(200, 50)
	fresh := NewFlame(testCommon())
	fresh.SetSize(200, 50)
	showQuery(t, fresh, e, opt)
	if len(f.lay.frames) <= narrow {
		t.Fatalf("%d frames at 200 columns, %d at 40: nothing new was grouped", len(f.lay.frames), narrow)
	}
	if got, want := f.View(), fresh.View(); got != want {
		t.Errorf("the kept graph, wider:\n%s\nwant, computed afresh:\n%s", got, want)
	}
}
