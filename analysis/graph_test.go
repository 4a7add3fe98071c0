package analysis

import (
	"slices"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
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

// TestGraphObjfile: a graph node's object file, taken from the one
// mapping of all its locations where there is one, is the one of the
// location the node is first met at from the root (pprof's), for every
// node, at the functions and files granularities (files merge functions
// of several binaries) and with a focus (fewer stacks walked), on
// profiles of several mappings.
func TestGraphObjfile(t *testing.T) {
	t.Parallel()
	mixed := 0
	engines := map[string]*Engine{"two mappings": NewEngine(twoMappingProfile())}
	for _, path := range []string{"../testdata/legacy/cpu.prof.pprof.pb.gz", "../testdata/legacy/cppbench.cpu", "../testdata/legacy/java.cpu", "../testdata/go/heap.pb.gz", "../testdata/pprof/large.cpu"} {
		engines[path] = engineFor(t, path)
	}
	for path, e := range engines {
		for _, set := range []map[string]string{nil, {"granularity": "files"}, {"focus": "."}} {
			q, err := e.newQuery(testOptions(t, set))
			if err != nil {
				t.Fatal(err)
			}
			b := newGraphBuild(q)
			first := (&graphBuild{q: q, w: b.w, dw: b.dw}).firstLocs()
			p := e.Profile()
			for n := range int32(q.nodes.len()) {
				want := ""
				if l := first[n]; l >= 0 {
					if m := p.Locations[l].Mapping; m >= 0 {
						want = p.Mappings[m].File
					}
				} else {
					continue // in no walked stack: not in a graph
				}
				if got := b.objfile(n); got != want {
					t.Fatalf("%s %v: node %q: objfile %q, want %q", path, set, q.nodes.name(n), got, want)
				}
				if b.nodeMapping[n] == mixedMappings {
					mixed++
				}
			}
		}
	}
	if mixed == 0 {
		t.Error("no node has locations in two mappings: the walk for them is not tested")
	}
}

// twoMappingProfile has memcpy in two binaries: its location in the
// first mapping (the lower index) only in a stack after the one that
// meets it in the second; the other functions each in one.
func twoMappingProfile() *format.Profile {
	p := &format.Profile{
		SampleTypes: []format.ValueType{{Type: "samples", Unit: "count"}},
		Strings:     []string{""},
		LabelSets:   format.LabelSets{Off: []int32{0, 0}},
		Samples:     format.Samples{Values: [][]int64{nil}},
		Mappings:    []format.Mapping{{ID: 1, File: "/bin/app"}, {ID: 2, File: "/lib/libc.so"}},
		Functions:   []format.Function{{ID: 1, Name: "main"}, {ID: 2, Name: "memcpy"}, {ID: 3, Name: "work"}},
	}
	for i, l := range []struct{ mapping, fn int32 }{{0, 0}, {0, 1}, {1, 1}, {0, 2}} {
		p.Locations = append(p.Locations, format.Location{ID: uint64(i + 1), Mapping: l.mapping, Lines: p.AddLines(format.Line{Function: l.fn, Line: 1})})
	}
	p.Stacks.Off = []int32{0}
	for _, stack := range [][]int32{{2, 0}, {1, 3, 0}} { // leaf first: memcpy in libc, then in app
		p.Stacks.Locs = append(p.Stacks.Locs, stack...)
		p.Stacks.Off = append(p.Stacks.Off, int32(len(p.Stacks.Locs)))
		p.Samples.Stack = append(p.Samples.Stack, int32(len(p.Stacks.Off)-2))
		p.Samples.Values[0] = append(p.Samples.Values[0], 1)
		p.Samples.Labels = append(p.Samples.Labels, 0)
	}
	return p
}
