package views

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

const cpuProfile = "../testdata/go/cpu_labels.pb.gz"

// newTestFlame opens src in a Flame view of w×h (no colour) and returns
// it with a tree of its own, made apart from the view's, to check the
// view against.
func newTestFlame(t *testing.T, w, h int, src format.Sources) (*Flame, *analysis.Tree) {
	t.Helper()
	p, err := format.Load(context.Background(), src, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	c := &Common{Styles: NewStyles(lipgloss.NewRenderer(io.Discard)), Keys: DefaultKeyMap(),
		Diff: len(src.Base)+len(src.DiffBase) > 0}
	f := NewFlame(c)
	f.SetSize(w, h)
	run, _ := f.Query(e, opt, "")
	show, err := run()
	if err != nil {
		t.Fatal(err)
	}
	show()
	tr, err := e.Tree(opt, analysis.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f, tr
}

func cpuFlame(t *testing.T, w, h int) (*Flame, *analysis.Tree) {
	return newTestFlame(t, w, h, format.Sources{Sources: []string{cpuProfile}})
}

var namedKeys = map[string]tea.KeyType{
	"<enter>": tea.KeyEnter, "<esc>": tea.KeyEsc, "<backspace>": tea.KeyBackspace,
	"<up>": tea.KeyUp, "<down>": tea.KeyDown, "<left>": tea.KeyLeft, "<right>": tea.KeyRight,
}

// press sends keys ("<enter>", or runes) to f, running the background
// layouts they start as the program would.
func press(t *testing.T, f *Flame, keys ...string) {
	t.Helper()
	for _, k := range keys {
		run(t, f, f.Update(keyPress(k)))
	}
}

// run runs cmd and hands its message back to f, as the root does.
func run(t *testing.T, f *Flame, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	vm, ok := cmd().(ViewMsg)
	if !ok || vm.To != View(f) {
		t.Fatalf("the flame graph's command returned %#v", vm)
	}
	f.Update(vm.Msg)
	if f.Busy() {
		t.Fatal("still busy after its layout came back")
	}
}

// cursorName is the name of the frame under the cursor.
func cursorName(f *Flame) string {
	if n := f.cursorNode(); n != nil {
		return f.tree.Nodes.Name(n.Node)
	}
	return "root"
}

// node follows a path of names down tr.
func node(t *testing.T, tr *analysis.Tree, names ...string) *analysis.TreeNode {
	t.Helper()
	n := findPath(tr, names)
	if n == nil || tr.Nodes.Name(n.Node) != names[len(names)-1] {
		t.Fatalf("no node %v", names)
	}
	return n
}

// cells is the columns [x0, x1) of the values [lo, lo+w) at scale.
func cells(lo, w int64, scale float64) (int, int) {
	r := func(v int64) int { return int(math.Floor(float64(v)*scale + 0.5)) }
	return r(lo), r(lo + w)
}

// frameOf returns the frame of node n in f's layout, or fails.
func frameOf(t *testing.T, f *Flame, n *analysis.TreeNode) *flameFrame {
	t.Helper()
	for i := range f.lay.frames {
		fr := &f.lay.frames[i]
		if fr.n != nil && fr.n.Depth == n.Depth && namePathEqual(f, fr.n, n) {
			return fr
		}
	}
	t.Fatalf("no frame for %s", f.tree.Nodes.Name(n.Node))
	return nil
}

// namePathEqual compares nodes of two trees by their paths of names.
func namePathEqual(f *Flame, a, b *analysis.TreeNode) bool {
	for ; a != nil && b != nil; a, b = a.Parent, b.Parent {
		if f.tree.Nodes.Name(a.Node) != f.tree.Nodes.Name(b.Node) {
			return false
		}
	}
	return a == nil && b == nil
}

// TestFlameLayout checks the widths against the tree's values: the root
// spans the width, the roots share it in proportion to their totals,
// every frame's children lie under it, right-aligned after its self
// value, and exactly the children narrower than a cell are in its narrow
// run.
func TestFlameLayout(t *testing.T) {
	const w = 100
	f, tr := cpuFlame(t, w, 40)
	lay := f.lay
	if tr.Total != 2_840_000_000 {
		t.Fatalf("total %d", tr.Total)
	}
	if root := lay.frames[0]; root.x0 != 0 || root.x1 != w || root.w != tr.Total || lay.sum != tr.Total {
		t.Fatalf("root frame %+v, sum %d; want [0, %d) of %d", root, lay.sum, w, tr.Total)
	}
	// The roots: main.cpuPhase.func1 has 98.94% of 2.84s, so 99 columns.
	scale := float64(w) / float64(tr.Total)
	var at int64
	for _, r := range tr.Roots() {
		x0, x1 := cells(at, r.Weight, scale)
		fr := frameOf(t, f, r)
		if fr.x0 != x0 || fr.x1 != x1 {
			t.Errorf("root %s at [%d, %d), want [%d, %d)", tr.Nodes.Name(r.Node), fr.x0, fr.x1, x0, x1)
		}
		at += r.Weight
	}
	if fr := frameOf(t, f, tr.Roots()[0]); fr.x1 != 99 || tr.Nodes.Name(tr.Roots()[0].Node) != "main.cpuPhase.func1" {
		t.Errorf("main.cpuPhase.func1 ends at %d, want 99", fr.x1)
	}
	// Under main.cpuPhase.func1.1: runFib, runHash, runStrings, runSort.
	top := node(t, tr, "main.cpuPhase.func1", "runtime/pprof.Do", "main.cpuPhase.func1.1")
	x := 0
	var lo int64
	for _, k := range tr.Children(top) {
		fr := frameOf(t, f, k)
		x0, x1 := cells(lo, k.Weight, scale)
		if fr.x0 != x0 || fr.x1 != x1 || fr.x0 != x {
			t.Errorf("%s at [%d, %d), want [%d, %d)", tr.Nodes.Name(k.Node), fr.x0, fr.x1, x0, x1)
		}
		x, lo = x1, lo+k.Weight
	}
	if x != 99 {
		t.Errorf("the four phases end at %d, want 99", x)
	}

	checkChildren(t, f)
}

// checkChildren checks every frame's children in f's layout.
func checkChildren(t *testing.T, f *Flame) {
	t.Helper()
	lay := f.lay
	for p := lay.top; p < len(lay.frames); p++ {
		parent := &lay.frames[p]
		if parent.kind == frameNarrow {
			if parent.c0 != parent.c1 {
				t.Errorf("a narrow run has children")
			}
			continue
		}
		var kids []*analysis.TreeNode
		if parent.n == nil {
			kids = f.tree.Roots()
		} else {
			kids = f.tree.Children(parent.n)
		}
		kids = byWeight(kids)
		var sum int64
		for _, k := range kids {
			sum += k.Weight
		}
		x := parent.x0
		if len(kids) > 0 {
			x, _ = cells(parent.lo+parent.w-sum, 0, lay.scale)
		}
		drawn := 0
		for c := parent.c0; c < parent.c1; c++ {
			ch := &lay.frames[c]
			if ch.parent != p || lay.rowOf(c) != lay.rowOf(p)+1 {
				t.Fatalf("frame %d: parent %d, row %d; want %d, %d", c, ch.parent, lay.rowOf(c), p, lay.rowOf(p)+1)
			}
			if ch.x0 != x || ch.x1 <= ch.x0 || ch.x1 > parent.x1 {
				t.Errorf("child %d of %d at [%d, %d), want from %d to at most %d", c, p, ch.x0, ch.x1, x, parent.x1)
			}
			x = ch.x1
			if ch.kind == frameNarrow {
				if c != parent.c1-1 || ch.hidden != len(kids)-drawn || ch.x1 != parent.x1 {
					t.Errorf("narrow run of %d at [%d, %d) hides %d, want the last %d of %d up to %d",
						p, ch.x0, ch.x1, ch.hidden, len(kids)-drawn, len(kids), parent.x1)
				}
				for _, k := range kids[drawn:] {
					if float64(k.Weight)*lay.scale >= 1 {
						t.Errorf("%s (%d wide) is in a narrow run", f.tree.Nodes.Name(k.Node), k.Weight)
					}
				}
				continue
			}
			if ch.n != kids[drawn] {
				t.Errorf("child %d of %d is %s, want %s", c-parent.c0, p, f.tree.Nodes.Name(ch.n.Node), f.tree.Nodes.Name(kids[drawn].Node))
			}
			if float64(ch.n.Weight)*lay.scale < 1 {
				t.Errorf("%s is narrower than a cell but drawn", f.tree.Nodes.Name(ch.n.Node))
			}
			drawn++
		}
		if drawn == len(kids) && len(kids) > 0 && x != parent.x1 {
			t.Errorf("the children of %d end at %d, not under its end %d", p, x, parent.x1)
		}
	}
}

// TestFlameNarrow: at 40 columns many frames are below a cell; they show
// as shaded runs, with nothing laid out under them.
func TestFlameNarrow(t *testing.T) {
	f, _ := cpuFlame(t, 40, 60)
	checkChildren(t, f)
	lines := strings.Split(f.View(), "\n")
	runs := 0
	for i := range f.lay.frames {
		fr := &f.lay.frames[i]
		if fr.kind != frameNarrow {
			continue
		}
		runs++
		line := []rune(ansi.Strip(lines[1+f.lay.rowOf(i)]))
		if got := string(line[fr.x0:fr.x1]); got != strings.Repeat("░", fr.x1-fr.x0) {
			t.Errorf("narrow run at row %d [%d, %d) shows %q", f.lay.rowOf(i), fr.x0, fr.x1, got)
		}
		var hidden int64
		for _, k := range byWeight(f.tree.Children(f.lay.frames[fr.parent].n))[len(f.tree.Children(f.lay.frames[fr.parent].n))-fr.hidden:] {
			hidden += k.Weight
		}
		if hidden != fr.w {
			t.Errorf("narrow run weighs %d, its %d frames %d", fr.w, fr.hidden, hidden)
		}
	}
	if runs < 5 {
		t.Errorf("%d narrow runs at 40 columns:\n%s", runs, f.View())
	}
	// At 1000 columns there are fewer.
	wide, _ := cpuFlame(t, 1000, 60)
	checkChildren(t, wide)
	if len(wide.lay.frames) <= len(f.lay.frames) {
		t.Errorf("%d frames at 1000 columns, %d at 40", len(wide.lay.frames), len(f.lay.frames))
	}
}

func TestFlameMoves(t *testing.T) {
	f, tr := cpuFlame(t, 100, 40)
	if c := cursorName(f); c != "root" {
		t.Fatalf("opens on %q, want the root", c)
	}
	for _, step := range []struct{ key, want string }{
		{"<down>", "main.cpuPhase.func1"},
		{"<down>", "runtime/pprof.Do"},
		{"j", "main.cpuPhase.func1.1"},
		{"<down>", "main.runFib"},
		{"<right>", "main.runHash"},
		{"l", "main.runStrings"},
		{"<right>", "main.runSort"},
		{"<left>", "main.runStrings"},
		{"h", "main.runHash"},
		{"<left>", "main.runFib"},
		{"<left>", "main.runFib"}, // the first on its row
		{"<up>", "main.cpuPhase.func1.1"},
		{"k", "runtime/pprof.Do"},
		{"g", "root"},
		{"<up>", "root"},
	} {
		press(t, f, step.key)
		if c := cursorName(f); c != step.want {
			t.Fatalf("after %s: cursor on %q, want %q", step.key, c, step.want)
		}
	}
	// G goes down the heaviest path as far as it is drawn.
	press(t, f, "G")
	path := tr.HeaviestPath(tr.Roots()[0])
	n := f.cursorNode()
	if n == nil || n.Depth >= len(path) || f.tree.Nodes.Name(n.Node) != tr.Nodes.Name(path[n.Depth].Node) || n.Depth < 10 {
		t.Fatalf("G: cursor on %s", cursorName(f))
	}
	if f.lay.below(f.cur) >= 0 {
		t.Errorf("G stopped above a drawn child")
	}
	// right walks the whole row, also past other parents' frames.
	press(t, f, "g", "<down>", "<down>", "<down>", "<down>", "<down>")
	row := f.lay.rowOf(f.cur)
	seen := 1
	for prev := f.cur; ; prev = f.cur {
		press(t, f, "<right>")
		if f.cur == prev {
			break
		}
		if f.lay.rowOf(f.cur) != row || f.lay.frames[f.cur].kind == frameNarrow {
			t.Fatalf("right left the row or stopped on a narrow run")
		}
		seen++
	}
	want := 0
	for i := f.lay.rows[row]; i < f.lay.rows[row+1]; i++ {
		if f.lay.frames[i].kind != frameNarrow {
			want++
		}
	}
	if seen != want {
		t.Errorf("right visited %d frames of row %d, which has %d", seen, row, want)
	}
}

func TestFlameZoom(t *testing.T) {
	const w = 100
	f, tr := cpuFlame(t, w, 40)
	enter, esc, bs := tea.KeyMsg{Type: tea.KeyEnter}, tea.KeyMsg{Type: tea.KeyEsc}, tea.KeyMsg{Type: tea.KeyBackspace}
	if !f.Claims(enter) || f.Claims(esc) || f.Claims(bs) {
		t.Fatalf("unzoomed: claims enter %v, esc %v, backspace %v; want only enter", f.Claims(enter), f.Claims(esc), f.Claims(bs))
	}
	press(t, f, "<enter>") // on the root: nothing to zoom into
	if z, depth := f.Zoomed(); z != "" || depth != 0 {
		t.Fatalf("enter on the root zoomed")
	}
	press(t, f, "<down>", "<down>", "<down>", "<down>", "<right>", "<right>", "<enter>")
	z, depth := f.Zoomed()
	if z != "main.runStrings" || depth != 1 || cursorName(f) != "main.runStrings" {
		t.Fatalf("zoomed on %s (%d deep), cursor on %s", cursorName(f), depth, cursorName(f))
	}
	if !f.Claims(esc) || !f.Claims(bs) {
		t.Errorf("zoomed: esc and backspace not claimed")
	}
	// The zoomed frame fills the width under its ancestors; its subtree
	// is laid out at its own scale.
	rs := node(t, tr, "main.cpuPhase.func1", "runtime/pprof.Do", "main.cpuPhase.func1.1", "main.runStrings")
	if top := f.lay.frames[f.lay.top]; f.lay.top != 4 || top.x0 != 0 || top.x1 != w || top.n != f.zoom {
		t.Fatalf("zoomed frame %d at [%d, %d)", f.lay.top, top.x0, top.x1)
	}
	for i := 0; i < f.lay.top; i++ {
		if fr := f.lay.frames[i]; fr.x0 != 0 || fr.x1 != w || f.lay.rowOf(i) != i {
			t.Errorf("ancestor %d at [%d, %d), row %d", i, fr.x0, fr.x1, f.lay.rowOf(i))
		}
	}
	scale := float64(w) / float64(rs.Weight)
	bsNode := node(t, tr, "main.cpuPhase.func1", "runtime/pprof.Do", "main.cpuPhase.func1.1", "main.runStrings", "main.buildStrings")
	var lo int64
	for _, k := range tr.Children(bsNode) {
		x0, x1 := cells(lo, k.Weight, scale)
		if x1 == x0 {
			break
		}
		if fr := frameOf(t, f, k); fr.x0 != x0 || fr.x1 != x1 {
			t.Errorf("zoomed: %s at [%d, %d), want [%d, %d)", tr.Nodes.Name(k.Node), fr.x0, fr.x1, x0, x1)
		}
		lo += k.Weight
	}
	checkChildren(t, f)
	// sort.Strings has 10.21% of 24.65%: 41 columns.
	if fr := frameOf(t, f, node(t, tr, "main.cpuPhase.func1", "runtime/pprof.Do", "main.cpuPhase.func1.1", "main.runStrings", "main.buildStrings", "sort.Strings")); fr.x1-fr.x0 != 41 {
		t.Errorf("sort.Strings is %d wide zoomed, want 41", fr.x1-fr.x0)
	}

	// Deeper, then back out one zoom at a time.
	press(t, f, "<down>", "<down>", "<enter>")
	if z, depth := f.Zoomed(); z != "sort.Strings" || depth != 2 {
		t.Fatalf("second zoom on %s, %d deep", cursorName(f), depth)
	}
	press(t, f, "<down>")
	press(t, f, "<backspace>")
	if z, depth := f.Zoomed(); z != "main.runStrings" || depth != 1 {
		t.Fatalf("backspace: zoomed on %v, %d deep", z, depth)
	}
	if c := cursorName(f); c != "slices.Sort[go.shape.[]string,go.shape.string]" {
		t.Errorf("backspace: cursor on %s, want where it was", c)
	}
	press(t, f, "<esc>")
	if z, depth := f.Zoomed(); z != "" || depth != 0 {
		t.Fatalf("esc: zoomed on %v, %d deep", z, depth)
	}
	if f.Claims(esc) || f.Claims(bs) {
		t.Errorf("unzoomed again: esc or backspace still claimed")
	}
	checkChildren(t, f)
	// Enter on an ancestor zooms out to it, as a new zoom.
	press(t, f, "<enter>")
	for cursorName(f) != "main.cpuPhase.func1" && f.cursorNode() != nil {
		press(t, f, "<up>")
	}
	press(t, f, "<enter>")
	if z, depth := f.Zoomed(); z != "main.cpuPhase.func1" || depth != 2 {
		t.Fatalf("enter on an ancestor: zoomed on %s, %d deep", cursorName(f), depth)
	}
}

func TestFlameSearch(t *testing.T) {
	f, _ := cpuFlame(t, 100, 40)
	re := regexp.MustCompile(`^main\.(quicksort|partition)$`)
	if !f.SetSearch(re) {
		t.Fatal("no match")
	}
	// The matches, row by row and left to right.
	var want []int
	for i, fr := range f.lay.frames {
		if fr.n != nil && re.MatchString(f.tree.Nodes.Name(fr.n.Node)) {
			want = append(want, i)
		}
	}
	if len(want) < 6 {
		t.Fatalf("%d matches", len(want))
	}
	for k := 1; k < len(want); k++ {
		a, b := &f.lay.frames[want[k-1]], &f.lay.frames[want[k]]
		if ra, rb := f.lay.rowOf(want[k-1]), f.lay.rowOf(want[k]); ra > rb || ra == rb && a.x0 >= b.x0 {
			t.Fatalf("matches out of order")
		}
	}
	if f.cur != want[0] {
		t.Errorf("search: cursor on frame %d, want %d", f.cur, want[0])
	}
	for k := 1; k <= len(want); k++ {
		f.NextMatch(1)
		if f.cur != want[k%len(want)] {
			t.Fatalf("n #%d: frame %d, want %d", k, f.cur, want[k%len(want)])
		}
	}
	f.NextMatch(-1)
	if f.cur != want[len(want)-1] {
		t.Errorf("N from the first: frame %d, want the last %d", f.cur, want[len(want)-1])
	}
	if !f.matched(want[2]) || f.matched(0) {
		t.Errorf("matched: wrong frames")
	}
	if f.SetSearch(regexp.MustCompile("nothing-like-this")) || f.SetSearch(nil) {
		t.Errorf("a search without matches reported one")
	}
}

func TestFlameReveal(t *testing.T) {
	f, _ := cpuFlame(t, 100, 40)
	f.Reveal("main.fib")
	n := f.cursorNode()
	if n == nil || cursorName(f) != "main.fib" || n.Depth != 6 {
		t.Fatalf("reveal main.fib: cursor on %s", cursorName(f))
	}
	widest := 0
	for _, fr := range f.lay.frames {
		if fr.n != nil && f.tree.Nodes.Name(fr.n.Node) == "main.fib" {
			widest = max(widest, fr.x1-fr.x0)
		}
	}
	if fr := f.lay.frames[f.cur]; fr.x1-fr.x0 != widest {
		t.Errorf("revealed a frame %d wide, the widest is %d", fr.x1-fr.x0, widest)
	}
	f.Reveal("runtime/pprof.Do") // the one under the root: 98.94%
	if n := f.cursorNode(); cursorName(f) != "runtime/pprof.Do" || n.Depth != 1 {
		t.Errorf("reveal runtime/pprof.Do: cursor on %s", cursorName(f))
	}
	if sel, ok := f.Selection(); !ok || sel != (Selection{Kind: SelFunction, Name: "runtime/pprof.Do"}) {
		t.Errorf("selection %+v", sel)
	}
	before := f.cur
	f.Reveal("no.such.function")
	if f.cur != before {
		t.Errorf("reveal of a missing function moved the cursor")
	}
	press(t, f, "g")
	if _, ok := f.Selection(); ok {
		t.Errorf("the root is a selection")
	}
}

func TestFlameMouse(t *testing.T) {
	f, tr := cpuFlame(t, 100, 12) // 11 rows of graph: it scrolls
	clock := time.Unix(0, 0)
	f.click.now = func() time.Time { return clock }
	click := func(x, y int) {
		run(t, f, f.Update(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}))
	}
	hash := frameOf(t, f, node(t, tr, "main.cpuPhase.func1", "runtime/pprof.Do", "main.cpuPhase.func1.1", "main.runHash"))
	y := 1 + 4 // the detail line, then rows 0-4
	click(hash.x0+3, y)
	if c := cursorName(f); c != "main.runHash" {
		t.Fatalf("click: cursor on %s", c)
	}
	clock = clock.Add(time.Second)
	click(hash.x0+3, y) // too late for a double click
	if z, _ := f.Zoomed(); z != "" {
		t.Fatalf("two clicks a second apart zoomed")
	}
	clock = clock.Add(300 * time.Millisecond)
	click(hash.x1-1, y)
	if z, _ := f.Zoomed(); z != "main.runHash" {
		t.Fatalf("double click: zoomed on %v", z)
	}
	press(t, f, "<esc>")
	// The wheel scrolls a graph taller than the view.
	if f.lay.nrows() <= f.graphHeight() {
		t.Fatalf("%d rows fit in %d", f.lay.nrows(), f.graphHeight())
	}
	f.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if f.offset != 3 {
		t.Errorf("wheel: offset %d", f.offset)
	}
	if l := strings.Split(f.View(), "\n")[1]; strings.Contains(l, "root") {
		t.Errorf("scrolled, yet the root is on top: %q", l)
	}
	for range 20 {
		f.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	}
	if f.offset != f.lay.nrows()-f.graphHeight() {
		t.Errorf("wheel to the end: offset %d of %d rows in %d", f.offset, f.lay.nrows(), f.graphHeight())
	}
	// A move brings the cursor back into view.
	press(t, f, "<up>")
	if r := f.lay.rowOf(f.cur); r < f.offset || r >= f.offset+f.graphHeight() {
		t.Errorf("cursor row %d off screen (offset %d)", r, f.offset)
	}
}

// TestFlameDiff lays out a diff with growth and shrinkage: frames are
// as wide as the absolute changes below them, and nothing overflows.
func TestFlameDiff(t *testing.T) {
	for _, src := range []format.Sources{
		{Sources: []string{cpuProfile}, DiffBase: []string{"../testdata/go/cpu_labels_no_w0.pb.gz"}},
		{Sources: []string{"../testdata/notes/goroutine1.pb.gz"}, Base: []string{"../testdata/notes/goroutine2.pb.gz"}},
	} {
		f, tr := newTestFlame(t, 100, 40, src)
		var sum, weight int64
		for _, r := range tr.Roots() {
			sum += r.Total
			weight += r.Weight
		}
		if f.lay.sum != sum || f.lay.frames[0].w != weight {
			t.Errorf("%v: root %d wide showing %d, want %d showing %d", src, f.lay.frames[0].w, f.lay.sum, weight, sum)
		}
		checkChildren(t, f)
		lines := strings.Split(f.View(), "\n")
		if !strings.HasPrefix(lines[1], "Δ = new − base") {
			t.Errorf("no legend: %q", lines[1])
		}
		if want := "root " + f.signed(sum); !strings.HasPrefix(strings.TrimLeft(lines[2], "▏▶"), want) {
			t.Errorf("root row %q, want %q", lines[2], want)
		}
	}
}

func TestFlameView(t *testing.T) {
	for _, size := range [][2]int{{40, 7}, {80, 21}, {200, 47}} {
		f, _ := cpuFlame(t, size[0], size[1])
		press(t, f, "<down>", "<down>", "<down>", "<down>", "<enter>", "G")
		lines := strings.Split(f.View(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%v: line %d is %d wide: %q", size, i, w, l)
			}
		}
		// The cursor's row is on screen, marked.
		if r := f.lay.rowOf(f.cur) - f.offset; r < 0 || !strings.Contains(lines[1+r], "▶") {
			t.Errorf("%v: cursor row %d not marked:\n%s", size, r, f.View())
		}
		if !strings.HasPrefix(lines[0], "▶ main.") || size[0] >= 80 && !strings.Contains(lines[0], "zoomed ×1") {
			t.Errorf("%v: detail line %q", size, lines[0])
		}
	}
}

func TestFlameDetail(t *testing.T) {
	f, _ := cpuFlame(t, 120, 40)
	if got, want := f.detail(), "▶ root  cum 2.84s (100%)"; got != want {
		t.Errorf("root detail %q, want %q", got, want)
	}
	f.Reveal("main.hashBlock")
	if got, want := f.detail(), "▶ main.hashBlock  flat 120ms (4.23%)  cum 690ms (24.30%)"; got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
}

func TestFitFrameName(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    int
		want string
	}{
		{"main.fib", 20, "main.fib"},
		{"slices.pdqsortOrdered[go.shape.string]", 30, "slices.pdqsortOrdered[…]"},
		{"slices.pdqsortOrdered[go.shape.string]", 20, "pdqsortOrdered[…]"},
		{"github.com/pprof-tui/pprof-tui/analysis.(*Tree).group", 30, "analysis.(*Tree).group"},
		{"github.com/pprof-tui/pprof-tui/analysis.(*Tree).group", 15, "(*Tree).group"},
		{"github.com/pprof-tui/pprof-tui/analysis.(*Tree).group", 6, "group"},
		{"github.com/pprof-tui/pprof-tui/analysis.(*Tree).group", 4, "…oup"},
		{"runtime.mallocgc", 8, "mallocgc"},
		{"runtime.mallocgc", 5, "…ocgc"},
		{"000000000040fa72 <unknown>", 26, "000000000040fa72 <unknown>"},
		{"000000000040fa72 <unknown>", 20, "000000000040fa72"},
		{"000000000040fa72 <unknown>", 7, "…40fa72"},
		{"<unknown>", 5, "…own>"},
	} {
		if got := fitFrameName(tc.name, tc.w); got != tc.want {
			t.Errorf("fitFrameName(%q, %d) = %q, want %q", tc.name, tc.w, got, tc.want)
		}
	}
}

