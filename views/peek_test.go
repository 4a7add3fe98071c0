package views

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

func testCommon() *Common {
	r := lipgloss.NewRenderer(os.Stdout)
	r.SetColorProfile(termenv.Ascii)
	return &Common{Styles: NewStyles(r), Keys: DefaultKeyMap()}
}

func testEngine(t *testing.T, file string) *analysis.Engine {
	t.Helper()
	p, err := format.Open(context.Background(), "../testdata/go/"+file, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return analysis.NewEngine(p)
}

// load runs v's query for sel as the root would and hands it the result.
func load(t *testing.T, v View, e *analysis.Engine, opt analysis.Options, sel string) {
	t.Helper()
	run, state := v.Query(e, opt, sel)
	if state != sel {
		t.Fatalf("state %q, want the selection %q", state, sel)
	}
	show, err := run()
	if err != nil {
		t.Fatal(err)
	}
	show()
}

// asked returns the one message a view asked of the root
// (Common.Ask) since the last call, or nil.
func asked(t *testing.T, c *Common) tea.Msg {
	t.Helper()
	a := c.TakeAsked()
	switch len(a) {
	case 0:
		return nil
	case 1:
		return a[0]
	}
	t.Fatalf("%d messages asked of the root: %v", len(a), a)
	return nil
}

// keyPress is the key named k: "enter" or "<enter>" (see namedKeys), else
// runes.
func keyPress(k string) tea.KeyMsg {
	if kt, ok := namedKeys[k]; ok {
		return tea.KeyMsg{Type: kt}
	}
	if kt, ok := namedKeys["<"+k+">"]; ok {
		return tea.KeyMsg{Type: kt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// TestPeekSandwich: the callers, the function and the callees, in
// pprof's -peek order and with its edge weights.
func TestPeekSandwich(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	opt := analysis.DefaultOptions()
	for _, name := range []string{"main.fib", "main.partition", "main.hashBlock", "runtime.mallocgc"} {
		p := NewPeek(testCommon())
		p.SetSize(120, 40)
		load(t, p, e, opt, name)
		want, err := e.Peek(peekOptions(opt, name), regexp.MustCompile("^"+regexp.QuoteMeta(name)+"$"))
		if err != nil || len(want.Entries) != 1 {
			t.Fatalf("%s: pprof's peek: %v", name, err)
		}
		en := want.Entries[0]
		var rows []string
		for _, ed := range en.In {
			rows = append(rows, "↑ "+want.Top.Nodes.Name(ed.Node)+" "+p.value(ed.Weight)+" "+strings.TrimSpace(analysis.Percentage(ed.Weight, en.Cum)))
		}
		rows = append(rows, "● "+name+" "+p.value(en.Flat)+" "+p.value(en.Cum))
		for _, ed := range en.Out {
			rows = append(rows, "↓ "+want.Top.Nodes.Name(ed.Node)+" "+p.value(ed.Weight)+" "+strings.TrimSpace(analysis.Percentage(ed.Weight, en.Cum)))
		}
		lines := strings.Split(p.View(), "\n")[peekHeadLines:]
		for i, w := range rows {
			f := strings.Fields(strings.TrimPrefix(lines[i], "▶"))
			// Fields: two values, the mark, the name.
			got := strings.Join([]string{f[2], f[3], f[0], f[1]}, " ")
			if got != w {
				t.Errorf("%s row %d: %q, want %q", name, i, got, w)
			}
		}
		if sel, ok := p.Selection(); !ok || sel.Name != name {
			t.Errorf("%s: selection %+v", name, sel)
		}
		if c, edge := p.Cursor(); c != name || edge {
			t.Errorf("%s: the cursor starts on %q (edge %v), not the function", name, c, edge)
		}
	}
}

// TestPeekWalk: enter on a caller or callee asks the root to select it;
// on the function itself enter is left to the root (drill).
func TestPeekWalk(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	p := NewPeek(testCommon())
	p.SetSize(100, 30)
	load(t, p, e, analysis.DefaultOptions(), "main.partition")
	if p.Claims(keyPress("enter")) {
		t.Error("enter claimed on the function itself")
	}
	p.Update(keyPress("up"))
	caller, edge := p.Cursor()
	if !edge || !p.Claims(keyPress("enter")) {
		t.Fatalf("on caller %q: not claimed", caller)
	}
	p.Update(keyPress("enter"))
	msg := asked(t, p.c)
	if msg == nil {
		t.Fatal("enter on a caller: nothing asked of the root")
	}
	if sel, ok := msg.(SelectMsg); !ok || sel.Name != caller || caller != "main.quicksort" {
		t.Errorf("walk: %#v, want SelectMsg{main.quicksort}", msg)
	}
	// The root recomputes for the new selection.
	p.Reveal(caller)
	if sel, _ := p.Selection(); sel.Name != caller {
		t.Errorf("after Reveal the selection is %q", sel.Name)
	}
	if !strings.Contains(p.View(), "computing") {
		t.Error("stale data shown for the new selection")
	}
	load(t, p, e, analysis.DefaultOptions(), caller)
	p.Update(keyPress("down"))
	callee, _ := p.Cursor()
	p.Update(keyPress("c"))
	if c, _ := p.Cursor(); c != caller || callee == caller {
		t.Errorf("c: cursor on %q", c)
	}
}

// TestPeekDoubleClick: two clicks on one row within the double-click
// time walk there; slower clicks only move the cursor.
func TestPeekDoubleClick(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	p := NewPeek(testCommon())
	p.SetSize(100, 30)
	load(t, p, e, analysis.DefaultOptions(), "main.partition")
	now := time.Unix(0, 0)
	p.click.now = func() time.Time { return now }
	click := func(y int) tea.Msg {
		p.Update(tea.MouseMsg{Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		return asked(t, p.c)
	}
	if msg := click(peekHeadLines); msg != nil {
		t.Error("one click walked")
	}
	now = now.Add(600 * time.Millisecond)
	if msg := click(peekHeadLines); msg != nil {
		t.Error("a slow second click walked")
	}
	now = now.Add(200 * time.Millisecond)
	msg := click(peekHeadLines)
	if msg == nil {
		t.Fatal("double click did not walk")
	}
	if sel, ok := msg.(SelectMsg); !ok || sel.Name != "main.quicksort" {
		t.Errorf("double click: %+v", msg)
	}
}

func TestPeekEmpty(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	p := NewPeek(testCommon())
	p.SetSize(100, 10)
	load(t, p, e, analysis.DefaultOptions(), "")
	if !strings.Contains(p.View(), "no function selected") {
		t.Errorf("nothing selected:\n%s", p.View())
	}
	load(t, p, e, analysis.DefaultOptions(), "main.nope")
	if !strings.Contains(p.View(), "main.nope has no samples") {
		t.Errorf("no samples:\n%s", p.View())
	}
	// A filter that drops every sample through the function.
	opt := analysis.DefaultOptions()
	opt.Focus = "runSort"
	load(t, p, e, opt, "main.fib")
	if !strings.Contains(p.View(), "main.fib has no samples") {
		t.Errorf("focus elsewhere:\n%s", p.View())
	}
}

// showQuery computes v's data for opt and shows it, as the root does.
func showQuery(tb testing.TB, v View, e *analysis.Engine, opt analysis.Options) {
	tb.Helper()
	run, _ := v.Query(e, opt, "")
	show, err := run()
	if err != nil {
		tb.Fatal(err)
	}
	show()
}

// TestFuncSummaryFitsName: the summary line over Peek and the call
// graph shortens a long name, not the numbers after it; a name of up to
// summaryName columns stays whole, and past that the line's end is cut.
func TestFuncSummaryFitsName(t *testing.T) {
	value := func(v int64) string { return fmt.Sprint(v) }
	long := "github.com/acme/shop/internal/notify.(*Token[go.shape.int]).CompressLabels"
	got := funcSummary(long, 120, value, 19, 1360, 10000, "1 caller", "2 callees", "graph of 80 nodes")
	if w := ansi.StringWidth(got); w > 120 || !strings.HasSuffix(got, "· graph of 80 nodes") || !strings.Contains(got, "CompressLabels  flat 19") {
		t.Errorf("long name at 120 columns (%d): %q", w, got)
	}
	got = funcSummary(long, 90, value, 19, 1360, 10000, "1 caller", "2 callees", "graph of 80 nodes")
	if name, _, _ := strings.Cut(got[1:], "  flat"); ansi.StringWidth(name) > summaryName || !strings.HasSuffix(name, "CompressLabels") {
		t.Errorf("long name at 90 columns: %q", got)
	}
	short := "0000000000041a770 <unknown>"
	got = funcSummary(short, 60, value, 19, 1360, 10000, "0 callers", "61 callees (57 off screen)", "graph of 80 nodes")
	if !strings.HasPrefix(got, " "+short+"  flat 19") {
		t.Errorf("a name of %d columns was cut: %q", len(short), got)
	}
	if got := funcSummary(long, 300, value, 19, 1360, 10000, "1 caller"); !strings.HasPrefix(got, " "+long+"  flat") {
		t.Errorf("a long name cut with room for it: %q", got)
	}
}
