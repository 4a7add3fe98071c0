package views

import (
	"regexp"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Tree is the call tree: top-down (callees under callers) or inverted
// (callers under the functions that were on CPU), expanded on demand.
// It keeps a flat index of the expanded rows, so moving and drawing cost
// the visible rows only, whatever the size of the tree.
type Tree struct {
	c    *Common
	tree *analysis.Tree
	// pivotTrail is whether the tree is inverted (b) or the function it
	// pivots on (S: the tree of its callers, up, inverted, its roots the
	// function, above the tree of its callees, tree), and the steps
	// before.
	pivotTrail
	up        *analysis.Tree
	pivotFlat int64 // the pivot's flat, pprof's
	q         quantity
	// valW and pctW are the value and share columns' least widths: what
	// the roots need (see widths).
	valW, pctW int

	rows          []treeRow
	l             list
	m             matchSet
	counted       treeMatches // the search's matches, closed ones too
	width, height int
	opt           analysis.Options // what tree was computed for
}

type treeRow struct {
	n *analysis.TreeNode
	// guide is the drawing left of the node's own connector: one "│ "
	// or "  " per ancestor below the roots.
	guide string
	last  bool // the last of its siblings
	open  bool
	up    bool // in a pivot, a row of the callers' tree
}

// NewTree makes the Tree view.
func NewTree(c *Common) *Tree { return &Tree{c: c, pivotTrail: pivotTrail{steps: c.Steps}} }

func (t *Tree) Title() string { return "Tree" }
func (t *Tree) Init() tea.Cmd { return nil }

func (t *Tree) SetSize(w, h int) {
	t.width, t.height = w, h
	t.l.fit(h, 1)
}

func (t *Tree) ShortHelp() []key.Binding {
	k := t.c.Keys
	// space and e open a node with children (or close an open one).
	kids := false
	if t.tree != nil && len(t.rows) > 0 {
		r := t.rows[t.l.cursor]
		kids = r.open || !t.treeOf(t.l.cursor).Leaf(r.n)
	}
	f := filterable(t)
	// backspace is the view's on the trail (Claims), out of a pivot.
	back := offer(k.Back, t.backIsOurs(0))
	back.SetHelp("⌫", "back")
	return []key.Binding{offer(k.Toggle, kids), offer(k.Heaviest, kids), back, k.CollapseAll, k.Invert, offer(k.Drill, f), offer(k.Focus, f)}
}

func (t *Tree) Query(e *analysis.Engine, opt analysis.Options, sel string) (Job, string) {
	to := analysis.TreeOptions{Inverted: t.inverted}
	state := "top-down"
	if t.inverted {
		state = "inverted"
	}
	if t.pivot != "" {
		name := t.pivot
		return job(opt, func() (*treeResult, error) {
			p, err := e.Pivot(opt, name)
			if err != nil {
				return nil, err
			}
			// The first screen opens both halves' heaviest paths.
			if len(p.CallerRoots) > 0 {
				p.Callers.HeaviestPath(p.CallerRoots[0])
			}
			if rs := p.Callees.Roots(); len(rs) > 0 {
				p.Callees.HeaviestPath(rs[0])
			}
			return &treeResult{tree: p.Callees, up: p.Callers, flat: p.Flat}, nil
		}, t.setResult), "pivot " + name
	}
	near := t.nearNames(sel)
	return job(opt, func() (*treeResult, error) {
		tr, err := e.Tree(opt, to)
		if err != nil {
			return nil, err
		}
		r := &treeResult{tree: tr}
		if len(tr.Roots()) > 0 {
			// The first screen opens the heaviest path: group it here, off
			// the UI goroutine (tens of ms on a million samples).
			tr.HeaviestPath(tr.Roots()[0])
		}
		// Where the cursor goes: the selected function, else the nearest
		// of its neighbours the new tree has (a filter removed it).
		for _, name := range near {
			if r.keep = tr.Locate(func(id int32) bool { return tr.Nodes.FuncName(id) == name }); r.keep != nil {
				break
			}
		}
		return r, nil
	}, t.setResult), state
}

// treeResult is a tree and the node the cursor goes to on it; in a
// pivot, the callers' tree too (its roots are the function's).
type treeResult struct {
	tree *analysis.Tree
	keep *analysis.TreeNode
	up   *analysis.Tree
	flat int64
}

// nearReach is how many rows on each side of the cursor a new tree
// looks among for a survivor, when the selected function is gone.
const nearReach = 8

// nearNames lists the function names the cursor may go to on a new tree,
// best first: the selected function sel, then, when the cursor is on it,
// its neighbours in the direction of travel, then the others.
func (t *Tree) nearNames(sel string) []string {
	names := []string{}
	if sel != "" {
		names = append(names, sel)
	}
	if t.tree == nil || len(t.rows) == 0 || t.rowFunc(t.l.cursor) != sel {
		return names
	}
	dirs := [2]int{1, -1}
	if t.l.back {
		dirs = [2]int{-1, 1}
	}
	seen := map[string]bool{sel: true}
	for _, d := range dirs {
		for k := 1; k <= nearReach; k++ {
			i := t.l.cursor + d*k
			if i < 0 || i >= len(t.rows) {
				break
			}
			if n := t.rowFunc(i); !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// rowFunc is the function row i stands for, as Selection names it.
func (t *Tree) rowFunc(i int) string { return t.tree.Nodes.FuncName(t.rows[i].n.Node) }

func (t *Tree) HasResult() bool { return t.tree != nil }

func (t *Tree) setResult(r *treeResult, opt analysis.Options) {
	// The same options on new data (a live refresh): the nodes a person
	// opened stay open, and the selected row (the same path, else the
	// function) keeps its screen line, unless it is the first row, which
	// watches the top (list.follow). New options open on the hot path.
	var keepOpen map[string]bool
	var selPath string
	line, back, top := t.l.cursor-t.l.offset, t.l.back, t.l.cursor == 0
	if t.tree != nil && opt == t.opt && r.tree.Inverted == t.tree.Inverted && r.up == nil && t.up == nil {
		keepOpen = t.openPaths()
		// The cursor's path, when the cursor is on the shared selection
		// (r.keep's function; else Reveal moves to it afterwards).
		if len(t.rows) > 0 && (r.keep == nil || r.tree.Nodes.FuncName(r.keep.Node) == t.rowFunc(t.l.cursor)) {
			selPath = t.pathKey(t.rows[t.l.cursor].n)
		}
	}
	t.tree, t.opt, t.up, t.pivotFlat = r.tree, opt, r.up, r.flat
	// The roots' columns are measured at once: one by one, the 100,000
	// roots of an inverted tree (wide shape) were each formatted, 50 ms.
	var vs []int64
	t.q, vs = treeQuantity(t.c, t.tree, opt)
	t.valW = max(10, t.q.widest(vs...)+1)
	t.pctW = percentWidth(vs, t.tree.Total)
	if r.up != nil {
		t.pivotRows(true)
		return
	}
	t.rows = t.rows[:0]
	roots := t.tree.Roots()
	for i, r := range roots {
		t.rows = append(t.rows, treeRow{n: r, last: i == len(roots)-1})
	}
	t.l.cursor, t.l.offset = 0, 0
	t.l.setLen(len(t.rows))
	if keepOpen != nil {
		for i := 0; i < len(t.rows); i++ { // expand adds rows after i
			if keepOpen[t.pathKey(t.rows[i].n)] {
				t.expand(i)
			}
		}
	} else if len(t.rows) > 0 {
		// Open on the hot path: the heaviest root, down its heaviest children.
		t.expandHeaviest(0, false)
	}
	// Highlight the matches without moving to one.
	t.m.set(t.m.re, len(t.rows), t.rowName)
	if !t.moveToPath(selPath) && r.keep != nil {
		t.open(r.keep)
	}
	if keepOpen != nil {
		t.l.back = back
		if !top {
			t.l.keepLine(line)
		}
	}
}

// pivotRows lays out a pivot's rows: the callers' tree (its roots the
// function) above the callees'; opened on both heaviest
// paths, the cursor on the callees' root, when open.
func (t *Tree) pivotRows(open bool) {
	t.rows = t.rows[:0]
	upRoots := t.up.Roots()
	for i, r := range upRoots {
		t.rows = append(t.rows, treeRow{n: r, last: i == len(upRoots)-1, up: true})
	}
	down := len(t.rows)
	roots := t.tree.Roots()
	for i, r := range roots {
		t.rows = append(t.rows, treeRow{n: r, last: i == len(roots)-1})
	}
	t.l.cursor, t.l.offset = 0, 0
	t.l.setLen(len(t.rows))
	if open && down < len(t.rows) {
		t.expandHeaviest(down, false)
	}
	if open && down > 0 {
		before := len(t.rows)
		t.expandHeaviest(0, false)
		down += len(t.rows) - before
	}
	if down < len(t.rows) {
		t.l.moveTo(down)
	}
	t.m.set(t.m.re, len(t.rows), t.rowName)
}

// treeOf is the tree row i is a node of.
func (t *Tree) treeOf(i int) *analysis.Tree {
	if t.rows[i].up {
		return t.up
	}
	return t.tree
}

// recompute asks the root for a new result (inverted, pivoted).
func (t *Tree) recompute() { t.c.Ask(RecomputeMsg{t}) }

// Pivot pivots the tree on the function named name: its callers' tree
// above its callees', remembering the tree or the pivot before for
// going back.
func (t *Tree) Pivot(name string) {
	if t.pivotTo(name, nil) {
		t.recompute()
	}
}

// Claims takes backspace on the trail: back to the pivot before, or
// out of the pivot; unless a change of the options came after the
// trail's last step, which backspace undoes first.
func (t *Tree) Claims(msg tea.KeyMsg) bool {
	return key.Matches(msg, t.c.Keys.Back) && t.backIsOurs(0)
}

// moveToPath moves the cursor to the row whose pathKey is path and
// reports whether there was one.
func (t *Tree) moveToPath(path string) bool {
	if path == "" {
		return false
	}
	for i := range t.rows {
		if t.pathKey(t.rows[i].n) == path {
			t.l.moveTo(i)
			return true
		}
	}
	return false
}

// expand opens row i; it reports whether it had children.
func (t *Tree) expand(i int) bool {
	r := &t.rows[i]
	tr := t.treeOf(i)
	if r.open || tr.Leaf(r.n) {
		return false
	}
	t.rows = slices.Insert(t.rows, i+1, childRows(r, tr)...)
	t.l.setLen(len(t.rows))
	return true
}

// childRows opens row r of tree tr: the rows of its children, which go
// right after it.
func childRows(r *treeRow, tr *analysis.Tree) []treeRow {
	kids := tr.Children(r.n)
	guide := ""
	if r.n.Depth > 0 {
		guide = r.guide + "│ "
		if r.last {
			guide = r.guide + "  "
		}
	}
	add := make([]treeRow, len(kids))
	for k, c := range kids {
		add[k] = treeRow{n: c, guide: guide, last: k == len(kids)-1, up: r.up}
	}
	r.open = true
	return add
}

// collapse closes row i.
func (t *Tree) collapse(i int) {
	r := &t.rows[i]
	if !r.open {
		return
	}
	r.open = false
	j := i + 1
	for j < len(t.rows) && t.rows[j].n.Depth > r.n.Depth {
		j++
	}
	t.rows = append(t.rows[:i+1], t.rows[j:]...)
	t.l.setLen(len(t.rows))
}

// expandHeaviest opens the heaviest path below row i; with move, the
// cursor follows it to its end.
func (t *Tree) expandHeaviest(i int, move bool) {
	// Down the rows already open, then the levels to open, whose rows go
	// in as one block after row i: the rows after it (a hundred thousand
	// roots of an inverted tree) are moved once, not once per level.
	for t.rows[i].open && i+1 < len(t.rows) && t.rows[i+1].n.Depth > t.rows[i].n.Depth {
		i++ // the heaviest child comes first
	}
	tr := t.treeOf(i)
	var levels [][]treeRow
	for r := &t.rows[i]; !r.open && !tr.Leaf(r.n); {
		add := childRows(r, tr)
		if len(add) == 0 {
			break // its children are all cut (Options.NodeFraction)
		}
		levels = append(levels, add)
		r = &add[0]
	}
	last := i + len(levels)
	if len(levels) > 0 {
		// Each level's heaviest row, then the level below it, then the
		// level's other rows.
		var block []treeRow
		for _, add := range levels {
			block = append(block, add[0])
		}
		for k := len(levels) - 1; k >= 0; k-- {
			block = append(block, levels[k][1:]...)
		}
		t.rows = slices.Insert(t.rows, i+1, block...)
		t.l.setLen(len(t.rows))
	}
	if move {
		t.l.moveTo(last)
	}
}

func (t *Tree) parent(i int) int {
	d := t.rows[i].n.Depth
	for j := i - 1; j >= 0; j-- {
		if t.rows[j].n.Depth < d {
			return j
		}
	}
	return -1
}

func (t *Tree) Update(msg tea.Msg) tea.Cmd {
	k := t.c.Keys
	if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, k.Back) && len(t.back) > 0 {
		t.stepBack()
		t.recompute()
		return nil
	}
	if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, k.Invert) {
		t.invert(nil)
		t.recompute()
		return nil
	}
	if t.tree == nil {
		return nil
	}
	if t.l.navigate(k, msg, 1) {
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok || len(t.rows) == 0 {
		return nil
	}
	i := t.l.cursor
	changed := true
	switch {
	case key.Matches(km, k.Expand):
		if t.rows[i].open {
			if i+1 < len(t.rows) && t.rows[i+1].n.Depth > t.rows[i].n.Depth {
				t.l.moveTo(i + 1)
			}
		} else {
			t.expand(i)
		}
	case key.Matches(km, k.Collapse):
		if t.rows[i].open {
			t.collapse(i)
		} else if p := t.parent(i); p >= 0 {
			t.l.moveTo(p)
		}
	case key.Matches(km, k.Toggle):
		if t.rows[i].open {
			t.collapse(i)
		} else {
			t.expand(i)
		}
	case key.Matches(km, k.Heaviest):
		t.expandHeaviest(i, true)
	case key.Matches(km, k.CollapseAll) && t.up != nil:
		t.pivotRows(false)
	case key.Matches(km, k.CollapseAll):
		root := i
		for t.rows[root].n.Depth > 0 {
			root = t.parent(root)
		}
		rootNode := t.rows[root].n
		roots := t.tree.Roots()
		t.rows = t.rows[:0]
		for j, r := range roots {
			t.rows = append(t.rows, treeRow{n: r, last: j == len(roots)-1})
			if r == rootNode {
				t.l.cursor = j
			}
		}
		t.l.setLen(len(t.rows))
	default:
		changed = false
	}
	if changed && t.m.re != nil {
		t.m.set(t.m.re, len(t.rows), t.rowName)
	}
	return nil
}

func (t *Tree) rowName(i int) string { return t.tree.Nodes.Name(t.rows[i].n.Node) }

func (t *Tree) Selection() (Selection, bool) {
	if t.tree == nil || len(t.rows) == 0 {
		return Selection{}, false
	}
	n := t.rows[t.l.cursor].n
	return Selection{Kind: SelFunction, Name: t.tree.Nodes.FuncName(n.Node)}, true
}

// Cursor returns the node under the cursor. Exported for tui's tests,
// which drive the whole program.
func (t *Tree) Cursor() *analysis.TreeNode {
	if t.tree == nil || len(t.rows) == 0 {
		return nil
	}
	return t.rows[t.l.cursor].n
}

// SetSearch highlights the matching rows and moves to the first match
// at or after the cursor; when no open row matches, it opens the path to
// the match on the heaviest path through one (Tree.Locate).
func (t *Tree) SetSearch(re *regexp.Regexp) bool {
	if t.tree == nil {
		t.m.re = re
		return false
	}
	if t.m.search(&t.l, re, len(t.rows), t.rowName) || re == nil || len(t.rows) == 0 {
		return re != nil && len(t.m.rows) > 0
	}
	return t.open(t.tree.Locate(t.matcher(re)))
}

// matcher is whether re matches a node's name, by NodeSet id.
func (t *Tree) matcher(re *regexp.Regexp) func(int32) bool {
	return func(id int32) bool { return re.MatchString(t.tree.Nodes.Name(id)) }
}

// NextMatch moves to the next match in tree order, looking into closed
// nodes too (as SetSearch); the previous match is among the open rows.
func (t *Tree) NextMatch(dir int) bool {
	if dir < 0 || t.m.re == nil || len(t.rows) == 0 {
		return t.m.step(&t.l, dir, false)
	}
	ok := t.tree.Matching(t.matcher(t.m.re))
	if ok == nil {
		return false
	}
	return t.findAfter(t.rows[t.l.cursor].n, func(n *analysis.TreeNode) bool { return ok[n.Node] })
}

// Reveal selects the function named name: its first open row, else
// where the heaviest path through it meets it, opening that path.
func (t *Tree) Reveal(name string) {
	if t.tree == nil || name == "" || len(t.rows) == 0 {
		return
	}
	if sel, _ := t.Selection(); sel.Name == name {
		return
	}
	for i := range t.rows {
		if t.tree.Nodes.FuncName(t.rows[i].n.Node) == name {
			t.l.moveTo(i)
			return
		}
	}
	t.open(t.tree.Locate(func(id int32) bool { return t.tree.Nodes.FuncName(id) == name }))
}

// open moves the cursor to node n, opening its ancestors, and reports
// whether there was one.
func (t *Tree) open(n *analysis.TreeNode) bool {
	if n == nil {
		return false
	}
	t.l.moveTo(t.openPath(n))
	if t.m.re != nil {
		t.m.set(t.m.re, len(t.rows), t.rowName)
	}
	return true
}

// searchBudget bounds the nodes a search into closed parts of the tree
// visits: each visit groups the node's children, and the whole trie of a
// big profile is millions of nodes.
const searchBudget = 20000

// findAfter walks the tree in row order (preorder, heaviest child first)
// from the node after from, wrapping around once, and moves the cursor
// to the first node match accepts, opening its ancestors. It reports
// whether it found one within searchBudget nodes.
func (t *Tree) findAfter(from *analysis.TreeNode, match func(*analysis.TreeNode) bool) bool {
	roots := t.tree.Roots()
	n := t.preorderNext(from)
	for visited := 0; visited < searchBudget; visited++ {
		if n == nil {
			n = roots[0] // wrap
		}
		if match(n) {
			return t.open(n)
		}
		if n == from {
			return false
		}
		n = t.preorderNext(n)
	}
	return false
}

// preorderNext is the node after n in preorder, or nil after the last.
func (t *Tree) preorderNext(n *analysis.TreeNode) *analysis.TreeNode {
	if !t.tree.Leaf(n) {
		if kids := t.tree.Children(n); len(kids) > 0 {
			return kids[0]
		}
	}
	for n != nil {
		sibs := t.tree.Roots()
		if n.Parent != nil {
			sibs = t.tree.Children(n.Parent)
		}
		for i, s := range sibs {
			if s == n && i+1 < len(sibs) {
				return sibs[i+1]
			}
		}
		n = n.Parent
	}
	return nil
}

// openPath opens the ancestors of n and returns n's row.
func (t *Tree) openPath(n *analysis.TreeNode) int {
	var chain []*analysis.TreeNode
	for a := n; a != nil; a = a.Parent {
		chain = append(chain, a)
	}
	i := 0
	for k := len(chain) - 1; k >= 0; k-- {
		for i < len(t.rows) && t.rows[i].n != chain[k] {
			i++
		}
		if i == len(t.rows) {
			return 0 // not in the tree: cannot happen for a node of it
		}
		if k > 0 {
			t.expand(i)
			i++
		}
	}
	return i
}

func (t *Tree) View() string {
	if t.tree == nil {
		return fillLines([]string{t.c.Styles.Dim.Render("  computing…")}, t.height)
	}
	st := t.c.Styles
	total := t.tree.Total
	from, to := t.l.visible()
	// flat is where a path ends: the leaf top-down, but the outermost
	// caller in the inverted tree, where it would only confuse.
	flatPct := t.width >= 72 && !t.tree.Inverted
	showFlat := t.width >= 56 && !t.tree.Inverted
	valW, pctW := t.widths(from, to)
	if !flatPct {
		valW = min(valW, max(9, valW-1)) // narrow: no margin
	}
	var h strings.Builder
	h.WriteString(padLeft("cum", valW) + " " + padLeft("cum%", pctW))
	if showFlat {
		h.WriteString(" " + padLeft("flat", valW))
	}
	if flatPct {
		h.WriteString(" " + padLeft("flat%", pctW))
	}
	what := "top-down call tree"
	if t.tree.Inverted {
		what = "inverted tree (callers below)"
	}
	if t.up != nil {
		what = "pivot: callers, then callees"
	}
	if t.backIsOurs(0) {
		// Not while backspace undoes a change of the options made since.
		what += " · ⌫ back"
	}
	if t.tree.Cutoff > 0 {
		what += " · nodes under " + t.q.format(t.tree.Cutoff) + " hidden (nodefraction)"
	}
	h.WriteString("  " + what)
	head := st.Header.Render(PadRight(h.String(), t.width))
	if t.c.Diff {
		// The legend takes the place of the tree's description.
		used := ansi.StringWidth(h.String()) - ansi.StringWidth(what)
		head = st.Header.Render(h.String()[:len(h.String())-len(what)]) + st.DiffLegend(t.width-used)
	}
	lines := []string{head}
	if len(t.rows) == 0 {
		lines = append(lines, st.Dim.Render("  no samples match the current options"))
		return fillLines(lines, t.height)
	}
	value := t.q.format
	for i := from; i < to; i++ {
		r := &t.rows[i]
		n := r.n
		sel := i == t.l.cursor
		cells := []cell{
			valueCell(t.c, padLeft(value(n.Total), valW), n.Total, total),
			pctCell(t.c, padLeft(share(n.Total, total), pctW), n.Total, total),
		}
		switch {
		case r.up && showFlat:
			// A caller's self is where stacks start, no flat.
			cells = append(cells, cell{text: strings.Repeat(" ", valW)})
			if flatPct {
				cells = append(cells, cell{text: strings.Repeat(" ", pctW)})
			}
		case showFlat:
			self := n.Self
			if t.up != nil && n.Depth == 0 && len(t.tree.Roots()) == 1 {
				self = t.pivotFlat // the function's flat, wherever it recurses
			}
			cells = append(cells, valueCell(t.c, padLeft(value(self), valW), self, total))
			if flatPct {
				cells = append(cells, pctCell(t.c, padLeft(share(self, total), pctW), self, total))
			}
		}
		var b strings.Builder
		used := writeCells(&b, st, cells, sel)
		guide := "  " + r.guide
		if n.Depth > 0 {
			if r.last {
				guide += "└─"
			} else {
				guide += "├─"
			}
		}
		marker := "▸ "
		switch {
		case r.open:
			marker = "▾ "
		case t.treeOf(i).Leaf(n):
			marker = "  "
		}
		nameW := t.width - used - ansi.StringWidth(guide) - 2
		if nameW < 8 && n.Depth > 0 {
			// Deep in a narrow window: fold the guides rather than the name.
			guide = "  …" + strings.Repeat(" ", 1)
			nameW = t.width - used - ansi.StringWidth(guide) - 2
		}
		full := t.tree.Nodes.Name(n.Node)
		switch {
		case t.up != nil && n.Depth == 0 && r.up:
			full += "  ↑ its callers, each under what it calls"
		case t.up != nil && n.Depth == 0:
			full += "  ↓ its callees"
		}
		name := fitName(full, nameW)
		base, dim := st.Plain, st.Dim
		if t.c.Diff {
			base = st.DiffText(n.Total, total)
		}
		if sel {
			base, dim = st.Selected, st.Selected
		}
		b.WriteString(dim.Render(guide))
		b.WriteString(base.Render(marker))
		b.WriteString(highlight(name, t.m.re, base, st.Match))
		padSelected(&b, st, sel, nameW-ansi.StringWidth(name))
		lines = append(lines, b.String())
	}
	return fillLines(lines, t.height)
}

// Total is the percentage denominator of the data shown.
func (t *Tree) Total() int64 { return t.tree.Total }

// widths are the value and share columns' widths for rows from..to:
// what the roots need, or what a longer value on screen needs. A tree's
// nodes are grouped on demand, so the widths are not known for the whole
// tree; the columns widen with the screen's rows rather than let one push
// its row out of line.
func (t *Tree) widths(from, to int) (valW, pctW int) {
	valW, pctW = t.valW, t.pctW
	for i := from; i < to; i++ {
		n := t.rows[i].n
		valW = max(valW, t.q.widest(n.Total, n.Self)+1)
		pctW = max(pctW, len(share(n.Total, t.tree.Total)), len(share(n.Self, t.tree.Total)))
	}
	return valW, pctW
}

// RowFunc returns the function of the row d rows from the cursor, or "".
// Exported for tui's tests, which drive the whole program.
func (t *Tree) RowFunc(d int) string {
	i := t.l.cursor + d
	if t.tree == nil || i < 0 || i >= len(t.rows) {
		return ""
	}
	return t.rowFunc(i)
}

// openPaths names the open rows by their paths (see pathKey).
func (t *Tree) openPaths() map[string]bool {
	open := map[string]bool{}
	for i := range t.rows {
		if t.rows[i].open {
			open[t.pathKey(t.rows[i].n)] = true
		}
	}
	return open
}

// pathKey names node n by the names on its path from its root, which
// survive a new tree of the same options.
func (t *Tree) pathKey(n *analysis.TreeNode) string {
	var b strings.Builder
	for ; n != nil; n = n.Parent {
		b.WriteString(t.tree.Nodes.FuncName(n.Node))
		b.WriteByte(0)
	}
	return b.String()
}

// Scope is, in a pivot, its function's cum: what its callees' tree,
// the tree below it, accounts for.
func (t *Tree) Scope() (int64, bool) { return t.scope(t.tree, t.up) }
