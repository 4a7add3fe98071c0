package views

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Top is the flat table: flat, flat%, sum%, cum, cum% and name, the
// numbers of `pprof -top`.
type Top struct {
	c   *Common
	top *analysis.Top
	opt analysis.Options
	// base is each node's flat and cum in the base profile, for the
	// diff columns (nil unless a -diff_base profile is open).
	base map[int32][2]int64
	// sides is the two profiles' own tables, side by side (topsides.go).
	sides *topSides

	sortBy string                   // "flat", "cum" or "name"
	trend  func(name string) string // the live trend column, or nil
	order  []int                    // display order, indices into top.Rows
	sum    []int64                  // running flat sum in display order
	value  func(int64) string
	widest int // the longest value's width
	valW   int // the value columns' width
	pctW   int // the percentage columns' width (sum% too)

	l             list
	m             matchSet
	width, height int
}

// NewTop makes the Top view, sorted as opt.Sort says.
func NewTop(c *Common) *Top { return &Top{c: c, sortBy: "flat"} }

func (t *Top) Title() string { return "Top" }
func (t *Top) Init() tea.Cmd { return nil }

func (t *Top) SetSize(w, h int) {
	t.width, t.height = w, h
	t.l.fit(h, 1) // the column headings take a line
}

func (t *Top) ShortHelp() []key.Binding {
	k := t.c.Keys
	f := filterable(t)
	return []key.Binding{offer(k.Drill, f), offer(k.Focus, f), offer(k.Ignore, f), offer(k.Hide, f), k.Sort}
}

// topData is the Top view's result: the table (the deltas, in diff mode)
// and, in diff mode, the base profile's own values.
type topData struct {
	top, base *analysis.Top
	sides     *topSides
}

// Table returns the table shown (the deltas, in diff mode), or nil
// before the first result.
func (t *Top) Table() *analysis.Top { return t.top }

func (t *Top) Query(e *analysis.Engine, opt analysis.Options, _ string) (Job, string) {
	if t.c.Diff {
		var sides func() (newE, baseE *analysis.Engine, err error)
		if t.wantSides() {
			sides = t.c.Sides
		}
		return job(opt, func() (topData, error) {
			top, err := e.Top(opt)
			if err != nil {
				return topData{}, err
			}
			base, err := e.BaseTop(opt)
			d := topData{top: top, base: base}
			if err == nil && sides != nil {
				if d.sides, err = sideTops(sides, opt); err == nil {
					d.top = withUnchanged(top, d.sides)
				}
			}
			return d, err
		}, t.setResult), t.sidesState()
	}
	// Sorted by flat, the rows on screen are exact now and the root
	// asks for the rest once the table is up (see analysis.Top.Partial).
	// Sorted otherwise, or with no size yet, every row is needed now.
	rows := t.l.height
	if rows <= 0 || t.sortBy != "flat" {
		return job(opt, func() (topData, error) {
			top, err := e.Top(opt)
			return topData{top: top}, err
		}, t.setResult), ""
	}
	return job(opt, func() (topData, error) {
		top, err := e.TopFirst(opt, rows)
		return topData{top: top}, err
	}, t.setResult), ""
}

func (t *Top) HasResult() bool { return t.top != nil }

// Complete takes full, the complete table of the partial one shown
// (analysis.Top.Partial): the same rows with every cum and inline
// marker. In the same order (rows of equal flat and name may have come
// in another), the table is swapped and its columns measured again;
// otherwise it is taken as a new result, the selection following its row.
func (t *Top) Complete(full *analysis.Top) {
	if t.top == nil || !t.top.Partial() || len(full.Rows) != len(t.top.Rows) {
		return
	}
	same := t.sortBy == cmp.Or(t.opt.Sort, "flat")
	for i, r := range full.Rows {
		same = same && t.top.Rows[i].Node == r.Node
	}
	if !same {
		t.setResult(topData{top: full}, t.opt)
		return
	}
	t.top = full
	t.measure()
	t.resort()
}

