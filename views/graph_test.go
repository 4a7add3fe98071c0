package views

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestGraphClick: a click on a caller's or callee's box re-centres the
// graph on it and makes it the selection; a click on the centre, or
// between boxes, does nothing.
func TestGraphClick(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	v := NewGraph(testCommon())
	v.SetSize(120, 30)
	showQuery(t, v, e, analysis.DefaultOptions())
	// A function with callers and callees to click on.
	g := v.Data()
	for _, n := range g.Nodes {
		if len(n.In) > 0 && len(n.Out) > 0 && g.Edges[n.In[0]].From != g.Edges[n.Out[0]].To {
			v.Reveal(g.Names.FuncName(n.Node))
			break
		}
	}
	fn, _ := v.Centre()
	_ = v.View()
	press := func(x, y int) tea.Msg {
		v.Update(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		return asked(t, v.c)
	}
	c := v.center()
	lay := v.layout(c)
	centre := lay.levels[0][0]
	if msg := press(centre.x+1, centre.y+1); msg != nil {
		t.Errorf("a click on the centre: %v", msg)
	}
	if msg := press(0, 0); msg != nil {
		t.Errorf("a click on the summary line: %v", msg)
	}
	for _, l := range []int{-1, 1} {
		row := lay.levels[l]
		if len(row) == 0 {
			t.Fatalf("no boxes at level %d", l)
		}
		b := row[len(row)-1]
		want := v.data.g.Names.FuncName(v.data.g.Nodes[b.node].Node)
		msg := press(b.x+b.w-1, b.y+graphBoxLines-1)
		if msg == nil {
			t.Fatalf("a click on %s's box (level %d): nothing", want, l)
		}
		if sel, ok := msg.(SelectMsg); !ok || sel.Name != want {
			t.Fatalf("a click on %s's box: %v", want, msg)
		}
		if name, _ := v.Centre(); name != want {
			t.Fatalf("centred on %s after a click on %s", name, want)
		}
		v.Reveal(fn)
		_ = v.View()
	}
}

// TestGraphEdgeLabelsCut: the label of each edge drawn under or over a
// box is whole when it fits the box's width, and otherwise cut with "…",
// still starting with the edge's stroke and value; at 80 columns some
// are cut.
func TestGraphEdgeLabelsCut(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		v := NewGraph(testCommon())
		v.SetSize(size.w, size.h)
		showQuery(t, v, e, analysis.DefaultOptions())
		g := v.Data()
		cut := 0
		for _, n := range g.Nodes[:min(len(g.Nodes), 20)] {
			v.Reveal(g.Names.FuncName(n.Node))
			lines := strings.Split(ansi.Strip(v.View()), "\n")
			lay := v.layout(v.center())
			for l := -lay.up; l <= lay.down; l++ {
				for _, b := range lay.levels[l] {
					if b.edge < 0 {
						continue
					}
					ge := &g.Edges[b.edge]
					y := b.y - 1
					if l < 0 {
						y = b.y + graphBoxLines
					}
					head := edgeStroke(ge) + " " + v.edgeValue(ge)
					full := head
					if name, arrow := v.edgeOther(b, lay.at(b.level-sign(b.level), *ge, b.level < 0)); name != "" {
						full += arrow + name
					}
					got := strings.TrimRight(ansi.Cut(lines[y], b.x+2, b.x+b.w), " ")
					switch {
					case ansi.StringWidth(full) <= b.w-2:
						if got != full {
							t.Errorf("%dx%d centre %s: edge label %q, want %q", size.w, size.h, g.Names.Name(n.Node), got, full)
						}
					case !strings.HasSuffix(got, "…") && !strings.Contains(got, " …"), ansi.StringWidth(got) > b.w-2,
						!strings.HasPrefix(got, head) && !strings.HasPrefix(head, strings.TrimSuffix(got, "…")):
						t.Errorf("%dx%d centre %s: edge label %q for %q in %d columns", size.w, size.h, g.Names.Name(n.Node), got, full, b.w-2)
					default:
						cut++
					}
				}
			}
		}
		if size.w == 80 && cut == 0 {
			t.Errorf("%dx%d: no edge label cut", size.w, size.h)
		}
	}
}

// TestGraphFooterSaysWhat: the list of the edges no line draws says so
// at its start, in the words that fit the width, and its lines fit.
func TestGraphFooterSaysWhat(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	for _, c := range []struct {
		w, h int
		lead string
	}{{80, 24, "  not drawn: │"}, {200, 50, "  also (edges not drawn): │"}} {
		v := NewGraph(testCommon())
		v.SetSize(c.w, c.h)
		showQuery(t, v, e, analysis.DefaultOptions())
		g := v.Data()
		found := false
		for _, n := range g.Nodes {
			v.Reveal(g.Names.FuncName(n.Node))
			lay := v.layout(v.center())
			if len(lay.extra) == 0 {
				continue
			}
			found = true
			lines := strings.Split(ansi.Strip(v.View()), "\n")
			if !strings.HasPrefix(lines[lay.footY], c.lead) {
				t.Errorf("%dx%d centre %s: footer %q, want it to start %q", c.w, c.h, g.Names.Name(n.Node), lines[lay.footY], c.lead)
			}
			for _, l := range lines[lay.footY:] {
				if ansi.StringWidth(l) > c.w {
					t.Errorf("%dx%d: footer line %q wider than the view", c.w, c.h, l)
				}
			}
			break
		}
		if !found {
			t.Errorf("%dx%d: no centre lists edges below the boxes", c.w, c.h)
		}
	}
}

// TestGraphFooterColumns: the footer's separators are counted by their
// width, not their bytes: with several edges on a line, every line of
// the view is as wide as the view.
func TestGraphFooterColumns(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		v := NewGraph(testCommon())
		v.SetSize(size[0], size[1])
		showQuery(t, v, e, analysis.DefaultOptions())
		g := v.Data()
		shared := false
		for _, n := range g.Nodes {
			v.Reveal(g.Names.FuncName(n.Node))
			items, _ := v.footer(new(v.layout(v.center())))
			for i := 1; i < len(items); i++ {
				shared = shared || items[i].y == items[i-1].y
			}
			for _, l := range strings.Split(ansi.Strip(v.View()), "\n") {
				if ansi.StringWidth(l) != size[0] {
					t.Fatalf("%dx%d centre %s: line %q is %d columns", size[0], size[1], g.Names.Name(n.Node), l, ansi.StringWidth(l))
				}
			}
		}
		if !shared && size[0] == 200 {
			t.Errorf("%dx%d: no footer line lists two edges", size[0], size[1])
		}
	}
}
