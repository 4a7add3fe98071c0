package analysis

import (
	"slices"
	"testing"
)

// TestGraphNodes: the Graph view's graph (GraphNodes) has -dot's
// (GraphVisual) nodes, values and edges, without its tags, whether the
// tags are summed whole (a node fraction) or by their flat values only
// (nodefraction=0), on profiles whose label sets and numeric labels
// choose how many nodes nodecount keeps, with recursion folded or not
// (the view takes a stack's leaf without folding it).
func TestGraphNodes(t *testing.T) {
	t.Parallel()
	compared := 0
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "heap", "distinct") {
		e := newEngine()
		for _, set := range []map[string]string{
			{"nodefraction": "0", "nodecount": "80"},
			{"nodefraction": "0", "nodecount": "12"},
			{"nodefraction": "0.005", "nodecount": "80"},
			{"nodefraction": "0", "nodecount": "30", "call_tree": "true"},
			{"nodefraction": "0", "nodecount": "12", "recursion": "all"},
		} {
			opt := testOptions(t, set)
			dot := must(e.Graph(opt, GraphVisual))(t)
			view := must(e.Graph(opt, GraphNodes))(t)
			for i := range dot.Nodes {
				dot.Nodes[i].LabelTags, dot.Nodes[i].NumericTags = nil, nil
			}
			if got, want := graphLines(view), graphLines(dot); !slices.Equal(got, want) {
				t.Errorf("%s %v: the view's graph\n%q\n-dot's\n%q", name, set, got, want)
			}
			compared++
		}
	}
	if compared < 20 {
		t.Errorf("compared %d graphs", compared)
	}
}
