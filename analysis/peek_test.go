package analysis

import (
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// TestPeekHalves: the edges summed over two halves of the stacks and
// merged (how Peek runs on a big profile) equal one walk over all of
// them, edge by edge, weights and inline flags, for every node at once.
func TestPeekHalves(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		profile string
		set     map[string]string
	}{
		{"synthetic/bigprof_10k.pb.gz", nil},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"hide": "json", "sample_index": "0"}},
		{"go/cpu_labels.pb.gz", map[string]string{"lines": "true"}},
		{"pprof/large.cpu", nil},
	} {
		if skipUnderRace(c.profile) {
			continue
		}
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		q, err := e.newQuery(testOptions(t, c.set))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]bool, q.nodes.len())
		for i := range want {
			want[i] = true
		}
		locWanted := make([]bool, len(q.locOff)-1)
		for i := range locWanted {
			locWanted[i] = true
		}
		w, dw, _, _ := q.stackWeights()
		n := e.p.Stacks.Len()
		all, cum := q.edgeRange(&runs{n: n, size: n}, want, locWanted, w, dw)
		edges := edgeMap(all)
		for _, cut := range []int{1, n / 3, n / 2, n - 1} {
			// Stacks [0, cut) and [cut, n), in runs of 5.
			rest := &runs{n: n, size: 5}
			rest.next.Store(int64(cut))
			sums1, cum1 := q.edgeRange(&runs{n: cut, size: 5}, want, locWanted, w, dw)
			sums2, cum2 := q.edgeRange(rest, want, locWanted, w, dw)
			sums1.merge(sums2)
			for n, c := range cum2 {
				cum1[n] += c
			}
			if !maps.Equal(edges, edgeMap(sums1)) || !maps.Equal(cum, cum1) {
				t.Fatalf("%s %v: edges split at %d of %d stacks differ from one walk", c.profile, c.set, cut, n)
			}
		}
		if len(edges) == 0 {
			t.Fatalf("%s: no edges", c.profile)
		}
	}
}

// edgeMap is the edges of s by their ends.
func edgeMap(s *edgeSums) map[edgeKey]Edge {
	m := map[edgeKey]Edge{}
	for id, e := range s.keys {
		m[e] = Edge{Weight: s.sums[id].weight, Inline: s.sums[id].allInline}
	}
	return m
}

// TestPeekFromPartialTop: Peek made while the kept Top table is partial
// (TopFirst: only its first rows exact) equals Peek made from the
// complete table, rows (flat, cum, inline marker) and edges, for
// functions in the first rows and past them.
func TestPeekFromPartialTop(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		shape synth.Shape
		set   map[string]string
	}{
		{synth.Distinct, nil},
		{synth.Distinct, map[string]string{"tagfocus": "worker=w1"}},
		{synth.Wide, map[string]string{"granularity": "lines"}},
		{synth.Zipf, map[string]string{"hide": "json"}},
	} {
		opt := testOptions(t, c.set)
		partial := synthEngine(t, c.shape)
		first, err := partial.TopFirst(opt, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !first.Partial() {
			t.Fatalf("%v %v: TopFirst gave a complete table", c.shape, c.set)
		}
		complete := synthEngine(t, c.shape)
		full, err := complete.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		// The rows compared, every len/40th, in one regexp: a Peek makes
		// every row's name to match it, so the rows share two Peeks.
		var alts []string
		chosen := map[int32]int{} // node → row
		inexact, marked := 0, 0
		for i := 0; i < len(full.Rows); i += max(1, len(full.Rows)/40) {
			chosen[full.Rows[i].Node] = i
			alts = append(alts, regexp.QuoteMeta(full.Nodes.Name(full.Rows[i].Node)))
			if i >= first.ExactRows() {
				inexact++
				if full.Rows[i].Inline != NotInlined {
					marked++
				}
			}
		}
		re := regexp.MustCompile("^(" + strings.Join(alts, "|") + ")$")
		// Peek with the table's edge fraction, and with every edge (as
		// the Peek view asks, beside a Top view's table).
		every := opt
		every.EdgeFraction = 0
		for _, o := range []Options{opt, every} {
			got := must(partial.Peek(o, re))(t)
			want := must(complete.Peek(o, re))(t)
			if len(want.Entries) != len(chosen) || len(got.Entries) != len(want.Entries) {
				t.Fatalf("%v %v edgefraction=%g: %d entries from the partial table, %d from the complete one, for %d rows", c.shape, c.set, o.EdgeFraction, len(got.Entries), len(want.Entries), len(chosen))
			}
			for k := range want.Entries {
				g, w := got.Entries[k], want.Entries[k]
				if _, ok := chosen[w.Node]; !ok {
					t.Fatalf("%v %v: Peek gave %s, not a row asked for", c.shape, c.set, full.Nodes.Name(w.Node))
				}
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("%v %v edgefraction=%g: peek of %s (row %d) from the partial table:\n%+v\nfrom the complete one:\n%+v", c.shape, c.set, o.EdgeFraction, full.Nodes.Name(w.Node), chosen[w.Node], g, w)
				}
			}
		}
		if inexact == 0 {
			t.Errorf("%v %v: no row past the partial table's exact ones", c.shape, c.set)
		}
		if c.shape == synth.Distinct && c.set == nil && marked == 0 {
			t.Errorf("no inline marker among the rows past the exact ones")
		}
	}
}