func TestFlamePackage(t *testing.T) {
	for name, want := range map[string]string{
		"main.fib":                     "main",
		"main.(*T).m":                  "main",
		"runtime/pprof.Do":             "runtime/pprof",
		"github.com/x/y.(*T).M":        "github.com/x/y",
		"slices.sort[go.shape.string]": "slices",
		"std::vector<int>::push_back":  "std",
		"[libc.so.6]":                  "[libc.so.6]",
	} {
		if got := flamePackage(name); got != want {
			t.Errorf("flamePackage(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestFlameNarrowRun: the arrows stop on a run of frames narrower than a
// cell; the detail line counts them and their value, and enter zooms
// into their parent, where they get room.
func TestFlameNarrowRun(t *testing.T) {
	f, _ := cpuFlame(t, 60, 20)
	at := -1
	for i, fr := range f.lay.frames {
		if fr.kind == frameNarrow && f.lay.frames[fr.parent].n != nil && fr.x0 > f.lay.frames[fr.parent].x0 {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("no narrow run with a function above it at 60 columns")
	}
	fr := f.lay.frames[at]
	parent := f.tree.Nodes.Name(f.lay.frames[fr.parent].n.Node)
	// Reach it with the arrows: from its left neighbour, one step right.
	f.cur = at - 1
	press(t, f, "<right>")
	if f.cur != at {
		t.Fatalf("→ from the run's neighbour went to frame %d, not the run %d", f.cur, at)
	}
	if _, ok := f.Selection(); ok {
		t.Errorf("a narrow run is a function selection")
	}
	detail := strings.Split(f.View(), "\n")[0]
	want := fmt.Sprintf("░ %d more callees", fr.hidden)
	if !strings.Contains(detail, want) || !strings.Contains(detail, "together "+f.value(fr.w)) {
		t.Errorf("detail line %q, want %q… together %s", detail, want, f.value(fr.w))
	}
	if !strings.Contains(detail, "enter zooms in") {
		t.Errorf("detail line %q does not say enter zooms in", detail)
	}
	press(t, f, "<enter>")
	if z, _ := f.Zoomed(); z != parent {
		t.Errorf("enter on the run zoomed on %q, want its parent %q", z, parent)
	}
}

// TestFlameNarrowUnderZoom: a narrow run under the frame that fills the
// width cannot be widened; its detail line points to the Tree view
// instead of promising a zoom, and enter changes nothing.
func TestFlameNarrowUnderZoom(t *testing.T) {
	// One heavy root and 300 light ones, in folded stacks.
	var b strings.Builder
	b.WriteString("main;work 10000\n")
	for i := range 300 {
		fmt.Fprintf(&b, "light%d;leaf 1\n", i)
	}
	path := filepath.Join(t.TempDir(), "roots.folded")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := newTestFlame(t, 100, 10, format.Sources{Sources: []string{path}})
	at := -1
	for i, fr := range f.lay.frames {
		if fr.kind == frameNarrow && f.lay.frames[fr.parent].n == nil {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no narrow run under the root:\n%s", f.View())
	}
	f.cur = at
	detail := strings.Split(f.View(), "\n")[0]
	if strings.Contains(detail, "enter zooms in") || !strings.Contains(detail, "Tree view lists them") {
		t.Errorf("detail line %q", detail)
	}
	if cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter}); cmd != nil {
		t.Errorf("enter on the run asked for a new layout")
	}
	if z, d := f.Zoomed(); z != "" || d != 0 {
		t.Errorf("enter zoomed to %q (depth %d)", z, d)
	}
}