func (t *Top) setResult(d topData, opt analysis.Options) {
	old, cur := t.nearRows()
	// The same options on new data (a live refresh): the selected row
	// keeps its screen line.
	same := t.top != nil && opt == t.opt
	if t.top == nil || opt.Sort != t.opt.Sort {
		// The sort setting changed (or this is the first table): the
		// view sorts as it says; o's order holds until then.
		t.sortBy = cmp.Or(opt.Sort, "flat")
	}
	t.base = nil
	t.top, t.sides = d.top, d.sides
	if d.base != nil {
		t.base = make(map[int32][2]int64, len(d.base.Rows))
		for _, r := range d.base.Rows {
			t.base[r.Node] = [2]int64{r.Flat, r.Cum}
		}
	}
	t.opt = opt
	t.measure()
	t.resort()
	t.l.setLen(len(t.order))
	t.follow(old, cur, same)
}

// measure sizes the value and percentage columns for the table's values.
// A partial table's unknown cum values are at most the sum of the flat
// values shown, which its widths allow for.
func (t *Top) measure() {
	vs := make([]int64, 0, 2*len(t.top.Rows)+1)
	for _, r := range t.top.Rows {
		vs = append(vs, r.Flat, r.Cum)
	}
	q := newQuantity(t.c, t.top.SampleType.Unit, t.opt)
	if t.top.Partial() {
		vs = append(vs, shownSum(t.top))
	}
	t.value = q.format
	t.widest = q.widest(vs...)
	t.valW = max(10, t.widest+1) // a blank for the cursor mark
	t.pctW = percentWidth(vs, t.top.Total)
}

// rowName is the name of the i'th row shown.
func (t *Top) rowName(i int) string { return t.top.Nodes.Name(t.top.Rows[t.order[i]].Node) }

// nearRows lists the names of the rows around the cursor, as far as
// list.follow looks for a surviving neighbour (a screen's height either
// way), and the cursor's index among them: the names of a table's
// million rows at the lines granularity are not made for that.
func (t *Top) nearRows() (names []string, cur int) {
	if t.top == nil {
		return nil, t.l.cursor
	}
	reach := max(1, t.l.height)
	from, to := max(0, t.l.cursor-reach), min(len(t.order), t.l.cursor+reach+1)
	for i := from; i < to; i++ {
		names = append(names, t.rowName(i))
	}
	return names, t.l.cursor - from
}

// follow keeps the cursor on the function it was on (old[cur]) after
// the rows changed, on the same screen line with keepLine (list.follow),
// and the search's highlights up to date without moving to a match.
func (t *Top) follow(old []string, cur int, keepLine bool) {
	// The old names' nodes are found in the new table (without making
	// a name per row: a million at the lines granularity), then their
	// rows: a map of every row's name cost 10 ms at 100,000 rows and
	// more at a million.
	nodes := t.top.Nodes.Find(old)
	row := make(map[int32]int, len(nodes))
	for _, n := range nodes {
		if n >= 0 {
			row[n] = -1
		}
	}
	for i, r := range t.order {
		if at, ok := row[t.top.Rows[r].Node]; ok && at < 0 {
			row[t.top.Rows[r].Node] = i
		}
	}
	t.l.follow(old, cur, func(name string) int {
		if k := slices.Index(old, name); k >= 0 && nodes[k] >= 0 {
			if i, ok := row[nodes[k]]; ok {
				return i
			}
		}
		return -1
	}, keepLine)
	t.m.set(t.m.re, len(t.order), t.rowName)
}

// SortBy sorts by "flat", "cum" or "name".
func (t *Top) SortBy(s string) {
	t.sortBy = s
	if t.top != nil {
		old, cur := t.nearRows()
		t.resort()
		t.follow(old, cur, false)
	}
}

// Sorted returns the sort order.
func (t *Top) Sorted() string { return t.sortBy }

