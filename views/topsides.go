package views

import (
	"cmp"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Side by side: in a diff whose two profiles the root can give apart
// (Common.Sides), a Top view at least sideBySideW columns wide shows the
// base's table and the new profile's next to each other, a function's
// row at the same line in both, in the diff table's order (so the two
// scroll together, and the cursor, the sort and the search are the diff
// table's).

// sideBySideW is the narrowest Top that shows the two tables.
const sideBySideW = 160

// topSides is each function's flat and cum in the base and in the new
// profile, by name, and the two totals.
type topSides struct {
	base, new           map[string][2]int64
	baseTotal, newTotal int64
}

// sideTops computes topSides from the two profiles' engines.
func sideTops(sides func() (newE, baseE *analysis.Engine, err error), opt analysis.Options) (*topSides, error) {
	// The tables are looked up by name: a row trimmed from a side would
	// read as absent from it.
	opt.NodeFraction, opt.NodeCount = 0, 0
	nt, bt, err := onSides(sides, func(e *analysis.Engine) (*analysis.Top, error) { return e.Top(opt) })
	if err != nil {
		return nil, err
	}
	byName := func(t *analysis.Top) map[string][2]int64 {
		m := make(map[string][2]int64, len(t.Rows))
		for _, r := range t.Rows {
			m[t.Nodes.Name(r.Node)] = [2]int64{r.Flat, r.Cum}
		}
		return m
	}
	return &topSides{base: byName(bt), new: byName(nt), baseTotal: bt.Total, newTotal: nt.Total}, nil
}

// sidesState is the Top view's Query state: whether its result holds
// the two tables.
func (t *Top) sidesState() string {
	if t.wantSides() {
		return "side by side"
	}
	return ""
}

// wantSides reports whether the view is to show the two tables.
func (t *Top) wantSides() bool {
	return t.c.Diff && t.c.Sides != nil && t.width >= sideBySideW
}

// sidesView draws the two tables, each half the width.
func (t *Top) sidesView() string {
	st := t.c.Styles
	half := (t.width - 3) / 2
	cols := topColumns{valW: t.valW, pctW: t.pctW, flatPct: true}
	head := func(title string) string {
		var h strings.Builder
		h.WriteString(padLeft("flat", cols.valW) + " " + padLeft("flat%", cols.pctW) + " " +
			padLeft("cum", cols.valW) + " " + padLeft("cum%", cols.pctW) + "  " + title)
		return st.Header.Render(PadRight(ansi.Truncate(h.String(), half, "…"), half))
	}
	sep := st.Dim.Render(" │ ")
	lines := []string{head("name — base") + sep + head("name — new")}
	if len(t.order) == 0 {
		lines = append(lines, st.Dim.Render("  no samples match the current options"))
		return fillLines(lines, t.height)
	}
	from, to := t.l.visible()
	for i := from; i < to; i++ {
		r := &t.top.Rows[t.order[i]]
		name := t.top.Nodes.Name(r.Node)
		sel := i == t.l.cursor
		b, bok := t.sides.base[name]
		n, nok := t.sides.new[name]
		lines = append(lines, t.sideRow(name, b, bok, t.sides.baseTotal, cols, half, sel)+sep+
			t.sideRow(name, n, nok, t.sides.newTotal, cols, half, sel))
	}
	return fillLines(lines, t.height)
}

// sideRow is one half's row: a function's flat and cum in one profile
// with their shares of its total (blank where the function is not in
// it), then its name.
func (t *Top) sideRow(name string, v [2]int64, ok bool, total int64, cols topColumns, w int, sel bool) string {
	st := t.c.Styles
	var cells []cell
	if ok {
		cells = []cell{
			{text: padLeft(t.value(v[0]), cols.valW), kind: cellHeat, heat: pct(v[0], total)},
			{text: padLeft(share(v[0], total), cols.pctW), kind: cellHeat, heat: pct(v[0], total)},
			{text: padLeft(t.value(v[1]), cols.valW), kind: cellHeat, heat: pct(v[1], total)},
			{text: padLeft(share(v[1], total), cols.pctW), kind: cellHeat, heat: pct(v[1], total)},
		}
	} else {
		blank := func(w int) cell { return cell{text: padLeft("·", w), kind: cellDim} }
		cells = []cell{blank(cols.valW), blank(cols.pctW), blank(cols.valW), blank(cols.pctW)}
	}
	var b strings.Builder
	used := writeCells(&b, st, cells, sel) + 2
	nameW := max(1, w-used)
	shown := fitName(name, nameW)
	base := st.Plain
	if !ok {
		base = st.Dim
	}
	if sel {
		base = st.Selected
	}
	b.WriteString(base.Render("  "))
	b.WriteString(highlight(shown, t.m.re, base, st.Match))
	pad := nameW - ansi.StringWidth(shown)
	if sel {
		padSelected(&b, st, sel, pad)
	} else if pad > 0 {
		b.WriteString(strings.Repeat(" ", pad))
	}
	return b.String()
}

// withUnchanged returns the diff table top with a zero row added for
// every function of the two profiles it lacks (its value did not
// change), heaviest first, so that side by side every function of both
// has its line.
func withUnchanged(top *analysis.Top, sides *topSides) *analysis.Top {
	in := make(map[string]bool, len(top.Rows))
	for _, r := range top.Rows {
		in[top.Nodes.Name(r.Node)] = true
	}
	weight := func(name string) int64 { return max(abs(sides.new[name][1]), abs(sides.base[name][1])) }
	var names []string
	for _, m := range []map[string][2]int64{sides.new, sides.base} {
		for name := range m {
			if !in[name] {
				in[name] = true
				names = append(names, name)
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(weight(b), weight(a)), strings.Compare(a, b)) })
	out := *top
	out.Rows = slices.Clone(top.Rows)
	for _, id := range top.Nodes.Find(names) {
		if id >= 0 {
			out.Rows = append(out.Rows, analysis.Row{Node: id})
		}
	}
	return &out
}
