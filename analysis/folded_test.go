package analysis

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFoldedAgreesWithTop: summing the folded stacks by their last frame
// gives each function's flat, and by every distinct frame its cum.
func TestFoldedAgreesWithTop(t *testing.T) {
	for _, c := range []struct {
		profile string
		set     map[string]string
	}{
		{"go/cpu_labels.pb.gz", nil},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space", "focus": "main"}},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"lines": "true"}},
	} {
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		opt := testOptions(t, c.set)
		top, err := e.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		stacks, err := e.Folded(opt)
		if err != nil {
			t.Fatal(err)
		}
		flat, cum := map[string]int64{}, map[string]int64{}
		for _, s := range stacks {
			frames := strings.Split(s.Frames, ";")
			flat[frames[len(frames)-1]] += s.Value
			seen := map[string]bool{}
			for _, f := range frames {
				if !seen[f] {
					seen[f] = true
					cum[f] += s.Value
				}
			}
		}
		for _, r := range top.Rows {
			name := strings.ReplaceAll(top.Nodes.Name(r.Node), ";", ":")
			if flat[name] != r.Flat || cum[name] != r.Cum {
				t.Errorf("%s %v: %s flat %d cum %d from folded, top says %d %d", c.profile, c.set, name, flat[name], cum[name], r.Flat, r.Cum)
			}
		}
	}
}