// resort orders the rows by t.sortBy. The engine's order is pprof's for
// opt.Sort; the other orders use pprof's comparisons (|value| descending,
// then name, then the other value).
func (t *Top) resort() {
	rows := t.top.Rows
	t.order = make([]int, len(rows))
	for i := range t.order {
		t.order[i] = i
	}
	engineSort := t.opt.Sort
	if engineSort == "" {
		engineSort = "flat"
	}
	if t.sortBy != engineSort {
		less := func(a, b int) bool {
			ra, rb := &rows[a], &rows[b]
			fa, fb, ca, cb := abs(ra.Flat), abs(rb.Flat), abs(ra.Cum), abs(rb.Cum)
			switch t.sortBy {
			case "cum":
				if ca != cb {
					return ca > cb
				}
			case "flat":
				if fa != fb {
					return fa > fb
				}
			}
			if c := t.top.Nodes.CompareNames(ra.Node, rb.Node); c != 0 {
				return c < 0
			}
			if t.sortBy == "flat" && ca != cb {
				return ca > cb
			}
			if t.sortBy == "cum" && fa != fb {
				return fa > fb
			}
			return a < b
		}
		sort.SliceStable(t.order, func(i, j int) bool { return less(t.order[i], t.order[j]) })
	}
	t.sum = make([]int64, len(rows))
	var s int64
	for i, r := range t.order {
		s += rows[r].Flat
		t.sum[i] = s
	}
	t.pctW = max(t.pctW, percentWidth(t.sum, t.top.Total))
}

func (t *Top) Update(msg tea.Msg) tea.Cmd {
	if t.top == nil {
		return nil
	}
	if t.l.navigate(t.c.Keys, msg, 1) {
		return nil
	}
	if msg, ok := msg.(tea.KeyMsg); ok && key.Matches(msg, t.c.Keys.Sort) {
		next := map[string]string{"flat": "cum", "cum": "name", "name": "flat"}
		t.SortBy(next[t.sortBy])
		if t.top.Partial() {
			t.c.Ask(RecomputeMsg{t})
		}
	}
	return nil
}

func (t *Top) Selection() (Selection, bool) {
	if t.top == nil || len(t.order) == 0 {
		return Selection{}, false
	}
	r := t.top.Rows[t.order[t.l.cursor]]
	return Selection{Kind: SelFunction, Name: t.top.Nodes.FuncName(r.Node)}, true
}

func (t *Top) Reveal(name string) {
	if t.top == nil || name == "" {
		return
	}
	if sel, ok := t.Selection(); ok && sel.Name == name {
		return
	}
	for i, r := range t.order {
		if t.top.Nodes.FuncName(t.top.Rows[r].Node) == name {
			t.l.moveTo(i)
			return
		}
	}
}

// Cursor returns the row under the cursor. Exported for tui's tests,
// which drive the whole program.
func (t *Top) Cursor() (analysis.Row, bool) {
	if t.top == nil || len(t.order) == 0 {
		return analysis.Row{}, false
	}
	return t.top.Rows[t.order[t.l.cursor]], true
}

func (t *Top) SetSearch(re *regexp.Regexp) bool {
	if t.top == nil {
		t.m.re = re
		return false
	}
	return t.m.search(&t.l, re, len(t.order), t.rowName)
}

func (t *Top) NextMatch(dir int) bool {
	return t.m.step(&t.l, dir, false)
}

// topColumns decides which columns fit in width w.
type topColumns struct {
	valW, pctW    int
	flatPct, sumP bool
	// base and change are the diff columns: the base profile's cum, and
	// cum's change relative to it.
	base, change bool
}

// changeW is the width of the change column ("+123.4%").
const changeW = 8

func (t *Top) columns() topColumns {
	c := topColumns{valW: t.valW, pctW: t.pctW}
	switch {
	case t.width >= 72:
		c.flatPct, c.sumP = true, true
	case t.width >= 56:
		c.flatPct = true
	}
	if t.base != nil {
		c.change = t.width >= 80
		c.base = t.width >= 100
	}
	if t.width < 72 {
		// Narrow: the columns lose their margin, never a value's digits.
		c.valW = min(c.valW, max(9, t.widest))
	}
	return c
}

