package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/views"
)

func (h *harness) graph() *views.Graph {
	var g *views.Graph
	h.do(func(m *Model) { g = m.views.get(viewGraph).(*views.Graph) })
	return g
}

// dotGraph reads a -dot golden of analysis/report (go tool pprof's
// output): its nodes' names (tooltips) in id order, and its edges as
// "caller -> callee" (or "caller ... callee" for a residual edge), with
// their labels.
func dotGraph(t *testing.T, golden string) (nodes, edges []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "analysis", "report", "testdata", golden+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	node := regexp.MustCompile(`^N\d+ \[label=".*" id="node\d+" .* tooltip="(.*) \([^()]*\)" color=`)
	edge := regexp.MustCompile(`^N\d+ -> N\d+ \[label=" ([^"]*)" .*tooltip="(.*) \(([^()]*)\)" labeltooltip=`)
	for _, l := range strings.Split(string(data), "\n") {
		if m := node.FindStringSubmatch(l); m != nil {
			nodes = append(nodes, m[1])
		}
		if m := edge.FindStringSubmatch(l); m != nil {
			edges = append(edges, m[2]+" ["+strings.ReplaceAll(m[1], `\n`, "")+"]")
		}
	}
	return nodes, edges
}

// TestGraphMatchesDot: the Graph view's nodes and edges are -dot's for
// the same settings (pprof's defaults: nodefraction 0.005, edgefraction
// 0.001, 80 nodes), node for node and edge for edge, with the values,
// inline marks and residual edges -dot labels them with.
func TestGraphMatchesDot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		golden, profile, opts string
		footer                bool // some centre's footer lists edges
	}{
		{"dot-cpu", "cpu_labels.pb.gz", "nodefraction=0.005", true},
		{"dot-heap", "heap.pb.gz", "nodefraction=0.005", false},
	} {
		t.Run(c.golden, func(t *testing.T) {
			h := start(t, testConfig(testdata(c.profile)))
			h.command(c.opts)
			h.show(viewGraph)
			h.waitFor("the graph", func(m *Model) bool { return m.ActiveView().HasResult() })
			var nodes, edges []string
			gv := h.graph()
			h.do(func(*Model) {
				g := gv.Data()
				for _, n := range g.Nodes {
					nodes = append(nodes, g.Names.Name(n.Node))
				}
				for _, e := range g.Edges {
					arrow := " -> "
					if e.Residual {
						arrow = " ... "
					}
					label := views.GraphEdgeLabel(g, e)
					edges = append(edges, g.Names.Name(g.Nodes[e.From].Node)+arrow+g.Names.Name(g.Nodes[e.To].Node)+" ["+label+"]")
				}
			})
			wantNodes, wantEdges := dotGraph(t, c.golden)
			if len(wantNodes) < 5 || len(wantEdges) < 5 {
				t.Fatalf("read %d nodes and %d edges from %s", len(wantNodes), len(wantEdges), c.golden)
			}
			if !slices.Equal(nodes, wantNodes) {
				t.Errorf("nodes:\n%q\n-dot's:\n%q", nodes, wantNodes)
			}
			if !slices.Equal(edges, wantEdges) {
				t.Errorf("edges:\n%q\n-dot's:\n%q", edges, wantEdges)
			}

			// Centred on each of the first nodes in turn, the view draws
			// every -dot edge between the boxes it shows: as the edge
			// that reached a box, or in its footer, or counted there.
			checked := 0
			for _, centre := range nodes[:min(len(nodes), 12)] {
				var shown []string
				var reached, listed []int32
				var more int
				var footLabels []string
				h.do(func(*Model) {
					gv.Reveal(centre)
					_, shown = gv.Centre()
					reached, listed, more = gv.DrawnEdges()
					for _, id := range listed {
						footLabels = append(footLabels, gv.GraphFootLabel(id))
					}
				})
				screen := h.screen()
				drawn := map[string]bool{}
				for _, id := range append(slices.Clone(reached), listed...) {
					s := edges[id]
					if drawn[s] {
						t.Errorf("centre %s: %s drawn twice", centre, s)
					}
					drawn[s] = true
				}
				for _, l := range footLabels {
					if !onScreen(screen, l) {
						t.Errorf("centre %s: the footer's %q is not on the screen:\n%s", centre, l, screen)
					}
				}
				among := 0
				for _, e := range wantEdges {
					from, to := dotEnds(e)
					if !slices.Contains(shown, from) || !slices.Contains(shown, to) {
						continue
					}
					among++
					if !drawn[e] && more == 0 {
						t.Errorf("centre %s: -dot's %s, between boxes shown, is not drawn:\n%s", centre, e, screen)
					}
				}
				if len(drawn)+more != among {
					t.Errorf("centre %s: %d edges drawn and %d counted, -dot has %d between the boxes shown", centre, len(drawn), more, among)
				}
				checked += len(listed)
			}
			if c.footer && checked == 0 {
				t.Errorf("no centre has an edge in the footer")
			}
		})
	}
}

