package analysis

import (
	"slices"
	"testing"
)

func TestFoldPath(t *testing.T) {
	const A, f, g, h, k = 0, 1, 2, 3, 4
	cases := []struct {
		path, direct, all []int32
	}{
		{[]int32{A, f, f, f, g}, []int32{A, f, g}, []int32{A, f, g}},
		{[]int32{A, f, g, f, h}, []int32{A, f, g, f, h}, []int32{A, f, h}},
		{[]int32{A, f, g, h, g, f, k}, []int32{A, f, g, h, g, f, k}, []int32{A, f, k}},
		{[]int32{A, f, g, f, g, h}, []int32{A, f, g, f, g, h}, []int32{A, f, g, h}},
		{[]int32{A, f, g, f}, []int32{A, f, g, f}, []int32{A, f}},
		{[]int32{f, f}, []int32{f}, []int32{f}},
		{[]int32{A}, []int32{A}, []int32{A}},
		{nil, nil, nil},
	}
	for _, c := range cases {
		for _, m := range []struct {
			mode string
			want []int32
		}{{RecursionDirect, c.direct}, {RecursionAll, c.all}} {
			inl := make([]bool, len(c.path))
			for i := range inl {
				inl[i] = c.path[i] == g // follows its frame
			}
			fd := &folder{mode: m.mode}
			got, gotInl := fd.fold(slices.Clone(c.path), inl, 5)
			if !slices.Equal(got, m.want) && len(got)+len(m.want) > 0 {
				t.Errorf("%s %v: got %v, want %v", m.mode, c.path, got, m.want)
			}
			for i, n := range got {
				if gotInl[i] != (n == g) {
					t.Errorf("%s %v: inline flags %v do not follow %v", m.mode, c.path, gotInl, got)
				}
			}
			if ref := refFold(c.path, m.mode); !slices.Equal(ref, m.want) && len(ref)+len(m.want) > 0 {
				t.Errorf("refFold %s %v: got %v, want %v", m.mode, c.path, ref, m.want)
			}
			if m.mode == RecursionAll && slices.ContainsFunc(fd.at, func(x int32) bool { return x != 0 }) {
				t.Errorf("%v: scratch left dirty: %v", c.path, fd.at)
			}
		}
	}
}

// TestTracesFolded: traces and peek follow the recursion setting: no
// node repeats directly (direct) or at all (all) in a folded trace, no
// sample is lost, and every trace still ends in its leaf.
func TestTracesFolded(t *testing.T) {
	for _, profile := range []string{"go/cpu_labels.pb.gz", "go/recursive.pb.gz"} {
		e := engineFor(t, "../testdata/"+profile)
		plain, err := e.Traces(testOptions(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{RecursionDirect, RecursionAll} {
			tr, err := e.Traces(testOptions(t, map[string]string{"recursion": mode}))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Traces) != len(plain.Traces) || tr.Total != plain.Total {
				t.Fatalf("%s %s: %d traces, total %d; unfolded %d, %d", profile, mode, len(tr.Traces), tr.Total, len(plain.Traces), plain.Total)
			}
			shorter := 0
			for i, x := range tr.Traces {
				p := plain.Traces[i]
				if x.Frames[0].Node != p.Frames[0].Node || x.Value != p.Value {
					t.Fatalf("%s %s: trace %d's leaf or value changed", profile, mode, i)
				}
				if len(x.Frames) < len(p.Frames) {
					shorter++
				}
				seen := map[int32]bool{}
				for k, f := range x.Frames {
					if k > 0 && x.Frames[k-1].Node == f.Node || mode == RecursionAll && seen[f.Node] {
						t.Fatalf("%s %s: trace %d repeats %s", profile, mode, i, tr.Nodes.Name(f.Node))
					}
					seen[f.Node] = true
				}
			}
			if shorter == 0 {
				t.Errorf("%s %s: no trace was folded", profile, mode)
			}
		}
	}
}