func (t *Top) View() string {
	if t.top == nil {
		return fillLines([]string{t.c.Styles.Dim.Render("  computing…")}, t.height)
	}
	if t.sides != nil && t.wantSides() {
		return t.sidesView()
	}
	cols := t.columns()
	trend := t.trend != nil && t.width >= 80
	lines := []string{t.headings(cols, trend)}
	if len(t.order) == 0 {
		lines = append(lines, t.c.Styles.Dim.Render("  no samples match the current options"))
		return fillLines(lines, t.height)
	}
	exact := t.top.ExactRows()
	from, to := t.l.visible()
	for i := from; i < to; i++ {
		lines = append(lines, t.row(i, cols, trend, exact))
	}
	return fillLines(lines, t.height)
}

// headings is the heading line, with an arrow on the sort column and,
// when it fits, a note of the nodes the options hide.
func (t *Top) headings(cols topColumns, trend bool) string {
	arrow := func(name, col string) string {
		if t.sortBy == col {
			return name + "↓"
		}
		return name
	}
	flatName, cumName := "flat", "cum"
	if t.c.Diff {
		flatName, cumName = "Δflat", "Δcum"
	}
	var h strings.Builder
	h.WriteString(padLeft(arrow(flatName, "flat"), cols.valW))
	if cols.flatPct {
		h.WriteString(" " + padLeft("flat%", cols.pctW))
	}
	if cols.sumP {
		h.WriteString(" " + padLeft("sum%", cols.pctW))
	}
	h.WriteString(" " + padLeft(arrow(cumName, "cum"), cols.valW))
	h.WriteString(" " + padLeft("cum%", cols.pctW))
	if cols.base {
		h.WriteString(" " + padLeft("base cum", cols.valW))
	}
	if cols.change {
		h.WriteString(" " + padLeft("change", changeW))
	}
	if trend {
		h.WriteString(" " + PadRight("trend", trendW))
	}
	h.WriteString("  " + arrow("name", "name"))
	for _, note := range t.droppedNotes() {
		if ansi.StringWidth(h.String())+2+ansi.StringWidth(note) <= t.width {
			h.WriteString("  " + note)
			break
		}
	}
	return t.c.Styles.Header.Render(PadRight(h.String(), t.width))
}

// row is table row i (of t.order): its value cells, then its name cut to
// the width they leave. exact is the table's ExactRows, passed in to be
// read once a frame: the rows of t.top.Rows from it on wait for their
// cum.
func (t *Top) row(i int, cols topColumns, trend bool, exact int) string {
	st := t.c.Styles
	total := t.top.Total
	r := &t.top.Rows[t.order[i]]
	sel := i == t.l.cursor
	cells := []cell{t.valueCell(padLeft(t.value(r.Flat), cols.valW), r.Flat)}
	if cols.flatPct {
		cells = append(cells, t.pctCell(padLeft(share(r.Flat, total), cols.pctW), r.Flat))
	}
	if cols.sumP {
		cells = append(cells, cell{text: padLeft(share(t.sum[i], total), cols.pctW), kind: cellDim})
	}
	if t.order[i] < exact {
		cells = append(cells,
			t.valueCell(padLeft(t.value(r.Cum), cols.valW), r.Cum),
			t.pctCell(padLeft(share(r.Cum, total), cols.pctW), r.Cum))
	} else {
		// Not summed yet (a partial table): being completed.
		cells = append(cells, cell{text: padLeft("…", cols.valW), kind: cellDim},
			cell{text: padLeft("…", cols.pctW), kind: cellDim})
	}
	if cols.base || cols.change {
		b := t.base[r.Node][1]
		if cols.base {
			cells = append(cells, cell{text: padLeft(t.value(b), cols.valW), kind: cellDim})
		}
		if cols.change {
			cells = append(cells, t.valueCell(padLeft(change(b, r.Cum), changeW), r.Cum))
		}
	}

	if trend {
		cells = append(cells, cell{text: PadRight(t.trend(t.top.Nodes.Name(r.Node)), trendW), kind: cellDim})
	}
	var b strings.Builder
	used := writeCells(&b, st, cells, sel)
	used += 2
	nameW := t.width - used
	inline := ""
	if r.Inline != analysis.NotInlined {
		inline = " (" + r.Inline.String() + ")"
	}
	name := fitName(t.top.Nodes.Name(r.Node), nameW)
	rest := nameW - ansi.StringWidth(name)
	if rest < len(inline) {
		inline = ""
	}
	base, tail := st.Plain, st.Dim
	if sel {
		base, tail = st.Selected, st.Selected
	}
	b.WriteString(base.Render("  "))
	b.WriteString(highlight(name, t.m.re, base, st.Match))
	if inline != "" {
		b.WriteString(tail.Render(inline))
	}
	padSelected(&b, st, sel, nameW-ansi.StringWidth(name)-len(inline))
	return b.String()
}