// onScreen reports whether label ("value caller → callee") is on the
// screen, whole or, on a line it was too long for, cut with "…" after
// its caller.
func onScreen(screen, label string) bool {
	if strings.Contains(screen, label) {
		return true
	}
	head, _, _ := strings.Cut(label, " → ")
	for _, line := range strings.Split(screen, "\n") {
		if i := strings.Index(line, " "+head+" → "); i >= 0 {
			cut, _, ok := strings.Cut(line[i+1:], "…")
			if ok && strings.HasPrefix(label, cut) {
				return true
			}
		}
	}
	return false
}

// dotEnds splits an edge as dotGraph lists it into its caller and
// callee.
func dotEnds(e string) (from, to string) {
	e = e[:strings.LastIndex(e, " [")]
	for _, arrow := range []string{" -> ", " ... "} {
		if f, t, ok := strings.Cut(e, arrow); ok {
			return f, t
		}
	}
	return "", ""
}

// TestGraphWalk drives the Graph view from the keyboard: it opens on the
// shared selection, ↑ re-centres on the heaviest caller, → aims at a
// neighbour and ↓ re-centres on the aimed callee, and every move is the
// selection the other views share; f focuses on the centre.
func TestGraphWalk(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.show(viewGraph)
	h.waitFor("the graph", func(m *Model) bool { return m.ActiveView().HasResult() })
	gv := h.graph()
	centre := func() (string, []string) {
		var name string
		var shown []string
		h.do(func(*Model) { name, shown = gv.Centre() })
		return name, shown
	}
	if c, shown := centre(); c != "main.fib" || !slices.Contains(shown, "runtime/pprof.Do") {
		t.Fatalf("opens on %q showing %q, want main.fib under runtime/pprof.Do", c, shown)
	}
	golden(t, "graph-fib", h.screen())
	h.keys("<up>")
	waitSelected(h, "runtime/pprof.Do")
	if c, _ := centre(); c != "runtime/pprof.Do" {
		t.Fatalf("↑: centre %q", c)
	}
	if s := h.screen(); !strings.Contains(s, "┏ pprof.Do") || !strings.Contains(s, "main.quicksort") {
		t.Errorf("after ↑ the screen is not centred on runtime/pprof.Do:\n%s", s)
	}
	golden(t, "graph-pprof-do", h.screen())
	// → → → aims past the two callers at the second callee (quicksort),
	// and ↓ goes there.
	h.keys("<right>", "<right>", "<right>", "<right>", "<down>")
	waitSelected(h, "main.quicksort")
	// Top follows the shared selection.
	h.keys("1")
	var row string
	h.do(func(m *Model) { row = m.views.top.RowName(0) })
	if row != "main.quicksort" {
		t.Errorf("Top after the walk: cursor on %q", row)
	}
	h.show(viewGraph)
	h.keys("f")
	var focus string
	h.do(func(m *Model) { focus = m.Options().Focus })
	if focus != `^main\.quicksort$` {
		t.Errorf("f on the graph: focus %q", focus)
	}
}

// TestSaveGraph: :save FILE.dot and FILE.callgrind write -dot's and
// -callgrind's output for the explorer's settings, equal to go tool
// pprof's with the same settings (the goldens of analysis/report); .svg
// runs Graphviz's dot, and says so in one line where it is missing.
func TestSaveGraph(t *testing.T) {
	dir := t.TempDir()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("nodefraction=0.005")
	for _, c := range []struct{ file, golden string }{
		{"g.dot", "dot-cpu"},
		{"g.callgrind", "callgrind-cpu"},
	} {
		path := filepath.Join(dir, c.file)
		h.command("save " + path)
		h.waitFor("the save", func(m *Model) bool { return strings.HasPrefix(m.note.text.String(), "saved "+path) })
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "analysis", "report", "testdata", c.golden+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf(":save %s differs from go tool pprof's %s", c.file, c.golden)
		}
	}
	t.Setenv("PATH", t.TempDir())
	svg := filepath.Join(dir, "g.svg")
	h.command("save " + svg)
	h.waitFor("the save", func(m *Model) bool { return strings.HasPrefix(m.note.text.String(), "save: ") })
	if s := h.screen(); !strings.Contains(s, "Graphviz's dot") {
		t.Errorf(":save g.svg without dot:\n%s", s)
	}
	if _, err := os.Stat(svg); err == nil {
		t.Errorf(":save g.svg without dot left a file")
	}
}

// TestGraphScreenSizes: at 80×24 the graph shows fewer hops, at 200×50
// more and wider rows.
func TestGraphScreenSizes(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		cfg := testConfig(testdata("cpu_labels.pb.gz"))
		cfg.Width, cfg.Height = size.w, size.h
		h := start(t, cfg)
		h.show(viewGraph)
		h.waitFor("the graph", func(m *Model) bool { return m.ActiveView().HasResult() })
		h.keys("<up>")
		waitSelected(h, "runtime/pprof.Do")
		golden(t, fmt.Sprintf("graph-%dx%d", size.w, size.h), h.screen())
	}
}
