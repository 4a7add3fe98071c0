package analysis

import (
	"fmt"
	"slices"
	"testing"
)

// TestPlainStacks: once a walk has told which stacks have no node twice
// (nodeTable.plainStacks), later tables sum those stacks per location;
// every table must equal the one a fresh engine computes node by node,
// inline markers included, under every option that changes the walk. The
// synthesized shapes must have both kinds of stacks, or the test proves
// nothing.
func TestPlainStacks(t *testing.T) {
	t.Parallel()
	engines := freshEngines(t, "cpu_labels", "diff", "heap", "distinct", "zipf", "deep")
	sets := append(slices.Clone(markerOptionSets),
		map[string]string{"sample_index": "0"},
		map[string]string{"prune_from": "json|Handle"},
		map[string]string{"relative_percentages": "true", "focus": "main|Handle"},
		map[string]string{"granularity": "files"},
		map[string]string{"granularity": "filefunctions"},
		map[string]string{"granularity": "addresses"},
		map[string]string{"tagroot": "worker"},
		map[string]string{"mean": "true", "hide": "runtime|json|Sort"},
	)
	for name, newEngine := range engines {
		t.Run(name, func(t *testing.T) {
			warm := newEngine()
			compared := 0
			for _, set := range sets {
				opt := testOptions(t, set)
				for _, nf := range []float64{0, 0.005} {
					opt.NodeFraction = nf
					want, err := newEngine().Top(opt)
					if err != nil {
						continue // e.g. a tag the profile lacks
					}
					compared++
					// The default table tells the plain stacks (at the
					// functions granularity, from which a finer one
					// derives its own; then at this granularity); then
					// the table asked for.
					base := DefaultOptions()
					if nf != 0 {
						base.Granularity, base.NoInlines = opt.Granularity, opt.NoInlines
					}
					if _, err := warm.Top(base); err != nil {
						t.Fatal(err)
					}
					got, err := warm.Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					if len(got.Rows) != len(want.Rows) || got.Total != want.Total || got.ShownTotal != want.ShownTotal {
						t.Fatalf("%v: %d rows, totals %d/%d; fresh engine: %d rows, %d/%d", set,
							len(got.Rows), got.Total, got.ShownTotal, len(want.Rows), want.Total, want.ShownTotal)
					}
					g, w := named(got), named(want)
					for i := range g {
						if g[i] != w[i] {
							t.Fatalf("%v nodefraction=%v: row %d %+v; fresh engine %+v", set, nf, i, g[i], w[i])
						}
					}
				}
			}
			if name == "cpu_labels" {
				// A line is part of one function; a function has many
				// lines.
				funcs, lines := warm.nodeTable("functions", false, false), warm.nodeTable("lines", false, false)
				if !refines(lines, funcs) || refines(funcs, lines) {
					t.Error("lines do not refine functions, or functions refine lines")
				}
			}
			if compared < len(sets) {
				t.Errorf("%d of %d option sets compared", compared, 2*len(sets))
			}
			if name == "cpu_labels" || name == "diff" || name == "heap" {
				return
			}
			flags := warm.nodeTable("functions", false, false).plainStacks()
			if flags == nil {
				t.Fatal("no plain stacks recorded")
			}
			count := map[uint8]int{}
			for _, f := range flags {
				count[f]++
			}
			// Deep stacks all recurse.
			if name != "deep" && count[plainStack] == 0 || name != "zipf" && count[repeatStack] == 0 {
				t.Errorf("stacks by kind: %v", count)
			}
			t.Log(fmt.Sprint(count))
			// The lines table's flags were derived from the functions
			// table's: its first walk had them.
			fresh := newEngine()
			if _, err := fresh.Top(DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			lines := fresh.nodeTable("lines", false, false)
			if fresh.plainStacks(lines) == nil {
				t.Error("the lines table derived no flags from the functions table")
			}

		})
	}
}