func (t *Top) valueCell(text string, v int64) cell { return valueCell(t.c, text, v, t.top.Total) }
func (t *Top) pctCell(text string, v int64) cell   { return pctCell(t.c, text, v, t.top.Total) }

// valueCell is the cell of value v of total: plain, or coloured by sign
// in a diff.
func valueCell(c *Common, text string, v, total int64) cell {
	if c.Diff {
		return cell{text: text, kind: cellDiff, delta: v, total: total}
	}
	return cell{text: text}
}

// pctCell is the cell of v's percentage of total: heat-coloured, or
// coloured by sign in a diff.
func pctCell(c *Common, text string, v, total int64) cell {
	if c.Diff {
		return cell{text: text, kind: cellDiff, delta: v, total: total}
	}
	return cell{text: text, heat: pct(v, total), kind: cellHeat}
}

// change is a delta's size relative to the base value: "+12.5%", "new"
// for what the base did not have, "gone" for what the new profile lost.
func change(base, delta int64) string {
	switch {
	case delta == 0:
		return "0%"
	case base == 0:
		return "new"
	case base+delta == 0:
		return "gone"
	}
	return fmt.Sprintf("%+.1f%%", float64(delta)/float64(base)*100)
}

// cell is one column of a row, and how to colour it.
type cell struct {
	text string
	heat float64 // the percentage, for cellHeat
	kind int
	// delta of total, for cellDiff
	delta, total int64
}

const (
	cellPlain = iota
	cellHeat
	cellDim
	cellDiff
)

func (c cell) render(st *Styles, text string, selected bool) string {
	switch {
	case selected:
		return st.Selected.Render(text)
	case c.kind == cellHeat:
		return st.Heat(c.heat).Render(text)
	case c.kind == cellDiff:
		return st.DiffText(c.delta, c.total).Render(text)
	case c.kind == cellDim:
		return st.Dim.Render(text)
	}
	return text
}

// Total is the percentage denominator of the data shown.
func (t *Top) Total() int64 { return t.top.Total }

// Window returns the cursor's row and the first row on screen.
// Exported for tui's tests, which drive the whole program.
func (t *Top) Window() (cursor, offset int) { return t.l.cursor, t.l.offset }

// RowName returns the name of the row d rows from the cursor, or "".
// Exported for tui's tests, which drive the whole program.
func (t *Top) RowName(d int) string {
	i := t.l.cursor + d
	if t.top == nil || i < 0 || i >= len(t.order) {
		return ""
	}
	return t.rowName(i)
}

// droppedNotes say in the headings when nodefraction or nodecount hide
// nodes, longest first: "(showing 5 of 2004 nodes: nodefraction=0.01)",
// then "(5 of 2004 nodes)" for a narrow window.
func (t *Top) droppedNotes() []string {
	all := t.top.AllNodes + t.top.DroppedNodes
	if len(t.top.Rows) >= all {
		return nil
	}
	var why []string
	if t.top.DroppedNodes > 0 {
		why = append(why, fmt.Sprintf("nodefraction=%g", t.opt.NodeFraction))
	}
	if len(t.top.Rows) < t.top.AllNodes {
		why = append(why, fmt.Sprintf("nodecount=%d", t.opt.NodeCount))
	}
	return []string{
		fmt.Sprintf("(showing %d of %d nodes: %s)", len(t.top.Rows), all, strings.Join(why, ", ")),
		fmt.Sprintf("(%d of %d nodes)", len(t.top.Rows), all),
	}
}

// trendW is the width of the trend column (live mode).
const trendW = 12

// SetTrend shows a trend column drawn by f for each function name (a
// sparkline of its value over the live snapshots); nil hides it.
func (t *Top) SetTrend(f func(name string) string) { t.trend = f }
