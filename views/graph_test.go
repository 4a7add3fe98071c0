package views

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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
			v.Reveal(nodeName(g.Names, n.Node))
			break
		}
	}
	fn, _ := v.Centre()
	_ = v.View()
	press := func(x, y int) tea.Cmd {
		return v.Update(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	}
	c := v.center()
	lay := v.layout(c)
	centre := lay.levels[0][0]
	if cmd := press(centre.x+1, centre.y+1); cmd != nil {
		t.Errorf("a click on the centre: %v", cmd())
	}
	if cmd := press(0, 0); cmd != nil {
		t.Errorf("a click on the summary line: %v", cmd())
	}
	for _, l := range []int{-1, 1} {
		row := lay.levels[l]
		if len(row) == 0 {
			t.Fatalf("no boxes at level %d", l)
		}
		b := row[len(row)-1]
		want := nodeName(v.data.g.Names, v.data.g.Nodes[b.node].Node)
		cmd := press(b.x+b.w-1, b.y+graphBoxLines-1)
		if cmd == nil {
			t.Fatalf("a click on %s's box (level %d): nothing", want, l)
		}
		if msg, ok := cmd().(SelectMsg); !ok || msg.Name != want {
			t.Fatalf("a click on %s's box: %v", want, cmd())
		}
		if name, _ := v.Centre(); name != want {
			t.Fatalf("centred on %s after a click on %s", name, want)
		}
		v.Reveal(fn)
		_ = v.View()
	}
}
