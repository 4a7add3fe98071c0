package analysis

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// TestTopFirst: a table from TopFirst has Top's rows, each with Top's
// flat; its first ExactRows rows (at least those asked for) are Top's
// exactly, cum and inline markers included, in Top's order; Top then
// completes it to exactly the table a fresh engine computes. Some of the
// cases must leave rows inexact (the shortcut is taken) and some rows
// past the first must then differ, or the test proves nothing.
func TestTopFirst(t *testing.T) {
	t.Parallel()
	shapes := freshEngines(t, "distinct", "zipf", "deep", "cpu_labels")
	partial, pending := 0, 0
	for name, newEngine := range shapes {
		sets := append(slices.Clone(markerOptionSets), map[string]string{"sample_index": "0"},
			map[string]string{"sort": "cum"}, map[string]string{"granularity": "addresses"},
			map[string]string{"relative_percentages": "true", "focus": "main|Handle"})
		for _, set := range raceSets(sets) {
			// The fresh engines' tables, the same for every row count.
			var want, fresh *Top
			for _, rows := range []int{1, 40} {
				t.Run(fmt.Sprint(name, set, rows), func(t *testing.T) {
					opt := testOptions(t, set)
					opt.NodeFraction = 0
					if want == nil {
						var err error
						if want, err = newEngine().Top(opt); err != nil {
							t.Fatal(err)
						}
					}
					e := newEngine()
					first, err := e.TopFirst(opt, rows)
					if err != nil {
						t.Fatal(err)
					}
					if len(first.Rows) != len(want.Rows) || first.Total != want.Total || first.ShownTotal != want.ShownTotal {
						t.Fatalf("%d rows, totals %d/%d; want %d rows, %d/%d", len(first.Rows), first.Total, first.ShownTotal,
							len(want.Rows), want.Total, want.ShownTotal)
					}
					exact := first.ExactRows()
					if exact < min(rows, len(want.Rows)) {
						t.Fatalf("%d exact rows; %d asked for", exact, rows)
					}
					flat := map[int32]int64{}
					for i, r := range want.Rows {
						flat[r.Node] = r.Flat
						if i < exact && first.Rows[i] != r {
							t.Fatalf("row %d of TopFirst: %+v, want %+v", i, first.Rows[i], r)
						}
					}
					for i, r := range first.Rows[exact:] {
						if f, ok := flat[r.Node]; !ok || f != r.Flat {
							t.Fatalf("row %d of TopFirst: %+v; Top has the node's flat %d (%v)", exact+i, r, f, ok)
						}
						if w := want.Rows[exact+i]; r.Cum != w.Cum || r.Inline != w.Inline {
							pending++
						}
					}
					if !first.Partial() {
						if exact != len(want.Rows) {
							t.Fatalf("a complete table with %d exact rows of %d", exact, len(want.Rows))
						}
						return
					}
					partial++
					full, err := e.Top(opt)
					if err != nil {
						t.Fatal(err)
					}
					if full.Partial() || full.ExactRows() != len(full.Rows) {
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
					if fresh == nil {
						if fresh, err = newEngine().Top(opt); err != nil {
							t.Fatal(err)
						}
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
		t.Fatalf("%d partial tables, %d rows left inexact: the shortcut was never exercised", partial, pending)
	}
}

// TestTopBackground: a background completion waits while busy says so,
// and stops waiting as soon as someone asks for the same table (who would
// otherwise wait for it forever); its table is Top's.
func TestTopBackground(t *testing.T) {
	e := synthEngine(t, synth.Distinct)
	opt := testOptions(t, nil)
	if first, err := e.TopFirst(opt, 10); err != nil || !first.Partial() {
		t.Fatalf("TopFirst: partial %v, %v", first != nil && first.Partial(), err)
	}
	var asked atomic.Bool
	waited := make(chan struct{})
	done := make(chan *Top)
	go func() {
		bg, err := e.TopBackground(opt, func() bool {
			if !asked.Load() {
				asked.Store(true)
				close(waited)
			}
			return true // busy for ever
		})
		if err != nil {
			t.Error(err)
		}
		done <- bg
	}()
	<-waited
	select {
	case <-done:
		t.Fatal("the background table did not wait while busy")
	case <-time.After(50 * time.Millisecond):
	}
	// Another background asker of the same table waits with it: the walk
	// still gives way (at 10M samples, a second completion of the first
	// table made it compete with a filter a person asked for).
	done2 := make(chan *Top)
	go func() {
		bg, err := e.TopBackground(opt, func() bool { return true })
		if err != nil {
			t.Error(err)
		}
		done2 <- bg
	}()
	select {
	case <-done:
		t.Fatal("the background table stopped waiting when a second background asker came")
	case <-done2:
		t.Fatal("the second background asker did not wait for the first")
	case <-time.After(100 * time.Millisecond):
	}
	fg := make(chan *Top)
	go func() {
		top, err := e.Top(opt)
		if err != nil {
			t.Error(err)
		}
		fg <- top
	}()
	var bg, top *Top
	for bg == nil || top == nil {
		select {
		case bg = <-done:
		case top = <-fg:
		case <-time.After(20 * time.Second):
			t.Fatal("Top waited for a background table that waited for it")
		}
	}
	bg2 := <-done2
	want, err := synthEngine(t, synth.Distinct).Top(opt)
	if err != nil {
		t.Fatal(err)
	}
	if bg.Partial() || !slices.Equal(named(bg), named(want)) || !slices.Equal(named(top), named(want)) || bg2 != bg {
		t.Fatal("the completed table differs from a fresh engine's")
	}
}

// nth must return what a sort would put at k, for every k, with many
// ties, and leave the same elements in the slice.
func TestNth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		xs := make([]int, 1+r.IntN(300))
		for i := range xs {
			xs[i] = r.IntN(1 + r.IntN(50))
		}
		sorted := slices.Sorted(slices.Values(xs))
		k := r.IntN(len(xs))
		if trial%2 == 0 { // the heap's range, not the sort's
			k = r.IntN(max(1, len(xs)/8))
		}
		got := nth(xs, k, cmp.Compare[int])
		if got != sorted[k] {
			t.Fatalf("trial %d: nth(k=%d of %d) = %d, want %d", trial, k, len(xs), got, sorted[k])
		}
		if !slices.Equal(slices.Sorted(slices.Values(xs)), sorted) {
			t.Fatalf("trial %d: nth changed the elements", trial)
		}
	}
}
