package analysis

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pprof-tui/pprof-tui/format/synth"
)

// TestTopFirst: a table from TopFirst has Top's rows, in Top's order,
// with Top's inline markers on its first rows; Top then completes it to
// exactly the table a fresh engine computes. Some of the cases must leave
// markers out (the shortcut is taken) and some rows past the first must
// then differ, or the test proves nothing.
func TestTopFirst(t *testing.T) {
	shapes := map[string]func() *Engine{
		"distinct":   func() *Engine { return synthEngine(t, synth.Distinct) },
		"zipf":       func() *Engine { return synthEngine(t, synth.Zipf) },
		"deep":       func() *Engine { return synthEngine(t, synth.Deep) },
		"cpu_labels": func() *Engine { return NewEngine(engineFor(t, "../testdata/go/cpu_labels.pb.gz").p) },
	}
	partial, pending := 0, 0
	for name, newEngine := range shapes {
		sets := append(slices.Clone(markerOptionSets), map[string]string{"sample_index": "0"},
			map[string]string{"sort": "cum"}, map[string]string{"granularity": "addresses"})
		for _, set := range sets {
			for _, rows := range []int{1, 40} {
				t.Run(fmt.Sprint(name, set, rows), func(t *testing.T) {
					opt := testOptions(t, set)
					opt.NodeFraction = 0
					want, err := newEngine().Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					e := newEngine()
					first, err := e.TopFirst(opt, rows)
					if err != nil {
						t.Fatal(err)
					}
					if len(first.Rows) != len(want.Rows) {
						t.Fatalf("%d rows, want %d", len(first.Rows), len(want.Rows))
					}
					for i, r := range first.Rows {
						w := want.Rows[i]
						if i >= rows && first.Partial() {
							if r.Inline != w.Inline {
								pending++
							}
							r.Inline = w.Inline
						}
						if r != w {
							t.Fatalf("row %d of TopFirst: %+v, want %+v", i, r, w)
						}
					}
					if !first.Partial() {
						return
					}
					partial++
					full, err := e.Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					if full.Partial() {
						t.Fatal("Top returned a partial table")
					}
					for i, r := range full.Rows {
						if r != want.Rows[i] {
							t.Fatalf("row %d of the completed table: %+v, want %+v", i, r, want.Rows[i])
						}
					}
					// The completed aggregate serves another edge fraction.
					opt.EdgeFraction = 0
					again, err := e.Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					fresh, err := newEngine().Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					for i, r := range again.Rows {
						if r != fresh.Rows[i] {
							t.Fatalf("edgefraction=0, row %d: %+v, want %+v", i, r, fresh.Rows[i])
						}
					}
				})
			}
		}
	}
	if partial == 0 || pending == 0 {
		t.Fatalf("%d partial tables, %d rows with their marker left out: the shortcut was never exercised", partial, pending)
	}
}
