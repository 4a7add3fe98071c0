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

// TestEntropyScores: the scores summed over the edges in one pass are
// entropyScore's, node by node, on graphs of every node and of a few
// (residual edges), of a diff (negative and zero weights) and of
// recursive stacks; and a graph whose lists are not complete (edges
// dropped from them) takes the node-by-node way.
func TestEntropyScores(t *testing.T) {
	t.Parallel()
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "heap", "deep") {
		e := newEngine()
		q, err := e.newQuery(testOptions(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		b := newGraphBuild(q)
		full := b.build(nil)
		kept := make([]bool, q.nodes.len())
		for i := range kept {
			kept[i] = i%3 == 0
		}
		for gname, g := range map[string]*ggraph{"every node": full, "a third": b.build(kept)} {
			if !g.listedInOrder() {
				t.Fatalf("%s, %s: a built graph's lists are not complete and in order", name, gname)
			}
			got := g.entropyScores()
			for i := range g.nodes {
				if want := g.entropyScore(i); got[i] != want {
					t.Fatalf("%s, %s: node %d scores %d; entropyScore %d", name, gname, i, got[i], want)
				}
			}
		}
		if dropped := full.trimEdges(fractionOf(full.nodes[0].cum, 0.5)); dropped > 0 {
			if full.listedInOrder() {
				t.Errorf("%s: lists without %d dropped edges pass as complete", name, dropped)
			}
		}
	}
}
