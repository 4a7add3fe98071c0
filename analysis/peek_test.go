package analysis

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestPeekHalves: the edges summed over two halves of the stacks and
// merged (how Peek runs on a big profile) equal one walk over all of
// them, edge by edge, weights and inline flags, for every node at once.
func TestPeekHalves(t *testing.T) {
	for _, c := range []struct {
		profile string
		set     map[string]string
	}{
		{"synthetic/bigprof_10k.pb.gz", nil},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"hide": "json", "sample_index": "0"}},
		{"go/cpu_labels.pb.gz", map[string]string{"lines": "true"}},
		{"pprof/large.cpu", nil},
	} {
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
		in, out := q.edgeRange(0, n, want, locWanted, w, dw)
		for _, cut := range []int{1, n / 3, n / 2, n - 1} {
			in1, out1 := q.edgeRange(0, cut, want, locWanted, w, dw)
			in2, out2 := q.edgeRange(cut, n, want, locWanted, w, dw)
			mergeEdges(in1, in2)
			mergeEdges(out1, out2)
			if !reflect.DeepEqual(in, in1) || !reflect.DeepEqual(out, out1) {
				t.Fatalf("%s %v: edges split at %d of %d stacks differ from one walk", c.profile, c.set, cut, n)
			}
		}
		if len(in) == 0 {
			t.Fatalf("%s: no edges", c.profile)
		}
	}
}
